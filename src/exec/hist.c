/*
 * hist.c - histograms (hist.h). The samples' chunks go in steps of up to K
 * a rank (K: the rank's threads, fewer when the chunks are large), the same
 * steps on every rank; a step's chunks (and the same boxes of the weights)
 * are staged into backend memory on their owners, binned, and released. A
 * one-axis histogram without weights of a program that reads nothing
 * staged is binned where it is computed instead, where the backend can
 * (hist_box: the CUDA backend's reduction walks, nothing stored).
 */
#include "exec/hist.h"

#include <stdlib.h>
#include <string.h>

#include "exec/stage.h"
#include "mpi/agree.h"
#include "mpi/comm.h"
#include "plan/plan.h"
#include "util/error.h"

typedef struct hist_run {
  tsr_exec *ex;
  tsr_node *n;
  tsr_hist h;
  int64_t slots;             /* bins + 1 */
  tsr_stage_box *xb;         /* a step's boxes of the samples, and of the weights: (N, D)
                              * samples' rows are the weights' axis 0 */
  int64_t *ids;              /* their chunk ids */
  double **xd, **wd;         /* this rank's staged boxes */
  double *mine;              /* this rank's chunks' bins, in chunk order */
  double *total;             /* everything, added in chunk order (apart: each chunk's) */
  const tsr_prog *fused;     /* the samples' program, binned where it is computed; NULL: staged */
  int64_t *starts, *extents; /* fused: this rank's boxes of a step (TSR_MAXDIM each) */
  int apart;                 /* n->b == 1: each chunk's bins apart */
} hist_run;

/* The step's chunks [first, last) of the samples that have elements. */
static int64_t step_boxes(hist_run *r, int64_t first, int64_t last) {
  const tsr_node *x = r->n->in[0];
  int64_t m = 0;
  for (int64_t c = first; c < last; c++) {
    tsr_stage_box b;
    int64_t size = tsr_grid_chunk_at(&x->grid, c, b.start, b.extent);
    if (size == 0) continue;
    b.rank = tsr_chunk_owner(c, r->ex->size);
    r->xb[m] = b;
    r->ids[m++] = c;
  }
  return m;
}

/* Bins this rank's staged boxes of the step (m boxes in all), then adds
 * every rank's, in chunk order, into r->total. */
static int step_bins(hist_run *r, int64_t m) {
  tsr_exec *ex = r->ex;
  int64_t k = 0, st = TSR_OK;
  for (int64_t i = 0; i < m; i++) {
    if (r->xb[i].rank != ex->rank) continue;
    double *out = r->mine + k * r->slots;
    memset(out, 0, sizeof(double) * (size_t)r->slots);
    int64_t rows =
        r->h.ndim > 1 ? r->xb[i].extent[0] : tsr_elems_of(r->n->in[0]->grid.ndim, r->xb[i].extent);
    if (r->fused) { /* the boxes together, below */
      memcpy(r->starts + k * TSR_MAXDIM, r->xb[i].start, sizeof r->xb[i].start);
      memcpy(r->extents + k * TSR_MAXDIM, r->xb[i].extent, sizeof r->xb[i].extent);
    } else if (st == TSR_OK) {
      st = tsr_be_hist(ex->be, &r->h, r->xd[k], rows, r->n->in[1] ? r->wd[k] : NULL, out);
    }
    k++;
  }
  if (r->fused) st = tsr_be_hist_box(ex->be, r->fused, k, r->starts, r->extents, &r->h, r->mine);
  TSR_CHECK(tsr_agree((int)st));
  char *all = NULL;
  size_t *counts = NULL;
  TSR_CHECK(
      tsr_comm_allgather_bytes(r->mine, sizeof(double) * (size_t)(k * r->slots), &all, &counts));
  /* rank q's boxes are its chunks of the step in order: walk the chunks,
   * each from its owner's part */
  int64_t *at = calloc((size_t)ex->size, sizeof(int64_t));
  size_t *base = calloc((size_t)ex->size + 1, sizeof(size_t));
  if (!at || !base) st = TSR_ERROR(TSR_ERR_MEMORY, "out of memory adding a histogram");
  for (int q = 0; st == TSR_OK && q < ex->size; q++) base[q + 1] = base[q] + counts[q];
  for (int64_t i = 0; st == TSR_OK && i < m; i++) {
    int q = r->xb[i].rank;
    const double *part = (const double *)(all + base[q]) + at[q]++ * r->slots;
    double *to = r->total + (r->apart ? r->ids[i] * r->slots : 0);
    for (int64_t b = 0; b < r->slots; b++) to[b] += part[b];
  }
  free(at), free(base), free(all), free(counts);
  return tsr_agree((int)st);
}

