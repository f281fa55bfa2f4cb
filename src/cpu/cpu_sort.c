/*
 * cpu_sort.c - the CPU backend's sort op (backend.h: sort): each line
 * copied out, sorted with qsort (NaN last, as NumPy) and copied back, the
 * lines spread over OpenMP threads; the nan-statistics then read the
 * sorted line with the shared kernel/quantile.h. The histogram op beside
 * them: the shared binning loop of kernel/hist.h over the samples in order.
 */
#include <stdlib.h>
#include <string.h>

#include "cpu/cpu.h"
#include "kernel/quantile.h"
#include "util/error.h"

/* Ascending, NaN after everything (NumPy's order). */
static int cmp_nan_last(const void *pa, const void *pb) {
  double a = *(const double *)pa, b = *(const double *)pb;
  if (a != a) return b != b ? 0 : 1;
  if (b != b) return -1;
  return a < b ? -1 : a > b ? 1 : 0;
}

/* The sorted line p (stride s): its statistic at its start unless what is
 * TSR_SORT_ONLY. */
static void line_stat(double *p, int64_t s, int64_t len, int what, double q) {
  if (what == TSR_SORT_ONLY) return;
  p[0] = tsr_q_sorted(p, s, tsr_q_count(p, s, len), q, what);
}

/* (value, position) pairs: the order of cmp_nan_last, then the position (a
 * stable sort's order, with a total order qsort needs no stability for). */
typedef struct pos_value {
  double v, at;
} pos_value;
static int cmp_pos_value(const void *pa, const void *pb) {
  const pos_value *a = pa, *b = pb;
  int c = cmp_nan_last(&a->v, &b->v);
  return c ? c : a->at < b->at ? -1 : a->at > b->at;
}

/* argsort: each line's positions in the order of its values. */
static int arg_sort(int64_t outer, int64_t len, int64_t inner, double *a) {
  int fail = 0;
#pragma omp parallel reduction(| : fail)
  {
    pos_value *line = malloc(sizeof(pos_value) * (size_t)len);
    fail = !line;
#pragma omp for collapse(2) schedule(dynamic, 16)
    for (int64_t o = 0; o < outer; o++)
      for (int64_t i = 0; i < inner; i++) {
        if (!line) continue;
        double *p = a + o * len * inner + i;
        for (int64_t l = 0; l < len; l++) line[l] = (pos_value){p[l * inner], (double)l};
        qsort(line, (size_t)len, sizeof *line, cmp_pos_value);
        for (int64_t l = 0; l < len; l++) p[l * inner] = line[l].at;
      }
    free(line);
  }
  return fail ? TSR_ERROR(TSR_ERR_MEMORY, "out of memory sorting lines") : TSR_OK;
}

int tsr_cpu_sort(int64_t outer, int64_t len, int64_t inner, double *a, int what, double q) {
  if (what == TSR_SORT_ARG) return arg_sort(outer, len, inner, a);
  int fail = 0;
#pragma omp parallel reduction(| : fail)
  {
    double *line = inner > 1 ? malloc(sizeof(double) * (size_t)len) : NULL;
    fail = inner > 1 && !line;
#pragma omp for collapse(2) schedule(dynamic, 16)
    for (int64_t o = 0; o < outer; o++)
      for (int64_t i = 0; i < inner; i++) {
        double *p = a + o * len * inner + i;
        if (inner == 1) {
          qsort(p, (size_t)len, sizeof(double), cmp_nan_last);
          line_stat(p, 1, len, what, q);
          continue;
        }
        if (!line) continue;
        for (int64_t l = 0; l < len; l++) line[l] = p[l * inner];
        qsort(line, (size_t)len, sizeof(double), cmp_nan_last);
        for (int64_t l = 0; l < len; l++) p[l * inner] = line[l];
        line_stat(p, inner, len, what, q);
      }
    free(line);
  }
  return fail ? TSR_ERROR(TSR_ERR_MEMORY, "out of memory sorting lines") : TSR_OK;
}

int tsr_cpu_hist(const tsr_hist *h, const double *x, int64_t n, const double *w, double *out) {
  tsr_hist_add(h, x, n, w, out);
  return TSR_OK;
}

int tsr_cpu_compress(int64_t rows, int64_t len, const double *x, const double *m, int64_t count,
                     double *out) {
  int64_t k = 0;
  for (int64_t i = 0; i < rows; i++) {
    if (m[i] == 0) continue;
    if (k == count)
      return TSR_ERROR(TSR_ERR_INTERNAL, "a mask with more than %lld rows", (long long)count);
    memcpy(out + k * len, x + i * len, sizeof(double) * (size_t)len);
    k++;
  }
  if (k != count)
    return TSR_ERROR(TSR_ERR_INTERNAL, "a mask with %lld rows, %lld counted", (long long)k,
                     (long long)count);
  return TSR_OK;
}
