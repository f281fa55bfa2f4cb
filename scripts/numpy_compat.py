#!/usr/bin/python3
"""NumPy-compatibility check for tessera.

Runs every case of the corpus (scripts/numpy_compat_corpus.py) through tessera
and through NumPy and compares shape, dtype and value.  Cases are batched into
one job file per category; the job assigns each case to a name (c0001, ...)
and `tessera run JOB -o results.h5` writes them; the results are read back
with h5py.  When a batch fails with an error that names a line, the case (or
input) on that line is marked FAIL and the batch is run again without it; an
error without a line (a crash, a runtime error, a timeout) splits the batch
in halves, again and again, until each failing case has run alone.

Comparison: shapes must be equal, dtypes must have the same name, values must
agree: exactly for integers and booleans, within rtol 1e-12 (float64) or 1e-5
(float32) otherwise, NaN equal to NaN and infinities by sign.  Random cases
(check="meta") compare shape and dtype against NumPy and test a property of
tessera's values (e.g. all >= 0) instead of the values themselves.

Prints one PASS/FAIL line per case with the reason, a summary per category
and a final line `agree: N of M (P %)`.  Exit status 0, unless --min-percent P
is given and the agreement is below P (status 1).

usage: /usr/bin/python3 scripts/numpy_compat.py [--tessera PATH]
           [--category NAME ...] [--grep TEXT] [--min-percent P] [--quiet]
           [--keep DIR] [--timeout S]
"""
import argparse
import errno
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import warnings

import numpy as np

try:
    import h5py
except ImportError:  # pragma: no cover
    sys.exit("numpy_compat.py needs h5py (run it with /usr/bin/python3)")

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True  # no __pycache__ in scripts/
import numpy_compat_corpus as corpus  # noqa: E402

STRIP = ("chunks", "seed")

# The reference is NEP 50 ("weak" Python scalars, NumPy 2's rule), which
# NumPy 1.24 has behind a switch: uint8_array + 1.0 is float64, float32_array
# + np.float64(1) is float64.
if hasattr(np, "_set_promotion_state"):
    np._set_promotion_state("weak")


# ----------------------------------------------------------------- NumPy side
class P:
    """Proxy for numpy (and np.random, np.linalg, Generators): calls drop
    tessera's keywords (chunks=, seed=) so a case's text runs in NumPy."""

    def __init__(self, target):
        object.__setattr__(self, "_t", target)

    def __getattr__(self, name):
        a = getattr(self._t, name)
        if isinstance(a, type) or not callable(a):
            if hasattr(a, "__name__") and type(a).__name__ == "module":
                return P(a)
            return a
        return P(a)

    def __call__(self, *args, **kw):
        for k in STRIP:
            kw.pop(k, None)
        r = self._t(*args, **kw)
        if isinstance(r, np.random.Generator):
            return P(r)
        return r


def np_load(file, dataset, chunks=None, dtype=None):
    """tessera's load(file, dataset, chunks=, dtype=), read with h5py."""
    with h5py.File(file, "r") as f:
        v = f[dataset][()]
    return v if dtype is None else v.astype(dtype)


def np_namespace():
    npp = P(np)
    dask = type("dask", (), {})()
    dask.array = npp
    return {"np": npp, "numpy": npp, "da": npp, "dask": dask, "load": np_load,
            "nan": np.nan, "inf": np.inf, "pi": np.pi}


# -------------------------------------------------------------- comparison
def compare(case, tv, nv):
    """tv: value read from results.h5 (ndarray or numpy scalar) or, for
    several outputs, a list; nv: NumPy's value.  Returns None or a reason."""
    if case.nout > 1:
        if not isinstance(nv, (tuple, list)) or len(nv) != case.nout:
            return "corpus: NumPy gave %r outputs" % type(nv)
        for i in range(case.nout):
            r = compare1(case, tv[i], nv[i])
            if r:
                return "output %d: %s" % (i, r)
        return None
    return compare1(case, tv, nv)


def fmt(a, n=6):
    a = np.asarray(a)
    s = np.array2string(a.ravel()[:n], precision=6, separator=",")
    return s if a.size <= n else s[:-1] + ",...]"


