/*
 * chunks.c - chunk-grid arithmetic (see chunks.h), following dask.array's
 * normalize_chunks, slicing of chunk lists and unify_chunks.
 *
 * Everything here is integer arithmetic so that every rank derives bit-equal
 * grids, except auto chunks after previous chunks, which repeat Dask's
 * floating-point steps (in the same order, so that they pick Dask's chunks):
 * every rank runs the same code on the same grid, so the grids still agree.
 * Functions that build a grid overwrite *out without freeing it; on failure
 * they leave it empty (all pointers NULL), so tsr_grid_free() on it is always
 * safe.
 */
#include "graph/chunks.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"

/* ---- text ---- */

/* Bounded appender: keeps counting past the end so truncation is detectable. */
typedef struct text {
  char *buf;
  size_t cap, len;
} text;

static void text_put(text *t, const char *s) {
  for (; *s; s++, t->len++)
    if (t->len + 1 < t->cap) t->buf[t->len] = *s;
}

static void text_int(text *t, int64_t v) {
  char tmp[24];
  snprintf(tmp, sizeof tmp, "%lld", (long long)v);
  text_put(t, tmp);
}

/* Terminates the text; a cut-off text ends in "..." so it is never mistaken
 * for a complete one. */
static void text_end(text *t) {
  if (t->cap == 0) return;
  size_t end = t->len < t->cap ? t->len : t->cap - 1;
  t->buf[end] = '\0';
  if (t->len >= t->cap && t->cap >= 4) memcpy(t->buf + t->cap - 4, "...", 4);
}

/* Python tuple syntax: "()", "(4,)", "(3, 4)". */
static void text_tuple(text *t, const int64_t *v, int64_t n) {
  text_put(t, "(");
  for (int64_t i = 0; i < n; i++) {
    if (i) text_put(t, ", ");
    text_int(t, v[i]);
  }
  text_put(t, n == 1 ? ",)" : ")");
}

void tsr_shape_format(int ndim, const int64_t *shape, char *buf, size_t n) {
  text t = {buf, n, 0};
  text_tuple(&t, shape, ndim);
  text_end(&t);
}

void tsr_grid_format(const tsr_grid *g, char *buf, size_t n) {
  text t = {buf, n, 0};
  text_put(&t, "(");
  for (int a = 0; a < g->ndim; a++) {
    if (a) text_put(&t, ", ");
    text_tuple(&t, g->sizes[a], g->nchunks[a]);
  }
  text_put(&t, g->ndim == 1 ? ",)" : ")");
  text_end(&t);
}

/* ---- construction helpers ---- */

static int check_shape(int ndim, const int64_t *shape) {
  if (ndim < 0 || ndim > TSR_MAXDIM)
    return TSR_ERROR(TSR_ERR_VALUE, "arrays have 0 to %d dimensions, got %d", TSR_MAXDIM, ndim);
  int64_t total = 1;
  for (int a = 0; a < ndim; a++) {
    if (shape[a] < 0)
      return TSR_ERROR(TSR_ERR_VALUE, "array length must be non-negative, got %lld on axis %d",
                       (long long)shape[a], a);
    total = shape[a] == 0 ? 0 : total;
  }
  /* Element counts must stay representable; an empty array never overflows. */
  for (int a = 0; a < ndim && total != 0; a++) {
    if (total > INT64_MAX / shape[a]) {
      char s[128];
      tsr_shape_format(ndim, shape, s, sizeof s);
      return TSR_ERROR(TSR_ERR_VALUE, "array of shape %s has too many elements", s);
    }
    total *= shape[a];
  }
  return TSR_OK;
}

static void grid_begin(tsr_grid *g, int ndim, const int64_t *shape) {
  memset(g, 0, sizeof *g);
  g->ndim = ndim;
  for (int a = 0; a < ndim; a++) g->shape[a] = shape[a];
}

static int grid_fail(tsr_grid *g, int rc) {
  tsr_grid_free(g);
  return rc;
}

/* Allocates axis a for n chunks; sizes are filled in by the caller. */
static int axis_alloc(tsr_grid *g, int a, int64_t n) {
  g->nchunks[a] = n;
  TSR_MALLOC(g->sizes[a], (size_t)n * sizeof(int64_t));
  TSR_MALLOC(g->starts[a], (size_t)(n + 1) * sizeof(int64_t));
  return TSR_OK;
}

static void axis_prefix(tsr_grid *g, int a) {
  g->starts[a][0] = 0;
  for (int64_t i = 0; i < g->nchunks[a]; i++)
    g->starts[a][i + 1] = g->starts[a][i] + g->sizes[a][i];
}

