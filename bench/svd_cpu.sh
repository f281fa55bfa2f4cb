#!/usr/bin/env bash
# bench/svd_cpu.sh [ROWS COLS CROWS] - W3: thin SVD of a tall-skinny float64
# matrix (default 10000 x 1000, chunks of 5000 x 1000) on this machine's CPU:
# tessera (TSQR tree + dgesdd of the final R, one rank x all threads, and
# k ranks x 1 thread) against NumPy np.linalg.svd(full_matrices=False) and
# Dask da.linalg.svd (bench/svd_peer.py), in one run of this script.
#
# tessera: `tessera eval --repeat=RUNS 'svd(normal(0, 1, (ROWS, COLS),
# chunks=(CROWS, COLS)))[1][:3]'`: each run generates the matrix (fused
# into the leaves' reads) and computes u, s and vt (u gathered on every
# rank); the time is tessera's own per-run time (process start excluded),
# best of RUNS. The generation alone is timed too (`sum(normal(...))`).
# NumPy's time excludes generation; Dask's includes it (as tessera's).
#
# Environment: TESSERA, RUNS (default 3), RANKS (default "2": the k of the
# k-rank rows), RECORD=1 (append to bench/RESULTS.md), NOTE. Exit: 0 ok,
# 3 a tool is missing, 4 a run failed.
set -euo pipefail
# shellcheck source=bench/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

ROWS=${1:-10000}
COLS=${2:-1000}
CROWS=${3:-5000}
numpy_bench_setup

X="normal(0, 1, ($ROWS, $COLS), chunks=($CROWS, $COLS))"

echo "W3: svd of $ROWS x $COLS, chunks $CROWS x $COLS, best of $RUNS" >&2
T1=$(tessera_best 1 "svd($X)[1][:3]")
G1=$(tessera_best 1 "sum($X)")
TK=$(tessera_best "$RANKS" "svd($X)[1][:3]")
PEERS=$(python3 "$BENCH_DIR/svd_peer.py" "$ROWS" "$COLS" "$CROWS" "$RUNS")
echo "$PEERS" >&2
NP=$(echo "$PEERS" | awk '$1 == "numpy" {print $2}')
NPG=$(echo "$PEERS" | awk '$1 == "numpy-generate" {print $2}')
DK=$(echo "$PEERS" | awk '$1 == "dask" {print $2}')
DKV=$(echo "$PEERS" | awk '$1 == "dask" {print $NF}')

TABLE=$(
  echo "| run | s | numpy s / run s |"
  echo "|---|---|---|"
  echo "| tessera svd, 1 rank x $(nproc) threads (generation included) | $T1 | $(ratio "$NP" "$T1") |"
  echo "| tessera generation alone (sum of the matrix), 1 rank | $G1 | - |"
  echo "| tessera svd, $RANKS ranks x 1 thread (generation included) | $TK | $(ratio "$NP" "$TK") |"
  echo "| NumPy np.linalg.svd(full_matrices=False) (generation $NPG s not included) | $NP | 1.00 |"
  echo "| Dask da.linalg.svd, chunks $CROWS x $COLS (generation included) | ${DK:-unavailable} | $(ratio "$NP" "$DK") |"
)
echo "$TABLE"
echo "ratio tessera(1 rank) / numpy: $(ratio "$T1" "$NP"); tessera($RANKS ranks) / numpy: $(ratio "$TK" "$NP"); tessera(1 rank) / dask: $(ratio "$T1" "$DK")"

if [ "${RECORD:-0}" = 1 ]; then
  RESULTS="$BENCH_DIR/RESULTS.md"
  [ -f "$RESULTS" ] || die "$RESULTS is missing"
  {
    record_head "W3 thin SVD $ROWS x $COLS (chunks $CROWS x $COLS), CPU — bench/svd_cpu.sh"
    echo "- command: \`RUNS=$RUNS RANKS=$RANKS bench/svd_cpu.sh $ROWS $COLS $CROWS\`; peers: numpy $(python3 -c 'import numpy; print(numpy.__version__)'), ${DKV:-dask unavailable} (bench/svd_peer.py); best of $RUNS"
    echo
    echo "$TABLE"
    echo
    echo "- ratio tessera(1 rank) / NumPy: $(ratio "$T1" "$NP"); tessera($RANKS ranks) / NumPy: $(ratio "$TK" "$NP"); tessera(1 rank) / Dask: $(ratio "$T1" "$DK")"
    [ -z "${NOTE:-}" ] || echo "- note: $NOTE"
  } >>"$RESULTS"
  echo "appended to $RESULTS" >&2
fi
