/*
 * gpu_selftest.h - checks of the CUDA backend's device arithmetic that only
 * a GPU can run, for tests/gpu/gen_math.c (plain C; defined in
 * gpu_selftest.cu, built only with CUDA).
 */
#ifndef TSR_GPU_SELFTEST_H
#define TSR_GPU_SELFTEST_H

#include <stdint.h>

/* What tsr_gpu_gen_math_check compares, one count of differing results each. */
enum {
  TSR_GEN_U01,    /* gen_u01 against u01, from random words */
  TSR_GEN_DIV,    /* gen_div(f, 2 + f) against __ddiv_rn, f of log's range */
  TSR_GEN_SQRT,   /* gen_sqrt(-2 log u) against __dsqrt_rn, u of u01 */
  TSR_GEN_SINCOS, /* gen_sin_or_cos2pi against tsr_sin_or_cos2pi */
  TSR_GEN_NORMAL, /* gen_raw<normal> against sqrt(-2 tsr_log) * tsr_sin_or_cos2pi */
  TSR_GEN_CHECKS
};

/* n random samples of each (and the edge values u = 1, 1 - 2^-53, 2^-53 and
 * the quarter turns; the words 0, all ones and each single bit), drawn from
 * seed, on the first visible GPU; counts gets TSR_GEN_CHECKS numbers of
 * differing bits. Returns 0, 1 when no GPU is visible, -1 on a CUDA error
 * (its text on stderr). */
int tsr_gpu_gen_math_check(int64_t n, uint64_t seed, uint64_t *counts);

#endif
