/*
 * ops_stats.c - NumPy's statistics that are compositions of the reductions
 * of ops_array.c: ptp (max - min) and average (mean, or the weighted sum
 * over the sum of the weights, NumPy's formula). Their table lines are in
 * ops.c.
 */
#include "eval/ops_stats.h"

#include <math.h>
#include <string.h>

#include "kernel/dtype.h"
#include "kernel/dtype_names.h"
#include "kernel/stats_merge.h"
#include "util/error.h"

/* ---- reductions over several axes ------------------------------------------ */

/* The number of elements a reduction over the axes of mask takes in. */
static int64_t axes_len(const tsr_node *x, unsigned mask) {
  int64_t n = 1;
  for (int d = 0; d < x->grid.ndim; d++)
    if (mask & (1u << d)) n *= x->grid.shape[d];
  return n;
}

int tsr_reduce_axes(int kind, tsr_node *x, int axis, unsigned mask, int keep, int ddof,
                    tsr_node **out) {
  if (axis != TSR_AXES_SET) return tsr_node_reduce(kind, x, axis, keep, ddof, out);
  int nd = x->grid.ndim, m = tsr_red_monoid(kind);
  if (!mask) { /* no axis: the reduction of each element alone, over a new axis of length 1 */
    tsr_axis_sel sel[TSR_MAXDIM + 1];
    tsr_node *y;
    sel[0] = (tsr_axis_sel){TSR_SEL_NEWAXIS, 0, 0, 0, 0};
    for (int d = 0; d < nd; d++)
      sel[d + 1] = (tsr_axis_sel){TSR_SEL_SLICE, 0, 1, x->grid.shape[d], 0};
    TSR_CHECK(tsr_node_select(x, sel, nd + 1, &y));
    return tsr_node_reduce(kind, y, 0, 0, ddof, out);
  }
  tsr_dtype ft = tsr_dtype_is_float(x->dtype) ? x->dtype : TSR_F64; /* NumPy's mean type */
  int64_t n = axes_len(x, mask);
  tsr_node *f, *r;
  switch (m) {
  case RM_MEAN: /* NumPy's _mean: the sum in the mean's type over the count */
    TSR_CHECK(tsr_node_astype(x, ft, &f));
    TSR_CHECK(tsr_reduce_axes(RED_SUM, f, axis, mask, keep, 0, &r));
    return tsr_node_op_number(EW_DIV, r, (double)n, out);
  case RM_MOMENTS: { /* NumPy's _var: d = x - mean, sum(d * d) / max(n - ddof, 0) */
    tsr_node *mu, *d;
    TSR_CHECK(tsr_node_astype(x, ft, &f));
    TSR_CHECK(tsr_reduce_axes(RED_MEAN, x, axis, mask, 1, 0, &mu));
    TSR_CHECK(tsr_node_binary(EW_SUB, f, mu, &d));
    TSR_CHECK(tsr_node_binary(EW_MUL, d, d, &d));
    TSR_CHECK(tsr_reduce_axes(RED_SUM, d, axis, mask, keep, 0, &r));
    TSR_CHECK(tsr_node_op_number(EW_DIV, r, n - ddof > 0 ? (double)(n - ddof) : 0.0, &r));
    if (tsr_red_flags(kind) & RF_STD) return tsr_node_unary(EW_SQRT, r, out);
    *out = r;
    return TSR_OK;
  }
  case RM_ARGMAX:
  case RM_ARGMIN:
    return TSR_ERROR(TSR_ERR_INTERNAL, "%s over several axes", tsr_red_name(kind));
  }
  /* an associative monoid: one axis at a time from the last, so the axes
   * still to reduce keep their numbers; the later steps merge partials
   * (counts and sums add, nanprod's NaN are gone and its inf * 0 stays NaN) */
  int next = m == RM_COUNT || m == RM_ADD ? RED_SUM : m == RM_MUL ? RED_PROD : kind;
  r = x;
  for (int d = nd - 1, first = 1; d >= 0; d--)
    if (mask & (1u << d)) {
      TSR_CHECK(tsr_node_reduce(first ? kind : next, r, d, keep, 0, &r));
      first = 0;
    }
  *out = r;
  return TSR_OK;
}

