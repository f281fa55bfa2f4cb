/*
 * ops_norm.h - norm (ops_norm.c), also as linalg.norm. Its table line is in
 * ops.c.
 */
#ifndef TSR_OPS_NORM_H
#define TSR_OPS_NORM_H

#include "eval/builtin.h"

/* norm(x, ord=None, axis=None, keepdims=False): NumPy's numpy.linalg.norm. */
int tsr_b_norm(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a,
               tsr_value *out);

#endif
