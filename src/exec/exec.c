/*
 * exec.c - planner and executor (see exec.h).
 *
 * Fused mode: one program per reduction (or per small result); each rank
 * reduces the chunks it owns in OpenMP workers and the partials are combined
 * across ranks in chunk-index order. --no-fuse: every chunk of every
 * intermediate array is materialized, operation by operation, depth first
 * from the chunk being reduced; each intermediate is freed as soon as its
 * consumer ran, so the live set per worker is a few chunks.
 */
#include "exec/exec.h"

#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/error.h"
#include "linalg/linalg.h"
#include "mpi/agree.h"
#include "mpi/comm.h"
#include "util/signals.h"
#include "exec/stage.h"
#include "util/trace.h"

/* ---- progress ---------------------------------------------------------- */

/* Rank 0's progress line: on a terminal it is rewritten in place (\r) every
 * second; in a batch log (stderr not a terminal) a full line is printed every
 * TESSERA_PROGRESS_INTERVAL seconds (default 10), so logs stay short. By
 * default the first line waits 2 s (--progress: at once). */
typedef struct progress {
  int enabled;      /* this rank prints */
  int always;
  int tty;
  double interval;  /* seconds between lines */
  double t0, last;
  int64_t done, total; /* elements of this rank's share */
  int64_t chunks_done, chunks; /* chunk tasks of this rank's share */
  const char *what;
  int printed;
} progress;

static void progress_init(progress *p, const tsr_exec *ex, const char *what, int64_t elements,
                          int64_t chunks) {
  memset(p, 0, sizeof *p);
  p->enabled = ex->rank == 0 && ex->progress != 0;
  p->always = ex->progress == 1;
  p->tty = p->enabled && isatty(2);
  p->interval = 1.0;
  const char *env = getenv("TESSERA_PROGRESS_INTERVAL");
  if (!p->tty) p->interval = env && atof(env) > 0 ? atof(env) : 10.0;
  p->t0 = tsr_comm_time();
  /* --progress shows the first chunk at once (in a batch log too); otherwise
   * the first line comes after 2 s on a terminal, after one interval in a log. */
  p->last = p->always ? p->t0 - p->interval : p->t0;
  p->total = elements;
  p->chunks = chunks;
  p->what = what;
}

static void progress_print(progress *p, double now, int64_t done, int64_t chunks_done) {
  double frac = p->total ? (double)done / (double)p->total : 1.0;
  double rate = now > p->t0 ? (double)done * 8.0 / (now - p->t0) / 1e9 : 0.0;
  double eta = frac > 0 ? (now - p->t0) * (1.0 - frac) / frac : 0.0;
  fprintf(stderr, "%stessera: %s %5.1f%% (%.1f GB/s per rank, ETA %.0f s), rank 0: %lld/%lld chunks%s",
          p->tty ? "\r" : "", p->what, 100.0 * frac, rate, eta, (long long)chunks_done,
          (long long)p->chunks, p->tty ? "\033[K" : "\n");
  fflush(stderr);
  p->printed = 1;
}

static void progress_tick(void *vctx, int64_t elements) {
  progress *p = vctx;
  int64_t done, chunks_done;
#pragma omp atomic capture
  done = p->done += elements;
#pragma omp atomic capture
  chunks_done = ++p->chunks_done;
  if (!p->enabled) return;
  double now = tsr_comm_time();
  if (now - p->last < p->interval || (!p->always && now - p->t0 < 2.0)) return;
#pragma omp critical(tsr_progress)
  if (now - p->last >= p->interval) {
    p->last = now;
    progress_print(p, now, done, chunks_done);
  }
}

/* Once a line was shown, the last state (100% when nothing failed), so that
 * a terminal's line does not stay at an earlier percentage. */
static void progress_end(progress *p) {
  if (!p->printed) return;
  progress_print(p, tsr_comm_time(), p->done, p->chunks_done);
  if (p->tty) fprintf(stderr, "\n");
}

/* ---- tracing ------------------------------------------------------------- */

