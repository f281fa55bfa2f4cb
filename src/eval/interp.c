/*
 * interp.c - evaluation of the job language (see interp.h).
 *
 * Errors found here are reported against the source (line, column, caret)
 * through tsr_source_error; errors raised deeper (a broadcast mismatch in the
 * chunk-grid code, say) are relocated to the expression that caused them.
 */
#include "eval/interp.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <limits.h>
#include <string.h>

#include "eval/ops_join.h"
#include "eval/ops_mask.h"
#include "kernel/dtype_names.h"
#include "kernel/ew_scalar.h"
#include "lang/modules.h"
#include "util/error.h"
#include "util/grow.h"
#include "eval/ops.h"

/* ---- services for builtins (context.h) ------------------------------------ */

static uint32_t next_stream(void *self) { return ((tsr_interp *)self)->streams++; }
static uint64_t job_seed(void *self) { return ((tsr_interp *)self)->seed; }

static int arena_alloc(void *self, size_t n, void **out) {
  tsr_interp *ip = self;
  TSR_CHECK(tsr_grow((void **)&ip->arena, &ip->arena_cap, ip->narena + 1, sizeof(void *),
                     "for the job's values"));
  TSR_CALLOC(*out, 1, n);
  ip->arena[ip->narena++] = *out;
  return TSR_OK;
}

void tsr_interp_init(tsr_interp *ip, const tsr_source *src, uint64_t seed) {
  memset(ip, 0, sizeof *ip);
  ip->src = src;
  ip->seed = seed;
  ip->ctx = (tsr_ctx){
      .text = src, .self = ip, .seed = job_seed, .next_stream = next_stream, .alloc = arena_alloc};
}

void tsr_interp_free(tsr_interp *ip) {
  for (int64_t i = 0; i < ip->narena; i++) free(ip->arena[i]);
  free(ip->arena);
  tsr_strmap_free(&ip->vars);
  for (int i = 0; i < ip->nnames; i++) free(ip->names[i].name);
  free(ip->names);
  memset(ip, 0, sizeof *ip);
}

/* ---- names ---------------------------------------------------------------- */

static const char *const constants[] = {
    "pi",    "e",     "inf",   "nan",   "float64", "float32", "bool_",    "int8",
    "int16", "int32", "int64", "uint8", "uint16",  "uint32",  "uint64",   "int",
    "float", "bool",  "int_",  "intp",  "uint",    "double",  "single",   "float_",
    "intc",  "uintc", "byte",  "ubyte", "short",   "ushort",  "longlong", "ulonglong"};

/* Variables are found through ip->vars: a job of n names costs O(n). */
static tsr_binding *lookup(tsr_interp *ip, const char *name) {
  int64_t i = tsr_strmap_get(&ip->vars, name, strlen(name));
  return i < 0 ? NULL : &ip->names[i];
}

static int bind(tsr_interp *ip, const char *name, const tsr_value *v, int is_expr, int line) {
  tsr_binding *b = is_expr ? NULL : lookup(ip, name);
  if (b) {
    b->value = *v;
    b->line = line;
    return TSR_OK;
  }
  TSR_CHECK(tsr_grow((void **)&ip->names, &ip->cap, ip->nnames + 1, sizeof *b, "for names"));
  b = &ip->names[ip->nnames];
  *b = (tsr_binding){.name = strdup(name), .value = *v, .is_expression = is_expr, .line = line};
  if (!b->name) return TSR_ERROR(TSR_ERR_MEMORY, "out of memory");
  ip->nnames++;
  /* the key is the binding's own copy of the name, which lives as long as ip */
  return is_expr ? TSR_OK : tsr_strmap_put(&ip->vars, b->name, strlen(b->name), ip->nnames - 1);
}

static int unknown_name(tsr_interp *ip, const ast_node *e) {
  const char *cands[512];
  int n = 0;
  for (int i = 0; i < tsr_nops && n < 400; i++) cands[n++] = tsr_ops[i].name;
  for (size_t i = 0; i < sizeof constants / sizeof *constants; i++) cands[n++] = constants[i];
  for (int i = 0; i < ip->nnames && n < 512; i++)
    if (!ip->names[i].is_expression) cands[n++] = ip->names[i].name;
  const char *near = tsr_nearest_name(e->str, cands, n);
  if (near)
    return tsr_ctx_error(&ip->ctx, e, TSR_ERR_NAME, "name '%s' is not defined; did you mean '%s'?",
                         e->str, near);
  return tsr_ctx_error(&ip->ctx, e, TSR_ERR_NAME, "name '%s' is not defined", e->str);
}

/* The value of a predefined name (constants[]); 0 when name is none. */
static int constant_value(const char *name, tsr_value *out) {
  memset(out, 0, sizeof *out);
  static const double values[] = {M_PI, M_E, INFINITY, NAN};
  for (int i = 0; i < 4; i++)
    if (!strcmp(name, constants[i])) {
      out->kind = V_FLOAT;
      out->f = values[i];
      return 1;
    }
  tsr_dtype dt; /* the types (np.int64, int, ...) as their names, which dtype= takes */
  for (size_t i = 4; i < sizeof constants / sizeof *constants; i++)
    if (!strcmp(name, constants[i]) && tsr_dtype_parse(name, &dt)) {
      out->kind = V_STR;
      out->s = tsr_dtype_str(dt);
      return 1;
    }
  return 0;
}

