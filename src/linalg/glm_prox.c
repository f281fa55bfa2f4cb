/*
 * glm_prox.c - the penalty of a GLM fit and the solvers that take any
 * penalty (glm.h): accelerated proximal gradient (FISTA with backtracking
 * and adaptive restart) and consensus ADMM over the row blocks.
 *
 * A warm start of proximal_grad (glm.h: tsr_glm_start) measures its
 * convergence scale as its cold start does, then runs from the given beta.
 *
 * The penalty is lam * (l1_ratio |beta|_1 + (1 - l1_ratio) |beta|^2 / 2)
 * over the p coefficients, never the intercept (l1: l1_ratio = 1, l2: 0,
 * none: lam = 0). Its proximal step soft-thresholds and then shrinks, so
 * L1 and elastic-net fits have exact zeros.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "linalg/glm.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi/agree.h"
#include "mpi/comm.h"
#include "util/error.h"

double tsr_glm_penalty(const tsr_glm_problem *pb, const double *beta) {
  if (pb->lam == 0) return 0;
  double l1 = 0, l2 = 0;
  for (int64_t j = 0; j < pb->p; j++) l1 += fabs(beta[j]), l2 += beta[j] * beta[j];
  return pb->lam * (pb->l1_ratio * l1 + (1 - pb->l1_ratio) * 0.5 * l2);
}

void tsr_glm_penalize(const tsr_glm_problem *pb, const double *beta, double *g, double *h) {
  int64_t p = pb->p, q = pb->q;
  double a = pb->lam * (1 - pb->l1_ratio); /* the smooth (L2) part */
  for (int64_t j = 0; j < p && a != 0; j++) {
    g[j] += a * beta[j];
    if (h) h[j * q + j] += a;
  }
  if (pb->fit->fit_intercept) return;
  g[p] = 0; /* the intercept stays 0: its row of the system is the identity's */
  for (int64_t j = 0; h && j < q; j++) h[p * q + j] = h[j * q + p] = j == p;
}

void tsr_glm_prox(const tsr_glm_problem *pb, double t, double *v) {
  double th = t * pb->lam * pb->l1_ratio, sh = 1 + t * pb->lam * (1 - pb->l1_ratio);
  for (int64_t j = 0; j < pb->p; j++) {
    double a = fabs(v[j]) - th;
    v[j] = a > 0 ? copysign(a, v[j]) / sh : 0.0;
  }
  if (!pb->fit->fit_intercept) v[pb->p] = 0;
}

/* The data part alone (loss and gradient, the intercept masked). */
static int data_part(const tsr_glm_problem *pb, const double *beta, int what, double *v) {
  tsr_glm_problem data = *pb;
  data.lam = 0;
  TSR_CHECK(tsr_glm_eval(pb->data, beta, what, v));
  if (what != TSR_GLM_LOSS) tsr_glm_penalize(&data, beta, v + 1, NULL);
  return TSR_OK;
}

/* ---- proximal gradient ------------------------------------------------- */

typedef struct fista {
  double *x, *y, *z, *vy, *vz;
} fista;

/* One backtracking step from y: z = prox(y - s g(y)) with s halved until
 * the quadratic model bounds the loss at z; *gmap = |y - z|_inf / s. */
static int prox_step(const tsr_glm_problem *pb, fista *f, double *s, double *gmap) {
  int64_t q = pb->q;
  TSR_CHECK(data_part(pb, f->y, TSR_GLM_GRAD, f->vy));
  for (int i = 0; i < 60; i++, *s *= 0.5) {
    for (int64_t j = 0; j < q; j++) f->z[j] = f->y[j] - *s * f->vy[1 + j];
    tsr_glm_prox(pb, *s, f->z);
    TSR_CHECK(data_part(pb, f->z, TSR_GLM_LOSS, f->vz));
    double lin = 0, sq = 0;
    for (int64_t j = 0; j < q; j++) {
      double dz = f->z[j] - f->y[j];
      lin += f->vy[1 + j] * dz, sq += dz * dz;
    }
    if (isfinite(f->vz[0]) && f->vz[0] <= f->vy[0] + lin + sq / (2 * *s) + 1e-13 * fabs(f->vy[0]))
      break;
  }
  double m = 0;
  for (int64_t j = 0; j < q; j++) m = fmax(m, fabs(f->y[j] - f->z[j]));
  *gmap = m / *s;
  return TSR_OK;
}

