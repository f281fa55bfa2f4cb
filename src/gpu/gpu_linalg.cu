/*
 * gpu_linalg.cu - the CUDA backend's dense kernels for src/linalg
 * (backend.h): thin QR, SVD and GEMM on row-major matrices in device
 * memory; no block of a matrix is copied to the host.
 *
 * Row-major storage: a row-major m x n matrix is the column-major n x m
 * matrix of its transpose (X = A^T below), so
 *   GEMM  C = A B (row-major) is C^T = B^T A^T (column-major): one dgemm with
 *         the operands swapped.
 *   QR    CholeskyQR2 when m >= n and the block is well conditioned: with
 *         G = A^T A = X X^T (syrk) = L L^T (potrf), Q1 = A L^-T is
 *         X <- L^-1 X (L^-1 formed once, applied by GEMM in panels: see
 *         apply_inverse) in place; a second pass on Q1 gives L2, and
 *         R = (L1 L2)^T, whose row-major upper triangle is the column-major
 *         lower triangle L1 L2 (trmm). Four GEMM-like passes over the block
 *         at matrix-unit speed, where cuSOLVER's Householder geqrf + orgqr
 *         runs at 5-7 TFLOP/s on tall blocks (bench/dense_ceilings.cu, an
 *         H100: 93 ms for 250000 x 1000). CholeskyQR2 keeps Q orthogonal to
 *         rounding while cond(A) stays far below 1e8; a block whose first
 *         Cholesky factor has a diagonal spread over 1e4 (cond(A) >= that),
 *         or whose Gram matrix is not positive definite (rank deficient),
 *         goes to Householder (geqrf + orgqr on a transposed copy) instead.
 *         The choice depends on the block's values only, so the bits do not
 *         depend on the rank or thread count.
 *   SVD   Xgesvdp (polar decomposition; 32 ms against gesvd's 145 ms for
 *         1000 x 1000 on an H100) on the tall column-major view, gesvd when
 *         it reports a failure: for m <= n the row-major a is the
 *         column-major a^T (n x m, tall), a^T = U' S V'^T gives a = V' S
 *         U'^T, so vt is U' as stored and u is V' transposed; for m > n a is
 *         transposed first.
 *   Gram  TSQR's Gram path (linalg/tsqr_gram.c): gram is syrk on X with its
 *         triangle mirrored, cholesky potrf on the column-major view (L is
 *         R^T, so its buffer is the row-major R), trsm_upper_right the
 *         explicit inverse applied in GEMM panels as for CholeskyQR2.
 *
 * Each host thread has its own cuSOLVER and cuBLAS handles on its own
 * stream (cudaStreamPerThread: linalg calls from OpenMP workers), so blocks
 * factor concurrently; workspaces come from the device pool, and every
 * call synchronizes its stream before returning, so a result may be read by
 * any thread next.
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
#include <stdlib.h>
#include <string.h>

extern "C" {
#include "util/error.h"
}
#include "gpu/gpu_check.h"
#include "gpu/gpu_device.h"
#include "gpu/gpu_linalg.h"

/* The library functions used here, from dlopen'ed libraries. */
#define LIB_FUNCTIONS(X)                                                      \
  X(solver_lib, cusolverDnCreate, "cusolverDnCreate")                         \
  X(solver_lib, cusolverDnDestroy, "cusolverDnDestroy")                       \
  X(solver_lib, cusolverDnSetStream, "cusolverDnSetStream")                   \
  X(solver_lib, cusolverDnCreateParams, "cusolverDnCreateParams")             \
  X(solver_lib, cusolverDnDestroyParams, "cusolverDnDestroyParams")           \
  X(solver_lib, cusolverDnDgeqrf_bufferSize, "cusolverDnDgeqrf_bufferSize")   \
  X(solver_lib, cusolverDnDgeqrf, "cusolverDnDgeqrf")                         \
  X(solver_lib, cusolverDnDorgqr_bufferSize, "cusolverDnDorgqr_bufferSize")   \
  X(solver_lib, cusolverDnDorgqr, "cusolverDnDorgqr")                         \
  X(solver_lib, cusolverDnDpotrf_bufferSize, "cusolverDnDpotrf_bufferSize")   \
  X(solver_lib, cusolverDnDpotrf, "cusolverDnDpotrf")                         \
  X(solver_lib, cusolverDnDgetrf_bufferSize, "cusolverDnDgetrf_bufferSize")   \
  X(solver_lib, cusolverDnDgetrf, "cusolverDnDgetrf")                         \
  X(solver_lib, cusolverDnDgesvd_bufferSize, "cusolverDnDgesvd_bufferSize")   \
  X(solver_lib, cusolverDnDgesvd, "cusolverDnDgesvd")                         \
  X(solver_lib, cusolverDnXgesvdp_bufferSize, "cusolverDnXgesvdp_bufferSize") \
  X(solver_lib, cusolverDnXgesvdp, "cusolverDnXgesvdp")                       \
  X(blas_lib, cublasCreate, "cublasCreate_v2")                                \
  X(blas_lib, cublasDestroy, "cublasDestroy_v2")                              \
  X(blas_lib, cublasSetStream, "cublasSetStream_v2")                          \
  X(blas_lib, cublasDgeam, "cublasDgeam")                                     \
  X(blas_lib, cublasDgemm, "cublasDgemm_v2")                                  \
  X(blas_lib, cublasDgemmStridedBatched, "cublasDgemmStridedBatched")         \
  X(blas_lib, cublasDsyrk, "cublasDsyrk_v2")                                  \
  X(blas_lib, cublasDtrsm, "cublasDtrsm_v2")                                  \
  X(blas_lib, cublasDtrmm, "cublasDtrmm_v2")

