/*
 * tsqr.c - the TSQR tree (see tsqr.h): local QR of row blocks, a binary
 * reduction of the R factors fixed by block index, the final R factored
 * (QR: sign-normalized; SVD: dgesdd) on rank 0, and Q or U recovered by
 * applying the tree's Q factors back down, block by block on their owners.
 *
 * Messages between tree nodes travel with tsr_p2p_exchange, all the pairs of
 * one tree level at once, one message per pair of ranks (the R's or M's of
 * several tree nodes between the same two ranks are packed in block order).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "linalg/tsqr.h"

#include <stdlib.h>
#include <string.h>

#include "util/error.h"
#include "mpi/comm.h"
#include "mpi/agree.h"
#include "mpi/p2p.h"
#include "mpi/tags.h"
#include "util/workers.h"

#define MAX_LEVELS 64

static int owner(const tsr_tsqr_plan *pl, int64_t b) { return (int)(b % pl->size); }
static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

int64_t tsr_tsqr_rank_bound(const tsr_tsqr_plan *pl) {
  int64_t m = 0;
  for (int64_t b = 0; b < pl->nblocks; b++) m += pl->rows[b];
  return min64(m, pl->ncols);
}

/* Per column of U: the entry of largest magnitude among this rank's blocks
 * (the first in row order on ties), as (|u|, global row, sign). */
typedef struct flip_pick {
  double big;
  int64_t row;
  double sign;
} flip_pick;

static void flip_local(const tsr_tsqr_plan *pl, int64_t k, double *const *out, flip_pick *pick) {
  for (int64_t j = 0; j < k; j++) pick[j] = (flip_pick){-1.0, -1, 1.0};
  int64_t first = 0;
  for (int64_t b = 0; b < pl->nblocks; first += pl->rows[b], b++) {
    if (owner(pl, b) != pl->rank) continue;
    for (int64_t i = 0; i < pl->rows[b]; i++)
      for (int64_t j = 0; j < k; j++) {
        double u = out[b][i * k + j], v = u < 0 ? -u : u;
        if (v > pick[j].big) pick[j] = (flip_pick){v, first + i, u < 0 ? -1.0 : 1.0};
      }
  }
}

/* sklearn's svd_flip (u-based) over the distributed U: the entry of largest
 * magnitude of each column (the first in row order on ties) made positive,
 * flipping that column of U on every rank and that row of vt (k x n). The
 * ranks' candidates are combined in rank order, with the same comparison as
 * one pass over the whole column, so the choice does not depend on the
 * number of ranks. Collective. */
static int svd_flip(const tsr_tsqr_plan *pl, int64_t k, double **out, double *vt) {
  int64_t n = pl->ncols;
  flip_pick *mine = malloc(sizeof(flip_pick) * (size_t)(k + 1)), *best = NULL;
  if (!mine) return TSR_ERROR(TSR_ERR_MEMORY, "out of memory");
  flip_local(pl, k, out, mine);
  char *all = NULL;
  size_t *counts = NULL;
  int st = tsr_comm_allgather_bytes(mine, sizeof(flip_pick) * (size_t)k, &all, &counts);
  if (st == TSR_OK) {
    best = mine; /* reused: the winner per column */
    for (int64_t j = 0; j < k; j++) best[j] = (flip_pick){-1.0, -1, 1.0};
    size_t off = 0;
    for (int q = 0; q < pl->size; off += counts[q], q++) {
      const flip_pick *their = (const flip_pick *)(all + off);
      for (int64_t j = 0; j < k; j++)
        if (their[j].row >= 0 && (their[j].big > best[j].big ||
                                  (their[j].big == best[j].big && their[j].row < best[j].row)))
          best[j] = their[j];
    }
    for (int64_t j = 0; j < k; j++) {
      if (best[j].sign > 0) continue;
      for (int64_t b = pl->rank; b < pl->nblocks; b += pl->size)
        for (int64_t i = 0; i < pl->rows[b]; i++) out[b][i * k + j] = -out[b][i * k + j];
      for (int64_t c = 0; c < n; c++) vt[j * n + c] = -vt[j * n + c];
    }
  }
  free(all), free(counts), free(mine);
  return st;
}