/* A static name for a node's own operation (trace rows of --no-fuse). */
static const char *node_label(const tsr_node *n) {
  switch (n->kind) {
  case N_RANDOM: return n->op == RNG_NORMAL ? "normal" : "uniform";
  case N_FULL: return "full";
  case N_ARANGE: return "arange";
  case N_UNARY:
  case N_BINARY: return tsr_ew_name(n->op);
  case N_SELECT: return "slice";
  case N_ASTYPE: return "astype";
  case N_REDUCE: return tsr_red_name(n->op);
  case N_LINALG: return "linalg";
  default: return "operation";
  }
}

/* Times a collective: adds to the rank's communication totals, and records
 * a span when tracing. */
static void comm_done(tsr_exec *ex, const char *name, double t0, double bytes) {
  double t1 = tsr_comm_time();
  ex->comm_s += t1 - t0;
  ex->comm_bytes += bytes;
  if (tsr_trace_on) {
    double now = tsr_trace_now();
    tsr_trace_span(TSR_TRACE_COMM, name, 0, now - (t1 - t0), now,
                   (tsr_trace_args){-1, 0, 0, (int64_t)bytes});
  }
}

/* ---- ownership --------------------------------------------------------- */

static int owned_chunks(const tsr_exec *ex, const tsr_grid *g, int64_t **ids, int64_t *n) {
  int64_t total = tsr_grid_count(g), k = 0;
  TSR_MALLOC(*ids, sizeof(int64_t) * (size_t)(total / ex->size + 1));
  for (int64_t c = ex->rank; c < total; c += ex->size) (*ids)[k++] = c;
  *n = k;
  return TSR_OK;
}

static int64_t box_elems(int nd, const int64_t *extent) {
  int64_t n = 1;
  for (int a = 0; a < nd; a++) n *= extent[a];
  return n;
}

/* ---- --no-fuse: materialize chunks operation by operation -------------- */

static int materialize_box(const tsr_exec *ex, const tsr_node *n, const int64_t *start,
                           const int64_t *extent, double **out);

/* Chunk range of input leaf l covering the leaf's image of a box. */
static int leaf_chunk_range(const tsr_leaf *l, const int64_t *start, const int64_t *extent,
                            int64_t *lo, int64_t *hi) {
  const tsr_grid *g = &l->node->grid;
  for (int b = 0; b < l->base_ndim; b++) {
    int k = l->axis_of[b];
    int64_t c0 = l->off[b], c1 = l->off[b];
    if (k >= 0) {
      c0 = l->off[b] + l->step[b] * start[k];
      c1 = l->off[b] + l->step[b] * (start[k] + extent[k] - 1);
    }
    if (c0 > c1) {
      int64_t t = c0;
      c0 = c1;
      c1 = t;
    }
    lo[b] = tsr_grid_find(g, b, c0);
    hi[b] = tsr_grid_find(g, b, c1);
  }
  return TSR_OK;
}

static void chunkset_free(const tsr_exec *ex, tsr_chunkset *cs) {
  for (int i = 0; i < cs->n; i++) tsr_be_release(ex->be, (double *)cs->data[i]);
  cs->n = 0;
}

/* Materializes every input chunk a CHUNKS leaf reads for this box. */
static int fill_chunkset(const tsr_exec *ex, const tsr_leaf *l, const int64_t *start,
                         const int64_t *extent, tsr_chunkset *cs) {
  int64_t lo[TSR_MAXDIM], hi[TSR_MAXDIM], idx[TSR_MAXDIM];
  const tsr_grid *g = &l->node->grid;
  TSR_CHECK(leaf_chunk_range(l, start, extent, lo, hi));
  int64_t count = 1;
  for (int b = 0; b < l->base_ndim; b++) count *= hi[b] - lo[b] + 1;
  if (count > 8)
    return TSR_ERROR(TSR_ERR_INTERNAL, "a chunk reads %lld input chunks; rechunk first",
                     (long long)count);
  cs->n = 0;
  for (int64_t c = 0; c < count; c++) {
    int64_t rem = c;
    for (int b = l->base_ndim - 1; b >= 0; b--) {
      idx[b] = lo[b] + rem % (hi[b] - lo[b] + 1);
      rem /= hi[b] - lo[b] + 1;
    }
    tsr_grid_chunk_box(g, idx, cs->start[cs->n], cs->extent[cs->n]);
    double *buf;
    int st = materialize_box(ex, l->node, cs->start[cs->n], cs->extent[cs->n], &buf);
    if (st != TSR_OK) {
      chunkset_free(ex, cs);
      return st;
    }
    cs->data[cs->n++] = buf;
  }
  return TSR_OK;
}

