/*
 * stats.c - reduction partials (see stats.h). The value loops keep several
 * independent accumulators in fixed lanes so that they vectorize without any
 * reassociation: the result is the same on every build of the same code.
 */
#include "kernel/stats.h"

#include <math.h>

#include "kernel/ids.h"
#include "kernel/stats_merge.h"

#define LANES 8

tsr_stat tsr_stat_empty(int kind) {
  tsr_stat s = {0.0, 0.0, 0.0};
  (void)kind;
  return s;
}

static double lane_sum(const double *x, int64_t len, double shift) {
  double acc[LANES] = {0};
  int64_t i = 0;
  for (; i + LANES <= len; i += LANES)
    for (int j = 0; j < LANES; j++) acc[j] += x[i + j] - shift;
  for (int j = 0; i + j < len; j++) acc[j] += x[i + j] - shift;
  return ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
}

static double lane_sqdev(const double *x, int64_t len, double mean) {
  double acc[LANES] = {0};
  int64_t i = 0;
  for (; i + LANES <= len; i += LANES)
    for (int j = 0; j < LANES; j++) {
      double d = x[i + j] - mean;
      acc[j] += d * d;
    }
  for (int j = 0; i + j < len; j++) {
    double d = x[i + j] - mean;
    acc[j] += d * d;
  }
  return ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
}

/* NumPy semantics: a NaN anywhere makes min/max NaN. */
static double lane_extreme(const double *x, int64_t len, int want_max) {
  double m = x[0];
  int nan = 0;
  for (int64_t i = 0; i < len; i++) {
    double v = x[i];
    nan |= v != v;
    m = want_max ? (v > m ? v : m) : (v < m ? v : m);
  }
  return nan ? NAN : m;
}

tsr_stat tsr_stat_of_values(int kind, const double *x, int64_t len) {
  tsr_stat s = {(double)len, 0.0, 0.0};
  if (len == 0) return s;
  switch (kind) {
  case RED_MIN:
  case RED_MAX:
    s.a = lane_extreme(x, len, kind == RED_MAX);
    break;
  case RED_VAR:
  case RED_STD:
    s.a = lane_sum(x, len, 0.0) / (double)len;
    s.b = lane_sqdev(x, len, s.a);
    break;
  default:
    s.a = lane_sum(x, len, 0.0);
  }
  return s;
}

void tsr_stat_merge(int kind, tsr_stat *acc, const tsr_stat *s) {
  tsr_stat_merge_inline(kind, acc, s);
}

void tsr_stat_update_row(int kind, tsr_stat *acc, const double *x, int64_t len) {
  for (int64_t i = 0; i < len; i++) {
    tsr_stat one = tsr_stat_of_one(kind, x[i]);
    tsr_stat_merge(kind, &acc[i], &one);
  }
}

tsr_stat tsr_stat_combine(int kind, const tsr_stat *parts, int64_t n) {
  if (n == 0) return tsr_stat_empty(kind);
  if (n == 1) return parts[0];
  int64_t half = n / 2;
  tsr_stat left = tsr_stat_combine(kind, parts, half);
  tsr_stat right = tsr_stat_combine(kind, parts + half, n - half);
  tsr_stat_merge(kind, &left, &right);
  return left;
}

double tsr_stat_finish(int kind, const tsr_stat *s, int ddof) {
  switch (kind) {
  case RED_SUM:
    return s->a;
  case RED_MEAN:
    return s->n > 0 ? s->a / s->n : NAN;
  case RED_MIN:
  case RED_MAX:
    return s->n > 0 ? s->a : NAN;
  case RED_VAR:
  case RED_STD: {
    double dof = s->n - ddof;
    double var = dof > 0 ? s->b / dof : NAN;
    return kind == RED_STD ? sqrt(var) : var;
  }
  }
  return NAN;
}
