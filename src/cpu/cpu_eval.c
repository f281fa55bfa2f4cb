/*
 * cpu_eval.c - the CPU backend: fused programs evaluated row segment by row
 * segment with OpenMP threads over chunks.
 *
 * A box is walked row by row (the last axis is contiguous) in segments of at
 * most SEG elements; for each segment every instruction runs over a whole
 * buffer, so interpretation costs one dispatch per SEG elements and the inner
 * loops vectorize. Reductions consume segments directly: fused mode never
 * materializes more than a few segment buffers per thread.
 */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "cpu/cpu.h"
#include "util/error.h"
#include "util/signals.h"
#include "kernel/dtype.h"
#include "kernel/ew_scalar.h"
#include "kernel/rng.h"
#include "kernel/rngdist.h"
#include "util/trace.h"
#include "util/workers.h"

#define SEG 2048

typedef struct scratch {
  double *mem;
  int nregs;
  unsigned segments; /* evaluated so far (when to look for Ctrl-C) */
} scratch;

static int scratch_init(scratch *s, const tsr_prog *p) {
  s->nregs = p->nregs;
  s->segments = 0;
  TSR_MALLOC(s->mem, sizeof(double) * SEG * (size_t)(p->nregs ? p->nregs : 1));
  return TSR_OK;
}

static void scratch_free(scratch *s) { free(s->mem); }

static inline double *reg_buf(scratch *s, int r) { return s->mem + (size_t)r * SEG; }

static int64_t leaf_e0(const tsr_leaf *l, int ndim, const int64_t *idx) {
  int64_t e = l->e_const;
  for (int k = 0; k < ndim; k++) e += l->e_coef[k] * idx[k];
  return e;
}

static void cast_values(double *x, int64_t len, int dt) {
  if (dt == TSR_F32)
    for (int64_t i = 0; i < len; i++) x[i] = (double)(float)x[i];
  else if (dt != TSR_F64)
    for (int64_t i = 0; i < len; i++) x[i] = tsr_dtype_cast(x[i], dt);
}

/* CHUNKS leaf: the segment may cross input chunks along the one base axis
 * that moves with the last output axis; copy run by run. */
static void fill_chunks(const tsr_leaf *l, int ndim, const int64_t *idx, int64_t len, double *out) {
  int64_t coord[TSR_MAXDIM];
  int moving = -1;
  for (int b = 0; b < l->base_ndim; b++) {
    int k = l->axis_of[b];
    coord[b] = l->off[b] + (k >= 0 ? l->step[b] * idx[k] : 0);
    if (k == ndim - 1 && l->step[b] != 0) moving = b;
  }
  int64_t i = 0;
  while (i < len) {
    const tsr_chunkset *cs = l->chunks;
    int64_t c = 0;
    for (; c < cs->n; c++) {
      int inside = 1;
      for (int b = 0; b < l->base_ndim; b++)
        inside &= coord[b] >= cs->start[c][b] && coord[b] < cs->start[c][b] + cs->extent[c][b];
      if (inside) break;
    }
    if (c == cs->n) { /* the executor guarantees coverage; make a bug visible */
      for (; i < len; i++) out[i] = NAN;
      return;
    }
    int64_t off = 0, stride = 1, run = len - i, st = 0;
    for (int b = l->base_ndim - 1; b >= 0; b--) {
      off += (coord[b] - cs->start[c][b]) * stride;
      if (b == moving) {
        st = l->step[b] * stride;
        int64_t lo = cs->start[c][b], hi = lo + cs->extent[c][b];
        int64_t s = l->step[b];
        int64_t room = s > 0 ? (hi - 1 - coord[b]) / s + 1 : (coord[b] - lo) / (-s) + 1;
        if (room < run) run = room;
      }
      stride *= cs->extent[c][b];
    }
    const double *src = cs->data[c] + off;
    for (int64_t j = 0; j < run; j++) out[i + j] = src[j * st];
    i += run;
    if (moving >= 0) coord[moving] += run * l->step[moving];
  }
}

