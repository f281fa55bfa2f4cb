/*
 * waves.c - waves of consumer chunks (stage.h): in wave w every rank stages
 * and evaluates its next few chunks, so memory stays bounded and every rank
 * makes the same collective calls in the same order; and the consumers of
 * waves: staged reductions, small results, saves (tsr_stage_waves) and
 * lists of boxes (tsr_stage_boxes_be, matmul's operands). The plan of each
 * wave is plan/plan.h's.
 */
#include "exec/stage.h"

#include <stdlib.h>
#include <string.h>

#include "exec/nofuse.h"
#include "exec/phase.h"
#include "mpi/agree.h"
#include "mpi/comm.h"
#include "util/error.h"
#include "util/trace.h"
#include "util/workers.h"

/* Chunks per rank per wave: the threads, fewer when the memory budget asks,
 * and the same on every rank (the plan of a wave depends on it). */
static int wave_size(const tsr_exec *ex, const tsr_grid *g, const tsr_prog *P, int *w) {
  int staged = 0;
  for (int i = 0; P && i < P->nleaves; i++)
    staged += P->leaves[i].kind == LEAF_LOAD || P->leaves[i].kind == LEAF_XFER ||
              P->leaves[i].kind == LEAF_HELD;
  TSR_CHECK(tsr_agree_each(tsr_exec_check_chunk(ex, g))); /* a staged chunk is in a buffer */
  return tsr_agree_min(
      tsr_wave_width(ex->threads, ex->mem_limit, tsr_grid_max_chunk_elems(g), staged), w);
}

/* Work on one staged chunk: slot is its position among this rank's chunks. */
typedef int (*chunk_fn)(void *ctx, int64_t slot, int64_t id, const tsr_prog *prog,
                        const int64_t *start, const int64_t *extent);

/* One wave: its plan, and this rank's chunks staged. */
typedef struct wave {
  tsr_wave_plan plan;
  tsr_runnable *mine;
  int64_t got;
} wave;

/* Stages a planned wave (collective); without a program (--no-fuse) fn
 * materializes each chunk itself and only the boxes are set. */
static int wave_stage(tsr_phase *ph, const tsr_prog *P, const tsr_grid *g, wave *v) {
  const tsr_wave_plan *pl = &v->plan;
  if (P) return tsr_stage_round(ph, P, pl->tasks, pl->nt, 0, &v->mine, &v->got);
  v->mine = calloc((size_t)pl->nmine + 1, sizeof *v->mine);
  if (!v->mine) return TSR_ERROR(TSR_ERR_MEMORY, "out of memory");
  for (int64_t k = 0, t = 0; k < pl->nt; k++)
    if (pl->tasks[k].rank == ph->ex->rank) {
      for (int a = 0; a < g->ndim; a++) {
        v->mine[t].start[a] = pl->tasks[k].box.first[a];
        v->mine[t].extent[a] = pl->tasks[k].box.count[a];
      }
      t++;
    }
  v->got = pl->nmine;
  return TSR_OK;
}

static void wave_plan(const tsr_exec *ex, const tsr_grid *g, int W, int64_t w, wave *v) {
  v->mine = NULL;
  v->got = 0;
  tsr_plan_wave(g, ex->rank, ex->size, W, w, &v->plan);
}

static int wave_alloc(wave *v, int size, int W) {
  v->plan.tasks = malloc(sizeof(tsr_task) * (size_t)size * (size_t)W);
  v->plan.slots = malloc(sizeof(int64_t) * (size_t)W);
  v->plan.ids = malloc(sizeof(int64_t) * (size_t)W);
  v->mine = NULL;
  v->got = 0;
  return v->plan.tasks && v->plan.slots && v->plan.ids
             ? TSR_OK
             : TSR_ERROR(TSR_ERR_MEMORY, "out of memory planning waves");
}

static void wave_free(tsr_phase *ph, wave *v) {
  if (v->mine) tsr_runnables_free(&ph->pool, v->mine, v->got);
  v->mine = NULL;
  free(v->plan.tasks);
  free(v->plan.slots);
  free(v->plan.ids);
}

/* Runs fn over wave cur's chunks in the threads while the main thread
 * stages wave next (when more): its reads and exchanges, the MPI and HDF5
 * calls, stay on the main thread, so I/O overlaps computation. Returns the
 * chunks' status; *next_st: the staging's. */
