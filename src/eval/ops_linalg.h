/*
 * ops_linalg.h - builtins of the ops table for linear algebra: transpose
 * (and x.T), matmul/dot (and x @ y), qr and svd. Their table lines are in
 * ops.c; the nodes they create are computed by src/linalg/linalg.c.
 */
#ifndef TSR_OPS_LINALG_H
#define TSR_OPS_LINALG_H

#include "eval/interp.h"
#include "eval/ops.h"

int tsr_b_transpose(tsr_interp *ip, const ast_node *call, const tsr_op_def *def, tsr_args *a,
                    tsr_value *out);
int tsr_b_matmul(tsr_interp *ip, const ast_node *call, const tsr_op_def *def, tsr_args *a,
                 tsr_value *out);
int tsr_b_qr(tsr_interp *ip, const ast_node *call, const tsr_op_def *def, tsr_args *a,
             tsr_value *out);
int tsr_b_svd(tsr_interp *ip, const ast_node *call, const tsr_op_def *def, tsr_args *a,
              tsr_value *out);

/* x @ y (errors located at the operands), and x.T, for the interpreter. */
int tsr_matmul_values(tsr_interp *ip, const ast_node *at, const tsr_value *x, const ast_node *xat,
                      const tsr_value *y, const ast_node *yat, tsr_value *out);
int tsr_transpose_value(tsr_interp *ip, const ast_node *at, tsr_node *x, tsr_value *out);

#endif
