#!/bin/sh
# joins.sh - reshape, ravel, concatenate, stack, hstack, vstack, dstack,
# column_stack, block, append, roll, rot90, tile, pad, repeat,
# broadcast_to, take and list indices, diag, outer, kron, digitize,
# array/asarray/from_array of nested lists,
# searchsorted, topk, argtopk, argsort (kind="stable": every argsort is),
# partition and argpartition (their kth element), fftfreq, rfftfreq,
# fftshift, ifftshift, broadcast_arrays (and, within rounding, cov and corrcoef, within rounding, inner, vdot, norm, einsum and
# tensordot) against NumPy: every value of a job's results file bitwise
# NumPy's, with NumPy's shape and dtype, on 1 and 3 ranks and with
# --no-fuse, on ragged chunks; their chunks against dask.array's own
# (computed by dask here, when it is installed: Debian's python3-dask);
# bad arguments give one error line each before any work.
# Needs python3 with numpy and h5py: skipped without them, failed in CI.
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"

TIMEOUT=120
need_numpy

# name | tessera | NumPy over the case inputs (tests/lib.sh: a3, v, m)
cat >cases.txt <<'CASES'
r1|a3.reshape(12, 5)|a3.reshape(12, 5)
r2|reshape(a3, (3, 20))|np.reshape(a3, (3, 20))
r3|a3.reshape((60,))|a3.reshape((60,))
r4|reshape(v, (7, 1))|np.reshape(v, (7, 1))
r5|m.reshape(2, 2, 6)|m.reshape(2, 2, 6)
r6|reshape(m > 10, -1)|np.reshape(m > 10, -1)
r7|a3.reshape(-1, 5)[::2]|a3.reshape(-1, 5)[::2]
r8|ravel(a3.astype("int16"))|np.ravel(a3.astype(np.int16))
r9|m.flatten()[::5]|m.flatten()[::5]
ra|reshape(v[:0], (0, 3))|np.reshape(v[:0], (0, 3))
c1|concatenate([a3, a3 * 2], axis=1)|np.concatenate([a3, a3 * 2], axis=1)
c2|concatenate((v, v[::-1], v[:2]))|np.concatenate((v, v[::-1], v[:2]))
c3|concatenate([m, m.astype("int32")], axis=-1)|np.concatenate([m, m.astype(np.int32)], axis=-1)
c4|concatenate([a3, m], axis=None)|np.concatenate([a3, m], axis=None)
c5|concatenate([v > 3, v[:0] > 0])|np.concatenate([v > 3, v[:0] > 0])
c6|sum(concatenate([a3, a3 + 1, a3 + 2], axis=2), axis=1)|np.sum(np.concatenate([a3, a3 + 1, a3 + 2], axis=2), axis=1)
c7|concatenate([v, v])[3:10] * 2|np.concatenate([v, v])[3:10] * 2
s1|stack([v, v + 1, v * 3])|np.stack([v, v + 1, v * 3])
s2|stack([m, m], axis=-1)|np.stack([m, m], axis=-1)
s3|hstack([v, v])|np.hstack([v, v])
s4|hstack((m, m[:, :2]))|np.hstack((m, m[:, :2]))
s5|vstack([v, v])|np.vstack([v, v])
s6|vstack([m, m[1:]])|np.vstack([m, m[1:]])
s7|dstack([m, m])|np.dstack([m, m])
s8|column_stack([v, v * 2])|np.column_stack([v, v * 2])
s9|block([[m, m[:, :1]], [m[:2], m[:2, :1]]])|np.block([[m, m[:, :1]], [m[:2], m[:2, :1]]])
sa|block([v, v])|np.block([v, v])
p1|append(v, m)|np.append(v, m)
p2|append(m, m[:1], axis=0)|np.append(m, m[:1], axis=0)
o1|roll(v, 3)|np.roll(v, 3)
o2|roll(v, -10)|np.roll(v, -10)
o3|roll(m, 5)|np.roll(m, 5)
o4|roll(a3, (1, -2), axis=(0, 2))|np.roll(a3, (1, -2), axis=(0, 2))
o5|roll(a3, 2, axis=(1, 2))|np.roll(a3, 2, axis=(1, 2))
o6|roll(m, 0, axis=0)|np.roll(m, 0, axis=0)
t1|rot90(m)|np.rot90(m)
t2|rot90(m, 2)|np.rot90(m, 2)
t3|rot90(a3, -1, axes=(2, 0))|np.rot90(a3, -1, axes=(2, 0))
t4|rot90(m, 7)|np.rot90(m, 7)
i1|tile(v, 3)|np.tile(v, 3)
i2|tile(m, (2, 1))|np.tile(m, (2, 1))
i3|tile(v, (2, 1, 2))|np.tile(v, (2, 1, 2))
i4|tile(m, 0)|np.tile(m, 0)
d1|pad(m, 1)|np.pad(m, 1)
d2|pad(v, (2, 3), constant_values=-1)|np.pad(v, (2, 3), constant_values=-1)
d3|pad(m, ((1, 0), (2, 3)), mode="edge")|np.pad(m, ((1, 0), (2, 3)), mode="edge")
d4|pad(a3, 2, mode="reflect")|np.pad(a3, 2, mode="reflect")
d5|pad(m, ((3, 4), (1, 6)), mode="symmetric")|np.pad(m, ((3, 4), (1, 6)), mode="symmetric")
d6|pad(v, (7, 3), mode="wrap")|np.pad(v, (7, 3), mode="wrap")
d7|pad(m.astype("int8"), 1, constant_values=((1, 2), (3, 4)))|np.pad(m.astype(np.int8), 1, constant_values=((1, 2), (3, 4)))
d8|pad(m > 5, (0, 2))|np.pad(m > 5, (0, 2))
e1|repeat(v, 3)|np.repeat(v, 3)
e2|m.repeat(2, axis=0)|m.repeat(2, axis=0)
e3|repeat(a3, 4, axis=-1)|np.repeat(a3, 4, axis=-1)
e4|repeat(v, 0)|np.repeat(v, 0)
e5|repeat(v > 2, 2)|np.repeat(v > 2, 2)
b1|broadcast_to(v, (3, 7))|np.broadcast_to(v, (3, 7))
b2|broadcast_to(m[:, :1], (4, 6))|np.broadcast_to(m[:, :1], (4, 6))
b3|broadcast_to(5, (2, 3))|np.broadcast_to(5, (2, 3))
b4|sum(broadcast_to(a3[:, :1], (2, 3, 4, 5)), axis=0)|np.sum(np.broadcast_to(a3[:, :1], (2, 3, 4, 5)), axis=0)
k1|v[[3, 1, 2, 6, -1]]|v[[3, 1, 2, 6, -1]]
k2|a3[:, [0, 3, 3]]|a3[:, [0, 3, 3]]
k3|a3[1, [3, 0]]|a3[1, [3, 0]]
k4|take(m, [5, 0, 1], axis=1)|np.take(m, [5, 0, 1], axis=1)
k5|m.take([23, 0, 7])|m.take([23, 0, 7])
k6|take(a3, 2, axis=-1)|np.take(a3, 2, axis=-1)
k7|v[[]]|v[np.array([], dtype=np.int64)]
g1|diag(v)|np.diag(v)
g2|diag(v > 0, 2)|np.diag(v > 0, 2)
g3|diag(v, -3)|np.diag(v, -3)
g4|diag(m, 1)|np.diag(m, 1)
u1|outer(v, m[0])|np.outer(v, m[0])
u2|outer(m > 3, v.astype("int32"))|np.outer(m > 3, v.astype(np.int32))
Tn1|inner(v, v)|np.inner(v, v)
Tn2|inner(m, m)|np.inner(m, m)
Tn3|inner(m, m[0])|np.inner(m, m[0])
Tn4|vdot(m, m)|np.vdot(m, m)
Tn5|inner(m[0], m)|np.inner(m[0], m)
Tcv1|cov(m ** 2)|np.cov(m ** 2)
Tcv2|cov(v, v ** 2 + 1, bias=True)|np.cov(v, v ** 2 + 1, bias=True)
Tcv3|cov(a3[1] % 7, rowvar=False, ddof=0)|np.cov(a3[1] % 7, rowvar=False, ddof=0)
Tcv4|cov(v)|np.cov(v)
Tcv5|np.cov(m.astype("int32") % 5, m[:2] % 3)|np.cov(m.astype(np.int32) % 5, m[:2] % 3)
Tcc1|corrcoef(m ** 2 % 7)|np.corrcoef(m ** 2 % 7)
Tcc2|corrcoef(v, v ** 3, rowvar=False)|np.corrcoef(v, v ** 3, rowvar=False)
Tn6|inner(v[:5], m[:, 1:])|np.inner(v[:5], m[:, 1:])
Te9|einsum("i,i", v[:0], v[:0])|np.einsum("i,i", v[:0], v[:0])
Tea|einsum("ij,jk->ik", m[:, :0], m[:0])|np.einsum("ij,jk->ik", m[:, :0], m[:0])
Teb|tensordot(m[:2, :0], m[:0, :3], axes=1)|np.tensordot(m[:2, :0], m[:0, :3], axes=1)
Tm1|norm(v)|np.linalg.norm(v)
Tm2|linalg.norm(v, 3)|np.linalg.norm(v, 3)
Tm3|np.linalg.norm(m, 1)|np.linalg.norm(m, 1)
Tm4|norm(m, -inf)|np.linalg.norm(m, -np.inf)
Tm5|norm(m, "nuc")|np.linalg.norm(m, "nuc")
Tm6|norm(a3, axis=2)|np.linalg.norm(a3, axis=2)
Tm7|norm(a3, 1, axis=(0, 2), keepdims=True)|np.linalg.norm(a3, 1, axis=(0, 2), keepdims=True)
Tm8|norm(m.astype("int16"), 0, axis=0)|np.linalg.norm(m.astype(np.int16), 0, axis=0)
Tm9|norm(m, 2)|np.linalg.norm(m, 2)
Te1|einsum("ij,jk->ik", m, m.T)|np.einsum("ij,jk->ik", m, m.T)
Te2|einsum("ij,kj", m, m)|np.einsum("ij,kj", m, m)
Te3|einsum("ii", m[:, :4])|np.einsum("ii", m[:, :4])
Te4|einsum("ijk,kj->i", a3, a3[0].T)|np.einsum("ijk,kj->i", a3, a3[0].T)
Te5|einsum("i,i,i", v, v, v)|np.einsum("i,i,i", v, v, v)
Te6|tensordot(a3, a3[0])|np.tensordot(a3, a3[0])
Te7|tensordot(m, m, axes=([0], [0]))|np.tensordot(m, m, axes=([0], [0]))
Te8|einsum("ijk->kj", a3)|np.einsum("ijk->kj", a3)
e6|einsum("ii->i", m[:, 1:5])|np.einsum("ii->i", m[:, 1:5])
e7|einsum("i,j->ij", v, m[1])|np.einsum("i,j->ij", v, m[1])
e8|einsum("ijk->kij", a3)|np.einsum("ijk->kij", a3)
n1|kron(m[:2, :3], m[1:3])|np.kron(m[:2, :3], m[1:3])
n2|kron(v, v[:3].astype("int32"))|np.kron(v, v[:3].astype(np.int32))
n3|kron(v[:2], m)|np.kron(v[:2], m)
z1|digitize(v, [-1, 0, 2.5])|np.digitize(v, [-1, 0, 2.5])
z2|digitize(log(v), [2, 1, 0], right=True)|np.digitize(np.log(v), [2, 1, 0], right=True)
z3|searchsorted([-1, 0, 0, 2.5], m - 3)|np.searchsorted([-1, 0, 0, 2.5], m - 3)
z4|searchsorted([-1, 0, 0, 2.5], v, side="right")|np.searchsorted([-1, 0, 0, 2.5], v, side="right")
L1|array([[1, 2], [3, 4]])|np.array([[1, 2], [3, 4]])
L2|array([1.5, True, 2])|np.array([1.5, True, 2])
L3|array([[True], [False]])|np.array([[True], [False]])
L4|asarray([1, 2, 3], dtype="int8") * v[:3].astype("int8")|np.asarray([1, 2, 3], dtype=np.int8) * v[:3].astype(np.int8)
L5|from_array([[1.0, 2.0, 3.0], [4, 5, 6]], chunks=(1, 2)) + m[:2, :3]|np.array([[1.0, 2.0, 3.0], [4, 5, 6]]) + m[:2, :3]
as1|argsort(m * 7 % 5)|np.argsort(m * 7 % 5, kind="stable")
as2|argsort(a3 % 7, axis=0)|np.argsort(a3 % 7, axis=0, kind="stable")
as3|argsort(a3 * -1, axis=None)|np.argsort(a3 * -1, axis=None, kind="stable")
as4|concatenate([v, v[:2] / 0.0 - v[:2], v[:0]]).argsort()|np.argsort(np.concatenate([v, v[:2] / 0.0 - v[:2], v[:0]]), kind="stable")
as5|argsort(v[:0])|np.argsort(v[:0])
at1|argtopk(m, 2, axis=0)|np.argsort(m, axis=0, kind="stable")[::-1][:2]
at2|v.argtopk(-3)|np.argsort(v, kind="stable")[:3]
pt1|partition(m * 7 % 11, 3)[:, 3]|np.partition(m * 7 % 11, 3)[:, 3]
pt2|sort(partition(a3 % 7, (1, 2), axis=0), axis=0)|np.sort(np.partition(a3 % 7, (1, 2), axis=0), axis=0)
pt3|take(v[::-1].argpartition(4), [4])|np.argpartition(v[::-1], 4)[[4]]
ff1|fftfreq(8, 0.1)|np.fft.fftfreq(8, 0.1)
ff2|np.fft.fftfreq(7, chunks=3)|np.fft.fftfreq(7)
ff3|fft.rfftfreq(9, 2.5)|np.fft.rfftfreq(9, 2.5)
ff4|fftshift(a3)|np.fft.fftshift(a3)
ff5|np.fft.ifftshift(m, axes=1)|np.fft.ifftshift(m, axes=1)
ff6|ifftshift(fftshift(v))|np.fft.ifftshift(np.fft.fftshift(v))
ba1|broadcast_arrays(v, m[:, :1] * 0 + 1)[0]|np.broadcast_arrays(v, m[:, :1] * 0 + 1)[0]
ba2|broadcast_arrays(v[:1], m, a3[:, :, :1])[2]|np.broadcast_arrays(v[:1], m, a3[:, :, :1])[2]
q1|topk(v, 3)|np.sort(v)[::-1][:3]
q2|topk(a3 * -1, -2, axis=1)|np.sort(a3 * -1, axis=1)[:, :2]
q3|m.topk(2, axis=0)|np.sort(m, axis=0)[::-1][:2]
CASES
cases_job

