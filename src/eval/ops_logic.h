/*
 * ops_logic.h - where, isclose/allclose, isin, nan_to_num (ops_logic.c),
 * compositions of elementwise rows. Their table lines are in ops.c.
 */
#ifndef TSR_OPS_LOGIC_H
#define TSR_OPS_LOGIC_H

#include "eval/builtin.h"

int tsr_b_where(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a,
                tsr_value *out);
/* isclose (def->code 0) and allclose (1) */
int tsr_b_isclose(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a,
                  tsr_value *out);
int tsr_b_digitize(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a,
                   tsr_value *out);
int tsr_b_isin(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a,
               tsr_value *out);
int tsr_b_nan_to_num(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a,
                     tsr_value *out);

#endif
