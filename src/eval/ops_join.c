/*
 * ops_join.c - reshape, concatenate and the functions built on them
 * (ops_join.h). Each follows NumPy's values and dtypes and dask.array's
 * construction, so that the chunks are dask's: roll is a concatenation of
 * two slices, pad of slices or constants around the array axis by axis,
 * tile of copies, repeat of per-chunk slabs each repeated (stacked and
 * reshaped), broadcast_to a where over a constant of dask's chunks.
 */
#include "eval/ops_join.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/dtype.h"
#include "kernel/quantile.h"
#include "util/error.h"

#define MAX_JOIN 256 /* arrays one call joins */

static int fail(tsr_ctx *c, const ast_node *at, int st) { return tsr_ctx_relocate(c, at, st); }

/* ---- views and small nodes ---- */

/* x[first : first + step * count : step] along axis, the others whole. */
static int take_range(tsr_node *x, int axis, int64_t first, int64_t step, int64_t count,
                      tsr_node **out) {
  tsr_axis_sel sel[TSR_MAXDIM];
  for (int a = 0; a < x->grid.ndim; a++)
    sel[a] = (tsr_axis_sel){TSR_SEL_SLICE, 0, 1, x->grid.shape[a], 0};
  sel[axis] = (tsr_axis_sel){TSR_SEL_SLICE, first, step, count, 0};
  return tsr_node_select(x, sel, x->grid.ndim, out);
}

/* x[start:stop] along axis (Python's slice; NULL: omitted). */
static int slice_axis(tsr_node *x, int axis, const int64_t *start, const int64_t *stop,
                      tsr_node **out) {
  int64_t first, step, count, one = 1;
  TSR_CHECK(tsr_slice_normalize(x->grid.shape[axis], start, stop, &one, &first, &step, &count));
  return take_range(x, axis, first, step, count, out);
}

/* x with new axes of length 1 where mask has bits (output positions). */
static int new_axes(tsr_node *x, int nd_out, unsigned mask, tsr_node **out) {
  tsr_axis_sel sel[TSR_MAXDIM];
  for (int d = 0, in = 0; d < nd_out; d++)
    sel[d] = (mask >> d) & 1u ? (tsr_axis_sel){TSR_SEL_NEWAXIS, 0, 0, 0, 0}
                              : (tsr_axis_sel){TSR_SEL_SLICE, 0, 1, x->grid.shape[in++], 0};
  return tsr_node_select(x, sel, nd_out, out);
}

/* NumPy's atleast_Nd for N = 1, 2, 3 (where it puts the new axes). */
static int at_least(tsr_node *x, int want, tsr_node **out) {
  int nd = x->grid.ndim;
  if (nd >= want) {
    *out = x;
    return TSR_OK;
  }
  unsigned mask;
  if (nd == 0)
    mask = (1u << want) - 1;
  else if (want == 2) /* (N,) -> (1, N) */
    mask = 1u;
  else /* want 3: (N,) -> (1, N, 1), (M, N) -> (M, N, 1) */
    mask = nd == 1 ? 5u : 4u;
  return new_axes(x, want, mask, out);
}

/* x with its axes in the order perm (a view). */
static int transposed(tsr_node *x, const int *perm, tsr_node **out) {
  const tsr_grid *g = &x->grid;
  int nd = g->ndim;
  int64_t shape[TSR_MAXDIM] = {0}, n[TSR_MAXDIM] = {0};
  const int64_t *sizes[TSR_MAXDIM] = {NULL};
  for (int i = 0; i < nd; i++)
    shape[i] = g->shape[perm[i]], n[i] = g->nchunks[perm[i]], sizes[i] = g->sizes[perm[i]];
  tsr_grid tg;
  TSR_CHECK(tsr_grid_init_lists(&tg, nd, shape, sizes, n));
  int st = tsr_node_linalg(LA_TRANSPOSE, x, NULL, tsr_perm_code(nd, perm), &tg, x->dtype, out);
  tsr_grid_free(&tg);
  return st;
}

/* A constant of x's shape but `len` along axis, x's chunks on the other
 * axes and one chunk along it (dask's pad arrays). */
static int constant_like(const tsr_node *x, int axis, int64_t len, double value, tsr_dtype dt,
                         tsr_node **out) {
  const tsr_grid *g = &x->grid;
  int64_t shape[TSR_MAXDIM], n[TSR_MAXDIM], whole = len;
  const int64_t *sizes[TSR_MAXDIM];
  for (int a = 0; a < g->ndim; a++)
    shape[a] = g->shape[a], n[a] = g->nchunks[a], sizes[a] = g->sizes[a];
  shape[axis] = len, n[axis] = 1, sizes[axis] = &whole;
  tsr_grid cg;
  TSR_CHECK(tsr_grid_init_lists(&cg, g->ndim, shape, sizes, n));
  int st = tsr_node_full(tsr_dtype_cast(value, (int)dt), &cg, dt, out);
  tsr_grid_free(&cg);
  return st;
}

/* x broadcast to grid g's shape (g: dask's chunks of the result): where
 * over a true constant on g, which fuses into every reader. */
static int broadcast_on(tsr_node *x, const tsr_grid *g, tsr_node **out) {
  int same = g->ndim == x->grid.ndim;
  for (int a = 0; same && a < g->ndim; a++) same = g->shape[a] == x->grid.shape[a];
  if (same) {
    *out = x;
    return TSR_OK;
  }
  tsr_node *t;
  TSR_CHECK(tsr_node_full(1.0, g, TSR_BOOL, &t));
  return tsr_node_where(t, x, x, out);
}

/* dask's broadcast_to chunks: new leading axes and stretched ones whole,
 * the others x's. */
static int broadcast_grid(const tsr_node *x, int nd, const int64_t *shape, tsr_grid *g) {
  int lead = nd - x->grid.ndim;
  int64_t n[TSR_MAXDIM], whole[TSR_MAXDIM];
  const int64_t *sizes[TSR_MAXDIM];
  for (int a = 0; a < nd; a++) {
    int xa = a - lead;
    whole[a] = shape[a] > 0 ? shape[a] : 0;
    if (xa < 0 || x->grid.shape[xa] != shape[a])
      sizes[a] = &whole[a], n[a] = 1;
    else
      sizes[a] = x->grid.sizes[xa], n[a] = x->grid.nchunks[xa];
  }
  return tsr_grid_init_lists(g, nd, shape, sizes, n);
}

/* ---- arguments ---- */

