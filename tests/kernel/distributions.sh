#!/bin/sh
# distributions.sh - the continuous distributions beyond normal and uniform
# (ops_random.c): 10^6 draws of each pass a Kolmogorov-Smirnov test against
# the exact distribution function (D below 1.95/sqrt(n), the 0.1 % level)
# and their mean lies within 5 standard errors of the exact mean; the values
# are the same bits for any chunking, on 2 ranks and with --no-fuse (each
# element depends only on the seed, the stream and its index); a slice is
# the slice of the whole array; bad parameters are one error each.
# Needs python3 with numpy and h5py: skipped without them, failed in CI.
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"

TIMEOUT=180
need_numpy

N=1000000
cat >job.tsr <<EOF
sn = standard_normal($N, chunks=300000, seed=1)
ln = lognormal(0, 0.5, $N, chunks=300000, seed=2)
se = standard_exponential($N, chunks=300000, seed=3)
ex = exponential(2.0, $N, chunks=300000, seed=4)
la = laplace(1, 2, $N, chunks=300000, seed=5)
lo = logistic(0, 1, $N, chunks=300000, seed=6)
gu = gumbel(0, 1, $N, chunks=300000, seed=7)
ra = rayleigh(1, $N, chunks=300000, seed=8)
we = weibull(2.0, $N, chunks=300000, seed=9)
pa = pareto(3.0, $N, chunks=300000, seed=10)
EOF
capture out err tsr run job.tsr -o d.h5
[ "$RC" -eq 0 ] || fail "10^6 draws of each distribution: exit status $RC: $(tail -3 err)"

"$PYNP" - <<'PY' || soft_fail "a distribution fails its Kolmogorov-Smirnov or mean test"
import h5py, math, numpy as np, sys
f = h5py.File("d.h5", "r")
erf = np.vectorize(math.erf)
Phi = lambda x: 0.5 * (1 + erf(x / math.sqrt(2)))
cases = {  # name: (CDF, exact mean)
    "sn": (Phi, 0.0),
    "ln": (lambda x: Phi(np.log(x) / 0.5), math.exp(0.125)),
    "se": (lambda x: 1 - np.exp(-x), 1.0),
    "ex": (lambda x: 1 - np.exp(-x / 2), 2.0),
    "la": (lambda x: np.where(x < 1, 0.5 * np.exp((x - 1) / 2), 1 - 0.5 * np.exp(-(x - 1) / 2)), 1.0),
    "lo": (lambda x: 1 / (1 + np.exp(-x)), 0.0),
    "gu": (lambda x: np.exp(-np.exp(-x)), 0.5772156649015329),
    "ra": (lambda x: 1 - np.exp(-x * x / 2), math.sqrt(math.pi / 2)),
    "we": (lambda x: 1 - np.exp(-x * x), math.gamma(1.5)),
    "pa": (lambda x: 1 - (1 + x) ** -3.0, 0.5),
}
bad = 0
for name, (cdf, mean) in cases.items():
    x = np.sort(f[name][()])
    n = x.size
    F = cdf(x)
    i = np.arange(1, n + 1)
    d = max(np.max(i / n - F), np.max(F - (i - 1) / n))
    se = x.std() / math.sqrt(n)
    z = abs(x.mean() - mean) / se
    ok = d < 1.95 / math.sqrt(n) and z < 5 and np.all(np.isfinite(x))
    print(f"# {name}: KS D = {d:.5f} (limit {1.95 / math.sqrt(n):.5f}), mean {x.mean():.6f} vs {mean:.6f} ({z:.2f} SE)")
    bad += not ok
sys.exit(bad > 0)
PY

# The same bits for any chunking, rank count and --no-fuse; slices of the
# generator are slices of the whole array.
cat >inv.tsr <<'EOF'
a = laplace(1, 2, (300, 70), chunks=(300, 70), seed=3)
b = laplace(1, 2, (300, 70), chunks=(7, 13), seed=3)
c = pareto(2.5, (300, 70), chunks=(64, 70), seed=4)[::7, 3::2]
w = weibull(1.5, 1000, chunks=333, seed=5)
EOF
cat >inv2.tsr <<'EOF'
a = laplace(1, 2, (300, 70), chunks=(41, 9), seed=3)
b = laplace(1, 2, (300, 70), chunks=(300, 1), seed=3)
c = pareto(2.5, (300, 70), chunks=(300, 70), seed=4)[::7, 3::2]
w = weibull(1.5, 1000, chunks=1000, seed=5)
EOF
tsr run inv.tsr -o i1.h5 >/dev/null || fail "inv.tsr on 1 rank"
mpi_tsr 2 run inv2.tsr -o i2.h5 >/dev/null || fail "inv2.tsr on 2 ranks"
tsr --no-fuse run inv2.tsr -o i3.h5 >/dev/null || fail "inv2.tsr --no-fuse"
"$PYNP" - <<'PY' || soft_fail "the values depend on the chunking, the ranks or --no-fuse"
import h5py, numpy as np, sys
r = [h5py.File(f, "r") for f in ("i1.h5", "i2.h5", "i3.h5")]
bad = [n for n in "abcw" for g in r[1:] if r[0][n][()].tobytes() != g[n][()].tobytes()]
bad += [] if r[0]["a"][()].tobytes() == r[0]["b"][()].tobytes() else ["a/b"]
print("differ:", bad) if bad else None
sys.exit(bool(bad))
PY
# A slice is the slice of the whole array (pushed into the generator).
printf 's = gumbel(0, 1, (400, 30), chunks=(100, 7), seed=8)[13:390:3, ::4]\ng = gumbel(0, 1, (400, 30), chunks=(400, 30), seed=8)\n' >slice.tsr
tsr run slice.tsr -o s.h5 >/dev/null || fail "slice.tsr"
"$PYNP" -c 'import h5py, sys; f = h5py.File("s.h5", "r"); sys.exit(f["s"][()].tobytes() != f["g"][()][13:390:3, ::4].tobytes())' ||
  soft_fail "a slice of gumbel is not the slice of the whole array"

one_error_each 'sum(weibull(0, 10))' 'sum(pareto(-1, 10))' 'sum(exponential(-1, 10))' \
  'sum(laplace(0, -2, 10))' 'sum(lognormal(0, -1, 10))' 'sum(weibull(shape=10))'
finish
