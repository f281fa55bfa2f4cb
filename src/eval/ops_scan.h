/*
 * ops_scan.h - scans and differences (ops_scan.c): cumsum, cumprod,
 * nancumsum, nancumprod (N_SCAN nodes, one row each of a table of
 * (binary function, identity, NaN as identity)) and diff, composed of
 * slices and subtraction. Their table lines are in ops.c.
 */
#ifndef TSR_OPS_SCAN_H
#define TSR_OPS_SCAN_H

#include "eval/builtin.h"

/* The scans of ops.c's lines (def->code). */
typedef enum { SCAN_CUMSUM, SCAN_CUMPROD, SCAN_NANCUMSUM, SCAN_NANCUMPROD } tsr_scan_kind;

/* cumsum(a, axis=None, dtype=None) ... : def->code a tsr_scan_kind. */
int tsr_b_scan(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a,
               tsr_value *out);
/* diff(a, n=1, axis=-1): a[1:] - a[:-1] along axis, n times. */
int tsr_b_diff(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a,
               tsr_value *out);

#endif