static int eval_name(tsr_interp *ip, const ast_node *e, tsr_value *out) {
  tsr_binding *b = lookup(ip, e->str);
  memset(out, 0, sizeof *out);
  if (b) {
    *out = b->value;
    return TSR_OK;
  }
  if (constant_value(e->str, out)) return TSR_OK;
  if (tsr_op_find(e->str, 0))
    return tsr_ctx_error(&ip->ctx, e, TSR_ERR_TYPE, "'%s' is a function: call it, e.g. %s(...)",
                         e->str, e->str);
  return unknown_name(ip, e);
}

/* ---- calls -------------------------------------------------------------- */

static int param_index(const tsr_op_def *def, const char *kw) {
  for (int i = 0; def->params[i]; i++)
    if (!strcmp(def->params[i], kw)) return i;
  return -1;
}

static int bind_args(tsr_interp *ip, const ast_node *call, const tsr_op_def *def,
                     const tsr_value *self, tsr_args *a) {
  memset(a, 0, sizeof *a);
  int np = 0;
  if (self) {
    a->v[0] = *self;
    a->given[0] = 1;
    a->at[0] = call->callee->left;
    np = 1;
  }
  if (np + call->nitems > def->npos)
    return tsr_ctx_error(&ip->ctx, call->items[call->nitems - 1], TSR_ERR_TYPE,
                         "%s() takes at most %d positional argument%s (%d given)", def->name,
                         def->npos - (self ? 1 : 0), def->npos - (self ? 1 : 0) == 1 ? "" : "s",
                         call->nitems);
  for (int i = 0; i < call->nitems; i++, np++) {
    TSR_CHECK(tsr_interp_expr(ip, call->items[i], &a->v[np]));
    a->given[np] = 1;
    a->at[np] = call->items[i];
  }
  for (int k = 0; k < call->nkw; k++) {
    int i = param_index(def, call->kwnames[k]);
    if (i < 0 || (self && i == 0)) {
      int n = 0;
      while (def->params[n]) n++;
      const char *near =
          tsr_nearest_name(call->kwnames[k], def->params + (self ? 1 : 0), n - (self ? 1 : 0));
      if (near)
        return tsr_ctx_error(&ip->ctx, call->kwvalues[k], TSR_ERR_NAME,
                             "%s() got an unexpected keyword argument '%s'; did you mean '%s'?",
                             def->name, call->kwnames[k], near);
      return tsr_ctx_error(&ip->ctx, call->kwvalues[k], TSR_ERR_NAME,
                           "%s() got an unexpected keyword argument '%s'", def->name,
                           call->kwnames[k]);
    }
    if (a->given[i])
      return tsr_ctx_error(&ip->ctx, call->kwvalues[k], TSR_ERR_TYPE,
                           "%s() got multiple values for argument '%s'", def->name, def->params[i]);
    TSR_CHECK(tsr_interp_expr(ip, call->kwvalues[k], &a->v[i]));
    a->given[i] = 1;
    a->at[i] = call->kwvalues[k];
  }
  for (int i = 0; i < def->nreq; i++)
    if (!a->given[i])
      return tsr_ctx_error(&ip->ctx, call, TSR_ERR_TYPE, "%s() missing required argument '%s'",
                           def->name, def->params[i]);
  for (int i = 0; def->params[i]; i++)
    if (!a->at[i]) a->at[i] = call;
  return TSR_OK;
}

static int unknown_function(tsr_interp *ip, const ast_node *at, const char *name, int method) {
  const char **cands = calloc((size_t)tsr_nops + 1, sizeof *cands);
  int n = 0;
  for (int i = 0; cands && i < tsr_nops; i++)
    if (!method || tsr_ops[i].is_method) cands[n++] = tsr_ops[i].name;
  const char *near = cands ? tsr_nearest_name(name, cands, n) : NULL;
  free(cands);
  const char *what = method ? "arrays have no method" : "unknown function";
  if (near)
    return tsr_ctx_error(&ip->ctx, at, TSR_ERR_NAME, "%s '%s'; did you mean '%s'?", what, name,
                         near);
  return tsr_ctx_error(&ip->ctx, at, TSR_ERR_NAME, "%s '%s'", what, name);
}

/* ---- module prefixes: np.sum, da.random.normal (lang/modules.h) ---------- */

/* A random distribution: a generator with a seed, the functions NumPy and
 * Dask keep in their random modules (np.random.normal, not np.normal). */
static int is_random(const tsr_op_def *def) {
  return def->kind == OPK_GENERATOR && param_index(def, "seed") >= 0;
}

/* The prefix that e is written under (np in np.sum, np.random in
 * np.random.normal) with *rest the name after it; NULL when e is no dotted
 * name under a known prefix, or when its first name is a variable: a job's
 * own `da = load(...)` makes da.sum() a method call, as in Python. */
static const tsr_module_prefix *module_prefix(tsr_interp *ip, const ast_node *e, char *dotted,
                                              size_t n, const char **rest) {
  if (e->kind != AST_ATTR || !tsr_dotted_name(e, dotted, n)) return NULL;
  const tsr_module_prefix *m = tsr_module_match(dotted, rest);
  if (!m) return NULL;
  char root[64];
  snprintf(root, sizeof root, "%.*s", (int)strcspn(dotted, "."), dotted);
  return lookup(ip, root) ? NULL : m;
}

