/*
 * tsqr.c - the TSQR tree (see tsqr.h): local QR of row blocks, a binary
 * reduction of the R factors fixed by block index, the final R factored
 * (QR: sign-normalized; SVD: the backend's svd) on rank 0, and Q or U
 * recovered by applying the tree's Q factors back down, block by block on
 * their owners. Every matrix of the tree is in backend memory (device
 * memory with the CUDA backend); the root's small results are downloaded
 * and broadcast, its factor m0 stays where it was computed.
 *
 * Messages between tree nodes travel with tsr_exec_move, all the pairs of
 * one tree level at once (the R's or M's of several tree nodes between the
 * same two ranks are packed in block order).
 *
 * The thin SVD goes the Gram path (tsqr_gram.c) instead when the plan asks
 * and the matrix is well enough conditioned; svd_flip ends both.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "linalg/tsqr.h"

#include <stdlib.h>
#include <string.h>

#include "linalg/tsqr_gram.h"
#include "linalg/tsqr_common.h"
#include "mpi/agree.h"
#include "mpi/comm.h"
#include "mpi/p2p.h"
#include "mpi/tags.h"
#include "plan/plan.h"
#include "util/error.h"
#include "util/trace.h"
#include "util/workers.h"

#define MAX_LEVELS 64

static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

int64_t tsr_tsqr_rank_bound(const tsr_tsqr_plan *pl) {
  int64_t m = 0;
  for (int64_t b = 0; b < pl->nblocks; b++) m += pl->rows[b];
  return min64(m, pl->ncols);
}

/* ---- svd_flip -------------------------------------------------------------- */

/* Per column of U: the entry of largest magnitude among this rank's blocks
 * (the first in row order on ties), as (|u|, global row, sign). The blocks
 * are scanned side by side, then merged in block order. */
static int flip_local(const tsr_tsqr_plan *pl, int64_t k, double *const *out, tsr_colmax *pick) {
  int64_t mine = tsr_owned_count(pl->nblocks, pl->rank, pl->size);
  tsr_colmax *blk = malloc(sizeof(tsr_colmax) * (size_t)(k * mine + 1));
  if (!blk) return TSR_ERROR(TSR_ERR_MEMORY, "out of memory");
  for (int64_t j = 0; j < k; j++) pick[j] = (tsr_colmax){-1.0, -1, 1.0};
  tsr_workers w;
  tsr_workers_init(&w);
#pragma omp parallel for schedule(dynamic, 1)
  for (int64_t i = 0; i < mine; i++) {
    if (tsr_workers_stop(&w)) continue;
    int64_t b = pl->rank + i * pl->size;
    tsr_workers_fail(&w, tsr_be_col_absmax(pl->be, pl->rows[b], k, out[b], blk + i * k));
  }
  int st = tsr_workers_end(&w);
  int64_t first = 0;
  for (int64_t b = 0; b < pl->nblocks && st == TSR_OK; first += pl->rows[b], b++) {
    if (owner(pl, b) != pl->rank) continue;
    const tsr_colmax *c = blk + ((b - pl->rank) / pl->size) * k;
    for (int64_t j = 0; j < k; j++)
      if (c[j].big > pick[j].big) pick[j] = (tsr_colmax){c[j].big, first + c[j].row, c[j].sign};
  }
  free(blk);
  return st;
}

/* Column j of this rank's blocks of U times f[j], the blocks side by side. */
static int flip_blocks(const tsr_tsqr_plan *pl, int64_t k, double **out, const double *f) {
  tsr_workers w;
  tsr_workers_init(&w);
#pragma omp parallel for schedule(dynamic, 1)
  for (int64_t b = pl->rank; b < pl->nblocks; b += pl->size) {
    if (tsr_workers_stop(&w)) continue;
    tsr_workers_fail(&w, tsr_be_scale_cols(pl->be, pl->rows[b], k, out[b], f));
  }
  return tsr_workers_end(&w);
}