static int wave_run(tsr_phase *ph, const tsr_prog *P, const tsr_grid *g, wave *cur, wave *next,
                    int more, chunk_fn fn, void *ctx, int *next_st) {
  tsr_workers w;
  tsr_workers_init_interruptible(&w);
  *next_st = TSR_OK;
#pragma omp parallel
  {
#pragma omp master
    if (more) *next_st = wave_stage(ph, P, g, next);
#pragma omp for schedule(dynamic, 1) nowait
    for (int64_t k = 0; k < cur->got; k++) {
      if (tsr_workers_stop(&w)) continue;
      tsr_workers_fail(&w,
                       fn(ctx, cur->plan.slots[k], cur->plan.ids[k], P ? &cur->mine[k].prog : NULL,
                          cur->mine[k].start, cur->mine[k].extent));
    }
  }
  return tsr_workers_end(&w);
}

/* Runs fn over this rank's chunks of g in waves; after each wave (when
 * given) calls done with the wave's chunks. Collective. */
static int run_waves(tsr_phase *ph, const tsr_prog *P, const tsr_grid *g, chunk_fn fn, void *ctx,
                     int (*done)(void *, int64_t, int64_t, const int64_t *), void *dctx) {
  tsr_exec *ex = ph->ex;
  int W;
  TSR_CHECK(wave_size(ex, g, P, &W));
  int64_t nwaves = tsr_wave_count(tsr_grid_count(g), ex->size, W);
  wave cur, next;
  int st = wave_alloc(&cur, ex->size, W), rs = wave_alloc(&next, ex->size, W);
  st = tsr_agree(st != TSR_OK ? st : rs);
  if (st == TSR_OK && nwaves > 0) {
    wave_plan(ex, g, W, 0, &cur);
    st = wave_stage(ph, P, g, &cur);
  }
  for (int64_t w = 0; w < nwaves && st == TSR_OK; w++) {
    int more = w + 1 < nwaves, next_st;
    if (more) wave_plan(ex, g, W, w + 1, &next);
    int status = wave_run(ph, P, g, &cur, &next, more, fn, ctx, &next_st);
    if (cur.mine) tsr_runnables_free(&ph->pool, cur.mine, cur.got);
    cur.mine = NULL;
    /* next_st is the same on every rank (staging agrees); the chunks' is not */
    st = tsr_agree(status != TSR_OK ? status : next_st);
    if (st == TSR_OK && done) st = tsr_agree(done(dctx, w * W, cur.plan.nmine, cur.plan.ids));
    wave t = cur;
    cur = next;
    next = t;
  }
  wave_free(ph, &cur);
  wave_free(ph, &next);
  return st;
}

/* ---- reductions ---- */

typedef struct reduce_ctx {
  const tsr_exec *ex;
  const tsr_reduce_batch *b;
} reduce_ctx;

static int reduce_one(void *vctx, int64_t slot, int64_t id, const tsr_prog *prog,
                      const int64_t *start, const int64_t *extent) {
  reduce_ctx *c = vctx;
  const tsr_reduce_batch *b = c->b;
  if (slot >= b->nchunks || b->ids[slot] != id)
    return TSR_ERROR(TSR_ERR_INTERNAL, "staged chunk %lld is not this rank's chunk %lld",
                     (long long)id, (long long)slot);
  tsr_be_span span = {TSR_TRACE_CHUNK, tsr_red_name(b->kind), id, 1, 0,
                      b->progress,     b->progress_ctx};
  return tsr_be_reduce_box(c->ex->be, prog, start, extent, b->kind, b->axis, b->out[slot], &span);
}

int tsr_stage_reduce(tsr_exec *ex, const tsr_reduce_batch *b) {
  tsr_phase ph;
  tsr_phase_begin(&ph, ex);
  reduce_ctx c = {ex, b};
  int st = run_waves(&ph, b->prog, b->grid, reduce_one, &c, NULL, NULL);
  return tsr_phase_end(&ph, st);
}

/* ---- evaluated chunks ---- */

typedef struct eval_ctx {
  const tsr_exec *ex;
  const tsr_node *node; /* --no-fuse: materialized */
  double **host;        /* by slot */
  int64_t base;         /* first slot of host[] */
  double **dev;         /* waves, fused: a backend buffer per slot, kept for the next wave */
  size_t cap;           /* waves: the size of kept buffers (host[] is kept too); else 0 */
} eval_ctx;