/* "unknown function 'np.normal'; did you mean 'np.random.normal'?": the
 * same name under the prefix's other half, else a near name in this half. */
static int unknown_prefixed(tsr_interp *ip, const ast_node *at, const tsr_module_prefix *m,
                            const char *name, const char *what) {
  if (tsr_op_find(name, 0))
    return tsr_ctx_error(&ip->ctx, at, TSR_ERR_NAME, "%s '%s.%s'; did you mean '%s.%s'?", what,
                         m->prefix, name, m->other, name);
  const char *cands[256] = {0};
  int n = 0;
  for (int i = 0; i < tsr_nops && n < (int)(sizeof cands / sizeof *cands); i++)
    if (is_random(&tsr_ops[i]) == m->random) cands[n++] = tsr_ops[i].name;
  const char *near = tsr_nearest_name(name, cands, n);
  if (near)
    return tsr_ctx_error(&ip->ctx, at, TSR_ERR_NAME, "%s '%s.%s'; did you mean '%s.%s'?", what,
                         m->prefix, name, m->prefix, near);
  return tsr_ctx_error(&ip->ctx, at, TSR_ERR_NAME, "%s '%s.%s'", what, m->prefix, name);
}

/* The op that a prefixed callee names; *def stays NULL when f has no
 * prefix (a method call). */
static int prefixed_op(tsr_interp *ip, const ast_node *f, const tsr_op_def **def) {
  char dotted[128];
  const char *rest;
  *def = NULL;
  const tsr_module_prefix *m = module_prefix(ip, f, dotted, sizeof dotted, &rest);
  if (!m) return TSR_OK;
  const tsr_op_def *d = tsr_op_find(rest, 0);
  if (!d || is_random(d) != m->random) return unknown_prefixed(ip, f, m, rest, "unknown function");
  *def = d;
  return TSR_OK;
}

/* np.pi, np.float32 (the constants, under the plain prefixes); a function
 * named without its call is the error eval_name gives. *done is 0 when e
 * has no prefix (an array attribute). */
static int prefixed_attr(tsr_interp *ip, const ast_node *e, int *done, tsr_value *out) {
  char dotted[128];
  const char *rest;
  const tsr_module_prefix *m = module_prefix(ip, e, dotted, sizeof dotted, &rest);
  *done = m != NULL;
  if (!m || (!m->random && constant_value(rest, out))) return TSR_OK;
  const tsr_op_def *d = tsr_op_find(rest, 0);
  if (d && is_random(d) == m->random)
    return tsr_ctx_error(&ip->ctx, e, TSR_ERR_TYPE, "'%s' is a function: call it, e.g. %s(...)",
                         dotted, dotted);
  return unknown_prefixed(ip, e, m, rest, "unknown name");
}

/* ---- calls, continued ---------------------------------------------------- */

static int call_op(tsr_interp *ip, const ast_node *e, const tsr_op_def *def, const tsr_value *self,
                   tsr_value *out) {
  tsr_args a;
  TSR_CHECK(bind_args(ip, e, def, self, &a));
  return def->fn(&ip->ctx, e, def, &a, out);
}

static int eval_call(tsr_interp *ip, const ast_node *e, tsr_value *out) {
  const ast_node *f = e->callee;
  tsr_value self, *selfp = NULL;
  const char *name;
  const tsr_op_def *def;
  TSR_CHECK(prefixed_op(ip, f, &def));
  if (def) return call_op(ip, e, def, NULL, out);
  if (f->kind == AST_ATTR) {
    TSR_CHECK(tsr_interp_expr(ip, f->left, &self));
    if (self.kind != V_ARRAY && !tsr_value_is_number(&self))
      return tsr_ctx_error(&ip->ctx, f, TSR_ERR_TYPE, "%s has no method '%s'",
                           tsr_value_type_name(&self), f->str);
    selfp = &self;
    name = f->str;
  } else if (f->kind == AST_NAME) {
    name = f->str;
    if (lookup(ip, name))
      return tsr_ctx_error(&ip->ctx, f, TSR_ERR_TYPE, "'%s' is a variable, not a function", name);
  } else {
    return tsr_ctx_error(&ip->ctx, f, TSR_ERR_TYPE, "this expression cannot be called");
  }
  def = tsr_op_find(name, selfp != NULL);
  if (!def) return unknown_function(ip, f, name, selfp != NULL);
  return call_op(ip, e, def, selfp, out);
}

/* ---- indexing ------------------------------------------------------------- */

static int index_int(tsr_interp *ip, const ast_node *at, const tsr_value *v, int64_t *out) {
  if (v->kind == V_INT || v->kind == V_BOOL) {
    *out = v->i;
    return TSR_OK;
  }
  return tsr_ctx_error(&ip->ctx, at, TSR_ERR_TYPE,
                       "only integers, slices (':') and None are valid indices, got %s",
                       tsr_value_type_name(v));
}

static int slice_part(tsr_interp *ip, const ast_node *part, int64_t *val, const int64_t **ptr) {
  *ptr = NULL;
  if (!part) return TSR_OK;
  tsr_value v;
  TSR_CHECK(tsr_interp_expr(ip, part, &v));
  if (v.kind == V_NONE) return TSR_OK;
  TSR_CHECK(index_int(ip, part, &v, val));
  *ptr = val;
  return TSR_OK;
}

