/*
 * ops_norm.c - norm(x, ord=None, axis=None, keepdims=False) (ops_norm.h):
 * NumPy's numpy.linalg.norm composed of reductions. Vector norms along one
 * axis (or of a 1-d array): 2 and None the root of the sum of squares, 1,
 * inf, -inf, 0 and any other p; matrix norms over two axes: "fro" and None,
 * 1, -1, inf, -inf from sums and extremes, "nuc", 2 and -2 from the
 * singular values (a 2-d tall-skinny array: svd's rule). Integer and bool
 * inputs are float64 first, as NumPy's. Sums are tessera's, so values equal
 * NumPy's within rounding (NumPy's None norm is a BLAS dot).
 */
#include "eval/ops_norm.h"

#include <math.h>
#include <string.h>

#include "eval/ops.h"
#include "util/error.h"

static int red(int kind, tsr_node *x, int axis, int keepdims, tsr_node **out) {
  return tsr_node_reduce(kind, x, axis, keepdims, 0, out);
}

static int unary(int op, tsr_node *x, tsr_node **out) { return tsr_node_unary(op, x, out); }

/* The vector norm of order p along axis (-1: all of a 1-d x). */
static int vector_norm(tsr_node *x, int has_ord, double p, int axis, int keepdims, tsr_node **out) {
  tsr_node *t;
  if (!has_ord || p == 2) { /* sqrt(sum(x * x)) */
    TSR_CHECK(tsr_node_binary(EW_MUL, x, x, &t));
    TSR_CHECK(red(RED_SUM, t, axis, keepdims, &t));
    return unary(EW_SQRT, t, out);
  }
  TSR_CHECK(unary(EW_ABS, x, &t));
  if (isinf(p)) return red(p > 0 ? RED_MAX : RED_MIN, t, axis, keepdims, out);
  if (p == 0) { /* the count of nonzero elements, in x's type */
    TSR_CHECK(tsr_node_op_number(EW_NOT_EQUAL, x, 0.0, &t));
    TSR_CHECK(tsr_node_astype(t, x->dtype, &t));
    return red(RED_SUM, t, axis, keepdims, out);
  }
  if (p == 1) return red(RED_SUM, t, axis, keepdims, out);
  TSR_CHECK(tsr_node_op_number(EW_POW, t, p, &t));
  TSR_CHECK(red(RED_SUM, t, axis, keepdims, &t));
  return tsr_node_op_number(EW_POW, t, 1.0 / p, out);
}

/* Reduces axes r and c (r != c) of x by kind, keepdims as NumPy's. */
static int red2(int kind, tsr_node *x, int r, int c, int keepdims, tsr_node **out) {
  int hi = r > c ? r : c, lo = r > c ? c : r;
  TSR_CHECK(red(kind, x, hi, keepdims, &x));
  return red(kind, x, lo, keepdims, out);
}

enum { ORD_NONE, ORD_NUMBER, ORD_FRO, ORD_NUC };

static int matrix_norm(tsr_ctx *c, const ast_node *call, tsr_node *x, int ord, double p, int r,
                       int col, int keepdims, tsr_node **out) {
  tsr_node *t;
  if (ord == ORD_NONE || ord == ORD_FRO) {
    TSR_CHECK(tsr_node_binary(EW_MUL, x, x, &t));
    TSR_CHECK(red2(RED_SUM, t, r, col, keepdims, &t));
    return unary(EW_SQRT, t, out);
  }
  if (ord == ORD_NUC || p == 2 || p == -2) { /* the singular values of a 2-d x */
    if (x->grid.ndim != 2 || keepdims)
      return tsr_ctx_error(c, call, TSR_ERR_VALUE,
                           "norm 'nuc', 2 and -2 take a 2-d array over both axes (no keepdims)");
    TSR_CHECK(tsr_node_one_chunk(x, 2u, &x)); /* svd's one column of chunks */
    const tsr_op_def *svd = tsr_op_find("svd", 0);
    tsr_args sa;
    tsr_value u;
    memset(&sa, 0, sizeof sa);
    sa.v[0].kind = V_ARRAY, sa.v[0].arr = x, sa.given[0] = 1, sa.at[0] = call;
    TSR_CHECK(svd->fn(c, call, svd, &sa, &u));
    tsr_node *s = u.items[1].arr;
    return red(ord == ORD_NUC ? RED_SUM : p > 0 ? RED_MAX : RED_MIN, s, -1, 0, out);
  }
  if (p != 1 && p != -1 && !isinf(p))
    return tsr_ctx_error(c, call, TSR_ERR_VALUE, "Invalid norm order for matrices.");
  TSR_CHECK(unary(EW_ABS, x, &t));
  int sum_axis = isinf(p) ? col : r, ext_axis = isinf(p) ? r : col;
  TSR_CHECK(red(RED_SUM, t, sum_axis, keepdims, &t));
  if (!keepdims && ext_axis > sum_axis) ext_axis--;
  return red(p > 0 ? RED_MAX : RED_MIN, t, ext_axis, keepdims, out);
}