/* sklearn's svd_flip (u-based) over the distributed U: the entry of largest
 * magnitude of each column (the first in row order on ties) made positive,
 * flipping that column of U on every rank and that row of vt (k x n). The
 * ranks' candidates are combined in rank order, with the same comparison as
 * one pass over the whole column, so the choice does not depend on the
 * number of ranks. Collective. */
static int svd_flip(const tsr_tsqr_plan *pl, int64_t k, double **out, double *vt) {
  int64_t n = pl->ncols;
  tsr_colmax *mine = malloc(sizeof(tsr_colmax) * (size_t)(k + 1)), *best = NULL;
  double *f = malloc(sizeof(double) * (size_t)(k + 1));
  int st = mine && f ? flip_local(pl, k, out, mine) : TSR_ERROR(TSR_ERR_MEMORY, "out of memory");
  st = tsr_agree(st);
  char *all = NULL;
  size_t *counts = NULL;
  if (st == TSR_OK)
    st = tsr_comm_allgather_bytes(mine, sizeof(tsr_colmax) * (size_t)k, &all, &counts);
  if (st == TSR_OK) {
    best = mine; /* reused: the winner per column */
    for (int64_t j = 0; j < k; j++) best[j] = (tsr_colmax){-1.0, -1, 1.0};
    size_t off = 0;
    for (int q = 0; q < pl->size; off += counts[q], q++) {
      const tsr_colmax *their = (const tsr_colmax *)(all + off);
      for (int64_t j = 0; j < k; j++)
        if (their[j].row >= 0 && (their[j].big > best[j].big ||
                                  (their[j].big == best[j].big && their[j].row < best[j].row)))
          best[j] = their[j];
    }
    for (int64_t j = 0; j < k; j++) {
      f[j] = best[j].sign > 0 ? 1.0 : -1.0;
      if (f[j] < 0)
        for (int64_t c = 0; c < n; c++) vt[j * n + c] = -vt[j * n + c];
    }
    st = flip_blocks(pl, k, out, f);
  }
  free(all), free(counts), free(mine), free(f);
  return tsr_agree(st);
}

/* ---- the tree ---------------------------------------------------------------- */

/* C (m x n) = A (m x k) B (k x n), all row-major and compact. */
static int gemm(const tsr_tsqr_plan *pl, int64_t m, int64_t n, int64_t k, const double *a,
                const double *b, double *c) {
  return tsr_be_gemm(pl->be, m, n, k, a, k, b, n, 0.0, c, n);
}

/* Thin QR of a (m x n): q (m x r) and r (r x n, upper triangular), r = min(m, n).
 * in_place: a is the caller's to give up (q becomes a when m >= n). c (the
 * leaves; NULL for the tree's nodes): where the backend has qr_deferred and
 * m >= n, q may come with a correction *c (Q = q c; else *c is NULL):
 * CholeskyQR2's second pass is then applied to the small matrix of the
 * down-sweep instead of to the block's m rows. */
static int qr_local(const tsr_tsqr_plan *pl, int64_t m, int64_t n, double *a, int in_place,
                    double **q, double **r, double **c) {
  int64_t kk = min64(m, n);
  int defer = c && m >= n && tsr_be_has_qr_deferred(pl->be), has_c = 0;
  *q = *r = NULL;
  if (c) *c = NULL;
  in_place = in_place && m >= n;
  int st = in_place ? TSR_OK : balloc(pl, m * kk, q);
  if (st == TSR_OK) st = balloc(pl, kk * n, r);
  if (in_place) *q = a;
  if (st == TSR_OK && defer) st = balloc(pl, n * n, c);
  if (st == TSR_OK)
    st = defer ? tsr_be_qr_deferred(pl->be, m, n, a, *q, *r, *c, &has_c)
               : tsr_be_qr(pl->be, m, n, a, *q, *r);
  if (c && (st != TSR_OK || !has_c)) {
    bfree(pl, *c);
    *c = NULL;
  }
  if (st != TSR_OK) {
    if (!in_place) bfree(pl, *q);
    bfree(pl, *r);
    *q = *r = NULL;
  }
  return st;
}

/* The state of the tree on this rank: per tree node (its left-most block
 * index) and level, what its owner holds. Sizes are known on every rank. */
