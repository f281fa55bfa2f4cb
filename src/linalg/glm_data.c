/*
 * glm_data.c - the data passes of a GLM fit (glm.h): this rank's row blocks
 * of X and y in backend memory, the backend's glm_pass over them, and the
 * per-block partials gathered and summed in block order.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "linalg/glm.h"

#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "linalg/linalg.h"
#include "mpi/agree.h"
#include "mpi/comm.h"
#include "util/error.h"

int tsr_glm_gather(tsr_glm_data *d, int64_t len, double *vecs) {
  tsr_exec *ex = d->ex;
  if (ex->size == 1) return TSR_OK;
  size_t rec = sizeof(double) * (size_t)len, n = (size_t)d->nmine;
  double *send = malloc(rec * n + 1);
  if (!send) return TSR_ERROR(TSR_ERR_MEMORY, "out of memory gathering a fit's partials");
  for (int64_t k = 0; k < d->nmine; k++)
    memcpy(send + k * len, vecs + (ex->rank + k * ex->size) * len, rec);
  char *all = NULL;
  size_t *counts = NULL;
  double t0 = tsr_comm_time();
  int st = tsr_comm_allgather_bytes(send, rec * n, &all, &counts);
  free(send);
  tsr_exec_comm_done(ex, "allgather fit partials", t0, (double)(rec * (size_t)d->nb));
  TSR_CHECK(st);
  size_t off = 0; /* rank r's k-th record is block r + k * size */
  for (int r = 0; r < ex->size; r++) {
    for (size_t k = 0; k < counts[r] / rec; k++)
      memcpy(vecs + (r + (int64_t)k * ex->size) * len, all + off + k * rec, rec);
    off += counts[r];
  }
  free(all);
  free(counts);
  return TSR_OK;
}

/* This rank's blocks, block k at nbeta points betas[k] (nbeta q values),
 * its results to outs[k] (nbeta results); no communication. */
static int eval_blocks(tsr_glm_data *d, int64_t nbeta, double *const *betas, int what,
                       double *const *outs) {
  tsr_exec *ex = d->ex;
  tsr_glm_block *bl = calloc((size_t)d->nmine + 1, sizeof *bl);
  if (!bl) return TSR_ERROR(TSR_ERR_MEMORY, "out of memory for a fit's pass");
  for (int64_t k = 0; k < d->nmine; k++) {
    int64_t b = ex->rank + k * ex->size;
    bl[k] = (tsr_glm_block){d->x[b], d->y[b], d->rows[b], betas[k], outs[k]};
  }
  tsr_glm_pass pass = {d->family, what, d->p, d->nmine, bl, nbeta};
  double t0 = tsr_comm_time();
  int st = tsr_be_glm_pass(ex->be, &pass);
  ex->compute_s += tsr_comm_time() - t0;
  for (int64_t k = 0; k < d->nmine; k++)
    ex->elements += (double)(d->rows[ex->rank + k * ex->size] * (d->p + 1) * nbeta);
  free(bl);
  return st;
}

int tsr_glm_eval_mine(tsr_glm_data *d, double *const *betas, int what, double *const *outs) {
  return eval_blocks(d, 1, betas, what, outs);
}

/* A Hessian pass's results travel between the ranks as the loss, the
 * gradient and the Hessian's upper triangle: each block's Hessian is exactly
 * symmetric (both backends mirror it), so the lower half is rebuilt with the
 * same bits and the sums in block order do not change, for about half the
 * bytes (Newton on two H200s spent 8-9 ms a pass in this allgather: 6.3 MB
 * for 77 blocks of p = 100). */
static int64_t packed_len(int64_t q) { return 1 + q + q * (q + 1) / 2; }

static void pack_hess(int64_t q, const double *full, double *packed) {
  int64_t n = 1 + q;
  const double *h = full + 1 + q;
  memcpy(packed, full, sizeof(double) * (size_t)n);
  for (int64_t a = 0; a < q; a++)
    for (int64_t c = a; c < q; c++) packed[n++] = h[a * q + c];
}

static void unpack_hess(int64_t q, const double *packed, double *full) {
  int64_t n = 1 + q;
  double *h = full + 1 + q;
  memcpy(full, packed, sizeof(double) * (size_t)n);
  for (int64_t a = 0; a < q; a++)
    for (int64_t c = a; c < q; c++) h[a * q + c] = h[c * q + a] = packed[n++];
}

/* Every block's results (rec values each: nbeta points of len) on every
 * rank; Hessians packed on the way. Collective. */
static int gather_results(tsr_glm_data *d, int what, int64_t nbeta, int64_t rec, double *all) {
  tsr_exec *ex = d->ex;
  if (what != TSR_GLM_HESS || ex->size == 1) return tsr_glm_gather(d, rec, all);
  int64_t q = d->q, len = tsr_glm_out_len(d->p, what), plen = packed_len(q), prec = plen * nbeta;
  double *packed = malloc(sizeof(double) * (size_t)(d->nb * prec + 1));
  if (!packed) return TSR_ERROR(TSR_ERR_MEMORY, "out of memory gathering a fit's partials");
  for (int64_t k = 0; k < d->nmine; k++) {
    int64_t b = ex->rank + k * ex->size;
    for (int64_t j = 0; j < nbeta; j++)
      pack_hess(q, all + b * rec + j * len, packed + b * prec + j * plen);
  }
  int st = tsr_glm_gather(d, prec, packed);
  for (int64_t b = 0; b < d->nb && st == TSR_OK; b++)
    for (int64_t j = 0; j < nbeta; j++)
      unpack_hess(q, packed + b * prec + j * plen, all + b * rec + j * len);
  free(packed);
  return st;
}

int tsr_glm_eval_many(tsr_glm_data *d, int64_t nbeta, const double *betas, int what, double *outs) {
  tsr_exec *ex = d->ex;
  int64_t len = tsr_glm_out_len(d->p, what), rec = len * nbeta;
  /* one point fits the scratch sized for the Hessian; a path takes its own */
  double *all = nbeta == 1 ? d->all : malloc(sizeof(double) * (size_t)(d->nb * rec + 1));
  double **bs = malloc(sizeof(double *) * (size_t)(d->nmine + 1)),
         **os = malloc(sizeof(double *) * (size_t)(d->nmine + 1));
  int st = all && bs && os ? TSR_OK : TSR_ERROR(TSR_ERR_MEMORY, "out of memory for a fit's pass");
  for (int64_t k = 0; k < d->nmine && st == TSR_OK; k++) {
    bs[k] = (double *)betas;
    os[k] = all + (ex->rank + k * ex->size) * rec;
  }
  if (st == TSR_OK) st = eval_blocks(d, nbeta, bs, what, os);
  free(bs), free(os);
  st = tsr_agree(st);
  if (st == TSR_OK) st = gather_results(d, what, nbeta, rec, all);
  if (st == TSR_OK) { /* each point: block 0, then the others in order */
    memcpy(outs, all, sizeof(double) * (size_t)rec);
    for (int64_t b = 1; b < d->nb; b++)
      for (int64_t i = 0; i < rec; i++) outs[i] += all[b * rec + i];
  }
  if (all != d->all) free(all);
  return st;
}

int tsr_glm_eval(tsr_glm_data *d, const double *beta, int what, double *out) {
  d->passes++;
  if (d->batch) return tsr_glm_batch_request(d, beta, what, out);
  return tsr_glm_eval_many(d, 1, beta, what, out);
}
