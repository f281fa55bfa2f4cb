#!/bin/sh
# generators.sh - the discrete generators and those drawing several variates
# per element (integers, randint, poisson, binomial, geometric, choice;
# gamma, standard_gamma, chisquare, beta, standard_t: ops_random.c,
# kernel/rngdist.h). 10^6 draws of each: mean and variance within 5
# standard errors of the closed forms; discrete ones pass a chi-square
# goodness-of-fit test against the exact PMF (the 10^-4 level), continuous
# ones a Kolmogorov-Smirnov test against the exact CDF (incomplete gamma and
# beta functions written out below; D over 20000 evenly spaced order
# statistics below 1.95/sqrt(n), the 0.1 % level). The integer-valued ones
# are int64. Values are the same bits for any chunking, on 1 and 3 ranks and
# with --no-fuse; a slice is the slice of the whole array; bad parameters
# are one error each.
# Needs python3 with numpy and h5py: skipped without them, failed in CI.
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"

TIMEOUT=300
need_numpy

N=1000000
C=300000
cat >job.tsr <<EOF
in1 = integers(-3, 7, $N, chunks=$C, seed=1)
in2 = integers(5, size=$N, chunks=$C, seed=2, endpoint=True)
in3 = integers(0, 2**40, $N, chunks=$C, seed=3)
ri = randint(2, 9, $N, chunks=$C, seed=4)
po1 = poisson(3.5, $N, chunks=$C, seed=5)
po2 = poisson(40, $N, chunks=$C, seed=6)
po3 = poisson(2000000.0, $N, chunks=$C, seed=7)
bi1 = binomial(10, 0.3, $N, chunks=$C, seed=8)
bi2 = binomial(1000, 0.6, $N, chunks=$C, seed=9)
bi3 = binomial(1000000000, 0.25, $N, chunks=$C, seed=10)
ge1 = geometric(0.3, $N, chunks=$C, seed=11)
ge2 = geometric(0.9, $N, chunks=$C, seed=12)
ch1 = choice(5, $N, chunks=$C, seed=13)
ch2 = choice([2, 7, 11, -1], $N, p=[0.1, 0.0, 0.6, 0.3], chunks=$C, seed=14)
ga1 = gamma(2.5, 2.0, size=$N, chunks=$C, seed=15)
ga2 = standard_gamma(0.3, size=$N, chunks=$C, seed=16)
ga3 = gamma(1.0, size=$N, chunks=$C, seed=17)
cs = chisquare(3, $N, chunks=$C, seed=18)
be1 = beta(0.5, 0.7, $N, chunks=$C, seed=19)
be2 = beta(2, 3, $N, chunks=$C, seed=20)
st = standard_t(5, $N, chunks=$C, seed=21)
dtypes = (in1.dtype, ri.dtype, po1.dtype, bi1.dtype, ge1.dtype, ch1.dtype, ch2.dtype, ga1.dtype, be1.dtype, st.dtype)
EOF
capture out err tsr run job.tsr -o d.h5
[ "$RC" -eq 0 ] || fail "10^6 draws of each generator: exit status $RC: $(tail -3 err)"
grep -q "^dtypes = ('int64', 'int64', 'int64', 'int64', 'int64', 'int64', 'int64', 'float64', 'float64', 'float64')" out ||
  soft_fail "dtypes: $(grep dtypes out)"

"$PYNP" - <<'PY' || soft_fail "a generator fails its moment, chi-square or Kolmogorov-Smirnov test"
import h5py, math, numpy as np, sys
f = h5py.File("d.h5", "r")
lg = np.vectorize(math.lgamma)

def gammainc(a, x):
    """Regularized lower incomplete gamma P(a, x), vectorized: series below
    a + 1, Lentz's continued fraction for Q above (Numerical Recipes)."""
    x = np.asarray(x, float)
    out = np.zeros_like(x)
    lo = (x > 0) & (x < a + 1)
    xs = x[lo]
    term = np.full_like(xs, 1.0 / a)
    s = term.copy()
    for n in range(1, 500):
        term = term * xs / (a + n)
        s += term
    out[lo] = s * np.exp(-xs + a * np.log(xs) - math.lgamma(a))
    hi = x >= a + 1
    xh = x[hi]
    tiny = 1e-300
    b = xh + 1 - a
    cc = np.full_like(xh, 1 / tiny)
    d = 1 / b
    h = d.copy()
    for i in range(1, 500):
        an = -i * (i - a)
        b = b + 2
        d = an * d + b
        d = np.where(np.abs(d) < tiny, tiny, d)
        cc = b + an / cc
        cc = np.where(np.abs(cc) < tiny, tiny, cc)
        d = 1 / d
        h *= d * cc
    out[hi] = 1 - np.exp(-xh + a * np.log(xh) - math.lgamma(a)) * h
    return out

