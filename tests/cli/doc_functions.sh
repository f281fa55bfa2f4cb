#!/bin/sh
# doc_functions.sh - every function of the operation table, as `tessera info`
# lists it, is documented: in the user guide's table of the job language's
# functions (section 2), in the language reference and in the manual page.
# A function added to the table without its documentation fails here.
. "${srcdir:-.}/tests/lib.sh"

"$TESSERA" info >info.txt || fail "tessera info failed"
sed -n 's/^  \([a-z_0-9]*\)  *\(generator\|elementwise\|reduction\|array\) .*/\1/p' info.txt >names.txt
n=$(wc -l <names.txt)
[ "$n" -ge 40 ] || fail "tessera info lists $n functions (expected at least 40)"
sed -n '/^### The functions of the job language/,/^### /p' "$srcdir/doc/user-guide.md" >guide.txt
[ -s guide.txt ] || fail "no section 'The functions of the job language' in doc/user-guide.md"
while read -r name; do
  grep -qw -- "$name" guide.txt || soft_fail "'$name' is missing from the user guide's table of functions"
  grep -qw -- "$name" "$srcdir/doc/language.md" || soft_fail "'$name' is missing from doc/language.md"
  grep -qw -- "$name" "$srcdir/doc/tessera.1" || soft_fail "'$name' is missing from doc/tessera.1"
done <names.txt
note "$n functions, each in the user guide, the language reference and the manual page"
finish
