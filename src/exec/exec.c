/*
 * exec.c - the executor's entry points (exec.h): one reduction or one small
 * result at a time, over this rank's chunks (plan/plan.h's owners).
 *
 * Fused mode: one program per reduction (or per small result); each rank
 * reduces the chunks it owns in OpenMP workers (the backend's, or waves of
 * staged chunks: stage.h) and the partials are combined across ranks in
 * chunk-index order (combine.c). --no-fuse: nofuse.c materializes every
 * chunk operation by operation.
 */
#include "exec/exec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec/combine.h"
#include "exec/nofuse.h"
#include "exec/progress.h"
#include "exec/stage.h"
#include "mpi/agree.h"
#include "mpi/comm.h"
#include "plan/plan.h"
#include "util/error.h"
#include "util/signals.h"

/* Partials of this rank's chunks ids[0..n-1] of g; *mine: their elements. */
static int alloc_partials(const tsr_node *r, const tsr_grid *g, const int64_t *ids, int64_t n,
                          tsr_stat **parts, int64_t *mine) {
  int64_t idx[TSR_MAXDIM], start[TSR_MAXDIM], extent[TSR_MAXDIM];
  *mine = 0;
  for (int64_t i = 0; i < n; i++) {
    tsr_grid_unravel(g, ids[i], idx);
    tsr_grid_chunk_box(g, idx, start, extent);
    *mine += tsr_elems_of(g->ndim, extent);
    parts[i] = malloc(sizeof(tsr_stat) * (size_t)tsr_partial_count(g->ndim, extent, r->axis));
    if (!parts[i]) return TSR_ERROR(TSR_ERR_MEMORY, "out of memory for reduction partials");
  }
  return TSR_OK;
}

/* The fused reduction of batch b over x: staged waves or the backend's. */
static int reduce_fused(tsr_exec *ex, const tsr_node *x, tsr_reduce_batch *b) {
  tsr_prog p;
  TSR_CHECK(tsr_prog_compile(x, 0, &p));
  b->prog = &p;
  int st = tsr_stage_needed(&p) ? tsr_stage_reduce(ex, b) : tsr_be_reduce_chunks(ex->be, b);
  tsr_prog_free(&p);
  return st;
}

/* This rank's partials of r over its chunks, timed and counted. */
static int reduce_mine(tsr_exec *ex, tsr_node *r, const int64_t *ids, int64_t n, tsr_stat **parts,
                       int64_t mine) {
  const tsr_node *x = r->in[0];
  const tsr_grid *g = &x->grid;
  char what[64];
  snprintf(what, sizeof what, "%s over %lld chunks", tsr_red_name(r->op),
           (long long)tsr_grid_count(g));
  tsr_progress pr;
  tsr_progress_init(&pr, ex, what, mine, n);
  tsr_reduce_batch b = {NULL, g, n, ids, r->op, r->axis, parts, tsr_progress_tick, &pr};
  double t0 = tsr_comm_time();
  int st = ex->no_fuse ? tsr_nofuse_reduce(ex, x, &b, &pr) : reduce_fused(ex, x, &b);
  if (st == TSR_OK && tsr_interrupted()) st = TSR_ERROR(TSR_ERR_INTERRUPTED, "interrupted");
  tsr_progress_end(&pr);
  ex->compute_s += tsr_comm_time() - t0;
  ex->elements += (double)mine;
  ex->chunks_done += n;
  return st;
}

int tsr_exec_reduce(tsr_exec *ex, tsr_node *r) {
  const tsr_grid *g = &r->in[0]->grid;
  int64_t *ids = NULL, n = 0, mine = 0;
  TSR_CHECK(tsr_owned_chunks(ex->rank, ex->size, tsr_grid_count(g), &ids, &n));
  tsr_stat **parts;
  TSR_CALLOC(parts, (size_t)n + 1, sizeof(tsr_stat *));
  int st = alloc_partials(r, g, ids, n, parts, &mine);
  if (st == TSR_OK) st = reduce_mine(ex, r, ids, n, parts, mine);
  st = tsr_agree(st);
  if (st == TSR_OK) st = tsr_combine_partials(ex, r, g, ids, n, parts);
  for (int64_t i = 0; i < n; i++) free(parts[i]);
  free(parts);
  free(ids);
  return st;
}