/* Argument i as a list of arrays (a list or tuple; numbers as 0-d arrays). */
static int arg_arrays(tsr_ctx *c, const tsr_args *a, int i, const char *fn, tsr_node **xs, int *n) {
  const tsr_value *v = &a->v[i];
  if (v->kind != V_TUPLE)
    return tsr_ctx_error(c, a->at[i], TSR_ERR_TYPE,
                         "%s takes a sequence of arrays (a list or tuple), got %s", fn,
                         tsr_value_type_name(v));
  if (v->nitems == 0)
    return tsr_ctx_error(c, a->at[i], TSR_ERR_VALUE, "need at least one array to %s", fn);
  if (v->nitems > MAX_JOIN)
    return tsr_ctx_error(c, a->at[i], TSR_ERR_VALUE, "%s joins at most %d arrays, got %d", fn,
                         MAX_JOIN, v->nitems);
  for (int k = 0; k < v->nitems; k++)
    TSR_CHECK(tsr_as_array(c, &v->items[k], a->at[i], tsr_value_dtype(&v->items[k]), &xs[k]));
  *n = v->nitems;
  return TSR_OK;
}

/* An integer or a tuple of integers (at most max) into vals. */
static int arg_ints(tsr_ctx *c, const tsr_args *a, int i, const char *what, int max,
                    long long *vals, int *n) {
  const tsr_value *v = &a->v[i];
  if (v->kind == V_INT || v->kind == V_BOOL) {
    vals[0] = v->i;
    *n = 1;
    return TSR_OK;
  }
  if (v->kind != V_TUPLE)
    return tsr_ctx_error(c, a->at[i], TSR_ERR_TYPE,
                         "%s must be an integer or a tuple of integers, got %s", what,
                         tsr_value_type_name(v));
  if (v->nitems > max)
    return tsr_ctx_error(c, a->at[i], TSR_ERR_VALUE, "%s has %d entries, at most %d here", what,
                         v->nitems, max);
  for (int k = 0; k < v->nitems; k++) {
    if (v->items[k].kind != V_INT && v->items[k].kind != V_BOOL)
      return tsr_ctx_error(c, a->at[i], TSR_ERR_TYPE, "%s must hold integers, got %s", what,
                           tsr_value_type_name(&v->items[k]));
    vals[k] = v->items[k].i;
  }
  *n = v->nitems;
  return TSR_OK;
}

/* ---- concatenate ---- */

/* xs[0..n-1] joined along axis (already checked): a nest of N_CONCAT
 * nodes, which is computed in one step. */
static int join(tsr_node *const *xs, int n, int axis, tsr_node **out) {
  tsr_node *r = xs[0];
  for (int k = 1; k < n; k++) TSR_CHECK(tsr_node_concat(r, xs[k], axis, &r));
  *out = r;
  return TSR_OK;
}

/* NumPy's checks of concatenate, then the join along axis ax. */
static int concat_checked(tsr_ctx *c, const ast_node *at, tsr_node *const *xs, int n, long long ax,
                          tsr_node **out) {
  int nd = xs[0]->grid.ndim, axis;
  if (nd == 0)
    return tsr_ctx_error(c, at, TSR_ERR_SHAPE, "zero-dimensional arrays cannot be concatenated");
  TSR_CHECK(tsr_axis_index(c, at, ax, nd, "axis", &axis));
  for (int k = 1; k < n; k++) {
    if (xs[k]->grid.ndim != nd)
      return tsr_ctx_error(c, at, TSR_ERR_SHAPE,
                           "all the input arrays must have same number of dimensions, but the "
                           "array at index 0 has %d dimension(s) and the array at index %d has %d "
                           "dimension(s)",
                           nd, k, xs[k]->grid.ndim);
    for (int d = 0; d < nd; d++)
      if (d != axis && xs[k]->grid.shape[d] != xs[0]->grid.shape[d])
        return tsr_ctx_error(c, at, TSR_ERR_SHAPE,
                             "all the input array dimensions except for the concatenation axis "
                             "must match exactly, but along dimension %d, the array at index 0 "
                             "has size %lld and the array at index %d has size %lld",
                             d, (long long)xs[0]->grid.shape[d], k,
                             (long long)xs[k]->grid.shape[d]);
  }
  return fail(c, at, join(xs, n, axis, out));
}

static int ravel(tsr_node *x, tsr_node **out) {
  int64_t size = tsr_node_size(x);
  return tsr_node_reshape(x, 1, &size, out);
}

/* ---- reshape ---- */

static int reshape(tsr_ctx *c, const ast_node *call, tsr_node *x, tsr_args *a, tsr_node **out) {
  long long dims[TSR_MAXDIM + 4];
  int n = 0, m = 0;
  TSR_CHECK(arg_ints(c, a, 1, "shape", TSR_MAXDIM, dims, &n));
  for (int i = 2; i <= 4; i++) {
    if (!a->given[i]) continue;
    if (a->v[1].kind == V_TUPLE)
      return tsr_ctx_error(c, a->at[i], TSR_ERR_TYPE,
                           "reshape takes a shape tuple or its integers, not both");
    if (n >= TSR_MAXDIM)
      return tsr_ctx_error(c, a->at[i], TSR_ERR_VALUE, "at most %d dimensions are supported",
                           TSR_MAXDIM);
    TSR_CHECK(arg_ints(c, a, i, "shape", 1, &dims[n], &m));
    n++;
  }
  if (a->given[5]) {
    const char *order;
    TSR_CHECK(tsr_arg_string(c, a, 5, "order", &order));
    if (strcmp(order, "C") != 0)
      return tsr_ctx_error(c, a->at[5], TSR_ERR_VALUE,
                           "only order='C' is supported (dask.array's reshape is row-major too)");
  }
  int64_t shape[TSR_MAXDIM], known = 1, size = tsr_node_size(x);
  int unknown = -1;
  for (int d = 0; d < n; d++) {
    if (dims[d] == -1) {
      if (unknown >= 0)
        return tsr_ctx_error(c, a->at[1], TSR_ERR_VALUE, "can only specify one unknown dimension");
      unknown = d;
      continue;
    }
    if (dims[d] < 0)
      return tsr_ctx_error(c, a->at[1], TSR_ERR_VALUE, "negative dimensions not allowed");
    shape[d] = dims[d];
    known *= dims[d];
  }
  if (unknown >= 0) {
    if (known == 0 || size % known != 0) {
      char buf[96] = "(";
      for (int d = 0; d < n; d++)
        snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%s%lld", d ? ", " : "", dims[d]);
      return tsr_ctx_error(c, a->at[1], TSR_ERR_SHAPE,
                           "cannot reshape array of size %lld into shape %s%s)", (long long)size,
                           buf, n == 1 ? "," : "");
    }
    shape[unknown] = size / known;
  }
  return fail(c, call, tsr_node_reshape(x, n, shape, out));
}

