/*
 * linalg.c - N_LINALG nodes computed for the executor (linalg.h).
 *
 * qr/svd: the input's row blocks (one column of chunks) are evaluated on
 * their owners only, wave by wave as save evaluates them (exec/waves.c), and
 * handed to the TSQR tree (tsqr.c); each rank gets back its own row blocks
 * of Q or U and keeps them as the node's held chunks (array.h), which save
 * writes and other programs read through staged leaves (stage.h); only
 * --no-fuse, whose chunks read replicated values, gathers them. The small
 * factors (r, s, vt) are replicated. matmul: block products spread over the
 * ranks from boxes of the operands, summed in inner-block order on the
 * owner of each output chunk, which holds it (see compute_matmul); a
 * transpose is a view the fuser compiles. The local kernels are the dense
 * ops of the job's backend on its own memory: with the CUDA backend the
 * blocks, the factors, the products and the held results stay in device
 * memory, and only the small replicated results (r, s, vt) are downloaded.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "linalg/linalg.h"

#include "linalg/small.h"

#include <stdlib.h>
#include <string.h>

#include "util/error.h"
#include "linalg/tsqr.h"
#include "linalg/glm.h"
#include "mpi/comm.h"
#include "mpi/agree.h"
#include "mpi/p2p.h"
#include "mpi/tags.h"
#include "util/trace.h"
#include "util/workers.h"
#include "exec/stage.h"
#include "backend/backend.h"
#include "graph/groups.h"
#include "plan/plan.h"

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

/* float32 results: this rank's chunks rounded (through a host copy where
 * the backend's memory is a device's: float32 linear algebra is rare). */
static int round_chunks(tsr_exec *ex, tsr_node *o, double **chunks) {
  int host = tsr_be_caps(ex->be) & TSR_BE_HOST_MEMORY, st = TSR_OK;
  for (int64_t c = 0; c < tsr_grid_count(&o->grid) && st == TSR_OK; c++) {
    if (!chunks[c]) continue;
    int64_t start[TSR_MAXDIM], extent[TSR_MAXDIM],
        cnt = tsr_grid_chunk_at(&o->grid, c, start, extent);
    double *h = host ? chunks[c] : malloc(sizeof(double) * (size_t)(cnt + 1));
    if (!h) return TSR_ERROR(TSR_ERR_MEMORY, "out of memory rounding a result");
    if (!host) st = tsr_be_download(ex->be, chunks[c], h, (size_t)cnt);
    for (int64_t i = 0; i < cnt && st == TSR_OK; i++) h[i] = (double)(float)h[i];
    if (!host && st == TSR_OK) st = tsr_be_upload(ex->be, h, chunks[c], (size_t)cnt);
    if (!host) free(h);
  }
  return st;
}

/* chunks (indexed by chunk id of o's grid, in backend memory; this rank's
 * own, NULL for the others) become o's held chunks (the array is taken
 * over, and released with the backend). */
static int hold_chunks(tsr_exec *ex, tsr_node *o, double **chunks) {
  tsr_node_hold(o, chunks, tsr_exec_held_free, ex->be);
  return o->dtype == TSR_F32 ? round_chunks(ex, o, chunks) : TSR_OK;
}

/* The result chunks of o (chunks[c] on the owner of chunk c) kept where they
 * are, or gathered with --no-fuse. Collective. */
static int finish_chunks(tsr_exec *ex, tsr_node *o, double **chunks) {
  TSR_CHECK(hold_chunks(ex, o, chunks));
  return ex->no_fuse ? tsr_exec_gather_held(ex, o) : TSR_OK;
}

/* ---- qr / svd ------------------------------------------------------------ */

