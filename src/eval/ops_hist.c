/*
 * ops_hist.c - histograms (ops_hist.h). The bins are known before the
 * histogram is computed: where NumPy takes them from the data (an integer
 * bins without range=: the data's min and max; bincount without minlength=:
 * its largest value), those values are computed while the job is read
 * (tsr_eager_values), where dask refuses (histogram) or leaves the length
 * unknown (bincount); edges given as an array are computed the same way. Each axis's edges are
 * NumPy's (linspace(lo, hi, bins + 1)), and so are the bins a value falls in
 * (kernel/hist.h). Counts are int64 (histogram, bincount), float64 for
 * histogram2d/dd as NumPy's; weights give their dtype (float64 for bincount
 * and the dd forms); density= divides as NumPy does.
 */
#include "eval/ops_hist.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/hist.h"
#include "util/error.h"

#define MAX_EDGES (1 << 22)
#define MAX_BINS ((int64_t)1 << 26)

static int given(const tsr_args *a, int i) { return a->given[i] && a->v[i].kind != V_NONE; }

/* One axis's bins as the user gave them. */
typedef struct axis_bins {
  int mode;
  int64_t nb;
  double lo, hi;
  double *edges; /* nb + 1 (malloc'ed) */
} axis_bins;

static void free_axes(axis_bins *ax, int n) {
  for (int d = 0; d < n; d++) free(ax[d].edges);
}

/* NumPy's linspace(lo, hi, nb + 1) into e. */
static void linspace_edges(double lo, double hi, int64_t nb, double *e) {
  double delta = hi - lo, step = delta / (double)nb;
  for (int64_t i = 0; i < nb; i++)
    e[i] = step == 0 ? (double)i / (double)nb * delta + lo : (double)i * step + lo;
  e[nb] = hi;
}

/* The numbers of v (a list or tuple of numbers, or a 1-d array: its
 * values computed now if they are not known) into a new *out of *n; 1 when
 * v is one of those, 0 if not, -1 out of memory, -2 an error (reported). */
static int edge_values(tsr_ctx *c, const ast_node *at, const char *fn, const tsr_value *v,
                       double **out, int64_t *n) {
  if (v->kind == V_ARRAY && v->arr->grid.ndim == 1) {
    const double *vals;
    if (tsr_eager_values(c, at, v->arr, MAX_EDGES, fn, &vals) != TSR_OK) return -2;
    *n = v->arr->grid.shape[0];
    if (!(*out = malloc(sizeof(double) * (size_t)(*n + 1)))) return -1;
    memcpy(*out, vals, sizeof(double) * (size_t)*n);
    return 1;
  }
  if (v->kind != V_TUPLE) return 0;
  for (int i = 0; i < v->nitems; i++)
    if (!tsr_value_is_number(&v->items[i])) return 0;
  *n = v->nitems;
  if (!(*out = malloc(sizeof(double) * (size_t)(*n + 1)))) return -1;
  for (int i = 0; i < v->nitems; i++) (*out)[i] = tsr_value_number(&v->items[i]);
  return 1;
}

/* Axis bins from v (an integer count or edges) and r (a (lo, hi) pair or
 * None); uniform: NumPy's 1-d fast path for a count (histogram), else its
 * edges (histogramdd). */
/* NumPy's range of data: its min and max, computed now ((0, 1) for no
 * data); not finite (NaN or inf in the data) is NumPy's error. */
static int data_range(tsr_ctx *c, const ast_node *at, const char *fn, tsr_node *data, double *lo,
                      double *hi) {
  *lo = 0, *hi = 1;
  if (tsr_node_size(data) == 0) return TSR_OK;
  tsr_node *mn, *mx;
  const double *v;
  TSR_CHECK(tsr_ctx_relocate(c, at, tsr_node_reduce(RED_MIN, data, -1, 0, 0, &mn)));
  TSR_CHECK(tsr_ctx_relocate(c, at, tsr_node_reduce(RED_MAX, data, -1, 0, 0, &mx)));
  TSR_CHECK(tsr_eager_values(c, at, mn, 1, fn, &v));
  *lo = v[0];
  TSR_CHECK(tsr_eager_values(c, at, mx, 1, fn, &v));
  *hi = v[0];
  if (!isfinite(*lo) || !isfinite(*hi))
    return tsr_ctx_error(c, at, TSR_ERR_VALUE, "%s: autodetected range of [%g, %g] is not finite",
                         fn, *lo, *hi);
  return TSR_OK;
}

