/*
 * ops_lstsq.c - linear algebra composed of the thin SVD, QR and matmul
 * (ops_lstsq.h): lstsq, solve, inv and pinv through the SVD of a (its
 * tall-skinny TSQR, on device buffers with the CUDA backend), and dask's
 * randomized svd_compressed (a Philox-keyed sampling matrix, a TSQR, a
 * small SVD). Each builtin calls the table's own matmul, svd, qr and normal
 * (their checks and chunk rules), so it is NumPy's algebra in tessera's
 * pieces: values equal NumPy's within rounding (LAPACK's gelsd is an SVD
 * too; NumPy's solve and inv are LU: the same solution, other rounding).
 */
#include "eval/ops_lstsq.h"

#include <float.h>
#include <math.h>
#include <string.h>

#include "eval/ops.h"
#include "util/error.h"

/* The table's function name on arguments vals[0..n-1] (V_NONE: not given). */
static int call(tsr_ctx *c, const ast_node *at, const char *name, const tsr_value *vals, int n,
                tsr_value *out) {
  const tsr_op_def *d = tsr_op_find(name, 0);
  if (!d) return tsr_ctx_error(c, at, TSR_ERR_INTERNAL, "no function %s", name);
  tsr_args a;
  memset(&a, 0, sizeof a);
  for (int i = 0; i < n; i++) {
    a.v[i] = vals[i];
    a.given[i] = vals[i].kind != V_NONE;
    a.at[i] = at;
  }
  return d->fn(c, at, d, &a, out);
}

static tsr_value arr(tsr_node *x) {
  tsr_value v;
  memset(&v, 0, sizeof v);
  v.kind = V_ARRAY;
  v.arr = x;
  return v;
}

static int matmul(tsr_ctx *c, const ast_node *at, tsr_node *x, tsr_node *y, tsr_node **out) {
  tsr_value v[2] = {arr(x), arr(y)}, r;
  TSR_CHECK(call(c, at, "matmul", v, 2, &r));
  *out = r.arr;
  return TSR_OK;
}

static int transpose(tsr_ctx *c, const ast_node *at, tsr_node *x, tsr_node **out) {
  tsr_value v[1] = {arr(x)}, r;
  TSR_CHECK(call(c, at, "transpose", v, 1, &r));
  *out = r.arr;
  return TSR_OK;
}

/* u, s, vt of a 2-d x (rechunked to one column of chunks). */
static int svd3(tsr_ctx *c, const ast_node *at, tsr_node *x, tsr_node **u, tsr_node **s,
                tsr_node **vt) {
  TSR_CHECK(tsr_ctx_relocate(c, at, tsr_node_one_chunk(x, 2u, &x)));
  tsr_value v[1] = {arr(x)}, r;
  TSR_CHECK(call(c, at, "svd", v, 1, &r));
  *u = r.items[0].arr, *s = r.items[1].arr, *vt = r.items[2].arr;
  return TSR_OK;
}

/* The float64 (or float32) 2-d matrix of argument i: "WHAT needs a 2-d array". */
static int matrix(tsr_ctx *c, const tsr_args *a, int i, const char *what, tsr_node **x) {
  TSR_CHECK(tsr_arg_array(c, a, i, what, x));
  if ((*x)->grid.ndim != 2)
    return tsr_ctx_error(c, a->at[i], TSR_ERR_SHAPE, "%s needs a 2-d array, got %d dimensions",
                         what, (*x)->grid.ndim);
  if ((*x)->dtype != TSR_F64 && (*x)->dtype != TSR_F32)
    TSR_CHECK(tsr_ctx_relocate(c, a->at[i], tsr_node_astype(*x, TSR_F64, x)));
  return TSR_OK;
}

/* where(s > cutoff, 1 / s, 0), cutoff = rcond * max(s), and the count of
 * such s (the rank), from the singular values s. */