int tsr_linalg_blocks(tsr_exec *ex, tsr_node *x, double **blocks, int *borrowed) {
  const tsr_grid *g = &x->grid;
  int64_t cols = g->ndim == 2 ? g->shape[1] : 1;
  *borrowed = 0;
  if (x->held) { /* held (persisted, a product, ...): its chunks are the blocks */
    for (int64_t b = ex->rank; b < g->nchunks[0]; b += ex->size) blocks[b] = x->held[b];
    *borrowed = 1;
    return TSR_OK;
  }
  if (x->value) {
    for (int64_t b = ex->rank; b < g->nchunks[0]; b += ex->size) {
      int64_t rows = g->sizes[0][b];
      TSR_CHECK(tsr_be_alloc(ex->be, (size_t)(rows * cols), &blocks[b]));
      TSR_CHECK(tsr_be_upload(ex->be, x->value + g->starts[0][b] * cols, blocks[b],
                              (size_t)(rows * cols)));
    }
    return TSR_OK;
  }
  return tsr_stage_waves_be(ex, x, tsr_exec_take_chunks, blocks);
}

static int compute_group(tsr_exec *ex, tsr_node *const *outs, int n_outs) {
  tsr_node *first = outs[0], *x = first->in[0];
  const tsr_grid *g = &x->grid;
  int svd = first->op == LA_SVD_U, borrowed = 0;
  int64_t nb = g->nchunks[0], n = g->shape[1];
  tsr_tsqr_plan pl = {nb, n, g->sizes[0], ex->rank, ex->size, ex->be, ex, 0, ex->tsqr_gram};
  int64_t K = tsr_tsqr_rank_bound(&pl), k = svd && first->a > 0 ? (int64_t)first->a : K;
  int64_t nsmall = svd ? k + k * n : K * n;
  double **blocks = calloc((size_t)nb + 1, sizeof(double *)),
         **out = calloc((size_t)nb + 1, sizeof(double *));
  double *small = malloc(sizeof(double) * (size_t)(nsmall + 1));
  int st = blocks && out && small ? TSR_OK : TSR_ERROR(TSR_ERR_MEMORY, "out of memory");
  double t0 = tsr_comm_time(), c0 = ex->comm_s;
  if (st == TSR_OK) st = tsr_linalg_blocks(ex, x, blocks, &borrowed);
  st = tsr_agree(st);
  pl.take_blocks = !borrowed; /* the tree factors its own copies in place */
  if (st == TSR_OK) st = tsr_tsqr(&pl, svd ? TSR_TSQR_SVD : TSR_TSQR_QR, k, blocks, out, small);
  ex->compute_s += tsr_comm_time() - t0 - (ex->comm_s - c0);
  st = tsr_agree(st);
  for (int i = 0; i < n_outs && st == TSR_OK; i++) {
    tsr_node *o = outs[i];
    if (o->op == LA_QR_Q || o->op == LA_SVD_U) { /* row block b is chunk b of o's grid */
      st = finish_chunks(ex, o, out);
      out = NULL;
    } else
      st = set_value(o, o->op == LA_SVD_VT ? small + k : small, tsr_node_size(o));
  }
  for (int64_t b = 0; b < nb && blocks && !borrowed; b++) tsr_be_release(ex->be, blocks[b]);
  for (int64_t b = 0; b < nb && out; b++) tsr_be_release(ex->be, out[b]);
  free(blocks), free(out), free(small);
  return st;
}

/* ---- transpose / matmul ---------------------------------------------------- */

/* ---- matmul ------------------------------------------------------------------ */

/* C = x @ y as block products. x is M x K (a 1-d x: 1 x K), y is K x N (a
 * 1-d y: K x 1); output chunk c = (bi, bj) has x's row chunk bi and y's
 * column chunk bj, and the inner dimension is split as x's last axis is
 * chunked. Task (c, kb) forms P = x[bi, kb] @ y[kb, bj] from boxes of the
 * operands evaluated where the task runs (stage.h: generated there, or
 * fetched from the owners of loaded or held data); the owner of chunk c sums
 * its P's in kb order. So the bits of C depend on neither the number of
 * ranks nor where a task ran. Tasks run on the owner of their output chunk
 * when there are at least as many chunks as ranks, and round-robin over
 * (c, kb) otherwise (x.T @ x: one output chunk, the work split over the
 * inner blocks, the products reduced on one rank). */