/* Evaluates (or materializes) one chunk into backend memory *dev. */
static int eval_dev(eval_ctx *c, const tsr_prog *prog, const int64_t *start, const int64_t *extent,
                    size_t n, double **keep, double **dev) {
  const tsr_backend_ops *be = c->ex->be;
  if (!prog) return tsr_nofuse_materialize(c->ex, c->node, start, extent, dev);
  if (keep && !*keep) TSR_CHECK(tsr_be_alloc(be, c->cap, keep));
  *dev = keep ? *keep : NULL;
  if (!*dev) TSR_CHECK(tsr_be_alloc(be, n, dev));
  return tsr_be_eval_box(be, prog, start, extent, *dev, NULL);
}

static int eval_one(void *vctx, int64_t slot, int64_t id, const tsr_prog *prog,
                    const int64_t *start, const int64_t *extent) {
  eval_ctx *c = vctx;
  const tsr_backend_ops *be = c->ex->be;
  int nd = c->node ? c->node->grid.ndim : prog->ndim;
  size_t n = (size_t)tsr_elems_of(nd, extent);
  double *dev = NULL, t0 = tsr_trace_on ? tsr_trace_now() : 0.0;
  double **keep = c->dev ? &c->dev[slot - c->base] : NULL, **h = &c->host[slot - c->base];
  int st = eval_dev(c, prog, start, extent, n, keep, &dev);
  if (st == TSR_OK && !*h) *h = malloc(sizeof(double) * ((c->cap ? c->cap : n) + 1));
  if (st == TSR_OK && !*h) st = TSR_ERROR(TSR_ERR_MEMORY, "out of memory for a chunk");
  if (st == TSR_OK) st = tsr_be_download(be, dev, *h, n);
  if (!(keep && dev == *keep)) tsr_be_release(be, dev);
  if (st != TSR_OK) return st;
  if (tsr_trace_on)
    tsr_trace_end(TSR_TRACE_CHUNK, "evaluate", t0, (tsr_trace_args){id, 1, (int64_t)n, 0});
  return TSR_OK;
}

/* The executor's counts for this rank's chunks ids[0..n-1] of g. */
static void count_chunks(tsr_exec *ex, const tsr_grid *g, const int64_t *ids, int64_t n) {
  for (int64_t i = 0; i < n; i++) {
    int64_t idx[TSR_MAXDIM], start[TSR_MAXDIM], extent[TSR_MAXDIM];
    tsr_grid_unravel(g, ids[i], idx);
    tsr_grid_chunk_box(g, idx, start, extent);
    ex->elements += (double)tsr_elems_of(g->ndim, extent);
  }
  ex->chunks_done += n;
}

int tsr_stage_eval(tsr_exec *ex, const tsr_prog *p, const tsr_grid *g, const int64_t *ids,
                   int64_t n, double **host) {
  tsr_phase ph;
  tsr_phase_begin(&ph, ex);
  eval_ctx c = {ex, NULL, host, 0, NULL, 0};
  int st = run_waves(&ph, p, g, eval_one, &c, NULL, NULL);
  count_chunks(ex, g, ids, n); /* the executor's counts, as its own loop keeps them */
  return tsr_phase_end(&ph, st);
}

/* ---- lists of boxes ---- */

/* Fused: every rank stages, even after a failure of its own. */
static int boxes_eval(tsr_exec *ex, const tsr_node *node, const tsr_task *tasks, int64_t n,
                      double *const *dev, int st) {
  tsr_phase ph;
  tsr_prog p;
  tsr_phase_begin(&ph, ex);
  int cs = tsr_prog_compile(node, 0, &p);
  st = tsr_agree(st == TSR_OK ? cs : st);
  if (st == TSR_OK) st = tsr_eval_round(&ph, &p, tasks, n, 0, dev);
  if (cs == TSR_OK) tsr_prog_free(&p);
  return tsr_phase_end(&ph, st);
}

