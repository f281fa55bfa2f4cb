#!/bin/sh
# masks.sh - boolean masks and what is built on them: x[mask] (a mask of
# x's shape, or of its leading axes: rows), nonzero, flatnonzero, argwhere,
# where(condition), compress, extract, unique (with return_index and
# return_counts), union1d, intersect1d, setdiff1d, setxor1d, and isin, digitize and searchsorted
# against arrays (their values computed while the job is read) against NumPy: every value of a job's
# results file NumPy's, bitwise, with NumPy's shape and dtype, on 1 and 3
# ranks and with --no-fuse, on ragged chunks (masks selecting nothing in
# some chunks, and nothing at all); the selection's chunks against dask's
# (its chunks' sizes once computed, without the empty ones); bad arguments
# give one error line each before any work.
# Needs python3 with numpy and h5py: skipped without them, failed in CI.
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"

TIMEOUT=120
need_numpy

cat >cases.txt <<'CASES'
m1|v[v > 0]|v[v > 0]
m2|a3[a3 % 3 == 0]|a3[a3 % 3 == 0]
m3|m[m[:, 0] > 5]|m[m[:, 0] > 5]
m4|a3[a3[:, :, 0] > 100]|a3[a3[:, :, 0] > 100]
m5|sum(a3[a3 > 150])|np.sum(a3[a3 > 150])
m6|v[v > 100]|v[v > 100]
m7|(v * 2)[v > 0] + 1|(v * 2)[v > 0] + 1
m8|m[m > 10].astype("int32")|m[m > 10].astype(np.int32)
m9|m[(m > 3) & (m < 20)][::2]|m[(m > 3) & (m < 20)][::2]
ma|a3[a3[:, 0, 0] < 150]|a3[a3[:, 0, 0] < 150]
n1|nonzero(a3 % 4 == 0)[0]|np.nonzero(a3 % 4 == 0)[0]
n2|nonzero(a3 % 4 == 0)[2]|np.nonzero(a3 % 4 == 0)[2]
n3|flatnonzero(m % 5 == 1)|np.flatnonzero(m % 5 == 1)
n4|argwhere(a3 % 7 == 1)|np.argwhere(a3 % 7 == 1)
n5|where(v > 1)[0]|np.where(v > 1)[0]
n6|argwhere(v > 100)|np.argwhere(v > 100)
n7|m.nonzero()[1]|m.nonzero()[1]
c1|compress(array([True, False, True]), m, axis=0)|np.compress([True, False, True], m, axis=0)
c2|compress(array([False, True]), a3, axis=2)|np.compress([False, True], a3, axis=2)
c3|compress(v > 0, v)|np.compress(v > 0, v)
c4|compress(array([True, False, True]), m)|np.compress([True, False, True], m)
e1|extract(m % 3 == 0, m)|np.extract(m % 3 == 0, m)
u1|unique(a3 % 7)|np.unique(a3 % 7)
u2|unique(concatenate([v, v / 0.0]))|np.unique(np.concatenate([v, v / 0.0]))
u3|unique(m % 5, return_counts=True)[1]|np.unique(m % 5, return_counts=True)[1]
u4|unique(m % 5, return_index=True)[1]|np.unique(m % 5, return_index=True)[1]
u5|union1d(v, m[0])|np.union1d(v, m[0])
u6|intersect1d(m % 4, v)|np.intersect1d(m % 4, v)
u7|unique(v[:0])|np.unique(v[:0])
u8|unique((a3 % 3).astype("int16"), return_counts=True)[0]|np.unique((a3 % 3).astype(np.int16), return_counts=True)[0]
s1|isin(m, v)|np.isin(m, v)
s2|isin(a3 % 10, m[1:3, 1:4], invert=True)|np.isin(a3 % 10, m[1:3, 1:4], invert=True)
s3|digitize(m, linspace(0, 20, 5))|np.digitize(m, np.linspace(0, 20, 5))
s4|searchsorted(v, m[0] - 0.5, side="right")|np.searchsorted(v, m[0] - 0.5, side="right")
d1|setdiff1d(a3 % 11, m)|np.setdiff1d(a3 % 11, m)
d2|setxor1d(v, m[0] - 2)|np.setxor1d(v, m[0] - 2)
d3|setdiff1d(concatenate([v, v / 0.0]), v[2:] / 0.0)|np.setdiff1d(np.concatenate([v, v / 0.0]), v[2:] / 0.0)
d4|setxor1d(concatenate([v, v / 0.0]), v[2:] / 0.0)|np.setxor1d(np.concatenate([v, v / 0.0]), v[2:] / 0.0)
u9|intersect1d(arange(10, chunks=3) % 4, arange(3, 9, chunks=4), assume_unique=False)|np.intersect1d(np.arange(10) % 4, np.arange(3, 9))
CASES
cases_job

job_each_mode "masks" 3 cases_check

# The selection's chunks: dask's once their sizes are computed, the empty
# ones left out.
if "$PYNP" -c 'import dask.array' 2>/dev/null; then
  X='arange(100, chunks=12)'
  for cond in 'x % 7 == 3' 'x > 60' '(x < 20) | (x > 90)'; do
    t=$(echo "$cond" | sed "s/x/$X/g")
    capture out err tsr --quiet eval "($X[$t]).chunks"
    want=$(COND="$cond" "$PYNP" -c '
import os, dask.array as da
x = da.arange(100, chunks=12)
y = x[eval(os.environ["COND"])].compute_chunk_sizes()
print((tuple(int(c) for c in y.chunks[0] if c),))')
    [ "$(cat out)" = "$want" ] || soft_fail "chunks of x[$cond]: $(cat out) $(cat err), dask $want"
  done
else
  [ -n "${CI:-}" ] && fail "dask.array is not installed (python3-dask): the chunk rules are not checked"
  note "SKIP: dask.array is not installed: the masks' chunks are not compared with dask's"
fi

# The same values on 2 ranks and with --repeat (the counts are computed once).
capture out err tsr --repeat=2 eval "sum(arange(1000.0, chunks=70)[arange(1000, chunks=70) % 9 == 2] ** 2)"
[ "$RC" -eq 0 ] && [ "$(tail -1 out)" = "$("$PYNP" -c 'import numpy as np; a = np.arange(1000.0); print("%.17g" % np.sum(a[np.arange(1000) % 9 == 2] ** 2))')" ] ||
  soft_fail "a mask under --repeat=2: $(cat out err)"

one_error_each \
  "arange(7.0)[arange(6) > 0]" \
  "ones((4, 6))[array([True, False])]" \
  "ones((4, 6))[ones((4, 6, 2)) > 0]" \
  "unique(arange(7.0), return_inverse=True)" \
  "unique(ones((3, 3)), axis=0)" \
  "compress(ones((3, 3)) > 0, ones((3, 3)))" \
  "compress(ones(9) > 0, arange(7.0))" \
  "extract(arange(7) > 0, ones((3, 3)))" \
  "where(arange(7) > 0, 1)" \
  "isin(arange(7.0), arange(300.0))" \
  "searchsorted(ones((2, 2)), 1.0)"
finish