/* ---- stacks ---- */

static int stack(tsr_ctx *c, const ast_node *call, tsr_node **xs, int n, tsr_args *a,
                 tsr_node **out) {
  long long ax = 0;
  if (a->given[1]) TSR_CHECK(tsr_arg_int(c, a, 1, "axis", &ax));
  int nd = xs[0]->grid.ndim, axis;
  for (int k = 1; k < n; k++) {
    int same = xs[k]->grid.ndim == nd;
    for (int d = 0; same && d < nd; d++) same = xs[k]->grid.shape[d] == xs[0]->grid.shape[d];
    if (!same)
      return tsr_ctx_error(c, a->at[0], TSR_ERR_SHAPE, "all input arrays must have the same shape");
  }
  if (nd + 1 > TSR_MAXDIM)
    return tsr_ctx_error(c, call, TSR_ERR_VALUE, "at most %d dimensions are supported", TSR_MAXDIM);
  TSR_CHECK(tsr_axis_index(c, a->at[1] ? a->at[1] : call, ax, nd + 1, "axis", &axis));
  for (int k = 0; k < n; k++) TSR_CHECK(fail(c, call, new_axes(xs[k], nd + 1, 1u << axis, &xs[k])));
  return fail(c, call, join(xs, n, axis, out));
}

/* hstack, vstack, dstack, column_stack: NumPy's promotions, then concatenate. */
static int stack_kind(tsr_ctx *c, const ast_node *call, tsr_join_kind kind, tsr_node **xs, int n,
                      tsr_node **out) {
  int want = kind == JOIN_VSTACK ? 2 : kind == JOIN_DSTACK ? 3 : 1, all1 = 1;
  for (int k = 0; k < n; k++) {
    if (kind == JOIN_COLUMN_STACK && xs[k]->grid.ndim < 2) { /* (N,) -> (N, 1) */
      TSR_CHECK(fail(c, call, at_least(xs[k], 1, &xs[k])));
      TSR_CHECK(fail(c, call, new_axes(xs[k], 2, 2u, &xs[k])));
    } else {
      TSR_CHECK(fail(c, call, at_least(xs[k], want, &xs[k])));
    }
    all1 &= xs[k]->grid.ndim == 1;
  }
  long long axis = kind == JOIN_VSTACK             ? 0
                   : kind == JOIN_DSTACK           ? 2
                   : (kind == JOIN_HSTACK && all1) ? 0
                                                   : 1;
  return concat_checked(c, call, xs, n, axis, out);
}

/* block: nested lists, the innermost joined along the last axis. */
static int block_depth(tsr_ctx *c, const ast_node *at, const tsr_value *v, int *depth, int *nd) {
  if (v->kind != V_TUPLE) {
    *depth = 0;
    if (v->kind == V_ARRAY && v->arr->grid.ndim > *nd) *nd = v->arr->grid.ndim;
    return TSR_OK;
  }
  if (v->nitems == 0) return tsr_ctx_error(c, at, TSR_ERR_VALUE, "block: lists cannot be empty");
  int first = -1;
  for (int k = 0; k < v->nitems; k++) {
    int d = 0;
    TSR_CHECK(block_depth(c, at, &v->items[k], &d, nd));
    if (first >= 0 && d != first)
      return tsr_ctx_error(
          c, at, TSR_ERR_VALUE,
          "block: list depths are mismatched (every entry must be nested as deep)");
    first = d;
  }
  *depth = first + 1;
  return TSR_OK;
}

static int block_rec(tsr_ctx *c, const ast_node *at, const tsr_value *v, int level, int depth,
                     int nd, tsr_node **out) {
  if (level == depth) {
    tsr_node *x;
    TSR_CHECK(tsr_as_array(c, v, at, tsr_value_dtype(v), &x));
    int have = x->grid.ndim;
    unsigned mask = have < nd ? (1u << (nd - have)) - 1 : 0; /* leading axes of 1 */
    return fail(c, at, mask ? new_axes(x, nd, mask, out) : (*out = x, TSR_OK));
  }
  if (v->nitems > MAX_JOIN)
    return tsr_ctx_error(c, at, TSR_ERR_VALUE, "block joins at most %d arrays a list", MAX_JOIN);
  tsr_node *xs[MAX_JOIN];
  for (int k = 0; k < v->nitems; k++)
    TSR_CHECK(block_rec(c, at, &v->items[k], level + 1, depth, nd, &xs[k]));
  return concat_checked(c, at, xs, v->nitems, nd - (depth - level), out);
}

/* ---- roll, rot90, tile, pad, repeat, broadcast_to ---- */

/* x rolled by s along axis (dask's: the last s elements, then the rest). */
static int roll_axis(tsr_node *x, int axis, long long s, tsr_node **out) {
  int64_t n = x->grid.shape[axis];
  *out = x;
  if (n == 0) return TSR_OK;
  int64_t k = (int64_t)(((s % n) + n) % n);
  if (k == 0) return TSR_OK;
  tsr_node *p[2];
  int64_t cut = n - k;
  TSR_CHECK(slice_axis(x, axis, &cut, NULL, &p[0]));
  TSR_CHECK(slice_axis(x, axis, NULL, &cut, &p[1]));
  return join(p, 2, axis, out);
}

static int roll(tsr_ctx *c, const ast_node *call, tsr_node *x, tsr_args *a, tsr_node **out) {
  long long shifts[TSR_MAXDIM], axes[TSR_MAXDIM];
  int ns = 0, na = 0, nd = x->grid.ndim;
  TSR_CHECK(arg_ints(c, a, 1, "shift", TSR_MAXDIM, shifts, &ns));
  if (!a->given[2] || a->v[2].kind == V_NONE) { /* flattened, rolled, shaped back */
    if (ns != 1 || a->v[1].kind == V_TUPLE)
      return tsr_ctx_error(c, a->at[1], TSR_ERR_VALUE, "roll without axis takes one integer shift");
    tsr_node *f, *r;
    TSR_CHECK(fail(c, call, ravel(x, &f)));
    TSR_CHECK(fail(c, call, roll_axis(f, 0, shifts[0], &r)));
    return fail(c, call, tsr_node_reshape(r, nd, x->grid.shape, out));
  }
  TSR_CHECK(arg_ints(c, a, 2, "axis", TSR_MAXDIM, axes, &na));
  if (ns != na && ns != 1 && na != 1)
    return tsr_ctx_error(c, a->at[1], TSR_ERR_VALUE,
                         "shape mismatch: shift and axis could not be broadcast together");
  int m = ns > na ? ns : na;
  tsr_node *r = x;
  for (int i = 0; i < m; i++) {
    int axis;
    TSR_CHECK(tsr_axis_index(c, a->at[2], axes[na == 1 ? 0 : i], nd, "axis", &axis));
    TSR_CHECK(fail(c, call, roll_axis(r, axis, shifts[ns == 1 ? 0 : i], &r)));
  }
  *out = r;
  return TSR_OK;
}