static struct {
  void *solver_lib, *blas_lib;
#define X(lib, fn, name) decltype(&::fn) fn;
  LIB_FUNCTIONS(X)
#undef X
} L;
static pthread_mutex_t load_lock = PTHREAD_MUTEX_INITIALIZER;

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

static int load_libraries(void) {
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
  return TSR_OK;
}

/* ---- handles: one pair per host thread ----------------------------------- */

typedef struct handles {
  cusolverDnHandle_t solver;
  cublasHandle_t blas;
  cusolverDnParams_t params;
} handles;

#define MAX_THREADS 256
static handles registry[MAX_THREADS]; /* every thread's, for the teardown */
static int nregistered;
static __thread int my_slot = -1;

/* This thread's handles (created on first use), on its own stream. */
static int get_handles(handles **h) {
  tsr_gpu_bind_device();
  if (my_slot >= 0 && registry[my_slot].blas) {
    *h = &registry[my_slot];
    return TSR_OK;
  }
  pthread_mutex_lock(&load_lock);
  int st = load_libraries();
  if (st == TSR_OK && nregistered >= MAX_THREADS)
    st = TSR_ERROR(TSR_ERR_BACKEND, "more than %d host threads call the GPU's dense kernels",
                   MAX_THREADS);
  if (st == TSR_OK) my_slot = nregistered++;
  pthread_mutex_unlock(&load_lock);
  if (st != TSR_OK) return st;
  handles *x = &registry[my_slot];
  CUSOLVER_CHECK_GOTO(st, L.cusolverDnCreate(&x->solver), done);
  CUSOLVER_CHECK_GOTO(st, L.cusolverDnSetStream(x->solver, cudaStreamPerThread), done);
  CUSOLVER_CHECK_GOTO(st, L.cusolverDnCreateParams(&x->params), done);
  CUBLAS_CHECK_GOTO(st, L.cublasCreate(&x->blas), done);
  CUBLAS_CHECK_GOTO(st, L.cublasSetStream(x->blas, cudaStreamPerThread), done);
  *h = x;
done:
  return st;
}

extern "C" void tsr_gpu_linalg_release(void) {
  pthread_mutex_lock(&load_lock);
  for (int i = 0; i < nregistered; i++) {
    handles *x = &registry[i];
    if (x->params) L.cusolverDnDestroyParams(x->params);
    if (x->solver) L.cusolverDnDestroy(x->solver);
    if (x->blas) L.cublasDestroy(x->blas);
    memset(x, 0, sizeof *x);
  }
  /* Threads keep their slot numbers; they are re-created in place. */
  pthread_mutex_unlock(&load_lock);
}

/* ---- helpers ------------------------------------------------------------- */

static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

/* n doubles of device memory from the pool, or an error naming what for. */
static int dalloc(size_t n, const char *what, int64_t m, int64_t cols, double **p) {
  int st = tsr_gpu_alloc(sizeof(double) * (n ? n : 1), p);
  if (st != TSR_OK)
    return TSR_ERROR(TSR_ERR_MEMORY, "out of GPU memory for a %lld x %lld %s", (long long)m,
                     (long long)cols, what);
  return TSR_OK;
}

static int sync_stream(void) {
  CUDA_CHECK(cudaStreamSynchronize(cudaStreamPerThread));
  return TSR_OK;
}

/* The status a cuSOLVER routine left in *d_info (after the stream is done). */
static int read_info(const int *d_info, int *info) {
  CUDA_CHECK(
      cudaMemcpyAsync(info, d_info, sizeof *info, cudaMemcpyDeviceToHost, cudaStreamPerThread));
  return sync_stream();
}

