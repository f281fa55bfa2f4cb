/*
 * ops_logic.c - NumPy's selection and comparison functions composed of the
 * elementwise rows (kernel/ew_table.h), so they fuse into the same
 * programs: where(condition, x, y), isclose, allclose, isin against a small
 * constant set, nan_to_num. Their table lines are in ops.c.
 */
#include "eval/ops_logic.h"

#include "eval/ops_mask.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "eval/ops_array.h"
#include "kernel/dtype.h"
#include "kernel/dtype_names.h"
#include "util/error.h"

static int given(const tsr_args *a, int i) { return a->given[i] && a->v[i].kind != V_NONE; }

/* where(condition, x, y): x where condition is true (nonzero, NaN too),
 * else y; the three broadcast, the type is x's and y's promoted (a Python
 * number is weak beside an array). */
int tsr_b_where(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a,
                tsr_value *out) {
  (void)def;
  if (!a->given[1] && !a->given[2]) { /* NumPy's nonzero(condition) */
    tsr_node *cond;
    TSR_CHECK(tsr_as_array(c, &a->v[0], a->at[0], TSR_BOOL, &cond));
    return tsr_mask_where(c, call, cond, out);
  }
  if (!a->given[1] || !a->given[2])
    return tsr_ctx_error(c, call, TSR_ERR_VALUE,
                         "either both or neither of x and y should be given");
  const tsr_value *x = &a->v[1], *y = &a->v[2];
  tsr_dtype like = x->kind == V_ARRAY   ? x->arr->dtype
                   : y->kind == V_ARRAY ? y->arr->dtype
                                        : tsr_dtype_promote(tsr_value_dtype(x), tsr_value_dtype(y));
  tsr_node *cond, *nx, *ny, *n;
  TSR_CHECK(tsr_as_array(c, &a->v[0], a->at[0], TSR_BOOL, &cond));
  TSR_CHECK(tsr_weak_operand(c, x, a->at[1], like, EW_ADD, &nx));
  TSR_CHECK(tsr_weak_operand(c, y, a->at[2], like, EW_ADD, &ny));
  TSR_CHECK(tsr_ctx_relocate(c, call, tsr_node_where(cond, nx, ny, &n)));
  tsr_set_array(out, n);
  return TSR_OK;
}

/* x as an array of floating type (NumPy's isclose computes in the type of
 * y + 1.0): integers and bool as float64. */
static int floating(tsr_ctx *c, const tsr_value *v, const ast_node *at, tsr_node **out) {
  TSR_CHECK(tsr_as_array(c, v, at, TSR_F64, out));
  if (!tsr_dtype_is_float((*out)->dtype)) TSR_CHECK(tsr_node_astype(*out, TSR_F64, out));
  return TSR_OK;
}

/* NumPy's isclose: where both are finite |a - b| <= atol + rtol * |b|,
 * elsewhere a == b (equal infinities), and NaN with NaN when equal_nan. */
static int isclose(tsr_ctx *c, const ast_node *call, tsr_args *a, tsr_node **out) {
  double rtol = 1e-5, atol = 1e-8;
  long long equal_nan = 0;
  if (given(a, 2)) TSR_CHECK(tsr_arg_number(c, a, 2, "rtol", &rtol));
  if (given(a, 3)) TSR_CHECK(tsr_arg_number(c, a, 3, "atol", &atol));
  if (given(a, 4)) TSR_CHECK(tsr_arg_int(c, a, 4, "equal_nan", &equal_nan));
  tsr_node *x, *y, *fx, *fy, *finite, *d, *tol, *ay, *near, *eq, *r;
  TSR_CHECK(floating(c, &a->v[0], a->at[0], &x));
  TSR_CHECK(floating(c, &a->v[1], a->at[1], &y));
  int st = TSR_OK;
  st = st ? st : tsr_node_unary(EW_ISFINITE, x, &fx);
  st = st ? st : tsr_node_unary(EW_ISFINITE, y, &fy);
  st = st ? st : tsr_node_binary(EW_LOGICAL_AND, fx, fy, &finite);
  st = st ? st : tsr_node_binary(EW_SUB, x, y, &d);
  st = st ? st : tsr_node_unary(EW_ABS, d, &d);
  st = st ? st : tsr_node_unary(EW_ABS, y, &ay);
  st = st ? st : tsr_node_op_number(EW_MUL, ay, rtol, &tol);
  st = st ? st : tsr_number_op_node(EW_ADD, atol, tol, &tol);
  st = st ? st : tsr_node_binary(EW_LESS_EQUAL, d, tol, &near);
  st = st ? st : tsr_node_binary(EW_EQUAL, x, y, &eq);
  st = st ? st : tsr_node_where(finite, near, eq, &r);
  if (st == TSR_OK && equal_nan) {
    tsr_node *nx, *ny, *both;
    st = st ? st : tsr_node_unary(EW_ISNAN, x, &nx);
    st = st ? st : tsr_node_unary(EW_ISNAN, y, &ny);
    st = st ? st : tsr_node_binary(EW_LOGICAL_AND, nx, ny, &both);
    st = st ? st : tsr_node_binary(EW_LOGICAL_OR, r, both, &r);
  }
  TSR_CHECK(tsr_ctx_relocate(c, call, st));
  *out = r;
  return TSR_OK;
}

