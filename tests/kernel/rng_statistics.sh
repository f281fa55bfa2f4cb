#!/bin/sh
# rng_statistics.sh - tessera's random arrays (DESIGN.md, "Random numbers"):
# the right distributions (moments within 6 sigma of the truth, uniforms in
# (low, high]); values that depend only on (seed, stream, element index), not
# on chunking, rank count, fusion or slicing; different seeds differ; and the
# same bits as a second, pure-Python implementation (tests/rng_reference.py).
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"

[ -x "$H5READ" ] || fail "h5read is needed (make check builds it): $H5READ"

# values FILE.h5 NAME: the values of a dataset, one a line (no header).
values() { "$H5READ" "$1" "$2" | sed '1,2d'; }

# ---- 1. moments ---------------------------------------------------------------------

cat >moments.tsr <<'EOF'
z = normal(3, 2, shape=(1000, 1000), chunks=(300, 400), seed=11)
zm = mean(z)
zs = std(z)
zskew = mean(((z - 3) / 2) ** 3)
zkurt = mean(((z - 3) / 2) ** 4)
zf = normal(-1, 0.5, shape=(1000, 1000), chunks=512, seed=14, dtype="float32")
zfm = mean(zf)
zfs = std(zf)
u = uniform(-2, 5, shape=(1000, 1000), chunks=250, seed=12)
umin = min(u)
umax = max(u)
um = mean(u)
uv = var(u)
r = random((1000, 1000), seed=13)
rmin = min(r)
rmax = max(r)
rm = mean(r)
rv = var(r)
d = normal(0, 1, shape=(1000, 1000), chunks=300)
dm = mean(d)
dz = normal(5, 0, shape=(100,), seed=15)
dzs = std(dz)
dzm = mean(dz)
EOF
capture m.out m.err tsr run moments.tsr
[ "$RC" -eq 0 ] || fail "moments job failed: $(cat m.err)"
v() { value_of "$1" m.out; }
# n = 10^6 draws each; sigma of each estimator in the comment.
expect_abs "$(v zm)" 3 0.012 "mean of normal(3, 2) (sigma 0.002)"
expect_abs "$(v zs)" 2 0.0085 "std of normal(3, 2) (sigma 0.0014)"
expect_abs "$(v zskew)" 0 0.015 "skewness of normal (sigma 0.00245)"
expect_abs "$(v zkurt)" 3 0.06 "kurtosis of normal (sigma 0.0098)"
expect_abs "$(v zfm)" -1 0.003 "mean of float32 normal(-1, 0.5) (sigma 0.0005)"
expect_abs "$(v zfs)" 0.5 0.0022 "std of float32 normal(-1, 0.5) (sigma 0.00035)"
expect_abs "$(v um)" 1.5 0.0122 "mean of uniform(-2, 5) (sigma 0.00202)"
expect_abs "$(v uv)" 4.0833333333 0.022 "var of uniform(-2, 5) (sigma 0.00365)"
expect_abs "$(v rm)" 0.5 0.0018 "mean of random (sigma 0.00029)"
expect_abs "$(v rv)" 0.0833333333 0.0018 "var of random (sigma 0.0003)"
expect_abs "$(v dm)" 0 0.006 "mean of normal() with default loc/scale and stream"
expect_eq "$(v dzs)" 0 "std of normal(5, 0)"
expect_eq "$(v dzm)" 5 "mean of normal(5, 0)"
# (low, high]: inside, and 10^6 draws come within 1e-3 of both ends.
awk -v lo="$(v umin)" -v hi="$(v umax)" 'BEGIN { exit !(lo > -2 && lo < -1.999 && hi <= 5 && hi > 4.999) }' ||
  fail "uniform(-2, 5) spans [$(v umin), $(v umax)]"
awk -v lo="$(v rmin)" -v hi="$(v rmax)" 'BEGIN { exit !(lo > 0 && lo < 1e-3 && hi <= 1 && hi > 0.999) }' ||
  fail "random() spans [$(v rmin), $(v rmax)]"