static int rot90(tsr_ctx *c, const ast_node *call, tsr_node *x, tsr_args *a, tsr_node **out) {
  long long k = 1, axes[TSR_MAXDIM] = {0, 1};
  int na = 2, nd = x->grid.ndim, a0, a1;
  if (a->given[1]) TSR_CHECK(tsr_arg_int(c, a, 1, "k", &k));
  if (a->given[2]) TSR_CHECK(arg_ints(c, a, 2, "axes", TSR_MAXDIM, axes, &na));
  if (na != 2) return tsr_ctx_error(c, a->at[2], TSR_ERR_VALUE, "len(axes) must be 2.");
  if (nd < 2)
    return tsr_ctx_error(c, a->at[0], TSR_ERR_VALUE,
                         "rot90 needs an array of at least 2 dimensions");
  if (axes[0] >= nd || axes[0] < -nd || axes[1] >= nd || axes[1] < -nd)
    return tsr_ctx_error(c, a->at[2] ? a->at[2] : call, TSR_ERR_VALUE,
                         "Axes=(%lld, %lld) out of range for array of ndim=%d.", axes[0], axes[1],
                         nd);
  a0 = (int)(axes[0] < 0 ? axes[0] + nd : axes[0]);
  a1 = (int)(axes[1] < 0 ? axes[1] + nd : axes[1]);
  if (a0 == a1)
    return tsr_ctx_error(c, a->at[2] ? a->at[2] : call, TSR_ERR_VALUE, "Axes must be different.");
  k = ((k % 4) + 4) % 4;
  int perm[TSR_MAXDIM];
  for (int i = 0; i < nd; i++) perm[i] = i;
  perm[a0] = a1, perm[a1] = a0;
  tsr_node *r = x;
  int64_t last = -1;
  if (k == 0) {
    *out = x;
    return TSR_OK;
  }
  if (k == 2) {
    TSR_CHECK(
        fail(c, call, take_range(r, a0, x->grid.shape[a0] + last, -1, x->grid.shape[a0], &r)));
    return fail(c, call, take_range(r, a1, x->grid.shape[a1] + last, -1, x->grid.shape[a1], out));
  }
  if (k == 1) { /* transpose(flip(m, axes[1]), perm) */
    TSR_CHECK(fail(c, call, take_range(r, a1, x->grid.shape[a1] - 1, -1, x->grid.shape[a1], &r)));
    return fail(c, call, transposed(r, perm, out));
  }
  TSR_CHECK(fail(c, call, transposed(r, perm, &r))); /* k == 3: flip(transpose(m, perm), axes[1]) */
  return fail(c, call, take_range(r, a1, r->grid.shape[a1] - 1, -1, r->grid.shape[a1], out));
}

static int tile(tsr_ctx *c, const ast_node *call, tsr_node *x, tsr_args *a, tsr_node **out) {
  long long reps[TSR_MAXDIM], r[TSR_MAXDIM];
  int n = 0, nd = x->grid.ndim;
  TSR_CHECK(arg_ints(c, a, 1, "reps", TSR_MAXDIM, reps, &n));
  for (int i = 0; i < n; i++)
    if (reps[i] < 0)
      return tsr_ctx_error(c, a->at[1], TSR_ERR_VALUE, "negative dimensions are not allowed");
  int m = n > nd ? n : nd;
  if (m > nd) TSR_CHECK(fail(c, call, new_axes(x, m, (1u << (m - nd)) - 1, &x)));
  for (int d = 0; d < m; d++) r[d] = d < m - n ? 1 : reps[d - (m - n)];
  for (int d = 0; d < m; d++) {
    if (r[d] == 1) continue;
    if (r[d] == 0) {
      TSR_CHECK(fail(c, call, take_range(x, d, 0, 1, 0, &x)));
      continue;
    }
    if (r[d] > MAX_JOIN)
      return tsr_ctx_error(c, a->at[1], TSR_ERR_VALUE, "tile repeats an axis at most %d times",
                           MAX_JOIN);
    tsr_node *xs[MAX_JOIN];
    for (long long k = 0; k < r[d]; k++) xs[k] = x;
    TSR_CHECK(fail(c, call, join(xs, (int)r[d], d, &x)));
  }
  *out = x;
  return TSR_OK;
}

/* pad_width or constant_values in NumPy's forms (a number, (before,
 * after), ((b0, a0), ...) or one such pair for every axis) as pairs. */
static int pairs(tsr_ctx *c, const tsr_args *a, int i, const char *what, int nd, double (*p)[2]) {
  const tsr_value *v = &a->v[i];
  if (tsr_value_is_number(v)) {
    for (int d = 0; d < nd; d++) p[d][0] = p[d][1] = tsr_value_number(v);
    return TSR_OK;
  }
  if (v->kind != V_TUPLE) goto bad;
  if (v->nitems >= 1 && v->nitems <= 2 && tsr_value_is_number(&v->items[0])) {
    for (int k = 0; k < v->nitems; k++)
      if (!tsr_value_is_number(&v->items[k])) goto bad;
    for (int d = 0; d < nd; d++)
      p[d][0] = tsr_value_number(&v->items[0]),
      p[d][1] = tsr_value_number(&v->items[v->nitems - 1]);
    return TSR_OK;
  }
  if (v->nitems != 1 && v->nitems != nd) goto bad;
  for (int d = 0; d < nd; d++) {
    const tsr_value *e = &v->items[v->nitems == 1 ? 0 : d];
    if (e->kind != V_TUPLE || e->nitems < 1 || e->nitems > 2) goto bad;
    for (int k = 0; k < e->nitems; k++)
      if (!tsr_value_is_number(&e->items[k])) goto bad;
    p[d][0] = tsr_value_number(&e->items[0]), p[d][1] = tsr_value_number(&e->items[e->nitems - 1]);
  }
  return TSR_OK;
bad:
  return tsr_ctx_error(c, a->at[i], TSR_ERR_VALUE,
                       "%s must be a number, (before, after), or one such pair for each of the %d "
                       "axes",
                       what, nd);
}

