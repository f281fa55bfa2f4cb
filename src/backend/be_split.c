/*
 * be_split.c - programs larger than the backend runs, run as parts
 * (be_split.h): over each box, every part but the last is evaluated into a
 * box of backend memory, then the last (the result's) is evaluated or
 * reduced reading them, and the boxes go back.
 *
 * The parts of one box run on the calling thread, in order: the CUDA
 * backend queues them on that thread's stream, so a part may return before
 * its output is written (async) and the next reads it in order. The last
 * part waits (an evaluation that is not async, a reduction that returns
 * host partials), so the boxes go back only when nothing queued reads them.
 * A batch of reductions runs chunk by chunk, each a batch of one: the
 * partials of a chunk do not depend on its company, so the bits are those
 * of one fused program (cutting a register stores its double unchanged).
 */
#include "backend/be_split.h"

#include <stdlib.h>

#include "util/error.h"
#include "util/signals.h"
#include "util/trace.h"

/* What the last part does over the box, once the others are in place. */
typedef int (*last_fn)(const tsr_backend_ops *be, tsr_prog *last, const int64_t *start,
                       const int64_t *extent, void *ctx);

static size_t box_count(int nd, const int64_t *extent) {
  int64_t n = 1;
  for (int a = 0; a < nd; a++) n *= extent[a];
  return (size_t)n;
}

/* Evaluates the parts before the last into new boxes outs[k]; binds the
 * last part's inputs. */
static int eval_parts(const tsr_backend_ops *be, tsr_split *s, const int64_t *start,
                      const int64_t *extent, double **outs) {
  size_t n = box_count(s->parts[0].prog.ndim, extent);
  for (int k = 0; k + 1 < s->nparts; k++) {
    tsr_prog *q = &s->parts[k].prog;
    TSR_CHECK(tsr_be_alloc(be, n, &outs[k]));
    tsr_prog_part_bind(&s->parts[k], start, extent, outs);
    q->async = 1; /* read only by this thread's later work */
    double t0 = tsr_trace_on ? tsr_trace_now() : 0.0;
    TSR_CHECK(be->eval_box(q, start, extent, outs[k]));
    if (tsr_trace_on) /* what the split costs: a box written and read again */
      tsr_trace_end(TSR_TRACE_BACKEND, "split part", t0,
                    (tsr_trace_args){-1, 0, (int64_t)n, 8 * (int64_t)n});
  }
  tsr_prog_part_bind(&s->parts[s->nparts - 1], start, extent, outs);
  return TSR_OK;
}

/* Gives the parts' boxes back; after a failure the work queued may still
 * read them: a download of one value waits for it first. */
static int end_parts(const tsr_backend_ops *be, const tsr_split *s, double **outs, int st) {
  for (int k = s->nparts - 2; st != TSR_OK && k >= 0; k--)
    if (outs[k]) {
      double one;
      tsr_be_download(be, outs[k], &one, 1);
      break;
    }
  for (int k = 0; k + 1 < s->nparts; k++) tsr_be_release(be, outs[k]);
  return st;
}

/* The split program s over one box, the last part run by fn. */
static int run_box(const tsr_backend_ops *be, tsr_split *s, const int64_t *start,
                   const int64_t *extent, last_fn fn, void *ctx) {
  double **outs = calloc((size_t)s->nparts, sizeof *outs);
  if (!outs) return TSR_ERROR(TSR_ERR_MEMORY, "out of memory running a split program");
  int st = eval_parts(be, s, start, extent, outs);
  if (st == TSR_OK) st = fn(be, &s->parts[s->nparts - 1].prog, start, extent, ctx);
  st = end_parts(be, s, outs, st);
  free(outs);
  return st;
}

/* ---- the three entry points ---- */

static int last_eval(const tsr_backend_ops *be, tsr_prog *last, const int64_t *start,
                     const int64_t *extent, void *ctx) {
  last->async = 0; /* complete on return: the boxes it reads go back next */
  return be->eval_box(last, start, extent, ctx);
}

int tsr_be_split_eval_box(const tsr_backend_ops *be, const tsr_prog_limits *lim, const tsr_prog *p,
                          const int64_t *start, const int64_t *extent, double *out) {
  tsr_split s;
  int st = tsr_prog_split(p, lim, &s);
  if (st == TSR_OK) st = run_box(be, &s, start, extent, last_eval, out);
  tsr_split_free(&s);
  return st;
}

typedef struct box_reduction {
  int kind, axis;
  tsr_stat *out;
} box_reduction;

static int last_reduce(const tsr_backend_ops *be, tsr_prog *last, const int64_t *start,
                       const int64_t *extent, void *ctx) {
  const box_reduction *r = ctx;
  return be->reduce_box(last, start, extent, r->kind, r->axis, r->out);
}

int tsr_be_split_reduce_box(const tsr_backend_ops *be, const tsr_prog_limits *lim,
                            const tsr_prog *p, const int64_t *start, const int64_t *extent,
                            int kind, int axis, tsr_stat *out) {
  tsr_split s;
  box_reduction r = {kind, axis, out};
  int st = tsr_prog_split(p, lim, &s);
  if (st == TSR_OK) st = run_box(be, &s, start, extent, last_reduce, &r);
  tsr_split_free(&s);
  return st;
}

/* Chunk i of a batch, as a batch of one (the backend's own kernels,
 * progress and trace spans). */
typedef struct chunk_reduction {
  const tsr_reduce_batch *b;
  int64_t i;
} chunk_reduction;

static int last_chunk(const tsr_backend_ops *be, tsr_prog *last, const int64_t *start,
                      const int64_t *extent, void *ctx) {
  const chunk_reduction *c = ctx;
  tsr_reduce_batch one = *c->b;
  (void)start, (void)extent;
  one.prog = last;
  one.nchunks = 1;
  one.ids = c->b->ids + c->i;
  one.out = c->b->out + c->i;
  return be->reduce_chunks(&one);
}

int tsr_be_split_reduce_chunks(const tsr_backend_ops *be, const tsr_prog_limits *lim,
                               const tsr_reduce_batch *b) {
  tsr_split s;
  int st = tsr_prog_split(b->prog, lim, &s);
  /* Ctrl-C between chunks: the executor reports it after the batch */
  for (int64_t i = 0; i < b->nchunks && st == TSR_OK && !tsr_interrupted(); i++) {
    int64_t idx[TSR_MAXDIM], start[TSR_MAXDIM], extent[TSR_MAXDIM];
    tsr_grid_unravel(b->grid, b->ids[i], idx);
    tsr_grid_chunk_box(b->grid, idx, start, extent);
    chunk_reduction c = {b, i};
    st = run_box(be, &s, start, extent, last_chunk, &c);
  }
  tsr_split_free(&s);
  return st;
}
