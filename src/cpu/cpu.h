/*
 * cpu.h - what the CPU backend's files share: the dense kernels of
 * cpu_linalg.c that its ops table (cpu_eval.c) lists. See backend.h for
 * their contracts.
 */
#ifndef TSR_CPU_H
#define TSR_CPU_H

#include <stdint.h>

int tsr_cpu_qr(int64_t m, int64_t n, const double *a, double *q, double *r);
int tsr_cpu_svd(int64_t m, int64_t n, const double *a, double *s, double *u, double *vt);
int tsr_cpu_gemm(int64_t m, int64_t n, int64_t k, const double *a, int64_t lda, const double *b,
                 int64_t ldb, double beta, double *c, int64_t ldc);

#endif
