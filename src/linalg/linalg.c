/*
 * linalg.c - N_LINALG nodes computed for the executor (linalg.h).
 *
 * qr/svd: the input's row blocks (one column of chunks) are evaluated on
 * their owners only, wave by wave as save evaluates them (stage.c), and
 * handed to the TSQR tree (tsqr.c); each rank gets back its own row blocks
 * of Q or U and keeps them as the node's held chunks (array.h), which save
 * writes and other programs read through staged leaves (stage.h); only
 * --no-fuse, whose chunks read replicated values, gathers them. The small
 * factors (r, s, vt) are replicated. transpose/matmul: the operands are computed
 * (replicated), each rank forms the output chunks it owns with one GEMM per
 * block product, summed over the blocks of the inner dimension in their
 * order (so the sums do not depend on the number of ranks), and the chunks
 * are gathered. The local kernels are the dense ops of a backend
 * (tsr_linalg_kernels) on host memory: with the CUDA backend, chunks are
 * downloaded first.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "linalg/linalg.h"

#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "linalg/tsqr.h"
#include "mpi/comm.h"
#include "stage.h"
#include "backend.h"


typedef struct group {
  tsr_node *outs[3];
  int n;
  struct group *next;
} group;

static group *groups;

int tsr_linalg_group(tsr_node *const *outs, int n) {
  for (group *g = groups; g; g = g->next)
    if (g->outs[0] == outs[0]) return TSR_OK; /* the same decomposition written twice */
  group *g;
  TSR_CALLOC(g, 1, sizeof *g);
  for (int i = 0; i < n; i++) g->outs[i] = outs[i];
  g->n = n;
  g->next = groups;
  groups = g;
  return TSR_OK;
}

void tsr_linalg_job_end(void) {
  while (groups) {
    group *g = groups;
    groups = g->next;
    free(g);
  }
}

static void round_f32(tsr_node *n) {
  if (n->dtype != TSR_F32) return;
  int64_t size = tsr_node_size(n);
  for (int64_t i = 0; i < size; i++) n->value[i] = (double)(float)n->value[i];
}

/* Sets n->value to a malloc'ed copy of v (size elements), unless set. */
static int set_value(tsr_node *n, const double *v, int64_t size) {
  if (n->value) return TSR_OK;
  TSR_MALLOC(n->value, sizeof(double) * (size_t)(size + 1));
  memcpy(n->value, v, sizeof(double) * (size_t)size);
  round_f32(n);
  return TSR_OK;
}

/* Every rank's row pieces (id, first row, rows x cols values) gathered into
 * full (nrows x cols, row-major), replicated. */
static int gather_rows(int64_t n, const int64_t *ids, const int64_t *first, const int64_t *rows,
                       int64_t cols, double *const *data, double *full) {
  size_t bytes = 0, off = 0;
  for (int64_t i = 0; i < n; i++) bytes += 2 * sizeof(int64_t) + sizeof(double) * (size_t)(rows[i] * cols);
  char *send = malloc(bytes + 1), *all = NULL;
  size_t *counts = NULL;
  if (!send) return TSR_ERROR(TSR_ERR_MEMORY, "out of memory gathering a result");
  for (int64_t i = 0; i < n; i++) {
    memcpy(send + off, &first[i], sizeof(int64_t));
    memcpy(send + off + sizeof(int64_t), &rows[i], sizeof(int64_t));
    memcpy(send + off + 2 * sizeof(int64_t), data[i], sizeof(double) * (size_t)(rows[i] * cols));
    off += 2 * sizeof(int64_t) + sizeof(double) * (size_t)(rows[i] * cols);
  }
  (void)ids;
  int st = tsr_comm_allgather_bytes(send, bytes, &all, &counts);
  free(send);
  TSR_CHECK(st);
  size_t total = 0;
  for (int q = 0; q < tsr_comm_size(); q++) total += counts[q];
  for (off = 0; off < total;) {
    int64_t f, r;
    memcpy(&f, all + off, sizeof f);
    memcpy(&r, all + off + sizeof f, sizeof r);
    memcpy(full + f * cols, all + off + 2 * sizeof f, sizeof(double) * (size_t)(r * cols));
    off += 2 * sizeof f + sizeof(double) * (size_t)(r * cols);
  }
  free(all);
  free(counts);
  return TSR_OK;
}