/* dst (cols x rows, column-major, ld cols) = src^T, src rows x cols
 * column-major (ld lds). */
static int transpose(handles *h, int64_t rows, int64_t cols, const double *src, int64_t lds,
                     double *dst) {
  int st = TSR_OK;
  const double one = 1.0, zero = 0.0;
  CUBLAS_CHECK_GOTO(st,
                    L.cublasDgeam(h->blas, CUBLAS_OP_T, CUBLAS_OP_N, (int)cols, (int)rows, &one,
                                  src, (int)lds, &zero, dst, (int)cols, dst, (int)cols),
                    done);
done:
  return st;
}

/* ---- QR ------------------------------------------------------------------- */

/* Workspace of one potrf of order n. */
static int potrf_work(handles *h, int64_t n, double *g, double **work, int *lwork) {
  int st = TSR_OK;
  CUSOLVER_CHECK_GOTO(
      st,
      L.cusolverDnDpotrf_bufferSize(h->solver, CUBLAS_FILL_MODE_LOWER, (int)n, g, (int)n, lwork),
      done);
  st = dalloc((size_t)*lwork + 1, "Cholesky factor", n, n, work);
done:
  return st;
}

/* X <- L^-1 X for X column-major n x m (ld n), in place: L^-1 is formed
 * once (a triangular solve against the identity, n^3 flops), then applied
 * by GEMM in panels of columns through tmp (n x TSR_QR_PANEL). cuBLAS's
 * trsm with many right-hand sides runs at about 10 TFLOP/s on an H100
 * (Nsight Compute, kernel_trsm_l_mul32), a GEMM at about 50: with twice the
 * flops the pass takes about 40 % of the time. Numerically this is
 * CholeskyQR with an explicit inverse: the first pass loses orthogonality
 * O(u cond(A)^2) either way, which the second pass (L close to I) removes;
 * the conditioning check above keeps cond(A) far below 1e8. */
#define TSR_QR_PANEL 16384
static int apply_inverse(handles *h, int64_t m, int64_t n, double *x, const double *l, double *linv,
                         double *tmp) {
  int st = TSR_OK;
  const double one = 1.0, zero = 0.0;
  TSR_CHECK(tsr_gpu_identity(n, linv));
  CUBLAS_CHECK_GOTO(st,
                    L.cublasDtrsm(h->blas, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N,
                                  CUBLAS_DIAG_NON_UNIT, (int)n, (int)n, &one, l, (int)n, linv,
                                  (int)n),
                    done);
  for (int64_t j = 0; j < m; j += TSR_QR_PANEL) {
    int64_t cols = m - j < TSR_QR_PANEL ? m - j : TSR_QR_PANEL;
    CUBLAS_CHECK_GOTO(st,
                      L.cublasDgemm(h->blas, CUBLAS_OP_N, CUBLAS_OP_N, (int)n, (int)cols, (int)n,
                                    &one, linv, (int)n, x + j * n, (int)n, &zero, tmp, (int)n),
                      done);
    CUDA_CHECK_GOTO(st,
                    cudaMemcpyAsync(x + j * n, tmp, sizeof(double) * (size_t)(n * cols),
                                    cudaMemcpyDeviceToDevice, cudaStreamPerThread),
                    done);
  }
done:
  return st;
}

/* One CholeskyQR pass over X (column-major n x m, ld n, in place):
 * G = X X^T = L L^T into g, X <- L^-1 X. *ok = 0 (X untouched) when G is
 * not positive definite or, on a first pass (check), when L's diagonal
 * spreads over 1e4. linv (n x n): L^-1 on return; tmp (n x panel):
 * workspace. defer: L^-1 is formed but not applied to X. */