static int run_steps(hist_run *r, int64_t per_rank) {
  tsr_exec *ex = r->ex;
  int64_t total = tsr_grid_count(&r->n->in[0]->grid), step = per_rank * ex->size;
  for (int64_t first = 0; first < total; first += step) {
    int64_t last = first + step < total ? first + step : total;
    int64_t m = step_boxes(r, first, last);
    if (m == 0) continue; /* every rank finds none alike */
    int64_t mine = 0;
    for (int64_t i = 0; i < m; i++) mine += r->xb[i].rank == ex->rank;
    if (r->fused) { /* nothing staged: each box binned where it is computed */
      TSR_CHECK(step_bins(r, m));
      continue;
    }
    int st = tsr_stage_boxes_be(ex, r->n->in[0], r->xb, m, r->xd);
    if (st == TSR_OK && r->n->in[1]) {
      st = tsr_stage_boxes_be(ex, r->n->in[1], r->xb, m, r->wd);
      if (st != TSR_OK)
        for (int64_t j = 0; j < mine; j++) tsr_be_release(ex->be, r->xd[j]), r->xd[j] = NULL;
    }
    if (st == TSR_OK) st = step_bins(r, m);
    for (int64_t j = 0; j < mine; j++) {
      tsr_be_release(ex->be, r->xd[j]), r->xd[j] = NULL;
      if (r->n->in[1]) tsr_be_release(ex->be, r->wd[j]), r->wd[j] = NULL;
    }
    TSR_CHECK(st);
  }
  return TSR_OK;
}

int tsr_exec_hist(tsr_exec *ex, tsr_node *n) {
  if (n->value) return TSR_OK;
  hist_run r;
  memset(&r, 0, sizeof r);
  r.ex = ex, r.n = n;
  if (tsr_hist_parse(n->consts, n->nconsts, &r.h) != 0)
    return TSR_ERROR(TSR_ERR_INTERNAL, "histogram %d has no bins", n->id);
  r.slots = r.h.nbins + 1;
  /* fused where the backend can: one axis, no weights, a program that
   * reads nothing staged (the same decision on every rank); then every
   * chunk of a rank in one step (nothing is held while it is binned) */
  tsr_prog prog;
  int compiled = 0;
  if (!ex->no_fuse && !n->in[1] && r.h.ndim == 1 && r.h.nbins <= TSR_HIST_FUSED_BINS &&
      tsr_prog_compile(n->in[0], 0, &prog) == TSR_OK) {
    compiled = 1;
    if (!tsr_stage_needed(&prog) && tsr_be_hist_box_takes(ex->be, &prog)) r.fused = &prog;
  }
  int64_t chunks = tsr_grid_count(&n->in[0]->grid);
  int64_t k = tsr_exec_chunks_per_step(ex, &n->in[0]->grid, n->in[1] ? 2 : 1);
  if (r.fused) {
    k = (chunks + ex->size - 1) / ex->size;
    while (k > 1 && (double)k * (double)r.slots > 1 << 24) k = (k + 1) / 2; /* 128 MB of bins */
  }
  int64_t step = k * ex->size;
  r.xb = calloc((size_t)step, sizeof(tsr_stage_box));
  r.ids = calloc((size_t)step, sizeof(int64_t));
  r.xd = calloc((size_t)k, sizeof(double *));
  r.wd = calloc((size_t)k, sizeof(double *));
  r.starts = calloc((size_t)k * TSR_MAXDIM, sizeof(int64_t));
  r.extents = calloc((size_t)k * TSR_MAXDIM, sizeof(int64_t));
  r.mine = calloc((size_t)(k * r.slots), sizeof(double));
  r.apart = n->b == 1;
  r.total = calloc((size_t)(r.apart ? chunks * r.slots : r.slots), sizeof(double));
  int st = r.xb && r.ids && r.xd && r.wd && r.starts && r.extents && r.mine && r.total
               ? TSR_OK
               : TSR_ERROR(TSR_ERR_MEMORY, "out of memory for a histogram of %lld bins",
                           (long long)r.h.nbins);
  st = tsr_agree(st);
  if (st == TSR_OK) st = run_steps(&r, k);
  if (compiled) tsr_prog_free(&prog);
  if (st == TSR_OK && !r.apart && r.h.axis[0].mode == TSR_HIST_INT && r.total[r.h.nbins] > 0)
    st = TSR_ERROR(TSR_ERR_VALUE,
                   "bincount: %.0f value(s) lie outside [0, minlength=%lld) (NumPy would make the "
                   "result longer, or refuse negative values): give a minlength= above the largest "
                   "value",
                   r.total[r.h.nbins], (long long)r.h.nbins);
  if (st == TSR_OK && r.apart) { /* each chunk's bins, without its outside count */
    for (int64_t c = 0; c < chunks; c++)
      for (int64_t b = 0; b < r.h.nbins; b++) r.total[c * r.h.nbins + b] = r.total[c * r.slots + b];
  }
  if (st == TSR_OK) {
    for (int64_t b = 0, nv = tsr_node_size(n); b < nv; b++)
      r.total[b] = tsr_dtype_cast(r.total[b], n->dtype);
    n->value = r.total;
    r.total = NULL;
  }
  free(r.xb), free(r.ids), free(r.xd), free(r.wd), free(r.mine), free(r.total);
  free(r.starts), free(r.extents);
  return st;
}
