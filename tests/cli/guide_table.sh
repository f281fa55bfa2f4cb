#!/bin/sh
# The user guide's "What happens when things go wrong" table (user-guide.md,
# section 11) names, on each line, the test that checks it and the name of
# that check: every such test must exist and contain that check, so that the
# table and the tests cannot drift apart.
. "${srcdir:-.}/tests/lib.sh"

guide="${srcdir:-.}/doc/user-guide.md"
[ -f "$guide" ] || fail "no doc/user-guide.md"
sed -n '/^### What happens when things go wrong/,/^## /p' "$guide" |
  grep '^| ' | grep -v '^| event |' | sed -n 's/.*| `\([^`]*\)`: "\(.*\)" |$/\1|\2/p' >rows
n=$(wc -l <rows)
[ "$n" -ge 10 ] || fail "the table has $n lines that name a test (expected at least 10)"
while IFS='|' read -r file check; do
  path="${srcdir:-.}/$file"
  if [ ! -f "$path" ]; then
    soft_fail "the table names $file, which does not exist"
  elif ! grep -qF -- "$check" "$path"; then
    soft_fail "the table names the check \"$check\" in $file, which has no such text"
  fi
done <rows
note "$n lines of the table, each naming an existing check"
finish
