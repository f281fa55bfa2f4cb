/*
 * ops_array.c - the array builtins (ops_array.h).
 *
 * A builtin checks and converts its bound arguments, then creates a lazy node;
 * it computes nothing. Numbers passed to elementwise functions and reductions
 * give numbers back, as in NumPy.
 */
#include "eval/ops_array.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "eval/ops_stats.h"
#include "graph/ew_dtype.h"
#include "kernel/dtype.h"
#include "kernel/dtype_names.h"
#include "kernel/ew_scalar.h"
#include "util/error.h"
#include "kernel/stats_merge.h"

/* ---- generators ---------------------------------------------------------- */

/* Shared tail of every generator: shape (or size), chunks, dtype. */
static int gen_grid(tsr_ctx *c, const ast_node *call, tsr_args *a, int ishape, int isize,
                    int ichunks, int idtype, tsr_grid *g, tsr_dtype *dt) {
  int ndim = 0, is = a->given[ishape] ? ishape : (isize >= 0 && a->given[isize] ? isize : -1);
  int64_t shape[TSR_MAXDIM];
  if (is < 0) return tsr_ctx_error(c, call, TSR_ERR_VALUE, "missing shape= argument");
  TSR_CHECK(tsr_arg_shape(c, a, is, &ndim, shape));
  TSR_CHECK(tsr_arg_dtype(c, a, idtype, dt));
  return tsr_arg_chunks(c, a, ichunks, ndim, shape, *dt, g);
}

int tsr_random_stream(tsr_ctx *c, tsr_args *a, int iseed, uint32_t *stream) {
  uint32_t next = tsr_ctx_next_stream(c);
  if (!a->given[iseed] || a->v[iseed].kind == V_NONE) {
    *stream = next;
    return TSR_OK;
  }
  long long s = 0;
  TSR_CHECK(tsr_arg_int(c, a, iseed, "seed", &s));
  if (s < 0 || s > 0xffffffffLL)
    return tsr_ctx_error(c, a->at[iseed], TSR_ERR_VALUE, "seed must be in [0, 2^32), got %lld", s);
  *stream = (uint32_t)s;
  return TSR_OK;
}

/* A random array of kind over the grid of the arguments at ishape, isize,
 * ichunks, idtype, on the stream of the seed= at iseed. */
static int random_array(tsr_ctx *c, const ast_node *call, tsr_args *a, int kind, double p0,
                        double p1, const int idx[5], tsr_value *out) {
  tsr_grid g;
  tsr_dtype dt = TSR_F64;
  uint32_t stream = 0;
  tsr_node *n = NULL;
  TSR_CHECK(gen_grid(c, call, a, idx[0], idx[1], idx[2], idx[3], &g, &dt));
  int st = TSR_OK;
  TSR_CHECK_GOTO(st, tsr_random_stream(c, a, idx[4], &stream), done);
  TSR_CHECK_GOTO(st, tsr_node_random(kind, p0, p1, tsr_ctx_seed(c), stream, &g, dt, &n), done);
  tsr_set_array(out, n);
done:
  tsr_grid_free(&g);
  return st;
}

/* normal(loc, scale, shape, chunks, seed, dtype, size) and uniform(low, high, ...) */
int tsr_b_random2(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a,
                  tsr_value *out) {
  double p0 = 0.0, p1 = 1.0;
  if (a->given[0]) TSR_CHECK(tsr_arg_number(c, a, 0, def->params[0], &p0));
  if (a->given[1]) TSR_CHECK(tsr_arg_number(c, a, 1, def->params[1], &p1));
  if (def->code == RNG_NORMAL && p1 < 0)
    return tsr_ctx_error(c, a->at[1], TSR_ERR_VALUE, "scale must be non-negative, got %g", p1);
  static const int idx[5] = {2, 6, 3, 5, 4}; /* shape, size, chunks, dtype, seed */
  return random_array(c, call, a, def->code, p0, p1, idx, out);
}

/* random(shape, chunks, seed, dtype, size): uniform on (0, 1] */
int tsr_b_random(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a,
                 tsr_value *out) {
  (void)def;
  static const int idx[5] = {0, 4, 1, 3, 2};
  return random_array(c, call, a, RNG_UNIFORM, 0.0, 1.0, idx, out);
}

/* NumPy's legacy rand(d0, d1, ...) and randn(d0, d1, ...): the shape as
 * separate positional dimensions (params d0..d3, chunks, seed, dtype);
 * rand is random's uniform on (0, 1], randn normal(0, 1). */
