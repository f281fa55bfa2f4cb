/*
 * ops_mask.c - boolean masks (ops_mask.h). x[mask] follows dask.array:
 * x and the mask raveled over the mask's axes (reshape: dask's chunks), the
 * mask on x's chunks of that axis; each chunk's count is computed while
 * the job is read, and the selection (N_COMPRESS) has those counts as its
 * chunks (dask's nan chunks, known here: reductions, printing, saving and
 * everything else take the result as any array). A chunk with none
 * selected leaves no chunk (dask keeps a chunk of 0). The rest are built
 * on it: nonzero selects the flat indices (arange) where the array is
 * nonzero and unravels them; unique selects the first of each run of the
 * sorted values (NumPy's: one NaN).
 */
#include "eval/ops_mask.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/quantile.h"
#include "util/error.h"

static int given(const tsr_args *a, int i) { return a->given[i] && a->v[i].kind != V_NONE; }

/* x reshaped to ndim axes of shape (x itself when it has it). */
static int reshaped(tsr_node *x, int ndim, const int64_t *shape, tsr_node **out) {
  int same = x->grid.ndim == ndim;
  for (int d = 0; same && d < ndim; d++) same = x->grid.shape[d] == shape[d];
  if (same) return *out = x, TSR_OK;
  return tsr_node_reshape(x, ndim, shape, out);
}

/* The rows of x2 (R, ...) where m1 (R,) is true: m1 on x2's chunks of
 * axis 0, its chunks' counts computed now. */
static int select_rows(tsr_ctx *c, const ast_node *at, tsr_node *x2, tsr_node *m1, tsr_node **out) {
  int64_t R = x2->grid.shape[0];
  if (m1->dtype != TSR_BOOL) TSR_CHECK(tsr_ctx_relocate(c, at, tsr_node_astype(m1, TSR_BOOL, &m1)));
  tsr_grid g;
  const int64_t *sizes[1] = {x2->grid.sizes[0]};
  int64_t n = x2->grid.nchunks[0];
  TSR_CHECK(tsr_ctx_relocate(c, at, tsr_grid_init_lists(&g, 1, &R, sizes, &n)));
  int st = tsr_node_rechunk(m1, &g, &m1);
  tsr_grid_free(&g);
  TSR_CHECK(tsr_ctx_relocate(c, at, st));
  if (R == 0) return *out = x2, TSR_OK;
  tsr_node *counts;
  const double *cv;
  TSR_CHECK(tsr_ctx_relocate(c, at, tsr_node_chunk_counts(m1, &counts)));
  TSR_CHECK(tsr_eager_values(c, at, counts, INT64_MAX, "a boolean mask", &cv));
  double total = 0;
  for (int64_t k = 0; k < n; k++) total += cv[2 * k + 1];
  if (total == 0) { /* none: x2[:0] */
    tsr_axis_sel sel = {TSR_SEL_SLICE, 0, 1, 0, 0};
    return tsr_ctx_relocate(c, at, tsr_node_select(x2, &sel, 1, out));
  }
  return tsr_ctx_relocate(c, at, tsr_node_compress(x2, m1, cv, out));
}

int tsr_mask_select(tsr_ctx *c, const ast_node *at, tsr_node *x, tsr_node *m, tsr_node **out) {
  int k = m->grid.ndim, nd = x->grid.ndim;
  if (k == 0)
    return tsr_ctx_error(c, at, TSR_ERR_INDEX,
                         "a 0-d boolean index is not supported: use a mask "
                         "of the array's shape");
  if (k > nd)
    return tsr_ctx_error(c, at, TSR_ERR_INDEX,
                         "too many indices for array: array is %d-dimensional, but %d were indexed",
                         nd, k);
  for (int d = 0; d < k; d++)
    if (m->grid.shape[d] != x->grid.shape[d])
      return tsr_ctx_error(c, at, TSR_ERR_INDEX,
                           "boolean index did not match indexed array along dimension %d; "
                           "dimension is %lld but corresponding boolean dimension is %lld",
                           d, (long long)x->grid.shape[d], (long long)m->grid.shape[d]);
  int64_t R = 1, shape[TSR_MAXDIM];
  for (int d = 0; d < k; d++) R *= x->grid.shape[d];
  shape[0] = R;
  for (int d = k; d < nd; d++) shape[d - k + 1] = x->grid.shape[d];
  tsr_node *x2, *m1;
  TSR_CHECK(tsr_ctx_relocate(c, at, reshaped(x, nd - k + 1, shape, &x2)));
  TSR_CHECK(tsr_ctx_relocate(c, at, reshaped(m, 1, &R, &m1)));
  return select_rows(c, at, x2, m1, out);
}

