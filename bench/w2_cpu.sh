#!/usr/bin/env bash
# bench/w2_cpu.sh [N] [C] - workload W2 (speed cubing) on the CPU, tessera vs
# Dask + NumPy on the same cores, in one run:
#
#   mean((normal(10, 1, shape=(N, N), chunks=(C, C)) + 1)[::2, ::2])
#
# tessera (CPU backend, `tessera eval`) twice: one rank with --threads=$(nproc),
# and `mpirun -np $(nproc) --bind-to core` with one thread per rank; the better
# of the two is "ours". The peer is bench/w2_dask.py (threaded scheduler,
# num_workers = nproc). Each system: one warm-up run, then RUNS timed runs
# (default 3); the table shows the median wall-clock time.
#
# tessera's time is the wall clock of the whole command (process start, MPI
# start-up and all); its own "total" line is shown beside it. Dask's time is
# graph construction + compute inside one Python process (imports excluded).
#
# Environment: TESSERA (path to the executable; default: autodetect), RUNS,
# DASK_RNG=legacy|generator (default legacy: da.random.normal, as in TARGETS),
# MPIRUN_FLAGS (default "--bind-to core"), RECORD=1 (append the record to
# bench/RESULTS.md), NOTE (free text added to the record).
# Exit status: 0 ok, 3 a tool is missing, 4 a run failed or a mean is off.
set -euo pipefail
# shellcheck source=bench/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

N=${1:-20000}
C=${2:-2000}
RUNS=${RUNS:-3}
DASK_RNG=${DASK_RNG:-legacy}
MPIRUN_FLAGS=${MPIRUN_FLAGS:---bind-to core}
case "$N$C$RUNS" in *[!0-9]*) die "usage: $0 [N] [C]   (positive integers; RUNS too)" ;; esac

require python3
require mpirun "Open MPI or MPICH"
require awk
python3 -c 'import dask, dask.array, numpy' 2>/dev/null || die "python3 cannot import dask and numpy (pip install 'dask[array]' numpy)"
find_tessera
mpi_root_env
NP=$(nproc)
TIMEBIN=/usr/bin/time
[ -x "$TIMEBIN" ] || TIMEBIN=

EXPR="mean((normal(10, 1, shape=($N, $N), chunks=($C, $C)) + 1)[::2, ::2])"
GB=$(awk -v n="$N" 'BEGIN {printf "%.3f", n * n * 8 / 1e9}')
WORK=$(mktemp -d "${TMPDIR:-/tmp}/w2_cpu.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

now() { date +%s.%N; }

# run_tessera LABEL CMD... : warm-up + RUNS timed runs; sets R_WALL, R_CPU,
# R_TOTAL, R_MEAN, R_RSS of the median run.
run_tessera() {
  local label=$1 i t0 t1 rc
  shift
  : >"$WORK/$label.runs"
  for ((i = 0; i <= RUNS; i++)); do
    t0=$(now)
    rc=0
    if [ -n "$TIMEBIN" ]; then
      "$TIMEBIN" -f '%U %S %M' -o "$WORK/time" "$@" >"$WORK/out" 2>"$WORK/err" || rc=$?
    else
      "$@" >"$WORK/out" 2>"$WORK/err" || rc=$?
      echo "nan nan nan" >"$WORK/time"
    fi
    t1=$(now)
    if [ "$rc" != 0 ]; then
      echo "w2_cpu.sh: $label failed (exit $rc): $*" >&2
      tail -5 "$WORK/err" >&2
      exit 4
    fi
    local mean total cpu rss
    mean=$(tr -d '[:space:]' <"$WORK/out")
    total=$(sed -n 's/.* total \([0-9.]*\) s.*/\1/p' "$WORK/err" | tail -1)
    read -r u s rss <"$WORK/time"
    cpu=$(awk -v u="$u" -v s="$s" 'BEGIN {print u + s}')
    printf '%s %s: wall_s %.4f cpu_s %s internal_s %s peakRSS_KB %s mean %s\n' \
      "$label" "$([ "$i" = 0 ] && echo warmup || echo "run $i")" \
      "$(awk -v a="$t0" -v b="$t1" 'BEGIN {print b - a}')" "$cpu" "${total:-?}" "$rss" "$mean" >&2
    if [ "$i" = 0 ]; then continue; fi
    echo "$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.4f", b - a}') $cpu ${total:-nan} $mean $rss" >>"$WORK/$label.runs"
  done
  read -r R_WALL R_CPU R_TOTAL R_MEAN R_RSS < <(sort -g "$WORK/$label.runs" | sed -n "$(((RUNS + 1) / 2))p")
}

LOAD0=$(cut -d' ' -f1-3 /proc/loadavg)
echo "# W2 CPU: $EXPR" >&2
echo "# tessera: $TESSERA ($("$TESSERA" --version 2>/dev/null)); $NP cores; load average $LOAD0" >&2

run_tessera single "$TESSERA" eval "$EXPR" --backend=cpu --threads="$NP"
S_WALL=$R_WALL S_CPU=$R_CPU S_TOTAL=$R_TOTAL S_MEAN=$R_MEAN S_RSS=$R_RSS
# shellcheck disable=SC2086  # MPIRUN_FLAGS is a list of flags
run_tessera mpi mpirun -np "$NP" $MPIRUN_FLAGS "$TESSERA" eval "$EXPR" --backend=cpu --threads=1
M_WALL=$R_WALL M_CPU=$R_CPU M_TOTAL=$R_TOTAL M_MEAN=$R_MEAN M_RSS=$R_RSS

