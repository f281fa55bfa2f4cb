/*
 * tsqr_gram.c - the Gram path of the thin SVD (tsqr_gram.h): CholeskyQR2
 * with the Gram matrices combined across ranks.
 *
 *   G1 = sum_b A_b^T A_b      each owner its blocks' A_b^T A_b; every rank
 *                             receives every other one and sums them in
 *                             block order, so G1 is the same bits on every
 *                             rank for any rank count
 *   R1 = chol(G1)             on every rank; not positive definite, or a
 *                             diagonal spread over 1e4 (cond(A) of that
 *                             order): back to the tree, no block touched
 *   Q1_b = A_b R1^-1          on the owners
 *   G2, R2 from the Q1_b the same way; R = R2 R1 = U_R S Vt (every rank)
 *   U_b = Q1_b R2^-1 U_R[:, :k]
 *
 * Two passes over the blocks and two all-to-all exchanges of n x n
 * matrices, against the tree's log2(blocks) levels of R factors between
 * ranks. CholeskyQR2 keeps Q orthogonal to rounding while cond(A) stays far
 * below 1e8, which the check of R1's diagonal guarantees (as the CUDA
 * backend's qr does for one block).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "linalg/tsqr_gram.h"

#include <stdlib.h>
#include <string.h>

#include "linalg/tsqr_common.h"
#include "mpi/agree.h"
#include "mpi/p2p.h"
#include "mpi/tags.h"
#include "plan/plan.h"
#include "util/error.h"
#include "util/trace.h"
#include "util/workers.h"

/* The largest spread of R1's diagonal that CholeskyQR2 is trusted with. */
#define GRAM_MAX_SPREAD 1e4

/* gb[b] = a[b]^T a[b] for this rank's blocks, in parallel. */
static int local_grams(const tsr_tsqr_plan *pl, double *const *a, double **gb) {
  int64_t n = pl->ncols;
  tsr_workers w;
  tsr_workers_init(&w);
#pragma omp parallel for schedule(dynamic, 1)
  for (int64_t b = pl->rank; b < pl->nblocks; b += pl->size) {
    if (tsr_workers_stop(&w)) continue;
    int st = balloc(pl, n * n, &gb[b]);
    if (st == TSR_OK) st = tsr_be_gram(pl->be, pl->rows[b], n, a[b], gb[b]);
    tsr_workers_fail(&w, st);
  }
  return tsr_workers_end(&w);
}

/* Every block's Gram matrix from its owner to every other rank (each rank
 * but the owner allocates it). */
static int gram_allgather(const tsr_tsqr_plan *pl, double **gb, tsr_p2p_piece *x) {
  int64_t n = pl->ncols, nx = 0;
  int st = TSR_OK;
  for (int64_t b = 0; b < pl->nblocks && st == TSR_OK; b++) {
    int from = owner(pl, b);
    if (from != pl->rank) st = balloc(pl, n * n, &gb[b]);
    for (int q = 0; q < pl->size; q++)
      if (q != from) x[nx++] = (tsr_p2p_piece){from, q, gb[b], gb[b], (size_t)(n * n)};
  }
  st = tsr_agree(st); /* no rank waits for pieces a failed rank will not send */
  if (st == TSR_OK) st = move(pl, x, nx, TSR_TAG_TSQR_GRAM);
  return st;
}

/* g (n x n) = sum over all blocks, in block order, of a[b]^T a[b]: the
 * same bits on every rank. Collective. */
static int gram_sum(const tsr_tsqr_plan *pl, double *const *a, double *g) {
  int64_t nb = pl->nblocks, n = pl->ncols;
  double **gb = calloc((size_t)nb + 1, sizeof(double *));
  tsr_p2p_piece *x = calloc((size_t)(nb * pl->size) + 1, sizeof *x);
  int st = gb && x ? TSR_OK : TSR_ERROR(TSR_ERR_MEMORY, "out of memory");
  double t0 = tsr_trace_mark();
  if (st == TSR_OK) st = local_grams(pl, a, gb);
  tsr_trace_phase("gram", t0);
  t0 = tsr_trace_mark();
  st = tsr_agree(st);
  if (st == TSR_OK) st = gram_allgather(pl, gb, x);
  tsr_trace_phase("gram allgather", t0);
  if (st == TSR_OK) st = tsr_be_copy(pl->be, gb[0], g, (size_t)(n * n));
  for (int64_t b = 1; b < nb && st == TSR_OK; b++)
    st = tsr_be_axpy(pl->be, (size_t)(n * n), gb[b], g);
  for (int64_t b = 0; gb && b < nb; b++) bfree(pl, gb[b]);
  free(gb), free(x);
  return tsr_agree(st);
}

