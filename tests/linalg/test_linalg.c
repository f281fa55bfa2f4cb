/*
 * test_linalg.c - the TSQR/SVD kernels (src/linalg/tsqr.c) on one rank
 * against LAPACK's dgesdd of the whole matrix, on matrices with known
 * spectra A = U0 diag(sigma) V0^T (U0, V0 orthonormal, from the QR of random
 * matrices): well conditioned, geometric 1e3 ... 1e-6, rank deficient and
 * ill conditioned, split into irregular row blocks (some shorter than the
 * number of columns); and the distributed matmul/transpose nodes against a
 * naive long-double product on irregular chunk grids.
 *
 * Bitwise agreement across 1-4 ranks is tested by tests/linalg.sh.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/array.h"
#include "backend/backend.h"
#include "graph/chunks.h"
#include "util/error.h"
#include "exec/exec.h"
#include "job/compute.h"
#include "linalg/linalg.h"
#include "linalg/tsqr.h"
#include "tessera.h"

#ifdef TSR_HAVE_LAPACKE
#include <lapacke.h>

enum { M = 240, N = 30 };
static const int64_t ROWS[] = {37, 50, 13, 100, 1, 39}; /* sums to M; 13 and 1 < N */
enum { NB = 6 };

static uint64_t lcg = 88172645463325252ull;
static double unif(void) {
  lcg ^= lcg << 13, lcg ^= lcg >> 7, lcg ^= lcg << 17;
  return ((double)(lcg >> 11) + 0.5) / 9007199254740992.0;
}
static double gauss(void) { return sqrt(-2.0 * log(unif())) * cos(6.283185307179586 * unif()); }

/* An m x n (m >= n) matrix with orthonormal columns. */
static void orthonormal(int m, int n, double *q) {
  double *tau = malloc(sizeof(double) * (size_t)n);
  for (int i = 0; i < m * n; i++) q[i] = gauss();
  ck_assert_int_eq(LAPACKE_dgeqrf(LAPACK_ROW_MAJOR, m, n, q, n, tau), 0);
  ck_assert_int_eq(LAPACKE_dorgqr(LAPACK_ROW_MAJOR, m, n, n, q, n, tau), 0);
  free(tau);
}

/* A = U0 diag(sigma) V0^T, M x N. */
static void known_spectrum(const double *sigma, double *a) {
  double *u0 = malloc(sizeof(double) * M * N), *v0 = malloc(sizeof(double) * N * N);
  orthonormal(M, N, u0);
  orthonormal(N, N, v0);
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      long double t = 0;
      for (int l = 0; l < N; l++) t += (long double)u0[i * N + l] * sigma[l] * v0[j * N + l];
      a[i * N + j] = (double)t;
    }
  free(u0), free(v0);
}

static void lapack_sv(const double *a, double *s) {
  double *w = malloc(sizeof(double) * M * N), *u = malloc(sizeof(double) * M * N),
         *vt = malloc(sizeof(double) * N * N);
  memcpy(w, a, sizeof(double) * M * N);
  ck_assert_int_eq(LAPACKE_dgesdd(LAPACK_ROW_MAJOR, 'S', M, N, w, N, s, u, N, vt, N), 0);
  free(w), free(u), free(vt);
}

static tsr_tsqr_plan plan(int gram) {
  return (tsr_tsqr_plan){NB, N, ROWS, 0, 1, tsr_backend_find("cpu"), NULL, 0, gram};
}

/* Runs TSQR (the tree, or with gram the Gram path where it applies) over the
 * row blocks of a; q receives the stacked blocks. */
static void run_path(const double *a, tsr_tsqr_mode mode, int64_t k, double *q, double *small,
                     int gram) {
  tsr_tsqr_plan pl = plan(gram);
  double *blocks[NB], *out[NB];
  int64_t off = 0, kout = mode == TSR_TSQR_QR ? N : k;
  for (int b = 0; b < NB; b++) {
    blocks[b] = malloc(sizeof(double) * (size_t)(ROWS[b] * N));
    memcpy(blocks[b], a + off * N, sizeof(double) * (size_t)(ROWS[b] * N));
    off += ROWS[b];
  }
  ck_assert_int_eq(tsr_tsqr(&pl, mode, k, blocks, out, small), TSR_OK);
  off = 0;
  for (int b = 0; b < NB; b++) {
    ck_assert_ptr_nonnull(out[b]);
    memcpy(q + off * kout, out[b], sizeof(double) * (size_t)(ROWS[b] * kout));
    off += ROWS[b];
    free(out[b]);
    free(blocks[b]);
  }
}

