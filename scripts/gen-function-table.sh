#!/bin/sh
# gen-function-table.sh - writes the user guide's table of the functions of the
# job language (doc/user-guide.md, section 2) from the operation table: the
# lines between the guide's two marker lines become `tessera info --markdown`.
# Run it after adding or changing an operation; tests/cli/doc_functions.sh runs
# it with -o and fails when the guide differs from what it writes.
#
#   scripts/gen-function-table.sh [-o OUT] [TESSERA]
#
# TESSERA is the program (default: ./tessera). Without -o the guide is
# rewritten in place; with -o the guide with its new table goes to OUT, and
# the guide is only read.
set -eu

out=
if [ "${1:-}" = -o ]; then
  [ $# -ge 2 ] || { echo "gen-function-table.sh: -o needs a file" >&2; exit 2; }
  out=$2
  shift 2
fi
tessera=${1:-./tessera}
guide=$(cd "$(dirname "$0")/.." && pwd)/doc/user-guide.md
[ -n "$out" ] || out=$guide
begin='<!-- BEGIN tessera info --markdown (generated: scripts/gen-function-table.sh) -->'
end='<!-- END tessera info --markdown -->'

"$tessera" info --markdown >"$out.table" || {
  echo "gen-function-table.sh: $tessera info --markdown failed" >&2
  rm -f "$out.table"
  exit 1
}
# Everything outside the markers is kept; one pair of markers, in order.
if awk -v begin="$begin" -v end="$end" -v table="$out.table" '
  $0 == begin { print; while ((getline line <table) > 0) print line; inside = 1; n++; next }
  $0 == end { if (!inside) exit 1; inside = 0 }
  !inside { print }
  END { if (n != 1 || inside) exit 1 }' "$guide" >"$out.new" && [ -s "$out.table" ]; then
  rm -f "$out.table"
  mv "$out.new" "$out"
else
  rm -f "$out.table" "$out.new"
  echo "gen-function-table.sh: $guide needs one pair of lines" >&2
  echo "  $begin" >&2
  echo "  $end" >&2
  echo "(or $tessera info --markdown printed nothing)" >&2
  exit 1
fi
