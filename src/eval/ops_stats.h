/*
 * ops_stats.h - statistics composed of reductions (ops_stats.c): ptp, average
 * and the NaN-skipping reductions. Their table lines are in ops.c.
 */
#ifndef TSR_OPS_STATS_H
#define TSR_OPS_STATS_H

#include "eval/builtin.h"

int tsr_b_ptp(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a, tsr_value *out);
/* nansum ... nanstd: def->code the reduction kind (kernel/ids.h). */
int tsr_b_nanreduce(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a,
                    tsr_value *out);
int tsr_b_average(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a,
                  tsr_value *out);

#endif