typedef struct tree {
  const tsr_tsqr_plan *pl;
  int64_t nb, n;
  int nlev;
  int64_t *rleaf;                                            /* rows of each leaf's R */
  int64_t *rl[MAX_LEVELS], *rr[MAX_LEVELS], *rn[MAX_LEVELS]; /* stacked halves, result */
  double **qleaf;                                            /* leaf Q factors (owned blocks) */
  double **cleaf;          /* a leaf's deferred correction (Q = qleaf c), or NULL */
  double **qn[MAX_LEVELS]; /* stacked Q factors of internal nodes (owned) */
  double **r;              /* current R of each node (owned) */
} tree;

static void tree_free(tree *t) {
  for (int64_t b = 0; b < t->nb; b++) {
    if (t->qleaf) bfree(t->pl, t->qleaf[b]);
    if (t->cleaf) bfree(t->pl, t->cleaf[b]);
    if (t->r) bfree(t->pl, t->r[b]);
    for (int L = 0; L < t->nlev; L++)
      if (t->qn[L]) bfree(t->pl, t->qn[L][b]);
  }
  for (int L = 0; L < t->nlev; L++) free(t->rl[L]), free(t->rr[L]), free(t->rn[L]), free(t->qn[L]);
  free(t->rleaf), free(t->qleaf), free(t->cleaf), free(t->r);
}

/* The leaves of this rank in parallel (the backends' kernels are safe to
 * call from several threads; the CPU's use one BLAS thread each). */
static int tree_leaves(const tsr_tsqr_plan *pl, double **blocks, tree *t) {
  tsr_workers w;
  tsr_workers_init(&w);
#pragma omp parallel for schedule(dynamic, 1)
  for (int64_t b = pl->rank; b < t->nb; b += pl->size) {
    if (tsr_workers_stop(&w)) continue;
    int st = qr_local(pl, pl->rows[b], t->n, blocks[b], pl->take_blocks, &t->qleaf[b], &t->r[b],
                      &t->cleaf[b]);
    if (st == TSR_OK && pl->take_blocks) { /* factored in place, or no longer needed */
      if (t->qleaf[b] != blocks[b]) bfree(pl, blocks[b]);
      blocks[b] = NULL;
    }
    tsr_workers_fail(&w, st);
  }
  return tsr_workers_end(&w);
}

static int level_alloc(tree *t, int L) {
  if (L >= MAX_LEVELS) return TSR_ERROR(TSR_ERR_INTERNAL, "TSQR tree too deep");
  t->nlev = L + 1;
  t->rl[L] = calloc((size_t)t->nb, sizeof(int64_t));
  t->rr[L] = calloc((size_t)t->nb, sizeof(int64_t));
  t->rn[L] = calloc((size_t)t->nb, sizeof(int64_t));
  t->qn[L] = calloc((size_t)t->nb, sizeof(double *));
  if (!t->rl[L] || !t->rr[L] || !t->rn[L] || !t->qn[L])
    return TSR_ERROR(TSR_ERR_MEMORY, "out of memory");
  return TSR_OK;
}

/* On the owner of node i: its R stacked over node j's (received: rj rows
 * at in) and factored again, in place of the stack. */
static int stack_pair(const tsr_tsqr_plan *pl, tree *t, int L, int64_t i, int64_t ri, int64_t rj,
                      const double *in) {
  int64_t n = t->n, rows = ri + rj;
  double *stack = NULL, *r2 = NULL;
  int st = balloc(pl, rows * n, &stack);
  if (st == TSR_OK) st = tsr_be_copy(pl->be, t->r[i], stack, (size_t)(ri * n));
  if (st == TSR_OK) st = tsr_be_copy(pl->be, in, stack + ri * n, (size_t)(rj * n));
  if (st == TSR_OK) st = qr_local(pl, rows, n, stack, 1, &t->qn[L][i], &r2, NULL);
  if (t->qn[L][i] != stack) bfree(pl, stack);
  bfree(pl, t->r[i]);
  t->r[i] = r2;
  return st;
}