/* A warm start's convergence scale, that of its cold start: the cold
 * start's first step from y = 0 (s from 1), taken again, whose gradient map
 * depends on lamduh; then y = beta, the warm point, and the step the
 * smaller of that step's and the fit before's (FISTA's steps only shrink). */
static int warm_scale(const tsr_glm_problem *pb, fista *f, double *s, double *gscale) {
  double gmap = 0;
  TSR_CHECK(prox_step(pb, f, s, &gmap));
  *gscale = fmax(1.0, gmap);
  memcpy(f->y, f->x, sizeof(double) * (size_t)pb->q);
  if (tsr_glm_warm_step(pb) > 0) *s = fmin(*s, tsr_glm_warm_step(pb));
  return TSR_OK;
}

int tsr_glm_proximal_grad(const tsr_glm_problem *pb, double *beta, tsr_fit *fit, double *obj) {
  int64_t q = pb->q;
  fista f = {beta, NULL, NULL, NULL, NULL};
  f.y = calloc((size_t)q, sizeof(double)), f.z = calloc((size_t)q, sizeof(double));
  f.vy = malloc(sizeof(double) * (size_t)(q + 1)), f.vz = malloc(sizeof(double) * (size_t)(q + 1));
  int st = f.y && f.z && f.vy && f.vz ? TSR_OK : TSR_ERROR(TSR_ERR_MEMORY, "out of memory");
  double s = 1, tk = 1, gscale = 0, gmap = 0;
  int it = 0, warm = pb->start && pb->start->warm;
  fit->converged = 0;
  if (st == TSR_OK && warm) st = warm_scale(pb, &f, &s, &gscale);
  for (; st == TSR_OK && it < fit->max_iter; it++) {
    st = prox_step(pb, &f, &s, &gmap);
    if (st != TSR_OK) break;
    if (it == 0 && !warm) gscale = fmax(1.0, gmap);
    double restart = 0; /* momentum against the step: start the momentum again */
    for (int64_t j = 0; j < q; j++) restart += (f.y[j] - f.z[j]) * (f.z[j] - beta[j]);
    double t1 = (1 + sqrt(1 + 4 * tk * tk)) / 2, mom = restart > 0 ? 0 : (tk - 1) / t1;
    for (int64_t j = 0; j < q; j++) {
      f.y[j] = f.z[j] + mom * (f.z[j] - beta[j]);
      beta[j] = f.z[j];
    }
    tk = restart > 0 ? 1 : t1;
    if (gmap <= fit->tol * gscale) {
      fit->converged = 1;
      it++;
      break;
    }
  }
  fit->n_iter = it;
  tsr_glm_keep_step(pb, s);
  if (st == TSR_OK) st = data_part(pb, beta, TSR_GLM_LOSS, f.vz);
  *obj = st == TSR_OK ? f.vz[0] + tsr_glm_penalty(pb, beta) : 0;
  free(f.y), free(f.z), free(f.vy), free(f.vz);
  return st;
}

/* ---- ADMM ---------------------------------------------------------------- */

/* One of this rank's blocks in the local solves: minimize its loss plus
 * rho/2 |b - z + u|^2 by Newton with backtracking. */
typedef struct local {
  double *b, *u, *trial, *d, *out, *h;
  double phi, gd, t;
  int valid, active;
} local;

static double local_phi(int64_t q, double loss, const double *b, const double *z, const double *u,
                        double rho) {
  double s = 0;
  for (int64_t j = 0; j < q; j++) s += (b[j] - z[j] + u[j]) * (b[j] - z[j] + u[j]);
  return loss + 0.5 * rho * s;
}

/* The gradient and Hessian of the local objective at trial, in out. */
static void local_derivs(const tsr_glm_problem *pb, local *l, const double *z, double rho) {
  int64_t q = pb->q;
  double *g = l->out + 1, *h = l->out + 1 + q;
  for (int64_t j = 0; j < q; j++) {
    g[j] += rho * (l->trial[j] - z[j] + l->u[j]);
    h[j * q + j] += rho;
  }
  tsr_glm_problem data = *pb;
  data.lam = 0;
  tsr_glm_penalize(&data, l->trial, g, h);
}

