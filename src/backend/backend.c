/*
 * backend.c - the checked wrappers around every backend op (backend.h): the
 * "backend X has no op Y" error, the trace span and the progress count live
 * here once, so callers stay one line (Redis' rio, PETSc's
 * PetscUseTypeMethod).
 */
#include "backend/backend.h"

#include <stdio.h>
#include <string.h>

#include "util/error.h"

const char tsr_be_fault_ops[] = "qr svd gemm eval_box reduce_box reduce_chunks";

/* The op TESSERA_FAULT names ("" when none): set once by tsr_be_setup,
 * before any worker runs, and only read afterwards. */
static char fault[32];

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
  return be->setup(cfg);
}

void tsr_be_teardown(const tsr_backend_ops *be) {
  if (be && be->teardown) be->teardown();
}

unsigned tsr_be_caps(const tsr_backend_ops *be) { return be->caps ? be->caps() : 0u; }

const char *tsr_be_name(const tsr_backend_ops *be) { return be->name; }

int tsr_be_reduce_chunks(const tsr_backend_ops *be, const tsr_reduce_batch *b) {
  BE_NEED(be, reduce_chunks);
  double t0 = tsr_trace_on ? tsr_trace_now() : 0.0;
  int st = be->reduce_chunks(b);
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
  int st = be->eval_box(p, start, extent, out);
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
  int st = be->reduce_box(p, start, extent, kind, axis, out);
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
  return be->download(src, dst, n);
}

int tsr_be_upload(const tsr_backend_ops *be, const double *src, double *dst, size_t n) {
  BE_NEED(be, upload);
  return be->upload(src, dst, n);
}

int tsr_be_has_exchange(const tsr_backend_ops *be) { return be->exchange != NULL; }

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

const tsr_backend_ops *tsr_be_dense(const tsr_backend_ops *be) {
  if (tsr_be_caps(be) & TSR_BE_DENSE) return be;
  const tsr_backend_ops *cpu = tsr_backend_find("cpu");
  return cpu ? cpu : be;
}

int tsr_be_qr(const tsr_backend_ops *be, int64_t m, int64_t n, const double *a, double *q,
              double *r) {
  BE_NEED(be, qr);
  return be->qr(m, n, a, q, r);
}

int tsr_be_svd(const tsr_backend_ops *be, int64_t m, int64_t n, const double *a, double *s,
               double *u, double *vt) {
  BE_NEED(be, svd);
  return be->svd(m, n, a, s, u, vt);
}

int tsr_be_gemm(const tsr_backend_ops *be, int64_t m, int64_t n, int64_t k, const double *a,
                int64_t lda, const double *b, int64_t ldb, double beta, double *c, int64_t ldc) {
  BE_NEED(be, gemm);
  return be->gemm(m, n, k, a, lda, b, ldb, beta, c, ldc);
}