static const char *const pad_modes[] = {"constant", "edge", "reflect", "symmetric", "wrap", NULL};

static int pad(tsr_ctx *c, const ast_node *call, tsr_node *x, tsr_args *a, tsr_node **out) {
  int nd = x->grid.ndim, mode = 0;
  double w[TSR_MAXDIM][2], cv[TSR_MAXDIM][2] = {{0}};
  if (nd == 0) {
    *out = x;
    return TSR_OK;
  }
  TSR_CHECK(pairs(c, a, 1, "pad_width", nd, w));
  for (int d = 0; d < nd; d++)
    for (int s = 0; s < 2; s++)
      if (w[d][s] < 0 || w[d][s] != floor(w[d][s]))
        return tsr_ctx_error(c, a->at[1], TSR_ERR_VALUE,
                             "pad_width must hold non-negative integers");
  if (a->given[2]) {
    const char *m;
    TSR_CHECK(tsr_arg_string(c, a, 2, "mode", &m));
    for (mode = 0; pad_modes[mode] && strcmp(pad_modes[mode], m) != 0; mode++) {
    }
    if (!pad_modes[mode])
      return tsr_ctx_error(c, a->at[2], TSR_ERR_VALUE,
                           "mode '%s' is not supported: constant, edge, reflect, symmetric or wrap",
                           m);
  }
  if (a->given[3]) {
    if (mode != 0)
      return tsr_ctx_error(c, a->at[3], TSR_ERR_VALUE,
                           "constant_values is an argument of mode 'constant' only");
    TSR_CHECK(pairs(c, a, 3, "constant_values", nd, cv));
  }
  for (int d = 0; d < nd; d++) {
    int64_t n = x->grid.shape[d], b = (int64_t)w[d][0], e = (int64_t)w[d][1];
    if (b == 0 && e == 0) continue;
    if (mode != 0 && n == 0)
      return tsr_ctx_error(c, a->at[1], TSR_ERR_VALUE,
                           "can't extend empty axis %d using modes other than 'constant'", d);
    int64_t most = mode == 2 ? n - 1 : n;
    if (mode >= 2 && (b > most || e > most))
      return tsr_ctx_error(c, a->at[1], TSR_ERR_VALUE,
                           "pad width %lld on axis %d of length %lld: mode '%s' pads at most %lld "
                           "here (NumPy repeats the pattern beyond; pad in several steps)",
                           (long long)(b > e ? b : e), d, (long long)n, pad_modes[mode],
                           (long long)most);
    tsr_node *p[3];
    int k = 0;
    for (int s = 0; s < 2; s++) {
      int64_t len = s ? e : b;
      if (len == 0) {
        if (s == 0) p[k++] = x;
        continue;
      }
      tsr_node *side = NULL;
      int st = TSR_OK;
      switch (mode) {
      case 0:
        st = constant_like(x, d, len, cv[d][s], x->dtype, &side);
        break;
      case 1: { /* edge: the first or last element broadcast */
        tsr_node *edge;
        tsr_grid g;
        st = take_range(x, d, s ? n - 1 : 0, 1, 1, &edge);
        if (st == TSR_OK) {
          tsr_node *shape_of;
          st = constant_like(x, d, len, 1.0, TSR_BOOL, &shape_of);
          if (st == TSR_OK) st = tsr_grid_copy(&g, &shape_of->grid);
          if (st == TSR_OK) {
            st = broadcast_on(edge, &g, &side);
            tsr_grid_free(&g);
          }
        }
        break;
      }
      case 2: /* reflect: b .. 1 before, n-2 .. n-1-e after */
        st = take_range(x, d, s ? n - 2 : len, -1, len, &side);
        break;
      case 3: /* symmetric: b-1 .. 0 before, n-1 .. n-e after */
        st = take_range(x, d, s ? n - 1 : len - 1, -1, len, &side);
        break;
      default: /* wrap: the last b before, the first e after */
        st = take_range(x, d, s ? 0 : n - len, 1, len, &side);
        break;
      }
      TSR_CHECK(fail(c, call, st));
      p[k++] = side;
      if (s == 0) p[k++] = x;
    }
    TSR_CHECK(fail(c, call, join(p, k, d, &x)));
  }
  *out = x;
  return TSR_OK;
}

/* dask's repeat: each chunk cut into slabs at np.linspace(start, stop,
 * repeats).round(), each slab repeated (stacked `repeats` times behind
 * the axis and the two axes merged), the slabs joined. */
static int repeat(tsr_ctx *c, const ast_node *call, tsr_node *x, tsr_args *a, tsr_node **out) {
  long long r, ax;
  int nd = x->grid.ndim, axis;
  TSR_CHECK(tsr_arg_int(c, a, 1, "repeats", &r));
  if (r < 0)
    return tsr_ctx_error(c, a->at[1], TSR_ERR_VALUE, "negative dimensions are not allowed");
  if (!a->given[2] || a->v[2].kind == V_NONE) {
    if (nd != 1)
      return tsr_ctx_error(
          c, call, TSR_ERR_VALUE,
          "repeat needs an axis for arrays of more than one dimension (as dask's)");
    ax = 0;
  } else {
    TSR_CHECK(tsr_arg_int(c, a, 2, "axis", &ax));
  }
  TSR_CHECK(tsr_axis_index(c, a->at[2] ? a->at[2] : call, ax, nd, "axis", &axis));
  if (r == 1) {
    *out = x;
    return TSR_OK;
  }
  if (r == 0) return fail(c, call, take_range(x, axis, 0, 1, 0, out));
  if (r > MAX_JOIN || nd + 1 > TSR_MAXDIM)
    return tsr_ctx_error(c, call, TSR_ERR_VALUE,
                         "repeat takes at most %d repeats of an array of at most %d dimensions",
                         MAX_JOIN, TSR_MAXDIM - 1);
  const tsr_grid *g = &x->grid;
  int64_t nslabs = 0;
  tsr_node **slabs = malloc(sizeof(tsr_node *) * (size_t)(g->nchunks[axis] * r + 1));
  tsr_node **copies = malloc(sizeof(tsr_node *) * (size_t)r);
  int st = slabs && copies ? TSR_OK : TSR_ERROR(TSR_ERR_MEMORY, "out of memory in repeat");
  for (int64_t ch = 0; st == TSR_OK && ch < g->nchunks[axis]; ch++) {
    double lo = (double)g->starts[axis][ch], hi = (double)g->starts[axis][ch + 1];
    double step = (hi - lo) / (double)(r - 1), prev = nearbyint(lo);
    for (long long k = 1; st == TSR_OK && k < r; k++) {
      double next = k == r - 1 ? hi : nearbyint(lo + (double)k * step);
      if (next == prev) continue;
      tsr_node *slab = NULL, *stacked = NULL;
      st = take_range(x, axis, (int64_t)prev, 1, (int64_t)(next - prev), &slab);
      if (st == TSR_OK) st = new_axes(slab, nd + 1, 1u << (axis + 1), &slab);
      for (long long q = 0; st == TSR_OK && q < r; q++) copies[q] = slab;
      if (st == TSR_OK) st = join(copies, (int)r, axis + 1, &stacked);
      if (st == TSR_OK)
        st = tsr_node_one_chunk(stacked, 3u << axis, &stacked); /* a slab: one chunk, as dask's */
      int64_t shape[TSR_MAXDIM];
      for (int d = 0; d < nd; d++)
        shape[d] = slab->grid.shape[d < axis ? d : d == axis ? d : d + 1];
      shape[axis] = (int64_t)(next - prev) * r;
      if (st == TSR_OK) st = tsr_node_reshape(stacked, nd, shape, &slabs[nslabs++]);
      prev = next;
    }
  }
  if (st == TSR_OK)
    st = nslabs ? join(slabs, (int)nslabs, axis, out) : take_range(x, axis, 0, 1, 0, out);
  free(slabs);
  free(copies);
  return fail(c, call, st);
}

