/*
 * gpu_linalg.cu - the CUDA backend's dense kernels for src/linalg
 * (backend.h): thin QR (cuSOLVER geqrf + orgqr), SVD (cuSOLVER gesvd) and
 * GEMM (cuBLAS dgemm), computed on device copies of row-major host matrices.
 *
 * Status: compiled on every CUDA build, not yet run on a GPU (the session
 * that wrote them had no GPU time left). linalg uses them only when
 * TESSERA_GPU_LINALG=1 (read in job/, handed to setup as cfg->dense), and
 * tests/gpu_backend.sh checks them against the CPU kernels on GPU nodes.
 *
 * Row-major storage: a row-major m x n matrix is the column-major n x m
 * matrix of its transpose, so
 *   GEMM  C = A B (row-major) is C^T = B^T A^T (column-major): one dgemm with
 *         the operands swapped;
 *   QR    A is transposed on the device (geam) to column-major, factored,
 *         and Q and R transposed back;
 *   SVD   for m <= n the row-major a is the column-major a^T (n x m, tall),
 *         whose gesvd a^T = U' S V'^T gives a = V' S U'^T: u = V' and
 *         vt = U'^T, which read as row-major arrays are exactly the
 *         column-major VT' and U' that gesvd writes; for m > n a is
 *         transposed to column-major first and u, vt transposed back.
 *
 * One cuSOLVER and one cuBLAS handle for the process, used under a lock
 * (linalg calls from OpenMP threads; each call is large enough to fill the
 * GPU), on the calling thread's default stream.
 *
 * cuSOLVER and cuBLAS are loaded on first use (dlopen), not linked: linked,
 * they and what they pull in (cublasLt, cusparse, nvJitLink) add about 250 MB
 * of resident memory and 0.1 s to the start of every tessera process, on the
 * CPU backend too (measured: tessera --version, 22 MB and 0.35 s without,
 * 280 MB and 0.45 s with).
 */
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusolverDn.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

extern "C" {
#include "util/error.h"
}
#include "gpu/gpu_check.h"
#include "gpu/gpu_linalg.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static cusolverDnHandle_t solver;
static cublasHandle_t blas;

/* The library functions used here, from dlopen'ed libraries. */
#define LIB_FUNCTIONS(X)                                                    \
  X(solver_lib, cusolverDnCreate, "cusolverDnCreate")                       \
  X(solver_lib, cusolverDnDestroy, "cusolverDnDestroy")                     \
  X(solver_lib, cusolverDnSetStream, "cusolverDnSetStream")                 \
  X(solver_lib, cusolverDnDgeqrf_bufferSize, "cusolverDnDgeqrf_bufferSize") \
  X(solver_lib, cusolverDnDgeqrf, "cusolverDnDgeqrf")                       \
  X(solver_lib, cusolverDnDorgqr_bufferSize, "cusolverDnDorgqr_bufferSize") \
  X(solver_lib, cusolverDnDorgqr, "cusolverDnDorgqr")                       \
  X(solver_lib, cusolverDnDgesvd_bufferSize, "cusolverDnDgesvd_bufferSize") \
  X(solver_lib, cusolverDnDgesvd, "cusolverDnDgesvd")                       \
  X(blas_lib, cublasCreate, "cublasCreate_v2")                              \
  X(blas_lib, cublasDestroy, "cublasDestroy_v2")                            \
  X(blas_lib, cublasSetStream, "cublasSetStream_v2")                        \
  X(blas_lib, cublasDgeam, "cublasDgeam")                                   \
  X(blas_lib, cublasDgemm, "cublasDgemm_v2")                                \
  X(blas_lib, cublasDscal, "cublasDscal_v2")

static struct {
  void *solver_lib, *blas_lib;
#define X(lib, fn, name) decltype(&::fn) fn;
  LIB_FUNCTIONS(X)
#undef X
} L;

/* libNAME.so.MAJOR (the version built against), else libNAME.so. */
static void *open_lib(const char *name, int major) {
  char file[64];
  snprintf(file, sizeof file, "lib%s.so.%d", name, major);
  void *h = dlopen(file, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    snprintf(file, sizeof file, "lib%s.so", name);
    h = dlopen(file, RTLD_NOW | RTLD_LOCAL);
  }
  return h;
}

/* Loads cuSOLVER and cuBLAS (once), then the handles on this thread's
 * default stream. Called under the lock. */