/* *ok = 0 when the diagonal of r (n x n) spreads over GRAM_MAX_SPREAD. */
static int diag_spread(const tsr_tsqr_plan *pl, const double *r, int *ok) {
  int64_t n = pl->ncols;
  double *d = NULL, *h = malloc(sizeof(double) * (size_t)(n + 1)), lo = 0, hi = 0;
  int st = h ? balloc(pl, n, &d) : TSR_ERROR(TSR_ERR_MEMORY, "out of memory");
  if (st == TSR_OK) st = tsr_be_copy2d(pl->be, n, 1, r, n + 1, d, 1);
  if (st == TSR_OK) st = tsr_be_download(pl->be, d, h, (size_t)n);
  for (int64_t i = 0; i < n && st == TSR_OK; i++) {
    double v = h[i] < 0 ? -h[i] : h[i];
    if (i == 0 || v < lo) lo = v;
    if (i == 0 || v > hi) hi = v;
  }
  *ok = st == TSR_OK && lo > 0 && hi <= GRAM_MAX_SPREAD * lo;
  bfree(pl, d), free(h);
  return st;
}

/* r (n x n, holding G) <- chol(G), upper. *ok, the same on every rank:
 * positive definite and, with check, the diagonal's spread accepted.
 * Collective. */
static int cholesky(const tsr_tsqr_plan *pl, double *r, int check, int *ok) {
  int good = 0;
  double t0 = tsr_trace_mark();
  int st = tsr_be_cholesky(pl->be, pl->ncols, r, &good);
  if (st == TSR_OK && good && check) st = diag_spread(pl, r, &good);
  tsr_trace_phase("cholesky", t0);
  st = tsr_agree(st);
  if (st == TSR_OK) st = tsr_agree_min(good, &good);
  *ok = st == TSR_OK && good;
  return st;
}

/* q[b] = blocks[b] R1^-1 on the owners: in place when the blocks are ours
 * to take (blocks[b] then NULL), else into a copy. */
static int first_q(const tsr_tsqr_plan *pl, double **blocks, const double *r1, double **q) {
  int64_t n = pl->ncols;
  tsr_workers w;
  tsr_workers_init(&w);
#pragma omp parallel for schedule(dynamic, 1)
  for (int64_t b = pl->rank; b < pl->nblocks; b += pl->size) {
    if (tsr_workers_stop(&w)) continue;
    int st = TSR_OK;
    if (pl->take_blocks) {
      q[b] = blocks[b];
      blocks[b] = NULL;
    } else {
      st = balloc(pl, pl->rows[b] * n, &q[b]);
      if (st == TSR_OK) st = tsr_be_copy(pl->be, blocks[b], q[b], (size_t)(pl->rows[b] * n));
    }
    if (st == TSR_OK) st = tsr_be_trsm_upper_right(pl->be, pl->rows[b], n, r1, q[b]);
    tsr_workers_fail(&w, st);
  }
  return tsr_workers_end(&w);
}

/* R = R2 R1 = u diag(s) vt on every rank; small = [s, vt] (first k, host),
 * m0 = u[:, :k] (n x k). */
static int small_svd(const tsr_tsqr_plan *pl, const double *r1, const double *r2, int64_t k,
                     double *small, double **m0) {
  int64_t n = pl->ncols;
  double *r = NULL;
  int st = balloc(pl, n * n, &r);
  if (st == TSR_OK) st = tsr_be_gemm(pl->be, n, n, n, r2, n, r1, n, 0.0, r, n);
  if (st == TSR_OK) st = tsr_tsqr_root_svd(pl, r, n, k, small, m0);
  bfree(pl, r);
  return st;
}

/* q[b] <- q[b] R2^-1 on the owners, side by side with the small SVD (a
 * worker takes it as its task): the solves need R2 only, and the SVD of R
 * (n x n) is a chain of small kernels that leaves the device mostly idle
 * (1000 x 1000: 34 ms on an H200, on every rank count; the rest of svd
 * 10^6 x 10^3 on 4 GPUs took 60 ms). The same operations as one after the
 * other, so the same bits. */