static int cholqr_pass(handles *h, int64_t m, int64_t n, double *x, double *g, double *work,
                       int lwork, int *d_info, int check, double *linv, double *tmp, int defer,
                       int *ok) {
  int st = TSR_OK, info = 0;
  const double one = 1.0, zero = 0.0;
  *ok = 0;
  CUBLAS_CHECK_GOTO(st,
                    L.cublasDsyrk(h->blas, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, (int)n, (int)m,
                                  &one, x, (int)n, &zero, g, (int)n),
                    done);
  CUSOLVER_CHECK_GOTO(
      st,
      L.cusolverDnDpotrf(h->solver, CUBLAS_FILL_MODE_LOWER, (int)n, g, (int)n, work, lwork, d_info),
      done);
  TSR_CHECK_GOTO(st, read_info(d_info, &info), done);
  if (info != 0) return TSR_OK; /* not positive definite: rank deficient or too ill conditioned */
  if (check) {
    double *diag = (double *)malloc(sizeof(double) * (size_t)n), lo = 0, hi = 0;
    if (!diag) return TSR_ERROR(TSR_ERR_MEMORY, "out of memory");
    st = CUDA_STATUS(cudaMemcpy2DAsync(diag, sizeof(double), g, sizeof(double) * (size_t)(n + 1),
                                       sizeof(double), (size_t)n, cudaMemcpyDeviceToHost,
                                       cudaStreamPerThread));
    if (st == TSR_OK) st = sync_stream();
    for (int64_t i = 0; i < n && st == TSR_OK; i++) {
      double d = diag[i] < 0 ? -diag[i] : diag[i];
      if (i == 0 || d < lo) lo = d;
      if (i == 0 || d > hi) hi = d;
    }
    free(diag);
    if (st != TSR_OK) return st;
    if (!(lo > 0) || hi > 1e4 * lo) return TSR_OK;
  }
  TSR_CHECK_GOTO(st, tsr_gpu_upper_zero(n, n, n, g), done); /* the product L1 L2 reads all of L */
  TSR_CHECK_GOTO(st, apply_inverse(h, defer ? 0 : m, n, x, g, linv, tmp), done);
  *ok = 1;
done:
  return st;
}

/* CholeskyQR2 of a (m x n, m >= n) into q (may be a) and r; *ok = 0 when
 * the block must go to Householder instead (q then still holds a). With c,
 * the second pass's inverse is not applied: q is Q1 and c (row-major
 * upper = column-major lower L2^-1) the correction, Q = q c. */
static int cholqr2(handles *h, int64_t m, int64_t n, const double *a, double *q, double *r,
                   double *c, int *ok) {
  int st = TSR_OK, lwork = 0, ok2 = 0;
  double *g1 = NULL, *g2 = NULL, *work = NULL, *linv = NULL, *tmp = NULL;
  int *d_info = NULL;
  const double one = 1.0;
  int64_t panel = m < TSR_QR_PANEL ? m : TSR_QR_PANEL;
  *ok = 0;
  TSR_CHECK_GOTO(st, dalloc((size_t)(n * n), "QR", m, n, &g1), done);
  TSR_CHECK_GOTO(st, dalloc((size_t)(n * n), "QR", m, n, &g2), done);
  TSR_CHECK_GOTO(st, dalloc((size_t)(n * n), "QR", m, n, &linv), done);
  TSR_CHECK_GOTO(st, dalloc((size_t)(n * panel), "QR", m, n, &tmp), done);
  TSR_CHECK_GOTO(st, dalloc(1, "QR", m, n, (double **)&d_info), done);
  TSR_CHECK_GOTO(st, potrf_work(h, n, g1, &work, &lwork), done);
  if (q != a)
    CUDA_CHECK_GOTO(st,
                    cudaMemcpyAsync(q, a, sizeof(double) * (size_t)(m * n),
                                    cudaMemcpyDeviceToDevice, cudaStreamPerThread),
                    done);
  TSR_CHECK_GOTO(st, cholqr_pass(h, m, n, q, g1, work, lwork, d_info, 1, linv, tmp, 0, ok), done);
  if (!*ok) goto done;
  TSR_CHECK_GOTO(
      st, cholqr_pass(h, m, n, q, g2, work, lwork, d_info, 0, c ? c : linv, tmp, c != NULL, &ok2),
      done);
  if (!ok2) { /* Q1 is orthogonal to about cond(A)^2 u < 1e-8: cannot happen */
    st = TSR_ERROR(TSR_ERR_INTERNAL, "CholeskyQR2: the second Cholesky factor failed");
    goto done;
  }
  /* R^T = L1 L2 (lower triangular, column-major) is the row-major upper R
   * (both factors' upper triangles were zeroed by their passes). */
  CUBLAS_CHECK_GOTO(st,
                    L.cublasDtrmm(h->blas, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N,
                                  CUBLAS_DIAG_NON_UNIT, (int)n, (int)n, &one, g1, (int)n, g2,
                                  (int)n, r, (int)n),
                    done);
  TSR_CHECK_GOTO(st, tsr_gpu_upper_zero(n, n, n, r), done);
  st = sync_stream();
done:
  if (st != TSR_OK) *ok = 0;
  tsr_gpu_release(g1), tsr_gpu_release(g2), tsr_gpu_release(work);
  tsr_gpu_release(linv), tsr_gpu_release(tmp);
  tsr_gpu_release((double *)d_info);
  return st;
}

