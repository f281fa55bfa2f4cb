#!/bin/sh
# quantile.sh - sort, median, quantile and percentile (NumPy's default
# method="linear") against NumPy on multi-chunk inputs with ragged edges
# and chunks of size 1, along axis 0, 1, -1 and None, keepdims, q a number
# or a list (a leading axis), odd and even lengths, NaN (a slice with NaN
# gives NaN; sort puts NaN last), integers (float64 results; sort keeps the
# dtype), on 1 and 3 ranks and with --no-fuse: the same bits as NumPy, on
# every rank count and with --no-fuse; integer q takes values without
# interpolating (an integer array keeps its dtype); the median of float32
# is float32 (an empty one too), as are the quantiles of float32 taken at
# integer q; a tuple of axes (negative ones, keepdims, ()) reduces those
# axes together; nanmedian, nanquantile and nanpercentile skip NaN (NaN for an
# all-NaN slice), also past NumPy's 600-element switch of nanmedian; the median of an empty array is NaN;
# one error line for q out of range or a bad axis.
# Needs python3 with numpy and h5py: skipped without them, failed in CI.
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"

TIMEOUT=120
need_numpy

cat >prelude.tsr <<'EOF'
x1 = sin(arange(23, chunks=((5, 1, 1, 7, 9),)))
x0 = x1[:22]
x2 = sin(arange(7, chunks=3)[:, None] * 10 + arange(6, chunks=((1, 3, 2),)))
x3 = sin(arange(4, chunks=1)[:, None, None] * 100 + arange(6, chunks=4)[None, :, None] * 10 + arange(5, chunks=2)[None, None, :])
xn = sqrt(x2)
ii = (arange(31, chunks=4) * 7) % 11
i2 = ((arange(5, chunks=2, dtype="int32")[:, None] * 13 + arange(8, chunks=3, dtype="int32")) * 5) % 9
pp = persist(x2 * 3)
xa = sqrt(x2 - arange(7, chunks=3)[:, None] * 0.4)
xb = sqrt(sin(arange(1000, chunks=300)))
EOF
cat >prelude.py <<'EOF'
x1 = np.sin(np.arange(23.0))
x0 = x1[:22]
x2 = np.sin(np.arange(7.0)[:, None] * 10 + np.arange(6.0))
x3 = np.sin(np.arange(4.0)[:, None, None] * 100 + np.arange(6.0)[None, :, None] * 10 + np.arange(5.0)[None, None, :])
with np.errstate(invalid="ignore"):
    xn = np.sqrt(x2)
ii = (np.arange(31) * 7) % 11
i2 = ((np.arange(5, dtype=np.int32)[:, None] * 13 + np.arange(8, dtype=np.int32)) * 5) % 9
pp = x2 * 3
with np.errstate(invalid="ignore"):
    xa = np.sqrt(x2 - np.arange(7.0)[:, None] * 0.4)
    xb = np.sqrt(np.sin(np.arange(1000.0)))
