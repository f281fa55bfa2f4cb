#!/usr/bin/env bash
# bench/surface_gpu.sh - issue 28's performance rows on one GPU, tessera next to
# PyTorch and CuPy from the same run (bench/surface_peers.py):
#
#   row 1  mean(where(x > 10, x + 1, 0)[::2, ::2]) over W2's 80 GB array
#          (x = normal(10, 1, shape=(100000, 100000), chunks=(10000, 10000)))
#          PASS when its time <= 1.3x W2's own time (measured in this run)
#   row 2  argmax(x) of the same array
#          PASS when its time <= 1.5x max(x)'s time (measured in this run)
#   row 3  cumsum of a 10^9-element float64 vector (chunks of 10^8)
#          PASS when 16e9 bytes (read + write once) / time >= 40 % of the
#          device's memory bandwidth (PEAK_GBS, default by the GPU's name:
#          4800 an H200, 3350 an H100 SXM and any other)
#
# tessera: `tessera --backend=cuda --repeat=REP eval EXPR`, one rank; its figure
# is the median of its own per-run times ("run i of n") after the first
# (warm-up) run. Row 3 times `cumsum(v)[-1]` (the scan is computed whole and
# held, then one element is read) and, as in gpu_linalg.sh, a "generation
# alone" run `sum(v)` of the same input: "cumsum alone" = the difference, the
# figure the pass/fail uses (the peers scan a vector already in GPU memory);
# the whole-run bandwidth is printed too.
# Peers (one process per system, one GPU): chunk loops over the 80 GB array
# extrapolated from CHUNKS chunks (as bench/gpu_peers.py), torch.cumsum /
# cupy.cumsum (CUB's device scan) and a device copy of the vector (median of
# REPS after a warm-up). A peer that is not importable is a "-" row.
#
# Prints the commands' outputs (stderr), one table (work, system, seconds,
# GB/s, value, peer s / tessera s), then one line per row, to paste into
# bench/RESULTS.md, with date, device, commit and command. About 1-2 minutes on
# one H100 (most of it the peers' imports and CuPy's RandomState).
#
# usage: bench/surface_gpu.sh [--quick] [--help]
#   --quick   REP=3, CHUNKS=3, REPS=3 (a check of the script on a GPU node)
# Environment: TESSERA (the executable; default: ../tessera, the repository's
#   builds, then `tessera` on PATH, see common.sh), REP (tessera --repeat,
#   default 6), CHUNKS (peer chunks per 80 GB workload, default 10), REPS (peer
#   cumsum calls, default 5), PEAK_GBS (default 4800 on an H200, else 3350), PEERS (default "torch
#   cupy"), PY (python3), LIMIT (seconds per command, default 150);
#   for a test of the script on a CPU machine only: BACKEND=cpu, N, C (the 2-d
#   array), VN, VC (the vector and its chunk), PEERS=numpy.
# Exit status: 0 every row passes, 1 a row misses its target, 3 a tool is
# missing, 4 a tessera run failed.
set -uo pipefail
case "${1:-}" in
  -h | --help) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
  --quick) REP=${REP:-3} CHUNKS=${CHUNKS:-3} REPS=${REPS:-3} ;;
  "") ;;
  *) echo "surface_gpu.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
esac
# shellcheck source=bench/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

case "$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)" in
  *H200*) PEAK_DEFAULT=4800 ;;
  *) PEAK_DEFAULT=3350 ;;
esac
REP=${REP:-6} CHUNKS=${CHUNKS:-10} REPS=${REPS:-5} PEAK_GBS=${PEAK_GBS:-$PEAK_DEFAULT}
PEERS=${PEERS:-torch cupy} PY=${PY:-python3} LIMIT=${LIMIT:-150} BACKEND=${BACKEND:-cuda}
N=${N:-100000} C=${C:-10000} VN=${VN:-1000000000} VC=${VC:-100000000}
case "$REP$CHUNKS$REPS$N$C$VN$VC$LIMIT" in *[!0-9]*) die "REP, CHUNKS, REPS, N, C, VN, VC, LIMIT: positive integers" ;; esac
[ "$REP" -ge 2 ] || die "REP must be >= 2 (the first run is the warm-up)"
require awk
require timeout
find_tessera
mpi_root_env
export NCCL_NVLS_ENABLE=0
if [ "$BACKEND" = cuda ]; then
  INFO=$("$TESSERA" info 2>&1 | grep '^backend cuda')
  case "$INFO" in
    *"no GPU visible"*) die "$TESSERA: $INFO" ;;
    "backend cuda: built"* | "backend cuda: "[0-9]*" GPU"*) ;;
    *) die "$TESSERA was built without CUDA (${INFO:-no cuda line in tessera info}): set TESSERA to a --with-cuda build" ;;
  esac