/* The integers of a list index on an axis of length len, in range, made
 * non-negative (in the job's arena). */
static int list_index(tsr_interp *ip, const ast_node *it, int64_t len, int axis, int64_t **idx,
                      int64_t *n) {
  TSR_CHECK(arena_alloc(ip, sizeof(int64_t) * (size_t)(it->nitems + 1), (void **)idx));
  for (int k = 0; k < it->nitems; k++) {
    tsr_value v;
    TSR_CHECK(tsr_interp_expr(ip, it->items[k], &v));
    if (v.kind != V_INT)
      return tsr_ctx_error(
          &ip->ctx, it->items[k], TSR_ERR_INDEX, "a list index holds integers, got %s%s",
          tsr_value_type_name(&v),
          v.kind == V_BOOL ? " (a boolean mask is an array: x[array([...])] or x[x > 0])" : "");
    if (v.i < -len || v.i >= len)
      return tsr_ctx_error(&ip->ctx, it->items[k], TSR_ERR_INDEX,
                           "index %lld is out of bounds for axis %d with size %lld", v.i, axis,
                           (long long)len);
    (*idx)[k] = v.i < 0 ? v.i + len : v.i;
  }
  *n = it->nitems;
  return TSR_OK;
}

static int eval_index(tsr_interp *ip, const ast_node *e, tsr_value *out) {
  tsr_value base;
  TSR_CHECK(tsr_interp_expr(ip, e->left, &base));
  if (base.kind == V_TUPLE && e->nitems == 1) {
    tsr_value v;
    int64_t i = 0;
    TSR_CHECK(tsr_interp_expr(ip, e->items[0], &v));
    TSR_CHECK(index_int(ip, e->items[0], &v, &i));
    if (i < -base.nitems || i >= base.nitems)
      return tsr_ctx_error(&ip->ctx, e->items[0], TSR_ERR_INDEX, "tuple index out of range");
    *out = base.items[i < 0 ? i + base.nitems : i];
    return TSR_OK;
  }
  if (base.kind != V_ARRAY)
    return tsr_ctx_error(&ip->ctx, e->left, TSR_ERR_TYPE, "%s cannot be indexed",
                         tsr_value_type_name(&base));
  /* one item that is an array: a boolean mask (evaluated once: its random
   * streams are drawn once) */
  tsr_value one = {0};
  int have_one = 0;
  if (e->nitems == 1 && e->items[0]->kind != AST_SLICE && e->items[0]->kind != AST_NONE &&
      e->items[0]->kind != AST_ELLIPSIS && e->items[0]->kind != AST_TUPLE) {
    TSR_CHECK(tsr_interp_expr(ip, e->items[0], &one));
    have_one = 1;
    if (one.kind == V_ARRAY && one.arr->dtype == TSR_BOOL) {
      tsr_node *n;
      TSR_CHECK(tsr_mask_select(&ip->ctx, e, base.arr, one.arr, &n));
      memset(out, 0, sizeof *out);
      out->kind = V_ARRAY;
      out->arr = n;
      return TSR_OK;
    }
  }
  const tsr_node *x = base.arr;
  tsr_axis_sel sel[TSR_MAXDIM * 2];
  int nsel = 0, axis = 0, outdim = 0, used = 0, ellipses = 0;
  int list_at = -1, list_item = -1, first_int = -1, last_int = -1;
  int64_t *list_idx = NULL, list_n = 0;
  for (int k = 0; k < e->nitems; k++) { /* the axes the items other than ... take */
    used += e->items[k]->kind != AST_NONE && e->items[k]->kind != AST_ELLIPSIS;
    if (e->items[k]->kind == AST_ELLIPSIS && ellipses++)
      return tsr_ctx_error(&ip->ctx, e->items[k], TSR_ERR_INDEX,
                           "an index can only have a single ellipsis ('...')");
  }
  for (int k = 0; k < e->nitems; k++) {
    const ast_node *it = e->items[k];
    if (nsel == TSR_MAXDIM * 2)
      return tsr_ctx_error(&ip->ctx, it, TSR_ERR_INDEX, "more than %d indices and new axes",
                           TSR_MAXDIM * 2);
    if (it->kind == AST_ELLIPSIS) { /* the axes no other item takes, whole */
      for (int n = x->grid.ndim - used; n > 0 && nsel < TSR_MAXDIM * 2; n--, axis++, outdim++)
        sel[nsel++] = (tsr_axis_sel){TSR_SEL_SLICE, 0, 1, x->grid.shape[axis], 0};
      continue;
    }
    if (it->kind == AST_NONE) {
      sel[nsel++] = (tsr_axis_sel){TSR_SEL_NEWAXIS, 0, 0, 0, 0};
      outdim++;
      continue;
    }
    if (axis >= x->grid.ndim)
      return tsr_ctx_error(
          &ip->ctx, it, TSR_ERR_INDEX,
          "too many indices for array: array is %d-dimensional, but %d were indexed", x->grid.ndim,
          axis + 1);
    int64_t len = x->grid.shape[axis];
    if (it->kind == AST_TUPLE) { /* x[[0, 2]]: a list literal is a tuple here; take() */
      if (list_at >= 0)
        return tsr_ctx_error(&ip->ctx, it, TSR_ERR_INDEX,
                             "a list index on more than one axis (NumPy's fancy indexing) is not "
                             "supported: index one axis at a time");
      TSR_CHECK(list_index(ip, it, len, axis, &list_idx, &list_n));
      list_at = outdim, list_item = k;
      sel[nsel++] = (tsr_axis_sel){TSR_SEL_SLICE, 0, 1, len, 0};
      outdim++, axis++;
      continue;
    }
    if (it->kind == AST_SLICE) {
      int64_t s0, s1, s2;
      const int64_t *p0, *p1, *p2;
      TSR_CHECK(slice_part(ip, it->start, &s0, &p0));
      TSR_CHECK(slice_part(ip, it->stop, &s1, &p1));
      TSR_CHECK(slice_part(ip, it->step, &s2, &p2));
      tsr_axis_sel s = {TSR_SEL_SLICE, 0, 0, 0, 0};
      TSR_CHECK(
          tsr_ctx_relocate(&ip->ctx, it->step ? it->step : it,
                           tsr_slice_normalize(len, p0, p1, p2, &s.first, &s.step, &s.count)));
      sel[nsel++] = s;
      outdim++;
    } else {
      tsr_value v = one;
      int64_t i = 0;
      if (!have_one) TSR_CHECK(tsr_interp_expr(ip, it, &v));
      TSR_CHECK(index_int(ip, it, &v, &i));
      if (i < -len || i >= len)
        return tsr_ctx_error(&ip->ctx, it, TSR_ERR_INDEX,
                             "index %lld is out of bounds for axis %d with size %lld", (long long)i,
                             axis, (long long)len);
      sel[nsel++] = (tsr_axis_sel){TSR_SEL_INDEX, 0, 0, 0, i < 0 ? i + len : i};
      first_int = first_int < 0 ? k : first_int, last_int = k;
    }
    axis++;
  }
  /* NumPy moves the list's axis first where integers and the list are not
   * next to one another (x[0, :, [1, 2]]); next to one another, indexing
   * one after the other gives its result */
  if (list_at >= 0 && first_int >= 0) {
    int lo = first_int < list_item ? first_int : list_item,
        hi = last_int > list_item ? last_int : list_item;
    for (int k = lo; k <= hi; k++)
      if (e->items[k]->kind == AST_SLICE || e->items[k]->kind == AST_NONE ||
          e->items[k]->kind == AST_ELLIPSIS)
        return tsr_ctx_error(&ip->ctx, e->items[list_item], TSR_ERR_INDEX,
                             "a list index apart from integer indices moves its axis first in "
                             "NumPy; index in two steps");
  }
  if (outdim + (x->grid.ndim - axis) > TSR_MAXDIM)
    return tsr_ctx_error(&ip->ctx, e, TSR_ERR_VALUE, "at most %d dimensions are supported",
                         TSR_MAXDIM);
  tsr_node *n;
  TSR_CHECK(tsr_ctx_relocate(&ip->ctx, e, tsr_node_select(base.arr, sel, nsel, &n)));
  if (list_at >= 0)
    TSR_CHECK(tsr_ctx_relocate(&ip->ctx, e, tsr_node_take(n, list_at, list_idx, list_n, &n)));
  memset(out, 0, sizeof *out);
  out->kind = V_ARRAY;
  out->arr = n;
  return TSR_OK;
}

