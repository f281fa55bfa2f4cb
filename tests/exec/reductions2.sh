#!/bin/sh
# reductions2.sh - the reductions of issue 28 item 4 (kernel/red_table.h's
# rows prod, nanprod, any, all, argmax, argmin, nanargmax, nanargmin,
# count_nonzero) against NumPy on ragged multi-chunk arrays, chunks of one
# element, ties, NaN and +-inf (nanargmax of NaN and -inf only: the first
# of them, as NumPy's), axis None/0/1/-1, keepdims and methods:
# exactly (their values are exact here: counts, indices, 0/1, products of
# +-1, +-2 and powers of two), nanprod within 1e-13; the
# results bitwise equal on 1 and 3 ranks, with --no-fuse and with programs
# split (TESSERA_PROGRAM_LIMIT); empty and
# all-NaN slices are one error each. Values are compared as numbers (the
# printing of integer and bool dtypes is not checked here).
# Needs python3 with numpy and h5py: skipped without them, failed in CI.
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"

TIMEOUT=120
need_numpy

cat >cases.txt <<'EOF2'
pr1|prod(p)|np.prod(p)
pr2|prod(p, axis=0)|np.prod(p, axis=0)
pr3|p.prod(axis=-1, keepdims=True)|np.prod(p, axis=-1, keepdims=True)
pr4|prod(u, axis=1)|np.prod(u, axis=1)
pr5|prod(s, axis=1)|np.prod(s, axis=1)
pr6|prod(p.astype("int32"), axis=1)|np.prod(p.astype(np.int32), axis=1)
pr7|prod(v, keepdims=True)|np.prod(v, keepdims=True)
pr8|p.prod()|np.prod(p)
np1|nanprod(e, axis=0)|np.nanprod(e, axis=0)
np2|nanprod(e, axis=1, keepdims=True)|np.nanprod(e, axis=1, keepdims=True)
np3|nanprod(e)|np.nanprod(e)
np4|nanprod(y, axis=0)|np.nanprod(y, axis=0)
np5|nanprod(w)|np.nanprod(w)
np6|nanprod(sqrt(p), axis=-1)|np.nanprod(np.sqrt(p), axis=-1)
an1|any(x)|np.any(x)
an2|any(greater(x, 2), axis=0)|np.any(x > 2, axis=0)
an3|greater(x, 2).any(axis=-1, keepdims=True)|np.any(x > 2, axis=-1, keepdims=True)
an4|any(y, axis=1)|np.any(y, axis=1)
an5|any(greater(c, 1), axis=0)|np.any(c > 1, axis=0)
an6|x.any()|np.any(x)
al1|all(x)|np.all(x)
al2|all(x, axis=0)|np.all(x, axis=0)
al3|u.all(axis=1, keepdims=True)|np.all(u, axis=1, keepdims=True)
al4|all(y, axis=1)|np.all(y, axis=1)
al5|all(t, axis=1)|np.all(t, axis=1)
al6|all(greater(t, -1))|np.all(t > -1)
am1|argmax(x)|np.argmax(x)
am2|argmax(x, axis=0)|np.argmax(x, axis=0)
am3|x.argmax(axis=1)|np.argmax(x, axis=1)
am4|argmax(y)|np.argmax(y)
am5|argmax(y, axis=0)|np.argmax(y, axis=0)
am6|argmax(u, axis=-1, keepdims=True)|np.argmax(u, axis=-1, keepdims=True)
am7|argmax(t)|np.argmax(t)
am8|argmax(t, axis=1)|np.argmax(t, axis=1)
am9|argmax(c, axis=0)|np.argmax(c, axis=0)
am10|argmax(v)|np.argmax(v)
am11|argmax(s, axis=1)|np.argmax(s, axis=1)
am12|argmax(u, keepdims=True)|np.argmax(u, keepdims=True)
am13|argmax(w, axis=0)|np.argmax(w, axis=0)
ai1|argmin(x)|np.argmin(x)
ai2|argmin(x, axis=0)|np.argmin(x, axis=0)
ai3|x.argmin(axis=-1)|np.argmin(x, axis=-1)
ai4|argmin(y, axis=1)|np.argmin(y, axis=1)
ai5|argmin(u)|np.argmin(u)
ai6|argmin(t, axis=2, keepdims=True)|np.argmin(t, axis=2, keepdims=True)
ai7|argmin(c)|np.argmin(c)
ai8|argmin(q, axis=0)|np.argmin(q, axis=0)
na1|nanargmax(q)|np.nanargmax(q)
na2|nanargmax(q, axis=0)|np.nanargmax(q, axis=0)
na3|nanargmax(q, axis=1, keepdims=True)|np.nanargmax(q, axis=1, keepdims=True)
na4|nanargmin(q)|np.nanargmin(q)
na5|nanargmin(q, axis=-1)|np.nanargmin(q, axis=-1)
na6|nanargmin(u, axis=0)|np.nanargmin(u, axis=0)
na7|nanargmax(w)|np.nanargmax(w)
na8|nanargmin(y, axis=1)|np.nanargmin(y, axis=1)
na9|nanargmax(z)|np.nanargmax(z)
na10|nanargmax(z, axis=0)|np.nanargmax(z, axis=0)
na11|nanargmin(-z, axis=1, keepdims=True)|np.nanargmin(-z, axis=1, keepdims=True)
na12|nanargmax(log(arange(-1, 1, dtype=float64)))|np.nanargmax(np.log(np.arange(-1.0, 1.0)))
na13|nanargmin(-z[:, ::-1], axis=1)|np.nanargmin(-z[:, ::-1], axis=1)
cn1|count_nonzero(x)|np.count_nonzero(x)
cn2|count_nonzero(x, axis=0)|np.count_nonzero(x, axis=0)
cn3|count_nonzero(y, axis=1, keepdims=True)|np.count_nonzero(y, axis=1, keepdims=True)
cn4|count_nonzero(t, axis=-1)|np.count_nonzero(t, axis=-1)
cn5|count_nonzero(c)|np.count_nonzero(c)
cn6|count_nonzero(v, axis=0)|np.count_nonzero(v, axis=0)
EOF2
cat >job.tsr <<'EOF2'
x = floor(uniform(0, 4, (37, 23), chunks=(10, 7), seed=1))
y = log(floor(uniform(-1, 4, (37, 23), chunks=(10, 7), seed=2)))
u = 1 / floor(uniform(-1, 3, (37, 23), chunks=(10, 7), seed=3))
s = floor(uniform(0, 3, (5, 9), chunks=(1, 4), seed=4))
c = floor(uniform(0, 3, (5, 9), chunks=1, seed=5))
t = floor(uniform(0, 3, (5, 6, 7), chunks=(2, 4, 3), seed=6))
p = floor(uniform(1, 3, (6, 7), chunks=(4, 3), seed=7)) * (1 - 2 * floor(uniform(0, 2, (6, 7), chunks=(4, 3), seed=8)))
q = log(floor(uniform(-0.3, 4, (37, 23), chunks=(10, 7), seed=9)))
v = floor(uniform(0, 3, 101, chunks=17, seed=10))
w = log(floor(uniform(-0.5, 2, 61, chunks=((1, 20, 40),), seed=11)))
e = sqrt(floor(uniform(-1, 3, (37, 23), chunks=(10, 7), seed=12)) + 0.5)
z = log(floor(uniform(-1, 1, (37, 23), chunks=(10, 7), seed=13)))
EOF2
while IFS='|' read -r name expr _; do echo "$name = $expr"; done <cases.txt >>job.tsr

