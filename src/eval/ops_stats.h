/*
 * ops_stats.h - statistics composed of reductions (ops_stats.c): ptp, average
 * and the NaN-skipping reductions. Their table lines are in ops.c.
 */
#ifndef TSR_OPS_STATS_H
#define TSR_OPS_STATS_H

#include "eval/builtin.h"

/* Reduction kind of x over axis (tsr_arg_axes's: -1, one axis or
 * TSR_AXES_SET with the axes in mask) as NumPy's: one axis or all is one
 * reduction node; several are reduced one at a time (sums, products,
 * extremes, any/all, counts) or composed as NumPy's _mean and _var (mean,
 * var, std); none is each element's reduction alone. Not for argmax/argmin. */
int tsr_reduce_axes(int kind, tsr_node *x, int axis, unsigned mask, int keep, int ddof,
                    tsr_node **out);
int tsr_b_ptp(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a, tsr_value *out);
/* nansum ... nanstd: def->code the reduction kind (kernel/ids.h). */
int tsr_b_nanreduce(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a,
                    tsr_value *out);
int tsr_b_average(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a,
                  tsr_value *out);

#endif
