/*
 * glm.c - a GLM fit from its nodes to its coefficients (glm.h): the blocks
 * of X and y on their owners, the data checks, the solver of the fit's
 * table line, the outputs and the fit's record.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "linalg/glm.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "linalg/linalg.h"
#include "mpi/agree.h"
#include "mpi/comm.h"
#include "plan/plan.h"
#include "util/error.h"
#include "util/signals.h"

/* The functions behind the solver names of graph/fit.c. */
static const tsr_glm_solver solvers[TSR_NSOLVERS] = {
    [TSR_SOLVER_LBFGS] = tsr_glm_lbfgs,
    [TSR_SOLVER_NEWTON] = tsr_glm_newton,
    [TSR_SOLVER_ADMM] = tsr_glm_admm,
    [TSR_SOLVER_GRADIENT_DESCENT] = tsr_glm_gradient_descent,
    [TSR_SOLVER_PROXIMAL_GRAD] = tsr_glm_proximal_grad,
};

static void data_close(tsr_glm_data *d) {
  for (int64_t b = 0; b < d->nb; b++) {
    if (d->x && !d->x_borrowed) tsr_be_release(d->ex->be, d->x[b]);
    if (d->y && !d->y_borrowed) tsr_be_release(d->ex->be, d->y[b]);
  }
  free(d->x), free(d->y), free(d->out), free(d->all);
}

/* X (n x p, one column of blocks) and y (n, the same row blocks) on this
 * rank's blocks. Collective. */
static int data_open(tsr_exec *ex, tsr_node *x, tsr_node *y, int family, tsr_glm_data *d) {
  memset(d, 0, sizeof *d);
  d->ex = ex;
  d->family = family;
  d->n = x->grid.shape[0];
  d->p = x->grid.shape[1];
  d->q = d->p + 1;
  d->nb = x->grid.nchunks[0];
  d->rows = x->grid.sizes[0];
  d->nmine = tsr_owned_count(d->nb, ex->rank, ex->size);
  int64_t len = tsr_glm_out_len(d->p, TSR_GLM_HESS);
  d->x = calloc((size_t)d->nb + 1, sizeof(double *));
  d->y = calloc((size_t)d->nb + 1, sizeof(double *));
  d->all = malloc(sizeof(double) * (size_t)(d->nb * len + 1));
  int st = d->x && d->y && d->all ? TSR_OK
                                  : TSR_ERROR(TSR_ERR_MEMORY, "out of memory for a fit's blocks");
  st = tsr_agree(st);
  if (st == TSR_OK) st = tsr_agree(tsr_linalg_blocks(ex, x, d->x, &d->x_borrowed));
  if (st == TSR_OK) st = tsr_agree(tsr_linalg_blocks(ex, y, d->y, &d->y_borrowed));
  return st;
}

/* The user's chunk of X that holds row i, as "(c, 0), rows a to b". */
static void chunk_of_row(const tsr_node *xu, int64_t i, char *buf, size_t n) {
  const tsr_grid *g = &xu->grid;
  int64_t c = 0;
  while (c + 1 < g->nchunks[0] && g->starts[0][c + 1] <= i) c++;
  snprintf(buf, n, "chunk (%lld, ...) of X, rows %lld to %lld", (long long)c,
           (long long)g->starts[0][c], (long long)(g->starts[0][c] + g->sizes[0][c] - 1));
}

/* The error of the first bad row of block b (its rows from start), or
 * TSR_OK when it has none: *row, that row (a row whose x is bad before one
 * whose y is). */
static int block_error(tsr_glm_data *d, const tsr_fit *fit, int64_t b, int64_t start,
                       int64_t *row) {
  double bad_x = d->all[2 * b], bad_y = d->all[2 * b + 1];
  char where[128];
  if (bad_x >= 0 && (bad_y < 0 || bad_x <= bad_y)) {
    *row = start + (int64_t)bad_x;
    chunk_of_row(fit->x_user, *row, where, sizeof where);
    return TSR_ERROR(TSR_ERR_VALUE, "%s: X has a NaN or an infinity in row %lld (%s)", fit->label,
                     (long long)*row, where);
  }
  if (bad_y < 0) return TSR_OK;
  static const char *rule[] = {"0 or 1", "finite", "finite and >= 0"};
  *row = start + (int64_t)bad_y;
  return TSR_ERROR(TSR_ERR_VALUE, "%s: y[%lld] is not a valid response: %s family needs y %s",
                   fit->label, (long long)*row, tsr_glm_families[d->family].name, rule[d->family]);
}

/* NaN or inf in X, responses the family does not take: one error naming
 * the first bad row of all, found by the rank that holds it and printed
 * once, the same on any number of ranks. Collective. */
