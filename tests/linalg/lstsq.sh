#!/bin/sh
# lstsq.sh - lstsq, solve, inv, pinv, svd_compressed, cholesky,
# solve_triangular, lu, det and slogdet against NumPy (lu: a = p l u with
# scipy's shapes and triangles; scipy.linalg.lu itself where installed)
# (numpy.linalg's lstsq, solve, inv, pinv and svd as the oracles, within
# rounding: tessera's go through its own SVD), on 1 and 3 ranks and with
# --no-fuse, on ragged chunks: lstsq's x, residuals, rank and singular
# values of a full-rank and a rank-deficient system; svd_compressed of an
# exactly low-rank matrix gives its singular values, orthonormal factors
# that rebuild it, and dask's signs (each row of v sums to >= 0); bad
# arguments give one error line each before any work.
# Needs python3 with numpy and h5py: skipped without them, failed in CI.
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"

TIMEOUT=120
need_numpy

cat >job.tsr <<'JOB'
a = normal(0, 1, (300, 7), chunks=(70, 3), seed=1)
b = normal(0, 1, (300, 2), chunks=(80, 2), seed=2)
b1 = b[:, 0]
x, res, rank, s = lstsq(a, b)
x1, res1, rank1, s1 = lstsq(a, b1, rcond=1e-12)
d = concatenate([a[:, :4], a[:, :3] * 2], axis=1)
xd, resd, rankd, sd = lstsq(d, b1)
sq = normal(0, 1, (6, 6), chunks=(4, 4), seed=3) + 3 * eye(6)
y = solve(sq, b[:6])
y1 = np.linalg.solve(sq, b1[:6])
iv = inv(sq)
pv = linalg.pinv(a)
lr = normal(0, 1, (400, 4), chunks=(90, 4), seed=4) @ normal(0, 1, (4, 30), chunks=(4, 7), seed=5)
u, sc, v = svd_compressed(lr, 3, n_power_iter=1, seed=6)
u4, sc4, v4 = da.linalg.svd_compressed(lr, 4, seed=7)
spd = sq @ sq.T + eye(6)
ch = cholesky(spd)
chu = np.linalg.cholesky(spd, upper=True)
tl = solve_triangular(ch, b[:6], lower=True)
tu = solve_triangular(chu, b1[:6])
tw = solve_triangular(sq, b[:6])
p, l, uu = lu(sq)
pi, li, ui = linalg.lu(sq[::-1].astype("int32") * 3)
de = det(sq)
dz = det(array([[1.0, 2], [2, 4]]))
di = np.linalg.det(sq[:3, :3].astype("int16"))
sg, ld = slogdet(-sq)
sz, lz = slogdet(zeros((3, 3)))
d0 = det(ones((0, 0)))
JOB