/* Householder QR (geqrf + orgqr) of a transposed copy of a: any shape. */
static int householder(handles *h, int64_t m, int64_t n, const double *a, double *q, double *r) {
  const char *what = "QR";
  int64_t kk = min64(m, n);
  int st = TSR_OK, lwork = 0, lwork2 = 0, info = 0;
  double *d_c = NULL, *d_tau = NULL, *d_work = NULL;
  int *d_info = NULL;
  TSR_CHECK_GOTO(st, dalloc((size_t)(m * n), what, m, n, &d_c), done);
  TSR_CHECK_GOTO(st, dalloc((size_t)kk + 1, what, m, n, &d_tau), done);
  TSR_CHECK_GOTO(st, dalloc(1, what, m, n, (double **)&d_info), done);
  TSR_CHECK_GOTO(st, transpose(h, n, m, a, n, d_c), done); /* column-major m x n, ld m */
  CUSOLVER_CHECK_GOTO(
      st, L.cusolverDnDgeqrf_bufferSize(h->solver, (int)m, (int)n, d_c, (int)m, &lwork), done);
  CUSOLVER_CHECK_GOTO(st,
                      L.cusolverDnDorgqr_bufferSize(h->solver, (int)m, (int)kk, (int)kk, d_c,
                                                    (int)m, d_tau, &lwork2),
                      done);
  if (lwork2 > lwork) lwork = lwork2;
  TSR_CHECK_GOTO(st, dalloc((size_t)lwork + 1, what, m, n, &d_work), done);
  CUSOLVER_CHECK_GOTO(
      st, L.cusolverDnDgeqrf(h->solver, (int)m, (int)n, d_c, (int)m, d_tau, d_work, lwork, d_info),
      done);
  TSR_CHECK_GOTO(st, read_info(d_info, &info), done);
  if (info != 0) {
    st = TSR_ERROR(TSR_ERR_INTERNAL, "cuSOLVER geqrf failed (info %d)", info);
    goto done;
  }
  /* R: the top kk rows, row-major (kk x n) = column-major n x kk; the
   * reflectors below the diagonal are zeroed (column-major upper part). */
  TSR_CHECK_GOTO(st, transpose(h, kk, n, d_c, m, r), done);
  TSR_CHECK_GOTO(st, tsr_gpu_upper_zero(n, kk, n, r), done);
  CUSOLVER_CHECK_GOTO(st,
                      L.cusolverDnDorgqr(h->solver, (int)m, (int)kk, (int)kk, d_c, (int)m, d_tau,
                                         d_work, lwork, d_info),
                      done);
  TSR_CHECK_GOTO(st, read_info(d_info, &info), done);
  if (info != 0) {
    st = TSR_ERROR(TSR_ERR_INTERNAL, "cuSOLVER orgqr failed (info %d)", info);
    goto done;
  }
  TSR_CHECK_GOTO(st, transpose(h, m, kk, d_c, m, q),
                 done); /* Q: m x kk column-major -> row-major */
  st = sync_stream();
done:
  tsr_gpu_release(d_c), tsr_gpu_release(d_tau), tsr_gpu_release(d_work);
  tsr_gpu_release((double *)d_info);
  return st;
}

extern "C" int tsr_gpu_qr_deferred(int64_t m, int64_t n, const double *a, double *q, double *r,
                                   double *c, int *has_c) {
  handles *h;
  *has_c = 0;
  TSR_CHECK(get_handles(&h));
  int ok = 0;
  if (n > 0) TSR_CHECK(cholqr2(h, m, n, a, q, r, c, &ok));
  if (ok) {
    *has_c = 1;
    return TSR_OK;
  }
  return householder(h, m, n, a, q, r);
}

extern "C" int tsr_gpu_qr(int64_t m, int64_t n, const double *a, double *q, double *r) {
  handles *h;
  TSR_CHECK(get_handles(&h));
  if (m >= n && n > 0) {
    int ok = 0;
    TSR_CHECK(cholqr2(h, m, n, a, q, r, NULL, &ok));
    if (ok) return TSR_OK;
  }
  return householder(h, m, n, a, q, r);
}

/* ---- the Gram path of TSQR ------------------------------------------------------ */

/* g = a^T a: the row-major a (m x n) is the column-major X = a^T (n x m),
 * so g = X X^T, syrk's lower triangle mirrored to the upper one. */
