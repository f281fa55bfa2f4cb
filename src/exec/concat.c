/*
 * concat.c - reshapes and concatenations (concat.h).
 */
#include "exec/concat.h"

#include <stdlib.h>
#include <string.h>

#include "exec/stage.h"
#include "mpi/agree.h"
#include "plan/plan.h"
#include "util/error.h"

static int relabel(tsr_exec *ex, tsr_node *n, double **chunks) {
  (void)ex, (void)n, (void)chunks; /* in[0]'s chunk c is n's chunk c, row-major alike */
  return TSR_OK;
}

int tsr_exec_reshape(tsr_exec *ex, tsr_node *n) { return tsr_exec_whole(ex, n, NULL, relabel); }

static int pending(const tsr_node *x) { return x->kind == N_CONCAT && !x->value && !x->held; }

int tsr_concat_inputs(tsr_node *n, int (*each)(void *ctx, tsr_node *in), void *ctx) {
  for (int i = 0; i < 2; i++)
    TSR_CHECK(pending(n->in[i]) ? tsr_concat_inputs(n->in[i], each, ctx) : each(ctx, n->in[i]));
  return TSR_OK;
}

/* The input of nest n that holds box (start, extent) of n, and the box in
 * its coordinates (start shifted in place). */
static tsr_node *input_of(tsr_node *n, int64_t *start) {
  while (pending(n)) {
    int64_t len0 = n->in[0]->grid.shape[n->axis];
    if (start[n->axis] < len0) {
      n = n->in[0];
    } else {
      start[n->axis] -= len0;
      n = n->in[1];
    }
  }
  return n;
}

/* The boxes of n's chunks that lie in input x, each on its chunk's owner,
 * and their chunk ids. */
typedef struct concat_ctx {
  tsr_exec *ex;
  tsr_node *n;
  double **chunks; /* by chunk id of n's grid */
  tsr_stage_box *boxes;
  int64_t *ids;
  double **dev;
  tsr_node *seen[64]; /* the inputs evaluated so far (concatenate([a, a]): a once) */
  int nseen;
} concat_ctx;

static int eval_input(void *vctx, tsr_node *x) {
  concat_ctx *c = vctx;
  tsr_exec *ex = c->ex;
  const tsr_grid *g = &c->n->grid;
  int64_t total = tsr_grid_count(g), m = 0, mine = 0;
  for (int i = 0; i < c->nseen; i++)
    if (c->seen[i] == x) return TSR_OK;
  if (c->nseen < 64) c->seen[c->nseen++] = x;
  for (int64_t id = 0; id < total; id++) {
    tsr_stage_box b;
    tsr_grid_chunk_at(g, id, b.start, b.extent);
    if (tsr_elems_of(g->ndim, b.extent) == 0 || input_of(c->n, b.start) != x) continue;
    b.rank = tsr_chunk_owner(id, ex->size);
    c->boxes[m] = b;
    if (b.rank == ex->rank) c->ids[mine++] = id;
    m++;
  }
  if (m == 0) return TSR_OK; /* every rank finds none alike */
  TSR_CHECK(tsr_stage_boxes_be(ex, x, c->boxes, m, c->dev));
  for (int64_t k = 0; k < mine; k++) {
    tsr_be_release(ex->be, c->chunks[c->ids[k]]); /* an input seen before the 64 were full */
    c->chunks[c->ids[k]] = c->dev[k];
  }
  return TSR_OK;
}

int tsr_exec_concat(tsr_exec *ex, tsr_node *n) {
  if (n->held || n->value) return TSR_OK;
  int64_t total = tsr_grid_count(&n->grid);
  concat_ctx c = {ex, n, NULL, NULL, NULL, NULL, {NULL}, 0};
  c.chunks = calloc((size_t)total + 1, sizeof(double *));
  c.boxes = calloc((size_t)total + 1, sizeof(tsr_stage_box));
  c.ids = calloc((size_t)total + 1, sizeof(int64_t));
  c.dev = calloc((size_t)total + 1, sizeof(double *));
  int st = c.chunks && c.boxes && c.ids && c.dev
               ? TSR_OK
               : TSR_ERROR(TSR_ERR_MEMORY, "out of memory concatenating");
  st = tsr_agree(st);
  if (st == TSR_OK) st = tsr_concat_inputs(n, eval_input, &c);
  /* chunks of no elements (an empty input's) get a buffer of their own */
  for (int64_t id = ex->rank; st == TSR_OK && id < total; id += ex->size)
    if (!c.chunks[id]) st = tsr_be_alloc(ex->be, 1, &c.chunks[id]);
  st = tsr_agree(st);
  free(c.boxes), free(c.ids), free(c.dev);
  return tsr_exec_hold_chunks(ex, n, c.chunks, st);
}