static void fill_leaf(const tsr_leaf *l, int ndim, const int64_t *idx, int64_t len, double *out) {
  int64_t e0 = leaf_e0(l, ndim, idx);
  int64_t de = ndim > 0 ? l->e_coef[ndim - 1] : 0;
  switch (l->kind) {
  case LEAF_RANDOM:
    switch ((tsr_random_kind)l->rng) {
    case RNG_NORMAL:
      tsr_rng_fill_normal(l->key, l->stream, (uint64_t)e0, de, (size_t)len, out);
      for (int64_t i = 0; i < len; i++) out[i] = l->a + l->b * out[i];
      break;
    case RNG_UNIFORM:
      tsr_rng_fill_uniform(l->key, l->stream, (uint64_t)e0, de, (size_t)len, out);
      for (int64_t i = 0; i < len; i++) out[i] = l->a + (l->b - l->a) * out[i];
      break;
    case RNG_GAMMA:
    case RNG_BETA:
    case RNG_STUDENT_T:
    case RNG_POISSON:
    case RNG_BINOMIAL:
    case RNG_INTEGERS: /* a Philox sequence per element (kernel/rngdist.h) */
      for (int64_t i = 0; i < len; i++)
        out[i] = tsr_rng_dist_at(l->rng, l->a, l->b, l->key, l->stream, (uint64_t)(e0 + i * de));
      break;
    }
    break;
  case LEAF_ARANGE:
    for (int64_t i = 0; i < len; i++) out[i] = l->a + l->b * (double)(e0 + i * de);
    break;
  case LEAF_DATA:
    for (int64_t i = 0; i < len; i++) out[i] = l->data[e0 + i * de];
    break;
  case LEAF_CHUNKS:
    fill_chunks(l, ndim, idx, len, out);
    break;
  case LEAF_LOAD: /* the executor stages these into DATA leaves (exec/stage.c) */
  case LEAF_XFER:
  case LEAF_HELD:
    for (int64_t i = 0; i < len; i++) out[i] = NAN;
    break;
  }
  if (l->cast) cast_values(out, len, l->cast);
}

/* One loop per row of kernel/ew_table.h around the row's own expression
 * (the text that tsr_ew_unary/tsr_ew_binary return for it, so the same
 * arithmetic): GCC did not inline the shared scalars' whole switch into
 * each loop, and the calls took a third of a `where` job's time. An id of
 * the other arity does not reach here (fuse/ checks arities). */
#define EW_LOOP_U(id, nm, expr, doc)    \
  case EW_##id:                         \
    for (int64_t i = 0; i < len; i++) { \
      const double x = xs[i];           \
      out[i] = (expr);                  \
    }                                   \
    break;
#define EW_LOOP_I(id, nm, expr) EW_LOOP_U(id, nm, expr, NULL)
#define EW_SKIP_B(id, nm, sym, expr, doc) \
  case EW_##id:                           \
    break;
#define EW_SKIP_J(id, nm, expr) EW_SKIP_B(id, nm, NULL, expr, NULL)
static void unary_row(int op, const double *xs, double *out, int64_t len) {
  switch ((tsr_ew_op)op) {
    TSR_EW_TABLE(EW_LOOP_U, EW_LOOP_I, EW_SKIP_B, EW_SKIP_J)
  case EW_NOPS:
    break;
  }
}

#define EW_SKIP_U(id, nm, expr, doc) \
  case EW_##id:                      \
    break;
#define EW_SKIP_I(id, nm, expr) \
  case EW_##id:                 \
    break;
/* one loop per stride pattern, so that the compiler vectorizes each (a
 * stride of 0 or 1 known only at run time kept every loop scalar) */
#define EW_LOOP_B(id, nm, sym, expr, doc)  \
  case EW_##id:                            \
    if (sx && sy) {                        \
      for (int64_t i = 0; i < len; i++) {  \
        const double x = xs[i], y = ys[i]; \
        out[i] = (expr);                   \
      }                                    \
    } else if (sx) {                       \
      const double y = *ys;                \
      for (int64_t i = 0; i < len; i++) {  \
        const double x = xs[i];            \
        out[i] = (expr);                   \
      }                                    \
    } else {                               \
      const double x = *xs;                \
      for (int64_t i = 0; i < len; i++) {  \
        const double y = ys[i * sy];       \
        out[i] = (expr);                   \
      }                                    \
    }                                      \
    break;
#define EW_LOOP_J(id, nm, expr) EW_LOOP_B(id, nm, NULL, expr, NULL)
/* xs and ys are row buffers, or constants when their stride is 0. */
static void binary_row(int op, const double *xs, int sx, const double *ys, int sy, double *out,
                       int64_t len) {
  switch ((tsr_ew_op)op) {
    TSR_EW_TABLE(EW_SKIP_U, EW_SKIP_I, EW_LOOP_B, EW_LOOP_J)
  case EW_NOPS:
    break;
  }
}

/* Runs the program for len elements starting at output coordinates idx;
 * returns the result buffer. */