extern "C" int tsr_gpu_gram(int64_t m, int64_t n, const double *a, double *g) {
  if (n == 0) return TSR_OK;
  handles *h;
  TSR_CHECK(get_handles(&h));
  int st = TSR_OK;
  const double one = 1.0, zero = 0.0;
  CUBLAS_CHECK_GOTO(st,
                    L.cublasDsyrk(h->blas, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, (int)n, (int)m,
                                  &one, a, (int)n, &zero, g, (int)n),
                    done);
  TSR_CHECK_GOTO(st, tsr_gpu_lower_mirror(n, g), done);
  st = sync_stream();
done:
  return st;
}

/* potrf LOWER on the column-major view (the matrix is symmetric) gives L
 * with L L^T = a; L column-major is R = L^T row-major upper, R^T R = a. The
 * column-major strict upper triangle (row-major below the diagonal) is
 * zeroed. */
extern "C" int tsr_gpu_cholesky(int64_t n, double *a, int *ok) {
  *ok = 0;
  if (n == 0) return *ok = 1, TSR_OK;
  handles *h;
  TSR_CHECK(get_handles(&h));
  int st = TSR_OK, lwork = 0, info = 0;
  double *work = NULL;
  int *d_info = NULL;
  TSR_CHECK_GOTO(st, dalloc(1, "Cholesky factor", n, n, (double **)&d_info), done);
  TSR_CHECK_GOTO(st, potrf_work(h, n, a, &work, &lwork), done);
  CUSOLVER_CHECK_GOTO(
      st,
      L.cusolverDnDpotrf(h->solver, CUBLAS_FILL_MODE_LOWER, (int)n, a, (int)n, work, lwork, d_info),
      done);
  TSR_CHECK_GOTO(st, read_info(d_info, &info), done);
  if (info < 0) {
    st = TSR_ERROR(TSR_ERR_INTERNAL, "cuSOLVER potrf failed (info %d)", info);
    goto done;
  }
  *ok = info == 0;
  TSR_CHECK_GOTO(st, tsr_gpu_upper_zero(n, n, n, a), done);
  st = sync_stream();
done:
  tsr_gpu_release(work), tsr_gpu_release((double *)d_info);
  return st;
}

/* getrf on the column-major n x n a: LAPACK's packed L and U, its 1-based
 * pivots copied to ipiv (host). */
extern "C" int tsr_gpu_lu(int64_t n, double *a, int *ipiv, int *singular) {
  *singular = 0;
  if (n == 0) return TSR_OK;
  handles *h;
  TSR_CHECK(get_handles(&h));
  int st = TSR_OK, lwork = 0, info = 0;
  double *work = NULL, *dpiv = NULL;
  int *d_info = NULL;
  TSR_CHECK_GOTO(st, dalloc(1, "LU factor", n, n, (double **)&d_info), done);
  TSR_CHECK_GOTO(st, dalloc((size_t)n / 2 + 1, "LU factor", n, n, &dpiv), done);
  CUSOLVER_CHECK_GOTO(
      st, L.cusolverDnDgetrf_bufferSize(h->solver, (int)n, (int)n, a, (int)n, &lwork), done);
  TSR_CHECK_GOTO(st, dalloc((size_t)lwork + 1, "LU factor", n, n, &work), done);
  CUSOLVER_CHECK_GOTO(
      st, L.cusolverDnDgetrf(h->solver, (int)n, (int)n, a, (int)n, work, (int *)dpiv, d_info),
      done);
  CUDA_CHECK_GOTO(st,
                  cudaMemcpyAsync(ipiv, dpiv, sizeof(int) * (size_t)n, cudaMemcpyDeviceToHost,
                                  cudaStreamPerThread),
                  done);
  TSR_CHECK_GOTO(st, read_info(d_info, &info), done);
  if (info < 0) {
    st = TSR_ERROR(TSR_ERR_INTERNAL, "cuSOLVER getrf failed (info %d)", info);
    goto done;
  }
  *singular = info > 0;
done:
  tsr_gpu_release(work), tsr_gpu_release(dpiv), tsr_gpu_release((double *)d_info);
  return st;
}

/* a <- a R^-1 (row-major): on the column-major views X = a^T (n x m) and
 * L = R^T (R's buffer), X <- L^-1 X, by apply_inverse's explicit inverse
 * and GEMM panels. */
