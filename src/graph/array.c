/*
 * array.c - creation of lazy array nodes: shape, dtype and chunk-grid rules,
 * and hash-consing so that a subexpression written twice is computed once.
 */
#include "graph/array.h"
#include "graph/groups.h"
#include "graph/sinks.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/ew_dtype.h"
#include "kernel/dtype.h"
#include "kernel/dtype_names.h"
#include "kernel/hist.h"
#include "kernel/quantile.h"
#include "util/error.h"

/* Every node of the job, newest first, and an index of them by hash for
 * interning: open addressing with linear probing over a power-of-two table
 * kept at most half full, so that creating a node costs O(1) amortized
 * (a job may have 10^5 nodes and more). */
static tsr_node *all_nodes;
static int next_id;
typedef struct index_slot {
  uint64_t hash;  /* the node's, kept here so that a probe reads no other node */
  tsr_node *node; /* NULL: empty */
} index_slot;
static index_slot *index_slots;
static int64_t index_cap, index_n;

static uint64_t mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  return h * 0xff51afd7ed558ccdULL;
}

static uint64_t mix_double(uint64_t h, double d) {
  uint64_t v;
  memcpy(&v, &d, sizeof v);
  return mix(h, v);
}

static uint64_t grid_hash(const tsr_grid *g) {
  uint64_t h = (uint64_t)g->ndim;
  for (int a = 0; a < g->ndim; a++) {
    h = mix(h, (uint64_t)g->shape[a]);
    for (int64_t i = 0; i < g->nchunks[a]; i++) h = mix(h, (uint64_t)g->sizes[a][i]);
  }
  return h;
}

static uint64_t node_hash(const tsr_node *n) {
  uint64_t h = mix((uint64_t)n->kind, (uint64_t)n->op);
  h = mix(h, (uint64_t)n->dtype);
  h = mix(h, grid_hash(&n->grid));
  h = mix(h, (uint64_t)(uintptr_t)n->in[0]);
  h = mix(h, (uint64_t)(uintptr_t)n->in[1]);
  h = mix_double(mix_double(h, n->a), n->b);
  h = mix(mix(h, n->key), n->stream);
  h = mix(h, (uint64_t)(uintptr_t)n->src);
  h = mix(h, (uint64_t)(uintptr_t)n->fit);
  h = mix(mix(mix(h, (uint64_t)n->axis), (uint64_t)n->keepdims), (uint64_t)n->ddof);
  for (int64_t i = 0; i < n->nconsts; i++) h = mix_double(h, n->consts[i]);
  for (int i = 0; i < n->nsel; i++) {
    const tsr_axis_sel *s = &n->sel[i];
    h = mix(
        mix(mix(mix(mix(h, s->kind), (uint64_t)s->first), (uint64_t)s->step), (uint64_t)s->count),
        (uint64_t)s->index);
  }
  return h;
}

static int same_double(double x, double y) { return memcmp(&x, &y, sizeof x) == 0; }

static int node_equal(const tsr_node *x, const tsr_node *y) {
  if (x->kind != y->kind || x->op != y->op || x->dtype != y->dtype) return 0;
  if (x->in[0] != y->in[0] || x->in[1] != y->in[1]) return 0;
  if (!same_double(x->a, y->a) || !same_double(x->b, y->b)) return 0;
  if (x->key != y->key || x->stream != y->stream || x->src != y->src) return 0;
  if (x->fit != y->fit) return 0;
  if (x->axis != y->axis || x->keepdims != y->keepdims || x->ddof != y->ddof) return 0;
  if (x->nsel != y->nsel || x->nconsts != y->nconsts) return 0;
  if (x->nconsts && memcmp(x->consts, y->consts, sizeof(double) * (size_t)x->nconsts) != 0)
    return 0;
  if (x->kind == N_VALUES && x->value && y->value &&
      memcmp(x->value, y->value, sizeof(double) * (size_t)tsr_node_size(x)) != 0)
    return 0;
  for (int i = 0; i < x->nsel; i++) { /* field by field: memcmp would read the padding */
    const tsr_axis_sel *s = &x->sel[i], *t = &y->sel[i];
    if (s->kind != t->kind || s->first != t->first || s->step != t->step || s->count != t->count ||
        s->index != t->index)
      return 0;
  }
  return tsr_grid_equal(&x->grid, &y->grid);
}

/* The slot of the node equal to proto (hash h), or the empty slot where it
 * would go. Pointers mixed into the hash differ between ranks, so slots do,
 * but not what is found: a node enters only when no equal one is there, and
 * the fields compared never change, so at most one node equals proto. */
static index_slot *index_find(index_slot *slots, int64_t cap, const tsr_node *proto, uint64_t h) {
  uint64_t mask = (uint64_t)cap - 1;
  for (uint64_t i = (h ^ (h >> 32)) & mask;; i = (i + 1) & mask) {
    index_slot *e = &slots[i];
    if (!e->node || (e->hash == h && node_equal(e->node, proto))) return e;
  }
}