/* The flat (C order) indices of x's nonzero elements, int64. */
static int flat_nonzero(tsr_ctx *c, const ast_node *at, tsr_node *x, tsr_node **out) {
  int64_t R = tsr_node_size(x);
  tsr_node *m, *idx;
  TSR_CHECK(tsr_ctx_relocate(c, at, reshaped(x, 1, &R, &m)));
  TSR_CHECK(tsr_ctx_relocate(c, at, tsr_node_astype(m, TSR_BOOL, &m)));
  TSR_CHECK(tsr_ctx_relocate(c, at, tsr_node_arange(0.0, 1.0, &m->grid, TSR_I64, &idx)));
  return select_rows(c, at, idx, m, out);
}

/* The tuple of x's nonzero indices along each axis (NumPy's nonzero; a 0-d
 * x as a 1-d one, as NumPy's atleast_1d). */
static int nonzero_nodes(tsr_ctx *c, const ast_node *at, tsr_node *x, tsr_node **idx, int *nd) {
  tsr_node *flat;
  TSR_CHECK(flat_nonzero(c, at, x, &flat));
  *nd = x->grid.ndim ? x->grid.ndim : 1;
  int64_t stride = 1;
  for (int d = *nd - 1; d >= 0; d--) {
    int64_t len = x->grid.ndim ? x->grid.shape[d] : 1;
    tsr_node *q = flat;
    if (stride > 1) TSR_CHECK(tsr_node_op_number(EW_FLOOR_DIVIDE, q, (double)stride, &q));
    if (d > 0) TSR_CHECK(tsr_node_op_number(EW_REMAINDER, q, (double)len, &q));
    idx[d] = q;
    stride *= len;
  }
  return TSR_OK;
}

int tsr_mask_where(tsr_ctx *c, const ast_node *call, tsr_node *cond, tsr_value *out) {
  tsr_node *idx[TSR_MAXDIM];
  int nd;
  TSR_CHECK(nonzero_nodes(c, call, cond, idx, &nd));
  return tsr_set_tuple(c, idx, nd, out);
}

int tsr_b_nonzero(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a,
                  tsr_value *out) {
  tsr_node *x, *r;
  TSR_CHECK(tsr_as_array(c, &a->v[0], a->at[0], TSR_F64, &x));
  if (def->code == 1) {
    TSR_CHECK(flat_nonzero(c, call, x, &r));
    tsr_set_array(out, r);
    return TSR_OK;
  }
  if (def->code == 0) return tsr_mask_where(c, call, x, out);
  /* argwhere: the indices as columns, (N, ndim); a 0-d x: (N, 0) */
  tsr_node *idx[TSR_MAXDIM];
  int nd;
  TSR_CHECK(nonzero_nodes(c, call, x, idx, &nd));
  int64_t n = idx[0]->grid.shape[0];
  if (x->grid.ndim == 0) { /* (N, 0) */
    tsr_axis_sel sel[2] = {{TSR_SEL_SLICE, 0, 1, n, 0}, {TSR_SEL_NEWAXIS, 0, 0, 0, 0}};
    tsr_axis_sel none[2] = {{TSR_SEL_SLICE, 0, 1, n, 0}, {TSR_SEL_SLICE, 0, 1, 0, 0}};
    TSR_CHECK(tsr_ctx_relocate(c, call, tsr_node_select(idx[0], sel, 2, &r)));
    TSR_CHECK(tsr_ctx_relocate(c, call, tsr_node_select(r, none, 2, &r)));
    tsr_set_array(out, r);
    return TSR_OK;
  }
  r = NULL;
  for (int d = 0; d < nd; d++) {
    tsr_node *col;
    tsr_axis_sel sel[2] = {{TSR_SEL_SLICE, 0, 1, n, 0}, {TSR_SEL_NEWAXIS, 0, 0, 0, 0}};
    TSR_CHECK(tsr_ctx_relocate(c, call, tsr_node_select(idx[d], sel, 2, &col)));
    if (r)
      TSR_CHECK(tsr_ctx_relocate(c, call, tsr_node_concat(r, col, 1, &r)));
    else
      r = col;
  }
  if (nd > 1) TSR_CHECK(tsr_ctx_relocate(c, call, tsr_node_one_chunk(r, 2u, &r)));
  tsr_set_array(out, r);
  return TSR_OK;
}