/* C (m x n) = A (m x k) B (k x n), all row-major and compact. */
static int gemm(const tsr_tsqr_plan *pl, int64_t m, int64_t n, int64_t k, const double *a,
                const double *b, double *c) {
  return tsr_be_gemm(pl->be, m, n, k, a, k, b, n, 0.0, c, n);
}

/* Thin QR of a (m x n): q (m x r) and r (r x n, upper triangular), r = min(m, n). */
static int qr_local(const tsr_tsqr_plan *pl, int64_t m, int64_t n, const double *a, double **q,
                    double **r) {
  int64_t kk = min64(m, n);
  *q = malloc(sizeof(double) * (size_t)(m * kk + 1));
  *r = malloc(sizeof(double) * (size_t)(kk * n + 1));
  int st = *q && *r ? tsr_be_qr(pl->be, m, n, a, *q, *r)
                    : TSR_ERROR(TSR_ERR_MEMORY, "out of memory for a %lld x %lld QR", (long long)m,
                                (long long)n);
  if (st != TSR_OK) {
    free(*q), free(*r);
    *q = *r = NULL;
  }
  return st;
}

/* The state of the tree on this rank: per tree node (its left-most block
 * index) and level, what its owner holds. Sizes are known on every rank. */
typedef struct tree {
  int64_t nb, n;
  int nlev;
  int64_t *rleaf;                                            /* rows of each leaf's R */
  int64_t *rl[MAX_LEVELS], *rr[MAX_LEVELS], *rn[MAX_LEVELS]; /* stacked halves, result */
  double **qleaf;                                            /* leaf Q factors (owned blocks) */
  double **qn[MAX_LEVELS]; /* stacked Q factors of internal nodes (owned) */
  double **r;              /* current R of each node (owned) */
} tree;

static void tree_free(tree *t) {
  for (int64_t b = 0; b < t->nb; b++) {
    if (t->qleaf) free(t->qleaf[b]);
    if (t->r) free(t->r[b]);
    for (int L = 0; L < t->nlev; L++)
      if (t->qn[L]) free(t->qn[L][b]);
  }
  for (int L = 0; L < t->nlev; L++) free(t->rl[L]), free(t->rr[L]), free(t->rn[L]), free(t->qn[L]);
  free(t->rleaf), free(t->qleaf), free(t->r);
}