int tsr_b_rand_dims(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a,
                    tsr_value *out) {
  (void)call;
  int64_t shape[TSR_MAXDIM];
  int ndim = 0;
  for (int i = 0; i < TSR_MAXDIM && a->given[i]; i++) {
    long long d = 0;
    TSR_CHECK(tsr_arg_int(c, a, i, def->params[i], &d));
    if (d < 0)
      return tsr_ctx_error(c, a->at[i], TSR_ERR_VALUE, "negative dimensions are not allowed");
    shape[ndim++] = d;
  }
  for (int i = ndim; i < TSR_MAXDIM; i++)
    if (a->given[i])
      return tsr_ctx_error(c, a->at[i], TSR_ERR_VALUE, "%s: dimension %s given without %s",
                           def->name, def->params[i], def->params[ndim]);
  tsr_dtype dt = TSR_F64;
  tsr_grid g;
  uint32_t stream = 0;
  tsr_node *n = NULL;
  TSR_CHECK(tsr_arg_dtype(c, a, TSR_MAXDIM + 2, &dt));
  TSR_CHECK(tsr_arg_chunks(c, a, TSR_MAXDIM, ndim, shape, dt, &g));
  int st = tsr_random_stream(c, a, TSR_MAXDIM + 1, &stream);
  if (st == TSR_OK) st = tsr_node_random(def->code, 0.0, 1.0, tsr_ctx_seed(c), stream, &g, dt, &n);
  if (st == TSR_OK) tsr_set_array(out, n);
  tsr_grid_free(&g);
  return st;
}

/* zeros/ones(shape, chunks, dtype) and full(shape, fill_value, chunks, dtype) */
int tsr_b_fill(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a,
               tsr_value *out) {
  int is_full = !strcmp(def->name, "full");
  double value = !strcmp(def->name, "ones") ? 1.0 : 0.0;
  if (is_full) TSR_CHECK(tsr_arg_number(c, a, 1, "fill_value", &value));
  tsr_grid g;
  tsr_dtype dt = TSR_F64;
  TSR_CHECK(gen_grid(c, call, a, 0, -1, is_full ? 2 : 1, is_full ? 3 : 2, &g, &dt));
  int dt_given = a->given[is_full ? 3 : 2] && a->v[is_full ? 3 : 2].kind != V_NONE;
  if (is_full && !dt_given && a->v[1].kind != V_FLOAT) /* NumPy: the fill value's type */
    dt = a->v[1].kind == V_BOOL ? TSR_BOOL : TSR_I64;
  tsr_node *n = NULL;
  int st = tsr_node_full(value, &g, dt, &n);
  tsr_grid_free(&g);
  TSR_CHECK(st);
  tsr_set_array(out, n);
  return TSR_OK;
}

/* arange(stop) or arange(start, stop, step), chunks, dtype */
int tsr_b_arange(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a,
                 tsr_value *out) {
  (void)def;
  (void)call;
  double start = 0, stop = 0, step = 1;
  TSR_CHECK(tsr_arg_number(c, a, 0, "stop", &stop));
  if (a->given[1]) {
    start = stop;
    TSR_CHECK(tsr_arg_number(c, a, 1, "stop", &stop));
  }
  if (a->given[2]) TSR_CHECK(tsr_arg_number(c, a, 2, "step", &step));
  if (step == 0) return tsr_ctx_error(c, a->at[2], TSR_ERR_VALUE, "arange step cannot be zero");
  double cnt = ceil((stop - start) / step);
  if (!(cnt < 9.2e18)) /* NaN, inf or beyond int64 */
    return tsr_ctx_error(c, call, TSR_ERR_VALUE, "arange(%g, %g, %g) has too many elements", start,
                         stop, step);
  int64_t n = cnt > 0 ? (int64_t)cnt : 0;
  tsr_dtype dt = TSR_F64;
  TSR_CHECK(tsr_arg_dtype(c, a, 4, &dt));
  if (!a->given[4] || a->v[4].kind == V_NONE) { /* NumPy: int64 from integer arguments */
    int ints = 1;
    for (int i = 0; i < 3; i++) ints &= !a->given[i] || a->v[i].kind != V_FLOAT;
    if (ints) dt = TSR_I64;
  }
  tsr_grid g;
  TSR_CHECK(tsr_arg_chunks(c, a, 3, 1, &n, dt, &g));
  tsr_node *node = NULL;
  int st = tsr_node_arange(start, step, &g, dt, &node);
  tsr_grid_free(&g);
  TSR_CHECK(st);
  tsr_set_array(out, node);
  return TSR_OK;
}