/* x OP y (or x.T when y is NULL) by the op of the table that implements the
 * operator; errors about an operand are located at it. */
static int apply_operator(tsr_interp *ip, const ast_node *e, const char *symbol, const tsr_value *x,
                          const ast_node *atx, const tsr_value *y, const ast_node *aty,
                          tsr_value *out) {
  const tsr_op_def *def = tsr_op_operator(symbol);
  if (!def) return tsr_ctx_error(&ip->ctx, e, TSR_ERR_INTERNAL, "no op for operator %s", symbol);
  tsr_args a;
  memset(&a, 0, sizeof a);
  a.v[0] = *x;
  a.at[0] = atx;
  a.given[0] = 1;
  if (y) {
    a.v[1] = *y;
    a.at[1] = aty;
    a.given[1] = 1;
  }
  return def->fn(&ip->ctx, e, def, &a, out);
}

/* ---- attributes (non-call) ------------------------------------------------- */

static int make_tuple(tsr_interp *ip, int n, tsr_value *out) {
  memset(out, 0, sizeof *out);
  out->kind = V_TUPLE;
  out->nitems = n;
  return arena_alloc(ip, sizeof(tsr_value) * (size_t)(n + 1), (void **)&out->items);
}

static int eval_attr(tsr_interp *ip, const ast_node *e, tsr_value *out) {
  int done;
  TSR_CHECK(prefixed_attr(ip, e, &done, out));
  if (done) return TSR_OK;
  tsr_value base;
  TSR_CHECK(tsr_interp_expr(ip, e->left, &base));
  if (base.kind != V_ARRAY)
    return tsr_ctx_error(&ip->ctx, e, TSR_ERR_TYPE, "%s has no attribute '%s'",
                         tsr_value_type_name(&base), e->str);
  const tsr_grid *g = &base.arr->grid;
  memset(out, 0, sizeof *out);
  if (!strcmp(e->str, "shape") || !strcmp(e->str, "chunks")) {
    int chunks = !strcmp(e->str, "chunks");
    TSR_CHECK(make_tuple(ip, g->ndim, out));
    for (int a = 0; a < g->ndim; a++) {
      if (!chunks) {
        out->items[a].kind = V_INT;
        out->items[a].i = g->shape[a];
        continue;
      }
      TSR_CHECK(make_tuple(ip, (int)g->nchunks[a], &out->items[a]));
      for (int64_t c = 0; c < g->nchunks[a]; c++) {
        out->items[a].items[c].kind = V_INT;
        out->items[a].items[c].i = g->sizes[a][c];
      }
    }
    return TSR_OK;
  }
  if (!strcmp(e->str, "ndim") || !strcmp(e->str, "size")) {
    out->kind = V_INT;
    out->i = !strcmp(e->str, "ndim") ? g->ndim : tsr_node_size(base.arr);
    return TSR_OK;
  }
  if (!strcmp(e->str, "dtype")) {
    out->kind = V_STR;
    out->s = tsr_dtype_name(base.arr->dtype);
    return TSR_OK;
  }
  if (!strcmp(e->str, "T")) return apply_operator(ip, e, ".T", &base, e->left, NULL, NULL, out);
  if (tsr_op_find(e->str, 1))
    return tsr_ctx_error(&ip->ctx, e, TSR_ERR_TYPE, "'%s' is a method: call it, e.g. x.%s()",
                         e->str, e->str);
  static const char *const attrs[] = {"shape",   "chunks", "ndim", "size",   "dtype",  "sum",
                                      "mean",    "min",    "max",  "std",    "var",    "astype",
                                      "rechunk", "T",      "dot",  "cumsum", "cumprod"};
  const char *near = tsr_nearest_name(e->str, attrs, (int)(sizeof attrs / sizeof *attrs));
  if (near)
    return tsr_ctx_error(&ip->ctx, e, TSR_ERR_NAME,
                         "arrays have no attribute '%s'; did you mean '%s'?", e->str, near);
  return tsr_ctx_error(&ip->ctx, e, TSR_ERR_NAME, "arrays have no attribute '%s'", e->str);
}

