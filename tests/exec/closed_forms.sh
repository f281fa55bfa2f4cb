#!/bin/sh
# closed_forms.sh - results of deterministic arrays against expectations
# computed independently here: closed forms (sums of ones and of arange,
# moments of arange), brute-force loops in awk over Python's slice rules,
# per-element formulas for axis reductions and broadcasting, and Python's
# math module (or awk's libm) for elementwise functions.
#
# Each group of cases is one job file (one tessera run); every case is a
# top-level name whose printed value (%.17g) is compared with its expectation.
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"

# ---- case collection ----------------------------------------------------------

# add NAME EXPR EXPECTED [RELTOL]: a case of the current group (RELTOL 0: exact).
add() {
  printf '%s = %s\n' "$1" "$2" >>job.tsr
  printf '%s %s %s\n' "$1" "$3" "${4:-0}" >>want.txt
  printf '%s\n' "$2" >>"exprs.txt"
}

begin_group() {
  GROUP=$1
  : >job.tsr
  : >want.txt
  : >exprs.txt
}

# Runs the group's job (on NP ranks when given) and checks every case in one
# awk pass: exact cases must print the same text or the same number.
end_group() {
  if [ -n "${1:-}" ]; then
    capture out err mpi_tsr "$1" run job.tsr
  else
    capture out err tsr run job.tsr
  fi
  [ "$RC" -eq 0 ] || fail "group '$GROUP': tessera run failed ($RC): $(cat err)
job:
$(cat job.tsr)"
  awk -v group="$GROUP" -v test="$TEST_NAME" '
    function num(x) { return x ~ /^[-+]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][-+]?[0-9]+)?$/ }
    function close_enough(g, w, t,   d, m) {
      if (g == w) return 1
      if (!num(g) || !num(w)) return 0
      g += 0; w += 0
      d = g - w; if (d < 0) d = -d
      m = g < 0 ? -g : g; if (w > m) m = w; if (-w > m) m = -w
      return d <= t * m
    }
    FILENAME == ARGV[1] { i = index($0, " = "); if (i) got[substr($0, 1, i - 1)] = substr($0, i + 3); next }
    FILENAME == ARGV[2] { expr[FNR] = $0; next }
    {
      n++
      if (!($1 in got)) { printf "FAIL: %s: %s: %s: no value printed\n", test, group, expr[FNR]; bad++; next }
      if (!close_enough(got[$1], $2, $3 + 0)) {
        printf "FAIL: %s: %s: %s = %s, expected %s%s\n", test, group, expr[FNR], got[$1], $2, \
          ($3 + 0 > 0) ? " (rel. tol. " $3 ")" : ""
        bad++
      }
    }
    END { printf "# %s: %d cases, %d failed\n", group, n, bad; exit bad > 0 }
  ' out exprs.txt want.txt || FAILURES=$((FAILURES + 1))
}

# calc AWK-EXPR: a number computed by awk, printed with %.17g.
calc() { awk "BEGIN { printf \"%.17g\\n\", ($1) }"; }

# Python's slice rules (CPython's PySlice_AdjustIndices) over 0..n-1, then
# a chained second slice; prints "count sum sum_of_squares" of the indices.
# Arguments: n a b s [a2 b2 s2]; empty means None.
slice_stats() {
  awk -v n="$1" -v a="$2" -v b="$3" -v s="$4" -v a2="${5-}" -v b2="${6-}" -v s2="${7-}" -v chain="${5+x}" '
  function take(len, src, a, b, s, dst,    lo, hi, st, sp, i, k) {
    if (s == "") s = 1; s += 0
    if (s > 0) { lo = 0; hi = len } else { lo = -1; hi = len - 1 }
    if (a == "") st = (s > 0) ? lo : hi
    else { st = a + 0; if (st < 0) { st += len; if (st < lo) st = lo } else if (st > hi) st = hi }
    if (b == "") sp = (s > 0) ? hi : lo
    else { sp = b + 0; if (sp < 0) { sp += len; if (sp < lo) sp = lo } else if (sp > hi) sp = hi }
    k = 0
    for (i = st; (s > 0) ? i < sp : i > sp; i += s) dst[k++] = src[i]
    return k
  }
  BEGIN {
    for (i = 0; i < n; i++) all[i] = i
    k = take(n, all, a, b, s, one)
    if (chain != "") k = take(k, one, a2, b2, s2, two)
    else for (i = 0; i < k; i++) two[i] = one[i]
    sum = 0; sq = 0
    for (i = 0; i < k; i++) { sum += two[i]; sq += two[i] * two[i] }
    printf "%d %.17g %.17g\n", k, sum, sq
  }'
}