EOF
# name | tessera | NumPy
cat >cases.txt <<'EOF'
o1|sort(x1)|np.sort(x1)
o2|sort(x2, axis=0)|np.sort(x2, axis=0)
o3|sort(x2)|np.sort(x2)
o4|sort(x2, axis=None)|np.sort(x2, axis=None)
o5|sort(x3, axis=1)|np.sort(x3, axis=1)
o6|sort(xn, axis=0)|np.sort(xn, axis=0)
o7|sort(xn, axis=None)|np.sort(xn, axis=None)
o8|sort(ii)|np.sort(ii)
o9|sort(i2, axis=0)|np.sort(i2, axis=0)
o10|sort(x2, axis=0) * 2 + x2|np.sort(x2, axis=0) * 2 + x2
o11|sum(sort(x1)[:5])|np.sum(np.sort(x1)[:5])
m1|median(x1)|np.median(x1)
m2|median(x0)|np.median(x0)
m3|median(x2, axis=0)|np.median(x2, axis=0)
m4|median(x2, axis=1)|np.median(x2, axis=1)
m5|median(x2, axis=-1, keepdims=True)|np.median(x2, axis=-1, keepdims=True)
m6|median(x2, keepdims=True)|np.median(x2, keepdims=True)
m7|median(x3, axis=1)|np.median(x3, axis=1)
m8|median(xn, axis=0)|np.median(xn, axis=0)
m9|median(xn)|np.median(xn)
m10|median(ii)|np.median(ii)
m11|median(i2, axis=1)|np.median(i2, axis=1)
m12|median(pp, axis=0)|np.median(pp, axis=0)
m13|median(x2)|np.median(x2)
q1|quantile(x1, 0.3)|np.quantile(x1, 0.3)
q2|quantile(x0, [0.0, 0.25, 0.5, 0.7, 1.0])|np.quantile(x0, [0.0, 0.25, 0.5, 0.7, 1.0])
q3|quantile(x2, 0.9, axis=0)|np.quantile(x2, 0.9, axis=0)
q4|quantile(x2, (0.1, 0.5), axis=1)|np.quantile(x2, (0.1, 0.5), axis=1)
q5|quantile(x2, [0.33], axis=-1, keepdims=True)|np.quantile(x2, [0.33], axis=-1, keepdims=True)
q6|quantile(x3, [0.2, 0.8], axis=2, keepdims=True)|np.quantile(x3, [0.2, 0.8], axis=2, keepdims=True)
q7|quantile(x3, 0.61)|np.quantile(x3, 0.61)
q8|quantile(xn, [0.5, 0.75], axis=0)|np.quantile(xn, [0.5, 0.75], axis=0)
q9|quantile(ii, 0.45)|np.quantile(ii, 0.45)
q10|quantile(i2, [0.1, 0.9], axis=0)|np.quantile(i2, [0.1, 0.9], axis=0)
q11|quantile(x2, 0.5, keepdims=True)|np.quantile(x2, 0.5, keepdims=True)
p1|percentile(x1, 37)|np.percentile(x1, 37)
p2|percentile(x2, [5, 50, 95.5], axis=0)|np.percentile(x2, [5, 50, 95.5], axis=0)
p3|percentile(x3, 12.5, axis=1, keepdims=True)|np.percentile(x3, 12.5, axis=1, keepdims=True)
p4|percentile(ii, 100)|np.percentile(ii, 100)
p5|percentile(i2, [0, 33], axis=None)|np.percentile(i2, [0, 33], axis=None)
e1|median(zeros((0,)))|np.nan
k1|quantile(ii, 1)|np.quantile(ii, 1)
k2|quantile(i2, [0, 1], axis=0)|np.quantile(i2, [0, 1], axis=0)
k3|quantile(xn, 1, axis=0)|np.quantile(xn, 1, axis=0)
k4|nanquantile(ii, [1, 0])|np.nanquantile(ii, [1, 0])
f1|median(x2.astype("float32"), axis=0)|np.median(x2.astype(np.float32), axis=0)
f2|nanmedian(xn.astype("float32"))|np.nanmedian(xn.astype(np.float32))
f3|median(x1.astype("float32"))|np.median(x1.astype(np.float32))
e3|nanmedian(zeros((0,)))|np.nan
nm1|nanmedian(xn)|np.nanmedian(xn)
nm2|nanmedian(xn, axis=0)|np.nanmedian(xn, axis=0)
nm3|nanmedian(xa, axis=1, keepdims=True)|np.nanmedian(xa, axis=1, keepdims=True)
nm4|nanmedian(xb)|np.nanmedian(xb)
nm5|nanmedian(xa, axis=0)|np.nanmedian(xa, axis=0)
nm6|nanmedian(i2, axis=0)|np.nanmedian(i2, axis=0)
nq1|nanquantile(xn, [0.1, 0.5, 1.0], axis=0)|np.nanquantile(xn, [0.1, 0.5, 1.0], axis=0)
nq2|nanquantile(xn, 0.3)|np.nanquantile(xn, 0.3)
nq3|nanpercentile(xa, 70, axis=-1)|np.nanpercentile(xa, 70, axis=-1)
nq4|nanpercentile(xn, [0, 25], axis=None, keepdims=True)|np.nanpercentile(xn, [0, 25], axis=None, keepdims=True)
nq5|nanquantile(ii, 0.45)|np.nanquantile(ii, 0.45)
nq6|nanquantile(xb, [0.37, 0.99])|np.nanquantile(xb, [0.37, 0.99])
nq7|nanquantile(x3, 0.4, axis=1)|np.nanquantile(x3, 0.4, axis=1)
e2|median(zeros((3, 0)), axis=1)|np.full(3, np.nan)
mt1|median(x3, axis=(0, 2))|np.median(x3, axis=(0, 2))
mt2|median(x3, axis=(2, 0), keepdims=True)|np.median(x3, axis=(2, 0), keepdims=True)
mt3|quantile(x3, [0.1, 0.6], axis=(-1, 1))|np.quantile(x3, [0.1, 0.6], axis=(-1, 1))
mt4|nanmedian(xn, axis=(0, 1))|np.nanmedian(xn, axis=(0, 1))
mt5|nanpercentile(x3, 35, axis=(0, 1), keepdims=True)|np.nanpercentile(x3, 35, axis=(0, 1), keepdims=True)
mt6|percentile(x3, [20, 90], axis=())|np.percentile(x3, [20, 90], axis=())
mt7|median(zeros((2, 3)), axis=(0, 1))|np.median(np.zeros((2, 3)), axis=(0, 1))
mt8|nanquantile(xa, 0.5, axis=[1, 0], keepdims=True)|np.nanquantile(xa, 0.5, axis=(1, 0), keepdims=True)
mt9|quantile(i2, [0, 1], axis=(1, 0))|np.quantile(i2, [0, 1], axis=(1, 0))
mt10|median(pp, axis=(-2, 1))|np.median(pp, axis=(-2, 1))
f4|median(ones((2, 0), dtype="float32"), axis=1)|np.median(np.ones((2, 0), np.float32), axis=1)
f5|nanquantile(full(3, 1.0, dtype="float32"), 0)|np.nanquantile(np.full(3, 1.0, np.float32), 0)
f6|nanquantile(xa.astype("float32"), [0, 1], axis=(0, 1))|np.nanquantile(xa.astype(np.float32), [0, 1], axis=(0, 1))
f7|nanquantile(log(x1 * 0 + arange(23) % 2), [0, 1])|np.nanquantile(np.log(x1 * 0 + np.arange(23) % 2), [0, 1])
EOF
# the result dtypes, as printed: name | tessera | NumPy dtype name
cat >dtypes.txt <<'EOF'
t1|sort(ii).dtype|int64
t2|sort(i2).dtype|int32
t3|median(ii).dtype|float64
t4|quantile(i2, 0.5).dtype|float64
EOF
{
  cat prelude.tsr
  while IFS='|' read -r name expr _; do echo "$name = $expr"; done <cases.txt
  while IFS='|' read -r name expr _; do echo "$name = $expr"; done <dtypes.txt
} >job.tsr