static int materialize_box(const tsr_exec *ex, const tsr_node *n, const int64_t *start,
                           const int64_t *extent, double **out) {
  if (n->kind == N_RECHUNK && !n->in[0]->value) /* piece by piece from the source chunks */
    return tsr_stage_rechunk_box(ex, n, start, extent, out);
  tsr_prog p;
  TSR_CHECK(tsr_prog_compile(n, 1, &p));
  tsr_chunkset sets[8];
  tsr_stage_bufs staged = {{0}, 0};
  int nsets = 0, st = tsr_stage_local(ex, &p, start, extent, &staged); /* loads: read here */
  for (int i = 0; i < p.nleaves && st == TSR_OK; i++) {
    if (p.leaves[i].kind != LEAF_CHUNKS) continue;
    if (nsets == 8) {
      st = TSR_ERROR(TSR_ERR_INTERNAL, "operation with more than 8 array inputs");
      break;
    }
    st = fill_chunkset(ex, &p.leaves[i], start, extent, &sets[nsets]);
    if (st == TSR_OK) p.leaves[i].chunks = &sets[nsets++];
  }
  *out = NULL;
  tsr_be_span span = {TSR_TRACE_MATERIALIZE, node_label(n), -1, 0, 1, NULL, NULL};
  if (st == TSR_OK) st = tsr_be_eval_new(ex->be, &p, start, extent, out, &span);
  for (int i = 0; i < nsets; i++) chunkset_free(ex, &sets[i]);
  tsr_stage_local_free(&staged);
  tsr_prog_free(&p);
  return st;
}

/* A program that reads a materialized box back (reduction of --no-fuse chunks). */
static int box_program(const tsr_node *n, const int64_t *start, const int64_t *extent,
                       const double *data, tsr_prog *p) {
  tsr_node view = *n;
  view.value = (double *)data;
  TSR_CHECK(tsr_prog_compile(&view, 0, p));
  tsr_leaf *l = &p->leaves[0];
  l->resident = 1;
  int64_t stride = 1;
  l->e_const = 0;
  for (int b = n->grid.ndim - 1; b >= 0; b--) {
    l->base_shape[b] = extent[b];
    l->e_const -= start[b] * stride;
    l->e_coef[b] = stride;
    stride *= extent[b];
  }
  return TSR_OK;
}

/* Peak bytes one --no-fuse worker holds: a chunk of every operation on the
 * longest chain, counted generously as all operations of the cone. */
static double cone_bytes(const tsr_node *n) {
  if (n->value || n->held || n->kind == N_FULL) return 0.0;
  double mine = 8.0 * (double)tsr_grid_max_chunk_elems(&n->grid);
  double sum = mine;
  for (int i = 0; i < 2; i++)
    if (n->in[i]) sum += cone_bytes(n->in[i]);
  return sum;
}

static int unfused_threads(const tsr_exec *ex, const tsr_node *x, int *threads) {
  double per = cone_bytes(x) + 8.0 * (double)tsr_grid_max_chunk_elems(&x->grid);
  double limit = (double)ex->mem_limit;
  if (per > limit) {
    int64_t fit = (int64_t)(limit / (per / (double)tsr_grid_max_chunk_elems(&x->grid)));
    return TSR_ERROR(TSR_ERR_MEMORY,
                     "chunks of %lld elements need %.0f MB per worker without fusion, over "
                     "--mem-limit %.0f MB: use chunks of at most %lld elements",
                     (long long)tsr_grid_max_chunk_elems(&x->grid), per / 1e6, limit / 1e6,
                     (long long)(fit > 0 ? fit : 1));
  }
  int t = (int)(limit / per);
  *threads = t < ex->threads ? t : ex->threads;
  return TSR_OK;
}

