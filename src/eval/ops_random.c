/*
 * ops_random.c - NumPy's continuous distributions beyond normal and uniform
 * (standard_normal, standard_exponential, exponential, lognormal, laplace,
 * logistic, gumbel, rayleigh, weibull, pareto) as transforms of one
 * Philox-keyed array: inverse distribution functions of the uniform on
 * (0, 1], or of the normal for lognormal. geometric and choice are
 * transforms too; integers/randint, poisson, binomial, gamma and its
 * relatives, beta and standard_t are random nodes of their own kinds, whose
 * elements each draw a Philox sequence (kernel/rngdist.h). An element depends only on the
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

/* ---- discrete generators and those of several variates per element --------- */

/* Argument positions of a generator's line (ops.c): nparams numbers first,
 * then shape, chunks, seed, dtype, size, except where gamma's own `shape`
 * parameter leaves the array's shape to size= (and choice, NumPy's order). */
typedef struct gen_def {
  int nparams, nreq;
  double p0, p1;
  int ishape, isize, ichunks, iseed, idtype;
  int integer; /* int64 unless dtype= says otherwise */
} gen_def;

#define GEN_STD(np, req, d0, d1, integer) \
  { np, req, d0, d1, np, np + 4, np + 1, np + 2, np + 3, integer }
static const gen_def gens[] = {
    [TSR_GEN_INTEGERS] = GEN_STD(2, 1, 0.0, 0.0, 1),
    [TSR_GEN_RANDINT] = GEN_STD(2, 1, 0.0, 0.0, 1),
    [TSR_GEN_POISSON] = GEN_STD(1, 0, 1.0, 0.0, 1),
    [TSR_GEN_BINOMIAL] = GEN_STD(2, 2, 0.0, 0.0, 1),
    [TSR_GEN_GEOMETRIC] = GEN_STD(1, 1, 0.0, 0.0, 1),
    [TSR_GEN_GAMMA] = {2, 1, 0.0, 1.0, -1, 2, 3, 4, 5, 0},
    [TSR_GEN_STANDARD_GAMMA] = {1, 1, 0.0, 0.0, -1, 1, 2, 3, 4, 0},
    [TSR_GEN_BETA] = GEN_STD(2, 2, 0.0, 0.0, 0),
    [TSR_GEN_CHISQUARE] = GEN_STD(1, 1, 0.0, 0.0, 0),
    [TSR_GEN_STANDARD_T] = GEN_STD(1, 1, 0.0, 0.0, 0),
    [TSR_GEN_CHOICE] = {0, 0, 0.0, 0.0, 7, 1, 4, 5, 6, 0},
};

/* Most entries of choice's a and p. */
enum { CHOICE_MAX = 64 };

static int param_error(tsr_ctx *c, const tsr_op_def *def, tsr_args *a, int i, const char *what,
                       double v) {
  return tsr_ctx_error(c, a->at[i] ? a->at[i] : NULL, TSR_ERR_VALUE, "%s: %s must be %s, got %g",
                       def->name, def->params[i], what, v);
}

static int is_int(double v) { return isfinite(v) && floor(v) == v; }

