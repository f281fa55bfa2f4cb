#!/usr/bin/env bash
# gpu_linalg.sh - issue 29's rows in one run: W3 (thin SVD of a tall-skinny
# float64 matrix), square float64 matrix products and W2 on 1, 2 and 4 GPUs of
# this node, with speed-ups and target verdicts, next to peers measured in the
# same run on one GPU (bench/gpu_linalg_peers.py: CuPy, PyTorch, and for the
# SVD Dask + CuPy da.linalg.svd, the seed's own system). tessera runs with the
# CUDA backend and its CUDA dense kernels (the default: cuSOLVER QR/SVD,
# cuBLAS GEMM on device memory), one rank per GPU:
#   mpirun -np K --bind-to none tessera --backend=cuda --repeat=N eval EXPR
# K: every K in "1 2 4" with K <= the GPUs `nvidia-smi -L` lists; KMAX is the
# largest (4 on a node with 4 or more GPUs, 2 with 2 or 3, 1 with 1).
#
# Commands, in this order (the most important first: once BUDGET is spent,
# the last ones are the ones that go):
#   1. svd 1000000x1000   chunks 50000x1000    every K          --repeat=RUNS+1
#   2. matmul 16384^2     chunks 4096^2        every K          --repeat=RUNS+1
#   3. W2 fused, mean((normal(10, 1, shape=(100000, 100000), chunks=(10000,
#      10000)) + 1)[::2, ::2])                 1 and KMAX GPUs  --repeat=4
#   4. svd 10000x1000     chunks 5000x1000     every K          --repeat=RUNS+1
#   5. transport (KMAX > 1 only): 1. and 2. again on KMAX GPUs with
#      TESSERA_HOST_EXCHANGE=1 (mpirun -x), rows "host-staged
#      (TESSERA_HOST_EXCHANGE=1)"; "device (NCCL)" is the KMAX row of 1. / 2.
#   6. svd 4000000x1000   chunks 100000x1000   every K          --repeat=2
#   7. matmul 32768^2     chunks 8192^2        1 GPU, and 4 GPUs on a node
#                                              with 4           --repeat=2
#   8. svd 10000000x1000  chunks 125000x1000   4 GPUs only (a node with 4)
#                                                               --repeat=2
#   9. weak scaling: svd (2500000 K)x1000, chunks 125000x1000, on K GPUs,
#      every K, --repeat=2 (K = 4 is the command of 8.: not run twice)
#  10. peers (one GPU): svd 1000000x1000 (CuPy, PyTorch, Dask + CuPy; one
#      timed run), matmul 16384^2 (CuPy, PyTorch; RUNS timed runs), matmul
#      32768^2 (CuPy a @ b only, one timed run: the cuBLAS figure of 7.)
#  11. "generation alone" rows for 1., 2., 4. and 6., every K (optional
#      rows, hence last)
# --quick: svd 10000x1000 and matmul 8192^2 (chunks 2048^2) on every K, their
# peers (RUNS timed runs), then their generation rows; no other command.
#
# Targets (issue 29; speed-up = t(1 GPU) / t(K GPUs); a check applies only
# where the node has the K GPUs it names):
#   svd 10000x1000      K > 1 no slower than 1 GPU: t1/tK >= 0.95 counts as
#                       "no slower" (run-to-run noise)
#   svd 1000000x1000    >= 1.8x on 2, >= 3.3x on 4
#   svd 4000000x1000    >= 3.5x on 4
#   svd 10000000x1000   <= 0.8 s on 4
#   weak scaling        none: t(K) and t(K)/t(1) (ideal constant, 1.0)
#   matmul 16384^2      >= 1.8x on 2, >= 3.4x on 4
#   matmul 32768^2      1 GPU >= 80 % of cuBLAS (tessera's TFLOP/s over CuPy
#                       a @ b's at 32768^2, same run), >= 3.5x on 4
#   W2                  >= 3.8x on 4
#   transport           none: host-staged / device printed
#   --quick's matmul 8192^2: none
#
# Output:
# - one table of every row (a failed run is a "FAIL" row, "FAIL (timeout N
#   s)" past LIMIT, a command not started once BUDGET has passed "SKIP
#   (budget)"), columns: work, system, GPUs, s, tessera minus generation s,
#   TFLOP/s, host copies MB down / up, peak RSS MB, s / tessera 1 GPU:
#   - "tessera (chunks ...)": EXPR = svd(normal(0, 1, (R, C), chunks=(CR,
#     C)))[1][:3] (the TSQR forms U's row blocks too), sum(A @ B) of normal(...,
#     seed=1) and (..., seed=2), or W2; the time is the best of tessera's own
#     per-run times ("tessera: run i of n: T s") after the first run (a
#     warm-up), input generation included.
#   - "tessera generation alone": the same for sum(normal(0, 1, (R, C),
#     chunks=(CR, C))), resp. sum(A) + sum(B) (each operand generated once;
#     the block product may generate operand blocks more than once), on as
#     many GPUs; "tessera minus generation" is the tessera row's time minus
#     it. The peers exclude generation: compare them with that column.
#   - "host copies MB down / up" and "peak RSS MB": from tessera's summary
#     line (stderr; rank 0): "host copies D MB down, U MB up" and "peak RSS N
#     MB" (rank 0's process); "-" where it prints none.
#   - peer rows (1 GPU): inputs generated on the GPU before timing, a warm-up
#     run, then the best of the timed runs; Dask + CuPy's blocks have
#     tessera's chunks and are persisted in GPU memory before timing
#     (dask.compute(u, s, v, scheduler="threads"; "synchronous" when threads
#     fail). A peer that fails (import, memory, cuSOLVER) is a FAIL row.
#   - "TFLOP/s" (matmul rows): 2 N^3 / time (generation included for tessera).
#   - "s / tessera 1 GPU": the row's time over tessera's on 1 GPU for the same
#     work (> 1: tessera faster; for tessera on K GPUs, 1 / its speed-up; for
#     weak scaling t(K)/t(1)); for svd 10000000x1000, which has no 1-GPU row,
#     over tessera on 4 GPUs.
# - per matmul size: the cuBLAS figure (CuPy a @ b) and tessera's 1-GPU
#   TFLOP/s as a percentage of it.
# - the scaling table: work | 1 GPU s | 2 GPUs s (speed-up) | 4 GPUs s
#   (speed-up) | target | PASS / FAIL / "—" ("—": no check applies on this
#   node, or a row it needs was skipped; a check whose row FAILed FAILs).
# - the transport table (KMAX > 1): device (NCCL) s, host-staged s, host /
#   device.
# - one line to paste into bench/RESULTS.md: date, device, commit, command,
#   the scaling rows.
#
# W1/W2 with --no-fuse (target: W1 --no-fuse <= 2.0 s on 1 GPU) are timed by
# bench/gpu_bench.sh, which scripts/gpu-check.sh runs before this script.
#
# Time: about 36 commands on a 4-GPU node (about 2 s of process start each);
# expected 3-5 minutes on 4x H200. Each command is stopped after LIMIT
# seconds, and once BUDGET seconds have passed the remaining commands are not
# started.
#
# usage: bench/gpu_linalg.sh [--quick]
# Environment: TESSERA (default: see bench/README.md; gpu-check.sh passes its
# build), RUNS (timed runs of the small sizes, default 3), LIMIT (seconds per
# command, default 150), BUDGET (seconds for the whole script, default 540).
# Exit status: 0 (failed rows and targets are in the tables), 2 usage, 3 no
# GPU or a tool missing.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/common.sh
. "$here/common.sh"
RUNS=${RUNS:-3}
LIMIT=${LIMIT:-150}
BUDGET=${BUDGET:-540}
quick=0
case "${1:-}" in
  --quick) quick=1 ;;
  "") ;;
  -h | --help) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
  *) echo "usage: bench/gpu_linalg.sh [--quick]" >&2; exit 2 ;;
