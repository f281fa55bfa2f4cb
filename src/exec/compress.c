/*
 * compress.c - boolean masks (compress.h). The result's chunks go in steps
 * of up to K a rank (hist.c's rule), the same steps on every rank; for each,
 * the input chunk it comes from (n->consts) and the same rows of the mask
 * are staged on the result chunk's owner, and the backend's compress op
 * keeps the rows where the mask is true.
 */
#include "exec/compress.h"

#include <stdlib.h>
#include <string.h>

#include "exec/stage.h"
#include "mpi/agree.h"
#include "plan/plan.h"
#include "util/error.h"

/* Output chunk id's box of in[0] (the chunk it comes from) and of the
 * mask, and its size. */
static void source_boxes(const tsr_node *n, int64_t id, tsr_stage_box *xb, tsr_stage_box *mb,
                         int64_t *size) {
  const tsr_grid *g = &n->grid, *xg = &n->in[0]->grid;
  int64_t start[TSR_MAXDIM], extent[TSR_MAXDIM], idx[TSR_MAXDIM], rem = id;
  *size = tsr_grid_chunk_at(g, id, start, extent);
  for (int a = g->ndim - 1; a >= 0; a--) idx[a] = rem % g->nchunks[a], rem /= g->nchunks[a];
  int64_t from = (int64_t)n->consts[idx[0]], xid = 0;
  idx[0] = from;
  for (int a = 0; a < g->ndim; a++) xid = xid * xg->nchunks[a] + idx[a];
  tsr_grid_chunk_at(xg, xid, xb->start, xb->extent);
  mb->start[0] = xb->start[0], mb->extent[0] = xb->extent[0];
}

int tsr_exec_compress(tsr_exec *ex, tsr_node *n) {
  if (n->held || n->value) return TSR_OK;
  int64_t total = tsr_grid_count(&n->grid);
  int64_t k = tsr_exec_chunks_per_step(ex, &n->in[0]->grid, 1), step = k * ex->size;
  double **chunks = calloc((size_t)total + 1, sizeof(double *));
  tsr_stage_box *xb = calloc((size_t)step, sizeof *xb), *mb = calloc((size_t)step, sizeof *mb);
  int64_t *ids = calloc((size_t)step, sizeof(int64_t)),
          *size = calloc((size_t)step, sizeof(int64_t));
  double **xd = calloc((size_t)k, sizeof(double *)), **md = calloc((size_t)k, sizeof(double *));
  int st = chunks && xb && mb && ids && size && xd && md
               ? TSR_OK
               : TSR_ERROR(TSR_ERR_MEMORY, "out of memory for a boolean mask");
  st = tsr_agree(st);
  for (int64_t first = 0; st == TSR_OK && first < total; first += step) {
    int64_t m = 0, mine = 0;
    for (int64_t id = first; id < total && id < first + step; id++, m++) {
      source_boxes(n, id, &xb[m], &mb[m], &size[m]);
      xb[m].rank = mb[m].rank = tsr_chunk_owner(id, ex->size);
      ids[m] = id;
      mine += xb[m].rank == ex->rank;
    }
    st = tsr_stage_boxes_be(ex, n->in[0], xb, m, xd);
    if (st == TSR_OK) {
      st = tsr_stage_boxes_be(ex, n->in[1], mb, m, md);
      if (st != TSR_OK)
        for (int64_t j = 0; j < mine; j++) tsr_be_release(ex->be, xd[j]), xd[j] = NULL;
    }
    if (st != TSR_OK) break;
    for (int64_t i = 0, j = 0; i < m; i++) {
      if (xb[i].rank != ex->rank) continue;
      /* the input chunk's rows of len values each, count of them kept */
      int64_t in_rows = xb[i].extent[0];
      int64_t len = in_rows ? tsr_elems_of(n->in[0]->grid.ndim, xb[i].extent) / in_rows : 0;
      int64_t count = len ? size[i] / len : 0;
      if (st == TSR_OK)
        st = tsr_be_alloc(ex->be, (size_t)(size[i] > 0 ? size[i] : 1), &chunks[ids[i]]);
      if (st == TSR_OK)
        st = tsr_be_compress(ex->be, in_rows, len, xd[j], md[j], count, chunks[ids[i]]);
      tsr_be_release(ex->be, xd[j]), xd[j] = NULL;
      tsr_be_release(ex->be, md[j]), md[j] = NULL;
      j++;
    }
    st = tsr_agree(st);
  }
  free(xb), free(mb), free(ids), free(size), free(xd), free(md);
  return tsr_exec_hold_chunks(ex, n, chunks, st);
}
