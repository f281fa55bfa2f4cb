/*
 * cpu_linalg.c - the CPU backend's dense kernels for src/linalg (backend.h):
 * thin QR (dgeqrf + dorgqr), SVD (dgesdd), GEMM (dgemm) and the Gram
 * path's Gram matrix (dsyrk), Cholesky factor (dpotrf) and triangular
 * solve (dtrsm) through LAPACKE/CBLAS on row-major host matrices.
 *
 * Every call runs with one BLAS thread: OpenBLAS's results can depend on its
 * thread count, and ranks x threads varies with the launch, so the
 * parallelism is over blocks (linalg calls these from OpenMP threads), and
 * results are bitwise identical on any number of ranks and threads.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "cpu/cpu.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"

#ifdef TSR_HAVE_LAPACKE
#include <cblas.h>
#include <lapacke.h>

static pthread_once_t one_thread_once = PTHREAD_ONCE_INIT;
static void one_thread_set(void) {
#ifdef OPENBLAS_VERSION
  openblas_set_num_threads(1);
#endif
}
void tsr_cpu_one_blas_thread(void) { pthread_once(&one_thread_once, one_thread_set); }

static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

int tsr_cpu_qr(int64_t m, int64_t n, const double *a, double *q, double *r) {
  tsr_cpu_one_blas_thread();
  int64_t kk = min64(m, n);
  double *w = malloc(sizeof(double) * (size_t)(m * n + 1));
  double *tau = malloc(sizeof(double) * (size_t)(kk + 1));
  if (!w || !tau) {
    free(w), free(tau);
    return TSR_ERROR(TSR_ERR_MEMORY, "out of memory for a %lld x %lld QR", (long long)m,
                     (long long)n);
  }
  memcpy(w, a, sizeof(double) * (size_t)(m * n));
  lapack_int info =
      LAPACKE_dgeqrf(LAPACK_ROW_MAJOR, (lapack_int)m, (lapack_int)n, w, (lapack_int)n, tau);
  if (info == 0) {
    memset(r, 0, sizeof(double) * (size_t)(kk * n));
    for (int64_t i = 0; i < kk; i++)
      for (int64_t j = i; j < n; j++) r[i * n + j] = w[i * n + j];
    info = LAPACKE_dorgqr(LAPACK_ROW_MAJOR, (lapack_int)m, (lapack_int)kk, (lapack_int)kk, w,
                          (lapack_int)n, tau);
  }
  if (info == 0)
    for (int64_t i = 0; i < m; i++) memcpy(q + i * kk, w + i * n, sizeof(double) * (size_t)kk);
  free(w);
  free(tau);
  if (info != 0) return TSR_ERROR(TSR_ERR_INTERNAL, "LAPACK QR failed (info %d)", (int)info);
  return TSR_OK;
}

int tsr_cpu_svd(int64_t m, int64_t n, const double *a, double *s, double *u, double *vt) {
  tsr_cpu_one_blas_thread();
  int64_t p = min64(m, n);
  double *w = malloc(sizeof(double) * (size_t)(m * n + 1));
  if (!w)
    return TSR_ERROR(TSR_ERR_MEMORY, "out of memory for a %lld x %lld SVD", (long long)m,
                     (long long)n);
  memcpy(w, a, sizeof(double) * (size_t)(m * n));
  lapack_int info = LAPACKE_dgesdd(LAPACK_ROW_MAJOR, 'S', (lapack_int)m, (lapack_int)n, w,
                                   (lapack_int)n, s, u, (lapack_int)p, vt, (lapack_int)n);
  free(w);
  if (info != 0) return TSR_ERROR(TSR_ERR_INTERNAL, "LAPACK dgesdd failed (info %d)", (int)info);
  return TSR_OK;
}

int tsr_cpu_gemm(int64_t m, int64_t n, int64_t k, const double *a, int64_t lda, const double *b,
                 int64_t ldb, double beta, double *c, int64_t ldc) {
  tsr_cpu_one_blas_thread();
  if (m == 0 || n == 0) return TSR_OK;
  if (k == 0) { /* BLAS leaves c alone when k is 0; c = beta c */
    for (int64_t i = 0; i < m; i++)
      for (int64_t j = 0; j < n; j++) c[i * ldc + j] = beta == 0.0 ? 0.0 : beta * c[i * ldc + j];
    return TSR_OK;
  }
  cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)m, (int)n, (int)k, 1.0, a, (int)lda,
              b, (int)ldb, beta, c, (int)ldc);
  return TSR_OK;
}

int tsr_cpu_gram(int64_t m, int64_t n, const double *a, double *g) {
  tsr_cpu_one_blas_thread();
  if (n == 0) return TSR_OK;
  if (m == 0) {
    memset(g, 0, sizeof(double) * (size_t)(n * n));
    return TSR_OK;
  }
  cblas_dsyrk(CblasRowMajor, CblasUpper, CblasTrans, (int)n, (int)m, 1.0, a, (int)n, 0.0, g,
              (int)n);
  for (int64_t i = 1; i < n; i++) /* the lower triangle mirrors the upper one */
    for (int64_t j = 0; j < i; j++) g[i * n + j] = g[j * n + i];
  return TSR_OK;
}

