/*
 * dense_ceilings.cu - the ceilings tessera's device-resident linear algebra
 * is measured against (METHOD.md: measure them once per card): device-to-
 * device copy bandwidth, cuBLAS float64 GEMM, and the cuSOLVER routines the
 * TSQR tree is built from (geqrf + orgqr on a row block, and the candidates
 * for the SVD of the final R: gesvd, gesvdj, Xgesvdp, and syevd of R^T R).
 * Every input is random (curand normal), every time the median of 5 after a
 * warm-up, timed with CUDA events. Prints one line per measurement.
 *
 * build: nvcc -O3 -arch=sm_90 bench/dense_ceilings.cu -o dense_ceilings \
 *          -lcublas -lcusolver -lcurand
 */
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <curand.h>
#include <cusolverDn.h>
#include <stdio.h>
#include <stdlib.h>

#define CK(x)                                                                          \
  do {                                                                                 \
    int e_ = (int)(x);                                                                 \
    if (e_) {                                                                          \
      fprintf(stderr, "%s:%d: %s failed (%d)\n", __FILE__, __LINE__, #x, e_);          \
      exit(1);                                                                         \
    }                                                                                  \
  } while (0)

static cublasHandle_t blas;
static cusolverDnHandle_t sol;
static curandGenerator_t gen;

static double *dnew(size_t n) {
  double *p;
  CK(cudaMalloc(&p, sizeof(double) * (n + 1)));
  return p;
}
static void fill(double *p, size_t n) { CK(curandGenerateNormalDouble(gen, p, n + (n & 1), 0, 1)); }

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* Median of 5 timed calls of fn(ctx) after one warm-up, in seconds. */
static double timed(void (*fn)(void *), void *ctx) {
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  double t[5];
  fn(ctx);
  CK(cudaDeviceSynchronize());
  for (int i = 0; i < 5; i++) {
    CK(cudaEventRecord(a));
    fn(ctx);
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    float ms;
    CK(cudaEventElapsedTime(&ms, a, b));
    t[i] = 1e-3 * ms;
  }
  qsort(t, 5, sizeof(double), cmp);
  return t[2];
}

typedef struct {
  int m, n;
  double *a, *w, *tau, *work, *s, *u, *vt;
  int lwork, *info;
  gesvdjInfo_t j;
  cusolverDnParams_t params;
  void *dwork, *hwork;
  size_t dbytes, hbytes;
} job;

static void copy_fn(void *c) {
  job *j = (job *)c;
  CK(cudaMemcpyAsync(j->w, j->a, sizeof(double) * (size_t)j->m * j->n, cudaMemcpyDeviceToDevice));
}
static void gemm_fn(void *c) {
  job *j = (job *)c;
  const double one = 1, zero = 0;
  CK(cublasDgemm(blas, CUBLAS_OP_N, CUBLAS_OP_N, j->n, j->n, j->n, &one, j->a, j->n, j->w, j->n,
                 &zero, j->u, j->n));
}
static void qr_fn(void *c) { /* geqrf + orgqr on a column-major m x n block, as TSQR's leaves */
  job *j = (job *)c;
  CK(cudaMemcpyAsync(j->w, j->a, sizeof(double) * (size_t)j->m * j->n, cudaMemcpyDeviceToDevice));
  CK(cusolverDnDgeqrf(sol, j->m, j->n, j->w, j->m, j->tau, j->work, j->lwork, j->info));
  CK(cusolverDnDorgqr(sol, j->m, j->n, j->n, j->w, j->m, j->tau, j->work, j->lwork, j->info));
}
static void geqrf_fn(void *c) {
  job *j = (job *)c;
  CK(cudaMemcpyAsync(j->w, j->a, sizeof(double) * (size_t)j->m * j->n, cudaMemcpyDeviceToDevice));
  CK(cusolverDnDgeqrf(sol, j->m, j->n, j->w, j->m, j->tau, j->work, j->lwork, j->info));
}
static void gesvd_fn(void *c) {
  job *j = (job *)c;
  CK(cudaMemcpyAsync(j->w, j->a, sizeof(double) * (size_t)j->m * j->n, cudaMemcpyDeviceToDevice));
  CK(cusolverDnDgesvd(sol, 'S', 'S', j->m, j->n, j->w, j->m, j->s, j->u, j->m, j->vt, j->n, j->work,
                      j->lwork, NULL, j->info));
}
static void gesvdj_fn(void *c) {
  job *j = (job *)c;
  CK(cudaMemcpyAsync(j->w, j->a, sizeof(double) * (size_t)j->m * j->n, cudaMemcpyDeviceToDevice));
  CK(cusolverDnDgesvdj(sol, CUSOLVER_EIG_MODE_VECTOR, 1, j->m, j->n, j->w, j->m, j->s, j->u, j->m,
                       j->vt, j->n, j->work, j->lwork, j->info, j->j));
}
static void gesvdp_fn(void *c) {
  job *j = (job *)c;
  double herr = 0;
  CK(cudaMemcpyAsync(j->w, j->a, sizeof(double) * (size_t)j->m * j->n, cudaMemcpyDeviceToDevice));
  CK(cusolverDnXgesvdp(sol, j->params, CUSOLVER_EIG_MODE_VECTOR, 1, j->m, j->n, CUDA_R_64F, j->w,
                       j->m, CUDA_R_64F, j->s, CUDA_R_64F, j->u, j->m, CUDA_R_64F, j->vt, j->n,
                       CUDA_R_64F, j->dwork, j->dbytes, j->hwork, j->hbytes, j->info, &herr));
}
static void syevd_fn(void *c) { /* R^T R (syrk) then its eigendecomposition */
  job *j = (job *)c;
  const double one = 1, zero = 0;
  CK(cublasDsyrk(blas, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_T, j->n, j->m, &one, j->a, j->m, &zero,
                 j->w, j->n));
  CK(cusolverDnDsyevd(sol, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_UPPER, j->n, j->w, j->n, j->s,
                      j->work, j->lwork, j->info));
}

static void qr_case(int m, int n) {
  job j = {m, n};
  j.a = dnew((size_t)m * n), j.w = dnew((size_t)m * n), j.tau = dnew(n);
  CK(cudaMalloc(&j.info, sizeof(int)));
  fill(j.a, (size_t)m * n);
  int l1, l2;
  CK(cusolverDnDgeqrf_bufferSize(sol, m, n, j.w, m, &l1));
  CK(cusolverDnDorgqr_bufferSize(sol, m, n, n, j.w, m, j.tau, &l2));
  j.lwork = l1 > l2 ? l1 : l2;
  j.work = dnew(j.lwork);
  double t1 = timed(geqrf_fn, &j), t2 = timed(qr_fn, &j), f = 2.0 * m * (double)n * n;
  printf("geqrf %dx%d: %.5f s (%.1f TFLOP/s, 2mn^2); geqrf+orgqr %.5f s\n", m, n, t1,
         f / t1 / 1e12, t2);
  cudaFree(j.a), cudaFree(j.w), cudaFree(j.tau), cudaFree(j.work), cudaFree(j.info);
}

static void svd_case(int m, int n) {
  job j = {m, n};
  j.a = dnew((size_t)m * n), j.w = dnew((size_t)m * n), j.s = dnew(n), j.u = dnew((size_t)m * n),
  j.vt = dnew((size_t)n * n);
  CK(cudaMalloc(&j.info, sizeof(int)));
  fill(j.a, (size_t)m * n);
  CK(cusolverDnDgesvd_bufferSize(sol, m, n, &j.lwork));
  j.work = dnew(j.lwork);
  printf("gesvd %dx%d: %.5f s\n", m, n, timed(gesvd_fn, &j));
  cudaFree(j.work);
  CK(cusolverDnCreateGesvdjInfo(&j.j));
  CK(cusolverDnDgesvdj_bufferSize(sol, CUSOLVER_EIG_MODE_VECTOR, 1, m, n, j.w, m, j.s, j.u, m, j.vt,
                                  n, &j.lwork, j.j));
  j.work = dnew(j.lwork);
  printf("gesvdj %dx%d: %.5f s\n", m, n, timed(gesvdj_fn, &j));
  cudaFree(j.work);
  CK(cusolverDnCreateParams(&j.params));
  CK(cusolverDnXgesvdp_bufferSize(sol, j.params, CUSOLVER_EIG_MODE_VECTOR, 1, m, n, CUDA_R_64F, j.w,
                                  m, CUDA_R_64F, j.s, CUDA_R_64F, j.u, m, CUDA_R_64F, j.vt, n,
                                  CUDA_R_64F, &j.dbytes, &j.hbytes));
  CK(cudaMalloc(&j.dwork, j.dbytes + 8));
  j.hwork = malloc(j.hbytes + 8);
  printf("Xgesvdp %dx%d: %.5f s\n", m, n, timed(gesvdp_fn, &j));
  CK(cusolverDnDsyevd_bufferSize(sol, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_UPPER, n, j.w, n,
                                 j.s, &j.lwork));
  j.work = dnew(j.lwork);
  printf("syrk+syevd %dx%d: %.5f s\n", m, n, timed(syevd_fn, &j));
  cudaFree(j.a), cudaFree(j.w), cudaFree(j.s), cudaFree(j.u), cudaFree(j.vt), cudaFree(j.work);
  cudaFree(j.dwork), free(j.hwork), cudaFree(j.info);
}

int main(void) {
  CK(cublasCreate(&blas));
  CK(cusolverDnCreate(&sol));
  CK(curandCreateGenerator(&gen, CURAND_RNG_PSEUDO_PHILOX4_32_10));
  cudaDeviceProp p;
  CK(cudaGetDeviceProperties(&p, 0));
  printf("device: %s, %d SMs\n", p.name, p.multiProcessorCount);
  { /* copy: 4 GiB read + 4 GiB written */
    job j = {1 << 19, 1024};
    j.a = dnew((size_t)j.m * j.n), j.w = dnew((size_t)j.m * j.n);
    fill(j.a, (size_t)j.m * j.n);
    double t = timed(copy_fn, &j);
    printf("d2d copy: %.2f TB/s (read + write)\n", 2.0 * 8 * j.m * (double)j.n / t / 1e12);
    cudaFree(j.a), cudaFree(j.w);
  }
  for (int n = 8192; n <= 16384; n *= 2) {
    job j = {n, n};
    j.a = dnew((size_t)n * n), j.w = dnew((size_t)n * n), j.u = dnew((size_t)n * n);
    fill(j.a, (size_t)n * n), fill(j.w, (size_t)n * n);
    double t = timed(gemm_fn, &j);
    printf("dgemm %d^3: %.5f s (%.1f TFLOP/s)\n", n, t, 2.0 * n * (double)n * n / t / 1e12);
    cudaFree(j.a), cudaFree(j.w), cudaFree(j.u);
  }
  int rows[] = {2000, 10000, 50000, 100000, 250000};
  for (int i = 0; i < 5; i++) qr_case(rows[i], 1000);
  svd_case(1000, 1000);
  svd_case(2000, 1000);
  return 0;
}