typedef struct mm {
  tsr_node *x, *y;
  int64_t M, N, K, nmr, nnc, nkb, ntasks;
  int64_t mst[2], nst[2]; /* a 1-d operand's missing axis: one block of length 1 */
  const int64_t *msz, *mstart, *nsz, *nstart, *ksz, *kstart;
  int size;
} mm;

static int mm_rank(const mm *p, int64_t t) {
  int64_t chunks = p->nmr * p->nnc;
  return chunks >= p->size ? (int)((t / p->nkb) % p->size) : (int)(t % p->size);
}

/* Task t's box of x (kind 0) or y (kind 1), on the task's rank. */
static void mm_box(const mm *p, int64_t t, int kind, tsr_stage_box *b) {
  int64_t c = t / p->nkb, kb = t % p->nkb, bi = c / p->nnc, bj = c % p->nnc;
  const tsr_node *o = kind ? p->y : p->x;
  b->rank = mm_rank(p, t);
  int64_t k0 = p->kstart[kb], kk = p->ksz[kb];
  if (o->grid.ndim == 1) {
    b->start[0] = k0, b->extent[0] = kk;
  } else if (kind == 0) {
    b->start[0] = p->mstart[bi], b->extent[0] = p->msz[bi], b->start[1] = k0, b->extent[1] = kk;
  } else {
    b->start[0] = k0, b->extent[0] = kk, b->start[1] = p->nstart[bj], b->extent[1] = p->nsz[bj];
  }
}

static int64_t mm_elems(const mm *p, int64_t c) { return p->msz[c / p->nnc] * p->nsz[c % p->nnc]; }

/* The partials of one wave (tasks[0..nt-1], in task order; part[] holds this
 * rank's, in that order) moved to the owners of their chunks, and added to
 * acc there in task order, which is kb order for each chunk: every earlier
 * kb of a chunk was in an earlier wave or comes earlier in this one. */
static int mm_reduce(tsr_exec *ex, const mm *p, const int64_t *tasks, int64_t nt, double **part,
                     double **acc) {
  int P = ex->size, me = ex->rank, st = TSR_OK;
  tsr_p2p_piece *x = calloc((size_t)nt + 1, sizeof *x);
  const double **src = calloc((size_t)nt + 1, sizeof(double *));
  double **got = calloc((size_t)nt + 1, sizeof(double *));
  int64_t nx = 0;
  if (!x || !src || !got) st = TSR_ERROR(TSR_ERR_MEMORY, "out of memory moving block products");
  for (int64_t i = 0, k = 0; i < nt && st == TSR_OK; i++) {
    int64_t c = tasks[i] / p->nkb;
    int from = mm_rank(p, tasks[i]), to = (int)(c % P);
    size_t cnt = (size_t)mm_elems(p, c);
    if (from == me) src[i] = part[k++];
    if (from == to) continue; /* added where it was formed */
    if (to == me && (st = tsr_be_alloc(ex->be, cnt, &got[i])) != TSR_OK) break;
    x[nx++] = (tsr_p2p_piece){from, to, src[i], got[i], cnt};
  }
  st = tsr_agree(st);
  if (st == TSR_OK) st = tsr_exec_move(ex, x, nx, TSR_TAG_MATMUL);
  for (int64_t i = 0; i < nt && st == TSR_OK; i++) { /* add, in task order */
    int64_t c = tasks[i] / p->nkb;
    if (c % P != me) continue;
    const double *v = got[i] ? got[i] : src[i];
    size_t cnt = (size_t)mm_elems(p, c);
    if (tasks[i] % p->nkb == 0)
      st = tsr_be_copy(ex->be, v, acc[c], cnt);
    else
      st = tsr_be_axpy(ex->be, cnt, v, acc[c]);
  }
  for (int64_t i = 0; got && i < nt; i++) tsr_be_release(ex->be, got[i]);
  free(x), free(src), free(got);
  return st;
}

/* The operands' geometry: x's row chunks, y's column chunks, the inner
 * blocks (x's last axis). */
