/*
 * backend.c - the checked wrappers around every backend op (backend.h): the
 * "backend X has no op Y" error, the trace span and the progress count live
 * here once, so callers stay one line (Redis' rio, PETSc's
 * PetscUseTypeMethod).
 */
#include "backend/backend.h"

#include <stdio.h>
#include <string.h>

#include "backend/be_split.h"
#include "util/error.h"

const char tsr_be_fault_ops[] = "qr svd gemm glm_pass eval_box reduce_box reduce_chunks";

/* The op TESSERA_FAULT names ("" when none): set once by tsr_be_setup,
 * before any worker runs, and only read afterwards. */
static char fault[32];

/* The largest program the backend runs in one piece, and the testing
 * knob's lower limits (0: none): set by tsr_be_setup, read afterwards. A
 * backend that was not set up (unit tests) splits nothing. */
static tsr_prog_limits limits = {TSR_PROG_UNLIMITED, TSR_PROG_UNLIMITED, TSR_PROG_UNLIMITED,
                                 TSR_PROG_UNLIMITED};
static tsr_prog_limits knob_limits;

/* Bytes copied between backend and host memory since setup (download,
 * upload); workers add to them at once. */
static double down_bytes, up_bytes;

static void count_copy(const tsr_backend_ops *be, double *counter, size_t n) {
  if (tsr_be_caps(be) & TSR_BE_HOST_MEMORY) return; /* host memory: nothing was copied */
#pragma omp atomic
  *counter += 8.0 * (double)n;
}

void tsr_be_host_copies(double *down, double *up) {
  *down = down_bytes;
  *up = up_bytes;
}

