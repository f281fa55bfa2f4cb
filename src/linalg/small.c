/*
 * small.c - linear algebra on one small matrix (small.h). The inputs are
 * gathered as values on every rank (tsr_exec_elementwise), uploaded to the
 * backend (LAPACKE on the CPU, cuSOLVER and cuBLAS on device buffers with
 * the CUDA backend), factored or solved there and downloaded: every rank
 * computes the same bits with the same backend, so the result needs no
 * broadcast.
 */
#include "linalg/small.h"

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

/* The factor or solution into out (host), *ok 0 for a matrix that is not
 * positive definite. */
static int compute(tsr_exec *ex, const tsr_node *n, double *out, int *ok) {
  const tsr_node *a = n->in[0], *b = n->in[1];
  int64_t k = a->grid.shape[0];
  double *da = NULL, *db = NULL;
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
