#!/usr/bin/env python3
"""gpu_linalg_peers.py - the GPU peers of W3 (thin SVD) and of a square
matrix product, timed on one GPU the way TARGETS.md measures them.

  gpu_linalg_peers.py svd ROWS COLS RUNS     CuPy linalg.svd, CuPy QR then SVD
                                             of R, PyTorch linalg.svd, PyTorch
                                             QR then SVD of R
  gpu_linalg_peers.py matmul N RUNS          CuPy a @ b (cuBLAS dgemm), PyTorch

float64 normal matrices generated on the GPU before timing (generation not
included); best of RUNS after a warm-up. Prints one line per peer:
"NAME seconds [s0 s1 s2]" (the largest singular values, to compare), or
"NAME failed: reason" (CuPy's linalg.svd fails at 10^6 x 1000, TARGETS.md).
"""
import sys
import time


def best_of(runs, fn, sync):
    fn()
    sync()
    best = float("inf")
    out = None
    for _ in range(runs):
        t0 = time.perf_counter()
        out = fn()
        sync()
        best = min(best, time.perf_counter() - t0)
    return best, out


def peers_svd(rows, cols, runs):
    try:
        import cupy as cp
        a = cp.random.default_rng(1).standard_normal((rows, cols), dtype=cp.float64)
        sync = cp.cuda.Device().synchronize
        for name, fn in [("cupy-svd", lambda: cp.linalg.svd(a, full_matrices=False)),
                         ("cupy-qr-svd", lambda: (lambda q, r: (q, cp.linalg.svd(r)))(*cp.linalg.qr(a)))]:
            try:
                t, out = best_of(runs, fn, sync)
                s = out[1] if name == "cupy-svd" else out[1][1]
                print(name, f"{t:.4f}", *(f"{float(v):.6f}" for v in s[:3]))
            except Exception as e:  # noqa: BLE001 - report any failure as a row
                print(name, "failed:", str(e).splitlines()[0][:120])
        del a
        cp.get_default_memory_pool().free_all_blocks()
    except ImportError:
        print("cupy failed: not importable")
    try:
        import torch
        a = torch.randn(rows, cols, dtype=torch.float64, device="cuda")
        sync = torch.cuda.synchronize
        for name, fn in [("torch-svd", lambda: torch.linalg.svd(a, full_matrices=False)),
                         ("torch-qr-svd", lambda: (lambda q, r: (q, torch.linalg.svd(r)))(*torch.linalg.qr(a)))]:
            try:
                t, out = best_of(runs, fn, sync)
                s = out[1] if name == "torch-svd" else out[1][1]
                print(name, f"{t:.4f}", *(f"{float(v):.6f}" for v in s[:3]))
            except Exception as e:  # noqa: BLE001
                print(name, "failed:", str(e).splitlines()[0][:120])
    except ImportError:
        print("torch failed: not importable")


def peers_matmul(n, runs):
    try:
        import cupy as cp
        rng = cp.random.default_rng(1)
        a, b = rng.standard_normal((n, n)), rng.standard_normal((n, n))
        t, _ = best_of(runs, lambda: a @ b, cp.cuda.Device().synchronize)
        print("cupy-matmul", f"{t:.4f}")
        del a, b
        cp.get_default_memory_pool().free_all_blocks()
    except Exception as e:  # noqa: BLE001
        print("cupy-matmul failed:", str(e).splitlines()[0][:120])
    try:
        import torch
        a = torch.randn(n, n, dtype=torch.float64, device="cuda")
        b = torch.randn(n, n, dtype=torch.float64, device="cuda")
        t, _ = best_of(runs, lambda: a @ b, torch.cuda.synchronize)
        print("torch-matmul", f"{t:.4f}")
    except Exception as e:  # noqa: BLE001
        print("torch-matmul failed:", str(e).splitlines()[0][:120])


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "svd":
        peers_svd(int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]))
    elif len(sys.argv) == 4 and sys.argv[1] == "matmul":
        peers_matmul(int(sys.argv[2]), int(sys.argv[3]))
    else:
        sys.exit(__doc__)
