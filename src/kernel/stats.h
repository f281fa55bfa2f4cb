/*
 * stats.h - partial results of reductions and their deterministic combination.
 *
 * Every reduction is computed as partials (per row segment, per chunk) that
 * are combined in a fixed order: segments in row order inside a chunk, chunks
 * in chunk-index order across the array. The order depends only on the
 * chunking, never on threads or ranks, so results are bitwise reproducible.
 * var/std use counts, means and sums of squared deviations (Chan et al.),
 * which stay accurate where sum-of-squares formulas cancel.
 */
#ifndef TSR_STATS_H
#define TSR_STATS_H

#include <stdint.h>

typedef struct tsr_stat {
  double n; /* element count */
  double a; /* sum (sum, mean), extreme (min, max, argmax, argmin), mean
             * (var, std), product (prod), 0/1 (any, all), count (count_nonzero) */
  double b; /* sum of squared deviations (var, std), index (argmax, argmin) */
} tsr_stat;

/* Elements of the partial of one box of ndim axes: 1 (axis < 0: all axes),
 * or the box's size without `axis`. */
static inline int64_t tsr_partial_count(int ndim, const int64_t *extent, int axis) {
  int64_t n = 1;
  if (axis < 0) return 1;
  for (int a = 0; a < ndim; a++)
    if (a != axis) n *= extent[a];
  return n;
}

/* The empty partial (n = 0) of a reduction kind. */
tsr_stat tsr_stat_empty(int kind);

/* Partial of len values, in a fixed order; first: the index of x[0] (kinds
 * with RF_INDEX; x[i] has index first + i). */
tsr_stat tsr_stat_of_values(int kind, const double *x, int64_t len, double first);

/* acc = acc followed by s (order matters for floating point). */
void tsr_stat_merge(int kind, tsr_stat *acc, const tsr_stat *s);

/* Adds one value x[i] to each of len running partials acc[i] (reductions
 * along a non-contiguous axis); index: the values' index along the axis. */
void tsr_stat_update_row(int kind, tsr_stat *acc, const double *x, int64_t len, double index);

/* Pairwise combination of n ordered partials. */
tsr_stat tsr_stat_combine(int kind, const tsr_stat *parts, int64_t n);

/* Final value: sum, mean, extreme, variance with ddof, or its square root,
 * product, 0/1, count, index; NaN for an index kind's empty partial. */
double tsr_stat_finish(int kind, const tsr_stat *s, int ddof);

#endif
