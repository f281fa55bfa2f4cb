/*
 * fit.c - the name tables of GLM fits and the job's fit records (fit.h).
 */
#include "graph/fit.h"

#include <stdlib.h>
#include <string.h>

#include "util/error.h"

/* clang-format off */
const tsr_fit_name tsr_glm_families[TSR_GLM_NFAMILIES] = {
    [TSR_GLM_LOGISTIC] = {"logistic", 1, "y in {0, 1}; loss log(1 + exp(eta)) - y eta; mean 1 / (1 + exp(-eta))"},
    [TSR_GLM_NORMAL] = {"normal", 1, "y real; loss (eta - y)^2 / 2; mean eta"},
    [TSR_GLM_POISSON] = {"poisson", 1, "y >= 0 (counts); loss exp(eta) - y eta; mean exp(eta)"},
};
const tsr_fit_name tsr_glm_solvers[TSR_NSOLVERS] = {
    [TSR_SOLVER_LBFGS] = {"lbfgs", 1, "limited-memory BFGS (10 pairs) with a backtracking line search; smooth penalties"},
    [TSR_SOLVER_NEWTON] = {"newton", 1, "Newton/IRLS: the Hessian X^T W X each pass, a Cholesky solve; smooth penalties"},
    [TSR_SOLVER_ADMM] = {"admm", 0, "consensus ADMM over the row blocks (local Newton solves); any penalty"},
    [TSR_SOLVER_GRADIENT_DESCENT] = {"gradient_descent", 1, "gradient descent with an Armijo line search; smooth penalties"},
    [TSR_SOLVER_PROXIMAL_GRAD] = {"proximal_grad", 0, "accelerated proximal gradient (FISTA, backtracking); any penalty"},
};
const tsr_fit_name tsr_glm_regularizers[TSR_NREGS] = {
    [TSR_REG_NONE] = {"none", 1, "no penalty"},
    [TSR_REG_L1] = {"l1", 0, "lamduh * |beta|_1"},
    [TSR_REG_L2] = {"l2", 1, "lamduh * |beta|^2 / 2"},
    [TSR_REG_ELASTIC_NET] = {"elastic_net", 0, "lamduh * (l1_ratio |beta|_1 + (1 - l1_ratio) |beta|^2 / 2)"},
};
/* clang-format on */

int tsr_fit_lookup(const tsr_fit_name *table, int n, const char *name) {
  for (int i = 0; i < n; i++)
    if (!strcmp(table[i].name, name)) return i;
  return -1;
}

int64_t tsr_fit_block_rows(int64_t n, int64_t p) {
  int64_t cap = ((int64_t)1 << 24) / (p > 0 ? p : 1), want = n / 8, r = 256;
  while (r * 2 <= want && r * 2 <= cap) r *= 2;
  while (r > 1 && r > cap) r /= 2;
  return r;
}

typedef struct fit_rec {
  tsr_fit fit;
  struct fit_rec *next;
} fit_rec;

static fit_rec *fits;

int tsr_fit_new(const tsr_fit *spec, tsr_fit **out) {
  fit_rec *r;
  TSR_CALLOC(r, 1, sizeof *r);
  r->fit = *spec;
  r->next = fits;
  fits = r;
  *out = &r->fit;
  return TSR_OK;
}

void tsr_fits_free(void) {
  while (fits) {
    fit_rec *r = fits;
    fits = r->next;
    free(r);
  }
}

/* ---- lambda paths ----------------------------------------------------------- */

int tsr_fit_path_add(tsr_fit_path *p, uint64_t key, double lamduh) {
  if (!key || tsr_fit_path_find(p, key, lamduh)) return TSR_OK;
  if (p->n == p->cap) {
    tsr_fit_lam *l = realloc(p->lams, sizeof *l * (size_t)(2 * p->cap + 8));
    if (!l) return TSR_ERROR(TSR_ERR_MEMORY, "out of memory for a lambda path");
    p->lams = l;
    p->cap = 2 * p->cap + 8;
  }
  p->lams[p->n++] = (tsr_fit_lam){.key = key, .lamduh = lamduh, .state = TSR_FIT_TODO};
  return TSR_OK;
}

tsr_fit_lam *tsr_fit_path_find(tsr_fit_path *p, uint64_t key, double lamduh) {
  for (int i = 0; p && i < p->n; i++) /* bitwise: -0.0 and 0.0 are two fits' values */
    if (p->lams[i].key == key && !memcmp(&p->lams[i].lamduh, &lamduh, sizeof lamduh))
      return &p->lams[i];
  return NULL;
}

void tsr_fit_path_clear(tsr_fit_path *p) {
  for (int i = 0; i < p->n; i++) free(p->lams[i].beta);
  free(p->lams);
  memset(p, 0, sizeof *p);
}