esac
require mpirun
require python3
require awk
require timeout
find_tessera
mpi_root_env
export NCCL_NVLS_ENABLE=0
ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
[ "${ngpu:-0}" -ge 1 ] || { echo "gpu_linalg.sh: no GPU visible" >&2; exit 3; }
ks=()
for k in 1 2 4; do [ "$k" -le "$ngpu" ] && ks+=("$k"); done
kmax=${ks[${#ks[@]} - 1]}
started=$(date -u '+%F %H:%M')
CMD="TESSERA=$TESSERA RUNS=$RUNS LIMIT=$LIMIT BUDGET=$BUDGET bench/gpu_linalg.sh"
[ $quick = 1 ] && CMD+=" --quick"
echo "gpu_linalg.sh: $(machine_line), $ngpu GPU(s) (runs on ${ks[*]}); commit $(commit_line); tessera: $TESSERA ($(binary_line)); RUNS=$RUNS LIMIT=$LIMIT BUDGET=$BUDGET"
rows=()
HOST="host-staged (TESSERA_HOST_EXCHANGE=1)"

# row WORK SYSTEM GPUS SECONDS [COPIES RSS]
row() { rows+=("$1|$2|$3|$4|${5:--}|${6:--}"); }

# Seconds the next command may run: LIMIT, or what is left of BUDGET.
allowed() {
  local left=$((BUDGET - SECONDS))
  if [ "$left" -lt "$LIMIT" ]; then echo "$left"; else echo "$LIMIT"; fi
}

isnum() { [[ $1 =~ ^[0-9]+(\.[0-9]+)?$ ]] && [[ $1 =~ [1-9] ]]; } # a time > 0
minus() { if isnum "$1" && isnum "$2"; then awk -v a="$1" -v b="$2" 'BEGIN {printf "%.6f", a - b}'; else echo -; fi; }
ratio2() { if isnum "$1" && isnum "$2"; then awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a / b}'; else echo -; fi; }
tflops() { # N seconds
  if isnum "$2"; then awk -v n="$1" -v t="$2" 'BEGIN {printf "%.1f", 2 * n * n * n / t / 1e12}'; else echo -; fi
}
pct() { if isnum "$1" && isnum "$2"; then awk -v a="$1" -v b="$2" 'BEGIN {printf "%.0f", 100 * a / b}'; else echo -; fi; }

# ours K REP EXPR [NAME=VALUE...]: `tessera --backend=cuda --repeat=REP eval
# EXPR` on K ranks, one per GPU, NAME=VALUE exported to the ranks (mpirun -x).
# Sets T (the best run after the first, else FAIL..., SKIP...), COPIES ("D /
# U" MB, or -) and RSS (MB, or -). Its output goes to stderr. A command
# already run (same K, REP, EXPR, environment) is not run again.
declare -A memo=()
ours() {
  local k=$1 rep=$2 expr=$3 lim out rc key x
  shift 3
  local xs=()
  for x in "$@"; do xs+=(-x "$x"); done
  key="$k|$rep|$expr|$*"
  T=FAIL COPIES=- RSS=-
  if [ -n "${memo[$key]:-}" ]; then
    IFS='|' read -r T COPIES RSS <<<"${memo[$key]}"
    echo "== tessera, $k GPU(s), --repeat=$rep${*:+ ($*)}: $expr: measured above ($T s), not run again" >&2
    return
  fi
  lim=$(allowed)
  if [ "$lim" -le 0 ]; then
    T="SKIP (budget)"
    echo "gpu_linalg.sh: not run, the time budget ($BUDGET s) is spent: $expr on $k GPU(s)${*:+ ($*)}" >&2
    return
  fi
  echo "== tessera, $k GPU(s), --repeat=$rep${*:+ ($*)}: $expr" >&2
  out=$(timeout -k 10 "$lim" mpirun -np "$k" --bind-to none "${xs[@]}" "$TESSERA" --backend=cuda --repeat="$rep" eval "$expr" 2>&1)
  rc=$?
  echo "$out" >&2
  if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
    T="FAIL (timeout ${lim} s)"
  elif [ "$rc" != 0 ]; then
    echo "gpu_linalg.sh: tessera exited with status $rc" >&2
  else
    T=$(echo "$out" | sed -n 's/^tessera: run \([0-9]*\) of [0-9]*: \([0-9.]*\) s$/\1 \2/p' |
      awk '$1 > 1 {print $2}' | sort -g | head -1)
    [ -n "$T" ] || T=FAIL
    COPIES=$(echo "$out" | sed -n 's/.*host copies \([0-9.]*\) MB down, \([0-9.]*\) MB up.*/\1 \/ \2/p' | head -1)
    RSS=$(echo "$out" | sed -n 's/.*peak RSS \([0-9.]*\) MB.*/\1/p' | head -1)
    COPIES=${COPIES:--} RSS=${RSS:--}
  fi
  memo[$key]="$T|$COPIES|$RSS"
}

# tess WORK SYSTEM K REP EXPR [NAME=VALUE...]: ours, then its row.
tess() {
  local w=$1 sys=$2 k=$3 rep=$4 expr=$5
  shift 5
  ours "$k" "$rep" "$expr" "$@"
  row "$w" "$sys" "$k" "$T" "$COPIES" "$RSS"
}

# The table's name of a peer (NAME of gpu_linalg_peers.py's lines).
label() { # name, chunks
  case $1 in
    cupy-svd) echo "CuPy linalg.svd" ;;
    cupy-qr-svd) echo "CuPy linalg.qr, then svd of R" ;;
    torch-svd) echo "PyTorch linalg.svd" ;;
    torch-qr-svd) echo "PyTorch linalg.qr, then svd of R" ;;
    dask-cupy-svd) echo "Dask + CuPy da.linalg.svd (chunks $2, threads)" ;;
    dask-cupy-svd-sync) echo "Dask + CuPy da.linalg.svd (chunks $2, synchronous)" ;;
    cupy-matmul) echo "CuPy a @ b (cuBLAS dgemm)" ;;
    torch-matmul) echo "PyTorch a @ b" ;;
    *) echo "$1" ;;
  esac
}

