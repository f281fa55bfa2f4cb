/*
 * ops_create.c - NumPy's creation functions beyond the generators of
 * ops_array.c: zeros_like and its kin, eye, identity, tri, linspace and
 * meshgrid. Each is built from nodes that already exist (full, arange, new
 * axes and elementwise operations), so fusion, slicing, --no-fuse and both
 * backends come with them; every step is an exact operation or the one
 * NumPy performs, so the values are NumPy's bit for bit. Table lines: ops.c.
 */
#include "eval/ops_create.h"

#include "eval/ops_join.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "eval/ops.h"
#include "eval/ops_array.h"
#include "kernel/dtype.h"
#include "util/error.h"

/* ---- nodes from nodes ------------------------------------------------------ */

/* x (1-d) as a column [:, None] (axis 0) or a row [None, :] (axis 1). */
static int as_axis(tsr_node *x, int axis, tsr_node **out) {
  tsr_axis_sel whole = {TSR_SEL_SLICE, 0, 1, x->grid.shape[0], 0};
  tsr_axis_sel nax = {TSR_SEL_NEWAXIS, 0, 0, 0, 0};
  tsr_axis_sel sel[2] = {axis == 0 ? whole : nax, axis == 0 ? nax : whole};
  return tsr_node_select(x, sel, 2, out);
}

/* 0, 1, ..., n-1 along axis a of g (its chunks), as a float64 vector. */
static int index_of_axis(const tsr_grid *g, int a, tsr_node **out) {
  tsr_grid line;
  const int64_t *sizes[1] = {g->sizes[a]};
  int64_t n[1] = {g->nchunks[a]};
  TSR_CHECK(tsr_grid_init_lists(&line, 1, &g->shape[a], sizes, n));
  int st = tsr_node_arange(0.0, 1.0, &line, TSR_F64, out);
  tsr_grid_free(&line);
  return st;
}

/* The row index minus the column index of every element of the 2-d grid g
 * (exact: integers far below 2^53). */
static int row_minus_col(const tsr_grid *g, tsr_node **out) {
  tsr_node *r, *c, *rr, *cc;
  TSR_CHECK(index_of_axis(g, 0, &r));
  TSR_CHECK(index_of_axis(g, 1, &c));
  TSR_CHECK(as_axis(r, 0, &rr));
  TSR_CHECK(as_axis(c, 1, &cc));
  return tsr_node_binary(EW_SUB, rr, cc, out);
}

/* x == 0 (bool) */
static int is_zero(tsr_node *x, tsr_node **out) {
  return tsr_node_op_number(EW_EQUAL, x, 0.0, out);
}

static int cast(tsr_node *x, tsr_dtype dt, tsr_node **out) {
  if (x->dtype == dt) return *out = x, TSR_OK;
  return tsr_node_astype(x, dt, out);
}

/* ---- the _like family ------------------------------------------------------ */

/* zeros_like(a, dtype=None, chunks=None), ones_like, empty_like (zeros) and
 * full_like(a, fill_value, dtype=None, chunks=None): a's shape, chunks and
 * dtype unless given. A number gives a number, as NumPy's 0-d result. */
int tsr_b_like(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a,
               tsr_value *out) {
  int full = def->code == 2, id = full ? 2 : 1;
  double value = def->code == 1 ? 1.0 : 0.0;
  if (full) TSR_CHECK(tsr_arg_number(c, a, 1, "fill_value", &value));
  if (tsr_value_is_number(&a->v[0])) {
    tsr_set_float(out, value);
    return TSR_OK;
  }
  tsr_node *x, *n = NULL;
  TSR_CHECK(tsr_arg_array(c, a, 0, "a", &x));
  tsr_dtype dt = x->dtype;
  if (a->given[id] && a->v[id].kind != V_NONE) TSR_CHECK(tsr_arg_dtype(c, a, id, &dt));
  tsr_grid g;
  if (a->given[id + 1] && a->v[id + 1].kind != V_NONE)
    TSR_CHECK(tsr_arg_chunks(c, a, id + 1, x->grid.ndim, x->grid.shape, dt, &g));
  else
    TSR_CHECK(tsr_grid_copy(&g, &x->grid));
  int st = tsr_node_full(value, &g, dt, &n);
  tsr_grid_free(&g);
  TSR_CHECK(tsr_ctx_relocate(c, call, st));
  tsr_set_array(out, n);
  return TSR_OK;
}