/* Doubles the index (from 64) and moves every node into it. */
static int index_grow(void) {
  int64_t cap = index_cap ? 2 * index_cap : 64;
  index_slot *slots;
  TSR_CALLOC(slots, (size_t)cap, sizeof *slots);
  for (int64_t i = 0; i < index_cap; i++) {
    const index_slot *e = &index_slots[i];
    if (e->node) *index_find(slots, cap, e->node, e->hash) = *e;
  }
  free(index_slots);
  index_slots = slots;
  index_cap = cap;
  return TSR_OK;
}

/* Takes ownership of a filled-in prototype: returns an equal existing node
 * (freeing the prototype's grid) or a new heap copy. Random nodes are unique
 * by their stream, so they only merge when the user really wrote the same one. */
static int node_intern(tsr_node *proto, tsr_node **out) {
  for (int i = 0; i < 2; i++)
    if (proto->in[i] && proto->in[i]->depth + 1 > proto->depth)
      proto->depth = proto->in[i]->depth + 1;
  if (proto->depth > TSR_MAX_DEPTH) {
    tsr_grid_free(&proto->grid);
    return TSR_ERROR(TSR_ERR_VALUE,
                     "array expression more than %d operations deep: the passes over the graph "
                     "recurse through operands and do not take deeper ones",
                     TSR_MAX_DEPTH);
  }
  proto->hash = node_hash(proto);
  int st = 2 * (index_n + 1) > index_cap ? index_grow() : TSR_OK;
  if (st != TSR_OK) {
    tsr_grid_free(&proto->grid);
    return st;
  }
  index_slot *slot = index_find(index_slots, index_cap, proto, proto->hash);
  if (slot->node) {
    tsr_grid_free(&proto->grid);
    free(proto->consts);
    *out = slot->node;
    return TSR_OK;
  }
  tsr_node *n;
  TSR_MALLOC(n, sizeof *n);
  *n = *proto;
  n->id = next_id++;
  n->value = NULL;
  n->held = NULL;
  n->next_all = all_nodes;
  all_nodes = n;
  *slot = (index_slot){n->hash, n};
  index_n++;
  *out = n;
  return TSR_OK;
}

static void proto_init(tsr_node *p, tsr_node_kind kind, int op, tsr_dtype dt) {
  memset(p, 0, sizeof *p);
  p->kind = kind;
  p->op = op;
  p->dtype = dt;
  p->axis = -1;
}

int tsr_node_random(int kind, double a, double b, uint64_t key, uint32_t stream,
                    const tsr_grid *grid, tsr_dtype dt, tsr_node **out) {
  tsr_node p;
  proto_init(&p, N_RANDOM, kind, dt);
  p.a = a;
  p.b = b;
  p.key = key;
  p.stream = stream;
  TSR_CHECK(tsr_grid_copy(&p.grid, grid));
  return node_intern(&p, out);
}

int tsr_node_full(double value, const tsr_grid *grid, tsr_dtype dt, tsr_node **out) {
  tsr_node p;
  proto_init(&p, N_FULL, 0, dt);
  p.a = tsr_dtype_cast(value, dt);
  TSR_CHECK(tsr_grid_copy(&p.grid, grid));
  return node_intern(&p, out);
}

int tsr_node_values(const tsr_grid *grid, tsr_dtype dt, const double *values, tsr_node **out) {
  tsr_node p;
  proto_init(&p, N_VALUES, 0, dt);
  TSR_CHECK(tsr_grid_copy(&p.grid, grid));
  int64_t n = tsr_node_size(&p);
  uint64_t h = 1469598103934665603ull; /* FNV-1a of the bytes: the hash's key */
  const unsigned char *b = (const unsigned char *)values;
  for (size_t i = 0; i < sizeof(double) * (size_t)n; i++) h = (h ^ b[i]) * 1099511628211ull;
  p.key = h;
  p.value = malloc(sizeof(double) * (size_t)(n + 1));
  if (!p.value) {
    tsr_grid_free(&p.grid);
    return TSR_ERROR(TSR_ERR_MEMORY, "out of memory for an array of %lld values", (long long)n);
  }
  if (n) memcpy(p.value, values, sizeof(double) * (size_t)n);
  double *mine = p.value;
  int st = node_intern(&p, out);
  if (st == TSR_OK && !(*out)->value)
    (*out)->value = mine; /* a new node */
  else
    free(mine);
  return st;
}

int tsr_node_arange(double start, double step, const tsr_grid *grid, tsr_dtype dt, tsr_node **out) {
  tsr_node p;
  proto_init(&p, N_ARANGE, 0, dt);
  p.a = start;
  p.b = step;
  TSR_CHECK(tsr_grid_copy(&p.grid, grid));
  return node_intern(&p, out);
}

int tsr_node_unary(int op, tsr_node *x, tsr_node **out) {
  tsr_dtype dt;
  TSR_CHECK(tsr_ew_result_dtype(op, x->dtype, &dt));
  if (op == EW_INVERT && x->dtype == TSR_BOOL) op = EW_LOGICAL_NOT; /* ~ of bool is not */
  tsr_node p;
  proto_init(&p, N_UNARY, op, dt);
  p.in[0] = x;
  TSR_CHECK(tsr_grid_copy(&p.grid, &x->grid));
  return node_intern(&p, out);
}