/* Advances one block after a pass at its trial point. */
static void local_advance(const tsr_glm_problem *pb, local *l, const double *z, double rho) {
  int64_t q = pb->q;
  double phi = local_phi(q, l->out[0], l->trial, z, l->u, rho);
  if (l->valid && !(isfinite(phi) && phi <= l->phi + 1e-4 * l->t * l->gd + 1e-13 * fabs(l->phi))) {
    l->t *= 0.5; /* rejected: a shorter step */
    for (int64_t j = 0; j < q; j++) l->trial[j] = l->b[j] + l->t * l->d[j];
    if (l->t < 1e-12) l->active = 0;
    return;
  }
  memcpy(l->b, l->trial, sizeof(double) * (size_t)q);
  l->phi = phi, l->valid = 1;
  local_derivs(pb, l, z, rho);
  memcpy(l->h, l->out + 1 + q, sizeof(double) * (size_t)(q * q));
  if (tsr_glm_newton_step(q, l->h, l->out + 1, l->d)) {
    l->active = 0; /* rho I makes it definite; only NaN data gets here */
    return;
  }
  l->gd = tsr_glm_dot(q, l->out + 1, l->d);
  l->t = 1;
  for (int64_t j = 0; j < q; j++) l->trial[j] = l->b[j] + l->d[j];
  if (tsr_glm_inf_norm(q, l->d) <= 1e-14 * (1 + tsr_glm_inf_norm(q, l->b)))
    l->active = 0; /* converged */
}

/* The local solves of one ADMM iteration: rounds of one pass over this
 * rank's blocks, each block at its own trial point. Collective only in
 * that every rank runs the same number of rounds. */
static int local_solves(const tsr_glm_problem *pb, local *ls, double *const *trials,
                        double *const *outs, const double *z, double rho) {
  tsr_glm_data *d = pb->data;
  for (int64_t k = 0; k < d->nmine; k++) {
    ls[k].valid = 0, ls[k].active = 1;
    memcpy(ls[k].trial, ls[k].b, sizeof(double) * (size_t)pb->q);
  }
  for (int round = 0; round < 50; round++) {
    int mine = 0, any;
    for (int64_t k = 0; k < d->nmine; k++) mine |= ls[k].active;
    TSR_CHECK(tsr_comm_max_int(mine, &any));
    if (!any) break;
    d->passes++; /* a pass over the blocks still moving, counted alike on every rank */
    TSR_CHECK(tsr_agree(mine ? tsr_glm_eval_mine(d, trials, TSR_GLM_HESS, outs) : TSR_OK));
    for (int64_t k = 0; k < d->nmine; k++)
      if (ls[k].active)
        local_advance(pb, &ls[k], z, rho);
      else
        memcpy(ls[k].trial, ls[k].b, sizeof(double) * (size_t)pb->q);
  }
  return TSR_OK;
}

/* ADMM's state: this rank's blocks, the consensus z and the gathered
 * [b_k, u_k] of every block. */
typedef struct admm {
  local *ls;
  double **trials, **outs, *z, *zold, *all, *mean;
  double rho;
} admm;

static int admm_alloc(const tsr_glm_problem *pb, admm *a) {
  tsr_glm_data *d = pb->data;
  int64_t q = pb->q, len = tsr_glm_out_len(pb->p, TSR_GLM_HESS), m = d->nmine + 1;
  a->ls = calloc((size_t)m, sizeof(local));
  a->trials = calloc((size_t)m, sizeof(double *)), a->outs = calloc((size_t)m, sizeof(double *));
  a->z = calloc((size_t)q, sizeof(double)), a->zold = calloc((size_t)q, sizeof(double));
  a->mean = calloc((size_t)q, sizeof(double));
  a->all = calloc((size_t)(2 * q * d->nb + 1), sizeof(double));
  int ok = a->ls && a->trials && a->outs && a->z && a->zold && a->mean && a->all;
  for (int64_t k = 0; ok && k < d->nmine; k++) {
    local *l = &a->ls[k];
    l->b = calloc((size_t)q, sizeof(double)), l->u = calloc((size_t)q, sizeof(double));
    l->trial = calloc((size_t)q, sizeof(double)), l->d = calloc((size_t)q, sizeof(double));
    l->out = malloc(sizeof(double) * (size_t)len), l->h = malloc(sizeof(double) * (size_t)(q * q));
    ok = l->b && l->u && l->trial && l->d && l->out && l->h;
    a->trials[k] = l->trial, a->outs[k] = l->out;
  }
  return ok ? TSR_OK : TSR_ERROR(TSR_ERR_MEMORY, "out of memory for ADMM");
}

static void admm_free(const tsr_glm_data *d, admm *a) {
  for (int64_t k = 0; a->ls && k < d->nmine; k++) {
    local *l = &a->ls[k];
    free(l->b), free(l->u), free(l->trial), free(l->d), free(l->out), free(l->h);
  }
  free(a->ls), free(a->trials), free(a->outs), free(a->z), free(a->zold), free(a->mean);
  free(a->all);
}

