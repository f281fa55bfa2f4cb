/*
 * ops.c - the operation table (see ops.h) and the builtins behind it.
 *
 * A builtin checks and converts its bound arguments, then creates a lazy node;
 * it computes nothing. Numbers passed to elementwise functions and reductions
 * give numbers back, as in NumPy.
 */
#include "eval/ops.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"
#include "kernel/ew_scalar.h"
#include "eval/ops_io.h"
#include "eval/ops_linalg.h"

/* Chunks of about 128 MiB when the user gives none (Dask's default). */
#define AUTO_CHUNK_BYTES ((size_t)128 << 20)

/* ---- argument conversion ------------------------------------------------ */

static int want_int(tsr_interp *ip, const tsr_args *a, int i, const char *what, long long *out) {
  const tsr_value *v = &a->v[i];
  if (v->kind == V_INT || v->kind == V_BOOL) {
    *out = v->i;
    return TSR_OK;
  }
  if (v->kind == V_FLOAT && v->f == floor(v->f) && fabs(v->f) < 9e15) {
    *out = (long long)v->f;
    return TSR_OK;
  }
  return tsr_interp_error(ip, a->at[i], TSR_ERR_TYPE, "%s must be an integer, got %s", what,
                          tsr_value_type_name(v));
}

static int want_number(tsr_interp *ip, const tsr_args *a, int i, const char *what, double *out) {
  if (!tsr_value_is_number(&a->v[i]))
    return tsr_interp_error(ip, a->at[i], TSR_ERR_TYPE, "%s must be a number, got %s", what,
                            tsr_value_type_name(&a->v[i]));
  *out = tsr_value_number(&a->v[i]);
  return TSR_OK;
}

static int want_shape(tsr_interp *ip, const tsr_args *a, int i, int *ndim, int64_t *shape) {
  const tsr_value *v = &a->v[i];
  int n = v->kind == V_TUPLE ? v->nitems : 1;
  if (n > TSR_MAXDIM)
    return tsr_interp_error(ip, a->at[i], TSR_ERR_VALUE, "at most %d dimensions are supported, got %d",
                            TSR_MAXDIM, n);
  for (int k = 0; k < n; k++) {
    const tsr_value *e = v->kind == V_TUPLE ? &v->items[k] : v;
    if (e->kind != V_INT)
      return tsr_interp_error(ip, a->at[i], TSR_ERR_TYPE,
                              "shape must be an integer or a tuple of integers, got %s",
                              tsr_value_type_name(e));
    if (e->i < 0)
      return tsr_interp_error(ip, a->at[i], TSR_ERR_VALUE, "negative dimension %lld in shape", e->i);
    shape[k] = e->i;
  }
  *ndim = n;
  return TSR_OK;
}

static int want_dtype(tsr_interp *ip, const tsr_args *a, int i, tsr_dtype *dt) {
  if (!a->given[i] || a->v[i].kind == V_NONE) {
    *dt = TSR_F64;
    return TSR_OK;
  }
  const tsr_value *v = &a->v[i];
  if (v->kind == V_STR) {
    if (!strcmp(v->s, "float64") || !strcmp(v->s, "f8") || !strcmp(v->s, "double") ||
        !strcmp(v->s, "float")) {
      *dt = TSR_F64;
      return TSR_OK;
    }
    if (!strcmp(v->s, "float32") || !strcmp(v->s, "f4") || !strcmp(v->s, "single")) {
      *dt = TSR_F32;
      return TSR_OK;
    }
  }
  return tsr_interp_error(ip, a->at[i], TSR_ERR_TYPE,
                          "unsupported dtype %s%s%s: use float64 or float32",
                          v->kind == V_STR ? "'" : "", v->kind == V_STR ? v->s : tsr_value_type_name(v),
                          v->kind == V_STR ? "'" : "");
}

