/*
 * chunks_join.c - the chunk rules of reshape and concatenate (chunks.h):
 * dask.array's reshape_rechunk (dask 2022.12, Debian 12's python3-dask,
 * against which tests/exec/joins.sh checks them) and concatenate's
 * unify_chunks.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "graph/chunks.h"
#include "util/error.h"

/* A chunk tuple of one axis (at most `cap` entries). */
typedef struct tuple {
  int64_t *v;
  int64_t n;
} tuple;

static int tuple_new(tuple *t, int64_t cap) {
  t->n = 0;
  TSR_CALLOC(t->v, (size_t)(cap > 0 ? cap : 1), sizeof(int64_t));
  return TSR_OK;
}

static int tuple_of(tuple *t, const int64_t *v, int64_t n) {
  TSR_CHECK(tuple_new(t, n));
  memcpy(t->v, v, sizeof(int64_t) * (size_t)n);
  t->n = n;
  return TSR_OK;
}

static int64_t prod(const int64_t *v, int lo, int hi) { /* v[lo:hi] */
  int64_t p = 1;
  for (int i = lo; i < hi; i++) p *= v[i];
  return p;
}

/* dask's expand_tuple: each chunk split into `factor` parts or fewer. */
static int expand_tuple(const tuple *in, int64_t factor, tuple *out) {
  if (factor == 1) return tuple_of(out, in->v, in->n);
  int64_t cap = 0;
  for (int64_t i = 0; i < in->n; i++) cap += in->v[i] < factor ? in->v[i] : factor;
  TSR_CHECK(tuple_new(out, cap + in->n));
  for (int64_t i = 0; i < in->n; i++) {
    int64_t x = in->v[i];
    double part = (double)x / (double)factor;
    if (part < 1) part = 1;
    while ((double)x >= 2 * part) {
      out->v[out->n++] = (int64_t)part;
      x -= (int64_t)part;
    }
    if (x) out->v[out->n++] = x;
  }
  return TSR_OK;
}

/* dask's contract_tuple: chunks that `factor` divides, the same sum. */
static int contract_tuple(const tuple *in, int64_t factor, tuple *out) {
  TSR_CHECK(tuple_new(out, in->n));
  int64_t residual = 0;
  for (int64_t i = 0; i < in->n; i++) {
    int64_t chunk = in->v[i] + residual, good = factor * (chunk / factor);
    residual = chunk % factor;
    if (good) out->v[out->n++] = good;
  }
  return TSR_OK;
}

static const char reshape_unsupported[] =
    "dask's reshape (which tessera's follows) only merges or splits existing dimensions evenly: "
    "e.g. (6, 5, 4) -> (3, 2, 5, 4) or (30, 4), not (4, 5, 6); reshape in several steps, or "
    "rechunk to one chunk first";

/* Python's index of a sequence of length n at i < 0 (reshape_rechunk reads
 * inshape[-1] when one side is used up and the other has length-1 axes). */
static int64_t at(const int64_t *v, int n, int i) { return v[i < 0 ? i + n : i]; }

static void tuples_free(tuple *t, int n) {
  for (int i = 0; i < n; i++) free(t[i].v), t[i].v = NULL;
}