/* ---- elementwise --------------------------------------------------------- */

/* v, a value of type dt, as a Python number (NumPy's scalar of that type). */
static void set_number(tsr_value *out, double v, tsr_dtype dt) {
  memset(out, 0, sizeof *out);
  v = tsr_dtype_cast(v, dt);
  if (dt == TSR_BOOL || (tsr_dtype_is_int(dt) && fabs(v) < 9.2e18)) {
    out->kind = dt == TSR_BOOL ? V_BOOL : V_INT;
    out->i = (long long)v;
  } else {
    out->kind = V_FLOAT;
    out->f = v;
  }
}

int tsr_b_unary(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a,
                tsr_value *out) {
  if (tsr_value_is_number(&a->v[0])) {
    tsr_dtype dt;
    TSR_CHECK(
        tsr_ctx_relocate(c, call, tsr_ew_result_dtype(def->code, tsr_value_dtype(&a->v[0]), &dt)));
    int op = def->code == EW_INVERT && a->v[0].kind == V_BOOL ? EW_LOGICAL_NOT : def->code;
    set_number(out, tsr_ew_unary(op, tsr_value_number(&a->v[0])), dt);
    return TSR_OK;
  }
  tsr_node *x, *n;
  TSR_CHECK(tsr_as_array(c, &a->v[0], a->at[0], TSR_F64, &x));
  TSR_CHECK(tsr_ctx_relocate(c, call, tsr_node_unary(def->code, x, &n)));
  tsr_set_array(out, n);
  return TSR_OK;
}

static int is_comparison(int op) {
  return op == EW_GREATER || op == EW_GREATER_EQUAL || op == EW_LESS || op == EW_LESS_EQUAL ||
         op == EW_EQUAL || op == EW_NOT_EQUAL;
}

/* A Python number as the operand of an array of type like (NEP 50: the
 * number is "weak", it takes the array's type where its kind allows). An
 * int out of the array's range is an error, as NumPy's, except in a
 * comparison, which compares the values. */
int tsr_weak_operand(tsr_ctx *c, const tsr_value *v, const ast_node *at, tsr_dtype like, int op,
                     tsr_node **out) {
  if (v->kind == V_ARRAY) return tsr_as_array(c, v, at, like, out);
  if (!tsr_value_is_number(v))
    return tsr_ctx_error(c, at, TSR_ERR_TYPE, "expected an array or a number, got %s",
                         tsr_value_type_name(v));
  tsr_dtype dt = tsr_dtype_promote_weak(like, v->kind == V_BOOL  ? TSR_SCALAR_BOOL
                                              : v->kind == V_INT ? TSR_SCALAR_INT
                                                                 : TSR_SCALAR_FLOAT);
  double x = tsr_value_number(v);
  if (v->kind == V_INT && !tsr_dtype_fits(dt, x)) {
    if (!is_comparison(op))
      return tsr_ctx_error(c, at, TSR_ERR_VALUE,
                           "Python integer %lld out of bounds for %s (NumPy's rule: astype "
                           "a wider type first)",
                           v->i, tsr_dtype_str(dt));
    dt = TSR_F64;
  }
  return tsr_as_array(c, v, at, dt, out);
}

int tsr_b_binary(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a,
                 tsr_value *out) {
  const tsr_value *x = &a->v[0], *y = &a->v[1];
  if (tsr_value_is_number(x) && tsr_value_is_number(y)) {
    tsr_dtype dt;
    TSR_CHECK(tsr_ctx_relocate(
        c, call,
        tsr_ew_result_dtype(def->code, tsr_dtype_promote(tsr_value_dtype(x), tsr_value_dtype(y)),
                            &dt)));
    set_number(out, tsr_ew_binary(def->code, tsr_value_number(x), tsr_value_number(y)), dt);
    return TSR_OK;
  }
  tsr_dtype like =
      x->kind == V_ARRAY ? x->arr->dtype : (y->kind == V_ARRAY ? y->arr->dtype : TSR_F64);
  tsr_node *nx, *ny, *n;
  TSR_CHECK(tsr_weak_operand(c, x, a->at[0], like, def->code, &nx));
  TSR_CHECK(tsr_weak_operand(c, y, a->at[1], like, def->code, &ny));
  TSR_CHECK(tsr_ctx_relocate(c, call, tsr_node_binary(def->code, nx, ny, &n)));
  tsr_set_array(out, n);
  return TSR_OK;
}

/* ---- elementwise compositions (NumPy's clip and round) -------------------- */

