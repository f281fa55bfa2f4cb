/*
 * quantile.h - NumPy's order statistics of one sorted line, shared by the
 * CPU and CUDA sort ops (backend.h: sort) for nanmedian, nanquantile and
 * nanpercentile: the line sorted with NaN last, its values before the
 * first NaN are the ones NumPy keeps (_remove_nan_1d).
 */
#ifndef TSR_KERNEL_QUANTILE_H
#define TSR_KERNEL_QUANTILE_H

#include <math.h>
#include <stdint.h>

#ifdef __CUDACC__
#define TSR_Q_HD __host__ __device__
#else
#define TSR_Q_HD
#endif

/* What the sort op leaves at the start of each line besides the sort
 * (NANTAKE: the value at index (n - 1) q itself, for an integer q, which
 * NumPy takes without interpolating: no inf - inf; ARG: argsort, each value
 * replaced by its position in the line before the sort, equal values in
 * their order). */
enum { TSR_SORT_ONLY, TSR_SORT_NANQUANTILE, TSR_SORT_NANMEDIAN, TSR_SORT_NANTAKE, TSR_SORT_ARG };

/* The value k of a line of stride s. */
#define TSR_Q_AT(v, s, k) ((v)[(int64_t)(k) * (s)])

/* How many values of a sorted line (n values, stride s) are not NaN. */
static inline TSR_Q_HD int64_t tsr_q_count(const double *v, int64_t s, int64_t n) {
  int64_t lo = 0, hi = n; /* the first NaN: NaN sorts last */
  while (lo < hi) {
    int64_t mid = lo + (hi - lo) / 2;
    double x = TSR_Q_AT(v, s, mid);
    if (x != x)
      hi = mid;
    else
      lo = mid + 1;
  }
  return lo;
}

/* NumPy's quantile q (method "linear": virtual index (n - 1) q; past the
 * last index gamma is counted from -1, as _get_indexes; _lerp), median
 * (the mean of the middle two) or taken value (what: a TSR_SORT_ kind) of
 * the n sorted values; NaN for none. */
static inline TSR_Q_HD double tsr_q_sorted(const double *v, int64_t s, int64_t n, double q,
                                           int what) {
  if (n == 0) return (double)NAN;
  if (what == TSR_SORT_NANTAKE) return TSR_Q_AT(v, s, (int64_t)((double)(n - 1) * q));
  if (what == TSR_SORT_NANMEDIAN) {
    int64_t h = n / 2;
    return n % 2 ? TSR_Q_AT(v, s, h) : (TSR_Q_AT(v, s, h - 1) + TSR_Q_AT(v, s, h)) / 2.0;
  }
  double vi = (double)(n - 1) * q, prev = floor(vi);
  int64_t lo = (int64_t)prev, hi = lo + 1;
  if (vi >= (double)(n - 1)) lo = hi = n - 1, prev = -1.0;
  double t = vi - prev, a = TSR_Q_AT(v, s, lo), b = TSR_Q_AT(v, s, hi), d = b - a;
  return t >= 0.5 ? b - d * (1.0 - t) : a + d * t;
}

#endif
