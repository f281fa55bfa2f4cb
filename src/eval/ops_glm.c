/*
 * ops_glm.c - the GLM builtins (ops_glm.h): their arguments checked while
 * the job is read, so that a bad call is reported at its line and column
 * before any work.
 *
 * A fit reads X and y on X's canonical row blocks (graph/fit.h), held as
 * persist holds arrays: X is rechunked to them when its chunks differ and
 * kept in backend memory until the job ends, so that later fits of the same
 * X (and predictions) read it where it is.
 */
#include "eval/ops_glm.h"

#include <stdio.h>
#include <string.h>

#include "graph/groups.h"
#include "util/error.h"

/* Parameters of a fit, by position (ops.c's table line). */
enum { P_X, P_Y, P_SOLVER, P_REG, P_LAMDUH, P_L1_RATIO, P_INTERCEPT, P_MAX_ITER, P_TOL };

static int name_arg(tsr_ctx *c, const tsr_args *a, int i, const char *what,
                    const tsr_fit_name *table, int n, int *out) {
  const char *s;
  TSR_CHECK(tsr_arg_string(c, a, i, what, &s));
  *out = tsr_fit_lookup(table, n, s);
  if (*out >= 0) return TSR_OK;
  char names[256] = "";
  for (int k = 0; k < n; k++)
    snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", k ? ", " : "",
             table[k].name);
  return tsr_ctx_error(c, a->at[i], TSR_ERR_VALUE, "unknown %s \"%s\" (one of %s)", what, s, names);
}

static int bool_arg(tsr_ctx *c, const tsr_args *a, int i, const char *what, int *out) {
  if (a->v[i].kind != V_BOOL)
    return tsr_ctx_error(c, a->at[i], TSR_ERR_TYPE, "%s must be True or False, got %s", what,
                         tsr_value_type_name(&a->v[i]));
  *out = (int)a->v[i].i;
  return TSR_OK;
}

/* The fit's settings from the keywords (defaults where not given). */
static int fit_settings(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a,
                        tsr_fit *f) {
  memset(f, 0, sizeof *f);
  *f = (tsr_fit){.family = def->code,
                 .solver = TSR_SOLVER_NEWTON,
                 .reg = TSR_REG_L2,
                 .fit_intercept = 1,
                 .max_iter = 100,
                 .lamduh = 1.0,
                 .l1_ratio = 0.5,
                 .tol = 1e-8};
  snprintf(f->label, sizeof f->label, "%s at %d:%d", def->name, call->line, call->col);
  if (a->given[P_REG])
    TSR_CHECK(name_arg(c, a, P_REG, "regularizer", tsr_glm_regularizers, TSR_NREGS, &f->reg));
  if (a->given[P_SOLVER])
    TSR_CHECK(name_arg(c, a, P_SOLVER, "solver", tsr_glm_solvers, TSR_NSOLVERS, &f->solver));
  else if (!tsr_glm_regularizers[f->reg].smooth)
    f->solver = TSR_SOLVER_PROXIMAL_GRAD; /* newton's default cannot take the penalty */
  if (tsr_glm_solvers[f->solver].smooth && !tsr_glm_regularizers[f->reg].smooth)
    return tsr_ctx_error(c, a->at[P_SOLVER], TSR_ERR_VALUE,
                         "solver \"%s\" needs a smooth penalty (regularizer \"none\" or \"l2\"); "
                         "for \"%s\" use solver=\"proximal_grad\" or \"admm\"",
                         tsr_glm_solvers[f->solver].name, tsr_glm_regularizers[f->reg].name);
  if (a->given[P_LAMDUH]) TSR_CHECK(tsr_arg_number(c, a, P_LAMDUH, "lamduh", &f->lamduh));
  if (!(f->lamduh >= 0 && f->lamduh < 1e300))
    return tsr_ctx_error(c, a->at[P_LAMDUH], TSR_ERR_VALUE,
                         "lamduh must be finite and >= 0, got %g", f->lamduh);
  if (a->given[P_L1_RATIO]) TSR_CHECK(tsr_arg_number(c, a, P_L1_RATIO, "l1_ratio", &f->l1_ratio));
  if (!(f->l1_ratio >= 0 && f->l1_ratio <= 1))
    return tsr_ctx_error(c, a->at[P_L1_RATIO], TSR_ERR_VALUE, "l1_ratio must be in [0, 1], got %g",
                         f->l1_ratio);
  if (a->given[P_INTERCEPT])
    TSR_CHECK(bool_arg(c, a, P_INTERCEPT, "fit_intercept", &f->fit_intercept));
  long long it = f->max_iter;
  if (a->given[P_MAX_ITER]) TSR_CHECK(tsr_arg_int(c, a, P_MAX_ITER, "max_iter", &it));
  if (it < 1 || it > 100000000)
    return tsr_ctx_error(c, a->at[P_MAX_ITER], TSR_ERR_VALUE,
                         "max_iter must be 1 or more, got %lld", it);
  f->max_iter = (int)it;
  if (a->given[P_TOL]) TSR_CHECK(tsr_arg_number(c, a, P_TOL, "tol", &f->tol));
  if (!(f->tol > 0 && f->tol < 1))
    return tsr_ctx_error(c, a->at[P_TOL], TSR_ERR_VALUE, "tol must be in (0, 1), got %g", f->tol);
  return TSR_OK;
}