/* Chunk id of node evaluated (or materialized) into a host copy *buf. */
static int eval_chunk(tsr_exec *ex, const tsr_node *node, const tsr_prog *p, int64_t id,
                      double **buf) {
  const tsr_grid *g = &node->grid;
  int64_t idx[TSR_MAXDIM], start[TSR_MAXDIM], extent[TSR_MAXDIM];
  tsr_grid_unravel(g, id, idx);
  tsr_grid_chunk_box(g, idx, start, extent);
  size_t cnt = (size_t)tsr_elems_of(g->ndim, extent);
  double *dev = NULL;
  tsr_be_span span = {TSR_TRACE_CHUNK, "evaluate", id, 1, 1, NULL, NULL};
  int st = ex->no_fuse ? tsr_nofuse_materialize(ex, node, start, extent, &dev)
                       : tsr_be_eval_new(ex->be, p, start, extent, &dev, &span);
  *buf = st == TSR_OK ? malloc(sizeof(double) * (cnt + 1)) : NULL;
  if (st == TSR_OK && !*buf) st = TSR_ERROR(TSR_ERR_MEMORY, "out of memory for a result chunk");
  if (st == TSR_OK) st = tsr_be_download(ex->be, dev, *buf, cnt);
  tsr_be_release(ex->be, dev);
  ex->elements += (double)cnt;
  ex->chunks_done++;
  return st;
}

/* This rank's chunks of node into host buffers bufs[i]. */
static int eval_mine(tsr_exec *ex, tsr_node *node, const int64_t *ids, int64_t n, double **bufs) {
  tsr_prog p;
  memset(&p, 0, sizeof p);
  int st = ex->no_fuse ? TSR_OK : tsr_prog_compile(node, 0, &p);
  double t0 = tsr_comm_time();
  if (st == TSR_OK && !ex->no_fuse && tsr_stage_needed(&p))
    st = tsr_stage_eval(ex, &p, &node->grid, ids, n, bufs); /* collective: reads, rechunks */
  else
    for (int64_t i = 0; i < n && st == TSR_OK; i++) st = eval_chunk(ex, node, &p, ids[i], &bufs[i]);
  tsr_prog_free(&p);
  ex->compute_s += tsr_comm_time() - t0;
  return st;
}

int tsr_exec_elementwise(tsr_exec *ex, tsr_node *node) {
  int64_t *ids = NULL, n = 0;
  TSR_CHECK(tsr_owned_chunks(ex->rank, ex->size, tsr_grid_count(&node->grid), &ids, &n));
  double **bufs;
  TSR_CALLOC(bufs, (size_t)n + 1, sizeof(double *));
  int st = tsr_agree(eval_mine(ex, node, ids, n, bufs));
  if (st == TSR_OK) st = tsr_exec_replicate(ex, node, ids, n, bufs);
  for (int64_t i = 0; i < n; i++) free(bufs[i]);
  free(bufs);
  free(ids);
  return st;
}

/* ---- held arrays ---------------------------------------------------------------- */

void tsr_exec_held_free(const void *be, double *chunk) { tsr_be_release(be, chunk); }

int tsr_exec_holds(const tsr_exec *ex, const tsr_node *n) {
  return !ex->no_fuse && tsr_node_kept(n);
}

/* Bytes rank q holds of node n's chunks (owners: plan/plan.h). */
static double held_bytes_of(const tsr_node *n, int q, int size) {
  double b = 0;
  for (int64_t c = q; c < tsr_grid_count(&n->grid); c += size) {
    int64_t start[TSR_MAXDIM], extent[TSR_MAXDIM];
    b += 8.0 * (double)tsr_grid_chunk_at(&n->grid, c, start, extent);
  }
  return b;
}

