/*
 * ops_scan.c - scans and differences (ops_scan.h). A scan is a row of
 * (binary function, identity, NaN read as the identity), dask's
 * cumreduction(func, binop, ident): a new running function is a row here
 * and nothing else. The scans are computed whole and kept distributed
 * (exec/scan.c); diff is composed of slices and subtraction.
 */
#include "eval/ops_scan.h"

#include "kernel/dtype_names.h"
#include "util/error.h"

static const struct {
  int op;
  double identity;
  int nan;
} scans[] = {
    [SCAN_CUMSUM] = {EW_ADD, 0.0, 0},
    [SCAN_CUMPROD] = {EW_MUL, 1.0, 0},
    [SCAN_NANCUMSUM] = {EW_ADD, 0.0, 1},
    [SCAN_NANCUMPROD] = {EW_MUL, 1.0, 1},
};

int tsr_b_scan(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a,
               tsr_value *out) {
  tsr_node *x, *n;
  int axis = -1;
  TSR_CHECK(tsr_as_array(c, &a->v[0], a->at[0], TSR_F64, &x));
  TSR_CHECK(tsr_arg_axis(c, a, 1, x->grid.ndim, &axis));
  tsr_dtype dt = tsr_dtype_sum_of(x->dtype);
  if (a->given[2] && a->v[2].kind != V_NONE) { /* accumulate in dtype, as NumPy */
    TSR_CHECK(tsr_arg_dtype(c, a, 2, &dt));
    TSR_CHECK(tsr_ctx_relocate(c, call, tsr_node_astype(x, dt, &x)));
  }
  TSR_CHECK(tsr_ctx_relocate(c, call,
                             tsr_node_scan(scans[def->code].op, scans[def->code].identity,
                                           scans[def->code].nan, x, axis, dt, &n)));
  tsr_set_array(out, n);
  return TSR_OK;
}

#define DIFF_HOLD 3

/* x[lo : lo + len] along axis. */
static int slice_axis(tsr_node *x, int axis, int64_t lo, int64_t len, tsr_node **out) {
  tsr_axis_sel sel[TSR_MAXDIM];
  for (int d = 0; d < x->grid.ndim; d++)
    sel[d] = d == axis ? (tsr_axis_sel){TSR_SEL_SLICE, lo, 1, len, 0}
                       : (tsr_axis_sel){TSR_SEL_SLICE, 0, 1, x->grid.shape[d], 0};
  return tsr_node_select(x, sel, x->grid.ndim, out);
}

/* One difference along axis: x[1:] - x[:-1]; for bool, x[1:] != x[:-1]. */
static int diff_once(tsr_node *x, int axis, tsr_node **out) {
  int64_t len = x->grid.shape[axis] > 0 ? x->grid.shape[axis] - 1 : 0;
  tsr_node *hi, *lo;
  TSR_CHECK(slice_axis(x, axis, len ? 1 : 0, len, &hi));
  TSR_CHECK(slice_axis(x, axis, 0, len, &lo));
  if (x->dtype != TSR_BOOL) return tsr_node_binary(EW_SUB, hi, lo, out);
  tsr_node *d;
  TSR_CHECK(tsr_node_astype(hi, TSR_I8, &hi));
  TSR_CHECK(tsr_node_astype(lo, TSR_I8, &lo));
  TSR_CHECK(tsr_node_binary(EW_SUB, hi, lo, &d));
  return tsr_node_astype(d, TSR_BOOL, out);
}

int tsr_b_diff(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a,
               tsr_value *out) {
  (void)def;
  tsr_node *x;
  long long times = 1, ax = -1;
  TSR_CHECK(tsr_as_array(c, &a->v[0], a->at[0], TSR_F64, &x));
  if (x->grid.ndim == 0)
    return tsr_ctx_error(c, a->at[0], TSR_ERR_VALUE,
                         "diff requires input that is at least one dimensional");
  if (a->given[1]) TSR_CHECK(tsr_arg_int(c, a, 1, "n", &times));
  if (times < 0)
    return tsr_ctx_error(c, a->at[1], TSR_ERR_VALUE, "order must be non-negative but got %lld",
                         times);
  if (a->given[2]) TSR_CHECK(tsr_arg_int(c, a, 2, "axis", &ax));
  int ndim = x->grid.ndim;
  if (ax < -ndim || ax >= ndim)
    return tsr_ctx_error(c, a->at[2], TSR_ERR_INDEX,
                         "axis %lld is out of bounds for array of dimension %d", ax, ndim);
  int axis = (int)(ax < 0 ? ax + ndim : ax);
  long long len = x->grid.shape[axis]; /* diffs past the length leave it empty */
  for (long long k = 0; k < times && k < len; k++) {
    /* a program reads 2^k boxes of the array k differences back: every
     * DIFF_HOLD differences are held, so high orders stay linear */
    if (k && k % DIFF_HOLD == 0) TSR_CHECK(tsr_node_persist(x, "diff()", &x));
    TSR_CHECK(tsr_ctx_relocate(c, call, diff_once(x, axis, &x)));
  }
  tsr_set_array(out, x);
  return TSR_OK;
}
