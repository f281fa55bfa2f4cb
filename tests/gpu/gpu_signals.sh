#!/bin/sh
# Ctrl-C and a batch system's SIGTERM on the CUDA backend (the reliability
# issue's signals point; user-guide.md, "What happens when things go wrong"):
# a fused, an unfused and a 2-rank GPU job end within a second of SIGINT
# with status 130 and leave nothing in the output folder; SIGTERM inside one
# chunk of 10^18 elements (one reduction launch, sliced so that the host
# can look at the flag) does the same with status 143. A sliced reduction agrees with the
# CPU backend. Skips (exit 77, loudly) where no GPU is visible;
# scripts/gpu-check.sh runs it on GPU nodes.
. "${srcdir:-.}/tests/lib.sh"

if ! "$TESSERA" info | grep -q '^backend cuda: [0-9]* GPU'; then
  echo "SKIP: no GPU visible to tessera (this test runs on GPU nodes: scripts/gpu-check.sh)" >&2
  skip "no GPU"
fi

# One chunk of 6.4e8 elements: its reduction runs as several slices.
for e in 'sum(normal(10, 1, shape=(16000, 40000), chunks=(16000, 40000), seed=3))' \
         'var(uniform(shape=(16000, 40000), chunks=(16000, 40000), seed=4))' \
         'max(normal(shape=(16000, 40000), chunks=(16000, 40000), seed=5))'; do
  expect_close "$(tsr --backend=cpu eval "$e")" "$(tsr --backend=cuda eval "$e")" 1e-12
done

# The jobs run for hours on any GPU, so that no signal can come too late
# however fast the card (a job sized in minutes on an H200 may end before
# the signal elsewhere): 10^16 normals in 10^6 chunks fused (an H200 makes
# about 5*10^11 a second), 10^14 in 3.2 GB chunks without fusion.
printf 'x = sum(normal(shape=(10**8, 10**8), chunks=(100000, 100000)))\n' >long.tsr
signal_test "fused, 1 rank" INT 3 130 1 f1 "$TESSERA" --backend=cuda --quiet run long.tsr -o f1/r.h5
printf 'x = sum(normal(shape=(10**7, 10**7), chunks=(20000, 20000)) + 1)\n' >long_nf.tsr
signal_test "--no-fuse, 1 rank" INT 3 130 1 n1 "$TESSERA" --backend=cuda --quiet --no-fuse run long_nf.tsr -o n1/r.h5
OMP_NUM_THREADS=${OMP_NUM_THREADS:-4}
export OMP_NUM_THREADS
# Ctrl-C to mpirun: Open MPI's SIGCONT ends the ranks at once (they print
# "interrupted"), and mpirun returns with its own status, 1.
mpirun_signal_test "fused, mpirun -np 2" INT 1 f2 --backend=cuda --gpus-shared --quiet run long.tsr -o f2/r.h5
# SIGTERM to the ranks themselves: gone within a second, mpirun reports 143.
ranks_signal_test "ranks of mpirun -np 2, SIGTERM" TERM 143 1 r2 \
  --backend=cuda --gpus-shared --quiet run long.tsr -o r2/r.h5

# A rank killed with SIGKILL: mpirun ends the job within 5 s, nothing left.
kill_rank_test k2 --backend=cuda --gpus-shared --quiet run long.tsr -o k2/r.h5

printf 'x = sum(ones((10**9, 10**9), chunks=10**9))\n' >huge.tsr
signal_test "one chunk of 10^18, SIGTERM" TERM 3 143 1 h1 "$TESSERA" --backend=cuda --quiet run huge.tsr -o h1/r.h5

finish