/* x op y with the result type dt */
static int binary_typed(int op, tsr_node *x, tsr_node *y, tsr_dtype dt, tsr_node **out) {
  tsr_node p;
  proto_init(&p, N_BINARY, op, dt);
  p.in[0] = x;
  p.in[1] = y;
  TSR_CHECK(tsr_grid_broadcast(&x->grid, &y->grid, &p.grid));
  return node_intern(&p, out);
}

int tsr_node_binary(int op, tsr_node *x, tsr_node *y, tsr_node **out) {
  tsr_dtype dt;
  TSR_CHECK(tsr_ew_result_dtype(op, tsr_dtype_promote(x->dtype, y->dtype), &dt));
  return binary_typed(op, x, y, dt, out);
}

int tsr_node_where(tsr_node *c, tsr_node *a, tsr_node *b, tsr_node **out) {
  tsr_node *t;
  TSR_CHECK(binary_typed(EW_WHERE_PICK, a, c, TSR_F64, &t));
  return binary_typed(EW_WHERE_FILL, t, b, tsr_dtype_promote(a->dtype, b->dtype), out);
}

int tsr_node_select(tsr_node *x, const tsr_axis_sel *sel, int nsel, tsr_node **out) {
  tsr_node p;
  proto_init(&p, N_SELECT, 0, x->dtype);
  p.in[0] = x;
  p.nsel = nsel;
  memcpy(p.sel, sel, sizeof(*sel) * (size_t)nsel);
  TSR_CHECK(tsr_grid_select(&x->grid, sel, nsel, &p.grid));
  return node_intern(&p, out);
}

int tsr_node_astype(tsr_node *x, tsr_dtype dt, tsr_node **out) {
  if (x->dtype == dt) {
    *out = x;
    return TSR_OK;
  }
  tsr_node p;
  proto_init(&p, N_ASTYPE, 0, dt);
  p.in[0] = x;
  TSR_CHECK(tsr_grid_copy(&p.grid, &x->grid));
  return node_intern(&p, out);
}

/* The result dtype of reduction kind over dtype dt (red_table.h's column). */
static tsr_dtype red_dtype(int kind, tsr_dtype dt) {
#define RED_DT(id, nm, monoid, flags, rd, doc)                        \
  case RED_##id:                                                      \
    return rd == RD_SUM     ? tsr_dtype_sum_of(dt)                    \
           : rd == RD_FLOAT ? (tsr_dtype_is_float(dt) ? dt : TSR_F64) \
           : rd == RD_BOOL  ? TSR_BOOL                                \
           : rd == RD_I64   ? TSR_I64                                 \
                            : dt;
  switch ((tsr_red_kind)kind) {
    TSR_RED_TABLE(RED_DT)
  case RED_NKINDS:
    break;
  }
#undef RED_DT
  return dt;
}

int tsr_node_reduce(int kind, tsr_node *x, int axis, int keepdims, int ddof, tsr_node **out) {
  if (kind < 0 || kind >= RED_NKINDS)
    return TSR_ERROR(TSR_ERR_INTERNAL, "reduction of unknown kind %d", kind);
  tsr_node p;
  proto_init(&p, N_REDUCE, kind, red_dtype(kind, x->dtype));
  p.in[0] = x;
  p.axis = axis;
  p.keepdims = keepdims;
  p.ddof = ddof;
  if (axis < 0) {
    int64_t shape1[TSR_MAXDIM], one[TSR_MAXDIM];
    int nd = keepdims ? x->grid.ndim : 0;
    for (int a = 0; a < nd; a++) shape1[a] = one[a] = 1;
    TSR_CHECK(tsr_grid_init_regular(&p.grid, nd, shape1, one));
  } else {
    TSR_CHECK(tsr_grid_reduce(&x->grid, axis, keepdims, &p.grid));
  }
  return node_intern(&p, out);
}

int tsr_node_load(const tsr_load_src *src, const tsr_grid *grid, tsr_dtype dt, tsr_node **out) {
  tsr_node p;
  proto_init(&p, N_LOAD, 0, dt);
  p.src = src;
  TSR_CHECK(tsr_grid_copy(&p.grid, grid));
  return node_intern(&p, out);
}

int tsr_node_rechunk(tsr_node *x, const tsr_grid *grid, tsr_node **out) {
  if (tsr_grid_equal(&x->grid, grid)) {
    *out = x;
    return TSR_OK;
  }
  if (grid->ndim != x->grid.ndim ||
      memcmp(grid->shape, x->grid.shape, sizeof(int64_t) * (size_t)grid->ndim))
    return TSR_ERROR(TSR_ERR_INTERNAL, "rechunk to a grid of another shape");
  tsr_node p;
  proto_init(&p, N_RECHUNK, 0, x->dtype);
  p.in[0] = x;
  TSR_CHECK(tsr_grid_copy(&p.grid, grid));
  return node_intern(&p, out);
}

static int linalg_node(int op, tsr_node *x, tsr_node *y, double param, tsr_fit *fit,
                       const tsr_grid *grid, tsr_dtype dt, tsr_node **out) {
  tsr_node p;
  proto_init(&p, N_LINALG, op, dt);
  p.in[0] = x;
  p.in[1] = y;
  p.a = param;
  p.fit = fit;
  TSR_CHECK(tsr_grid_copy(&p.grid, grid));
  return node_intern(&p, out);
}

