/*
 * ops_quantile.c - sort and the exact order statistics (ops_quantile.h).
 * The data is sorted along the axis (N_SORT: the axis rechunked into one
 * chunk, each owner sorting its lines, exec/sort.c); a quantile then reads
 * the two neighbouring order statistics of NumPy's virtual index (n - 1) q
 * as slices and interpolates them with NumPy's _lerp, and a slice whose
 * last sorted value is NaN gives NaN, as numpy/lib/function_base.py does
 * (median: the mean of the one or two middle values, as np.median). The
 * nan-variants read the statistic the sort op leaves at the start of each
 * line (kernel/quantile.h), one sort per q.
 */
#include "eval/ops_quantile.h"

#include <math.h>
#include <string.h>

#include "kernel/quantile.h"
#include "util/error.h"

#define MAX_Q 64

/* The sorted data and where the statistics are read from it. */
typedef struct sorted {
  tsr_node *s;   /* x sorted along ax, float64 */
  int ax;        /* the sorted axis of s */
  int axis;      /* the requested axis of x (-1: None, TSR_AXES_SET: a tuple) */
  unsigned mask; /* the reduced axes of x */
  int keep;      /* keepdims */
  int ndim;      /* x's */
  int64_t n;     /* the length of the sorted axis */
  int may_nan;   /* x's dtype holds NaN */
} sorted;

int tsr_b_sort(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a,
               tsr_value *out) {
  tsr_node *x, *n;
  int axis = -1, ai = def->code >= 2 ? 2 : 1; /* axis= after kth= in partition's */
  TSR_CHECK(tsr_as_array(c, &a->v[0], a->at[0], TSR_F64, &x));
  if (a->given[ai]) {
    TSR_CHECK(tsr_arg_axis(c, a, ai, x->grid.ndim, &axis));
  } else if (x->grid.ndim == 0) {
    return tsr_ctx_error(c, a->at[0], TSR_ERR_INDEX,
                         "axis -1 is out of bounds for array of dimension 0");
  } else {
    axis = x->grid.ndim - 1;
  }
  if (def->code >= 2) { /* partition, argpartition: kth checked, then a whole sort */
    long long kth;
    const tsr_value *k = &a->v[1];
    int nk = k->kind == V_TUPLE ? k->nitems : 1;
    int64_t len = axis < 0 ? tsr_node_size(x) : x->grid.shape[axis];
    for (int i = 0; i < nk; i++) {
      const tsr_value *e = k->kind == V_TUPLE ? &k->items[i] : k;
      if (e->kind != V_INT && e->kind != V_BOOL)
        return tsr_ctx_error(c, a->at[1], TSR_ERR_TYPE, "kth must be an integer or a list of them");
      kth = e->i;
      if (kth < -len || kth >= len)
        return tsr_ctx_error(c, a->at[1], TSR_ERR_VALUE, "kth(=%lld) out of bounds (%lld)", kth,
                             (long long)len);
    }
  }
  if (def->code == 1 && a->given[2] && a->v[2].kind != V_NONE) { /* argsort's kind= */
    const char *kind;
    TSR_CHECK(tsr_arg_string(c, a, 2, "kind", &kind));
    if (strcmp(kind, "quicksort") && strcmp(kind, "mergesort") && strcmp(kind, "heapsort") &&
        strcmp(kind, "stable"))
      return tsr_ctx_error(c, a->at[2], TSR_ERR_VALUE,
                           "sort kind must be one of 'quick', 'heap', or 'stable' (got '%s')",
                           kind);
  }
  TSR_CHECK(tsr_ctx_relocate(
      c, call, tsr_node_sort(x, axis, def->code % 2 ? TSR_SORT_ARG : TSR_SORT_ONLY, 0.0, &n)));
  tsr_set_array(out, n);
  return TSR_OK;
}

/* x sorted as q reads it: along one axis, flattened, or over the axes of
 * a tuple moved last and flattened into one (NumPy's _ureduce). */
static int sort_x(const sorted *q, tsr_node *x, int what, double qq, tsr_node **out) {
  if (q->axis == TSR_AXES_SET) return tsr_node_sort_axes(x, q->mask, what, qq, out);
  return tsr_node_sort(x, q->axis, what, qq, out);
}

/* r (x's kept axes) with the reduced axes back as length 1 (keepdims). */
static int expand(const sorted *q, tsr_node *r, tsr_node **out) {
  tsr_axis_sel sel[TSR_MAXDIM];
  for (int d = 0, k = 0; d < q->ndim; d++) {
    if ((q->mask >> d) & 1u) {
      sel[d] = (tsr_axis_sel){TSR_SEL_NEWAXIS, 0, 0, 0, 0};
      continue;
    }
    sel[d] = (tsr_axis_sel){TSR_SEL_SLICE, 0, 1, r->grid.shape[k++], 0};
  }
  return tsr_node_select(r, sel, q->ndim, out);
}