/* X and y, checked against each other. */
static int fit_data(tsr_ctx *c, const tsr_op_def *def, tsr_args *a, tsr_node **x, tsr_node **y) {
  TSR_CHECK(tsr_arg_array(c, a, P_X, def->name, x));
  TSR_CHECK(tsr_arg_array(c, a, P_Y, def->name, y));
  const tsr_grid *gx = &(*x)->grid, *gy = &(*y)->grid;
  if (gx->ndim != 2)
    return tsr_ctx_error(c, a->at[P_X], TSR_ERR_SHAPE,
                         "X must be 2-d (samples x features), got %d dimensions", gx->ndim);
  if (gy->ndim != 1)
    return tsr_ctx_error(c, a->at[P_Y], TSR_ERR_SHAPE,
                         "y must be 1-d (one response per sample), got %d dimensions", gy->ndim);
  if (gx->shape[0] != gy->shape[0])
    return tsr_ctx_error(c, a->at[P_Y], TSR_ERR_SHAPE, "X has %lld samples (rows) but y has %lld",
                         (long long)gx->shape[0], (long long)gy->shape[0]);
  if (gx->shape[0] == 0 || gx->shape[1] == 0)
    return tsr_ctx_error(c, a->at[P_X], TSR_ERR_SHAPE, "X is empty (%lld x %lld)",
                         (long long)gx->shape[0], (long long)gx->shape[1]);
  return TSR_OK;
}

/* v on the row blocks of b rows (and its columns whole), held. */
static int on_blocks(tsr_node *v, int64_t b, const char *label, tsr_node **out) {
  const tsr_grid *g = &v->grid;
  int64_t chunk[2] = {b, g->ndim == 2 ? g->shape[1] : 1};
  tsr_grid want;
  TSR_CHECK(tsr_grid_init_regular(&want, g->ndim, g->shape, chunk));
  tsr_node *r;
  int st = tsr_node_rechunk(v, &want, &r);
  tsr_grid_free(&want);
  TSR_CHECK(st);
  if (tsr_node_kept(r)) {
    *out = r;
    return TSR_OK;
  }
  return tsr_node_persist(r, label, out);
}

int tsr_b_glm_fit(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a,
                  tsr_value *out) {
  tsr_node *x, *y, *xb, *yb, *o[2];
  tsr_fit spec, *fit;
  TSR_CHECK(fit_data(c, def, a, &x, &y));
  TSR_CHECK(fit_settings(c, call, def, a, &spec));
  spec.x_user = x;
  int64_t n = x->grid.shape[0], p = x->grid.shape[1], b = tsr_fit_block_rows(n, p);
  char lx[48], ly[48];
  snprintf(lx, sizeof lx, "X of the fit at %d:%d", call->line, call->col);
  snprintf(ly, sizeof ly, "y of the fit at %d:%d", call->line, call->col);
  TSR_CHECK(tsr_ctx_relocate(c, call, on_blocks(x, b, lx, &xb)));
  TSR_CHECK(tsr_ctx_relocate(c, call, on_blocks(y, b, ly, &yb)));
  TSR_CHECK(tsr_ctx_relocate(c, call, tsr_fit_new(&spec, &fit)));
  int64_t cs[1] = {p}, one[1] = {1};
  tsr_grid gc, gi;
  TSR_CHECK(tsr_grid_init_regular(&gc, 1, cs, cs));
  int st = tsr_grid_init_regular(&gi, 0, one, one);
  if (st == TSR_OK) st = tsr_node_fit(LA_GLM_COEF, xb, yb, fit, &gc, &o[0]);
  if (st == TSR_OK) st = tsr_node_fit(LA_GLM_INTERCEPT, xb, yb, fit, &gi, &o[1]);
  tsr_grid_free(&gc), tsr_grid_free(&gi);
  if (st == TSR_OK) st = tsr_group_add(o, 2);
  TSR_CHECK(tsr_ctx_relocate(c, call, st));
  memset(out, 0, sizeof *out);
  out->kind = V_TUPLE;
  out->nitems = 2;
  TSR_CHECK(tsr_ctx_alloc(c, sizeof(tsr_value) * 3, (void **)&out->items));
  for (int i = 0; i < 2; i++) tsr_set_array(&out->items[i], o[i]);
  return TSR_OK;
}

