#!/usr/bin/env python3
"""glm_peers.py - the peers of W4 (TARGETS.md): L2-regularized logistic
regression, lamduh = 1 (scikit-learn C = 1), no intercept, on the X and y
that bench/glm_bench.sh wrote, so every system fits the same numbers.

  glm_peers.py DATA.h5 RUNS [--no-gpu] [--no-host] [FIT.h5 ...]

      sklearn-newton-cholesky  LogisticRegression(solver="newton-cholesky", tol=1e-8)
      sklearn-lbfgs            LogisticRegression(solver="lbfgs", tol=1e-8, max_iter=1000)
                               (both C=1, fit_intercept=False, on the host cores)
      torch-newton             PyTorch on the GPU, Newton written by hand: gradient
                               X^T(sigmoid(Xb) - y) + b, Hessian X^T diag(w) X + I,
                               torch.linalg.solve; stops when max|grad| <= 1e-8
                               max|grad at b = 0| (at most 50 iterations)
      torch-lbfgs              torch.optim.LBFGS(line_search_fn="strong_wolfe",
                               max_iter=100, tolerance_grad = 1e-8 max|grad at 0|)
                               on the same objective
      dask_glm-newton          dask_glm.algorithms.newton / lbfgs with NumPy arrays,
      dask_glm-lbfgs           family Logistic, regularizer "l2", lamduh=1, tol=1e-8,
                               normalize=False (newton ignores the penalty)

DATA.h5 holds /X (N x P) and /y (N); each peer reads them before timing (the
PyTorch ones copy them to the GPU first). Each runs once as a warm-up, then
RUNS times; the best is printed. --no-gpu skips the PyTorch peers, --no-host
the host peers (scikit-learn and dask_glm: minutes at 10^7 rows; the GPU
comparison is then against the reference of FIT.h5's tessera newton). FIT.h5
are tessera's results files: their c_<solver> datasets are compared with the
reference. The reference is scikit-learn's newton-cholesky fit, or tessera's
c_newton of the first FIT.h5 when scikit-learn does not give one.

Lines on stdout (words separated by blanks):
  info TEXT                          host cores, BLAS threads, versions
  peer NAME WHERE S ITERS CONV DIFF  WHERE host|gpu; CONV yes|no|-; DIFF the
                                     max relative difference to the reference,
                                     max|b - b_ref| / max|b_ref| (- without one)
  peer NAME WHERE FAIL TEXT          the peer failed (its exception)
  peer NAME WHERE skipped (WHY)      the peer is not installed or has no GPU
  reference TEXT                     what DIFF is measured against
  diff FIT.h5 SOLVER DIFF            one per c_SOLVER dataset of each FIT.h5
"""
import os
import sys
import time
import warnings

import h5py
import numpy as np

REF = {"coef": None, "name": "none"}


def say(*words):
    print(*words, flush=True)


def reason(e):
    text = str(e).strip().splitlines()
    return f"{type(e).__name__}: {text[0][:160] if text else ''}"


def rel_diff(coef):
    if REF["coef"] is None:
        return "-"
    ref = REF["coef"]
    return f"{np.max(np.abs(np.asarray(coef, dtype=np.float64) - ref)) / np.max(np.abs(ref)):.2e}"


def best_of(runs, fn, sync=lambda: None):
    out = fn()
    sync()
    best = float("inf")
    for _ in range(runs):
        t0 = time.perf_counter()
        out = fn()
        sync()
        best = min(best, time.perf_counter() - t0)
    return best, out


def report(name, where, runs, fn, sync=lambda: None, ref=None):
    """Times fn, which returns (coef, iterations, converged): converged may be
    a function, checked after the timing. Prints the row; a reference peer
    (ref = its name) becomes the reference first."""
    try:
        t, (coef, iters, conv) = best_of(runs, fn, sync)
        conv = conv() if callable(conv) else conv
    except Exception as e:  # noqa: BLE001 - any failure is a row
        say("peer", name, where, "FAIL", reason(e))
        return
    if ref:
        REF.update(coef=np.asarray(coef, dtype=np.float64), name=ref)
    say("peer", name, where, f"{t:.6f}", iters, conv, rel_diff(coef))


def skip(names, where, why):
    for n in names:
        say("peer", n, where, f"skipped ({why})")


def info():
    words = [f"host cores {os.cpu_count()}"]
    try:
        from threadpoolctl import threadpool_info
        blas = [p for p in threadpool_info() if p.get("user_api") == "blas"]
        words.append(f"BLAS threads {blas[0]['num_threads']} ({blas[0]['internal_api']})" if blas else "BLAS ?")
    except Exception:  # noqa: BLE001
        words.append("BLAS threads ?")
    words.append(f"numpy {np.__version__}")
    for mod in ("sklearn", "scipy", "torch", "dask_glm"):
        try:
            words.append(f"{mod} {__import__(mod).__version__}")
        except Exception:  # noqa: BLE001
            words.append(f"{mod} -")
    say("info", ", ".join(words))


