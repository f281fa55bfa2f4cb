/*
 * ops_create.h - NumPy's creation functions built from existing nodes
 * (ops_create.c): the _like family, eye, identity, tri, linspace, meshgrid.
 * Their table lines are in ops.c.
 */
#ifndef TSR_OPS_CREATE_H
#define TSR_OPS_CREATE_H

#include "eval/builtin.h"

/* def->code: 0 zeros_like and empty_like, 1 ones_like, 2 full_like. */
int tsr_b_like(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a,
               tsr_value *out);
/* def->code: 0 eye, 1 identity, 2 tri. */
int tsr_b_eye(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a, tsr_value *out);
/* tril(m, k=0), triu(m, k=0): def->code 0 tril, 1 triu. */
int tsr_b_array(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a,
                tsr_value *out);
int tsr_b_diag(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a,
               tsr_value *out);
int tsr_b_tril(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a,
               tsr_value *out);
int tsr_b_linspace(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a,
                   tsr_value *out);
int tsr_b_meshgrid(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a,
                   tsr_value *out);

/* fftfreq (def->code 0) and rfftfreq (1) */
int tsr_b_fftfreq(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a,
                  tsr_value *out);

#endif
