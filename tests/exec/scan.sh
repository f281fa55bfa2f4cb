#!/bin/sh
# scan.sh - cumsum, cumprod, nancumsum, nancumprod (functions and methods)
# and diff against NumPy on multi-chunk inputs with ragged edges and chunks
# of size 1, along axis 0, 1, -1 and None (flattened in C order), on 1 and
# 3 ranks and with --no-fuse: values within 1e-12 of NumPy's (1e-5 for
# float32), the same bits on every rank count and with --no-fuse, the
# result dtypes of bool and integer inputs, empty arrays, scans read by
# later expressions, and one error line for a bad axis or order.
# Needs python3 with numpy and h5py: skipped without them, failed in CI.
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"

TIMEOUT=120
need_numpy

cat >prelude.tsr <<'EOF'
x1 = sin(arange(23, chunks=((5, 1, 1, 7, 9),)))
x2 = sin(arange(7, chunks=3)[:, None] * 10 + arange(5, chunks=((1, 3, 1),)))
x3 = sin(arange(4, chunks=1)[:, None, None] * 100 + arange(6, chunks=4)[None, :, None] * 10 + arange(5, chunks=2)[None, None, :])
xn = sqrt(x2)
bb = greater(x1, 0).astype("bool")
p2 = persist(x2 * 3)
EOF
cat >prelude.py <<'EOF'
x1 = np.sin(np.arange(23.0))
x2 = np.sin(np.arange(7.0)[:, None] * 10 + np.arange(5.0))
x3 = np.sin(np.arange(4.0)[:, None, None] * 100 + np.arange(6.0)[None, :, None] * 10 + np.arange(5.0)[None, None, :])
with np.errstate(invalid="ignore"):
    xn = np.sqrt(x2)
bb = x1 > 0
p2 = x2 * 3
EOF
# name | tessera | NumPy
cat >cases.txt <<'EOF'
s1|cumsum(x1)|np.cumsum(x1)
s2|(1 + x1 / 10).cumprod()|np.cumprod(1 + x1 / 10)
s3|cumsum(x2, axis=0)|np.cumsum(x2, axis=0)
s4|x2.cumsum(axis=1)|np.cumsum(x2, axis=1)
s5|cumsum(x2, axis=-1)|np.cumsum(x2, axis=-1)
s6|cumsum(x2)|np.cumsum(x2)
s7|cumprod(1 + x2 / 5, axis=0)|np.cumprod(1 + x2 / 5, axis=0)
s8|x2.cumprod()|np.cumprod(x2)
s9|cumsum(x3, axis=0)|np.cumsum(x3, axis=0)
s10|cumsum(x3, axis=1)|np.cumsum(x3, axis=1)
s11|cumprod(1 + x3 / 100, axis=2)|np.cumprod(1 + x3 / 100, axis=2)
s12|cumsum(x3)|np.cumsum(x3)
s13|cumsum(x2[::2, 1:], axis=0)|np.cumsum(x2[::2, 1:], axis=0)
s14|cumsum(cumsum(x2, axis=0), axis=1)|np.cumsum(np.cumsum(x2, axis=0), axis=1)
s15|cumsum(x2, axis=0) * 2 + x2|np.cumsum(x2, axis=0) * 2 + x2
s16|sum(cumsum(x1))|np.sum(np.cumsum(x1))
s17|cumsum(p2, axis=1)|np.cumsum(p2, axis=1)
s18|cumsum(x2.T, axis=0)|np.cumsum(x2.T, axis=0)
s19|cumsum(3)|np.cumsum(3.0)
s20|cumsum(x1, dtype="float32")|np.cumsum(x1, dtype=np.float32)
s21|cumsum(sin(arange(9, chunks=2, dtype="float32")))|np.cumsum(np.sin(np.arange(9, dtype=np.float32)))
n1|nancumsum(xn, axis=0)|np.nancumsum(xn, axis=0)
n2|nancumprod(1 + xn, axis=1)|np.nancumprod(1 + xn, axis=1)
n3|nancumsum(xn)|np.nancumsum(xn)
n4|nancumprod(xn)|np.nancumprod(xn)
n5|cumsum(xn, axis=1)|np.cumsum(xn, axis=1)
i1|cumsum(arange(10, chunks=3, dtype="int32"))|np.cumsum(np.arange(10, dtype=np.int32))
i2|cumprod(arange(1, 15, chunks=4, dtype="int64"))|np.cumprod(np.arange(1, 15))
i3|cumsum(bb)|np.cumsum(bb)
i4|cumprod(arange(1, 9, chunks=((1, 1, 6),), dtype="uint8"))|np.cumprod(np.arange(1, 9, dtype=np.uint8))
e1|cumsum(zeros((0, 3)), axis=0)|np.cumsum(np.zeros((0, 3)), axis=0)
e2|cumprod(zeros((3, 0)))|np.cumprod(np.zeros((3, 0)))
d1|diff(x1)|np.diff(x1)
d2|diff(x2, axis=0)|np.diff(x2, axis=0)
d3|diff(x2, n=2)|np.diff(x2, n=2)
d4|diff(x3, n=3, axis=1)|np.diff(x3, n=3, axis=1)
d5|diff(x1, n=30)|np.diff(x1, n=30)
d6|diff(bb)|np.diff(bb)
d7|diff(arange(9, chunks=2, dtype="int32") ** 2, 2)|np.diff(np.arange(9, dtype=np.int32) ** 2, 2)
d8|diff(x2, n=0)|np.diff(x2, n=0)
EOF
# the result dtypes, as printed: name | tessera | NumPy dtype name
cat >dtypes.txt <<'EOF'
t1|cumsum(bb).dtype|int64
t2|cumsum(arange(3, dtype="int8")).dtype|int64
t3|cumprod(arange(3, dtype="uint16")).dtype|uint64
t4|cumsum(ones(3, dtype="float32")).dtype|float32
t5|diff(bb).dtype|bool
t6|nancumsum(arange(3, dtype="int32")).dtype|int64
EOF
{
  cat prelude.tsr
  while IFS='|' read -r name expr _; do echo "$name = $expr"; done <cases.txt
  while IFS='|' read -r name expr _; do echo "$name = $expr"; done <dtypes.txt
} >job.tsr

