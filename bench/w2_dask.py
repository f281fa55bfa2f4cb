#!/usr/bin/env python3
"""W2 (speed cubing) with the peer, Dask + NumPy, on the CPU.

    mean((normal(10, 1, shape=(N, N), chunks=(C, C)) + 1)[::2, ::2])

dask.array.random.normal (NumPy's legacy RandomState per chunk, as in the
seed blog post and TARGETS.md) or, with --rng=generator, NumPy's Generator
(PCG64 + ziggurat, faster). Threaded scheduler, num_workers threads. One
warm-up run (not timed), then --runs timed runs of graph construction +
compute. Prints one line per run and a summary line that bench/w2_cpu.sh
parses:

    run I wall_s W cpu_s U mean M
    median wall_s W cpu_s U mean M peakRSS_KB R   (R: the whole process)
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
    ap.add_argument("--workers", type=int, default=os.cpu_count(), help="threads (default: all cores)")
    ap.add_argument("--runs", type=int, default=3, help="timed runs after the warm-up")
    ap.add_argument("--rng", choices=("legacy", "generator"), default="legacy")
    a = ap.parse_args()
    try:
        import dask
        import dask.array as da
        import numpy as np
    except ImportError as e:
        sys.exit(f"w2_dask.py: error: {e} (pip install dask numpy)")

    def expr():
        if a.rng == "legacy":
            x = da.random.normal(10, 1, size=(a.n, a.n), chunks=(a.c, a.c))
        else:
            x = da.random.default_rng().normal(10, 1, size=(a.n, a.n), chunks=(a.c, a.c))
        return (x + 1)[::2, ::2].mean()

    print(f"# dask {dask.__version__} numpy {np.__version__} rng={a.rng} "
          f"scheduler=threads num_workers={a.workers}", flush=True)
    walls, cpus, means = [], [], []
    with dask.config.set(scheduler="threads", num_workers=a.workers):
        for i in range(a.runs + 1):
            w0, c0 = time.perf_counter(), time.process_time()
            m = float(expr().compute())
            w, c = time.perf_counter() - w0, time.process_time() - c0
            tag = "warmup" if i == 0 else f"run {i}"
            print(f"{tag} wall_s {w:.4f} cpu_s {c:.3f} mean {m:.17g}", flush=True)
            if i:
                walls.append(w)
                cpus.append(c)
                means.append(m)
    k = walls.index(statistics.median_low(walls))
    import resource
    rss_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(f"median wall_s {statistics.median(walls):.4f} cpu_s {cpus[k]:.3f} mean {means[k]:.17g} "
          f"peakRSS_KB {rss_kb}")


if __name__ == "__main__":
    main()