static int parse_axis(tsr_ctx *c, const ast_node *at, const char *fn, const tsr_value *v,
                      const tsr_value *r, tsr_node *data, int uniform, axis_bins *out) {
  memset(out, 0, sizeof *out);
  int64_t n = 0;
  int got = edge_values(c, at, fn, v, &out->edges, &n);
  if (got == -2) return TSR_ERR_VALUE;
  if (got < 0) return tsr_ctx_error(c, at, TSR_ERR_MEMORY, "out of memory");
  if (got) {
    if (n < 2 || n > MAX_EDGES)
      return tsr_ctx_error(c, at, TSR_ERR_VALUE,
                           "%s: bins as edges needs 2 to %d of them, got %lld", fn, MAX_EDGES,
                           (long long)n);
    for (int64_t i = 0; i < n; i++) {
      if (!isfinite(out->edges[i]))
        return tsr_ctx_error(c, at, TSR_ERR_VALUE, "%s: the bin edges must be finite", fn);
      if (i && out->edges[i] < out->edges[i - 1])
        return tsr_ctx_error(c, at, TSR_ERR_VALUE,
                             "%s: `bins` must increase monotonically, when an array", fn);
    }
    out->mode = TSR_HIST_EDGES, out->nb = n - 1;
    out->lo = out->edges[0], out->hi = out->edges[n - 1];
    return TSR_OK;
  }
  if (v->kind != V_INT && v->kind != V_BOOL)
    return tsr_ctx_error(c, at, TSR_ERR_TYPE,
                         "%s: bins must be an integer, or edges (a list of numbers or a 1-d "
                         "array), got %s (NumPy's strings such as 'auto' are not supported)",
                         fn, tsr_value_type_name(v));
  if (v->i < 1 || v->i > MAX_EDGES)
    return tsr_ctx_error(c, at, TSR_ERR_VALUE,
                         "%s: `bins` must be positive, when an integer (at most %d), got %lld", fn,
                         MAX_EDGES, v->i);
  double lo, hi;
  if (!r || r->kind == V_NONE) { /* NumPy's: the data's extremes */
    TSR_CHECK(data_range(c, at, fn, data, &lo, &hi));
  } else {
    if (r->kind != V_TUPLE || r->nitems != 2 || !tsr_value_is_number(&r->items[0]) ||
        !tsr_value_is_number(&r->items[1]))
      return tsr_ctx_error(c, at, TSR_ERR_TYPE, "%s: range must be a pair of numbers (lo, hi)", fn);
    lo = tsr_value_number(&r->items[0]), hi = tsr_value_number(&r->items[1]);
  }
  if (lo > hi)
    return tsr_ctx_error(c, at, TSR_ERR_VALUE,
                         "%s: max must be larger than min in range parameter.", fn);
  if (!isfinite(lo) || !isfinite(hi))
    return tsr_ctx_error(c, at, TSR_ERR_VALUE, "%s: supplied range of [%g, %g] is not finite", fn,
                         lo, hi);
  if (lo == hi) lo -= 0.5, hi += 0.5;
  out->nb = v->i;
  out->lo = lo, out->hi = hi;
  out->mode = uniform ? TSR_HIST_UNIFORM : TSR_HIST_EDGES;
  if (!(out->edges = malloc(sizeof(double) * (size_t)(out->nb + 1))))
    return tsr_ctx_error(c, at, TSR_ERR_MEMORY, "out of memory");
  linspace_edges(lo, hi, out->nb, out->edges);
  return TSR_OK;
}