static int check_data(tsr_glm_data *d, const tsr_fit *fit) {
  double **betas = calloc((size_t)d->nmine + 1, sizeof(double *)),
         **outs = calloc((size_t)d->nmine + 1, sizeof(double *));
  int st = betas && outs ? TSR_OK : TSR_ERROR(TSR_ERR_MEMORY, "out of memory checking a fit");
  double zero[1] = {0};
  for (int64_t k = 0; k < d->nmine && st == TSR_OK; k++) {
    betas[k] = zero;
    outs[k] = d->all + (d->ex->rank + k * d->ex->size) * 2;
  }
  if (st == TSR_OK) st = tsr_glm_eval_mine(d, betas, TSR_GLM_CHECK, outs);
  free(betas), free(outs);
  TSR_CHECK(tsr_agree(st));
  int64_t row = INT64_MAX, start = 0; /* this rank's blocks in row order: its first bad row */
  for (int64_t b = 0; b < d->nb && st == TSR_OK; start += d->rows[b], b++)
    if (b % d->ex->size == d->ex->rank) st = block_error(d, fit, b, start, &row);
  return tsr_agree_first(st, row);
}

static int set_outputs(tsr_node *const *outs, int n, const double *beta, int64_t p) {
  for (int i = 0; i < n; i++) {
    tsr_node *o = outs[i];
    int64_t cnt = o->op == LA_GLM_COEF ? p : 1;
    TSR_MALLOC(o->value, sizeof(double) * (size_t)(cnt + 1));
    memcpy(o->value, o->op == LA_GLM_COEF ? beta : beta + p, sizeof(double) * (size_t)cnt);
  }
  return TSR_OK;
}

/* The problem of fit at lamduh lam (its regularizer's share of L1). */
static tsr_glm_problem problem(tsr_glm_data *d, const tsr_fit *fit, double lam) {
  tsr_glm_problem pb = {d, fit, d->p, d->q, lam, fit->l1_ratio, NULL};
  if (fit->reg == TSR_REG_L1) pb.l1_ratio = 1.0;
  if (fit->reg == TSR_REG_L2) pb.l1_ratio = 0.0;
  if (fit->reg == TSR_REG_NONE) pb.lam = 0.0;
  return pb;
}

static void report(const tsr_exec *ex, const tsr_fit *fit) {
  if (ex->rank == 0 && !ex->quiet)
    fprintf(stderr,
            "tessera: %s: %s family, solver %s, regularizer %s: %d iterations, %s, objective "
            "%.17g, %d passes over X, %.6f s\n",
            fit->label, tsr_glm_families[fit->family].name, tsr_glm_solvers[fit->solver].name,
            tsr_glm_regularizers[fit->reg].name, fit->n_iter,
            fit->converged ? "converged" : "not converged", fit->objective, fit->passes,
            fit->seconds);
  if (!fit->converged && ex->rank == 0)
    fprintf(stderr,
            "tessera: warning: %s did not converge in %d iterations (solver %s, tol %g); its "
            "results are written with converged = 0\n",
            fit->label, fit->n_iter, tsr_glm_solvers[fit->solver].name, fit->tol);
}

/* ---- a sweep's lambda path (graph/fit.h) ------------------------------------ */

/* This fit's entry on the job's path, when its solver takes a path and it
 * is not to be solved alone. */
static tsr_fit_lam *path_entry(tsr_exec *ex, tsr_node *first) {
  const tsr_fit *fit = first->fit;
  if (!ex->fit_path || !tsr_glm_solver_batches(fit->solver)) return NULL;
  tsr_fit_lam *l = tsr_fit_path_find(ex->fit_path, tsr_node_fit_key(first), fit->lamduh);
  return l && l->state != TSR_FIT_ALONE ? l : NULL;
}

/* The outputs and record of a fit from its solved entry. */
static int take_solved(tsr_exec *ex, tsr_node *const *outs, int n, const tsr_fit_lam *l) {
  tsr_fit *fit = outs[0]->fit;
  fit->n_iter = l->n_iter, fit->converged = l->converged, fit->passes = l->passes;
  fit->warm_start = l->warm_start;
  fit->objective = l->objective, fit->seconds = l->seconds;
  TSR_CHECK(set_outputs(outs, n, l->beta, l->q - 1));
  report(ex, fit);
  return TSR_OK;
}

/* The path's solutions into its entries ls (n, the first that of the
 * running trial's fit): a fit that failed is left to solve alone, in its
 * trial, for its message; each takes an equal share of the time since t0. */
static void path_record(tsr_fit_path *path, tsr_fit_lam **ls, int n, double **betas,
                        const tsr_fit *fits, const double *objs, const int *sts, int64_t q,
                        double t0) {
  double secs = tsr_comm_time() - t0, share = secs / n;
  for (int i = 0; i < n; i++) {
    tsr_fit_lam *l = ls[i];
    l->state = sts[i] == TSR_OK ? TSR_FIT_SOLVED : TSR_FIT_ALONE;
    if (l->state != TSR_FIT_SOLVED) continue;
    l->q = q, l->beta = betas[i], betas[i] = NULL;
    l->n_iter = fits[i].n_iter, l->converged = fits[i].converged, l->passes = fits[i].passes;
    l->warm_start = fits[i].warm_start;
    l->objective = objs[i], l->seconds = share;
  }
  path->extra_s += secs - share;
}