/* compress(condition, a, axis=None) and extract(condition, arr): NumPy's,
 * the condition 1-d (compress: at most the axis's length, the rest taken
 * as False) or (extract) of arr's size, over arr raveled. */
int tsr_b_compress(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a,
                   tsr_value *out) {
  tsr_node *cond, *x, *r;
  TSR_CHECK(tsr_as_array(c, &a->v[0], a->at[0], TSR_BOOL, &cond));
  TSR_CHECK(tsr_as_array(c, &a->v[1], a->at[1], TSR_F64, &x));
  int64_t size = tsr_node_size(x), csize = tsr_node_size(cond);
  if (cond->dtype != TSR_BOOL)
    TSR_CHECK(tsr_ctx_relocate(c, call, tsr_node_astype(cond, TSR_BOOL, &cond)));
  if (def->code == 1) { /* extract: both raveled */
    if (csize != size)
      return tsr_ctx_error(c, a->at[0], TSR_ERR_SHAPE,
                           "extract: the condition has %lld elements, arr %lld", (long long)csize,
                           (long long)size);
    TSR_CHECK(tsr_ctx_relocate(c, call, reshaped(x, 1, &size, &x)));
    TSR_CHECK(tsr_ctx_relocate(c, call, reshaped(cond, 1, &size, &cond)));
    TSR_CHECK(select_rows(c, call, x, cond, &r));
    tsr_set_array(out, r);
    return TSR_OK;
  }
  if (cond->grid.ndim != 1)
    return tsr_ctx_error(c, a->at[0], TSR_ERR_SHAPE, "condition must be a 1-d array");
  int axis = -1;
  if (given(a, 2)) TSR_CHECK(tsr_arg_axis(c, a, 2, x->grid.ndim, &axis));
  if (axis < 0) {
    TSR_CHECK(tsr_ctx_relocate(c, call, reshaped(x, 1, &size, &x)));
    axis = 0;
  }
  int64_t len = x->grid.shape[axis];
  if (csize > len)
    return tsr_ctx_error(c, a->at[0], TSR_ERR_INDEX,
                         "index %lld is out of bounds for axis %d with size %lld", (long long)len,
                         axis, (long long)len);
  /* the axis first, cut to the condition's length, rows selected, back */
  int nd = x->grid.ndim, perm[TSR_MAXDIM];
  tsr_axis_sel sel[TSR_MAXDIM];
  for (int d = 0; d < nd; d++)
    sel[d] = (tsr_axis_sel){TSR_SEL_SLICE, 0, 1, d == axis ? csize : x->grid.shape[d], 0};
  TSR_CHECK(tsr_ctx_relocate(c, call, tsr_node_select(x, sel, nd, &x)));
  perm[0] = axis;
  for (int d = 0, k = 1; d < nd; d++)
    if (d != axis) perm[k++] = d;
  TSR_CHECK(tsr_ctx_relocate(c, call, tsr_node_transpose(x, perm, &x)));
  TSR_CHECK(select_rows(c, call, x, cond, &r));
  int back[TSR_MAXDIM];
  for (int d = 0; d < nd; d++) back[perm[d]] = d;
  TSR_CHECK(tsr_ctx_relocate(c, call, tsr_node_transpose(r, back, &r)));
  tsr_set_array(out, r);
  return TSR_OK;
}

