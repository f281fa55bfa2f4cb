"""numpy_cases.py RESULTS CASES - a job's results against NumPy, case by case.

CASES holds lines `name|tessera expression|NumPy expression`; the NumPy
expressions are evaluated after the Python of the environment variable
NUMPY_SETUP (the inputs, e.g. `a3 = np.arange(60.0).reshape(3, 4, 5)`).
Each result must have NumPy's shape and dtype and NumPy's bytes, or, for a
name starting with T (a sum in another order than NumPy's), values within
1e-12. Prints each case that differs; exits 1 if any does.
"""
import os
import sys

import h5py
import numpy as np

np.seterr(all="ignore")
env = {"np": np}
exec(os.environ.get("NUMPY_SETUP", ""), env)
f = h5py.File(sys.argv[1], "r")
bad = []
for line in open(sys.argv[2]):
    name, _, numpy_expr = line.rstrip("\n").split("|")
    got, want = f[name][()], np.asarray(eval(numpy_expr, env))
    ok = got.shape == want.shape and got.dtype == want.dtype
    if name.startswith("T"):
        ok = ok and np.allclose(got, want, rtol=1e-12, atol=1e-12)
    else:
        ok = ok and got.tobytes() == want.tobytes()
    if not ok:
        bad.append(name)
        print(name, got.dtype, got.shape, want.dtype, want.shape, got.ravel()[:8], want.ravel()[:8])
sys.exit(1 if bad else 0)
