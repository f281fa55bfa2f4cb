#!/bin/sh
# GPU backend against the CPU backend: same random bits, same reductions
# within 1e-12, bitwise identical across GPU counts. Skips (exit 77, loudly)
# where no GPU is visible; scripts/gpu-check.sh runs it on GPU nodes.
. "${srcdir:-.}/tests/lib.sh"

if ! "$TESSERA" info | grep -q '^backend cuda: [0-9]* GPU'; then
  echo "SKIP: no GPU visible to tessera (this test runs on GPU nodes: scripts/gpu-check.sh)" >&2
  skip "no GPU"
fi

cpu() { tsr --backend=cpu eval "$1"; }
gpu() { tsr --backend=cuda eval "$1"; }

# Element values: uniform bits are identical; normal bits too (same Philox,
# same log/sincos code, no FMA contraction on either side).
for e in 'uniform(-2, 3, shape=(37, 53), chunks=(8, 11), seed=4)' \
         'normal(10, 2, shape=(41, 29), chunks=(7, 13), seed=9)[::3, ::-2]' \
         'random((5, 1000), chunks=(2, 300), seed=1).astype(float32)' \
         'arange(1000, chunks=77)[::-7] * 0.5 + 1'; do
  expect_eq "$(cpu "$e")" "$(gpu "$e")" "values of $e"
done

# Reductions within 1e-12 relative of the CPU backend.
for e in 'sum((normal(10, 1, shape=(6000, 6000), chunks=(1000, 1000), seed=1) + 1)[::2, ::2])' \
         'mean(uniform(shape=(3000, 5000), chunks=(700, 900), seed=2))' \
         'std(normal(3, 2, shape=(4000, 4000), chunks=1000, seed=5))' \
         'var(normal(shape=(100000,), chunks=7000, seed=6), ddof=1)' \
         'max(abs(normal(shape=(2000, 2000), chunks=512, seed=7)))' \
         'min(sqrt(uniform(shape=(3000, 3000), chunks=1000, seed=8)))' \
         'sum(exp(-normal(shape=(1000, 1000), chunks=300, seed=3) ** 2))'; do
  expect_close "$(cpu "$e")" "$(gpu "$e")" 1e-12
done

# Axis reductions, weighted so that every element counts, within 1e-12.
for e in 'sum(sum(normal(shape=(900, 700), chunks=(200, 300), seed=1), axis=0) * arange(700))' \
         'sum(mean(uniform(shape=(900, 700), chunks=(200, 300), seed=2), axis=1) * arange(900))' \
         'sum(std(normal(shape=(500, 400), chunks=(100, 100), seed=3), axis=0) * arange(400))' \
         'sum(max(normal(shape=(500, 400), chunks=(100, 100), seed=4), axis=1) * arange(500))'; do
  expect_close "$(cpu "$e")" "$(gpu "$e")" 1e-12
done

# Same digits for any number of GPUs (ranks share GPUs where there are fewer).
e='sum((normal(10, 1, shape=(20000, 20000), chunks=(2000, 2000), seed=1) + 1)[::2, ::2])'
one=$(gpu "$e")
for k in 2 3 4; do
  got=$(mpi_run "$k" "$TESSERA" --quiet --backend=cuda --gpus-shared eval "$e")
  expect_eq "$one" "$got" "$k ranks on the GPU backend"
done
expect_close "$one" "$(cpu "$e")" 1e-12

# On 2 ranks the exchanges go through NCCL (the summary names the transport),
# and axis reductions (an all-to-all of partial rows) give the 1-rank digits.
mpi_run 2 "$TESSERA" --backend=cuda --gpus-shared eval "$e" >nccl.out 2>nccl.err
ngpu=$("$TESSERA" info | sed -n 's/^backend cuda: \([0-9]*\) GPU.*/\1/p')
if [ "$ngpu" -ge 2 ]; then
  grep -q 'comm [0-9.]* s (NCCL)' nccl.err || fail "2 GPU ranks did not exchange through NCCL: $(cat nccl.err)"
else
  # Two ranks on one GPU: NCCL cannot take the same GPU twice, MPI moves the data.
  grep -q 'comm [0-9.]* s (MPI)' nccl.err || fail "2 ranks on 1 GPU did not fall back to MPI: $(cat nccl.err)"
fi
a='sum(std(normal(shape=(3000, 2000), chunks=(300, 700), seed=3), axis=0) * arange(2000))'
one=$(gpu "$a")
for k in 2 3; do
  expect_eq "$one" "$(mpi_run "$k" "$TESSERA" --quiet --backend=cuda --gpus-shared eval "$a")" \
    "axis reduction on $k GPU ranks"
done

# --no-fuse keeps chunks in device memory: the summary reports its peak,
# at least the two 2000x2000 float64 chunks (32 MB) a worker holds.
"$TESSERA" --backend=cuda --no-fuse eval "$e" >nf.out 2>nf.err
mb=$(sed -n 's/.*peak device memory \([0-9]*\) MB.*/\1/p' nf.err)
[ -n "$mb" ] && [ "$mb" -ge 32 ] || fail "no plausible peak device memory in: $(cat nf.err)"
echo "gpu backend: values identical to the CPU backend; reductions within 1e-12; rank-count invariant"