/* ---- qr / svd ------------------------------------------------------------ */

typedef struct blocks_ctx {
  const tsr_grid *g;
  double **blocks;
} blocks_ctx;

static int keep_wave(void *vctx, int64_t n, const int64_t *ids, double *const *host) {
  blocks_ctx *c = vctx;
  for (int64_t i = 0; i < n; i++) {
    int64_t rows = c->g->sizes[0][ids[i]], cols = c->g->shape[1];
    TSR_MALLOC(c->blocks[ids[i]], sizeof(double) * (size_t)(rows * cols + 1));
    memcpy(c->blocks[ids[i]], host[i], sizeof(double) * (size_t)(rows * cols));
  }
  return TSR_OK;
}

/* This rank's row blocks of x (blocks[b] for b owned, NULL otherwise). */
static int owned_blocks(tsr_exec *ex, tsr_node *x, double **blocks) {
  const tsr_grid *g = &x->grid;
  if (x->value) {
    for (int64_t b = ex->rank; b < g->nchunks[0]; b += ex->size) {
      int64_t rows = g->sizes[0][b], cols = g->shape[1];
      TSR_MALLOC(blocks[b], sizeof(double) * (size_t)(rows * cols + 1));
      memcpy(blocks[b], x->value + g->starts[0][b] * cols, sizeof(double) * (size_t)(rows * cols));
    }
    return TSR_OK;
  }
  blocks_ctx c = {g, blocks};
  return tsr_stage_waves(ex, x, keep_wave, &c);
}

/* Q or U (rows x kout per owned row block) kept on its owners as the held
 * chunks of o (its grid: the row blocks, one column of chunks). */
static int hold_blocks(tsr_node *o, int64_t nb, double **out) {
  TSR_CALLOC(o->held, (size_t)nb + 1, sizeof(double *));
  for (int64_t b = 0; b < nb; b++) {
    o->held[b] = out[b];
    out[b] = NULL;
    if (o->held[b] && o->dtype == TSR_F32) {
      int64_t cnt = o->grid.sizes[0][b] * o->grid.shape[1];
      for (int64_t i = 0; i < cnt; i++) o->held[b][i] = (double)(float)o->held[b][i];
    }
  }
  return TSR_OK;
}

/* Q or U gathered on every rank (--no-fuse reads only replicated values). */
static int gather_blocks(tsr_exec *ex, tsr_node *o, const tsr_grid *g, int64_t kout, double **out) {
  int64_t nb = g->nchunks[0], nmine = 0;
  int64_t *ids = calloc((size_t)nb + 1, sizeof(int64_t)), *firsts = calloc((size_t)nb + 1, sizeof(int64_t));
  int64_t *rows = calloc((size_t)nb + 1, sizeof(int64_t));
  double **mine = calloc((size_t)nb + 1, sizeof(double *));
  double *full = malloc(sizeof(double) * (size_t)(g->shape[0] * kout + 1));
  int st = ids && firsts && rows && mine && full ? TSR_OK : TSR_ERROR(TSR_ERR_MEMORY, "out of memory");
  for (int64_t b = ex->rank; st == TSR_OK && b < nb; b += ex->size) {
    ids[nmine] = b;
    firsts[nmine] = g->starts[0][b];
    rows[nmine] = g->sizes[0][b];
    mine[nmine++] = out[b];
  }
  if (st == TSR_OK) st = gather_rows(nmine, ids, firsts, rows, kout, mine, full);
  if (st == TSR_OK) st = set_value(o, full, tsr_node_size(o));
  free(ids), free(firsts), free(rows), free(mine), free(full);
  return st;
}

