#!/bin/sh
# ufuncs.sh - every elementwise function that `tessera info` lists, and the
# operators // and %, against NumPy on special values (+-0, +-inf, NaN,
# subnormals, the largest doubles, halves, the edges of each domain) read
# from HDF5 in ragged chunks: bitwise equal, or within the few ULP stated in
# tests/exec/ufuncs.py for the functions where NumPy's SIMD loops and C's
# libm differ. Fused on 1 rank, --no-fuse on 3 ranks, and on the cuda
# backend where a GPU is visible.
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"

need_numpy
PYU="$srcdir/tests/exec/ufuncs.py"

capture info.out info.err tsr info
[ "$RC" -eq 0 ] || fail "tessera info failed ($RC): $(cat info.err)"
"$PYNP" "$PYU" gen info.out || fail "writing the inputs failed"

capture out err tsr --backend=cpu run job.tsr -o fused.h5
[ "$RC" -eq 0 ] || fail "the job failed ($RC): $(cat err)"
"$PYNP" "$PYU" check info.out fused.h5 || soft_fail "fused, 1 rank: tessera and NumPy differ (above)"

capture out err mpi_tsr 3 --backend=cpu --no-fuse run job.tsr -o nofuse.h5
[ "$RC" -eq 0 ] || fail "the job failed with --no-fuse on 3 ranks ($RC): $(cat err)"
"$PYNP" "$PYU" check info.out nofuse.h5 || soft_fail "--no-fuse, 3 ranks: tessera and NumPy differ (above)"
# The CUDA kernels call the same scalar code (kernel/ew_scalar.h) with CUDA's
# math library: bitwise for the exact functions, 2 ULP more for the others.
if grep -q '^backend cuda: [0-9]* GPU' info.out; then
  capture out err tsr --backend=cuda run job.tsr -o cuda.h5
  [ "$RC" -eq 0 ] || fail "the job failed on the cuda backend ($RC): $(cat err)"
  "$PYNP" "$PYU" check info.out cuda.h5 --extra-ulp 2 || soft_fail "cuda backend: tessera and NumPy differ (above)"
else
  note "no GPU visible: the cuda backend's pass is left out"
fi
finish