static void run_tsqr(const double *a, tsr_tsqr_mode mode, int64_t k, double *q, double *small) {
  run_path(a, mode, k, q, small, 0);
}

/* max |Q^T Q - I| of an M x k matrix. */
static double orth_error(const double *q, int k) {
  double worst = 0;
  for (int i = 0; i < k; i++)
    for (int j = 0; j < k; j++) {
      long double t = 0;
      for (int r = 0; r < M; r++) t += (long double)q[r * k + i] * q[r * k + j];
      double e = fabs((double)t - (i == j));
      if (e > worst) worst = e;
    }
  return worst;
}

/* ||A - U diag(s) Vt||_F / ||A||_F */
static double recon_error(const double *a, const double *u, const double *s, const double *vt,
                          int k) {
  long double num = 0, den = 0;
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      long double t = 0;
      for (int l = 0; l < k; l++) t += (long double)u[i * k + l] * s[l] * vt[l * N + j];
      num += (t - a[i * N + j]) * (t - a[i * N + j]);
      den += (long double)a[i * N + j] * a[i * N + j];
    }
  return (double)sqrtl(num / den);
}

/* Spectra of the loop tests: 0 well conditioned, 1 geometric 1e3..1e-6,
 * 2 rank deficient (last 8 zero), 3 ill conditioned (1 .. 1e-15). */
static void spectrum(int which, double *sigma) {
  for (int l = 0; l < N; l++) {
    double t = (double)l / (N - 1);
    sigma[l] = which == 0   ? 2.0 - t
               : which == 1 ? pow(10.0, 3.0 - 9.0 * t)
               : which == 2 ? (l < N - 8 ? 5.0 - l * 0.1 : 0.0)
                            : pow(10.0, -15.0 * t);
  }
}

START_TEST(svd_matches_lapack_on_known_spectra) {
  double sigma[N], want[N], small[N + N * N];
  double *a = malloc(sizeof(double) * M * N), *u = malloc(sizeof(double) * M * N);
  spectrum(_i, sigma);
  known_spectrum(sigma, a);
  lapack_sv(a, want);
  run_tsqr(a, TSR_TSQR_SVD, N, u, small); /* signs normalized by tsr_tsqr */
  for (int l = 0; l < N; l++) {
    ck_assert_msg(fabs(small[l] - want[l]) <= 1e-12 * want[0], "case %d: s[%d] %.17g, LAPACK %.17g",
                  _i, l, small[l], want[l]);
    ck_assert_msg(fabs(small[l] - sigma[l]) <= 1e-12 * sigma[0],
                  "case %d: s[%d] %.17g, exact %.17g", _i, l, small[l], sigma[l]);
    if (l > 0) ck_assert(small[l] <= small[l - 1]);
  }
  double re = recon_error(a, u, small, small + N, N), oe = orth_error(u, N);
  ck_assert_msg(re <= 1e-12, "case %d: reconstruction error %g", _i, re);
  ck_assert_msg(oe <= 1e-12, "case %d: ||U^T U - I||_max = %g", _i, oe);
  /* svd_flip: the largest-magnitude entry of each column of u is positive. */
  for (int l = 0; l < N; l++) {
    int best = 0;
    for (int r = 1; r < M; r++)
      if (fabs(u[r * N + l]) > fabs(u[best * N + l])) best = r;
    ck_assert(u[best * N + l] >= 0);
  }
  free(a), free(u);
}
END_TEST

START_TEST(truncated_svd_is_the_leading_part_of_the_full_one) {
  double sigma[N], full[N + N * N], top[5 + 5 * N];
  double *a = malloc(sizeof(double) * M * N), *u = malloc(sizeof(double) * M * N),
         *u5 = malloc(sizeof(double) * M * 5);
  spectrum(1, sigma);
  known_spectrum(sigma, a);
  run_tsqr(a, TSR_TSQR_SVD, N, u, full);
  run_tsqr(a, TSR_TSQR_SVD, 5, u5, top);
  for (int l = 0; l < 5; l++) {
    ck_assert(top[l] == full[l]); /* same dgesdd of the same R */
    for (int j = 0; j < N; j++) ck_assert(top[5 + l * N + j] == full[N + l * N + j]);
    for (int r = 0; r < M; r++) ck_assert(fabs(u5[r * 5 + l] - u[r * N + l]) <= 1e-14);
  }
  free(a), free(u), free(u5);
}
END_TEST

