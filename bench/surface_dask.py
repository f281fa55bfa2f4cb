#!/usr/bin/env python3
"""surface_dask.py - the CPU peer of issue 28's rows (bench/surface_cpu.sh):
Dask + NumPy on the whole N x N array, chunks C x C, threaded scheduler with
--workers threads, as bench/w2_dask.py does for W2:

    w2      (x + 1)[::2, ::2].mean()
    where   da.where(x > 10, x + 1, 0)[::2, ::2].mean()
    max     x.max()
    argmax  x.argmax()       (flat index into the whole array)

x = da.random.normal(10, 1, size=(N, N), chunks=(C, C)) (NumPy's legacy
RandomState per chunk; --rng=generator: default_rng(), PCG64 + ziggurat).
Each workload: one warm-up run (not timed), then --runs timed runs of graph
construction + compute; prints, per workload,

    PEER dask <work> <median wall s> <value> cpu_s <CPU s of the median run>

and a first line "# dask <version> numpy <version> ...".
"""
import argparse
import os
import statistics
import sys
import time


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("n", type=int, nargs="?", default=20000, help="N (array is N x N float64)")
    ap.add_argument("c", type=int, nargs="?", default=2000, help="chunk edge C")
    ap.add_argument("--work", default="w2,where,max,argmax", help="comma-separated workloads")
    ap.add_argument("--workers", type=int, default=os.cpu_count(), help="threads (default: all cores)")
    ap.add_argument("--runs", type=int, default=3, help="timed runs after the warm-up")
    ap.add_argument("--rng", choices=("legacy", "generator"), default="legacy")
    a = ap.parse_args()
    try:
        import dask
        import dask.array as da
        import numpy as np
    except ImportError as e:
        sys.exit(f"surface_dask.py: error: {e} (pip install 'dask[array]' numpy)")

    def x():
        if a.rng == "legacy":
            return da.random.normal(10, 1, size=(a.n, a.n), chunks=(a.c, a.c))
        return da.random.default_rng().normal(10, 1, size=(a.n, a.n), chunks=(a.c, a.c))

    def expr(w):
        if w == "w2":
            return (x() + 1)[::2, ::2].mean()
        if w == "where":
            y = x()
            return da.where(y > 10, y + 1, 0)[::2, ::2].mean()
        if w == "max":
            return x().max()
        if w == "argmax":
            return x().argmax()
        raise ValueError(w)

    print(f"# dask {dask.__version__} numpy {np.__version__} rng={a.rng} "
          f"scheduler=threads num_workers={a.workers}", flush=True)
    with dask.config.set(scheduler="threads", num_workers=a.workers):
        for w in a.work.split(","):
            walls, cpus, vals = [], [], []
            for i in range(a.runs + 1):
                w0, c0 = time.perf_counter(), time.process_time()
                v = expr(w).compute()
                wall, cpu = time.perf_counter() - w0, time.process_time() - c0
                print(f"# {w} {'warmup' if i == 0 else f'run {i}'} wall_s {wall:.4f} cpu_s {cpu:.3f} value {v}",
                      flush=True)
                if i:
                    walls.append(wall)
                    cpus.append(cpu)
                    vals.append(v)
            k = walls.index(statistics.median_low(walls))
            v = vals[k]
            vs = f"{int(v)}" if w == "argmax" else f"{float(v):.17g}"
            print(f"PEER dask {w} {statistics.median(walls):.6f} {vs} cpu_s {cpus[k]:.3f}", flush=True)


if __name__ == "__main__":
    main()
