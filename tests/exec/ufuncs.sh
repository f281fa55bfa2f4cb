#!/bin/sh
# ufuncs.sh - every elementwise function that `tessera info` lists, and the
# operators // and %, against NumPy on special values (+-0, +-inf, NaN,
# subnormals, the largest doubles, halves, the edges of each domain) read
# from HDF5 in ragged chunks: bitwise equal, or within the few ULP stated in
# tests/exec/ufuncs.py for the functions where NumPy's SIMD loops and C's
# libm differ. Fused on 1 rank, --no-fuse on 3 ranks.
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"

need_numpy
PYU="$srcdir/tests/exec/ufuncs.py"

capture info.out info.err tsr info
[ "$RC" -eq 0 ] || fail "tessera info failed ($RC): $(cat info.err)"
"$PYNP" "$PYU" gen info.out || fail "writing the inputs failed"

capture out err tsr run job.tsr -o fused.h5
[ "$RC" -eq 0 ] || fail "the job failed ($RC): $(cat err)"
"$PYNP" "$PYU" check info.out fused.h5 || soft_fail "fused, 1 rank: tessera and NumPy differ (above)"

capture out err mpi_tsr 3 --no-fuse run job.tsr -o nofuse.h5
[ "$RC" -eq 0 ] || fail "the job failed with --no-fuse on 3 ranks ($RC): $(cat err)"
"$PYNP" "$PYU" check info.out nofuse.h5 || soft_fail "--no-fuse, 3 ranks: tessera and NumPy differ (above)"
finish