int tsr_node_linalg(int op, tsr_node *x, tsr_node *y, double param, const tsr_grid *grid,
                    tsr_dtype dt, tsr_node **out) {
  return linalg_node(op, x, y, param, NULL, grid, dt, out);
}

int tsr_node_transpose(tsr_node *x, const int *perm, tsr_node **out) {
  int nd = x->grid.ndim, p[TSR_MAXDIM], id = 1;
  for (int i = 0; i < nd; i++) p[i] = perm[i];
  if (x->kind == N_LINALG && x->op == LA_TRANSPOSE) { /* x = y's axes in the order q */
    int q[TSR_MAXDIM];
    tsr_perm_of(x->a, nd, q);
    for (int i = 0; i < nd; i++) p[i] = q[perm[i]];
    x = x->in[0];
  }
  for (int i = 0; i < nd; i++) id &= p[i] == i;
  if (id) return *out = x, TSR_OK;
  const tsr_grid *g = &x->grid;
  int64_t shape[TSR_MAXDIM], n[TSR_MAXDIM];
  const int64_t *sizes[TSR_MAXDIM];
  for (int i = 0; i < nd; i++)
    shape[i] = g->shape[p[i]], n[i] = g->nchunks[p[i]], sizes[i] = g->sizes[p[i]];
  tsr_grid tg;
  TSR_CHECK(tsr_grid_init_lists(&tg, nd, shape, sizes, n));
  int st = linalg_node(LA_TRANSPOSE, x, NULL, tsr_perm_code(nd, p), NULL, &tg, x->dtype, out);
  tsr_grid_free(&tg);
  return st;
}

int tsr_node_fit(int op, tsr_node *x, tsr_node *y, tsr_fit *fit, const tsr_grid *grid,
                 tsr_node **out) {
  return linalg_node(op, x, y, 0.0, fit, grid, TSR_F64, out);
}

int64_t tsr_node_size(const tsr_node *n) {
  int64_t s = 1;
  for (int a = 0; a < n->grid.ndim; a++) s *= n->grid.shape[a];
  return s;
}

const char *tsr_dtype_name(tsr_dtype dt) { return tsr_dtype_str(dt); }

#define EW_NAME_U(id, nm, expr, doc) [EW_##id] = nm,
#define EW_NAME_I(id, nm, expr) [EW_##id] = nm,
#define EW_NAME_B(id, nm, sym, expr, doc) [EW_##id] = nm,
#define EW_NAME_J(id, nm, expr) [EW_##id] = nm,
const char *tsr_ew_name(int op) {
  static const char *const names[EW_NOPS] = {
      TSR_EW_TABLE(EW_NAME_U, EW_NAME_I, EW_NAME_B, EW_NAME_J)};
  return op >= 0 && op < EW_NOPS ? names[op] : "?";
}
#undef EW_NAME_U
#undef EW_NAME_I
#undef EW_NAME_B
#undef EW_NAME_J

#define RED_NAME(id, nm, monoid, flags, rd, doc) [RED_##id] = nm,
const char *tsr_red_name(int kind) {
  static const char *const names[RED_NKINDS] = {TSR_RED_TABLE(RED_NAME)};
  return kind >= 0 && kind < RED_NKINDS ? names[kind] : "?";
}
#undef RED_NAME

int tsr_node_kept(const tsr_node *n) {
  if (n->kind == N_PERSIST || n->kind == N_SCAN || n->kind == N_SORT || n->kind == N_RESHAPE ||
      n->kind == N_CONCAT || n->kind == N_COMPRESS)
    return 1;
  return n->kind == N_LINALG && (n->op == LA_MATMUL || n->op == LA_QR_Q || n->op == LA_SVD_U);
}

/* ---- scans ----------------------------------------------------------------- */

const char *tsr_scan_name(const tsr_node *n) {
  if (n->op == EW_MUL) return n->b != 0 ? "nancumprod" : "cumprod";
  return n->b != 0 ? "nancumsum" : "cumsum";
}

/* x flattened: x with one chunk on every axis but the first (*flat), and
 * the 1-d grid whose chunk c holds chunk c of *flat in C order. */
static int flat_grids(tsr_node *x, tsr_node **flat, tsr_grid *out) {
  const tsr_grid *g = &x->grid;
  int64_t rest = 1, n0 = g->ndim ? g->nchunks[0] : 1, len = tsr_node_size(x);
  for (int a = 1; a < g->ndim; a++) rest *= g->shape[a];
  *flat = x;
  if (g->ndim > 1) {
    tsr_grid rg;
    int64_t whole[TSR_MAXDIM], nsizes[TSR_MAXDIM];
    const int64_t *sizes[TSR_MAXDIM];
    for (int a = 0; a < g->ndim; a++) {
      whole[a] = g->shape[a];
      sizes[a] = a ? &whole[a] : g->sizes[0];
      nsizes[a] = a ? 1 : g->nchunks[0];
    }
    TSR_CHECK(tsr_grid_init_lists(&rg, g->ndim, g->shape, sizes, nsizes));
    int st = tsr_node_rechunk(x, &rg, flat);
    tsr_grid_free(&rg);
    TSR_CHECK(st);
  }
  int64_t *sz = malloc(sizeof(int64_t) * (size_t)n0);
  if (!sz) return TSR_ERROR(TSR_ERR_MEMORY, "out of memory");
  for (int64_t i = 0; i < n0; i++) sz[i] = g->ndim ? g->sizes[0][i] * rest : 1;
  const int64_t *lists[1] = {sz};
  int st = tsr_grid_init_lists(out, 1, &len, lists, &n0);
  free(sz);
  return st;
}