def compare1(case, tv, nv):
    pyscalar = isinstance(nv, (bool, int, float))
    n = np.asarray(nv)
    t = np.asarray(tv)
    if t.shape != n.shape:
        return "shape %s != NumPy %s" % (t.shape, n.shape)
    dt_reason = None
    if not pyscalar and t.dtype != n.dtype and case.check_dtype:
        dt_reason = "dtype %s != NumPy %s" % (t.dtype, n.dtype)
    if case.check == "meta":
        if dt_reason:
            return dt_reason
        if case.pred:
            with np.errstate(all="ignore"):
                ok = eval(case.pred, {"np": np}, {"v": t})
            if not bool(np.all(ok)):
                return "property %s fails: %s" % (case.pred, fmt(t))
        return None
    # values
    vr = value_reason(t, n)
    if dt_reason and vr:
        return "%s; values: %s" % (dt_reason, vr)
    if dt_reason:
        return dt_reason + " (values agree)"
    return vr


def value_reason(t, n):
    if t.size == 0:
        return None
    if n.dtype.kind in "biu" and t.dtype.kind in "biuf":
        tt = t.astype(np.float64) if t.dtype.kind == "f" else t
        if t.dtype.kind == "f" and not np.all(np.isfinite(tt)):
            return "non-finite values where NumPy has integers: %s" % fmt(t)
        eq = (tt == n)
        if np.all(eq):
            return None
        i = int(np.argmin(eq.ravel()))
        return "values differ at flat %d: %r != NumPy %r (first of %d)" % (
            i, t.ravel()[i], n.ravel()[i], int((~eq).sum()))
    if n.dtype.kind in "fc" or t.dtype.kind in "fc":
        rtol = 1e-5 if (n.dtype == np.float32 or t.dtype == np.float32) else 1e-12
        atol = 1e-6 if rtol == 1e-5 else 1e-14
        try:
            tf = t.astype(np.float64)
            nf = n.astype(np.float64)
        except (TypeError, ValueError):
            return "values not numeric"
        with np.errstate(all="ignore"):
            ok = np.isclose(tf, nf, rtol=rtol, atol=atol, equal_nan=True)
        if np.all(ok):
            return None
        i = int(np.argmin(ok.ravel()))
        return "values differ at flat %d: %r != NumPy %r (%d of %d; rtol %g)" % (
            i, tf.ravel()[i], nf.ravel()[i], int((~ok).sum()), ok.size, rtol)
    if np.array_equal(t, n):
        return None
    return "values differ: %s != NumPy %s" % (fmt(t), fmt(n))


# ------------------------------------------------------------ tessera side
class Runner:
    def __init__(self, tessera, timeout, keep):
        self.tessera = tessera
        self.timeout = timeout
        self.keep = keep
        self.tmp = keep or tempfile.mkdtemp(prefix="numpy_compat.")
        os.makedirs(self.tmp, exist_ok=True)
        self.runs = 0

    def run_job(self, tag, lines):
        """lines: [(owner, text)]. Returns (values dict or None, error text,
        error line number (1-based) or None)."""
        job = os.path.join(self.tmp, tag + ".py")
        out = os.path.join(self.tmp, tag + ".h5")
        with open(job, "w") as f:
            f.write("".join(t + "\n" for _, t in lines))
        if os.path.exists(out):
            os.remove(out)
        self.runs += 1
        for wait in range(31):  # a binary being rebuilt: wait up to 30 s
            try:
                p = subprocess.run([self.tessera, "run", job, "-o", out, "-q",
                                    "--overwrite"], stdout=subprocess.DEVNULL,
                                   stderr=subprocess.PIPE, timeout=self.timeout)
                relinking = p.returncode in (126, 127) and (
                    b"error while loading shared libraries" in p.stderr or
                    b"No such file or directory" in p.stderr)
                if relinking and wait < 30:
                    time.sleep(1)  # libtool's .libs/ is being relinked
                    continue
                break
            except subprocess.TimeoutExpired:
                return None, "timeout after %g s" % self.timeout, None
            except OSError as e:
                if e.errno not in (errno.ENOENT, errno.ETXTBSY) or wait == 30:
                    return None, "cannot run %s: %s" % (self.tessera, e), None
                time.sleep(1)
        err = p.stderr.decode("utf-8", "replace")
        if p.returncode != 0:
            m = re.search(re.escape(os.path.basename(job)) + r":(\d+):\d+: (.*)", err)
            if m:
                return None, m.group(2).strip(), int(m.group(1))
            last = [l for l in err.strip().splitlines() if l.strip()]
            msg = last[-1] if last else ""
            if p.returncode < 0:
                msg = "killed by signal %d %s" % (-p.returncode, msg)
            return None, ("exit %d: %s" % (p.returncode, msg)).strip(), None
        vals = {}
        try:
            with h5py.File(out, "r") as f:
                for k in f:
                    vals[k] = f[k][()]
        except OSError as e:
            return None, "results file unreadable: %s" % e, None
        return vals, None, None