static int svd_beside_solves(const tsr_tsqr_plan *pl, double **q, const double *r1,
                             const double *r2, int64_t k, double *small, double **m0) {
  int64_t n = pl->ncols, mine = tsr_owned_count(pl->nblocks, pl->rank, pl->size);
  tsr_workers w;
  tsr_workers_init(&w);
#pragma omp parallel for schedule(dynamic, 1)
  for (int64_t i = 0; i <= mine; i++) {
    if (tsr_workers_stop(&w)) continue;
    if (i == 0) {
      tsr_workers_fail(&w, small_svd(pl, r1, r2, k, small, m0));
      continue;
    }
    int64_t b = pl->rank + (i - 1) * pl->size;
    tsr_workers_fail(&w, tsr_be_trsm_upper_right(pl->be, pl->rows[b], n, r2, q[b]));
  }
  return tsr_workers_end(&w);
}

/* out[b] = q[b] m0 on the owners (q[b] = Q1_b R2^-1). */
static int final_u(const tsr_tsqr_plan *pl, double **q, const double *m0, int64_t k, double **out) {
  int64_t n = pl->ncols;
  tsr_workers w;
  tsr_workers_init(&w);
#pragma omp parallel for schedule(dynamic, 1)
  for (int64_t b = pl->rank; b < pl->nblocks; b += pl->size) {
    if (tsr_workers_stop(&w)) continue;
    int64_t rows = pl->rows[b];
    int st = balloc(pl, rows * k, &out[b]);
    if (st == TSR_OK) st = tsr_be_gemm(pl->be, rows, k, n, q[b], n, m0, k, 0.0, out[b], k);
    tsr_workers_fail(&w, st);
  }
  return tsr_workers_end(&w);
}

/* After R1 passed: the second pass, the small SVD and U. Collective. */
static int second_pass(const tsr_tsqr_plan *pl, double **q, const double *r1, int64_t k,
                       double **out, double *small) {
  int64_t n = pl->ncols;
  double *r2 = NULL, *m0 = NULL;
  int ok = 0, st = tsr_agree(balloc(pl, n * n, &r2));
  if (st == TSR_OK) st = gram_sum(pl, q, r2);
  if (st == TSR_OK) st = cholesky(pl, r2, 0, &ok);
  if (st == TSR_OK && !ok) /* Q1 is orthogonal to about cond(A)^2 u < 1e-8 */
    st = tsr_agreed(
        TSR_ERROR(TSR_ERR_INTERNAL, "TSQR Gram path: the second Cholesky factor failed"));
  double t0 = tsr_trace_mark();
  if (st == TSR_OK) st = svd_beside_solves(pl, q, r1, r2, k, small, &m0);
  tsr_trace_phase("gram svd and solves", t0);
  t0 = tsr_trace_mark();
  if (st == TSR_OK) st = final_u(pl, q, m0, k, out);
  tsr_trace_phase("gram u", t0);
  bfree(pl, r2), bfree(pl, m0);
  return tsr_agree(st);
}

int tsr_tsqr_gram(const tsr_tsqr_plan *pl, int64_t k, double **blocks, double **out, double *small,
                  int *fell_back) {
  int64_t nb = pl->nblocks, n = pl->ncols;
  double *r1 = NULL, **q = calloc((size_t)nb + 1, sizeof(double *));
  int ok = 0, st = q ? balloc(pl, n * n, &r1) : TSR_ERROR(TSR_ERR_MEMORY, "out of memory");
  *fell_back = 0;
  st = tsr_agree(st);
  if (st == TSR_OK) st = gram_sum(pl, blocks, r1);
  if (st == TSR_OK) st = cholesky(pl, r1, 1, &ok);
  if (st == TSR_OK && !ok) *fell_back = 1; /* every rank: ok is agreed */
  double t0 = tsr_trace_mark();
  if (st == TSR_OK && ok) st = tsr_agree(first_q(pl, blocks, r1, q));
  tsr_trace_phase("gram q", t0);
  if (st == TSR_OK && ok) st = second_pass(pl, q, r1, k, out, small);
  for (int64_t b = 0; q && b < nb; b++) bfree(pl, q[b]);
  free(q);
  bfree(pl, r1);
  return st;
}