# slice text "a:b:s" from possibly empty parts.
slice_text() {
  if [ -n "$3" ]; then printf '%s:%s:%s' "$1" "$2" "$3"; else printf '%s:%s' "$1" "$2"; fi
}

# ---- 1. sum(ones) = product of the shape, for many chunkings ---------------------

begin_group "sum of ones"
i=0
for spec in \
  "(17,)|(5,)|17" "(17,)|(1,)|17" "(17,)|(17,)|17" "(17,)|(100,)|17" "(17,)|((3, 10, 4),)|17" \
  "(17, 23)|(5, 7)|391" "(17, 23)|(17, 1)|391" "(17, 23)|((1, 15, 1), (22, 1))|391" \
  "(17, 23)|(-1, 4)|391" "(17, 23)|4|391" "(17, 23)|\"auto\"|391" "(17, 23)|None|391" \
  "(5, 6, 7)|(2, 5, 3)|210" "(5, 6, 7)|((2, 3), (1, 1, 4), (7,))|210" \
  "(3, 4, 5, 6)|(2, 3, 4, 5)|360" "(3, 4, 5, 6)|1|360" \
  "(1000, 999)|(333, 101)|999000" "(0, 5)|(3, 2)|0" "(4, 0)|2|0" "()|()|1" \
  "(1, 1)|1|1" "(2049, 3)|(1024, 1)|6147"; do
  shape=${spec%%|*}
  rest=${spec#*|}
  chunks=${rest%%|*}
  want=${rest#*|}
  i=$((i + 1))
  if [ "$chunks" = None ]; then
    add "ones$i" "sum(ones($shape))" "$want"
  else
    add "ones$i" "sum(ones($shape, chunks=$chunks))" "$want"
  fi
  add "ones32_$i" "sum(ones($shape, chunks=$chunks, dtype=\"float32\"))" "$want"
  add "full$i" "sum(full($shape, 2.5, chunks=$chunks))" "$(calc "2.5 * $want")"
  add "zeros$i" "sum(zeros($shape, chunks=$chunks))" 0
  add "size$i" "ones($shape, chunks=$chunks).size" "$want"
done
end_group

# ---- 2. arange: sums, moments, extremes ---------------------------------------------

begin_group "arange closed forms"
i=0
for spec in "1 1" "2 1" "10 3" "100 7" "1000 1000" "1001 10" "65536 4096" "10000000 999983"; do
  set -- $spec
  n=$1 c=$2
  i=$((i + 1))
  add "sum$i" "sum(arange($n, chunks=$c))" "$(calc "$n * ($n - 1) / 2")"
  add "mean$i" "mean(arange($n, chunks=$c))" "$(calc "($n - 1) / 2")" 1e-15
  add "min$i" "min(arange($n, chunks=$c))" 0
  add "max$i" "max(arange($n, chunks=$c))" "$((n - 1))"
  add "var$i" "var(arange($n, chunks=$c))" "$(calc "($n * $n - 1) / 12")" 1e-12
  add "std$i" "std(arange($n, chunks=$c))" "$(calc "sqrt(($n * $n - 1) / 12)")" 1e-12
  if [ "$n" -gt 1 ]; then
    add "var1_$i" "var(arange($n, chunks=$c), ddof=1)" "$(calc "$n * ($n + 1) / 12")" 1e-12
    add "std1_$i" "arange($n, chunks=$c).std(ddof=1)" "$(calc "sqrt($n * ($n + 1) / 12)")" 1e-12
  fi
  add "msum$i" "arange($n, chunks=$c).sum()" "$(calc "$n * ($n - 1) / 2")"
  # Shifted and scaled: mean and var follow exactly.
  add "affmean$i" "mean(arange($n, chunks=$c) * 3 - 1000.5)" "$(calc "3 * ($n - 1) / 2 - 1000.5")" 1e-13
  add "affvar$i" "var(arange($n, chunks=$c) * 3 - 1000.5)" "$(calc "9 * ($n * $n - 1) / 12")" 1e-12
done
# arange(start, stop, step) with fractional and negative steps: count and sum
# from the definition (ceil((stop - start) / step) elements).
i=0
for spec in "0 10 0.5 3" "5 -5 -1 4" "2.5 100 7 2" "-3 3 0.25 5" "10 0 -3 2" "1 2 0.1 4"; do
  set -- $spec
  i=$((i + 1))
  cnt=$(awk -v a="$1" -v b="$2" -v s="$3" 'BEGIN { c = (b - a) / s; n = int(c); if (n < c) n++; if (n < 0) n = 0; print n }')
  add "rcount$i" "arange($1, $2, $3, chunks=$4).size" "$cnt"
  add "rsum$i" "sum(arange($1, $2, $3, chunks=$4))" \
    "$(awk -v a="$1" -v s="$3" -v n="$cnt" 'BEGIN { t = 0; for (k = 0; k < n; k++) t += a + s * k; printf "%.17g\n", t }')" 1e-13
  add "rfirst$i" "arange($1, $2, $3, chunks=$4)[0]" "$(calc "$1")"
  add "rlast$i" "arange($1, $2, $3, chunks=$4)[-1]" "$(calc "$1 + $3 * ($cnt - 1)")" 1e-15
done
# Poorly conditioned moments (dask's test_moment): rows 1e8, 1e8 + 1, 1e8 + 2
# over 30 columns in chunks of 5 (std sqrt(2/3), var 2/3 over each column),
# and 1 .. 121 as 11 x 11 in chunks of 4 (each row's var (11^2 - 1) / 12).
big='(arange(30, chunks=5) * 0 + arange(3, chunks=2)[:, None] + 1e8)'
add "mstd" "std($big)" "$(calc "sqrt(2 / 3)")" 1e-12
add "mvar0" "sum(var($big, axis=0))" "$(calc "30 * 2 / 3")" 1e-12
add "mvar1" "max(var($big, axis=1))" 0
add "mvar11" "sum(var(arange(11, chunks=4)[:, None] * 11 + arange(11, chunks=4) + 1, axis=1))" "$(calc "11 * 120 / 12")" 1e-12
end_group

# ---- 3. slices of arange (brute-force index sets) -----------------------------------

begin_group "slices"
i=0
# n:chunks:start:stop:step  (empty = None)
for spec in \
  "37:5:3:30:4" "37:5:::-1" "37:5:-5:2:-3" "37:5:100:-100:-7" "37:5::5:-2" "37:5:-1:-38:-1" \
  "37:5:::2" "37:5:1::2" "37:5:::-2" "37:5:-2::-2" "37:4:10:10:" "37:4:30:10:" "37:4:30:10:-1" \
  "37:37:::-37" "37:1:::-36" "37:6:-100:100:" "37:6:-100:100:-1" "100:7:99:0:-13" "100:7:0:99:13" \
  "1000:64:3:997:7" "1000:64:-3:3:-11" "1000:1000:::-1" "1:1:::-1" "5:2:::-3"; do
  IFS=: read -r n c a b s <<EOF
$spec
EOF
  i=$((i + 1))
  set -- $(slice_stats "$n" "$a" "$b" "$s")
  sl=$(slice_text "$a" "$b" "$s")
  add "s$i" "sum(arange($n, chunks=$c)[$sl])" "$2"
  add "c$i" "arange($n, chunks=$c)[$sl].size" "$1"
  [ "$1" -gt 0 ] && add "q$i" "sum(arange($n, chunks=$c)[$sl] ** 2)" "$3"
done
# Chained slices compose (n:chunks:a:b:s:a2:b2:s2).
for spec in "50:7:3:45:2:::-1" "50:7:::-3:1:-1:2" "50:7:-1:0:-2:5::-4" "64:8:10::3:-2:1:-3" "30:4:::-1:::-1"; do
  IFS=: read -r n c a b s a2 b2 s2 <<EOF
$spec
EOF
  i=$((i + 1))
  set -- $(slice_stats "$n" "$a" "$b" "$s" "$a2" "$b2" "$s2")
  add "chain$i" "sum(arange($n, chunks=$c)[$(slice_text "$a" "$b" "$s")][$(slice_text "$a2" "$b2" "$s2")])" "$2"
  add "chaincnt$i" "arange($n, chunks=$c)[$(slice_text "$a" "$b" "$s")][$(slice_text "$a2" "$b2" "$s2")].size" "$1"
done
# 2-d: M[i, j] = 1000 i + j, sliced on both axes; sum = 1000 |J| sum(I) + |I| sum(J).
for spec in "23:31:5:7:2:20:3:::-2" "23:31:4:4:::-1:-3:2:-5" "23:31:23:1:-1:0:-4:5:30:" "40:40:6:9:::7:::-9"; do
  IFS=: read -r R C cr cc a b s a2 b2 s2 <<EOF
$spec
EOF
  i=$((i + 1))
  set -- $(slice_stats "$R" "$a" "$b" "$s")
  ni=$1 si=$2
  set -- $(slice_stats "$C" "$a2" "$b2" "$s2")
  nj=$1 sj=$2
  add "m$i" "sum((arange($R, chunks=$cr)[:, None] * 1000 + arange($C, chunks=$cc))[$(slice_text "$a" "$b" "$s"), $(slice_text "$a2" "$b2" "$s2")])" \
    "$(calc "1000 * $nj * $si + $ni * $sj")"
done
# Integer indexing (negative too) and indexing after a slice.
add "idx1" "arange(37, chunks=5)[-1]" 36
add "idx2" "arange(37, chunks=5)[::-3][4]" 24
add "idx3" "(arange(7, chunks=3)[:, None] * 10 + arange(5, chunks=2))[-2, 3]" 53
add "idx4" "(arange(7, chunks=3)[:, None] * 10 + arange(5, chunks=2))[5][::-1][1]" 53
end_group

# ---- 4. axis reductions of M[i, j] = 10 i + j -------------------------------------

# expect_tokens EXPR EXPECTED... : the printed array's numbers equal these.
expect_tokens() {
  _e=$1
  shift
  capture out err tsr eval "$_e"
  [ "$RC" -eq 0 ] || fail "eval '$_e' failed: $(cat err)"
  got=$(array_tokens out | tr '\n' ' ')
  want=$(for w in "$@"; do printf '%s ' "$w"; done)
  [ "$got" = "$want" ] || fail "eval '$_e' printed numbers '$got', expected '$want'"
}

R=7 C=5
M="(arange($R, chunks=3)[:, None] * 10 + arange($C, chunks=2))"
begin_group "axis reductions"
j=0
while [ "$j" -lt "$C" ]; do
  add "s0_$j" "sum($M, axis=0)[$j]" "$(calc "10 * $R * ($R - 1) / 2 + $R * $j")"
  add "m0_$j" "mean($M, axis=0)[$j]" "$(calc "10 * ($R - 1) / 2 + $j")" 1e-15
  add "x0_$j" "max($M, axis=0)[$j]" "$(calc "10 * ($R - 1) + $j")"
  add "n0_$j" "min($M, axis=0)[$j]" "$j"
  add "v0_$j" "var($M, axis=0)[$j]" "$(calc "100 * ($R * $R - 1) / 12")" 1e-13
  add "d0_$j" "std($M, axis=0, ddof=1)[$j]" "$(calc "10 * sqrt($R * ($R + 1) / 12)")" 1e-13
  add "k0_$j" "sum($M, axis=0, keepdims=True)[0, $j]" "$(calc "10 * $R * ($R - 1) / 2 + $R * $j")"
  j=$((j + 1))
done
i=0
while [ "$i" -lt "$R" ]; do
  add "s1_$i" "sum($M, axis=1)[$i]" "$(calc "10 * $i * $C + $C * ($C - 1) / 2")"
  add "sm1_$i" "sum($M, axis=-1)[$i]" "$(calc "10 * $i * $C + $C * ($C - 1) / 2")"
  add "m1_$i" "mean($M, axis=1)[$i]" "$(calc "10 * $i + ($C - 1) / 2")" 1e-15
  add "x1_$i" "max($M, axis=1)[$i]" "$(calc "10 * $i + $C - 1")"
  add "n1_$i" "min($M, axis=1)[$i]" "$(calc "10 * $i")"
  add "v1_$i" "var($M, axis=1)[$i]" "$(calc "($C * $C - 1) / 12")" 1e-13
  add "k1_$i" "sum($M, axis=1, keepdims=True)[$i, 0]" "$(calc "10 * $i * $C + $C * ($C - 1) / 2")"
  i=$((i + 1))
done
add "k0shape0" "sum($M, axis=0, keepdims=True).shape[0]" 1
add "k0shape1" "sum($M, axis=0, keepdims=True).shape[1]" "$C"
add "k1shape0" "mean($M, axis=1, keepdims=True).shape[0]" "$R"
add "k1shape1" "mean($M, axis=1, keepdims=True).shape[1]" 1
add "kallshape" "sum($M, keepdims=True).shape[1]" 1
add "kall" "sum($M, keepdims=True)[0, 0]" "$(calc "$C * 10 * $R * ($R - 1) / 2 + $R * $C * ($C - 1) / 2")"
add "nd0" "sum($M, axis=0).ndim" 1
# Reducing a reduction.
add "ss" "sum(sum($M, axis=1))" "$(calc "$C * 10 * $R * ($R - 1) / 2 + $R * $C * ($C - 1) / 2")"
add "ms" "max(sum($M, axis=0))" "$(calc "10 * $R * ($R - 1) / 2 + $R * ($C - 1)")"
# 3-d: T[i, j, k] = 100 i + 10 j + k, shape (4, 3, 5); reduce the middle axis.
T="(arange(4, chunks=3)[:, None, None] * 100 + arange(3, chunks=2)[:, None] * 10 + arange(5, chunks=2))"
add "t1" "sum($T, axis=1)[2, 4]" "$(calc "3 * 200 + 10 * 3 + 3 * 4")"
add "t2" "sum($T, axis=0)[1, 3]" "$(calc "100 * 6 + 4 * 10 + 4 * 3")"
add "t3" "mean($T, axis=2)[3, 1]" "$(calc "300 + 10 + 2")" 1e-15
add "t4" "sum($T)" "$(calc "15 * 100 * 6 + 20 * 10 * 3 + 12 * 10")"
end_group
# The same group on 2 ranks: the axis combination crosses ranks.
begin_group "axis reductions, 2 ranks"
add "s0" "sum($M, axis=0)[3]" "$(calc "10 * $R * ($R - 1) / 2 + $R * 3")"
add "s1" "sum($M, axis=1)[6]" "$(calc "10 * 6 * $C + $C * ($C - 1) / 2")"
add "v1" "var($M, axis=1)[2]" "$(calc "($C * $C - 1) / 12")" 1e-13
add "t1" "sum($T, axis=1)[2, 4]" "$(calc "3 * 200 + 10 * 3 + 3 * 4")"
end_group 2
# A bigger axis reduction whose columns span many chunks, checked whole (int64,
# as NumPy's arange of integers: printed without a point).
R=600 C=50
expect_tokens "sum(arange($R, chunks=64)[:, None] * 10 + arange($C, chunks=7), axis=0)" \
  $(j=0; while [ $j -lt $C ]; do printf '%s ' "$((10 * R * (R - 1) / 2 + R * j))"; j=$((j + 1)); done)
expect_tokens "max(arange($R, chunks=64)[:, None] * 10 + arange($C, chunks=7), axis=1)[::100]" \
  $(i=0; while [ $i -lt $R ]; do printf '%s ' "$((10 * i + C - 1))"; i=$((i + 100)); done)
expect_tokens "max(arange($R.0, chunks=64)[:, None] * 10 + arange($C, chunks=7), axis=1)[::100]" \
  $(i=0; while [ $i -lt $R ]; do printf '%s. ' "$((10 * i + C - 1))"; i=$((i + 100)); done)

# ---- 5. broadcasting ----------------------------------------------------------------

begin_group "broadcasting"
add "b1" "sum(ones((4, 1), chunks=(3, 1)) * arange(5, chunks=2))" 40
add "b2" "sum(arange(3)[:, None] + arange(4)[None, :])" "$(calc "4 * 3 + 3 * 6")"
add "b3" "sum(arange(6, chunks=4)[:, None] * arange(9, chunks=2))" "$(calc "15 * 36")"
add "b4" "(arange(6, chunks=4)[:, None] * arange(9, chunks=2))[4, 7]" 28
add "b5" "sum(ones((3, 4), chunks=(2, 3)) + 2)" 36
add "b6" "sum(2 - ones((3, 4), chunks=(2, 3)))" 12
add "b7" "sum((arange(2)[:, None, None] + arange(3)[None, :, None] * 10 + arange(4) * 100))" \
  "$(calc "12 * 1 + 8 * 30 + 6 * 600")"
add "b8" "(arange(2)[:, None, None] + arange(3)[None, :, None] * 10 + arange(4) * 100)[1, 2, 3]" 321
add "b9" "sum(ones((5, 1, 3), chunks=2) * arange(4)[:, None])" "$(calc "5 * 3 * 6")"
add "b10" "(ones((5, 1, 3), chunks=2) * arange(4)[:, None]).shape[1]" 4
# Unequal chunkings of the same shape: boundaries unify.
add "b11" "sum(arange(20, chunks=3) * arange(20, chunks=7))" "$(calc "19 * 20 * 39 / 6")"
add "b12" "sum(arange(20, chunks=((3, 17),)) - arange(20, chunks=((11, 9),)))" 0
# A broadcast row read against a sliced column.
add "b13" "sum(arange(10, chunks=3)[::-2][:, None] * arange(3))" "$(calc "(9 + 7 + 5 + 3 + 1) * 3")"
add "b14" "max(arange(12, chunks=5)[None, :] - arange(3)[:, None])" 11
add "b15" "min(arange(12, chunks=5)[None, :] - arange(3)[:, None])" -2
end_group

# ---- 6. float32 ---------------------------------------------------------------------

# Values rounded to float32, computed with Python's struct (round to nearest):
#   float32(1/3) = 0.3333333432674408, float32(2/3) = 0.66666668653488159,
#   float32(1 + float32(0.1)) = 1.1000000238418579, float32(0.1) = 0.10000000149011612
begin_group "float32"
add "f1" "(arange(10, dtype=\"float32\") / 3)[1]" 0.3333333432674408
add "f2" "(arange(10, dtype=\"float32\") / 3)[2]" 0.66666668653488159
add "f3" "(arange(3, dtype=\"float32\") + 0.1)[1]" 1.1000000238418579
add "f4" "full(4, 0.1, dtype=\"float32\")[2]" 0.10000000149011612
add "f5" "full(4, 0.1, dtype=float32)[0]" 0.10000000149011612
add "f6" "sum(ones((300, 300), chunks=(64, 100), dtype=\"float32\"))" 90000
add "f7" "(ones(3, dtype=\"float32\") + arange(3)).dtype" "'float64'"
add "f8" "(ones(3, dtype=\"float32\") * 2).dtype" "'float32'"
add "f9" "arange(3).astype(\"float32\").dtype" "'float32'"
add "f10" "(arange(4) / 3).astype(\"float32\")[1]" 0.3333333432674408
add "f11" "sum(arange(4096, dtype=\"float32\", chunks=1000))" 8386560
add "f12" "mean((arange(10, dtype=\"float32\") / 3))" "$(calc "15 / 10")" 1e-7
add "f13" "ones(2, dtype=\"f4\").dtype" "'float32'"
add "f14" "ones(2).dtype" "'float64'"
end_group

# ---- 7. elementwise functions against Python's math (or awk's libm) -----------------

if need_python; then
  py() { python3 -c "import math; print('%.17g' % ($1))"; }
  LIB=python
else
  note "python3 not found: elementwise expectations from awk's libm instead"
  py() {
    awk "function pow(a, b) { return a ^ b }
         BEGIN { printf \"%.17g\\n\", $(printf '%s' "$1" | sed -e 's/math\.//g') }"
  }
  LIB=awk
fi
begin_group "elementwise ($LIB)"
X="(arange(7, chunks=3) * 0.75 + 0.5)"   # 0.5, 1.25, ..., 5
k=0
while [ $k -lt 7 ]; do
  x=$(calc "$k * 0.75 + 0.5")
  add "sqrt$k" "sqrt($X)[$k]" "$(py "math.sqrt($x)")" 1e-15
  add "exp$k" "exp($X)[$k]" "$(py "math.exp($x)")" 1e-15
  add "log$k" "log($X)[$k]" "$(py "math.log($x)")" 1e-15
  add "sin$k" "sin($X)[$k]" "$(py "math.sin($x)")" 1e-14
  add "cos$k" "cos($X)[$k]" "$(py "math.cos($x)")" 1e-14
  add "pow$k" "($X ** 2.5)[$k]" "$(py "math.pow($x, 2.5)")" 1e-15
  add "rpow$k" "(2 ** $X)[$k]" "$(py "math.pow(2, $x)")" 1e-15
  add "pw$k" "power($X, $X)[$k]" "$(py "math.pow($x, $x)")" 1e-15
  add "neg$k" "negative($X)[$k]" "$(calc "-$x")"
  add "abs$k" "abs(-$X)[$k]" "$x"
  add "div$k" "divide(1, $X)[$k]" "$(calc "1 / $x")"
  add "min$k" "minimum($X, 2.2)[$k]" "$(calc "$x < 2.2 ? $x : 2.2")"
  add "max$k" "maximum($X, 2.2)[$k]" "$(calc "$x > 2.2 ? $x : 2.2")"
  add "mm$k" "maximum(minimum($X, 4), 1)[$k]" "$(calc "$x < 1 ? 1 : ($x > 4 ? 4 : $x)")"
  add "sub$k" "subtract($X, multiply($X, 2))[$k]" "$(calc "-$x")"
  add "add$k" "add($X, $X[::-1])[$k]" 5.5
  k=$((k + 1))
done
if [ "$LIB" = python ]; then
  add "tanh1" "tanh($X)[1]" "$(py "math.tanh(1.25)")" 1e-15
  add "tanh6" "tanh($X * -1)[6]" "$(py "math.tanh(-5)")" 1e-15
fi
# Whole-array reductions of elementwise results against sums in Python/awk.
add "sumsqrt" "sum(sqrt(arange(1000, chunks=77)))" \
  "$(awk 'BEGIN { t = 0; for (i = 0; i < 1000; i++) t += sqrt(i); printf "%.17g\n", t }')" 1e-13
# Scalars pass through the functions as numbers.
add "scal1" "sqrt(16)" 4
add "scal2" "exp(0)" 1
add "scal3" "abs(-2.5)" 2.5
add "scal4" "minimum(3, 2)" 2
# NaN propagates through minimum/maximum and the reductions (NumPy).
add "nan1" "minimum(arange(3), nan)[1]" nan
add "nan2" "maximum(nan, arange(3))[2]" nan
add "nan3" "max(arange(5) * nan)" nan
add "nan4" "min(maximum(arange(5, chunks=2), 1) / (arange(5, chunks=2) - 3) * 0 )" nan
add "inf1" "max(1 / (arange(4) - 2))" inf
add "inf2" "min(-1 / (arange(4) - 2))" -inf
end_group

finish