/* The spec of kernel/hist.h for n axes, in a new *spec of *len. */
static int make_spec(const axis_bins *ax, int n, double **spec, int64_t *len) {
  int mode[TSR_MAXDIM];
  int64_t nb[TSR_MAXDIM];
  for (int d = 0; d < n; d++) mode[d] = ax[d].mode, nb[d] = ax[d].nb;
  *len = tsr_hist_spec_len(n, mode, nb);
  double *s = malloc(sizeof(double) * (size_t)*len);
  if (!s) return TSR_ERROR(TSR_ERR_MEMORY, "out of memory");
  s[0] = n;
  double *e = s + 1 + 4 * n;
  for (int d = 0; d < n; d++) {
    s[1 + 4 * d] = ax[d].mode, s[2 + 4 * d] = (double)ax[d].nb;
    s[3 + 4 * d] = ax[d].lo, s[4 + 4 * d] = ax[d].hi;
    if (ax[d].mode == TSR_HIST_INT) continue;
    memcpy(e, ax[d].edges, sizeof(double) * (size_t)(ax[d].nb + 1));
    e += ax[d].nb + 1;
  }
  *spec = s;
  return TSR_OK;
}

/* The edges of an axis as an array of dtype dt. */
static int edges_node(const axis_bins *ax, tsr_dtype dt, tsr_node **out) {
  int64_t n = ax->nb + 1;
  tsr_grid g;
  TSR_CHECK(tsr_grid_init_regular(&g, 1, &n, &n));
  int st = tsr_node_values(&g, dt, ax->edges, out);
  tsr_grid_free(&g);
  return st;
}

/* hist / diff(edges[d]) along axis d for each axis, then / hist.sum()
 * (NumPy's density: the 1-d histogram's n / db / n.sum() is the same). */
static int density(const axis_bins *ax, int n, tsr_node *h, tsr_node **out) {
  tsr_node *f, *s;
  TSR_CHECK(tsr_node_astype(h, TSR_F64, &f));
  TSR_CHECK(tsr_node_reduce(RED_SUM, f, -1, 0, 0, &s));
  for (int d = 0; d < n; d++) {
    int64_t shape[TSR_MAXDIM], nb = ax[d].nb;
    for (int k = 0; k < n; k++) shape[k] = k == d ? nb : 1;
    double *db = malloc(sizeof(double) * (size_t)nb);
    if (!db) return TSR_ERROR(TSR_ERR_MEMORY, "out of memory");
    for (int64_t i = 0; i < nb; i++) db[i] = ax[d].edges[i + 1] - ax[d].edges[i];
    tsr_grid g;
    tsr_node *dn;
    int st = tsr_grid_init_regular(&g, n, shape, shape);
    if (st == TSR_OK) st = tsr_node_values(&g, TSR_F64, db, &dn), tsr_grid_free(&g);
    free(db);
    TSR_CHECK(st);
    TSR_CHECK(tsr_node_binary(EW_DIV, f, dn, &f));
  }
  return tsr_node_binary(EW_DIV, f, s, out);
}

/* The weights argument (None: NULL) as an array. */
static int weights_of(tsr_ctx *c, const tsr_args *a, int i, tsr_node **w) {
  *w = NULL;
  if (!given(a, i)) return TSR_OK;
  return tsr_arg_array(c, a, i, "weights", w);
}

static int one_axis(tsr_ctx *c, const ast_node *call, tsr_args *a, tsr_value *out) {
  tsr_node *x, *w, *h;
  axis_bins ax;
  TSR_CHECK(tsr_as_array(c, &a->v[0], a->at[0], TSR_F64, &x));
  TSR_CHECK(weights_of(c, a, 3, &w));
  if (w) {
    int same = w->grid.ndim == x->grid.ndim;
    for (int k = 0; same && k < x->grid.ndim; k++) same = w->grid.shape[k] == x->grid.shape[k];
    if (!same)
      return tsr_ctx_error(c, a->at[3], TSR_ERR_SHAPE, "weights should have the same shape as a.");
  }
  tsr_value ten = {.kind = V_INT, .i = 10};
  TSR_CHECK(parse_axis(c, a->at[given(a, 1) ? 1 : 0], "histogram", given(a, 1) ? &a->v[1] : &ten,
                       given(a, 2) ? &a->v[2] : NULL, x, 1, &ax));
  /* NumPy's edges of equal bins have the data's float type (float32
   * data: linspace in float64 rounded to float32), and so its bins */
  tsr_dtype edt = x->dtype == TSR_F32 && ax.mode == TSR_HIST_UNIFORM ? TSR_F32 : TSR_F64;
  if (edt == TSR_F32)
    for (int64_t i = 0; i <= ax.nb; i++) ax.edges[i] = (double)(float)ax.edges[i];
  double *spec = NULL;
  int64_t len = 0;
  tsr_dtype dt = w ? w->dtype : TSR_I64;
  int st = make_spec(&ax, 1, &spec, &len);
  if (st == TSR_OK) st = tsr_node_hist(x, w, spec, len, dt, &h);
  long long dens = 0;
  if (st == TSR_OK && given(a, 4)) st = tsr_arg_int(c, a, 4, "density", &dens);
  if (st == TSR_OK && dens) st = density(&ax, 1, h, &h);
  tsr_node *nodes[2] = {h, NULL};
  if (st == TSR_OK) st = edges_node(&ax, edt, &nodes[1]);
  free(spec);
  free_axes(&ax, 1);
  TSR_CHECK(tsr_ctx_relocate(c, call, st));
  return tsr_set_tuple(c, nodes, 2, out);
}

