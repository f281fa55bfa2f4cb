/*
 * gpu_sort.cu - the CUDA backend's sort op (backend.h: sort). A chunk that
 * is one compact line (inner 1, outer 1) is sorted in place by
 * thrust::sort; otherwise the lines are gathered into a compact (line,
 * position) layout, all values sorted at once as (line id, value) pairs
 * (thrust::sort on a zip iterator: a segmented sort), and scattered back.
 * The order is ascending with NaN last (NumPy's), a total order on
 * values apart from -0.0 == 0.0, so the result does not depend on timing.
 * The nan-statistics then read each sorted line with the shared
 * kernel/quantile.h, one thread per line.
 * argsort (TSR_SORT_ARG) sorts (line, value, position) triples the same way
 * and puts the positions back.
 * Everything runs on the calling thread's stream and is complete on return.
 */
#include <cuda_runtime.h>
#include <stdint.h>
#include <thrust/execution_policy.h>
#include <thrust/iterator/zip_iterator.h>
#include <thrust/sort.h>
#include <thrust/tuple.h>

extern "C" {
#include "util/error.h"
}
#include "gpu/gpu_check.h"
#include "gpu/gpu_device.h"
#include "gpu/gpu_linalg.h"
#include "kernel/quantile.h"

#define THREADS 256

struct nan_last {
  __host__ __device__ bool operator()(double a, double b) const {
    return a < b || (b != b && a == a);
  }
};

struct line_then_value {
  __host__ __device__ bool operator()(const thrust::tuple<long long, double> &x,
                                      const thrust::tuple<long long, double> &y) const {
    long long lx = thrust::get<0>(x), ly = thrust::get<0>(y);
    if (lx != ly) return lx < ly;
    return nan_last()(thrust::get<1>(x), thrust::get<1>(y));
  }
};

/* Element k of the compact layout (line t = k / len, position l = k % len,
 * t = o inner + i) is a[o, l, i]; to: 1 gathers, 0 scatters back. */
__global__ static void move_kernel(long long outer, long long len, long long inner, double *a,
                                   double *v, long long *ids, int to) {
  long long n = outer * len * inner;
  for (long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x; k < n;
       k += (long long)gridDim.x * blockDim.x) {
    long long t = k / len, l = k % len;
    double *p = a + (t / inner) * len * inner + l * inner + t % inner;
    if (to) {
      v[k] = *p;
      ids[k] = t;
    } else {
      *p = v[k];
    }
  }
}

/* Line t's statistic (kernel/quantile.h) at its start, a[o, 0, i]. */
__global__ static void stat_kernel(long long outer, long long len, long long inner, double *a,
                                   int what, double q) {
  long long lines = outer * inner;
  for (long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x; t < lines;
       t += (long long)gridDim.x * blockDim.x) {
    double *p = a + (t / inner) * len * inner + t % inner;
    p[0] = tsr_q_sorted(p, inner, tsr_q_count(p, inner, len), q, what);
  }
}

static int sort_lines(long long outer, long long len, long long inner, double *a) {
  long long n = outer * len * inner;
  double *v = NULL;
  long long *ids = NULL;
  cudaError_t e = cudaMalloc((void **)&v, sizeof(double) * (size_t)n);
  if (e == cudaSuccess) e = cudaMalloc((void **)&ids, sizeof(long long) * (size_t)n);
  if (e != cudaSuccess) {
    if (v) cudaFree(v);
    return TSR_ERROR(TSR_ERR_MEMORY, "GPU out of memory sorting lines: %s", cudaGetErrorString(e));
  }
  move_kernel<<<tsr_gpu_grid_for(n, THREADS), THREADS, 0, cudaStreamPerThread>>>(outer, len, inner,
                                                                                 a, v, ids, 1);
  auto zip = thrust::make_zip_iterator(thrust::make_tuple(ids, v));
  thrust::sort(thrust::cuda::par.on(cudaStreamPerThread), zip, zip + n, line_then_value());
  move_kernel<<<tsr_gpu_grid_for(n, THREADS), THREADS, 0, cudaStreamPerThread>>>(outer, len, inner,
                                                                                 a, v, ids, 0);
  cudaFree(v);
  cudaFree(ids);
  return tsr_gpu_finish("sort");
}