/* Every fit still to solve under mine's key, solved together (mine
 * first), in lockstep or, with path->warm, warm-started from the largest
 * lamduh down. A failed path leaves them to solve alone; only an
 * interruption is returned. Collective. */
static int solve_path(tsr_glm_data *d, tsr_fit_path *path, const tsr_fit *fit, tsr_fit_lam *mine,
                      double t0) {
  int n = 0, m = path->n;
  tsr_fit_lam **ls = calloc((size_t)m, sizeof *ls);
  double **betas = calloc((size_t)m, sizeof *betas), *lams = calloc((size_t)m, sizeof *lams);
  double *objs = calloc((size_t)m, sizeof *objs);
  tsr_fit *fits = calloc((size_t)m, sizeof *fits);
  int *sts = calloc((size_t)m, sizeof *sts);
  int st = ls && betas && lams && objs && fits && sts ? TSR_OK : TSR_ERR_MEMORY;
  for (int i = -1; i < m && st == TSR_OK; i++) {
    tsr_fit_lam *l = i < 0 ? mine : &path->lams[i];
    if (l->state != TSR_FIT_TODO || l->key != mine->key || (i >= 0 && l == mine)) continue;
    ls[n] = l, fits[n] = *fit;
    lams[n] = problem(d, fit, l->lamduh).lam;
    if (!(betas[n++] = calloc((size_t)d->q, sizeof(double)))) st = TSR_ERR_MEMORY;
  }
  st = tsr_agree(st == TSR_OK ? st : TSR_ERROR(st, "out of memory for a lambda path"));
  tsr_glm_problem pb = problem(d, fit, fit->lamduh);
  if (st == TSR_OK && n > 1)
    st = (path->warm ? tsr_glm_solve_warm : tsr_glm_solve_path)(&pb, solvers[fit->solver], n, lams,
                                                                betas, fits, objs, sts);
  if (st == TSR_OK && n > 1) {
    path_record(path, ls, n, betas, fits, objs, sts, d->q, t0);
    path->paths++, path->passes += d->passes;
  }
  for (int i = 0; i < n && st != TSR_OK; i++) ls[i]->state = TSR_FIT_ALONE;
  mine->state = mine->state == TSR_FIT_SOLVED ? TSR_FIT_SOLVED : TSR_FIT_ALONE;
  d->passes = 0;
  for (int i = 0; i < n; i++) free(betas[i]);
  free(ls), free(betas), free(lams), free(objs), free(fits), free(sts);
  if (st == TSR_ERR_INTERRUPTED || tsr_interrupted()) return TSR_ERR_INTERRUPTED;
  if (st != TSR_OK) tsr_error_clear(); /* its fits are solved alone, as without a path */
  return TSR_OK;
}

/* ---- one fit -------------------------------------------------------------- */

int tsr_glm_compute(tsr_exec *ex, tsr_node *const *outs, int n) {
  tsr_node *first = outs[0];
  tsr_fit *fit = first->fit;
  tsr_fit_lam *mine = path_entry(ex, first);
  if (mine && mine->state == TSR_FIT_SOLVED) { /* by an earlier trial: its share counts here */
    ex->fit_path->extra_s -= mine->seconds;
    return take_solved(ex, outs, n, mine);
  }
  tsr_glm_data d;
  double t0 = tsr_comm_time();
  int st = data_open(ex, first->in[0], first->in[1], fit->family, &d);
  if (st == TSR_OK) st = check_data(&d, fit);
  if (st == TSR_OK && mine) st = solve_path(&d, ex->fit_path, fit, mine, t0);
  if (st == TSR_OK && mine && mine->state == TSR_FIT_SOLVED) {
    data_close(&d);
    return take_solved(ex, outs, n, mine);
  }
  double *beta = calloc((size_t)d.q + 1, sizeof(double)), obj = 0;
  if (st == TSR_OK && !beta) st = TSR_ERROR(TSR_ERR_MEMORY, "out of memory for a fit");
  tsr_glm_problem pb = problem(&d, fit, fit->lamduh);
  if (st == TSR_OK) st = tsr_agree(solvers[fit->solver](&pb, beta, fit, &obj));
  fit->objective = obj;
  fit->passes = d.passes;
  fit->seconds = tsr_comm_time() - t0;
  if (st == TSR_OK) st = set_outputs(outs, n, beta, d.p);
  if (st == TSR_OK) report(ex, fit);
  free(beta);
  data_close(&d);
  return st;
}
