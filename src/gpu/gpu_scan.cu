/*
 * gpu_scan.cu - the CUDA backend's scan ops (backend.h: scan, scan_carry)
 * with the shared scalar tsr_ew_binary (kernel/ew_scalar.h). A chunk of
 * one line (a 1-d chunk, or a flattened scan) is scanned by CUB's
 * DeviceScan (a decoupled look-back scan: its order of combination is fixed
 * by the length, so a chunk gives the same bits on every call); chunks of
 * many lines run one thread per line, sequentially along the axis, with
 * consecutive threads on consecutive inner values (coalesced). Everything
 * runs on the calling thread's stream and is complete on return.
 */
#include <cuda_runtime.h>
#include <limits.h>
#include <stdint.h>

#include <cub/device/device_scan.cuh>

extern "C" {
#include "util/error.h"
}
#include "gpu/gpu_check.h"
#include "gpu/gpu_device.h"
#include "gpu/gpu_linalg.h"
#include "kernel/dtype.h"
#include "kernel/ew_scalar.h"

#define THREADS 256

static unsigned blocks_for(long long n) {
  long long b = (n + THREADS - 1) / THREADS;
  return (unsigned)(b < 1 ? 1 : b < 65536 ? b : 65536);
}

static int finish(const char *what) {
  cudaError_t e = cudaGetLastError();
  if (e == cudaSuccess) e = cudaStreamSynchronize(cudaStreamPerThread);
  if (e != cudaSuccess)
    return TSR_ERROR(TSR_ERR_BACKEND, "GPU %s failed: %s", what, cudaGetErrorString(e));
  return TSR_OK;
}

struct scan_op {
  int op;
  __host__ __device__ double operator()(double x, double y) const {
    return tsr_ew_binary(op, x, y);
  }
};

__global__ static void nan_kernel(long long n, double *a, double identity) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x)
    if (a[i] != a[i]) a[i] = identity;
}

__global__ static void lines_kernel(long long outer, long long len, long long inner, double *a,
                                    int op, double identity, int nan) {
  long long lines = outer * inner;
  for (long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x; t < lines;
       t += (long long)gridDim.x * blockDim.x) {
    double *p = a + (t / inner) * len * inner + t % inner, acc = 0.0;
    for (long long l = 0; l < len; l++) {
      double v = p[l * inner];
      if (nan && v != v) v = identity;
      acc = l ? tsr_ew_binary(op, acc, v) : v;
      p[l * inner] = acc;
    }
  }
}

/* One line of n values by CUB, through a scratch copy of the output. */
static int scan_one_line(long long n, double *a, int op) {
  double *out = NULL, *tmp = NULL;
  size_t tmp_bytes = 0;
  scan_op f = {op};
  int st = CUDA_STATUS(
      cub::DeviceScan::InclusiveScan(NULL, tmp_bytes, a, a, f, (int)n, cudaStreamPerThread));
  if (st == TSR_OK) st = tsr_gpu_alloc(sizeof(double) * (size_t)n, &out);
  if (st == TSR_OK) st = tsr_gpu_alloc(tmp_bytes ? tmp_bytes : 8, &tmp);
  if (st == TSR_OK)
    st = CUDA_STATUS(
        cub::DeviceScan::InclusiveScan(tmp, tmp_bytes, a, out, f, (int)n, cudaStreamPerThread));
  if (st == TSR_OK)
    st = CUDA_STATUS(cudaMemcpyAsync(a, out, sizeof(double) * (size_t)n, cudaMemcpyDeviceToDevice,
                                     cudaStreamPerThread));
  if (st == TSR_OK) st = finish("scan");
  tsr_gpu_release(tmp);
  tsr_gpu_release(out);
  return st;
}

extern "C" int tsr_gpu_scan(int64_t outer, int64_t len, int64_t inner, double *a, int op,
                            double identity, int nan) {
  tsr_gpu_bind_device();
  if (outer == 1 && inner == 1 && len > 1 && len < INT_MAX) {
    if (nan) nan_kernel<<<blocks_for(len), THREADS, 0, cudaStreamPerThread>>>(len, a, identity);
    return scan_one_line(len, a, op);
  }
  lines_kernel<<<blocks_for(outer * inner), THREADS, 0, cudaStreamPerThread>>>(outer, len, inner, a,
                                                                               op, identity, nan);
  return finish("scan");
}

__global__ static void carry_kernel(long long outer, long long len, long long inner, double *a,
                                    int op, const double *carry, int dtype) {
  long long total = outer * len * inner;
  for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < total;
       e += (long long)gridDim.x * blockDim.x) {
    double v = a[e];
    if (carry) v = tsr_ew_binary(op, v, carry[(e / (len * inner)) * inner + e % inner]);
    a[e] = dtype == TSR_F64 ? v : tsr_dtype_cast(v, dtype);
  }
}

extern "C" int tsr_gpu_scan_carry(int64_t outer, int64_t len, int64_t inner, double *a, int op,
                                  const double *carry, int dtype) {
  tsr_gpu_bind_device();
  double *dc = NULL;
  int st = TSR_OK;
  if (carry) {
    st = tsr_gpu_alloc(sizeof(double) * (size_t)(outer * inner), &dc);
    if (st == TSR_OK)
      st = CUDA_STATUS(cudaMemcpyAsync(dc, carry, sizeof(double) * (size_t)(outer * inner),
                                       cudaMemcpyHostToDevice, cudaStreamPerThread));
  }
  if (st == TSR_OK) {
    carry_kernel<<<blocks_for(outer * len * inner), THREADS, 0, cudaStreamPerThread>>>(
        outer, len, inner, a, op, dc, dtype);
    st = finish("scan carry");
  }
  tsr_gpu_release(dc);
  return st;
}
