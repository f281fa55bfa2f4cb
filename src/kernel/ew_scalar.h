/*
 * ew_scalar.h - the one definition of each elementwise operation on one
 * value, shared by the interpreter (numbers), the CPU backend and the CUDA
 * kernels, so that every place computes the same IEEE operations.
 */
#ifndef TSR_EW_SCALAR_H
#define TSR_EW_SCALAR_H

#include <math.h>
#include <string.h>

#include "kernel/ids.h"

#ifdef __CUDACC__
#define TSR_EW_HD __host__ __device__
#else
#define TSR_EW_HD
#endif

/* NaN-propagating minimum and maximum (NumPy's minimum/maximum). */
static inline TSR_EW_HD double tsr_ew_nan_min(double x, double y) {
  return x != x || y != y ? (double)NAN : (y < x ? y : x);
}
static inline TSR_EW_HD double tsr_ew_nan_max(double x, double y) {
  return x != x || y != y ? (double)NAN : (y > x ? y : x);
}

/* pi as NumPy's NPY_PI: deg2rad and rad2deg multiply by a constant folded
 * from it at compile time, as NumPy does. */
#define TSR_EW_PI 3.141592653589793238462643383279502884

/* NumPy's sign: +-0 give +0, NaN gives NaN. */
static inline TSR_EW_HD double tsr_ew_sign(double x) {
  return x > 0 ? 1.0 : (x < 0 ? -1.0 : (x == 0 ? 0.0 : x));
}

/* NumPy's fmin/fmax: a NaN operand is ignored; equal operands (+0, -0)
 * give x2, as NumPy's loops do (C's fmin leaves that case open). */
static inline TSR_EW_HD double tsr_ew_fmin(double x, double y) { return x < y || y != y ? x : y; }
static inline TSR_EW_HD double tsr_ew_fmax(double x, double y) { return x > y || y != y ? x : y; }

/* NumPy's npy_logaddexp and npy_logaddexp2 (npy_math_internal.h). */
static inline TSR_EW_HD double tsr_ew_logaddexp(double x, double y) {
  if (x == y) return x + 0.693147180559945309417232121458176568; /* same infinities too */
  double d = x - y;
  if (d > 0) return x + log1p(exp(-d));
  if (d <= 0) return y + log1p(exp(d));
  return d; /* NaN */
}
static inline TSR_EW_HD double tsr_ew_logaddexp2(double x, double y) {
  const double log2e = 1.442695040888963407359924681001892137;
  if (x == y) return x + 1;
  double d = x - y;
  if (d > 0) return x + log2e * log1p(exp2(-d));
  if (d <= 0) return y + log2e * log1p(exp2(d));
  return d;
}

/* NumPy's npy_divmod for doubles: the floor quotient and the modulus with
 * the sign of y (Python's convention); y == 0 gives x / y and fmod's NaN. */
static inline TSR_EW_HD double tsr_ew_divmod(double x, double y, double *modulus) {
  double mod = fmod(x, y);
  if (y == 0) {
    *modulus = mod;
    return x / y;
  }
  double div = (x - mod) / y; /* very nearly an integer */
  if (mod != 0) {
    if ((y < 0) != (mod < 0)) {
      mod += y;
      div -= 1.0;
    }
  } else {
    mod = copysign(0.0, y);
  }
  double floordiv;
  if (div != 0) {
    floordiv = floor(div);
    if (div - floordiv > 0.5) floordiv += 1.0;
  } else {
    floordiv = copysign(0.0, x / y);
  }
  *modulus = mod;
  return floordiv;
}
static inline TSR_EW_HD double tsr_ew_remainder(double x, double y) {
  double mod;
  (void)tsr_ew_divmod(x, y, &mod);
  return mod;
}
static inline TSR_EW_HD double tsr_ew_floor_divide(double x, double y) {
  double mod;
  return tsr_ew_divmod(x, y, &mod);
}

/* x ** y: an integral x to an integral power 0..64 whose result is below
 * 2**53 in magnitude by repeated squaring, exact (so the correctly rounded
 * result, glibc's pow's too: integer powers on the GPU, whose pow is not
 * correctly rounded, are exact and cast to integer types without a
 * truncated 9800.999...); anything else C's pow. */
static inline TSR_EW_HD double tsr_ew_pow(double x, double y) {
  if (x == trunc(x) && y == trunc(y) && y >= 0 && y <= 64 && fabs(x) < 9007199254740992.0) {
    double r = 1.0, b = x;
    int n = (int)y, exact = 1;
    while (n && exact) {
      if (n & 1) r *= b;
      n >>= 1;
      if (n) b *= b;
      exact = fabs(r) < 9007199254740992.0 && (n == 0 || fabs(b) < 9007199254740992.0);
    }
    if (exact) return r;
  }
  return pow(x, y);
}

/* hypot: C's on the host; on the device CUDA's overflows for hypot(1,
 * DBL_MAX) (inf, where C and NumPy give DBL_MAX), so the scaled form there:
 * a * sqrt(1 + (b / a)**2), |a| >= |b|, within a few ULP of C's. */
static inline TSR_EW_HD double tsr_ew_hypot(double x, double y) {
#ifdef __CUDA_ARCH__
  double a = fabs(x), b = fabs(y);
  if (isinf(a) || isinf(b)) return (double)INFINITY;
  if (a != a || b != b) return a + b;
  if (a < b) {
    double t = a;
    a = b;
    b = t;
  }
  if (a == 0) return 0.0;
  double r = b / a;
  return a * sqrt(1.0 + r * r);
#else
  return hypot(x, y);
#endif
}