/* The sorted value k along the axis (keepdims: kept as length 1). */
static int take(const sorted *q, int64_t k, tsr_node **out) {
  tsr_axis_sel sel[TSR_MAXDIM];
  int ns = q->s->grid.ndim;
  for (int d = 0; d < ns; d++) {
    if (d != q->ax)
      sel[d] = (tsr_axis_sel){TSR_SEL_SLICE, 0, 1, q->s->grid.shape[d], 0};
    else if (q->keep && q->axis >= 0)
      sel[d] = (tsr_axis_sel){TSR_SEL_SLICE, k, 1, 1, 0};
    else
      sel[d] = (tsr_axis_sel){TSR_SEL_INDEX, 0, 0, 0, k};
  }
  TSR_CHECK(tsr_node_select(q->s, sel, ns, out));
  if (!q->keep || q->axis >= 0 || q->ndim == 0) return TSR_OK;
  return expand(q, *out, out);
}

/* r, or NaN where the slice's last sorted value is NaN. */
static int nan_slices(const sorted *q, tsr_node *r, tsr_node **out) {
  tsr_node *last, *isnan;
  if (!q->may_nan) return *out = r, TSR_OK;
  TSR_CHECK(take(q, q->n - 1, &last));
  TSR_CHECK(tsr_node_unary(EW_ISNAN, last, &isnan));
  return tsr_node_where(isnan, last, r, out);
}

/* NumPy's _lerp(a, b, t): a + (b - a) t, or b - (b - a) (1 - t) for t >= 0.5. */
static int lerp(tsr_node *lo, tsr_node *hi, double t, tsr_node **out) {
  tsr_node *d, *dt;
  TSR_CHECK(tsr_node_binary(EW_SUB, hi, lo, &d));
  if (t >= 0.5) {
    TSR_CHECK(tsr_node_op_number(EW_MUL, d, 1.0 - t, &dt));
    return tsr_node_binary(EW_SUB, hi, dt, out);
  }
  TSR_CHECK(tsr_node_op_number(EW_MUL, d, t, &dt));
  return tsr_node_binary(EW_ADD, lo, dt, out);
}

/* The quantile qq in [0, 1] with NumPy's linear method (_quantile,
 * _get_indexes, _get_gamma: an index past the last one is -1 for gamma). */
static int quantile_one(const sorted *q, double qq, tsr_node **out) {
  double vi = (double)(q->n - 1) * qq, prev = floor(vi);
  int64_t lo = (int64_t)prev, hi = lo + 1;
  if (vi >= (double)(q->n - 1)) lo = hi = q->n - 1, prev = -1.0;
  tsr_node *a, *b, *r;
  TSR_CHECK(take(q, lo, &a));
  TSR_CHECK(take(q, hi, &b));
  TSR_CHECK(lerp(a, b, vi - prev, &r));
  return nan_slices(q, r, out);
}

/* np.median: the middle value, or the mean of the two middle values. */
static int median(const sorted *q, tsr_node **out) {
  tsr_node *a, *b, *r;
  int64_t h = q->n / 2;
  TSR_CHECK(take(q, h, &b));
  if (q->n % 2) {
    r = b;
  } else {
    TSR_CHECK(take(q, h - 1, &a));
    TSR_CHECK(tsr_node_binary(EW_ADD, a, b, &r));
    TSR_CHECK(tsr_node_op_number(EW_DIV, r, 2.0, &r));
  }
  return nan_slices(q, r, out);
}

/* The results of nq quantiles stacked along a new leading axis: a chain of
 * where(iota == k, r[k], ...) over iota = arange(nq) shaped (nq, 1, ...). */
static int stack(tsr_node **r, int nq, tsr_node **out) {
  tsr_grid g;
  int64_t len = nq;
  tsr_node *iota, *eq;
  TSR_CHECK(tsr_grid_init_regular(&g, 1, &len, &len));
  int st = tsr_node_arange(0.0, 1.0, &g, TSR_F64, &iota);
  tsr_grid_free(&g);
  TSR_CHECK(st);
  tsr_axis_sel sel[TSR_MAXDIM] = {{TSR_SEL_SLICE, 0, 1, nq, 0}};
  for (int d = 0; d < r[0]->grid.ndim; d++)
    sel[d + 1] = (tsr_axis_sel){TSR_SEL_NEWAXIS, 0, 0, 0, 0};
  TSR_CHECK(tsr_node_select(iota, sel, 1 + r[0]->grid.ndim, &iota));
  TSR_CHECK(tsr_node_op_number(EW_EQUAL, iota, nq - 1, &eq));
  TSR_CHECK(tsr_node_where(eq, r[nq - 1], r[nq - 1], out));
  for (int k = nq - 2; k >= 0; k--) {
    TSR_CHECK(tsr_node_op_number(EW_EQUAL, iota, k, &eq));
    TSR_CHECK(tsr_node_where(eq, r[k], *out, out));
  }
  return TSR_OK;
}

