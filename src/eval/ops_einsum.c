/*
 * ops_einsum.c - einsum, tensordot and kron (ops_einsum.h), composed of
 * views, fused products, sums and matmul. An einsum of two 2-d operands
 * that is a matrix product (one index summed, each operand one free index)
 * is matmul (GEMM per block); every other one (up to 3 operands, at most 4
 * distinct indices) is the operands moved onto one space of all its
 * indices (transposes and new axes: views), multiplied elementwise and
 * summed over the indices the output lacks: one fused program, no
 * intermediate array. A repeated index within an operand takes its
 * diagonal. Products alone (outer products, elementwise) are NumPy's bit
 * for bit; sums are tessera's, within rounding of NumPy's.
 */
#include "eval/ops_einsum.h"

#include <string.h>

#include "eval/ops.h"
#include "util/error.h"

#define MAX_OPS 3

typedef struct spec {
  int nops;
  char in[MAX_OPS][TSR_MAXDIM + 1]; /* each operand's letters */
  char out[TSR_MAXDIM + 1];
} spec;

static int is_letter(char ch) { return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z'); }

/* "ij,jk->ik" (spaces ignored; no "->": the letters seen once, sorted). */
static int parse(tsr_ctx *c, const ast_node *at, const char *text, int nops, spec *sp) {
  char buf[128];
  int n = 0;
  for (const char *p = text; *p && n < (int)sizeof buf - 1; p++)
    if (*p != ' ') buf[n++] = *p;
  buf[n] = '\0';
  if (strstr(buf, "..."))
    return tsr_ctx_error(c, at, TSR_ERR_VALUE, "einsum: '...' in subscripts is not supported");
  char *arrow = strstr(buf, "->");
  if (arrow) *arrow = '\0';
  memset(sp, 0, sizeof *sp);
  int k = 0, len = 0;
  for (char *p = buf;; p++) {
    if (*p == ',' || *p == '\0') {
      if (k >= MAX_OPS) break;
      sp->in[k][len] = '\0';
      k++, len = 0;
      if (*p == '\0') break;
      continue;
    }
    if (!is_letter(*p))
      return tsr_ctx_error(c, at, TSR_ERR_VALUE, "einsum: invalid subscript '%c' (letters only)",
                           *p);
    if (len >= TSR_MAXDIM)
      return tsr_ctx_error(c, at, TSR_ERR_VALUE, "einsum: an operand of more than %d subscripts",
                           TSR_MAXDIM);
    sp->in[k][len++] = *p;
  }
  if (k != nops)
    return tsr_ctx_error(c, at, TSR_ERR_VALUE, "einsum: %d operand(s) in the subscripts, %d given",
                         k, nops);
  sp->nops = k;
  if (arrow) {
    const char *o = arrow + 2;
    int m = 0;
    for (; *o; o++) {
      if (!is_letter(*o))
        return tsr_ctx_error(c, at, TSR_ERR_VALUE, "einsum: invalid output subscript '%c'", *o);
      if (strchr(sp->out, *o))
        return tsr_ctx_error(c, at, TSR_ERR_VALUE,
                             "einsum: output subscript '%c' appears more than once", *o);
      int seen = 0;
      for (int i = 0; i < k; i++) seen |= strchr(sp->in[i], *o) != NULL;
      if (!seen)
        return tsr_ctx_error(c, at, TSR_ERR_VALUE, "einsum: output subscript '%c' is in no operand",
                             *o);
      if (m >= TSR_MAXDIM)
        return tsr_ctx_error(c, at, TSR_ERR_VALUE, "einsum: more than %d output subscripts",
                             TSR_MAXDIM);
      sp->out[m++] = *o;
    }
    return TSR_OK;
  }
  int m = 0; /* implicit: the letters that appear once, alphabetically */
  for (int ch = 'A'; ch <= 'z'; ch++) {
    if (!is_letter((char)ch)) continue;
    int count = 0;
    for (int i = 0; i < k; i++)
      for (const char *p = sp->in[i]; *p; p++) count += *p == ch;
    if (count == 1) {
      if (m >= TSR_MAXDIM)
        return tsr_ctx_error(c, at, TSR_ERR_VALUE, "einsum: more than %d output subscripts",
                             TSR_MAXDIM);
      sp->out[m++] = (char)ch;
    }
  }
  return TSR_OK;
}

/* x with its repeated letters taken as diagonals (letters updated). */
static int diagonals(tsr_ctx *c, const ast_node *at, tsr_node **x, char *letters) {
  for (;;) {
    int n = (int)strlen(letters), a1 = -1, a2 = -1;
    for (int i = 0; i < n && a1 < 0; i++)
      for (int j = i + 1; j < n; j++)
        if (letters[i] == letters[j]) {
          a1 = i, a2 = j;
          break;
        }
    if (a1 < 0) return TSR_OK;
    if ((*x)->grid.shape[a1] != (*x)->grid.shape[a2])
      return tsr_ctx_error(
          c, at, TSR_ERR_SHAPE, "einsum: subscript '%c' is repeated with lengths %lld and %lld",
          letters[a1], (long long)(*x)->grid.shape[a1], (long long)(*x)->grid.shape[a2]);
    const tsr_op_def *dg = tsr_op_find("diagonal", 0);
    tsr_args da;
    tsr_value r;
    memset(&da, 0, sizeof da);
    da.v[0].kind = V_ARRAY, da.v[0].arr = *x, da.given[0] = da.given[2] = da.given[3] = 1;
    da.v[2].kind = da.v[3].kind = V_INT, da.v[2].i = a1, da.v[3].i = a2;
    da.at[0] = da.at[2] = da.at[3] = at;
    TSR_CHECK(dg->fn(c, at, dg, &da, &r));
    *x = r.arr; /* the diagonal is the last axis, the others in order */
    char rest[TSR_MAXDIM + 1];
    int m = 0;
    for (int i = 0; i < n; i++)
      if (i != a1 && i != a2) rest[m++] = letters[i];
    rest[m++] = letters[a1];
    rest[m] = '\0';
    strcpy(letters, rest);
  }
}

/* x (letters) on the space of all letters: its axes in that order, new
 * axes of length 1 for the letters it lacks. */
static int onto(tsr_node *x, const char *letters, const char *all, tsr_node **out) {
  int n = (int)strlen(letters), na = (int)strlen(all), perm[TSR_MAXDIM], m = 0, id = 1;
  for (int i = 0; i < na; i++) {
    const char *p = strchr(letters, all[i]);
    if (p) perm[m++] = (int)(p - letters);
  }
  for (int i = 0; i < n; i++) id &= perm[i] == i;
  if (!id) {
    const tsr_grid *g = &x->grid;
    int64_t shape[TSR_MAXDIM], nc[TSR_MAXDIM];
    const int64_t *sizes[TSR_MAXDIM];
    for (int i = 0; i < n; i++)
      shape[i] = g->shape[perm[i]], nc[i] = g->nchunks[perm[i]], sizes[i] = g->sizes[perm[i]];
    tsr_grid tg;
    TSR_CHECK(tsr_grid_init_lists(&tg, n, shape, sizes, nc));
    int st = tsr_node_linalg(LA_TRANSPOSE, x, NULL, tsr_perm_code(n, perm), &tg, x->dtype, &x);
    tsr_grid_free(&tg);
    TSR_CHECK(st);
  }
  if (n == na) {
    *out = x;
    return TSR_OK;
  }
  tsr_axis_sel sel[TSR_MAXDIM];
  for (int i = 0, k = 0; i < na; i++)
    sel[i] = strchr(letters, all[i]) ? (tsr_axis_sel){TSR_SEL_SLICE, 0, 1, x->grid.shape[k++], 0}
                                     : (tsr_axis_sel){TSR_SEL_NEWAXIS, 0, 0, 0, 0};
  return tsr_node_select(x, sel, na, out);
}

/* The matmul form of a two-operand einsum, when it has one: A (x, c) and
 * B (c, y) 2-d or 1-d, one letter c summed. Sets *done. */
static int as_matmul(tsr_ctx *c, const ast_node *at, tsr_node **x, const spec *sp, int *done,
                     tsr_value *out) {
  *done = 0;
  if (sp->nops != 2 || strlen(sp->in[0]) != 2 || strlen(sp->in[1]) != 2 || strlen(sp->out) != 2)
    return TSR_OK;
  const char *a = sp->in[0], *b = sp->in[1], *o = sp->out;
  char sum = 0;
  for (int i = 0; i < 2; i++)
    if (strchr(b, a[i]) && !strchr(o, a[i])) sum = a[i];
  if (!sum || a[0] == a[1] || b[0] == b[1]) return TSR_OK;
  char fa = a[0] == sum ? a[1] : a[0], fb = b[0] == sum ? b[1] : b[0];
  if (fa == fb || !strchr(o, fa) || !strchr(o, fb)) return TSR_OK;
  char la[3] = {fa, sum, 0}, lb[3] = {sum, fb, 0};
  tsr_node *A, *B;
  TSR_CHECK(tsr_ctx_relocate(c, at, onto(x[0], a, la, &A)));
  TSR_CHECK(tsr_ctx_relocate(c, at, onto(x[1], b, lb, &B)));
  if (o[0] == fb) { /* (A @ B).T = B.T @ A.T */
    tsr_node *t = A;
    TSR_CHECK(tsr_ctx_relocate(c, at, onto(B, lb, (char[3]){fb, sum, 0}, &A)));
    TSR_CHECK(tsr_ctx_relocate(c, at, onto(t, la, (char[3]){sum, fa, 0}, &B)));
  }
  const tsr_op_def *mm = tsr_op_find("matmul", 0);
  tsr_args ma;
  memset(&ma, 0, sizeof ma);
  ma.v[0].kind = ma.v[1].kind = V_ARRAY, ma.v[0].arr = A, ma.v[1].arr = B;
  ma.given[0] = ma.given[1] = 1, ma.at[0] = ma.at[1] = at;
  *done = 1;
  return mm->fn(c, at, mm, &ma, out);
}

/* einsum of x[0..nops-1] by sp. */
static int einsum_nodes(tsr_ctx *c, const ast_node *at, tsr_node **x, spec *sp, tsr_value *out) {
  char all[2 * TSR_MAXDIM + 1] = "";
  int64_t len['z' + 1];
  memset(len, 0, sizeof len);
  for (int i = 0; i < sp->nops; i++) {
    if (x[i]->dtype == TSR_BOOL)
      return tsr_ctx_error(c, at, TSR_ERR_TYPE,
                           "einsum of bool arrays is not supported (NumPy's is a logical or): use "
                           "astype(\"int64\")");
    if ((int)strlen(sp->in[i]) != x[i]->grid.ndim)
      return tsr_ctx_error(c, at, TSR_ERR_SHAPE,
                           "einsum: operand %d has %d dimensions but %d subscripts", i,
                           x[i]->grid.ndim, (int)strlen(sp->in[i]));
    for (int k = 0; sp->in[i][k]; k++) {
      char ch = sp->in[i][k];
      int64_t l = x[i]->grid.shape[k];
      int64_t had = len[(int)ch] < 0 ? 0 : len[(int)ch];
      if (len[(int)ch] && had != l)
        return tsr_ctx_error(c, at, TSR_ERR_SHAPE,
                             "einsum: subscript '%c' has lengths %lld and %lld", ch, (long long)had,
                             (long long)l);
      len[(int)ch] = l ? l : -1; /* -1: a length of 0 */
    }
  }
  int done;
  TSR_CHECK(as_matmul(c, at, x, sp, &done, out));
  if (done) return TSR_OK;
  for (int i = 0; i < sp->nops; i++) TSR_CHECK(diagonals(c, at, &x[i], sp->in[i]));
  strcpy(all, sp->out); /* the output's letters, then the summed ones */
  for (int i = 0; i < sp->nops; i++)
    for (const char *p = sp->in[i]; *p; p++)
      if (!strchr(all, *p)) {
        size_t n = strlen(all);
        if (n >= TSR_MAXDIM)
          return tsr_ctx_error(c, at, TSR_ERR_VALUE,
                               "einsum of more than %d distinct subscripts is not supported",
                               TSR_MAXDIM);
        all[n] = *p, all[n + 1] = '\0';
      }
  tsr_node *prod = NULL;
  for (int i = 0; i < sp->nops; i++) {
    tsr_node *y;
    TSR_CHECK(tsr_ctx_relocate(c, at, onto(x[i], sp->in[i], all, &y)));
    if (prod) TSR_CHECK(tsr_ctx_relocate(c, at, tsr_node_binary(EW_MUL, prod, y, &y)));
    prod = y;
  }
  for (int a = (int)strlen(all) - 1; a >= (int)strlen(sp->out); a--)
    TSR_CHECK(tsr_ctx_relocate(
        c, at, tsr_node_reduce(RED_SUM, prod, prod->grid.ndim == 1 ? -1 : a, 0, 0, &prod)));
  tsr_set_array(out, prod);
  return TSR_OK;
}

int tsr_b_einsum(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a,
                 tsr_value *out) {
  (void)def;
  const char *text;
  TSR_CHECK(tsr_arg_string(c, a, 0, "subscripts", &text));
  tsr_node *x[MAX_OPS];
  int n = 0;
  for (int i = 1; i <= MAX_OPS && a->given[i]; i++, n++)
    TSR_CHECK(tsr_as_array(c, &a->v[i], a->at[i], tsr_value_dtype(&a->v[i]), &x[n]));
  spec sp;
  TSR_CHECK(parse(c, a->at[0], text, n, &sp));
  return einsum_nodes(c, call, x, &sp, out);
}

/* tensordot(a, b, axes=2): axes an int N (a's last N with b's first N) or
 * a pair of axis lists, as an einsum. */
int tsr_b_tensordot(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a,
                    tsr_value *out) {
  (void)def;
  tsr_node *x[2];
  for (int i = 0; i < 2; i++)
    TSR_CHECK(tsr_as_array(c, &a->v[i], a->at[i], tsr_value_dtype(&a->v[i]), &x[i]));
  int na = x[0]->grid.ndim, nb = x[1]->grid.ndim, ax[2][TSR_MAXDIM], n = 0;
  const tsr_value *v = &a->v[2];
  if (!a->given[2] || v->kind == V_INT) {
    long long N = a->given[2] ? v->i : 2;
    if (N < 0 || N > na || N > nb)
      return tsr_ctx_error(c, a->at[2] ? a->at[2] : call, TSR_ERR_VALUE,
                           "tensordot: axes=%lld for arrays of %d and %d dimensions", N, na, nb);
    for (int k = 0; k < N; k++) ax[0][k] = na - (int)N + k, ax[1][k] = k;
    n = (int)N;
  } else if (v->kind == V_TUPLE && v->nitems == 2) {
    for (int s = 0; s < 2; s++) {
      const tsr_value *e = &v->items[s];
      int m = e->kind == V_TUPLE ? e->nitems : 1;
      if (s == 1 && m != n)
        return tsr_ctx_error(c, a->at[2], TSR_ERR_SHAPE, "shape-mismatch for sum");
      for (int k = 0; k < m; k++) {
        const tsr_value *q = e->kind == V_TUPLE ? &e->items[k] : e;
        if (q->kind != V_INT || k >= TSR_MAXDIM)
          return tsr_ctx_error(c, a->at[2], TSR_ERR_TYPE, "tensordot: axes must hold integers");
        TSR_CHECK(tsr_axis_index(c, a->at[2], q->i, s ? nb : na, "axis", &ax[s][k]));
      }
      n = m;
    }
  } else {
    return tsr_ctx_error(c, a->at[2], TSR_ERR_TYPE,
                         "tensordot: axes must be an int or a pair of axis lists");
  }
  spec sp;
  memset(&sp, 0, sizeof sp);
  sp.nops = 2;
  char next = 'a';
  for (int k = 0; k < na; k++) sp.in[0][k] = next++;
  for (int k = 0; k < nb; k++) sp.in[1][k] = 0;
  for (int k = 0; k < n; k++) {
    if (x[0]->grid.shape[ax[0][k]] != x[1]->grid.shape[ax[1][k]])
      return tsr_ctx_error(c, call, TSR_ERR_SHAPE, "shape-mismatch for sum");
    if (sp.in[1][ax[1][k]])
      return tsr_ctx_error(c, a->at[2], TSR_ERR_VALUE, "tensordot: repeated axis");
    sp.in[1][ax[1][k]] = sp.in[0][ax[0][k]];
  }
  int m = 0;
  for (int k = 0; k < na; k++) {
    int summed = 0;
    for (int q = 0; q < n; q++) summed |= ax[0][q] == k;
    if (!summed) sp.out[m++] = sp.in[0][k];
  }
  for (int k = 0; k < nb; k++)
    if (!sp.in[1][k]) {
      sp.in[1][k] = next++;
      if (m >= TSR_MAXDIM)
        return tsr_ctx_error(c, call, TSR_ERR_VALUE,
                             "tensordot: more than %d dimensions in the result", TSR_MAXDIM);
      sp.out[m++] = sp.in[1][k];
    }
  return einsum_nodes(c, call, x, &sp, out);
}

/* kron(a, b): a[:, None, :, None] * b[None, :, None, :] merged into
 * (m p, n q) (1-d: outer, merged); operands of fewer axes get leading
 * ones. */
int tsr_b_kron(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a,
               tsr_value *out) {
  (void)def;
  tsr_node *x[2];
  for (int i = 0; i < 2; i++)
    TSR_CHECK(tsr_as_array(c, &a->v[i], a->at[i], tsr_value_dtype(&a->v[i]), &x[i]));
  int nd = x[0]->grid.ndim > x[1]->grid.ndim ? x[0]->grid.ndim : x[1]->grid.ndim;
  if (nd == 0) {
    tsr_node *p;
    TSR_CHECK(tsr_ctx_relocate(c, call, tsr_node_binary(EW_MUL, x[0], x[1], &p)));
    tsr_set_array(out, p);
    return TSR_OK;
  }
  if (nd > 2)
    return tsr_ctx_error(c, call, TSR_ERR_SHAPE,
                         "kron of arrays of more than 2 dimensions is not supported");
  tsr_node *y[2];
  for (int i = 0; i < 2; i++) { /* leading ones, then interleaved new axes */
    int have = x[i]->grid.ndim;
    tsr_axis_sel sel[TSR_MAXDIM];
    int ns = 0;
    for (int d = 0; d < nd; d++) {
      int real = d >= nd - have;
      tsr_axis_sel whole = {TSR_SEL_SLICE, 0, 1, real ? x[i]->grid.shape[d - (nd - have)] : 1, 0};
      tsr_axis_sel none = {TSR_SEL_NEWAXIS, 0, 0, 0, 0};
      if (i == 0) {
        sel[ns++] = real ? whole : none;
        sel[ns++] = none;
      } else {
        sel[ns++] = none;
        sel[ns++] = real ? whole : none;
      }
    }
    TSR_CHECK(tsr_ctx_relocate(c, call, tsr_node_select(x[i], sel, ns, &y[i])));
  }
  tsr_node *p;
  TSR_CHECK(tsr_ctx_relocate(c, call, tsr_node_binary(EW_MUL, y[0], y[1], &p)));
  int64_t shape[2];
  for (int d = 0; d < nd; d++) shape[d] = p->grid.shape[2 * d] * p->grid.shape[2 * d + 1];
  TSR_CHECK(tsr_ctx_relocate(c, call, tsr_node_reshape(p, nd, shape, &p)));
  tsr_set_array(out, p);
  return TSR_OK;
}