static int inverse_values(tsr_node *s, double rcond, tsr_node **inv, tsr_node **rank) {
  tsr_node *mx, *cut, *keep, *one, *zero;
  TSR_CHECK(tsr_node_reduce(RED_MAX, s, -1, 0, 0, &mx));
  TSR_CHECK(tsr_node_op_number(EW_MUL, mx, rcond, &cut));
  TSR_CHECK(tsr_node_binary(EW_GREATER, s, cut, &keep));
  TSR_CHECK(tsr_number_op_node(EW_DIV, 1.0, s, &one));
  TSR_CHECK(tsr_node_op_number(EW_MUL, s, 0.0, &zero));
  TSR_CHECK(tsr_node_where(keep, one, zero, inv));
  if (rank) {
    tsr_node *k;
    TSR_CHECK(tsr_node_astype(keep, TSR_I64, &k));
    TSR_CHECK(tsr_node_reduce(RED_SUM, k, -1, 0, 0, rank));
  }
  return TSR_OK;
}

/* pinv(a) = V diag(1 / s) U^T with the small s left out; b given: that
 * times b (b 1-d or 2-d), without forming the inverse. */
static int pseudo_solve(tsr_ctx *c, const ast_node *at, tsr_node *a, tsr_node *b, double rcond,
                        tsr_node **x, tsr_node **s_out, tsr_node **rank) {
  tsr_node *u, *s, *vt, *inv, *ut, *v, *y;
  TSR_CHECK(svd3(c, at, a, &u, &s, &vt));
  TSR_CHECK(tsr_ctx_relocate(c, at, inverse_values(s, rcond, &inv, rank)));
  TSR_CHECK(transpose(c, at, u, &ut));
  TSR_CHECK(transpose(c, at, vt, &v));
  if (b) { /* V (diag(inv) (U^T b)) */
    TSR_CHECK(matmul(c, at, ut, b, &y));
    tsr_node *w = inv;
    if (y->grid.ndim == 2) { /* inv as a column */
      tsr_axis_sel sel[2] = {{TSR_SEL_SLICE, 0, 1, inv->grid.shape[0], 0},
                             {TSR_SEL_NEWAXIS, 0, 0, 0, 0}};
      TSR_CHECK(tsr_ctx_relocate(c, at, tsr_node_select(inv, sel, 2, &w)));
    }
    TSR_CHECK(tsr_ctx_relocate(c, at, tsr_node_binary(EW_MUL, y, w, &y)));
    TSR_CHECK(matmul(c, at, v, y, x));
  } else { /* (V diag(inv)) U^T */
    tsr_axis_sel sel[2] = {{TSR_SEL_NEWAXIS, 0, 0, 0, 0},
                           {TSR_SEL_SLICE, 0, 1, inv->grid.shape[0], 0}};
    tsr_node *row;
    TSR_CHECK(tsr_ctx_relocate(c, at, tsr_node_select(inv, sel, 2, &row)));
    TSR_CHECK(tsr_ctx_relocate(c, at, tsr_node_binary(EW_MUL, v, row, &y)));
    TSR_CHECK(matmul(c, at, y, ut, x));
  }
  if (s_out) *s_out = s;
  return TSR_OK;
}

static int number_arg(tsr_ctx *c, const tsr_args *a, int i, double dflt, double *out) {
  *out = dflt;
  if (a->given[i] && a->v[i].kind != V_NONE) TSR_CHECK(tsr_arg_number(c, a, i, "rcond", out));
  return TSR_OK;
}

