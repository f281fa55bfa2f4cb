/*
 * gpu_check.h - the one way the CUDA backend turns a failing call of the
 * CUDA runtime, NCCL, cuBLAS or cuSOLVER into a tessera error: the call's
 * text and the library's own message or status, recorded at the caller's
 * file and line. CHECK returns the status; CHECK_GOTO stores it and jumps to
 * the label that releases what the function holds (TSR_CHECK_GOTO).
 * Include the library's header before this one for its macros to exist.
 */
#ifndef TSR_GPU_CHECK_H
#define TSR_GPU_CHECK_H

#include <cuda_runtime.h>

extern "C" {
#include "util/error.h"
}

static inline int tsr_cuda_status(cudaError_t e, const char *call, const char *file, int line) {
  if (e == cudaSuccess) return TSR_OK;
  return tsr_error_set(TSR_ERR_BACKEND, file, line, "%s failed: %s", call, cudaGetErrorString(e));
}
#define CUDA_STATUS(call) tsr_cuda_status((call), #call, __FILE__, __LINE__)
#define CUDA_CHECK(call) TSR_CHECK(CUDA_STATUS(call))
#define CUDA_CHECK_GOTO(st, call, label) TSR_CHECK_GOTO(st, CUDA_STATUS(call), label)

#ifdef NCCL_H_
static inline int tsr_nccl_status(ncclResult_t r, const char *call, const char *file, int line) {
  if (r == ncclSuccess) return TSR_OK;
  return tsr_error_set(TSR_ERR_COMM, file, line, "%s failed: %s", call, ncclGetErrorString(r));
}
#define NCCL_CHECK(call) TSR_CHECK(tsr_nccl_status((call), #call, __FILE__, __LINE__))
#endif

/* cuBLAS and cuSOLVER report a status number (their calls go through
 * function pointers loaded with dlopen: gpu_linalg.cu). */
static inline int tsr_gpulib_status(int ok, int status, const char *lib, const char *call,
                                    const char *file, int line) {
  if (ok) return TSR_OK;
  return tsr_error_set(TSR_ERR_BACKEND, file, line, "%s failed: %s status %d", call, lib, status);
}
/* One check of a call returning a library status of type T that is ok when
 * equal to OK; then one line per library. */
#define GPULIB_CHECK_GOTO(st, T, OK, lib, call, label)                                         \
  do {                                                                                         \
    T s_ = (call);                                                                             \
    TSR_CHECK_GOTO(st, tsr_gpulib_status(s_ == (OK), (int)s_, lib, #call, __FILE__, __LINE__), \
                   label);                                                                     \
  } while (0)
#define CUBLAS_CHECK_GOTO(st, call, label) \
  GPULIB_CHECK_GOTO(st, cublasStatus_t, CUBLAS_STATUS_SUCCESS, "cuBLAS", call, label)
#define CUSOLVER_CHECK_GOTO(st, call, label) \
  GPULIB_CHECK_GOTO(st, cusolverStatus_t, CUSOLVER_STATUS_SUCCESS, "cuSOLVER", call, label)

/* Blocks of a grid-stride launch of `threads` a block over n elements (at
 * least 1, at most 65536). */
static inline unsigned tsr_gpu_grid_for(long long n, int threads) {
  long long blocks = (n + threads - 1) / threads;
  return (unsigned)(blocks < 1 ? 1 : blocks < 65536 ? blocks : 65536);
}

/* The launches of this thread's stream so far, finished: TSR_OK, or the
 * CUDA error of `what`. */
static inline int tsr_gpu_finish(const char *what) {
  cudaError_t e = cudaGetLastError();
  if (e == cudaSuccess) e = cudaStreamSynchronize(cudaStreamPerThread);
  if (e != cudaSuccess)
    return TSR_ERROR(TSR_ERR_BACKEND, "GPU %s failed: %s", what, cudaGetErrorString(e));
  return TSR_OK;
}

#endif
