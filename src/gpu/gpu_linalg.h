/*
 * gpu_linalg.h - the CUDA backend's dense kernels (gpu_linalg.cu): the qr,
 * svd and gemm of its ops table (backend.h has their contracts), on the
 * current device.
 */
#ifndef TSR_GPU_LINALG_H
#define TSR_GPU_LINALG_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

int tsr_gpu_qr(int64_t m, int64_t n, const double *a, double *q, double *r);
int tsr_gpu_svd(int64_t m, int64_t n, const double *a, double *s, double *u, double *vt);
int tsr_gpu_gemm(int64_t m, int64_t n, int64_t k, const double *a, int64_t lda, const double *b,
                 int64_t ldb, double beta, double *c, int64_t ldc);
/* Destroys the cuSOLVER/cuBLAS handles (backend teardown). */
void tsr_gpu_linalg_release(void);

#ifdef __cplusplus
}
#endif

#endif