python3 "$BENCH_DIR/w2_dask.py" "$N" "$C" --workers "$NP" --runs "$RUNS" --rng "$DASK_RNG" >"$WORK/dask" ||
  { echo "w2_cpu.sh: w2_dask.py failed" >&2; exit 4; }
sed 's/^/dask /' "$WORK/dask" >&2
DASK_VER=$(sed -n 's/^# //p' "$WORK/dask")
read -r D_WALL D_CPU D_MEAN D_RSS < <(awk '/^median/ {print $3, $5, $7, $9}' "$WORK/dask")
LOAD1=$(cut -d' ' -f1-3 /proc/loadavg)

# The better tessera configuration is "ours".
if awk -v a="$S_WALL" -v b="$M_WALL" 'BEGIN {exit !(a <= b)}'; then
  OURS="1 rank x $NP threads" O_WALL=$S_WALL O_CPU=$S_CPU
else
  OURS="mpirun -np $NP x 1 thread" O_WALL=$M_WALL O_CPU=$M_CPU
fi
RATIO=$(awk -v d="$D_WALL" -v o="$O_WALL" 'BEGIN {printf "%.2f", d / o}')
CPU_RATIO=$(awk -v d="$D_CPU" -v o="$O_CPU" 'BEGIN {printf (o > 0) ? "%.2f" : "?", d / o}')
MET=$(awk -v r="$RATIO" 'BEGIN {print (r >= 10) ? "met" : "NOT met"}')
# Sanity: each mean within 10 standard errors of 11 (N^2/4 samples, sd 1).
TOL=$(awk -v n="$N" 'BEGIN {printf "%.2g", 20 / n}')
BAD=
for m in "$S_MEAN" "$M_MEAN" "$D_MEAN"; do
  awk -v m="$m" -v t="$TOL" 'BEGIN {d = m - 11; exit !(d == d && d < t && -d < t)}' || BAD="$BAD $m"
done

gbs() { awk -v g="$GB" -v t="$1" 'BEGIN {printf "%.3f", g / t}'; }
mb() { awk -v k="$1" 'BEGIN {printf (k == k + 0) ? "%.0f" : "?", k / 1024}'; }
row() { printf '| %-34s | %8.3f | %7s | %7s | %9s | %7s | %-19s |\n' "$1" "$2" "$(gbs "$2")" "$3" "$4" "$(mb "$5")" "$6"; }
TABLE=$(
  echo "| system | time (s) | GB/s | CPU s | own total | RSS MB | mean |"
  echo "|---|---|---|---|---|---|---|"
  row "tessera, 1 rank x $NP threads" "$S_WALL" "$S_CPU" "$S_TOTAL" "$S_RSS" "$S_MEAN"
  row "tessera, mpirun -np $NP x 1 thread" "$M_WALL" "$M_CPU" "$M_TOTAL" "$M_RSS" "$M_MEAN"
  row "Dask + NumPy, $NP threads ($DASK_RNG)" "$D_WALL" "$D_CPU" "-" "${D_RSS:-nan}" "$D_MEAN"
)
SUMMARY="ours = tessera $OURS: dask/tessera = ${RATIO}x wall (${CPU_RATIO}x in CPU s) (target >= 10x: $MET)"

echo
echo "W2 CPU, N=$N, C=$C ($GB GB logical float64), median of $RUNS after a warm-up"
echo "$TABLE"
echo "$SUMMARY"
echo "GB/s = N*N*8 bytes of the logical array / time; CPU s = user + sys of the median run;"
echo "RSS = peak resident set (tessera: largest process, /usr/bin/time; Dask: the Python process)."
if [ -n "$BAD" ]; then echo "WARNING: mean(s) off 11 by more than $TOL:$BAD" >&2; fi

if [ "${RECORD:-0}" = 1 ]; then
  RESULTS="$BENCH_DIR/RESULTS.md"
  [ -f "$RESULTS" ] || die "$RESULTS is missing (it carries the header that explains the format)"
  {
    record_head "W2 CPU, N=$N C=$C — bench/w2_cpu.sh" "load average before/after: $LOAD0 / $LOAD1"
    echo "- command: \`TESSERA=$TESSERA bench/w2_cpu.sh $N $C\` (RUNS=$RUNS, DASK_RNG=$DASK_RNG, MPIRUN_FLAGS=\"$MPIRUN_FLAGS\"); peer: $DASK_VER"
    echo "- figures (median of $RUNS after a warm-up; GB/s of the $GB GB logical array):"
    echo
    echo "$TABLE"
    echo
    echo "- $SUMMARY"
    if [ -n "$BAD" ]; then echo "- WARNING: mean(s) off 11 by more than $TOL:$BAD"; fi
    if [ -n "${NOTE:-}" ]; then echo "- note: $NOTE"; fi
  } >>"$RESULTS"
  echo "appended to $RESULTS" >&2
fi
[ -z "$BAD" ] || exit 4
