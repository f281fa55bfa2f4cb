/*
 * ops_linalg.c - the linear-algebra builtins (ops_linalg.h): they check
 * shapes and chunking while the job is read, so that a bad call is reported
 * at its line and column before any work, and create N_LINALG nodes.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "eval/ops_linalg.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/dtype.h"

#include "util/error.h"
#include "graph/groups.h"

/* A grid from per-axis chunk size lists (ndim 0 to 2). */
static int grid_of(int ndim, const int64_t *shape, const int64_t *const *sizes, const int64_t *n,
                   tsr_grid *g) {
  memset(g, 0, sizeof *g);
  if (ndim == 0) return tsr_grid_init_regular(g, 0, shape, shape);
  return tsr_grid_init_lists(g, ndim, shape, sizes, n);
}

static int new_node(int op, tsr_node *x, tsr_node *y, double param, int ndim, const int64_t *shape,
                    const int64_t *const *sizes, const int64_t *n, tsr_dtype dt, tsr_node **out) {
  tsr_grid g;
  TSR_CHECK(grid_of(ndim, shape, sizes, n, &g));
  int st = tsr_node_linalg(op, x, y, param, &g, dt, out);
  tsr_grid_free(&g);
  return st;
}

/* x with its axes in the order perm (output axis i is x's axis perm[i]): a
 * view (fuse/fuse.c), with x's chunks in that order; a transpose of a
 * transpose is one transpose, and the identity x itself. */
static int transpose_node(tsr_ctx *c, const ast_node *at, tsr_node *x, const int *perm,
                          tsr_value *out) {
  tsr_node *t;
  TSR_CHECK(tsr_ctx_relocate(c, at, tsr_node_transpose(x, perm, &t)));
  tsr_set_array(out, t);
  return TSR_OK;
}

/* An axis argument (one integer, negative from the end) of ndim axes. */
static int axis_of(tsr_ctx *c, const ast_node *at, const tsr_value *v, int nd, const char *what,
                   int *axis) {
  if (v->kind != V_INT && v->kind != V_BOOL)
    return tsr_ctx_error(c, at, TSR_ERR_TYPE, "%s must be an integer, got %s", what,
                         tsr_value_type_name(v));
  return tsr_axis_index(c, at, v->i, nd, what, axis);
}

/* Axes given as an integer or a tuple (list) of them into ax[*n], each in
 * range and none repeated. */
static int axis_list(tsr_ctx *c, const ast_node *at, const tsr_value *v, int nd, const char *what,
                     int *ax, int *n) {
  int one = v->kind != V_TUPLE;
  *n = one ? 1 : v->nitems;
  if (*n > TSR_MAXDIM)
    return tsr_ctx_error(c, at, TSR_ERR_VALUE, "%s: more than %d axes", what, TSR_MAXDIM);
  for (int k = 0; k < *n; k++) {
    TSR_CHECK(axis_of(c, at, one ? v : &v->items[k], nd, what, &ax[k]));
    for (int j = 0; j < k; j++)
      if (ax[j] == ax[k]) return tsr_ctx_error(c, at, TSR_ERR_VALUE, "repeated axis in %s", what);
  }
  return TSR_OK;
}

int tsr_b_transpose(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a,
                    tsr_value *out) {
  (void)def;
  tsr_node *x;
  TSR_CHECK(tsr_arg_array(c, a, 0, "transpose", &x));
  int nd = x->grid.ndim, perm[TSR_MAXDIM], n = nd;
  for (int i = 0; i < nd; i++) perm[i] = nd - 1 - i; /* None: the axes reversed */
  if (a->given[1] && a->v[1].kind != V_NONE) {
    TSR_CHECK(axis_list(c, a->at[1], &a->v[1], nd, "axes", perm, &n));
    if (n != nd)
      return tsr_ctx_error(c, a->at[1], TSR_ERR_VALUE,
                           "axes don't match array: %d axes for an array of dimension %d", n, nd);
  }
  return transpose_node(c, call, x, perm, out);
}