extern "C" int tsr_gpu_trsm_upper_right(int64_t m, int64_t n, const double *r, double *a) {
  if (m == 0 || n == 0) return TSR_OK;
  handles *h;
  TSR_CHECK(get_handles(&h));
  int st = TSR_OK;
  int64_t panel = m < TSR_QR_PANEL ? m : TSR_QR_PANEL;
  double *linv = NULL, *tmp = NULL;
  TSR_CHECK_GOTO(st, dalloc((size_t)(n * n), "triangular solve", m, n, &linv), done);
  TSR_CHECK_GOTO(st, dalloc((size_t)(n * panel), "triangular solve", m, n, &tmp), done);
  TSR_CHECK_GOTO(st, apply_inverse(h, m, n, a, r, linv, tmp), done);
  st = sync_stream();
done:
  tsr_gpu_release(linv), tsr_gpu_release(tmp);
  return st;
}

/* ---- SVD ------------------------------------------------------------------- */

/* SVD of the column-major rows x cols (rows >= cols) matrix c (destroyed):
 * s, U (rows x cols, ld rows) and V (cols x cols, ld cols; V, not V^T). */
static int svd_tall(handles *h, int64_t rows, int64_t cols, double *c, double *s, double *U,
                    double *V) {
  const char *what = "SVD";
  int st = TSR_OK, info = 0, lwork = 0;
  size_t dbytes = 0, hbytes = 0;
  double *dwork = NULL, *vt = NULL, *keep = NULL, herr = 0;
  void *hwork = NULL;
  int *d_info = NULL;
  TSR_CHECK_GOTO(st, dalloc(1, what, rows, cols, (double **)&d_info), done);
  TSR_CHECK_GOTO(st, dalloc((size_t)(rows * cols), what, rows, cols, &keep), done);
  CUDA_CHECK_GOTO(st,
                  cudaMemcpyAsync(keep, c, sizeof(double) * (size_t)(rows * cols),
                                  cudaMemcpyDeviceToDevice, cudaStreamPerThread),
                  done);
  CUSOLVER_CHECK_GOTO(st,
                      L.cusolverDnXgesvdp_bufferSize(h->solver, h->params, CUSOLVER_EIG_MODE_VECTOR,
                                                     1, rows, cols, CUDA_R_64F, c, rows, CUDA_R_64F,
                                                     s, CUDA_R_64F, U, rows, CUDA_R_64F, V, cols,
                                                     CUDA_R_64F, &dbytes, &hbytes),
                      done);
  TSR_CHECK_GOTO(st, dalloc(dbytes / 8 + 1, what, rows, cols, &dwork), done);
  if (!(hwork = malloc(hbytes + 8))) {
    st = TSR_ERROR(TSR_ERR_MEMORY, "out of memory for an SVD");
    goto done;
  }
  CUSOLVER_CHECK_GOTO(st,
                      L.cusolverDnXgesvdp(h->solver, h->params, CUSOLVER_EIG_MODE_VECTOR, 1, rows,
                                          cols, CUDA_R_64F, c, rows, CUDA_R_64F, s, CUDA_R_64F, U,
                                          rows, CUDA_R_64F, V, cols, CUDA_R_64F, dwork, dbytes,
                                          hwork, hbytes, d_info, &herr),
                      done);
  TSR_CHECK_GOTO(st, read_info(d_info, &info), done);
  if (info == 0) goto done;
  /* gesvdp did not converge: gesvd (QR iteration) on the kept copy. */
  tsr_gpu_release(dwork);
  dwork = NULL;
  CUSOLVER_CHECK_GOTO(st, L.cusolverDnDgesvd_bufferSize(h->solver, (int)rows, (int)cols, &lwork),
                      done);
  TSR_CHECK_GOTO(st, dalloc((size_t)lwork + 1, what, rows, cols, &dwork), done);
  TSR_CHECK_GOTO(st, dalloc((size_t)(cols * cols), what, rows, cols, &vt), done);
  CUSOLVER_CHECK_GOTO(st,
                      L.cusolverDnDgesvd(h->solver, 'S', 'S', (int)rows, (int)cols, keep, (int)rows,
                                         s, U, (int)rows, vt, (int)cols, dwork, lwork, NULL,
                                         d_info),
                      done);
  TSR_CHECK_GOTO(st, read_info(d_info, &info), done);
  if (info != 0) {
    st = TSR_ERROR(TSR_ERR_INTERNAL, "cuSOLVER gesvd failed (info %d)", info);
    goto done;
  }
  TSR_CHECK_GOTO(st, transpose(h, cols, cols, vt, cols, V), done); /* V = (V^T)^T */
done:
  if (st == TSR_OK) st = sync_stream();
  tsr_gpu_release(dwork), tsr_gpu_release(vt), tsr_gpu_release(keep);
  tsr_gpu_release((double *)d_info);
  free(hwork);
  return st;
}