def case_lines(case):
    if case.nout > 1:
        names = ", ".join("%s_%d" % (case.id, i) for i in range(case.nout))
    else:
        names = case.id
    return "%s = %s" % (names, case.expr)


def case_value(case, vals):
    if case.nout > 1:
        names = ["%s_%d" % (case.id, i) for i in range(case.nout)]
    else:
        names = [case.id]
    missing = [n for n in names if n not in vals]
    if missing:
        return None, "not written to the results file (not an array or number?)"
    v = [vals[n] for n in names]
    return (v if case.nout > 1 else v[0]), None


def run_batch(runner, tag, cases, inputs_used, input_defs, results):
    """Runs cases (all with NumPy values) in one job; fills results[id]."""
    pending = list(cases)
    bad_inputs = {}
    attempt = 0
    while pending:
        attempt += 1
        needed = []
        for c in pending:
            for n in inputs_used[c.id]:
                if n not in needed:
                    needed.append(n)
        order = [n for n in input_defs if n in needed]
        lines = [("input:" + n, "%s = %s" % (n, input_defs[n])) for n in order]
        lines += [(c.id, case_lines(c)) for c in pending]
        vals, err, line = runner.run_job("%s_%d" % (tag, attempt), lines)
        if vals is not None:
            for c in pending:
                v, why = case_value(c, vals)
                results[c.id] = ("tessera", v, why)
            return
        if line is not None and 1 <= line <= len(lines):
            owner = lines[line - 1][0]
            if owner.startswith("input:"):
                n = owner[6:]
                bad_inputs[n] = err
                keep = []
                for c in pending:
                    if n in inputs_used[c.id]:
                        results[c.id] = ("error", None, "input %s: %s" % (n, err))
                    else:
                        keep.append(c)
                pending = keep
            else:
                results[owner] = ("error", None, err)
                pending = [c for c in pending if c.id != owner]
            continue
        # no line (a runtime error, a crash, a timeout): split the batch in
        # halves until every failing case runs alone (so that no case hides
        # another; cheaper than one by one when few fail)
        if len(pending) == 1:
            results[pending[0].id] = ("error", None, err)
            return
        h = len(pending) // 2
        run_batch(runner, tag + "a", pending[:h], inputs_used, input_defs, results)
        run_batch(runner, tag + "b", pending[h:], inputs_used, input_defs, results)
        return