int tsr_b_swapaxes(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a,
                   tsr_value *out) {
  (void)def;
  tsr_node *x;
  TSR_CHECK(tsr_arg_array(c, a, 0, "swapaxes", &x));
  int nd = x->grid.ndim, perm[TSR_MAXDIM], i1 = 0, i2 = 0;
  TSR_CHECK(axis_of(c, a->at[1], &a->v[1], nd, "axis1", &i1));
  TSR_CHECK(axis_of(c, a->at[2], &a->v[2], nd, "axis2", &i2));
  for (int i = 0; i < nd; i++) perm[i] = i;
  perm[i1] = i2, perm[i2] = i1;
  return transpose_node(c, call, x, perm, out);
}

/* NumPy's moveaxis: the other axes in order, then each source axis inserted
 * at its destination, in increasing destination order. */
int tsr_b_moveaxis(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a,
                   tsr_value *out) {
  (void)def;
  tsr_node *x;
  TSR_CHECK(tsr_arg_array(c, a, 0, "moveaxis", &x));
  int nd = x->grid.ndim, src[TSR_MAXDIM], dst[TSR_MAXDIM], ns = 0, nt = 0, order[TSR_MAXDIM], k = 0;
  TSR_CHECK(axis_list(c, a->at[1], &a->v[1], nd, "source", src, &ns));
  TSR_CHECK(axis_list(c, a->at[2], &a->v[2], nd, "destination", dst, &nt));
  if (ns != nt)
    return tsr_ctx_error(c, call, TSR_ERR_VALUE,
                         "`source` and `destination` arguments must have the same number of "
                         "elements (%d and %d)",
                         ns, nt);
  for (int i = 0; i < nd; i++) {
    int moved = 0;
    for (int j = 0; j < ns; j++) moved |= src[j] == i;
    if (!moved) order[k++] = i;
  }
  for (int d = 0; d < nd; d++) /* destinations in increasing order */
    for (int j = 0; j < ns; j++) {
      if (dst[j] != d) continue;
      for (int m = k; m > d; m--) order[m] = order[m - 1];
      order[d] = src[j], k++;
    }
  return transpose_node(c, call, x, order, out);
}

/* diagonal(a, offset=0, axis1=0, axis2=1) as NumPy's: the other axes, then
 * the diagonal (a view, fuse/fuse.c). Its chunks break where axis1's or
 * axis2's do, so that each lies in one input chunk. Arguments at 1..3. */
static int diagonal_node(tsr_ctx *c, const ast_node *call, tsr_node *x, tsr_args *a,
                         tsr_node **out) {
  const tsr_grid *g = &x->grid;
  int nd = g->ndim, a1 = 0, a2 = 1;
  long long off = 0;
  if (nd < 2)
    return tsr_ctx_error(c, call, TSR_ERR_SHAPE,
                         "diag requires an array of at least two dimensions");
  if (a->given[1]) TSR_CHECK(tsr_arg_int(c, a, 1, "offset", &off));
  if (a->given[2]) TSR_CHECK(axis_of(c, a->at[2], &a->v[2], nd, "axis1", &a1));
  if (a->given[3]) TSR_CHECK(axis_of(c, a->at[3], &a->v[3], nd, "axis2", &a2));
  if (a1 == a2)
    return tsr_ctx_error(c, a->at[3] ? a->at[3] : call, TSR_ERR_VALUE,
                         "axis1 and axis2 cannot be the same");
  int64_t r0 = off < 0 ? -off : 0, c0 = off > 0 ? off : 0;
  int64_t len = g->shape[a1] - r0 < g->shape[a2] - c0 ? g->shape[a1] - r0 : g->shape[a2] - c0;
  if (len < 0) len = 0;
  int64_t shape[TSR_MAXDIM], n[TSR_MAXDIM], *cuts = calloc((size_t)(len + 2), sizeof(int64_t));
  const int64_t *sizes[TSR_MAXDIM];
  if (!cuts) return tsr_ctx_error(c, call, TSR_ERR_MEMORY, "out of memory");
  int k = 0;
  for (int d = 0; d < nd; d++)
    if (d != a1 && d != a2) shape[k] = g->shape[d], n[k] = g->nchunks[d], sizes[k++] = g->sizes[d];
  /* cuts[i]: a chunk of the diagonal starts at i (a chunk start of axis1 or axis2) */
  for (int ax = 0; ax < 2; ax++) {
    int d = ax ? a2 : a1;
    int64_t at = 0, shift = ax ? c0 : r0;
    for (int64_t j = 0; j < g->nchunks[d]; at += g->sizes[d][j++])
      if (at - shift > 0 && at - shift < len) cuts[at - shift] = 1;
  }
  int64_t nd_sizes = 0, *dsz = calloc((size_t)(len + 1), sizeof(int64_t));
  if (!dsz) {
    free(cuts);
    return tsr_ctx_error(c, call, TSR_ERR_MEMORY, "out of memory");
  }
  for (int64_t i = 0, from = 0; i <= len; i++)
    if (i == len || (i > 0 && cuts[i])) {
      if (i > from || len == 0) dsz[nd_sizes++] = i - from;
      from = i;
    }
  shape[k] = len, n[k] = nd_sizes, sizes[k] = dsz;
  int st = new_node(LA_DIAGONAL, x, NULL, tsr_diag_code(off, a1, a2), nd - 1, shape, sizes, n,
                    x->dtype, out);
  free(cuts), free(dsz);
  return tsr_ctx_relocate(c, call, st);
}

