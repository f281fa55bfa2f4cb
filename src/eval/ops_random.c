/*
 * ops_random.c - NumPy's continuous distributions beyond normal and uniform
 * (standard_normal, standard_exponential, exponential, lognormal, laplace,
 * logistic, gumbel, rayleigh, weibull, pareto) as transforms of one
 * Philox-keyed array: inverse distribution functions of the uniform on
 * (0, 1], or of the normal for lognormal. An element depends only on the
 * seed, the array's stream and its global index, like every random array
 * (DESIGN.md), so the values are the same for any chunking and rank count,
 * and slices are pushed into the generator. Table lines: ops.c.
 */
#include "eval/ops_random.h"

#include <math.h>
#include <string.h>

#include "eval/ops_array.h"
#include "util/error.h"

/* The distributions, by def->code; nparams: how many parameters precede
 * shape, and their defaults. */
typedef struct dist_def {
  int nparams;
  double p0, p1;
  int (*make)(tsr_node *u, double p0, double p1, tsr_node **out);
  int from_normal; /* u is normal(p0, p1) rather than uniform */
} dist_def;

/* ---- nodes from nodes ------------------------------------------------------ */

/* -log(u) as 0 - log(u): never -0.0 (u = 1 gives +0). */
static int minus_log(tsr_node *u, tsr_node **out) {
  tsr_node *l;
  TSR_CHECK(tsr_node_unary(EW_LOG, u, &l));
  return tsr_number_op_node(EW_SUB, 0.0, l, out);
}

/* loc + scale * x */
static int affine(tsr_node *x, double loc, double scale, tsr_node **out) {
  TSR_CHECK(tsr_node_op_number(EW_MUL, x, scale, &x));
  return tsr_number_op_node(EW_ADD, loc, x, out);
}

/* ---- the transforms -------------------------------------------------------- */

static int d_normal(tsr_node *z, double p0, double p1, tsr_node **out) {
  (void)p0, (void)p1;
  *out = z;
  return TSR_OK;
}

static int d_lognormal(tsr_node *z, double p0, double p1, tsr_node **out) {
  (void)p0, (void)p1;
  return tsr_node_unary(EW_EXP, z, out);
}

static int d_std_exponential(tsr_node *u, double p0, double p1, tsr_node **out) {
  (void)p0, (void)p1;
  return minus_log(u, out);
}

static int d_exponential(tsr_node *u, double scale, double p1, tsr_node **out) {
  (void)p1;
  tsr_node *e;
  TSR_CHECK(minus_log(u, &e));
  return tsr_node_op_number(EW_MUL, e, scale, out);
}

/* loc + scale * s * log(2 min(u, 1 - u)), s = 1 below 0.5 and -1 above:
 * the inverse of Laplace's distribution function (1 - u is exact there). */
static int d_laplace(tsr_node *u, double loc, double scale, tsr_node **out) {
  tsr_node *above, *s, *v, *m, *l, *x;
  TSR_CHECK(tsr_node_op_number(EW_GREATER, u, 0.5, &above));
  TSR_CHECK(tsr_node_astype(above, u->dtype, &above));
  TSR_CHECK(tsr_node_op_number(EW_MUL, above, 2.0, &s));
  TSR_CHECK(tsr_number_op_node(EW_SUB, 1.0, s, &s));
  TSR_CHECK(tsr_number_op_node(EW_SUB, 1.0, u, &v));
  TSR_CHECK(tsr_node_binary(EW_MIN, u, v, &m));
  TSR_CHECK(tsr_node_op_number(EW_MUL, m, 2.0, &m));
  TSR_CHECK(tsr_node_unary(EW_LOG, m, &l));
  TSR_CHECK(tsr_node_binary(EW_MUL, s, l, &x));
  return affine(x, loc, scale, out);
}

/* loc + scale * log(u / (1 - u)) */
static int d_logistic(tsr_node *u, double loc, double scale, tsr_node **out) {
  tsr_node *v, *q, *l;
  TSR_CHECK(tsr_number_op_node(EW_SUB, 1.0, u, &v));
  TSR_CHECK(tsr_node_binary(EW_DIV, u, v, &q));
  TSR_CHECK(tsr_node_unary(EW_LOG, q, &l));
  return affine(l, loc, scale, out);
}

/* loc - scale * log(-log(u)) */
static int d_gumbel(tsr_node *u, double loc, double scale, tsr_node **out) {
  tsr_node *e, *l;
  TSR_CHECK(minus_log(u, &e));
  TSR_CHECK(tsr_node_unary(EW_LOG, e, &l));
  return affine(l, loc, -scale, out);
}

/* scale * sqrt(-2 log(u)) */
static int d_rayleigh(tsr_node *u, double scale, double p1, tsr_node **out) {
  (void)p1;
  tsr_node *e, *r;
  TSR_CHECK(minus_log(u, &e));
  TSR_CHECK(tsr_node_op_number(EW_MUL, e, 2.0, &e));
  TSR_CHECK(tsr_node_unary(EW_SQRT, e, &r));
  return tsr_node_op_number(EW_MUL, r, scale, out);
}