/* q= as nq fractions in [0, 1] (percentile: divided by 100); *list: given
 * as a tuple or list (the result gets a leading axis). */
static int q_args(tsr_ctx *c, const tsr_args *a, int kind, double *qs, int *nq, int *list) {
  const tsr_value *v = &a->v[1];
  *list = v->kind == V_TUPLE;
  *nq = *list ? v->nitems : 1;
  if (*list && (*nq < 1 || *nq > MAX_Q))
    return tsr_ctx_error(c, a->at[1], TSR_ERR_VALUE, "q needs 1 to %d values, got %d", MAX_Q, *nq);
  for (int k = 0; k < *nq; k++) {
    const tsr_value *e = *list ? &v->items[k] : v;
    if (!tsr_value_is_number(e))
      return tsr_ctx_error(c, a->at[1], TSR_ERR_TYPE,
                           "q must be a number or a list of numbers, got %s",
                           tsr_value_type_name(e));
    int pct = kind == QUANT_PERCENTILE || kind == QUANT_NANPERCENTILE;
    double x = tsr_value_number(e), top = pct ? 100.0 : 1.0;
    if (!(x >= 0.0 && x <= top))
      return tsr_ctx_error(c, a->at[1], TSR_ERR_VALUE, "%s must be in the range [0, %g]",
                           pct ? "Percentiles" : "Quantiles", top);
    qs[k] = pct ? x / 100.0 : x;
  }
  return TSR_OK;
}

/* NaN in the result's shape: NumPy's median of an empty slice (and
 * nanquantile's; a list of nq gives a leading axis), of dtype dt. */
static int empty_result(const sorted *q, const tsr_node *x, int nq, int list, tsr_dtype dt,
                        tsr_node **out) {
  int64_t shape[TSR_MAXDIM + 1], chunk[TSR_MAXDIM + 1];
  int nd = 0;
  if (list) shape[nd] = chunk[nd] = nq, nd++;
  for (int d = 0; d < q->ndim; d++) {
    int gone = (q->mask >> d) & 1u;
    if (gone && !q->keep) continue;
    shape[nd] = gone ? 1 : x->grid.shape[d];
    chunk[nd] = shape[nd] > 0 ? shape[nd] : 1;
    nd++;
  }
  tsr_grid g;
  TSR_CHECK(tsr_grid_init_regular(&g, nd, shape, chunk));
  int st = tsr_node_full(NAN, &g, dt, out);
  tsr_grid_free(&g);
  return st;
}

/* q= given as integers only (quantile(a, 0), quantile(a, [0, 1])): NumPy's
 * virtual indices are integers then, and it takes the values without
 * interpolating, keeping a's dtype. */
static int q_is_int(const tsr_value *v) {
  if (v->kind != V_TUPLE) return v->kind == V_INT || v->kind == V_BOOL;
  for (int k = 0; k < v->nitems; k++)
    if (v->items[k].kind != V_INT && v->items[k].kind != V_BOOL) return 0;
  return 1;
}

/* take_path: q_is_int, s in a's dtype. */
static int compute(const sorted *q, int kind, const double *qs, int nq, int list, int take_path,
                   tsr_node **out) {
  tsr_node *r[MAX_Q];
  if (kind == QUANT_MEDIAN) return median(q, out);
  for (int k = 0; k < nq; k++) {
    if (!take_path) {
      TSR_CHECK(quantile_one(q, qs[k], &r[k]));
      continue;
    }
    TSR_CHECK(take(q, (int64_t)((double)(q->n - 1) * qs[k]), &r[k]));
    TSR_CHECK(nan_slices(q, r[k], &r[k]));
  }
  if (!list) return *out = r[0], TSR_OK;
  return stack(r, nq, out);
}

/* The nan-variants: per q, the statistic each line of the sort leaves at
 * its start (a sort of x float64); take_path: the value at an integer
 * index, not interpolated (q_is_int). */