/* Axis a from a list of positive sizes; an empty list means one chunk of 0. */
static int axis_set(tsr_grid *g, int a, const int64_t *sizes, int64_t n) {
  TSR_CHECK(axis_alloc(g, a, n > 0 ? n : 1));
  if (n > 0)
    memcpy(g->sizes[a], sizes, (size_t)n * sizeof(int64_t));
  else
    g->sizes[a][0] = 0;
  axis_prefix(g, a);
  return TSR_OK;
}

/* ---- constructors ---- */

static int axis_regular(tsr_grid *g, int a, int64_t chunk) {
  int64_t len = g->shape[a];
  int64_t n = len == 0 ? 1 : (len - 1) / chunk + 1;
  TSR_CHECK(axis_alloc(g, a, n));
  for (int64_t i = 0; i < n; i++)
    g->sizes[a][i] = chunk < len - i * chunk ? chunk : len - i * chunk;
  axis_prefix(g, a);
  return TSR_OK;
}

int tsr_grid_init_regular(tsr_grid *g, int ndim, const int64_t *shape, const int64_t *chunk) {
  memset(g, 0, sizeof *g);
  TSR_CHECK(check_shape(ndim, shape));
  for (int a = 0; a < ndim; a++)
    if (chunk[a] < 1)
      return TSR_ERROR(TSR_ERR_VALUE, "chunk size must be positive, got %lld on axis %d",
                       (long long)chunk[a], a);
  grid_begin(g, ndim, shape);
  for (int a = 0; a < ndim; a++) {
    int rc = axis_regular(g, a, chunk[a]);
    if (rc != TSR_OK) return grid_fail(g, rc);
  }
  return TSR_OK;
}

/* Zero sizes are only meaningful on an empty axis, where they all collapse
 * into its single chunk of 0. */
static int check_list(int a, int64_t len, const int64_t *sizes, int64_t n) {
  int64_t sum = 0;
  int overflow = 0;
  for (int64_t i = 0; i < n; i++) {
    if (sizes[i] < 0 || (sizes[i] == 0 && len != 0))
      return TSR_ERROR(TSR_ERR_VALUE,
                       "chunk sizes must be positive, got %lld at position %lld on axis %d",
                       (long long)sizes[i], (long long)i, a);
    if (sizes[i] > INT64_MAX - sum)
      overflow = 1;
    else
      sum += sizes[i];
  }
  if (sum != len || overflow) {
    char s[160];
    text t = {s, sizeof s, 0};
    text_tuple(&t, sizes, n);
    text_end(&t);
    return TSR_ERROR(TSR_ERR_SHAPE, "chunks %s sum to %s%lld but axis %d has length %lld", s,
                     overflow ? "more than " : "", (long long)sum, a, (long long)len);
  }
  return TSR_OK;
}

int tsr_grid_init_lists(tsr_grid *g, int ndim, const int64_t *shape, const int64_t *const *sizes,
                        const int64_t *nsizes) {
  memset(g, 0, sizeof *g);
  TSR_CHECK(check_shape(ndim, shape));
  for (int a = 0; a < ndim; a++) {
    if (nsizes[a] < 0)
      return TSR_ERROR(TSR_ERR_VALUE, "negative chunk count %lld on axis %d", (long long)nsizes[a],
                       a);
    TSR_CHECK(check_list(a, shape[a], sizes[a], nsizes[a]));
  }
  int64_t total = 1;
  for (int a = 0; a < ndim; a++)
    if ((total *= nsizes[a] > 0 ? nsizes[a] : 1) > TSR_MAX_CHUNKS)
      return TSR_ERROR(TSR_ERR_VALUE,
                       "the chunks make more than %lld chunks of one array: use larger chunks",
                       (long long)TSR_MAX_CHUNKS);
  grid_begin(g, ndim, shape);
  for (int a = 0; a < ndim; a++) {
    int rc = axis_set(g, a, sizes[a], shape[a] == 0 ? 0 : nsizes[a]);
    if (rc != TSR_OK) return grid_fail(g, rc);
  }
  return TSR_OK;
}

/* Whether r**n <= q, without overflow. */
static int pow_le(int64_t r, int n, int64_t q) {
  int64_t p = 1;
  for (int i = 0; i < n; i++) {
    if (r != 0 && p > q / r) return 0;
    p *= r;
  }
  return p <= q;
}