/* Level L (pairs i, i + s): each R of node i + s moves to the owner of
 * node i, which stacks and factors the pair. cur: rows of each node's R. */
static int tree_level(const tsr_tsqr_plan *pl, tree *t, int L, int64_t s, int64_t *cur,
                      tsr_p2p_piece *x, double **in) {
  int64_t nb = t->nb, n = t->n, nx = 0;
  int me = pl->rank, st = level_alloc(t, L);
  for (int64_t i = 0; i + s < nb && st == TSR_OK; i += 2 * s) {
    int64_t j = i + s;
    tsr_p2p_piece *e = &x[nx++];
    *e = (tsr_p2p_piece){owner(pl, j), owner(pl, i), t->r[j], NULL, (size_t)(cur[j] * n)};
    if (e->to == me && e->from != me) st = balloc(pl, cur[j] * n, &in[j]);
    e->dst = e->from == me && e->to == me ? NULL : in[j];
    if (e->from == me && e->to == me) e->n = 0; /* stacked from where it is */
  }
  double t0 = tsr_trace_mark();
  st = tsr_agree(st); /* no rank waits for pieces a failed rank will not send */
  if (st == TSR_OK) st = move(pl, x, nx, TSR_TAG_TSQR_UP + L);
  tsr_trace_phase("tsqr level move", t0);
  for (int64_t i = 0; i + s < nb; i += 2 * s) {
    t->rl[L][i] = cur[i];
    t->rr[L][i] = cur[i + s];
    t->rn[L][i] = min64(cur[i] + cur[i + s], n);
  }
  /* This rank's pairs of the level at once: they are independent. */
  tsr_workers w;
  tsr_workers_init(&w);
#pragma omp parallel for schedule(dynamic, 1)
  for (int64_t i = 0; i < nb - s; i += 2 * s) {
    if (st != TSR_OK || owner(pl, i) != me || tsr_workers_stop(&w)) continue;
    int64_t j = i + s;
    tsr_workers_fail(&w, stack_pair(pl, t, L, i, cur[i], cur[j], in[j] ? in[j] : t->r[j]));
  }
  if (st == TSR_OK) st = tsr_workers_end(&w);
  for (int64_t i = 0; i + s < nb; i += 2 * s) {
    int64_t j = i + s, rows = cur[i] + cur[j];
    if (owner(pl, j) == me) {
      bfree(pl, t->r[j]);
      t->r[j] = NULL;
    }
    bfree(pl, in[j]);
    in[j] = NULL;
    cur[i] = min64(rows, n);
  }
  return st;
}

/* Up-sweep: leaves factored, then R's combined level by level. */
static int tree_up(const tsr_tsqr_plan *pl, double **blocks, tree *t) {
  int64_t nb = t->nb;
  t->rleaf = calloc((size_t)nb, sizeof(int64_t));
  t->qleaf = calloc((size_t)nb, sizeof(double *));
  t->cleaf = calloc((size_t)nb, sizeof(double *));
  t->r = calloc((size_t)nb, sizeof(double *));
  if (!t->rleaf || !t->qleaf || !t->cleaf || !t->r)
    return TSR_ERROR(TSR_ERR_MEMORY, "out of memory");
  int64_t *cur = calloc((size_t)nb, sizeof(int64_t)); /* rows of each node's current R */
  if (!cur) return TSR_ERROR(TSR_ERR_MEMORY, "out of memory");
  for (int64_t b = 0; b < nb; b++) t->rleaf[b] = cur[b] = min64(pl->rows[b], t->n);
  double t0 = tsr_trace_mark();
  int st = tree_leaves(pl, blocks, t);
  tsr_trace_phase("tsqr leaves", t0);
  tsr_p2p_piece *x = calloc((size_t)nb + 1, sizeof *x);
  double **in = calloc((size_t)nb + 1, sizeof(double *));
  if (st == TSR_OK && (!x || !in)) st = TSR_ERROR(TSR_ERR_MEMORY, "out of memory");
  st = tsr_agree(st); /* a rank that failed on its leaves must not leave the others waiting */
  int L = 0;
  t0 = tsr_trace_mark();
  for (int64_t s = 1; s < nb && st == TSR_OK; s *= 2, L++) {
    double tl = tsr_trace_mark();
    st = tsr_agree(tree_level(pl, t, L, s, cur, x, in));
    tsr_trace_phase("tsqr level", tl);
  }
  tsr_trace_phase("tsqr levels", t0);
  free(x), free(in), free(cur);
  return st;
}