/* ---- eye, identity, tri ---------------------------------------------------- */

static int dimension(tsr_ctx *c, tsr_args *a, int i, const char *what, int64_t *n) {
  long long v;
  TSR_CHECK(tsr_arg_int(c, a, i, what, &v));
  if (v < 0)
    return tsr_ctx_error(c, a->at[i], TSR_ERR_VALUE,
                         "negative dimensions are not allowed (%s=%lld)", what, v);
  *n = v;
  return TSR_OK;
}

/* The (N, M) grid and k of eye, identity and tri; params N, M, k, chunks,
 * dtype at 0..4 (identity: n, chunks, dtype, so ichunks says where). */
static int square_args(tsr_ctx *c, tsr_args *a, int ichunks, tsr_grid *g, long long *k,
                       tsr_dtype *dt) {
  int64_t shape[2];
  TSR_CHECK(dimension(c, a, 0, "N", &shape[0]));
  shape[1] = shape[0];
  *k = 0;
  if (ichunks == 3) {
    if (a->given[1] && a->v[1].kind != V_NONE) TSR_CHECK(dimension(c, a, 1, "M", &shape[1]));
    if (a->given[2]) TSR_CHECK(tsr_arg_int(c, a, 2, "k", k));
  }
  TSR_CHECK(tsr_arg_dtype(c, a, ichunks + 1, dt));
  return tsr_arg_chunks(c, a, ichunks, 2, shape, *dt, g);
}

/* eye(N, M=None, k=0): 1 where col - row == k; tri(N, M=None, k=0): 1 where
 * col <= row + k; identity(n) = eye(n). */
int tsr_b_eye(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a,
              tsr_value *out) {
  tsr_grid g;
  long long k;
  tsr_dtype dt;
  TSR_CHECK(square_args(c, a, def->code == 1 ? 1 : 3, &g, &k, &dt));
  tsr_node *d, *n, *r;
  int st = row_minus_col(&g, &d);
  tsr_grid_free(&g);
  TSR_CHECK(tsr_ctx_relocate(c, call, st));
  if (k) TSR_CHECK(tsr_node_op_number(EW_ADD, d, (double)k, &d)); /* row - col + k */
  if (def->code == 2) {                                           /* tri: row - col + k >= 0 */
    TSR_CHECK(tsr_number_op_node(EW_LESS_EQUAL, 0.0, d, &n));
  } else {
    TSR_CHECK(is_zero(d, &n));
  }
  TSR_CHECK(cast(n, dt, &r));
  tsr_set_array(out, r);
  return TSR_OK;
}

/* ---- array([...]): values written in the job ---- */

#define LITERAL_MAX (1 << 20) /* numbers one literal array holds */

/* The shape of nested lists v (the first item at each level), *nd axes. */
static int literal_shape(tsr_ctx *c, const ast_node *at, const tsr_value *v, int *nd,
                         int64_t *shape) {
  *nd = 0;
  for (; v->kind == V_TUPLE; v = &v->items[0]) {
    if (*nd == TSR_MAXDIM)
      return tsr_ctx_error(c, at, TSR_ERR_VALUE, "at most %d dimensions are supported", TSR_MAXDIM);
    shape[(*nd)++] = v->nitems;
    if (v->nitems == 0) break;
  }
  return TSR_OK;
}

/* v's numbers in row-major order into vals (at *k), checked against the
 * shape; *kind the widest seen (0 bool, 1 int, 2 float). */