START_TEST(qr_reconstructs_with_orthonormal_q_and_nonnegative_diagonal) {
  double sigma[N], r[N * N];
  double *a = malloc(sizeof(double) * M * N), *q = malloc(sizeof(double) * M * N);
  spectrum(_i, sigma);
  known_spectrum(sigma, a);
  run_tsqr(a, TSR_TSQR_QR, 0, q, r);
  ck_assert_msg(orth_error(q, N) <= 1e-12, "case %d: ||Q^T Q - I|| = %g", _i, orth_error(q, N));
  long double num = 0, den = 0;
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      long double t = 0;
      for (int l = 0; l < N; l++) t += (long double)q[i * N + l] * r[l * N + j];
      num += (t - a[i * N + j]) * (t - a[i * N + j]);
      den += (long double)a[i * N + j] * a[i * N + j];
    }
  ck_assert_msg(sqrtl(num / den) <= 1e-13, "case %d: ||A - QR|| / ||A|| = %g", _i,
                (double)sqrtl(num / den));
  for (int i = 0; i < N; i++) {
    ck_assert(r[i * N + i] >= 0);
    for (int j = 0; j < i; j++) ck_assert(r[i * N + j] == 0.0);
  }
  free(a), free(q);
}
END_TEST

/* The Gram path (CholeskyQR2 over all blocks): LAPACK's values, orthonormal
 * u and a reconstruction to 1e-12 on the well-conditioned case 0, bits of
 * its own; on the others (cond(A) >= 1e9, rank deficient: R1's diagonal
 * spreads over 1e4 or G is singular) it falls back to the tree's bits. */
START_TEST(gram_path_matches_lapack_or_falls_back_to_the_tree) {
  double sigma[N], want[N], small[N + N * N], tsmall[N + N * N];
  double *a = malloc(sizeof(double) * M * N), *u = malloc(sizeof(double) * M * N),
         *tu = malloc(sizeof(double) * M * N);
  spectrum(_i, sigma);
  known_spectrum(sigma, a);
  lapack_sv(a, want);
  run_path(a, TSR_TSQR_SVD, N, u, small, 1);
  run_path(a, TSR_TSQR_SVD, N, tu, tsmall, 0);
  int same = !memcmp(u, tu, sizeof(double) * M * N) && !memcmp(small, tsmall, sizeof small);
  if (_i == 0) {
    ck_assert_msg(!same, "the Gram path gave the tree's bits on a well-conditioned matrix");
    for (int l = 0; l < N; l++) ck_assert(fabs(small[l] - want[l]) <= 1e-12 * want[0]);
    double re = recon_error(a, u, small, small + N, N), oe = orth_error(u, N);
    ck_assert_msg(re <= 1e-12, "reconstruction error %g", re);
    ck_assert_msg(oe <= 1e-12, "||U^T U - I||_max = %g", oe);
  } else
    ck_assert_msg(same, "case %d: no fallback to the tree", _i);
  free(a), free(u), free(tu);
}
END_TEST

START_TEST(wide_and_single_block_matrices) {
  /* 3 x 7 in one block: K = 3 < ncols; s matches LAPACK. */
  int64_t rows[1] = {3};
  tsr_tsqr_plan pl = {1, 7, rows, 0, 1, tsr_backend_find("cpu"), NULL, 0, 1};
  double a[21], w[21], s[3], uu[9], vv[21], small[3 + 21], *blocks[1] = {a}, *out[1];
  for (int i = 0; i < 21; i++) a[i] = w[i] = gauss();
  ck_assert_int_eq(tsr_tsqr_rank_bound(&pl), 3);
  ck_assert_int_eq(tsr_tsqr(&pl, TSR_TSQR_SVD, 3, blocks, out, small), TSR_OK);
  ck_assert_int_eq(LAPACKE_dgesdd(LAPACK_ROW_MAJOR, 'S', 3, 7, w, 7, s, uu, 3, vv, 7), 0);
  for (int l = 0; l < 3; l++) ck_assert(fabs(small[l] - s[l]) <= 1e-13 * s[0]);
  free(out[0]);
}
END_TEST

