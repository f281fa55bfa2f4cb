/*
 * gpu_scan.cu - the CUDA backend's scan ops (backend.h: scan, scan_carry)
 * with the shared scalar tsr_ew_binary (kernel/ew_scalar.h). A chunk of
 * one line (a 1-d chunk, or a flattened scan) is scanned in tiles combined
 * in a fixed order (scan_one_line), so a chunk gives the same bits on every
 * call; chunks of many lines run one thread per line, sequentially along
 * the axis, consecutive threads on consecutive inner values (coalesced).
 * Everything runs on the calling thread's stream and is complete on return.
 */
#include <cuda_runtime.h>
#include <limits.h>
#include <stdint.h>

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

/* One line of n values in three fixed steps (CUB's DeviceScan combines
 * its look-back in an order that depends on timing, so its float results
 * vary from run to run): each tile of TILE values is scanned by its block,
 * every thread over ITEMS consecutive values, the threads' totals combined
 * in thread order; one thread scans the tiles' totals in tile order; each
 * tile after the first then gets the prefix of the tiles before it. */
#define ITEMS 16
#define TILE (THREADS * ITEMS)

__global__ static void tile_kernel(long long n, double *a, int op, double *agg) {
  __shared__ double tot[THREADS];
  long long lo = (long long)blockIdx.x * TILE + (long long)threadIdx.x * ITEMS;
  long long hi = lo + ITEMS < n ? lo + ITEMS : n;
  double acc = 0.0;
  for (long long e = lo; e < hi; e++) a[e] = acc = e > lo ? tsr_ew_binary(op, acc, a[e]) : a[e];
  tot[threadIdx.x] = acc;
  __syncthreads();
  if (threadIdx.x == 0) { /* exclusive prefixes of the threads, in order */
    double run = tot[0];
    int used = (int)((n - (long long)blockIdx.x * TILE + ITEMS - 1) / ITEMS);
    if (used > THREADS) used = THREADS;
    for (int t = 1; t < used; t++) {
      double here = tot[t];
      tot[t] = run;
      run = tsr_ew_binary(op, run, here);
    }
    agg[blockIdx.x] = run;
  }
  __syncthreads();
  if (threadIdx.x > 0)
    for (long long e = lo; e < hi; e++) a[e] = tsr_ew_binary(op, tot[threadIdx.x], a[e]);
}

__global__ static void tiles_scan_kernel(long long tiles, double *agg, int op) {
  for (long long t = 1; t < tiles; t++) agg[t] = tsr_ew_binary(op, agg[t - 1], agg[t]);
}

__global__ static void tile_carry_kernel(long long n, double *a, int op, const double *agg) {
  for (long long e = TILE + (long long)blockIdx.x * blockDim.x + threadIdx.x; e < n;
       e += (long long)gridDim.x * blockDim.x)
    a[e] = tsr_ew_binary(op, agg[e / TILE - 1], a[e]);
}

static int scan_one_line(long long n, double *a, int op) {
  long long tiles = (n + TILE - 1) / TILE;
  double *agg = NULL;
  if (tiles > INT_MAX) return TSR_ERROR(TSR_ERR_BACKEND, "GPU scan of %lld values: too many", n);
  TSR_CHECK(tsr_gpu_alloc(sizeof(double) * (size_t)tiles, &agg));
  tile_kernel<<<(unsigned)tiles, THREADS, 0, cudaStreamPerThread>>>(n, a, op, agg);
  if (tiles > 1) {
    tiles_scan_kernel<<<1, 1, 0, cudaStreamPerThread>>>(tiles, agg, op);
    tile_carry_kernel<<<blocks_for(n - TILE), THREADS, 0, cudaStreamPerThread>>>(n, a, op, agg);
  }
  int st = finish("scan");
  tsr_gpu_release(agg);
  return st;
}

extern "C" int tsr_gpu_scan(int64_t outer, int64_t len, int64_t inner, double *a, int op,
                            double identity, int nan) {
  tsr_gpu_bind_device();
  if (outer == 1 && inner == 1 && len > 1) {
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
