/*
 * ops_linalg.h - builtins of the ops table for linear algebra: transpose
 * (and x.T), matmul/dot (and x @ y), qr and svd. Their table lines are in
 * ops.c; the nodes they create are computed by src/linalg/linalg.c.
 */
#ifndef TSR_OPS_LINALG_H
#define TSR_OPS_LINALG_H

#include "eval/builtin.h"

int tsr_b_transpose(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a,
                    tsr_value *out);
/* diagonal(a, offset=0, axis1=0, axis2=1) (def->code 0, a view) and
 * trace(a, offset=0, axis1=0, axis2=1, dtype=None) (1: its sum). */
int tsr_b_diagonal(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a,
                   tsr_value *out);
/* swapaxes(a, axis1, axis2) and moveaxis(a, source, destination): transposes. */
int tsr_b_swapaxes(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a,
                   tsr_value *out);
int tsr_b_moveaxis(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a,
                   tsr_value *out);
int tsr_b_products(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a,
                   tsr_value *out);
int tsr_b_matmul(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a,
                 tsr_value *out);
int tsr_b_qr(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a, tsr_value *out);
int tsr_b_svd(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a, tsr_value *out);

/* cov (def->code 0) and corrcoef (1) */
int tsr_b_cov(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a,
              tsr_value *out);

#endif
