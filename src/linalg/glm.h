/*
 * glm.h - GLM fits (logistic, linear, Poisson regression) over the row
 * blocks of X and y, for linalg.c, and what the solvers share.
 *
 * X reaches the fit on its canonical row blocks (graph/fit.h:
 * tsr_fit_block_rows), which depend only on X's shape: every data pass
 * computes per-block loss, gradient (and Hessian) partials with the
 * backend's glm_pass on the blocks this rank owns, in backend memory, and
 * the partials are gathered and summed in block order on every rank. So
 * the coefficients are bitwise identical for any rank count and any
 * chunking of X. The p-dimensional algebra (line searches, the Newton
 * solve, L-BFGS, proximal steps, the ADMM consensus) is replicated.
 */
#ifndef TSR_LINALG_GLM_H
#define TSR_LINALG_GLM_H

#include <math.h>

#include "exec/exec.h"
#include "graph/array.h"

/* Computes a fit's outputs (LA_GLM_COEF, LA_GLM_INTERCEPT: outs[0..n-1]);
 * their values are then replicated, and the fit's record (n_iter,
 * converged, objective) is set. Collective. */
int tsr_glm_compute(tsr_exec *ex, tsr_node *const *outs, int n);

/* ---- shared by glm.c, glm_data.c and the solvers ------------------------ */

/* The data of a fit on this rank. */
typedef struct tsr_glm_data {
  tsr_exec *ex;
  int family;
  int64_t p, q, n, nb; /* features, p + 1 (the intercept's slot, last), samples, blocks */
  const int64_t *rows; /* rows of each block */
  double **x, **y;     /* this rank's blocks in backend memory (NULL for the others) */
  int x_borrowed, y_borrowed;
  int64_t nmine;               /* how many blocks this rank owns (b = rank, rank + size, ...) */
  double *out;                 /* scratch: nmine results of the largest kind */
  double *all;                 /* scratch: nb results, in block order */
  int passes;                  /* data passes so far (the same count on every rank) */
  struct tsr_glm_batch *batch; /* a solver of a lambda path: its passes go there */
  int lane;                    /* and this is its lane of the path (glm_batch.c) */
} tsr_glm_data;

/* The sums over every block at beta (q values): out[0] the loss, then for
 * TSR_GLM_GRAD the gradient (q), for TSR_GLM_HESS also the Hessian (q x q),
 * summed in block order; the same bits on every rank. Collective (on a
 * path's lane: a request its serving thread makes collective). */
int tsr_glm_eval(tsr_glm_data *d, const double *beta, int what, double *out);

/* tsr_glm_eval at nbeta points in one pass over X: betas nbeta x q, outs
 * nbeta results; each point's results have the bits of tsr_glm_eval at it
 * alone. Collective. */
int tsr_glm_eval_many(tsr_glm_data *d, int64_t nbeta, const double *betas, int what, double *outs);

/* Each of this rank's blocks at its own point: betas[k] (q values) for the
 * k-th block of this rank, its results to outs[k]; no communication. */
int tsr_glm_eval_mine(tsr_glm_data *d, double *const *betas, int what, double *const *outs);

/* vecs (nb x len, block order): this rank's blocks' rows filled in, the
 * others' received; on return every rank has all. Collective. */
int tsr_glm_gather(tsr_glm_data *d, int64_t len, double *vecs);

/* Where a solver starts. Cold (no tsr_glm_start, or warm = 0): from beta =
 * 0, the scale of its convergence test measured there. Warm (a sweep's
 * --warm-start path, glm_batch.c): from the beta it is given, the previous
 * fit's solution, with the same convergence test as its cold start: the
 * smooth solvers' scale is the gradient's largest entry at beta = 0, the
 * same bits for every lamduh (the penalty's gradient is 0 there), so it is
 * carried over; proximal_grad's depends on lamduh, and a warm start takes
 * the cold start's first step from 0 again to measure it. */
typedef struct tsr_glm_start {
  int warm;     /* beta holds the previous fit's solution */
  double scale; /* smooth solvers: the scale at beta = 0 (a cold start sets it) */
  double step;  /* the previous fit's last step scale (L-BFGS's s.y / y.y, gradient
                   descent's Barzilai-Borwein step, FISTA's step), for the first
                   step; 0: none (a cold start's first step) */
} tsr_glm_start;

/* The objective's penalty and the fit's settings, for the solvers. */
typedef struct tsr_glm_problem {
  tsr_glm_data *data;
  const tsr_fit *fit;
  int64_t p, q;
  double lam, l1_ratio; /* lamduh, and the l1 share (elastic net) */
  tsr_glm_start *start; /* NULL: a cold start, and nothing recorded */
} tsr_glm_problem;