/* The leaves of this rank in parallel, each with one BLAS thread. */
static int tree_leaves(const tsr_tsqr_plan *pl, double *const *blocks, tree *t) {
  tsr_workers w;
  tsr_workers_init(&w);
#pragma omp parallel for schedule(dynamic, 1)
  for (int64_t b = pl->rank; b < t->nb; b += pl->size) {
    if (tsr_workers_stop(&w)) continue;
    tsr_workers_fail(&w, qr_local(pl, pl->rows[b], t->n, blocks[b], &t->qleaf[b], &t->r[b]));
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

/* On the owner of node i: its R stacked over node j's (received: rj) and
 * factored again. */
static int stack_pair(const tsr_tsqr_plan *pl, tree *t, int L, int64_t i, int64_t ri, int64_t rj,
                      const double *in) {
  int64_t n = t->n, rows = ri + rj;
  double *stack = malloc(sizeof(double) * (size_t)(rows * n + 1)), *r2 = NULL;
  int st = stack ? TSR_OK : TSR_ERROR(TSR_ERR_MEMORY, "out of memory");
  if (st == TSR_OK) {
    memcpy(stack, t->r[i], sizeof(double) * (size_t)(ri * n));
    memcpy(stack + ri * n, in, sizeof(double) * (size_t)(rj * n));
    st = qr_local(pl, rows, n, stack, &t->qn[L][i], &r2);
  }
  free(stack);
  free(t->r[i]);
  t->r[i] = r2;
  return st;
}

/* Level L (pairs i, i + s): each R of node i + s moves to the owner of
 * node i, which stacks and factors the pair. cur: rows of each node's R. */
static int tree_level(const tsr_tsqr_plan *pl, tree *t, int L, int64_t s, int64_t *cur,
                      tsr_p2p_piece *x, double **in) {
  int64_t nb = t->nb, n = t->n, nx = 0;
  int me = pl->rank, st = level_alloc(t, L);
  if (st != TSR_OK) return st;
  for (int64_t i = 0; i + s < nb && st == TSR_OK; i += 2 * s) {
    int64_t j = i + s;
    tsr_p2p_piece *e = &x[nx++];
    *e = (tsr_p2p_piece){owner(pl, j), owner(pl, i), t->r[j], NULL, (size_t)(cur[j] * n)};
    if (e->to == me && !(e->dst = in[j] = malloc(sizeof(double) * (e->n + 1))))
      st = TSR_ERROR(TSR_ERR_MEMORY, "out of memory");
  }
  st = tsr_agree(st); /* no rank waits for pieces a failed rank will not send */
  if (st == TSR_OK) st = tsr_p2p_move(x, nx, pl->rank, pl->size, TSR_TAG_TSQR_UP + L);
  for (int64_t i = 0; i + s < nb; i += 2 * s) {
    int64_t j = i + s, rows = cur[i] + cur[j];
    t->rl[L][i] = cur[i];
    t->rr[L][i] = cur[j];
    t->rn[L][i] = min64(rows, n);
    if (owner(pl, j) == me) {
      free(t->r[j]);
      t->r[j] = NULL;
    }
    if (owner(pl, i) == me && st == TSR_OK) st = stack_pair(pl, t, L, i, cur[i], cur[j], in[j]);
    free(in[j]);
    in[j] = NULL;
    cur[i] = min64(rows, n);
  }
  return st;
}

/* Up-sweep: leaves factored, then R's combined level by level. */
static int tree_up(const tsr_tsqr_plan *pl, double *const *blocks, tree *t) {
  int64_t nb = t->nb;
  t->rleaf = calloc((size_t)nb, sizeof(int64_t));
  t->qleaf = calloc((size_t)nb, sizeof(double *));
  t->r = calloc((size_t)nb, sizeof(double *));
  if (!t->rleaf || !t->qleaf || !t->r) return TSR_ERROR(TSR_ERR_MEMORY, "out of memory");
  int64_t *cur = calloc((size_t)nb, sizeof(int64_t)); /* rows of each node's current R */
  if (!cur) return TSR_ERROR(TSR_ERR_MEMORY, "out of memory");
  for (int64_t b = 0; b < nb; b++) t->rleaf[b] = cur[b] = min64(pl->rows[b], t->n);
  int st = tree_leaves(pl, blocks, t);
  tsr_p2p_piece *x = calloc((size_t)nb + 1, sizeof *x);
  double **in = calloc((size_t)nb + 1, sizeof(double *));
  if (st == TSR_OK && (!x || !in)) st = TSR_ERROR(TSR_ERR_MEMORY, "out of memory");
  st = tsr_agree(st); /* a rank that failed on its leaves must not leave the others waiting */
  int L = 0;
  for (int64_t s = 1; s < nb && st == TSR_OK; s *= 2, L++)
    st = tsr_agree(tree_level(pl, t, L, s, cur, x, in));
  free(x), free(in), free(cur);
  return st;
}

/* On the owner of node i at level L: Qn M[i] split into node i's new M
 * (its top rows) and the rows sent to node i + s (*send). */
static int down_pair(const tsr_tsqr_plan *pl, tree *t, int L, int64_t i, int64_t kout, double **M,
                     double **send) {
  int64_t rl = t->rl[L][i], rr = t->rr[L][i], rn = t->rn[L][i];
  double *p = malloc(sizeof(double) * (size_t)((rl + rr) * kout + 1));
  double *top = malloc(sizeof(double) * (size_t)(rl * kout + 1));
  *send = malloc(sizeof(double) * (size_t)(rr * kout + 1));
  int st = p && top && *send ? TSR_OK : TSR_ERROR(TSR_ERR_MEMORY, "out of memory");
  if (st == TSR_OK) st = gemm(pl, rl + rr, kout, rn, t->qn[L][i], M[i], p);
  if (st != TSR_OK) {
    free(p), free(top);
    return st;
  }
  memcpy(top, p, sizeof(double) * (size_t)(rl * kout));
  memcpy(*send, p + rl * kout, sizeof(double) * (size_t)(rr * kout));
  free(p);
  free(M[i]);
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
    if (e->to == me && !(e->dst = M[j] = malloc(sizeof(double) * (e->n + 1))))
      st = TSR_ERROR(TSR_ERR_MEMORY, "out of memory");
  }
  st = tsr_agree(st);
  if (st == TSR_OK) st = tsr_agree(tsr_p2p_move(x, nx, pl->rank, pl->size, TSR_TAG_TSQR_DOWN + L));
  for (int64_t j = 0; j < nb; j++) {
    free(send[j]);
    send[j] = NULL;
  }
  return st;
}

/* Down-sweep: m0 (K x kout, on the owner of block 0) applied back through
 * the tree; out[b] = Qleaf[b] M[b] on each owner. Collective: every rank
 * enters it with the same (agreed) status. */
static int tree_down(const tsr_tsqr_plan *pl, tree *t, const double *m0, int64_t kout,
                     double **out) {
  int64_t nb = t->nb;
  int me = pl->rank, st = TSR_OK;
  double **M = calloc((size_t)nb + 1, sizeof(double *)),
         **send = calloc((size_t)nb + 1, sizeof(double *));
  tsr_p2p_piece *x = calloc((size_t)nb + 1, sizeof *x);
  if (!M || !send || !x) st = TSR_ERROR(TSR_ERR_MEMORY, "out of memory");
  int64_t K = t->nlev ? t->rn[t->nlev - 1][0] : t->rleaf[0];
  if (st == TSR_OK && me == owner(pl, 0)) {
    if (!(M[0] = malloc(sizeof(double) * (size_t)(K * kout + 1))))
      st = TSR_ERROR(TSR_ERR_MEMORY, "out of memory");
    else
      memcpy(M[0], m0, sizeof(double) * (size_t)(K * kout));
  }
  st = tsr_agree(st);
  for (int L = t->nlev - 1; L >= 0 && st == TSR_OK; L--)
    st = down_level(pl, t, L, kout, M, send, x);
  for (int64_t b = me; b < nb && st == TSR_OK; b += pl->size)
    if (!(out[b] = malloc(sizeof(double) * (size_t)(pl->rows[b] * kout + 1))))
      st = TSR_ERROR(TSR_ERR_MEMORY, "out of memory for a block of Q");
  tsr_workers w;
  tsr_workers_init(&w);
#pragma omp parallel for schedule(dynamic, 1)
  for (int64_t b = me; b < nb; b += pl->size) {
    if (st != TSR_OK || tsr_workers_stop(&w)) continue;
    tsr_workers_fail(&w, gemm(pl, pl->rows[b], kout, t->rleaf[b], t->qleaf[b], M[b], out[b]));
  }
  if (st == TSR_OK) st = tsr_workers_end(&w);
  for (int64_t b = 0; M && b < nb; b++) free(M[b]);
  free(M), free(send), free(x);
  return st;
}

/* On rank 0: the final R (K x n) turned into what every rank needs:
 * buf = [status, small..., m0 (K x kout)]. */
static int root_factor(const tsr_tsqr_plan *pl, tree *t, tsr_tsqr_mode mode, int64_t K, int64_t k,
                       double *buf) {
  int64_t n = t->n;
  const double *R = t->r[0];
  double *small = buf + 1;
  if (mode == TSR_TSQR_QR) {
    double *m0 = small + K * n;
    memset(m0, 0, sizeof(double) * (size_t)(K * K));
    for (int64_t i = 0; i < K; i++) {
      double d = R[i * n + i] < 0 ? -1.0 : 1.0;
      for (int64_t j = 0; j < n; j++) small[i * n + j] = j < i ? 0.0 : d * R[i * n + j];
      m0[i * K + i] = d;
    }
    return TSR_OK;
  }
  double *s = malloc(sizeof(double) * (size_t)(K + 1)),
         *u = malloc(sizeof(double) * (size_t)(K * K + 1));
  double *vt = malloc(sizeof(double) * (size_t)(K * n + 1));
  int st = s && u && vt ? tsr_be_svd(pl->be, K, n, R, s, u, vt)
                        : TSR_ERROR(TSR_ERR_MEMORY, "out of memory for the SVD of R");
  if (st == TSR_OK) {
    double *m0 = small + k + k * n;
    memcpy(small, s, sizeof(double) * (size_t)k);
    memcpy(small + k, vt, sizeof(double) * (size_t)(k * n));
    for (int64_t i = 0; i < K; i++) memcpy(m0 + i * k, u + i * K, sizeof(double) * (size_t)k);
  }
  free(s), free(u), free(vt);
  return st;
}

int tsr_tsqr(const tsr_tsqr_plan *pl, tsr_tsqr_mode mode, int64_t k, double *const *blocks,
             double **out, double *small) {
  int64_t n = pl->ncols, K = tsr_tsqr_rank_bound(pl);
  if (pl->nblocks <= 0 || K <= 0) return TSR_ERROR(TSR_ERR_VALUE, "cannot factor an empty matrix");
  if (mode == TSR_TSQR_QR) k = K;
  if (k < 1 || k > K)
    return TSR_ERROR(TSR_ERR_VALUE, "k must be 1 to %lld, got %lld", (long long)K, (long long)k);
  for (int64_t b = 0; b < pl->nblocks; b++) {
    out[b] = NULL;
    if (pl->rows[b] <= 0) return TSR_ERROR(TSR_ERR_VALUE, "empty row block %lld", (long long)b);
  }
  tree t;
  memset(&t, 0, sizeof t);
  t.nb = pl->nblocks;
  t.n = n;
  int st = tsr_agree(tree_up(pl, blocks, &t));
  /* Every rank learns the root's status with its factors. */
  int64_t nsmall = mode == TSR_TSQR_QR ? K * n : k + k * n, kout = mode == TSR_TSQR_QR ? K : k;
  size_t len = (size_t)(1 + nsmall + K * kout);
  double *buf = calloc(len, sizeof(double));
  if (!buf) st = TSR_ERROR(TSR_ERR_MEMORY, "out of memory");
  if (buf && pl->rank == owner(pl, 0)) {
    if (st == TSR_OK) st = root_factor(pl, &t, mode, K, k, buf);
    buf[0] = (double)st;
  }
  if (buf) {
    int bst = tsr_p2p_bcast(buf, sizeof(double) * len);
    if (st == TSR_OK) st = bst;
    if (st == TSR_OK && buf[0] != 0.0)
      st = TSR_ERROR((int)buf[0], "the factorization failed on rank 0");
  }
  st = tsr_agree(st);
  if (st == TSR_OK) st = tree_down(pl, &t, buf + 1 + nsmall, kout, out);
  if (st == TSR_OK) memcpy(small, buf + 1, sizeof(double) * (size_t)nsmall);
  st = tsr_agree(st);
  if (st == TSR_OK && mode == TSR_TSQR_SVD) st = svd_flip(pl, k, out, small + k);
  free(buf);
  tree_free(&t);
  if (st != TSR_OK)
    for (int64_t b = 0; b < pl->nblocks; b++) {
      free(out[b]);
      out[b] = NULL;
    }
  return st;
}
