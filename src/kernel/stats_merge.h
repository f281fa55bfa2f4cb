/*
 * stats_merge.h - the one definition of how two ordered reduction partials
 * combine, shared by the CPU code (stats.c) and the CUDA kernels so that both
 * backends merge with the same arithmetic.
 */
#ifndef TSR_STATS_MERGE_H
#define TSR_STATS_MERGE_H

#include "kernel/ids.h"
#include "kernel/stats.h"

#ifdef __CUDACC__
#define TSR_MERGE_HD __host__ __device__
#else
#define TSR_MERGE_HD
#endif

/* The partial of one value x, the same as tsr_stat_of_values gives for one
 * element: the squared deviation of x from itself is NaN where x is inf or
 * NaN, so var/std of it are NaN as NumPy's are (not 0). Axis reductions that
 * add one value at a time (CPU and GPU) start from it. */
TSR_MERGE_HD static inline tsr_stat tsr_stat_of_one(int kind, double x) {
  tsr_stat s = {1.0, x, 0.0};
  if (kind == RED_VAR || kind == RED_STD) s.b = (x - x) * (x - x);
  return s;
}

/* acc = acc followed by s: counts add; sums add, into the empty partial's
 * +0.0 too, because NumPy's sums start from +0.0 (0.0 + -0.0 is +0.0: a sum
 * of -0.0 values is +0.0 whichever path adds them); extremes propagate NaN as
 * NumPy does; means and squared deviations combine by Chan et al. */
TSR_MERGE_HD static inline void tsr_stat_merge_inline(int kind, tsr_stat *acc, const tsr_stat *s) {
  if (s->n == 0) return;
  if (acc->n == 0 && kind != RED_SUM && kind != RED_MEAN) {
    *acc = *s;
    return;
  }
  double n = acc->n + s->n;
  if (kind == RED_MIN || kind == RED_MAX) {
    double x = acc->a, y = s->a;
    if (x != x || y != y)
      acc->a = x != x ? x : y;
    else
      acc->a = kind == RED_MAX ? (y > x ? y : x) : (y < x ? y : x);
  } else if (kind == RED_VAR || kind == RED_STD) {
    double delta = s->a - acc->a;
    acc->a += delta * (s->n / n);
    acc->b += s->b + delta * delta * (acc->n * s->n / n);
  } else {
    acc->a += s->a;
  }
  acc->n = n;
}

#endif
