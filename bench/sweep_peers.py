#!/usr/bin/env python3
"""sweep_peers.py - the peers of W5 (TARGETS.md): the W4 logistic regression
(L2, no intercept) fitted once for each of NLAM values of lambda (scikit-learn
C = 1/lambda), on the X and y that bench/sweep_bench.sh wrote, and the
comparison of tessera's sweep tables with them.

  sweep_peers.py DATA.h5 LAMS.txt [--no-gpu] [--host-lams K] [--single I=FIT.h5 ...] [SWEEP.h5 ...]

--host-lams K: the scikit-learn loops fit only K of the lambdas, evenly
spaced from the first to the last, and their time is scaled by NLAM / K
("extrapolated" on their info line; a 10^6-row loop of 64 newton-cholesky
fits takes minutes); the reference of every DIFF is then the PyTorch Newton
loop, which agrees with newton-cholesky to about 1e-16 (TARGETS.md W4).

LAMS.txt holds the lambdas, one a line (%.17g, so every system gets the same
doubles). Each peer fits them in a loop, in that order, timed as a whole
(time.perf_counter around the loop), after one untimed warm-up fit (the first
lambda):

      sklearn-lbfgs            LogisticRegression(C=1/lam, solver="lbfgs", tol=1e-8,
                               max_iter=1000, fit_intercept=False), host cores
      sklearn-newton-cholesky  the same with solver="newton-cholesky", tol=1e-8,
                               max_iter=100: the reference of every DIFF
      torch-newton             PyTorch on the GPU, Newton written by hand as in
                               glm_peers.py, with the penalty lam: gradient
                               X^T(sigmoid(Xb) - y) + lam b, Hessian X^T diag(w) X
                               + lam I, torch.linalg.solve; stops when max|grad| <=
                               1e-8 max|grad at b = 0| (at most 50 iterations);
                               X and y are copied to the GPU before the timing, the
                               coefficients back to the host inside it

DIFF: for every lambda max|b - b_ref| / max|b_ref| with b_ref scikit-learn's
newton-cholesky fit of that lambda; the worst over the lambdas is printed with
the lambda where it occurs. --no-gpu skips the PyTorch peer. SWEEP.h5 are
tessera sweep tables (trials/params/lam, trials/status, trials/seconds,
results/coef); the per-fit records of coef (n_iter, converged, passes,
seconds) come from the table's fits/coef (older tables: their journals, the
table's `journal` attribute). --single
I=FIT.h5: FIT.h5 is `tessera run --set lam=<lambda I>`'s results file; its coef
is compared bit for bit with trial I of every SWEEP.h5.

Lines on stdout (words separated by blanks):
  info TEXT                            host cores, BLAS threads, versions
  peer NAME WHERE S ITERS CONV DIFF@LAM  WHERE host|gpu; S the loop's seconds;
                                       ITERS summed over the fits; CONV k/NLAM;
                                       "reference" instead of DIFF@LAM for it
  peer NAME WHERE FAIL TEXT            the peer failed (its exception)
  peer NAME WHERE skipped (WHY)        not installed, no GPU or --no-gpu
  reference TEXT                       what DIFF is measured against
  sweep SWEEP.h5 OK TRIAL_S FIT_S ITERS PASSES CONV DIFF@LAM
                                       OK trials ok out of NLAM; TRIAL_S the sum
                                       of trials/seconds; FIT_S, ITERS, PASSES
                                       sums of the fits' own attributes; CONV k/NLAM
  sweep SWEEP.h5 FAIL TEXT             the table could not be read
  single SWEEP.h5 I LAM equal|differs|missing [MAXABS]
"""
import os
import sys
import time
import warnings

import h5py
import numpy as np

REF = {"coefs": None, "name": "none"}


def say(*words):
    print(*words, flush=True)


def reason(e):
    text = str(e).strip().splitlines()
    return f"{type(e).__name__}: {text[0][:160] if text else ''}"