static int handles(void) {
  int st = TSR_OK;
  if (!L.solver_lib && !(L.solver_lib = open_lib("cusolver", CUSOLVER_VER_MAJOR)))
    return TSR_ERROR(TSR_ERR_BACKEND, "cannot load cuSOLVER (libcusolver.so.%d): %s",
                     CUSOLVER_VER_MAJOR, dlerror());
  if (!L.blas_lib && !(L.blas_lib = open_lib("cublas", CUBLAS_VER_MAJOR)))
    return TSR_ERROR(TSR_ERR_BACKEND, "cannot load cuBLAS (libcublas.so.%d): %s", CUBLAS_VER_MAJOR,
                     dlerror());
#define X(lib, fn, name)                                      \
  if (!L.fn && !(L.fn = (decltype(&::fn))dlsym(L.lib, name))) \
    return TSR_ERROR(TSR_ERR_BACKEND, "no %s in the CUDA math libraries", name);
  LIB_FUNCTIONS(X)
#undef X
  if (!solver) CUSOLVER_CHECK_GOTO(st, L.cusolverDnCreate(&solver), done);
  if (!blas) CUBLAS_CHECK_GOTO(st, L.cublasCreate(&blas), done);
  CUSOLVER_CHECK_GOTO(st, L.cusolverDnSetStream(solver, cudaStreamPerThread), done);
  CUBLAS_CHECK_GOTO(st, L.cublasSetStream(blas, cudaStreamPerThread), done);
done:
  return st;
}

/* dst (cols x rows, column-major, ld cols) = src^T, src rows x cols column-major (ld lds). */
static int transpose(int64_t rows, int64_t cols, const double *src, int64_t lds, double *dst) {
  int st = TSR_OK;
  const double one = 1.0, zero = 0.0;
  CUBLAS_CHECK_GOTO(st,
                    L.cublasDgeam(blas, CUBLAS_OP_T, CUBLAS_OP_N, (int)cols, (int)rows, &one, src,
                                  (int)lds, &zero, dst, (int)cols, dst, (int)cols),
                    done);
done:
  return st;
}

/* The status a cuSOLVER routine left in *d_info. */
static int solver_info(const int *d_info, const char *what) {
  int info = 0, st = TSR_OK;
  CUDA_CHECK_GOTO(
      st, cudaMemcpyAsync(&info, d_info, sizeof info, cudaMemcpyDeviceToHost, cudaStreamPerThread),
      done);
  CUDA_CHECK_GOTO(st, cudaStreamSynchronize(cudaStreamPerThread), done);
  if (info != 0) st = TSR_ERROR(TSR_ERR_INTERNAL, "cuSOLVER %s failed (info %d)", what, info);
done:
  return st;
}

static void *dalloc(size_t bytes) {
  void *p = NULL;
  return cudaMalloc(&p, bytes + 8) == cudaSuccess ? p : NULL;
}

#define ALLOC(p, n)                                                                             \
  do {                                                                                          \
    if (!((p) = (double *)dalloc(sizeof(double) * (size_t)(n)))) {                              \
      st = TSR_ERROR(TSR_ERR_MEMORY, "out of device memory for a %lld x %lld %s", (long long)m, \
                     (long long)n_, what);                                                      \
      goto done;                                                                                \
    }                                                                                           \
  } while (0)

static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

