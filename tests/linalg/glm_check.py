"""glm_check.py - data, jobs and oracles of tests/linalg/glm.sh.

  glm_check.py gen DIR       writes DIR/in.h5 (X, y of each family: columns
                             on different scales, so hidden scaling would
                             show) and DIR/fits.tsr / DIR/rechunked.tsr
  glm_check.py check RES     compares every fit in RES with scikit-learn
  glm_check.py same A B [fits]  every dataset (and fit attribute) of A and B
                             bitwise equal; with "fits", only the fits (the
                             predictions are products with X, whose bits
                             follow X's chunks)

The objective is sum_i loss(x_i.b + c, y_i) + lam * R(b): scikit-learn's
LogisticRegression has C = 1/lam; Ridge alpha = lam; PoissonRegressor, Lasso
and ElasticNet alpha = lam / n (their losses are means).
"""
import sys

import h5py
import numpy as np

N, P = 3000, 8
SCALES = np.array([1.0, 0.5, 2.0, 1.0, 3.0, 1.0, 0.7, 1.5])
LAM = 2.0
SMOOTH = ["newton", "lbfgs", "gradient_descent", "proximal_grad", "admm"]
# (name in the job, function, family data, solver, regularizer, extra keywords)
FITS = []
for fam, fn in (("lg", "logistic_regression"), ("ln", "linear_regression"),
                ("po", "poisson_regression")):
    for solver in SMOOTH:
        FITS.append((f"{fam}_l2_{solver}", fn, fam, solver, "l2", ""))
    for solver in ("newton", "lbfgs", "admm"):
        FITS.append((f"{fam}_none_{solver}", fn, fam, solver, "none", ""))
for fam, fn in (("lg", "logistic_regression"), ("ln", "linear_regression")):
    for solver in ("proximal_grad", "admm"):
        FITS.append((f"{fam}_l1_{solver}", fn, fam, solver, "l1", ""))
        FITS.append((f"{fam}_en_{solver}", fn, fam, solver, "elastic_net", "l1_ratio=0.3, "))
FITS.append(("lg_l2_noint", "logistic_regression", "lg", "newton", "l2", "fit_intercept=False, "))
LAM_L1 = {"lg": 60.0, "ln": 900.0}


def gen(d):
    rng = np.random.default_rng(7)
    X = rng.standard_normal((N, P)) * SCALES
    beta = np.array([0.8, -1.0, 0.3, 0.0, 0.25, -0.4, 0.0, 0.6]) / SCALES
    eta = X @ beta + 0.3
    with h5py.File(f"{d}/in.h5", "w") as f:
        f["X"] = X
        f["ylg"] = (rng.random(N) < 1 / (1 + np.exp(-eta))).astype(float)
        f["yln"] = eta + 2 + rng.standard_normal(N)
        f["ypo"] = rng.poisson(np.exp(0.5 * eta)).astype(float)
    for name, chunks in (("fits.tsr", "(700, 8)"), ("rechunked.tsr", "(1000, 3)")):
        lines = [f'X = load("in.h5", "X", chunks={chunks})']
        for fam in ("lg", "ln", "po"):
            lines.append(f'y{fam} = load("in.h5", "y{fam}", chunks=450)')
        for nm, fn, fam, solver, reg, extra in FITS:
            lam = LAM_L1[fam] if reg in ("l1", "elastic_net") else LAM
            it = 20000 if solver in ("gradient_descent", "admm", "proximal_grad") else 200
            lines.append(f'{nm}, {nm}_b = {fn}(X, y{fam}, solver="{solver}", regularizer="{reg}", '
                         f'lamduh={lam}, {extra}max_iter={it}, tol=1e-10)')
        lines.append('p_lg = predict_proba(X, lg_l2_newton, lg_l2_newton_b)')
        lines.append('c_lg = predict(X, lg_l2_newton, lg_l2_newton_b)')
        lines.append('m_po = predict(X, po_l2_newton, po_l2_newton_b, family="poisson")')
        lines.append('m_ln = predict(X, ln_l2_newton, ln_l2_newton_b, family="normal")')
        lines.append('s_p = sum(p_lg)')
        lines.append('s_c = sum(c_lg)')
        lines.append('s_po = sum(m_po)')
        lines.append('s_ln = sum(m_ln * m_ln)')
        open(f"{d}/{name}", "w").write("\n".join(lines) + "\n")


