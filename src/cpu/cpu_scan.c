/*
 * cpu_scan.c - the CPU backend's scan ops (backend.h: scan, scan_carry):
 * each line of a chunk scanned in order with the shared scalar, the lines
 * spread over OpenMP threads in blocks of the inner axis (so a block's loop
 * over inner values runs over contiguous memory).
 */
#include "cpu/cpu.h"

#include "kernel/dtype.h"
#include "kernel/ew_scalar.h"
#include "util/error.h"

#define INNER_BLOCK 256

int tsr_cpu_scan(int64_t outer, int64_t len, int64_t inner, double *a, int op, double identity,
                 int nan) {
  int64_t nb = (inner + INNER_BLOCK - 1) / INNER_BLOCK;
#pragma omp parallel for collapse(2) schedule(static)
  for (int64_t o = 0; o < outer; o++)
    for (int64_t b = 0; b < nb; b++) {
      double *p = a + o * len * inner;
      int64_t i0 = b * INNER_BLOCK, i1 = i0 + INNER_BLOCK < inner ? i0 + INNER_BLOCK : inner;
      for (int64_t l = 0; l < len; l++)
        for (int64_t i = i0; i < i1; i++) {
          double v = p[l * inner + i];
          if (nan && v != v) v = identity;
          p[l * inner + i] = l ? tsr_ew_binary(op, p[(l - 1) * inner + i], v) : v;
        }
    }
  return TSR_OK;
}

int tsr_cpu_scan_carry(int64_t outer, int64_t len, int64_t inner, double *a, int op,
                       const double *carry, int dtype) {
  if (!carry && dtype == TSR_F64) return TSR_OK; /* nothing to do */
#pragma omp parallel for collapse(2) schedule(static)
  for (int64_t o = 0; o < outer; o++)
    for (int64_t l = 0; l < len; l++) {
      double *p = a + (o * len + l) * inner;
      for (int64_t i = 0; i < inner; i++) {
        double v = carry ? tsr_ew_binary(op, p[i], carry[o * inner + i]) : p[i];
        p[i] = dtype == TSR_F64 ? v : tsr_dtype_cast(v, dtype);
      }
    }
  return TSR_OK;
}