/* z = prox of the penalty over the mean of b_k + u_k (every block, in block
 * order); the residuals of this iteration into r (primal) and s (dual), and
 * the scales of their tolerances. Collective. */
static int admm_consensus(const tsr_glm_problem *pb, admm *a, double *r, double *s, double *eps_r,
                          double *eps_s) {
  tsr_glm_data *d = pb->data;
  int64_t q = pb->q, nb = d->nb;
  for (int64_t k = 0; k < d->nmine; k++) {
    double *rec = a->all + (d->ex->rank + k * d->ex->size) * 2 * q;
    memcpy(rec, a->ls[k].b, sizeof(double) * (size_t)q);
    memcpy(rec + q, a->ls[k].u, sizeof(double) * (size_t)q);
  }
  TSR_CHECK(tsr_glm_gather(d, 2 * q, a->all));
  memcpy(a->zold, a->z, sizeof(double) * (size_t)q);
  memset(a->mean, 0, sizeof(double) * (size_t)q);
  for (int64_t b = 0; b < nb; b++)
    for (int64_t j = 0; j < q; j++) a->mean[j] += a->all[b * 2 * q + j] + a->all[b * 2 * q + q + j];
  for (int64_t j = 0; j < q; j++) a->z[j] = a->mean[j] / (double)nb;
  tsr_glm_prox(pb, 1.0 / (a->rho * (double)nb), a->z);
  double rr = 0, bb = 0, uu = 0, dz = 0, zz = 0;
  for (int64_t b = 0; b < nb; b++)
    for (int64_t j = 0; j < q; j++) {
      double bj = a->all[b * 2 * q + j], uj = a->all[b * 2 * q + q + j] + bj - a->z[j];
      rr += (bj - a->z[j]) * (bj - a->z[j]), bb += bj * bj, uu += uj * uj;
    }
  for (int64_t j = 0; j < q; j++)
    dz += (a->z[j] - a->zold[j]) * (a->z[j] - a->zold[j]), zz += a->z[j] * a->z[j];
  *r = sqrt(rr);
  *s = a->rho * sqrt((double)nb * dz);
  *eps_r = fmax(1.0, fmax(sqrt(bb), sqrt((double)nb * zz)));
  *eps_s = fmax(1.0, a->rho * sqrt(uu));
  return TSR_OK;
}

int tsr_glm_admm(const tsr_glm_problem *pb, double *beta, tsr_fit *fit, double *obj) {
  tsr_glm_data *d = pb->data;
  int64_t q = pb->q;
  admm a = {0};
  /* rho starts at the loss's curvature scale of a block (a quarter of its
   * rows: the logistic weight at eta = 0) and follows residual balancing */
  a.rho = fmax(1.0, 0.25 * (double)d->n / (double)d->nb);
  int st = tsr_agree(admm_alloc(pb, &a)), it = 0;
  fit->converged = 0;
  for (; st == TSR_OK && it < fit->max_iter; it++) {
    st = local_solves(pb, a.ls, a.trials, a.outs, a.z, a.rho);
    double r, s, er, es;
    if (st == TSR_OK) st = admm_consensus(pb, &a, &r, &s, &er, &es);
    if (st != TSR_OK) break;
    for (int64_t k = 0; k < d->nmine; k++)
      for (int64_t j = 0; j < q; j++) a.ls[k].u[j] += a.ls[k].b[j] - a.z[j];
    if (r <= fit->tol * er && s <= fit->tol * es) {
      fit->converged = 1;
      it++;
      break;
    }
    /* residual balancing, for the first iterations only: changing rho
     * later keeps the residuals from settling */
    double f = it >= 100 ? 1 : r > 10 * s ? 2 : s > 10 * r ? 0.5 : 1;
    a.rho *= f;
    for (int64_t k = 0; k < d->nmine && f != 1; k++)
      for (int64_t j = 0; j < q; j++) a.ls[k].u[j] /= f;
  }
  fit->n_iter = it;
  memcpy(beta, a.z, sizeof(double) * (size_t)q);
  double *v = malloc(sizeof(double) * 2);
  if (st == TSR_OK)
    st = v ? data_part(pb, beta, TSR_GLM_LOSS, v) : TSR_ERROR(TSR_ERR_MEMORY, "out of memory");
  *obj = st == TSR_OK ? v[0] + tsr_glm_penalty(pb, beta) : 0;
  free(v);
  admm_free(d, &a);
  return st;
}