/* ---- matmul / transpose nodes through the executor ------------------------- */

static tsr_exec make_exec(void) {
  tsr_exec ex;
  memset(&ex, 0, sizeof ex);
  ex.be = tsr_backend_find("cpu");
  ex.size = 1;
  ex.threads = 2;
  ex.mem_limit = (size_t)1 << 30;
  tsr_backend_config cfg = {.threads = 2, .mem_limit = ex.mem_limit};
  ck_assert_int_eq(tsr_be_setup(ex.be, &cfg), TSR_OK);
  return ex;
}

static tsr_node *random_node(int64_t r, int64_t c, const int64_t *rs, int64_t nr, const int64_t *cs,
                             int64_t nc, uint32_t stream) {
  tsr_grid g;
  int64_t shape[2] = {r, c}, n[2] = {nr, nc};
  const int64_t *sizes[2] = {rs, cs};
  ck_assert_int_eq(tsr_grid_init_lists(&g, 2, shape, sizes, n), TSR_OK);
  tsr_node *x;
  ck_assert_int_eq(tsr_node_random(RNG_NORMAL, 0.0, 1.0, 7, stream, &g, TSR_F64, &x), TSR_OK);
  tsr_grid_free(&g);
  return x;
}

START_TEST(matmul_on_irregular_chunks_matches_naive_product) {
  tsr_exec ex = make_exec();
  static const int64_t xr[] = {10, 10, 10, 7}, xc[] = {7, 7, 7, 2}, yr[] = {5, 5, 5, 5, 3},
                       yc[] = {8, 8, 3};
  tsr_node *x = random_node(37, 23, xr, 4, xc, 4, 0), *y = random_node(23, 19, yr, 5, yc, 3, 1);
  tsr_grid g;
  int64_t shape[2] = {37, 19}, n[2] = {4, 3};
  const int64_t *sizes[2] = {xr, yc};
  ck_assert_int_eq(tsr_grid_init_lists(&g, 2, shape, sizes, n), TSR_OK);
  tsr_node *p, *t;
  ck_assert_int_eq(tsr_node_linalg(LA_MATMUL, x, y, 0, &g, TSR_F64, &p), TSR_OK);
  tsr_grid_free(&g);
  int64_t tshape[2] = {23, 37}, tn[2] = {4, 4};
  const int64_t *tsizes[2] = {xc, xr};
  ck_assert_int_eq(tsr_grid_init_lists(&g, 2, tshape, tsizes, tn), TSR_OK);
  ck_assert_int_eq(tsr_node_linalg(LA_TRANSPOSE, x, NULL, 0, &g, TSR_F64, &t), TSR_OK);
  tsr_grid_free(&g);
  ck_assert_int_eq(tsr_job_compute(&ex, p), TSR_OK);
  ck_assert_int_eq(tsr_job_compute(&ex, t), TSR_OK);
  ck_assert_ptr_null(x->value); /* the product read its operands' blocks, not whole copies */
  ck_assert_int_eq(tsr_job_compute(&ex, x), TSR_OK);
  ck_assert_int_eq(tsr_job_compute(&ex, y), TSR_OK);
  for (int i = 0; i < 37; i++)
    for (int j = 0; j < 19; j++) {
      long double s = 0;
      for (int l = 0; l < 23; l++) s += (long double)x->value[i * 23 + l] * y->value[l * 19 + j];
      ck_assert_msg(fabs(p->value[i * 19 + j] - (double)s) <= 1e-13 * (1 + fabsl(s)), "(%d,%d)", i,
                    j);
    }
  for (int i = 0; i < 37; i++)
    for (int j = 0; j < 23; j++) ck_assert(t->value[j * 37 + i] == x->value[i * 23 + j]);
  tsr_nodes_free_all();
  tsr_be_teardown(ex.be);
}
END_TEST

/* ---- GLM data passes at several points ---------------------------------------- */

/* A pass at K points per block gives each point the bits of a pass at it
 * alone (a lambda path's fits equal single fits), for every family and
 * kind, blocks of 1 to 700 rows and a block with none. */