static int literal_values(tsr_ctx *c, const ast_node *at, const tsr_value *v, int d, int nd,
                          const int64_t *shape, double *vals, int64_t *k, int *kind) {
  if (d == nd) {
    if (!tsr_value_is_number(v))
      return tsr_ctx_error(c, at, TSR_ERR_TYPE, "array() takes numbers in nested lists, got %s%s",
                           tsr_value_type_name(v),
                           v->kind == V_ARRAY ? " (stack joins arrays)"
                                              : " (or lists of unequal lengths)");
    int w = v->kind == V_FLOAT ? 2 : v->kind == V_INT ? 1 : 0;
    if (w > *kind) *kind = w;
    vals[(*k)++] = tsr_value_number(v);
    return TSR_OK;
  }
  if (v->kind != V_TUPLE || v->nitems != shape[d])
    return tsr_ctx_error(c, at, TSR_ERR_VALUE,
                         "setting an array element with a sequence: the nested lists are not "
                         "rectangular (%s where a list of %lld was expected at depth %d)",
                         v->kind == V_TUPLE ? "a list of another length" : "a number",
                         (long long)shape[d], d);
  for (int i = 0; i < v->nitems; i++)
    TSR_CHECK(literal_values(c, at, &v->items[i], d + 1, nd, shape, vals, k, kind));
  return TSR_OK;
}

/* array(object, dtype=None), asarray (def->code 0) and from_array(x,
 * chunks="auto", dtype=None) (1): a number or nested lists of numbers as
 * an array (NumPy's type: bool, int64 or float64 unless dtype= says); an
 * array is itself (cast to dtype). */
int tsr_b_array(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a,
                tsr_value *out) {
  int chunks_at = def->code == 1 ? 1 : -1, dtype_at = def->code == 1 ? 2 : 1;
  const tsr_value *v = &a->v[0];
  int given_dt = a->given[dtype_at] && a->v[dtype_at].kind != V_NONE;
  tsr_dtype dt = TSR_F64;
  if (given_dt) TSR_CHECK(tsr_arg_dtype(c, a, dtype_at, &dt));
  if (v->kind == V_ARRAY) {
    tsr_node *x = v->arr;
    if (given_dt) TSR_CHECK(tsr_ctx_relocate(c, call, cast(x, dt, &x)));
    tsr_set_array(out, x);
    return TSR_OK;
  }
  int nd, kind = 0;
  int64_t shape[TSR_MAXDIM], size = 1, k = 0;
  TSR_CHECK(literal_shape(c, a->at[0], v, &nd, shape));
  for (int d = 0; d < nd; d++) size *= shape[d];
  if (size > LITERAL_MAX)
    return tsr_ctx_error(c, a->at[0], TSR_ERR_VALUE, "an array literal of more than %d numbers",
                         LITERAL_MAX);
  double *vals = malloc(sizeof(double) * (size_t)(size + 1));
  if (!vals) return tsr_ctx_error(c, call, TSR_ERR_MEMORY, "out of memory for an array literal");
  int st = literal_values(c, a->at[0], v, 0, nd, shape, vals, &k, &kind);
  if (!given_dt) dt = kind == 2 ? TSR_F64 : kind == 1 ? TSR_I64 : TSR_BOOL;
  if (!given_dt && size == 0) dt = TSR_F64; /* NumPy's array([]) */
  for (int64_t i = 0; st == TSR_OK && i < size; i++) vals[i] = tsr_dtype_cast(vals[i], (int)dt);
  tsr_grid g;
  if (st == TSR_OK) {
    if (chunks_at >= 0 && a->given[chunks_at])
      st = tsr_arg_chunks(c, a, chunks_at, nd, shape, dt, &g);
    else {
      int64_t one[TSR_MAXDIM];
      for (int d = 0; d < nd; d++) one[d] = shape[d] > 0 ? shape[d] : 1;
      st = tsr_ctx_relocate(c, call, tsr_grid_init_regular(&g, nd, shape, one));
    }
  }
  tsr_node *n = NULL;
  if (st == TSR_OK) {
    st = tsr_ctx_relocate(c, call, tsr_node_values(&g, dt, vals, &n));
    tsr_grid_free(&g);
  }
  free(vals);
  TSR_CHECK(st);
  tsr_set_array(out, n);
  return TSR_OK;
}

/* diag(v, k=0): a 1-d v on the k-th diagonal of a square (dask's: v's
 * chunks on both axes, padded for k != 0), or the k-th diagonal of a 2-d v
 * (diagonal(v, k), a view). */