/* The axis (-1: all, one, or TSR_AXES_SET with the axes in mask) of a
 * reduction of x at argument i, and keepdims at k. */
static int reduce_args(tsr_ctx *c, tsr_args *a, tsr_node *x, int i, int k, int *axis,
                       unsigned *mask, int *keep) {
  long long kd = 0;
  if (a->given[k]) TSR_CHECK(tsr_arg_int(c, a, k, "keepdims", &kd));
  TSR_CHECK(tsr_arg_axes(c, a, i, x->grid.ndim, axis, mask));
  *keep = kd != 0;
  if (*axis >= 0 && x->grid.ndim == 1 && !*keep)
    *axis = -1; /* a 1-d axis reduction is a full one */
  return TSR_OK;
}

/* ptp(a, axis=None, keepdims=False): max - min. */
int tsr_b_ptp(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a,
              tsr_value *out) {
  (void)def;
  if (tsr_value_is_number(&a->v[0]) && (!a->given[1] || a->v[1].kind == V_NONE)) {
    double v = tsr_value_number(&a->v[0]);
    tsr_set_float(out, v - v);
    return TSR_OK;
  }
  tsr_node *x, *hi, *lo, *n;
  int axis, keep;
  unsigned mask;
  TSR_CHECK(tsr_as_array(c, &a->v[0], a->at[0], TSR_F64, &x));
  TSR_CHECK(reduce_args(c, a, x, 1, 2, &axis, &mask, &keep));
  if (axes_len(x, mask) == 0)
    return tsr_ctx_error(c, call, TSR_ERR_VALUE,
                         "zero-size array to reduction operation maximum which has no identity");
  TSR_CHECK(tsr_ctx_relocate(c, call, tsr_reduce_axes(RED_MAX, x, axis, mask, keep, 0, &hi)));
  TSR_CHECK(tsr_ctx_relocate(c, call, tsr_reduce_axes(RED_MIN, x, axis, mask, keep, 0, &lo)));
  TSR_CHECK(tsr_ctx_relocate(c, call, tsr_node_binary(EW_SUB, hi, lo, &n)));
  tsr_set_array(out, n);
  return TSR_OK;
}

/* w (1-d, the length of x's axis) shaped to broadcast along that axis. */
static int along_axis(tsr_ctx *c, const ast_node *at, tsr_node *w, const tsr_node *x, int axis,
                      tsr_node **out) {
  if (w->grid.ndim != 1 || w->grid.shape[0] != x->grid.shape[axis])
    return tsr_ctx_error(c, at, TSR_ERR_SHAPE,
                         "length of weights (%lld) differs from that of axis %d (%lld)",
                         (long long)(w->grid.ndim == 1 ? w->grid.shape[0] : -1), axis,
                         (long long)x->grid.shape[axis]);
  tsr_axis_sel sel[TSR_MAXDIM];
  for (int d = 0; d < x->grid.ndim; d++)
    sel[d] = d == axis ? (tsr_axis_sel){TSR_SEL_SLICE, 0, 1, w->grid.shape[0], 0}
                       : (tsr_axis_sel){TSR_SEL_NEWAXIS, 0, 0, 0, 0};
  return tsr_node_select(w, sel, x->grid.ndim, out);
}

static int same_shape(const tsr_node *x, const tsr_node *w) {
  if (x->grid.ndim != w->grid.ndim) return 0;
  for (int d = 0; d < x->grid.ndim; d++)
    if (x->grid.shape[d] != w->grid.shape[d]) return 0;
  return 1;
}

/* average(a, axis=None, weights=None, keepdims=False): mean without weights;
 * with them NumPy's sum(a * w, axis) / sum(w, axis), w of a's shape or 1-d
 * along axis. */
