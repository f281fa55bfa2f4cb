#!/usr/bin/env bash
# gpu_linalg.sh - W3 (thin SVD of a tall-skinny float64 matrix) and a square
# float64 matrix product on the GPUs of this node, next to their peers
# measured in the same run on the same machine (bench/gpu_linalg_peers.py,
# one GPU: CuPy, PyTorch, and for the SVD Dask + CuPy da.linalg.svd, the
# seed's own system). tessera runs with the CUDA backend and its CUDA dense
# kernels (the default: cuSOLVER QR/SVD, cuBLAS GEMM on device memory), one
# rank per GPU (mpirun -np K):
#
#   svd 10000x1000    chunks 5000x1000     1 GPU, and 2 GPUs where the node has them
#   svd 1000000x1000  chunks 50000x1000    1 and 2 GPUs           (not with --quick)
#   svd 4000000x1000  chunks 100000x1000   2 GPUs only (none on a 1-GPU node; not with --quick)
#   matmul 16384^2    chunks 4096^2        1 and 2 GPUs  (--quick: 8192^2, chunks 2048^2)
#
# They run in the order svd 10000x1000, matmul, svd 1000000x1000, svd
# 4000000x1000 (tessera on 1 GPU, then 2, then the peers of that size).
#
# Rows of the table (one table; every row prints, "FAIL" when its run failed):
# - "tessera (chunks ...)": `tessera --backend=cuda --repeat=N eval EXPR`,
#   EXPR = svd(normal(0, 1, (R, C), chunks=(CR, C)))[1][:3] (the TSQR forms
#   U's row blocks too) or sum(A @ B) of normal(..., seed=1) and (..., seed=2);
#   the time is the best of tessera's own per-run times ("tessera: run i of
#   n: T s") after the first run (a warm-up), input generation included.
# - "tessera generation alone": the same for sum(normal(0, 1, (R, C),
#   chunks=(CR, C))), resp. sum(A) + sum(B) for the product (each operand
#   generated once; the block product may generate operand blocks more than
#   once), on as many GPUs; "tessera minus generation" is the tessera row's
#   time minus it. The peers exclude generation: compare them with that column.
# - "host copies MB down / up" and "peak RSS MB": from tessera's summary line
#   (stderr; rank 0): "host copies D MB down, U MB up" (device memory to host
#   and back, as the summary counts them; "-" where it prints none) and
#   "peak RSS N MB" (rank 0's process).
# - peer rows (1 GPU): inputs generated on the GPU before timing, a warm-up
#   run, then the best of RUNS; Dask + CuPy's blocks have tessera's chunks and
#   are persisted in GPU memory before timing (da.linalg.svd computed with
#   dask.compute(u, s, v, scheduler="threads"; "synchronous" when threads
#   fail). A peer that fails (import, memory, cuSOLVER) is a FAIL row; the
#   4000000x1000 size runs every peer, and those that do not fit fail.
# - "TFLOP/s" (matmul rows): 2 N^3 / time (generation included for tessera).
# - "s / tessera 1 GPU": the row's time over tessera's on 1 GPU for the same
#   work (> 1: tessera faster; for tessera on 2 GPUs, 1 / its speed-up); for
#   4000000x1000, which has no 1-GPU row, over tessera on 2 GPUs.
# After the table: 2-GPU speed-ups, the cuBLAS figure measured in this run
# (CuPy a @ b) and tessera's 1-GPU TFLOP/s as a percentage of it (target
# >= 80 %, and >= 1.8x on 2 GPUs; TARGETS.md).
#
# W1/W2 with --no-fuse (target: W1 --no-fuse <= 2.0 s on 1 GPU) are timed by
# bench/gpu_bench.sh ("tessera --no-fuse" rows, 1/2/4 GPUs, --repeat=2, W1
# not with --quick), which scripts/gpu-check.sh runs before this script: they
# are not repeated here.
#
# Time: the whole script is meant to finish in about 8 minutes on one node.
# Small sizes run RUNS timed runs after a warm-up (--repeat=RUNS+1); the
# 10^6 and 4x10^6 SVDs (tessera and peers) one timed run after a warm-up
# (--repeat=2). Each command is stopped after LIMIT seconds (a FAIL (timeout)
# row), and once BUDGET seconds have passed the remaining commands are not
# started ("SKIP (budget)" rows): the large SVDs are the ones that go.
#
# usage: bench/gpu_linalg.sh [--quick]   (quick: svd 10000x1000 and matmul 8192^2 only)
# Environment: TESSERA (default: see bench/README.md; gpu-check.sh passes its
# build), RUNS (timed runs of the small sizes, default 3), LIMIT (seconds per
# command, default 150), BUDGET (seconds for the whole script, default 450).
# Exit status: 0 (failed rows are in the table), 2 usage, 3 no GPU or a tool missing.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/common.sh
. "$here/common.sh"
RUNS=${RUNS:-3}
LIMIT=${LIMIT:-150}
BUDGET=${BUDGET:-450}
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
echo "gpu_linalg.sh: $(machine_line), $ngpu GPU(s); commit $(commit_line); tessera: $TESSERA ($(binary_line)); RUNS=$RUNS"
rows=()

