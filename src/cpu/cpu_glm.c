/*
 * cpu_glm.c - the CPU backend's GLM data pass (backend.h: glm_pass): for
 * each row block, the loss, the gradient [X 1]^T r and the Hessian
 * [X 1]^T W [X 1] of a family (kernel/glm.h), or the block's data checks.
 *
 * Blocks are spread over the OpenMP threads, each block computed by one
 * thread in row order: a row's eta, loss and residual, then its share of
 * the gradient, in one read of the row. The Hessian adds sqrt(w)-scaled
 * tiles of rows with dsyrk (one BLAS thread, cpu_linalg.c), tile after tile.
 * So a block's bits depend neither on the thread nor on the other blocks.
 *
 * With several points per block (a lambda path), the loss and gradient
 * take every point while the row is in cache, each point's sums in the
 * same row order as alone: one read of X for all, the same bits as one
 * pass per point. The Hessian takes the points one after the other.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "cpu/cpu.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/glm.h"
#include "util/error.h"
#include "util/workers.h"

#ifdef TSR_HAVE_LAPACKE
#include <cblas.h>
#endif

#define TILE 256 /* rows per Hessian update */

/* x_i . beta in a fixed order: eight running sums (one AVX-512 or two AVX2
 * vectors; four chains left the adds' latency exposed), then a fixed tree. */
#define DOT_LANES 8
static double row_dot(const double *x, const double *beta, int64_t p) {
  double s[DOT_LANES] = {0};
  int64_t j = 0;
  for (; j + DOT_LANES <= p; j += DOT_LANES)
    for (int k = 0; k < DOT_LANES; k++) s[k] += x[j + k] * beta[j + k];
  for (; j < p; j++) s[0] += x[j] * beta[j];
  return ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));
}

static void check_block(int family, int64_t p, const tsr_glm_block *b) {
  b->out[0] = b->out[1] = -1.0;
  for (int64_t i = 0; i < b->rows; i++) {
    const double *x = b->x + i * p;
    int64_t j = 0;
    while (j < p && x[j] - x[j] == 0.0) j++;
    if (j < p && b->out[0] < 0) b->out[0] = (double)i;
    if (!tsr_glm_y_ok(family, b->y[i]) && b->out[1] < 0) b->out[1] = (double)i;
  }
}

/* H (q x q, q = p + 1, row-major) += the Hessian terms of rows whose
 * sqrt(w) scaled copies are s (n x p), and of their weights w. */
static void hess_tile(int64_t p, int64_t n, const double *s, const double *sw, const double *w,
                      double *h) {
  int64_t q = p + 1;
#ifdef TSR_HAVE_LAPACKE
  cblas_dsyrk(CblasRowMajor, CblasUpper, CblasTrans, (int)p, (int)n, 1.0, s, (int)p, 1.0, h,
              (int)q);
#else
  for (int64_t i = 0; i < n; i++)
    for (int64_t a = 0; a < p; a++)
      for (int64_t c = a; c < p; c++) h[a * q + c] += s[i * p + a] * s[i * p + c];
#endif
  for (int64_t i = 0; i < n; i++) {
    for (int64_t a = 0; a < p; a++) h[a * q + p] += sw[i] * s[i * p + a]; /* w x = sqrt(w) s */
    h[p * q + p] += w[i];
  }
}

/* The loss and gradient of one block at its nbeta points, rows in order
 * and, per row, the points in order (a point's sums do not depend on the
 * others). */