check() { # WHAT FILE: the same values and bits as NumPy on the same inputs
  "$PYNP" - "$2" <<'PY' || soft_fail "$1: values differ from NumPy"
import h5py, numpy as np, sys
exec(open("prelude.py").read())
f = h5py.File(sys.argv[1], "r")
# the inputs as tessera computed them (its sin may differ from NumPy's in
# the last bit), so that NumPy's order statistics of them are exact
for k in ("x1", "x0", "x2", "x3", "xn", "ii", "i2", "pp", "xa", "xb"):
    assert np.allclose(f[k][()], globals()[k], rtol=1e-14, atol=1e-15, equal_nan=True), k
    globals()[k] = f[k][()]
bad = []
for line in open("cases.txt"):
    name, _, numpy_expr = line.rstrip("\n").split("|")
    want = np.asarray(eval(numpy_expr))
    got = np.asarray(f[name][()])
    same = got.shape == want.shape and got.dtype == want.dtype and (
        np.array_equal(got, want, equal_nan=True) if got.dtype.kind == "f" else np.array_equal(got, want))
    if same and got.dtype.kind == "f":
        g, w = got.ravel(), want.ravel()
        same = all(np.isnan(a) and np.isnan(b) or a.tobytes() == b.tobytes() for a, b in zip(g, w))
    if not same:
        bad.append(name)
        print(name, got.shape, want.shape, got.dtype, want.dtype, got.ravel()[:8], want.ravel()[:8])
sys.exit(1 if bad else 0)
PY
}

capture out err tsr run job.tsr -o one.h5
[ "$RC" -eq 0 ] || fail "the quantile job on 1 rank: exit status $RC: $(tail -3 err)"
check "order statistics, 1 rank" one.h5
while IFS='|' read -r name _ want; do
  grep -q "^$name = '$want'\$" out || soft_fail "$name: dtype $(grep "^$name = " out), expected $want"
done <dtypes.txt
capture out err mpi_tsr 3 run job.tsr -o three.h5
[ "$RC" -eq 0 ] || fail "the quantile job on 3 ranks: exit status $RC: $(tail -3 err)"
check "order statistics, 3 ranks" three.h5
same_bits "order statistics, 1 and 3 ranks" one.h5 three.h5
capture out err tsr --no-fuse run job.tsr -o nf.h5
[ "$RC" -eq 0 ] || fail "the quantile job with --no-fuse: exit status $RC: $(tail -3 err)"
check "order statistics, --no-fuse" nf.h5
same_bits "order statistics, fused and --no-fuse" one.h5 nf.h5
capture out err mpi_tsr 3 --no-fuse run job.tsr -o nf3.h5
[ "$RC" -eq 0 ] || fail "the quantile job with --no-fuse on 3 ranks: exit status $RC: $(tail -3 err)"
same_bits "order statistics, --no-fuse on 1 and 3 ranks" nf.h5 nf3.h5

# Bad arguments: one error line each, before any work.
one_error_each 'nanquantile(ones(3), 1.5)' 'nanpercentile(ones(3), 101)' 'quantile(ones(3), 1.5)' 'percentile(ones(3), -1)' 'quantile(ones(3), [0.5, 2])' \
  'median(ones(3), axis=1)' 'sort(ones((2, 2)), axis=2)' 'quantile(ones(3), "a")' 'sort(5)'
finish