int tsr_cpu_cholesky(int64_t n, double *a, int *ok) {
  tsr_cpu_one_blas_thread();
  lapack_int info = LAPACKE_dpotrf(LAPACK_ROW_MAJOR, 'U', (lapack_int)n, a, (lapack_int)n);
  if (info < 0) return TSR_ERROR(TSR_ERR_INTERNAL, "LAPACK dpotrf failed (info %d)", (int)info);
  *ok = info == 0;
  for (int64_t i = 1; i < n; i++)
    for (int64_t j = 0; j < i; j++) a[i * n + j] = 0.0;
  return TSR_OK;
}

int tsr_cpu_lu(int64_t n, double *a, int *ipiv, int *singular) {
  tsr_cpu_one_blas_thread();
  lapack_int *piv = malloc(sizeof(lapack_int) * (size_t)n);
  if (!piv) return TSR_ERROR(TSR_ERR_MEMORY, "out of memory for an LU");
  lapack_int info =
      LAPACKE_dgetrf(LAPACK_COL_MAJOR, (lapack_int)n, (lapack_int)n, a, (lapack_int)n, piv);
  for (int64_t i = 0; i < n; i++) ipiv[i] = (int)piv[i];
  free(piv);
  if (info < 0) return TSR_ERROR(TSR_ERR_INTERNAL, "LAPACK dgetrf failed (info %d)", (int)info);
  *singular = info > 0;
  return TSR_OK;
}

int tsr_cpu_trsm_upper_right(int64_t m, int64_t n, const double *r, double *a) {
  tsr_cpu_one_blas_thread();
  cblas_dtrsm(CblasRowMajor, CblasRight, CblasUpper, CblasNoTrans, CblasNonUnit, (int)m, (int)n,
              1.0, r, (int)n, a, (int)n);
  return TSR_OK;
}

#else

static int no_lapack(void) {
  return TSR_ERROR(TSR_ERR_BACKEND,
                   "tessera was built without LAPACKE/OpenBLAS: matmul, qr and svd "
                   "are not available (install liblapacke-dev, reconfigure)");
}

int tsr_cpu_qr(int64_t m, int64_t n, const double *a, double *q, double *r) {
  (void)m, (void)n, (void)a, (void)q, (void)r;
  return no_lapack();
}

int tsr_cpu_svd(int64_t m, int64_t n, const double *a, double *s, double *u, double *vt) {
  (void)m, (void)n, (void)a, (void)s, (void)u, (void)vt;
  return no_lapack();
}

int tsr_cpu_gemm(int64_t m, int64_t n, int64_t k, const double *a, int64_t lda, const double *b,
                 int64_t ldb, double beta, double *c, int64_t ldc) {
  (void)m, (void)n, (void)k, (void)a, (void)lda, (void)b, (void)ldb, (void)beta, (void)c, (void)ldc;
  return no_lapack();
}

int tsr_cpu_gram(int64_t m, int64_t n, const double *a, double *g) {
  (void)m, (void)n, (void)a, (void)g;
  return no_lapack();
}

int tsr_cpu_cholesky(int64_t n, double *a, int *ok) {
  (void)n, (void)a;
  *ok = 0;
  return no_lapack();
}

int tsr_cpu_lu(int64_t n, double *a, int *ipiv, int *singular) {
  (void)n, (void)a, (void)ipiv;
  *singular = 0;
  return no_lapack();
}

int tsr_cpu_trsm_upper_right(int64_t m, int64_t n, const double *r, double *a) {
  (void)m, (void)n, (void)r, (void)a;
  return no_lapack();
}

#endif

/* ---- the helpers of the dense kernels: host memory, no BLAS needed ---- */

int tsr_cpu_copy2d(int64_t rows, int64_t cols, const double *src, int64_t lds, double *dst,
                   int64_t ldd) {
  for (int64_t i = 0; i < rows; i++)
    memmove(dst + i * ldd, src + i * lds, sizeof(double) * (size_t)cols);
  return TSR_OK;
}

int tsr_cpu_axpy(size_t n, const double *x, double *y) {
  for (size_t i = 0; i < n; i++) y[i] += x[i];
  return TSR_OK;
}

int tsr_cpu_col_absmax(int64_t m, int64_t n, const double *a, tsr_colmax *out) {
  for (int64_t j = 0; j < n; j++) out[j] = (tsr_colmax){-1.0, -1, 1.0};
  for (int64_t i = 0; i < m; i++)
    for (int64_t j = 0; j < n; j++) {
      double u = a[i * n + j], v = u < 0 ? -u : u;
      if (v > out[j].big) out[j] = (tsr_colmax){v, i, u < 0 ? -1.0 : 1.0};
    }
  return TSR_OK;
}

int tsr_cpu_scale_cols(int64_t m, int64_t n, double *a, const double *f) {
  for (int64_t i = 0; i < m; i++)
    for (int64_t j = 0; j < n; j++) a[i * n + j] *= f[j];
  return TSR_OK;
}