/* The op, or the error that says the backend lacks it. */
#define BE_NEED(be, op)                                                                           \
  do {                                                                                            \
    if (!(be)->op) return TSR_ERROR(TSR_ERR_BACKEND, "backend %s has no op %s", (be)->name, #op); \
    if (fault[0] && !strcmp(fault, #op))                                                          \
      return TSR_ERROR(TSR_ERR_BACKEND, "injected fault in %s op %s (TESSERA_FAULT)", (be)->name, \
                       #op);                                                                      \
  } while (0)

static int64_t box_elems(int nd, const int64_t *extent) {
  int64_t n = 1;
  for (int a = 0; a < nd; a++) n *= extent[a];
  return n;
}

/* Records the span of a call over a box that began at t0, and its progress. */
static void box_done(const tsr_be_span *sp, int st, int nd, const int64_t *extent, double t0) {
  if (!sp || st != TSR_OK) return;
  int64_t elems = box_elems(nd, extent);
  if (tsr_trace_on)
    tsr_trace_end(sp->cat, sp->name, t0,
                  (tsr_trace_args){sp->chunk, sp->counts_chunk ? 1 : 0, elems,
                                   sp->counts_bytes ? 8 * elems : 0});
  if (sp->progress) sp->progress(sp->progress_ctx, elems);
}

static double span_start(const tsr_be_span *sp) {
  return sp && tsr_trace_on ? tsr_trace_now() : 0.0;
}

int tsr_be_has_bind(const tsr_backend_ops *be) { return be->bind != NULL; }

int tsr_be_bind(const tsr_backend_ops *be, int local_rank, tsr_device_id *id, int *count) {
  BE_NEED(be, bind);
  return be->bind(local_rank, id, count);
}

int tsr_be_setup(const tsr_backend_ops *be, const tsr_backend_config *cfg) {
  BE_NEED(be, setup);
  snprintf(fault, sizeof fault, "%s", cfg->fault ? cfg->fault : "");
  knob_limits = cfg->prog_limit;
  tsr_be_prog_limits(be, &limits);
  down_bytes = up_bytes = 0;
  return be->setup(cfg);
}

void tsr_be_teardown(const tsr_backend_ops *be) {
  if (be && be->teardown) be->teardown();
}

unsigned tsr_be_caps(const tsr_backend_ops *be) { return be->caps ? be->caps() : 0u; }

/* The smaller of a backend's limit and the knob's (0: none). */
static int lower(int own, int knob) { return knob > 0 && knob < own ? knob : own; }

void tsr_be_prog_limits(const tsr_backend_ops *be, tsr_prog_limits *out) {
  tsr_prog_limits own = {TSR_PROG_UNLIMITED, TSR_PROG_UNLIMITED, TSR_PROG_UNLIMITED,
                         TSR_PROG_UNLIMITED};
  if (be->prog_limits) be->prog_limits(&own);
  out->leaves = lower(own.leaves, knob_limits.leaves);
  out->instr = lower(own.instr, knob_limits.instr);
  out->regs = lower(own.regs, knob_limits.regs);
  out->tables = lower(own.tables, knob_limits.tables);
}

const char *tsr_be_name(const tsr_backend_ops *be) { return be->name; }

int tsr_be_reduce_chunks(const tsr_backend_ops *be, const tsr_reduce_batch *b) {
  BE_NEED(be, reduce_chunks);
  double t0 = tsr_trace_on ? tsr_trace_now() : 0.0;
  int st = tsr_prog_fits(b->prog, &limits) ? be->reduce_chunks(b)
                                           : tsr_be_split_reduce_chunks(be, &limits, b);
  if (tsr_trace_on) { /* host side: the backend's own spans show the chunks */
    int64_t elems = 0, idx[TSR_MAXDIM], start[TSR_MAXDIM], extent[TSR_MAXDIM];
    for (int64_t i = 0; i < b->nchunks; i++) {
      tsr_grid_unravel(b->grid, b->ids[i], idx);
      tsr_grid_chunk_box(b->grid, idx, start, extent);
      elems += box_elems(b->grid->ndim, extent);
    }
    tsr_trace_end(TSR_TRACE_BACKEND, "reduce_chunks", t0, (tsr_trace_args){-1, 0, elems, 0});
  }
  return st;
}

int tsr_be_eval_box(const tsr_backend_ops *be, const tsr_prog *p, const int64_t *start,
                    const int64_t *extent, double *out, const tsr_be_span *span) {
  BE_NEED(be, eval_box);
  double t0 = span_start(span);
  int st = tsr_prog_fits(p, &limits) ? be->eval_box(p, start, extent, out)
                                     : tsr_be_split_eval_box(be, &limits, p, start, extent, out);
  box_done(span, st, p->ndim, extent, t0);
  return st;
}

int tsr_be_eval_new(const tsr_backend_ops *be, const tsr_prog *p, const int64_t *start,
                    const int64_t *extent, double **out, const tsr_be_span *span) {
  *out = NULL;
  TSR_CHECK(tsr_be_alloc(be, (size_t)box_elems(p->ndim, extent), out));
  int st = tsr_be_eval_box(be, p, start, extent, *out, span);
  if (st != TSR_OK) {
    tsr_be_release(be, *out);
    *out = NULL;
  }
  return st;
}

int tsr_be_reduce_box(const tsr_backend_ops *be, const tsr_prog *p, const int64_t *start,
                      const int64_t *extent, int kind, int axis, tsr_stat *out,
                      const tsr_be_span *span) {
  BE_NEED(be, reduce_box);
  double t0 = span_start(span);
  int st = tsr_prog_fits(p, &limits)
               ? be->reduce_box(p, start, extent, kind, axis, out)
               : tsr_be_split_reduce_box(be, &limits, p, start, extent, kind, axis, out);
  box_done(span, st, p->ndim, extent, t0);
  return st;
}

int tsr_be_alloc(const tsr_backend_ops *be, size_t n, double **ptr) {
  *ptr = NULL;
  BE_NEED(be, alloc);
  return be->alloc(sizeof(double) * (n ? n : 1), ptr);
}

void tsr_be_release(const tsr_backend_ops *be, double *ptr) {
  if (ptr && be->release) be->release(ptr);
}

int tsr_be_download(const tsr_backend_ops *be, const double *src, double *dst, size_t n) {
  BE_NEED(be, download);
  count_copy(be, &down_bytes, n);
  return be->download(src, dst, n);
}

int tsr_be_upload(const tsr_backend_ops *be, const double *src, double *dst, size_t n) {
  BE_NEED(be, upload);
  count_copy(be, &up_bytes, n);
  return be->upload(src, dst, n);
}

int tsr_be_has_exchange(const tsr_backend_ops *be) {
  return be->exchange != NULL && (tsr_be_caps(be) & TSR_BE_EXCHANGE);
}

int tsr_be_exchange_ready(const tsr_backend_ops *be) {
  return be->exchange_ready ? be->exchange_ready() : TSR_OK;
}

int tsr_be_exchange(const tsr_backend_ops *be, const tsr_be_msg *sends, int nsends,
                    const tsr_be_msg *recvs, int nrecvs) {
  BE_NEED(be, exchange);
  return be->exchange(sends, nsends, recvs, nrecvs);
}

void tsr_be_describe(const tsr_backend_ops *be, char *buf, size_t n) {
  if (n) buf[0] = '\0';
  if (be->describe) be->describe(buf, n);
}

size_t tsr_be_peak_memory(const tsr_backend_ops *be) {
  return be && be->peak_memory ? be->peak_memory() : 0;
}

size_t tsr_be_memory_limit(const tsr_backend_ops *be) {
  return be && be->memory_limit ? be->memory_limit() : 0;
}

/* A dense kernel's trace span (category backend). */
static void dense_done(const char *name, double t0) {
  if (tsr_trace_on) tsr_trace_end(TSR_TRACE_BACKEND, name, t0, (tsr_trace_args){-1, 0, 0, 0});
}
#define DENSE_T0 (tsr_trace_on ? tsr_trace_now() : 0.0)

int tsr_be_qr(const tsr_backend_ops *be, int64_t m, int64_t n, const double *a, double *q,
              double *r) {
  BE_NEED(be, qr);
  double t0 = DENSE_T0;
  int st = be->qr(m, n, a, q, r);
  dense_done("qr", t0);
  return st;
}

int tsr_be_glm_pass(const tsr_backend_ops *be, const tsr_glm_pass *pass) {
  BE_NEED(be, glm_pass);
  if (pass->nbeta < 1 || (pass->what == TSR_GLM_CHECK && pass->nbeta != 1))
    return TSR_ERROR(TSR_ERR_INTERNAL, "GLM pass: %lld points per block", (long long)pass->nbeta);
  double t0 = DENSE_T0;
  int st = be->glm_pass(pass);
  dense_done("glm_pass", t0);
  return st;
}

int tsr_be_svd(const tsr_backend_ops *be, int64_t m, int64_t n, const double *a, double *s,
               double *u, double *vt) {
  BE_NEED(be, svd);
  double t0 = DENSE_T0;
  int st = be->svd(m, n, a, s, u, vt);
  dense_done("svd", t0);
  return st;
}

int tsr_be_gemm(const tsr_backend_ops *be, int64_t m, int64_t n, int64_t k, const double *a,
                int64_t lda, const double *b, int64_t ldb, double beta, double *c, int64_t ldc) {
  BE_NEED(be, gemm);
  double t0 = DENSE_T0;
  int st = be->gemm(m, n, k, a, lda, b, ldb, beta, c, ldc);
  dense_done("gemm", t0);
  return st;
}

int tsr_be_copy2d(const tsr_backend_ops *be, int64_t rows, int64_t cols, const double *src,
                  int64_t lds, double *dst, int64_t ldd) {
  BE_NEED(be, copy2d);
  if (rows <= 0 || cols <= 0) return TSR_OK;
  return be->copy2d(rows, cols, src, lds, dst, ldd);
}

int tsr_be_copy(const tsr_backend_ops *be, const double *src, double *dst, size_t n) {
  return tsr_be_copy2d(be, 1, (int64_t)n, src, (int64_t)n, dst, (int64_t)n);
}

int tsr_be_axpy(const tsr_backend_ops *be, size_t n, const double *x, double *y) {
  BE_NEED(be, axpy);
  return n ? be->axpy(n, x, y) : TSR_OK;
}

int tsr_be_col_absmax(const tsr_backend_ops *be, int64_t m, int64_t n, const double *a,
                      tsr_colmax *out) {
  BE_NEED(be, col_absmax);
  double t0 = DENSE_T0;
  int st = be->col_absmax(m, n, a, out);
  dense_done("col_absmax", t0);
  return st;
}

int tsr_be_scale_cols(const tsr_backend_ops *be, int64_t m, int64_t n, double *a, const double *f) {
  BE_NEED(be, scale_cols);
  if (m <= 0 || n <= 0) return TSR_OK;
  double t0 = DENSE_T0;
  int st = be->scale_cols(m, n, a, f);
  dense_done("scale_cols", t0);
  return st;
}

int tsr_be_has_qr_deferred(const tsr_backend_ops *be) { return be->qr_deferred != NULL; }

int tsr_be_qr_deferred(const tsr_backend_ops *be, int64_t m, int64_t n, const double *a, double *q,
                       double *r, double *c, int *has_c) {
  *has_c = 0;
  BE_NEED(be, qr_deferred);
  BE_NEED(be, qr); /* TESSERA_FAULT=qr fails both */
  double t0 = DENSE_T0;
  int st = be->qr_deferred(m, n, a, q, r, c, has_c);
  dense_done("qr", t0);
  return st;
}

int tsr_be_has_gram(const tsr_backend_ops *be) {
  return be->gram && be->cholesky && be->trsm_upper_right;
}

int tsr_be_gram(const tsr_backend_ops *be, int64_t m, int64_t n, const double *a, double *g) {
  BE_NEED(be, gram);
  double t0 = DENSE_T0;
  int st = be->gram(m, n, a, g);
  dense_done("gram", t0);
  return st;
}

int tsr_be_cholesky(const tsr_backend_ops *be, int64_t n, double *a, int *ok) {
  *ok = 0;
  BE_NEED(be, cholesky);
  double t0 = DENSE_T0;
  int st = be->cholesky(n, a, ok);
  dense_done("cholesky", t0);
  return st;
}

int tsr_be_lu(const tsr_backend_ops *be, int64_t n, double *a, int *ipiv, int *singular) {
  *singular = 0;
  BE_NEED(be, lu);
  if (n <= 0) return TSR_OK;
  double t0 = DENSE_T0;
  int st = be->lu(n, a, ipiv, singular);
  dense_done("lu", t0);
  return st;
}

int tsr_be_compress(const tsr_backend_ops *be, int64_t rows, int64_t len, const double *x,
                    const double *m, int64_t count, double *out) {
  BE_NEED(be, compress);
  if (rows <= 0 || len <= 0 || count <= 0) return TSR_OK;
  double t0 = DENSE_T0;
  int st = be->compress(rows, len, x, m, count, out);
  dense_done("compress", t0);
  return st;
}

int tsr_be_trsm_upper_right(const tsr_backend_ops *be, int64_t m, int64_t n, const double *r,
                            double *a) {
  BE_NEED(be, trsm_upper_right);
  if (m <= 0 || n <= 0) return TSR_OK;
  double t0 = DENSE_T0;
  int st = be->trsm_upper_right(m, n, r, a);
  dense_done("trsm_upper_right", t0);
  return st;
}

int tsr_be_scan(const tsr_backend_ops *be, int64_t outer, int64_t len, int64_t inner, double *a,
                int op, double identity, int nan) {
  BE_NEED(be, scan);
  if (outer <= 0 || len <= 0 || inner <= 0) return TSR_OK;
  double t0 = DENSE_T0;
  int st = be->scan(outer, len, inner, a, op, identity, nan);
  dense_done("scan", t0);
  return st;
}

int tsr_be_scan_box(const tsr_backend_ops *be, const tsr_prog *p, const int64_t *start,
                    const int64_t *extent, int64_t outer, int64_t len, int64_t inner, double *a,
                    int op, double identity, int nan) {
  /* an injected eval_box fault fires here too */
  if (!be->scan_box || !tsr_prog_fits(p, &limits) || !strcmp(fault, "eval_box") || outer <= 0 ||
      len <= 0 || inner <= 0) {
    TSR_CHECK(tsr_be_eval_box(be, p, start, extent, a, NULL));
    return tsr_be_scan(be, outer, len, inner, a, op, identity, nan);
  }
  double t0 = DENSE_T0;
  int st = be->scan_box(p, start, extent, outer, len, inner, a, op, identity, nan);
  dense_done("scan_box", t0);
  return st;
}

int tsr_be_scan_carry(const tsr_backend_ops *be, int64_t outer, int64_t len, int64_t inner,
                      double *a, int op, const double *carry, int dtype) {
  BE_NEED(be, scan_carry);
  if (outer <= 0 || len <= 0 || inner <= 0) return TSR_OK;
  double t0 = DENSE_T0;
  int st = be->scan_carry(outer, len, inner, a, op, carry, dtype);
  dense_done("scan_carry", t0);
  return st;
}

int tsr_be_hist(const tsr_backend_ops *be, const tsr_hist *h, const double *x, int64_t n,
                const double *w, double *out) {
  BE_NEED(be, hist);
  if (n <= 0) return TSR_OK;
  double t0 = DENSE_T0;
  int st = be->hist(h, x, n, w, out);
  dense_done("histogram", t0);
  return st;
}

int tsr_be_hist_box_takes(const tsr_backend_ops *be, const tsr_prog *prog) {
  return be->hist_box && tsr_prog_fits(prog, &limits);
}

int tsr_be_hist_box(const tsr_backend_ops *be, const tsr_prog *prog, int64_t nbox,
                    const int64_t *start, const int64_t *extent, const tsr_hist *h, double *out) {
  BE_NEED(be, hist_box);
  if (nbox <= 0) return TSR_OK;
  double t0 = DENSE_T0;
  int st = be->hist_box(prog, nbox, start, extent, h, out);
  dense_done("histogram (fused)", t0);
  return st;
}

int tsr_be_sort(const tsr_backend_ops *be, int64_t outer, int64_t len, int64_t inner, double *a,
                int what, double q) {
  BE_NEED(be, sort);
  if (outer <= 0 || len <= 0 || inner <= 0 || (len == 1 && what == 0)) return TSR_OK;
  double t0 = DENSE_T0;
  int st = be->sort(outer, len, inner, a, what, q);
  dense_done("sort", t0);
  return st;
}