static int reduce_unfused(tsr_exec *ex, const tsr_node *x, const tsr_reduce_batch *b,
                          progress *pr) {
  int threads = 1, status = TSR_OK;
  char message[1024] = "";
  TSR_CHECK(unfused_threads(ex, x, &threads));
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
  for (int64_t i = 0; i < b->nchunks; i++) {
    int st;
#pragma omp atomic read
    st = status;
    if (st != TSR_OK || tsr_interrupted()) continue;
    int64_t idx[TSR_MAXDIM], start[TSR_MAXDIM], extent[TSR_MAXDIM];
    tsr_grid_unravel(b->grid, b->ids[i], idx);
    tsr_grid_chunk_box(b->grid, idx, start, extent);
    double *buf = NULL;
    tsr_prog p;
    tsr_be_span span = {TSR_TRACE_CHUNK, tsr_red_name(b->kind), b->ids[i], 1, 0, progress_tick, pr};
    st = materialize_box(ex, x, start, extent, &buf);
    if (st == TSR_OK) st = box_program(x, start, extent, buf, &p);
    if (st == TSR_OK) {
      st = tsr_be_reduce_box(ex->be, &p, start, extent, b->kind, b->axis, b->out[i], &span);
      tsr_prog_free(&p);
    }
    tsr_be_release(ex->be, buf);
    if (st != TSR_OK) {
#pragma omp critical(tsr_exec_error)
      if (status == TSR_OK) {
        snprintf(message, sizeof message, "%s", tsr_error_message());
        status = st;
      }
    }
  }
  if (status != TSR_OK && tsr_error_code() == TSR_OK) return TSR_ERROR(status, "%s", message);
  return status;
}

/* ---- combining partials across ranks ------------------------------------ */

/* Full reduction: every rank gets every chunk's partial, combines in order. */
static int combine_full(tsr_exec *ex, tsr_node *r, const tsr_grid *g, const int64_t *ids,
                        int64_t n, tsr_stat **parts) {
  size_t rec = sizeof(int64_t) + sizeof(tsr_stat);
  char *send, *all;
  size_t *counts;
  TSR_MALLOC(send, rec * (size_t)n);
  for (int64_t i = 0; i < n; i++) {
    memcpy(send + rec * (size_t)i, &ids[i], sizeof(int64_t));
    memcpy(send + rec * (size_t)i + sizeof(int64_t), parts[i], sizeof(tsr_stat));
  }
  double t0 = tsr_comm_time();
  int st = tsr_comm_allgather_bytes(send, rec * (size_t)n, &all, &counts);
  comm_done(ex, "allgather partials", t0,
            st == TSR_OK ? (double)(rec * (size_t)tsr_grid_count(g) + rec * (size_t)n) : 0.0);
  free(send);
  TSR_CHECK(st);
  double tc = tsr_trace_on ? tsr_trace_now() : 0.0;
  int64_t total = tsr_grid_count(g), got = 0;
  tsr_stat *ordered;
  TSR_CALLOC(ordered, (size_t)total, sizeof(tsr_stat));
  size_t bytes = 0;
  for (int q = 0; q < ex->size; q++) bytes += counts[q];
  for (size_t off = 0; off + rec <= bytes; off += rec, got++) {
    int64_t id;
    memcpy(&id, all + off, sizeof id);
    memcpy(&ordered[id], all + off + sizeof id, sizeof(tsr_stat));
  }
  free(all);
  free(counts);
  if (got != total) {
    free(ordered);
    return TSR_ERROR(TSR_ERR_INTERNAL, "gathered %lld partials for %lld chunks", (long long)got,
                     (long long)total);
  }
  tsr_stat s = tsr_stat_combine(r->op, ordered, total);
  free(ordered);
  if (tsr_trace_on)
    tsr_trace_end(TSR_TRACE_COMBINE, tsr_red_name(r->op), tc, (tsr_trace_args){-1, 0, total, 0});
  TSR_MALLOC(r->value, sizeof(double));
  r->value[0] = tsr_stat_finish(r->op, &s, r->ddof);
  if (r->dtype == TSR_F32) r->value[0] = (double)(float)r->value[0];
  return TSR_OK;
}