/* The samples of histogramdd: a (N, D) array, a 1-d one (D = 1), or a
 * sequence of D 1-d arrays of one length, as (N, D) with one chunk of D. */
static int samples(tsr_ctx *c, const tsr_value *v, const ast_node *at, const char *fn,
                   tsr_node **out, int *D) {
  tsr_node *s = NULL;
  if (v->kind == V_ARRAY) {
    s = v->arr;
    if (s->grid.ndim == 1) {
      int64_t shape[2] = {s->grid.shape[0], 1};
      TSR_CHECK(tsr_ctx_relocate(c, at, tsr_node_reshape(s, 2, shape, &s)));
    }
    if (s->grid.ndim != 2)
      return tsr_ctx_error(c, at, TSR_ERR_SHAPE, "%s: the sample must be (N, D), got %d-d", fn,
                           s->grid.ndim);
  } else if (v->kind == V_TUPLE && v->nitems >= 1) {
    for (int i = 0; i < v->nitems; i++) {
      tsr_node *x;
      TSR_CHECK(tsr_as_array(c, &v->items[i], at, TSR_F64, &x));
      if (x->grid.ndim != 1 || (s && x->grid.shape[0] != s->grid.shape[0]))
        return tsr_ctx_error(c, at, TSR_ERR_SHAPE,
                             "%s: the sample's arrays must be 1-d and of one length", fn);
      int64_t shape[2] = {x->grid.shape[0], 1};
      TSR_CHECK(tsr_ctx_relocate(c, at, tsr_node_reshape(x, 2, shape, &x)));
      if (s)
        TSR_CHECK(tsr_ctx_relocate(c, at, tsr_node_concat(s, x, 1, &s)));
      else
        s = x;
    }
  } else {
    return tsr_ctx_error(c, at, TSR_ERR_TYPE,
                         "%s: the sample must be an array or a sequence of "
                         "1-d arrays, got %s",
                         fn, tsr_value_type_name(v));
  }
  *D = (int)s->grid.shape[1];
  if (*D < 1 || *D > TSR_MAXDIM)
    return tsr_ctx_error(c, at, TSR_ERR_VALUE, "%s: 1 to %d dimensions, got %d", fn, TSR_MAXDIM,
                         *D);
  return tsr_ctx_relocate(c, at, tsr_node_one_chunk(s, 2u, out));
}

/* histogramdd(sample, bins=10, range=None, weights=None, density=None), and
 * histogram2d(x, y, ...) as NumPy builds it on histogramdd. */
