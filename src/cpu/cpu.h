/*
 * cpu.h - what the CPU backend's files share: the dense kernels of
 * cpu_linalg.c (and their helpers) and the GLM pass of cpu_glm.c that its ops table (cpu_eval.c) lists. See backend.h for
 * their contracts.
 */
#ifndef TSR_CPU_H
#define TSR_CPU_H

#include <stddef.h>
#include <stdint.h>

#include "backend/backend.h"

int tsr_cpu_qr(int64_t m, int64_t n, const double *a, double *q, double *r);
int tsr_cpu_svd(int64_t m, int64_t n, const double *a, double *s, double *u, double *vt);
int tsr_cpu_gemm(int64_t m, int64_t n, int64_t k, const double *a, int64_t lda, const double *b,
                 int64_t ldb, double beta, double *c, int64_t ldc);
int tsr_cpu_gram(int64_t m, int64_t n, const double *a, double *g);
int tsr_cpu_cholesky(int64_t n, double *a, int *ok);
int tsr_cpu_lu(int64_t n, double *a, int *ipiv, int *singular);
int tsr_cpu_trsm_upper_right(int64_t m, int64_t n, const double *r, double *a);
int tsr_cpu_copy2d(int64_t rows, int64_t cols, const double *src, int64_t lds, double *dst,
                   int64_t ldd);
int tsr_cpu_axpy(size_t n, const double *x, double *y);
int tsr_cpu_col_absmax(int64_t m, int64_t n, const double *a, tsr_colmax *out);
int tsr_cpu_scale_cols(int64_t m, int64_t n, double *a, const double *f);
/* The scans (cpu_scan.c). */
int tsr_cpu_scan(int64_t outer, int64_t len, int64_t inner, double *a, int op, double identity,
                 int nan);
int tsr_cpu_scan_carry(int64_t outer, int64_t len, int64_t inner, double *a, int op,
                       const double *carry, int dtype);
/* Sorting lines (cpu_sort.c). */
int tsr_cpu_sort(int64_t outer, int64_t len, int64_t inner, double *a, int what, double q);
/* The rows of x where m is nonzero (cpu_sort.c). */
int tsr_cpu_compress(int64_t rows, int64_t len, const double *x, const double *m, int64_t count,
                     double *out);
/* A histogram of samples (cpu_sort.c: kernel/hist.h's host loop). */
int tsr_cpu_hist(const tsr_hist *h, const double *x, int64_t n, const double *w, double *out);
/* The GLM data pass (cpu_glm.c). */
int tsr_cpu_glm_pass(const tsr_glm_pass *pass);
/* Sets OpenBLAS to one thread, once (parallelism is over blocks). */
void tsr_cpu_one_blas_thread(void);

#endif
