#!/bin/sh
# ptp_average.sh - ptp, average and the NaN-skipping reductions (nansum,
# nanmean, nanmin, nanmax, nanvar, nanstd: ops_stats.c) against NumPy on
# ragged multi-chunk arrays with NaN, -inf and all-NaN slices, on 1 and 3
# ranks and --no-fuse: ptp, nanmin and nanmax exactly (extremes are exact),
# the others within 1e-13 relative (the sums run in chunk order, NumPy's
# pairwise), NaN where NumPy gives NaN; the shapes as NumPy's; bad weights
# are one error each.
# Needs python3 with numpy and h5py: skipped without them, failed in CI.
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"

TIMEOUT=120
need_numpy

cat >cases.txt <<'EOF'
p1|ptp(x)|np.ptp(x)
p2|ptp(x, axis=0)|np.ptp(x, axis=0)
p3|ptp(x, axis=-1, keepdims=True)|np.ptp(x, axis=-1, keepdims=True)
p4|ptp(v)|np.ptp(v)
a1|average(x)|np.average(x)
a2|average(x, axis=1)|np.average(x, axis=1)
a3|average(x, weights=w)|np.average(x, weights=w)
a4|average(x, axis=0, weights=w, keepdims=True)|np.average(x, axis=0, weights=w, keepdims=True)
a5|average(x, axis=1, weights=wc)|np.average(x, axis=1, weights=wc)
a6|average(x, axis=0, weights=wr)|np.average(x, axis=0, weights=wr)
a7|average(v, weights=wv)|np.average(v, weights=wv)
a8|average(v, axis=0, weights=wv)|np.average(v, axis=0, weights=wv)
n1|nansum(y)|np.nansum(y)
n2|nansum(y, axis=0)|np.nansum(y, axis=0)
n3|nanmean(y, axis=1, keepdims=True)|np.nanmean(y, axis=1, keepdims=True)
n4|nanmean(q, axis=0)|np.nanmean(q, axis=0)
x1|nanmin(y)|np.nanmin(y)
x2|nanmin(q, axis=0)|np.nanmin(q, axis=0)
x3|nanmax(y, axis=1)|np.nanmax(y, axis=1)
x4|nanmax(q, axis=0, keepdims=True)|np.nanmax(q, axis=0, keepdims=True)
n5|nanvar(y)|np.nanvar(y)
n6|nanvar(y, axis=0, ddof=1)|np.nanvar(y, axis=0, ddof=1)
n7|nanstd(q, axis=0, ddof=1)|np.nanstd(q, axis=0, ddof=1)
n8|nanstd(y, axis=1)|np.nanstd(y, axis=1)
n9|nansum(z)|np.nansum(z)
EOF
cat >job.tsr <<'EOF'
x = normal(3, 2, (37, 23), chunks=(10, 7), seed=1)
w = uniform(0, 1, (37, 23), chunks=(13, 23), seed=2)
wc = uniform(0, 1, 23, chunks=5, seed=3)
wr = uniform(0, 1, 37, chunks=37, seed=4)
v = normal(0, 1, 101, chunks=17, seed=5)
wv = uniform(0, 1, 101, chunks=50, seed=6)
y = log(normal(1, 1.5, (37, 23), chunks=(10, 7), seed=7))
q = sqrt(normal(0, 1, (5, 40), chunks=(2, 9), seed=8) * arange(40, chunks=9) * (arange(40, chunks=9) % 3))
z = log(-ones(11, chunks=4))
EOF
while IFS='|' read -r name expr _; do echo "$name = $expr"; done <cases.txt >>job.tsr

check() { # WHAT FILE
  "$PYNP" - "$2" <<'PY' || soft_fail "$1: values differ from NumPy"
import h5py, numpy as np, sys, warnings
warnings.simplefilter("ignore")
f = h5py.File(sys.argv[1], "r")
g = {k: f[k][()] for k in ("x", "w", "wc", "wr", "v", "wv", "y", "q", "z")}
bad = []
for line in open("cases.txt"):
    name, _, expr = line.rstrip("\n").split("|")
    want = np.asarray(eval(expr, {"np": np, **g}))
    got = np.asarray(f[name][()])
    exact = name[0] in "px"
    ok = got.shape == want.shape and (np.array_equal(got, want, equal_nan=True) if exact
                                       else np.allclose(got, want, rtol=1e-13, atol=0, equal_nan=True))
    if not ok:
        bad.append(name)
        print(name, got.shape, want.shape, got.ravel()[:4], want.ravel()[:4])
sys.exit(bool(bad))
PY
}
tsr run job.tsr -o one.h5 >/dev/null 2>err || fail "1 rank: $(tail -3 err)"
check "ptp and average, 1 rank" one.h5
mpi_tsr 3 run job.tsr -o three.h5 >/dev/null 2>err || fail "3 ranks: $(tail -3 err)"
check "ptp and average, 3 ranks" three.h5
tsr --no-fuse run job.tsr -o nf.h5 >/dev/null 2>err || fail "--no-fuse: $(tail -3 err)"
check "ptp and average, --no-fuse" nf.h5

one_error_each 'average(ones((3, 4)), weights=arange(4))' \
  'average(ones((3, 4)), axis=1, weights=arange(3))' 'ptp(ones((0, 3)), axis=0)'
finish