def worst_diff(coefs, lams, idx=None):
    """'D@LAM': the worst max|b - b_ref| / max|b_ref| over the lambdas (rows
    of coefs, at rows idx of the reference; NaN rows count as infinitely
    far), '-' without a reference."""
    if REF["coefs"] is None:
        return "-"
    worst, at = -1.0, None
    refs = REF["coefs"] if idx is None else REF["coefs"][idx]
    for b, ref, lam in zip(coefs, refs, lams):
        d = float(np.max(np.abs(np.asarray(b, dtype=np.float64) - ref)) / np.max(np.abs(ref)))
        d = np.inf if np.isnan(d) else d
        if d > worst:
            worst, at = d, lam
    return f"{worst:.2e}@{at:.3g}"


def loop(name, where, lams, fit, sync=lambda: None, ref=None, idx=None, scale=1.0):
    """fit(lam) -> (coef, iterations, converged); one warm-up, then the timed
    loop over lams (rows idx of all the lambdas; its time times scale)."""
    try:
        fit(lams[0])
        sync()
        t0 = time.perf_counter()
        out = [fit(lam) for lam in lams]
        sync()
        t = (time.perf_counter() - t0) * scale
    except Exception as e:  # noqa: BLE001 - any failure is a row
        say("peer", name, where, "FAIL", reason(e))
        return
    coefs = np.array([np.asarray(o[0], dtype=np.float64) for o in out])
    if ref:
        REF.update(coefs=coefs, name=ref)
    iters = sum(int(o[1]) for o in out)
    conv = sum(1 for o in out if o[2])
    say("peer", name, where, f"{t:.6f}", iters, f"{conv}/{len(lams)}",
        "reference" if ref else worst_diff(coefs, lams, idx))


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
    for mod in ("sklearn", "scipy", "torch"):
        try:
            words.append(f"{mod} {__import__(mod).__version__}")
        except Exception:  # noqa: BLE001
            words.append(f"{mod} -")
    say("info", ", ".join(words))


def sklearn_peers(X, y, lams, host_lams=0):
    try:
        from sklearn.exceptions import ConvergenceWarning
        from sklearn.linear_model import LogisticRegression
    except Exception as e:  # noqa: BLE001
        skip(("sklearn-newton-cholesky", "sklearn-lbfgs"), "host", reason(e))
        return
    warnings.simplefilter("ignore", ConvergenceWarning)  # counted in CONV instead
    idx, scale = None, 1.0
    if 0 < host_lams < len(lams):
        idx = np.unique(np.round(np.linspace(0, len(lams) - 1, host_lams)).astype(int))
        scale = len(lams) / len(idx)
        say("info", f"scikit-learn loops: {len(idx)} of {len(lams)} lambdas timed, times x {scale:.3g} (extrapolated)")
        lams = lams[idx]
    # newton-cholesky first: it is the reference of the lbfgs row's DIFF.
    for solver, max_iter in (("newton-cholesky", 100), ("lbfgs", 1000)):
        def fit(lam, solver=solver, max_iter=max_iter):
            m = LogisticRegression(C=1.0 / lam, fit_intercept=False, solver=solver, tol=1e-8,
                                   max_iter=max_iter).fit(X, y)
            it = int(m.n_iter_[0])
            return m.coef_.ravel(), it, it < max_iter
        ref = None
        if solver == "newton-cholesky" and idx is None:
            ref = "scikit-learn newton-cholesky (tol=1e-8), per lambda"
        loop(f"sklearn-{solver}", "host", lams, fit, ref=ref, idx=idx, scale=scale)


def torch_newton(torch, X, y, lam, max_iter=50):
    p = X.shape[1]
    b = torch.zeros(p, dtype=X.dtype, device=X.device)
    eye = torch.eye(p, dtype=X.dtype, device=X.device)
    g0 = None
    for it in range(max_iter + 1):
        s = torch.sigmoid(X @ b)
        g = X.T @ (s - y) + lam * b
        gmax = g.abs().max().item()
        g0 = gmax if g0 is None else g0
        if gmax <= 1e-8 * g0:
            return b.cpu().numpy(), it, True
        if it == max_iter:
            return b.cpu().numpy(), it, False
        h = X.T @ (X * (s * (1 - s))[:, None]) + lam * eye
        b = b - torch.linalg.solve(h, g)


def torch_peers(X, y, lams, ref=None):
    try:
        import torch
        if not torch.cuda.is_available():
            raise RuntimeError("torch has no CUDA device")
        Xd, yd = torch.from_numpy(X).cuda(), torch.from_numpy(y).cuda()
        torch.cuda.synchronize()
    except Exception as e:  # noqa: BLE001
        skip(("torch-newton",), "gpu", reason(e))
        return
    loop("torch-newton", "gpu", lams, lambda lam: torch_newton(torch, Xd, yd, lam), torch.cuda.synchronize,
         ref=ref)