int tsr_b_isclose(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a,
                  tsr_value *out) {
  tsr_node *r;
  TSR_CHECK(isclose(c, call, a, &r));
  if (def->code) { /* allclose: no element is not close (True for empty arrays) */
    tsr_node *far, *count;
    int st = tsr_node_unary(EW_LOGICAL_NOT, r, &far);
    st = st ? st : tsr_node_reduce(RED_SUM, far, -1, 0, 0, &count);
    st = st ? st : tsr_node_op_number(EW_EQUAL, count, 0.0, &r);
    TSR_CHECK(tsr_ctx_relocate(c, call, st));
  }
  tsr_set_array(out, r);
  return TSR_OK;
}

static int cmp_double(const void *pa, const void *pb) {
  double a = *(const double *)pa, b = *(const double *)pb;
  return a < b ? -1 : a > b;
}

/* The values of the array v, computed now (tsr_eager_values), as a tuple of
 * numbers in *out; distinct: sorted, each once, NaN left out (isin's test
 * set: NaN is in no set). At most max values. */
static int array_numbers(tsr_ctx *c, const ast_node *at, const tsr_value *v, int64_t max,
                         const char *fn, int distinct, tsr_value *out) {
  const double *vals;
  int64_t n = tsr_node_size(v->arr);
  TSR_CHECK(tsr_eager_values(c, at, v->arr, distinct ? 1 << 20 : max, fn, &vals));
  double *t;
  TSR_CHECK(tsr_ctx_alloc(c, sizeof(double) * (size_t)(n + 1), (void **)&t));
  int64_t k = 0;
  for (int64_t i = 0; i < n; i++)
    if (!distinct || vals[i] == vals[i]) t[k++] = vals[i];
  if (distinct) {
    qsort(t, (size_t)k, sizeof *t, cmp_double);
    int64_t m = 0;
    for (int64_t i = 0; i < k; i++)
      if (m == 0 || t[i] != t[m - 1]) t[m++] = t[i];
    k = m;
  }
  if (k > max)
    return tsr_ctx_error(c, at, TSR_ERR_VALUE, "%s: at most %lld %svalues, got %lld", fn,
                         (long long)max, distinct ? "distinct " : "", (long long)k);
  memset(out, 0, sizeof *out);
  out->kind = V_TUPLE;
  out->nitems = (int)k;
  TSR_CHECK(tsr_ctx_alloc(c, sizeof(tsr_value) * (size_t)(k + 1), (void **)&out->items));
  for (int64_t i = 0; i < k; i++) tsr_set_float(&out->items[i], t[i]);
  return TSR_OK;
}

/* isin(element, test_elements, invert=False) against a number, a tuple
 * (list) of numbers or an array (its distinct values, at most 256, computed
 * while the job is read): element == t0 | element == t1 | ... */