# peers WORK CHUNKS "NAMES" PYTHON_ARGS...: `python3 -B PYTHON_ARGS` on one
# GPU (gpu_linalg_peers.py ..., or -c CODE ...), one row per expected name
# (FAIL when it failed or printed nothing).
peers() {
  local work=$1 chunks=$2 names=$3 lim out rc n line name t fail=FAIL
  shift 3
  lim=$(allowed)
  if [ "$lim" -le 0 ]; then
    echo "gpu_linalg.sh: not run, the time budget ($BUDGET s) is spent: peers of $work ($names)" >&2
    for n in $names; do row "$work" "$(label "$n" "$chunks")" 1 "SKIP (budget)"; done
    return
  fi
  echo "== peers of $work: $names" >&2
  out=$(timeout -k 10 "$lim" python3 -B "$@")
  rc=$?
  echo "$out" >&2
  if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
    fail="FAIL (timeout ${lim} s)"
  elif [ "$rc" != 0 ]; then
    echo "gpu_linalg.sh: the peers exited with status $rc" >&2
  fi
  for n in $names; do
    line=$(echo "$out" | awk -v n="$n" '$1 == n || $1 == n "-sync"' | head -1)
    name=$n t=$fail
    [ -n "$line" ] && read -r name t _ <<<"$line"
    [[ $t =~ ^[0-9.]+$ ]] || case $t in FAIL* | SKIP*) ;; *) t=FAIL ;; esac
    row "$work" "$(label "$name" "$chunks")" 1 "$t"
  done
}