/* ---- unique, union1d, intersect1d --------------------------------------- */

/* x[first : first + count] of a 1-d x. */
static int part(tsr_node *x, int64_t first, int64_t count, tsr_node **out) {
  tsr_axis_sel sel = {TSR_SEL_SLICE, first, 1, count, 0};
  return tsr_node_select(x, &sel, 1, out);
}

/* Whether each element of the sorted 1-d s starts a run of equal values
 * (NumPy's unique: NaN equal to NaN, the sort put them last). */
static int run_starts(tsr_node *s, tsr_node **out) {
  int64_t n = s->grid.shape[0], one = 1;
  tsr_node *a, *b, *ne, *na, *nb, *first;
  TSR_CHECK(part(s, 1, n - 1, &a));
  TSR_CHECK(part(s, 0, n - 1, &b));
  TSR_CHECK(tsr_node_binary(EW_NOT_EQUAL, a, b, &ne));
  TSR_CHECK(tsr_node_unary(EW_ISNAN, a, &na));
  TSR_CHECK(tsr_node_unary(EW_ISNAN, b, &nb));
  TSR_CHECK(tsr_node_binary(EW_LOGICAL_AND, na, nb, &na));
  TSR_CHECK(tsr_node_unary(EW_LOGICAL_NOT, na, &na));
  TSR_CHECK(tsr_node_binary(EW_LOGICAL_AND, ne, na, &ne));
  tsr_grid g;
  TSR_CHECK(tsr_grid_init_regular(&g, 1, &one, &one));
  int st = tsr_node_full(1.0, &g, TSR_BOOL, &first);
  tsr_grid_free(&g);
  TSR_CHECK(st);
  return tsr_node_concat(first, ne, 0, out);
}

/* unique(x) raveled, and (want_index, want_counts) NumPy's return_index
 * and return_counts, into r[0..*n-1]. */
static int unique_of(tsr_ctx *c, const ast_node *at, tsr_node *x, int want_index, int want_counts,
                     tsr_node **r, int *nr) {
  int64_t n = tsr_node_size(x);
  tsr_node *flat, *s, *keep;
  TSR_CHECK(tsr_ctx_relocate(c, at, reshaped(x, 1, &n, &flat)));
  TSR_CHECK(tsr_ctx_relocate(c, at, tsr_node_sort(flat, 0, TSR_SORT_ONLY, 0.0, &s)));
  *nr = 0;
  if (n == 0) { /* empty: every result empty (index and counts int64) */
    r[(*nr)++] = s;
    tsr_node *e;
    TSR_CHECK(tsr_ctx_relocate(c, at, tsr_node_astype(s, TSR_I64, &e)));
    if (want_index) r[(*nr)++] = e;
    if (want_counts) r[(*nr)++] = e;
    return TSR_OK;
  }
  TSR_CHECK(tsr_ctx_relocate(c, at, run_starts(s, &keep)));
  TSR_CHECK(select_rows(c, at, s, keep, &r[(*nr)++]));
  if (want_index) {
    tsr_node *p;
    TSR_CHECK(tsr_ctx_relocate(c, at, tsr_node_sort(flat, 0, TSR_SORT_ARG, 0.0, &p)));
    TSR_CHECK(select_rows(c, at, p, keep, &r[(*nr)++]));
  }
  if (want_counts) { /* the runs' starts, then the differences to the next start (or n) */
    tsr_node *idx, *next, *end, *cnt;
    TSR_CHECK(tsr_ctx_relocate(c, at, tsr_node_arange(0.0, 1.0, &s->grid, TSR_I64, &idx)));
    TSR_CHECK(select_rows(c, at, idx, keep, &idx));
    int64_t k = idx->grid.shape[0], one = 1;
    tsr_grid g;
    TSR_CHECK(tsr_grid_init_regular(&g, 1, &one, &one));
    int st = tsr_node_full((double)n, &g, TSR_I64, &end);
    tsr_grid_free(&g);
    if (st == TSR_OK) st = part(idx, 1, k - 1, &next);
    if (st == TSR_OK) st = tsr_node_concat(next, end, 0, &next);
    if (st == TSR_OK) st = tsr_node_binary(EW_SUB, next, idx, &cnt);
    TSR_CHECK(tsr_ctx_relocate(c, at, st));
    r[(*nr)++] = cnt;
  }
  return TSR_OK;
}