int tsr_b_diagonal(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a,
                   tsr_value *out) {
  tsr_node *x, *d;
  TSR_CHECK(tsr_arg_array(c, a, 0, def->name, &x));
  TSR_CHECK(diagonal_node(c, call, x, a, &d));
  if (def->code == 0) { /* diagonal */
    tsr_set_array(out, d);
    return TSR_OK;
  }
  /* trace: the diagonal summed (NumPy's sum types; dtype= as sum's) */
  tsr_dtype dt = TSR_F64;
  int typed = a->given[4] && a->v[4].kind != V_NONE;
  if (typed) {
    TSR_CHECK(tsr_arg_dtype(c, a, 4, &dt));
    TSR_CHECK(tsr_node_astype(d, dt, &d));
  }
  tsr_node *r;
  int last = d->grid.ndim - 1;
  TSR_CHECK(tsr_ctx_relocate(c, call, tsr_node_reduce(RED_SUM, d, last ? last : -1, 0, 0, &r)));
  if (typed) TSR_CHECK(tsr_node_astype(r, dt, &r));
  tsr_set_array(out, r);
  return TSR_OK;
}

static void shape_text(const tsr_grid *g, char *buf, size_t n) {
  tsr_shape_format(g->ndim, g->shape, buf, n);
}

static int matmul_values(tsr_ctx *c, const ast_node *at, const tsr_value *x, const ast_node *xat,
                         const tsr_value *y, const ast_node *yat, tsr_value *out) {
  const tsr_value *v[2] = {x, y};
  const ast_node *w[2] = {xat, yat};
  for (int i = 0; i < 2; i++) {
    if (v[i]->kind != V_ARRAY)
      return tsr_ctx_error(c, w[i], TSR_ERR_TYPE,
                           "matrix product operands must be arrays, got %s (use * to scale)",
                           tsr_value_type_name(v[i]));
    int nd = v[i]->arr->grid.ndim;
    if (nd < 1 || nd > 2)
      return tsr_ctx_error(c, w[i], TSR_ERR_SHAPE,
                           "matrix product of 1-d and 2-d arrays only, got %d dimensions", nd);
  }
  const tsr_grid *gx = &x->arr->grid, *gy = &y->arr->grid;
  int64_t kx = gx->shape[gx->ndim - 1], ky = gy->shape[0];
  if (kx != ky) {
    char sx[64], sy[64];
    shape_text(gx, sx, sizeof sx);
    shape_text(gy, sy, sizeof sy);
    return tsr_ctx_error(
        c, at, TSR_ERR_SHAPE,
        "matrix product: shapes %s and %s not aligned: %lld (dim %d) != %lld (dim 0)", sx, sy,
        (long long)kx, gx->ndim - 1, (long long)ky);
  }
  int nd = 0;
  int64_t shape[2], n[2];
  const int64_t *sizes[2];
  if (gx->ndim == 2) {
    shape[nd] = gx->shape[0];
    n[nd] = gx->nchunks[0];
    sizes[nd++] = gx->sizes[0];
  }
  if (gy->ndim == 2) {
    shape[nd] = gy->shape[1];
    n[nd] = gy->nchunks[1];
    sizes[nd++] = gy->sizes[1];
  }
  tsr_dtype dt = x->arr->dtype == TSR_F32 && y->arr->dtype == TSR_F32 ? TSR_F32 : TSR_F64;
  tsr_node *r;
  TSR_CHECK(
      tsr_ctx_relocate(c, at, new_node(LA_MATMUL, x->arr, y->arr, 0, nd, shape, sizes, n, dt, &r)));
  tsr_set_array(out, r);
  return TSR_OK;
}