int tsr_node_scan(int op, double identity, int nan, tsr_node *x, int axis, tsr_dtype dt,
                  tsr_node **out) {
  tsr_node p;
  proto_init(&p, N_SCAN, op, dt);
  p.a = identity;
  p.b = nan ? 1 : 0;
  p.axis = axis;
  if (axis < 0 && x->grid.ndim == 1) p.axis = 0;
  if (tsr_node_size(x) == 0) { /* nothing to scan: an empty result */
    tsr_grid g;
    int64_t zero = 0, one = 1;
    int st = p.axis < 0 ? tsr_grid_init_regular(&g, 1, &zero, &one) : tsr_grid_copy(&g, &x->grid);
    if (st == TSR_OK) st = tsr_node_full(0.0, &g, dt, out);
    tsr_grid_free(&g);
    return st;
  }
  if (p.axis >= 0) {
    p.in[0] = x;
    TSR_CHECK(tsr_grid_copy(&p.grid, &x->grid));
  } else {
    TSR_CHECK(flat_grids(x, &p.in[0], &p.grid));
  }
  return node_intern(&p, out);
}

/* x on a grid with one chunk along the axes of mask, the others kept (array.h). */
int tsr_node_one_chunk(tsr_node *x, unsigned mask, tsr_node **out) {
  const tsr_grid *g = &x->grid;
  int64_t whole[TSR_MAXDIM], nsizes[TSR_MAXDIM];
  const int64_t *sizes[TSR_MAXDIM];
  for (int a = 0; a < g->ndim; a++) {
    int all = (mask >> a) & 1u;
    whole[a] = g->shape[a];
    sizes[a] = all ? &whole[a] : g->sizes[a];
    nsizes[a] = all ? 1 : g->nchunks[a];
  }
  tsr_grid rg;
  TSR_CHECK(tsr_grid_init_lists(&rg, g->ndim, g->shape, sizes, nsizes));
  int st = tsr_node_rechunk(x, &rg, out);
  tsr_grid_free(&rg);
  return st;
}

int tsr_node_sort(tsr_node *x, int axis, int what, double q, tsr_node **out) {
  tsr_node p;
  if (x->grid.ndim == 0) { /* one value: as a 1-d array */
    tsr_axis_sel sel[1] = {{TSR_SEL_NEWAXIS, 0, 0, 0, 0}};
    TSR_CHECK(tsr_node_select(x, sel, 1, &x));
  }
  tsr_dtype dt = what == TSR_SORT_ARG ? TSR_I64 : x->dtype;
  proto_init(&p, N_SORT, what, dt);
  if (axis < 0 && x->grid.ndim == 1) axis = 0;
  p.axis = axis;
  p.a = q;
  int64_t len = tsr_node_size(x), one = 1;
  if (len == 0) { /* nothing to sort: x (flattened) itself */
    if (axis >= 0) return dt == x->dtype ? (*out = x, TSR_OK) : tsr_node_astype(x, dt, out);
    tsr_grid g;
    int64_t zero = 0;
    TSR_CHECK(tsr_grid_init_regular(&g, 1, &zero, &one));
    int st = tsr_node_full(0.0, &g, dt, out);
    tsr_grid_free(&g);
    return st;
  }
  TSR_CHECK(tsr_node_one_chunk(x, axis < 0 ? ~0u : 1u << axis, &p.in[0]));
  if (axis >= 0) {
    TSR_CHECK(tsr_grid_copy(&p.grid, &p.in[0]->grid));
  } else {
    TSR_CHECK(tsr_grid_init_regular(&p.grid, 1, &len, &len));
  }
  return node_intern(&p, out);
}

/* The grid of a sort over the axes of mask: x's other axes (their chunks
 * kept), then one axis of length whole in one chunk. */
static int sort_axes_grid(const tsr_grid *g, unsigned mask, tsr_grid *out) {
  int64_t shape[TSR_MAXDIM], nsizes[TSR_MAXDIM], whole = 1;
  const int64_t *sizes[TSR_MAXDIM];
  int nd = 0, empty = 0;
  for (int a = 0; a < g->ndim; a++) {
    empty |= g->shape[a] == 0;
    if ((mask >> a) & 1u) {
      whole *= g->shape[a];
      continue;
    }
    shape[nd] = g->shape[a], sizes[nd] = g->sizes[a], nsizes[nd] = g->nchunks[a];
    nd++;
  }
  if (nd >= TSR_MAXDIM)
    return TSR_ERROR(TSR_ERR_SHAPE, "a sort over no axis needs more than %d dimensions",
                     TSR_MAXDIM);
  shape[nd] = whole, sizes[nd] = &shape[nd], nsizes[nd] = 1;
  if (whole > 0 && !empty) return tsr_grid_init_lists(out, nd + 1, shape, sizes, nsizes);
  int64_t chunk[TSR_MAXDIM]; /* empty: one chunk per axis */
  for (int a = 0; a <= nd; a++) chunk[a] = shape[a] > 0 ? shape[a] : 1;
  return tsr_grid_init_regular(out, nd + 1, shape, chunk);
}