/* Bad parameters, one error each, before any node exists. */
static int check_gen_params(tsr_ctx *c, const tsr_op_def *def, tsr_args *a, double *p) {
  switch (def->code) {
  case TSR_GEN_INTEGERS:
  case TSR_GEN_RANDINT:
    for (int i = 0; i < 2; i++)
      if (!is_int(p[i]) || fabs(p[i]) > 0x1p53)
        return param_error(c, def, a, a->given[i] ? i : 0, "an integer of at most 2**53", p[i]);
    if (!(p[1] > p[0]))
      return tsr_ctx_error(c, a->at[0], TSR_ERR_VALUE, "%s: low >= high (%g >= %g)", def->name,
                           p[0], p[1]);
    if (p[1] - p[0] > 0x1p53)
      return tsr_ctx_error(c, a->at[0], TSR_ERR_VALUE,
                           "%s: high - low must be at most 2**53, got %g", def->name, p[1] - p[0]);
    return TSR_OK;
  case TSR_GEN_POISSON:
    if (!(p[0] >= 0 && p[0] <= 1e15)) return param_error(c, def, a, 0, "in [0, 1e15]", p[0]);
    return TSR_OK;
  case TSR_GEN_BINOMIAL:
    if (!is_int(p[0]) || p[0] < 0 || p[0] > 0x1p53)
      return param_error(c, def, a, 0, "a non-negative integer", p[0]);
    if (!(p[1] >= 0 && p[1] <= 1)) return param_error(c, def, a, 1, "in [0, 1]", p[1]);
    return TSR_OK;
  case TSR_GEN_GEOMETRIC:
    if (!(p[0] > 0 && p[0] <= 1)) return param_error(c, def, a, 0, "in (0, 1]", p[0]);
    return TSR_OK;
  case TSR_GEN_GAMMA:
  case TSR_GEN_STANDARD_GAMMA:
    if (!(p[0] > 0 && isfinite(p[0]))) return param_error(c, def, a, 0, "positive", p[0]);
    if (def->code == TSR_GEN_GAMMA && !(p[1] >= 0 && isfinite(p[1])))
      return param_error(c, def, a, 1, "non-negative", p[1]);
    return TSR_OK;
  case TSR_GEN_BETA:
    for (int i = 0; i < 2; i++)
      if (!(p[i] > 0 && isfinite(p[i]))) return param_error(c, def, a, i, "positive", p[i]);
    return TSR_OK;
  case TSR_GEN_CHISQUARE:
  case TSR_GEN_STANDARD_T:
    if (!(p[0] > 0 && isfinite(p[0]))) return param_error(c, def, a, 0, "positive", p[0]);
    return TSR_OK;
  }
  return TSR_OK;
}

/* The random node of a generator other than geometric and choice. */
static int gen_node(int code, const double *p, uint64_t key, uint32_t stream, const tsr_grid *g,
                    tsr_dtype dt, tsr_node **out) {
  switch (code) {
  case TSR_GEN_INTEGERS:
  case TSR_GEN_RANDINT:
    return tsr_node_random(RNG_INTEGERS, p[0], p[1], key, stream, g, dt, out);
  case TSR_GEN_POISSON:
    return tsr_node_random(RNG_POISSON, p[0], 0.0, key, stream, g, dt, out);
  case TSR_GEN_BINOMIAL:
    return tsr_node_random(RNG_BINOMIAL, p[0], p[1], key, stream, g, dt, out);
  case TSR_GEN_GAMMA:
    return tsr_node_random(RNG_GAMMA, p[0], p[1], key, stream, g, dt, out);
  case TSR_GEN_STANDARD_GAMMA:
    return tsr_node_random(RNG_GAMMA, p[0], 1.0, key, stream, g, dt, out);
  case TSR_GEN_BETA:
    return tsr_node_random(RNG_BETA, p[0], p[1], key, stream, g, dt, out);
  case TSR_GEN_CHISQUARE: /* 2 Gamma(df / 2) */
    return tsr_node_random(RNG_GAMMA, 0.5 * p[0], 2.0, key, stream, g, dt, out);
  case TSR_GEN_STANDARD_T:
    return tsr_node_random(RNG_STUDENT_T, p[0], 0.0, key, stream, g, dt, out);
  }
  return TSR_ERROR(TSR_ERR_INTERNAL, "generator %d has no random node", code);
}

/* geometric(p): ceil(-log(u) / -log1p(-p)), at least 1 (u = 1 gives 0;
 * p = 1 divides by infinity). */
static int geometric_node(double p, uint64_t key, uint32_t stream, const tsr_grid *g,
                          tsr_node **out) {
  tsr_node *u, *e, *x;
  TSR_CHECK(tsr_node_random(RNG_UNIFORM, 0.0, 1.0, key, stream, g, TSR_F64, &u));
  TSR_CHECK(minus_log(u, &e));
  TSR_CHECK(tsr_node_op_number(EW_DIV, e, -log1p(-p), &x));
  TSR_CHECK(tsr_node_unary(EW_CEIL, x, &x));
  return tsr_node_op_number(EW_MAX, x, 1.0, out);
}

/* choice's a (an int n: range(n), or a tuple of numbers) and p, checked:
 * *k entries, their values in v (NULL for range(n)), the cumulative
 * probabilities in cdf (NULL without p). */
typedef struct choice_args {
  int64_t k;
  double v[CHOICE_MAX], cdf[CHOICE_MAX];
  int values, weighted, all_int;
} choice_args;

