/*
 * stats_merge.h - the one definition of how two ordered reduction partials
 * combine, shared by the CPU code (stats.c) and the CUDA kernels so that both
 * backends merge with the same arithmetic.
 */
#ifndef TSR_STATS_MERGE_H
#define TSR_STATS_MERGE_H

#include <math.h>

#include "kernel/ids.h"
#include "kernel/stats.h"

#ifdef __CUDACC__
#define TSR_MERGE_HD __host__ __device__
#else
#define TSR_MERGE_HD
#endif

/* The row of kernel/red_table.h of a reduction kind: its monoid (RM_*) and
 * its flags (RF_*); -1 and 0 for a kind that is not a row. */
TSR_MERGE_HD static inline int tsr_red_monoid(int kind) {
#define TSR_RED_MONOID(id, nm, monoid, flags, rd, doc) \
  case RED_##id:                                       \
    return monoid;
  switch (kind) { TSR_RED_TABLE(TSR_RED_MONOID) }
#undef TSR_RED_MONOID
  return -1;
}

TSR_MERGE_HD static inline int tsr_red_flags(int kind) {
#define TSR_RED_FLAGS(id, nm, monoid, flags, rd, doc) \
  case RED_##id:                                      \
    return flags;
  switch (kind) { TSR_RED_TABLE(TSR_RED_FLAGS) }
#undef TSR_RED_FLAGS
  return 0;
}

/* The partial of one value x at index idx (RF_INDEX kinds keep it in b),
 * the same as tsr_stat_of_values gives for one element: the squared
 * deviation of x from itself is NaN where x is inf or NaN, so var/std of it
 * are NaN as NumPy's are (not 0); a NaN-skipping kind's NaN is the empty
 * partial, but nanargmax's (nanargmin's) keeps its index with the value NaN
 * (see tsr_nanarg_merge); any/all/count_nonzero take x != 0 (NaN is
 * nonzero). Axis
 * reductions that add one value at a time (CPU and GPU) start from it. */
TSR_MERGE_HD static inline tsr_stat tsr_stat_of_one(int kind, double x, double idx) {
  tsr_stat s = {1.0, x, 0.0};
  int m = tsr_red_monoid(kind);
  if ((tsr_red_flags(kind) & RF_SKIPNAN) && x != x) {
    if (m == RM_ARGMAX || m == RM_ARGMIN) return s.b = idx, s;
    s.n = 0.0, s.a = 0.0;
    return s;
  }
  if (m == RM_MOMENTS) s.b = (x - x) * (x - x);
  if (m == RM_OR || m == RM_AND || m == RM_COUNT) s.a = x != 0 ? 1.0 : 0.0;
  if (m == RM_ARGMAX || m == RM_ARGMIN) s.b = idx;
  return s;
}

/* Whether partial s's (value, index) beats acc's for argmax (want_max) or
 * argmin: NaN first, then the extreme, then the smaller index. A total
 * order, so the merge is associative and commutative: the same index for
 * any chunking, grouping and rank count. */
TSR_MERGE_HD static inline int tsr_arg_better(int want_max, const tsr_stat *s,
                                              const tsr_stat *acc) {
  double x = s->a, y = acc->a;
  if (y != y) return x != x && s->b < acc->b;
  if (x != x) return 1;
  if (x == y) return s->b < acc->b;
  return want_max ? x > y : x < y;
}

/* nanargmax (want_max) or nanargmin as NumPy's: NaN counts as -inf (+inf)
 * and the smaller index wins a tie, so of NaN and -inf only the first is
 * the answer; a partial's value (a) is its extreme of the values that are
 * not NaN, NaN where it has none (an all-NaN slice: an error when
 * finished). A total order on (key, index) again. */
TSR_MERGE_HD static inline void tsr_nanarg_merge(int want_max, tsr_stat *acc, const tsr_stat *s) {
  double none = want_max ? -INFINITY : INFINITY;
  double x = s->a == s->a ? s->a : none, y = acc->a == acc->a ? acc->a : none;
  int better = x == y ? s->b < acc->b : want_max ? x > y : x < y;
  if (acc->a != acc->a || (s->a == s->a && better)) acc->a = s->a;
  if (better) acc->b = s->b;
}

/* acc = acc followed by s: counts add; sums add, into the empty partial's
 * +0.0 too, because NumPy's sums start from +0.0 (0.0 + -0.0 is +0.0: a sum
 * of -0.0 values is +0.0 whichever path adds them); extremes propagate NaN as
 * NumPy does; means and squared deviations combine by Chan et al.; products
 * multiply; any/all or and and 0/1; argmax/argmin keep the better
 * (value, index). */
TSR_MERGE_HD static inline void tsr_stat_merge_inline(int kind, tsr_stat *acc, const tsr_stat *s) {
  if (s->n == 0) return;
  int m = tsr_red_monoid(kind);
  if (acc->n == 0 && m != RM_ADD && m != RM_MEAN) {
    *acc = *s;
    return;
  }
  double n = acc->n + s->n;
  switch (m) {
  case RM_MIN:
  case RM_MAX: {
    double x = acc->a, y = s->a;
    if (x != x || y != y)
      acc->a = x != x ? x : y;
    else
      acc->a = m == RM_MAX ? (y > x ? y : x) : (y < x ? y : x);
    break;
  }
  case RM_MOMENTS: {
    double delta = s->a - acc->a;
    acc->a += delta * (s->n / n);
    acc->b += s->b + delta * delta * (acc->n * s->n / n);
    break;
  }
  case RM_MUL:
    acc->a *= s->a;
    break;
  case RM_OR:
    acc->a = acc->a != 0 || s->a != 0 ? 1.0 : 0.0;
    break;
  case RM_AND:
    acc->a = acc->a != 0 && s->a != 0 ? 1.0 : 0.0;
    break;
  case RM_ARGMAX:
  case RM_ARGMIN:
    if (tsr_red_flags(kind) & RF_SKIPNAN)
      tsr_nanarg_merge(m == RM_ARGMAX, acc, s);
    else if (tsr_arg_better(m == RM_ARGMAX, s, acc))
      acc->a = s->a, acc->b = s->b;
    break;
  default: /* RM_ADD, RM_MEAN, RM_COUNT */
    acc->a += s->a;
  }
  acc->n = n;
}

#endif
