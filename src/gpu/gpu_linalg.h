/*
 * gpu_linalg.h - the CUDA backend's dense kernels (gpu_linalg.cu) and their
 * helpers (gpu_dense.cu): the qr, svd, gemm, copy2d, axpy, col_absmax,
 * scale_cols, gram, cholesky and trsm_upper_right of its ops table, and its
 * GLM data pass (gpu_glm.cu); backend.h has their contracts. All on device
 * memory of the current device.
 */
#ifndef TSR_GPU_LINALG_H
#define TSR_GPU_LINALG_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#include "backend/backend.h"

int tsr_gpu_qr(int64_t m, int64_t n, const double *a, double *q, double *r);
int tsr_gpu_qr_deferred(int64_t m, int64_t n, const double *a, double *q, double *r, double *c,
                        int *has_c);
int tsr_gpu_gram(int64_t m, int64_t n, const double *a, double *g);
int tsr_gpu_cholesky(int64_t n, double *a, int *ok);
int tsr_gpu_lu(int64_t n, double *a, int *ipiv, int *singular);
int tsr_gpu_trsm_upper_right(int64_t m, int64_t n, const double *r, double *a);
int tsr_gpu_svd(int64_t m, int64_t n, const double *a, double *s, double *u, double *vt);
int tsr_gpu_gemm(int64_t m, int64_t n, int64_t k, const double *a, int64_t lda, const double *b,
                 int64_t ldb, double beta, double *c, int64_t ldc);
/* For i < batch: c_i (m x n) = a_i^T b_i for a_i (k x m) and b_i (k x n),
 * all row-major with leading dimensions lda, ldb, ldc, the i-th at a + i sa
 * (b + i sb, c + i sc), on this thread's stream, without waiting (the GLM
 * pass's Hessian X^T (W X), slice by slice of rows). */
int tsr_gpu_gemm_tn_async(int64_t m, int64_t n, int64_t k, const double *a, int64_t lda, int64_t sa,
                          const double *b, int64_t ldb, int64_t sb, double *c, int64_t ldc,
                          int64_t sc, int64_t batch);
int tsr_gpu_copy2d(int64_t rows, int64_t cols, const double *src, int64_t lds, double *dst,
                   int64_t ldd);
int tsr_gpu_axpy(size_t n, const double *x, double *y);
int tsr_gpu_col_absmax(int64_t m, int64_t n, const double *a, tsr_colmax *out);
int tsr_gpu_scale_cols(int64_t m, int64_t n, double *a, const double *f);
/* The scans (gpu_scan.cu). */
int tsr_gpu_scan(int64_t outer, int64_t len, int64_t inner, double *a, int op, double identity,
                 int nan);
int tsr_gpu_scan_carry(int64_t outer, int64_t len, int64_t inner, double *a, int op,
                       const double *carry, int dtype);
int tsr_gpu_scan_box(const tsr_prog *prog, const int64_t *start, const int64_t *extent,
                     int64_t outer, int64_t len, int64_t inner, double *a, int op, double identity,
                     int nan);
/* Sorting lines (gpu_sort.cu). */
int tsr_gpu_sort(int64_t outer, int64_t len, int64_t inner, double *a, int what, double q);
/* The rows of x where m is nonzero (gpu_hist.cu). */
int tsr_gpu_compress(int64_t rows, int64_t len, const double *x, const double *m, int64_t count,
                     double *out);
/* A histogram of samples (gpu_hist.cu). */
int tsr_gpu_hist(const tsr_hist *h, const double *x, int64_t n, const double *w, double *out);
/* One data pass of a GLM fit over row blocks (gpu_glm.cu). */
int tsr_gpu_glm_pass(const tsr_glm_pass *pass);
/* Zeros the strict upper triangle (row < column) of the column-major rows x
 * cols a (ld ld), on this thread's stream, without waiting: CholeskyQR's
 * factors, and R below its diagonal (row-major kk x n is column-major n x kk). */
int tsr_gpu_upper_zero(int64_t rows, int64_t cols, int64_t ld, double *a);
/* The strict upper triangle (row < column) of the column-major n x n a
 * (ld n) made the mirror of its lower one, on this thread's stream, without
 * waiting: syrk's one triangle completed to the full symmetric Gram matrix. */
int tsr_gpu_lower_mirror(int64_t n, double *a);
/* The n x n identity into a, on this thread's stream, without waiting. */
int tsr_gpu_identity(int64_t n, double *a);
/* Destroys the cuSOLVER/cuBLAS handles (backend teardown). */
void tsr_gpu_linalg_release(void);

#ifdef __cplusplus
}
#endif

#endif