static void mm_init(mm *p, const tsr_exec *ex, tsr_node *n) {
  tsr_node *x = n->in[0], *y = n->in[1];
  const tsr_grid *gx = &x->grid, *gy = &y->grid;
  int xa = gx->ndim - 1; /* x's inner axis */
  *p = (mm){x,
            y,
            gx->ndim == 2 ? gx->shape[0] : 1,
            gy->ndim == 2 ? gy->shape[1] : 1,
            gx->shape[xa],
            gx->ndim == 2 ? gx->nchunks[0] : 1,
            gy->ndim == 2 ? gy->nchunks[1] : 1,
            gx->nchunks[xa],
            0,
            {0, 0},
            {0, 0},
            NULL,
            NULL,
            NULL,
            NULL,
            gx->sizes[xa],
            gx->starts[xa],
            ex->size};
  p->msz = gx->ndim == 2 ? gx->sizes[0] : &p->M, p->mstart = gx->ndim == 2 ? gx->starts[0] : p->mst;
  p->nsz = gy->ndim == 2 ? gy->sizes[1] : &p->N, p->nstart = gy->ndim == 2 ? gy->starts[1] : p->nst;
  p->ntasks = p->nmr * p->nnc * p->nkb;
}

/* Waves: each rank's tasks in order, W at a time; order[] lists the tasks
 * wave by wave (task order within a wave), wave w at order[from[w]..]. */
typedef struct mm_waves {
  int64_t W, nwaves, *order, *from;
} mm_waves;

static int mm_plan_waves(const mm *p, int size, mm_waves *v) {
  int64_t *wave_of = malloc(sizeof(int64_t) * (size_t)(p->ntasks + 1)),
          *seen = calloc((size_t)size, sizeof(int64_t));
  v->order = malloc(sizeof(int64_t) * (size_t)(p->ntasks + 1));
  v->from = NULL;
  v->nwaves = 0;
  int st = wave_of && seen && v->order
               ? TSR_OK
               : TSR_ERROR(TSR_ERR_MEMORY, "out of memory planning a product");
  for (int64_t t = 0; t < p->ntasks && st == TSR_OK; t++) {
    wave_of[t] = seen[mm_rank(p, t)]++ / v->W;
    if (wave_of[t] + 1 > v->nwaves) v->nwaves = wave_of[t] + 1;
  }
  if (st == TSR_OK && !(v->from = calloc((size_t)v->nwaves + 2, sizeof(int64_t))))
    st = TSR_ERROR(TSR_ERR_MEMORY, "out of memory planning a product");
  for (int64_t t = 0; t < p->ntasks && st == TSR_OK; t++) v->from[wave_of[t] + 2]++;
  for (int64_t w = 0; w < v->nwaves && st == TSR_OK; w++) v->from[w + 2] += v->from[w + 1];
  for (int64_t t = 0; t < p->ntasks && st == TSR_OK; t++) v->order[v->from[wave_of[t] + 1]++] = t;
  free(wave_of);
  free(seen);
  return st;
}

/* A wave's buffers: the operands' boxes (every rank's tasks), this rank's
 * operand blocks and products, and its tasks. */
typedef struct mm_bufs {
  tsr_stage_box *bx, *by;
  double **xb, **yb, **part;
  int64_t *my;
} mm_bufs;

static int mm_bufs_alloc(mm_bufs *b, int64_t W, int size) {
  b->bx = malloc(sizeof(tsr_stage_box) * (size_t)(W * size + 1));
  b->by = malloc(sizeof(tsr_stage_box) * (size_t)(W * size + 1));
  b->xb = calloc((size_t)W + 1, sizeof(double *));
  b->yb = calloc((size_t)W + 1, sizeof(double *));
  b->part = calloc((size_t)W + 1, sizeof(double *));
  b->my = malloc(sizeof(int64_t) * (size_t)(W + 1));
  if (!b->bx || !b->by || !b->xb || !b->yb || !b->part || !b->my)
    return TSR_ERROR(TSR_ERR_MEMORY, "out of memory");
  return TSR_OK;
}

static void mm_bufs_free(mm_bufs *b) {
  free(b->bx), free(b->by), free(b->xb), free(b->yb), free(b->part), free(b->my);
}

/* This rank's block products of a wave (mine of them), in workers, in
 * backend memory. */