static void human_bytes(double b, char *buf, size_t n) {
  if (b >= 1e9)
    snprintf(buf, n, "%.2f GB", b / 1e9);
  else if (b >= 1e6)
    snprintf(buf, n, "%.1f MB", b / 1e6);
  else
    snprintf(buf, n, "%.0f bytes", b);
}

/* What a held node is, for errors: persist(NAME) or the operation. */
static void held_name(const tsr_node *n, char *buf, size_t len) {
  static const char *la[] = {[LA_TRANSPOSE] = "a transpose",
                             [LA_MATMUL] = "a matrix product",
                             [LA_QR_Q] = "q of qr",
                             [LA_QR_R] = "r of qr",
                             [LA_SVD_U] = "u of svd",
                             [LA_SVD_S] = "s of svd",
                             [LA_SVD_VT] = "vt of svd",
                             [LA_GLM_COEF] = "the coefficients of a fit",
                             [LA_GLM_INTERCEPT] = "the intercept of a fit",
                             [LA_DIAGONAL] = "a diagonal",
                             [LA_CHOLESKY] = "a cholesky factor",
                             [LA_TRSM] = "a triangular solve",
                             [LA_LU] = "an LU factorization"};
  int64_t rows = n->grid.shape[0], cols = n->grid.ndim > 1 ? n->grid.shape[1] : 1;
  if (n->kind == N_PERSIST)
    snprintf(buf, len, "%s", n->label[0] ? n->label : "persist()");
  else if (n->kind == N_SCAN)
    snprintf(buf, len, "a %s", tsr_scan_name(n));
  else if (n->kind == N_SORT)
    snprintf(buf, len, "a sort");
  else if (n->kind == N_RESHAPE)
    snprintf(buf, len, "a reshape");
  else if (n->kind == N_CONCAT)
    snprintf(buf, len, "a concatenation");
  else if (n->kind == N_COMPRESS)
    snprintf(buf, len, "a boolean mask's selection");
  else
    snprintf(buf, len, "%s", la[n->op]);
  size_t used = strlen(buf);
  snprintf(buf + used, len - used, " (%lld x %lld %s)", (long long)rows, (long long)cols,
           tsr_dtype_name(n->dtype));
  if (n->grid.ndim == 1)
    snprintf(buf + used, len - used, " (%lld %s)", (long long)rows, tsr_dtype_name(n->dtype));
}

/* The memory held arrays may use on a rank: the backend's own (device
 * memory) or --mem-limit. */
static double hold_limit(const tsr_exec *ex) {
  size_t dev = tsr_be_memory_limit(ex->be);
  return dev ? (double)dev : (double)ex->mem_limit;
}

/* A node about to be held: its most loaded rank's bytes, added to what the
 * checks so far plan to hold, must fit the limit. Every rank computes the
 * same figures from the grid alone. */
static int check_hold(tsr_exec *ex, tsr_node *n) {
  if (!tsr_exec_holds(ex, n) || n->held || n->hold_checked) return TSR_OK;
  double most = 0, limit = hold_limit(ex);
  for (int q = 0; q < ex->size && q < tsr_grid_count(&n->grid); q++) {
    double b = held_bytes_of(n, q, ex->size);
    if (b > most) most = b;
  }
  n->hold_checked = 1;
  if (limit <= 0 || ex->held_planned + most <= limit) {
    ex->held_planned += most;
    return TSR_OK;
  }
  char what[160], need[32], lim[32], already[32];
  held_name(n, what, sizeof what);
  human_bytes(most, need, sizeof need);
  human_bytes(limit, lim, sizeof lim);
  human_bytes(ex->held_planned, already, sizeof already);
  return TSR_ERROR(TSR_ERR_MEMORY,
                   "cannot hold %s: %s on a rank of %d, over the %s limit of %s memory per "
                   "rank (%s held before it); use more ranks, fewer persisted arrays or a larger "
                   "--mem-limit",
                   what, need, ex->size, lim, tsr_be_memory_limit(ex->be) ? "device" : "host",
                   already);
}

