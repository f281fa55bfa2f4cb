#!/usr/bin/env python3
"""linalg_check.py - checks what tests/linalg.sh's job wrote against NumPy.

usage: linalg_check.py IN.h5 RES.h5 OUT.h5
IN.h5: the input matrices (a: known spectrum, g: normal); RES.h5: the job's
results file (small values); OUT.h5: what the job saved (u of a).
Prints one line per problem and exits 1 if there is any.
"""
import sys

import h5py
import numpy as np

inp, res, out = (h5py.File(p, "r") for p in sys.argv[1:4])
bad = []


def check(name, ok, detail):
    if not ok:
        bad.append(f"{name}: {detail}")


def orth(u):
    return np.max(np.abs(u.T @ u - np.eye(u.shape[1])))


# svd of the known-spectrum matrix a: u saved as a distributed array.
a, sigma = inp["a"][...], inp["sigma"][...]
u, s, vt = out["u"][...], res["s"][...], res["vt"][...]
ref = np.linalg.svd(a, compute_uv=False)
check("s(a)", np.max(np.abs(s - ref)) <= 1e-12 * ref[0], f"max |s - numpy| = {np.max(np.abs(s - ref))}")
check("s(a) exact", np.max(np.abs(s - sigma)) <= 1e-12 * sigma[0], f"max |s - sigma| = {np.max(np.abs(s - sigma))}")
check("s(a) descending", np.all(np.diff(s) <= 0), "not descending")
rec = np.linalg.norm(a - (u * s) @ vt) / np.linalg.norm(a)
check("reconstruction(a)", rec <= 1e-12, f"{rec}")
check("orthogonality(u)", orth(u) <= 1e-12, f"{orth(u)}")
check("orthogonality(vt)", orth(vt.T) <= 1e-12, f"{orth(vt.T)}")
i = np.argmax(np.abs(u), axis=0)
check("svd_flip", np.all(u[i, np.arange(u.shape[1])] > 0), "largest entries of u not positive")
check("u printed = u saved", np.array_equal(res["u"][...], u), "the results file's u differs from the saved one")
us = float(res["us"][()])
check("sum of a slice of u", abs(us - 2 * u[::7, 1:5].sum()) <= 1e-13 * np.abs(u[::7, 1:5]).sum(), f"{us}")
check("column norms of rechunked u", np.max(np.abs(res["un"][...] - 1)) <= 1e-12, f"{res['un'][...]}")
check("u.T read from its owners", np.array_equal(res["ut"][...], (u.T * 2)[:, ::50]), "differs")
uy, yy = res["uy"][...], res["yy"][...]
check("u @ y (y in 3 column chunks)", np.max(np.abs(uy - u @ yy)) <= 1e-13 * np.max(np.abs(u @ yy)), "differs")
check("u.T @ u", np.max(np.abs(res["utu"][...] - np.eye(u.shape[1]))) <= 1e-12, "not the identity")
ar = res["ar"][...]
check("u @ (s vt)", np.linalg.norm(ar - a) / np.linalg.norm(a) <= 1e-12, f"{np.linalg.norm(ar - a) / np.linalg.norm(a)}")

# svd and qr of a normal matrix computed by tessera itself (g in the job).
g = inp["g"][...]
ug, sg, vtg = res["ug"][...], res["sg"][...], res["vtg"][...]
check("reconstruction(g)", np.linalg.norm(g - (ug * sg) @ vtg) / np.linalg.norm(g) <= 1e-12, "too large")
check("orthogonality(ug)", orth(ug) <= 1e-12, f"{orth(ug)}")
refg = np.linalg.svd(g, compute_uv=False)
check("s(g)", np.max(np.abs(sg - refg)) <= 1e-12 * refg[0], "differs from numpy")
s3 = res["s3"][...]
check("svd k=3", s3.shape == (3,) and np.array_equal(s3, sg[:3]), f"{s3} vs {sg[:3]}")
check("u3", res["u3"].shape == (g.shape[0], 3) and np.max(np.abs(res["u3"][...] - ug[:, :3])) <= 1e-13, "differs")
q, r = res["q"][...], res["r"][...]
check("qr", np.linalg.norm(q @ r - g) / np.linalg.norm(g) <= 1e-13, "q @ r != g")
check("orthogonality(q)", orth(q) <= 1e-12, f"{orth(q)}")
check("transpose view", np.array_equal(res["gt"][...], (g.T + 1)[::4, ::-3]), "(g.T + 1)[::4, ::-3] differs")
check("r triangular", np.array_equal(np.triu(r), r) and np.all(np.diag(r) >= 0), "r not upper/nonneg diag")

# matmul / dot / transpose on irregular chunks.
x, y = res["x"][...], res["y"][...]
tol = 1e-13
for name, want in [("p", x @ y), ("xt", x.T), ("w", x.dot(x.T + 1) - x.mean()),
                   ("xv", x @ y[:, 0]), ("vx", x[0] @ y), ("gram", g.T @ g)]:
    got = res[name][...]
    err = np.max(np.abs(got - want)) / max(np.max(np.abs(want)), 1e-300)
    check(name, got.shape == want.shape and err <= tol, f"shape {got.shape} vs {want.shape}, error {err}")
vv = float(res["vv"][()])
check("vv", abs(vv - y[:, 0] @ y[:, 0]) <= tol * abs(vv), f"{vv}")

print("\n".join(bad))
sys.exit(1 if bad else 0)