# ---- 2. values do not depend on chunking, ranks or fusion -----------------------------

X='normal(shape=(11, 13), chunks=CH, seed=4)'
i=0
for ch in 7 '(3, 5)' -1 '((1, 10), (13,))' '(11, 1)'; do
  i=$((i + 1))
  e=$(printf '%s' "$X" | sed "s/CH/$ch/")
  capture "eval$i.out" "eval$i.err" tsr eval "$e"
  [ "$RC" -eq 0 ] || fail "eval '$e' failed: $(cat "eval$i.err")"
  cmp -s eval1.out "eval$i.out" || fail "printed values of $e differ from chunks=7:
$(diff eval1.out "eval$i.out" | head)"
  printf 'x = %s\n' "$e" >"chunk$i.tsr"
  capture "chunk$i.out" "chunk$i.err" tsr run "chunk$i.tsr" -o "chunk$i.h5"
  [ "$RC" -eq 0 ] || fail "job with $e failed: $(cat "chunk$i.err")"
  values "chunk$i.h5" x >"chunk$i.txt"
  cmp -s chunk1.txt "chunk$i.txt" || fail "values (%.17g) of $e differ from chunks=7"
done
expect_eq "$(wc -l <chunk1.txt | tr -d ' ')" 143 "number of values of an (11, 13) array"
capture r2.out r2.err mpi_tsr 2 run chunk2.tsr -o r2.h5
[ "$RC" -eq 0 ] || fail "2-rank job failed: $(cat r2.err)"
values r2.h5 x | cmp -s chunk1.txt - || fail "values on 2 ranks differ from 1 rank"
capture nf.out nf.err tsr --no-fuse run chunk2.tsr -o nf.h5
[ "$RC" -eq 0 ] || fail "--no-fuse job failed: $(cat nf.err)"
values nf.h5 x | cmp -s chunk1.txt - || fail "values with --no-fuse differ"

# ---- 3. a pushed-down slice generates exactly the elements the array holds ----------

cat >slice.tsr <<'EOF'
x = normal(shape=(11, 13), chunks=(4, 5), seed=4)
s = x[3:9:2, ::-3]
t = (x * 2 + 1)[3:9:2, ::-3]
w = x[::-1, 2][1::4]
EOF
# Fused only: without fusion a 10^4 x 10^4 chunk is materialized for a corner.
cat >bigslice.tsr <<'EOF'
big = normal(shape=(100000, 100000), chunks=(10000, 10000), seed=6)
corner = big[99990:, 99995:]
corner_rev = big[::-1, ::-1][:10, :5]
EOF
for mode in "" --no-fuse; do
  capture sl.out sl.err tsr $mode run slice.tsr -o sl.h5 --overwrite
  [ "$RC" -eq 0 ] || fail "slice job ${mode:-fused} failed: $(cat sl.err)"
  values sl.h5 x >x.txt
  cmp -s x.txt chunk1.txt || fail "x with chunks (4, 5) differs from chunks=7 (${mode:-fused})"
  values sl.h5 s >s.txt
  values sl.h5 t >t.txt
  values sl.h5 w >w.txt
  # s[i, j] = x[3 + 2 i, 12 - 3 j] for i < 3, j < 5.
  awk 'NR == FNR { x[FNR - 1] = $0; next }
       { i = int((FNR - 1) / 5); j = (FNR - 1) % 5; want = x[(3 + 2 * i) * 13 + 12 - 3 * j]
         if ($0 != want) { printf "s[%d, %d] = %s, x[%d, %d] = %s\n", i, j, $0, 3 + 2 * i, 12 - 3 * j, want; bad = 1 } }
       END { exit bad || FNR != 15 }' x.txt s.txt || fail "x[3:9:2, ::-3] is not the same elements of x (${mode:-fused})"
  # t = 2 x + 1 on the same elements (computed in double, as tessera does).
  awk 'NR == FNR { x[FNR - 1] = $0; next }
       { i = int((FNR - 1) / 5); j = (FNR - 1) % 5; want = sprintf("%.17g", x[(3 + 2 * i) * 13 + 12 - 3 * j] * 2 + 1)
         if ($0 + 0 != want + 0) { printf "t[%d, %d] = %s, want %s\n", i, j, $0, want; bad = 1 } }
       END { exit bad || FNR != 15 }' x.txt t.txt || fail "(2 x + 1)[3:9:2, ::-3] is wrong (${mode:-fused})"
  # w[k] = x[9 - 4 k, 2], k < 3 (rows 9, 5, 1 of column 2, reversed).
  awk 'NR == FNR { x[FNR - 1] = $0; next }
       { k = FNR - 1; want = x[(9 - 4 * k) * 13 + 2]; if ($0 != want) { print "w[" k "] differs"; bad = 1 } }
       END { exit bad || FNR != 3 }' x.txt w.txt || fail "x[::-1, 2][1::4] is wrong (${mode:-fused})"