/* On the owner of node i at level L: Qn M[i] split into node i's new M
 * (its top rows) and the rows sent to node i + s (*send). */
static int down_pair(const tsr_tsqr_plan *pl, tree *t, int L, int64_t i, int64_t kout, double **M,
                     double **send) {
  int64_t rl = t->rl[L][i], rr = t->rr[L][i], rn = t->rn[L][i];
  double *p = NULL, *top = NULL;
  int st = balloc(pl, (rl + rr) * kout, &p);
  if (st == TSR_OK) st = balloc(pl, rl * kout, &top);
  if (st == TSR_OK) st = balloc(pl, rr * kout, send);
  if (st == TSR_OK) st = gemm(pl, rl + rr, kout, rn, t->qn[L][i], M[i], p);
  if (st == TSR_OK) st = tsr_be_copy(pl->be, p, top, (size_t)(rl * kout));
  if (st == TSR_OK) st = tsr_be_copy(pl->be, p + rl * kout, *send, (size_t)(rr * kout));
  bfree(pl, p);
  if (st != TSR_OK) {
    bfree(pl, top);
    return st;
  }
  bfree(pl, M[i]);
  M[i] = top;
  return TSR_OK;
}

/* One level of the down-sweep: this rank's pairs, then the lower halves
 * moved to their nodes. Every rank agrees before the move (none waits for
 * rows a failed rank will not send) and after it, so that all ranks make the
 * same collective calls, failed or not. */
static int down_level(const tsr_tsqr_plan *pl, tree *t, int L, int64_t kout, double **M,
                      double **send, tsr_p2p_piece *x) {
  int64_t nb = t->nb, s = (int64_t)1 << L, nx = 0;
  int me = pl->rank, st = TSR_OK;
  for (int64_t i = 0; i + s < nb && st == TSR_OK; i += 2 * s) {
    int64_t j = i + s, rr = t->rr[L][i];
    if (owner(pl, i) == me) st = down_pair(pl, t, L, i, kout, M, &send[j]);
    if (st != TSR_OK) break;
    tsr_p2p_piece *e = &x[nx++];
    *e = (tsr_p2p_piece){owner(pl, i), owner(pl, j), send[j], NULL, (size_t)(rr * kout)};
    if (e->to == me && e->from == me) { /* the rows stay here: they are node j's M */
      M[j] = send[j];
      send[j] = NULL;
      e->n = 0;
    } else if (e->to == me) {
      st = balloc(pl, rr * kout, &M[j]);
      e->dst = M[j];
    }
  }
  st = tsr_agree(st);
  if (st == TSR_OK) st = move(pl, x, nx, TSR_TAG_TSQR_DOWN + L);
  for (int64_t j = 0; j < nb; j++) {
    bfree(pl, send[j]);
    send[j] = NULL;
  }
  return st;
}

/* out = Q M for leaf b: qleaf M, or qleaf (c M) with a deferred correction. */
static int leaf_product(const tsr_tsqr_plan *pl, const tree *t, int64_t b, int64_t kout,
                        const double *M, double *out) {
  int64_t rows = pl->rows[b], r = t->rleaf[b];
  if (!t->cleaf[b]) return gemm(pl, rows, kout, r, t->qleaf[b], M, out);
  double *cm = NULL;
  int st = balloc(pl, r * kout, &cm);
  if (st == TSR_OK) st = gemm(pl, r, kout, r, t->cleaf[b], M, cm);
  if (st == TSR_OK) st = gemm(pl, rows, kout, r, t->qleaf[b], cm, out);
  bfree(pl, cm);
  return st;
}