job_each_mode "joins" 3 cases_check

# A literal array is a value of the job, kept across --repeat's runs.
capture out err tsr --repeat=2 eval "sum(array([[1, 2], [3, 4.5]]) * 2)"
[ "$RC" -eq 0 ] && [ "$(tail -1 out)" = "21" ] || soft_fail "array() under --repeat=2: $(cat out err)"

# The chunks, against dask.array's (the same expressions on dask arrays of
# the same chunks), where dask is installed.
X='normal(0, 1, (5, 4, 3), chunks=(2, 3, 2), seed=1)'
M='normal(0, 1, (6, 8), chunks=(4, 3), seed=2)'
V='normal(0, 1, 10, chunks=3, seed=3)'
cat >chunk_cases.txt <<'CASES'
x.reshape(20, 3)|x.reshape(20, 3)
x.reshape(5, 12)|x.reshape(5, 12)
x.reshape(60)|x.reshape(60)
m.reshape(2, 3, 8)|m.reshape(2, 3, 8)
m.reshape(48)|m.reshape(48)
v.reshape(2, 5)|v.reshape(2, 5)
v.reshape(10, 1)|v.reshape(10, 1)
x.reshape(5, 2, 2, 3)|x.reshape(5, 2, 2, 3)
concatenate([x, x[:2]], axis=0)|da.concatenate([x, x[:2]], axis=0)
concatenate([m, m[:, 1:5].rechunk((2, 2))], axis=1)|da.concatenate([m, m[:, 1:5].rechunk((2, 2))], axis=1)
stack([m, m], axis=1)|da.stack([m, m], axis=1)
vstack([v, v])|da.vstack([v, v])
hstack([m, m])|da.hstack([m, m])
roll(v, 4)|da.roll(v, 4)
roll(m, (1, 2), axis=(0, 1))|da.roll(m, (1, 2), axis=(0, 1))
pad(m, 2)|da.pad(m, 2)
pad(m, ((1, 2), (3, 0)), mode="reflect")|da.pad(m, ((1, 2), (3, 0)), mode="reflect")
pad(v, 3, mode="edge")|da.pad(v, 3, mode="edge")
tile(v, 2)|da.tile(v, 2)
repeat(v, 3)|da.repeat(v, 3, axis=0)
repeat(m, 4, axis=1)|da.repeat(m, 4, axis=1)
broadcast_to(v, (4, 10))|da.broadcast_to(v, (4, 10))
broadcast_to(m[:1], (3, 6, 8))|da.broadcast_to(m[:1], (3, 6, 8))
rot90(m)|da.rot90(m)
v[[3, 1, 2, 9, 5, 4]]|v[[3, 1, 2, 9, 5, 4]]
take(m, [7, 0, 1, 2], axis=1)|da.take(m, [7, 0, 1, 2], axis=1)
diag(v, 2)|da.diag(v, 2)
diag(v)|da.diag(v)
outer(v, m[0])|da.outer(v, m[0])
topk(m, 2, axis=0)|da.topk(m, 2, axis=0)
topk(v, -4)|da.topk(v, -4)
argtopk(m, 2, axis=0)|da.argtopk(m, 2, axis=0)
argtopk(v, -4)|da.argtopk(v, -4)
fftshift(x)|da.fft.fftshift(x)
ifftshift(m, axes=1)|da.fft.ifftshift(m, axes=1)
fftfreq(10, chunks=3)|da.fft.fftfreq(10, chunks=3)
rfftfreq(10, chunks=4)|da.fft.rfftfreq(10, chunks=4)
broadcast_arrays(v, m[:, :1])[0]|da.broadcast_arrays(v, m[:, :1])[0]
broadcast_arrays(m[:1], x[:, :1, :1])[1]|da.broadcast_arrays(m[:1], x[:, :1, :1])[1]
CASES
if "$PYNP" -c 'import dask.array' 2>/dev/null; then
  while IFS='|' read -r tex dex; do
    t=$(echo "$tex" | sed "s/\bx\b/$X/g; s/\bm\b/$M/g; s/\bv\b/$V/g")
    capture out err tsr --quiet eval "($t).chunks"
    want=$(DEX="$dex" "$PYNP" -c '
import os, dask.array as da
x = da.ones((5, 4, 3), chunks=(2, 3, 2)); m = da.ones((6, 8), chunks=(4, 3)); v = da.ones(10, chunks=3)
print(tuple(tuple(int(c) for c in a) for a in eval(os.environ["DEX"]).chunks))' 2>&1)
    [ "$RC" -eq 0 ] && [ "$(cat out)" = "$want" ] ||
      soft_fail "chunks of $tex: got '$(cat out) $(cat err)', dask gives '$want'"
  done <chunk_cases.txt
else
  [ -n "${CI:-}" ] && fail "dask.array is not installed (python3-dask): the chunk rules are not checked"
  note "SKIP: dask.array is not installed: the chunk rules are not checked"
fi

# Bad arguments: one error line each, before any work.
one_error_each 'reshape(ones(6), (4, 2))' 'normal(0, 1, (4, 6), chunks=2).reshape(2, 3, 4)' 'reshape(ones(6), (-1, -1))' \
  'reshape(ones(6), (-1, 4))' 'reshape(ones(6), 6, order="F")' 'concatenate([])' \
  'concatenate([ones(3), ones((3, 1))])' 'concatenate([ones((2, 3)), ones((2, 4))])' \
  'concatenate([ones(()), ones(())])' 'concatenate(ones(3))' 'concatenate([ones(3)], axis=1)' \
  'stack([ones(3), ones(4)])' 'stack([ones(3)], axis=2)' 'block([[ones(2)], ones(2)])' \
  'roll(ones(3), (1, 2))' 'roll(ones((2, 2)), (1, 2, 3), axis=(0, 1))' 'roll(ones(3), 1, axis=1)' \
  'rot90(ones(3))' 'rot90(ones((2, 2)), axes=(0, 0))' 'rot90(ones((2, 2)), axes=(0, 2))' \
  'tile(ones(3), -1)' 'pad(ones(3), -1)' 'pad(ones(3), 1, mode="mean")' 'pad(ones(3), 3, mode="reflect")' \
  'pad(ones(3), ((1, 2), (3, 4)))' 'pad(ones(3), 1, mode="edge", constant_values=2)' \
  'repeat(ones((2, 2)), 2)' 'repeat(ones(3), -1)' 'broadcast_to(ones(3), (4,))' 'broadcast_to(ones(3), (2, -3))' \
  'ones(3)[[3]]' 'ones((2, 2))[[0], [1]]' 'ones((2, 3, 4))[0, :, [1]]' 'ones(3)[[True, False, True]]' \
  'take(ones(3), [1.5])' 'diag(ones((2, 2, 2)))' 'inner(ones(3), ones(4))' 'vdot(ones(3), ones(2))' \
  'einsum("ij,jk", ones((2, 3)), ones((2, 3)))' 'einsum("ij", ones(3))' 'einsum("i...", ones(3))' \
  'einsum("ij->k", ones((2, 2)))' 'einsum("i,i", ones(2))' 'einsum("ij->ii", ones((2, 2)))' \
  'einsum("ijkl,lm->ijkm", ones((2, 2, 2, 2)), ones((2, 2)))' 'einsum("ii", ones((2, 3)))' \
  'tensordot(ones((2, 3)), ones((3, 2)))' 'kron(ones((2, 2, 2)), ones(2))' 'digitize(ones(3), [1, 0, 2])' \
  'searchsorted([2, 1], ones(3))' 'searchsorted([1, 2], ones(3), side="middle")' 'topk(ones(3), 4)' \
  'topk(ones(3), 0)' 'norm(ones(3), "fro")' 'array([[1, 2], [3]])' 'array([ones(2)])' 'array(["a"])' \
  'partition(ones(3), 3)' 'argpartition(ones((2, 2)), -3, axis=0)' 'fftfreq(0)' 'fftshift(ones(3), axes=1)' \
  'broadcast_arrays(ones(3), ones(4))' 'argsort(ones(3), kind="bogo")' \
  'cov(ones((2, 2, 2)))' 'cov(ones((2, 3)), ones((2, 4)))' 'corrcoef(ones((2, 2, 2)))' \
  'from_array([1, 2], chunks=(1, 1))' 'norm(ones((2, 2)), 3)' 'norm(ones((2, 2, 2)), 1)' 'norm(ones((2, 2)), axis=(0, 0))'
finish