done
capture big.out big.err tsr run bigslice.tsr -o big.h5
[ "$RC" -eq 0 ] || fail "slices of a 10^5 x 10^5 array failed: $(cat big.err)"
# corner_rev[i, j] = big[99999 - i, 99999 - j] = corner[9 - i, 4 - j].
values big.h5 corner >corner.txt
values big.h5 corner_rev >corner_rev.txt
awk 'NR == FNR { c[FNR - 1] = $0; next }
     { i = int((FNR - 1) / 5); j = (FNR - 1) % 5; if ($0 != c[(9 - i) * 5 + 4 - j]) bad = 1 }
     END { exit bad || FNR != 50 }' corner.txt corner_rev.txt ||
  fail "big[::-1, ::-1][:10, :5] is not corner reversed"

# ---- 4. seeds and streams ----------------------------------------------------------------

cat >seeds.tsr <<'EOF'
a = sum(normal(shape=1000, seed=1))
b = sum(normal(shape=1000, seed=2))
c = sum(normal(shape=1000, seed=1))
p = normal(shape=1000)
q = normal(shape=1000)
pq = sum(abs(p - q))
pp = sum(abs(p - p))
same = sum(abs(normal(shape=50, seed=3) - normal(shape=50, seed=3)))
EOF
capture s0.out s0.err tsr run seeds.tsr
[ "$RC" -eq 0 ] || fail "seeds job failed: $(cat s0.err)"
capture s1.out s1.err tsr --seed=1 run seeds.tsr
capture s2.out s2.err tsr --seed=2 run seeds.tsr
capture s2b.out s2b.err tsr --seed=2 run seeds.tsr
[ "$(value_of a s0.out)" != "$(value_of b s0.out)" ] || fail "seed=1 and seed=2 give the same values"
expect_eq "$(value_of a s0.out)" "$(value_of c s0.out)" "the same seed= twice"
awk -v x="$(value_of pq s0.out)" 'BEGIN { exit !(x > 100) }' ||
  fail "two normal() arrays without seed= are not independent: sum|p - q| = $(value_of pq s0.out)"
expect_eq "$(value_of pp s0.out)" 0 "sum|p - p|"
expect_eq "$(value_of same s0.out)" 0 "two arrays with the same seed="
[ "$(value_of a s1.out)" != "$(value_of a s2.out)" ] || fail "--seed=1 and --seed=2 give the same values"
[ "$(value_of a s0.out)" != "$(value_of a s1.out)" ] || fail "--seed=1 gives the default seed's values"
cmp -s s2.out s2b.out || fail "two runs with --seed=2 differ"

# ---- 5. the same bits as the Python reference ------------------------------------------

if ! need_python; then
  echo "SKIPPED PART: python3 not found: the cross-check against tests/rng_reference.py did not run"
  printf 'PASS: %s (without the Python cross-check)\n' "$TEST_NAME"
  exit 0
fi
REF="python3 $srcdir/tests/rng_reference.py"
out=$($REF --selftest) || fail "rng_reference.py self-test (Philox known answers) failed: $out"

