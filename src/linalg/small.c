/*
 * small.c - linear algebra on one small matrix (small.h). The inputs are
 * gathered as values on every rank (tsr_exec_elementwise), uploaded to the
 * backend (LAPACKE on the CPU, cuSOLVER and cuBLAS on device buffers with
 * the CUDA backend), factored or solved there and downloaded: every rank
 * computes the same bits with the same backend, so the result needs no
 * broadcast.
 */
#include "linalg/small.h"

#include <math.h>
#include <stdlib.h>

#include "mpi/agree.h"
#include "util/error.h"

static int value_of(tsr_exec *ex, tsr_node *x) {
  return x->value ? TSR_OK : tsr_exec_elementwise(ex, x);
}

static int upload(tsr_exec *ex, const double *host, int64_t n, double **dev) {
  TSR_CHECK(tsr_be_alloc(ex->be, (size_t)(n > 0 ? n : 1), dev));
  int st = n > 0 ? tsr_be_upload(ex->be, host, *dev, (size_t)n) : TSR_OK;
  if (st != TSR_OK) {
    tsr_be_release(ex->be, *dev);
    *dev = NULL;
  }
  return st;
}

/* LA_LU (array.h) of the k x k a into out: getrf on a's transpose
 * uploaded (the backend's is column-major), then NumPy's slogdet of the
 * factors (umath_linalg: the sign flips once per row swap and once per
 * negative pivot, the logs of the pivots' magnitudes added in order; a
 * zero pivot gives sign 0 and -inf) and det = sign exp(logdet). */
static int lu(tsr_exec *ex, const double *a, int64_t k, double *out) {
  double *t = malloc(sizeof(double) * (size_t)(k * k + 1)), *da = NULL;
  int *ipiv = malloc(sizeof(int) * (size_t)(k + 1)), singular = 0;
  int st = t && ipiv ? TSR_OK : TSR_ERROR(TSR_ERR_MEMORY, "out of memory for an LU");
  for (int64_t i = 0; st == TSR_OK && i < k; i++)
    for (int64_t j = 0; j < k; j++) t[j * k + i] = a[i * k + j];
  if (st == TSR_OK) st = upload(ex, t, k * k, &da);
  if (st == TSR_OK) st = tsr_be_lu(ex->be, k, da, ipiv, &singular);
  if (st == TSR_OK && k > 0) st = tsr_be_download(ex->be, da, t, (size_t)(k * k));
  tsr_be_release(ex->be, da);
  if (st == TSR_OK) {
    double *p = out + k * k, sign = 1.0, logdet = 0.0;
    for (int64_t i = 0; i < k; i++)
      for (int64_t j = 0; j < k; j++) out[i * k + j] = t[j * k + i];
    for (int64_t i = 0; i < k; i++) p[i] = (double)i;
    for (int64_t i = 0; i < k; i++) {
      int64_t s = ipiv[i] - 1;
      if (s < i || s >= k) {
        st = TSR_ERROR(TSR_ERR_INTERNAL, "getrf gave pivot %d at row %lld", ipiv[i], (long long)i);
        break;
      }
      double x = p[i];
      p[i] = p[s], p[s] = x;
      if (s != i) sign = -sign;
    }
    for (int64_t i = 0; i < k; i++) {
      double d = out[i * k + i];
      if (d < 0) sign = -sign, d = -d;
      logdet += log(d);
    }
    if (singular) sign = 0.0, logdet = -INFINITY;
    p[k] = sign, p[k + 1] = logdet, p[k + 2] = sign * exp(logdet);
  }
  free(t), free(ipiv);
  return st;
}

/* The factor or solution into out (host), *ok 0 for a matrix that is not
 * positive definite. */
static int compute(tsr_exec *ex, const tsr_node *n, double *out, int *ok) {
  const tsr_node *a = n->in[0], *b = n->in[1];
  int64_t k = a->grid.shape[0];
  double *da = NULL, *db = NULL;
  if (n->op == LA_LU) return lu(ex, a->value, k, out);
  int st = upload(ex, a->value, k * k, &da);
  if (st == TSR_OK && n->op == LA_CHOLESKY) {
    st = tsr_be_cholesky(ex->be, k, da, ok);
    if (st == TSR_OK && *ok && k > 0) st = tsr_be_download(ex->be, da, out, (size_t)(k * k));
  } else if (st == TSR_OK) { /* LA_TRSM: b (m x k) r^-1 */
    int64_t m = b->grid.shape[0];
    st = upload(ex, b->value, m * k, &db);
    if (st == TSR_OK && m * k > 0) st = tsr_be_trsm_upper_right(ex->be, m, k, da, db);
    if (st == TSR_OK && m * k > 0) st = tsr_be_download(ex->be, db, out, (size_t)(m * k));
  }
  tsr_be_release(ex->be, da);
  tsr_be_release(ex->be, db);
  return st;
}

int tsr_small_compute(tsr_exec *ex, tsr_node *n) {
  TSR_CHECK(value_of(ex, n->in[0]));
  if (n->in[1]) TSR_CHECK(value_of(ex, n->in[1]));
  int64_t size = tsr_node_size(n);
  double *out = malloc(sizeof(double) * (size_t)(size + 1));
  int ok = 1;
  int st = out ? compute(ex, n, out, &ok) : TSR_ERROR(TSR_ERR_MEMORY, "out of memory for a factor");
  if (st == TSR_OK && !ok)
    st = TSR_ERROR(TSR_ERR_VALUE, "cholesky: Matrix is not positive definite");
  st = tsr_agree(st);
  if (st != TSR_OK) {
    free(out);
    return st;
  }
  n->value = out;
  return TSR_OK;
}
