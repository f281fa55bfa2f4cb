/*
 * args.c - the argument conversions of builtin.h: every builtin family reads
 * integers, numbers, shapes, dtypes, chunks and axes the same way, with the
 * same messages, located at the argument.
 */
#include "eval/builtin.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/dtype.h"
#include "kernel/dtype_names.h"
#include "util/error.h"

/* Chunks of about 128 MiB when the user gives none (Dask's default). */
#define AUTO_CHUNK_BYTES ((size_t)128 << 20)

int tsr_arg_int(tsr_ctx *c, const tsr_args *a, int i, const char *what, long long *out) {
  const tsr_value *v = &a->v[i];
  if (v->kind == V_INT || v->kind == V_BOOL) {
    *out = v->i;
    return TSR_OK;
  }
  if (v->kind == V_FLOAT && v->f == floor(v->f) && fabs(v->f) < 9e15) {
    *out = (long long)v->f;
    return TSR_OK;
  }
  return tsr_ctx_error(c, a->at[i], TSR_ERR_TYPE, "%s must be an integer, got %s", what,
                       tsr_value_type_name(v));
}

int tsr_arg_number(tsr_ctx *c, const tsr_args *a, int i, const char *what, double *out) {
  if (!tsr_value_is_number(&a->v[i]))
    return tsr_ctx_error(c, a->at[i], TSR_ERR_TYPE, "%s must be a number, got %s", what,
                         tsr_value_type_name(&a->v[i]));
  *out = tsr_value_number(&a->v[i]);
  return TSR_OK;
}

int tsr_arg_string(tsr_ctx *c, const tsr_args *a, int i, const char *what, const char **s) {
  if (a->v[i].kind != V_STR)
    return tsr_ctx_error(c, a->at[i], TSR_ERR_TYPE, "%s must be a string, got %s", what,
                         tsr_value_type_name(&a->v[i]));
  *s = a->v[i].s;
  return TSR_OK;
}

int tsr_arg_shape(tsr_ctx *c, const tsr_args *a, int i, int *ndim, int64_t *shape) {
  const tsr_value *v = &a->v[i];
  int n = v->kind == V_TUPLE ? v->nitems : 1;
  if (n > TSR_MAXDIM)
    return tsr_ctx_error(c, a->at[i], TSR_ERR_VALUE, "at most %d dimensions are supported, got %d",
                         TSR_MAXDIM, n);
  for (int k = 0; k < n; k++) {
    const tsr_value *e = v->kind == V_TUPLE ? &v->items[k] : v;
    if (e->kind != V_INT)
      return tsr_ctx_error(c, a->at[i], TSR_ERR_TYPE,
                           "shape must be an integer or a tuple of integers, got %s",
                           tsr_value_type_name(e));
    if (e->i < 0)
      return tsr_ctx_error(c, a->at[i], TSR_ERR_VALUE, "negative dimension %lld in shape", e->i);
    shape[k] = e->i;
  }
  *ndim = n;
  return TSR_OK;
}

int tsr_arg_dtype(tsr_ctx *c, const tsr_args *a, int i, tsr_dtype *dt) {
  if (!a->given[i] || a->v[i].kind == V_NONE) {
    *dt = TSR_F64;
    return TSR_OK;
  }
  const tsr_value *v = &a->v[i];
  if (v->kind == V_STR && tsr_dtype_parse(v->s, dt)) return TSR_OK;
  return tsr_ctx_error(
      c, a->at[i], TSR_ERR_TYPE,
      "unsupported dtype %s%s%s: use bool, int8/16/32/64, uint8/16/32/64, float32 or float64",
      v->kind == V_STR ? "'" : "", v->kind == V_STR ? v->s : tsr_value_type_name(v),
      v->kind == V_STR ? "'" : "");
}

static int chunk_list(tsr_ctx *c, const ast_node *at, const tsr_value *e, int64_t **sizes,
                      int64_t *n) {
  *n = e->nitems;
  TSR_MALLOC(*sizes, sizeof(int64_t) * (size_t)(e->nitems + 1));
  for (int k = 0; k < e->nitems; k++) {
    if (e->items[k].kind != V_INT)
      return tsr_ctx_error(c, at, TSR_ERR_TYPE, "chunk sizes must be integers");
    (*sizes)[k] = e->items[k].i;
  }
  return TSR_OK;
}

