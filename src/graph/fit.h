/*
 * fit.h - what a model fit of the job language asks for (a GLM: family,
 * solver, regularizer and their settings) and what it reports (iterations,
 * convergence, objective), shared by the interpreter that builds the fit's
 * nodes, linalg/glm.c that computes them and job/ that writes the report.
 *
 * The names of families, solvers and regularizers are tables here (the
 * language reads them); the functions behind each id are tables in
 * src/linalg/glm*.c. Per-job state, freed by tsr_nodes_free_all().
 */
#ifndef TSR_FIT_H
#define TSR_FIT_H

#include <stdint.h>

#include "kernel/glm.h"

typedef enum tsr_solver_id {
  TSR_SOLVER_LBFGS,
  TSR_SOLVER_NEWTON,
  TSR_SOLVER_ADMM,
  TSR_SOLVER_GRADIENT_DESCENT,
  TSR_SOLVER_PROXIMAL_GRAD,
  TSR_NSOLVERS
} tsr_solver_id;

typedef enum tsr_reg_id {
  TSR_REG_NONE,
  TSR_REG_L1,
  TSR_REG_L2,
  TSR_REG_ELASTIC_NET,
  TSR_NREGS
} tsr_reg_id;

/* One line of a name table: the name the language uses, whether it is
 * smooth (regularizers: differentiable; solvers: needs a smooth objective),
 * and a line for `tessera info`. */
typedef struct tsr_fit_name {
  const char *name;
  int smooth;
  const char *doc;
} tsr_fit_name;

extern const tsr_fit_name tsr_glm_families[TSR_GLM_NFAMILIES]; /* "logistic", ... */
extern const tsr_fit_name tsr_glm_solvers[TSR_NSOLVERS];
extern const tsr_fit_name tsr_glm_regularizers[TSR_NREGS];

/* The index of name in table (n entries), or -1. */
int tsr_fit_lookup(const tsr_fit_name *table, int n, const char *name);

/* Rows of the canonical row blocks of an n x p X: a power of two that
 * depends only on the shape (8 blocks or more, each at most 2^24 values
 * and at least 256 rows), so that a fit's sums, and so its coefficients,
 * do not depend on how X was chunked or on the rank count. */
int64_t tsr_fit_block_rows(int64_t n, int64_t p);

struct tsr_node;

typedef struct tsr_fit {
  int family, solver, reg, fit_intercept, max_iter;
  double lamduh, l1_ratio, tol;
  char label[64];                /* "logistic_regression at 3:17", for messages */
  const struct tsr_node *x_user; /* X as the user wrote it (its chunks name a bad chunk) */
  /* Set when the fit has run: */
  int n_iter, converged, passes;
  int warm_start;            /* it started from another fit's solution (a sweep's
                                --warm-start path), not from 0 */
  double objective, seconds; /* F at the result; the fit's time on rank 0 */
} tsr_fit;

/* A new fit, copied from spec, owned by the job. */
int tsr_fit_new(const tsr_fit *spec, tsr_fit **out);

/* Frees every fit of the job. */
void tsr_fits_free(void);

/* ---- a lambda path: fits of several jobs solved together -----------------
 * A sweep's batch of trials lists here, before they run, the fits of each
 * trial's job: a key of what a fit computes but its lamduh (X and y, the
 * family, solver and settings: tsr_node_fit_key) and its lamduh. The first
 * trial to compute a fit solves every lamduh listed under its key together
 * (one pass over X per step for all of them) and keeps the results here;
 * the later trials take theirs. Cross-job state, owned by the sweep. */

typedef enum { TSR_FIT_TODO, TSR_FIT_SOLVED, TSR_FIT_ALONE } tsr_fit_lam_state;

typedef struct tsr_fit_lam {
  uint64_t key;
  double lamduh;
  tsr_fit_lam_state state; /* ALONE: solve it in its own trial (its path failed) */
  int64_t q;
  double *beta; /* SOLVED: q values, the intercept last */
  int n_iter, converged, passes, warm_start;
  double objective, seconds; /* seconds: its share of the path's time */
} tsr_fit_lam;

typedef struct tsr_fit_path {
  int n, cap;
  tsr_fit_lam *lams;
  double extra_s;    /* seconds the running trial spent on other trials' fits, less the
                        shares of its fits that earlier trials solved */
  int paths, passes; /* paths solved, and their passes over X */
  int warm;          /* solve each path warm (tsr_glm_solve_warm), not in lockstep */
} tsr_fit_path;

/* Lists (key, lamduh) once; key 0 (a fit with no key) is not listed. */
int tsr_fit_path_add(tsr_fit_path *p, uint64_t key, double lamduh);
/* The entry of (key, lamduh), or NULL. */
tsr_fit_lam *tsr_fit_path_find(tsr_fit_path *p, uint64_t key, double lamduh);
/* Empties p (its memory is freed). */
void tsr_fit_path_clear(tsr_fit_path *p);

#endif
