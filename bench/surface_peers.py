#!/usr/bin/env python3
"""surface_peers.py - the GPU peers of issue 28's rows (bench/surface_gpu.sh).

One process, one GPU, one system (PyTorch or CuPy), every workload asked for:

  w2      mean((normal(10, 1) + 1)[::2, ::2]) of the 100000^2 array, chunks 10000^2
  where   mean(where(x > 10, x + 1, 0)[::2, ::2]) of the same array
  max     max(x) of the same array (x = normal(10, 1), every element)
  argmax  argmax(x) of the same array (flat index into the whole array)
  cumsum  cumsum of an N-element float64 vector already in GPU memory
          (torch.cumsum / cupy.cumsum, both CUB's device scan; surface_gpu.sh
          sets CUPY_ACCELERATORS=cub for CuPy), out= preallocated
  copy    a device-to-device copy of the same vector (read + write once: the
          bandwidth a scan could reach at best on this device)

The 80 GB workloads are chunk loops as in bench/gpu_peers.py: each chunk is
generated (PyTorch: Philox randn; CuPy: RandomState.normal), reduced, and the
per-chunk results combined on the GPU; the loop runs over --chunks chunks
after a warm-up chunk and its time is extrapolated to the 100 chunks of the
array (per-chunk time x 100; the chunks are independent). The peers write what
a user of the library would write: `where` then the slice (the whole chunk is
generated; they have no slice pushdown).

cumsum and copy: the input (standard normal) is generated once, outside the
timing; one warm-up call, then --reps timed calls (synchronised), median.

Prints one line per workload, which surface_gpu.sh parses:

    PEER <system> <workload> <seconds> <value> <note...>

and a line "# <system> <version> <device>" first. A workload that fails prints
"PEER <system> <workload> FAIL - <reason>" and the others go on.
"""
import argparse
import statistics
import sys
import time

N, C = 100000, 10000