/* ---- expressions ----------------------------------------------------------- */

static int eval_unary(tsr_interp *ip, const ast_node *e, tsr_value *out) {
  tsr_value x;
  TSR_CHECK(tsr_interp_expr(ip, e->left, &x));
  if (e->op == '+') {
    if (x.kind != V_ARRAY && !tsr_value_is_number(&x))
      return tsr_ctx_error(&ip->ctx, e, TSR_ERR_TYPE, "bad operand type for unary +: %s",
                           tsr_value_type_name(&x));
    *out = x;
    return TSR_OK;
  }
  if (e->op == '~') {
    if (x.kind == V_BOOL || x.kind == V_INT) { /* Python's ~True is -2 */
      memset(out, 0, sizeof *out);
      out->kind = V_INT;
      out->i = ~x.i;
      return TSR_OK;
    }
    if (x.kind != V_ARRAY)
      return tsr_ctx_error(&ip->ctx, e, TSR_ERR_TYPE, "bad operand type for unary ~: %s",
                           tsr_value_type_name(&x));
    tsr_node *n;
    TSR_CHECK(tsr_ctx_relocate(&ip->ctx, e, tsr_node_unary(EW_INVERT, x.arr, &n)));
    tsr_set_array(out, n);
    return TSR_OK;
  }
  if ((x.kind == V_INT || x.kind == V_BOOL) && x.i != INT64_MIN) {
    *out = x;
    out->kind = V_INT;
    out->i = -x.i;
    return TSR_OK;
  }
  if (x.kind == V_INT) { /* -(-2**63) is beyond int64: a float */
    memset(out, 0, sizeof *out);
    out->kind = V_FLOAT;
    out->f = -(double)x.i;
    return TSR_OK;
  }
  if (x.kind == V_FLOAT) {
    *out = x;
    out->f = -x.f;
    return TSR_OK;
  }
  if (x.kind != V_ARRAY)
    return tsr_ctx_error(&ip->ctx, e, TSR_ERR_TYPE, "bad operand type for unary -: %s",
                         tsr_value_type_name(&x));
  tsr_node *n;
  TSR_CHECK(tsr_node_unary(EW_NEG, x.arr, &n));
  memset(out, 0, sizeof *out);
  out->kind = V_ARRAY;
  out->arr = n;
  return TSR_OK;
}