int tsr_b_average(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a,
                  tsr_value *out) {
  (void)def;
  int weighted = a->given[2] && a->v[2].kind != V_NONE;
  if (tsr_value_is_number(&a->v[0]) && !weighted && (!a->given[1] || a->v[1].kind == V_NONE)) {
    tsr_set_float(out, tsr_value_number(&a->v[0]));
    return TSR_OK;
  }
  tsr_node *x, *w, *num, *den, *n;
  int axis, keep;
  unsigned mask;
  TSR_CHECK(tsr_as_array(c, &a->v[0], a->at[0], TSR_F64, &x));
  TSR_CHECK(reduce_args(c, a, x, 1, 3, &axis, &mask, &keep));
  if (!weighted) {
    TSR_CHECK(tsr_ctx_relocate(c, call, tsr_reduce_axes(RED_MEAN, x, axis, mask, keep, 0, &n)));
    tsr_set_array(out, n);
    return TSR_OK;
  }
  TSR_CHECK(tsr_arg_array(c, a, 2, "weights", &w));
  if (!same_shape(x, w)) {
    if (a->v[1].kind == V_TUPLE && x->grid.ndim > 1)
      return tsr_ctx_error(c, a->at[2], TSR_ERR_SHAPE,
                           "weights must have a's shape when axis is a tuple");
    if (axis < 0 && !(x->grid.ndim == 1 && a->given[1] && a->v[1].kind != V_NONE))
      return tsr_ctx_error(c, a->at[2], TSR_ERR_SHAPE,
                           "axis must be specified when shapes of a and weights differ");
    int ax = axis < 0 ? 0 : axis;
    TSR_CHECK(along_axis(c, a->at[2], w, x, ax, &w));
  }
  TSR_CHECK(tsr_ctx_relocate(c, call, tsr_node_binary(EW_MUL, x, w, &num)));
  TSR_CHECK(tsr_ctx_relocate(c, call, tsr_reduce_axes(RED_SUM, num, axis, mask, keep, 0, &num)));
  TSR_CHECK(tsr_ctx_relocate(c, call, tsr_reduce_axes(RED_SUM, w, axis, mask, keep, 0, &den)));
  TSR_CHECK(tsr_ctx_relocate(c, call, tsr_node_binary(EW_DIV, num, den, &n)));
  tsr_set_array(out, n);
  return TSR_OK;
}

/* ---- NaN-skipping reductions ------------------------------------------------ */

/* 1 where g > 0, else NaN: g / g for g = greater(x, 0) (a factor that keeps
 * a value or makes it NaN, as NumPy's all-NaN slices and dof <= 0 are). */
static int nan_unless_positive(tsr_node *x, tsr_node **out) {
  tsr_node *g;
  TSR_CHECK(tsr_node_op_number(EW_GREATER, x, 0.0, &g));
  TSR_CHECK(tsr_node_astype(g, tsr_dtype_float_of(x->dtype), &g));
  return tsr_node_binary(EW_DIV, g, g, out);
}

/* sum((nanzero(x) - mean) * notnan(x))**2 / (count - ddof), NaN where
 * count - ddof <= 0: nanvar's steps. The mean divides by max(count, 1): a
 * slice with no value then has mean 0 and deviations 0, so its variance is
 * 0 where count - ddof > 0 (ddof < 0), as NumPy's. */
static int nan_moments(tsr_node *x, tsr_node *z, tsr_node *m, int axis, unsigned mask, int keep,
                       int ddof, tsr_node *cnt, tsr_node **out) {
  tsr_node *sk, *ck, *avg, *d, *sq, *ss, *dof, *ok, *v;
  TSR_CHECK(tsr_reduce_axes(RED_SUM, z, axis, mask, 1, 0, &sk));
  TSR_CHECK(tsr_reduce_axes(RED_SUM, m, axis, mask, 1, 0, &ck));
  TSR_CHECK(tsr_node_op_number(EW_FMAX, ck, 1.0, &ck));
  TSR_CHECK(tsr_node_binary(EW_DIV, sk, ck, &avg));
  TSR_CHECK(tsr_node_binary(EW_SUB, z, avg, &d));
  TSR_CHECK(tsr_node_binary(EW_MUL, d, m, &d));
  TSR_CHECK(tsr_node_binary(EW_MUL, d, d, &sq));
  TSR_CHECK(tsr_reduce_axes(RED_SUM, sq, axis, mask, keep, 0, &ss));
  TSR_CHECK(tsr_node_op_number(EW_SUB, cnt, (double)ddof, &dof));
  TSR_CHECK(nan_unless_positive(dof, &ok));
  TSR_CHECK(tsr_node_binary(EW_DIV, ss, dof, &v));
  TSR_CHECK(tsr_node_binary(EW_MUL, v, ok, out));
  (void)x;
  return TSR_OK;
}

