#!/usr/bin/env python3
"""The peer side of bench/io_bench.sh: h5py + NumPy in one process.

    io_peer.py write FILE ROWS COLS CHUNK_ROWS
        creates FILE with a float64 dataset /x of ROWS x COLS, HDF5 chunks of
        CHUNK_ROWS x COLS, and writes it chunk by chunk with the value 1.5
        (np.full), then fsyncs it. Prints "write_s S".
    io_peer.py read FILE
        reads /x one HDF5 chunk of rows at a time into NumPy and sums it.
        Prints "read_s S sum V".
    io_peer.py evict FILE...
        drops the files' pages from the page cache (posix_fadvise
        DONTNEED), so that the next read comes from the disk.

Times are wall clock inside the process (imports excluded).
"""
import os
import sys
import time


def evict(paths):
    for p in paths:
        fd = os.open(p, os.O_RDONLY)
        try:
            os.fsync(fd)
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        finally:
            os.close(fd)


def main():
    if len(sys.argv) < 3 or sys.argv[1] not in ("write", "read", "evict"):
        sys.exit(__doc__)
    if sys.argv[1] == "evict":
        evict(sys.argv[2:])
        return
    import h5py
    import numpy as np
    path = sys.argv[2]
    if sys.argv[1] == "write":
        rows, cols, crows = (int(a) for a in sys.argv[3:6])
        t0 = time.perf_counter()
        with h5py.File(path, "w") as f:
            d = f.create_dataset("x", shape=(rows, cols), dtype="f8", chunks=(crows, cols))
            for i in range(0, rows, crows):
                d[i:i + crows] = np.full((min(crows, rows - i), cols), 1.5)
        fd = os.open(path, os.O_RDONLY)
        os.fsync(fd)
        os.close(fd)
        print(f"write_s {time.perf_counter() - t0:.4f}")
    else:
        t0 = time.perf_counter()
        total = 0.0
        with h5py.File(path, "r") as f:
            d = f["x"]
            step = d.chunks[0] if d.chunks else 1024
            for i in range(0, d.shape[0], step):
                total += float(d[i:i + step].sum())
        print(f"read_s {time.perf_counter() - t0:.4f} sum {total:.17g}")


if __name__ == "__main__":
    main()
