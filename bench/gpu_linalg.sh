#!/usr/bin/env bash
# gpu_linalg.sh - W3 (thin SVD of a tall-skinny float64 matrix) and a square
# float64 matrix product on the GPUs of this node, next to their peers from
# the same run on the same machine (bench/gpu_linalg_peers.py: CuPy and
# PyTorch on one GPU). tessera runs with the CUDA backend and its CUDA dense
# kernels (TESSERA_GPU_LINALG=1: cuSOLVER QR/SVD, cuBLAS GEMM) on 1 GPU and,
# where the node has them, on 2 and 4 (one rank per GPU); its figure is the
# best of its timed runs after one warm-up (`--repeat`), generation of the
# input included (the peers' excludes it). Prints one table with each row's
# time over tessera's on 1 GPU; GFLOP/s for the product is 2 N^3 / time.
#
# usage: bench/gpu_linalg.sh [--quick]   (quick: the small sizes only)
# Environment: TESSERA (default: ../tessera), RUNS (default 3).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
TESSERA=${TESSERA:-$here/../tessera}
RUNS=${RUNS:-3}
quick=0; [ "${1:-}" = --quick ] && quick=1
export NCCL_NVLS_ENABLE=0 TESSERA_GPU_LINALG=1
[ "$(id -u)" = 0 ] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || echo 0)
[ "$ngpu" -ge 1 ] || { echo "gpu_linalg.sh: no GPU visible" >&2; exit 3; }
rows=()

# best of the runs after the first (warm-up) in tessera's "run i of n" lines
ours() { # k, expr
  local out
  out=$(mpirun -np "$1" --bind-to none "$TESSERA" --backend=cuda --repeat=$((RUNS + 1)) eval "$2" 2>&1) ||
    { echo "$out" >&2; echo FAIL; return; }
  echo "$out" >&2
  echo "$out" | awk '/run [0-9]+ of/ && $4 > 1 {print $(NF-1)}' | sort -g | head -1
}

sizes=("10000 1000 5000" "1000000 1000 50000")
[ $quick = 1 ] && sizes=("10000 1000 5000")
for s in "${sizes[@]}"; do
  read -r R C CR <<<"$s"
  for k in 1 2 4; do
    [ "$k" -le "$ngpu" ] || continue
    rows+=("svd ${R}x${C}|tessera (chunks ${CR}x${C})|$k|$(ours "$k" "svd(normal(0, 1, ($R, $C), chunks=($CR, $C)))[1][:3]")")
  done
  while read -r name t _; do
    rows+=("svd ${R}x${C}|$name|1|$t")
  done < <(python3 "$here/gpu_linalg_peers.py" svd "$R" "$C" "$RUNS" 2>&1 | tee /dev/stderr | sed 's/ failed: .*/ FAIL/')
done
N=16384; CN=4096
[ $quick = 1 ] && N=8192 && CN=2048
for k in 1 2 4; do
  [ "$k" -le "$ngpu" ] || continue
  rows+=("matmul ${N}^2|tessera (chunks ${CN}^2)|$k|$(ours "$k" "sum(normal(0, 1, ($N, $N), chunks=$CN, seed=1) @ normal(0, 1, ($N, $N), chunks=$CN, seed=2))")")
done
while read -r name t _; do
  rows+=("matmul ${N}^2|$name|1|$t")
done < <(python3 "$here/gpu_linalg_peers.py" matmul "$N" "$RUNS" 2>&1 | tee /dev/stderr | sed 's/ failed: .*/ FAIL/')

# The ratio column: each row's time over tessera's on 1 GPU for the same work
# (> 1: tessera is faster; for tessera's own rows on k GPUs, 1 / the speed-up).
echo "| work | system | GPUs | s | GFLOP/s (matmul) | s / tessera 1 GPU |"
echo "|---|---|---|---|---|---|"
for r in "${rows[@]}"; do
  IFS='|' read -r w sys k t <<<"$r"
  g=-
  case $w in matmul*) g=$(awk -v n="$N" -v t="$t" 'BEGIN {if (t + 0 > 0) printf "%.0f", 2 * n * n * n / t / 1e9; else print "-"}') ;; esac
  ref=$(printf '%s\n' "${rows[@]}" | awk -F'|' -v w="$w" '$1 == w && $2 ~ /^tessera/ && $3 == 1 {print $4}')
  q=$(awk -v t="$t" -v r="$ref" 'BEGIN {if (t + 0 > 0 && r + 0 > 0) printf "%.2f", t / r; else print "-"}')
  echo "| $w | $sys | $k | $t | $g | $q |"
done