# ---------------------------------------------------------------------- main
def main():
    ap = argparse.ArgumentParser(
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description=__doc__.split("\nusage:")[0],
        epilog="Example: /usr/bin/python3 scripts/numpy_compat.py --tessera "
        "build/tessera --quiet --min-percent 90\nSee scripts/numpy_compat.md.")
    ap.add_argument("--tessera", metavar="PATH", default=os.environ.get("TESSERA", "./build/tessera"),
                    help="tessera binary (default: $TESSERA or ./build/tessera)")
    ap.add_argument("--category", metavar="NAME", action="append", default=[],
                    help="run only this category (repeatable)")
    ap.add_argument("--grep", metavar="TEXT", default=None, help="run only cases whose text contains TEXT")
    ap.add_argument("--min-percent", metavar="P", type=float, default=None,
                    help="exit 1 if the agreement is below P percent")
    ap.add_argument("--quiet", action="store_true", help="print only FAIL lines and summaries")
    ap.add_argument("--keep", metavar="DIR", default=None, help="keep the job and results files in DIR")
    ap.add_argument("--timeout", metavar="S", type=float, default=20, help="seconds per tessera run (20)")
    ap.add_argument("--list", action="store_true", help="list the cases and exit")
    a = ap.parse_args()

    cases = corpus.cases()
    if a.category:
        cases = [c for c in cases if c.category in a.category]
    if a.grep:
        cases = [c for c in cases if a.grep in c.expr]
    if a.list:
        for c in cases:
            print("%s %-14s %s" % (c.id, c.category, c.expr))
        return 0
    if not os.access(a.tessera, os.X_OK):
        sys.exit("tessera binary not found: %s (use --tessera PATH)" % a.tessera)

    t0 = time.time()
    runner = Runner(os.path.abspath(a.tessera), a.timeout, a.keep)
    data = os.path.join(runner.tmp, "data.h5")
    corpus.write_data(data)
    for c in cases:
        c.shown = c.expr
        c.expr = c.expr.replace("{DATA}", data)
    input_defs = dict(corpus.INPUTS)
    # NumPy side
    ns = np_namespace()
    warnings.simplefilter("ignore")
    with np.errstate(all="ignore"):
        for n, e in corpus.INPUTS:
            ns[n] = eval(e, ns)
    results = {}
    npvals = {}
    inputs_used = {}
    names_re = {n: re.compile(r"\b%s\b" % re.escape(n)) for n in input_defs}

    def deps(text, seen):
        for n, r in names_re.items():
            if n not in seen and r.search(text):
                seen.add(n)
                deps(input_defs[n], seen)
        return seen

    for c in cases:
        inputs_used[c.id] = deps(c.expr, set())
        try:
            with np.errstate(all="ignore"):
                npvals[c.id] = eval(c.np_expr or c.expr, dict(ns))
        except Exception as e:  # a corpus bug: reported, counted as failure
            results[c.id] = ("error", None, "corpus: NumPy raised %s: %s" % (type(e).__name__, e))

    try:  # which build answered (it may be rebuilt while this runs)
        info = subprocess.run([runner.tessera, "info"], capture_output=True,
                              timeout=a.timeout).stdout.decode("utf-8", "replace")
        ver = info.splitlines()[0] if info else "?"
    except (OSError, subprocess.TimeoutExpired):
        ver = "?"
    print("tessera: %s (%s, %s); numpy %s; %d cases" % (
        a.tessera, ver, time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(
            os.path.getmtime(runner.tessera))) if os.path.exists(runner.tessera) else "?",
        np.__version__, len(cases)))
    sys.stdout.flush()
    # tessera side: one batch per category
    cats = []
    for c in cases:
        if c.category not in cats:
            cats.append(c.category)
    for cat in cats:
        batch = [c for c in cases if c.category == cat and c.id not in results]
        if batch:
            run_batch(runner, re.sub(r"\W", "_", cat), batch, inputs_used, input_defs, results)

    # compare and report
    per_cat = {}
    npass = 0
    for c in cases:
        kind, tv, why = results.get(c.id, ("error", None, "not run"))
        if kind == "tessera" and why is None:
            try:
                why = compare(c, tv, npvals[c.id])
            except Exception as e:
                why = "comparison raised %s: %s" % (type(e).__name__, e)
        ok = why is None
        npass += ok
        s = per_cat.setdefault(c.category, [0, 0])
        s[0] += ok
        s[1] += 1
        if ok and not a.quiet:
            print("PASS %s %-13s %s" % (c.id, c.category, c.shown))
        elif not ok:
            print("FAIL %s %-13s %s  -- %s" % (c.id, c.category, c.shown, why.replace(data, "{DATA}")))
    print()
    print("per category:")
    for cat in cats:
        p, m = per_cat[cat]
        print("  %-14s %4d of %4d (%5.1f %%)" % (cat, p, m, 100.0 * p / m))
    m = len(cases)
    pct = 100.0 * npass / m if m else 100.0
    print("tessera: %s; %d tessera runs, %.1f s" % (a.tessera, runner.runs, time.time() - t0))
    print("agree: %d of %d (%.1f %%)" % (npass, m, pct))
    if not a.keep:
        shutil.rmtree(runner.tmp, ignore_errors=True)
    if a.min_percent is not None and pct < a.min_percent:
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