static int mm_products(const tsr_exec *ex, const mm *p, const mm_bufs *b, int64_t mine) {
  const tsr_backend_ops *be = ex->be;
  for (int64_t i = 0; i < mine; i++)
    TSR_CHECK(tsr_be_alloc(be, (size_t)mm_elems(p, b->my[i] / p->nkb), &b->part[i]));
  tsr_workers w;
  tsr_workers_init(&w);
#pragma omp parallel for schedule(dynamic, 1)
  for (int64_t i = 0; i < mine; i++) {
    if (tsr_workers_stop(&w)) continue;
    int64_t c = b->my[i] / p->nkb, mr = p->msz[c / p->nnc], nc = p->nsz[c % p->nnc],
            kk = p->ksz[b->my[i] % p->nkb];
    tsr_workers_fail(&w,
                     tsr_be_gemm(be, mr, nc, kk, b->xb[i], kk, b->yb[i], nc, 0.0, b->part[i], nc));
  }
  return tsr_workers_end(&w);
}

/* One wave of tasks: operand boxes staged into backend memory (collective),
 * products formed here, then moved to and summed on the owners of their
 * chunks. */
static int mm_wave(tsr_exec *ex, const mm *p, const int64_t *tasks, int64_t nt, mm_bufs *b,
                   int64_t W, double **acc) {
  int64_t mine = 0;
  for (int64_t i = 0; i < nt; i++) {
    mm_box(p, tasks[i], 0, &b->bx[i]);
    mm_box(p, tasks[i], 1, &b->by[i]);
    if (b->bx[i].rank == ex->rank) b->my[mine++] = tasks[i];
  }
  double t0 = tsr_comm_time(), c0 = ex->comm_s, s0 = tsr_trace_mark();
  int st = tsr_stage_boxes_be(ex, p->x, b->bx, nt, b->xb);
  int sy = tsr_stage_boxes_be(ex, p->y, b->by, nt, b->yb);
  if (st == TSR_OK) st = sy;
  tsr_trace_phase("matmul operands", s0);
  s0 = tsr_trace_mark();
  if (st == TSR_OK) st = mm_products(ex, p, b, mine);
  tsr_trace_phase("matmul products", s0);
  ex->compute_s += tsr_comm_time() - t0 - (ex->comm_s - c0);
  s0 = tsr_trace_mark();
  st = tsr_agree(st);
  tsr_trace_phase("matmul agree", s0);
  s0 = tsr_trace_mark();
  if (st == TSR_OK) st = mm_reduce(ex, p, tasks, nt, b->part, acc);
  tsr_trace_phase("matmul sums", s0);
  for (int64_t i = 0; i < W; i++) {
    tsr_be_release(ex->be, b->xb[i]), tsr_be_release(ex->be, b->yb[i]);
    tsr_be_release(ex->be, b->part[i]);
    b->xb[i] = b->yb[i] = b->part[i] = NULL;
  }
  return st;
}

/* This rank's output chunks in backend memory; zeros when K is 0 (no
 * block product will write them). */
static int mm_acc(const tsr_exec *ex, const mm *p, double **acc) {
  for (int64_t c = ex->rank; c < p->nmr * p->nnc; c += ex->size) {
    size_t cnt = (size_t)mm_elems(p, c);
    TSR_CHECK(tsr_be_alloc(ex->be, cnt, &acc[c]));
    if (p->nkb > 0) continue;
    double *zero = calloc(cnt + 1, sizeof(double));
    int st = zero ? tsr_be_upload(ex->be, zero, acc[c], cnt)
                  : TSR_ERROR(TSR_ERR_MEMORY, "out of memory for a block of a product");
    free(zero);
    TSR_CHECK(st);
  }
  return TSR_OK;
}

static int64_t max_of(const int64_t *v, int64_t n) {
  int64_t m = 0;
  for (int64_t i = 0; i < n; i++) m = v[i] > m ? v[i] : m;
  return m;
}

