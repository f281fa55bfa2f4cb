#!/usr/bin/env bash
# bench/matmul_cpu.sh [N C] - a square float64 matrix product on this
# machine's CPU: tessera `x @ y` (N x N, chunks C x C, block products spread
# over ranks and threads, one BLAS thread each) against NumPy's `a @ b`
# (OpenBLAS with all threads), in one run of this script.
#
# tessera: `tessera eval --repeat=RUNS 'sum(X @ Y)'` with X, Y normal(0, 1)
# arrays: each run generates the operand blocks it reads (an operand chunk
# once per block product that reads it, N/C times) and forms the product;
# the time is tessera's own per-run time, best of RUNS. The generation alone
# (`sum(X) + sum(Y)`) is timed too. NumPy's time excludes generation.
# GFLOP/s: 2 N^3 / time.
#
# Environment: TESSERA, RUNS (default 3), RANKS (default 2: the k of the
# k-rank row), RECORD=1 (append to bench/RESULTS.md), NOTE. Exit: 0 ok,
# 3 a tool is missing, 4 a run failed.
set -euo pipefail
# shellcheck source=bench/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

N=${1:-4000}
C=${2:-1000}
numpy_bench_setup

X="normal(0, 1, ($N, $N), chunks=($C, $C), seed=1)"
Y="normal(0, 1, ($N, $N), chunks=($C, $C), seed=2)"

echo "matmul: $N x $N @ $N x $N, chunks $C x $C, best of $RUNS" >&2
T1=$(tessera_best 1 "sum($X @ $Y)")
G1=$(tessera_best 1 "sum($X) + sum($Y)")
TK=$(tessera_best "$RANKS" "sum($X @ $Y)")
NP=$(python3 - "$N" "$RUNS" <<'PY'
import sys, time
import numpy as np
n, runs = int(sys.argv[1]), int(sys.argv[2])
rng = np.random.default_rng(1)
a, b = rng.standard_normal((n, n)), rng.standard_normal((n, n))
best = float("inf")
for _ in range(runs):
    t0 = time.perf_counter()
    c = a @ b
    best = min(best, time.perf_counter() - t0)
print(f"{best:.4f}")
PY
)
gflops() { awk -v n="$N" -v t="$1" 'BEGIN {if (t == "") print "-"; else printf "%.1f", 2 * n * n * n / t / 1e9}'; }

TABLE=$(
  echo "| run | s | GFLOP/s | numpy s / run s |"
  echo "|---|---|---|---|"
  echo "| tessera x @ y, 1 rank x $(nproc) threads (generation included) | $T1 | $(gflops "$T1") | $(ratio "$NP" "$T1") |"
  echo "| tessera generation of x and y once (sum(x) + sum(y)), 1 rank | $G1 | - | - |"
  echo "| tessera x @ y, $RANKS ranks x 1 thread (generation included) | $TK | $(gflops "$TK") | $(ratio "$NP" "$TK") |"
  echo "| NumPy a @ b, OpenBLAS with $(nproc) threads (generation not included) | $NP | $(gflops "$NP") | 1.00 |"
)
echo "$TABLE"

if [ "${RECORD:-0}" = 1 ]; then
  RESULTS="$BENCH_DIR/RESULTS.md"
  [ -f "$RESULTS" ] || die "$RESULTS is missing"
  {
    record_head "matmul $N x $N (chunks $C x $C), CPU — bench/matmul_cpu.sh"
    echo "- command: \`RUNS=$RUNS RANKS=$RANKS bench/matmul_cpu.sh $N $C\`; peer: numpy $(python3 -c 'import numpy; print(numpy.__version__)'); best of $RUNS"
    echo
    echo "$TABLE"
    echo
    [ -z "${NOTE:-}" ] || echo "- note: $NOTE"
  } >>"$RESULTS"
  echo "appended to $RESULTS" >&2
fi
