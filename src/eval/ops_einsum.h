/*
 * ops_einsum.h - einsum, tensordot and kron (ops_einsum.c). Their table
 * lines are in ops.c.
 */
#ifndef TSR_OPS_EINSUM_H
#define TSR_OPS_EINSUM_H

#include "eval/builtin.h"

/* einsum(subscripts, a, b=None, c=None): NumPy's, up to 3 operands and 4
 * distinct subscripts, without "...". */
int tsr_b_einsum(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a,
                 tsr_value *out);
/* tensordot(a, b, axes=2) */
int tsr_b_tensordot(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a,
                    tsr_value *out);
/* kron(a, b) of 1-d and 2-d arrays */
int tsr_b_kron(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a,
               tsr_value *out);

#endif
