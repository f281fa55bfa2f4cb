#!/bin/sh
# split.sh - no expression is refused for its size: a fused program larger
# than the backend runs (the CUDA backend: 8 leaves, 32 operations, 40
# registers) is split into parts by the backend wrappers, each cut register
# one more box of backend memory per box evaluated. TESSERA_PROGRAM_LIMIT
# gives the CPU backend such limits, so that splitting is tested here:
#   - long expressions (many leaves, deep chains of constants, broadcasting,
#     slices, float32, reductions over all axes and over one, var and std, a
#     rechunk, a load and a persisted array inside) give bitwise the values
#     of the unsplit fused run, under the least limits (2 leaves, 3
#     operations), the GPU's and others, on 1 and 3 ranks, and with
#     --no-fuse;
#   - the parts show in the trace ("split part" spans), and only where a
#     program exceeds the limits.
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"

TIMEOUT=180
[ -x "$H5TOOL" ] || fail "h5tool is needed (make check builds it): $H5TOOL"
[ -x "$H5READ" ] || fail "h5read is needed (make check builds it): $H5READ"
"$H5TOOL" write in.h5 /x f8 300,200 chunks=70,33 seed=9

# A chain of 40 operations on one leaf, each with its own constant (the
# registers, not the leaves, are what exceed the GPU's limits), and a sum
# of 20 leaves.
chain=x
wide=y
i=1
while [ $i -le 40 ]; do
  chain="($chain * 0.9 + $i)"
  [ $((i % 8)) -eq 0 ] && chain="sin($chain)"
  [ $i -le 19 ] && wide="$wide + x[::-1, :] * $i"
  i=$((i + 1))
done

cat >job.tsr <<EOF
x = normal(shape=(300, 200), chunks=(64, 50), seed=7)
y = uniform(-1, 1, shape=(300, 200), chunks=(100, 200), seed=8)
z = load("in.h5", "/x", chunks=(128, 100))
r = rechunk(x, (100, 30))
v = arange(200, chunks=64) * 0.01
h = persist(x * 0.5 - y)
f = normal(shape=(300, 200), chunks=(64, 50), seed=9, dtype="float32")
# more leaves than the GPU's 8 (its refusal named 9 leaves, 26 operations)
e = (x * 2 + y - 1) * (z + 0.5) - abs(r) * v + sqrt(abs(x[::-1, :] + y)) / (1 + exp(-z ** 2)) + tanh(h) - maximum(r, y)
s1 = sum(e)
s2 = mean(e[::3, 1::2])
s3 = var(e, ddof=1)
s4 = std(e, axis=0)
s5 = sum(e * f, axis=1)[::7]
s6 = max((e - f * 2).astype(float32) + f)
s7 = e[5:9, 10:14]
s8 = mean($chain)
s9 = sum($wide, axis=0)
s10 = sum(x[:, :1] * v + y[:1, :] * (x - h) / (2 + abs(z[::-1, ::-1])) + f[::2, :].sum(axis=0) * r)
s11 = min(e[::-2, ::5] * e[1::2, ::5] - f[::2, ::5])
EOF
NAMES="s1 s2 s3 s4 s5 s6 s7 s8 s9 s10 s11"

# run_mode NAME LIMIT CMD...: the job with TESSERA_PROGRAM_LIMIT=LIMIT ("":
# none), every result dumped as text.
run_mode() {
  _n=$1 _lim=$2
  shift 2
  TESSERA_PROGRAM_LIMIT=$_lim
  export TESSERA_PROGRAM_LIMIT
  capture "$_n.out" "$_n.err" "$@" run job.tsr -o "$_n.h5"
  unset TESSERA_PROGRAM_LIMIT
  [ "$RC" -eq 0 ] || fail "job ($_n, limit '$_lim') failed ($RC): $(cat "$_n.err")"
  for d in $NAMES; do
    echo "== $d"
    "$H5READ" "$_n.h5" "$d" || fail "$_n.h5 lacks '$d'"
  done >"$_n.dump"
}

# same A B WHAT: the dumps are bitwise equal.
same() {
  cmp -s "$1.dump" "$2.dump" || soft_fail "$3: $(diff "$1.dump" "$2.dump" | head -6)"
}

run_mode whole "" tsr
for lim in 2,3 8,32,40 3,7,4 5,12; do
  run_mode "one_$lim" "$lim" tsr
  same whole "one_$lim" "split at $lim on 1 rank"
done
run_mode three "" mpi_tsr 3
same whole three "unsplit on 3 ranks"
run_mode three_least 2,3 mpi_tsr 3
same whole three_least "split at 2,3 on 3 ranks"
run_mode three_gpu 8,32,40 mpi_tsr 3
same whole three_gpu "split at the GPU's limits on 3 ranks"
# --no-fuse runs one operation a program, except where it reads a fused
# source (a rechunk's pieces, a persisted array): those split too.
run_mode nofuse "" tsr --no-fuse
run_mode nofuse_least 2,3 tsr --no-fuse
same nofuse nofuse_least "--no-fuse split at 2,3"

# The parts are traced, and nothing splits a program that fits.
E='sum((normal(shape=(100, 80), chunks=(30, 40), seed=1) * 2 + uniform(shape=(100, 80), chunks=(30, 40), seed=2) - 1) * arange(80))'
export TESSERA_PROGRAM_LIMIT=2,3
capture t.out t.err tsr --backend=cpu eval --trace t.json "$E"
[ "$RC" -eq 0 ] || fail "eval --trace under a limit failed: $(cat t.err)"
grep -q '"split part"' t.json || soft_fail "no split part in the trace of a split program"
TESSERA_PROGRAM_LIMIT=8,32
capture u.out u.err tsr --backend=cpu eval --trace u.json "$E"
unset TESSERA_PROGRAM_LIMIT
[ "$RC" -eq 0 ] || fail "eval --trace under the GPU's limit failed: $(cat u.err)"
grep -q '"split part"' u.json && soft_fail "a program within the limits was split"
expect_eq "$(cat t.out)" "$(cat u.out)" "the traced sum, split and not"

finish
printf 'PASS: %s\n' "$TEST_NAME"