check() { # WHAT FILE
  "$PYNP" - "$2" <<'PY' || soft_fail "$1: values differ from NumPy"
import h5py, numpy as np, sys
exec(open("prelude.py").read())
f = h5py.File(sys.argv[1], "r")
bad = []
for line in open("cases.txt"):
    name, _, numpy_expr = line.rstrip("\n").split("|")
    want = np.asarray(eval(numpy_expr))
    got = np.asarray(f[name][()])
    tol = 1e-5 if want.dtype == np.float32 else 1e-12
    if got.shape != want.shape or not np.allclose(got, want.astype(np.float64), rtol=tol, atol=tol, equal_nan=True):
        bad.append(name)
        print(name, got.shape, want.shape, got.ravel()[:8], want.ravel()[:8])
sys.exit(1 if bad else 0)
PY
}

capture out err tsr run job.tsr -o one.h5
[ "$RC" -eq 0 ] || fail "the scan job on 1 rank: exit status $RC: $(tail -3 err)"
check "scans, 1 rank" one.h5
while IFS='|' read -r name _ want; do
  grep -q "^$name = '$want'\$" out || soft_fail "$name: dtype $(grep "^$name = " out), expected $want"
done <dtypes.txt
capture out err mpi_tsr 3 run job.tsr -o three.h5
[ "$RC" -eq 0 ] || fail "the scan job on 3 ranks: exit status $RC: $(tail -3 err)"
check "scans, 3 ranks" three.h5
same_bits "scans, 1 and 3 ranks" one.h5 three.h5
capture out err tsr --no-fuse run job.tsr -o nf.h5
[ "$RC" -eq 0 ] || fail "the scan job with --no-fuse: exit status $RC: $(tail -3 err)"
check "scans, --no-fuse" nf.h5
same_bits "scans, fused and --no-fuse" one.h5 nf.h5
capture out err mpi_tsr 3 --no-fuse run job.tsr -o nf3.h5
[ "$RC" -eq 0 ] || fail "the scan job with --no-fuse on 3 ranks: exit status $RC: $(tail -3 err)"
same_bits "scans, --no-fuse on 1 and 3 ranks" nf.h5 nf3.h5

# Bad arguments: one error line each, before any work.
one_error_each 'cumsum(ones(3), axis=1)' 'cumprod(ones((2, 2)), axis=-3)' 'diff(ones(3), n=-1)' \
  'diff(ones(3), axis=1)' 'diff(5)' 'nancumsum(ones(3), axis=0.5)'
finish