static int compute_group(tsr_exec *ex, group *gr) {
  tsr_node *first = gr->outs[0], *x = first->in[0];
  const tsr_grid *g = &x->grid;
  int svd = first->op == LA_SVD_U;
  int64_t nb = g->nchunks[0], n = g->shape[1];
  tsr_tsqr_plan pl = {nb, n, g->sizes[0], ex->rank, ex->size, tsr_linalg_kernels(ex)};
  int64_t K = tsr_tsqr_rank_bound(&pl), k = svd && first->a > 0 ? (int64_t)first->a : K;
  int64_t kout = svd ? k : K, nsmall = svd ? k + k * n : K * n;
  double **blocks = calloc((size_t)nb + 1, sizeof(double *)), **out = calloc((size_t)nb + 1, sizeof(double *));
  double *small = malloc(sizeof(double) * (size_t)(nsmall + 1));
  int st = blocks && out && small ? TSR_OK : TSR_ERROR(TSR_ERR_MEMORY, "out of memory");
  double t0 = tsr_comm_time();
  if (st == TSR_OK) st = owned_blocks(ex, x, blocks);
  if (st == TSR_OK) st = tsr_tsqr(&pl, svd ? TSR_TSQR_SVD : TSR_TSQR_QR, k, blocks, out, small);
  ex->compute_s += tsr_comm_time() - t0;
  st = tsr_agree(st);
  for (int i = 0; i < gr->n && st == TSR_OK; i++) {
    tsr_node *o = gr->outs[i];
    if (o->op == LA_QR_Q || o->op == LA_SVD_U)
      st = ex->no_fuse ? gather_blocks(ex, o, g, kout, out) : hold_blocks(o, nb, out);
    else
      st = set_value(o, o->op == LA_SVD_VT ? small + k : small, tsr_node_size(o));
  }
  for (int64_t b = 0; b < nb && blocks; b++) free(blocks[b]);
  for (int64_t b = 0; b < nb && out; b++) free(out[b]);
  free(blocks), free(out), free(small);
  return st;
}

/* ---- transpose / matmul ---------------------------------------------------- */

/* x as (M x K) and y as (K x N): rows of x's chunks, columns of y's chunks,
 * the inner dimension split as x's last axis is chunked. */