/* One axis of chunks=: an int (-1: the whole axis) or an explicit tuple. */
static int chunk_axis(tsr_interp *ip, const ast_node *at, const tsr_value *e, int axis,
                      int64_t len, int64_t **sizes, int64_t *n) {
  if (e->kind == V_TUPLE) {
    *n = e->nitems;
    TSR_MALLOC(*sizes, sizeof(int64_t) * (size_t)(e->nitems + 1));
    for (int k = 0; k < e->nitems; k++) {
      if (e->items[k].kind != V_INT)
        return tsr_interp_error(ip, at, TSR_ERR_TYPE, "chunk sizes must be integers");
      (*sizes)[k] = e->items[k].i;
    }
    return TSR_OK;
  }
  if (e->kind != V_INT && e->kind != V_NONE)
    return tsr_interp_error(ip, at, TSR_ERR_TYPE, "chunks must be integers or tuples, got %s",
                            tsr_value_type_name(e));
  long long c = e->kind == V_NONE ? -1 : e->i;
  if (c == -1) c = len > 0 ? len : 1;
  if (c <= 0)
    return tsr_interp_error(ip, at, TSR_ERR_VALUE, "chunk size must be positive, got %lld on axis %d",
                            c, axis);
  int64_t cnt = len == 0 ? 1 : (len + c - 1) / c;
  TSR_MALLOC(*sizes, sizeof(int64_t) * (size_t)cnt);
  for (int64_t k = 0; k < cnt; k++) (*sizes)[k] = len - k * c < c ? len - k * c : c;
  if (len == 0) (*sizes)[0] = 0;
  *n = cnt;
  return TSR_OK;
}

static int want_chunks(tsr_interp *ip, const tsr_args *a, int i, int ndim, const int64_t *shape,
                       tsr_dtype dt, tsr_grid *g) {
  const tsr_value *v = &a->v[i];
  size_t item = dt == TSR_F32 ? 4 : 8;
  if (!a->given[i] || (v->kind == V_STR && !strcmp(v->s, "auto")))
    return tsr_interp_relocate(ip, a->at[i], tsr_grid_init_auto(g, ndim, shape, item, AUTO_CHUNK_BYTES));
  if (v->kind == V_TUPLE && v->nitems != ndim)
    return tsr_interp_error(ip, a->at[i], TSR_ERR_SHAPE,
                            "chunks has %d entries but the array has %d dimensions", v->nitems, ndim);
  if (v->kind == V_STR)
    return tsr_interp_error(ip, a->at[i], TSR_ERR_VALUE, "chunks='%s' is not understood: use \"auto\", an integer or a tuple", v->s);
  int64_t *sizes[TSR_MAXDIM] = {0}, n[TSR_MAXDIM];
  int st = TSR_OK;
  for (int k = 0; k < ndim && st == TSR_OK; k++)
    st = chunk_axis(ip, a->at[i], v->kind == V_TUPLE ? &v->items[k] : v, k, shape[k], &sizes[k], &n[k]);
  if (st == TSR_OK)
    st = tsr_interp_relocate(ip, a->at[i],
                             tsr_grid_init_lists(g, ndim, shape, (const int64_t *const *)sizes, n));
  for (int k = 0; k < ndim; k++) free(sizes[k]);
  return st;
}

/* Axis argument: None -> -1 (all axes); negative counts from the end. */
static int want_axis(tsr_interp *ip, const tsr_args *a, int i, int ndim, int *axis) {
  if (!a->given[i] || a->v[i].kind == V_NONE) {
    *axis = -1;
    return TSR_OK;
  }
  long long ax = 0;
  TSR_CHECK(want_int(ip, a, i, "axis", &ax));
  if (ax < -ndim || ax >= ndim)
    return tsr_interp_error(ip, a->at[i], TSR_ERR_INDEX,
                            "axis %lld is out of bounds for array of dimension %d", ax, ndim);
  *axis = (int)(ax < 0 ? ax + ndim : ax);
  return TSR_OK;
}

static int as_array(tsr_interp *ip, const tsr_value *v, const ast_node *at, tsr_dtype like,
                    tsr_node **out) {
  if (v->kind == V_ARRAY) {
    *out = v->arr;
    return TSR_OK;
  }
  if (!tsr_value_is_number(v))
    return tsr_interp_error(ip, at, TSR_ERR_TYPE, "expected an array or a number, got %s",
                            tsr_value_type_name(v));
  tsr_grid g;
  TSR_CHECK(tsr_grid_init_regular(&g, 0, NULL, NULL));
  int st = tsr_node_full(tsr_value_number(v), &g, like, out);
  tsr_grid_free(&g);
  return st;
}

static void set_array(tsr_value *out, tsr_node *n) {
  memset(out, 0, sizeof *out);
  out->kind = V_ARRAY;
  out->arr = n;
}

