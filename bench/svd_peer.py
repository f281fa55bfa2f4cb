#!/usr/bin/env python3
"""svd_peer.py ROWS COLS CROWS RUNS - the peers of bench/svd_cpu.sh (W3).

Thin SVD of a ROWS x COLS float64 normal matrix: NumPy
np.linalg.svd(full_matrices=False) on the whole matrix (generation not
timed), and Dask da.linalg.svd (TSQR) on chunks of CROWS x COLS, generation
included (da.random.normal, as tessera generates its input in the timed
run). Prints one line per peer: "NAME best_seconds s0 s1 s2" (the three
largest singular values, to compare), the best of RUNS runs.
"""
import sys
import time

import numpy as np

rows, cols, crows, runs = (int(a) for a in sys.argv[1:5])

a = np.random.default_rng(1).standard_normal((rows, cols))
t0 = time.perf_counter()
np.random.default_rng(2).standard_normal((rows, cols))
gen = time.perf_counter() - t0
best = float("inf")
for _ in range(runs):
    t0 = time.perf_counter()
    u, s, vt = np.linalg.svd(a, full_matrices=False)
    best = min(best, time.perf_counter() - t0)
print("numpy", f"{best:.4f}", *(f"{v:.6f}" for v in s[:3]))
print("numpy-generate", f"{gen:.4f}")

try:
    import dask
    import dask.array as da
except ImportError:
    print("dask unavailable")
    sys.exit(0)
best = float("inf")
for r in range(runs):
    t0 = time.perf_counter()
    x = da.random.default_rng(3 + r).standard_normal((rows, cols), chunks=(crows, cols))
    u, s, vt = da.linalg.svd(x)
    u, s, vt = dask.compute(u, s, vt)
    best = min(best, time.perf_counter() - t0)
print("dask", f"{best:.4f}", *(f"{v:.6f}" for v in s[:3]), f"dask={dask.__version__}")