int tsr_b_norm(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a,
               tsr_value *out) {
  (void)def;
  tsr_node *x;
  TSR_CHECK(tsr_as_array(c, &a->v[0], a->at[0], tsr_value_dtype(&a->v[0]), &x));
  if (x->dtype != TSR_F64 && x->dtype != TSR_F32)
    TSR_CHECK(tsr_ctx_relocate(c, call, tsr_node_astype(x, TSR_F64, &x)));
  int ord = ORD_NONE, nd = x->grid.ndim, keepdims = 0;
  double p = 0;
  if (a->given[1] && a->v[1].kind != V_NONE) {
    const tsr_value *o = &a->v[1];
    if (o->kind == V_STR && !strcmp(o->s, "fro"))
      ord = ORD_FRO;
    else if (o->kind == V_STR && !strcmp(o->s, "nuc"))
      ord = ORD_NUC;
    else if (tsr_value_is_number(o))
      ord = ORD_NUMBER, p = tsr_value_number(o);
    else
      return tsr_ctx_error(c, a->at[1], TSR_ERR_VALUE,
                           "Invalid norm order '%s' (a number, inf, \"fro\" or \"nuc\")",
                           o->kind == V_STR ? o->s : tsr_value_type_name(o));
  }
  if (a->given[3]) {
    long long k;
    TSR_CHECK(tsr_arg_int(c, a, 3, "keepdims", &k));
    keepdims = k != 0;
  }
  int axes[2], nax = 0;
  if (!a->given[2] || a->v[2].kind == V_NONE) {
    if (ord != ORD_NONE && nd != 1 && nd != 2)
      return tsr_ctx_error(c, a->at[0], TSR_ERR_VALUE, "Improper number of dimensions to norm.");
    if (ord == ORD_NONE) { /* the whole array as one vector */
      tsr_node *r;
      TSR_CHECK(tsr_ctx_relocate(c, call, vector_norm(x, 0, 0, -1, 0, &r)));
      if (keepdims && nd > 0) { /* every axis kept, of length 1 */
        int64_t ones[TSR_MAXDIM];
        for (int d = 0; d < nd; d++) ones[d] = 1;
        TSR_CHECK(tsr_ctx_relocate(c, call, tsr_node_reshape(r, nd, ones, &r)));
      }
      tsr_set_array(out, r);
      return TSR_OK;
    }
    for (int d = 0; d < nd; d++) axes[nax++] = d;
  } else {
    const tsr_value *ax = &a->v[2];
    int n = ax->kind == V_TUPLE ? ax->nitems : 1;
    if (n < 1 || n > 2)
      return tsr_ctx_error(c, a->at[2], TSR_ERR_VALUE, "Improper number of dimensions to norm.");
    for (int k = 0; k < n; k++) {
      const tsr_value *e = ax->kind == V_TUPLE ? &ax->items[k] : ax;
      if (e->kind != V_INT)
        return tsr_ctx_error(c, a->at[2], TSR_ERR_TYPE,
                             "'axis' must be None, an integer or a tuple of integers");
      TSR_CHECK(tsr_axis_index(c, a->at[2], e->i, nd, "axis", &axes[nax++]));
    }
    if (nax == 2 && axes[0] == axes[1])
      return tsr_ctx_error(c, a->at[2], TSR_ERR_VALUE, "Duplicate axes given.");
  }
  tsr_node *r;
  if (nax == 1) {
    if (ord == ORD_FRO || ord == ORD_NUC)
      return tsr_ctx_error(c, a->at[1], TSR_ERR_VALUE, "Invalid norm order '%s' for vectors",
                           ord == ORD_FRO ? "fro" : "nuc");
    TSR_CHECK(tsr_ctx_relocate(
        c, call,
        vector_norm(x, ord == ORD_NUMBER, p, nd == 1 && !keepdims ? -1 : axes[0], keepdims, &r)));
  } else {
    TSR_CHECK(
        tsr_ctx_relocate(c, call, matrix_norm(c, call, x, ord, p, axes[0], axes[1], keepdims, &r)));
  }
  tsr_set_array(out, r);
  return TSR_OK;
}