int tsr_b_diag(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a,
               tsr_value *out) {
  (void)def;
  long long k = 0;
  if (a->given[1]) TSR_CHECK(tsr_arg_int(c, a, 1, "k", &k));
  tsr_node *v;
  TSR_CHECK(tsr_arg_array(c, a, 0, "diag", &v));
  int nd = v->grid.ndim;
  if (nd == 2) {
    const tsr_op_def *dg = tsr_op_find("diagonal", 0);
    tsr_args da;
    memset(&da, 0, sizeof da);
    da.v[0] = a->v[0], da.at[0] = a->at[0], da.given[0] = 1;
    da.v[1].kind = V_INT, da.v[1].i = k, da.at[1] = a->at[1] ? a->at[1] : call, da.given[1] = 1;
    return dg->fn(c, call, dg, &da, out);
  }
  if (nd != 1) return tsr_ctx_error(c, a->at[0], TSR_ERR_SHAPE, "Input must be 1- or 2-d.");
  int64_t shape[2] = {v->grid.shape[0], v->grid.shape[0]},
          n[2] = {v->grid.nchunks[0], v->grid.nchunks[0]};
  const int64_t *sizes[2] = {v->grid.sizes[0], v->grid.sizes[0]};
  tsr_grid g;
  TSR_CHECK(tsr_ctx_relocate(c, call, tsr_grid_init_lists(&g, 2, shape, sizes, n)));
  tsr_node *d, *mask, *zero, *col, *r;
  int st = row_minus_col(&g, &d);
  tsr_grid_free(&g);
  TSR_CHECK(tsr_ctx_relocate(c, call, st));
  TSR_CHECK(is_zero(d, &mask));
  tsr_axis_sel sel[2] = {{TSR_SEL_SLICE, 0, 1, v->grid.shape[0], 0}, {TSR_SEL_NEWAXIS, 0, 0, 0, 0}};
  TSR_CHECK(tsr_ctx_relocate(c, call, tsr_node_select(v, sel, 2, &col)));
  tsr_value z;
  memset(&z, 0, sizeof z);
  z.kind = V_INT;
  TSR_CHECK(tsr_as_array(c, &z, call, v->dtype, &zero));
  TSR_CHECK(tsr_ctx_relocate(c, call, tsr_node_where(mask, col, zero, &r)));
  if (k != 0) {
    long long m = k < 0 ? -k : k;
    int64_t w[2][2] = {{k > 0 ? 0 : m, k > 0 ? m : 0}, {k > 0 ? m : 0, k > 0 ? 0 : m}};
    TSR_CHECK(tsr_ctx_relocate(c, call, tsr_node_pad_constant(r, w, 0.0, &r)));
  }
  tsr_set_array(out, r);
  return TSR_OK;
}

/* tril(m, k=0) (def->code 0): m where col <= row + k, else 0; triu(m, k=0)
 * (1): m where col >= row + k. The mask is over m's last two axes with their
 * chunks (a 1-d m is its own rows and columns: an N x N result, as NumPy's)
 * and broadcasts over the leading ones; the zero has m's dtype. */
int tsr_b_tril(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a,
               tsr_value *out) {
  tsr_node *m, *d, *keep, *zero, *r;
  long long k = 0;
  TSR_CHECK(tsr_arg_array(c, a, 0, def->name, &m));
  if (a->given[1]) TSR_CHECK(tsr_arg_int(c, a, 1, "k", &k));
  int nd = m->grid.ndim, rows = nd >= 2 ? nd - 2 : 0, cols = nd - 1;
  if (nd < 1)
    return tsr_ctx_error(c, a->at[0], TSR_ERR_SHAPE, "%s: input must be at least 1-d, got 0-d",
                         def->name);
  const tsr_grid *g = &m->grid;
  tsr_grid sq;
  int64_t shape[2] = {g->shape[rows], g->shape[cols]}, n[2] = {g->nchunks[rows], g->nchunks[cols]};
  const int64_t *sizes[2] = {g->sizes[rows], g->sizes[cols]};
  TSR_CHECK(tsr_grid_init_lists(&sq, 2, shape, sizes, n));
  int st = row_minus_col(&sq, &d);
  tsr_grid_free(&sq);
  TSR_CHECK(tsr_ctx_relocate(c, call, st));
  /* row - col >= -k (tril), row - col <= -k (triu): exact integers */
  TSR_CHECK(tsr_number_op_node(def->code ? EW_GREATER_EQUAL : EW_LESS_EQUAL, (double)-k, d, &keep));
  tsr_value z = {0};
  z.kind = V_INT;
  TSR_CHECK(tsr_as_array(c, &z, call, m->dtype, &zero));
  TSR_CHECK(tsr_ctx_relocate(c, call, tsr_node_where(keep, m, zero, &r)));
  tsr_set_array(out, r);
  return TSR_OK;
}