/* Down-sweep: m0 (K x kout, on the owner of block 0, taken over) applied
 * back through the tree; out[b] = Qleaf[b] M[b] on each owner. Collective:
 * every rank enters it with the same (agreed) status. */
static int tree_down(const tsr_tsqr_plan *pl, tree *t, double *m0, int64_t kout, double **out) {
  int64_t nb = t->nb;
  int me = pl->rank, st = TSR_OK;
  double **M = calloc((size_t)nb + 1, sizeof(double *)),
         **send = calloc((size_t)nb + 1, sizeof(double *));
  tsr_p2p_piece *x = calloc((size_t)nb + 1, sizeof *x);
  if (!M || !send || !x) st = TSR_ERROR(TSR_ERR_MEMORY, "out of memory");
  if (M)
    M[0] = m0;
  else
    bfree(pl, m0);
  st = tsr_agree(st);
  for (int L = t->nlev - 1; L >= 0 && st == TSR_OK; L--)
    st = down_level(pl, t, L, kout, M, send, x);
  for (int64_t b = me; b < nb && st == TSR_OK; b += pl->size)
    st = balloc(pl, pl->rows[b] * kout, &out[b]);
  tsr_workers w;
  tsr_workers_init(&w);
#pragma omp parallel for schedule(dynamic, 1)
  for (int64_t b = me; b < nb; b += pl->size) {
    if (st != TSR_OK || tsr_workers_stop(&w)) continue;
    tsr_workers_fail(&w, leaf_product(pl, t, b, kout, M[b], out[b]));
  }
  if (st == TSR_OK) st = tsr_workers_end(&w);
  for (int64_t b = 0; M && b < nb; b++) bfree(pl, M[b]);
  free(M), free(send), free(x);
  return st;
}

/* ---- the root ------------------------------------------------------------------ */

/* QR: r = D R with D = sign(diag R) (host, into small), m0 = D (K x K). */
static int root_qr(const tsr_tsqr_plan *pl, const double *R, int64_t K, double *small,
                   double **m0) {
  int64_t n = pl->ncols;
  double *h = malloc(sizeof(double) * (size_t)(K * n + 1)),
         *d = calloc((size_t)(K * K + 1), sizeof(double));
  int st = h && d ? tsr_be_download(pl->be, R, h, (size_t)(K * n))
                  : TSR_ERROR(TSR_ERR_MEMORY, "out of memory");
  for (int64_t i = 0; i < K && st == TSR_OK; i++) {
    double s = h[i * n + i] < 0 ? -1.0 : 1.0;
    for (int64_t j = 0; j < n; j++) small[i * n + j] = j < i ? 0.0 : s * h[i * n + j];
    d[i * K + i] = s;
  }
  if (st == TSR_OK) st = balloc(pl, K * K, m0);
  if (st == TSR_OK) st = tsr_be_upload(pl->be, d, *m0, (size_t)(K * K));
  free(h), free(d);
  return st;
}

int tsr_tsqr_root_svd(const tsr_tsqr_plan *pl, const double *R, int64_t K, int64_t k, double *small,
                      double **m0) {
  int64_t n = pl->ncols;
  double *s = NULL, *u = NULL, *vt = NULL;
  int st = balloc(pl, K, &s);
  if (st == TSR_OK) st = balloc(pl, K * K, &u);
  if (st == TSR_OK) st = balloc(pl, K * n, &vt);
  if (st == TSR_OK) st = tsr_be_svd(pl->be, K, n, R, s, u, vt);
  if (st == TSR_OK) st = tsr_be_download(pl->be, s, small, (size_t)k);
  if (st == TSR_OK) st = tsr_be_download(pl->be, vt, small + k, (size_t)(k * n));
  if (st == TSR_OK) st = balloc(pl, K * k, m0);
  if (st == TSR_OK) st = tsr_be_copy2d(pl->be, K, k, u, K, *m0, k);
  bfree(pl, s), bfree(pl, u), bfree(pl, vt);
  return st;
}