static int choice_parse(tsr_ctx *c, const tsr_op_def *def, tsr_args *a, choice_args *ch) {
  const tsr_value *av = &a->v[0];
  ch->values = 0;
  ch->all_int = 1;
  if (av->kind == V_INT) {
    ch->k = av->i;
    if (ch->k < 1 || (double)ch->k > 0x1p53)
      return tsr_ctx_error(c, a->at[0], TSR_ERR_VALUE,
                           "%s: a must be positive (range(a)), got %lld", def->name, av->i);
  } else if (av->kind == V_TUPLE) {
    ch->k = av->nitems;
    ch->values = 1;
    if (ch->k < 1 || ch->k > CHOICE_MAX)
      return tsr_ctx_error(c, a->at[0], TSR_ERR_VALUE, "%s: a must have 1 to %d entries, got %lld",
                           def->name, CHOICE_MAX, (long long)ch->k);
    for (int64_t i = 0; i < ch->k; i++) {
      if (!tsr_value_is_number(&av->items[i]))
        return tsr_ctx_error(c, a->at[0], TSR_ERR_TYPE, "%s: a's entries must be numbers, got %s",
                             def->name, tsr_value_type_name(&av->items[i]));
      ch->v[i] = tsr_value_number(&av->items[i]);
      if (av->items[i].kind == V_FLOAT) ch->all_int = 0;
    }
  } else {
    return tsr_ctx_error(c, a->at[0], TSR_ERR_TYPE,
                         "%s: a must be an int or a tuple/list of numbers, got %s", def->name,
                         tsr_value_type_name(av));
  }
  if (a->given[2] && !((a->v[2].kind == V_BOOL || a->v[2].kind == V_INT) && a->v[2].i))
    return tsr_ctx_error(c, a->at[2], TSR_ERR_VALUE,
                         "%s: replace=False is not supported (sampling without replacement "
                         "couples the elements); use replace=True",
                         def->name);
  ch->weighted = a->given[3] && a->v[3].kind != V_NONE;
  if (!ch->weighted) return TSR_OK;
  const tsr_value *pv = &a->v[3];
  if (pv->kind != V_TUPLE || pv->nitems != ch->k)
    return tsr_ctx_error(c, a->at[3], TSR_ERR_VALUE,
                         "%s: p must be a tuple/list of %lld probabilities, one per entry of a",
                         def->name, (long long)ch->k);
  double sum = 0;
  int64_t last = 0;
  for (int64_t i = 0; i < ch->k; i++) {
    double q = tsr_value_is_number(&pv->items[i]) ? tsr_value_number(&pv->items[i]) : NAN;
    if (!(q >= 0 && q <= 1))
      return tsr_ctx_error(c, a->at[3], TSR_ERR_VALUE,
                           "%s: probabilities must be numbers in [0, 1], got entry %lld = %g",
                           def->name, (long long)i, q);
    sum += q;
    ch->cdf[i] = sum;
    if (q > 0) last = i;
  }
  if (!(fabs(sum - 1.0) <= 1.5e-8))
    return tsr_ctx_error(c, a->at[3], TSR_ERR_VALUE, "%s: probabilities do not sum to 1 (%.17g)",
                         def->name, sum);
  for (int64_t i = 0; i < ch->k; i++) ch->cdf[i] = i >= last ? 1.0 : ch->cdf[i] / sum;
  return TSR_OK;
}

/* The index: integers(0, k), or with p the number of cumulative
 * probabilities below a uniform u on (0, 1] (P(index >= j) = 1 - cdf[j-1]);
 * then a's entry: the sum of v[j] [index == j]. */