extern "C" int tsr_gpu_qr(int64_t m, int64_t n, const double *a, double *q, double *r) {
  const char *what = "QR";
  int64_t n_ = n, kk = min64(m, n);
  int st = TSR_OK, lwork = 0, lwork2 = 0;
  double *d_a = NULL, *d_c = NULL, *d_tau = NULL, *d_work = NULL, *d_t = NULL;
  int *d_info = NULL;
  pthread_mutex_lock(&lock);
  if ((st = handles()) != TSR_OK) goto done;
  ALLOC(d_a, m * n);
  ALLOC(d_c, m * n);
  ALLOC(d_tau, kk + 1);
  ALLOC(d_t, m * n);
  CUDA_CHECK_GOTO(st, cudaMalloc(&d_info, sizeof(int)), done);
  CUDA_CHECK_GOTO(st,
                  cudaMemcpyAsync(d_a, a, sizeof(double) * (size_t)(m * n), cudaMemcpyHostToDevice,
                                  cudaStreamPerThread),
                  done);
  if ((st = transpose(n, m, d_a, n, d_c)) != TSR_OK) goto done; /* column-major m x n, ld m */
  CUSOLVER_CHECK_GOTO(
      st, L.cusolverDnDgeqrf_bufferSize(solver, (int)m, (int)n, d_c, (int)m, &lwork), done);
  CUSOLVER_CHECK_GOTO(
      st,
      L.cusolverDnDorgqr_bufferSize(solver, (int)m, (int)kk, (int)kk, d_c, (int)m, d_tau, &lwork2),
      done);
  if (lwork2 > lwork) lwork = lwork2;
  ALLOC(d_work, lwork + 1);
  CUSOLVER_CHECK_GOTO(
      st, L.cusolverDnDgeqrf(solver, (int)m, (int)n, d_c, (int)m, d_tau, d_work, lwork, d_info),
      done);
  if ((st = solver_info(d_info, "geqrf")) != TSR_OK) goto done;
  /* R: the top kk rows, row-major (kk x n) = column-major n x kk. */
  if ((st = transpose(kk, n, d_c, m, d_t)) != TSR_OK) goto done;
  CUDA_CHECK_GOTO(st,
                  cudaMemcpyAsync(r, d_t, sizeof(double) * (size_t)(kk * n), cudaMemcpyDeviceToHost,
                                  cudaStreamPerThread),
                  done);
  CUSOLVER_CHECK_GOTO(st,
                      L.cusolverDnDorgqr(solver, (int)m, (int)kk, (int)kk, d_c, (int)m, d_tau,
                                         d_work, lwork, d_info),
                      done);
  if ((st = solver_info(d_info, "orgqr")) != TSR_OK) goto done;
  /* Q: m x kk column-major (ld m) -> row-major. */
  if ((st = transpose(m, kk, d_c, m, d_t)) != TSR_OK) goto done;
  CUDA_CHECK_GOTO(st,
                  cudaMemcpyAsync(q, d_t, sizeof(double) * (size_t)(m * kk), cudaMemcpyDeviceToHost,
                                  cudaStreamPerThread),
                  done);
  CUDA_CHECK_GOTO(st, cudaStreamSynchronize(cudaStreamPerThread), done);
  for (int64_t i = 0; i < kk; i++) /* geqrf leaves the reflectors below the diagonal */
    for (int64_t j = 0; j < i && j < n; j++) r[i * n + j] = 0.0;
done:
  cudaFree(d_a), cudaFree(d_c), cudaFree(d_tau), cudaFree(d_work), cudaFree(d_t), cudaFree(d_info);
  pthread_mutex_unlock(&lock);
  return st;
}

extern "C" int tsr_gpu_svd(int64_t m, int64_t n, const double *a, double *s, double *u,
                           double *vt) {
  const char *what = "SVD";
  int64_t n_ = n, p = min64(m, n), rows = m <= n ? n : m,
          cols = p; /* the column-major tall problem */
  int st = TSR_OK, lwork = 0;
  double *d_a = NULL, *d_c = NULL, *d_s = NULL, *d_u = NULL, *d_vt = NULL, *d_work = NULL,
         *d_t = NULL;
  int *d_info = NULL;
  pthread_mutex_lock(&lock);
  if ((st = handles()) != TSR_OK) goto done;
  ALLOC(d_a, m * n);
  ALLOC(d_s, p);
  ALLOC(d_u, rows * cols);
  ALLOC(d_vt, cols * cols);
  CUDA_CHECK_GOTO(st, cudaMalloc(&d_info, sizeof(int)), done);
  CUDA_CHECK_GOTO(st,
                  cudaMemcpyAsync(d_a, a, sizeof(double) * (size_t)(m * n), cudaMemcpyHostToDevice,
                                  cudaStreamPerThread),
                  done);
  d_c = d_a; /* m <= n: the row-major a is the column-major n x m a^T as it is */
  if (m > n) {
    ALLOC(d_t, m * n);
    if ((st = transpose(n, m, d_a, n, d_t)) != TSR_OK) goto done; /* column-major m x n */
    d_c = d_t;
  }
  CUSOLVER_CHECK_GOTO(st, L.cusolverDnDgesvd_bufferSize(solver, (int)rows, (int)cols, &lwork),
                      done);
  ALLOC(d_work, lwork + 1);
  CUSOLVER_CHECK_GOTO(st,
                      L.cusolverDnDgesvd(solver, 'S', 'S', (int)rows, (int)cols, d_c, (int)rows,
                                         d_s, d_u, (int)rows, d_vt, (int)cols, d_work, lwork, NULL,
                                         d_info),
                      done);
  if ((st = solver_info(d_info, "gesvd")) != TSR_OK) goto done;
  CUDA_CHECK_GOTO(st,
                  cudaMemcpyAsync(s, d_s, sizeof(double) * (size_t)p, cudaMemcpyDeviceToHost,
                                  cudaStreamPerThread),
                  done);
  if (m <= n) { /* u (m x m) = V' = VT' read row-major; vt (m x n) = U'^T = U' read row-major */
    CUDA_CHECK_GOTO(st,
                    cudaMemcpyAsync(u, d_vt, sizeof(double) * (size_t)(m * m),
                                    cudaMemcpyDeviceToHost, cudaStreamPerThread),
                    done);
    CUDA_CHECK_GOTO(st,
                    cudaMemcpyAsync(vt, d_u, sizeof(double) * (size_t)(m * n),
                                    cudaMemcpyDeviceToHost, cudaStreamPerThread),
                    done);
  } else { /* a = U S V^T column-major: u (m x n) and vt (n x n) transposed to row-major */
    if ((st = transpose(m, n, d_u, m, d_a)) != TSR_OK) goto done;
    CUDA_CHECK_GOTO(st,
                    cudaMemcpyAsync(u, d_a, sizeof(double) * (size_t)(m * n),
                                    cudaMemcpyDeviceToHost, cudaStreamPerThread),
                    done);
    CUDA_CHECK_GOTO(st, cudaStreamSynchronize(cudaStreamPerThread), done);
    if ((st = transpose(n, n, d_vt, n, d_a)) != TSR_OK) goto done;
    CUDA_CHECK_GOTO(st,
                    cudaMemcpyAsync(vt, d_a, sizeof(double) * (size_t)(n * n),
                                    cudaMemcpyDeviceToHost, cudaStreamPerThread),
                    done);
  }
  CUDA_CHECK_GOTO(st, cudaStreamSynchronize(cudaStreamPerThread), done);
done:
  cudaFree(d_a), cudaFree(d_s), cudaFree(d_u), cudaFree(d_vt), cudaFree(d_work), cudaFree(d_t),
      cudaFree(d_info);
  pthread_mutex_unlock(&lock);
  return st;
}

