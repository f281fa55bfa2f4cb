#!/bin/sh
# doc_elementwise.sh - the docs' lists of elementwise functions against the
# operation table: every elementwise function that `tessera info` lists
# (kernel/ew_table.h's rows and aliases) must be named in README.md, the user
# guide's function table (section 2), the language reference's elementwise
# table and the man page; and every function of the language reference's
# elementwise table must be one that `tessera info` lists. A row added to the
# table without its docs, or a doc naming a function that is gone, fails here.
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"

capture info.out info.err tsr info
[ "$RC" -eq 0 ] || fail "tessera info failed ($RC): $(cat info.err)"
awk '/^  [a-z_0-9]+ +elementwise /{print $1}' info.out >names
n=$(wc -l <names)
[ "$n" -ge 40 ] || fail "tessera info lists $n elementwise functions (expected at least 40)"

d="$srcdir/doc"
sed -n '/^### The functions of the job language/,/^### /p' "$d/user-guide.md" | grep '^| elementwise' >guide
sed -n '/^### Elementwise/,/^### /p' "$d/language.md" >lang
sed -n '/^\.SS Elementwise/,/^\.SS /p' "$d/tessera.1" | grep '^\.B ' >man
grep -A4 '^Functions:' "$srcdir/README.md" >readme
[ -s guide ] && [ -s lang ] && [ -s man ] && [ -s readme ] || fail "a doc's elementwise list was not found"

while read -r f; do
  for doc in readme guide lang; do
    grep -q "\`$f[\`(]" $doc || soft_fail "'$f' (tessera info) is missing from the elementwise list of $doc"
  done
  grep -Eq "(^\.B |, )$f\(" man || soft_fail "'$f' (tessera info) is missing from the man page's Elementwise"
done <names

# the other way: the language reference's table names only functions that exist
grep -o '`[a-z_0-9]*(x[12]*' lang | sed 's/^`//; s/(.*//' | sort -u >documented
while read -r f; do
  grep -qx "$f" names || soft_fail "doc/language.md documents '$f', which tessera info does not list"
done <documented
note "$n elementwise functions, each in the four docs"
finish