# row WORK SYSTEM GPUS SECONDS [MINUS_GEN COPIES RSS]
row() { rows+=("$1|$2|$3|$4|${5:--}|${6:--}|${7:--}"); }

# Seconds the next command may run: LIMIT, or what is left of BUDGET.
allowed() {
  local left=$((BUDGET - SECONDS))
  if [ "$left" -lt "$LIMIT" ]; then echo "$left"; else echo "$LIMIT"; fi
}

isnum() { [[ $1 =~ ^[0-9]+(\.[0-9]+)?$ ]] && [[ $1 =~ [1-9] ]]; } # a time > 0
minus() { if isnum "$1" && isnum "$2"; then awk -v a="$1" -v b="$2" 'BEGIN {printf "%.6f", a - b}'; else echo -; fi; }

# ours K REP EXPR: `tessera --backend=cuda --repeat=REP eval EXPR` on K ranks,
# one per GPU. Sets T (the best run after the first, else FAIL..., SKIP...),
# COPIES ("D / U" MB, or -) and RSS (MB, or -). Its output goes to stderr.
ours() {
  local k=$1 rep=$2 expr=$3 lim out rc
  T=FAIL COPIES=- RSS=-
  lim=$(allowed)
  if [ "$lim" -le 0 ]; then
    T="SKIP (budget)"
    echo "gpu_linalg.sh: not run, the time budget ($BUDGET s) is spent: $expr on $k GPU(s)" >&2
    return
  fi
  echo "== tessera, $k GPU(s), --repeat=$rep: $expr" >&2
  out=$(timeout -k 10 "$lim" mpirun -np "$k" --bind-to none "$TESSERA" --backend=cuda --repeat="$rep" eval "$expr" 2>&1)
  rc=$?
  echo "$out" >&2
  if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
    T="FAIL (timeout ${lim} s)"
    return
  fi
  [ "$rc" = 0 ] || { echo "gpu_linalg.sh: tessera exited with status $rc" >&2; return; }
  T=$(echo "$out" | sed -n 's/^tessera: run \([0-9]*\) of [0-9]*: \([0-9.]*\) s$/\1 \2/p' |
    awk '$1 > 1 {print $2}' | sort -g | head -1)
  [ -n "$T" ] || T=FAIL
  COPIES=$(echo "$out" | sed -n 's/.*host copies \([0-9.]*\) MB down, \([0-9.]*\) MB up.*/\1 \/ \2/p' | head -1)
  RSS=$(echo "$out" | sed -n 's/.*peak RSS \([0-9.]*\) MB.*/\1/p' | head -1)
  COPIES=${COPIES:--} RSS=${RSS:--}
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

# peers WORK CHUNKS "NAMES" ARGS...: gpu_linalg_peers.py ARGS on one GPU, one
# row per expected name (FAIL when it failed or printed nothing).
peers() {
  local work=$1 chunks=$2 names=$3 lim out rc n line name t fail=FAIL
  shift 3
  lim=$(allowed)
  if [ "$lim" -le 0 ]; then
    echo "gpu_linalg.sh: not run, the time budget ($BUDGET s) is spent: peers $*" >&2
    for n in $names; do row "$work" "$(label "$n" "$chunks")" 1 "SKIP (budget)"; done
    return
  fi
  echo "== peers: gpu_linalg_peers.py $*" >&2
  out=$(timeout -k 10 "$lim" python3 "$here/gpu_linalg_peers.py" "$@")
  rc=$?
  echo "$out" >&2
  if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
    fail="FAIL (timeout ${lim} s)"
  elif [ "$rc" != 0 ]; then
    echo "gpu_linalg.sh: gpu_linalg_peers.py exited with status $rc" >&2
  fi
  for n in $names; do
    line=$(echo "$out" | awk -v n="$n" '$1 == n || $1 == n "-sync"' | head -1)
    name=$n t=$fail
    [ -n "$line" ] && read -r name t _ <<<"$line"
    [[ $t =~ ^[0-9.]+$ ]] || case $t in FAIL* | SKIP*) ;; *) t=FAIL ;; esac
    row "$work" "$(label "$name" "$chunks")" 1 "$t"
  done
}

