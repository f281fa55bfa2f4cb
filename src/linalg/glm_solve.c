/*
 * glm_solve.c - the smooth solvers of a GLM fit (glm.h): Newton (IRLS with
 * a backtracking line search), L-BFGS and gradient descent. Each iterate
 * costs one data pass (a rejected line-search step one more); the
 * p-dimensional algebra runs on every rank on the same replicated values,
 * so every rank takes the same steps.
 *
 * Convergence, for every smooth solver: the largest entry of the
 * objective's gradient at most tol times its largest entry at beta = 0 (at
 * least 1), a scale-free test that does not depend on how the loss is
 * summed. A warm start (glm.h: tsr_glm_start) keeps that test and takes its
 * first step at the scale of the fit before it (L-BFGS: H0 = gamma I of
 * that fit's newest pair; gradient descent: its last step).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "linalg/glm.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mpi/agree.h"
#include "util/error.h"

#define ARMIJO 1e-4
#define MAX_HALVINGS 50
#define LBFGS_PAIRS 10

/* The objective at beta into v: v[0] = F, then (for GRAD, HESS) its
 * gradient (q) and (HESS) Hessian (q x q). Collective. */
static int objective(const tsr_glm_problem *pb, const double *beta, int what, double *v) {
  TSR_CHECK(tsr_glm_eval(pb->data, beta, what, v));
  v[0] += tsr_glm_penalty(pb, beta);
  if (what != TSR_GLM_LOSS)
    tsr_glm_penalize(pb, beta, v + 1, what == TSR_GLM_HESS ? v + 1 + pb->q : NULL);
  return TSR_OK;
}

/* Whether F went down enough from f along a step t d with g.d = gd; the
 * last term forgives rounding of a sum of many losses near the optimum. */
static int sufficient(double f_new, double f, double t, double gd) {
  return isfinite(f_new) && f_new <= f + ARMIJO * t * gd + 1e-13 * fabs(f);
}

int tsr_glm_newton_step(int64_t q, double *h, const double *g, double *d) {
  for (int64_t j = 0; j < q; j++) { /* h = L L^T, L in the lower triangle */
    double s = h[j * q + j];
    for (int64_t k = 0; k < j; k++) s -= h[j * q + k] * h[j * q + k];
    if (!(s > 1e-13 * h[j * q + j])) /* relative: rounding leaves a tiny pivot */
      return 1;
    h[j * q + j] = sqrt(s);
    for (int64_t i = j + 1; i < q; i++) {
      double t = h[i * q + j];
      for (int64_t k = 0; k < j; k++) t -= h[i * q + k] * h[j * q + k];
      h[i * q + j] = t / h[j * q + j];
    }
  }
  for (int64_t i = 0; i < q; i++) { /* L z = -g */
    double s = -g[i];
    for (int64_t k = 0; k < i; k++) s -= h[i * q + k] * d[k];
    d[i] = s / h[i * q + i];
  }
  for (int64_t i = q - 1; i >= 0; i--) { /* L^T d = z */
    double s = d[i];
    for (int64_t k = i + 1; k < q; k++) s -= h[k * q + i] * d[k];
    d[i] = s / h[i * q + i];
  }
  return 0;
}

/* Scratch of a solver: the current and trial pass results, the trial point
 * and a direction. */
typedef struct work {
  double *v, *w, *trial, *d, *h;
} work;

static int work_alloc(work *k, int64_t q, int what) {
  size_t len = (size_t)(1 + q + (what == TSR_GLM_HESS ? q * q : 0));
  k->v = malloc(sizeof(double) * len);
  k->w = malloc(sizeof(double) * len);
  k->trial = malloc(sizeof(double) * (size_t)q);
  k->d = malloc(sizeof(double) * (size_t)q);
  k->h = what == TSR_GLM_HESS ? malloc(sizeof(double) * (size_t)(q * q)) : NULL;
  if (k->v && k->w && k->trial && k->d && (k->h || what != TSR_GLM_HESS)) return TSR_OK;
  return TSR_ERROR(TSR_ERR_MEMORY, "out of memory for a solver");
}

static void work_free(work *k) { free(k->v), free(k->w), free(k->trial), free(k->d), free(k->h); }

/* Backtracking along d from beta (objective v, slope gd = g.d) starting
 * at step t: on success beta and v are the accepted point's, *t its step.
 * *ok = 0 when no step of MAX_HALVINGS halvings went down. */
