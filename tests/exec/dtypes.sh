#!/bin/sh
# dtypes.sh - bool and integer dtypes, NumPy's promotion (NEP 50 for Python
# numbers), the comparison, logical and bitwise operators, where, isclose,
# allclose, isin and nan_to_num against NumPy: values, shapes and dtypes of a
# job's results file equal NumPy's, on 1 and 3 ranks and with --no-fuse, on
# ragged chunkings, and wrong types give one error line each before any work.
# Needs python3 with numpy and h5py: skipped without them, failed in CI.
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"

TIMEOUT=120
need_numpy

# The inputs, the same on both sides: name @ tessera @ NumPy
cat >inputs.txt <<'EOF'
a@arange(-7, 17, chunks=5)@np.arange(-7, 17)
m@arange(5, chunks=2)[:, None] * 7 - arange(7, chunks=3) * 3@np.arange(5)[:, None] * 7 - np.arange(7) * 3
u8@astype(arange(250, 262, chunks=5), "uint8")@np.arange(250, 262).astype(np.uint8)
i8@astype(arange(-130, 130, 20, chunks=4), "int8")@np.arange(-130, 130, 20).astype(np.int8)
f@linspace(-3, 3, 24, chunks=7)@np.linspace(-3, 3, 24)
g@astype(linspace(-2, 2, 24, chunks=5), "float32")@np.linspace(-2, 2, 24).astype(np.float32)
s@log(linspace(-1, 3, 24, chunks=9)) * linspace(1, -1, 24, chunks=4)@np.log(np.linspace(-1, 3, 24)) * np.linspace(1, -1, 24)
b@arange(24, chunks=7) % 3 == 0@np.arange(24) % 3 == 0
EOF
# name @ tessera @ NumPy (the inputs above by their names)
cat >cases.txt <<'EOF'
c_gt@a > 3@a > 3
c_le@m <= 0@m <= 0
c_eq@f == g@f == g
c_ne@s != s@s != s
c_mix@(a > 0) & (a < 10) | (a == -7)@(a > 0) & (a < 10) | (a == -7)
c_not@~b@~b
c_bxor@b ^ (a > 2)@b ^ (a > 2)
c_and@a & 6@a & 6
c_or@a | 9@a | 9
c_xor@a ^ m[2, 1]@a ^ m[2, 1]
c_inv@~a@~a
c_shl@a << 3@a << 3
c_shr@a >> 2@a >> 2
c_u8inv@~u8@~u8
c_u8sub@u8 - 3@u8 - np.uint8(3)
c_u8add@u8 + u8@u8 + u8
c_i8mul@i8 * 3@i8 * np.int8(3)
c_i8neg@-i8@-i8
c_floordiv@a // 4@a // 4
c_mod@a % 4@a % 4
c_neg_mod@a % -3@a % -3
c_div@a / 4@a / 4
c_pow@a ** 2@a ** 2
c_sumb@sum(b)@np.sum(b)
c_meanb@mean(b)@np.mean(b)
c_summ0@sum(m, axis=0)@np.sum(m, axis=0)
c_meanm@mean(m, axis=1)@np.mean(m, axis=1)
c_maxu8@max(u8)@np.max(u8)
c_sumu8@sum(u8)@np.sum(u8)
c_vari8@var(i8)@np.var(i8)
c_promo1@i8[:12] + u8@i8[:12] + u8
c_promo2@a + g@a + g
c_promo3@i8 + g[:13]@i8 + g[:13]
c_promo4@u8 + a[:12]@u8 + a[:12]
c_weak1@g * 2.5@g * np.float32(2.5)
c_weak2@i8 + 1.5@i8 + 1.5
c_weak3@b + 1@b.astype(np.int64) + 1
c_weak4@b * True@b * True
c_weak5@i8 > 1000@i8.astype(np.int64) > 1000
c_boolop@b + b@b + b
c_boolmul@b * (a > 0)@b * (a > 0)
c_sqrti@sqrt(abs(a))@np.sqrt(np.abs(a))
c_sqrtb@sqrt(b)@np.sqrt(b).astype(np.float32)
c_isnan@isnan(s)@np.isnan(s)
c_isinf@isinf(s)@np.isinf(s)
c_isfin@isfinite(s)@np.isfinite(s)
c_signbit@signbit(s)@np.signbit(s)
c_land@logical_and(a, b)@np.logical_and(a, b)
c_lor@logical_or(s, 0)@np.logical_or(s, 0)
c_lxor@logical_xor(a > 0, b)@np.logical_xor(a > 0, b)
c_lnot@logical_not(s)@np.logical_not(s)
w_1@where(a > 0, a, -a)@np.where(a > 0, a, -a)
w_2@where(b, f, 0)@np.where(b, f, 0)
w_3@where(m > 3, 1, 0)@np.where(m > 3, 1, 0)
w_4@where(isnan(s), 0.0, s)@np.where(np.isnan(s), 0.0, s)
w_5@where(m[:, :1] > 0, m, a[:7])@np.where(m[:, :1] > 0, m, a[:7])
w_6@where(s, 1.5, g)@np.where(s, np.float32(1.5), g)
w_7@where(a % 2 == 0, g, i8[:1])@np.where(a % 2 == 0, g, i8[:1])
w_8@where(b, s, s * 2)@np.where(b, s, s * 2)
k_1@isclose(f, f + 1e-9)@np.isclose(f, f + 1e-9)
k_2@isclose(s, s, equal_nan=True)@np.isclose(s, s, equal_nan=True)
k_3@isclose(s, s)@np.isclose(s, s)
k_4@isclose(f, 0, atol=0.5)@np.isclose(f, 0, atol=0.5)
k_5@isclose(a, a + 1, rtol=0.2)@np.isclose(a, a + 1, rtol=0.2)
k_6@allclose(f, f * (1 + 1e-7))@np.array(np.allclose(f, f * (1 + 1e-7)))
k_7@allclose(f, f + 1e-3)@np.array(np.allclose(f, f + 1e-3))
k_8@allclose(s, s, equal_nan=True)@np.array(np.allclose(s, s, equal_nan=True))
n_1@isin(a, [1, 4, -7, 100])@np.isin(a, [1, 4, -7, 100])
n_2@isin(m, (0, 4), invert=True)@np.isin(m, (0, 4), invert=True)
n_3@isin(f, 3.0)@np.isin(f, 3.0)
t_1@nan_to_num(s)@np.nan_to_num(s)
t_2@nan_to_num(s, nan=-1.0, posinf=9.0, neginf=-9.0)@np.nan_to_num(s, nan=-1.0, posinf=9.0, neginf=-9.0)
t_3@nan_to_num(a)@np.nan_to_num(a)
t_4@nan_to_num(astype(s, "float32"))@np.nan_to_num(s.astype(np.float32))
y_1@astype(f * 3, "int32")@(f * 3).astype(np.int32)
y_2@astype(a, "bool")@a.astype(bool)
y_3@astype(a * 40, "uint8")@(a * 40).astype(np.uint8)
y_4@astype(a * 40, np.int8)@(a * 40).astype(np.int8)
y_5@arange(3, 19, 4, chunks=2)@np.arange(3, 19, 4)
y_6@full((2, 3), 7)@np.full((2, 3), 7)
y_7@full((2, 3), True)@np.full((2, 3), True)
y_8@ones(5, dtype="i2") * 300@np.ones(5, dtype=np.int16) * np.int16(300)
y_9@zeros(4, dtype=bool) | (arange(4) > 1)@np.zeros(4, dtype=bool) | (np.arange(4) > 1)
y_10@arange(5, dtype=np.uint16) - 1@np.arange(5, dtype=np.uint16) - np.uint16(1)
s_1@np.float32(2) * g@np.float32(2) * g
s_2@i8 + np.int64(1)@i8.astype(np.int64) + 1
s_3@sum(a, dtype="float32")@np.sum(a, dtype=np.float32)
s_4@mean(m, axis=0, dtype="float32")@np.mean(m, axis=0, dtype=np.float32)
s_5@a.sum(dtype="int8")@a.sum(dtype=np.int8)
s_6@prod(i8[5:9], dtype="int64")@np.prod(i8[5:9], dtype=np.int64)
s_7@uint8(300)@np.array(300).astype(np.uint8)
EOF
{
  while IFS='@' read -r name expr _; do echo "$name = $expr"; done <inputs.txt
  while IFS='@' read -r name expr _; do echo "$name = $expr"; done <cases.txt
} >job.tsr

