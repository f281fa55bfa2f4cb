/*
 * ew_scalar.h - the one definition of each elementwise operation on one
 * value, shared by the interpreter (numbers), the CPU backend and the CUDA
 * kernels, so that every place computes the same IEEE operations.
 */
#ifndef TSR_EW_SCALAR_H
#define TSR_EW_SCALAR_H

#include <math.h>

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

static inline TSR_EW_HD double tsr_ew_unary(int op, double x) {
  switch (op) {
  case EW_NEG:
    return -x;
  case EW_ABS:
    return fabs(x);
  case EW_SQRT:
    return sqrt(x);
  case EW_EXP:
    return exp(x);
  case EW_LOG:
    return log(x);
  case EW_SIN:
    return sin(x);
  case EW_COS:
    return cos(x);
  case EW_TANH:
    return tanh(x);
  default:
    return x;
  }
}

static inline TSR_EW_HD double tsr_ew_binary(int op, double x, double y) {
  switch (op) {
  case EW_ADD:
    return x + y;
  case EW_SUB:
    return x - y;
  case EW_MUL:
    return x * y;
  case EW_DIV:
    return x / y;
  case EW_POW:
    return pow(x, y);
  case EW_MIN:
    return tsr_ew_nan_min(x, y);
  case EW_MAX:
    return tsr_ew_nan_max(x, y);
  case EW_GREATER:
    return x > y ? 1.0 : 0.0;
  default:
    return (double)NAN;
  }
}

#endif