static const double *eval_segment(const tsr_prog *p, scratch *s, const int64_t *idx, int64_t len) {
  for (int i = 0; i < p->ninstr; i++) {
    const tsr_instr *ins = &p->code[i];
    double *out = reg_buf(s, ins->dst);
    if (ins->kind == I_LEAF) {
      fill_leaf(&p->leaves[ins->x], p->ndim, idx, len, out);
      continue;
    }
    int cx = p->reg_const[ins->x];
    const double *x = cx ? &p->reg_value[ins->x] : reg_buf(s, ins->x);
    if (ins->kind == I_UNARY) {
      if (cx) {
        double v = tsr_ew_unary(ins->op, *x);
        for (int64_t j = 0; j < len; j++) out[j] = v;
      } else {
        unary_row(ins->op, x, out, len);
      }
    } else {
      int cy = p->reg_const[ins->y];
      const double *y = cy ? &p->reg_value[ins->y] : reg_buf(s, ins->y);
      binary_row(ins->op, x, !cx, y, !cy, out, len);
    }
    if (ins->cast) cast_values(out, len, ins->cast);
  }
  return reg_buf(s, p->result);
}

/* Walks the rows of a box: calls fn for each segment of at most SEG elements. */
typedef int (*segment_fn)(void *ctx, const int64_t *idx, int64_t row, int64_t col,
                          const double *vals, int64_t len);

static int walk_box(const tsr_prog *p, const int64_t *start, const int64_t *extent, segment_fn fn,
                    void *ctx) {
  scratch s;
  TSR_CHECK(scratch_init(&s, p));
  int nd = p->ndim;
  int64_t rows = 1, width = nd > 0 ? extent[nd - 1] : 1;
  for (int a = 0; a + 1 < nd; a++) rows *= extent[a];
  int64_t idx[TSR_MAXDIM] = {0};
  int st = TSR_OK;
  if (width == 0) rows = 0;
  for (int64_t r = 0; r < rows && st == TSR_OK; r++) {
    int64_t rem = r;
    for (int a = nd - 2; a >= 0; a--) {
      idx[a] = start[a] + rem % extent[a];
      rem /= extent[a];
    }
    for (int64_t c = 0; c < width && st == TSR_OK; c += SEG) {
      int64_t len = width - c < SEG ? width - c : SEG;
      if (nd > 0) idx[nd - 1] = start[nd - 1] + c;
      st = fn(ctx, idx, r, c, eval_segment(p, &s, idx, len), len);
      /* Ctrl-C inside one large chunk: a look every 64 segments (well under
       * a millisecond of work) */
      if (st == TSR_OK && (++s.segments & 63) == 0 && tsr_interrupted())
        st = TSR_ERROR(TSR_ERR_INTERRUPTED, "interrupted");
    }
  }
  scratch_free(&s);
  return st;
}

typedef struct store_ctx {
  double *out;
  int64_t width;
} store_ctx;

static int store_segment(void *vctx, const int64_t *idx, int64_t row, int64_t col,
                         const double *vals, int64_t len) {
  store_ctx *c = vctx;
  (void)idx;
  memcpy(c->out + row * c->width + col, vals, sizeof(double) * (size_t)len);
  return TSR_OK;
}

static int cpu_eval_box(const tsr_prog *prog, const int64_t *start, const int64_t *extent,
                        double *out) {
  store_ctx c = {out, prog->ndim > 0 ? extent[prog->ndim - 1] : 1};
  return walk_box(prog, start, extent, store_segment, &c);
}

typedef struct reduce_ctx {
  int kind, axis, ndim;
  const int64_t *start, *extent;
  tsr_stat *out;
} reduce_ctx;

/* Position in the partial (box without axis) of a row's first element. */
static int64_t partial_row_offset(const reduce_ctx *c, int64_t row) {
  int64_t rem = row, off = 0, mult = 1;
  int nd = c->ndim;
  for (int a = nd - 2; a >= 0; a--) {
    int64_t ia = rem % c->extent[a];
    rem /= c->extent[a];
    if (a == c->axis) continue;
    off += ia * mult;
    mult *= c->extent[a];
  }
  return off;
}

static int reduce_segment(void *vctx, const int64_t *idx, int64_t row, int64_t col,
                          const double *vals, int64_t len) {
  reduce_ctx *c = vctx;
  /* element indices within the box (RF_INDEX kinds; exec/combine.c makes
   * them global): flat C order, or along the axis */
  int64_t width = c->ndim > 0 ? c->extent[c->ndim - 1] : 1;
  if (c->axis < 0) {
    tsr_stat s = tsr_stat_of_values(c->kind, vals, len, (double)(row * width + col));
    tsr_stat_merge(c->kind, &c->out[0], &s);
  } else if (c->axis == c->ndim - 1) {
    tsr_stat s = tsr_stat_of_values(c->kind, vals, len, (double)col);
    tsr_stat_merge(c->kind, &c->out[partial_row_offset(c, row)], &s);
  } else {
    int64_t base = partial_row_offset(c, row) * width + col;
    tsr_stat_update_row(c->kind, c->out + base, vals, len,
                        (double)(idx[c->axis] - c->start[c->axis]));
  }
  return TSR_OK;
}