int tsr_b_isin(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a,
               tsr_value *out) {
  (void)def;
  long long invert = 0;
  if (given(a, 2)) TSR_CHECK(tsr_arg_int(c, a, 2, "invert", &invert));
  const tsr_value *t = &a->v[1];
  tsr_value set;
  if (t->kind == V_ARRAY) {
    TSR_CHECK(array_numbers(c, a->at[1], t, 256, "isin", 1, &set));
    t = &set;
  }
  int n = t->kind == V_TUPLE ? t->nitems : 1;
  const tsr_value *items = t->kind == V_TUPLE ? t->items : t;
  for (int i = 0; i < n; i++)
    if (!tsr_value_is_number(&items[i]))
      return tsr_ctx_error(c, a->at[1], TSR_ERR_TYPE,
                           "isin: test_elements must be a number or a tuple or list of numbers "
                           "(a constant set), got %s",
                           tsr_value_type_name(&items[i]));
  tsr_node *x, *r = NULL;
  TSR_CHECK(tsr_as_array(c, &a->v[0], a->at[0], TSR_F64, &x));
  int st = TSR_OK;
  if (n == 0) { /* nothing is in the empty set */
    st = tsr_node_op_number(EW_NOT_EQUAL, x, NAN, &r);
    st = st ? st : tsr_node_unary(EW_LOGICAL_NOT, r, &r);
  }
  for (int i = 0; i < n && st == TSR_OK; i++) {
    tsr_node *s, *eq;
    st = tsr_as_array(c, &items[i], a->at[1], TSR_F64, &s);
    st = st ? st : tsr_node_binary(EW_EQUAL, x, s, &eq);
    if (st == TSR_OK) st = r ? tsr_node_binary(EW_LOGICAL_OR, r, eq, &r) : (r = eq, TSR_OK);
  }
  if (st == TSR_OK && invert) st = tsr_node_unary(EW_LOGICAL_NOT, r, &r);
  TSR_CHECK(tsr_ctx_relocate(c, call, st));
  tsr_set_array(out, r);
  return TSR_OK;
}

/* The number of the constants t[0..n-1] below x (t < x; or_equal: t <= x)
 * as int64, n for a NaN x (NumPy's sorts put NaN last): fused, one
 * comparison per constant. */
static int count_below(tsr_node *x, const double *t, int n, int or_equal, tsr_node **out) {
  tsr_node *r = NULL, *cmp;
  for (int k = 0; k < n; k++) {
    TSR_CHECK(tsr_number_op_node(or_equal ? EW_LESS_EQUAL : EW_LESS, t[k], x, &cmp));
    TSR_CHECK(tsr_node_astype(cmp, TSR_I64, &cmp));
    if (r)
      TSR_CHECK(tsr_node_binary(EW_ADD, r, cmp, &r));
    else
      r = cmp;
  }
  if (!r) { /* no constants: 0 everywhere */
    TSR_CHECK(tsr_node_op_number(EW_MUL, x, 0.0, &r));
    return tsr_node_astype(r, TSR_I64, out);
  }
  tsr_node *nan, *all;
  TSR_CHECK(tsr_node_unary(EW_ISNAN, x, &nan));
  TSR_CHECK(tsr_node_op_number(EW_MUL, r, 0.0, &all));
  TSR_CHECK(tsr_node_op_number(EW_ADD, all, (double)n, &all));
  return tsr_node_where(nan, all, r, out);
}

/* A constant sorted list (at most 256 numbers, no NaN) into t; *dir 1
 * for increasing, -1 for decreasing (either where n < 2). */
static int sorted_constants(tsr_ctx *c, const tsr_args *a, int i, const char *fn, double *t, int *n,
                            int *dir) {
  const tsr_value *v = &a->v[i];
  tsr_value arr;
  if (v->kind == V_ARRAY) { /* its values, computed now */
    if (v->arr->grid.ndim != 1)
      return tsr_ctx_error(c, a->at[i], TSR_ERR_VALUE, "%s: the sorted array must be 1-d", fn);
    TSR_CHECK(array_numbers(c, a->at[i], v, 256, fn, 0, &arr));
    v = &arr;
  }
  *n = v->kind == V_TUPLE ? v->nitems : 1;
  const tsr_value *items = v->kind == V_TUPLE ? v->items : v;
  if (*n > 256)
    return tsr_ctx_error(c, a->at[i], TSR_ERR_VALUE, "%s: at most 256 constants, got %d", fn, *n);
  int up = 1, down = 1;
  for (int k = 0; k < *n; k++) {
    if (!tsr_value_is_number(&items[k]))
      return tsr_ctx_error(c, a->at[i], TSR_ERR_TYPE,
                           "%s takes a list of numbers (a small sorted constant), got %s", fn,
                           tsr_value_type_name(&items[k]));
    t[k] = tsr_value_number(&items[k]);
    if (t[k] != t[k])
      return tsr_ctx_error(c, a->at[i], TSR_ERR_VALUE, "%s: NaN in the sorted list", fn);
    if (k) up &= t[k] >= t[k - 1], down &= t[k] <= t[k - 1];
  }
  if (!up && !down)
    return tsr_ctx_error(c, a->at[i], TSR_ERR_VALUE,
                         "bins must be monotonically increasing or decreasing");
  *dir = up ? 1 : -1;
  return TSR_OK;
}