/* (-log(u)) ** (1 / a) */
static int d_weibull(tsr_node *u, double a, double p1, tsr_node **out) {
  (void)p1;
  tsr_node *e;
  TSR_CHECK(minus_log(u, &e));
  return tsr_node_op_number(EW_POW, e, 1.0 / a, out);
}

/* exp(-log(u) / a) - 1 (NumPy's: exp(standard_exponential / a) - 1) */
static int d_pareto(tsr_node *u, double a, double p1, tsr_node **out) {
  (void)p1;
  tsr_node *e, *x;
  TSR_CHECK(minus_log(u, &e));
  TSR_CHECK(tsr_node_op_number(EW_DIV, e, a, &e));
  TSR_CHECK(tsr_node_unary(EW_EXP, e, &x));
  return tsr_node_op_number(EW_SUB, x, 1.0, out);
}

/* By def->code (ops_random.h). */
static const dist_def dists[] = {
    [TSR_DIST_STANDARD_NORMAL] = {0, 0.0, 1.0, d_normal, 1},
    [TSR_DIST_LOGNORMAL] = {2, 0.0, 1.0, d_lognormal, 1},
    [TSR_DIST_STANDARD_EXPONENTIAL] = {0, 0.0, 0.0, d_std_exponential, 0},
    [TSR_DIST_EXPONENTIAL] = {1, 1.0, 0.0, d_exponential, 0},
    [TSR_DIST_LAPLACE] = {2, 0.0, 1.0, d_laplace, 0},
    [TSR_DIST_LOGISTIC] = {2, 0.0, 1.0, d_logistic, 0},
    [TSR_DIST_GUMBEL] = {2, 0.0, 1.0, d_gumbel, 0},
    [TSR_DIST_RAYLEIGH] = {1, 1.0, 0.0, d_rayleigh, 0},
    [TSR_DIST_WEIBULL] = {1, 1.0, 0.0, d_weibull, 0},
    [TSR_DIST_PARETO] = {1, 1.0, 0.0, d_pareto, 0},
};

/* ---- the builtin ----------------------------------------------------------- */

/* The parameter that must be positive (or non-negative) and is not. */
static int check_params(tsr_ctx *c, const tsr_op_def *def, tsr_args *a, double p0, double p1) {
  int code = def->code;
  if ((code == TSR_DIST_WEIBULL || code == TSR_DIST_PARETO) && !(p0 > 0))
    return tsr_ctx_error(c, a->at[0], TSR_ERR_VALUE, "%s: a must be positive, got %g", def->name,
                         p0);
  int iscale = dists[code].nparams == 2 ? 1 : 0;
  double scale = iscale ? p1 : p0;
  if (code != TSR_DIST_WEIBULL && code != TSR_DIST_PARETO && dists[code].nparams && !(scale >= 0))
    return tsr_ctx_error(c, a->at[iscale], TSR_ERR_VALUE, "%s: %s must be non-negative, got %g",
                         def->name, def->params[iscale], scale);
  return TSR_OK;
}

/* Parameters, then shape, chunks, seed, dtype, size (def->params). */
int tsr_b_distribution(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a,
                       tsr_value *out) {
  const dist_def *d = &dists[def->code];
  double p[2] = {d->p0, d->p1};
  for (int i = 0; i < d->nparams; i++)
    if (a->given[i]) TSR_CHECK(tsr_arg_number(c, a, i, def->params[i], &p[i]));
  TSR_CHECK(check_params(c, def, a, p[0], p[1]));
  int k = d->nparams, ishape = a->given[k] ? k : k + 4;
  if (!a->given[ishape]) return tsr_ctx_error(c, call, TSR_ERR_VALUE, "missing shape= argument");
  int ndim = 0;
  int64_t shape[TSR_MAXDIM];
  tsr_dtype dt;
  TSR_CHECK(tsr_arg_shape(c, a, ishape, &ndim, shape));
  TSR_CHECK(tsr_arg_dtype(c, a, k + 3, &dt));
  tsr_grid g;
  TSR_CHECK(tsr_arg_chunks(c, a, k + 1, ndim, shape, dt, &g));
  uint32_t stream;
  tsr_node *u = NULL, *x = NULL;
  int st = tsr_random_stream(c, a, k + 2, &stream);
  double n0 = d->from_normal && d->nparams ? p[0] : 0.0,
         n1 = d->from_normal && d->nparams ? p[1] : 1.0;
  if (st == TSR_OK)
    st = tsr_node_random(d->from_normal ? RNG_NORMAL : RNG_UNIFORM, d->from_normal ? n0 : 0.0,
                         d->from_normal ? n1 : 1.0, tsr_ctx_seed(c), stream, &g, TSR_F64, &u);
  tsr_grid_free(&g);
  if (st == TSR_OK) st = d->make(u, p[0], p[1], &x);
  if (st == TSR_OK && dt != TSR_F64) st = tsr_node_astype(x, dt, &x);
  TSR_CHECK(tsr_ctx_relocate(c, call, st));
  tsr_set_array(out, x);
  return TSR_OK;
}