/* x op y as the operator's builtin does it: numbers fold, arrays broadcast. */
static int compose(tsr_ctx *c, const ast_node *call, int op, const tsr_value *x, const tsr_value *y,
                   tsr_value *out) {
  tsr_op_def def = {.code = op};
  tsr_args a;
  memset(&a, 0, sizeof a);
  a.v[0] = *x;
  a.at[0] = a.at[1] = call;
  a.given[0] = 1;
  if (!y) return tsr_b_unary(c, call, &def, &a, out);
  a.v[1] = *y;
  a.given[1] = 1;
  return tsr_b_binary(c, call, &def, &a, out);
}

static int given(const tsr_args *a, int i) { return a->given[i] && a->v[i].kind != V_NONE; }

int tsr_b_clip(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a,
               tsr_value *out) {
  (void)def;
  if (!given(a, 1) && !given(a, 2))
    return tsr_ctx_error(c, call, TSR_ERR_VALUE, "clip: one of a_min and a_max must be given");
  tsr_value r = a->v[0];
  if (given(a, 1)) TSR_CHECK(compose(c, call, EW_MAX, &r, &a->v[1], &r));
  if (given(a, 2)) TSR_CHECK(compose(c, call, EW_MIN, &r, &a->v[2], &r));
  *out = r;
  return TSR_OK;
}

/* 10**n as NumPy's round computes it (power_of_ten in multiarray/calculation.c). */
static double power_of_ten(long long n) {
  static const double p10[] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8};
  if (n < 9) return p10[n];
  double r = 1e9;
  while (n-- > 9) r *= 10.;
  return r;
}

/* NumPy's round: rint(a * 10**d) / 10**d, or rint(a / 10**-d) * 10**-d for d < 0. */
int tsr_b_round(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a,
                tsr_value *out) {
  (void)def;
  long long d = 0;
  if (given(a, 1)) TSR_CHECK(tsr_arg_int(c, a, 1, "decimals", &d));
  if (d == 0) return compose(c, call, EW_RINT, &a->v[0], NULL, out);
  if (d > 100000 || d < -100000)
    return tsr_ctx_error(c, a->at[1], TSR_ERR_VALUE, "decimals=%lld is out of range", d);
  tsr_value f, r;
  tsr_set_float(&f, power_of_ten(d > 0 ? d : -d));
  TSR_CHECK(compose(c, call, d > 0 ? EW_MUL : EW_DIV, &a->v[0], &f, &r));
  TSR_CHECK(compose(c, call, EW_RINT, &r, NULL, &r));
  return compose(c, call, d > 0 ? EW_DIV : EW_MUL, &r, &f, out);
}

/* ---- reductions and array methods ---------------------------------------- */

/* A reduction of a number (a one-element array): the partial of that one
 * element finished, as an int or bool where the row's dtype is (argmax:
 * 0; nanargmax of NaN: an error, as NumPy's). */
static int reduce_number(tsr_ctx *c, const ast_node *call, int code, double x, long long ddof,
                         tsr_value *out) {
  int flags = tsr_red_flags(code), m = tsr_red_monoid(code);
  tsr_stat s = tsr_stat_of_one(code, x, 0.0);
  double v = tsr_stat_finish(code, &s, (int)ddof);
  if (v != v && (flags & RF_INDEX))
    return tsr_ctx_error(c, call, TSR_ERR_VALUE, "%s: All-NaN slice encountered",
                         tsr_red_name(code));
  tsr_set_float(out, v);
  if (m == RM_OR || m == RM_AND || (flags & RF_INDEX) || m == RM_COUNT) {
    out->kind = m == RM_OR || m == RM_AND ? V_BOOL : V_INT;
    out->i = (long long)v;
    out->f = 0.0;
  }
  return TSR_OK;
}

/* Every row of kernel/red_table.h: sum, mean, ..., argmax, count_nonzero
 * (def->code the kind). ddof= only where the row takes it (its table line
 * has the parameter). */