/* Tasks a rank runs at once (a wave): its threads, fewer where a wave's
 * operand blocks and products, with this rank's output chunks (held from
 * the first wave to the last), would pass the backend's memory limit (the
 * GPU pool's) or --mem-limit; at least one. The same on every rank: the
 * waves are collective. (A wave as wide as a 64-core node's threads took
 * matmul 32768^2 out of an H100's memory: 64 x 1.5 GB of blocks.) */
static int mm_width(const tsr_exec *ex, const mm *p, int64_t *W) {
  size_t limit = tsr_be_memory_limit(ex->be);
  if (!limit) limit = ex->mem_limit;
  double mmax = (double)max_of(p->msz, p->nmr), nmax = (double)max_of(p->nsz, p->nnc),
         kmax = (double)max_of(p->ksz, p->nkb), held = 0.0;
  double per = 8.0 * (mmax * kmax + kmax * nmax + mmax * nmax);
  for (int64_t c = ex->rank; c < p->nmr * p->nnc; c += ex->size)
    held += 8.0 * (double)mm_elems(p, c);
  int64_t w = ex->threads > 0 ? ex->threads : 1;
  if (limit && per > 0) {
    double fit = ((double)limit - held) / per;
    if (fit < (double)w) w = fit < 1.0 ? 1 : (int64_t)fit;
  }
  int agreed = 1;
  TSR_CHECK(tsr_agree_min((int)(w > 4096 ? 4096 : w), &agreed));
  *W = agreed;
  return TSR_OK;
}

static int compute_matmul(tsr_exec *ex, tsr_node *n) {
  mm p;
  mm_init(&p, ex, n);
  int64_t nchunks = p.nmr * p.nnc;
  mm_waves v = {1, 0, NULL, NULL};
  mm_bufs b = {0};
  double **acc = calloc((size_t)nchunks + 1, sizeof(double *));
  int st = mm_width(ex, &p, &v.W);
  if (st == TSR_OK) st = mm_plan_waves(&p, ex->size, &v);
  if (st == TSR_OK && !acc) st = TSR_ERROR(TSR_ERR_MEMORY, "out of memory planning a product");
  if (st == TSR_OK) st = mm_acc(ex, &p, acc);
  if (st == TSR_OK) st = mm_bufs_alloc(&b, v.W, ex->size);
  st = tsr_agree(st);
  for (int64_t w = 0; w < v.nwaves && st == TSR_OK; w++)
    st = mm_wave(ex, &p, v.order + v.from[w], v.from[w + 1] - v.from[w], &b, v.W, acc);
  mm_bufs_free(&b);
  free(v.order), free(v.from);
  if (st == TSR_OK) {
    double s0 = tsr_trace_mark();
    st = finish_chunks(ex, n, acc);
    tsr_trace_phase("matmul finish", s0);
    return st;
  }
  for (int64_t c = 0; acc && c < nchunks; c++) tsr_be_release(ex->be, acc[c]);
  free(acc);
  return st;
}

int tsr_linalg_is_view(const tsr_node *n) {
  return n->kind == N_LINALG && (n->op == LA_TRANSPOSE || n->op == LA_DIAGONAL);
}

int tsr_linalg_compute(tsr_exec *ex, tsr_node *n) {
  if (tsr_linalg_is_view(n))
    return TSR_ERROR(TSR_ERR_INTERNAL, "a transpose is a view, not a result");
  if (n->value || n->held) return TSR_OK;
  if (n->op == LA_MATMUL) return compute_matmul(ex, n);
  if (n->op == LA_CHOLESKY || n->op == LA_TRSM || n->op == LA_LU)
    return tsr_small_compute(ex, n);
  tsr_node *const *outs;
  int n_outs;
  if (n->op == LA_GLM_COEF || n->op == LA_GLM_INTERCEPT) {
    if (!tsr_group_of(n, &outs, &n_outs))
      return TSR_ERROR(TSR_ERR_INTERNAL, "a fit's output %d has no fit", n->id);
    return tsr_glm_compute(ex, outs, n_outs);
  }
  if (tsr_group_of(n, &outs, &n_outs)) return compute_group(ex, outs, n_outs);
  return TSR_ERROR(TSR_ERR_INTERNAL, "linear-algebra node %d has no decomposition", n->id);
}
