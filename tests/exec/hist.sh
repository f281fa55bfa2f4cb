#!/bin/sh
# hist.sh - histogram, histogram2d, histogramdd and bincount against NumPy
# (bins and range given, or taken from the data as NumPy does):
# every count of a job's results file NumPy's (bitwise; weighted sums,
# added in another order, within 1e-12), with NumPy's shape and dtype, on 1
# and 3 ranks and with --no-fuse, on ragged chunks with NaN and inf among
# the values; the result's chunks against dask.array's (where it is
# installed); bad arguments give one error line each before any work.
# Needs python3 with numpy and h5py: skipped without them, failed in CI.
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"

TIMEOUT=120
need_numpy

# x (300 x 7, chunks 64, 3): values in about [-13, 14] on a 1/37 grid, a
# NaN every 41st and an inf every 97th; i (500, chunks 77): integers 0 .. 12;
# y (300, chunks 50), z (300, chunks 128): two coordinates; w (300 x 7,
# chunks 100, 7): weights.
cat >cases.txt <<'CASES'
h1|histogram(x, bins=7, range=(-2, 2))[0]|np.histogram(x, bins=7, range=(-2, 2))[0]
h2|histogram(x, bins=7, range=(-2, 2))[1]|np.histogram(x, bins=7, range=(-2, 2))[1]
h3|histogram(x, bins=1000, range=(-13.5, 14.1))[0]|np.histogram(x, bins=1000, range=(-13.5, 14.1))[0]
h4|histogram(x, bins=[-5, -1.5, 0, 0.25, 3, 14])[0]|np.histogram(x, bins=[-5, -1.5, 0, 0.25, 3, 14])[0]
h5|histogram(x[:, 2], bins=3, range=(1, 1))[0]|np.histogram(x[:, 2], bins=3, range=(1, 1))[0]
h6|histogram(i, bins=13, range=(0, 12))[0]|np.histogram(i, bins=13, range=(0, 12))[0]
h7|histogram(x.astype("int16"), 4, (-3, 5))[0]|np.histogram(x.astype(np.int16), 4, (-3, 5))[0]
h8|histogram(x, bins=[0, 1, 1, 2])[0]|np.histogram(x, bins=[0, 1, 1, 2])[0]
h9|histogram(x, bins=9, range=(-4, 4), density=True)[0]|np.histogram(x, bins=9, range=(-4, 4), density=True)[0]
ha|histogram(x[:0], bins=3, range=(0, 1))[0]|np.histogram(x[:0], bins=3, range=(0, 1))[0]
Tw1|histogram(x, bins=5, range=(-3, 3), weights=w)[0]|np.histogram(x, bins=5, range=(-3, 3), weights=w)[0]
Tw2|histogram(x, bins=[-3, 0, 3], weights=w, density=True)[0]|np.histogram(x, bins=[-3, 0, 3], weights=w, density=True)[0]
hw3|histogram(x, bins=5, range=(-3, 3), weights=(w * 8).astype("int32"))[0]|np.histogram(x, bins=5, range=(-3, 3), weights=(w * 8).astype(np.int32))[0]
b1|bincount(i, minlength=13)|np.bincount(i, minlength=13)
b2|bincount(i, minlength=20)|np.bincount(i, minlength=20)
b3|bincount(i.astype("uint8"), minlength=13)|np.bincount(i.astype(np.uint8), minlength=13)
b4|bincount(i > 5, minlength=2)|np.bincount(i > 5, minlength=2)
Tb5|bincount(i, weights=i * 0.5 - 1, minlength=15)|np.bincount(i, weights=i * 0.5 - 1, minlength=15)
d1|histogram2d(y, z, bins=4, range=((-2, 2), (-3, 3)))[0]|np.histogram2d(y, z, bins=4, range=((-2, 2), (-3, 3)))[0]
d2|histogram2d(y, z, bins=(3, 5), range=((-2, 2), (-3, 3)))[0]|np.histogram2d(y, z, bins=(3, 5), range=((-2, 2), (-3, 3)))[0]
d3|histogram2d(y, z, bins=[-2.0, 0.0, 0.5, 2.0])[0]|np.histogram2d(y, z, bins=[-2.0, 0.0, 0.5, 2.0])[0]
d4|histogram2d(y, z, bins=4, range=((-2, 2), (-3, 3)))[2]|np.histogram2d(y, z, bins=4, range=((-2, 2), (-3, 3)))[2]
d5|histogramdd(x[:, :3], bins=3, range=((-4, 4), (-4, 4), (0, 9)))[0]|np.histogramdd(x[:, :3], bins=3, range=((-4, 4), (-4, 4), (0, 9)))[0]
d6|histogramdd([y, z], bins=(2, [-3.0, 0.0, 1.0, 3.0]), range=((-1, 1), None))[0]|np.histogramdd([y, z], bins=(2, [-3.0, 0.0, 1.0, 3.0]), range=((-1, 1), None))[0]
d7|histogramdd(y, bins=6, range=((-2, 2),))[0]|np.histogramdd(y, bins=6, range=((-2, 2),))[0]
Td8|histogram2d(y, z, bins=3, range=((-2, 2), (-3, 3)), weights=z * z, density=True)[0]|np.histogram2d(y, z, bins=3, range=((-2, 2), (-3, 3)), weights=z * z, density=True)[0]
d9|histogramdd(x[:, 1:3], bins=4, range=((-4, 4), (-4, 4)))[1][1]|np.histogramdd(x[:, 1:3], bins=4, range=((-4, 4), (-4, 4)))[1][1]
a1|histogram(y)[0]|np.histogram(y)[0]
a2|histogram(y, 7)[1]|np.histogram(y, 7)[1]
a3|histogram(i.astype("int16"), bins=5)[0]|np.histogram(i.astype(np.int16), bins=5)[0]
a4|histogram(y, bins=linspace(-2, 2, 9))[0]|np.histogram(y, bins=np.linspace(-2, 2, 9))[0]
a5|histogram2d(y, z, bins=3)[0]|np.histogram2d(y, z, bins=3)[0]
a6|histogramdd([y, z], bins=(2, 3))[1][1]|np.histogramdd([y, z], bins=(2, 3))[1][1]
a7|bincount(i)|np.bincount(i)
a8|bincount(i[:0])|np.bincount(i[:0])
a9|histogram(y[:0])[1]|np.histogram(y[:0])[1]
b9|histogram_bin_edges(y, 6)|np.histogram_bin_edges(y, 6)
ba|histogram_bin_edges(i, bins=[0, 2.5, 13])|np.histogram_bin_edges(i, bins=[0, 2.5, 13])
f1|histogram(x.astype("float32"), bins=10, range=(-1, 1))[0]|np.histogram(x.astype(np.float32), bins=10, range=(-1, 1))[0]
f2|histogram(y.astype("float32") * 0.1, bins=7, range=(-0.2, 0.2))[1]|np.histogram(y.astype(np.float32) * np.float32(0.1), bins=7, range=(-0.2, 0.2))[1]
f3|histogram(full(1, 0.7, dtype="float32"), bins=10, range=(0, 1))[0]|np.histogram(np.full(1, 0.7, dtype=np.float32), bins=10, range=(0, 1))[0]
CASES
XT='(((arange(300, chunks=64)[:, None] * 7 + arange(7, chunks=3)[None, :]) * 7919 % 1000) / 37.0 - 13.5)'
XN='(((np.arange(300)[:, None] * 7 + np.arange(7)[None, :]) * 7919 % 1000) / 37.0 - 13.5)'
{
  echo "t = $XT"
  echo "k = arange(300, chunks=64)[:, None] * 7 + arange(7, chunks=3)[None, :]"
  echo "x = where(k % 41 == 5, nan, where(k % 97 == 3, inf, t))"
  echo "i = arange(500, chunks=77) * 31 % 13"
  echo "y = (arange(300, chunks=50) * 53 % 101) / 25.0 - 2"
  echo "z = (arange(300, chunks=128) * 71 % 211) / 35.0 - 3"
  echo "w = rechunk((t + 14) / 10, (100, 7))"
  while IFS='|' read -r name expr _; do echo "$name = $expr"; done <cases.txt
} >job.tsr