/* ---- predictions ----------------------------------------------------------- */

enum { Q_X, Q_COEF, Q_INTERCEPT, Q_FAMILY };

static int scalar(double v, tsr_node **out) {
  int64_t one[1] = {1};
  tsr_grid g;
  TSR_CHECK(tsr_grid_init_regular(&g, 0, one, one));
  int st = tsr_node_full(v, &g, TSR_F64, out);
  tsr_grid_free(&g);
  return st;
}

/* eta = X @ coef + intercept. */
static int linear_predictor(tsr_ctx *c, tsr_args *a, tsr_node **eta) {
  tsr_node *x, *coef, *b = NULL, *xc;
  TSR_CHECK(tsr_arg_array(c, a, Q_X, "predict", &x));
  TSR_CHECK(tsr_arg_array(c, a, Q_COEF, "predict", &coef));
  if (x->grid.ndim != 2)
    return tsr_ctx_error(c, a->at[Q_X], TSR_ERR_SHAPE, "X must be 2-d, got %d dimensions",
                         x->grid.ndim);
  if (coef->grid.ndim != 1 || coef->grid.shape[0] != x->grid.shape[1])
    return tsr_ctx_error(c, a->at[Q_COEF], TSR_ERR_SHAPE,
                         "coef must be 1-d with one value per column of X (%lld)",
                         (long long)x->grid.shape[1]);
  if (a->given[Q_INTERCEPT] && a->v[Q_INTERCEPT].kind != V_NONE) {
    TSR_CHECK(tsr_as_array(c, &a->v[Q_INTERCEPT], a->at[Q_INTERCEPT], TSR_F64, &b));
    if (b->grid.ndim != 0)
      return tsr_ctx_error(c, a->at[Q_INTERCEPT], TSR_ERR_SHAPE,
                           "intercept must be a number or a 0-d array");
  }
  /* X's columns in one chunk, so that each row block is one product */
  const int64_t *sizes[2] = {x->grid.sizes[0], &x->grid.shape[1]};
  int64_t nch[2] = {x->grid.nchunks[0], 1};
  tsr_grid g;
  TSR_CHECK(tsr_grid_init_lists(&g, 2, x->grid.shape, sizes, nch));
  int st = tsr_node_rechunk(x, &g, &xc);
  tsr_grid_free(&g);
  TSR_CHECK(st);
  int64_t rs[1] = {x->grid.shape[0]};
  const int64_t *rsz[1] = {x->grid.sizes[0]};
  int64_t rn[1] = {x->grid.nchunks[0]};
  TSR_CHECK(tsr_grid_init_lists(&g, 1, rs, rsz, rn));
  st = tsr_node_linalg(LA_MATMUL, xc, coef, 0, &g, TSR_F64, eta);
  tsr_grid_free(&g);
  TSR_CHECK(st);
  return b ? tsr_node_binary(EW_ADD, *eta, b, eta) : TSR_OK;
}

int tsr_b_glm_predict(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a,
                      tsr_value *out) {
  int family = TSR_GLM_LOGISTIC;
  if (a->given[Q_FAMILY])
    TSR_CHECK(name_arg(c, a, Q_FAMILY, "family", tsr_glm_families, TSR_GLM_NFAMILIES, &family));
  if (def->code == 1 && family != TSR_GLM_LOGISTIC)
    return tsr_ctx_error(c, a->at[Q_FAMILY], TSR_ERR_VALUE,
                         "predict_proba is for the logistic family; use predict for \"%s\"",
                         tsr_glm_families[family].name);
  tsr_node *eta, *r, *one, *zero;
  TSR_CHECK(linear_predictor(c, a, &eta));
  int st = TSR_OK;
  if (family == TSR_GLM_POISSON) {
    st = tsr_node_unary(EW_EXP, eta, &r);
  } else if (family == TSR_GLM_NORMAL) {
    r = eta;
  } else if (def->code == 0) { /* labels: 1 where the probability is over 1/2 */
    st = scalar(0.0, &zero);
    if (st == TSR_OK) st = tsr_node_binary(EW_GREATER, eta, zero, &r);
    if (st == TSR_OK) st = tsr_node_astype(r, eta->dtype, &r); /* labels 0.0 and 1.0 */
  } else {                                                     /* 1 / (1 + exp(-eta)) */
    st = tsr_node_unary(EW_NEG, eta, &r);
    if (st == TSR_OK) st = tsr_node_unary(EW_EXP, r, &r);
    if (st == TSR_OK) st = scalar(1.0, &one);
    if (st == TSR_OK) st = tsr_node_binary(EW_ADD, r, one, &r);
    if (st == TSR_OK) st = tsr_node_binary(EW_DIV, one, r, &r);
  }
  TSR_CHECK(tsr_ctx_relocate(c, call, st));
  tsr_set_array(out, r);
  return TSR_OK;
}