/* The root's status and small results from rank 0 to every rank. */
static int root_bcast(const tsr_tsqr_plan *pl, int st, double *small, int64_t nsmall) {
  size_t len = (size_t)(1 + nsmall);
  double *buf = calloc(len, sizeof(double));
  if (!buf) return tsr_agree(TSR_ERROR(TSR_ERR_MEMORY, "out of memory"));
  if (pl->rank == owner(pl, 0)) {
    buf[0] = (double)st;
    memcpy(buf + 1, small, sizeof(double) * (size_t)nsmall);
  }
  int bst = tsr_p2p_bcast(buf, sizeof(double) * len);
  if (st == TSR_OK) st = bst;
  if (st == TSR_OK && buf[0] != 0.0)
    st = TSR_ERROR((int)buf[0], "the factorization failed on rank 0");
  if (st == TSR_OK) memcpy(small, buf + 1, sizeof(double) * (size_t)nsmall);
  free(buf);
  return tsr_agree(st);
}

/* The tree up, the root, the tree down. */
static int tree_svd_or_qr(const tsr_tsqr_plan *pl, tsr_tsqr_mode mode, int64_t k, double **blocks,
                          double **out, double *small) {
  int64_t n = pl->ncols, K = tsr_tsqr_rank_bound(pl);
  tree t;
  memset(&t, 0, sizeof t);
  t.pl = pl;
  t.nb = pl->nblocks;
  t.n = n;
  int st = tsr_agree(tree_up(pl, blocks, &t));
  int64_t nsmall = mode == TSR_TSQR_QR ? K * n : k + k * n, kout = mode == TSR_TSQR_QR ? K : k;
  double *m0 = NULL, t0 = tsr_trace_mark();
  if (st == TSR_OK && pl->rank == owner(pl, 0))
    st = mode == TSR_TSQR_QR ? root_qr(pl, t.r[0], K, small, &m0)
                             : tsr_tsqr_root_svd(pl, t.r[0], K, k, small, &m0);
  st = root_bcast(pl, st, small, nsmall);
  tsr_trace_phase("tsqr root", t0);
  t0 = tsr_trace_mark();
  if (st == TSR_OK) {
    st = tsr_agree(tree_down(pl, &t, m0, kout, out));
    m0 = NULL;
  }
  tsr_trace_phase("tsqr down", t0);
  bfree(pl, m0);
  tree_free(&t);
  return st;
}

int tsr_tsqr(const tsr_tsqr_plan *pl, tsr_tsqr_mode mode, int64_t k, double **blocks, double **out,
             double *small) {
  int64_t n = pl->ncols, K = tsr_tsqr_rank_bound(pl);
  if (pl->nblocks <= 0 || K <= 0) return TSR_ERROR(TSR_ERR_VALUE, "cannot factor an empty matrix");
  if (mode == TSR_TSQR_QR) k = K;
  if (k < 1 || k > K)
    return TSR_ERROR(TSR_ERR_VALUE, "k must be 1 to %lld, got %lld", (long long)K, (long long)k);
  for (int64_t b = 0; b < pl->nblocks; b++) {
    out[b] = NULL;
    if (pl->rows[b] <= 0) return TSR_ERROR(TSR_ERR_VALUE, "empty row block %lld", (long long)b);
  }
  int use_tree = 1, st = TSR_OK;
  /* The Gram path: SVD only, and only where R is square (rows >= columns). */
  if (mode == TSR_TSQR_SVD && pl->gram && K == n && tsr_be_has_gram(pl->be))
    st = tsr_tsqr_gram(pl, k, blocks, out, small, &use_tree);
  if (st == TSR_OK && use_tree) st = tree_svd_or_qr(pl, mode, k, blocks, out, small);
  double t0 = tsr_trace_mark();
  if (st == TSR_OK && mode == TSR_TSQR_SVD) st = svd_flip(pl, k, out, small + k);
  tsr_trace_phase("svd_flip", t0);
  if (st != TSR_OK)
    for (int64_t b = 0; b < pl->nblocks; b++) {
      bfree(pl, out[b]);
      out[b] = NULL;
    }
  return st;
}