def betainc(a, b, x):
    """Regularized incomplete beta I_x(a, b), vectorized continued fraction
    (Numerical Recipes' betacf), with the symmetry for x > (a+1)/(a+b+2)."""
    x = np.asarray(x, float)
    out = np.where(x >= 1, 1.0, 0.0)
    inside = (x > 0) & (x < 1)
    xi = x[inside]
    flip = xi > (a + 1) / (a + b + 2)
    aa = np.where(flip, b, a)
    bb = np.where(flip, a, b)
    xx = np.where(flip, 1 - xi, xi)
    tiny = 1e-300
    qab, qap, qam = aa + bb, aa + 1, aa - 1
    c = np.ones_like(xx)
    d = 1 - qab * xx / qap
    d = np.where(np.abs(d) < tiny, tiny, d)
    d = 1 / d
    h = d.copy()
    for m in range(1, 400):
        m2 = 2 * m
        an = m * (bb - m) * xx / ((qam + m2) * (aa + m2))
        d = 1 + an * d; d = np.where(np.abs(d) < tiny, tiny, d)
        c = 1 + an / c; c = np.where(np.abs(c) < tiny, tiny, c)
        d = 1 / d
        h *= d * c
        an = -(aa + m) * (qab + m) * xx / ((aa + m2) * (qap + m2))
        d = 1 + an * d; d = np.where(np.abs(d) < tiny, tiny, d)
        c = 1 + an / c; c = np.where(np.abs(c) < tiny, tiny, c)
        d = 1 / d
        h *= d * c
    lbeta = lg(aa) + lg(bb) - lg(aa + bb)
    front = np.exp(aa * np.log(xx) + bb * np.log1p(-xx) - lbeta) / aa
    v = front * h
    out[inside] = np.where(flip, 1 - v, v)
    return out

def t_cdf(df, t):
    t = np.asarray(t, float)
    ib = betainc(df / 2, 0.5, df / (df + t * t))
    return np.where(t > 0, 1 - 0.5 * ib, 0.5 * ib)

bad = 0
def report(name, ok, msg):
    global bad
    print(("# " if ok else "# FAIL ") + name + ": " + msg)
    bad += not ok

def moments(name, x, mean, var):
    n = x.size
    m, v = x.mean(), x.var()
    zm = abs(m - mean) / math.sqrt(var / n)
    mu4 = np.mean((x - m) ** 4)
    zv = abs(v - var) / math.sqrt(max(mu4 - v * v, 1e-300) / n)
    report(name, zm < 5 and zv < 5 and np.all(np.isfinite(x)),
           f"mean {m:.6g} vs {mean:.6g} ({zm:.2f} SE), var {v:.6g} vs {var:.6g} ({zv:.2f} SE)")

def chi2_crit(k, z=3.719):  # the 1e-4 upper quantile (Wilson-Hilferty)
    return k * (1 - 2 / (9 * k) + z * math.sqrt(2 / (9 * k))) ** 3

def gof(name, x, support, logpmf):
    """Chi-square goodness of fit over support (integers), tails pooled
    until each bin expects at least 5."""
    n = x.size
    if not np.all(x == np.round(x)) or x.min() < support[0] or x.max() > support[-1]:
        return report(name, False, f"values outside the support [{support[0]}, {support[-1]}]")
    p = np.exp(logpmf(support.astype(float)))
    obs = np.bincount((x - support[0]).astype(np.int64), minlength=support.size).astype(float)
    e = n * p
    # pool: merge small bins into their neighbours toward the middle
    bins_o, bins_e, acc_o, acc_e = [], [], 0.0, 0.0
    for o, ee in zip(obs, e):
        acc_o += o; acc_e += ee
        if acc_e >= 5:
            bins_o.append(acc_o); bins_e.append(acc_e); acc_o = acc_e = 0.0
    if acc_e > 0 or acc_o > 0:
        bins_o[-1] += acc_o; bins_e[-1] += acc_e
    bo, be_ = np.array(bins_o), np.array(bins_e)
    chi = float(np.sum((bo - be_) ** 2 / be_))
    k = bo.size - 1
    report(name + " chi2", k >= 1 and chi < chi2_crit(k), f"chi2 {chi:.1f} on {k} dof (limit {chi2_crit(k):.1f})")