int tsr_b_matmul(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a,
                 tsr_value *out) {
  (void)def;
  return matmul_values(c, call, &a->v[0], a->at[0], &a->v[1], a->at[1], out);
}

/* outer(a, b) (def->code 0): a.ravel()[:, None] * b.ravel()[None, :],
 * fused, dask's chunks; inner(a, b) (1): for 1-d operands sum(a * b), for
 * a 2-d one a product with the other's last axis (a @ b.T, a @ b, b @ a);
 * vdot(a, b) (2): sum(ravel(a) * ravel(b)). Sums are tessera's (by chunk,
 * in order), not BLAS's: equal to NumPy's within rounding. */
int tsr_b_products(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a,
                   tsr_value *out) {
  tsr_node *x[2];
  for (int i = 0; i < 2; i++) {
    TSR_CHECK(tsr_as_array(c, &a->v[i], a->at[i], tsr_value_dtype(&a->v[i]), &x[i]));
  }
  tsr_node *r;
  if (def->code == 0 || def->code == 2) {
    for (int i = 0; i < 2; i++) {
      int64_t size = tsr_node_size(x[i]);
      TSR_CHECK(tsr_ctx_relocate(c, call, tsr_node_reshape(x[i], 1, &size, &x[i])));
    }
    if (def->code == 2) {
      if (x[0]->grid.shape[0] != x[1]->grid.shape[0])
        return tsr_ctx_error(c, call, TSR_ERR_SHAPE,
                             "vectors have different lengths (%lld and %lld)",
                             (long long)x[0]->grid.shape[0], (long long)x[1]->grid.shape[0]);
      TSR_CHECK(tsr_ctx_relocate(c, call, tsr_node_binary(EW_MUL, x[0], x[1], &r)));
      TSR_CHECK(tsr_ctx_relocate(c, call, tsr_node_reduce(RED_SUM, r, -1, 0, 0, &r)));
    } else {
      tsr_axis_sel s0[2] = {{TSR_SEL_SLICE, 0, 1, x[0]->grid.shape[0], 0},
                            {TSR_SEL_NEWAXIS, 0, 0, 0, 0}};
      tsr_axis_sel s1[2] = {{TSR_SEL_NEWAXIS, 0, 0, 0, 0},
                            {TSR_SEL_SLICE, 0, 1, x[1]->grid.shape[0], 0}};
      TSR_CHECK(tsr_ctx_relocate(c, call, tsr_node_select(x[0], s0, 2, &x[0])));
      TSR_CHECK(tsr_ctx_relocate(c, call, tsr_node_select(x[1], s1, 2, &x[1])));
      TSR_CHECK(tsr_ctx_relocate(c, call, tsr_node_binary(EW_MUL, x[0], x[1], &r)));
    }
    tsr_set_array(out, r);
    return TSR_OK;
  }
  int n0 = x[0]->grid.ndim, n1 = x[1]->grid.ndim;
  if (n0 == 0 || n1 == 0) {
    TSR_CHECK(tsr_ctx_relocate(c, call, tsr_node_binary(EW_MUL, x[0], x[1], &r)));
    tsr_set_array(out, r);
    return TSR_OK;
  }
  if (x[0]->grid.shape[n0 - 1] != x[1]->grid.shape[n1 - 1])
    return tsr_ctx_error(
        c, call, TSR_ERR_SHAPE,
        "shapes of inner's operands do not match on their last axes (%lld and %lld)",
        (long long)x[0]->grid.shape[n0 - 1], (long long)x[1]->grid.shape[n1 - 1]);
  if (n0 == 1 && n1 == 1) {
    TSR_CHECK(tsr_ctx_relocate(c, call, tsr_node_binary(EW_MUL, x[0], x[1], &r)));
    TSR_CHECK(tsr_ctx_relocate(c, call, tsr_node_reduce(RED_SUM, r, -1, 0, 0, &r)));
    tsr_set_array(out, r);
    return TSR_OK;
  }
  if (n0 > 2 || n1 > 2)
    return tsr_ctx_error(c, call, TSR_ERR_SHAPE,
                         "inner of arrays of more than 2 dimensions is not supported");
  tsr_value v0, v1;
  memset(&v0, 0, sizeof v0);
  memset(&v1, 0, sizeof v1);
  v0.kind = v1.kind = V_ARRAY;
  if (n1 == 2) { /* b.T */
    const tsr_grid *g = &x[1]->grid;
    int64_t shape[2] = {g->shape[1], g->shape[0]}, n[2] = {g->nchunks[1], g->nchunks[0]};
    const int64_t *sizes[2] = {g->sizes[1], g->sizes[0]};
    TSR_CHECK(tsr_ctx_relocate(
        c, call, new_node(LA_TRANSPOSE, x[1], NULL, 0, 2, shape, sizes, n, x[1]->dtype, &x[1])));
  }
  v0.arr = x[0], v1.arr = x[1]; /* a @ b.T: inner(a, B) = a @ B.T too (B @ a) */
  return matmul_values(c, call, &v0, a->at[0], &v1, a->at[1], out);
}