static int nan_compute(sorted *q, tsr_node *x, int kind, const double *qs, int nq, int list,
                       int take_path, tsr_node **out) {
  tsr_node *r[MAX_Q];
  int what = kind == QUANT_NANMEDIAN ? TSR_SORT_NANMEDIAN
             : take_path             ? TSR_SORT_NANTAKE
                                     : TSR_SORT_NANQUANTILE;
  for (int k = 0; k < nq; k++) {
    TSR_CHECK(sort_x(q, x, what, what == TSR_SORT_NANMEDIAN ? 0.0 : qs[k], &q->s));
    TSR_CHECK(take(q, 0, &r[k]));
  }
  if (!list) return *out = r[0], TSR_OK;
  return stack(r, nq, out);
}

/* n, float32 for the median of a float32 array (NumPy's mean of the middle
 * two in float32 rounds (a + b) / 2 once, as the cast of the float64 one)
 * and for a quantile taken at an integer index (exact). */
static int set_result(tsr_value *out, tsr_node *n, int f32) {
  if (f32) TSR_CHECK(tsr_node_astype(n, TSR_F32, &n));
  tsr_set_array(out, n);
  return TSR_OK;
}

/* axis= (an int, None or a tuple) and keepdims= of x at argument at, into
 * q: the reduced axes, the sorted axis, the values per slice. */
static int quant_axes(tsr_ctx *c, tsr_args *a, int at, tsr_node *x, sorted *q) {
  long long kd = 0;
  int nd = x->grid.ndim, kept = 0;
  TSR_CHECK(tsr_arg_axes(c, a, at, nd, &q->axis, &q->mask));
  if (a->given[at + 1]) TSR_CHECK(tsr_arg_int(c, a, at + 1, "keepdims", &kd));
  q->keep = kd != 0;
  q->ndim = nd;
  q->n = 1;
  for (int d = 0; d < nd; d++) {
    if ((q->mask >> d) & 1u)
      q->n *= x->grid.shape[d];
    else
      kept++;
  }
  q->ax = q->axis >= 0 ? q->axis : q->axis == TSR_AXES_SET ? kept : 0;
  q->may_nan = x->dtype == TSR_F64 || x->dtype == TSR_F32;
  return TSR_OK;
}

int tsr_b_quantile(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a,
                   tsr_value *out) {
  int kind = def->code, med = kind == QUANT_MEDIAN || kind == QUANT_NANMEDIAN;
  int at = med ? 1 : 2, nq = 1, list = 0;
  double qs[MAX_Q];
  tsr_node *x, *n;
  sorted q;
  TSR_CHECK(tsr_as_array(c, &a->v[0], a->at[0], TSR_F64, &x));
  if (!med) TSR_CHECK(q_args(c, a, kind, qs, &nq, &list));
  TSR_CHECK(quant_axes(c, a, at, x, &q));
  /* the median, and the quantiles of integer q (taken, not interpolated),
   * of a float32 array are float32, as NumPy's */
  int int_q = (kind == QUANT_QUANTILE || kind == QUANT_NANQUANTILE) && q_is_int(&a->v[1]);
  int f32 = x->dtype == TSR_F32 && (med || int_q);
  if (!q.may_nan && kind >= QUANT_NANMEDIAN) kind -= QUANT_NANMEDIAN; /* no NaN to skip */
  if (q.may_nan && kind >= QUANT_NANMEDIAN && x->dtype != TSR_F64)
    TSR_CHECK(tsr_node_astype(x, TSR_F64, &x));
  if (q.n == 0 && (kind == QUANT_QUANTILE || kind == QUANT_PERCENTILE))
    return tsr_ctx_error(c, call, TSR_ERR_INDEX, "%s of an empty array (index -1 is out of bounds)",
                         def->name);
  if (q.n == 0) {
    TSR_CHECK(
        tsr_ctx_relocate(c, call, empty_result(&q, x, nq, list, f32 ? TSR_F32 : TSR_F64, &n)));
    tsr_set_array(out, n);
    return TSR_OK;
  }
  if (kind >= QUANT_NANMEDIAN) {
    TSR_CHECK(tsr_ctx_relocate(c, call, nan_compute(&q, x, kind, qs, nq, list, int_q, &n)));
    return set_result(out, n, f32);
  }
  int take_path = kind == QUANT_QUANTILE && int_q;
  TSR_CHECK(tsr_ctx_relocate(c, call, sort_x(&q, x, TSR_SORT_ONLY, 0.0, &q.s)));
  if (q.s->dtype != TSR_F64 && !take_path) TSR_CHECK(tsr_node_astype(q.s, TSR_F64, &q.s));
  TSR_CHECK(tsr_ctx_relocate(c, call, compute(&q, kind, qs, nq, list, take_path, &n)));
  return set_result(out, n, f32);
}