START_TEST(glm_pass_at_several_points_has_the_bits_of_one_pass_per_point) {
  enum { P = 7, Q = P + 1, K = 5, NB = 4 };
  static const int64_t rows[NB] = {700, 1, 0, 333};
  tsr_exec ex = make_exec();
  double *x[NB], *y[NB], betas[K * Q];
  for (int b = 0; b < NB; b++) {
    x[b] = malloc(sizeof(double) * (size_t)(rows[b] * P + 1));
    y[b] = malloc(sizeof(double) * (size_t)(rows[b] + 1));
    for (int64_t i = 0; i < rows[b] * P; i++) x[b][i] = sin(0.37 * (double)(i + 11 * b)) * 2;
    for (int64_t i = 0; i < rows[b]; i++) y[b][i] = (double)((i * 7 + b) % 3 == 0);
  }
  for (int i = 0; i < K * Q; i++) betas[i] = 0.3 * cos(1.3 * i);
  for (int family = 0; family < TSR_GLM_NFAMILIES; family++)
    for (int what = TSR_GLM_LOSS; what <= TSR_GLM_HESS; what++) {
      int64_t len = tsr_glm_out_len(P, what);
      double *many = calloc((size_t)(NB * K * len), sizeof(double));
      double *one = calloc((size_t)(NB * K * len), sizeof(double));
      tsr_glm_block bl[NB];
      for (int b = 0; b < NB; b++)
        bl[b] = (tsr_glm_block){x[b], y[b], rows[b], betas, many + b * K * len};
      tsr_glm_pass pass = {family, what, P, NB, bl, K};
      ck_assert_int_eq(tsr_be_glm_pass(ex.be, &pass), TSR_OK);
      for (int k = 0; k < K; k++) {
        for (int b = 0; b < NB; b++)
          bl[b] = (tsr_glm_block){x[b], y[b], rows[b], betas + k * Q, one + (b * K + k) * len};
        tsr_glm_pass single = {family, what, P, NB, bl, 1};
        ck_assert_int_eq(tsr_be_glm_pass(ex.be, &single), TSR_OK);
      }
      ck_assert_msg(!memcmp(many, one, sizeof(double) * (size_t)(NB * K * len)),
                    "family %d, what %d: the points' bits differ from single passes", family, what);
      ck_assert(many[len] != many[0] || many[1] != many[len + 1]); /* the points do differ */
      free(many), free(one);
    }
  tsr_glm_pass zero = {0, TSR_GLM_LOSS, P, 0, NULL, 0};
  ck_assert_int_eq(tsr_be_glm_pass(ex.be, &zero), TSR_ERR_INTERNAL); /* no points: refused */
  tsr_error_clear();
  for (int b = 0; b < NB; b++) free(x[b]), free(y[b]);
  tsr_be_teardown(ex.be);
}
END_TEST

static Suite *linalg_suite(void) {
  Suite *s = suite_create("linalg");
  TCase *tc = tcase_create("one rank");
  tcase_set_timeout(tc, 120);
  tcase_add_loop_test(tc, svd_matches_lapack_on_known_spectra, 0, 4);
  tcase_add_test(tc, truncated_svd_is_the_leading_part_of_the_full_one);
  tcase_add_loop_test(tc, qr_reconstructs_with_orthonormal_q_and_nonnegative_diagonal, 0, 4);
  tcase_add_loop_test(tc, gram_path_matches_lapack_or_falls_back_to_the_tree, 0, 4);
  tcase_add_test(tc, wide_and_single_block_matrices);
  tcase_add_test(tc, matmul_on_irregular_chunks_matches_naive_product);
  tcase_add_test(tc, glm_pass_at_several_points_has_the_bits_of_one_pass_per_point);
  suite_add_tcase(s, tc);
  return s;
}

int main(int argc, char **argv) {
  if (tsr_init(&argc, &argv) != TSR_OK) {
    fprintf(stderr, "test_linalg: %s\n", tsr_error_message());
    return EXIT_FAILURE;
  }
  SRunner *sr = srunner_create(linalg_suite());
  srunner_set_fork_status(sr, CK_NOFORK);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  tsr_finalize();
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

#else
int main(void) {
  printf("test_linalg: built without LAPACKE, skipped\n");
  return 77;
}
#endif
