#!/usr/bin/env bash
# check-layers.sh - proves the layer rule of doc/design.md ("Layers"): every
# file under src/ includes tessera's headers only from its own folder or from
# the folders below it in the matrix below, with paths rooted at src/ (never
# "../"), and nothing but tessera.h sits at the top of src/.
#
#   scripts/check-layers.sh [SRCDIR]   check SRCDIR (default: src/ beside this script)
#
# Prints one line per violation and exits 1 if there is any; prints a summary
# and exits 0 otherwise. make check runs it (tests/util/layers.sh), and also
# runs it on a copy with a planted upward include, which must fail.
set -euo pipefail

src=${1:-$(cd "$(dirname "$0")/../src" && pwd)}
[ -d "$src" ] || { echo "check-layers.sh: no directory $src" >&2; exit 2; }

# folder -> the folders it may include from (besides itself). Top to bottom.
declare -A allow=(
  [cli]=""
  [job]="eval lang graph fuse plan exec linalg backend kernel mpi io util"
  [eval]="lang graph kernel util"
  [lang]="util"
  [linalg]="exec plan backend fuse graph kernel mpi util"
  [exec]="plan backend fuse graph kernel mpi io util"
  [io]="kernel mpi util"
  [plan]="fuse graph kernel util"
  [fuse]="graph kernel util"
  [graph]="kernel util"
  [cpu]="backend fuse graph kernel util"
  [gpu]="backend fuse graph kernel util"
  [backend]="fuse graph kernel util"
  [mpi]="util"
  [util]=""
  [kernel]=""
)
# Single files with one more folder, each with its reason.
declare -A allow_file=(
  # The NCCL transport the GPU backend plugs into mpi/'s exchanges.
  [gpu/gpu_nccl.cu]="mpi"
)
# Only the CLI and the job layer see the public API header.
public_ok="cli job"

bad=0
report() { echo "check-layers: $*"; bad=$((bad + 1)); }

for f in "$src"/*; do
  [ -f "$f" ] || continue
  case ${f##*/} in
    tessera.h) ;;
    *) report "src/${f##*/}: a file at the top of src/ (only tessera.h belongs there)" ;;
  esac
done

files=0
while IFS= read -r -d '' f; do
  rel=${f#"$src"/}
  dir=${rel%%/*}
  if [ -z "${allow[$dir]+set}" ]; then
    report "src/$rel: folder '$dir' is not in the layer map"
    continue
  fi
  files=$((files + 1))
  ok=" $dir ${allow[$dir]} ${allow_file[$rel]:-} "
  n=0
  while IFS= read -r line; do
    n=$((n + 1))
    case $line in
      *'#'*include*'"'*) ;;
      *) continue ;;
    esac
    inc=${line#*\"}
    inc=${inc%%\"*}
    case $inc in
      config.h) continue ;;
      ../* | */../*) report "src/$rel:$n: relative include \"$inc\" (root includes at src/)"; continue ;;
      tessera.h)
        [[ " $public_ok " == *" $dir "* ]] ||
          report "src/$rel:$n: includes tessera.h (the public API is for cli/ and job/)"
        continue ;;
      */*) ;;
      *)
        [ -f "$(dirname "$f")/$inc" ] && [ "$(dirname "$f")" != "$src" ] &&
          report "src/$rel:$n: \"$inc\" is not rooted at src/ (write \"$dir/$inc\")" ||
          report "src/$rel:$n: unknown include \"$inc\""
        continue ;;
    esac
    to=${inc%%/*}
    [[ "$ok" == *" $to "* ]] ||
      report "src/$rel:$n: $dir/ includes $inc: $to/ is not below $dir/ (allowed: ${allow[$dir]:-nothing})"
  done <"$f"
done < <(find "$src" -mindepth 2 -type f \( -name '*.c' -o -name '*.h' -o -name '*.cu' -o -name '*.cuh' \) -print0 | sort -z)

if [ "$bad" -gt 0 ]; then
  echo "check-layers: $bad violation(s) of the layer rule (doc/design.md, \"Layers\")"
  exit 1
fi
echo "check-layers: $files files in ${#allow[@]} layers, no upward or relative include"