static void set_float(tsr_value *out, double f) {
  memset(out, 0, sizeof *out);
  out->kind = V_FLOAT;
  out->f = f;
}

/* ---- generators ---------------------------------------------------------- */

/* Shared tail of every generator: shape (or size), chunks, dtype. */
static int gen_grid(tsr_interp *ip, const ast_node *call, tsr_args *a, int ishape, int isize,
                    int ichunks, int idtype, tsr_grid *g, tsr_dtype *dt) {
  int ndim = 0, is = a->given[ishape] ? ishape : (isize >= 0 && a->given[isize] ? isize : -1);
  int64_t shape[TSR_MAXDIM];
  if (is < 0) return tsr_interp_error(ip, call, TSR_ERR_VALUE, "missing shape= argument");
  TSR_CHECK(want_shape(ip, a, is, &ndim, shape));
  TSR_CHECK(want_dtype(ip, a, idtype, dt));
  return want_chunks(ip, a, ichunks, ndim, shape, *dt, g);
}

static int stream_of(tsr_interp *ip, tsr_args *a, int iseed, uint32_t *stream) {
  uint32_t next = tsr_interp_next_stream(ip);
  if (!a->given[iseed] || a->v[iseed].kind == V_NONE) {
    *stream = next;
    return TSR_OK;
  }
  long long s = 0;
  TSR_CHECK(want_int(ip, a, iseed, "seed", &s));
  if (s < 0 || s > 0xffffffffLL)
    return tsr_interp_error(ip, a->at[iseed], TSR_ERR_VALUE, "seed must be in [0, 2^32), got %lld", s);
  *stream = (uint32_t)s;
  return TSR_OK;
}

/* normal(loc, scale, shape, chunks, seed, dtype, size) and uniform(low, high, ...) */
static int b_random2(tsr_interp *ip, const ast_node *call, const tsr_op_def *def, tsr_args *a,
                     tsr_value *out) {
  double p0 = def->code == RNG_NORMAL ? 0.0 : 0.0, p1 = 1.0;
  if (a->given[0]) TSR_CHECK(want_number(ip, a, 0, def->params[0], &p0));
  if (a->given[1]) TSR_CHECK(want_number(ip, a, 1, def->params[1], &p1));
  if (def->code == RNG_NORMAL && p1 < 0)
    return tsr_interp_error(ip, a->at[1], TSR_ERR_VALUE, "scale must be non-negative, got %g", p1);
  tsr_grid g;
  tsr_dtype dt = TSR_F64;
  uint32_t stream = 0;
  TSR_CHECK(gen_grid(ip, call, a, 2, 6, 3, 5, &g, &dt));
  int st = stream_of(ip, a, 4, &stream);
  tsr_node *n = NULL;
  if (st == TSR_OK) st = tsr_node_random(def->code, p0, p1, tsr_interp_seed(ip), stream, &g, dt, &n);
  tsr_grid_free(&g);
  TSR_CHECK(st);
  set_array(out, n);
  return TSR_OK;
}

/* random(shape, chunks, seed, dtype, size): uniform on (0, 1] */
static int b_random(tsr_interp *ip, const ast_node *call, const tsr_op_def *def, tsr_args *a,
                    tsr_value *out) {
  (void)def;
  tsr_grid g;
  tsr_dtype dt = TSR_F64;
  uint32_t stream = 0;
  TSR_CHECK(gen_grid(ip, call, a, 0, 4, 1, 3, &g, &dt));
  int st = stream_of(ip, a, 2, &stream);
  tsr_node *n = NULL;
  if (st == TSR_OK) st = tsr_node_random(RNG_UNIFORM, 0.0, 1.0, tsr_interp_seed(ip), stream, &g, dt, &n);
  tsr_grid_free(&g);
  TSR_CHECK(st);
  set_array(out, n);
  return TSR_OK;
}

/* zeros/ones(shape, chunks, dtype) and full(shape, fill_value, chunks, dtype) */
static int b_fill(tsr_interp *ip, const ast_node *call, const tsr_op_def *def, tsr_args *a,
                  tsr_value *out) {
  int is_full = !strcmp(def->name, "full");
  double value = !strcmp(def->name, "ones") ? 1.0 : 0.0;
  if (is_full) TSR_CHECK(want_number(ip, a, 1, "fill_value", &value));
  tsr_grid g;
  tsr_dtype dt = TSR_F64;
  TSR_CHECK(gen_grid(ip, call, a, 0, -1, is_full ? 2 : 1, is_full ? 3 : 2, &g, &dt));
  tsr_node *n = NULL;
  int st = tsr_node_full(value, &g, dt, &n);
  tsr_grid_free(&g);
  TSR_CHECK(st);
  set_array(out, n);
  return TSR_OK;
}

