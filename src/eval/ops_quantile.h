/*
 * ops_quantile.h - NumPy's sort and its exact order statistics
 * (ops_quantile.c): sort (an N_SORT node) and median, quantile, percentile
 * (method="linear"), composed of a sort, slices at the neighbouring order
 * statistics and NumPy's interpolation; nanmedian, nanquantile,
 * nanpercentile, whose lines have as many values as they have non-NaN
 * ones, computed per line by the sort op itself (kernel/quantile.h). Their
 * table lines are in ops.c.
 */
#ifndef TSR_OPS_QUANTILE_H
#define TSR_OPS_QUANTILE_H

#include "eval/builtin.h"

/* The order statistics of ops.c's lines (def->code). */
typedef enum {
  QUANT_MEDIAN,
  QUANT_QUANTILE,
  QUANT_PERCENTILE,
  QUANT_NANMEDIAN,
  QUANT_NANQUANTILE,
  QUANT_NANPERCENTILE
} tsr_quant_kind;

/* sort(a, axis=-1): ascending along axis (None: flattened), NaN last. */
int tsr_b_sort(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a,
               tsr_value *out);
/* median(a, axis=None, keepdims=False), quantile(a, q, axis=None,
 * keepdims=False), percentile(...) and their nan-variants: def->code a
 * tsr_quant_kind. */
int tsr_b_quantile(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a,
                   tsr_value *out);

#endif
