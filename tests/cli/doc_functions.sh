#!/bin/sh
# doc_functions.sh - every function of the operation table, as `tessera info`
# lists it, is documented: the user guide's table of the job language's
# functions (section 2) is exactly `tessera info --markdown`, as
# scripts/gen-function-table.sh writes it, and each function is in the
# language reference and in the manual page. A function added to the table, or
# a changed signature or description, without its documentation fails here.
. "${srcdir:-.}/tests/lib.sh"

"$TESSERA" info >info.txt || fail "tessera info failed"
sed -n 's/^  \([a-z_0-9]*\)  *\(generator\|elementwise\|reduction\|array\) .*/\1/p' info.txt >names.txt
n=$(wc -l <names.txt)
[ "$n" -ge 40 ] || fail "tessera info lists $n functions (expected at least 40)"

# The guide's table: regenerated here (in this test's directory, as the
# source tree may be read-only) and compared with the guide as it is.
"$TESSERA" info --markdown >table.md || fail "tessera info --markdown failed"
rows=$(grep -c '^| `' table.md || true)
expect_eq "$rows" "$n" "rows of tessera info --markdown (one per function of tessera info)"
sh "$srcdir/scripts/gen-function-table.sh" -o guide.md "$TESSERA" ||
  fail "scripts/gen-function-table.sh failed on doc/user-guide.md"
if ! diff -u "$srcdir/doc/user-guide.md" guide.md >guide.diff; then
  cat guide.diff >&2
  fail "doc/user-guide.md's table of functions differs from tessera info --markdown" \
    "(the diff above); run: $srcdir/scripts/gen-function-table.sh $TESSERA"
fi

while read -r name; do
  grep -qw -- "$name" "$srcdir/doc/language.md" || soft_fail "'$name' is missing from doc/language.md"
  grep -qw -- "$name" "$srcdir/doc/tessera.1" || soft_fail "'$name' is missing from doc/tessera.1"
done <names.txt
note "$n functions: the user guide's table is tessera info --markdown; each in the language reference and the manual page"
finish