/* The input of qr/svd: a 2-d array with one column of chunks. */
static int tall_input(tsr_ctx *c, const tsr_args *a, const char *what, tsr_node **x) {
  if (a->v[0].kind != V_ARRAY)
    return tsr_ctx_error(c, a->at[0], TSR_ERR_TYPE, "%s needs a 2-d array, got %s", what,
                         tsr_value_type_name(&a->v[0]));
  const tsr_grid *g = &a->v[0].arr->grid;
  if (g->ndim != 2)
    return tsr_ctx_error(c, a->at[0], TSR_ERR_SHAPE, "%s needs a 2-d array, got %d dimensions",
                         what, g->ndim);
  if (g->shape[0] == 0 || g->shape[1] == 0)
    return tsr_ctx_error(c, a->at[0], TSR_ERR_SHAPE, "%s of an empty array", what);
  if (g->nchunks[1] != 1)
    return tsr_ctx_error(c, a->at[0], TSR_ERR_SHAPE,
                         "%s needs one column of chunks (tall-skinny QR), but the array's %lld "
                         "columns are split in %lld chunks: use rechunk(x, (%lld, %lld)) first",
                         what, (long long)g->shape[1], (long long)g->nchunks[1],
                         (long long)g->sizes[0][0], (long long)g->shape[1]);
  *x = a->v[0].arr;
  return TSR_OK;
}

/* q, r = qr(x) */
int tsr_b_qr(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a, tsr_value *out) {
  (void)def;
  tsr_node *x = NULL, *o[2];
  TSR_CHECK(tall_input(c, a, "qr", &x));
  const tsr_grid *g = &x->grid;
  int64_t m = g->shape[0], n = g->shape[1], K = m < n ? m : n;
  int64_t qs[2] = {m, K}, qn[2] = {g->nchunks[0], 1}, rs[2] = {K, n}, rn[2] = {1, 1};
  const int64_t *qsz[2] = {g->sizes[0], &qs[1]}, *rsz[2] = {&rs[0], &rs[1]};
  TSR_CHECK(
      tsr_ctx_relocate(c, call, new_node(LA_QR_Q, x, NULL, 0, 2, qs, qsz, qn, x->dtype, &o[0])));
  TSR_CHECK(
      tsr_ctx_relocate(c, call, new_node(LA_QR_R, x, NULL, 0, 2, rs, rsz, rn, x->dtype, &o[1])));
  TSR_CHECK(tsr_group_add(o, 2));
  return tsr_set_tuple(c, o, 2, out);
}