int tsr_b_lstsq(tsr_ctx *c, const ast_node *call_at, const tsr_op_def *def, tsr_args *a,
                tsr_value *out) {
  tsr_node *m, *b, *x;
  const char *name = def->name;
  TSR_CHECK(matrix(c, a, 0, name, &m));
  int64_t rows = m->grid.shape[0], cols = m->grid.shape[1];
  if (def->code == LSQ_INV || def->code == LSQ_PINV) {
    if (def->code == LSQ_INV && rows != cols)
      return tsr_ctx_error(c, a->at[0], TSR_ERR_SHAPE,
                           "Last 2 dimensions of the array must be square (got %lld x %lld)",
                           (long long)rows, (long long)cols);
    double rcond;
    TSR_CHECK(number_arg(c, a, 1, def->code == LSQ_PINV ? 1e-15 : 0.0, &rcond));
    TSR_CHECK(pseudo_solve(c, call_at, m, NULL, rcond, &x, NULL, NULL));
    tsr_set_array(out, x);
    return TSR_OK;
  }
  TSR_CHECK(tsr_arg_array(c, a, 1, name, &b));
  if (b->grid.ndim < 1 || b->grid.ndim > 2 || b->grid.shape[0] != rows)
    return tsr_ctx_error(c, a->at[1], TSR_ERR_SHAPE,
                         "%s: b must be 1-d or 2-d with %lld rows, got shape of %d dimensions "
                         "and %lld rows",
                         name, (long long)rows, b->grid.ndim,
                         (long long)(b->grid.ndim ? b->grid.shape[0] : 0));
  if (b->dtype != TSR_F64 && b->dtype != TSR_F32)
    TSR_CHECK(tsr_ctx_relocate(c, a->at[1], tsr_node_astype(b, TSR_F64, &b)));
  if (def->code == LSQ_SOLVE) {
    if (rows != cols)
      return tsr_ctx_error(c, a->at[0], TSR_ERR_SHAPE,
                           "Last 2 dimensions of the array must be square (got %lld x %lld)",
                           (long long)rows, (long long)cols);
    TSR_CHECK(pseudo_solve(c, call_at, m, b, 0.0, &x, NULL, NULL));
    tsr_set_array(out, x);
    return TSR_OK;
  }
  /* lstsq: x, residuals, rank, s (NumPy's rcond=None: eps * max(M, N)) */
  double rcond;
  TSR_CHECK(number_arg(c, a, 2, DBL_EPSILON * (double)(rows > cols ? rows : cols), &rcond));
  tsr_node *s, *rank, *fit, *res, *o[4];
  TSR_CHECK(pseudo_solve(c, call_at, m, b, rcond, &x, &s, &rank));
  TSR_CHECK(matmul(c, call_at, m, x, &fit)); /* residuals: sum((b - a x)^2) per column */
  TSR_CHECK(tsr_ctx_relocate(c, call_at, tsr_node_binary(EW_SUB, b, fit, &res)));
  TSR_CHECK(tsr_ctx_relocate(c, call_at, tsr_node_binary(EW_MUL, res, res, &res)));
  TSR_CHECK(tsr_ctx_relocate(
      c, call_at, tsr_node_reduce(RED_SUM, res, b->grid.ndim == 2 ? 0 : -1, 0, 0, &res)));
  if (res->grid.ndim == 0) { /* a 1-d b: shape (1,) */
    tsr_axis_sel sel[1] = {{TSR_SEL_NEWAXIS, 0, 0, 0, 0}};
    TSR_CHECK(tsr_ctx_relocate(c, call_at, tsr_node_select(res, sel, 1, &res)));
  }
  o[0] = x, o[1] = res, o[2] = rank, o[3] = s;
  return tsr_set_tuple(c, o, 4, out);
}

/* dask's svd_compressed(a, k, iterator="power", n_power_iter=0,
 * n_oversamples=10, seed=None): a sampling matrix of normals (Philox,
 * keyed by seed), power iterations, a TSQR of the samples, the SVD of the
 * compressed matrix, the top k, and dask's svd_flip of the signs. */