int tsr_node_pad_constant(tsr_node *x, const int64_t (*w)[2], double value, tsr_node **out) {
  for (int d = 0; d < x->grid.ndim; d++) {
    tsr_node *p[3];
    int k = 0;
    if (w[d][0] > 0) TSR_CHECK(constant_like(x, d, w[d][0], value, x->dtype, &p[k++]));
    p[k++] = x;
    if (w[d][1] > 0) TSR_CHECK(constant_like(x, d, w[d][1], value, x->dtype, &p[k++]));
    if (k > 1) TSR_CHECK(join(p, k, d, &x));
  }
  *out = x;
  return TSR_OK;
}

/* ---- take, diag ---- */

int tsr_node_take(tsr_node *x, int axis, const int64_t *idx, int64_t n, tsr_node **out) {
  const tsr_grid *g = &x->grid;
  if (n == 0) return take_range(x, axis, 0, 1, 0, out);
  if (n > MAX_JOIN * MAX_JOIN)
    return TSR_ERROR(TSR_ERR_VALUE, "take: at most %d indices", MAX_JOIN * MAX_JOIN);
  tsr_node **runs = calloc((size_t)n, sizeof(tsr_node *)), **ones = NULL;
  int64_t nruns = 0;
  int st = runs ? TSR_OK : TSR_ERROR(TSR_ERR_MEMORY, "out of memory in take");
  /* dask's slicing_plan: runs of consecutive indices in one chunk, each a chunk */
  for (int64_t i = 0; st == TSR_OK && i < n;) {
    int64_t ch = tsr_grid_find(g, axis, idx[i]), j = i + 1;
    while (j < n && tsr_grid_find(g, axis, idx[j]) == ch) j++;
    int64_t len = j - i, step = len > 1 ? idx[i + 1] - idx[i] : 1;
    int ap = step != 0;
    for (int64_t k = i + 1; ap && k < j; k++) ap = idx[k] - idx[k - 1] == step;
    if (ap) { /* a slice of the chunk */
      st = take_range(x, axis, idx[i], step, len, &runs[nruns++]);
    } else { /* elements joined, then made one chunk */
      tsr_node *r = NULL;
      if (!ones) ones = malloc(sizeof(tsr_node *) * (size_t)MAX_JOIN);
      if (!ones || len > MAX_JOIN)
        st = TSR_ERROR(TSR_ERR_VALUE, "take: at most %d indices a chunk out of order", MAX_JOIN);
      for (int64_t k = 0; st == TSR_OK && k < len; k++)
        st = take_range(x, axis, idx[i + k], 1, 1, &ones[k]);
      if (st == TSR_OK) st = join(ones, (int)len, axis, &r);
      if (st == TSR_OK) st = tsr_node_one_chunk(r, 1u << axis, &r);
      runs[nruns++] = r;
    }
    i = j;
  }
  if (st == TSR_OK && nruns > MAX_JOIN)
    st = TSR_ERROR(TSR_ERR_VALUE, "take: the indices make %lld runs of one chunk each, at most %d",
                   (long long)nruns, MAX_JOIN);
  if (st == TSR_OK) st = join(runs, (int)nruns, axis, out);
  free(runs);
  free(ones);
  return st;
}

/* take(a, indices, axis=None): indices an int or a list of ints. */
static int take(tsr_ctx *c, const ast_node *call, tsr_node *x, tsr_args *a, tsr_node **out) {
  long long ax = 0;
  int axis = 0, scalar = a->v[1].kind != V_TUPLE;
  if (!a->given[2] || a->v[2].kind == V_NONE) {
    TSR_CHECK(fail(c, call, ravel(x, &x)));
  } else {
    TSR_CHECK(tsr_arg_int(c, a, 2, "axis", &ax));
    TSR_CHECK(tsr_axis_index(c, a->at[2], ax, x->grid.ndim, "axis", &axis));
  }
  const tsr_value *v = &a->v[1];
  int64_t n = scalar ? 1 : v->nitems, len = x->grid.shape[axis];
  int64_t *idx = malloc(sizeof(int64_t) * (size_t)(n + 1));
  if (!idx) return tsr_ctx_error(c, call, TSR_ERR_MEMORY, "out of memory in take");
  for (int64_t k = 0; k < n; k++) {
    const tsr_value *e = scalar ? v : &v->items[k];
    if (e->kind != V_INT) {
      free(idx);
      return tsr_ctx_error(c, a->at[1], TSR_ERR_INDEX, "indices must be integers, got %s",
                           tsr_value_type_name(e));
    }
    if (e->i < -len || e->i >= len) {
      free(idx);
      return tsr_ctx_error(c, a->at[1], TSR_ERR_INDEX,
                           "index %lld is out of bounds for axis %d with size %lld", e->i, axis,
                           (long long)len);
    }
    idx[k] = e->i < 0 ? e->i + len : e->i;
  }
  int st = tsr_node_take(x, axis, idx, n, out);
  free(idx);
  if (st == TSR_OK && scalar) { /* an int index drops the axis */
    tsr_axis_sel sel[TSR_MAXDIM];
    for (int d = 0; d < (*out)->grid.ndim; d++)
      sel[d] = (tsr_axis_sel){TSR_SEL_SLICE, 0, 1, (*out)->grid.shape[d], 0};
    sel[axis] = (tsr_axis_sel){TSR_SEL_INDEX, 0, 0, 0, 0};
    st = tsr_node_select(*out, sel, (*out)->grid.ndim, out);
  }
  return fail(c, call, st);
}