static int line_search(const tsr_glm_problem *pb, int what, double *beta, work *k, double gd,
                       double *t, int *ok) {
  int64_t q = pb->q;
  *ok = 0;
  for (int i = 0; i < MAX_HALVINGS && !*ok; i++, *t *= 0.5) {
    for (int64_t j = 0; j < q; j++) k->trial[j] = beta[j] + *t * k->d[j];
    TSR_CHECK(objective(pb, k->trial, what, k->w));
    *ok = sufficient(k->w[0], k->v[0], *t, gd);
    if (*ok) break;
  }
  if (!*ok) return TSR_OK;
  memcpy(beta, k->trial, sizeof(double) * (size_t)q);
  double *s = k->v;
  k->v = k->w, k->w = s;
  return TSR_OK;
}

/* The objective at the starting beta into k->v (while *st is TSR_OK), and
 * the scale of the convergence test: the largest gradient entry at beta = 0
 * (at least 1), measured there by a cold start (and kept in pb->start for
 * the warm starts after it), carried over by a warm one (glm.h). */
static double start(const tsr_glm_problem *pb, const double *beta, int what, work *k, int *st,
                    tsr_fit *fit) {
  fit->converged = 0;
  if (*st == TSR_OK) *st = objective(pb, beta, what, k->v);
  if (*st != TSR_OK) return 1;
  tsr_glm_start *w = pb->start;
  if (w && w->warm) return w->scale;
  double scale = fmax(1.0, tsr_glm_inf_norm(pb->q, k->v + 1));
  if (w) w->scale = scale;
  return scale;
}

/* Whether a smooth solver stops before iteration it: converged (recorded
 * in fit), out of iterations, or its last line search found no step. */
static int stop_before(const work *k, int64_t q, double gscale, int it, int ok, tsr_fit *fit) {
  fit->converged = tsr_glm_inf_norm(q, k->v + 1) <= fit->tol * gscale;
  return fit->converged || it >= fit->max_iter || !ok;
}

int tsr_glm_newton(const tsr_glm_problem *pb, double *beta, tsr_fit *fit, double *obj) {
  int64_t q = pb->q;
  work k;
  int st = work_alloc(&k, q, TSR_GLM_HESS), it = 0, ok = 1;
  double gscale = start(pb, beta, TSR_GLM_HESS, &k, &st, fit);
  for (; st == TSR_OK && !stop_before(&k, q, gscale, it, ok, fit); it++) {
    memcpy(k.h, k.v + 1 + q, sizeof(double) * (size_t)(q * q));
    if (tsr_glm_newton_step(q, k.h, k.v + 1, k.d)) {
      /* the small algebra is replicated: every rank finds it, the same */
      st = tsr_agreed(
          TSR_ERROR(TSR_ERR_VALUE,
                    "%s: the Hessian is singular at iteration %d (linearly dependent columns "
                    "of X, or data a hyperplane separates): add a penalty (regularizer=\"l2\")",
                    fit->label, it + 1));
      break;
    }
    double t = 1;
    st = line_search(pb, TSR_GLM_HESS, beta, &k, tsr_glm_dot(q, k.v + 1, k.d), &t, &ok);
  }
  fit->n_iter = it;
  *obj = k.v ? k.v[0] : 0;
  work_free(&k);
  return st;
}

/* d = -H g by the two-loop recursion over the stored pairs (s, y), oldest
 * first in ring order from head; H0 = (s.y / y.y) I of the newest pair. */
static void two_loop(int64_t q, int m, int head, double *const *s, double *const *y,
                     const double *rho, const double *g, double *d) {
  double alpha[LBFGS_PAIRS];
  for (int64_t j = 0; j < q; j++) d[j] = -g[j];
  for (int i = m - 1; i >= 0; i--) {
    int r = (head + i) % LBFGS_PAIRS;
    alpha[i] = rho[r] * tsr_glm_dot(q, s[r], d);
    for (int64_t j = 0; j < q; j++) d[j] -= alpha[i] * y[r][j];
  }
  int newest = (head + m - 1) % LBFGS_PAIRS;
  double gamma = 1.0 / (rho[newest] * tsr_glm_dot(q, y[newest], y[newest]));
  for (int64_t j = 0; j < q; j++) d[j] *= gamma;
  for (int i = 0; i < m; i++) {
    int r = (head + i) % LBFGS_PAIRS;
    double b = rho[r] * tsr_glm_dot(q, y[r], d);
    for (int64_t j = 0; j < q; j++) d[j] += (alpha[i] - b) * s[r][j];
  }
}

/* The steepest-descent direction scaled to unit length (first steps). */
static void unit_descent(int64_t q, const double *g, double *d) {
  double n = sqrt(tsr_glm_dot(q, g, g));
  for (int64_t j = 0; j < q; j++) d[j] = -g[j] / (n > 0 ? n : 1);
}