/* u, s, vt = svd(x, k=None) */
int tsr_b_svd(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a,
              tsr_value *out) {
  (void)def;
  tsr_node *x = NULL, *o[3];
  TSR_CHECK(tall_input(c, a, "svd", &x));
  const tsr_grid *g = &x->grid;
  int64_t m = g->shape[0], n = g->shape[1], K = m < n ? m : n, k = K;
  if (a->given[1] && a->v[1].kind != V_NONE) {
    long long kk;
    TSR_CHECK(tsr_arg_int(c, a, 1, "k", &kk));
    if (kk < 1 || kk > K)
      return tsr_ctx_error(c, a->at[1], TSR_ERR_VALUE,
                           "k must be 1 to %lld (min of the shape), got %lld", (long long)K, kk);
    k = kk;
  }
  double param = k == K ? 0.0 : (double)k;
  int64_t us[2] = {m, k}, un[2] = {g->nchunks[0], 1}, ss[1] = {k}, sn[1] = {1}, vs[2] = {k, n},
          vn[2] = {1, 1};
  const int64_t *usz[2] = {g->sizes[0], &us[1]}, *ssz[1] = {&ss[0]}, *vsz[2] = {&vs[0], &vs[1]};
  TSR_CHECK(tsr_ctx_relocate(c, call,
                             new_node(LA_SVD_U, x, NULL, param, 2, us, usz, un, x->dtype, &o[0])));
  TSR_CHECK(tsr_ctx_relocate(c, call,
                             new_node(LA_SVD_S, x, NULL, param, 1, ss, ssz, sn, x->dtype, &o[1])));
  TSR_CHECK(tsr_ctx_relocate(c, call,
                             new_node(LA_SVD_VT, x, NULL, param, 2, vs, vsz, vn, x->dtype, &o[2])));
  TSR_CHECK(tsr_group_add(o, 3));
  return tsr_set_tuple(c, o, 3, out);
}

/* ---- cov, corrcoef --------------------------------------------------------- */

/* x as NumPy's cov reads it: float64 (float32 kept), 1-d as one row, the
 * variables as rows (rowvar=False: columns, unless x has one row). */
static int cov_rows(tsr_ctx *c, const ast_node *at, const tsr_value *v, int rowvar,
                    tsr_node **out) {
  tsr_node *x;
  TSR_CHECK(tsr_as_array(c, v, at, TSR_F64, &x));
  if (x->grid.ndim > 2) return tsr_ctx_error(c, at, TSR_ERR_SHAPE, "m has more than 2 dimensions");
  if (!tsr_dtype_is_float(x->dtype))
    TSR_CHECK(tsr_ctx_relocate(c, at, tsr_node_astype(x, TSR_F64, &x)));
  if (x->grid.ndim < 2) { /* atleast_2d: a new first axis */
    tsr_axis_sel sel[2] = {{TSR_SEL_NEWAXIS, 0, 0, 0, 0}, {TSR_SEL_SLICE, 0, 1, 0, 0}};
    int n = x->grid.ndim;
    if (n == 1) sel[1].count = x->grid.shape[0];
    TSR_CHECK(tsr_ctx_relocate(c, at, tsr_node_select(x, sel, n + 1, &x)));
  }
  if (!rowvar && x->grid.shape[0] != 1) {
    int perm[2] = {1, 0};
    TSR_CHECK(tsr_ctx_relocate(c, at, tsr_node_transpose(x, perm, &x)));
  }
  *out = x;
  return TSR_OK;
}

/* NumPy's cov: rows centred on their means, X X^T times 1 / (N - ddof)
 * (ddof: 1, 0 with bias, or given), squeezed. */
