#!/bin/sh
# shapes.sh - the shape functions that are views (flip, fliplr, flipud,
# expand_dims, squeeze, atleast_1d/2d/3d, transpose with axes, swapaxes,
# moveaxis, diagonal), tril, triu and trace, and `...` in indices, against
# NumPy: every value of a job's results file bitwise NumPy's, with NumPy's
# shape and dtype, on 1 and 3 ranks and with --no-fuse, on ragged chunks;
# the chunks are dask.array's (a flipped axis's chunks reversed, a new axis
# one chunk of 1, a squeezed axis gone, transposed axes' chunks with them); bad arguments give one error line
# each before any work.
# Needs python3 with numpy and h5py: skipped without them, failed in CI.
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"

TIMEOUT=120
need_numpy

# a3 (3 x 4 x 5, chunks 2, 3, 2: ragged on every axis), then name | tessera | NumPy
A3_T='arange(3.0, chunks=2)[:, None, None] * 100 + arange(4.0, chunks=3)[None, :, None] * 10 + arange(5.0, chunks=2)[None, None, :]'
A3_N='np.arange(3.0)[:, None, None] * 100 + np.arange(4.0)[None, :, None] * 10 + np.arange(5.0)[None, None, :]'
cat >cases.txt <<'CASES'
f1|flip(a3)|np.flip(a3)
f2|flip(a3, axis=1)|np.flip(a3, axis=1)
f3|flip(a3, axis=(0, -1))|np.flip(a3, axis=(0, -1))
f4|fliplr(a3)|np.fliplr(a3)
f5|flipud(arange(7, chunks=3))|np.flipud(np.arange(7))
f6|flip(arange(0))|np.flip(np.arange(0))
f7|flip(a3 > 150, axis=[2])|np.flip(a3 > 150, axis=[2])
f8|flip(flip(a3, 1), 1) - a3|np.zeros((3, 4, 5))
e1|expand_dims(a3, 0)|np.expand_dims(a3, 0)
e2|expand_dims(a3[0], (1, -1))|np.expand_dims(a3[0], (1, -1))
e3|expand_dims(arange(4, chunks=3), [0, 2])|np.expand_dims(np.arange(4), [0, 2])
e4|expand_dims(a3[1, 2, 3], 0)|np.expand_dims(a3[1, 2, 3], 0)
s1|squeeze(expand_dims(a3[:, 1], (0, 2)))|np.squeeze(np.expand_dims(a3[:, 1], (0, 2)))
s2|expand_dims(a3[:, 1], (0, 2)).squeeze(axis=2)|np.expand_dims(a3[:, 1], (0, 2)).squeeze(axis=2)
s3|squeeze(a3[1:2, :, 3:4], axis=(0,))|np.squeeze(a3[1:2, :, 3:4], axis=(0,))
s4|squeeze(a3)|np.squeeze(a3)
t1|atleast_1d(a3[1, 2, 3])|np.atleast_1d(a3[1, 2, 3])
t2|atleast_2d(arange(5, chunks=2))|np.atleast_2d(np.arange(5))
t3|atleast_3d(a3[0])|np.atleast_3d(a3[0])
t4|atleast_3d(arange(4.0, chunks=3))|np.atleast_3d(np.arange(4.0))
t5|atleast_2d(a3)|np.atleast_2d(a3)
t6|atleast_1d(7)|np.atleast_1d(7)
t7|atleast_3d(2.5)|np.atleast_3d(2.5)
d1|a3[..., 1]|a3[..., 1]
d2|a3[1, ...]|a3[1, ...]
d3|a3[..., None, ::-2]|a3[..., None, ::-2]
d4|a3[0, ..., 1:3]|a3[0, ..., 1:3]
d5|a3[..., 2, 1, 0]|a3[..., 2, 1, 0]
d6|flip(a3, axis=2)[..., 0] + a3[:, ::-1, -1]|np.flip(a3, axis=2)[..., 0] + a3[:, ::-1, -1]
d7|a3[...]|a3[...]
p1|transpose(a3)|np.transpose(a3)
p2|a3.T|a3.T
p3|transpose(a3, (1, 2, 0))|np.transpose(a3, (1, 2, 0))
p4|a3.transpose((2, 0, 1)) + 1|a3.transpose((2, 0, 1)) + 1
p5|transpose(transpose(a3, (1, 2, 0)), (2, 0, 1))|a3
p6|swapaxes(a3, 0, 2)|np.swapaxes(a3, 0, 2)
p7|a3.swapaxes(-1, 1)[1:, ::2]|a3.swapaxes(-1, 1)[1:, ::2]
p8|moveaxis(a3, 0, -1)|np.moveaxis(a3, 0, -1)
p9|moveaxis(a3, (0, 1), (2, 0))|np.moveaxis(a3, (0, 1), (2, 0))
p10|sum(swapaxes(a3, 0, 1) * a3[0][:, None, :], axis=1)|np.sum(np.swapaxes(a3, 0, 1) * a3[0][:, None, :], axis=1)
l1|tril(a3)|np.tril(a3)
l2|triu(a3, k=2)|np.triu(a3, k=2)
l3|tril(a3[1], -1)|np.tril(a3[1], -1)
l4|triu(arange(5, chunks=2), 1)|np.triu(np.arange(5), 1)
l5|tril(a3 > 130, 3)|np.tril(a3 > 130, 3)
l6|triu(a3.astype("float32"), -9)|np.triu(a3.astype(np.float32), -9)
g1|diagonal(a3[0])|np.diagonal(a3[0])
g2|diagonal(a3, 1, 1, 2)|np.diagonal(a3, 1, 1, 2)
g3|a3.diagonal(-1, 2, 0)|a3.diagonal(-1, 2, 0)
g4|diagonal(a3[1], 7)|np.diagonal(a3[1], 7)
g5|trace(a3[2])|np.trace(a3[2])
g6|trace(a3, 1, 2, 1)|np.trace(a3, 1, 2, 1)
g7|a3.astype("int32").trace(-1)|a3.astype(np.int32).trace(-1)
g8|trace(a3 > 100, dtype="float32")|np.trace(a3 > 100, dtype=np.float32)
g9|diagonal(swapaxes(a3, 0, 2))[::-1] * 2|np.diagonal(np.swapaxes(a3, 0, 2))[::-1] * 2
CASES
{
  echo "a3 = $A3_T"
  while IFS='|' read -r name expr _; do echo "$name = $expr"; done <cases.txt
} >job.tsr