int tsr_b_svd_compressed(tsr_ctx *c, const ast_node *at, const tsr_op_def *def, tsr_args *a,
                         tsr_value *out) {
  (void)def;
  tsr_node *x;
  long long k, iters = 0, over = 10;
  TSR_CHECK(matrix(c, a, 0, "svd_compressed", &x));
  TSR_CHECK(tsr_arg_int(c, a, 1, "k", &k));
  if (a->given[2]) {
    const char *it;
    TSR_CHECK(tsr_arg_string(c, a, 2, "iterator", &it));
    if (strcmp(it, "power"))
      return tsr_ctx_error(c, a->at[2], TSR_ERR_VALUE,
                           "iterator '%s' is not supported: only 'power'", it);
  }
  if (a->given[3]) TSR_CHECK(tsr_arg_int(c, a, 3, "n_power_iter", &iters));
  if (a->given[4]) TSR_CHECK(tsr_arg_int(c, a, 4, "n_oversamples", &over));
  int64_t m = x->grid.shape[0], n = x->grid.shape[1], small = m < n ? m : n;
  if (k < 1 || k > small)
    return tsr_ctx_error(c, a->at[1], TSR_ERR_VALUE,
                         "k must be 1 to %lld (min of the shape), got %lld", (long long)small, k);
  if (iters < 0 || over < 0)
    return tsr_ctx_error(c, at, TSR_ERR_VALUE, "n_power_iter and n_oversamples must be >= 0");
  int64_t level = k + over > 20 ? k + over : 20; /* dask's compression_level */
  if (level > small) level = small;
  /* omega: normals (n, level), chunks (x's column chunks, one) */
  tsr_value items[2], chunks[2], sizes_v[64], gv[5];
  memset(items, 0, sizeof items);
  memset(chunks, 0, sizeof chunks);
  items[0].kind = items[1].kind = V_INT, items[0].i = n, items[1].i = level;
  const tsr_grid *g = &x->grid;
  if (g->nchunks[1] > 64)
    return tsr_ctx_error(c, a->at[0], TSR_ERR_VALUE, "svd_compressed: at most 64 column chunks");
  memset(sizes_v, 0, sizeof sizes_v);
  for (int64_t j = 0; j < g->nchunks[1]; j++)
    sizes_v[j].kind = V_INT, sizes_v[j].i = g->sizes[1][j];
  chunks[0].kind = V_TUPLE, chunks[0].items = sizes_v, chunks[0].nitems = (int)g->nchunks[1];
  chunks[1].kind = V_INT, chunks[1].i = level;
  memset(gv, 0, sizeof gv);
  gv[0].kind = V_TUPLE, gv[0].items = items, gv[0].nitems = 2;
  gv[1].kind = V_TUPLE, gv[1].items = chunks, gv[1].nitems = 2;
  if (a->given[5] && a->v[5].kind != V_NONE) gv[2] = a->v[5];
  tsr_value om;
  TSR_CHECK(call(c, at, "standard_normal", gv, 3, &om));
  tsr_node *h, *xt, *q, *comp, *small_m, *u, *s, *vt, *uu, *v;
  TSR_CHECK(matmul(c, at, x, om.arr, &h));
  TSR_CHECK(transpose(c, at, x, &xt));
  for (long long i = 0; i < iters; i++) {
    tsr_node *t;
    TSR_CHECK(matmul(c, at, xt, h, &t));
    TSR_CHECK(matmul(c, at, x, t, &h));
  }
  tsr_value hv[1] = {arr(NULL)}, qr;
  TSR_CHECK(tsr_ctx_relocate(c, at, tsr_node_one_chunk(h, 2u, &h)));
  hv[0] = arr(h);
  TSR_CHECK(call(c, at, "qr", hv, 1, &qr));
  q = qr.items[0].arr;
  TSR_CHECK(transpose(c, at, q, &comp));          /* (level, m) */
  TSR_CHECK(matmul(c, at, comp, x, &small_m));    /* (level, n) */
  TSR_CHECK(transpose(c, at, small_m, &small_m)); /* (n, level): tall */
  TSR_CHECK(svd3(c, at, small_m, &v, &s, &vt));   /* small^T = v s vt */
  TSR_CHECK(transpose(c, at, vt, &uu));           /* (level, level) */
  TSR_CHECK(matmul(c, at, q, uu, &u));            /* (m, level) */
  TSR_CHECK(transpose(c, at, v, &v));             /* (level, n) */
  tsr_axis_sel su[2] = {{TSR_SEL_SLICE, 0, 1, m, 0}, {TSR_SEL_SLICE, 0, 1, k, 0}};
  tsr_axis_sel ss[1] = {{TSR_SEL_SLICE, 0, 1, k, 0}};
  tsr_axis_sel sv[2] = {{TSR_SEL_SLICE, 0, 1, k, 0}, {TSR_SEL_SLICE, 0, 1, n, 0}};
  TSR_CHECK(tsr_ctx_relocate(c, at, tsr_node_select(u, su, 2, &u)));
  TSR_CHECK(tsr_ctx_relocate(c, at, tsr_node_select(s, ss, 1, &s)));
  TSR_CHECK(tsr_ctx_relocate(c, at, tsr_node_select(v, sv, 2, &v)));
  /* svd_flip: signs of v's row sums (>= 0: +1) on u's columns and v's rows */
  tsr_node *sg, *col, *row;
  TSR_CHECK(tsr_ctx_relocate(c, at, tsr_node_reduce(RED_SUM, v, 1, 0, 0, &sg)));
  TSR_CHECK(tsr_ctx_relocate(c, at, tsr_node_op_number(EW_GREATER_EQUAL, sg, 0.0, &sg)));
  TSR_CHECK(tsr_ctx_relocate(c, at, tsr_node_astype(sg, TSR_F64, &sg)));
  TSR_CHECK(tsr_ctx_relocate(c, at, tsr_node_op_number(EW_MUL, sg, 2.0, &sg)));
  TSR_CHECK(tsr_ctx_relocate(c, at, tsr_node_op_number(EW_SUB, sg, 1.0, &sg)));
  tsr_axis_sel rs[2] = {{TSR_SEL_NEWAXIS, 0, 0, 0, 0}, {TSR_SEL_SLICE, 0, 1, k, 0}};
  tsr_axis_sel cs[2] = {{TSR_SEL_SLICE, 0, 1, k, 0}, {TSR_SEL_NEWAXIS, 0, 0, 0, 0}};
  TSR_CHECK(tsr_ctx_relocate(c, at, tsr_node_select(sg, rs, 2, &row)));
  TSR_CHECK(tsr_ctx_relocate(c, at, tsr_node_select(sg, cs, 2, &col)));
  TSR_CHECK(tsr_ctx_relocate(c, at, tsr_node_binary(EW_MUL, u, row, &u)));
  TSR_CHECK(tsr_ctx_relocate(c, at, tsr_node_binary(EW_MUL, v, col, &v)));
  tsr_node *o[3] = {u, s, v};
  return tsr_set_tuple(c, o, 3, out);
}