svd_sizes=("10000 1000 5000 1" "1000000 1000 50000 1" "4000000 1000 100000 2")
N=16384 CN=4096
if [ $quick = 1 ]; then
  svd_sizes=("10000 1000 5000 1")
  N=8192 CN=2048
fi

# tessera on K = 1, 2 GPUs (from MIN, where the node has them): the linalg
# row, then generation alone; the peers once per size.
work_rows() { # work, chunks label, rep, min, linalg expr, generation expr
  local work=$1 chunks=$2 rep=$3 min=$4 la=$5 gen=$6 k t copies rss
  for k in 1 2; do
    if [ "$k" -lt "$min" ] || [ "$k" -gt "$ngpu" ]; then continue; fi
    ours "$k" "$rep" "$la"
    t=$T copies=$COPIES rss=$RSS
    ours "$k" "$rep" "$gen"
    row "$work" "tessera (chunks $chunks)" "$k" "$t" "$(minus "$t" "$T")" "$copies" "$rss"
    row "$work" "tessera generation alone" "$k" "$T" - "$COPIES" "$RSS"
  done
}

svd_work() { # "R C CR MIN"
  local R C CR min rep=$((RUNS + 1)) pruns=$RUNS
  read -r R C CR min <<<"$1"
  if [ "$min" -gt "$ngpu" ]; then
    echo "gpu_linalg.sh: svd ${R}x${C} needs $min GPUs; this node has $ngpu: no rows" >&2
    return
  fi
  [ "$R" -ge 1000000 ] && rep=2 pruns=1
  work_rows "svd ${R}x${C}" "${CR}x${C}" "$rep" "$min" \
    "svd(normal(0, 1, ($R, $C), chunks=($CR, $C)))[1][:3]" \
    "sum(normal(0, 1, ($R, $C), chunks=($CR, $C)))"
  peers "svd ${R}x${C}" "${CR}x${C}" "cupy-svd cupy-qr-svd torch-svd torch-qr-svd dask-cupy-svd" \
    svd "$R" "$C" "$CR" "$pruns"
}

# The small SVD and the product first, so that a spent budget costs the
# large SVDs' rows, not the cuBLAS comparison.
svd_work "${svd_sizes[0]}"
a="normal(0, 1, ($N, $N), chunks=($CN, $CN), seed=1)" b="normal(0, 1, ($N, $N), chunks=($CN, $CN), seed=2)"
work_rows "matmul ${N}^2" "${CN}^2" $((RUNS + 1)) 1 "sum($a @ $b)" "sum($a) + sum($b)"
peers "matmul ${N}^2" "${CN}^2" "cupy-matmul torch-matmul" matmul "$N" "$RUNS"
for s in "${svd_sizes[@]:1}"; do svd_work "$s"; done

