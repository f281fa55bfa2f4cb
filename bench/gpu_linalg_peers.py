#!/usr/bin/env python3
"""gpu_linalg_peers.py - the GPU peers of W3 (thin SVD) and of a square
matrix product, timed on one GPU the way TARGETS.md measures them.

  gpu_linalg_peers.py svd ROWS COLS CHUNKROWS RUNS
      cupy-svd       CuPy linalg.svd(full_matrices=False)
      cupy-qr-svd    CuPy linalg.qr, then linalg.svd of R
      torch-svd      PyTorch linalg.svd(full_matrices=False)
      torch-qr-svd   PyTorch linalg.qr, then linalg.svd of R
      dask-cupy-svd  Dask da.linalg.svd (TSQR) of a dask array of CuPy blocks
                     of CHUNKROWS x COLS (tessera's chunks), computed with
                     dask.compute(u, s, v, scheduler="threads"); when the
                     threaded scheduler fails (other than for memory), the
                     synchronous one, printed as dask-cupy-svd-sync
  gpu_linalg_peers.py matmul N RUNS
      cupy-matmul    CuPy a @ b (cuBLAS dgemm): the measured cuBLAS figure
      torch-matmul   PyTorch a @ b

Every input is a float64 normal matrix generated on the GPU before timing
(generation not included; Dask's blocks are generated and persisted in GPU
memory first). Each peer runs once as a warm-up, then RUNS times; the best
is printed. One line per peer on stdout, in the order above:
"NAME seconds [s0 s1 s2]" (the largest singular values) or
"NAME failed: reason" (an import, memory or library failure: CuPy's
linalg.svd fails at 10^6 x 1000, TARGETS.md). Dask is imported only for its
row, so a Python without Dask gives that one failed row.
"""
import sys
import time


def say(*words):
    print(*words, flush=True)


def reason(e):
    text = str(e).strip().splitlines()
    return f"{type(e).__name__}: {text[0][:120] if text else ''}"


def best_of(runs, fn, sync):
    out = fn()
    sync()
    best = float("inf")
    for _ in range(runs):
        out = None  # free the previous result before the next run (large sizes)
        t0 = time.perf_counter()
        out = fn()
        sync()
        best = min(best, time.perf_counter() - t0)
    return best, out


def report(name, runs, fn, sync, pick_s):
    try:
        t, out = best_of(runs, fn, sync)
        say(name, f"{t:.6f}", *(f"{float(v):.6f}" for v in pick_s(out)[:3]))
    except Exception as e:  # noqa: BLE001 - any failure is a row
        say(name, "failed:", reason(e))


def is_oom(e):
    return "memory" in f"{type(e).__name__} {e}".lower()


def cupy_svd(rows, cols, runs):
    names = ("cupy-svd", "cupy-qr-svd")
    try:
        import cupy as cp
        a = cp.random.default_rng(1).standard_normal((rows, cols), dtype=cp.float64)
    except Exception as e:  # noqa: BLE001
        for n in names:
            say(n, "failed:", reason(e))
        return
    sync = cp.cuda.Device().synchronize
    pool = cp.get_default_memory_pool()
    report(names[0], runs, lambda: cp.linalg.svd(a, full_matrices=False), sync, lambda o: o[1])
    pool.free_all_blocks()
    report(names[1], runs, lambda: (lambda q, r: (q, cp.linalg.svd(r)))(*cp.linalg.qr(a)), sync,
           lambda o: o[1][1])
    del a
    pool.free_all_blocks()


def torch_svd(rows, cols, runs):
    names = ("torch-svd", "torch-qr-svd")
    try:
        import torch
        g = torch.Generator(device="cuda").manual_seed(1)
        a = torch.randn(rows, cols, dtype=torch.float64, device="cuda", generator=g)
    except Exception as e:  # noqa: BLE001
        for n in names:
            say(n, "failed:", reason(e))
        return
    sync = torch.cuda.synchronize
    report(names[0], runs, lambda: torch.linalg.svd(a, full_matrices=False), sync, lambda o: o[1])
    torch.cuda.empty_cache()
    report(names[1], runs, lambda: (lambda q, r: (q, torch.linalg.svd(r)))(*torch.linalg.qr(a)), sync,
           lambda o: o[1][1])
    del a
    torch.cuda.empty_cache()


def dask_cupy_svd(rows, cols, crows, runs):
    name = "dask-cupy-svd"
    try:
        import cupy as cp
        import dask
        import dask.array as da
        rs = da.random.RandomState(seed=1, RandomState=cp.random.RandomState)
        x = rs.standard_normal((rows, cols), chunks=(crows, cols)).persist(scheduler="threads")
        cp.cuda.Device().synchronize()
    except Exception as e:  # noqa: BLE001
        say(name, "failed:", reason(e))
        return
    sync = cp.cuda.Device().synchronize

    def run(scheduler):
        u, s, v = da.linalg.svd(x)
        return dask.compute(u, s, v, scheduler=scheduler)

    try:
        t, out = best_of(runs, lambda: run("threads"), sync)
    except Exception as e:  # noqa: BLE001
        out = None
        cp.get_default_memory_pool().free_all_blocks()
        if is_oom(e):
            say(name, "failed:", reason(e))
            return
        print(f"{name}: threaded scheduler failed ({reason(e)}); synchronous scheduler",
              file=sys.stderr, flush=True)
        name += "-sync"
        try:
            t, out = best_of(runs, lambda: run("synchronous"), sync)
        except Exception as e2:  # noqa: BLE001
            say(name, "failed:", reason(e2))
            return
    say(name, f"{t:.6f}", *(f"{float(v):.6f}" for v in out[1][:3]))


def peers_svd(rows, cols, crows, runs):
    cupy_svd(rows, cols, runs)
    torch_svd(rows, cols, runs)
    dask_cupy_svd(rows, cols, crows, runs)


def peers_matmul(n, runs):
    try:
        import cupy as cp
        rng = cp.random.default_rng(1)
        a, b = rng.standard_normal((n, n)), rng.standard_normal((n, n))
        report("cupy-matmul", runs, lambda: a @ b, cp.cuda.Device().synchronize, lambda o: [])
        del a, b
        cp.get_default_memory_pool().free_all_blocks()
    except Exception as e:  # noqa: BLE001
        say("cupy-matmul", "failed:", reason(e))
    try:
        import torch
        a = torch.randn(n, n, dtype=torch.float64, device="cuda")
        b = torch.randn(n, n, dtype=torch.float64, device="cuda")
        report("torch-matmul", runs, lambda: a @ b, torch.cuda.synchronize, lambda o: [])
    except Exception as e:  # noqa: BLE001
        say("torch-matmul", "failed:", reason(e))


if __name__ == "__main__":
    if len(sys.argv) == 6 and sys.argv[1] == "svd":
        peers_svd(*(int(v) for v in sys.argv[2:6]))
    elif len(sys.argv) == 4 and sys.argv[1] == "matmul":
        peers_matmul(int(sys.argv[2]), int(sys.argv[3]))
    else:
        sys.exit(__doc__)