/* ---- cholesky, solve_triangular: one small matrix (linalg/small.h) ---- */

/* A square one-chunk-sized matrix argument: float64, at most
 * TSR_SMALL_MAX a side. */
static int small_square(tsr_ctx *c, const tsr_args *a, int i, const char *what, tsr_node **x) {
  TSR_CHECK(matrix(c, a, i, what, x));
  int64_t r = (*x)->grid.shape[0], k = (*x)->grid.shape[1];
  if (r != k)
    return tsr_ctx_error(c, a->at[i], TSR_ERR_SHAPE,
                         "Last 2 dimensions of the array must be square (got %lld x %lld)",
                         (long long)r, (long long)k);
  if (k > TSR_SMALL_MAX)
    return tsr_ctx_error(c, a->at[i], TSR_ERR_VALUE,
                         "%s takes matrices up to %d x %d (their values go to every rank)", what,
                         TSR_SMALL_MAX, TSR_SMALL_MAX);
  if ((*x)->dtype != TSR_F64)
    TSR_CHECK(tsr_ctx_relocate(c, a->at[i], tsr_node_astype(*x, TSR_F64, x)));
  return TSR_OK;
}

static int small_node(tsr_ctx *c, const ast_node *at, int op, tsr_node *x, tsr_node *y,
                      int64_t rows, int64_t cols, tsr_node **out) {
  int64_t shape[2] = {rows, cols}, chunk[2] = {rows > 0 ? rows : 1, cols > 0 ? cols : 1};
  tsr_grid g;
  TSR_CHECK(tsr_ctx_relocate(c, at, tsr_grid_init_regular(&g, 2, shape, chunk)));
  int st = tsr_node_linalg(op, x, y, 0, &g, TSR_F64, out);
  tsr_grid_free(&g);
  return tsr_ctx_relocate(c, at, st);
}

/* x reversed along the axes of mask (a view). */
static int flipped(tsr_ctx *c, const ast_node *at, tsr_node *x, unsigned mask, tsr_node **out) {
  tsr_axis_sel sel[TSR_MAXDIM];
  for (int d = 0; d < x->grid.ndim; d++) {
    int64_t n = x->grid.shape[d];
    sel[d] = (mask >> d) & 1u ? (tsr_axis_sel){TSR_SEL_SLICE, n - 1, -1, n, 0}
                              : (tsr_axis_sel){TSR_SEL_SLICE, 0, 1, n, 0};
  }
  return tsr_ctx_relocate(c, at, tsr_node_select(x, sel, x->grid.ndim, out));
}

/* cholesky(a, upper=False): NumPy's lower L with L L^T = a (its lower
 * triangle read), or upper L^T. */
