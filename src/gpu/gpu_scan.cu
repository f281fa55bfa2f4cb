/*
 * gpu_scan.cu - the CUDA backend's scan ops (backend.h: scan, scan_carry)
 * with the shared scalar tsr_ew_binary (kernel/ew_scalar.h). Few long
 * lines (a 1-d chunk, a flattened scan, a tall chunk of few columns) are
 * scanned in tiles combined in a fixed order (scan_tiled), so a chunk gives
 * the same bits on every call; many lines run one thread per line,
 * sequentially along the axis, consecutive threads on consecutive inner
 * values (coalesced).
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

/* Long lines in three fixed steps (CUB's DeviceScan combines its
 * look-back in an order that depends on timing, so its float results vary
 * from run to run): each tile of TILE values of a line is scanned by one
 * block, every thread over ITEMS consecutive values, the threads' totals
 * combined in thread order; one thread per line scans its tiles' totals in
 * tile order; each tile after the first then gets the prefix of the tiles
 * before it. Line y (blockIdx.y) is a[o, ., i] for y = o inner + i. */
#define ITEMS 16
#define TILE (THREADS * ITEMS)

__device__ static double *line_at(double *a, long long len, long long inner, long long y) {
  return a + (y / inner) * len * inner + y % inner;
}

__global__ static void tile_kernel(long long len, long long inner, double *a, int op, double *agg) {
  __shared__ double tot[THREADS];
  long long tiles = (len + TILE - 1) / TILE;
  double *p = line_at(a, len, inner, blockIdx.y);
  long long lo = (long long)blockIdx.x * TILE + (long long)threadIdx.x * ITEMS;
  long long hi = lo + ITEMS < len ? lo + ITEMS : len;
  double acc = 0.0;
  for (long long e = lo; e < hi; e++)
    p[e * inner] = acc = e > lo ? tsr_ew_binary(op, acc, p[e * inner]) : p[e * inner];
  tot[threadIdx.x] = acc;
  __syncthreads();
  if (threadIdx.x == 0) { /* exclusive prefixes of the threads, in order */
    double run = tot[0];
    long long used = (len - (long long)blockIdx.x * TILE + ITEMS - 1) / ITEMS;
    for (int t = 1; t < used && t < THREADS; t++) {
      double here = tot[t];
      tot[t] = run;
      run = tsr_ew_binary(op, run, here);
    }
    agg[blockIdx.y * tiles + blockIdx.x] = run;
  }
  __syncthreads();
  if (threadIdx.x > 0)
    for (long long e = lo; e < hi; e++)
      p[e * inner] = tsr_ew_binary(op, tot[threadIdx.x], p[e * inner]);
}

__global__ static void tiles_scan_kernel(long long lines, long long tiles, double *agg, int op) {
  for (long long y = (long long)blockIdx.x * blockDim.x + threadIdx.x; y < lines;
       y += (long long)gridDim.x * blockDim.x)
    for (long long t = 1; t < tiles; t++)
      agg[y * tiles + t] = tsr_ew_binary(op, agg[y * tiles + t - 1], agg[y * tiles + t]);
}

__global__ static void tile_carry_kernel(long long len, long long inner, double *a, int op,
                                         const double *agg) {
  long long tiles = (len + TILE - 1) / TILE;
  double *p = line_at(a, len, inner, blockIdx.y);
  for (long long e = TILE + (long long)blockIdx.x * blockDim.x + threadIdx.x; e < len;
       e += (long long)gridDim.x * blockDim.x)
    p[e * inner] = tsr_ew_binary(op, agg[blockIdx.y * tiles + e / TILE - 1], p[e * inner]);
}

/* Lines (outer x inner, fewer than 65536) of len values in tiles. */
static int scan_tiled(long long outer, long long len, long long inner, double *a, int op) {
  long long tiles = (len + TILE - 1) / TILE, lines = outer * inner;
  double *agg = NULL;
  if (tiles > INT_MAX) return TSR_ERROR(TSR_ERR_BACKEND, "GPU scan of %lld values: too long", len);
  TSR_CHECK(tsr_gpu_alloc(sizeof(double) * (size_t)(tiles * lines), &agg));
  tile_kernel<<<dim3((unsigned)tiles, (unsigned)lines), THREADS, 0, cudaStreamPerThread>>>(
      len, inner, a, op, agg);
  if (tiles > 1) {
    tiles_scan_kernel<<<tsr_gpu_grid_for(lines, THREADS), THREADS, 0, cudaStreamPerThread>>>(
        lines, tiles, agg, op);
    tile_carry_kernel<<<dim3(tsr_gpu_grid_for(len - TILE, THREADS), (unsigned)lines), THREADS, 0,
                        cudaStreamPerThread>>>(len, inner, a, op, agg);
  }
  int st = tsr_gpu_finish("scan");
  tsr_gpu_release(agg);
  return st;
}

/* Few lines but long ones: tiles keep the GPU busy; else one thread a line. */
#define FEW_LINES 4096

extern "C" int tsr_gpu_scan(int64_t outer, int64_t len, int64_t inner, double *a, int op,
                            double identity, int nan) {
  tsr_gpu_bind_device();
  long long lines = outer * inner;
  if (lines < FEW_LINES && len > TILE) {
    if (nan)
      nan_kernel<<<tsr_gpu_grid_for(lines * len, THREADS), THREADS, 0, cudaStreamPerThread>>>(
          lines * len, a, identity);
    return scan_tiled(outer, len, inner, a, op);
  }
  lines_kernel<<<tsr_gpu_grid_for(outer * inner, THREADS), THREADS, 0, cudaStreamPerThread>>>(
      outer, len, inner, a, op, identity, nan);
  return tsr_gpu_finish("scan");
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
    carry_kernel<<<tsr_gpu_grid_for(outer * len * inner, THREADS), THREADS, 0,
                   cudaStreamPerThread>>>(outer, len, inner, a, op, dc, dtype);
    st = tsr_gpu_finish("scan carry");
  }
  tsr_gpu_release(dc);
  return st;
}