int tsr_node_sort_axes(tsr_node *x, unsigned mask, int what, double q, tsr_node **out) {
  tsr_node p;
  proto_init(&p, N_SORT, what, x->dtype);
  TSR_CHECK(sort_axes_grid(&x->grid, mask, &p.grid));
  p.axis = p.grid.ndim - 1;
  p.a = q;
  p.b = 1.0 + (double)mask;
  if (tsr_node_size(x) == 0) { /* nothing to sort: zeros of the result's shape */
    int st = tsr_node_full(0.0, &p.grid, x->dtype, out);
    tsr_grid_free(&p.grid);
    return st;
  }
  int st = tsr_node_one_chunk(x, mask, &p.in[0]);
  if (st != TSR_OK) {
    tsr_grid_free(&p.grid);
    return st;
  }
  return node_intern(&p, out);
}

/* ---- reshapes and concatenations ------------------------------------------ */

int tsr_node_reshape(tsr_node *x, int ndim, const int64_t *shape, tsr_node **out) {
  int64_t size = 1;
  for (int a = 0; a < ndim; a++) size *= shape[a];
  if (size != tsr_node_size(x)) {
    char buf[128];
    tsr_shape_format(ndim, shape, buf, sizeof buf);
    return TSR_ERROR(TSR_ERR_SHAPE, "cannot reshape array of size %lld into shape %s",
                     (long long)tsr_node_size(x), buf);
  }
  int same = ndim == x->grid.ndim;
  for (int a = 0; same && a < ndim; a++) same = shape[a] == x->grid.shape[a];
  if (same) {
    *out = x;
    return TSR_OK;
  }
  tsr_node p;
  proto_init(&p, N_RESHAPE, 0, x->dtype);
  if (size == 0) { /* nothing to move: an empty array of the new shape */
    int64_t chunk[TSR_MAXDIM];
    for (int a = 0; a < ndim; a++) chunk[a] = shape[a] > 0 ? shape[a] : 1;
    TSR_CHECK(tsr_grid_init_regular(&p.grid, ndim, shape, chunk));
    int st = tsr_node_full(0.0, &p.grid, x->dtype, out);
    tsr_grid_free(&p.grid);
    return st;
  }
  tsr_grid in;
  TSR_CHECK(tsr_grid_reshape(&x->grid, ndim, shape, &in, &p.grid));
  int st = tsr_node_rechunk(x, &in, &p.in[0]);
  tsr_grid_free(&in);
  if (st != TSR_OK) {
    tsr_grid_free(&p.grid);
    return st;
  }
  return node_intern(&p, out);
}

int tsr_node_concat(tsr_node *x, tsr_node *y, int axis, tsr_node **out) {
  tsr_node p;
  proto_init(&p, N_CONCAT, 0, tsr_dtype_promote(x->dtype, y->dtype));
  TSR_CHECK(tsr_grid_concat(&x->grid, &y->grid, axis, &p.grid));
  p.axis = axis;
  p.in[0] = x;
  p.in[1] = y;
  return node_intern(&p, out);
}

int tsr_node_hist(tsr_node *x, tsr_node *w, const double *spec, int64_t len, tsr_dtype dt,
                  tsr_node **out) {
  tsr_hist h;
  if (tsr_hist_parse(spec, len, &h) != 0)
    return TSR_ERROR(TSR_ERR_INTERNAL, "a histogram's bins are not a spec");
  if (h.ndim > 1 && (x->grid.ndim != 2 || x->grid.shape[1] != h.ndim || x->grid.nchunks[1] != 1))
    return TSR_ERROR(TSR_ERR_INTERNAL, "histogramdd's samples are not (N, D) in one chunk of D");
  int same = w && w->grid.ndim == x->grid.ndim;
  for (int a = 0; same && a < x->grid.ndim; a++) same = w->grid.shape[a] == x->grid.shape[a];
  if (w && (h.ndim == 1 ? !same : w->grid.ndim != 1 || w->grid.shape[0] != x->grid.shape[0]))
    return TSR_ERROR(TSR_ERR_SHAPE, "weights should have the same shape as the samples");
  int64_t shape[TSR_MAXDIM], one[TSR_MAXDIM];
  for (int d = 0; d < h.ndim; d++) shape[d] = one[d] = h.axis[d].nb;
  tsr_node p;
  proto_init(&p, N_HIST, 0, dt);
  p.in[0] = x;
  p.in[1] = w;
  TSR_CHECK(tsr_grid_init_regular(&p.grid, h.ndim, shape, one));
  p.consts = malloc(sizeof(double) * (size_t)len);
  if (!p.consts) {
    tsr_grid_free(&p.grid);
    return TSR_ERROR(TSR_ERR_MEMORY, "out of memory");
  }
  memcpy(p.consts, spec, sizeof(double) * (size_t)len);
  p.nconsts = len;
  return node_intern(&p, out);
}

