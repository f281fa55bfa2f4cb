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

/* argmax (want_max) or argmin of x, NumPy's: the first NaN if there is one,
 * else the first index of the extreme (tsr_arg_better's total order), its
 * index offset by first. LANES running extremes, each keeping its first
 * index (a strict comparison), combined by value and then index: the same
 * answer as one element at a time, without a partial built and merged per
 * element (argmax of W2's normals on 2 cores: 1.76x max before). */
static tsr_stat lane_arg(const double *x, int64_t len, double first, int want_max) {
  double m[LANES];
  int64_t b[LANES], i = 0;
  int nan = 0, lanes = len < LANES ? (int)len : LANES;
  for (int j = 0; j < lanes; j++) m[j] = x[j], b[j] = j, nan |= x[j] != x[j];
  for (i = LANES; i + LANES <= len; i += LANES)
    for (int j = 0; j < LANES; j++) {
      double v = x[i + j];
      nan |= v != v;
      if (want_max ? v > m[j] : v < m[j]) m[j] = v, b[j] = i + j;
    }
  for (int j = 0; i + j < len; j++) {
    double v = x[i + j];
    nan |= v != v;
    if (want_max ? v > m[j] : v < m[j]) m[j] = v, b[j] = i + j;
  }
  tsr_stat s = {(double)len, 0.0, 0.0};
  int64_t best = 0;
  if (nan) { /* the first NaN wins */
    while (x[best] == x[best]) best++;
  } else {
    int k = 0;
    for (int j = 1; j < lanes; j++)
      if ((want_max ? m[j] > m[k] : m[j] < m[k]) || (m[j] == m[k] && b[j] < b[k])) k = j;
    best = b[k];
  }
  s.a = x[best];
  s.b = first + (double)best;
  return s;
}

/* Any kind, one element at a time in order (the monoids without lanes). */
static tsr_stat one_by_one(int kind, const double *x, int64_t len, double first) {
  tsr_stat s = tsr_stat_empty(kind);
  for (int64_t i = 0; i < len; i++) {
    tsr_stat one = tsr_stat_of_one(kind, x[i], first + (double)i);
    tsr_stat_merge_inline(kind, &s, &one);
  }
  return s;
}

tsr_stat tsr_stat_of_values(int kind, const double *x, int64_t len, double first) {
  tsr_stat s = {(double)len, 0.0, 0.0};
  if (len == 0) return s;
  switch (tsr_red_monoid(kind)) {
  case RM_MIN:
  case RM_MAX:
    s.a = lane_extreme(x, len, tsr_red_monoid(kind) == RM_MAX);
    break;
  case RM_MOMENTS:
    s.a = lane_sum(x, len, 0.0) / (double)len;
    s.b = lane_sqdev(x, len, s.a);
    break;
  case RM_ADD:
  case RM_MEAN:
    s.a = lane_sum(x, len, 0.0);
    break;
  case RM_ARGMAX:
  case RM_ARGMIN: /* nanargmax and nanargmin one at a time */
    s = tsr_red_flags(kind) & RF_SKIPNAN
            ? one_by_one(kind, x, len, first)
            : lane_arg(x, len, first, tsr_red_monoid(kind) == RM_ARGMAX);
    break;
  default:
    s = one_by_one(kind, x, len, first);
  }
  return s;
}

void tsr_stat_merge(int kind, tsr_stat *acc, const tsr_stat *s) {
  tsr_stat_merge_inline(kind, acc, s);
}

void tsr_stat_update_row(int kind, tsr_stat *acc, const double *x, int64_t len, double index) {
  for (int64_t i = 0; i < len; i++) {
    tsr_stat one = tsr_stat_of_one(kind, x[i], index);
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
  int empty = s->n == 0;
  switch (tsr_red_monoid(kind)) {
  case RM_ADD:
  case RM_COUNT:
    return s->a;
  case RM_MEAN:
    return empty ? NAN : s->a / s->n;
  case RM_MIN:
  case RM_MAX:
    return empty ? NAN : s->a;
  case RM_MOMENTS: {
    double dof = s->n - ddof; /* NumPy's max(n - ddof, 0): m2 / 0 is inf, or NaN for m2 = 0 */
    double var = s->b / (dof > 0 ? dof : 0.0);
    return tsr_red_flags(kind) & RF_STD ? sqrt(var) : var;
  }
  case RM_MUL:
  case RM_AND:
    return empty ? 1.0 : s->a;
  case RM_OR:
    return empty ? 0.0 : s->a;
  case RM_ARGMAX:
  case RM_ARGMIN: /* nanargmax's partial of NaN only: NaN (an error) */
    return empty || (s->a != s->a && (tsr_red_flags(kind) & RF_SKIPNAN)) ? NAN : s->b;
  }
  return NAN; /* not a row of red_table.h */
}