check() { # WHAT FILE
  "$PYNP" - "$2" <<'PY' || soft_fail "$1: values or types differ from NumPy"
import h5py, numpy as np, sys
f = h5py.File(sys.argv[1], "r")
env = {"np": np}
for line in open("inputs.txt"):
    name, _, expr = line.rstrip("\n").split("@")
    env[name] = eval(expr, env)
bad = 0
for line in open("cases.txt"):
    name, _, expr = line.rstrip("\n").split("@")
    with np.errstate(all="ignore"):
        want = np.asarray(eval(expr, env))
    got = f[name][()]
    got = np.asarray(got)
    # exact, but for floats computed through log (glibc's and NumPy's SIMD loops differ in the last bits)
    ok = got.shape == want.shape and got.dtype == want.dtype and (
        np.array_equal(got, want) if want.dtype.kind != "f" else
        np.allclose(got, want, rtol=1e-13, atol=0, equal_nan=True))
    if not ok:
        bad += 1
        print("FAIL %s: tessera %s %s %s, NumPy %s %s %s" % (name, got.dtype, got.shape, got.ravel()[:6],
                                                          want.dtype, want.shape, want.ravel()[:6]))
sys.exit(1 if bad else 0)
PY
}

three_ways dtype check

# Printed as NumPy prints them.
expect_eval() { # EXPR WANT
  capture out err tsr eval "$1"
  expect_eq "$(cat out)" "$2" "eval '$1'"
}
expect_eval 'arange(4) > 1' '[False False  True  True]'
expect_eval 'astype(arange(3), "uint8") - 1' '[255   0   1]'
expect_eval 'sum(arange(5) > 1)' '3'
expect_eval 'np.int64' "'int64'"
expect_eval '(3 < 4, 6 & 3, 1 << 4, ~5, True | False)' '(True, 2, 16, -6, True)'

# Wrong types: one error line each, before any work.
one_error_each 'arange(3.0) & 1' '-(arange(3) > 1)' '(arange(3) > 1) - (arange(3) > 0)' \
  'astype(arange(3), "int8") + 1000' 'ones(3, dtype="complex64")' 'arange(3) < 1 < 2' \
  'left_shift(ones(2), 1)'
finish