/* topk(a, k, axis=-1): dask's, the k largest along axis in descending
 * order (k < 0: the |k| smallest, ascending), NaN counted largest as in
 * NumPy's sorts; one chunk of |k| along axis. Through sort (the axis
 * rechunked to one chunk), then a slice. */
static int topk(tsr_ctx *c, const ast_node *call, tsr_node *x, tsr_args *a, int arg,
                tsr_node **out) {
  long long k, ax = -1;
  int axis;
  TSR_CHECK(tsr_arg_int(c, a, 1, "k", &k));
  if (a->given[2]) TSR_CHECK(tsr_arg_int(c, a, 2, "axis", &ax));
  if (x->grid.ndim == 0) return tsr_ctx_error(c, a->at[0], TSR_ERR_SHAPE, "topk of a 0-d array");
  TSR_CHECK(tsr_axis_index(c, a->at[2] ? a->at[2] : call, ax, x->grid.ndim, "axis", &axis));
  int64_t n = x->grid.shape[axis], m = k < 0 ? -k : k;
  if (k == 0 || m > n)
    return tsr_ctx_error(c, a->at[1], TSR_ERR_VALUE,
                         "topk: k must be 1 to %lld or -1 to -%lld, got %lld", (long long)n,
                         (long long)n, k);
  tsr_node *s;
  TSR_CHECK(fail(c, call, tsr_node_sort(x, axis, arg ? TSR_SORT_ARG : TSR_SORT_ONLY, 0.0, &s)));
  return fail(c, call,
              k > 0 ? take_range(s, axis, n - 1, -1, m, out) : take_range(s, axis, 0, 1, m, out));
}

static int broadcast_to(tsr_ctx *c, const ast_node *call, tsr_node *x, tsr_args *a,
                        tsr_node **out) {
  long long dims[TSR_MAXDIM];
  int n = 0, nd = x->grid.ndim;
  TSR_CHECK(arg_ints(c, a, 1, "shape", TSR_MAXDIM, dims, &n));
  int64_t shape[TSR_MAXDIM];
  int ok = n >= nd;
  for (int d = 0; d < n; d++) {
    if (dims[d] < 0)
      return tsr_ctx_error(c, a->at[1], TSR_ERR_VALUE,
                           "all elements of broadcast shape must be non-negative");
    shape[d] = dims[d];
    int xd = d - (n - nd);
    if (xd >= 0 && x->grid.shape[xd] != 1 && x->grid.shape[xd] != shape[d]) ok = 0;
  }
  if (!ok) {
    char s1[96], s2[96];
    tsr_shape_format(nd, x->grid.shape, s1, sizeof s1);
    tsr_shape_format(n, shape, s2, sizeof s2);
    return tsr_ctx_error(c, call, TSR_ERR_SHAPE,
                         "operands could not be broadcast together with remapped shapes: %s and "
                         "requested shape %s",
                         s1, s2);
  }
  tsr_grid g;
  TSR_CHECK(fail(c, call, broadcast_grid(x, n, shape, &g)));
  int st = broadcast_on(x, &g, out);
  tsr_grid_free(&g);
  return fail(c, call, st);
}

/* fftshift (sign 1) and ifftshift (-1): NumPy's, a roll by sign * (n // 2)
 * along each axis of axes (None: every axis). */
static int fft_shift(tsr_ctx *c, const ast_node *call, tsr_node *x, tsr_args *a, int sign,
                     tsr_node **out) {
  long long axes[TSR_MAXDIM];
  int na = 0, nd = x->grid.ndim;
  if (a->given[1] && a->v[1].kind != V_NONE) {
    TSR_CHECK(arg_ints(c, a, 1, "axes", TSR_MAXDIM, axes, &na));
  } else {
    for (int d = 0; d < nd; d++) axes[na++] = d;
  }
  tsr_node *r = x;
  for (int i = 0; i < na; i++) {
    int axis;
    TSR_CHECK(tsr_axis_index(c, a->at[1] ? a->at[1] : call, axes[i], nd, "axis", &axis));
    TSR_CHECK(fail(c, call, roll_axis(r, axis, sign * (x->grid.shape[axis] / 2), &r)));
  }
  *out = r;
  return TSR_OK;
}

/* dask's broadcast_chunks: along each axis the chunks of the arrays that
 * are not 1 long there (1 when none is); 0 when two of them differ (dask
 * refuses; each array then keeps its own, as broadcast_to's). */
static int common_chunks(tsr_node *const *xs, int n, int nd, const int64_t *shape, tsr_grid *g) {
  const int64_t *sizes[TSR_MAXDIM];
  int64_t nch[TSR_MAXDIM], one[TSR_MAXDIM];
  for (int d = 0; d < nd; d++) {
    sizes[d] = NULL, one[d] = shape[d], nch[d] = shape[d] ? 1 : 0;
    for (int i = 0; i < n; i++) {
      int xd = d - (nd - xs[i]->grid.ndim);
      if (xd < 0 || xs[i]->grid.shape[xd] == 1) continue;
      const tsr_grid *xg = &xs[i]->grid;
      if (!sizes[d]) {
        sizes[d] = xg->sizes[xd], nch[d] = xg->nchunks[xd];
      } else if (nch[d] != xg->nchunks[xd] ||
                 memcmp(sizes[d], xg->sizes[xd], sizeof(int64_t) * (size_t)nch[d]) != 0) {
        return 0;
      }
    }
    if (!sizes[d]) sizes[d] = &one[d];
  }
  return tsr_grid_init_lists(g, nd, shape, sizes, nch) == TSR_OK;
}

/* broadcast_arrays(a, b, ...): each broadcast to the shape of all (NumPy's
 * rules), on dask's common chunks where the arrays' chunks align, else
 * each on its own chunks broadcast, as a tuple. */