/* dask's reshape_rechunk, step for step. */
static int reshape_rechunk(const tsr_grid *in, int nout, const int64_t *outshape, tuple *rin,
                           tuple *rout) {
  int nin = in->ndim, ii = nin - 1, oi = nout - 1;
  const int64_t *inshape = in->shape;
  tuple inchunks[TSR_MAXDIM];
  for (int a = 0; a < nin; a++) inchunks[a] = (tuple){in->sizes[a], in->nchunks[a]};
#define SET(t, vals, count)                     \
  do {                                          \
    free((t).v);                                \
    TSR_CHECK(tuple_of(&(t), (vals), (count))); \
  } while (0)
  while (ii >= 0 || oi >= 0) {
    int64_t din = at(inshape, nin, ii), dout = at(outshape, nout, oi);
    /* python's indices: -1 is the last axis (read once one side is used up) */
    int wi = ii < 0 ? ii + nin : ii, wo = oi < 0 ? oi + nout : oi;
    const int64_t one = 1;
    if (wi < 0 || wo < 0) return TSR_ERROR(TSR_ERR_SHAPE, "%s", reshape_unsupported);
    if (din == dout) {
      SET(rin[wi], inchunks[wi].v, inchunks[wi].n);
      SET(rout[wo], inchunks[wi].v, inchunks[wi].n);
      ii--, oi--;
      continue;
    }
    if (din == 1) {
      SET(rin[wi], &one, 1);
      ii--;
    } else if (dout == 1) {
      SET(rout[wo], &one, 1);
      oi--;
    } else if (din < dout) { /* (4, 4, 4) -> (64,) */
      if (ii < 0 || oi < 0) return TSR_ERROR(TSR_ERR_SHAPE, "%s", reshape_unsupported);
      int ileft = ii - 1;
      while (ileft >= 0 && prod(inshape, ileft, ii + 1) < dout) ileft--;
      if (ileft < 0 || prod(inshape, ileft, ii + 1) != dout)
        return TSR_ERROR(TSR_ERR_SHAPE, "%s", reshape_unsupported);
      int all_ones = 1; /* every axis below ii chunked by 1: blocks only move */
      for (int i = 0; i < ii; i++) all_ones &= inchunks[i].n == inshape[i];
      if (all_ones) {
        for (int i = 0; i <= ii; i++) SET(rin[i], inchunks[i].v, inchunks[i].n);
        int64_t reps = 1;
        for (int i = ileft; i < ii; i++) reps *= inchunks[i].n;
        free(rout[oi].v);
        TSR_CHECK(tuple_new(&rout[oi], inchunks[ii].n * reps));
        for (int64_t r = 0; r < reps; r++)
          for (int64_t k = 0; k < inchunks[ii].n; k++) rout[oi].v[rout[oi].n++] = inchunks[ii].v[k];
      } else {
        for (int i = ileft + 1; i <= ii; i++) SET(rin[i], &inshape[i], 1);
        int64_t reduction = 1;
        for (int i = ileft + 1; i <= ii; i++) reduction *= inchunks[i].n;
        free(rin[ileft].v);
        TSR_CHECK(expand_tuple(&inchunks[ileft], reduction, &rin[ileft]));
        int64_t p = prod(inshape, ileft + 1, ii + 1);
        free(rout[oi].v);
        TSR_CHECK(tuple_new(&rout[oi], rin[ileft].n));
        for (int64_t k = 0; k < rin[ileft].n; k++) rout[oi].v[rout[oi].n++] = p * rin[ileft].v[k];
      }
      oi--;
      ii = ileft - 1;
    } else { /* din > dout: (64,) -> (4, 4, 4) */
      if (ii < 0 || oi < 0) return TSR_ERROR(TSR_ERR_SHAPE, "%s", reshape_unsupported);
      int oleft = oi - 1;
      while (oleft >= 0 && prod(outshape, oleft, oi + 1) < din) oleft--;
      if (oleft < 0 || prod(outshape, oleft, oi + 1) != din)
        return TSR_ERROR(TSR_ERR_SHAPE, "%s", reshape_unsupported);
      int64_t cs = prod(outshape, oleft + 1, oi + 1);
      free(rin[ii].v);
      TSR_CHECK(contract_tuple(&inchunks[ii], cs, &rin[ii]));
      for (int i = oleft + 1; i <= oi; i++) SET(rout[i], &outshape[i], 1);
      free(rout[oleft].v);
      TSR_CHECK(tuple_new(&rout[oleft], rin[ii].n));
      for (int64_t k = 0; k < rin[ii].n; k++) rout[oleft].v[rout[oleft].n++] = rin[ii].v[k] / cs;
      oi = oleft - 1;
      ii--;
    }
  }
#undef SET
  return TSR_OK;
}

static int grid_of(tuple *t, int nd, const int64_t *shape, tsr_grid *g) {
  const int64_t *sizes[TSR_MAXDIM] = {NULL};
  int64_t n[TSR_MAXDIM] = {0};
  for (int a = 0; a < nd; a++) {
    if (!t[a].v) return TSR_ERROR(TSR_ERR_INTERNAL, "reshape: axis %d without chunks", a);
    sizes[a] = t[a].v, n[a] = t[a].n;
  }
  return tsr_grid_init_lists(g, nd, shape, sizes, n);
}