fi
WORK=$(mktemp -d "${TMPDIR:-/tmp}/surface_gpu.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

X="normal(10, 1, shape=($N, $N), chunks=($C, $C), seed=0)"
V="normal(0, 1, shape=($VN,), chunks=($VC,), seed=1)"
declare -A EXPR=(
  [w2]="mean((normal(10, 1, shape=($N, $N), chunks=($C, $C)) + 1)[::2, ::2])"
  [where]="mean(where($X > 10, $X + 1, 0)[::2, ::2])"
  [max]="max($X)"
  [argmax]="argmax($X)"
  [cumsum]="cumsum($V)[-1]"
  [gen]="sum($V)"
)
WORKS="w2 where max argmax cumsum gen"
ABYTES=$(awk -v n="$N" 'BEGIN {print n * n * 8}')   # the logical 2-d array
VBYTES=$(awk -v n="$VN" 'BEGIN {print 2 * n * 8}')  # the vector read + written once
declare -A T VAL PT PV

echo "# surface_gpu: tessera $TESSERA ($("$TESSERA" --version 2>/dev/null | head -1)), backend $BACKEND, REP=$REP" >&2
echo "# $(machine_line)" >&2
START=$(date +%s)

# tessera's median per-run time after the warm-up run; the value on stdout.
for w in $WORKS; do
  echo "## tessera $w: ${EXPR[$w]}" >&2
  rc=0
  timeout "$LIMIT" "$TESSERA" --backend="$BACKEND" --repeat="$REP" eval "${EXPR[$w]}" >"$WORK/out" 2>"$WORK/err" || rc=$?
  cat "$WORK/err" >&2
  if [ "$rc" != 0 ]; then
    echo "surface_gpu.sh: tessera $w failed (exit $rc$([ "$rc" = 124 ] && echo ", timeout $LIMIT s"))" >&2
    T[$w]=FAIL VAL[$w]=-
    continue
  fi
  VAL[$w]=$(head -1 "$WORK/out")
  T[$w]=$(sed -n 's/^tessera: run \([0-9]*\) of [0-9]*: \([0-9.e+-]*\) s$/\1 \2/p' "$WORK/err" |
    awk '$1 > 1 {print $2}' | sort -g | awk '{a[NR] = $1} END {print NR ? a[int((NR + 1) / 2)] : "FAIL"}')
done

declare -A PVER
for p in $PEERS; do
  echo "## peer $p" >&2
  CUPY_ACCELERATORS=${CUPY_ACCELERATORS:-cub} timeout "$((LIMIT * 2))" "$PY" "$BENCH_DIR/surface_peers.py" --system "$p" --size "$N" "$C" \
    --chunks "$CHUNKS" --n "$VN" --reps "$REPS" >"$WORK/peer" 2>&1
  rc=$?
  cat "$WORK/peer" >&2
  [ "$rc" = 0 ] || echo "surface_gpu.sh: peer $p exited $rc$([ "$rc" = 124 ] && echo " (timeout)")" >&2
  while read -r _ sys w t v _; do
    PT[$sys.$w]=$t PV[$sys.$w]=$v
  done < <(grep '^PEER ' "$WORK/peer")
  PVER[$p]=$(sed -n -e 's/^# //p' -e 's/^PEER \([a-z]*\) all FAIL - /\1 not run: /p' "$WORK/peer" | head -1)
done

ok() { awk -v t="$1" 'BEGIN {exit !(t + 0 > 0)}'; }
num() { if ok "$1"; then echo "$1"; else echo "-"; fi; }
gbs() { if ok "$2"; then awk -v b="$1" -v t="$2" 'BEGIN {printf "%.1f", b / t / 1e9}'; else echo "-"; fi; }
# CUMSUM alone = cumsum(v)[-1] - sum(v) (both tessera, this run)
ALONE=-
if ok "${T[cumsum]:-}" && ok "${T[gen]:-}"; then
  ALONE=$(awk -v a="${T[cumsum]}" -v g="${T[gen]}" 'BEGIN {d = a - g; if (d > 0) printf "%.6f", d; else print "-"}')
fi

row() { printf '| %-7s | %-40s | %10s | %8s | %-22s | %9s |\n' "$@"; }
TABLE=$(
  row work system seconds GB/s value "peer/ours"
  echo "|---|---|---|---|---|---|"
  for w in w2 where max argmax cumsum; do
    b=$ABYTES; [ $w = cumsum ] && b=$VBYTES
    label="tessera"; [ $w = cumsum ] && label="tessera, cumsum(v)[-1] whole run"
    row "$w" "$label" "$(num "${T[$w]}")" "$(gbs "$b" "${T[$w]}")" "${VAL[$w]}" ""
    if [ $w = cumsum ]; then
      row gen "tessera, sum(v): generation alone" "$(num "${T[gen]}")" "-" "${VAL[gen]}" ""
      row cumsum "tessera, cumsum alone (difference)" "$ALONE" "$(gbs "$b" "$ALONE")" "" ""
    fi
    for p in $PEERS; do
      t=${PT[$p.$w]:-}
      [ -n "$t" ] || t=${PT[$p.all]:-}
      [ -n "$t" ] || t=-
      ref=${T[$w]}; [ $w = cumsum ] && ref=$ALONE
      r=-; ok "$t" && ok "$ref" && r="$(ratio "$t" "$ref")x"
      note=$p; [ $w != cumsum ] && note="$p chunk loop (extrapolated)"
      row "$w" "$note" "$(num "$t")" "$(gbs "$b" "$t")" "${PV[$p.$w]:--}" "$r"
    done
  done
  for p in $PEERS; do
    t=${PT[$p.copy]:-}
    [ -n "$t" ] && row copy "$p device copy of v (reference)" "$(num "$t")" "$(gbs "$VBYTES" "$t")" "" ""
  done
)

# The verdicts.
verdict() { # value op limit
  if [ -z "$1" ] || [ "$1" = - ]; then echo "NO FIGURE"; return; fi
  if awk -v v="$1" -v l="$3" -v op="$2" 'BEGIN {exit !(op == "<=" ? v <= l : v >= l)}'; then echo PASS; else echo FAIL; fi
}
R1=-; ok "${T[where]}" && ok "${T[w2]}" && R1=$(ratio "${T[where]}" "${T[w2]}")
R2=-; ok "${T[argmax]}" && ok "${T[max]}" && R2=$(ratio "${T[argmax]}" "${T[max]}")
G3=$(gbs "$VBYTES" "$ALONE")
pct() { if [ "$1" = - ]; then echo -; else awk -v g="$1" -v p="$PEAK_GBS" 'BEGIN {printf "%.1f", 100 * g / p}'; fi; }
F3=$(pct "$G3")
G3W=$(gbs "$VBYTES" "${T[cumsum]}") FW=$(pct "$(gbs "$VBYTES" "${T[cumsum]}")")
V1=$(verdict "$R1" "<=" 1.3) V2=$(verdict "$R2" "<=" 1.5) V3=$(verdict "$F3" ">=" 40)
FAILS=0; for v in "$V1" "$V2" "$V3"; do [ "$v" = PASS ] || FAILS=$((FAILS + 1)); done

PEERVER=$(for p in $PEERS; do echo "${PVER[$p]:-$p not run}"; done | paste -sd';' | sed 's/;/; /g')
peerfig() { # work ref: "torch X s (Yx ours), cupy ..."
  local p t s=""
  for p in $PEERS; do
    t=${PT[$p.$1]:-}
    ok "$t" && s="$s${s:+, }$p $t s ($(ratio "$t" "$2")x ours)"
  done
  echo "${s:-no peer figure}"
}
peergbs() {
  local p t s=""
  for p in $PEERS; do
    t=${PT[$p.$1]:-}
    ok "$t" && s="$s${s:+, }$p $(gbs "$VBYTES" "$t") GB/s"
  done
  echo "${s:-no peer figure}"
}
STAMP="$(date -u '+%F %H:%M') UTC; $(machine_line); commit $(commit_line); tessera $TESSERA ($(binary_line))"
CMD="TESSERA=$TESSERA REP=$REP CHUNKS=$CHUNKS REPS=$REPS bench/surface_gpu.sh"
WHERE="1 GPU"
[ "$BACKEND" = cuda ] || CMD="BACKEND=$BACKEND N=$N C=$C VN=$VN VC=$VC PEERS=\"$PEERS\" $CMD" WHERE="$BACKEND: a test of the script"

echo
echo "issue 28 rows on one GPU ($BACKEND), tessera: median of $((REP - 1)) runs after a warm-up; peers: same run"
echo "$TABLE"
echo "GB/s: the logical $N^2 float64 array ($(awk -v b="$ABYTES" 'BEGIN {printf "%.0f", b / 1e9}') GB) / s; cumsum and copy: $VN x 8 bytes read + written once / s."
echo "peer/ours: the peer's seconds / tessera's (> 1: tessera faster); cumsum: over 'cumsum alone'."
echo "peers: $PEERVER"
echo "$(($(date +%s) - START)) s in all"
echo
echo "- surface row 1 (where, $WHERE) | $STAMP | \`$CMD\` | tessera where ${T[where]} s / W2 ${T[w2]} s = ${R1}x (target <= 1.3x: $V1); where peers: $(peerfig where "${T[where]}")"
echo "- surface row 2 (argmax, $WHERE) | $STAMP | \`$CMD\` | tessera argmax ${T[argmax]} s / max ${T[max]} s = ${R2}x (target <= 1.5x: $V2); argmax peers: $(peerfig argmax "${T[argmax]}")"
echo "- surface row 3 (cumsum $VN, $WHERE) | $STAMP | \`$CMD\` | tessera cumsum alone $ALONE s (whole run ${T[cumsum]} s - generation ${T[gen]} s) = $G3 GB/s = $F3 % of $PEAK_GBS GB/s (target >= 40 %: $V3; whole run $G3W GB/s = $FW %); peers: $(peerfig cumsum "$ALONE"), i.e. $(peergbs cumsum); device copy: $(peergbs copy); peers: $PEERVER"
for w in $WORKS; do [ "${T[$w]}" != FAIL ] || exit 4; done
[ "$FAILS" = 0 ] || exit 1