int tsr_b_cholesky(tsr_ctx *c, const ast_node *at, const tsr_op_def *def, tsr_args *a,
                   tsr_value *out) {
  (void)def;
  tsr_node *x, *xt, *r;
  long long upper = 0;
  TSR_CHECK(small_square(c, a, 0, "cholesky", &x));
  if (a->given[1]) TSR_CHECK(tsr_arg_int(c, a, 1, "upper", &upper));
  TSR_CHECK(transpose(c, at, x, &xt)); /* its upper triangle is a's lower */
  TSR_CHECK(small_node(c, at, LA_CHOLESKY, xt, NULL, x->grid.shape[0], x->grid.shape[0], &r));
  if (!upper) TSR_CHECK(transpose(c, at, r, &r));
  tsr_set_array(out, r);
  return TSR_OK;
}

/* solve_triangular(a, b, lower=False): x with a x = b for a triangular a
 * (only its triangle read), as scipy's and dask's. Lower: x^T = b^T (a^T)^-1
 * with a^T upper; upper: the lower solve of a with both axes reversed, on b
 * reversed. */
int tsr_b_solve_triangular(tsr_ctx *c, const ast_node *at, const tsr_op_def *def, tsr_args *a,
                           tsr_value *out) {
  (void)def;
  tsr_node *x, *b, *r;
  long long lower = 0;
  TSR_CHECK(small_square(c, a, 0, "solve_triangular", &x));
  if (a->given[2]) TSR_CHECK(tsr_arg_int(c, a, 2, "lower", &lower));
  TSR_CHECK(tsr_arg_array(c, a, 1, "solve_triangular", &b));
  int64_t k = x->grid.shape[0];
  int one = b->grid.ndim == 1;
  if ((b->grid.ndim != 1 && b->grid.ndim != 2) || b->grid.shape[0] != k)
    return tsr_ctx_error(c, a->at[1], TSR_ERR_SHAPE,
                         "solve_triangular: b must be 1-d or 2-d with %lld rows", (long long)k);
  if (b->dtype != TSR_F64)
    TSR_CHECK(tsr_ctx_relocate(c, a->at[1], tsr_node_astype(b, TSR_F64, &b)));
  if (one) {
    tsr_axis_sel sel[2] = {{TSR_SEL_SLICE, 0, 1, k, 0}, {TSR_SEL_NEWAXIS, 0, 0, 0, 0}};
    TSR_CHECK(tsr_ctx_relocate(c, a->at[1], tsr_node_select(b, sel, 2, &b)));
  }
  if (!lower) { /* J a J is lower */
    TSR_CHECK(flipped(c, at, x, 3u, &x));
    TSR_CHECK(flipped(c, at, b, 1u, &b));
  }
  tsr_node *rt, *bt;
  TSR_CHECK(transpose(c, at, x, &rt));
  TSR_CHECK(transpose(c, at, b, &bt));
  TSR_CHECK(small_node(c, at, LA_TRSM, rt, bt, bt->grid.shape[0], k, &r));
  TSR_CHECK(transpose(c, at, r, &r));
  if (!lower) TSR_CHECK(flipped(c, at, r, 1u, &r));
  if (one) {
    tsr_axis_sel sel[2] = {{TSR_SEL_SLICE, 0, 1, k, 0}, {TSR_SEL_INDEX, 0, 0, 0, 0}};
    TSR_CHECK(tsr_ctx_relocate(c, at, tsr_node_select(r, sel, 2, &r)));
  }
  tsr_set_array(out, r);
  return TSR_OK;
}

/* ---- LU, det, slogdet ------------------------------------------------------ */

/* x[first : first + count] of a 1-d x. */
static int part(tsr_node *x, int64_t first, int64_t count, tsr_node **out) {
  tsr_axis_sel sel = {TSR_SEL_SLICE, first, 1, count, 0};
  return tsr_node_select(x, &sel, 1, out);
}

/* x[i] of a 1-d x (0-d). */
static int element(tsr_node *x, int64_t i, tsr_node **out) {
  tsr_axis_sel sel = {TSR_SEL_INDEX, 0, 0, 0, i};
  return tsr_node_select(x, &sel, 1, out);
}

/* The LA_LU node (graph/array.h) of argument i, a small square matrix;
 * its side in *k. */
static int lu_of(tsr_ctx *c, const ast_node *at, tsr_args *a, const char *what, tsr_node **out,
                 int64_t *k) {
  tsr_node *x;
  TSR_CHECK(small_square(c, a, 0, what, &x));
  *k = x->grid.shape[0];
  int64_t size = *k * *k + *k + 3;
  tsr_grid g;
  TSR_CHECK(tsr_ctx_relocate(c, at, tsr_grid_init_regular(&g, 1, &size, &size)));
  int st = tsr_node_linalg(LA_LU, x, NULL, 0, &g, TSR_F64, out);
  tsr_grid_free(&g);
  return tsr_ctx_relocate(c, at, st);
}