/* Chunk coordinates of the reduction's output chunk fed by input chunk idx. */
static int64_t out_chunk_of(const tsr_node *r, const tsr_grid *in, const int64_t *idx) {
  int64_t o[TSR_MAXDIM];
  int k = 0;
  for (int a = 0; a < in->ndim; a++) {
    if (a == r->axis) {
      if (r->keepdims) o[k++] = 0;
      continue;
    }
    o[k++] = idx[a];
  }
  return tsr_grid_ravel(&r->grid, o);
}

/* Axis reduction: partials travel to the owner of their output chunk, which
 * combines them along the axis in chunk order; then the finished values are
 * replicated. */
static int combine_axis(tsr_exec *ex, tsr_node *r, const tsr_grid *g, const int64_t *ids,
                        int64_t n, tsr_stat **parts) {
  int P = ex->size;
  char **send;
  size_t *sendn;
  TSR_CALLOC(send, (size_t)P, sizeof(char *));
  TSR_CALLOC(sendn, (size_t)P, sizeof(size_t));
  int64_t idx[TSR_MAXDIM], start[TSR_MAXDIM], extent[TSR_MAXDIM];
  for (int pass = 0; pass < 2; pass++) { /* sizes, then copies */
    for (int q = 0; q < P; q++) {
      if (pass == 1) TSR_MALLOC(send[q], sendn[q]);
      sendn[q] = 0;
    }
    for (int64_t i = 0; i < n; i++) {
      tsr_grid_unravel(g, ids[i], idx);
      tsr_grid_chunk_box(g, idx, start, extent);
      int q = tsr_chunk_owner(out_chunk_of(r, g, idx), P);
      size_t len = sizeof(tsr_stat) * (size_t)tsr_partial_count(g->ndim, extent, r->axis);
      if (pass == 1) {
        memcpy(send[q] + sendn[q], &ids[i], sizeof(int64_t));
        memcpy(send[q] + sendn[q] + sizeof(int64_t), parts[i], len);
      }
      sendn[q] += sizeof(int64_t) + len;
    }
  }
  char *recv;
  size_t *recvn;
  double t0 = tsr_comm_time(), moved = 0;
  for (int q = 0; q < P; q++) moved += (double)sendn[q];
  int st = tsr_comm_alltoall_bytes(send, sendn, &recv, &recvn);
  for (int q = 0; q < P && st == TSR_OK; q++) moved += (double)recvn[q];
  comm_done(ex, "alltoall partials", t0, st == TSR_OK ? moved : 0.0);
  for (int q = 0; q < P; q++) free(send[q]);
  free(send);
  free(sendn);
  TSR_CHECK(st);
  size_t bytes = 0;
  for (int q = 0; q < P; q++) bytes += recvn[q];
  free(recvn);
  double tc = tsr_trace_on ? tsr_trace_now() : 0.0;

  /* Index the received partials by (output chunk, position along axis). */
  int64_t nout = tsr_grid_count(&r->grid), K = g->nchunks[r->axis];
  const tsr_stat **slot;
  TSR_CALLOC(slot, (size_t)(nout * K), sizeof(tsr_stat *));
  for (size_t off = 0; off < bytes;) {
    int64_t id;
    memcpy(&id, recv + off, sizeof id);
    tsr_grid_unravel(g, id, idx);
    tsr_grid_chunk_box(g, idx, start, extent);
    slot[out_chunk_of(r, g, idx) * K + idx[r->axis]] = (const tsr_stat *)(recv + off + sizeof id);
    off += sizeof id + sizeof(tsr_stat) * (size_t)tsr_partial_count(g->ndim, extent, r->axis);
  }
  int64_t *mine = NULL, nmine = 0;
  TSR_CHECK(owned_chunks(ex, &r->grid, &mine, &nmine));
  double **vals;
  TSR_CALLOC(vals, (size_t)nmine + 1, sizeof(double *));
  tsr_stat *col;
  TSR_MALLOC(col, sizeof(tsr_stat) * (size_t)K);
  for (int64_t j = 0; j < nmine && st == TSR_OK; j++) {
    int64_t oidx[TSR_MAXDIM], ostart[TSR_MAXDIM], oext[TSR_MAXDIM];
    tsr_grid_unravel(&r->grid, mine[j], oidx);
    tsr_grid_chunk_box(&r->grid, oidx, ostart, oext);
    int64_t cnt = box_elems(r->grid.ndim, oext);
    vals[j] = malloc(sizeof(double) * (size_t)(cnt + 1));
    if (!vals[j]) {
      st = TSR_ERROR(TSR_ERR_MEMORY, "out of memory combining a reduction");
      break;
    }
    for (int64_t e = 0; e < cnt; e++) {
      for (int64_t k = 0; k < K; k++) {
        const tsr_stat *s = slot[mine[j] * K + k];
        col[k] = s ? s[e] : tsr_stat_empty(r->op);
      }
      tsr_stat s = tsr_stat_combine(r->op, col, K);
      double v = tsr_stat_finish(r->op, &s, r->ddof);
      vals[j][e] = r->dtype == TSR_F32 ? (double)(float)v : v;
    }
  }
  free(col);
  free(slot);
  free(recv);
  if (tsr_trace_on)
    tsr_trace_end(TSR_TRACE_COMBINE, tsr_red_name(r->op), tc, (tsr_trace_args){-1, 0, 0, 0});
  if (st == TSR_OK) st = tsr_exec_replicate(ex, r, mine, nmine, vals);
  for (int64_t j = 0; j < nmine; j++) free(vals[j]);
  free(vals);
  free(mine);
  return st;
}