/* arange(stop) or arange(start, stop, step), chunks, dtype */
static int b_arange(tsr_interp *ip, const ast_node *call, const tsr_op_def *def, tsr_args *a,
                    tsr_value *out) {
  (void)def;
  double start = 0, stop = 0, step = 1;
  TSR_CHECK(want_number(ip, a, 0, "stop", &stop));
  if (a->given[1]) {
    start = stop;
    TSR_CHECK(want_number(ip, a, 1, "stop", &stop));
  }
  if (a->given[2]) TSR_CHECK(want_number(ip, a, 2, "step", &step));
  if (step == 0) return tsr_interp_error(ip, a->at[2], TSR_ERR_VALUE, "arange step cannot be zero");
  double cnt = ceil((stop - start) / step);
  int64_t n = cnt > 0 ? (int64_t)cnt : 0;
  tsr_dtype dt = TSR_F64;
  TSR_CHECK(want_dtype(ip, a, 4, &dt));
  tsr_grid g;
  TSR_CHECK(want_chunks(ip, a, 3, 1, &n, dt, &g));
  (void)call;
  tsr_node *node = NULL;
  int st = tsr_node_arange(start, step, &g, dt, &node);
  tsr_grid_free(&g);
  TSR_CHECK(st);
  set_array(out, node);
  return TSR_OK;
}

/* ---- elementwise --------------------------------------------------------- */

static int b_unary(tsr_interp *ip, const ast_node *call, const tsr_op_def *def, tsr_args *a,
                   tsr_value *out) {
  (void)call;
  if (tsr_value_is_number(&a->v[0])) {
    set_float(out, tsr_ew_unary(def->code, tsr_value_number(&a->v[0])));
    return TSR_OK;
  }
  tsr_node *x, *n;
  TSR_CHECK(as_array(ip, &a->v[0], a->at[0], TSR_F64, &x));
  TSR_CHECK(tsr_node_unary(def->code, x, &n));
  set_array(out, n);
  return TSR_OK;
}

int tsr_apply_binary(tsr_interp *ip, const ast_node *at, int op, const tsr_value *x,
                     const ast_node *atx, const tsr_value *y, const ast_node *aty, tsr_value *out);
int tsr_apply_binary(tsr_interp *ip, const ast_node *at, int op, const tsr_value *x,
                     const ast_node *atx, const tsr_value *y, const ast_node *aty, tsr_value *out) {
  if (tsr_value_is_number(x) && tsr_value_is_number(y)) {
    set_float(out, tsr_ew_binary(op, tsr_value_number(x), tsr_value_number(y)));
    return TSR_OK;
  }
  tsr_dtype like = x->kind == V_ARRAY ? x->arr->dtype : (y->kind == V_ARRAY ? y->arr->dtype : TSR_F64);
  tsr_node *nx, *ny, *n;
  TSR_CHECK(as_array(ip, x, atx, like, &nx));
  TSR_CHECK(as_array(ip, y, aty, like, &ny));
  TSR_CHECK(tsr_interp_relocate(ip, at, tsr_node_binary(op, nx, ny, &n)));
  set_array(out, n);
  return TSR_OK;
}

static int b_binary(tsr_interp *ip, const ast_node *call, const tsr_op_def *def, tsr_args *a,
                    tsr_value *out) {
  return tsr_apply_binary(ip, call, def->code, &a->v[0], a->at[0], &a->v[1], a->at[1], out);
}

/* ---- reductions and array methods ---------------------------------------- */