# tessera's time for WORK on K GPUs (empty when there is no such row).
tess_t() { printf '%s\n' "${rows[@]}" | awk -F'|' -v w="$1" -v k="$2" '$1 == w && $2 ~ /^tessera \(/ && $3 == k {print $4; exit}'; }
# The reference of WORK's ratios: tessera on the fewest GPUs it ran on.
ref_t() { printf '%s\n' "${rows[@]}" | awk -F'|' -v w="$1" '$1 == w && $2 ~ /^tessera \(/ {print $4; exit}'; }
tflops() { if isnum "$1"; then awk -v n="$N" -v t="$1" 'BEGIN {printf "%.1f", 2 * n * n * n / t / 1e12}'; else echo -; fi; }
ratio2() { if isnum "$1" && isnum "$2"; then awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a / b}'; else echo -; fi; }

echo
echo "| work | system | GPUs | s | tessera minus generation s | TFLOP/s | host copies MB down / up | peak RSS MB | s / tessera 1 GPU |"
echo "|---|---|---|---|---|---|---|---|---|"
for r in "${rows[@]}"; do
  IFS='|' read -r w sys k t mg cp rss <<<"$r"
  g=-
  case $w/$sys in matmul*/*generation*) ;; matmul*) g=$(tflops "$t") ;; esac
  echo "| $w | $sys | $k | $t | $mg | $g | $cp | $rss | $(ratio2 "$t" "$(ref_t "$w")") |"
done
echo

printf '%s\n' "${rows[@]}" | cut -d'|' -f1 | awk '!seen[$0]++' | while read -r w; do
  t1=$(tess_t "$w" 1) t2=$(tess_t "$w" 2)
  if [ -z "$t1" ] && [ -n "$t2" ]; then echo "$w: no 1-GPU tessera row; its ratios are over tessera on 2 GPUs"; fi
  if isnum "$t1" && isnum "$t2"; then
    target=""
    case $w in "svd 1000000x1000" | matmul*) target=" (target >= 1.8x)" ;; esac
    echo "$w: tessera on 2 GPUs: $t2 s = $(ratio2 "$t1" "$t2")x the 1-GPU speed$target"
  fi
done
mw="matmul ${N}^2"
cu=$(printf '%s\n' "${rows[@]}" | awk -F'|' -v w="$mw" '$1 == w && $2 ~ /^CuPy/ {print $4; exit}')
t1=$(tess_t "$mw" 1)
g1=$(printf '%s\n' "${rows[@]}" | awk -F'|' -v w="$mw" '$1 == w && $2 ~ /generation/ && $3 == 1 {print $4; exit}')
if isnum "$cu"; then
  line="cuBLAS (CuPy a @ b) measured in this run: $(tflops "$cu") TFLOP/s; tessera 1 GPU: $(tflops "$t1") TFLOP/s"
  if isnum "$t1"; then
    line+=" = $(awk -v c="$cu" -v t="$t1" 'BEGIN {printf "%.0f", 100 * c / t}') % of it"
    tm=$(minus "$t1" "$g1")
    if isnum "$tm"; then
      line+=" (without generation: $(tflops "$tm") TFLOP/s = $(awk -v c="$cu" -v t="$tm" 'BEGIN {printf "%.0f", 100 * c / t}') %)"
    fi
  else
    line+=" ($t1)"
  fi
  echo "$line; target >= 80 %"
else
  echo "cuBLAS (CuPy a @ b): not measured in this run (${cu:-no row}); tessera 1 GPU: $(tflops "$t1") TFLOP/s"
fi
echo "W1/W2 --no-fuse: see bench/gpu_bench.sh's table (\"tessera --no-fuse\" rows; target W1 --no-fuse <= 2.0 s on 1 GPU)"
