/*
 * dtype.h - the element types' properties and the one cast into a type's
 * value set, shared by the interpreter, the CPU loops and the CUDA kernels
 * (every buffer holds doubles; kernel/ids.h). NumPy's rules throughout:
 * float -> integer truncates toward zero and wraps modulo 2**bits (NumPy
 * leaves an out-of-range float cast undefined; tessera wraps, as integer
 * arithmetic does), NaN and +-inf cast to an integer give 0 (NumPy:
 * platform-dependent, with a warning), anything nonzero or NaN is True.
 */
#ifndef TSR_DTYPE_H
#define TSR_DTYPE_H

#include <math.h>

#include "kernel/ids.h"

#ifdef __CUDACC__
#define TSR_DT_HD __host__ __device__
#else
#define TSR_DT_HD
#endif

static inline TSR_DT_HD int tsr_dtype_is_float(int dt) { return dt == TSR_F64 || dt == TSR_F32; }
static inline TSR_DT_HD int tsr_dtype_is_unsigned(int dt) { return dt >= TSR_U8 && dt <= TSR_U64; }
static inline TSR_DT_HD int tsr_dtype_is_signed_int(int dt) {
  return dt >= TSR_I8 && dt <= TSR_I64;
}
/* integer types, bool excluded */
static inline TSR_DT_HD int tsr_dtype_is_int(int dt) { return dt >= TSR_I8 && dt <= TSR_U64; }

/* bits of an integer type (8, 16, 32, 64); 0 otherwise */
static inline TSR_DT_HD int tsr_dtype_bits(int dt) {
  switch (dt) {
  case TSR_I8:
  case TSR_U8:
    return 8;
  case TSR_I16:
  case TSR_U16:
    return 16;
  case TSR_I32:
  case TSR_U32:
    return 32;
  case TSR_I64:
  case TSR_U64:
    return 64;
  default:
    return 0;
  }
}

/* bytes of one element as stored in files (in memory every element is a double) */
static inline TSR_DT_HD int tsr_dtype_size(int dt) {
  if (dt == TSR_F64) return 8;
  if (dt == TSR_F32) return 4;
  if (dt == TSR_BOOL) return 1;
  return tsr_dtype_bits(dt) / 8;
}

/* the smallest and largest value of an integer type, as doubles (int64's and
 * uint64's largest round up to 2**63 and 2**64) */
static inline TSR_DT_HD double tsr_dtype_min(int dt) {
  return tsr_dtype_is_signed_int(dt) ? -ldexp(1.0, tsr_dtype_bits(dt) - 1) : 0.0;
}
static inline TSR_DT_HD double tsr_dtype_max(int dt) {
  int b = tsr_dtype_bits(dt);
  return tsr_dtype_is_signed_int(dt) ? ldexp(1.0, b - 1) - 1.0 : ldexp(1.0, b) - 1.0;
}

/* v wrapped into integer type dt (v finite and integral) */
static inline TSR_DT_HD double tsr_dtype_wrap(double v, int dt) {
  int b = tsr_dtype_bits(dt);
  double m = ldexp(1.0, b);
  double w = fmod(v, m);
  if (w < 0) w += m;
  if (tsr_dtype_is_signed_int(dt) && w >= m * 0.5) w -= m;
  return w + 0.0; /* -0 -> +0 */
}

/* v as a value of dtype dt */
static inline TSR_DT_HD double tsr_dtype_cast(double v, int dt) {
  switch (dt) {
  case TSR_F64:
    return v;
  case TSR_F32:
    return (double)(float)v;
  case TSR_BOOL:
    return v != 0 ? 1.0 : 0.0;
  default:
    if (v - v != 0) return 0.0; /* NaN, +-inf */
    v = trunc(v);
    if (v >= tsr_dtype_min(dt) && v <= tsr_dtype_max(dt)) return v + 0.0;
    return tsr_dtype_wrap(v, dt);
  }
}

#endif