def sweep_rows(sweeps, lams, singles):
    for f in sweeps:
        try:
            with h5py.File(f, "r") as h:
                tl = h["trials/params/lam"][...]
                status = [s.decode() if isinstance(s, bytes) else str(s) for s in h["trials/status"][...]]
                secs = h["trials/seconds"][...]
                coef = h["results/coef"][...] if "results/coef" in h else np.full((len(tl), 0), np.nan)
                journal = h.attrs.get("journal", f + ".trials")
                journal = journal.decode() if isinstance(journal, bytes) else str(journal)
            if len(tl) != len(lams) or not np.array_equal(tl, lams):
                raise ValueError(f"trials/params/lam ({len(tl)} values) are not the {len(lams)} lambdas of LAMS.txt")
            ok = [i for i, s in enumerate(status) if s == "ok"]
            fit_s, iters, passes, conv = 0.0, 0, 0, 0
            jdir = os.path.join(os.path.dirname(f), journal) if not os.path.isabs(journal) else journal
            with h5py.File(f, "r") as h:
                fits = {k: h[f"fits/coef/{k}"][...] for k in ("seconds", "n_iter", "passes", "converged")
                        if f"fits/coef/{k}" in h}
            for i in ok:
                if len(fits) == 4:  # the table's fits/coef records (since the journal of records files)
                    a = {k: v[i] for k, v in fits.items()}
                else:  # older tables: the per-trial files of the journal
                    with h5py.File(os.path.join(jdir, f"trial-{i:06d}.h5"), "r") as j:
                        a = dict(j["coef"].attrs)
                fit_s += float(a["seconds"])
                iters += int(a["n_iter"])
                passes += int(a["passes"])
                conv += int(a["converged"] == 1)
            say("sweep", f, len(ok), f"{np.sum(secs[ok]):.6f}", f"{fit_s:.6f}", iters, passes,
                f"{conv}/{len(lams)}", worst_diff(coef, lams))
        except Exception as e:  # noqa: BLE001
            say("sweep", f, "FAIL", reason(e))
            continue
        for i, sf in singles:
            if i >= len(lams):
                continue
            try:
                with h5py.File(sf, "r") as h:
                    b = h["coef"][...]
            except Exception:  # noqa: BLE001
                say("single", f, i, f"{lams[i]:.17g}", "missing")
                continue
            a = coef[i]
            if a.shape == b.shape and np.array_equal(a.view(np.uint64), b.view(np.uint64)):
                say("single", f, i, f"{lams[i]:.17g}", "equal")
            else:
                d = np.max(np.abs(a - b)) if a.shape == b.shape else np.inf
                say("single", f, i, f"{lams[i]:.17g}", "differs", f"{d:.2e}")


def main(argv):
    if len(argv) < 2:
        sys.exit(__doc__)
    data, lamfile, rest = argv[0], argv[1], argv[2:]
    gpu, singles, sweeps, host_lams = True, [], [], 0
    while rest:
        a = rest.pop(0)
        if a == "--no-gpu":
            gpu = False
        elif a == "--host-lams":
            host_lams = int(rest.pop(0))
        elif a == "--single":
            i, _, f = rest.pop(0).partition("=")
            singles.append((int(i), f))
        else:
            sweeps.append(a)
    with open(lamfile) as fh:
        lams = np.array([float(w) for w in fh.read().split()])
    with h5py.File(data, "r") as h:
        X, y = h["X"][...], h["y"][...]
    info()
    if gpu and 0 < host_lams < len(lams):  # the reference comes from the full GPU loop
        torch_peers(X, y, lams, ref="PyTorch Newton (1e-8 gradient), per lambda")
        sklearn_peers(X, y, lams, host_lams)
    else:
        sklearn_peers(X, y, lams)
        if gpu:
            torch_peers(X, y, lams)
        else:
            skip(("torch-newton",), "gpu", "--no-gpu")
    say("reference", REF["name"])
    sweep_rows(sweeps, lams, singles)


if __name__ == "__main__":
    main(sys.argv[1:])