static int b_reduce(tsr_interp *ip, const ast_node *call, const tsr_op_def *def, tsr_args *a,
                    tsr_value *out) {
  long long ddof = 0, keep = 0;
  if (a->given[3]) TSR_CHECK(want_int(ip, a, 3, "ddof", &ddof));
  if (a->given[2]) TSR_CHECK(want_int(ip, a, 2, "keepdims", &keep));
  if (tsr_value_is_number(&a->v[0]) && (!a->given[1] || a->v[1].kind == V_NONE)) {
    double x = tsr_value_number(&a->v[0]);
    double r = (def->code == RED_VAR || def->code == RED_STD) ? (1 - ddof > 0 ? 0.0 : NAN) : x;
    set_float(out, r);
    return TSR_OK;
  }
  tsr_node *x, *n;
  int axis = -1;
  TSR_CHECK(as_array(ip, &a->v[0], a->at[0], TSR_F64, &x));
  TSR_CHECK(want_axis(ip, a, 1, x->grid.ndim, &axis));
  int64_t len = axis < 0 ? tsr_node_size(x) : x->grid.shape[axis];
  if (len == 0 && (def->code == RED_MIN || def->code == RED_MAX))
    return tsr_interp_error(ip, call, TSR_ERR_VALUE,
                            "zero-size array to reduction operation %s which has no identity",
                            def->code == RED_MIN ? "minimum" : "maximum");
  if (axis >= 0 && x->grid.ndim == 1 && !keep) axis = -1; /* a 1-d axis reduction is a full one */
  TSR_CHECK(tsr_interp_relocate(ip, call, tsr_node_reduce(def->code, x, axis, (int)keep, (int)ddof, &n)));
  set_array(out, n);
  return TSR_OK;
}

static int b_astype(tsr_interp *ip, const ast_node *call, const tsr_op_def *def, tsr_args *a,
                    tsr_value *out) {
  (void)def;
  (void)call;
  tsr_dtype dt = TSR_F64;
  tsr_node *x, *n;
  TSR_CHECK(want_dtype(ip, a, 1, &dt));
  TSR_CHECK(as_array(ip, &a->v[0], a->at[0], TSR_F64, &x));
  TSR_CHECK(tsr_node_astype(x, dt, &n));
  set_array(out, n);
  return TSR_OK;
}

int tsr_arg_dtype(tsr_interp *ip, const tsr_args *a, int i, tsr_dtype *dt) {
  return want_dtype(ip, a, i, dt);
}

int tsr_arg_chunks(tsr_interp *ip, const tsr_args *a, int i, int ndim, const int64_t *shape,
                   tsr_dtype dt, tsr_grid *g) {
  return want_chunks(ip, a, i, ndim, shape, dt, g);
}

int tsr_arg_int(tsr_interp *ip, const tsr_args *a, int i, const char *what, long long *out) {
  return want_int(ip, a, i, what, out);
}

#define GEN2(nm, code, p0, p1, doc)                                                     \
  {nm, OPK_GENERATOR, code, {p0, p1, "shape", "chunks", "seed", "dtype", "size", NULL}, \
   3, 0, 0, b_random2, doc}
#define UNARY(nm, code, doc) {nm, OPK_ELEMENTWISE, code, {"x", NULL}, 1, 1, 0, b_unary, doc}
#define BINARY(nm, code, doc) {nm, OPK_ELEMENTWISE, code, {"x1", "x2", NULL}, 2, 2, 0, b_binary, doc}
#define REDUCE(nm, code, doc) \
  {nm, OPK_REDUCTION, code, {"a", "axis", "keepdims", "ddof", NULL}, 2, 1, 1, b_reduce, doc}