/* det(a) (def->code 0) and sign, logabsdet = slogdet(a) (1): NumPy's,
 * from the LU factors (see linalg/small.c). */
int tsr_b_det(tsr_ctx *c, const ast_node *at, const tsr_op_def *def, tsr_args *a, tsr_value *out) {
  tsr_node *f, *r[2];
  int64_t k;
  TSR_CHECK(lu_of(c, at, a, def->name, &f, &k));
  if (def->code == 0) {
    TSR_CHECK(tsr_ctx_relocate(c, at, element(f, k * k + k + 2, &r[0])));
    tsr_set_array(out, r[0]);
    return TSR_OK;
  }
  TSR_CHECK(tsr_ctx_relocate(c, at, element(f, k * k + k, &r[0])));
  TSR_CHECK(tsr_ctx_relocate(c, at, element(f, k * k + k + 1, &r[1])));
  return tsr_set_tuple(c, r, 2, out);
}

/* p, l, u = lu(a): scipy's and dask's, a = p l u with p a permutation, l
 * unit lower and u upper triangular. Row i of p^T a is a's row perm[i], so
 * p[r, c] = (perm[c] == r). */
int tsr_b_lu(tsr_ctx *c, const ast_node *at, const tsr_op_def *def, tsr_args *a, tsr_value *out) {
  (void)def;
  tsr_node *f, *m, *perm, *rows, *cols, *r[3];
  int64_t k, shape[2];
  TSR_CHECK(lu_of(c, at, a, "lu", &f, &k));
  shape[0] = shape[1] = k;
  int st = part(f, 0, k * k, &m);
  if (st == TSR_OK) st = tsr_node_reshape(m, 2, shape, &m);
  if (st == TSR_OK) st = part(f, k * k, k, &perm);
  tsr_grid g;
  int64_t one = k > 0 ? k : 1;
  if (st == TSR_OK) st = tsr_grid_init_regular(&g, 1, &k, &one);
  if (st == TSR_OK) {
    tsr_node *idx;
    st = tsr_node_arange(0.0, 1.0, &g, TSR_F64, &idx);
    tsr_grid_free(&g);
    tsr_axis_sel col[2] = {{TSR_SEL_SLICE, 0, 1, k, 0}, {TSR_SEL_NEWAXIS, 0, 0, 0, 0}};
    tsr_axis_sel row[2] = {{TSR_SEL_NEWAXIS, 0, 0, 0, 0}, {TSR_SEL_SLICE, 0, 1, k, 0}};
    if (st == TSR_OK) st = tsr_node_select(idx, col, 2, &rows); /* i, down */
    if (st == TSR_OK) st = tsr_node_select(idx, row, 2, &cols); /* j, across */
    if (st == TSR_OK) st = tsr_node_select(perm, row, 2, &perm);
  }
  tsr_node *below, *diag, *upper, *zero;
  if (st == TSR_OK) st = tsr_node_binary(EW_EQUAL, perm, rows, &r[0]);
  if (st == TSR_OK) st = tsr_node_astype(r[0], TSR_F64, &r[0]);
  if (st == TSR_OK) st = tsr_node_binary(EW_GREATER, rows, cols, &below);
  if (st == TSR_OK) st = tsr_node_binary(EW_EQUAL, rows, cols, &diag);
  if (st == TSR_OK) st = tsr_node_binary(EW_LESS_EQUAL, rows, cols, &upper);
  if (st == TSR_OK) st = tsr_node_op_number(EW_MUL, m, 0.0, &zero);
  if (st == TSR_OK) st = tsr_node_where(below, m, zero, &r[1]);
  if (st == TSR_OK) st = tsr_node_astype(diag, TSR_F64, &diag);
  if (st == TSR_OK) st = tsr_node_binary(EW_ADD, r[1], diag, &r[1]);
  if (st == TSR_OK) st = tsr_node_where(upper, m, zero, &r[2]);
  TSR_CHECK(tsr_ctx_relocate(c, at, st));
  return tsr_set_tuple(c, r, 3, out);
}