int tsr_glm_lbfgs(const tsr_glm_problem *pb, double *beta, tsr_fit *fit, double *obj) {
  int64_t q = pb->q;
  work k;
  double *s[LBFGS_PAIRS] = {0}, *y[LBFGS_PAIRS] = {0}, rho[LBFGS_PAIRS], *g0 = NULL;
  int st = work_alloc(&k, q, TSR_GLM_GRAD), it = 0, ok = 1, m = 0, head = 0;
  for (int i = 0; i < LBFGS_PAIRS && st == TSR_OK; i++) {
    s[i] = malloc(sizeof(double) * (size_t)q), y[i] = malloc(sizeof(double) * (size_t)q);
    if (!s[i] || !y[i]) st = TSR_ERROR(TSR_ERR_MEMORY, "out of memory for L-BFGS");
  }
  if (st == TSR_OK && !(g0 = malloc(sizeof(double) * (size_t)q)))
    st = TSR_ERROR(TSR_ERR_MEMORY, "out of memory for L-BFGS");
  double gscale = start(pb, beta, TSR_GLM_GRAD, &k, &st, fit);
  for (; st == TSR_OK && !stop_before(&k, q, gscale, it, ok, fit); it++) {
    if (m > 0) two_loop(q, m, head, s, y, rho, k.v + 1, k.d);
    if (it == 0 && tsr_glm_warm_step(pb) > 0) /* H0 = gamma I of the fit before */
      for (int64_t j = 0; j < q; j++) k.d[j] = -tsr_glm_warm_step(pb) * k.v[1 + j];
    else if (m == 0 || tsr_glm_dot(q, k.v + 1, k.d) >= 0)
      unit_descent(q, k.v + 1, k.d), m = 0;
    memcpy(g0, k.v + 1, sizeof(double) * (size_t)q);
    double t = 1;
    int slot = (head + m) % LBFGS_PAIRS;
    memcpy(s[slot], beta, sizeof(double) * (size_t)q); /* the old point, until s is known */
    st = line_search(pb, TSR_GLM_GRAD, beta, &k, tsr_glm_dot(q, k.v + 1, k.d), &t, &ok);
    if (st != TSR_OK || !ok) break;
    for (int64_t j = 0; j < q; j++)
      s[slot][j] = beta[j] - s[slot][j], y[slot][j] = k.v[1 + j] - g0[j];
    double sy = tsr_glm_dot(q, s[slot], y[slot]);
    if (!(sy > 1e-12 * sqrt(tsr_glm_dot(q, s[slot], s[slot]) * tsr_glm_dot(q, y[slot], y[slot]))))
      continue;
    rho[slot] = 1.0 / sy;
    if (m < LBFGS_PAIRS)
      m++;
    else
      head = (head + 1) % LBFGS_PAIRS;
  }
  fit->n_iter = it;
  *obj = k.v ? k.v[0] : 0;
  int newest = (head + m - 1) % LBFGS_PAIRS;
  if (m > 0) tsr_glm_keep_step(pb, 1.0 / (rho[newest] * tsr_glm_dot(q, y[newest], y[newest])));
  for (int i = 0; i < LBFGS_PAIRS; i++) free(s[i]), free(y[i]);
  free(g0);
  work_free(&k);
  return st;
}

/* Gradient descent: the first trial step of each iteration is
 * Barzilai-Borwein's s.s / s.y from the last step and gradient change
 * (1 / |g| at the start), then Armijo backtracking. */
int tsr_glm_gradient_descent(const tsr_glm_problem *pb, double *beta, tsr_fit *fit, double *obj) {
  int64_t q = pb->q;
  work k;
  int st = work_alloc(&k, q, TSR_GLM_GRAD), it = 0, ok = 1;
  double *g0 = malloc(sizeof(double) * (size_t)q);
  if (st == TSR_OK && !g0) st = TSR_ERROR(TSR_ERR_MEMORY, "out of memory");
  double gscale = start(pb, beta, TSR_GLM_GRAD, &k, &st, fit), t = tsr_glm_warm_step(pb);
  for (; st == TSR_OK && !stop_before(&k, q, gscale, it, ok, fit); it++) {
    double gg = tsr_glm_dot(q, k.v + 1, k.v + 1);
    for (int64_t j = 0; j < q; j++) k.d[j] = -k.v[1 + j];
    memcpy(g0, k.v + 1, sizeof(double) * (size_t)q);
    t = t > 0 ? t : 1.0 / sqrt(gg);
    st = line_search(pb, TSR_GLM_GRAD, beta, &k, -gg, &t, &ok);
    if (st != TSR_OK || !ok) break;
    double ss = 0, sy = 0; /* s = -t g0, y = g - g0 */
    for (int64_t j = 0; j < q; j++) {
      double s = -t * g0[j], y = k.v[1 + j] - g0[j];
      ss += s * s, sy += s * y;
    }
    t = sy > 0 ? ss / sy : 2 * t;
  }
  fit->n_iter = it;
  *obj = k.v ? k.v[0] : 0;
  tsr_glm_keep_step(pb, t);
  free(g0);
  work_free(&k);
  return st;
}