def ks(name, x, cdf):
    x = np.sort(x)
    n = x.size
    idx = np.unique(np.linspace(0, n - 1, 20000).astype(np.int64))
    F = cdf(x[idx])
    i = idx + 1
    d = max(np.max(i / n - F), np.max(F - (i - 1) / n))
    report(name + " KS", d < 1.95 / math.sqrt(n) and np.all(np.isfinite(F)),
           f"D = {d:.5f} (limit {1.95 / math.sqrt(n):.5f})")

X = {k: f[k][()] for k in f.keys() if k != "dtypes"}

def uni(name, lo, hi):  # integers on [lo, hi)
    x = X[name]; m = hi - lo
    moments(name, x, (lo + hi - 1) / 2, (m * m - 1) / 12)
    if m < 1000:
        gof(name, x, np.arange(lo, hi), lambda k: np.full(k.shape, -math.log(m)))
uni("in1", -3, 7)
uni("in2", 0, 6)
moments("in3", X["in3"], (2 ** 40 - 1) / 2, (2.0 ** 80 - 1) / 12)
uni("ri", 2, 9)

for name, lam in (("po1", 3.5), ("po2", 40.0), ("po3", 2e6)):
    x = X[name]
    moments(name, x, lam, lam)
    w = int(12 * math.sqrt(lam) + 30)
    sup = np.arange(max(0, int(lam) - w), int(lam) + w)
    if x.min() >= sup[0] and x.max() <= sup[-1]:
        gof(name, x, sup, lambda k, lam=lam: -lam + k * math.log(lam) - lg(k + 1))
    else:
        report(name, False, "values far in the tails")

for name, n, p in (("bi1", 10, 0.3), ("bi2", 1000, 0.6), ("bi3", 10 ** 9, 0.25)):
    x = X[name]
    moments(name, x, n * p, n * p * (1 - p))
    sd = math.sqrt(n * p * (1 - p))
    sup = np.arange(max(0, int(n * p - 12 * sd - 30)), min(n, int(n * p + 12 * sd + 30)) + 1)
    gof(name, x, sup, lambda k, n=n, p=p: lg(n + 1) - lg(k + 1) - lg(n - k + 1)
        + k * math.log(p) + (n - k) * math.log1p(-p))

for name, p in (("ge1", 0.3), ("ge2", 0.9)):
    x = X[name]
    moments(name, x, 1 / p, (1 - p) / p ** 2)
    gof(name, x, np.arange(1, 200), lambda k, p=p: (k - 1) * math.log1p(-p) + math.log(p))

uni("ch1", 0, 5)
x = X["ch2"]
vals, probs = np.array([2, 7, 11, -1]), np.array([0.1, 0.0, 0.6, 0.3])
mean = float(np.sum(vals * probs))
moments("ch2", x, mean, float(np.sum(probs * (vals - mean) ** 2)))
report("ch2 values", set(np.unique(x)) <= {2.0, 11.0, -1.0}, f"values {np.unique(x)}")
xi = np.select([x == 2, x == 11, x == -1], [0, 1, 2], 3)
obs = np.bincount(xi, minlength=4)[:3]
e = x.size * np.array([0.1, 0.6, 0.3])
chi = float(np.sum((obs - e) ** 2 / e))
report("ch2 chi2", chi < chi2_crit(2), f"chi2 {chi:.1f} on 2 dof")

for name, a, scale in (("ga1", 2.5, 2.0), ("ga2", 0.3, 1.0), ("ga3", 1.0, 1.0)):
    x = X[name]
    moments(name, x, a * scale, a * scale * scale)
    ks(name, x, lambda t, a=a, s=scale: gammainc(a, t / s))
moments("cs", X["cs"], 3.0, 6.0)
ks("cs", X["cs"], lambda t: gammainc(1.5, t / 2))
for name, a, b in (("be1", 0.5, 0.7), ("be2", 2.0, 3.0)):
    x = X[name]
    moments(name, x, a / (a + b), a * b / ((a + b) ** 2 * (a + b + 1)))
    ks(name, x, lambda t, a=a, b=b: betainc(a, b, t))