def chunk_origin(i):
    nb = N // C
    return (i // nb) * C, (i % nb) * C


class Torch:
    name = "torch"

    def __init__(self):
        import torch
        self.t = torch
        self.g = torch.Generator(device="cuda").manual_seed(0)
        self.version = torch.__version__
        self.device = torch.cuda.get_device_name(0)

    def sync(self):
        self.t.cuda.synchronize()

    def normal(self):
        return self.t.randn((C, C), dtype=self.t.float64, device="cuda", generator=self.g) * 1 + 10

    def zero(self):
        return self.t.zeros((), dtype=self.t.float64, device="cuda")

    def w2(self):
        return ((self.normal() + 1)[::2, ::2]).sum()

    def where(self):
        x = self.normal()
        return self.t.where(x > 10, x + 1, 0.0)[::2, ::2].sum()

    def max(self):
        return self.normal().max()

    def argmax(self):
        x = self.normal().view(-1)
        i = x.argmax()
        return x[i], i

    def vector(self, n):
        return self.t.randn(n, dtype=self.t.float64, device="cuda", generator=self.g)

    def empty_like(self, x):
        return self.t.empty_like(x)

    def cumsum(self, x, y):
        self.t.cumsum(x, 0, out=y)

    def copy(self, x, y):
        y.copy_(x)

    def stack(self, xs):
        return self.t.stack(xs)


class Cupy:
    """CuPy; with numpy=True the same code on NumPy (CPU: only to test this
    script on a machine without a GPU, at small --size)."""

    def __init__(self, numpy=False):
        if numpy:
            import numpy as cp
            self.name, self.device = "numpy", "CPU (script test only)"
        else:
            import cupy as cp
            self.name = "cupy"
            self.device = cp.cuda.runtime.getDeviceProperties(0)["name"].decode()
        self.cp = cp
        self.rs = cp.random.RandomState(0)
        self.version = cp.__version__
        if self.name == "cupy":
            import os
            acc = "?"
            try:  # cumsum goes to CUB's device scan when "cub" is among them
                from cupy._core import _accelerator
                acc = _accelerator.get_routine_accelerators()
            except Exception:  # noqa: BLE001 - only a label
                pass
            self.version += (f" (CUPY_ACCELERATORS={os.environ.get('CUPY_ACCELERATORS', 'unset')},"
                             f" routine accelerators {acc})")

    def sync(self):
        if self.name == "cupy":
            self.cp.cuda.Device().synchronize()

    def normal(self):
        return self.rs.normal(10, 1, (C, C))  # float64

    def zero(self):
        return self.cp.zeros((), dtype=self.cp.float64)

    def w2(self):
        return ((self.normal() + 1)[::2, ::2]).sum()

    def where(self):
        x = self.normal()
        return self.cp.where(x > 10, x + 1, 0.0)[::2, ::2].sum()

    def max(self):
        return self.normal().max()

    def argmax(self):
        x = self.normal().ravel()
        i = x.argmax()
        return x[i], i

    def vector(self, n):
        return self.rs.standard_normal(n).astype(self.cp.float64, copy=False)

    def empty_like(self, x):
        return self.cp.empty_like(x)

    def cumsum(self, x, y):
        self.cp.cumsum(x, out=y)

    def copy(self, x, y):
        self.cp.copyto(y, x)

    def stack(self, xs):
        return self.cp.stack(xs)


def chunk_loop(s, work, k):
    """Time k chunks of `work` after a warm-up chunk; return (s per whole
    array, value)."""
    total = (N // C) ** 2
    fn = getattr(s, work)
    fn()
    s.sync()
    t0 = time.perf_counter()
    if work == "argmax":
        vals, idxs = [], []
        for _ in range(k):
            v, i = fn()
            vals.append(v)
            idxs.append(i)
        best = int(s.stack(vals).argmax())
        s.sync()
        dt = time.perf_counter() - t0
        r0, c0 = chunk_origin(best)
        li = int(idxs[best])
        value = f"{(r0 + li // C) * N + c0 + li % C} (max {float(vals[best]):.6g}, over the {k} chunks timed)"
        return dt / k * total, value
    if work == "max":
        vals = [fn() for _ in range(k)]
        m = s.stack(vals).max()
        s.sync()
        dt = time.perf_counter() - t0
        return dt / k * total, f"{float(m):.6g} (over the {k} chunks timed)"
    acc = s.zero()
    for _ in range(k):
        acc += fn()
    s.sync()
    dt = time.perf_counter() - t0
    mean = float(acc) / k / ((C // 2) ** 2)
    return dt / k * total, f"{mean:.6g}"


def vector_op(s, work, n, reps):
    x = s.vector(n)
    y = s.empty_like(x)
    fn = getattr(s, work)
    fn(x, y)
    s.sync()
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn(x, y)
        s.sync()
        times.append(time.perf_counter() - t0)
    value = f"{float(y[-1]):.10g}" if work == "cumsum" else f"{float(y[-1] - x[-1]):.3g}"
    return statistics.median(times), value


def main():
    global N, C
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--system", choices=["torch", "cupy", "numpy"], required=True,
                    help="numpy: the CuPy code on the CPU, to test the script at small --size")
    ap.add_argument("--work", default="w2,where,max,argmax,cumsum,copy",
                    help="comma-separated workloads (default: all)")
    ap.add_argument("--chunks", type=int, default=10, help="chunks timed per 80 GB workload (then x100/k)")
    ap.add_argument("--size", type=int, nargs=2, metavar=("N", "C"), default=(N, C),
                    help="array edge and chunk edge of the 2-d workloads (default 100000 10000)")
    ap.add_argument("--n", type=int, default=10**9, help="cumsum/copy vector length")
    ap.add_argument("--reps", type=int, default=5, help="timed calls of cumsum/copy (median)")
    a = ap.parse_args()
    N, C = a.size
    try:
        s = Torch() if a.system == "torch" else Cupy(numpy=a.system == "numpy")
    except Exception as e:  # noqa: BLE001 - a missing or broken library is a skipped peer
        print(f"PEER {a.system} all FAIL - {type(e).__name__}: {e}")
        return 0
    print(f"# {s.name} {s.version} {s.device}", flush=True)
    for w in a.work.split(","):
        try:
            if w in ("cumsum", "copy"):
                t, v = vector_op(s, w, a.n, a.reps)
                note = f"median of {a.reps} after a warm-up, n={a.n}"
            else:
                t, v = chunk_loop(s, w, a.chunks)
                note = f"extrapolated from {a.chunks} of {(N // C) ** 2} chunks"
            print(f"PEER {s.name} {w} {t:.6f} {v.split()[0]} {note}; value {v}", flush=True)
        except Exception as e:  # noqa: BLE001
            print(f"PEER {s.name} {w} FAIL - {type(e).__name__}: {e}", flush=True)
        try:
            import gc
            gc.collect()
            if s.name == "torch":
                s.t.cuda.empty_cache()
            elif s.name == "cupy":
                s.cp.get_default_memory_pool().free_all_blocks()
        except Exception:  # noqa: BLE001
            pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