int tsr_b_unique(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a,
                 tsr_value *out) {
  tsr_node *x, *y, *r[3];
  int nr = 0;
  TSR_CHECK(tsr_as_array(c, &a->v[0], a->at[0], TSR_F64, &x));
  if (def->code == 0) { /* unique(ar, return_index, return_inverse, return_counts, axis) */
    long long ri = 0, rv = 0, rc = 0;
    if (given(a, 1)) TSR_CHECK(tsr_arg_int(c, a, 1, "return_index", &ri));
    if (given(a, 2)) TSR_CHECK(tsr_arg_int(c, a, 2, "return_inverse", &rv));
    if (given(a, 3)) TSR_CHECK(tsr_arg_int(c, a, 3, "return_counts", &rc));
    if (rv)
      return tsr_ctx_error(c, a->at[2], TSR_ERR_VALUE,
                           "unique: return_inverse is not supported (dask's needs a pass over the "
                           "whole array per unique value)");
    if (given(a, 4))
      return tsr_ctx_error(c, a->at[4], TSR_ERR_VALUE,
                           "unique: axis= is not supported, as dask's: the array is raveled");
    TSR_CHECK(unique_of(c, call, x, ri != 0, rc != 0, r, &nr));
    if (nr == 1) {
      tsr_set_array(out, r[0]);
      return TSR_OK;
    }
    return tsr_set_tuple(c, r, nr, out);
  }
  TSR_CHECK(tsr_as_array(c, &a->v[1], a->at[1], TSR_F64, &y));
  int64_t nx = tsr_node_size(x), ny = tsr_node_size(y);
  TSR_CHECK(tsr_ctx_relocate(c, call, reshaped(x, 1, &nx, &x)));
  TSR_CHECK(tsr_ctx_relocate(c, call, reshaped(y, 1, &ny, &y)));
  if (def->code == 1) { /* union1d: unique of both */
    tsr_node *both;
    TSR_CHECK(tsr_ctx_relocate(c, call, tsr_node_concat(x, y, 0, &both)));
    TSR_CHECK(unique_of(c, call, both, 0, 0, r, &nr));
    tsr_set_array(out, r[0]);
    return TSR_OK;
  }
  if (def->code == 3) { /* setdiff1d: a's distinct values not in b */
    tsr_node *ux, *uy, *all, *u[3], *odd, *one, *nan, *keep, *res;
    TSR_CHECK(unique_of(c, call, x, 0, 0, &ux, &nr));
    TSR_CHECK(unique_of(c, call, y, 0, 0, &uy, &nr));
    /* in ux, uy, uy a value of b's is there at least twice; one of a's alone
     * once; NaN (one of each unique) an odd number of times when a has it */
    int st = tsr_node_concat(ux, uy, 0, &all);
    if (st == TSR_OK) st = tsr_node_concat(all, uy, 0, &all);
    TSR_CHECK(tsr_ctx_relocate(c, call, st));
    TSR_CHECK(unique_of(c, call, all, 0, 1, u, &nr));
    st = tsr_node_op_number(EW_REMAINDER, u[1], 2.0, &odd);
    if (st == TSR_OK) st = tsr_node_op_number(EW_EQUAL, odd, 1.0, &odd);
    if (st == TSR_OK) st = tsr_node_op_number(EW_EQUAL, u[1], 1.0, &one);
    if (st == TSR_OK) st = tsr_node_unary(EW_ISNAN, u[0], &nan);
    if (st == TSR_OK) st = tsr_node_where(nan, odd, one, &keep);
    TSR_CHECK(tsr_ctx_relocate(c, call, st));
    TSR_CHECK(select_rows(c, call, u[0], keep, &res));
    tsr_set_array(out, res);
    return TSR_OK;
  }
  if (def->code == 4) { /* setxor1d: NumPy's, the sorted uniques' lone values */
    tsr_node *ux, *uy, *aux, *neq, *lo, *hi, *t, *keep, *res;
    TSR_CHECK(unique_of(c, call, x, 0, 0, &ux, &nr));
    TSR_CHECK(unique_of(c, call, y, 0, 0, &uy, &nr));
    TSR_CHECK(tsr_ctx_relocate(c, call, tsr_node_concat(ux, uy, 0, &aux)));
    int64_t n = aux->grid.shape[0], one = 1;
    if (n < 2) {
      tsr_set_array(out, aux); /* one value or none: itself */
      return TSR_OK;
    }
    TSR_CHECK(tsr_ctx_relocate(c, call, tsr_node_sort(aux, 0, TSR_SORT_ONLY, 0.0, &aux)));
    tsr_grid g;
    int st = part(aux, 1, n - 1, &hi);
    if (st == TSR_OK) st = part(aux, 0, n - 1, &lo);
    if (st == TSR_OK) st = tsr_node_binary(EW_NOT_EQUAL, hi, lo, &neq); /* NaN != NaN, as NumPy */
    if (st == TSR_OK) st = tsr_grid_init_regular(&g, 1, &one, &one);
    if (st == TSR_OK) {
      st = tsr_node_full(1.0, &g, TSR_BOOL, &t);
      tsr_grid_free(&g);
    }
    tsr_node *flag_lo, *flag_hi; /* flag[:-1] = [True] + neq, flag[1:] = neq + [True] */
    if (st == TSR_OK) st = tsr_node_concat(t, neq, 0, &flag_lo);
    if (st == TSR_OK) st = tsr_node_concat(neq, t, 0, &flag_hi);
    if (st == TSR_OK) st = tsr_node_binary(EW_LOGICAL_AND, flag_lo, flag_hi, &keep);
    TSR_CHECK(tsr_ctx_relocate(c, call, st));
    TSR_CHECK(select_rows(c, call, aux, keep, &res));
    tsr_set_array(out, res);
    return TSR_OK;
  }
  /* intersect1d: NumPy's, the values in both uniques (sorted together, a
   * value next to itself) */
  long long assume = 0;
  if (given(a, 2)) TSR_CHECK(tsr_arg_int(c, a, 2, "assume_unique", &assume));
  tsr_node *ux = x, *uy = y, *aux, *lo, *hi, *m, *res;
  if (!assume) {
    TSR_CHECK(unique_of(c, call, x, 0, 0, &ux, &nr));
    TSR_CHECK(unique_of(c, call, y, 0, 0, &uy, &nr));
  }
  TSR_CHECK(tsr_ctx_relocate(c, call, tsr_node_concat(ux, uy, 0, &aux)));
  int64_t n = aux->grid.shape[0];
  TSR_CHECK(tsr_ctx_relocate(c, call, tsr_node_sort(aux, 0, TSR_SORT_ONLY, 0.0, &aux)));
  if (n < 2) {
    TSR_CHECK(tsr_ctx_relocate(c, call, part(aux, 0, 0, &res)));
    tsr_set_array(out, res);
    return TSR_OK;
  }
  TSR_CHECK(tsr_ctx_relocate(c, call, part(aux, 1, n - 1, &hi)));
  TSR_CHECK(tsr_ctx_relocate(c, call, part(aux, 0, n - 1, &lo)));
  TSR_CHECK(tsr_ctx_relocate(c, call, tsr_node_binary(EW_EQUAL, hi, lo, &m)));
  TSR_CHECK(select_rows(c, call, lo, m, &res));
  tsr_set_array(out, res);
  return TSR_OK;
}
