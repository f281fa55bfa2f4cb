/*
 * geom.c - integer arithmetic, chunk ownership and leaf regions (plan.h):
 * the geometry every rank derives alike from the grids.
 */
#include "plan/plan.h"

#include <stdlib.h>

#include "util/error.h"

int64_t tsr_ceil_div(int64_t a, int64_t b) { return a >= 0 ? (a + b - 1) / b : -((-a) / b); }

int64_t tsr_floor_div(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

int64_t tsr_elems_of(int nd, const int64_t *count) {
  int64_t n = 1;
  for (int a = 0; a < nd; a++) n *= count[a];
  return n;
}

int64_t tsr_owned_count(int64_t total, int q, int size) {
  return total > q ? (total - q + size - 1) / size : 0;
}

int tsr_owned_chunks(int rank, int size, int64_t total, int64_t **ids, int64_t *n) {
  int64_t k = 0;
  TSR_MALLOC(*ids, sizeof(int64_t) * (size_t)(total / size + 1));
  for (int64_t c = rank; c < total; c += size) (*ids)[k++] = c;
  *n = k;
  return TSR_OK;
}

void tsr_leaf_region(const tsr_leaf *l, const tsr_sbox *b, tsr_region *r) {
  for (int d = 0; d < l->base_ndim; d++) {
    int k = l->axis_of[d];
    int64_t s = k >= 0 ? l->step[d] * b->step[k] : 0;
    int64_t c0 = l->off[d] + (k >= 0 ? l->step[d] * b->first[k] : 0);
    int64_t n = k >= 0 && s != 0 ? b->count[k] : 1;
    if (k >= 0 && b->count[k] == 0) n = 0;
    r->lo[d] = s >= 0 ? c0 : c0 + s * (n - 1);
    r->stride[d] = s > 0 ? s : (s < 0 ? -s : 1);
    r->count[d] = n;
  }
}