check() { # WHAT FILE
  NUMPY_SETUP="t = $XN
k = np.arange(300)[:, None] * 7 + np.arange(7)[None, :]
x = np.where(k % 41 == 5, np.nan, np.where(k % 97 == 3, np.inf, t))
i = np.arange(500) * 31 % 13
y = (np.arange(300) * 53 % 101) / 25.0 - 2
z = (np.arange(300) * 71 % 211) / 35.0 - 3
w = (t + 14) / 10" \
    "$PYNP" "$srcdir/tests/tools/numpy_cases.py" "$2" cases.txt || soft_fail "$1: values differ from NumPy"
}

job_each_mode "histograms" 3 check

# The same counts whatever the chunks: the histogram of one chunk.
capture out err tsr --quiet eval "histogram(rechunk($XT, (300, 7)), bins=50, range=(-14, 14))[0]"
one=$(cat out)
capture out err tsr --quiet eval "histogram($XT, bins=50, range=(-14, 14))[0]"
[ "$(cat out)" = "$one" ] || soft_fail "histogram depends on the chunks: $(cat out) vs $one"

# Random samples: binned where they are generated (the CUDA backend's
# fused path) and from a persisted copy (staged) alike, on 1 and 3 ranks.
for r in 'normal(3, 2, (300, 70), chunks=(64, 30), seed=5)' 'uniform(-1, 2, (500, 90), chunks=(128, 40), seed=6)[::2, 1::3] * 3' \
  'standard_normal((1000,), chunks=(333,), seed=7) + 1'; do
  capture out err tsr --quiet eval "histogram($r, bins=40, range=(-5, 11))[0]"
  fused=$(cat out)
  capture out err tsr --quiet eval "histogram(persist($r), bins=40, range=(-5, 11))[0]"
  [ -n "$fused" ] && [ "$(cat out)" = "$fused" ] || soft_fail "histogram of $r: fused $fused, staged $(cat out) $(cat err)"
  capture out err mpi_tsr 3 --quiet eval "histogram($r, bins=40, range=(-5, 11))[0]"
  [ "$(cat out)" = "$fused" ] || soft_fail "histogram of $r on 3 ranks: $(cat out) $(cat err), 1 rank $fused"