check() { # WHAT FILE
  "$PYNP" - "$2" <<'PY' || soft_fail "$1: values differ from NumPy"
import h5py, numpy as np, sys, warnings
warnings.simplefilter("ignore")
f = h5py.File(sys.argv[1], "r")
g = {k: f[k][()] for k in ("x", "y", "u", "s", "c", "t", "p", "q", "v", "w", "e", "z")}
bad = []
for line in open("cases.txt"):
    name, _, expr = line.rstrip("\n").split("|")
    want = np.asarray(eval(expr, {"np": np, **g})).astype(np.float64)
    got = np.asarray(f[name][()]).astype(np.float64)
    ok = got.shape == want.shape and (
        np.allclose(got, want, rtol=1e-13, atol=0, equal_nan=True) if name.startswith("np")
        else np.array_equal(got, want, equal_nan=True))
    if not ok:
        bad.append(name)
        print(name, got.shape, want.shape, got.ravel()[:6], want.ravel()[:6])
sys.exit(bool(bad))
PY
}
tsr run job.tsr -o one.h5 >/dev/null 2>err || fail "1 rank: $(tail -3 err)"
check "1 rank" one.h5
mpi_tsr 3 run job.tsr -o three.h5 >/dev/null 2>err || fail "3 ranks: $(tail -3 err)"
check "3 ranks" three.h5
same_bits "1 and 3 ranks" one.h5 three.h5
tsr --no-fuse run job.tsr -o nf.h5 >/dev/null 2>err || fail "--no-fuse: $(tail -3 err)"
check "--no-fuse" nf.h5
same_bits "fused and --no-fuse" one.h5 nf.h5
TESSERA_PROGRAM_LIMIT=2,3 tsr run job.tsr -o split.h5 >/dev/null 2>err ||
  fail "split programs: $(tail -3 err)"
same_bits "whole and split programs" one.h5 split.h5

# numbers: the one-element reduction
for e in 'argmax(3.5)|0' 'prod(2.5)|2.5' 'nanprod(log(-1))|1' 'count_nonzero(0)|0' \
  'all(ones((0, 2)))|1' 'any(ones((0, 2)))|0' 'prod(ones((2, 0)))|1' 'count_nonzero(ones(0))|0'; do
  got=$(tsr eval "${e%|*}" 2>&1) || soft_fail "${e%|*}: $got"
  [ "$(echo "$got" | sed 's/^True$/1/; s/^False$/0/; s/\.0*$//')" = "${e#*|}" ] ||
    soft_fail "${e%|*}: $got, expected ${e#*|}"
done

# empty reductions without an identity, ddof= where the row takes none, a
# bad axis; an all-NaN slice of nanargmax/nanargmin fails when computed
one_error_each 'argmax(ones((0, 3)))' 'argmin(ones((3, 0)), axis=1)' 'nanargmax(ones(0))' \
  'prod(ones(3), ddof=1)' 'argmax(ones((2, 3)), axis=2)' 'any(ones((2, 3)), axis=-3)' \
  'nanargmin(log(-ones((3, 4), chunks=2)), axis=0)'
capture out err tsr eval 'nanargmax(log(-ones((3, 4), chunks=2)), axis=1)'
grep -q 'All-NaN slice' err || soft_fail "nanargmax of all-NaN rows: $(cat err)"
printf 'z = nanargmin(log(floor(uniform(0, 1, (6, 5), chunks=(2, 2), seed=3)) - 1), axis=0)\n' >nan.tsr
capture out err mpi_tsr 3 run nan.tsr -o nan.h5
[ "$RC" -ne 0 ] && grep -q 'All-NaN slice' err || soft_fail "3 ranks, all-NaN: status $RC: $(tail -3 err)"
finish
