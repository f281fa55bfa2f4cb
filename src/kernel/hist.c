/*
 * hist.c - the host loop of NumPy's histogram binning (hist.h), the CPU
 * backend's histogram op and the CUDA backend's weighted one.
 */
#include "kernel/hist.h"

void tsr_hist_add(const tsr_hist *h, const double *x, int64_t n, const double *w, double *out) {
  int d = h->ndim;
  if (d == 1) { /* the common case without the loop over axes */
    const tsr_hist_axis *a = &h->axis[0];
    for (int64_t i = 0; i < n; i++) {
      int64_t b = tsr_hist_bin(a, x[i]);
      out[b < 0 ? h->nbins : b] += w ? w[i] : 1.0;
    }
    return;
  }
  for (int64_t i = 0; i < n; i++) out[tsr_hist_flat(h, x + i * d, 1)] += w ? w[i] : 1.0;
}
