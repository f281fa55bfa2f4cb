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

/* acc = acc followed by s: counts add; sums add; extremes propagate NaN as
 * NumPy does; means and squared deviations combine by Chan et al. */
TSR_MERGE_HD static inline void tsr_stat_merge_inline(int kind, tsr_stat *acc, const tsr_stat *s) {
  if (s->n == 0) return;
  if (acc->n == 0) {
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
