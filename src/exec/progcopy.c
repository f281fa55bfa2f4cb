/*
 * progcopy.c - program copies and their leaves rewritten to read staging
 * buffers (progcopy.h).
 */
#include "exec/progcopy.h"

#include <stdlib.h>
#include <string.h>

#include "util/error.h"

int tsr_prog_copy(const tsr_prog *p, tsr_prog *q) {
  memset(q, 0, sizeof *q);
  q->ndim = p->ndim;
  memcpy(q->shape, p->shape, sizeof q->shape);
  q->nleaves = q->leaves_cap = p->nleaves;
  q->ninstr = q->instr_cap = p->ninstr;
  q->nregs = q->regs_cap = p->nregs;
  q->result = p->result;
  q->leaves = malloc(sizeof(tsr_leaf) * (size_t)(p->nleaves + 1));
  q->code = malloc(sizeof(tsr_instr) * (size_t)(p->ninstr + 1));
  q->reg_const = malloc(sizeof(int) * (size_t)(p->nregs + 1));
  q->reg_value = malloc(sizeof(double) * (size_t)(p->nregs + 1));
  if (!q->leaves || !q->code || !q->reg_const || !q->reg_value) {
    tsr_prog_free(q);
    return TSR_ERROR(TSR_ERR_MEMORY, "out of memory copying a program");
  }
  if (p->nleaves) memcpy(q->leaves, p->leaves, sizeof(tsr_leaf) * (size_t)p->nleaves);
  if (p->ninstr) memcpy(q->code, p->code, sizeof(tsr_instr) * (size_t)p->ninstr);
  if (p->nregs) {
    memcpy(q->reg_const, p->reg_const, sizeof(int) * (size_t)p->nregs);
    memcpy(q->reg_value, p->reg_value, sizeof(double) * (size_t)p->nregs);
  }
  return TSR_OK;
}

int tsr_prog_view(const tsr_prog *p, const tsr_sbox *b, tsr_prog *q) {
  TSR_CHECK(tsr_prog_copy(p, q));
  for (int a = 0; a < q->ndim; a++) q->shape[a] = b->count[a];
  for (int i = 0; i < q->nleaves; i++) {
    tsr_leaf *l = &q->leaves[i];
    for (int d = 0; d < l->base_ndim; d++) {
      int k = l->axis_of[d];
      if (k < 0) continue;
      l->off[d] += l->step[d] * b->first[k];
      l->step[d] *= b->step[k];
    }
    tsr_leaf_finish(l);
  }
  return TSR_OK;
}

void tsr_leaf_to_data(tsr_leaf *l, const tsr_region *r, const double *buf) {
  int64_t stride = 1;
  l->e_const = 0;
  memset(l->e_coef, 0, sizeof l->e_coef);
  for (int d = l->base_ndim - 1; d >= 0; d--) {
    int k = l->axis_of[d], moving = k >= 0 && l->step[d] != 0;
    int64_t off = moving ? (l->off[d] - r->lo[d]) / r->stride[d] : 0;
    int64_t sign = moving ? (l->step[d] > 0 ? 1 : -1) : 0;
    l->e_const += off * stride;
    if (moving) l->e_coef[k] += sign * stride;
    l->off[d] = off;
    l->step[d] = sign;
    if (!moving) l->axis_of[d] = -1;
    l->base_shape[d] = r->count[d];
    stride *= r->count[d];
  }
  l->kind = LEAF_DATA;
  l->data = buf;
  l->resident = 0;
}

void tsr_leaf_to_chunk(tsr_leaf *l, const int64_t *start, const int64_t *extent,
                       const double *data) {
  for (int d = 0; d < l->base_ndim; d++) {
    l->off[d] -= start[d];
    l->base_shape[d] = extent[d];
  }
  tsr_leaf_finish(l);
  l->kind = LEAF_DATA;
  l->data = data;
  l->resident = 1;
}
