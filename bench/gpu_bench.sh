#!/usr/bin/env bash
# gpu_bench.sh - W1 (2 TB) and W2 (80 GB) on the GPUs of this node, fused and
# --no-fuse, for 1, 2 and 4 GPUs where the node has them, next to the peers
# measured in the same run on the same machine (bench/gpu_peers.py: a CuPy
# chunk loop and PyTorch per chunk). tessera's figure is the median compute
# time of its timed runs after one warm-up run (`--repeat`); peers time their
# loops after a warm-up chunk. Prints a table with GB/s of the logical array
# and the ratio of each peer's time to ours.
# usage: bench/gpu_bench.sh [--quick]   (quick: W2 only, peers on fewer chunks)
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
TESSERA=${TESSERA:-$here/../tessera}
quick=0; [ "${1:-}" = --quick ] && quick=1
export NCCL_NVLS_ENABLE=0
[ "$(id -u)" = 0 ] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || echo 0)
W2='mean((normal(10, 1, shape=(100000, 100000), chunks=(10000, 10000)) + 1)[::2, ::2])'
W1='sum((normal(10, 1, shape=(500000, 500000), chunks=(10000, 10000)) + 1)[::2, ::2])'
declare -A bytes=([w1]=2e12 [w2]=8e10)
rows=()

# median of the runs after the first (warm-up) in tessera's "run i of n" lines
ours() { # k, extra flags, expr, repeat
  local k=$1 flags=$2 expr=$3 rep=$4 out
  out=$(mpirun -np "$k" --bind-to none "$TESSERA" --backend=cuda $flags --repeat="$rep" eval "$expr" 2>&1) || { echo "FAIL"; echo "$out" >&2; return; }
  echo "$out" >&2
  echo "$out" | awk '/run [0-9]+ of/ && $4 > 1 {print $(NF-1)}' | sort -g | awk '{a[NR]=$1} END {print (NR ? a[int((NR+1)/2)] : "FAIL")}'
}

record() { rows+=("$1|$2|$3|$4"); }

for w in w2 w1; do
  [ $quick = 1 ] && [ $w = w1 ] && continue
  expr=$W2; [ $w = w1 ] && expr=$W1
  for k in 1 2 4; do
    [ "$k" -le "$ngpu" ] || continue
    t=$(ours "$k" "" "$expr" 3); record "$w" "tessera fused" "$k" "$t"
    t=$(ours "$k" "--no-fuse" "$expr" 2); record "$w" "tessera --no-fuse" "$k" "$t"
  done
  for sys in torch cupy dask-cupy; do
    [ $sys = dask-cupy ] && ! python3 -c 'import dask.array' 2>/dev/null && { echo "dask not importable: no Dask + CuPy row" >&2; continue; }
    nch=20; [ $sys = cupy ] && nch=10; [ $quick = 1 ] && nch=5
    line=$(python3 "$here/gpu_peers.py" --workload $w --system $sys --chunks $nch 2>&1 | tail -1)
    echo "$line" >&2
    t=$(echo "$line" | awk '{print $3}')
    label="$sys chunk loop (extrapolated)"; [ $sys = dask-cupy ] && label="Dask + CuPy"
    record "$w" "$label" 1 "$t"
  done
  # The best single-GPU peer (PyTorch per chunk) on k GPUs: k processes, one
  # per GPU, each timing its chunk loop; the chunks split ideally, so the
  # k-GPU time is the slowest process's whole-array time divided by k.
  for k in 2 4; do
    [ "$k" -le "$ngpu" ] || continue
    nch=20; [ $quick = 1 ] && nch=5
    pids=() outs=()
    for ((i = 0; i < k; i++)); do
      f=$(mktemp); outs+=("$f")
      CUDA_VISIBLE_DEVICES=$i python3 "$here/gpu_peers.py" --workload $w --system torch --chunks $nch >"$f" 2>&1 &
      pids+=($!)
    done
    for p in "${pids[@]}"; do wait "$p" || true; done
    t=$(for f in "${outs[@]}"; do tail -1 "$f" | awk '{print $3}'; done | sort -g | tail -1)
    cat "${outs[@]}" >&2; rm -f "${outs[@]}"
    t=$(awk -v t="$t" -v k="$k" 'BEGIN { if (t+0 > 0) printf "%.4f", t / k; else print "FAIL" }')
    record "$w" "torch per chunk, k processes" "$k" "$t"
  done
done

printf '\n%-4s %-34s %5s %12s %10s\n' work system gpus seconds GB/s
for r in "${rows[@]}"; do
  IFS='|' read -r w sys k t <<<"$r"
  gbs=$(awk -v b="${bytes[$w]}" -v t="$t" 'BEGIN { if (t+0 > 0) printf "%.1f", b / t / 1e9; else print "-" }')
  printf '%-4s %-34s %5s %12s %10s\n' "$w" "$sys" "$k" "$t" "$gbs"
done
echo
for w in w2 w1; do
  ref=$(printf '%s\n' "${rows[@]}" | awk -F'|' -v w=$w '$1==w && $2=="tessera fused" && $3==1 {print $4}')
  [ -n "$ref" ] || continue
  printf '%s\n' "${rows[@]}" | awk -F'|' -v w=$w -v r="$ref" '$1==w && $2 !~ /^tessera/ && $4+0 > 0 {printf "%s: %s / tessera fused (1 GPU) = %.1fx\n", w, $2, $4 / r}'
  printf '%s\n' "${rows[@]}" | awk -F'|' -v w=$w -v r="$ref" '$1==w && $2=="tessera fused" && $3 > 1 && $4+0 > 0 {printf "%s: scaling on %d GPUs = %.2fx the 1-GPU speed\n", w, $3, r / $4}'
  for k in 2 4; do
    ours_k=$(printf '%s\n' "${rows[@]}" | awk -F'|' -v w=$w -v k=$k '$1==w && $2=="tessera fused" && $3==k {print $4}')
    [ -n "$ours_k" ] || continue
    printf '%s\n' "${rows[@]}" | awk -F'|' -v w=$w -v k=$k -v r="$ours_k" '$1==w && $2 !~ /^tessera/ && $3==k && $4+0 > 0 && r+0 > 0 {printf "%s: %s on %d GPUs / tessera fused (%d GPUs) = %.1fx\n", w, $2, k, k, $4 / r}'
  done
done