static int compute_matmul(tsr_exec *ex, tsr_node *n) {
  tsr_node *x = n->in[0], *y = n->in[1];
  TSR_CHECK(tsr_exec_compute(ex, x));
  TSR_CHECK(tsr_exec_compute(ex, y));
  const tsr_grid *gx = &x->grid, *gy = &y->grid;
  int xa = gx->ndim - 1;                /* x's inner axis */
  int64_t K = gx->shape[xa];
  int64_t M = gx->ndim == 2 ? gx->shape[0] : 1, N = gy->ndim == 2 ? gy->shape[1] : 1;
  int64_t mstart[2] = {0, 1}; /* starts of the one block of a 1-d operand's missing axis */
  int64_t nmr = gx->ndim == 2 ? gx->nchunks[0] : 1, nnc = gy->ndim == 2 ? gy->nchunks[1] : 1;
  const int64_t *msz = gx->ndim == 2 ? gx->sizes[0] : &M, *mst = gx->ndim == 2 ? gx->starts[0] : mstart;
  const int64_t *nsz = gy->ndim == 2 ? gy->sizes[1] : &N, *nst = gy->ndim == 2 ? gy->starts[1] : mstart;
  /* Pieces: output blocks (bi, bj) owned cyclically; gathered as row strips. */
  int64_t total = nmr * nnc, nmine = 0;
  double **mine = calloc((size_t)(total + 1), sizeof(double *));
  int64_t *firsts = calloc((size_t)(total + 1), sizeof(int64_t)), *ids = calloc((size_t)(total + 1), sizeof(int64_t));
  int st = mine && firsts && ids ? TSR_OK : TSR_ERROR(TSR_ERR_MEMORY, "out of memory");
  double t0 = tsr_comm_time();
  for (int64_t id = ex->rank; id < total && st == TSR_OK; id += ex->size) {
    int64_t mr = msz[id / nnc], nc = nsz[id % nnc];
    ids[nmine] = id;
    if (!(mine[nmine++] = calloc((size_t)(mr * nc + 1), sizeof(double))))
      st = TSR_ERROR(TSR_ERR_MEMORY, "out of memory for a matmul block");
  }
  /* Output blocks in parallel (the kernels give the same bits whatever the
   * thread and rank counts). */
  const tsr_backend_ops *kb_ops = tsr_linalg_kernels(ex);
#pragma omp parallel for schedule(dynamic, 1)
  for (int64_t i = 0; i < nmine; i++) {
    int s;
#pragma omp atomic read
    s = st;
    int64_t id = ids[i], bi = id / nnc, bj = id % nnc, mr = msz[bi], nc = nsz[bj];
    for (int64_t kb = 0; kb < gx->nchunks[xa] && s == TSR_OK; kb++) { /* fixed order over the inner blocks */
      int64_t k0 = gx->starts[xa][kb], kk = gx->sizes[xa][kb];
      if (mr && nc && kk)
        s = kb_ops->gemm(mr, nc, kk, x->value + mst[bi] * K + k0, K, y->value + k0 * N + nst[bj], N, 1.0,
                         mine[i], nc);
    }
    if (s != TSR_OK) {
#pragma omp critical(tsr_matmul_status)
      st = s;
    }
  }
  ex->compute_s += tsr_comm_time() - t0;
  st = tsr_agree(st);
  /* Gather blocks as (id, values) and place them. */
  size_t bytes = 0, off = 0;
  for (int64_t i = 0; i < nmine; i++)
    bytes += sizeof(int64_t) + sizeof(double) * (size_t)(msz[ids[i] / nnc] * nsz[ids[i] % nnc]);
  char *send = st == TSR_OK ? malloc(bytes + 1) : NULL, *all = NULL;
  size_t *counts = NULL;
  if (st == TSR_OK && !send) st = TSR_ERROR(TSR_ERR_MEMORY, "out of memory");
  for (int64_t i = 0; i < nmine && st == TSR_OK; i++) {
    size_t len = sizeof(double) * (size_t)(msz[ids[i] / nnc] * nsz[ids[i] % nnc]);
    memcpy(send + off, &ids[i], sizeof(int64_t));
    memcpy(send + off + sizeof(int64_t), mine[i], len);
    off += sizeof(int64_t) + len;
  }
  if (st == TSR_OK) st = tsr_comm_allgather_bytes(send, bytes, &all, &counts);
  if (st == TSR_OK && !(n->value = malloc(sizeof(double) * (size_t)(M * N + 1))))
    st = TSR_ERROR(TSR_ERR_MEMORY, "out of memory for a matmul result");
  size_t tot = 0;
  for (int q = 0; st == TSR_OK && q < ex->size; q++) tot += counts[q];
  for (off = 0; st == TSR_OK && off < tot;) {
    int64_t id;
    memcpy(&id, all + off, sizeof id);
    int64_t bi = id / nnc, bj = id % nnc, mr = msz[bi], nc = nsz[bj];
    const double *src = (const double *)(all + off + sizeof id);
    for (int64_t i = 0; i < mr; i++)
      memcpy(n->value + (mst[bi] + i) * N + nst[bj], src + i * nc, sizeof(double) * (size_t)nc);
    off += sizeof id + sizeof(double) * (size_t)(mr * nc);
  }
  if (st == TSR_OK) round_f32(n);
  for (int64_t i = 0; i < nmine; i++) free(mine[i]);
  free(mine), free(firsts), free(ids), free(send), free(all), free(counts);
  return st;
}

int tsr_linalg_is_view(const tsr_node *n) { return n->kind == N_LINALG && n->op == LA_TRANSPOSE; }

int tsr_linalg_compute(tsr_exec *ex, tsr_node *n) {
  if (tsr_linalg_is_view(n)) return TSR_ERROR(TSR_ERR_INTERNAL, "a transpose is a view, not a result");
  if (n->value || n->held) return TSR_OK;
  if (n->op == LA_MATMUL) return compute_matmul(ex, n);
  for (group *g = groups; g; g = g->next)
    for (int i = 0; i < g->n; i++)
      if (g->outs[i] == n) return compute_group(ex, g);
  return TSR_ERROR(TSR_ERR_INTERNAL, "linear-algebra node %d has no decomposition", n->id);
}

const tsr_backend_ops *tsr_linalg_kernels(const tsr_exec *ex) {
  const tsr_backend_ops *be = ex->be;
  if (!be->qr || !be->svd || !be->gemm) return &tsr_cpu_backend;
  /* The CUDA kernels (cuSOLVER/cuBLAS) have not yet run on a GPU: off unless asked for. */
  if (be == &tsr_gpu_backend && !(getenv("TESSERA_GPU_LINALG") && atoi(getenv("TESSERA_GPU_LINALG"))))
    return &tsr_cpu_backend;
  return be;
}
