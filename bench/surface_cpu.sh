#!/usr/bin/env bash
# bench/surface_cpu.sh [N] [C] - issue 28's rows 1 and 2 on the CPU, at
# bench/w2_cpu.sh's sizes (default N=20000, C=2000: 3.2 GB logical; the larger
# CI size is 40000 4000), tessera next to Dask + NumPy on the same cores from
# the same run (bench/surface_dask.py):
#
#   w2      mean((normal(10, 1, shape=(N, N), chunks=(C, C)) + 1)[::2, ::2])
#   where   mean(where(x > 10, x + 1, 0)[::2, ::2]), x = the same normal array
#           row 1: PASS when its time <= 1.3x W2's (both tessera, this run)
#   max     max(x)
#   argmax  argmax(x)
#           row 2: PASS when argmax's time <= 1.5x max's (tessera, this run)
#
# tessera: CPU backend, `eval --repeat=RUNS+1`, one rank with --threads=$(nproc)
# (RANKS=K: `mpirun -np K --bind-to core`, one thread per rank); its figure is
# the median of its own per-run times after the first (warm-up) run, process
# and MPI start-up excluded. Dask: graph construction + compute, threaded
# scheduler with nproc workers, median of RUNS after a warm-up, imports
# excluded (da.random.normal: NumPy's legacy RandomState, DASK_RNG=generator
# for default_rng()). About 3 minutes at the default size on 2 cores (Dask is
# most of it). Prints a table (work, system, seconds, GB/s of the logical N^2
# array, value, dask s / tessera s), then one line per row, to paste into
# bench/RESULTS.md, with date, machine, commit and command.
#
# usage: bench/surface_cpu.sh [N] [C] | --help
# Environment: TESSERA (default: autodetect, see common.sh), RUNS (default 3),
#   RANKS (default 1), DASK_RNG=legacy|generator, PY (python3), NODASK=1 (no
#   peer: tessera's rows alone).
# Exit status: 0 both rows pass, 1 a row misses its target, 3 a tool is
# missing, 4 a run failed.
set -uo pipefail
case "${1:-}" in
  -h | --help) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
esac
# shellcheck source=bench/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

N=${1:-20000}
C=${2:-2000}
RUNS=${RUNS:-3} RANKS=${RANKS:-1} DASK_RNG=${DASK_RNG:-legacy} PY=${PY:-python3} NODASK=${NODASK:-0}
case "$N$C$RUNS$RANKS" in *[!0-9]*) die "usage: $0 [N] [C]   (positive integers; RUNS, RANKS too)" ;; esac
require awk
find_tessera
mpi_root_env
if [ "$NODASK" != 1 ]; then
  require "$PY"
  "$PY" -c 'import dask, dask.array, numpy' 2>/dev/null || die "$PY cannot import dask and numpy (pip install 'dask[array]' numpy; NODASK=1 runs tessera alone)"
fi
NP=$(nproc)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/surface_cpu.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

X="normal(10, 1, shape=($N, $N), chunks=($C, $C), seed=0)"
declare -A EXPR=(
  [w2]="mean((normal(10, 1, shape=($N, $N), chunks=($C, $C)) + 1)[::2, ::2])"
  [where]="mean(where($X > 10, $X + 1, 0)[::2, ::2])"
  [max]="max($X)"
  [argmax]="argmax($X)"
)
WORKS="w2 where max argmax"
BYTES=$(awk -v n="$N" 'BEGIN {print n * n * 8}')
declare -A T VAL PT PV
if [ "$RANKS" = 1 ]; then
  CMDLINE=("$TESSERA" --backend=cpu --threads="$NP")
  OURS="1 rank x $NP threads"
else
  CMDLINE=(mpirun -np "$RANKS" --bind-to core "$TESSERA" --backend=cpu --threads=1)
  OURS="mpirun -np $RANKS x 1 thread"
fi
LOAD0=$(cut -d' ' -f1-3 /proc/loadavg)
echo "# surface_cpu: tessera $TESSERA ($("$TESSERA" --version 2>/dev/null | head -1)), $OURS, RUNS=$RUNS; load average $LOAD0" >&2
echo "# $(machine_line)" >&2
START=$(date +%s)

for w in $WORKS; do
  echo "## tessera $w: ${EXPR[$w]}" >&2
  rc=0
  "${CMDLINE[@]}" --repeat=$((RUNS + 1)) eval "${EXPR[$w]}" >"$WORK/out" 2>"$WORK/err" || rc=$?
  cat "$WORK/err" >&2
  if [ "$rc" != 0 ]; then
    echo "surface_cpu.sh: tessera $w failed (exit $rc)" >&2
    T[$w]=FAIL VAL[$w]=-
    continue
  fi
  VAL[$w]=$(head -1 "$WORK/out")
  T[$w]=$(sed -n 's/^tessera: run \([0-9]*\) of [0-9]*: \([0-9.e+-]*\) s$/\1 \2/p' "$WORK/err" |
    awk '$1 > 1 {print $2}' | sort -g | awk '{a[NR] = $1} END {print NR ? a[int((NR + 1) / 2)] : "FAIL"}')