int tsr_b_reduce(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a,
                 tsr_value *out) {
  long long ddof = 0, keep = 0;
  int flags = tsr_red_flags(def->code);
  if ((flags & RF_DDOF) && a->given[3]) TSR_CHECK(tsr_arg_int(c, a, 3, "ddof", &ddof));
  if (a->given[2]) TSR_CHECK(tsr_arg_int(c, a, 2, "keepdims", &keep));
  if (tsr_value_is_number(&a->v[0]) && (!a->given[1] || a->v[1].kind == V_NONE))
    return reduce_number(c, call, def->code, tsr_value_number(&a->v[0]), ddof, out);
  tsr_node *x, *n;
  int axis = -1;
  unsigned mask = 0;
  TSR_CHECK(tsr_as_array(c, &a->v[0], a->at[0], TSR_F64, &x));
  if (flags & RF_INDEX) { /* NumPy's argmax takes one axis */
    TSR_CHECK(tsr_arg_axis(c, a, 1, x->grid.ndim, &axis));
    mask = axis < 0 ? ~0u : 1u << axis;
  } else
    TSR_CHECK(tsr_arg_axes(c, a, 1, x->grid.ndim, &axis, &mask));
  int64_t len = 1;
  for (int d = 0; d < x->grid.ndim; d++)
    if (mask & (1u << d)) len *= x->grid.shape[d];
  if (len == 0 && (flags & RF_NOEMPTY)) {
    if (flags & RF_INDEX)
      return tsr_ctx_error(c, call, TSR_ERR_VALUE, "attempt to get %s of an empty sequence",
                           def->name);
    return tsr_ctx_error(c, call, TSR_ERR_VALUE,
                         "zero-size array to reduction operation %s which has no identity",
                         def->code == RED_MIN ? "minimum" : "maximum");
  }
  if (axis >= 0 && x->grid.ndim == 1 && !keep) axis = -1; /* a 1-d axis reduction is a full one */
  int idt = (flags & RF_DDOF) ? 4 : 3; /* dtype=: its table line has it there, or none */
  int typed = def->params[idt] && !strcmp(def->params[idt], "dtype") && a->given[idt] &&
              a->v[idt].kind != V_NONE;
  tsr_dtype dt = TSR_F64;
  if (typed) { /* NumPy's dtype=: the elements and the result in that type */
    TSR_CHECK(tsr_arg_dtype(c, a, idt, &dt));
    TSR_CHECK(tsr_node_astype(x, dt, &x));
  }
  TSR_CHECK(tsr_ctx_relocate(c, call,
                             tsr_reduce_axes(def->code, x, axis, mask, (int)keep, (int)ddof, &n)));
  if (typed) TSR_CHECK(tsr_node_astype(n, dt, &n));
  tsr_set_array(out, n);
  return TSR_OK;
}

int tsr_b_astype(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a,
                 tsr_value *out) {
  (void)def;
  (void)call;
  tsr_dtype dt = TSR_F64;
  tsr_node *x, *n;
  TSR_CHECK(tsr_arg_dtype(c, a, 1, &dt));
  TSR_CHECK(tsr_as_array(c, &a->v[0], a->at[0], TSR_F64, &x));
  TSR_CHECK(tsr_node_astype(x, dt, &n));
  tsr_set_array(out, n);
  return TSR_OK;
}

/* float64(x), int32(x), bool_(x) ... (NumPy's scalar types called): a
 * number as a 0-d array of that type (which promotes as an array: NEP 50's
 * strong scalar), an array converted as astype. def->code: the dtype. */
int tsr_b_scalar_type(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a,
                      tsr_value *out) {
  (void)call;
  tsr_node *x, *n;
  TSR_CHECK(tsr_as_array(c, &a->v[0], a->at[0], TSR_F64, &x));
  TSR_CHECK(tsr_node_astype(x, (tsr_dtype)def->code, &n));
  tsr_set_array(out, n);
  return TSR_OK;
}

/* persist(x), x.persist(): named after what the user wrote, for errors. */
int tsr_b_persist(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a,
                  tsr_value *out) {
  (void)def;
  tsr_node *x, *n;
  TSR_CHECK(tsr_arg_array(c, a, 0, "persist", &x));
  char label[48];
  const ast_node *at = a->at[0];
  if (at && at->kind == AST_NAME && at->str)
    snprintf(label, sizeof label, "persist(%.32s)", at->str);
  else
    snprintf(label, sizeof label, "persist() at %d:%d", call->line, call->col);
  TSR_CHECK(tsr_node_persist(x, label, &n));
  tsr_set_array(out, n);
  return TSR_OK;
}

/* x.compute(), compute(x): the identity. In Dask it runs the graph and
 * returns the value; in a job every name is computed when it is needed
 * (printed, written, reduced into a later statement), so a pasted
 * .compute() changes nothing, not even the bits. Numbers pass too: in
 * Dask x.sum().compute() gives one. */
int tsr_b_compute(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a,
                  tsr_value *out) {
  (void)call;
  (void)def;
  tsr_node *x;
  if (!tsr_value_is_number(&a->v[0])) TSR_CHECK(tsr_arg_array(c, a, 0, "compute", &x));
  *out = a->v[0];
  return TSR_OK;
}