/* int op int stays an int where Python keeps it one. */
static int int_binary(int op, const tsr_value *x, const tsr_value *y, tsr_value *out) {
  long long a = x->i, b = y->i;
  memset(out, 0, sizeof *out);
  out->kind = V_INT;
  switch (op) {
  case '+': /* beyond int64 the result is a float, as Python's int would be exact */
    return !__builtin_add_overflow(a, b, &out->i);
  case '-':
    return !__builtin_sub_overflow(a, b, &out->i);
  case '*':
    return !__builtin_mul_overflow(a, b, &out->i);
  case AST_OP_FLOORDIV: /* Python floors; by 0 (and INT64_MIN // -1) as floats */
  case '%':
    if (b == 0 || (b == -1 && a == LLONG_MIN)) return 0;
    out->i = op == '%' ? a % b : a / b;
    if (a % b != 0 && (a < 0) != (b < 0)) out->i = op == '%' ? out->i + b : out->i - 1;
    return 1;
  case '&':
    out->i = a & b;
    return 1;
  case '|':
    out->i = a | b;
    return 1;
  case '^':
    out->i = a ^ b;
    return 1;
  case AST_OP_LSHIFT: /* within int64, else a float (Python's ints have no bound) */
    if (b < 0 || b > 62 || (a != 0 && (a > (LLONG_MAX >> b) || a < (LLONG_MIN >> b)))) return 0;
    out->i = (long long)((unsigned long long)a << b);
    return 1;
  case AST_OP_RSHIFT:
    if (b < 0) return 0;
    out->i = b > 63 ? (a < 0 ? -1 : 0) : a >> b;
    return 1;
  case AST_OP_POW:
    if (b < 0 || b > 63) return 0;
    out->i = 1;
    for (long long k = 0; k < b; k++)
      if (__builtin_mul_overflow(out->i, a, &out->i)) return 0;
    return 1;
  }
  return 0;
}

/* Python's bool and int operators on two bools keep a bool. */
static int bool_binary(int op, const tsr_value *x, const tsr_value *y, tsr_value *out) {
  if (x->kind != V_BOOL || y->kind != V_BOOL || (op != '&' && op != '|' && op != '^')) return 0;
  memset(out, 0, sizeof *out);
  out->kind = V_BOOL;
  out->i = op == '&' ? (x->i & y->i) : op == '|' ? (x->i | y->i) : (x->i ^ y->i);
  return 1;
}

/* Comparisons of two Python numbers: a bool, exact for ints. */
static int number_compare(int op, const tsr_value *x, const tsr_value *y, tsr_value *out) {
  int c;
  if (x->kind != V_FLOAT && y->kind != V_FLOAT) {
    c = (x->i > y->i) - (x->i < y->i);
  } else {
    double a = tsr_value_number(x), b = tsr_value_number(y);
    if (a != a || b != b)
      c = 2; /* unordered: only != holds */
    else
      c = (a > b) - (a < b);
  }
  int r;
  switch (op) {
  case '<':
    r = c == -1;
    break;
  case '>':
    r = c == 1;
    break;
  case AST_OP_LE:
    r = c == -1 || c == 0;
    break;
  case AST_OP_GE:
    r = c == 1 || c == 0;
    break;
  case AST_OP_EQ:
    r = c == 0;
    break;
  case AST_OP_NE:
    r = c != 0;
    break;
  default:
    return 0;
  }
  memset(out, 0, sizeof *out);
  out->kind = V_BOOL;
  out->i = r;
  return 1;
}

/* The operator table's symbol of a binary AST operator. */
static const char *op_symbol(int op, char buf[3]) {
  switch (op) {
  case AST_OP_POW:
    return "**";
  case AST_OP_FLOORDIV:
    return "//";
  case AST_OP_LE:
    return "<=";
  case AST_OP_GE:
    return ">=";
  case AST_OP_EQ:
    return "==";
  case AST_OP_NE:
    return "!=";
  case AST_OP_LSHIFT:
    return "<<";
  case AST_OP_RSHIFT:
    return ">>";
  }
  buf[0] = (char)op;
  buf[1] = 0;
  return buf;
}

/* x OP y for node e, with x already evaluated. */
static int binop_with(tsr_interp *ip, const ast_node *e, tsr_value x, tsr_value *out) {
  tsr_value y;
  TSR_CHECK(tsr_interp_expr(ip, e->right, &y));
  char buf[3];
  const char *sym = op_symbol(e->op, buf);
  if (e->op == '@') return apply_operator(ip, e, sym, &x, e->left, &y, e->right, out);
  if (bool_binary(e->op, &x, &y, out)) return TSR_OK;
  if ((x.kind == V_INT || x.kind == V_BOOL) && (y.kind == V_INT || y.kind == V_BOOL) &&
      int_binary(e->op, &x, &y, out))
    return TSR_OK;
  if (tsr_value_is_number(&x) && tsr_value_is_number(&y)) {
    if (number_compare(e->op, &x, &y, out)) return TSR_OK;
    const tsr_op_def *def = tsr_op_operator(sym);
    if (def && e->op != '&' && e->op != '|' && e->op != '^' && e->op != AST_OP_LSHIFT &&
        e->op != AST_OP_RSHIFT) { /* Python's float arithmetic (ints beyond int64 too) */
      memset(out, 0, sizeof *out);
      out->kind = V_FLOAT;
      out->f = tsr_ew_binary(def->code, tsr_value_number(&x), tsr_value_number(&y));
      return TSR_OK;
    }
  }
  int ok_x = x.kind == V_ARRAY || tsr_value_is_number(&x);
  int ok_y = y.kind == V_ARRAY || tsr_value_is_number(&y);
  if (!ok_x || !ok_y)
    return tsr_ctx_error(&ip->ctx, e, TSR_ERR_TYPE, "unsupported operand types for %s: %s and %s",
                         sym, tsr_value_type_name(&x), tsr_value_type_name(&y));
  return apply_operator(ip, e, sym, &x, e->left, &y, e->right, out);
}