static int nan_reduce(int kind, tsr_node *x, int axis, unsigned mask, int keep, int ddof,
                      tsr_node **out) {
  tsr_node *z, *m, *cnt, *r, *e;
  TSR_CHECK(tsr_node_unary(EW_NANZERO, x, &z));
  TSR_CHECK(tsr_node_unary(EW_NOTNAN, x, &m));
  TSR_CHECK(tsr_reduce_axes(RED_SUM, m, axis, mask, keep, 0, &cnt));
  switch (kind) {
  case RED_SUM:
    return tsr_reduce_axes(RED_SUM, z, axis, mask, keep, 0, out);
  case RED_MEAN:
    TSR_CHECK(tsr_reduce_axes(RED_SUM, z, axis, mask, keep, 0, &r));
    return tsr_node_binary(EW_DIV, r, cnt, out);
  case RED_MIN:
  case RED_MAX: /* fmin(x, inf) is x but NaN's inf; an all-NaN slice is NaN */
    if (!tsr_dtype_is_float(x->dtype)) /* no NaN: NumPy's fmin.reduce keeps the type */
      return tsr_reduce_axes(kind, x, axis, mask, keep, 0, out);
    TSR_CHECK(tsr_node_op_number(kind == RED_MIN ? EW_FMIN : EW_FMAX, x,
                                 kind == RED_MIN ? INFINITY : -INFINITY, &e));
    TSR_CHECK(tsr_reduce_axes(kind, e, axis, mask, keep, 0, &r));
    TSR_CHECK(tsr_node_binary(EW_DIV, cnt, cnt, &cnt));
    return tsr_node_binary(EW_MUL, r, cnt, out);
  case RED_VAR:
    return nan_moments(x, z, m, axis, mask, keep, ddof, cnt, out);
  case RED_STD:
    TSR_CHECK(nan_moments(x, z, m, axis, mask, keep, ddof, cnt, &r));
    return tsr_node_unary(EW_SQRT, r, out);
  }
  return TSR_ERROR(TSR_ERR_INTERNAL, "nan-reduction of kind %d", kind);
}

/* A number: NaN counts as no element. */
static double nan_reduce_number(int kind, double x, long long ddof) {
  int n = x == x;
  if (kind == RED_SUM) return n ? x : 0.0;
  if (kind == RED_VAR || kind == RED_STD) return n - ddof > 0 ? 0.0 : NAN;
  return n ? x : NAN;
}

/* nansum, nanmean, nanmin, nanmax (a, axis=None, keepdims=False) and nanvar,
 * nanstd (..., ddof=0): def->code the reduction kind. */
int tsr_b_nanreduce(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a,
                    tsr_value *out) {
  long long ddof = 0;
  int moments = def->code == RED_VAR || def->code == RED_STD;
  if (moments && a->given[3]) TSR_CHECK(tsr_arg_int(c, a, 3, "ddof", &ddof));
  if (tsr_value_is_number(&a->v[0]) && (!a->given[1] || a->v[1].kind == V_NONE)) {
    tsr_set_float(out, nan_reduce_number(def->code, tsr_value_number(&a->v[0]), ddof));
    return TSR_OK;
  }
  tsr_node *x, *n;
  int axis, keep;
  unsigned mask;
  TSR_CHECK(tsr_as_array(c, &a->v[0], a->at[0], TSR_F64, &x));
  TSR_CHECK(reduce_args(c, a, x, 1, 2, &axis, &mask, &keep));
  if ((def->code == RED_MIN || def->code == RED_MAX) && axes_len(x, mask) == 0)
    return tsr_ctx_error(c, call, TSR_ERR_VALUE,
                         "zero-size array to reduction operation %s which has no identity",
                         def->code == RED_MIN ? "fmin" : "fmax");
  TSR_CHECK(tsr_ctx_relocate(c, call, nan_reduce(def->code, x, axis, mask, keep, (int)ddof, &n)));
  tsr_set_array(out, n);
  return TSR_OK;
}