/* A warm start's first step scale (pb->start->step), else 0. */
static inline double tsr_glm_warm_step(const tsr_glm_problem *pb) {
  return pb->start && pb->start->warm ? pb->start->step : 0;
}
/* Keeps a fit's last step scale for the warm start after it. */
static inline void tsr_glm_keep_step(const tsr_glm_problem *pb, double step) {
  if (pb->start && isfinite(step) && step > 0) pb->start->step = step;
}

/* The penalty lam * R(beta) (beta's first p values). */
double tsr_glm_penalty(const tsr_glm_problem *pb, const double *beta);
/* Adds the smooth penalty's gradient (and its Hessian's diagonal to h, q x
 * q, when h is not NULL); zeroes the intercept's row when it is not fitted. */
void tsr_glm_penalize(const tsr_glm_problem *pb, const double *beta, double *g, double *h);
/* The proximal step of t * lam * R on v (in place; the intercept is left). */
void tsr_glm_prox(const tsr_glm_problem *pb, double t, double *v);

/* A solver: from beta = 0 (or, warm, from beta: pb->start), minimizes
 * loss + lam R into beta (q values); sets fit's n_iter and converged, and
 * *obj to the final objective. ADMM takes no warm start: its state is a
 * consensus and a dual per block, which one beta does not restore, and it
 * runs on no path (tsr_glm_solver_batches). */
typedef int (*tsr_glm_solver)(const tsr_glm_problem *pb, double *beta, tsr_fit *fit, double *obj);
int tsr_glm_newton(const tsr_glm_problem *pb, double *beta, tsr_fit *fit, double *obj);
int tsr_glm_lbfgs(const tsr_glm_problem *pb, double *beta, tsr_fit *fit, double *obj);
int tsr_glm_gradient_descent(const tsr_glm_problem *pb, double *beta, tsr_fit *fit, double *obj);
int tsr_glm_proximal_grad(const tsr_glm_problem *pb, double *beta, tsr_fit *fit, double *obj);
int tsr_glm_admm(const tsr_glm_problem *pb, double *beta, tsr_fit *fit, double *obj);

/* ---- lambda paths (glm_batch.c) ------------------------------------------ */

/* Whether a solver runs on a path (ADMM, whose passes are per block and
 * collective by themselves, does not). */
int tsr_glm_solver_batches(int solver);

/* Solves pb for each of the n penalties lams[i] together: each with the
 * unchanged solver on its own thread, their data passes served together on
 * this one (one pass over X per round, tsr_glm_eval_many), so that every
 * MPI call stays on this thread. Into betas[i] (q values), fits[i] (a copy
 * of pb->fit: n_iter, converged, passes), objs[i] and sts[i] (agreed
 * over the ranks; the error text of a failed one is lost: solve it alone
 * for it). Returns an error only when the path itself failed. Collective. */
int tsr_glm_solve_path(const tsr_glm_problem *pb, tsr_glm_solver solve, int n, const double *lams,
                       double *const *betas, tsr_fit *fits, double *objs, int *sts);

/* Solves pb for each of the n penalties lams[i], one after another in
 * order of decreasing lams (ties in index order), each from the previous
 * solution that succeeded (the first from 0: a cold start), on this thread
 * (a sweep's --warm-start). The same outputs as tsr_glm_solve_path, and
 * fits[i].warm_start says whether fit i started warm; a fit's coefficients
 * then meet its cold start's convergence test, not its bits. Collective. */
int tsr_glm_solve_warm(const tsr_glm_problem *pb, tsr_glm_solver solve, int n, const double *lams,
                       double *const *betas, tsr_fit *fits, double *objs, int *sts);

/* A lane's pass request (tsr_glm_eval on a lane's data). */
int tsr_glm_batch_request(tsr_glm_data *d, const double *beta, int what, double *out);

/* max |v_i| and a . b over n values, in index order. */
static inline double tsr_glm_inf_norm(int64_t n, const double *v) {
  double m = 0;
  for (int64_t i = 0; i < n; i++) m = fmax(m, fabs(v[i]));
  return m;
}
static inline double tsr_glm_dot(int64_t n, const double *a, const double *b) {
  double s = 0;
  for (int64_t i = 0; i < n; i++) s += a[i] * b[i];
  return s;
}

/* Solves h d = -g (q x q, symmetric positive definite) by Cholesky; h is
 * overwritten. Returns 0, or 1 (and no error) when h is not positive
 * definite to rounding: a pivot under 1e-13 of its diagonal entry. */
int tsr_glm_newton_step(int64_t q, double *h, const double *g, double *d);

#endif