static int many_axes(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a,
                     tsr_value *out) {
  int two = def->code == 2, D = 0, p = two ? 1 : 0; /* p: the parameter before bins */
  const char *fn = def->name;
  tsr_node *s, *w;
  tsr_value pair[2];
  if (two) {
    memset(pair, 0, sizeof pair);
    pair[0] = a->v[0], pair[1] = a->v[1];
    tsr_value seq = {.kind = V_TUPLE, .items = pair, .nitems = 2};
    TSR_CHECK(samples(c, &seq, a->at[0], fn, &s, &D));
  } else {
    TSR_CHECK(samples(c, &a->v[0], a->at[0], fn, &s, &D));
  }
  TSR_CHECK(weights_of(c, a, p + 3, &w));
  if (w && (w->grid.ndim != 1 || w->grid.shape[0] != s->grid.shape[0]))
    return tsr_ctx_error(c, a->at[p + 3], TSR_ERR_SHAPE,
                         "%s: weights must be 1-d, one for each of the %lld samples", fn,
                         (long long)s->grid.shape[0]);
  tsr_value ten = {.kind = V_INT, .i = 10};
  const tsr_value *bins = given(a, p + 1) ? &a->v[p + 1] : &ten;
  const tsr_value *range = given(a, p + 2) ? &a->v[p + 2] : NULL;
  const ast_node *bat = a->at[given(a, p + 1) ? p + 1 : 0];
  /* NumPy: histogramdd's bins is one for every axis or a sequence of D;
   * histogram2d's of another length than 1 or 2 are both axes' edges */
  const tsr_value *item[TSR_MAXDIM];
  int both = two && ((bins->kind == V_TUPLE && bins->nitems != 1 && bins->nitems != 2) ||
                     bins->kind == V_ARRAY);
  if ((bins->kind == V_TUPLE || bins->kind == V_ARRAY) && !both &&
      (bins->kind == V_ARRAY || bins->nitems != D))
    return tsr_ctx_error(c, bat, TSR_ERR_VALUE,
                         "%s: The dimension of bins must be equal to the dimension of the sample "
                         "x.",
                         fn);
  for (int d = 0; d < D; d++) item[d] = bins->kind == V_TUPLE && !both ? &bins->items[d] : bins;
  if (range && range->kind != V_NONE && (range->kind != V_TUPLE || range->nitems != D))
    return tsr_ctx_error(c, a->at[p + 2], TSR_ERR_VALUE,
                         "%s: range must be a sequence of %d (lo, hi) pairs", fn, D);
  axis_bins ax[TSR_MAXDIM];
  memset(ax, 0, sizeof ax);
  int st = TSR_OK, done = 0;
  for (int d = 0; d < D && st == TSR_OK; d++, done++) {
    const tsr_value *r = range && range->kind == V_TUPLE ? &range->items[d] : NULL;
    tsr_node *col = NULL;
    tsr_axis_sel sel[2] = {{TSR_SEL_SLICE, 0, 1, s->grid.shape[0], 0}, {TSR_SEL_INDEX, 0, 0, 0, d}};
    st = tsr_ctx_relocate(c, bat, tsr_node_select(s, sel, 2, &col));
    if (st == TSR_OK) st = parse_axis(c, bat, fn, item[d], r, col, 0, &ax[d]);
  }
  int64_t total = 1;
  for (int d = 0; d < done && st == TSR_OK; d++) total *= ax[d].nb;
  if (st == TSR_OK && total > MAX_BINS)
    st = tsr_ctx_error(c, bat, TSR_ERR_VALUE, "%s: %lld bins, over the %lld a histogram may have",
                       fn, (long long)total, (long long)MAX_BINS);
  double *spec = NULL;
  int64_t len = 0;
  tsr_node *h = NULL, *nodes[1 + TSR_MAXDIM];
  long long dens = 0;
  if (st == TSR_OK) st = make_spec(ax, D, &spec, &len);
  if (st == TSR_OK) st = tsr_node_hist(s, w, spec, len, TSR_F64, &h);
  if (st == TSR_OK && given(a, p + 4)) st = tsr_arg_int(c, a, p + 4, "density", &dens);
  if (st == TSR_OK && dens) st = density(ax, D, h, &h);
  nodes[0] = h;
  for (int d = 0; d < D && st == TSR_OK; d++) st = edges_node(&ax[d], TSR_F64, &nodes[1 + d]);
  free(spec);
  free_axes(ax, done);
  TSR_CHECK(tsr_ctx_relocate(c, call, st));
  if (two) return tsr_set_tuple(c, nodes, 3, out); /* H, xedges, yedges */
  memset(out, 0, sizeof *out);                     /* H, (edges, ...) */
  out->kind = V_TUPLE;
  out->nitems = 2;
  TSR_CHECK(tsr_ctx_alloc(c, sizeof(tsr_value) * 3, (void **)&out->items));
  tsr_set_array(&out->items[0], h);
  return tsr_set_tuple(c, nodes + 1, D, &out->items[1]);
}