static int cpu_reduce_box(const tsr_prog *prog, const int64_t *start, const int64_t *extent,
                          int kind, int axis, tsr_stat *out) {
  int64_t n = tsr_partial_count(prog->ndim, extent, axis);
  for (int64_t i = 0; i < n; i++) out[i] = tsr_stat_empty(kind);
  reduce_ctx c = {kind, axis, prog->ndim, start, extent, out};
  return walk_box(prog, start, extent, reduce_segment, &c);
}

/* One chunk of a batch: generation, elementwise and reduction, fused. */
static int reduce_chunk(const tsr_reduce_batch *b, int64_t i) {
  int64_t idx[TSR_MAXDIM], start[TSR_MAXDIM], extent[TSR_MAXDIM], elems = 1;
  tsr_grid_unravel(b->grid, b->ids[i], idx);
  tsr_grid_chunk_box(b->grid, idx, start, extent);
  for (int a = 0; a < b->grid->ndim; a++) elems *= extent[a];
  double t0 = tsr_trace_on ? tsr_trace_now() : 0.0;
  TSR_CHECK(cpu_reduce_box(b->prog, start, extent, b->kind, b->axis, b->out[i]));
  if (tsr_trace_on)
    tsr_trace_end(TSR_TRACE_CHUNK, tsr_red_name(b->kind), t0,
                  (tsr_trace_args){b->ids[i], 1, elems, 0});
  if (b->progress) b->progress(b->progress_ctx, elems);
  return TSR_OK;
}

static int cpu_reduce_chunks(const tsr_reduce_batch *b) {
  tsr_workers w;
  tsr_workers_init_interruptible(&w); /* Ctrl-C: stop within a batch */
#pragma omp parallel for schedule(dynamic, 1)
  for (int64_t i = 0; i < b->nchunks; i++) {
    if (tsr_workers_stop(&w)) continue;
    tsr_workers_fail(&w, reduce_chunk(b, i));
  }
  return tsr_workers_end(&w);
}

static int cpu_available(void) { return 1; }
static int cpu_setup(const tsr_backend_config *cfg) {
  if (cfg->threads > 0) omp_set_num_threads(cfg->threads);
  return TSR_OK;
}
static void cpu_teardown(void) {}
static int cpu_alloc(size_t bytes, double **ptr) {
  TSR_MALLOC(*ptr, bytes);
  return TSR_OK;
}
static void cpu_release(double *ptr) { free(ptr); }
static int cpu_download(const double *src, double *dst, size_t n) {
  memcpy(dst, src, sizeof(double) * n);
  return TSR_OK;
}
/* Host memory is reported as the process's peak RSS instead. */
static size_t cpu_peak_memory(void) { return 0; }

static void cpu_describe(char *buf, size_t n) {
  snprintf(buf, n, "cpu: C11 + OpenMP, %d threads per rank", omp_get_max_threads());
}

static int cpu_upload(const double *src, double *dst, size_t n) {
  memcpy(dst, src, sizeof(double) * n);
  return TSR_OK;
}

/* Chunk buffers are host memory (MPI moves them as they are); LAPACKE/CBLAS
 * are always there. */
static unsigned cpu_caps(void) { return TSR_BE_HOST_MEMORY | TSR_BE_DENSE; }

const tsr_backend_ops tsr_cpu_backend = {
    .name = "cpu",
    .available = cpu_available,
    .setup = cpu_setup,
    .teardown = cpu_teardown,
    .caps = cpu_caps,
    .reduce_chunks = cpu_reduce_chunks,
    .eval_box = cpu_eval_box,
    .reduce_box = cpu_reduce_box,
    .alloc = cpu_alloc,
    .release = cpu_release,
    .download = cpu_download,
    .upload = cpu_upload,
    .describe = cpu_describe,
    .peak_memory = cpu_peak_memory,
    .qr = tsr_cpu_qr,
    .svd = tsr_cpu_svd,
    .gemm = tsr_cpu_gemm,
    .copy2d = tsr_cpu_copy2d,
    .axpy = tsr_cpu_axpy,
    .col_absmax = tsr_cpu_col_absmax,
    .scale_cols = tsr_cpu_scale_cols,
    .gram = tsr_cpu_gram,
    .cholesky = tsr_cpu_cholesky,
    .trsm_upper_right = tsr_cpu_trsm_upper_right,
    .glm_pass = tsr_cpu_glm_pass,
    .scan = tsr_cpu_scan,
    .scan_carry = tsr_cpu_scan_carry,
    .sort = tsr_cpu_sort,
    .hist = tsr_cpu_hist,
    .lu = tsr_cpu_lu,
    .compress = tsr_cpu_compress,
};