check() { # WHAT FILE
  "$PYNP" - "$2" <<'PY' || soft_fail "$1: values differ from NumPy"
import sys
import h5py, numpy as np
f = h5py.File(sys.argv[1], "r")
g = {k: f[k][()] for k in f}
bad = []
def close(name, got, want, tol=1e-9):
    got, want = np.asarray(got), np.asarray(want)
    if got.shape != want.shape or not np.allclose(got, want, rtol=tol, atol=tol):
        bad.append(name)
        print(name, got.shape, want.shape, np.ravel(got)[:4], np.ravel(want)[:4])
a, b, d, sq, lr = g["a"], g["b"], g["d"], g["sq"], g["lr"]
x, res, rank, s = np.linalg.lstsq(a, b, rcond=None)
close("x", g["x"], x); close("res", g["res"], res); close("rank", g["rank"], rank); close("s", g["s"], s)
x1, res1, rank1, s1 = np.linalg.lstsq(a, b[:, 0], rcond=1e-12)
close("x1", g["x1"], x1); close("res1", g["res1"], res1); close("s1", g["s1"], s1)
xd, _, rankd, sd = np.linalg.lstsq(d, b[:, 0], rcond=None)
close("xd", g["xd"], xd); close("rankd", g["rankd"], rankd); close("sd", g["sd"], sd)
close("resd", g["resd"], [np.sum((b[:, 0] - d @ xd) ** 2)])  # NumPy's is empty (rank-deficient)
close("y", g["y"], np.linalg.solve(sq, b[:6])); close("y1", g["y1"], np.linalg.solve(sq, b[:6, 0]))
close("iv", g["iv"], np.linalg.inv(sq)); close("pv", g["pv"], np.linalg.pinv(a))
for k, (u, sc, v) in ((3, (g["u"], g["sc"], g["v"])), (4, (g["u4"], g["sc4"], g["v4"]))):
    close("sc%d" % k, sc, np.linalg.svd(lr, compute_uv=False)[:k])
    close("u%d orthonormal" % k, u.T @ u, np.eye(k)); close("v%d orthonormal" % k, v @ v.T, np.eye(k))
    if (v.sum(axis=1) < 0).any():
        bad.append("v%d signs" % k)
close("rebuilt", (g["u4"] * g["sc4"]) @ g["v4"], lr)
spd = g["spd"]
L = np.linalg.cholesky(spd)
close("ch", g["ch"], L); close("chu", g["chu"], L.T)
close("tl", g["tl"], np.linalg.solve(L, b[:6])); close("tu", g["tu"], np.linalg.solve(L.T, b[:6, 0]))
close("tw", g["tw"], np.linalg.solve(np.triu(sq), b[:6]))  # only the upper triangle is read
for n, m in (("", sq), ("i", sq[::-1].astype(np.int32) * 3.0)):
    P, Lo, U = g["p" + n], g["l" + n], g["u" + n if n else "uu"]
    close("plu" + n, P @ Lo @ U, m)
    perm = np.isin(P, (0, 1)).all() and (P.sum(axis=0) == 1).all() and (P.sum(axis=1) == 1).all()
    if not (perm and np.array_equal(np.tril(Lo), Lo) and np.allclose(np.diag(Lo), 1)
            and np.array_equal(np.triu(U), U) and (abs(Lo) <= 1 + 1e-12).all()):
        bad.append("lu" + n + " shapes"); print(P, Lo, U)
    try:
        import scipy.linalg
        sp, sl, su = scipy.linalg.lu(m)
        close("scipy lu" + n, np.c_[P, Lo, U], np.c_[sp, sl, su])
    except ImportError:
        pass
close("de", g["de"], np.linalg.det(sq)); close("dz", g["dz"], np.linalg.det([[1.0, 2], [2, 4]]))
close("di", g["di"], np.linalg.det(sq[:3, :3].astype(np.int16)))
sg, ld = np.linalg.slogdet(-sq)
close("sg", g["sg"], sg); close("ld", g["ld"], ld)
if g["sz"] != 0 or g["lz"] != -np.inf:
    bad.append("slogdet of zeros"); print(g["sz"], g["lz"])
close("d0", g["d0"], 1.0)
sys.exit(1 if bad else 0)
PY
}

job_each_mode "lstsq" 3 check

one_error_each 'lstsq(ones((3, 2)), ones(4))' 'lstsq(ones(3), ones(3))' 'solve(ones((3, 2)), ones(3))' \
  'inv(ones((2, 3)))' 'inv(ones((2, 2, 2)))' 'svd_compressed(ones((5, 4)), 5)' \
  'svd_compressed(ones((5, 4)), 2, iterator="QR")' 'svd_compressed(ones((5, 4)), 2, n_power_iter=-1)' \
  'pinv(ones((2, 2)), rcond="x")' 'cholesky(-eye(3))' 'cholesky(ones((2, 3)))' \
  'cholesky(ones((9000, 9000)))' 'solve_triangular(eye(3), ones(4))' 'solve_triangular(ones((3, 2)), ones(3))' \
  'det(ones((2, 3)))' 'det(ones(3))' 'slogdet(ones((9000, 9000)))' 'lu(ones((3, 4)))'
finish