extern "C" int tsr_gpu_gemm(int64_t m, int64_t n, int64_t k, const double *a, int64_t lda,
                            const double *b, int64_t ldb, double beta, double *c, int64_t ldc) {
  const char *what = "matrix product";
  int64_t n_ = n;
  int st = TSR_OK;
  const double one = 1.0;
  double *d_a = NULL, *d_b = NULL, *d_c = NULL;
  if (m == 0 || n == 0) return TSR_OK;
  pthread_mutex_lock(&lock);
  if ((st = handles()) != TSR_OK) goto done;
  ALLOC(d_a, m * (k ? k : 1));
  ALLOC(d_b, (k ? k : 1) * n);
  ALLOC(d_c, m * n);
  if (k > 0) {
    CUDA_CHECK_GOTO(st,
                    cudaMemcpy2DAsync(d_a, sizeof(double) * (size_t)k, a,
                                      sizeof(double) * (size_t)lda, sizeof(double) * (size_t)k,
                                      (size_t)m, cudaMemcpyHostToDevice, cudaStreamPerThread),
                    done);
    CUDA_CHECK_GOTO(st,
                    cudaMemcpy2DAsync(d_b, sizeof(double) * (size_t)n, b,
                                      sizeof(double) * (size_t)ldb, sizeof(double) * (size_t)n,
                                      (size_t)k, cudaMemcpyHostToDevice, cudaStreamPerThread),
                    done);
  }
  if (beta != 0.0)
    CUDA_CHECK_GOTO(st,
                    cudaMemcpy2DAsync(d_c, sizeof(double) * (size_t)n, c,
                                      sizeof(double) * (size_t)ldc, sizeof(double) * (size_t)n,
                                      (size_t)m, cudaMemcpyHostToDevice, cudaStreamPerThread),
                    done);
  else
    CUDA_CHECK_GOTO(
        st, cudaMemsetAsync(d_c, 0, sizeof(double) * (size_t)(m * n), cudaStreamPerThread), done);
  if (k >
      0) /* C^T (n x m) = B^T (n x k) A^T (k x m), all column-major views of the row-major arrays */
    CUBLAS_CHECK_GOTO(st,
                      L.cublasDgemm(blas, CUBLAS_OP_N, CUBLAS_OP_N, (int)n, (int)m, (int)k, &one,
                                    d_b, (int)n, d_a, (int)k, &beta, d_c, (int)n),
                      done);
  else if (beta != 0.0 && beta != 1.0)
    CUBLAS_CHECK_GOTO(st, L.cublasDscal(blas, (int)(m * n), &beta, d_c, 1), done);
  CUDA_CHECK_GOTO(st,
                  cudaMemcpy2DAsync(c, sizeof(double) * (size_t)ldc, d_c,
                                    sizeof(double) * (size_t)n, sizeof(double) * (size_t)n,
                                    (size_t)m, cudaMemcpyDeviceToHost, cudaStreamPerThread),
                  done);
  CUDA_CHECK_GOTO(st, cudaStreamSynchronize(cudaStreamPerThread), done);
done:
  cudaFree(d_a), cudaFree(d_b), cudaFree(d_c);
  pthread_mutex_unlock(&lock);
  return st;
}

extern "C" void tsr_gpu_linalg_release(void) {
  pthread_mutex_lock(&lock);
  if (solver) L.cusolverDnDestroy(solver);
  if (blas) L.cublasDestroy(blas);
  solver = NULL;
  blas = NULL;
  pthread_mutex_unlock(&lock);
}