int tsr_stage_boxes_be(tsr_exec *ex, const tsr_node *node, const tsr_stage_box *boxes, int64_t n,
                       double **dev) {
  int nd = node->grid.ndim, st = TSR_OK;
  int64_t k = 0;
  tsr_task *tasks = calloc((size_t)n + 1, sizeof(tsr_task));
  if (!tasks) st = TSR_ERROR(TSR_ERR_MEMORY, "out of memory staging boxes");
  for (int64_t t = 0; t < n && st == TSR_OK; t++) {
    tasks[t].rank = boxes[t].rank;
    for (int a = 0; a < nd; a++) {
      tasks[t].box.first[a] = boxes[t].start[a];
      tasks[t].box.step[a] = 1;
      tasks[t].box.count[a] = boxes[t].extent[a];
    }
    if (boxes[t].rank != ex->rank) continue;
    int64_t j = k++;
    if (ex->no_fuse)
      st = tsr_nofuse_materialize(ex, node, boxes[t].start, boxes[t].extent, &dev[j]);
    else
      st = tsr_be_alloc(ex->be, (size_t)tsr_elems_of(nd, boxes[t].extent), &dev[j]);
  }
  if (!ex->no_fuse) st = boxes_eval(ex, node, tasks, n, dev, st);
  if (st != TSR_OK)
    for (int64_t j = 0; j < k; j++) {
      tsr_be_release(ex->be, dev[j]);
      dev[j] = NULL;
    }
  free(tasks);
  return st;
}

/* ---- waves handed to a consumer ---- */

typedef struct waves_ctx {
  eval_ctx e;
  int64_t W;
  tsr_wave_fn done;
  void *ctx;
} waves_ctx;

/* The wave's buffers stay for the next wave: fresh ones of a chunk's size
 * would cost a page fault per 4 KiB each time. */
static int wave_done(void *vctx, int64_t first, int64_t n, const int64_t *ids) {
  waves_ctx *c = vctx;
  int st = c->done(c->ctx, n, ids, c->e.host);
  c->e.base = first + c->W;
  return st;
}

/* The executor's counts: this rank's chunks of g. */
static void count_owned(tsr_exec *ex, const tsr_grid *g) {
  for (int64_t id = ex->rank; id < tsr_grid_count(g); id += ex->size) count_chunks(ex, g, &id, 1);
}

static void waves_free(tsr_exec *ex, waves_ctx *c) {
  for (int64_t k = 0; k < c->W; k++) {
    if (c->e.host) free(c->e.host[k]);
    if (c->e.dev) tsr_be_release(ex->be, c->e.dev[k]);
  }
  free(c->e.host);
  free(c->e.dev);
}

/* What the two waves entry points share: the node's program (none with
 * --no-fuse) and the wave width; at the end, the executor's counts (this
 * rank's chunks) and time not spent in I/O or MPI. */
typedef struct waves_run {
  tsr_phase ph;
  tsr_prog p;
  int W;
  double t0, io0, comm0;
} waves_run;

static int waves_open(tsr_exec *ex, const tsr_node *node, waves_run *r) {
  memset(r, 0, sizeof *r);
  tsr_phase_begin(&r->ph, ex);
  r->t0 = tsr_comm_time(), r->io0 = ex->io_s, r->comm0 = ex->comm_s;
  r->W = 1;
  int st = ex->no_fuse ? TSR_OK : tsr_prog_compile(node, 0, &r->p);
  if (st == TSR_OK) st = wave_size(ex, &node->grid, ex->no_fuse ? NULL : &r->p, &r->W);
  return st;
}

static const tsr_prog *waves_prog(const tsr_exec *ex, const waves_run *r) {
  return ex->no_fuse ? NULL : &r->p;
}

static int waves_close(tsr_exec *ex, const tsr_node *node, waves_run *r, int st) {
  tsr_prog_free(&r->p);
  if (st == TSR_OK) count_owned(ex, &node->grid);
  ex->compute_s += tsr_comm_time() - r->t0 - (ex->io_s - r->io0) - (ex->comm_s - r->comm0);
  return tsr_phase_end(&r->ph, st);
}

int tsr_stage_waves(tsr_exec *ex, const tsr_node *node, tsr_wave_fn done, void *ctx) {
  waves_run r;
  int st = waves_open(ex, node, &r), W = r.W;
  waves_ctx c = {{ex, ex->no_fuse ? node : NULL, NULL, 0, NULL, 0}, W, done, ctx};
  c.e.host = calloc((size_t)W + 1, sizeof(double *));
  c.e.dev = ex->no_fuse ? NULL : calloc((size_t)W + 1, sizeof(double *));
  c.e.cap = (size_t)tsr_grid_max_chunk_elems(&node->grid);
  if (st == TSR_OK && (!c.e.host || (!ex->no_fuse && !c.e.dev)))
    st = TSR_ERROR(TSR_ERR_MEMORY, "out of memory");
  st = tsr_agree(st);
  if (st == TSR_OK)
    st = run_waves(&r.ph, waves_prog(ex, &r), &node->grid, eval_one, &c.e, wave_done, &c);
  waves_free(ex, &c);
  return waves_close(ex, node, &r, st);
}