moments("st", X["st"], 0.0, 5 / 3)
ks("st", X["st"], lambda t: t_cdf(5.0, t))
sys.exit(bad > 0)
PY

# The same bits for any chunking, rank count and --no-fuse; slices are
# slices of the whole array.
gen_job() { # $1: chunk length of the 1-d arrays, $2: chunks of the 2-d ones
  cat <<EOF
a = integers(-5, 1000, 5000, chunks=$1, seed=1)
b = poisson(7.5, 5000, chunks=$1, seed=2)
c = poisson(300, (50, 100), chunks=$2, seed=3)
d = binomial(50, 0.4, (50, 100), chunks=$2, seed=4)
e = geometric(0.2, 5000, chunks=$1, seed=5)
f = gamma(0.7, 3.0, size=(50, 100), chunks=$2, seed=6)
g = beta(2.5, 0.5, 5000, chunks=$1, seed=7)
h = standard_t(3, 5000, chunks=$1, seed=8)
i = choice([1.5, -2, 4], 5000, p=[0.2, 0.5, 0.3], chunks=$1, seed=9)
j = chisquare(4, (50, 100), chunks=$2, seed=10)[3::4, ::-3]
k = binomial(5000, 0.5, 5000, chunks=$1, seed=11)
l = randint(10, size=(50, 100), chunks=$2, seed=12) + 0
EOF
}
gen_job 5000 '(50, 100)' >inv1.tsr
gen_job 777 '(7, 13)' >inv2.tsr
gen_job 1250 '(50, 1)' >inv3.tsr
tsr run inv1.tsr -o i1.h5 >/dev/null || fail "inv1.tsr on 1 rank"
tsr run inv2.tsr -o i2.h5 >/dev/null || fail "inv2.tsr on 1 rank"
mpi_tsr 3 run inv3.tsr -o i3.h5 >/dev/null || fail "inv3.tsr on 3 ranks"
tsr --no-fuse run inv2.tsr -o i4.h5 >/dev/null || fail "inv2.tsr --no-fuse"
"$PYNP" - <<'PY' || soft_fail "the values depend on the chunking, the ranks or --no-fuse"
import h5py, numpy as np, sys
r = [h5py.File(f, "r") for f in ("i1.h5", "i2.h5", "i3.h5", "i4.h5")]
names = "abcdefghijkl"
bad = [(n, k) for n in names for k, g in enumerate(r[1:], 2) if r[0][n][()].tobytes() != g[n][()].tobytes()]
print("# differ:", bad) if bad else None
sys.exit(bool(bad))
PY
printf 's = poisson(30, (400, 30), chunks=(100, 7), seed=8)[13:390:3, ::4]\ng = poisson(30, (400, 30), chunks=(400, 30), seed=8)\nt = gamma(3, size=(400, 30), chunks=(33, 30), seed=9)[::-5, 2]\nu = gamma(3, size=(400, 30), chunks=(400, 30), seed=9)\n' >slice.tsr
tsr run slice.tsr -o s.h5 >/dev/null || fail "slice.tsr"
"$PYNP" -c 'import h5py, sys; f = h5py.File("s.h5", "r"); sys.exit(f["s"][()].tobytes() != f["g"][()][13:390:3, ::4].tobytes() or f["t"][()].tobytes() != f["u"][()][::-5, 2].tobytes())' ||
  soft_fail "a slice of poisson or gamma is not the slice of the whole array"

one_error_each 'sum(poisson(-1, 10))' 'sum(binomial(3.5, 0.2, 10))' 'sum(binomial(-1, 0.2, 10))' \
  'sum(binomial(10, 1.5, 10))' 'sum(geometric(0, 10))' 'sum(geometric(1.5, 10))' \
  'sum(gamma(0, size=10))' 'sum(gamma(2, -1, size=10))' 'sum(standard_gamma(-1, size=10))' \
  'sum(beta(1, 0, 10))' 'sum(chisquare(0, 10))' 'sum(standard_t(-2, 10))' \
  'sum(integers(5, 5, 10))' 'sum(integers(7, 3, 10))' 'sum(randint(1.5, 10))' \
  'sum(choice(3, 10, replace=False))' 'sum(choice([1, 2], 10, p=[0.5, 0.6]))' \
  'sum(choice([1, 2], 10, p=[0.5]))' 'sum(choice(0, 10))' 'sum(gamma(2))'
finish