def reference(X, y, fam, reg, lam, l1_ratio=0.3, intercept=True):
    import warnings
    from sklearn import linear_model as lm
    warnings.simplefilter("ignore")
    n = len(y)
    if fam == "lg":
        if reg == "l2":
            m = lm.LogisticRegression(C=1 / lam, solver="newton-cholesky", tol=1e-12, max_iter=1000,
                                      fit_intercept=intercept)
        elif reg == "none":
            m = lm.LogisticRegression(penalty=None, solver="newton-cholesky", tol=1e-12,
                                      max_iter=1000)
        else:
            kw = {"l1_ratio": l1_ratio} if reg == "elastic_net" else {}
            m = lm.LogisticRegression(penalty="l1" if reg == "l1" else "elasticnet", C=1 / lam,
                                      solver="saga", tol=1e-12, max_iter=200000, **kw)
    elif fam == "ln":
        if reg == "l2":
            m = lm.Ridge(alpha=lam, solver="cholesky")
        elif reg == "none":
            m = lm.LinearRegression()
        elif reg == "l1":
            m = lm.Lasso(alpha=lam / n, tol=1e-14, max_iter=1000000)
        else:
            m = lm.ElasticNet(alpha=lam / n, l1_ratio=l1_ratio, tol=1e-14, max_iter=1000000)
    else:
        m = lm.PoissonRegressor(alpha=lam / n if reg == "l2" else 0.0, solver="newton-cholesky",
                                tol=1e-12, max_iter=1000)
    m.fit(X, y)
    return np.append(np.ravel(m.coef_), np.ravel(m.intercept_)[0] if intercept else 0.0)


def check(res):
    bad = []
    with h5py.File("in.h5", "r") as f, h5py.File(res, "r") as r:
        X = f["X"][...]
        for nm, fn, fam, solver, reg, extra in FITS:
            y = f["y" + fam][...]
            lam = LAM_L1[fam] if reg in ("l1", "elastic_net") else LAM
            got = np.append(r[nm][...], r[nm + "_b"][()])
            a = r[nm].attrs
            if a["converged"] != 1:
                bad.append(f"{nm}: not converged in {a['n_iter']} iterations")
            ref = reference(X, y, fam, reg, lam, intercept="noint" not in nm)
            err = np.max(np.abs(got - ref)) / max(np.max(np.abs(ref)), 1e-300)
            tol = 1e-6 if reg in ("l2", "none") else 1e-5
            zeros_ok = reg in ("l2", "none") or np.array_equal(got[:-1] == 0, np.abs(ref[:-1]) < 1e-9)
            print(f"{nm:24s} iters {int(a['n_iter']):6d} passes {int(a['passes']):6d} "
                  f"rel.err {err:.2e} zeros {int(np.sum(got[:-1] == 0))}")
            if not err <= tol or not zeros_ok:
                bad.append(f"{nm}: {got} vs scikit-learn {ref} (rel. {err:.2e}, zero pattern "
                           f"{'same' if zeros_ok else 'differs'})")
        if not any(np.sum(np.append(r[nm][...], 1.0) == 0) > 0 for nm, *_ in FITS if "_l1_" in nm):
            bad.append("no L1 fit has a zero coefficient: the test's penalty is too weak")
        b, c = r["lg_l2_newton"][...], r["lg_l2_newton_b"][()]
        pr = 1 / (1 + np.exp(-(X @ b + c)))
        checks = [("s_p", pr.sum()), ("s_c", float(np.sum(X @ b + c > 0)))]
        bp, cp = r["po_l2_newton"][...], r["po_l2_newton_b"][()]
        checks.append(("s_po", np.exp(X @ bp + cp).sum()))
        bl, cl = r["ln_l2_newton"][...], r["ln_l2_newton_b"][()]
        checks.append(("s_ln", ((X @ bl + cl) ** 2).sum()))
        for k, v in checks:
            if not abs(r[k][()] - v) <= 1e-10 * abs(v):
                bad.append(f"{k}: {r[k][()]} vs NumPy {v}")
    if bad:
        print("\n".join(bad))
        sys.exit(1)


def same(a, b, only=None):
    fits = {nm for nm, *_ in FITS} | {nm + "_b" for nm, *_ in FITS}
    with h5py.File(a, "r") as fa, h5py.File(b, "r") as fb:
        for k in fa:
            if only == "fits" and k not in fits:
                continue
            va, vb = fa[k][...], fb[k][...]
            if va.tobytes() != vb.tobytes():
                print(f"{k}: {va} != {vb}")
                sys.exit(1)
            for at in ("n_iter", "objective", "passes"):
                if at in fa[k].attrs and fa[k].attrs[at] != fb[k].attrs[at]:
                    print(f"{k}.{at}: {fa[k].attrs[at]} != {fb[k].attrs[at]}")
                    sys.exit(1)


if __name__ == "__main__":
    {"gen": gen, "check": check, "same": same}[sys.argv[1]](*sys.argv[2:])