static void grad_block(int family, int what, int64_t p, int64_t nbeta, const tsr_glm_block *b) {
  int64_t q = p + 1, len = tsr_glm_out_len(p, what);
  memset(b->out, 0, sizeof(double) * (size_t)(len * nbeta));
  for (int64_t i = 0; i < b->rows; i++) {
    const double *x = b->x + i * p;
    for (int64_t k = 0; k < nbeta; k++) {
      const double *beta = b->beta + k * q;
      double *out = b->out + k * len, *g = out + 1;
      double eta = row_dot(x, beta, p) + beta[p], mu, loss;
      tsr_glm_mean_loss(family, eta, b->y[i], &mu, &loss);
      out[0] += loss;
      if (what == TSR_GLM_LOSS) continue;
      double r = mu - b->y[i];
      for (int64_t j = 0; j < p; j++) g[j] += r * x[j];
      g[p] += r;
    }
  }
}

/* The loss, gradient and Hessian of one block at one point (beta, into
 * out); tile: scratch of TILE x (p + 2) values. */
static void hess_block(int family, int64_t p, const tsr_glm_block *b, const double *beta,
                       double *out, double *tile) {
  int64_t q = p + 1, len = tsr_glm_out_len(p, TSR_GLM_HESS);
  double *g = out + 1, *h = out + 1 + q;
  double *sw = tile + TILE * p, *w = sw + TILE;
  memset(out, 0, sizeof(double) * (size_t)len);
  int64_t t = 0;
  for (int64_t i = 0; i < b->rows; i++) {
    const double *x = b->x + i * p;
    double eta = row_dot(x, beta, p) + beta[p], mu, loss;
    tsr_glm_mean_loss(family, eta, b->y[i], &mu, &loss);
    out[0] += loss;
    double r = mu - b->y[i];
    for (int64_t j = 0; j < p; j++) g[j] += r * x[j];
    g[p] += r;
    w[t] = tsr_glm_weight(family, mu);
    sw[t] = sqrt(w[t]);
    for (int64_t j = 0; j < p; j++) tile[t * p + j] = sw[t] * x[j];
    if (++t == TILE || i + 1 == b->rows) {
      hess_tile(p, t, tile, sw, w, h);
      t = 0;
    }
  }
  for (int64_t a = 0; a < q; a++) /* the lower triangle from the upper */
    for (int64_t c = 0; c < a; c++) h[a * q + c] = h[c * q + a];
}

/* One block of the pass at every point. */
static void pass_block(const tsr_glm_pass *pass, const tsr_glm_block *b, double *tile) {
  int64_t p = pass->p, len = tsr_glm_out_len(p, pass->what);
  if (pass->what == TSR_GLM_CHECK)
    check_block(pass->family, p, b);
  else if (pass->what != TSR_GLM_HESS)
    grad_block(pass->family, pass->what, p, pass->nbeta, b);
  else
    for (int64_t k = 0; k < pass->nbeta; k++)
      hess_block(pass->family, p, b, b->beta + k * (p + 1), b->out + k * len, tile);
}

int tsr_cpu_glm_pass(const tsr_glm_pass *pass) {
  int64_t p = pass->p, rows = 0;
  for (int64_t k = 0; k < pass->nblocks; k++) rows += pass->blocks[k].rows;
  /* a small pass runs on this thread: waking a team costs more than it */
  int team = rows * (p + 1) * pass->nbeta >= (1 << 18) && pass->nblocks > 1;
  tsr_workers wk;
  tsr_workers_init(&wk);
#ifdef TSR_HAVE_LAPACKE
  tsr_cpu_one_blas_thread();
#endif
#pragma omp parallel if (team)
  {
    double *tile =
        pass->what == TSR_GLM_HESS ? malloc(sizeof(double) * (size_t)(TILE * (p + 2) + 1)) : NULL;
    if (pass->what == TSR_GLM_HESS && !tile)
      tsr_workers_fail(&wk, TSR_ERROR(TSR_ERR_MEMORY, "out of memory for a GLM pass"));
#pragma omp for schedule(dynamic, 1)
    for (int64_t k = 0; k < pass->nblocks; k++)
      if (!tsr_workers_stop(&wk)) pass_block(pass, &pass->blocks[k], tile);
    free(tile);
  }
  return tsr_workers_end(&wk);
}