static int choice_node(const choice_args *ch, uint64_t key, uint32_t stream, const tsr_grid *g,
                       tsr_node **out) {
  tsr_node *idx, *x = NULL;
  if (!ch->weighted) {
    TSR_CHECK(tsr_node_random(RNG_INTEGERS, 0.0, (double)ch->k, key, stream, g, TSR_F64, &idx));
  } else {
    tsr_node *u, *t;
    TSR_CHECK(tsr_node_random(RNG_UNIFORM, 0.0, 1.0, key, stream, g, TSR_F64, &u));
    TSR_CHECK(tsr_node_op_number(EW_GREATER, u, ch->cdf[0], &idx));
    TSR_CHECK(tsr_node_astype(idx, TSR_F64, &idx));
    for (int64_t j = 1; j + 1 < ch->k; j++) {
      if (ch->cdf[j] >= 1.0) break;
      TSR_CHECK(tsr_node_op_number(EW_GREATER, u, ch->cdf[j], &t));
      TSR_CHECK(tsr_node_astype(t, TSR_F64, &t));
      TSR_CHECK(tsr_node_binary(EW_ADD, idx, t, &idx));
    }
  }
  if (!ch->values) {
    *out = idx;
    return TSR_OK;
  }
  for (int64_t j = 0; j < ch->k; j++) {
    tsr_node *ge, *gt, *eq;
    if (ch->weighted && j > 0 && ch->cdf[j - 1] >= 1.0) break; /* never drawn */
    TSR_CHECK(tsr_node_op_number(EW_GREATER, idx, (double)j - 0.5, &ge));
    TSR_CHECK(tsr_node_op_number(EW_GREATER, idx, (double)j + 0.5, &gt));
    TSR_CHECK(tsr_node_astype(ge, TSR_F64, &ge));
    TSR_CHECK(tsr_node_astype(gt, TSR_F64, &gt));
    TSR_CHECK(tsr_node_binary(EW_SUB, ge, gt, &eq));
    TSR_CHECK(tsr_node_op_number(EW_MUL, eq, ch->v[j], &eq));
    if (x)
      TSR_CHECK(tsr_node_binary(EW_ADD, x, eq, &x));
    else
      x = eq;
  }
  *out = x;
  return TSR_OK;
}

/* integers, randint, poisson, binomial, geometric, gamma, standard_gamma,
 * beta, chisquare, standard_t, choice: parameters, then the grid of
 * shape/size, chunks, dtype (int64 for the integer-valued ones), seed. */
int tsr_b_generator(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a,
                    tsr_value *out) {
  const gen_def *d = &gens[def->code];
  double p[2] = {d->p0, d->p1};
  for (int i = 0; i < d->nparams; i++)
    if (a->given[i] && a->v[i].kind != V_NONE)
      TSR_CHECK(tsr_arg_number(c, a, i, def->params[i], &p[i]));
  int integer = d->integer;
  choice_args ch;
  memset(&ch, 0, sizeof ch);
  if (def->code == TSR_GEN_INTEGERS || def->code == TSR_GEN_RANDINT) {
    if (!a->given[1] || a->v[1].kind == V_NONE) p[1] = p[0], p[0] = 0.0; /* integers(high) */
    if (def->code == TSR_GEN_INTEGERS && a->given[7]) {
      long long endpoint = 0;
      TSR_CHECK(tsr_arg_int(c, a, 7, "endpoint", &endpoint));
      if (endpoint) p[1] += 1.0;
    }
  }
  if (def->code == TSR_GEN_CHOICE) {
    TSR_CHECK(choice_parse(c, def, a, &ch));
    integer = !ch.values || ch.all_int;
  } else {
    TSR_CHECK(check_gen_params(c, def, a, p));
  }
  int is = d->ishape >= 0 && a->given[d->ishape] ? d->ishape : d->isize;
  if (!a->given[is] || a->v[is].kind == V_NONE)
    return tsr_ctx_error(c, call, TSR_ERR_VALUE, "%s: missing %s= argument", def->name,
                         d->ishape >= 0 ? "shape" : "size");
  int ndim = 0;
  int64_t shape[TSR_MAXDIM];
  tsr_dtype dt = integer ? TSR_I64 : TSR_F64;
  TSR_CHECK(tsr_arg_shape(c, a, is, &ndim, shape));
  if (a->given[d->idtype] && a->v[d->idtype].kind != V_NONE)
    TSR_CHECK(tsr_arg_dtype(c, a, d->idtype, &dt));
  tsr_grid g;
  TSR_CHECK(tsr_arg_chunks(c, a, d->ichunks, ndim, shape, dt, &g));
  uint32_t stream;
  tsr_node *x = NULL;
  int st = tsr_random_stream(c, a, d->iseed, &stream);
  if (st == TSR_OK) {
    uint64_t key = tsr_ctx_seed(c);
    if (def->code == TSR_GEN_GEOMETRIC)
      st = geometric_node(p[0], key, stream, &g, &x);
    else if (def->code == TSR_GEN_CHOICE)
      st = choice_node(&ch, key, stream, &g, &x);
    else
      st = gen_node(def->code, p, key, stream, &g, dt, &x);
  }
  tsr_grid_free(&g);
  if (st == TSR_OK && x->dtype != dt) st = tsr_node_astype(x, dt, &x);
  TSR_CHECK(tsr_ctx_relocate(c, call, st));
  tsr_set_array(out, x);
  return TSR_OK;
}