extern "C" int tsr_gpu_svd(int64_t m, int64_t n, const double *a, double *s, double *u,
                           double *vt) {
  const char *what = "SVD";
  handles *h;
  TSR_CHECK(get_handles(&h));
  int64_t p = min64(m, n);
  int st = TSR_OK;
  double *c = NULL, *U = NULL, *V = NULL;
  if (p == 0) return TSR_OK;
  TSR_CHECK_GOTO(st, dalloc((size_t)(m * n), what, m, n, &c), done);
  TSR_CHECK_GOTO(st, dalloc((size_t)(p * p), what, m, n, &V), done);
  if (m <= n) { /* the row-major a is the column-major a^T (n x m, tall) */
    CUDA_CHECK_GOTO(st,
                    cudaMemcpyAsync(c, a, sizeof(double) * (size_t)(m * n),
                                    cudaMemcpyDeviceToDevice, cudaStreamPerThread),
                    done);
    /* a^T = U' S V'^T: vt (m x n) is U' as stored, u (m x m) is V' transposed */
    TSR_CHECK_GOTO(st, svd_tall(h, n, m, c, s, vt, V), done);
    TSR_CHECK_GOTO(st, transpose(h, m, m, V, m, u), done);
  } else { /* column-major m x n: u (m x n) is U transposed, vt (n x n) is V as stored */
    TSR_CHECK_GOTO(st, transpose(h, n, m, a, n, c), done);
    TSR_CHECK_GOTO(st, dalloc((size_t)(m * n), what, m, n, &U), done);
    TSR_CHECK_GOTO(st, svd_tall(h, m, n, c, s, U, V), done);
    TSR_CHECK_GOTO(st, transpose(h, m, n, U, m, u), done);
    CUDA_CHECK_GOTO(st,
                    cudaMemcpyAsync(vt, V, sizeof(double) * (size_t)(n * n),
                                    cudaMemcpyDeviceToDevice, cudaStreamPerThread),
                    done);
  }
  st = sync_stream();
done:
  tsr_gpu_release(c), tsr_gpu_release(U), tsr_gpu_release(V);
  return st;
}

/* ---- GEMM ------------------------------------------------------------------ */

extern "C" int tsr_gpu_gemm_tn_async(int64_t m, int64_t n, int64_t k, const double *a, int64_t lda,
                                     int64_t sa, const double *b, int64_t ldb, int64_t sb,
                                     double *c, int64_t ldc, int64_t sc, int64_t batch) {
  if (m == 0 || n == 0 || k == 0 || batch == 0) return TSR_OK;
  handles *h;
  TSR_CHECK(get_handles(&h));
  int st = TSR_OK;
  const double one = 1.0, zero = 0.0;
  /* C^T (n x m) = B^T A: column-major views B^T (n x k) and A^T (m x k), the latter transposed */
  CUBLAS_CHECK_GOTO(st,
                    L.cublasDgemmStridedBatched(h->blas, CUBLAS_OP_N, CUBLAS_OP_T, (int)n, (int)m,
                                                (int)k, &one, b, (int)ldb, (long long)sb, a,
                                                (int)lda, (long long)sa, &zero, c, (int)ldc,
                                                (long long)sc, (int)batch),
                    done);
done:
  return st;
}

extern "C" int tsr_gpu_gemm(int64_t m, int64_t n, int64_t k, const double *a, int64_t lda,
                            const double *b, int64_t ldb, double beta, double *c, int64_t ldc) {
  if (m == 0 || n == 0) return TSR_OK;
  handles *h;
  TSR_CHECK(get_handles(&h));
  int st = TSR_OK;
  const double one = 1.0, zero = 0.0;
  if (k > 0) /* C^T (n x m) = B^T (n x k) A^T (k x m), column-major views of the row-major arrays */
    CUBLAS_CHECK_GOTO(st,
                      L.cublasDgemm(h->blas, CUBLAS_OP_N, CUBLAS_OP_N, (int)n, (int)m, (int)k, &one,
                                    b, (int)ldb, a, (int)lda, &beta, c, (int)ldc),
                      done);
  else if (beta == 0.0)
    CUDA_CHECK_GOTO(st,
                    cudaMemset2DAsync(c, sizeof(double) * (size_t)ldc, 0,
                                      sizeof(double) * (size_t)n, (size_t)m, cudaStreamPerThread),
                    done);
  else if (beta != 1.0) /* c = beta c, in place */
    CUBLAS_CHECK_GOTO(st,
                      L.cublasDgeam(h->blas, CUBLAS_OP_N, CUBLAS_OP_N, (int)n, (int)m, &beta, c,
                                    (int)ldc, &zero, c, (int)ldc, c, (int)ldc),
                      done);
  st = sync_stream();
done:
  return st;
}