/* floor(q ** (1/n)) for q >= 0, n >= 1, by bisection (exact, unlike pow()). */
static int64_t int_root(int64_t q, int n) {
  int64_t lo = 0, hi = q < 1 ? 1 : q; /* invariant: lo**n <= q < hi**n or hi == q */
  if (pow_le(hi, n, q)) return hi;
  while (hi - lo > 1) {
    int64_t mid = lo + (hi - lo) / 2;
    if (pow_le(mid, n, q))
      lo = mid;
    else
      hi = mid;
  }
  return lo;
}

/* Dask's auto_chunks without previous chunks: the cube root (square root, ...)
 * of the element budget per free axis; axes shorter than that are taken whole
 * and the budget is recomputed for the rest. */
static void auto_sizes(int ndim, const int64_t *shape, size_t itemsize, size_t target,
                       int64_t *chunk) {
  int free_axes[TSR_MAXDIM], nfree = 0;
  int64_t budget = (int64_t)(target / itemsize > INT64_MAX ? INT64_MAX : target / itemsize);
  for (int a = 0; a < ndim; a++) chunk[a] = shape[a];
  for (int a = 0; a < ndim; a++) {
    if (shape[a] == 0) return; /* no bytes at all: everything whole, as Dask does */
    free_axes[nfree++] = a;
  }
  for (int changed = 1; nfree > 0 && changed;) {
    int64_t side = int_root(budget, nfree);
    changed = 0;
    for (int i = 0; i < nfree; i++) {
      int a = free_axes[i];
      if (shape[a] > side) continue;
      budget /= shape[a]; /* floor(floor(x/p)/q) == floor(x/(p*q)) */
      free_axes[i--] = free_axes[--nfree];
      changed = 1;
    }
    if (!changed)
      for (int i = 0; i < nfree; i++) chunk[free_axes[i]] = side < 1 ? 1 : side;
  }
}

int tsr_grid_init_auto(tsr_grid *g, int ndim, const int64_t *shape, size_t itemsize,
                       size_t target_bytes) {
  memset(g, 0, sizeof *g);
  TSR_CHECK(check_shape(ndim, shape));
  if (itemsize == 0) return TSR_ERROR(TSR_ERR_VALUE, "auto chunks need a positive item size");
  if (target_bytes == 0)
    return TSR_ERROR(TSR_ERR_VALUE, "auto chunks need a positive target chunk size in bytes");
  int64_t chunk[TSR_MAXDIM];
  auto_sizes(ndim, shape, itemsize, target_bytes, chunk);
  for (int a = 0; a < ndim; a++) chunk[a] = chunk[a] < 1 ? 1 : chunk[a];
  return tsr_grid_init_regular(g, ndim, shape, chunk);
}

/* ---- auto chunks after previous chunks ---- */

/* Dask's auto_chunks with previous_chunks. Each free axis starts from its
 * median previous chunk, scaled by the n-th root of the multiplier (how many
 * times the target is the block of medians). An axis whose scaled size
 * passes its length is taken whole and the multiplier recomputed for the
 * rest. Otherwise, when the target is smaller than the previous block (Dask's
 * reduce case) or a previous chunk is too big (beyond the tolerance), the axis
 * gets a regular size (round_to); else whole previous chunks are grouped up to
 * the scaled size. In the reduce case the sizes are refined until the
 * multiplier stops changing. One difference: an axis taken whole in the
 * reduce case counts once (Dask re-adds its length to the medians, so it
 * counts twice and the other axes shrink far below the target). */

#define AUTO_TOLERANCE 1.25   /* Dask's array.chunk-size-tolerance */
#define AUTO_MAX_PASSES 10000 /* Dask's loop has no bound; it settles in a few */

enum { PICK_KEEP, PICK_WHOLE, PICK_SIZE, PICK_GROUP };

typedef struct auto_axis {
  int pick;        /* PICK_*: how the axis's chunks are made */
  int free;        /* still resized by the passes (Dask's autos) */
  int counted;     /* its median enters the multiplier */
  double median;   /* median previous chunk; in the reduce case the size chosen */
  double want;     /* PICK_GROUP: the most a group may hold */
  int64_t size;    /* PICK_SIZE: the regular chunk size */
  int64_t ideal;   /* the commonest previous chunk if > 1 and half of them, else the length */
  int64_t largest; /* the largest previous chunk */
} auto_axis;

