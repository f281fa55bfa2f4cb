/*
 * sort.c - sorts along one axis (sort.h): in[0]'s chunk c is the sort's
 * chunk c (the same grid, one chunk along the axis; or, flattened, one
 * chunk holding everything in C order; or, over several axes, those axes
 * whole, reordered to come last), staged onto its owner and sorted there
 * line by line by the backend's sort op.
 */
#include "exec/sort.h"

#include <stdlib.h>

#include "exec/stage.h"
#include "mpi/agree.h"
#include "util/error.h"

/* Chunk c of n as (outer, len, inner) around the sorted axis. */
static void chunk_lines(const tsr_node *n, int64_t c, int64_t *outer, int64_t *len,
                        int64_t *inner) {
  int64_t start[TSR_MAXDIM], extent[TSR_MAXDIM];
  const tsr_grid *g = &n->grid;
  tsr_grid_chunk_at(g, c, start, extent);
  int axis = n->axis < 0 ? 0 : n->axis;
  *outer = *inner = 1;
  for (int a = 0; a < g->ndim; a++) {
    if (a < axis) *outer *= extent[a];
    if (a > axis) *inner *= extent[a];
  }
  *len = extent[axis];
}

/* src (C order over extent, ndim axes) into dst with the axes of mask
 * moved last: the other axes, then those of mask, each in its order. */
static void move_axes_last(const double *src, double *dst, int ndim, const int64_t *extent,
                           unsigned mask, int64_t size) {
  int order[TSR_MAXDIM], k = 0;
  int64_t stride[TSR_MAXDIM], idx[TSR_MAXDIM] = {0}, off = 0;
  for (int a = 0; a < ndim; a++)
    if (!((mask >> a) & 1u)) order[k++] = a;
  for (int a = 0; a < ndim; a++)
    if ((mask >> a) & 1u) order[k++] = a;
  for (int a = ndim - 1, st = 1; a >= 0; a--) stride[a] = st, st *= extent[a];
  for (int64_t e = 0; e < size; e++) {
    dst[e] = src[off];
    for (int j = ndim - 1; j >= 0; j--) { /* the next index in dst's order */
      int a = order[j];
      off += stride[a];
      if (++idx[a] < extent[a]) break;
      off -= stride[a] * extent[a];
      idx[a] = 0;
    }
  }
}

/* A sort over several axes (n->b = 1 + their mask): chunk c of in[0],
 * holding those axes whole, reordered in place into n's layout (them last,
 * flattened), through host memory. */
static int reorder_chunk(tsr_exec *ex, const tsr_node *n, int64_t c, double *chunk) {
  const tsr_grid *g = &n->in[0]->grid;
  int64_t start[TSR_MAXDIM], extent[TSR_MAXDIM];
  int64_t size = tsr_grid_chunk_at(g, c, start, extent);
  double *src = malloc(sizeof(double) * (size_t)size), *dst = malloc(sizeof(double) * (size_t)size);
  int st = src && dst ? TSR_OK : TSR_ERROR(TSR_ERR_MEMORY, "out of memory reordering a chunk");
  if (st == TSR_OK) st = tsr_be_download(ex->be, chunk, src, (size_t)size);
  if (st == TSR_OK) {
    move_axes_last(src, dst, g->ndim, extent, (unsigned)(n->b - 1.0), size);
    st = tsr_be_upload(ex->be, dst, chunk, (size_t)size);
  }
  free(src);
  free(dst);
  return st;
}

static int sort_chunks(tsr_exec *ex, tsr_node *n, double **chunks) {
  int64_t total = tsr_grid_count(&n->grid);
  int st = TSR_OK;
  for (int64_t c = ex->rank; c < total && st == TSR_OK; c += ex->size) {
    int64_t o, l, i;
    chunk_lines(n, c, &o, &l, &i);
    if (n->b > 0) st = reorder_chunk(ex, n, c, chunks[c]);
    if (st == TSR_OK) st = tsr_be_sort(ex->be, o, l, i, chunks[c], n->op, n->a);
  }
  return tsr_agree(st);
}

int tsr_exec_sort(tsr_exec *ex, tsr_node *n) { return tsr_exec_whole(ex, n, NULL, sort_chunks); }