int tsr_arg_chunk_axis(tsr_ctx *c, const ast_node *at, const tsr_value *e, int axis, int64_t len,
                       int64_t **sizes, int64_t *n) {
  if (e->kind == V_TUPLE) return chunk_list(c, at, e, sizes, n);
  if (e->kind != V_INT && e->kind != V_NONE)
    return tsr_ctx_error(c, at, TSR_ERR_TYPE, "chunks must be integers or tuples, got %s",
                         tsr_value_type_name(e));
  long long size = e->kind == V_NONE ? -1 : e->i;
  if (size == -1) size = len > 0 ? len : 1;
  if (size <= 0)
    return tsr_ctx_error(c, at, TSR_ERR_VALUE, "chunk size must be positive, got %lld on axis %d",
                         size, axis);
  int64_t cnt = len == 0 ? 1 : len / size + (len % size != 0);
  if (cnt > TSR_MAX_CHUNKS)
    return tsr_ctx_error(c, at, TSR_ERR_VALUE,
                         "axis %d of length %lld in chunks of %lld makes %lld chunks, more than "
                         "%lld: use larger chunks",
                         axis, (long long)len, size, (long long)cnt, (long long)TSR_MAX_CHUNKS);
  TSR_MALLOC(*sizes, sizeof(int64_t) * (size_t)cnt);
  for (int64_t k = 0; k < cnt; k++) (*sizes)[k] = len - k * size < size ? len - k * size : size;
  if (len == 0) (*sizes)[0] = 0;
  *n = cnt;
  return TSR_OK;
}

int tsr_arg_chunks(tsr_ctx *c, const tsr_args *a, int i, int ndim, const int64_t *shape,
                   tsr_dtype dt, tsr_grid *g) {
  const tsr_value *v = &a->v[i];
  size_t item = dt == TSR_F32 ? 4 : 8;
  if (!a->given[i] || (v->kind == V_STR && !strcmp(v->s, "auto")))
    return tsr_ctx_relocate(c, a->at[i],
                            tsr_grid_init_auto(g, ndim, shape, item, AUTO_CHUNK_BYTES));
  if (v->kind == V_TUPLE && v->nitems != ndim)
    return tsr_ctx_error(c, a->at[i], TSR_ERR_SHAPE,
                         "chunks has %d entries but the array has %d dimensions", v->nitems, ndim);
  if (v->kind == V_STR)
    return tsr_ctx_error(c, a->at[i], TSR_ERR_VALUE,
                         "chunks='%s' is not understood: use \"auto\", an integer or a tuple",
                         v->s);
  int64_t *sizes[TSR_MAXDIM] = {0}, n[TSR_MAXDIM];
  int st = TSR_OK;
  for (int k = 0; k < ndim; k++)
    TSR_CHECK_GOTO(st,
                   tsr_arg_chunk_axis(c, a->at[i], v->kind == V_TUPLE ? &v->items[k] : v, k,
                                      shape[k], &sizes[k], &n[k]),
                   done);
  st = tsr_ctx_relocate(c, a->at[i],
                        tsr_grid_init_lists(g, ndim, shape, (const int64_t *const *)sizes, n));
done:
  for (int k = 0; k < ndim; k++) free(sizes[k]);
  return st;
}

int tsr_axis_index(tsr_ctx *c, const ast_node *at, long long ax, int ndim, const char *what,
                   int *axis) {
  if (ax < -ndim || ax >= ndim)
    return tsr_ctx_error(c, at, TSR_ERR_INDEX, "%s %lld is out of bounds for array of dimension %d",
                         what, ax, ndim);
  *axis = (int)(ax < 0 ? ax + ndim : ax);
  return TSR_OK;
}

int tsr_arg_axis(tsr_ctx *c, const tsr_args *a, int i, int ndim, int *axis) {
  if (!a->given[i] || a->v[i].kind == V_NONE) {
    *axis = -1;
    return TSR_OK;
  }
  long long ax = 0;
  TSR_CHECK(tsr_arg_int(c, a, i, "axis", &ax));
  return tsr_axis_index(c, a->at[i], ax, ndim, "axis", axis);
}

int tsr_arg_axes(tsr_ctx *c, const tsr_args *a, int i, int ndim, int *axis, unsigned *mask) {
  unsigned all = ndim > 0 ? (1u << ndim) - 1 : 0;
  *mask = all;
  if (!a->given[i] || a->v[i].kind != V_TUPLE) {
    TSR_CHECK(tsr_arg_axis(c, a, i, ndim, axis));
    if (*axis >= 0) *mask = 1u << *axis;
    return TSR_OK;
  }
  const tsr_value *v = &a->v[i];
  unsigned m = 0;
  for (int k = 0; k < v->nitems; k++) {
    const tsr_value *e = &v->items[k];
    if (e->kind != V_INT && e->kind != V_BOOL)
      return tsr_ctx_error(c, a->at[i], TSR_ERR_TYPE,
                           "axis must be an integer or a tuple of integers, got %s in the tuple",
                           tsr_value_type_name(e));
    int d = 0;
    TSR_CHECK(tsr_axis_index(c, a->at[i], e->i, ndim, "axis", &d));
    if (m & (1u << d))
      return tsr_ctx_error(c, a->at[i], TSR_ERR_VALUE, "duplicate value in 'axis'");
    m |= 1u << d;
  }
  *mask = m;
  if (m == all)
    *axis = -1;
  else if (m && !(m & (m - 1))) {
    *axis = 0;
    while (!(m & (1u << *axis))) (*axis)++;
  } else
    *axis = TSR_AXES_SET;
  return TSR_OK;
}

