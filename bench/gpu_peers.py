#!/usr/bin/env python3
"""gpu_peers.py - the GPU peers of W1/W2, timed the way TARGETS.md measures them.

A chunk loop generates normal(10, 1) float64 chunks, adds 1, takes [::2, ::2]
and sums, one chunk after another on one GPU, with CuPy (RandomState) or
PyTorch (Philox randn). The loop runs over `--chunks` chunks after a warm-up
and the time is extrapolated to the whole array (per-chunk time x number of
chunks: the chunks are independent). Prints one line: system, seconds, result.
"""
import argparse
import time

WORKLOADS = {"w1": (500000, 10000, "sum"), "w2": (100000, 10000, "mean")}


def run_cupy(c, k):
    import cupy as cp
    rs = cp.random.RandomState(0)
    def one():
        x = rs.normal(10, 1, (c, c), dtype=cp.float64)
        return ((x + 1)[::2, ::2]).sum()
    one(); cp.cuda.Device().synchronize()
    t0 = time.perf_counter()
    acc = 0.0
    for _ in range(k):
        acc += one()
    cp.cuda.Device().synchronize()
    return time.perf_counter() - t0, float(acc)


def run_torch(c, k):
    import torch
    g = torch.Generator(device="cuda").manual_seed(0)
    def one():
        x = torch.randn((c, c), dtype=torch.float64, device="cuda", generator=g) * 1 + 10
        return ((x + 1)[::2, ::2]).sum()
    one(); torch.cuda.synchronize()
    t0 = time.perf_counter()
    acc = torch.zeros((), dtype=torch.float64, device="cuda")
    for _ in range(k):
        acc += one()
    torch.cuda.synchronize()
    return time.perf_counter() - t0, float(acc)


def run_dask_cupy(n, c, red):
    """Dask + CuPy on the whole array (threaded scheduler, one GPU)."""
    import cupy as cp
    import dask
    import dask.array as da
    rs = da.random.RandomState(RandomState=cp.random.RandomState)
    def expr():
        x = rs.normal(10, 1, size=(n, n), chunks=(c, c))
        y = (x + 1)[::2, ::2]
        return y.mean() if red == "mean" else y.sum()
    with dask.config.set(scheduler="threads"):
        float(expr().compute())  # warm-up
        cp.cuda.Device().synchronize()
        t0 = time.perf_counter()
        v = float(expr().compute())
        cp.cuda.Device().synchronize()
    return time.perf_counter() - t0, v


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--workload", choices=WORKLOADS, default="w2")
    ap.add_argument("--system", choices=["cupy", "torch", "dask-cupy"], default="torch")
    ap.add_argument("--chunks", type=int, default=20, help="chunks timed (then extrapolated)")
    a = ap.parse_args()
    n, c, red = WORKLOADS[a.workload]
    total = (n // c) ** 2
    if a.system == "dask-cupy":
        # W1 is 25 W2s: run the 80 GB W2 array and scale, as TARGETS.md does.
        w2n = WORKLOADS["w2"][0]
        dt, v = run_dask_cupy(w2n, c, red)
        scale = (n // w2n) ** 2
        print(f"dask-cupy {a.workload} {dt * scale:.4f} s (measured {dt:.4f} s on the "
              f"{w2n}x{w2n} array{', x%d' % scale if scale > 1 else ''}) value~{v:.6g}")
        return
    k = min(a.chunks, total)
    dt, acc = (run_cupy if a.system == "cupy" else run_torch)(c, k)
    per = dt / k
    value = acc / k / ((c // 2) ** 2) if red == "mean" else acc / k * total
    print(f"{a.system} {a.workload} {per * total:.4f} s (extrapolated from {k} of {total} chunks, "
          f"{per * 1e3:.2f} ms/chunk) value~{value:.6g}")


if __name__ == "__main__":
    main()