static int sort_any(long long outer, long long len, long long inner, double *a) {
  if (len == 1) return TSR_OK;
  if (outer * inner == 1) {
    thrust::sort(thrust::cuda::par.on(cudaStreamPerThread), a, a + len, nan_last());
    return tsr_gpu_finish("sort");
  }
  return sort_lines(outer, len, inner, a);
}

/* argsort: (line, value, position) triples sorted by line, value (NaN
 * last) and position: a total order, so the result is a stable sort's
 * whatever thrust's algorithm; the positions go back in place of the
 * values. */
struct line_value_pos {
  __host__ __device__ bool operator()(const thrust::tuple<long long, double, double> &x,
                                      const thrust::tuple<long long, double, double> &y) const {
    long long lx = thrust::get<0>(x), ly = thrust::get<0>(y);
    if (lx != ly) return lx < ly;
    double vx = thrust::get<1>(x), vy = thrust::get<1>(y);
    if (nan_last()(vx, vy)) return true;
    if (nan_last()(vy, vx)) return false;
    return thrust::get<2>(x) < thrust::get<2>(y);
  }
};

__global__ static void positions_kernel(long long n, long long len, double *pos) {
  for (long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x; k < n;
       k += (long long)gridDim.x * blockDim.x)
    pos[k] = (double)(k % len);
}

static int arg_sort(long long outer, long long len, long long inner, double *a) {
  long long n = outer * len * inner;
  double *v = NULL, *pos = NULL;
  long long *ids = NULL;
  cudaError_t e = cudaMalloc((void **)&v, sizeof(double) * (size_t)n);
  if (e == cudaSuccess) e = cudaMalloc((void **)&pos, sizeof(double) * (size_t)n);
  if (e == cudaSuccess) e = cudaMalloc((void **)&ids, sizeof(long long) * (size_t)n);
  if (e != cudaSuccess) {
    if (v) cudaFree(v);
    if (pos) cudaFree(pos);
    return TSR_ERROR(TSR_ERR_MEMORY, "GPU out of memory for an argsort: %s", cudaGetErrorString(e));
  }
  unsigned grid = tsr_gpu_grid_for(n, THREADS);
  move_kernel<<<grid, THREADS, 0, cudaStreamPerThread>>>(outer, len, inner, a, v, ids, 1);
  positions_kernel<<<grid, THREADS, 0, cudaStreamPerThread>>>(n, len, pos);
  auto zip = thrust::make_zip_iterator(thrust::make_tuple(ids, v, pos));
  thrust::sort(thrust::cuda::par.on(cudaStreamPerThread), zip, zip + n, line_value_pos());
  move_kernel<<<grid, THREADS, 0, cudaStreamPerThread>>>(outer, len, inner, a, pos, ids, 0);
  int st = tsr_gpu_finish("argsort");
  cudaFree(v);
  cudaFree(pos);
  cudaFree(ids);
  return st;
}

int tsr_gpu_sort(int64_t outer, int64_t len, int64_t inner, double *a, int what, double q) {
  try {
    if (what == TSR_SORT_ARG)
      return arg_sort((long long)outer, (long long)len, (long long)inner, a);
    int st = sort_any((long long)outer, (long long)len, (long long)inner, a);
    if (st != TSR_OK || what == TSR_SORT_ONLY) return st;
    long long lines = (long long)(outer * inner);
    stat_kernel<<<tsr_gpu_grid_for(lines, THREADS), THREADS, 0, cudaStreamPerThread>>>(
        outer, len, inner, a, what, q);
    return tsr_gpu_finish("nan-statistic");
  } catch (const std::exception &x) {
    return TSR_ERROR(TSR_ERR_BACKEND, "GPU sort failed: %s", x.what());
  }
}