int tsr_node_chunk_counts(tsr_node *m, tsr_node **out) {
  if (m->grid.ndim != 1)
    return TSR_ERROR(TSR_ERR_INTERNAL, "chunk counts of a %d-d mask", m->grid.ndim);
  if (m->dtype != TSR_BOOL) TSR_CHECK(tsr_node_astype(m, TSR_BOOL, &m));
  double spec[5] = {1, TSR_HIST_INT, 2, 0, 2};
  tsr_hist h;
  tsr_hist_parse(spec, 5, &h);
  int64_t shape[2] = {m->grid.nchunks[0], 2};
  tsr_node p;
  proto_init(&p, N_HIST, 0, TSR_I64);
  p.in[0] = m;
  p.b = 1;
  TSR_CHECK(tsr_grid_init_regular(&p.grid, 2, shape, shape));
  if (!(p.consts = malloc(sizeof spec))) {
    tsr_grid_free(&p.grid);
    return TSR_ERROR(TSR_ERR_MEMORY, "out of memory");
  }
  memcpy(p.consts, spec, sizeof spec);
  p.nconsts = 5;
  return node_intern(&p, out);
}

int tsr_node_compress(tsr_node *x, tsr_node *m, const double *counts, tsr_node **out) {
  const tsr_grid *g = &x->grid;
  if (m->grid.ndim != 1 || g->ndim < 1 || m->grid.nchunks[0] != g->nchunks[0])
    return TSR_ERROR(TSR_ERR_INTERNAL, "a mask not on its array's chunks");
  int64_t nc = g->nchunks[0], kept = 0, total = 0;
  int64_t *sizes[TSR_MAXDIM], n[TSR_MAXDIM], shape[TSR_MAXDIM];
  double *from = malloc(sizeof(double) * (size_t)(nc + 1));
  int64_t *rows = malloc(sizeof(int64_t) * (size_t)(nc + 1));
  if (!from || !rows) {
    free(from), free(rows);
    return TSR_ERROR(TSR_ERR_MEMORY, "out of memory");
  }
  for (int64_t c = 0; c < nc; c++)
    if (counts[2 * c + 1] > 0) {
      from[kept] = (double)c;
      rows[kept++] = (int64_t)counts[2 * c + 1];
      total += (int64_t)counts[2 * c + 1];
    }
  for (int a = 0; a < g->ndim; a++)
    sizes[a] = g->sizes[a], n[a] = g->nchunks[a], shape[a] = g->shape[a];
  sizes[0] = rows, n[0] = kept, shape[0] = total;
  tsr_node p;
  proto_init(&p, N_COMPRESS, 0, x->dtype);
  p.in[0] = x;
  p.in[1] = m;
  int st = tsr_grid_init_lists(&p.grid, g->ndim, shape, (const int64_t *const *)sizes, n);
  free(rows);
  if (st != TSR_OK) {
    free(from);
    return st;
  }
  p.consts = from;
  p.nconsts = kept;
  return node_intern(&p, out);
}

int tsr_node_persist(tsr_node *x, const char *label, tsr_node **out) {
  if (x->kind == N_PERSIST) { /* persist(persist(x)) is persist(x) */
    *out = x;
    return TSR_OK;
  }
  tsr_node p;
  proto_init(&p, N_PERSIST, 0, x->dtype);
  p.in[0] = x;
  TSR_CHECK(tsr_grid_copy(&p.grid, &x->grid));
  TSR_CHECK(node_intern(&p, out));
  if (!(*out)->label[0]) snprintf((*out)->label, sizeof(*out)->label, "%s", label);
  return TSR_OK;
}

void tsr_node_hold(tsr_node *n, double **chunks, void (*release)(const void *ctx, double *chunk),
                   const void *ctx) {
  tsr_node_release_held(n);
  double bytes = 0;
  for (int64_t c = 0, nc = tsr_grid_count(&n->grid); c < nc; c++) {
    int64_t start[TSR_MAXDIM], extent[TSR_MAXDIM];
    if (chunks[c]) bytes += 8.0 * (double)tsr_grid_chunk_at(&n->grid, c, start, extent);
  }
  n->held = chunks;
  n->held_bytes = bytes;
  n->held_free = release;
  n->held_ctx = ctx;
}

void tsr_node_release_held(tsr_node *n) {
  if (!n->held) return;
  for (int64_t c = 0, nc = tsr_grid_count(&n->grid); c < nc; c++) {
    if (!n->held[c]) continue;
    if (n->held_free)
      n->held_free(n->held_ctx, n->held[c]);
    else
      free(n->held[c]);
  }
  free(n->held);
  n->held = NULL;
  n->held_bytes = 0;
}

double tsr_nodes_held_bytes(void) {
  double b = 0;
  for (tsr_node *n = all_nodes; n; n = n->next_all) b += n->held ? n->held_bytes : 0;
  return b;
}

void tsr_nodes_clear_values(void) {
  for (tsr_node *n = all_nodes; n; n = n->next_all) {
    if (n->kind == N_VALUES) continue; /* written in the job, not computed */
    free(n->value);
    n->value = NULL;
    tsr_node_release_held(n);
  }
}

/* ---- carried held arrays ---------------------------------------------------------- */