int tsr_exec_replicate(tsr_exec *ex, tsr_node *node, const int64_t *ids, int64_t n,
                       double *const *bufs) {
  const tsr_grid *g = &node->grid;
  int64_t idx[TSR_MAXDIM], start[TSR_MAXDIM], extent[TSR_MAXDIM];
  size_t bytes = 0;
  for (int64_t i = 0; i < n; i++) {
    tsr_grid_unravel(g, ids[i], idx);
    tsr_grid_chunk_box(g, idx, start, extent);
    bytes += sizeof(int64_t) + sizeof(double) * (size_t)box_elems(g->ndim, extent);
  }
  char *send, *all;
  size_t *counts, off = 0;
  TSR_MALLOC(send, bytes);
  for (int64_t i = 0; i < n; i++) {
    tsr_grid_unravel(g, ids[i], idx);
    tsr_grid_chunk_box(g, idx, start, extent);
    size_t len = sizeof(double) * (size_t)box_elems(g->ndim, extent);
    memcpy(send + off, &ids[i], sizeof(int64_t));
    memcpy(send + off + sizeof(int64_t), bufs[i], len);
    off += sizeof(int64_t) + len;
  }
  double t0 = tsr_comm_time();
  int st = tsr_comm_allgather_bytes(send, bytes, &all, &counts);
  free(send);
  size_t total = 0;
  for (int q = 0; st == TSR_OK && q < ex->size; q++) total += counts[q];
  comm_done(ex, "allgather chunks", t0, st == TSR_OK ? (double)(bytes + total) : 0.0);
  TSR_CHECK(st);
  free(counts);
  int64_t size = tsr_node_size(node);
  node->value = malloc(sizeof(double) * (size_t)(size + 1));
  if (!node->value) {
    free(all);
    return TSR_ERROR(TSR_ERR_MEMORY, "out of memory for a result of %lld elements", (long long)size);
  }
  for (off = 0; off < total;) {
    int64_t id, row_stride[TSR_MAXDIM];
    memcpy(&id, all + off, sizeof id);
    tsr_grid_unravel(g, id, idx);
    tsr_grid_chunk_box(g, idx, start, extent);
    const double *src = (const double *)(all + off + sizeof id);
    int64_t cnt = box_elems(g->ndim, extent), s = 1;
    for (int a = g->ndim - 1; a >= 0; a--) {
      row_stride[a] = s;
      s *= g->shape[a];
    }
    for (int64_t e = 0; e < cnt; e++) { /* scatter the chunk into the full array */
      int64_t rem = e, dst = 0;
      for (int a = g->ndim - 1; a >= 0; a--) {
        dst += (start[a] + rem % extent[a]) * row_stride[a];
        rem /= extent[a];
      }
      node->value[dst] = src[e];
    }
    off += sizeof id + sizeof(double) * (size_t)cnt;
  }
  free(all);
  return TSR_OK;
}