/* ---- waves handed over in backend memory ---- */

typedef struct take_ctx {
  const tsr_exec *ex;
  const tsr_node *node; /* --no-fuse: materialized */
  double **bufs;        /* by slot within the wave */
  int64_t base, W;      /* first slot of the wave; chunks per wave */
  tsr_wave_take_fn take;
  void *ctx;
  const tsr_stage_scan *scan; /* NULL: none */
} take_ctx;

void tsr_stage_scan_lines(int axis, int nd, const int64_t *extent, int64_t *outer, int64_t *len,
                          int64_t *inner) {
  *outer = *inner = 1;
  *len = axis < 0 ? tsr_elems_of(nd, extent) : extent[axis];
  for (int a = 0; a < nd && axis >= 0; a++) {
    if (a < axis) *outer *= extent[a];
    if (a > axis) *inner *= extent[a];
  }
}

/* The chunk in *buf (NULL: not yet evaluated, then prog's) scanned. */
static int scan_one(const take_ctx *c, const tsr_prog *prog, const int64_t *start,
                    const int64_t *extent, size_t n, double **buf) {
  const tsr_stage_scan *s = c->scan;
  int64_t o, l, i;
  tsr_stage_scan_lines(s->axis, c->node->grid.ndim, extent, &o, &l, &i);
  if (*buf) return tsr_be_scan(c->ex->be, o, l, i, *buf, s->op, s->identity, s->nan);
  TSR_CHECK(tsr_be_alloc(c->ex->be, n, buf));
  return tsr_be_scan_box(c->ex->be, prog, start, extent, o, l, i, *buf, s->op, s->identity, s->nan);
}

/* One chunk into a backend buffer of exactly its size. */
static int take_one(void *vctx, int64_t slot, int64_t id, const tsr_prog *prog,
                    const int64_t *start, const int64_t *extent) {
  take_ctx *c = vctx;
  const tsr_backend_ops *be = c->ex->be;
  double **buf = &c->bufs[slot - c->base], t0 = tsr_trace_on ? tsr_trace_now() : 0.0;
  int nd = c->node->grid.ndim;
  size_t n = (size_t)tsr_elems_of(nd, extent);
  tsr_be_release(be, *buf);
  *buf = NULL;
  if (!prog) TSR_CHECK(tsr_nofuse_materialize(c->ex, c->node, start, extent, buf));
  if (prog && !c->scan) TSR_CHECK(tsr_be_eval_new(be, prog, start, extent, buf, NULL));
  if (c->scan) TSR_CHECK(scan_one(c, prog, start, extent, n, buf));
  if (tsr_trace_on)
    tsr_trace_end(TSR_TRACE_CHUNK, c->scan ? "evaluate and scan" : "evaluate", t0,
                  (tsr_trace_args){id, 1, (int64_t)n, 0});
  return TSR_OK;
}

static int take_wave(void *vctx, int64_t first, int64_t n, const int64_t *ids) {
  take_ctx *c = vctx;
  int st = c->take(c->ctx, n, ids, c->bufs);
  for (int64_t k = 0; k < c->W; k++) { /* what the consumer left */
    tsr_be_release(c->ex->be, c->bufs[k]);
    c->bufs[k] = NULL;
  }
  c->base = first + c->W;
  return st;
}

int tsr_stage_waves_be(tsr_exec *ex, const tsr_node *node, tsr_wave_take_fn take, void *ctx) {
  return tsr_stage_waves_be_scan(ex, node, NULL, take, ctx);
}

int tsr_stage_waves_be_scan(tsr_exec *ex, const tsr_node *node, const tsr_stage_scan *scan,
                            tsr_wave_take_fn take, void *ctx) {
  waves_run r;
  int st = waves_open(ex, node, &r), W = r.W;
  take_ctx c = {ex, node, calloc((size_t)W + 1, sizeof(double *)), 0, W, take, ctx, scan};
  if (st == TSR_OK && !c.bufs) st = TSR_ERROR(TSR_ERR_MEMORY, "out of memory");
  st = tsr_agree(st);
  if (st == TSR_OK)
    st = run_waves(&r.ph, waves_prog(ex, &r), &node->grid, take_one, &c, take_wave, &c);
  for (int64_t k = 0; c.bufs && k < W; k++) tsr_be_release(ex->be, c.bufs[k]);
  free(c.bufs);
  return waves_close(ex, node, &r, st);
}