int tsr_exec_take_chunks(void *chunks, int64_t n, const int64_t *ids, double **bufs) {
  for (int64_t i = 0; i < n; i++) {
    ((double **)chunks)[ids[i]] = bufs[i];
    bufs[i] = NULL;
  }
  return TSR_OK;
}

int tsr_exec_persist(tsr_exec *ex, tsr_node *n) {
  if (n->held || n->value) return TSR_OK;
  /* Every rank of the session decides alike: the store is the same on each
   * (the same jobs ended the same way), so no rank computes alone. */
  if (tsr_node_adopt(n, ex->size)) return TSR_OK;
  int64_t total = tsr_grid_count(&n->grid);
  double **chunks = calloc((size_t)total + 1, sizeof(double *));
  int st = tsr_agree(chunks ? TSR_OK : TSR_ERROR(TSR_ERR_MEMORY, "out of memory"));
  if (st == TSR_OK) st = tsr_stage_waves_be(ex, n, tsr_exec_take_chunks, chunks);
  if (st == TSR_OK) {
    tsr_node_hold(n, chunks, tsr_exec_held_free, ex->be);
    n->held_size = ex->size;
    return TSR_OK;
  }
  for (int64_t i = 0; chunks && i < total; i++) tsr_be_release(ex->be, chunks[i]);
  free(chunks);
  return st;
}

int64_t tsr_exec_chunks_per_step(const tsr_exec *ex, const tsr_grid *g, int buffers) {
  double chunk = 8.0 * (double)tsr_grid_max_chunk_elems(g) * buffers;
  int64_t k = ex->threads > 1 ? ex->threads : 1;
  while (k > 1 && chunk * (double)k > 0.25 * (double)ex->mem_limit) k--;
  return k;
}

int tsr_exec_check_chunk(const tsr_exec *ex, const tsr_grid *g) {
  double need = 8.0 * (double)tsr_grid_max_chunk_elems(g);
  if ((double)ex->mem_limit >= need) return TSR_OK;
  char have[32], want[32];
  human_bytes(need, want, sizeof want);
  human_bytes((double)ex->mem_limit, have, sizeof have);
  return TSR_ERROR(TSR_ERR_MEMORY,
                   "chunks of %lld elements need %s each, over --mem-limit %s per rank: use "
                   "smaller chunks or a larger --mem-limit",
                   (long long)tsr_grid_max_chunk_elems(g), want, have);
}

/* Finds, before any work, a chunk that cannot fit the budget (with
 * --no-fuse, the chain of chunks behind it; fused, a chunk that is computed
 * into a buffer: a persisted one or the result's), or an array that cannot
 * be held. A fused reduction of chunks computed where they are reduced needs
 * no chunk buffer; one of staged chunks is checked by the waves. */
int tsr_exec_check_node(tsr_exec *ex, tsr_node *n) {
  int threads;
  if (ex->no_fuse && n->kind == N_REDUCE) return tsr_nofuse_threads(ex, n->in[0], &threads);
  if (n->kind == N_PERSIST || n->kind == N_SCAN || n->kind == N_SORT || n->kind == N_RESHAPE ||
      n->kind == N_CONCAT || n->kind == N_COMPRESS)
    TSR_CHECK(tsr_exec_check_chunk(ex, &n->grid));
  if (n->kind == N_HIST) TSR_CHECK(tsr_exec_check_chunk(ex, &n->in[0]->grid));
  return check_hold(ex, n);
}

int tsr_exec_check_result(const tsr_exec *ex, const tsr_node *node) {
  int threads;
  if (node->value) return TSR_OK;
  if (ex->no_fuse && node->kind != N_REDUCE) return tsr_nofuse_threads(ex, node, &threads);
  return node->kind == N_REDUCE ? TSR_OK : tsr_exec_check_chunk(ex, &node->grid);
}