const tsr_op_def tsr_ops[] = {
    GEN2("normal", RNG_NORMAL, "loc", "scale", "normal(loc=0, scale=1, shape, chunks=\"auto\", seed=, dtype=)"),
    GEN2("uniform", RNG_UNIFORM, "low", "high", "uniform(low=0, high=1, shape, chunks=\"auto\", seed=, dtype=)"),
    {"random", OPK_GENERATOR, RNG_UNIFORM, {"shape", "chunks", "seed", "dtype", "size", NULL}, 1, 0, 0,
     b_random, "random(shape, chunks=\"auto\", seed=, dtype=): uniform on (0, 1]"},
    {"zeros", OPK_GENERATOR, 0, {"shape", "chunks", "dtype", NULL}, 1, 1, 0, b_fill, "zeros(shape, chunks=, dtype=)"},
    {"ones", OPK_GENERATOR, 0, {"shape", "chunks", "dtype", NULL}, 1, 1, 0, b_fill, "ones(shape, chunks=, dtype=)"},
    {"full", OPK_GENERATOR, 0, {"shape", "fill_value", "chunks", "dtype", NULL}, 2, 2, 0, b_fill,
     "full(shape, fill_value, chunks=, dtype=)"},
    {"arange", OPK_GENERATOR, 0, {"start", "stop", "step", "chunks", "dtype", NULL}, 3, 1, 0, b_arange,
     "arange([start,] stop[, step], chunks=, dtype=)"},
    UNARY("abs", EW_ABS, "abs(x)"), UNARY("sqrt", EW_SQRT, "sqrt(x)"), UNARY("exp", EW_EXP, "exp(x)"),
    UNARY("log", EW_LOG, "log(x)"), UNARY("sin", EW_SIN, "sin(x)"), UNARY("cos", EW_COS, "cos(x)"),
    UNARY("tanh", EW_TANH, "tanh(x)"), UNARY("negative", EW_NEG, "negative(x)"),
    BINARY("minimum", EW_MIN, "minimum(x1, x2): NaN-propagating"),
    BINARY("maximum", EW_MAX, "maximum(x1, x2): NaN-propagating"),
    BINARY("add", EW_ADD, "add(x1, x2)"), BINARY("subtract", EW_SUB, "subtract(x1, x2)"),
    BINARY("multiply", EW_MUL, "multiply(x1, x2)"), BINARY("divide", EW_DIV, "divide(x1, x2)"),
    BINARY("power", EW_POW, "power(x1, x2)"),
    REDUCE("sum", RED_SUM, "sum(a, axis=None, keepdims=False)"),
    REDUCE("mean", RED_MEAN, "mean(a, axis=None, keepdims=False)"),
    REDUCE("min", RED_MIN, "min(a, axis=None, keepdims=False)"),
    REDUCE("max", RED_MAX, "max(a, axis=None, keepdims=False)"),
    REDUCE("var", RED_VAR, "var(a, axis=None, keepdims=False, ddof=0)"),
    REDUCE("std", RED_STD, "std(a, axis=None, keepdims=False, ddof=0)"),
    {"astype", OPK_ARRAY, 0, {"a", "dtype", NULL}, 2, 2, 1, b_astype, "x.astype(dtype)"},
    {"rechunk", OPK_ARRAY, 0, {"x", "chunks", NULL}, 2, 2, 1, tsr_b_rechunk,
     "rechunk(x, chunks), x.rechunk(chunks): the same values on another chunk grid"},
    {"load", OPK_GENERATOR, 0, {"file", "dataset", "chunks", "dtype", NULL}, 2, 2, 0, tsr_b_load,
     "load(file, dataset, chunks=\"auto\", dtype=): an HDF5 dataset, read chunk by chunk"},
    {"save", OPK_ARRAY, 0, {"file", "dataset", "array", "compression", "level", NULL}, 3, 3, 0,
     tsr_b_save, "save(file, dataset, array, compression=None, level=4): write array to HDF5 (a job statement)"},
    {"transpose", OPK_ARRAY, LA_TRANSPOSE, {"x", NULL}, 1, 1, 1, tsr_b_transpose,
     "transpose(x), x.T: the axes of a 1-d or 2-d array reversed"},
    {"matmul", OPK_ARRAY, LA_MATMUL, {"x1", "x2", NULL}, 2, 2, 0, tsr_b_matmul,
     "matmul(x1, x2), x1 @ x2: matrix product of 1-d/2-d arrays (GEMM per block)"},
    {"dot", OPK_ARRAY, LA_MATMUL, {"x1", "x2", NULL}, 2, 2, 1, tsr_b_matmul,
     "dot(x1, x2), x1.dot(x2): as matmul for 1-d/2-d arrays"},
    {"qr", OPK_ARRAY, LA_QR_Q, {"x", NULL}, 1, 1, 0, tsr_b_qr,
     "q, r = qr(x): thin QR of a 2-d array with one column of chunks (TSQR)"},
    {"svd", OPK_ARRAY, LA_SVD_U, {"x", "k", NULL}, 1, 1, 0, tsr_b_svd,
     "u, s, vt = svd(x, k=None): thin SVD (top k) of a 2-d array with one column of chunks"},
};
const int tsr_nops = (int)(sizeof tsr_ops / sizeof tsr_ops[0]);

const tsr_op_def *tsr_op_find(const char *name, int as_method) {
  for (int i = 0; i < tsr_nops; i++)
    if (!strcmp(tsr_ops[i].name, name) && (!as_method || tsr_ops[i].is_method)) return &tsr_ops[i];
  return NULL;
}