def sklearn_peers(X, y, runs):
    try:
        from sklearn.linear_model import LogisticRegression
    except Exception as e:  # noqa: BLE001
        skip(("sklearn-newton-cholesky", "sklearn-lbfgs"), "host", reason(e))
        return
    for solver, kw in (("newton-cholesky", {"tol": 1e-8, "max_iter": 100}),
                       ("lbfgs", {"tol": 1e-8, "max_iter": 1000})):
        def fit():
            m = LogisticRegression(C=1.0, fit_intercept=False, solver=solver, **kw).fit(X, y)
            it = int(m.n_iter_[0])
            return m.coef_.ravel(), it, "yes" if it < kw["max_iter"] else "no"
        report(f"sklearn-{solver}", "host", runs, fit,
               ref="scikit-learn newton-cholesky" if solver == "newton-cholesky" else None)


def torch_newton(torch, X, y, max_iter=50):
    p = X.shape[1]
    b = torch.zeros(p, dtype=X.dtype, device=X.device)
    eye = torch.eye(p, dtype=X.dtype, device=X.device)
    g0 = None
    for it in range(max_iter + 1):
        s = torch.sigmoid(X @ b)
        g = X.T @ (s - y) + b
        gmax = g.abs().max().item()
        g0 = gmax if g0 is None else g0
        if gmax <= 1e-8 * g0:
            return b, it, "yes"
        if it == max_iter:
            return b, it, "no"
        h = X.T @ (X * (s * (1 - s))[:, None]) + eye
        b = b - torch.linalg.solve(h, g)


def torch_lbfgs(torch, X, y, gtol):
    w = torch.zeros(X.shape[1], dtype=X.dtype, device=X.device, requires_grad=True)
    opt = torch.optim.LBFGS([w], lr=1, max_iter=100, tolerance_grad=gtol, tolerance_change=1e-12,
                            history_size=10, line_search_fn="strong_wolfe")

    def closure():
        opt.zero_grad()
        z = X @ w
        loss = torch.nn.functional.softplus(z).sum() - y @ z + 0.5 * (w @ w)
        loss.backward()
        return loss

    opt.step(closure)
    b = w.detach()

    def converged():  # after the timing: max|grad| at the result
        g = X.T @ (torch.sigmoid(X @ b) - y) + b
        return "yes" if g.abs().max().item() <= gtol else "no"
    return b, opt.state[w]["n_iter"], converged


def torch_peers(X, y, runs):
    names = ("torch-newton", "torch-lbfgs")
    try:
        import torch
        if not torch.cuda.is_available():
            raise RuntimeError("torch has no CUDA device")
        Xd, yd = torch.from_numpy(X).cuda(), torch.from_numpy(y).cuda()
        gtol = 1e-8 * (Xd.T @ (0.5 - yd)).abs().max().item()
        torch.cuda.synchronize()
    except Exception as e:  # noqa: BLE001
        skip(names, "gpu", reason(e))
        return

    def host(r):  # coef to the host (100 numbers, inside the timing)
        return r[0].cpu().numpy(), r[1], r[2]
    report(names[0], "gpu", runs, lambda: host(torch_newton(torch, Xd, yd)), torch.cuda.synchronize)
    report(names[1], "gpu", runs, lambda: host(torch_lbfgs(torch, Xd, yd, gtol)), torch.cuda.synchronize)


def dask_glm_peers(X, y, runs):
    try:
        from dask_glm import algorithms
        from dask_glm.families import Logistic
    except Exception as e:  # noqa: BLE001
        skip(("dask_glm-newton", "dask_glm-lbfgs"), "host", reason(e))
        return
    warnings.simplefilter("ignore", FutureWarning)  # lstsq's rcond, dask's renamed config keys
    for name, max_iter in (("newton", 50), ("lbfgs", 100)):
        algo = getattr(algorithms, name)
        report(f"dask_glm-{name}", "host", runs,
               lambda: (algo(X, y, family=Logistic, regularizer="l2", lamduh=1.0, tol=1e-8,
                             max_iter=max_iter, normalize=False), "-", "-"))


def tessera_diffs(fits):
    for f in fits:
        with h5py.File(f, "r") as h:
            for key in sorted(k for k in h if k.startswith("c_")):
                say("diff", f, key[2:], rel_diff(h[key][...]))


def main(argv):
    if len(argv) < 2:
        sys.exit(__doc__)
    data, runs, rest = argv[0], int(argv[1]), argv[2:]
    gpu, host = "--no-gpu" not in rest, "--no-host" not in rest
    fits = [a for a in rest if a not in ("--no-gpu", "--no-host")]
    with h5py.File(data, "r") as h:
        X, y = h["X"][...], h["y"][...]
    if fits:
        with h5py.File(fits[0], "r") as h:
            if "c_newton" in h:
                REF.update(coef=h["c_newton"][...], name=f"tessera newton ({fits[0]})")
    info()
    if host:
        sklearn_peers(X, y, runs)
    else:
        skip(("sklearn-newton-cholesky", "sklearn-lbfgs"), "host", "--no-host")
    say("reference", REF["name"])
    if gpu:
        torch_peers(X, y, runs)
    else:
        skip(("torch-newton", "torch-lbfgs"), "gpu", "--no-gpu")
    if host:
        dask_glm_peers(X, y, runs)
    tessera_diffs(fits)


if __name__ == "__main__":
    main(sys.argv[1:])