# CuPy a @ b alone (gpu_linalg_peers.py's matmul peer without PyTorch's):
# python3 -B -c "$cupy_matmul" BENCH_DIR N RUNS
cupy_matmul='import sys
sys.path.insert(0, sys.argv[1])
import gpu_linalg_peers as p
n, runs = int(sys.argv[2]), int(sys.argv[3])
try:
    import cupy as cp
    rng = cp.random.default_rng(1)
    a, b = rng.standard_normal((n, n)), rng.standard_normal((n, n))
    p.report("cupy-matmul", runs, lambda: a @ b, cp.cuda.Device().synchronize, lambda o: [])
except Exception as e:  # noqa: BLE001 - any failure is a row
    p.say("cupy-matmul", "failed:", p.reason(e))'

# The commands of each kind. K lists are words ("1 2 4").
svd_rep() { if [ "$1" -gt 1000000 ]; then echo 2; else echo $((RUNS + 1)); fi; }
mm_rep() { if [ "$1" -ge 32768 ]; then echo 2; else echo $((RUNS + 1)); fi; }
svd_run() { # R C CR "KS" [NAME=VALUE...]: tessera's svd rows
  local R=$1 C=$2 CR=$3 kl=$4 k sys="tessera (chunks $3x$2)"
  shift 4
  [ $# = 0 ] || sys+=", $HOST"
  for k in $kl; do
    tess "svd ${R}x${C}" "$sys" "$k" "$(svd_rep "$R")" "svd(normal(0, 1, ($R, $C), chunks=($CR, $C)))[1][:3]" "$@"
  done
}
svd_gen() { # R C CR "KS"
  local k
  for k in $4; do
    tess "svd $1x$2" "tessera generation alone" "$k" "$(svd_rep "$1")" "sum(normal(0, 1, ($1, $2), chunks=($3, $2)))"
  done
}
mm_a() { echo "normal(0, 1, ($1, $1), chunks=($2, $2), seed=1)"; }
mm_b() { echo "normal(0, 1, ($1, $1), chunks=($2, $2), seed=2)"; }
mm_run() { # N CN "KS" [NAME=VALUE...]
  local N=$1 CN=$2 kl=$3 k sys="tessera (chunks $2^2)"
  shift 3
  [ $# = 0 ] || sys+=", $HOST"
  for k in $kl; do
    tess "matmul ${N}^2" "$sys" "$k" "$(mm_rep "$N")" "sum($(mm_a "$N" "$CN") @ $(mm_b "$N" "$CN"))" "$@"
  done
}
mm_gen() { # N CN "KS"
  local k
  for k in $3; do
    tess "matmul $1^2" "tessera generation alone" "$k" "$(mm_rep "$1")" "sum($(mm_a "$1" "$2")) + sum($(mm_b "$1" "$2"))"
  done
}
W2='mean((normal(10, 1, shape=(100000, 100000), chunks=(10000, 10000)) + 1)[::2, ::2])'
WW="W2 fused"
WEAK="svd (2500000 K)x1000 weak"

all="${ks[*]}"
ends=1
[ "$kmax" -gt 1 ] && ends="1 $kmax"
if [ $quick = 1 ]; then
  svd_run 10000 1000 5000 "$all"
  mm_run 8192 2048 "$all"
  peers "svd 10000x1000" "5000x1000" "cupy-svd cupy-qr-svd torch-svd torch-qr-svd dask-cupy-svd" \
    "$here/gpu_linalg_peers.py" svd 10000 1000 5000 "$RUNS"
  peers "matmul 8192^2" "2048^2" "cupy-matmul torch-matmul" "$here/gpu_linalg_peers.py" matmul 8192 "$RUNS"
  svd_gen 10000 1000 5000 "$all"
  mm_gen 8192 2048 "$all"
else
  svd_run 1000000 1000 50000 "$all"                                              # 1.
  mm_run 16384 4096 "$all"                                                       # 2.
  for k in $ends; do tess "$WW" "tessera (chunks 10000x10000)" "$k" 4 "$W2"; done # 3.
  svd_run 10000 1000 5000 "$all"                                                 # 4.
  if [ "$kmax" -gt 1 ]; then                                                     # 5.
    svd_run 1000000 1000 50000 "$kmax" TESSERA_HOST_EXCHANGE=1
    mm_run 16384 4096 "$kmax" TESSERA_HOST_EXCHANGE=1
  fi
  svd_run 4000000 1000 100000 "$all"                                             # 6.
  mm_run 32768 8192 "$(if [ "$kmax" = 4 ]; then echo 1 4; else echo 1; fi)"      # 7.
  [ "$kmax" = 4 ] && svd_run 10000000 1000 125000 4                              # 8.
  for k in $all; do                                                              # 9.
    R=$((2500000 * k))
    tess "$WEAK" "tessera (chunks 125000x1000) on ${R}x1000" "$k" 2 \
      "svd(normal(0, 1, ($R, 1000), chunks=(125000, 1000)))[1][:3]"
  done
  peers "svd 1000000x1000" "50000x1000" "cupy-svd cupy-qr-svd torch-svd torch-qr-svd dask-cupy-svd" \
    "$here/gpu_linalg_peers.py" svd 1000000 1000 50000 1                        # 10.
  peers "matmul 16384^2" "4096^2" "cupy-matmul torch-matmul" "$here/gpu_linalg_peers.py" matmul 16384 "$RUNS"
  peers "matmul 32768^2" "8192^2" "cupy-matmul" -c "$cupy_matmul" "$here" 32768 1
  svd_gen 1000000 1000 50000 "$all"                                              # 11.
  mm_gen 16384 4096 "$all"
  svd_gen 10000 1000 5000 "$all"
  svd_gen 4000000 1000 100000 "$all"
fi

# Look-ups in rows: WORK [K]; each prints nothing when there is no such row.
# tessera's plain row (not the host-staged one) for WORK on K GPUs
tess_t() { printf '%s\n' "${rows[@]}" | awk -F'|' -v w="$1" -v k="$2" '$1 == w && $2 ~ /^tessera \(chunks/ && $2 !~ /host-staged/ && $3 == k {print $4; exit}'; }
host_t() { printf '%s\n' "${rows[@]}" | awk -F'|' -v w="$1" -v k="$2" '$1 == w && $2 ~ /host-staged/ && $3 == k {print $4; exit}'; }
gen_t() { printf '%s\n' "${rows[@]}" | awk -F'|' -v w="$1" -v k="$2" '$1 == w && $2 == "tessera generation alone" && $3 == k {print $4; exit}'; }
cupy_t() { printf '%s\n' "${rows[@]}" | awk -F'|' -v w="$1" '$1 == w && $2 ~ /^CuPy a @ b/ {print $4; exit}'; }
# The reference of WORK's ratios: tessera's plain row on the fewest GPUs it ran on.
ref_t() { printf '%s\n' "${rows[@]}" | awk -F'|' -v w="$1" '$1 == w && $2 ~ /^tessera \(chunks/ && $2 !~ /host-staged/ {print $4; exit}'; }

echo
echo "| work | system | GPUs | s | tessera minus generation s | TFLOP/s | host copies MB down / up | peak RSS MB | s / tessera 1 GPU |"
echo "|---|---|---|---|---|---|---|---|---|"
for r in "${rows[@]}"; do
  IFS='|' read -r w sys k t cp rss <<<"$r"
  mg=- g=-
  case $sys in "tessera (chunks"*) [[ $sys == *host-staged* ]] || mg=$(minus "$t" "$(gen_t "$w" "$k")") ;; esac
  case $w/$sys in matmul*/*generation*) ;; matmul*) n=${w#matmul }; g=$(tflops "${n%^2}" "$t") ;; esac
  echo "| $w | $sys | $k | $t | $mg | $g | $cp | $rss | $(ratio2 "$t" "$(ref_t "$w")") |"
done
echo

# cuBLAS against tessera on 1 GPU, per matmul size with a CuPy row.
for n in 8192 16384 32768; do
  mw="matmul ${n}^2"
  cu=$(cupy_t "$mw")
  [ -n "$cu" ] || continue
  t1=$(tess_t "$mw" 1)
  if isnum "$cu"; then
    line="$mw: cuBLAS (CuPy a @ b) measured in this run: $(tflops "$n" "$cu") TFLOP/s; tessera 1 GPU: $(tflops "$n" "$t1") TFLOP/s"
    if isnum "$t1"; then
      line+=" = $(pct "$cu" "$t1") % of it"
      tm=$(minus "$t1" "$(gen_t "$mw" 1)")
      isnum "$tm" && line+=" (without generation: $(tflops "$n" "$tm") TFLOP/s = $(pct "$cu" "$tm") %)"
    else
      line+=" (${t1:-no row})"
    fi
    [ "$n" = 32768 ] && line+="; target >= 80 %"
    echo "$line"
  else
    echo "$mw: cuBLAS (CuPy a @ b) not measured in this run ($cu); tessera 1 GPU: $(tflops "$n" "$t1") TFLOP/s"
  fi
done
echo "W1/W2 --no-fuse: see bench/gpu_bench.sh's table (\"tessera --no-fuse\" rows; target W1 --no-fuse <= 2.0 s on 1 GPU)"

# verdict VALUE ge|le LIMIT RAW...: PASS / FAIL of VALUE against LIMIT; with
# no VALUE, "—" when a RAW time it came from was skipped (budget), else FAIL.
verdict() {
  local v=$1 cmp=$2 lim=$3 x
  shift 3
  if isnum "$v"; then
    if awk -v v="$v" -v l="$lim" -v c="$cmp" 'BEGIN {exit !(c == "ge" ? v >= l : v <= l)}'; then echo PASS; else echo FAIL; fi
    return
  fi
  for x in "$@"; do case $x in SKIP*) echo "—"; return ;; esac; done
  echo FAIL
}

# scal LABEL WORK TARGET "CHECKS" [weak]: one row of the scaling table, and
# its part of the RESULTS.md line. CHECKS: sK:MIN (speed-up on K >= MIN),
# tK:MAX (time on K <= MAX s), c1:MIN (1 GPU's % of cuBLAS >= MIN); a check
# on K applies where the node has K GPUs.
summary=()
scal() {
  local label=$1 w=$2 target=$3 checks=$4 mode=${5:-speed} t1 t c k spec kind kk lim v vs=() cells=() out
  t1=$(tess_t "$w" 1)
  for k in 1 2 4; do
    t=$(tess_t "$w" "$k")
    c=${t:-—}
    if [ "$k" -gt 1 ] && [ -n "$t" ] && [ -n "$t1" ]; then
      if [ "$mode" = weak ]; then
        c+=" (t/t1 $(ratio2 "$t" "$t1"))"
      else
        v=$(ratio2 "$t1" "$t")
        [ "$v" = - ] || v+=x
        c+=" ($v)"
      fi
    fi
    cells+=("$c")
  done
  for spec in $checks; do
    kind=${spec%%:*} lim=${spec#*:}
    kk=${kind:1} kind=${kind:0:1}
    [ "$kk" -le "$ngpu" ] || continue
    t=$(tess_t "$w" "$kk")
    case $kind in
      s) vs+=("$(verdict "$(ratio2 "$t1" "$t")" ge "$lim" "$t1" "$t")") ;;
      t) vs+=("$(verdict "$t" le "$lim" "$t")") ;;
      c) c=$(cupy_t "$w"); vs+=("$(verdict "$(pct "$c" "$t1")" ge "$lim" "$t1" "$c")") ;;
    esac
  done
  out=—
  if [ ${#vs[@]} -gt 0 ]; then
    out=PASS
    for v in "${vs[@]}"; do
      case $v in FAIL) out=FAIL; break ;; PASS) ;; *) out=— ;; esac
    done
  fi
  echo "| $label | ${cells[0]} | ${cells[1]} | ${cells[2]} | $target | $out |"
  summary+=("$label: ${cells[0]} / ${cells[1]} / ${cells[2]} s, $out")
}

echo
echo "scaling: tessera's time on 1, 2 and 4 GPUs (best run after a warm-up, generation included), speed-up = t(1 GPU) / t(K GPUs); \"no slower\" = t1/tK >= 0.95; — = not run on this node / no check applies or a row it needs was skipped"
echo "| work | 1 GPU s | 2 GPUs s (speed-up) | 4 GPUs s (speed-up) | target | PASS/FAIL/— |"
echo "|---|---|---|---|---|---|"
if [ $quick = 1 ]; then
  scal "svd 10000x1000, chunks 5000x1000" "svd 10000x1000" "K > 1 no slower (t1/tK >= 0.95)" "s2:0.95 s4:0.95"
  scal "matmul 8192^2, chunks 2048^2" "matmul 8192^2" "none (--quick; the targets are for 16384^2)" ""
else
  scal "svd 1000000x1000, chunks 50000x1000" "svd 1000000x1000" ">= 1.8x on 2, >= 3.3x on 4" "s2:1.8 s4:3.3"
  scal "matmul 16384^2, chunks 4096^2" "matmul 16384^2" ">= 1.8x on 2, >= 3.4x on 4" "s2:1.8 s4:3.4"
  scal "W2 fused, --repeat=4" "$WW" ">= 3.8x on 4" "s4:3.8"
  scal "svd 10000x1000, chunks 5000x1000" "svd 10000x1000" "K > 1 no slower (t1/tK >= 0.95)" "s2:0.95 s4:0.95"
  scal "svd 4000000x1000, chunks 100000x1000" "svd 4000000x1000" ">= 3.5x on 4" "s4:3.5"
  cu=$(cupy_t "matmul 32768^2") t1=$(tess_t "matmul 32768^2" 1)
  scal "matmul 32768^2, chunks 8192^2" "matmul 32768^2" "1 GPU >= 80 % of cuBLAS (here: $(pct "${cu:-}" "${t1:-}") %), >= 3.5x on 4" "c1:80 s4:3.5"
  scal "svd 10000000x1000, chunks 125000x1000" "svd 10000000x1000" "<= 0.8 s on 4" "t4:0.8"
  scal "svd (2500000 K)x1000 on K GPUs, chunks 125000x1000" "$WEAK" "none: weak scaling, ideal constant (t(K)/t(1) = 1.0)" "" weak
fi
if [ $quick = 0 ] && [ "$kmax" -gt 1 ]; then
  echo
  echo "| transport, $kmax GPUs | device (NCCL) s | $HOST s | host / device |"
  echo "|---|---|---|---|"
  for w in "svd 1000000x1000" "matmul 16384^2"; do
    d=$(tess_t "$w" "$kmax") h=$(host_t "$w" "$kmax")
    echo "| $w | ${d:--} | ${h:--} | $(ratio2 "$h" "$d") |"
    summary+=("$w on $kmax GPUs: device (NCCL) ${d:--} s, host-staged ${h:--} s, host / device $(ratio2 "$h" "$d")")
  done
fi
echo
echo "for bench/RESULTS.md:"
sum=$(printf '%s; ' "${summary[@]}")
echo "- gpu_linalg ($ngpu GPU node) | $started UTC; $(machine_line); commit $(commit_line); tessera $TESSERA ($(binary_line)) | \`$CMD\` | ${sum%; }"
