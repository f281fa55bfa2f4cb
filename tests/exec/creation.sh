#!/bin/sh
# creation.sh - NumPy's creation functions (eye, identity, tri, linspace,
# meshgrid, the _like family, empty) against NumPy: every value of a job's
# results file is bitwise NumPy's (NaN equal to NaN, the sign of zero
# compared), on 1 and 2 ranks and with --no-fuse, on ragged chunkings, and
# bad arguments give one error line each before any work.
# Needs python3 with numpy and h5py: skipped without them, failed in CI.
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"

TIMEOUT=120
need_numpy

# name | tessera | NumPy
cat >cases.txt <<'EOF'
e1|eye(7, chunks=3)|np.eye(7)
e2|eye(5, 9, k=2, chunks=(2, 4))|np.eye(5, 9, k=2)
e3|eye(6, 4, k=-3, chunks=(4, 3))|np.eye(6, 4, k=-3)
e4|eye(4, k=9, chunks=3)|np.eye(4, k=9)
e5|eye(3, dtype="float32")|np.eye(3, dtype=np.float32)
i1|identity(5, chunks=2)|np.identity(5)
t1|tri(6, chunks=4)|np.tri(6)
t2|tri(5, 8, k=2, chunks=(3, 5))|np.tri(5, 8, k=2)
t3|tri(7, 3, k=-2, chunks=(2, 2))|np.tri(7, 3, k=-2)
l1|linspace(0, 1, 11, chunks=4)|np.linspace(0, 1, 11)
l2|linspace(-2.5, 7.25, 50, chunks=7)|np.linspace(-2.5, 7.25, 50)
l3|linspace(3, -1e-300, 13, chunks=5)|np.linspace(3, -1e-300, 13)
l4|linspace(1, 2, 9, endpoint=False, chunks=2)|np.linspace(1, 2, 9, endpoint=False)
l5|linspace(0.1, 0.1, 6, chunks=4)|np.linspace(0.1, 0.1, 6)
l6|linspace(5, 6, 1)|np.linspace(5, 6, 1)
l7|linspace(1e300, -1e300, 17, chunks=6)|np.linspace(1e300, -1e300, 17)
l8|linspace(-0.0, -1, 5, chunks=2)|np.linspace(-0.0, -1, 5)
l9|linspace(0, 1e-320, 7, chunks=3)|np.linspace(0, 1e-320, 7)
l10|linspace(0, 10, 0)|np.linspace(0, 10, 0)
l11|linspace(0, 1, 7, dtype="float32", chunks=3)|np.linspace(0, 1, 7, dtype=np.float32)
z1|zeros_like(normal(shape=(5, 7), chunks=(2, 3)))|np.zeros((5, 7))
o1|ones_like(arange(9, chunks=4))|np.ones(9, dtype=np.int64)
f1|full_like(ones((3, 4), chunks=2), -2.5)|np.full((3, 4), -2.5)
f2|full_like(ones(6), 3, dtype="float32")|np.full(6, 3, dtype=np.float32)
m1|empty_like(ones((2, 3)))|np.zeros((2, 3))
m2|empty((3, 2), chunks=2)|np.zeros((3, 2))
EOF
# meshgrid returns two arrays: name | tessera pair | NumPy pair
cat >mesh.txt <<'EOF'
g1|meshgrid(linspace(-1, 1, 7, chunks=3), arange(5, chunks=2))|np.meshgrid(np.linspace(-1, 1, 7), np.arange(5))
g2|meshgrid(linspace(-1, 1, 7, chunks=3), arange(5, chunks=2), indexing="ij")|np.meshgrid(np.linspace(-1, 1, 7), np.arange(5), indexing="ij")
EOF
{
  while IFS='|' read -r name expr _; do echo "$name = $expr"; done <cases.txt
  while IFS='|' read -r name expr _; do echo "${name}x, ${name}y = $expr"; done <mesh.txt
} >job.tsr

check() { # WHAT FILE
  "$PYNP" - "$2" <<'PY' || soft_fail "$1: values differ from NumPy"
import h5py, numpy as np, sys
f = h5py.File(sys.argv[1], "r")
bad = []
def same(name, got, want):
    want = np.asarray(want)
    ok = got.shape == want.shape and got.dtype == want.dtype and (
        got.tobytes() == want.tobytes() or
        (np.array_equal(got, want, equal_nan=True) and np.array_equal(np.signbit(got), np.signbit(want))))
    if not ok:
        bad.append(name)
        print(name, got.dtype, got.shape, want.dtype, want.shape, got.ravel()[:8], want.ravel()[:8])
for line in open("cases.txt"):
    name, _, numpy_expr = line.rstrip("\n").split("|")
    same(name, f[name][()], eval(numpy_expr))
for line in open("mesh.txt"):
    name, _, numpy_expr = line.rstrip("\n").split("|")
    want = eval(numpy_expr)
    same(name + "x", f[name + "x"][()], want[0])
    same(name + "y", f[name + "y"][()], want[1])
sys.exit(1 if bad else 0)
PY
}

job_each_mode "creation functions" 2 check

# Bad arguments: one error line each, before any work.
one_error_each 'eye(-1)' 'linspace(0, 1, -3)' 'meshgrid(ones((2, 2)), ones(3))' \
  'meshgrid(ones(2), ones(3), indexing="xz")' 'tri(3, k=0.5)'
finish
