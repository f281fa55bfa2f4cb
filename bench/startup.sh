#!/usr/bin/env bash
# bench/startup.sh - start-up on one GPU node (issue 33): the whole command
# `tessera -q eval 1+1` (its every fixed cost: process, MPI, the CUDA driver,
# the device, the backend) next to the plain-CUDA floor measured in the same
# run, and NCCL's all-reduce bandwidth with each rank restricted to its own
# GPU (what tessera does before CUDA starts) and with every GPU visible.
#
#   floor        a C program whose only call is cudaFree(0), one GPU visible
#                (CUDA_VISIBLE_DEVICES=0) and every GPU visible
#   cpu          tessera --backend=cpu -q eval 1+1
#   cuda, 1      tessera --backend=cuda -q eval 1+1 (one process), and with
#                TESSERA_GPU_ISOLATE=0 (every GPU visible to it)
#   cuda, N      mpirun -np N ... --backend=cuda -q eval 1+1 on all N GPUs,
#                with and without TESSERA_GPU_ISOLATE=0; and --backend=cpu
#   nccl         bench/nccl_bw.c: a 1 GiB all-reduce on N ranks, each seeing
#                every GPU, then each seeing its own (a wrapper sets
#                CUDA_VISIBLE_DEVICES from OMPI_COMM_WORLD_LOCAL_RANK)
#
# Each figure is the median of RUNS whole commands (date +%s%N). Prints a
# table and one line to paste into bench/RESULTS.md with date, device, commit
# and command. Targets (issue 33): one rank, one GPU <= floor + 0.1 s; N = 4
# whole command <= 0.6 s; NCCL bandwidth unchanged.
#
# usage: bench/startup.sh [--help]
# Environment: TESSERA (the executable, see common.sh), RUNS (default 5),
#   CUDA_HOME (default /usr/local/cuda: cuda_runtime.h, libcudart, libnccl),
#   CC (default cc), MPICC (default mpicc), MPIEXEC (default mpirun).
# Exit status: 0 measured, 3 a tool is missing or no GPU, 4 a run failed.
set -uo pipefail
case "${1:-}" in
  -h | --help) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
  "") ;;
  *) echo "startup.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
esac
# shellcheck source=bench/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

RUNS=${RUNS:-5} CUDA_HOME=${CUDA_HOME:-/usr/local/cuda} CC=${CC:-cc} MPICC=${MPICC:-mpicc}
MPIEXEC=${MPIEXEC:-mpirun}
case "$RUNS" in '' | *[!0-9]*) die "RUNS: a positive integer" ;; esac
require nvidia-smi
require "$CC"
require "$MPICC"
require "$MPIEXEC"
find_tessera
mpi_root_env
export NCCL_NVLS_ENABLE=0
N=$(nvidia-smi -L | grep -c '^GPU')
[ "$N" -ge 1 ] || die "no GPU on this node"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/startup.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

printf '#include <cuda_runtime.h>\nint main(void) { return cudaFree(0) != cudaSuccess; }\n' >"$WORK/floor.c"
"$CC" -O2 -I"$CUDA_HOME/include" "$WORK/floor.c" -L"$CUDA_HOME/lib64" -lcudart -o "$WORK/floor" ||
  die "could not build the floor program against $CUDA_HOME"
"$MPICC" -O2 -I"$CUDA_HOME/include" "$BENCH_DIR/nccl_bw.c" -L"$CUDA_HOME/lib64" -lcudart -lnccl \
  -o "$WORK/nccl_bw" || die "could not build bench/nccl_bw.c against $CUDA_HOME"
printf '#!/bin/sh\nexport CUDA_VISIBLE_DEVICES=$OMPI_COMM_WORLD_LOCAL_RANK\nexec "$@"\n' >"$WORK/own.sh"
chmod +x "$WORK/own.sh"

# median whole-command seconds of RUNS runs of "$@"
median() {
  local i s e all=""
  for ((i = 0; i < RUNS; i++)); do
    s=$(date +%s%N)
    "$@" >"$WORK/out" 2>&1 || { cat "$WORK/out" >&2; echo "startup.sh: failed: $*" >&2; exit 4; }
    e=$(date +%s%N)
    all="$all $(((e - s) / 1000))"
  done
  echo "$all" | tr ' ' '\n' | grep . | sort -n | awk '{v[NR] = $1} END {printf "%.3f", v[int((NR + 1) / 2)] / 1e6}'
}

MPI=("$MPIEXEC" -np "$N" --bind-to none)
floor1=$(CUDA_VISIBLE_DEVICES=0 median "$WORK/floor")
floorN=$(median "$WORK/floor")
cpu1=$(median "$TESSERA" --backend=cpu -q eval 1+1)
cuda1=$(median "$TESSERA" --backend=cuda -q eval 1+1)
cuda1_all=$(TESSERA_GPU_ISOLATE=0 median "$TESSERA" --backend=cuda -q eval 1+1)
cudaN=$(median "${MPI[@]}" "$TESSERA" --backend=cuda -q eval 1+1)
cudaN_all=$(median "${MPI[@]}" -x TESSERA_GPU_ISOLATE=0 "$TESSERA" --backend=cuda -q eval 1+1)
cpuN=$(median "${MPI[@]}" "$TESSERA" --backend=cpu -q eval 1+1)
parts=$("$TESSERA" --backend=cuda eval 1+1 2>&1 | sed -n 's/.*(set-up: \(.*\)), compute.*/\1/p')
nccl_all="-" nccl_own="-"
if [ "$N" -ge 2 ]; then
  nccl_all=$("${MPI[@]}" "$WORK/nccl_bw" 2>&1 | sed -n 's/.*busbw \([0-9.]*\) GB\/s.*/\1/p')
  nccl_own=$("${MPI[@]}" "$WORK/own.sh" "$WORK/nccl_bw" 2>&1 | sed -n 's/.*busbw \([0-9.]*\) GB\/s.*/\1/p')
fi

echo
echo "start-up on one node, $N GPU(s); whole command, median of $RUNS runs"
echo "| what | seconds | note |"
echo "|---|---|---|"
echo "| floor: cudaFree(0), one GPU visible | $floor1 | |"
echo "| floor: cudaFree(0), $N GPU(s) visible | $floorN | |"
echo "| tessera --backend=cpu eval 1+1 | $cpu1 | |"
echo "| tessera --backend=cuda eval 1+1, 1 process | $cuda1 | target <= floor + 0.1 = $(awk -v f="$floor1" 'BEGIN {printf "%.3f", f + 0.1}') |"
echo "| same, TESSERA_GPU_ISOLATE=0 | $cuda1_all | |"
echo "| mpirun -np $N, --backend=cuda | $cudaN | target (N = 4) <= 0.6 |"
echo "| same, TESSERA_GPU_ISOLATE=0 | $cudaN_all | |"
echo "| mpirun -np $N, --backend=cpu | $cpuN | mpirun's own share |"
echo "| NCCL all-reduce 1 GiB, busbw GB/s, all visible / own GPU | $nccl_all / $nccl_own | unchanged |"
echo "set-up parts (1 process): $parts"
echo
echo "- startup ($N GPU node) | $(date -u '+%Y-%m-%d %H:%M UTC'); $(machine_line); $(commit_line); $(binary_line) | \`RUNS=$RUNS bench/startup.sh\` | floor $floor1 s (1 visible), $floorN s ($N visible); cpu $cpu1 s; cuda 1 process $cuda1 s (isolate off $cuda1_all s); mpirun -np $N cuda $cudaN s (isolate off $cudaN_all s), cpu $cpuN s; NCCL busbw $nccl_all / $nccl_own GB/s"