/* ---- linspace -------------------------------------------------------------- */

/* NumPy's steps: y = arange(num) * step + start (y / div * delta when the
 * step is 0, y * delta when div is 0), then y[-1] = stop with endpoint. */
static int linspace_values(double start, double stop, int64_t num, int endpoint, tsr_node *y,
                           tsr_node **out) {
  int64_t div = endpoint ? num - 1 : num;
  double delta = stop - start, step = div > 0 ? delta / (double)div : NAN;
  if (div > 0 && step == 0) {
    TSR_CHECK(tsr_node_op_number(EW_DIV, y, (double)div, &y));
    TSR_CHECK(tsr_node_op_number(EW_MUL, y, delta, &y));
  } else {
    TSR_CHECK(tsr_node_op_number(EW_MUL, y, div > 0 ? step : delta, &y));
  }
  return tsr_node_op_number(EW_ADD, y, start, out);
}

/* y with its last element (of num) replaced by stop: y * (1 - last) + stop
 * * last, where last is 1 at index num - 1 only; exact for finite stop (an
 * infinite stop is the last value already). */
static int set_last(tsr_node *idx, tsr_node *y, double stop, int64_t num, tsr_node **out) {
  tsr_node *last, *keep, *a, *b;
  TSR_CHECK(tsr_node_op_number(EW_SUB, idx, (double)(num - 1), &last));
  TSR_CHECK(is_zero(last, &last));
  TSR_CHECK(tsr_number_op_node(EW_SUB, 1.0, last, &keep));
  TSR_CHECK(tsr_node_binary(EW_MUL, y, keep, &a));
  TSR_CHECK(tsr_node_op_number(EW_MUL, last, stop, &b));
  return tsr_node_binary(EW_ADD, a, b, out);
}

/* linspace(start, stop, num=50, endpoint=True, chunks="auto", dtype=None) */
int tsr_b_linspace(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a,
                   tsr_value *out) {
  (void)def;
  double start, stop;
  long long num = 50, endpoint = 1;
  TSR_CHECK(tsr_arg_number(c, a, 0, "start", &start));
  TSR_CHECK(tsr_arg_number(c, a, 1, "stop", &stop));
  if (a->given[2]) TSR_CHECK(tsr_arg_int(c, a, 2, "num", &num));
  if (a->given[3]) TSR_CHECK(tsr_arg_int(c, a, 3, "endpoint", &endpoint));
  if (num < 0)
    return tsr_ctx_error(c, a->at[2], TSR_ERR_VALUE,
                         "number of samples, %lld, must be non-negative", num);
  tsr_dtype dt;
  TSR_CHECK(tsr_arg_dtype(c, a, 5, &dt));
  int64_t n = num;
  tsr_grid g;
  TSR_CHECK(tsr_arg_chunks(c, a, 4, 1, &n, dt, &g));
  tsr_node *idx, *y, *r;
  int st = tsr_node_arange(0.0, 1.0, &g, TSR_F64, &idx);
  tsr_grid_free(&g);
  TSR_CHECK(tsr_ctx_relocate(c, call, st));
  TSR_CHECK(linspace_values(start, stop, n, endpoint != 0, idx, &y));
  if (endpoint && n > 1 && isfinite(stop)) TSR_CHECK(set_last(idx, y, stop, n, &y));
  TSR_CHECK(cast(y, dt, &r));
  tsr_set_array(out, r);
  return TSR_OK;
}

/* ---- fftfreq, rfftfreq ------------------------------------------------------ */