/* ---- reductions and small results ---------------------------------------- */

static int compute_reduce(tsr_exec *ex, tsr_node *r) {
  const tsr_node *x = r->in[0];
  const tsr_grid *g = &x->grid;
  int64_t *ids = NULL, n = 0;
  TSR_CHECK(owned_chunks(ex, g, &ids, &n));
  tsr_stat **parts;
  TSR_CALLOC(parts, (size_t)n + 1, sizeof(tsr_stat *));
  int64_t idx[TSR_MAXDIM], start[TSR_MAXDIM], extent[TSR_MAXDIM], mine = 0;
  int st = TSR_OK;
  for (int64_t i = 0; i < n && st == TSR_OK; i++) {
    tsr_grid_unravel(g, ids[i], idx);
    tsr_grid_chunk_box(g, idx, start, extent);
    mine += box_elems(g->ndim, extent);
    parts[i] = malloc(sizeof(tsr_stat) * (size_t)tsr_partial_count(g->ndim, extent, r->axis));
    if (!parts[i]) st = TSR_ERROR(TSR_ERR_MEMORY, "out of memory for reduction partials");
  }
  char what[64];
  snprintf(what, sizeof what, "%s over %lld chunks", tsr_red_name(r->op),
           (long long)tsr_grid_count(g));
  progress pr;
  progress_init(&pr, ex, what, mine, n);
  tsr_reduce_batch b = {NULL, g, n, ids, r->op, r->axis, parts, progress_tick, &pr};
  double t0 = tsr_comm_time();
  if (st == TSR_OK && ex->no_fuse) {
    st = reduce_unfused(ex, x, &b, &pr);
  } else if (st == TSR_OK) {
    tsr_prog p;
    st = tsr_prog_compile(x, 0, &p);
    if (st == TSR_OK) {
      b.prog = &p;
      st = tsr_stage_needed(&p) ? tsr_stage_reduce(ex, &b) : tsr_be_reduce_chunks(ex->be, &b);
      tsr_prog_free(&p);
    }
  }
  if (st == TSR_OK && tsr_interrupted()) st = TSR_ERROR(TSR_ERR_INTERRUPTED, "interrupted");
  progress_end(&pr);
  ex->compute_s += tsr_comm_time() - t0;
  ex->elements += (double)mine;
  ex->chunks_done += n;
  st = tsr_agree(st);
  if (st == TSR_OK)
    st = r->axis < 0 ? combine_full(ex, r, g, ids, n, parts) : combine_axis(ex, r, g, ids, n, parts);
  for (int64_t i = 0; i < n; i++) free(parts[i]);
  free(parts);
  free(ids);
  return st;
}