typedef struct carried {
  uint64_t print;
  int size;
  int64_t nchunks;
  double **held, bytes;
  void (*release)(const void *ctx, double *chunk);
  const void *ctx;
} carried;

static carried *carry_store;
static int carry_n, carry_cap, carry_on;
static double adopted;

static uint64_t text_hash(uint64_t h, const char *s) {
  for (; s && *s; s++) h = mix(h, (unsigned char)*s);
  return mix(h, 0);
}

uint64_t tsr_node_fingerprint(tsr_node *n) {
  if (!n || n->print_none) return 0;
  if (n->print) return n->print;
  uint64_t in[2] = {0, 0};
  for (int i = 0; i < 2; i++)
    if (n->in[i] && !(in[i] = tsr_node_fingerprint(n->in[i]))) n->print_none = 1;
  if (n->kind == N_LINALG || n->fit) n->print_none = 1;
  if (n->print_none) return 0;
  tsr_node copy = *n; /* the local fields, with operands and source by content */
  copy.in[0] = (tsr_node *)(uintptr_t)in[0];
  copy.in[1] = (tsr_node *)(uintptr_t)in[1];
  copy.src = NULL;
  uint64_t h = node_hash(&copy);
  if (n->src) h = text_hash(text_hash(h, n->src->path), n->src->dataset);
  return n->print = h ? h : 1;
}

uint64_t tsr_node_fit_key(tsr_node *n) {
  const tsr_fit *f = n->fit;
  uint64_t x = f ? tsr_node_fingerprint(n->in[0]) : 0, y = f ? tsr_node_fingerprint(n->in[1]) : 0;
  if (!x || !y) return 0;
  uint64_t h = mix(mix(x, y), (uint64_t)f->family);
  h = mix(mix(mix(h, (uint64_t)f->solver), (uint64_t)f->reg), (uint64_t)f->fit_intercept);
  h = mix_double(mix_double(mix(h, (uint64_t)f->max_iter), f->l1_ratio), f->tol);
  return h ? h : 1;
}

int tsr_nodes_list_fits(tsr_fit_path *p) {
  for (tsr_node *n = all_nodes; n; n = n->next_all)
    if (n->fit) TSR_CHECK(tsr_fit_path_add(p, tsr_node_fit_key(n), n->fit->lamduh));
  return TSR_OK;
}

static void carried_release(carried *c) {
  for (int64_t k = 0; k < c->nchunks; k++)
    if (c->held[k]) {
      if (c->release)
        c->release(c->ctx, c->held[k]);
      else
        free(c->held[k]);
    }
  free(c->held);
}

/* At the end of a job: n's held chunks join the store (or are released). */
static void carry_keep(tsr_node *n) {
  uint64_t print = carry_on && n->kind == N_PERSIST && n->held ? tsr_node_fingerprint(n) : 0;
  if (print && carry_n == carry_cap) {
    carried *p = realloc(carry_store, sizeof *p * (size_t)(2 * carry_cap + 8));
    if (p) {
      carry_store = p;
      carry_cap = 2 * carry_cap + 8;
    }
  }
  if (!print || carry_n == carry_cap) {
    tsr_node_release_held(n);
    return;
  }
  carry_store[carry_n++] =
      (carried){print,        n->held_size, tsr_grid_count(&n->grid), n->held, n->held_bytes,
                n->held_free, n->held_ctx};
  n->held = NULL;
  n->held_bytes = 0;
}

static void carry_drop(int i) {
  carried_release(&carry_store[i]);
  carry_store[i] = carry_store[--carry_n];
}

void tsr_nodes_carry(int on) {
  carry_on = on;
  if (!on) {
    while (carry_n) carry_drop(carry_n - 1);
    free(carry_store);
    carry_store = NULL;
    carry_cap = 0;
  }
}

void tsr_nodes_carry_prune(void) {
  adopted = 0;
  for (int i = carry_n - 1; i >= 0; i--) {
    int wanted = 0;
    for (tsr_node *n = all_nodes; n && !wanted; n = n->next_all)
      wanted = n->kind == N_PERSIST && tsr_node_fingerprint(n) == carry_store[i].print;
    if (!wanted) carry_drop(i);
  }
}

int tsr_node_adopt(tsr_node *n, int size) {
  uint64_t print = carry_n ? tsr_node_fingerprint(n) : 0;
  for (int i = 0; print && i < carry_n; i++) {
    carried *c = &carry_store[i];
    if (c->print != print || c->size != size || c->nchunks != tsr_grid_count(&n->grid)) continue;
    tsr_node_hold(n, c->held, c->release, c->ctx);
    n->held_size = size;
    adopted += n->held_bytes;
    carry_store[i] = carry_store[--carry_n];
    return 1;
  }
  return 0;
}

double tsr_nodes_adopted_bytes(void) { return adopted; }

void tsr_nodes_free_all(void) {
  while (all_nodes) {
    tsr_node *n = all_nodes;
    all_nodes = n->next_all;
    carry_keep(n);
    tsr_grid_free(&n->grid);
    free(n->value);
    free(n->consts);
    free(n);
  }
  next_id = 0;
  free(index_slots);
  index_slots = NULL;
  index_cap = index_n = 0;
  tsr_groups_free();
  tsr_fits_free();
  tsr_sources_free();
  tsr_sinks_free();
}