/* fftfreq(n, d=1.0, chunks) (def->code 0) and rfftfreq (1): NumPy's sample
 * frequencies, the integers 0, 1, ..., then (fftfreq) -(n // 2), ..., -1,
 * each times 1 / (n d): one multiplication, NumPy's bits. */
int tsr_b_fftfreq(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a,
                  tsr_value *out) {
  long long n;
  double d = 1.0;
  TSR_CHECK(tsr_arg_int(c, a, 0, "n", &n));
  if (a->given[1]) TSR_CHECK(tsr_arg_number(c, a, 1, "d", &d));
  if (n < 1)
    return tsr_ctx_error(c, a->at[0], TSR_ERR_VALUE, "n should be an integer greater than 0");
  double val = 1.0 / ((double)n * d);
  int64_t len = def->code ? n / 2 + 1 : n, half = (n - 1) / 2 + 1;
  tsr_grid g;
  TSR_CHECK(tsr_arg_chunks(c, a, 2, 1, &len, TSR_F64, &g));
  tsr_node *i, *r;
  int st = tsr_node_arange(0.0, 1.0, &g, TSR_I64, &i);
  tsr_grid_free(&g);
  if (st == TSR_OK && def->code == 0) { /* i, or i - n from position half on */
    tsr_node *up, *low;
    st = tsr_node_op_number(EW_GREATER_EQUAL, i, (double)half, &up);
    if (st == TSR_OK) st = tsr_node_op_number(EW_SUB, i, (double)n, &low);
    if (st == TSR_OK) st = tsr_node_where(up, low, i, &i);
  }
  if (st == TSR_OK) st = tsr_node_astype(i, TSR_F64, &i); /* NumPy: int64 * float */
  if (st == TSR_OK) st = tsr_node_op_number(EW_MUL, i, val, &r);
  TSR_CHECK(tsr_ctx_relocate(c, call, st));
  tsr_set_array(out, r);
  return TSR_OK;
}

/* ---- meshgrid -------------------------------------------------------------- */

/* x (1-d) along axis `along` of the 2-d result, repeated along the other
 * axis as many times as `other` has elements (x times ones: the same bits). */
static int spread(tsr_node *x, int along, tsr_node *other, tsr_node **out) {
  tsr_node *ones, *xa, *oa;
  TSR_CHECK(tsr_node_full(1.0, &other->grid, x->dtype, &ones));
  TSR_CHECK(as_axis(x, along, &xa));
  TSR_CHECK(as_axis(ones, 1 - along, &oa));
  return tsr_node_binary(EW_MUL, xa, oa, out);
}

/* xx, yy = meshgrid(x, y, indexing="xy"): xy gives arrays of (len(y),
 * len(x)), ij of (len(x), len(y)); one array gives a tuple of itself. */
int tsr_b_meshgrid(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a,
                   tsr_value *out) {
  (void)def;
  const char *indexing = "xy";
  if (a->given[2]) TSR_CHECK(tsr_arg_string(c, a, 2, "indexing", &indexing));
  if (strcmp(indexing, "xy") && strcmp(indexing, "ij"))
    return tsr_ctx_error(c, a->at[2], TSR_ERR_VALUE,
                         "indexing must be \"xy\" or \"ij\", got \"%s\"", indexing);
  tsr_node *x[2] = {NULL, NULL}, *r[2];
  int n = a->given[1] ? 2 : 1;
  for (int i = 0; i < n; i++) {
    TSR_CHECK(tsr_arg_array(c, a, i, i ? "x2" : "x1", &x[i]));
    if (x[i]->grid.ndim != 1)
      return tsr_ctx_error(c, a->at[i], TSR_ERR_SHAPE,
                           "meshgrid takes 1-d arrays, got %d dimensions", x[i]->grid.ndim);
  }
  if (n == 1) return tsr_set_tuple(c, x, 1, out);
  int xy = !strcmp(indexing, "xy");
  TSR_CHECK(tsr_ctx_relocate(c, call, spread(x[0], xy ? 1 : 0, x[1], &r[0])));
  TSR_CHECK(tsr_ctx_relocate(c, call, spread(x[1], xy ? 0 : 1, x[0], &r[1])));
  return tsr_set_tuple(c, r, 2, out);
}
