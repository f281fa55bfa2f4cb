/*
 * gpu_hist.cu - the CUDA backend's histogram op (backend.h: hist). Counts
 * are integers, so their sums do not depend on the order of the adds: each
 * CTA counts its share of the samples in shared memory, a copy of the bins
 * per warp (global memory for more bins than SHARED_BYTES holds once) with
 * atomic adds, then adds its counts to the
 * chunk's 64-bit ones, and the host adds those to out. The bins come from
 * the shared kernel/hist.h, the CPU's binning. A weighted histogram is a
 * sum of doubles, whose bits depend on the order: the samples and weights
 * are copied to the host and go through the CPU's loop in sample order, the
 * CPU backend's bits (slower, but the same answer on every backend).
 * The compress op of boolean masks beside it: the kept rows' positions by
 * thrust::copy_if over the row numbers, then one copy kernel.
 * Everything runs on the calling thread's stream and is complete on return.
 */
#include <thrust/copy.h>
#include <thrust/execution_policy.h>
#include <thrust/iterator/counting_iterator.h>
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

extern "C" {
#include "util/error.h"
}
#include "gpu/gpu_check.h"
#include "gpu/gpu_device.h"
#include "gpu/gpu_linalg.h"
#include "kernel/hist.h"

#define THREADS 256
#define SHARED_BYTES 40960 /* shared memory a CTA's copies of the bins take at most */
#define WARP_COPIES 8      /* copies of the bins a CTA keeps (one a warp of THREADS) */
#define MAX_CTAS 1056      /* 8 a streaming multiprocessor of an H100 or H200 */
#define STREAM cudaStreamPerThread

/* Counts into one copy of the bins per warp in shared memory (WARP_COPIES:
 * fewer collisions of the warps' atomic adds on the popular bins), the
 * copies added into the chunk's counts at the end; or (SHARED false, too
 * many bins) straight into the chunk's counts. */
template <bool SHARED>
__global__ static void count_kernel(tsr_hist h, const double *x, long long n,
                                    unsigned long long *counts, int copies) {
  extern __shared__ unsigned int local[];
  long long slots = h.nbins + 1;
  unsigned int *mine = local + (threadIdx.x / 32 % copies) * slots;
  if (SHARED) {
    for (long long b = threadIdx.x; b < slots * copies; b += blockDim.x) local[b] = 0;
    __syncthreads();
  }
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x) {
    long long b =
        h.ndim == 1 ? tsr_hist_bin(&h.axis[0], x[i]) : tsr_hist_flat(&h, x + i * h.ndim, 1);
    if (b < 0) b = h.nbins;
    if (SHARED)
      atomicAdd(&mine[b], 1u);
    else
      atomicAdd(&counts[b], 1ull);
  }
  if (SHARED) {
    __syncthreads();
    for (long long b = threadIdx.x; b < slots; b += blockDim.x) {
      unsigned long long sum = 0;
      for (int k = 0; k < copies; k++) sum += local[k * slots + b];
      if (sum) atomicAdd(&counts[b], sum);
    }
  }
}

/* The weighted histogram through the host loop (see above). */
static int weighted(const tsr_hist *h, const double *x, int64_t n, const double *w, double *out) {
  size_t nx = (size_t)n * (size_t)h->ndim;
  double *hx = (double *)malloc(sizeof(double) * (nx + (size_t)n));
  if (!hx) return TSR_ERROR(TSR_ERR_MEMORY, "out of host memory for a weighted histogram");
  cudaError_t e = cudaMemcpyAsync(hx, x, sizeof(double) * nx, cudaMemcpyDeviceToHost, STREAM);
  if (e == cudaSuccess)
    e = cudaMemcpyAsync(hx + nx, w, sizeof(double) * (size_t)n, cudaMemcpyDeviceToHost, STREAM);
  if (e == cudaSuccess) e = cudaStreamSynchronize(STREAM);
  if (e == cudaSuccess) tsr_hist_add(h, hx, n, hx + nx, out);
  free(hx);
  if (e != cudaSuccess)
    return TSR_ERROR(TSR_ERR_BACKEND, "GPU histogram copy failed: %s", cudaGetErrorString(e));
  return TSR_OK;
}