static int cov_node(tsr_ctx *c, const ast_node *call, tsr_args *a, int with_ddof, tsr_node **out) {
  long long rowvar = 1, bias = 0, ddof = -1;
  if (a->given[2]) TSR_CHECK(tsr_arg_int(c, a, 2, "rowvar", &rowvar));
  if (with_ddof && a->given[3]) TSR_CHECK(tsr_arg_int(c, a, 3, "bias", &bias));
  if (with_ddof && a->given[4] && a->v[4].kind != V_NONE)
    TSR_CHECK(tsr_arg_int(c, a, 4, "ddof", &ddof));
  tsr_node *x, *y, *mu, *t;
  TSR_CHECK(cov_rows(c, a->at[0], &a->v[0], rowvar != 0, &x));
  if (a->given[1] && a->v[1].kind != V_NONE) {
    TSR_CHECK(cov_rows(c, a->at[1], &a->v[1], rowvar != 0, &y));
    if (y->grid.shape[1] != x->grid.shape[1])
      return tsr_ctx_error(c, a->at[1], TSR_ERR_SHAPE,
                           "all the input array dimensions except for the concatenation axis must "
                           "match exactly (%lld observations and %lld)",
                           (long long)x->grid.shape[1], (long long)y->grid.shape[1]);
    TSR_CHECK(tsr_ctx_relocate(c, call, tsr_node_concat(x, y, 0, &x)));
  }
  if (ddof < 0) ddof = bias ? 0 : 1;
  int64_t n = x->grid.shape[1], k = x->grid.shape[0];
  double fact = (double)n - (double)ddof;
  if (fact <= 0) fact = 0.0; /* NumPy warns and divides by 0 */
  int perm[2] = {1, 0};
  tsr_value vx, vt, r;
  int st = tsr_node_reduce(RED_MEAN, x, 1, 1, 0, &mu);
  if (st == TSR_OK) st = tsr_node_binary(EW_SUB, x, mu, &x);
  if (st == TSR_OK) st = tsr_node_transpose(x, perm, &t);
  TSR_CHECK(tsr_ctx_relocate(c, call, st));
  tsr_set_array(&vx, x);
  tsr_set_array(&vt, t);
  TSR_CHECK(matmul_values(c, call, &vx, call, &vt, call, &r));
  tsr_node *cv = r.arr;
  TSR_CHECK(tsr_ctx_relocate(c, call, tsr_node_op_number(EW_MUL, cv, 1.0 / fact, &cv)));
  if (k == 1) { /* squeezed: 0-d */
    tsr_axis_sel sel[2] = {{TSR_SEL_INDEX, 0, 0, 0, 0}, {TSR_SEL_INDEX, 0, 0, 0, 0}};
    TSR_CHECK(tsr_ctx_relocate(c, call, tsr_node_select(cv, sel, 2, &cv)));
  }
  *out = cv;
  return TSR_OK;
}

/* cov(m, y=None, rowvar=True, bias=False, ddof=None) (def->code 0) and
 * corrcoef(x, y=None, rowvar=True) (1): NumPy's, the latter cov over the
 * outer product of its diagonal's square roots, clipped to [-1, 1]. */
int tsr_b_cov(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a,
              tsr_value *out) {
  tsr_node *cv;
  TSR_CHECK(cov_node(c, call, a, def->code == 0, &cv));
  if (def->code == 0) {
    tsr_set_array(out, cv);
    return TSR_OK;
  }
  int st = TSR_OK;
  if (cv->grid.ndim == 0) { /* NumPy: c / c */
    st = tsr_node_binary(EW_DIV, cv, cv, &cv);
  } else {
    int64_t k = cv->grid.shape[0];
    tsr_node *d, *sd, *rows, *cols;
    tsr_args none;
    memset(&none, 0, sizeof none);
    TSR_CHECK(diagonal_node(c, call, cv, &none, &d));
    st = tsr_node_unary(EW_SQRT, d, &sd);
    tsr_axis_sel col[2] = {{TSR_SEL_SLICE, 0, 1, k, 0}, {TSR_SEL_NEWAXIS, 0, 0, 0, 0}};
    tsr_axis_sel row[2] = {{TSR_SEL_NEWAXIS, 0, 0, 0, 0}, {TSR_SEL_SLICE, 0, 1, k, 0}};
    if (st == TSR_OK) st = tsr_node_select(sd, col, 2, &rows);
    if (st == TSR_OK) st = tsr_node_select(sd, row, 2, &cols);
    if (st == TSR_OK) st = tsr_node_binary(EW_DIV, cv, rows, &cv);
    if (st == TSR_OK) st = tsr_node_binary(EW_DIV, cv, cols, &cv);
    if (st == TSR_OK) st = tsr_node_op_number(EW_MAX, cv, -1.0, &cv); /* NumPy's clip */
    if (st == TSR_OK) st = tsr_node_op_number(EW_MIN, cv, 1.0, &cv);
  }
  TSR_CHECK(tsr_ctx_relocate(c, call, st));
  tsr_set_array(out, cv);
  return TSR_OK;
}