int tsr_grid_reshape(const tsr_grid *in, int ndim, const int64_t *shape, tsr_grid *in_grid,
                     tsr_grid *out_grid) {
  memset(in_grid, 0, sizeof *in_grid);
  memset(out_grid, 0, sizeof *out_grid);
  if (tsr_grid_count(in) == 1) { /* one chunk: one chunk of the new shape */
    TSR_CHECK(tsr_grid_copy(in_grid, in));
    int64_t chunk[TSR_MAXDIM];
    for (int a = 0; a < ndim; a++) chunk[a] = shape[a] > 0 ? shape[a] : 1;
    return tsr_grid_init_regular(out_grid, ndim, shape, chunk);
  }
  tuple rin[TSR_MAXDIM] = {{0}}, rout[TSR_MAXDIM] = {{0}};
  int st = reshape_rechunk(in, ndim, shape, rin, rout);
  if (st == TSR_OK) st = grid_of(rin, in->ndim, in->shape, in_grid);
  if (st == TSR_OK) st = grid_of(rout, ndim, shape, out_grid);
  tuples_free(rin, TSR_MAXDIM);
  tuples_free(rout, TSR_MAXDIM);
  if (st == TSR_OK && tsr_grid_count(in_grid) != tsr_grid_count(out_grid))
    st = TSR_ERROR(TSR_ERR_INTERNAL, "reshape: %lld input blocks for %lld output blocks",
                   (long long)tsr_grid_count(in_grid), (long long)tsr_grid_count(out_grid));
  if (st != TSR_OK) tsr_grid_free(in_grid), tsr_grid_free(out_grid);
  return st;
}

int tsr_grid_concat(const tsr_grid *a, const tsr_grid *b, int axis, tsr_grid *out) {
  if (a->ndim != b->ndim)
    return TSR_ERROR(TSR_ERR_SHAPE,
                     "all the input array dimensions except for the concatenation axis must match "
                     "exactly: %d-d and %d-d arrays",
                     a->ndim, b->ndim);
  int nd = a->ndim;
  for (int d = 0; d < nd; d++)
    if (d != axis && a->shape[d] != b->shape[d])
      return TSR_ERROR(TSR_ERR_SHAPE,
                       "all the input array dimensions except for the concatenation axis must "
                       "match exactly, but along dimension %d, the array at index 0 has size %lld "
                       "and the array at index 1 has size %lld",
                       d, (long long)a->shape[d], (long long)b->shape[d]);
  /* the other axes: the union of both inputs' boundaries (unify_chunks) */
  tsr_grid ga, gb, u;
  int64_t sa[TSR_MAXDIM] = {0}, one = 1;
  const int64_t *sizes[TSR_MAXDIM] = {NULL};
  int64_t n[TSR_MAXDIM] = {0};
  for (int d = 0; d < nd; d++) {
    sa[d] = d == axis ? 1 : a->shape[d];
    sizes[d] = d == axis ? &one : a->sizes[d], n[d] = d == axis ? 1 : a->nchunks[d];
  }
  TSR_CHECK(tsr_grid_init_lists(&ga, nd, sa, sizes, n));
  for (int d = 0; d < nd; d++)
    sizes[d] = d == axis ? &one : b->sizes[d], n[d] = d == axis ? 1 : b->nchunks[d];
  int st = tsr_grid_init_lists(&gb, nd, sa, sizes, n);
  if (st == TSR_OK) {
    st = tsr_grid_broadcast(&ga, &gb, &u);
    tsr_grid_free(&gb);
  }
  tsr_grid_free(&ga);
  TSR_CHECK(st);
  /* the axis: a's chunks then b's (an empty input adds none) */
  int64_t len = a->shape[axis] + b->shape[axis], m = 0, *cat;
  cat = malloc(sizeof(int64_t) * (size_t)(a->nchunks[axis] + b->nchunks[axis] + 1));
  if (!cat) {
    tsr_grid_free(&u);
    return TSR_ERROR(TSR_ERR_MEMORY, "out of memory concatenating");
  }
  for (int k = 0; k < 2; k++) {
    const tsr_grid *g = k ? b : a;
    for (int64_t c = 0; c < g->nchunks[axis]; c++)
      if (g->sizes[axis][c] > 0) cat[m++] = g->sizes[axis][c];
  }
  if (m == 0) cat[m++] = 0;
  int64_t shape[TSR_MAXDIM];
  for (int d = 0; d < nd; d++) {
    shape[d] = d == axis ? len : u.shape[d];
    sizes[d] = d == axis ? cat : u.sizes[d], n[d] = d == axis ? m : u.nchunks[d];
  }
  st = tsr_grid_init_lists(out, nd, shape, sizes, n);
  free(cat);
  tsr_grid_free(&u);
  return st;
}