/* digitize(x, bins, right=False) (def->code 0) and searchsorted(a, v,
 * side="left") (1), against a small constant: NumPy's indices, int64. */
int tsr_b_digitize(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a,
                   tsr_value *out) {
  double t[256];
  int n = 0, dir = 1, search = def->code == 1, or_equal;
  tsr_node *x, *r;
  TSR_CHECK(sorted_constants(c, a, search ? 0 : 1, def->name, t, &n, &dir));
  TSR_CHECK(tsr_as_array(c, &a->v[search ? 1 : 0], a->at[search ? 1 : 0], TSR_F64, &x));
  if (search) {
    const char *side = "left";
    if (given(a, 2)) TSR_CHECK(tsr_arg_string(c, a, 2, "side", &side));
    if (strcmp(side, "left") && strcmp(side, "right"))
      return tsr_ctx_error(c, a->at[2], TSR_ERR_VALUE, "side must be 'left' or 'right', got '%s'",
                           side);
    if (dir < 0 && n > 1)
      return tsr_ctx_error(c, a->at[0], TSR_ERR_VALUE, "searchsorted: a must be sorted ascending");
    or_equal = side[0] == 'r';
    TSR_CHECK(tsr_ctx_relocate(c, call, count_below(x, t, n, or_equal, &r)));
  } else {
    long long right = 0;
    if (given(a, 2)) TSR_CHECK(tsr_arg_int(c, a, 2, "right", &right));
    if (dir > 0) { /* searchsorted(bins, x, side = right ? left : right) */
      TSR_CHECK(tsr_ctx_relocate(c, call, count_below(x, t, n, !right, &r)));
    } else { /* n - searchsorted(bins[::-1], x, side = right ? left : right) */
      double rev[256];
      for (int k = 0; k < n; k++) rev[k] = t[n - 1 - k];
      TSR_CHECK(tsr_ctx_relocate(c, call, count_below(x, rev, n, !right, &r)));
      TSR_CHECK(tsr_ctx_relocate(c, call, tsr_number_op_node(EW_SUB, (double)n, r, &r)));
    }
  }
  tsr_set_array(out, r);
  return TSR_OK;
}

/* nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None): NaN and
 * +-inf replaced (by default with 0 and the type's largest finite values);
 * integers and bool unchanged. */
int tsr_b_nan_to_num(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a,
                     tsr_value *out) {
  (void)def;
  tsr_node *x;
  TSR_CHECK(tsr_as_array(c, &a->v[0], a->at[0], TSR_F64, &x));
  if (!tsr_dtype_is_float(x->dtype)) {
    tsr_set_array(out, x);
    return TSR_OK;
  }
  double big = x->dtype == TSR_F32 ? FLT_MAX : DBL_MAX;
  double nan = 0.0, posinf = big, neginf = -big;
  if (given(a, 2)) TSR_CHECK(tsr_arg_number(c, a, 2, "nan", &nan));
  if (given(a, 3)) TSR_CHECK(tsr_arg_number(c, a, 3, "posinf", &posinf));
  if (given(a, 4)) TSR_CHECK(tsr_arg_number(c, a, 4, "neginf", &neginf));
  tsr_node *isnan_, *ispos, *isneg, *vnan, *vpos, *vneg, *r;
  int st = tsr_node_unary(EW_ISNAN, x, &isnan_);
  st = st ? st : tsr_node_op_number(EW_EQUAL, x, INFINITY, &ispos);
  st = st ? st : tsr_node_op_number(EW_EQUAL, x, -INFINITY, &isneg);
  if (st == TSR_OK) {
    tsr_grid g;
    st = tsr_grid_init_regular(&g, 0, NULL, NULL);
    st = st ? st : tsr_node_full(nan, &g, x->dtype, &vnan);
    st = st ? st : tsr_node_full(posinf, &g, x->dtype, &vpos);
    st = st ? st : tsr_node_full(neginf, &g, x->dtype, &vneg);
    tsr_grid_free(&g);
  }
  st = st ? st : tsr_node_where(isneg, vneg, x, &r);
  st = st ? st : tsr_node_where(ispos, vpos, r, &r);
  st = st ? st : tsr_node_where(isnan_, vnan, r, &r);
  TSR_CHECK(tsr_ctx_relocate(c, call, st));
  tsr_set_array(out, r);
  return TSR_OK;
}