/* "a + b + c + ..." nests to the left: the left spine is walked with a
 * loop, so a long chain costs no stack. */
static int eval_binop(tsr_interp *ip, const ast_node *e, tsr_value *out) {
  int64_t n = 0;
  const ast_node *leaf = e;
  for (; leaf->kind == AST_BINOP; leaf = leaf->left) n++;
  const ast_node **spine;
  TSR_MALLOC(spine, sizeof *spine * (size_t)(n + 1));
  const ast_node *t = e;
  for (int64_t i = n - 1; i >= 0; i--, t = t->left) spine[i] = t; /* spine[0]: the innermost */
  tsr_value x;
  int st = tsr_interp_expr(ip, leaf, &x);
  for (int64_t i = 0; i < n && st == TSR_OK; i++) {
    tsr_value r;
    st = binop_with(ip, spine[i], x, &r);
    x = r;
  }
  free(spine);
  if (st == TSR_OK) *out = x;
  return st;
}

int tsr_interp_expr(tsr_interp *ip, const ast_node *e, tsr_value *out) {
  memset(out, 0, sizeof *out);
  switch (e->kind) {
  case AST_NUM:
    out->kind = e->is_int ? V_INT : V_FLOAT;
    out->i = e->ival;
    out->f = e->num;
    return TSR_OK;
  case AST_STR:
    out->kind = V_STR;
    out->s = e->str;
    return TSR_OK;
  case AST_NONE:
    return TSR_OK;
  case AST_BOOL:
    out->kind = V_BOOL;
    out->i = e->ival;
    return TSR_OK;
  case AST_NAME:
    return eval_name(ip, e, out);
  case AST_TUPLE:
    TSR_CHECK(make_tuple(ip, e->nitems, out));
    for (int i = 0; i < e->nitems; i++) TSR_CHECK(tsr_interp_expr(ip, e->items[i], &out->items[i]));
    return TSR_OK;
  case AST_UNARY:
    return eval_unary(ip, e, out);
  case AST_BINOP:
    return eval_binop(ip, e, out);
  case AST_CALL:
    return eval_call(ip, e, out);
  case AST_ATTR:
    return eval_attr(ip, e, out);
  case AST_INDEX:
    return eval_index(ip, e, out);
  case AST_SLICE:
    return tsr_ctx_error(&ip->ctx, e, TSR_ERR_SYNTAX, "a slice is only valid inside [ ]");
  case AST_ELLIPSIS:
    return tsr_ctx_error(&ip->ctx, e, TSR_ERR_SYNTAX, "'...' is only valid inside [ ]");
  }
  return tsr_ctx_error(&ip->ctx, e, TSR_ERR_INTERNAL, "unknown expression");
}

/* ---- statements ------------------------------------------------------------ */

/* The start of the given line of the job text. Statements come in the order
 * of their lines, so the walk goes on from the line found last instead of
 * the top: a job of n expression statements costs O(text), not O(n text). */
static const char *line_start(tsr_interp *ip, int line) {
  if (!ip->line_at || line < ip->line_no) {
    ip->line_at = ip->src->text;
    ip->line_no = 1;
  }
  const char *t = ip->line_at;
  int at = ip->line_no;
  for (; at < line && *t; t++)
    if (*t == '\n') at++;
  ip->line_at = t;
  ip->line_no = at;
  return t;
}

static int statement_text(tsr_interp *ip, const ast_stmt *s, char *buf, size_t n) {
  const char *t = line_start(ip, s->line);
  size_t len = strcspn(t, "\n#");
  while (len > 0 && (t[len - 1] == ' ' || t[len - 1] == '\r' || t[len - 1] == ';')) len--;
  while (len > 0 && (*t == ' ' || *t == '\t')) t++, len--;
  snprintf(buf, n, "%.*s", (int)len, t);
  return TSR_OK;
}

int tsr_interp_program(tsr_interp *ip, const ast_program *prog) {
  for (int k = 0; k < prog->nstmts; k++) {
    const ast_stmt *s = &prog->stmts[k];
    tsr_value v;
    ip->ctx.target = s->ntargets == 1 ? s->targets[0]->str : NULL;
    ip->ctx.target_value = s->value;
    int st = tsr_interp_expr(ip, s->value, &v);
    ip->ctx.target = NULL;
    ip->ctx.target_value = NULL;
    TSR_CHECK(st);
    if (s->ntargets == 0) {
      char text[256];
      statement_text(ip, s, text, sizeof text);
      TSR_CHECK(bind(ip, text, &v, 1, s->line));
    } else if (s->ntargets == 1) {
      TSR_CHECK(bind(ip, s->targets[0]->str, &v, 0, s->line));
    } else {
      if (v.kind != V_TUPLE)
        return tsr_ctx_error(&ip->ctx, s->value, TSR_ERR_TYPE, "cannot unpack %s into %d names",
                             tsr_value_type_name(&v), s->ntargets);
      if (v.nitems != s->ntargets)
        return tsr_ctx_error(&ip->ctx, s->value, TSR_ERR_VALUE,
                             "cannot unpack %d values into %d names", v.nitems, s->ntargets);
      for (int i = 0; i < s->ntargets; i++)
        TSR_CHECK(bind(ip, s->targets[i]->str, &v.items[i], 0, s->line));
    }
  }
  return TSR_OK;
}
