/*
 * pieces.c - rechunk pieces (plan.h): a region of a rechunked array cut
 * along its source's chunk boundaries, each piece evaluated by the owner of
 * its source chunk and placed at its offset in the region. The executor's
 * exchanges (exec/xfer.c) and --no-fuse rechunking (exec/nofuse.c) both
 * follow this list.
 */
#include "plan/plan.h"

#include <string.h>

#include "util/error.h"
#include "util/grow.h"

/* The source chunks, per axis c0[d]..c1[d], that region g touches. */
static int region_chunks(const tsr_region *g, const tsr_grid *G, int64_t *c0, int64_t *c1,
                         int64_t *ncomb) {
  *ncomb = 1;
  for (int d = 0; d < G->ndim; d++) {
    c0[d] = tsr_grid_find(G, d, g->lo[d]);
    c1[d] = tsr_grid_find(G, d, g->lo[d] + g->stride[d] * (g->count[d] - 1));
    if (c0[d] < 0 || c1[d] < 0)
      return TSR_ERROR(TSR_ERR_INTERNAL, "rechunk region outside its source");
    *ncomb *= c1[d] - c0[d] + 1;
  }
  return TSR_OK;
}

/* The part of g inside source chunk idx: j0/jn per axis; 0 when empty. */
static int piece_span(const tsr_region *g, const tsr_grid *G, const int64_t *idx, int64_t *j0,
                      int64_t *jn) {
  for (int d = 0; d < G->ndim; d++) {
    int64_t lo = G->starts[d][idx[d]], hi = G->starts[d][idx[d] + 1];
    int64_t a = tsr_ceil_div(lo - g->lo[d], g->stride[d]);
    int64_t b = tsr_floor_div(hi - 1 - g->lo[d], g->stride[d]);
    a = a < 0 ? 0 : a;
    b = b > g->count[d] - 1 ? g->count[d] - 1 : b;
    j0[d] = a;
    jn[d] = b - a + 1;
    if (jn[d] <= 0) return 0;
  }
  return 1;
}

static int add_piece(tsr_piece_list *pl, int64_t t, int dst, int src, const tsr_region *g, int nd,
                     const int64_t *j0, const int64_t *jn) {
  TSR_CHECK(
      tsr_grow((void **)&pl->p, &pl->cap, pl->n + 1, sizeof(tsr_piece), "planning staged chunks"));
  tsr_piece *p = &pl->p[pl->n++];
  memset(p, 0, sizeof *p);
  p->task = t;
  p->dst = dst;
  p->src = src;
  for (int d = 0; d < nd; d++) {
    p->j0[d] = j0[d];
    p->box.first[d] = g->lo[d] + g->stride[d] * j0[d];
    p->box.step[d] = g->stride[d];
    p->box.count[d] = jn[d];
  }
  return TSR_OK;
}

int tsr_plan_region(tsr_piece_list *pl, int64_t t, int dst, const tsr_region *g, const tsr_grid *G,
                    int size) {
  int nd = G->ndim;
  int64_t c0[TSR_MAXDIM], c1[TSR_MAXDIM], idx[TSR_MAXDIM], ncomb;
  if (tsr_elems_of(nd, g->count) == 0) return TSR_OK;
  TSR_CHECK(region_chunks(g, G, c0, c1, &ncomb));
  for (int64_t c = 0; c < ncomb; c++) {
    int64_t rem = c, j0[TSR_MAXDIM], jn[TSR_MAXDIM];
    for (int d = nd - 1; d >= 0; d--) {
      idx[d] = c0[d] + rem % (c1[d] - c0[d] + 1);
      rem /= c1[d] - c0[d] + 1;
    }
    if (!piece_span(g, G, idx, j0, jn)) continue;
    int src = tsr_chunk_owner(tsr_grid_ravel(G, idx), size);
    TSR_CHECK(add_piece(pl, t, dst, src, g, nd, j0, jn));
  }
  return TSR_OK;
}

void tsr_place_piece(int nd, const int64_t *rcount, double *region_buf, const int64_t *j0,
                     const int64_t *count, const double *src) {
  int64_t rows = 1, width = nd > 0 ? count[nd - 1] : 1;
  for (int d = 0; d + 1 < nd; d++) rows *= count[d];
  for (int64_t r = 0; r < rows; r++) {
    int64_t rem = r, off = 0, stride = rcount[nd - 1];
    for (int d = nd - 2; d >= 0; d--) {
      off += (j0[d] + rem % count[d]) * stride;
      rem /= count[d];
      stride *= rcount[d];
    }
    memcpy(region_buf + off + j0[nd - 1], src + r * width, sizeof(double) * (size_t)width);
  }
}