int tsr_as_array(tsr_ctx *c, const tsr_value *v, const ast_node *at, tsr_dtype like,
                 tsr_node **out) {
  if (v->kind == V_ARRAY) {
    *out = v->arr;
    return TSR_OK;
  }
  if (!tsr_value_is_number(v))
    return tsr_ctx_error(c, at, TSR_ERR_TYPE, "expected an array or a number, got %s",
                         tsr_value_type_name(v));
  tsr_grid g;
  TSR_CHECK(tsr_grid_init_regular(&g, 0, NULL, NULL));
  int st = tsr_node_full(tsr_value_number(v), &g, like, out);
  tsr_grid_free(&g);
  return st;
}

void tsr_set_array(tsr_value *out, tsr_node *n) {
  memset(out, 0, sizeof *out);
  out->kind = V_ARRAY;
  out->arr = n;
}

/* v as a 0-d array of dtype dt. */
static int number_node(double v, tsr_dtype dt, tsr_node **out) {
  tsr_grid g;
  TSR_CHECK(tsr_grid_init_regular(&g, 0, NULL, NULL));
  int st = tsr_node_full(v, &g, dt, out);
  tsr_grid_free(&g);
  return st;
}

/* The type of number v beside an array of type t (weakly, as NEP 50): a
 * float array's, an integer array's for an integer that fits it, else
 * float64 (bool arrays too: v is a float constant of a composition). */
static tsr_dtype beside(tsr_dtype t, double v) {
  if (tsr_dtype_is_float(t)) return t;
  if (tsr_dtype_is_int(t) && v == trunc(v) && tsr_dtype_fits(t, v)) return t;
  return TSR_F64;
}

int tsr_node_op_number(int op, tsr_node *x, double v, tsr_node **out) {
  tsr_node *s;
  TSR_CHECK(number_node(v, beside(x->dtype, v), &s));
  return tsr_node_binary(op, x, s, out);
}

int tsr_number_op_node(int op, double v, tsr_node *x, tsr_node **out) {
  tsr_node *s;
  TSR_CHECK(number_node(v, beside(x->dtype, v), &s));
  return tsr_node_binary(op, s, x, out);
}

int tsr_set_tuple(tsr_ctx *c, tsr_node *const *nodes, int n, tsr_value *out) {
  memset(out, 0, sizeof *out);
  out->kind = V_TUPLE;
  out->nitems = n;
  TSR_CHECK(tsr_ctx_alloc(c, sizeof(tsr_value) * (size_t)(n + 1), (void **)&out->items));
  for (int i = 0; i < n; i++) tsr_set_array(&out->items[i], nodes[i]);
  return TSR_OK;
}

void tsr_set_float(tsr_value *out, double f) {
  memset(out, 0, sizeof *out);
  out->kind = V_FLOAT;
  out->f = f;
}

int tsr_arg_array(tsr_ctx *c, const tsr_args *a, int i, const char *what, tsr_node **out) {
  if (a->v[i].kind != V_ARRAY)
    return tsr_ctx_error(c, a->at[i], TSR_ERR_TYPE, "%s needs an array, got %s", what,
                         tsr_value_type_name(&a->v[i]));
  *out = a->v[i].arr;
  return TSR_OK;
}

int tsr_eager_values(tsr_ctx *c, const ast_node *at, tsr_node *n, int64_t max, const char *what,
                     const double **vals) {
  if (tsr_node_size(n) > max)
    return tsr_ctx_error(c, at, TSR_ERR_VALUE,
                         "%s takes at most %lld values here (they are computed while the job is "
                         "read), got %lld",
                         what, (long long)max, (long long)tsr_node_size(n));
  if (!n->value) {
    if (!c->compute_now)
      return tsr_ctx_error(c, at, TSR_ERR_VALUE,
                           "%s needs values computed while the job is read, which this reading (a "
                           "sweep's look at its parameters) does not do",
                           what);
    TSR_CHECK(tsr_ctx_relocate(c, at, c->compute_now(c->job, n)));
  }
  *vals = n->value;
  return TSR_OK;
}