static int broadcast_arrays(tsr_ctx *c, const ast_node *call, tsr_args *a, tsr_value *out) {
  tsr_node *xs[TSR_MAX_PARAMS];
  int n = 0, nd = 0;
  int64_t shape[TSR_MAXDIM];
  for (int i = 0; i < TSR_MAX_PARAMS && a->given[i]; i++, n++) {
    TSR_CHECK(tsr_as_array(c, &a->v[i], a->at[i], tsr_value_dtype(&a->v[i]), &xs[i]));
    if (xs[i]->grid.ndim > nd) nd = xs[i]->grid.ndim;
  }
  for (int d = 0; d < nd; d++) shape[d] = 1;
  for (int i = 0; i < n; i++)
    for (int d = 0, k = nd - xs[i]->grid.ndim; d < xs[i]->grid.ndim; d++) {
      int64_t len = xs[i]->grid.shape[d], *have = &shape[k + d];
      if (len != 1 && *have != 1 && len != *have)
        return tsr_ctx_error(c, a->at[i], TSR_ERR_SHAPE,
                             "shape mismatch: objects cannot be broadcast to a single shape.  "
                             "Mismatch is between arg 0 and arg %d.",
                             i);
      if (len != 1) *have = len;
    }
  tsr_grid common;
  int aligned = common_chunks(xs, n, nd, shape, &common);
  for (int i = 0; i < n; i++) {
    tsr_grid g;
    int st = aligned ? TSR_OK : broadcast_grid(xs[i], nd, shape, &g);
    if (st == TSR_OK) st = broadcast_on(xs[i], aligned ? &common : &g, &xs[i]);
    if (!aligned) tsr_grid_free(&g);
    if (st != TSR_OK && aligned) tsr_grid_free(&common);
    TSR_CHECK(fail(c, call, st));
  }
  if (aligned) tsr_grid_free(&common);
  return tsr_set_tuple(c, xs, n, out);
}

int tsr_b_join(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a,
               tsr_value *out) {
  if (def->code == JOIN_BROADCAST_ARRAYS) return broadcast_arrays(c, call, a, out);
  tsr_join_kind kind = (tsr_join_kind)def->code;
  tsr_node *xs[MAX_JOIN], *x = NULL, *r = NULL;
  int n = 0;
  switch (kind) {
  case JOIN_CONCATENATE: {
    TSR_CHECK(arg_arrays(c, a, 0, "concatenate", xs, &n));
    long long ax = 0;
    if (a->given[1] && a->v[1].kind == V_NONE) { /* flattened first */
      for (int k = 0; k < n; k++) TSR_CHECK(fail(c, call, ravel(xs[k], &xs[k])));
    } else if (a->given[1]) {
      TSR_CHECK(tsr_arg_int(c, a, 1, "axis", &ax));
    }
    TSR_CHECK(concat_checked(c, a->at[1] ? a->at[1] : call, xs, n, ax, &r));
    break;
  }
  case JOIN_STACK:
    TSR_CHECK(arg_arrays(c, a, 0, "stack", xs, &n));
    TSR_CHECK(stack(c, call, xs, n, a, &r));
    break;
  case JOIN_HSTACK:
  case JOIN_VSTACK:
  case JOIN_DSTACK:
  case JOIN_COLUMN_STACK:
    TSR_CHECK(arg_arrays(c, a, 0, def->name, xs, &n));
    TSR_CHECK(stack_kind(c, call, kind, xs, n, &r));
    break;
  case JOIN_BLOCK: {
    int depth = 0, nd = 0;
    TSR_CHECK(block_depth(c, a->at[0], &a->v[0], &depth, &nd));
    if (depth > nd) nd = depth;
    if (nd > TSR_MAXDIM)
      return tsr_ctx_error(c, call, TSR_ERR_VALUE, "at most %d dimensions are supported",
                           TSR_MAXDIM);
    TSR_CHECK(block_rec(c, a->at[0], &a->v[0], 0, depth, nd, &r));
    break;
  }
  case JOIN_APPEND: {
    TSR_CHECK(tsr_as_array(c, &a->v[0], a->at[0], tsr_value_dtype(&a->v[0]), &xs[0]));
    TSR_CHECK(tsr_as_array(c, &a->v[1], a->at[1], tsr_value_dtype(&a->v[1]), &xs[1]));
    long long ax = 0;
    if (!a->given[2] || a->v[2].kind == V_NONE) {
      for (int k = 0; k < 2; k++) TSR_CHECK(fail(c, call, ravel(xs[k], &xs[k])));
    } else {
      TSR_CHECK(tsr_arg_int(c, a, 2, "axis", &ax));
    }
    TSR_CHECK(concat_checked(c, call, xs, 2, ax, &r));
    break;
  }
  default:
    TSR_CHECK(tsr_as_array(c, &a->v[0], a->at[0], tsr_value_dtype(&a->v[0]), &x));
    switch (kind) {
    case JOIN_RESHAPE:
      TSR_CHECK(reshape(c, call, x, a, &r));
      break;
    case JOIN_RAVEL:
      TSR_CHECK(fail(c, call, ravel(x, &r)));
      break;
    case JOIN_ROLL:
      TSR_CHECK(roll(c, call, x, a, &r));
      break;
    case JOIN_ROT90:
      TSR_CHECK(rot90(c, call, x, a, &r));
      break;
    case JOIN_TILE:
      TSR_CHECK(tile(c, call, x, a, &r));
      break;
    case JOIN_PAD:
      TSR_CHECK(pad(c, call, x, a, &r));
      break;
    case JOIN_REPEAT:
      TSR_CHECK(repeat(c, call, x, a, &r));
      break;
    case JOIN_BROADCAST_TO:
      TSR_CHECK(broadcast_to(c, call, x, a, &r));
      break;
    case JOIN_TAKE:
      TSR_CHECK(take(c, call, x, a, &r));
      break;
    case JOIN_FFTSHIFT:
    case JOIN_IFFTSHIFT:
      TSR_CHECK(fft_shift(c, call, x, a, kind == JOIN_FFTSHIFT ? 1 : -1, &r));
      break;
    case JOIN_TOPK:
    case JOIN_ARGTOPK:
      TSR_CHECK(topk(c, call, x, a, def->code == JOIN_ARGTOPK, &r));
      break;
    default:
      return tsr_ctx_error(c, call, TSR_ERR_INTERNAL, "unknown join function %s", def->name);
    }
  }
  tsr_set_array(out, r);
  return TSR_OK;
}