check() { # WHAT FILE
  NUMPY_SETUP="a3 = $A3_N" "$PYNP" "$srcdir/tests/tools/numpy_cases.py" "$2" cases.txt ||
    soft_fail "$1: values differ from NumPy"
}

job_each_mode "shape views" 3 check

# The chunks, as dask.array gives them (worked out from its rules, not run):
# flip reverses a flipped axis's chunks, a new axis is one chunk of 1, a
# squeezed axis goes, `...` takes the axes whole.
chunks_are() { # EXPR WANT
  capture out err tsr --quiet eval "($1).chunks"
  [ "$RC" -eq 0 ] && [ "$(cat out)" = "$2" ] || soft_fail "chunks of $1: got '$(cat out) $(cat err)', want '$2'"
}
X='normal(0, 1, (5, 4, 3), chunks=(2, 3, 2), seed=1)'
chunks_are "flip($X, axis=0)" "((1, 2, 2), (3, 1), (2, 1))"
chunks_are "flip($X)" "((1, 2, 2), (1, 3), (1, 2))"
chunks_are "expand_dims($X[0], (0, 2))" "((1,), (3, 1), (1,), (2, 1))"
chunks_are "squeeze(expand_dims($X, 1))" "((2, 2, 1), (3, 1), (2, 1))"
chunks_are "atleast_3d($X[0])" "((3, 1), (2, 1), (1,))"
chunks_are "$X[..., 1]" "((2, 2, 1), (3, 1))"
chunks_are "transpose($X)" "((2, 1), (3, 1), (2, 2, 1))"
chunks_are "transpose($X, (1, 2, 0))" "((3, 1), (2, 1), (2, 2, 1))"
chunks_are "moveaxis($X, 0, -1)" "((3, 1), (2, 1), (2, 2, 1))"
chunks_are "swapaxes($X, 0, 1)" "((3, 1), (2, 2, 1), (2, 1))"
chunks_are "tril($X)" "((2, 2, 1), (3, 1), (2, 1))"
chunks_are "diagonal($X[:, :, 0])" "((2, 1, 1),)"
chunks_are "diagonal($X, -1, 0, 2)" "((3, 1), (1, 1, 1))"

# Bad arguments: one error line each, before any work.
one_error_each 'fliplr(arange(3))' 'flipud(ones(()))' 'flip(ones((2, 3)), axis=2)' \
  'flip(ones(3), axis=(0, 0))' 'expand_dims(ones(3), 2)' 'expand_dims(ones(3))' \
  'expand_dims(ones(3), None)' 'expand_dims(ones((2, 2, 2)), (0, 1))' 'squeeze(ones((1, 3)), axis=1)' 'ones((2, 3))[..., 0, ...]' \
  'ones((2, 3))[0, 1, ...][0]' 'transpose(ones((2, 3)), (0,))' 'transpose(ones((2, 3)), (1, 1))' \
  'transpose(ones((2, 3)), (0, 2))' 'swapaxes(ones((2, 3)), 0, 2)' 'moveaxis(ones((2, 3)), (0, 1), 0)' \
  'moveaxis(ones((2, 3)), 0, 5)' 'tril(ones(()))' 'triu(ones((2, 2)), k=0.5)' 'diagonal(ones(3))' \
  'diagonal(ones((2, 2)), 0, 1, 1)' 'trace(ones((2, 2)), axis1=2)'
finish