done

DASK_VER="not run (NODASK=1)"
if [ "$NODASK" != 1 ]; then
  echo "## Dask + NumPy" >&2
  "$PY" "$BENCH_DIR/surface_dask.py" "$N" "$C" --workers "$NP" --runs "$RUNS" --rng "$DASK_RNG" >"$WORK/dask" 2>&1 ||
    echo "surface_cpu.sh: surface_dask.py failed" >&2
  cat "$WORK/dask" >&2
  while read -r _ _ w t v _; do PT[$w]=$t PV[$w]=$v; done < <(grep '^PEER ' "$WORK/dask")
  DASK_VER=$(sed -n 's/^# \(dask .*\)/\1/p' "$WORK/dask" | head -1)
fi
LOAD1=$(cut -d' ' -f1-3 /proc/loadavg)

ok() { awk -v t="$1" 'BEGIN {exit !(t + 0 > 0)}'; }
num() { if ok "$1"; then echo "$1"; else echo "-"; fi; }
gbs() { if ok "$1"; then awk -v b="$BYTES" -v t="$1" 'BEGIN {printf "%.2f", b / t / 1e9}'; else echo "-"; fi; }
row() { printf '| %-7s | %-34s | %10s | %7s | %-20s | %9s |\n' "$@"; }
TABLE=$(
  row work system seconds GB/s value "dask/ours"
  echo "|---|---|---|---|---|---|"
  for w in $WORKS; do
    row "$w" "tessera, $OURS" "$(num "${T[$w]}")" "$(gbs "${T[$w]}")" "${VAL[$w]}" ""
    [ "$NODASK" = 1 ] && continue
    t=${PT[$w]:-}
    r=-; ok "$t" && ok "${T[$w]}" && r="$(ratio "$t" "${T[$w]}")x"
    row "$w" "Dask + NumPy, $NP threads" "$(num "$t")" "$(gbs "$t")" "${PV[$w]:--}" "$r"
  done
)
verdict() { # value limit
  if ! ok "$1"; then echo "NO FIGURE"; return; fi
  if awk -v v="$1" -v l="$2" 'BEGIN {exit !(v <= l)}'; then echo PASS; else echo FAIL; fi
}
R1=-; ok "${T[where]}" && ok "${T[w2]}" && R1=$(ratio "${T[where]}" "${T[w2]}")
R2=-; ok "${T[argmax]}" && ok "${T[max]}" && R2=$(ratio "${T[argmax]}" "${T[max]}")
V1=$(verdict "$R1" 1.3) V2=$(verdict "$R2" 1.5)
dfig() { # dask's figure for work $1 and its ratio to ours ($2)
  local t=${PT[$1]:-}
  if ok "$t"; then echo "Dask $t s ($(ratio "$t" "$2")x ours)"; else echo "Dask: no figure"; fi
}
STAMP="$(date -u '+%F %H:%M') UTC; $(machine_line); load average before/after $LOAD0 / $LOAD1; commit $(commit_line); tessera $TESSERA ($(binary_line))"
CMD="TESSERA=$TESSERA RUNS=$RUNS RANKS=$RANKS bench/surface_cpu.sh $N $C"

echo
echo "issue 28 rows 1 and 2 on the CPU, N=$N, C=$C ($(awk -v b="$BYTES" 'BEGIN {printf "%.1f", b / 1e9}') GB logical), median of $RUNS after a warm-up"
echo "$TABLE"
echo "tessera: its own per-run time (no process start); Dask: graph + compute in one process; peer: $DASK_VER"
echo "$(($(date +%s) - START)) s in all"
echo
echo "- surface row 1 (where, CPU) | $STAMP | \`$CMD\` | tessera where ${T[where]} s / W2 ${T[w2]} s = ${R1}x (target <= 1.3x: $V1); $(dfig where "${T[where]}"), W2 $(dfig w2 "${T[w2]}"); $DASK_VER"
echo "- surface row 2 (argmax, CPU) | $STAMP | \`$CMD\` | tessera argmax ${T[argmax]} s / max ${T[max]} s = ${R2}x (target <= 1.5x: $V2); $(dfig argmax "${T[argmax]}"), max $(dfig max "${T[max]}"); $DASK_VER"
for w in $WORKS; do [ "${T[$w]}" != FAIL ] || exit 4; done
[ "$V1" = PASS ] && [ "$V2" = PASS ] || exit 1