/* A small non-reduced result (a slice of a random array, ...). */
static int compute_elementwise(tsr_exec *ex, tsr_node *node) {
  const tsr_grid *g = &node->grid;
  int64_t *ids = NULL, n = 0;
  TSR_CHECK(owned_chunks(ex, g, &ids, &n));
  double **bufs;
  TSR_CALLOC(bufs, (size_t)n + 1, sizeof(double *));
  tsr_prog p;
  memset(&p, 0, sizeof p);
  int st = ex->no_fuse ? TSR_OK : tsr_prog_compile(node, 0, &p);
  double t0 = tsr_comm_time();
  int staged = st == TSR_OK && !ex->no_fuse && tsr_stage_needed(&p);
  if (staged) st = tsr_stage_eval(ex, &p, g, ids, n, bufs); /* collective: reads, rechunks */
  for (int64_t i = 0; i < n && st == TSR_OK && !staged; i++) {
    int64_t idx[TSR_MAXDIM], start[TSR_MAXDIM], extent[TSR_MAXDIM];
    tsr_grid_unravel(g, ids[i], idx);
    tsr_grid_chunk_box(g, idx, start, extent);
    size_t cnt = (size_t)box_elems(g->ndim, extent);
    double *dev = NULL;
    tsr_be_span span = {TSR_TRACE_CHUNK, "evaluate", ids[i], 1, 1, NULL, NULL};
    if (ex->no_fuse)
      st = materialize_box(ex, node, start, extent, &dev);
    else
      st = tsr_be_eval_new(ex->be, &p, start, extent, &dev, &span);
    bufs[i] = st == TSR_OK ? malloc(sizeof(double) * (cnt + 1)) : NULL;
    if (st == TSR_OK && !bufs[i]) st = TSR_ERROR(TSR_ERR_MEMORY, "out of memory for a result chunk");
    if (st == TSR_OK) st = tsr_be_download(ex->be, dev, bufs[i], cnt);
    tsr_be_release(ex->be, dev);
    ex->elements += (double)box_elems(g->ndim, extent);
    ex->chunks_done++;
  }
  tsr_prog_free(&p);
  ex->compute_s += tsr_comm_time() - t0;
  st = tsr_agree(st);
  if (st == TSR_OK) st = tsr_exec_replicate(ex, node, ids, n, bufs);
  for (int64_t i = 0; i < n; i++) free(bufs[i]);
  free(bufs);
  free(ids);
  return st;
}

static int compute_dependencies(tsr_exec *ex, tsr_node *n) {
  if (n->value || n->held) return TSR_OK;
  for (int i = 0; i < 2; i++)
    if (n->in[i]) TSR_CHECK(compute_dependencies(ex, n->in[i]));
  if (n->kind == N_REDUCE) return compute_reduce(ex, n);
  if (n->kind == N_LINALG && !tsr_linalg_is_view(n)) return tsr_agree(tsr_linalg_compute(ex, n));
  return TSR_OK;
}

/* Finds, before any work, a --no-fuse chunk that cannot fit the budget. */
static int check_node(const tsr_exec *ex, const tsr_node *n) {
  if (n->value || n->held) return TSR_OK;
  for (int i = 0; i < 2; i++)
    if (n->in[i]) TSR_CHECK(check_node(ex, n->in[i]));
  int threads;
  if (ex->no_fuse && n->kind == N_REDUCE) return unfused_threads(ex, n->in[0], &threads);
  return TSR_OK;
}

int tsr_exec_check(const tsr_exec *ex, const tsr_node *node) {
  TSR_CHECK(check_node(ex, node));
  if (ex->no_fuse && node->kind != N_REDUCE && !node->value) {
    int threads;
    return unfused_threads(ex, node, &threads);
  }
  return TSR_OK;
}

int tsr_exec_compute(tsr_exec *ex, tsr_node *node) {
  TSR_CHECK(compute_dependencies(ex, node));
  if (node->value) return TSR_OK;
  return compute_elementwise(ex, node);
}

int tsr_exec_materialize(const tsr_exec *ex, const tsr_node *node, const int64_t *start,
                         const int64_t *extent, double **out) {
  return materialize_box(ex, node, start, extent, out);
}

int tsr_exec_prepare(tsr_exec *ex, tsr_node *node) { return compute_dependencies(ex, node); }