done

# The result's chunks, against dask.array's.
if "$PYNP" -c 'import dask.array' 2>/dev/null; then
  capture out err tsr --quiet eval "(histogram(arange(10.0, chunks=3), bins=4, range=(0, 9))[0]).chunks"
  want=$("$PYNP" -c 'import dask.array as da; print(da.histogram(da.arange(10.0, chunks=3), bins=4, range=(0, 9))[0].chunks)')
  [ "$(cat out)" = "$want" ] || soft_fail "histogram chunks $(cat out), dask $want"
  capture out err tsr --quiet eval "bincount(arange(10, chunks=3), minlength=12).chunks"
  want=$("$PYNP" -c 'import dask.array as da; print(da.bincount(da.arange(10, chunks=3), minlength=12).chunks)')
  [ "$(cat out)" = "$want" ] || soft_fail "bincount chunks $(cat out), dask $want"
  capture out err tsr --quiet eval "(histogram2d(arange(10.0, chunks=3), arange(10.0, chunks=3), bins=3, range=((0, 9), (0, 9)))[0]).chunks"
  want=$("$PYNP" -c 'import dask.array as da; r = da.arange(10.0, chunks=3); print(da.histogram2d(r, r, bins=3, range=[(0, 9), (0, 9)])[0].chunks)')
  [ "$(cat out)" = "$want" ] || soft_fail "histogram2d chunks $(cat out), dask $want"
else
  [ -n "${CI:-}" ] && fail "dask.array is not installed (python3-dask): the chunk rules are not checked"
  note "SKIP: dask.array is not installed: the histograms' chunks are not compared with dask's"
fi

# A value outside bincount's minlength is an error when computed.
capture out err tsr eval "bincount(arange(20, chunks=6) % 7, minlength=5)"
[ "$RC" -eq 1 ] && grep -q "outside \[0, minlength=5)" err || soft_fail "bincount outside minlength: $RC $(cat err)"

one_error_each \
  "histogram(arange(3.0) / 0, bins=3)" \
  "bincount(arange(10) - 3)" \
  "histogram(arange(10.0), bins=0, range=(0, 1))" \
  "histogram(arange(10.0), bins=3, range=(2, 1))" \
  "histogram(arange(10.0), bins=3, range=(0, inf))" \
  "histogram(arange(10.0), bins=[0, 2, 1])" \
  "histogram(arange(10.0), bins=[1])" \
  "histogram(arange(10.0), bins=2.5, range=(0, 1))" \
  "histogram(arange(10.0), bins=3, range=(0, 1), weights=arange(9.0))" \
  "histogram(arange(10.0), bins=3, range=(0, 1, 2))" \
  "bincount(arange(10.0), minlength=10)" \
  "bincount(arange(10), minlength=-1)" \
  "bincount(arange(12).reshape(3, 4), minlength=12)" \
  "bincount(arange(10), weights=arange(9.0), minlength=10)" \
  "histogram2d(arange(10.0), arange(9.0), bins=3, range=((0, 1), (0, 1)))" \
  "histogram2d(arange(10.0), arange(10.0) / 0, bins=3)" \
  "histogramdd(arange(10.0).reshape(5, 2), bins=(3, 3, 3), range=((0, 1), (0, 1)))" \
  "histogramdd(arange(10.0).reshape(5, 2), bins=3, range=((0, 1),))" \
  "histogramdd(arange(24.0).reshape(2, 3, 4), bins=3)" \
  "histogramdd(arange(10.0).reshape(5, 2), bins=3, range=((0, 1), (0, 1)), weights=arange(4.0))"
finish
