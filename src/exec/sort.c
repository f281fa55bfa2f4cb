/*
 * sort.c - sorts along one axis (sort.h): in[0]'s chunk c is the sort's
 * chunk c (the same grid, one chunk along the axis; or, flattened, one
 * chunk holding everything in C order), staged onto its owner and sorted
 * there line by line by the backend's sort op.
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

static int sort_chunks(tsr_exec *ex, tsr_node *n, double **chunks) {
  int64_t total = tsr_grid_count(&n->grid);
  int st = TSR_OK;
  for (int64_t c = ex->rank; c < total && st == TSR_OK; c += ex->size) {
    int64_t o, l, i;
    chunk_lines(n, c, &o, &l, &i);
    st = tsr_be_sort(ex->be, o, l, i, chunks[c], n->op, n->a);
  }
  return tsr_agree(st);
}

int tsr_exec_sort(tsr_exec *ex, tsr_node *n) { return tsr_exec_whole(ex, n, sort_chunks); }