typedef struct auto_state {
  const tsr_grid *prev;
  auto_axis ax[TSR_MAXDIM];
  double items;  /* the target in elements */
  int64_t fixed; /* Dask's largest_block: largest chunks of the axes not free */
  double mult;   /* the target over the block of fixed and counted axes */
  int reduce;    /* Dask's reduce_case: mult started below 1 */
} auto_state;

static int cmp_i64(const void *pa, const void *pb) {
  int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;
  return (a > b) - (a < b);
}

/* First index of sorted[0..n) above v (after: 1) or not below it (after: 0). */
static int64_t bound(const int64_t *sorted, int64_t n, int64_t v, int after) {
  int64_t lo = 0, hi = n;
  while (lo < hi) {
    int64_t mid = lo + (hi - lo) / 2;
    if (sorted[mid] < v || (after && sorted[mid] == v))
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

static int64_t occurrences(const int64_t *sorted, int64_t n, int64_t v) {
  return bound(sorted, n, v, 1) - bound(sorted, n, v, 0);
}

/* The commonest of sizes[0..n) (the first seen among equals, as Dask's max
 * over toolz.frequencies); sorted holds the same values in order. */
static int64_t commonest(const int64_t *sizes, const int64_t *sorted, int64_t n, int64_t *count) {
  int64_t best = 0, run = 0;
  for (int64_t i = 0; i < n; i++) {
    run = i > 0 && sorted[i] == sorted[i - 1] ? run + 1 : 1;
    best = run > best ? run : best;
  }
  *count = best;
  for (int64_t i = 0;; i++)
    if (occurrences(sorted, n, sizes[i]) == best) return sizes[i];
}

/* Median (as numpy.median), commonest and largest previous chunk of axis a. */
static int axis_stats(const tsr_grid *prev, int a, auto_axis *x) {
  int64_t n = prev->nchunks[a], count, *s;
  TSR_MALLOC(s, (size_t)n * sizeof *s);
  memcpy(s, prev->sizes[a], (size_t)n * sizeof *s);
  qsort(s, (size_t)n, sizeof *s, cmp_i64);
  x->median = n % 2 ? (double)s[n / 2] : ((double)s[n / 2 - 1] + (double)s[n / 2]) / 2;
  x->largest = s[n - 1];
  int64_t mode = commonest(prev->sizes[a], s, n, &count);
  x->ideal = mode > 1 && 2 * count >= n ? mode : prev->shape[a];
  free(s);
  return TSR_OK;
}

/* The target over the fixed block and the medians of the counted axes. */
static double auto_multiplier(const auto_state *s) {
  double prod = 1;
  for (int a = 0; a < s->prev->ndim; a++)
    if (s->ax[a].counted && s->ax[a].median != 0) prod *= s->ax[a].median;
  return s->items / (double)s->fixed / prod;
}

static int auto_begin(auto_state *s, const tsr_grid *prev, const int *auto_axes, size_t itemsize,
                      size_t target) {
  memset(s, 0, sizeof *s);
  s->prev = prev;
  s->items = (double)target / (double)itemsize;
  s->fixed = 1;
  for (int a = 0; a < prev->ndim; a++) {
    auto_axis *x = &s->ax[a];
    TSR_CHECK(axis_stats(prev, a, x));
    x->free = x->counted = !auto_axes || auto_axes[a];
    if (!x->free && x->largest > 0) s->fixed *= x->largest;
  }
  s->mult = auto_multiplier(s);
  s->reduce = s->mult < 1;
  return TSR_OK;
}

/* Dask's round_to: below the ideal size, its integer part (at least 1);
 * above it, the largest multiple of the ideal size not above it. */
static int64_t round_to(double want, int64_t ideal) {
  if (want <= (double)ideal) return want < 1 ? 1 : (int64_t)want;
  double rest = fmod(want, (double)ideal), k = floor((want - rest) / (double)ideal);
  k += (want - rest) / (double)ideal - k > 0.5; /* Python's float // */
  return (int64_t)k * ideal;
}

static void pick_axis(auto_state *s, int a, double grow, double tol, int *changed) {
  auto_axis *x = &s->ax[a];
  int64_t len = s->prev->shape[a];
  double want = x->median * grow;
  if (want > (double)len) {
    x->pick = PICK_WHOLE;
    x->free = x->counted = 0;
    s->fixed *= len;
    *changed = 1;
  } else if (s->reduce || (double)x->largest > want * tol) {
    x->pick = PICK_SIZE;
    x->size = round_to(want, x->ideal);
    if (s->reduce) x->median = (double)x->size;
    if (want < 1) {
      x->free = 0;
      *changed = 1;
    }
  } else {
    x->pick = PICK_GROUP;
    x->want = want;
  }
}

/* One pass over the free axes with the current multiplier; the multiplier
 * is then recomputed. Returns whether another pass is needed. */
static int auto_pass(auto_state *s) {
  int n = 0, changed = 0;
  for (int a = 0; a < s->prev->ndim; a++) n += s->ax[a].free;
  double grow = pow(s->mult, 1.0 / n), tol = pow(AUTO_TOLERANCE, 1.0 / n);
  for (int a = 0; a < s->prev->ndim && n > 0; a++)
    if (s->ax[a].free) pick_axis(s, a, grow, tol, &changed);
  if (changed || s->reduce) {
    double last = s->mult;
    s->mult = auto_multiplier(s);
    changed |= s->mult != last;
  }
  return changed;
}

/* Whole previous chunks of axis a, grouped while a group holds at most want. */
static int axis_grouped(tsr_grid *g, int a, const tsr_grid *prev, double want) {
  int64_t n = prev->nchunks[a], m = 0, run = 0, *tmp;
  TSR_MALLOC(tmp, (size_t)n * sizeof *tmp);
  for (int64_t i = 0; i < n; i++) {
    int64_t c = prev->sizes[a][i];
    if ((double)(run + c) <= want) {
      run += c;
      continue;
    }
    if (run > 0) tmp[m++] = run;
    run = c;
  }
  if (run > 0) tmp[m++] = run;
  int rc = axis_set(g, a, tmp, m);
  free(tmp);
  return rc;
}

static int auto_axis_build(tsr_grid *g, int a, const auto_state *s) {
  const tsr_grid *prev = s->prev;
  const auto_axis *x = &s->ax[a];
  int64_t len = prev->shape[a];
  if (x->pick == PICK_KEEP) return axis_set(g, a, prev->sizes[a], len == 0 ? 0 : prev->nchunks[a]);
  if (x->pick == PICK_GROUP) return axis_grouped(g, a, prev, x->want);
  return axis_regular(g, a, x->pick == PICK_SIZE ? x->size : len > 0 ? len : 1);
}

int tsr_grid_init_auto_prev(tsr_grid *g, const tsr_grid *prev, const int *auto_axes,
                            size_t itemsize, size_t target_bytes) {
  memset(g, 0, sizeof *g);
  if (itemsize == 0) return TSR_ERROR(TSR_ERR_VALUE, "auto chunks need a positive item size");
  if (target_bytes == 0)
    return TSR_ERROR(TSR_ERR_VALUE, "auto chunks need a positive target chunk size in bytes");
  auto_state s;
  TSR_CHECK(auto_begin(&s, prev, auto_axes, itemsize, target_bytes));
  for (int pass = 1; auto_pass(&s) && pass < AUTO_MAX_PASSES; pass++) continue;
  grid_begin(g, prev->ndim, prev->shape);
  for (int a = 0; a < prev->ndim; a++) {
    int rc = auto_axis_build(g, a, &s);
    if (rc != TSR_OK) return grid_fail(g, rc);
  }
  return TSR_OK;
}

int tsr_grid_copy(tsr_grid *dst, const tsr_grid *src) {
  grid_begin(dst, src->ndim, src->shape);
  for (int a = 0; a < src->ndim; a++) {
    int rc = axis_set(dst, a, src->sizes[a], src->nchunks[a]);
    if (rc != TSR_OK) return grid_fail(dst, rc);
  }
  return TSR_OK;
}

void tsr_grid_free(tsr_grid *g) {
  for (int a = 0; a < TSR_MAXDIM; a++) {
    free(g->sizes[a]);
    free(g->starts[a]);
  }
  memset(g, 0, sizeof *g);
}

int tsr_grid_equal(const tsr_grid *a, const tsr_grid *b) {
  if (a->ndim != b->ndim) return 0;
  for (int d = 0; d < a->ndim; d++) {
    if (a->shape[d] != b->shape[d] || a->nchunks[d] != b->nchunks[d]) return 0;
    if (memcmp(a->sizes[d], b->sizes[d], (size_t)a->nchunks[d] * sizeof(int64_t)) != 0) return 0;
  }
  return 1;
}

/* ---- queries ---- */

int64_t tsr_grid_count(const tsr_grid *g) {
  int64_t n = 1;
  for (int a = 0; a < g->ndim; a++) n *= g->nchunks[a];
  return n;
}

void tsr_grid_unravel(const tsr_grid *g, int64_t linear, int64_t *idx) {
  for (int a = g->ndim - 1; a >= 0; a--) {
    idx[a] = linear % g->nchunks[a];
    linear /= g->nchunks[a];
  }
}

int64_t tsr_grid_ravel(const tsr_grid *g, const int64_t *idx) {
  int64_t linear = 0;
  for (int a = 0; a < g->ndim; a++) linear = linear * g->nchunks[a] + idx[a];
  return linear;
}

void tsr_grid_chunk_box(const tsr_grid *g, const int64_t *idx, int64_t *start, int64_t *extent) {
  for (int a = 0; a < g->ndim; a++) {
    start[a] = g->starts[a][idx[a]];
    extent[a] = g->sizes[a][idx[a]];
  }
}

int64_t tsr_grid_chunk_at(const tsr_grid *g, int64_t c, int64_t *start, int64_t *extent) {
  int64_t idx[TSR_MAXDIM], n = 1;
  tsr_grid_unravel(g, c, idx);
  tsr_grid_chunk_box(g, idx, start, extent);
  for (int a = 0; a < g->ndim; a++) n *= extent[a];
  return n;
}

/* Returns -1 for an index outside [0, shape[axis]). */
int64_t tsr_grid_find(const tsr_grid *g, int axis, int64_t index) {
  if (index < 0 || index >= g->shape[axis]) return -1;
  const int64_t *st = g->starts[axis];
  int64_t lo = 0, hi = g->nchunks[axis]; /* st[lo] <= index < st[hi] */
  while (hi - lo > 1) {
    int64_t mid = lo + (hi - lo) / 2;
    if (st[mid] <= index)
      lo = mid;
    else
      hi = mid;
  }
  return lo;
}

int64_t tsr_grid_max_chunk_elems(const tsr_grid *g) {
  int64_t n = 1;
  for (int a = 0; a < g->ndim; a++) {
    int64_t m = 0;
    for (int64_t i = 0; i < g->nchunks[a]; i++) m = g->sizes[a][i] > m ? g->sizes[a][i] : m;
    n *= m;
  }
  return n;
}

/* ---- slicing ---- */

/* CPython's PySlice_AdjustIndices for one bound. */
static int64_t clip_bound(int64_t v, int64_t len, int64_t step) {
  if (v < 0) {
    v += len;
    if (v < 0) v = step < 0 ? -1 : 0;
  } else if (v >= len) {
    v = step < 0 ? len - 1 : len;
  }
  return v;
}

int tsr_slice_normalize(int64_t len, const int64_t *start, const int64_t *stop, const int64_t *step,
                        int64_t *first, int64_t *out_step, int64_t *count) {
  if (len < 0)
    return TSR_ERROR(TSR_ERR_VALUE, "cannot slice an axis of negative length %lld", (long long)len);
  int64_t st = step ? *step : 1;
  if (st == 0) return TSR_ERROR(TSR_ERR_VALUE, "slice step cannot be zero");
  if (st < -INT64_MAX) st = -INT64_MAX; /* as CPython: -step must not overflow */
  int64_t lo = clip_bound(start ? *start : (st < 0 ? INT64_MAX : 0), len, st);
  int64_t hi = clip_bound(stop ? *stop : (st < 0 ? INT64_MIN : INT64_MAX), len, st);
  int64_t n = 0;
  if (st < 0 && hi < lo) n = (lo - hi - 1) / -st + 1;
  if (st > 0 && lo < hi) n = (hi - lo - 1) / st + 1;
  *first = lo;
  *out_step = st;
  *count = n;
  return TSR_OK;
}

/* floor(a / b) and ceil(a / b) for b > 0. */
static int64_t floor_div(int64_t a, int64_t b) { return a / b - (a % b != 0 && a < 0); }
static int64_t ceil_div(int64_t a, int64_t b) { return a / b + (a % b != 0 && a > 0); }

/* How many of the selected indices first + k*step (0 <= k < count) fall in
 * [lo, hi): the k range is an interval, so no enumeration is needed. */
static int64_t selected_in(int64_t lo, int64_t hi, const tsr_axis_sel *s) {
  int64_t kmin, kmax;
  if (s->step > 0) {
    kmin = ceil_div(lo - s->first, s->step);
    kmax = floor_div(hi - 1 - s->first, s->step);
  } else {
    kmin = ceil_div(s->first - (hi - 1), -s->step);
    kmax = floor_div(s->first - lo, -s->step);
  }
  kmin = kmin < 0 ? 0 : kmin;
  kmax = kmax > s->count - 1 ? s->count - 1 : kmax;
  return kmax >= kmin ? kmax - kmin + 1 : 0;
}

/* Output axis oa of a slice of input axis ia: walk the input chunks from the
 * one holding the first selected index to the one holding the last. */
static int axis_sliced(tsr_grid *out, int oa, const tsr_grid *in, int ia, const tsr_axis_sel *s) {
  if (s->count == 0) return axis_set(out, oa, NULL, 0);
  int64_t c0 = tsr_grid_find(in, ia, s->first);
  int64_t c1 = tsr_grid_find(in, ia, s->first + (s->count - 1) * s->step);
  int64_t dir = s->step > 0 ? 1 : -1, m = 0, *tmp;
  TSR_MALLOC(tmp, (size_t)((c1 - c0) * dir + 1) * sizeof(int64_t));
  for (int64_t c = c0;; c += dir) {
    int64_t k = selected_in(in->starts[ia][c], in->starts[ia][c + 1], s);
    if (k > 0) tmp[m++] = k;
    if (c == c1) break;
  }
  int rc = axis_set(out, oa, tmp, m);
  free(tmp);
  return rc;
}

static int check_slice(const tsr_axis_sel *s, int64_t len, int axis) {
  int64_t mag = s->step < 0 && s->step != INT64_MIN ? -s->step : s->step;
  int ok = s->count >= 0 && s->step != 0 && s->step != INT64_MIN;
  if (ok && s->count > 0)
    ok = s->first >= 0 && s->first < len &&
         s->count - 1 <= (s->step > 0 ? len - 1 - s->first : s->first) / mag;
  if (!ok)
    return TSR_ERROR(
        TSR_ERR_INTERNAL,
        "slice (first %lld, step %lld, count %lld) is not normalized for axis %d of length %lld",
        (long long)s->first, (long long)s->step, (long long)s->count, axis, (long long)len);
  return TSR_OK;
}

/* Counts output axes and validates every selection before anything is built. */
static int check_select(const tsr_grid *in, const tsr_axis_sel *sel, int nsel, int *out_ndim) {
  int ia = 0, oa = 0, used = 0;
  for (int i = 0; i < nsel; i++) used += sel[i].kind != TSR_SEL_NEWAXIS;
  if (used > in->ndim)
    return TSR_ERROR(TSR_ERR_INDEX,
                     "too many indices for array: array is %d-dimensional, but %d were indexed",
                     in->ndim, used);
  for (int i = 0; i < nsel; i++) {
    if (sel[i].kind == TSR_SEL_NEWAXIS) {
      oa++;
      continue;
    }
    if (sel[i].kind == TSR_SEL_INDEX && (sel[i].index < 0 || sel[i].index >= in->shape[ia]))
      return TSR_ERROR(TSR_ERR_INDEX, "index %lld is out of bounds for axis %d with size %lld",
                       (long long)sel[i].index, ia, (long long)in->shape[ia]);
    if (sel[i].kind == TSR_SEL_SLICE) TSR_CHECK(check_slice(&sel[i], in->shape[ia], ia));
    oa += sel[i].kind == TSR_SEL_SLICE;
    ia++;
  }
  *out_ndim = oa + in->ndim - ia;
  if (*out_ndim > TSR_MAXDIM)
    return TSR_ERROR(TSR_ERR_VALUE,
                     "indexing would give %d dimensions, but at most %d are supported", *out_ndim,
                     TSR_MAXDIM);
  return TSR_OK;
}

static int select_axes(const tsr_grid *in, const tsr_axis_sel *sel, int nsel, tsr_grid *out) {
  static const int64_t one = 1;
  int ia = 0, oa = 0;
  for (int i = 0; i < nsel; i++) {
    if (sel[i].kind == TSR_SEL_NEWAXIS) {
      out->shape[oa] = 1;
      TSR_CHECK(axis_set(out, oa++, &one, 1));
    } else if (sel[i].kind == TSR_SEL_SLICE) {
      out->shape[oa] = sel[i].count;
      TSR_CHECK(axis_sliced(out, oa++, in, ia++, &sel[i]));
    } else {
      ia++;
    }
  }
  for (; ia < in->ndim; ia++, oa++) {
    out->shape[oa] = in->shape[ia];
    TSR_CHECK(axis_set(out, oa, in->sizes[ia], in->nchunks[ia]));
  }
  return TSR_OK;
}

int tsr_grid_select(const tsr_grid *in, const tsr_axis_sel *sel, int nsel, tsr_grid *out) {
  int ndim = 0;
  memset(out, 0, sizeof *out);
  TSR_CHECK(check_select(in, sel, nsel, &ndim));
  out->ndim = ndim;
  int rc = select_axes(in, sel, nsel, out);
  return rc == TSR_OK ? rc : grid_fail(out, rc);
}

/* ---- broadcasting and reduction ---- */

/* The common refinement of two chunkings of one length: every boundary of
 * either, each once. */
static int axis_union(tsr_grid *out, int oa, const tsr_grid *a, int xa, const tsr_grid *b, int xb) {
  const int64_t *sa = a->starts[xa], *sb = b->starts[xb], len = a->shape[xa];
  int64_t i = 1, j = 1, prev = 0, m = 0, *tmp;
  TSR_MALLOC(tmp, (size_t)(a->nchunks[xa] + b->nchunks[xb]) * sizeof(int64_t));
  while (prev < len) {
    int64_t next = sa[i] < sb[j] ? sa[i] : sb[j];
    i += sa[i] == next;
    j += sb[j] == next;
    tmp[m++] = next - prev;
    prev = next;
  }
  int rc = axis_set(out, oa, tmp, m);
  free(tmp);
  return rc;
}

static int broadcast_error(const tsr_grid *a, const tsr_grid *b) {
  char sa[128], sb[128];
  tsr_shape_format(a->ndim, a->shape, sa, sizeof sa);
  tsr_shape_format(b->ndim, b->shape, sb, sizeof sb);
  return TSR_ERROR(TSR_ERR_SHAPE, "operands could not be broadcast together with shapes %s %s", sa,
                   sb);
}

/* Input axis of g aligned with output axis o of an ndim-d result, or -1. */
static int aligned(const tsr_grid *g, int ndim, int o) { return o - (ndim - g->ndim); }

static int broadcast_axis(tsr_grid *out, int o, const tsr_grid *a, const tsr_grid *b) {
  int xa = aligned(a, out->ndim, o), xb = aligned(b, out->ndim, o);
  int64_t la = xa >= 0 ? a->shape[xa] : -1, lb = xb >= 0 ? b->shape[xb] : -1;
  if (la == lb) {
    out->shape[o] = la;
    return axis_union(out, o, a, xa, b, xb);
  }
  /* An operand stretches where it lacks the axis or has length 1 there. */
  const tsr_grid *src = la == -1 || (la == 1 && lb != -1) ? b : a;
  int x = src == b ? xb : xa;
  out->shape[o] = src->shape[x];
  return axis_set(out, o, src->sizes[x], src->nchunks[x]);
}

int tsr_grid_broadcast(const tsr_grid *a, const tsr_grid *b, tsr_grid *out) {
  int ndim = a->ndim > b->ndim ? a->ndim : b->ndim;
  memset(out, 0, sizeof *out);
  for (int o = 0; o < ndim; o++) {
    int xa = aligned(a, ndim, o), xb = aligned(b, ndim, o);
    if (xa < 0 || xb < 0) continue;
    int64_t la = a->shape[xa], lb = b->shape[xb];
    if (la != lb && la != 1 && lb != 1) return broadcast_error(a, b);
  }
  out->ndim = ndim;
  for (int o = 0; o < ndim; o++) {
    int rc = broadcast_axis(out, o, a, b);
    if (rc != TSR_OK) return grid_fail(out, rc);
  }
  return TSR_OK;
}

/* A negative axis counts from the end, as in NumPy. */
int tsr_grid_reduce(const tsr_grid *in, int axis, int keepdims, tsr_grid *out) {
  static const int64_t one = 1;
  memset(out, 0, sizeof *out);
  if (axis < -in->ndim || axis >= in->ndim)
    return TSR_ERROR(TSR_ERR_INDEX, "axis %d is out of bounds for array of dimension %d", axis,
                     in->ndim);
  axis = axis < 0 ? axis + in->ndim : axis;
  int64_t shape[TSR_MAXDIM];
  int ndim = 0;
  for (int a = 0; a < in->ndim; a++)
    if (a != axis || keepdims) shape[ndim++] = a == axis ? 1 : in->shape[a];
  grid_begin(out, ndim, shape);
  for (int a = 0, o = 0; a < in->ndim; a++) {
    if (a == axis && !keepdims) continue;
    int rc = a == axis ? axis_set(out, o, &one, 1) : axis_set(out, o, in->sizes[a], in->nchunks[a]);
    if (rc != TSR_OK) return grid_fail(out, rc);
    o++;
  }
  return TSR_OK;
}
