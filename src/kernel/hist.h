/*
 * hist.h - NumPy's histogram binning, shared by the CPU and CUDA backends'
 * histogram op (backend.h: hist) and written down once here, so that both
 * put every value in the same bin.
 *
 * A histogram has ndim axes (histogram: 1, histogram2d: 2, histogramdd:
 * up to TSR_MAXDIM), each binned one of three ways:
 *   TSR_HIST_UNIFORM  nb equal bins over [lo, hi] (bins=N, range=): NumPy's
 *                     fast path, the bin (x - lo) nb / (hi - lo) truncated,
 *                     then moved by one where the edges (linspace(lo, hi,
 *                     nb + 1), kept too) say otherwise; x == hi in the last
 *   TSR_HIST_EDGES    explicit increasing edges: bin i holds e[i] <= x <
 *                     e[i + 1], the last bin also x == e[nb] (NumPy's
 *                     searchsorted rule, histogramdd's too)
 *   TSR_HIST_INT      bincount: the value itself, 0 <= x < nb
 * A value outside every bin (NaN included) is counted apart, in the slot
 * after the last bin (a bincount with one there is an error).
 *
 * The spec travels as an array of doubles (a node's constants, the
 * backends' argument): ndim, then for each axis (mode, nb, lo, hi), then
 * each UNIFORM or EDGES axis's nb + 1 edges in axis order.
 */
#ifndef TSR_KERNEL_HIST_H
#define TSR_KERNEL_HIST_H

#include <stddef.h>
#include <stdint.h>

#include "kernel/dtype.h"

#ifdef __CUDACC__
#define TSR_HIST_HD __host__ __device__
#else
#define TSR_HIST_HD
#endif

enum { TSR_HIST_UNIFORM, TSR_HIST_EDGES, TSR_HIST_INT };

/* The most bins a backend's fused histogram (backend.h: hist_box) takes. */
#define TSR_HIST_FUSED_BINS 8192

typedef struct tsr_hist_axis {
  int mode;
  int64_t nb;
  double lo, hi, scale; /* scale: nb / (hi - lo) */
  const double *edges;  /* nb + 1 of them; NULL for TSR_HIST_INT */
} tsr_hist_axis;

typedef struct tsr_hist {
  int ndim;
  tsr_hist_axis axis[TSR_MAXDIM];
  int64_t nbins; /* the product of the axes' nb */
} tsr_hist;

/* The spec's doubles: how many there are for ndim axes of the given modes
 * and bin counts. */
static inline int64_t tsr_hist_spec_len(int ndim, const int *mode, const int64_t *nb) {
  int64_t n = 1 + 4 * (int64_t)ndim;
  for (int d = 0; d < ndim; d++)
    if (mode[d] != TSR_HIST_INT) n += nb[d] + 1;
  return n;
}

/* h over spec (its edges point into spec); 0, or -1 for a spec that is not
 * one. */
TSR_HIST_HD static inline int tsr_hist_parse(const double *spec, int64_t len, tsr_hist *h) {
  if (len < 1) return -1;
  h->ndim = (int)spec[0];
  if (h->ndim < 1 || h->ndim > TSR_MAXDIM || len < 1 + 4 * h->ndim) return -1;
  const double *e = spec + 1 + 4 * h->ndim;
  h->nbins = 1;
  for (int d = 0; d < h->ndim; d++) {
    tsr_hist_axis *a = &h->axis[d];
    a->mode = (int)spec[1 + 4 * d];
    a->nb = (int64_t)spec[2 + 4 * d];
    a->lo = spec[3 + 4 * d];
    a->hi = spec[4 + 4 * d];
    a->edges = NULL;
    if (a->nb < 1) return -1;
    a->scale = (double)a->nb / (a->hi - a->lo);
    if (a->mode != TSR_HIST_INT) {
      if (e + a->nb + 1 > spec + len) return -1;
      a->edges = e;
      e += a->nb + 1;
    }
    h->nbins *= a->nb;
  }
  return e == spec + len ? 0 : -1;
}

/* The bin of x along axis a, or -1 when x lies in none. */
TSR_HIST_HD static inline int64_t tsr_hist_bin(const tsr_hist_axis *a, double x) {
  int64_t nb = a->nb;
  if (a->mode == TSR_HIST_INT) return x >= 0 && x < (double)nb ? (int64_t)x : -1;
  const double *e = a->edges;
  if (a->mode == TSR_HIST_UNIFORM) {
    if (!(x >= a->lo && x <= a->hi)) return -1;
    /* NumPy divides by (hi - lo) then multiplies by nb; either estimate
     * is within one bin of the bin whose edges hold x, and the step
     * below moves it there, as NumPy's does: the same bin */
    int64_t i = (int64_t)((x - a->lo) * a->scale);
    if (i >= nb) i = nb - 1;
    if (i < 0) i = 0;
    if (x < e[i])
      i--;
    else if (i != nb - 1 && x >= e[i + 1])
      i++;
    return i;
  }
  if (!(x >= e[0] && x <= e[nb])) return -1;
  if (x == e[nb]) return nb - 1; /* the last bin is closed */
  int64_t lo = 0, hi = nb;       /* the last edge <= x: e[lo] <= x < e[hi] */
  while (hi - lo > 1) {
    int64_t mid = lo + (hi - lo) / 2;
    if (e[mid] <= x)
      lo = mid;
    else
      hi = mid;
  }
  return lo;
}

/* The flat (C order) bin of the sample x[0 .. ndim-1], or h->nbins when it
 * lies outside the histogram. */
TSR_HIST_HD static inline int64_t tsr_hist_flat(const tsr_hist *h, const double *x,
                                                int64_t stride) {
  int64_t flat = 0;
  for (int d = 0; d < h->ndim; d++) {
    int64_t b = tsr_hist_bin(&h->axis[d], x[d * stride]);
    if (b < 0) return h->nbins;
    flat = flat * h->axis[d].nb + b;
  }
  return flat;
}

/* Adds n samples (x: n x h->ndim, row-major) into out (h->nbins + 1
 * values; the last counts the samples outside), each as 1 or as its weight
 * w[i] (w NULL: 1), in sample order. */
void tsr_hist_add(const tsr_hist *h, const double *x, int64_t n, const double *w, double *out);

#endif