int tsr_b_histogram(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a,
                    tsr_value *out) {
  if (def->code == 1) { /* histogram_bin_edges: histogram's edges alone */
    TSR_CHECK(one_axis(c, call, a, out));
    tsr_value edges = out->items[1];
    *out = edges;
    return TSR_OK;
  }
  return def->code == 0 ? one_axis(c, call, a, out) : many_axes(c, call, def, a, out);
}

/* bincount(x, weights=None, minlength=0): x 1-d of non-negative integers;
 * minlength= is the result's length (see above). */
int tsr_b_bincount(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a,
                   tsr_value *out) {
  (void)def;
  tsr_node *x, *w, *h;
  TSR_CHECK(tsr_arg_array(c, a, 0, "x", &x));
  if (x->grid.ndim != 1)
    return tsr_ctx_error(c, a->at[0], TSR_ERR_SHAPE,
                         "bincount: Input array must be one dimensional. Try using x.ravel()");
  if (!tsr_dtype_is_int(x->dtype) && x->dtype != TSR_BOOL)
    return tsr_ctx_error(c, a->at[0], TSR_ERR_TYPE,
                         "bincount: Cannot cast array data from dtype('%s') to dtype('int64') "
                         "according to the rule 'safe'",
                         tsr_dtype_name(x->dtype));
  TSR_CHECK(weights_of(c, a, 1, &w));
  if (w && (w->grid.ndim != 1 || w->grid.shape[0] != x->grid.shape[0]))
    return tsr_ctx_error(c, a->at[1], TSR_ERR_SHAPE,
                         "bincount: The weights and list don't have the same length.");
  long long minlength = 0;
  if (given(a, 2)) TSR_CHECK(tsr_arg_int(c, a, 2, "minlength", &minlength));
  if (minlength < 0)
    return tsr_ctx_error(c, a->at[2], TSR_ERR_VALUE, "bincount: 'minlength' must not be negative");
  if (minlength == 0) { /* NumPy's length: the largest value + 1, computed now */
    tsr_node *mn, *mx;
    const double *v;
    double lo = 0, hi = -1;
    if (tsr_node_size(x) > 0) {
      TSR_CHECK(tsr_ctx_relocate(c, call, tsr_node_reduce(RED_MIN, x, -1, 0, 0, &mn)));
      TSR_CHECK(tsr_ctx_relocate(c, call, tsr_node_reduce(RED_MAX, x, -1, 0, 0, &mx)));
      TSR_CHECK(tsr_eager_values(c, call, mn, 1, "bincount", &v));
      lo = v[0];
      TSR_CHECK(tsr_eager_values(c, call, mx, 1, "bincount", &v));
      hi = v[0];
    }
    if (lo < 0)
      return tsr_ctx_error(c, a->at[0], TSR_ERR_VALUE,
                           "bincount: 'list' argument must have no negative elements");
    if (hi + 1 > (double)MAX_BINS)
      return tsr_ctx_error(c, a->at[0], TSR_ERR_VALUE,
                           "bincount: a value of %.0f, over the %lld bins a histogram may have", hi,
                           (long long)MAX_BINS);
    minlength = (long long)hi + 1;
    if (minlength == 0) { /* no values: an empty result */
      int64_t zero = 0, one = 1;
      tsr_grid g;
      TSR_CHECK(tsr_grid_init_regular(&g, 1, &zero, &one));
      int st = tsr_node_full(0.0, &g, w ? TSR_F64 : TSR_I64, &h);
      tsr_grid_free(&g);
      TSR_CHECK(tsr_ctx_relocate(c, call, st));
      tsr_set_array(out, h);
      return TSR_OK;
    }
  }
  if (minlength > MAX_BINS)
    return tsr_ctx_error(c, a->at[2], TSR_ERR_VALUE, "bincount: minlength at most %lld",
                         (long long)MAX_BINS);
  double spec[5] = {1, TSR_HIST_INT, (double)minlength, 0, (double)minlength};
  TSR_CHECK(tsr_ctx_relocate(c, call, tsr_node_hist(x, w, spec, 5, w ? TSR_F64 : TSR_I64, &h)));
  tsr_set_array(out, h);
  return TSR_OK;
}
