/*
 * ops_mask.h - boolean masks and what is built on them (ops_mask.c):
 * x[mask], nonzero, flatnonzero, argwhere, where(condition), compress,
 * extract, unique, union1d, intersect1d. Their lengths are known only
 * after compute: the job computes each chunk's count while it is read
 * (tsr_ctx's compute_now), and builds the rest on those lengths.
 */
#ifndef TSR_OPS_MASK_H
#define TSR_OPS_MASK_H

#include "eval/builtin.h"

/* x[m] for a boolean m of x's leading shape: the selected elements (m
 * of x's shape: 1-d, C order) or rows. */
int tsr_mask_select(tsr_ctx *c, const ast_node *at, tsr_node *x, tsr_node *m, tsr_node **out);

/* nonzero (def->code 0), flatnonzero (1), argwhere (2) */
int tsr_b_nonzero(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a,
                  tsr_value *out);
/* where(condition): nonzero's tuple */
int tsr_mask_where(tsr_ctx *c, const ast_node *call, tsr_node *cond, tsr_value *out);
/* compress (def->code 0), extract (1) */
int tsr_b_compress(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a,
                   tsr_value *out);
/* unique (def->code 0), union1d (1), intersect1d (2), setdiff1d (3), setxor1d (4) */
int tsr_b_unique(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a,
                 tsr_value *out);

#endif