int tsr_gpu_hist(const tsr_hist *h, const double *x, int64_t n, const double *w, double *out) {
  if (w) return weighted(h, x, n, w, out);
  long long slots = h->nbins + 1, nedges = 0;
  for (int d = 0; d < h->ndim; d++)
    if (h->axis[d].edges) nedges += h->axis[d].nb + 1;
  void *mem = NULL;
  size_t bytes = sizeof(unsigned long long) * (size_t)slots + sizeof(double) * (size_t)nedges;
  cudaError_t e = cudaMalloc(&mem, bytes);
  if (e != cudaSuccess)
    return TSR_ERROR(TSR_ERR_MEMORY, "GPU out of memory for a histogram of %lld bins: %s",
                     (long long)h->nbins, cudaGetErrorString(e));
  unsigned long long *counts = (unsigned long long *)mem;
  double *edges = (double *)(counts + slots);
  tsr_hist dh = *h; /* its edges on the device */
  long long at = 0;
  e = cudaMemsetAsync(counts, 0, sizeof(unsigned long long) * (size_t)slots, STREAM);
  for (int d = 0; d < h->ndim && e == cudaSuccess; d++) {
    if (!h->axis[d].edges) continue;
    e = cudaMemcpyAsync(edges + at, h->axis[d].edges, sizeof(double) * (size_t)(h->axis[d].nb + 1),
                        cudaMemcpyHostToDevice, STREAM);
    dh.axis[d].edges = edges + at;
    at += h->axis[d].nb + 1;
  }
  unsigned long long *host =
      (unsigned long long *)malloc(sizeof(unsigned long long) * (size_t)slots);
  if (!host) e = cudaErrorMemoryAllocation;
  if (e == cudaSuccess) {
    unsigned grid = tsr_gpu_grid_for(n, THREADS);
    if (grid > MAX_CTAS) grid = MAX_CTAS; /* each adds its bins once: few CTAs, grid-stride */
    int copies = WARP_COPIES;
    while (copies > 1 && (long long)copies * slots * 4 > SHARED_BYTES) copies /= 2;
    size_t shared = (size_t)copies * (size_t)slots * 4;
    if (shared <= SHARED_BYTES)
      count_kernel<true><<<grid, THREADS, shared, STREAM>>>(dh, x, (long long)n, counts, copies);
    else
      count_kernel<false><<<grid, THREADS, 0, STREAM>>>(dh, x, (long long)n, counts, 1);
    e = cudaGetLastError();
  }
  if (e == cudaSuccess)
    e = cudaMemcpyAsync(host, counts, sizeof(unsigned long long) * (size_t)slots,
                        cudaMemcpyDeviceToHost, STREAM);
  if (e == cudaSuccess) e = cudaStreamSynchronize(STREAM);
  cudaFree(mem);
  if (e == cudaSuccess)
    for (long long b = 0; b < slots; b++) out[b] += (double)host[b];
  free(host);
  if (e != cudaSuccess)
    return TSR_ERROR(TSR_ERR_BACKEND, "GPU histogram failed: %s", cudaGetErrorString(e));
  return TSR_OK;
}

struct nonzero_row {
  const double *m;
  __host__ __device__ bool operator()(long long i) const { return m[i] != 0; }
};

__global__ static void copy_rows(long long count, long long len, const double *x,
                                 const long long *rows, double *out) {
  long long n = count * len;
  for (long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x; k < n;
       k += (long long)gridDim.x * blockDim.x)
    out[k] = x[rows[k / len] * len + k % len];
}

int tsr_gpu_compress(int64_t rows, int64_t len, const double *x, const double *m, int64_t count,
                     double *out) {
  long long *keep = NULL;
  cudaError_t e = cudaMalloc((void **)&keep, sizeof(long long) * (size_t)(rows + 1));
  if (e != cudaSuccess)
    return TSR_ERROR(TSR_ERR_MEMORY, "GPU out of memory for a mask: %s", cudaGetErrorString(e));
  long long got = 0;
  try {
    thrust::counting_iterator<long long> first(0);
    long long *end =
        thrust::copy_if(thrust::cuda::par.on(STREAM), first, first + rows, keep, nonzero_row{m});
    got = (long long)(end - keep);
  } catch (const std::exception &x) {
    cudaFree(keep);
    return TSR_ERROR(TSR_ERR_BACKEND, "GPU mask failed: %s", x.what());
  }
  int st = TSR_OK;
  if (got != count)
    st = TSR_ERROR(TSR_ERR_INTERNAL, "a mask with %lld rows, %lld counted", got, (long long)count);
  if (st == TSR_OK) {
    copy_rows<<<tsr_gpu_grid_for(count * len, THREADS), THREADS, 0, STREAM>>>(count, len, x, keep,
                                                                              out);
    st = tsr_gpu_finish("mask");
  }
  cudaFree(keep);
  return st;
}