# Streams: seed= when given, else the creation order of the random arrays.
cat >ref.tsr <<'EOF'
a = normal(10, 2, shape=(3, 5), chunks=2, seed=7)
b = uniform(-1, 3, shape=(4, 3))
c = normal(shape=(2, 3), dtype="float32")
d = random((5,), seed=4294967295)
big = normal(-3, 0.5, shape=(100000, 100000), chunks=(10000, 10000), seed=6)
corner = big[99990:, 99995:]
ubig = uniform(shape=(100000, 100000), chunks=(50000, 50000), seed=9)
ucorner = ubig[-3:, 7:9]
EOF

# check_ref H5 NAME KIND KEY STREAM A B TOL F32 INDICES...
check_ref() {
  _h5=$1 _name=$2 _kind=$3 _key=$4 _stream=$5 _a=$6 _b=$7 _tol=$8 _f32=$9
  shift 9
  values "$_h5" "$_name" >tsr.txt
  # shellcheck disable=SC2086
  $REF "$_kind" "$_key" "$_stream" "$_a" "$_b" $_f32 "$@" >ref.txt || fail "rng_reference.py failed"
  awk -v tol="$_tol" -v what="$_name (key $_key, stream $_stream)" '
    NR == FNR { r[FNR] = $0; n = FNR; next }
    {
      if (tol == 0) ok = ($0 == r[FNR])
      else { d = $0 - r[FNR]; if (d < 0) d = -d; m = r[FNR] < 0 ? -r[FNR] : r[FNR]; ok = d <= tol * m }
      if (!ok) { printf "%s[%d]: tessera %s, reference %s\n", what, FNR - 1, $0, r[FNR]; bad++ }
    }
    END { if (FNR != n) { print what ": counts differ"; bad++ } exit bad > 0 }' ref.txt tsr.txt ||
    fail "$_name differs from the Python reference"
  note "$_name: $# values match the reference (tolerance $_tol)"
}

seq_n() { awk -v a="$1" -v n="$2" 'BEGIN { for (i = 0; i < n; i++) print a + i }'; }
# Linear indices of big[99990:, 99995:] and ubig[-3:, 7:9] in the 10^5 x 10^5 arrays.
corner_idx=$(awk 'BEGIN { for (i = 99990; i < 100000; i++) for (j = 99995; j < 100000; j++) printf "%.0f\n", i * 100000 + j }')
ucorner_idx=$(awk 'BEGIN { for (i = 99997; i < 100000; i++) for (j = 7; j < 9; j++) printf "%.0f\n", i * 100000 + j }')

for seed in 0 12345 18446744073709551615; do
  for ranks in 1 2; do
    if [ "$ranks" = 1 ]; then
      capture ref.out ref.err tsr --seed="$seed" run ref.tsr -o ref.h5 --overwrite
    else
      capture ref.out ref.err mpi_tsr 2 --seed="$seed" run ref.tsr -o ref.h5 --overwrite
    fi
    [ "$RC" -eq 0 ] || fail "reference job (--seed=$seed, $ranks ranks) failed: $(cat ref.err)"
    note "--seed=$seed, $ranks rank(s):"
    check_ref ref.h5 a normal "$seed" 7 10 2 1e-14 "" $(seq_n 0 15)
    check_ref ref.h5 b uniform "$seed" 1 -1 3 0 "" $(seq_n 0 12)
    check_ref ref.h5 c normal "$seed" 2 0 1 1.2e-7 --f32 $(seq_n 0 6)
    check_ref ref.h5 d uniform "$seed" 4294967295 0 1 0 "" $(seq_n 0 5)
    check_ref ref.h5 corner normal "$seed" 6 -3 0.5 1e-14 "" $corner_idx
    check_ref ref.h5 ucorner uniform "$seed" 9 0 1 0 "" $ucorner_idx
  done
done

printf 'PASS: %s\n' "$TEST_NAME"