/* NumPy's heaviside: x2 where x1 == 0, NaN for a NaN x1. */
static inline TSR_EW_HD double tsr_ew_heaviside(double x, double y) {
  return x < 0 ? 0.0 : (x > 0 ? 1.0 : (x == 0 ? y : x));
}

/* Bitwise operations on integer values held as doubles (kernel/dtype.h):
 * through int64 (uint64 values from 2**63 through their int64 bits); op is
 * '&', '|', '^', '~' (x alone), '<' (x << y) or '>' (x >> y, arithmetic).
 * A shift by 64 or more, or by a negative amount, gives 0 (-1 for a
 * negative x shifted right), as NumPy's npy_lshift/npy_rshift; the result
 * is wrapped into the array's type by its cast. */
static inline TSR_EW_HD long long tsr_ew_as_i64(double x) {
  if (x != x) return 0;
  if (x >= 9223372036854775808.0) x -= 18446744073709551616.0;
  if (x >= 9223372036854775808.0 || x < -9223372036854775808.0) return 0;
  return (long long)x;
}
static inline TSR_EW_HD double tsr_ew_bits(double x, double y, int op) {
  long long a = tsr_ew_as_i64(x), b = tsr_ew_as_i64(y);
  switch (op) {
  case '&':
    return (double)(a & b);
  case '|':
    return (double)(a | b);
  case '^':
    return (double)(a ^ b);
  case '~':
    return (double)~a;
  case '<':
    return b < 0 || b >= 64 ? 0.0 : (double)(long long)((unsigned long long)a << b);
  default:
    return b < 0 || b >= 64 ? (a < 0 ? -1.0 : 0.0) : (double)(a >> b);
  }
}

/* where(c, a, b) is two internal rows: WHERE_PICK(a, c) is a where c is
 * true and a "hole" elsewhere, WHERE_FILL(t, b) fills the holes with b. The
 * hole is one quiet NaN with a payload no arithmetic produces (a NaN
 * computed on the CPU or the GPU has an empty payload, or its operand's); it
 * only passes between these two rows, through float64 values that are
 * copied, never computed on. */
#define TSR_EW_HOLE_BITS 0x7ffd1e5ca1ab1e00ULL
static inline TSR_EW_HD double tsr_ew_hole(void) {
  unsigned long long u = TSR_EW_HOLE_BITS;
  double d;
  memcpy(&d, &u, sizeof d);
  return d;
}
static inline TSR_EW_HD int tsr_ew_is_hole(double x) {
  unsigned long long u;
  memcpy(&u, &x, sizeof u);
  return u == TSR_EW_HOLE_BITS;
}

/* The switches below list every row of kernel/ew_table.h (-Wswitch checks
 * that none is missing); an id of the other arity, or none, is a bug of the
 * program builder, which checks arities (fuse/), so it gives NaN rather than
 * a plausible value. */
#define TSR_EW_CASE_U(id, nm, expr, doc) \
  case EW_##id:                          \
    return (expr);
#define TSR_EW_CASE_I(id, nm, expr) \
  case EW_##id:                     \
    return (expr);
#define TSR_EW_CASE_B(id, nm, sym, expr, doc) \
  case EW_##id:                               \
    break;
#define TSR_EW_CASE_J(id, nm, expr) \
  case EW_##id:                     \
    break;
static inline TSR_EW_HD double tsr_ew_unary(int op, double x) {
  switch ((tsr_ew_op)op) {
    TSR_EW_TABLE(TSR_EW_CASE_U, TSR_EW_CASE_I, TSR_EW_CASE_B, TSR_EW_CASE_J)
  case EW_NOPS:
    break;
  }
  return (double)NAN;
}
#undef TSR_EW_CASE_U
#undef TSR_EW_CASE_I
#undef TSR_EW_CASE_B
#undef TSR_EW_CASE_J

#define TSR_EW_CASE_U(id, nm, expr, doc) \
  case EW_##id:                          \
    break;
#define TSR_EW_CASE_I(id, nm, expr) \
  case EW_##id:                     \
    break;
#define TSR_EW_CASE_B(id, nm, sym, expr, doc) \
  case EW_##id:                               \
    return (expr);
#define TSR_EW_CASE_J(id, nm, expr) \
  case EW_##id:                     \
    return (expr);
static inline TSR_EW_HD double tsr_ew_binary(int op, double x, double y) {
  switch ((tsr_ew_op)op) {
    TSR_EW_TABLE(TSR_EW_CASE_U, TSR_EW_CASE_I, TSR_EW_CASE_B, TSR_EW_CASE_J)
  case EW_NOPS:
    break;
  }
  return (double)NAN;
}
#undef TSR_EW_CASE_U
#undef TSR_EW_CASE_I
#undef TSR_EW_CASE_B
#undef TSR_EW_CASE_J

/* 1 or 2 for an elementwise id, 0 for any other number. */
#define TSR_EW_ARITY_U(id, nm, expr, doc) \
  case EW_##id:                           \
    return 1;
#define TSR_EW_ARITY_I(id, nm, expr) \
  case EW_##id:                      \
    return 1;
#define TSR_EW_ARITY_B(id, nm, sym, expr, doc) \
  case EW_##id:                                \
    return 2;
#define TSR_EW_ARITY_J(id, nm, expr) \
  case EW_##id:                      \
    return 2;
static inline TSR_EW_HD int tsr_ew_arity(int op) {
  switch ((tsr_ew_op)op) {
    TSR_EW_TABLE(TSR_EW_ARITY_U, TSR_EW_ARITY_I, TSR_EW_ARITY_B, TSR_EW_ARITY_J)
  case EW_NOPS:
    break;
  }
  return 0;
}
#undef TSR_EW_ARITY_U
#undef TSR_EW_ARITY_I
#undef TSR_EW_ARITY_B
#undef TSR_EW_ARITY_J

#endif
