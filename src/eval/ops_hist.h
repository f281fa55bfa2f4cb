/*
 * ops_hist.h - histogram, histogram2d, histogramdd and bincount
 * (ops_hist.c): N_HIST nodes (graph/array.h) over bins known before
 * compute, as dask.array's. Their table lines are in ops.c.
 */
#ifndef TSR_OPS_HIST_H
#define TSR_OPS_HIST_H

#include "eval/builtin.h"

/* histogram (def->code 0), histogram_bin_edges (1), histogram2d (2), histogramdd (3) */
int tsr_b_histogram(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a,
                    tsr_value *out);
int tsr_b_bincount(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a,
                   tsr_value *out);

#endif
