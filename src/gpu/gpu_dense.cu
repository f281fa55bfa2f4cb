/*
 * gpu_dense.cu - the small device kernels around the CUDA backend's dense
 * kernels (backend.h): strided copies, y += x, the column maxima and column
 * scaling of svd_flip, and the triangle cleanup of CholeskyQR
 * (gpu_linalg.cu). Everything runs on the calling thread's stream and is
 * complete when the function returns, like every op of the backend.
 */
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdlib.h>

extern "C" {
#include "util/error.h"
}
#include "gpu/gpu_check.h"
#include "gpu/gpu_device.h"
#include "gpu/gpu_linalg.h"

#define THREADS 256

extern "C" int tsr_gpu_copy2d(int64_t rows, int64_t cols, const double *src, int64_t lds,
                              double *dst, int64_t ldd) {
  tsr_gpu_bind_device();
  size_t w = sizeof(double) * (size_t)cols;
  CUDA_CHECK(cudaMemcpy2DAsync(dst, sizeof(double) * (size_t)ldd, src, sizeof(double) * (size_t)lds,
                               w, (size_t)rows, cudaMemcpyDeviceToDevice, cudaStreamPerThread));
  return tsr_gpu_finish("copy");
}

__global__ static void axpy_kernel(long long n, const double *x, double *y) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x)
    y[i] += x[i];
}

extern "C" int tsr_gpu_axpy(size_t n, const double *x, double *y) {
  tsr_gpu_bind_device();
  axpy_kernel<<<tsr_gpu_grid_for((long long)n, THREADS), THREADS, 0, cudaStreamPerThread>>>(
      (long long)n, x, y);
  return tsr_gpu_finish("y += x");
}

/* Column maxima in two passes, so that the order of comparisons is fixed:
 * thread (j, segment) scans its SEG rows of column j in row order, then one
 * thread per column merges the segments in row order. A strictly larger
 * magnitude wins, so the first row in row order wins ties, as on the CPU. */
#define SEG 256

__global__ static void colmax_part(long long m, long long n, const double *a, tsr_colmax *part) {
  long long j = (long long)blockIdx.x * blockDim.x + threadIdx.x, seg = blockIdx.y;
  if (j >= n) return;
  tsr_colmax best = {-1.0, -1, 1.0};
  long long hi = (seg + 1) * SEG < m ? (seg + 1) * SEG : m;
  for (long long i = seg * SEG; i < hi; i++) {
    double u = a[i * n + j], v = fabs(u);
    if (v > best.big) best = tsr_colmax{v, i, u < 0 ? -1.0 : 1.0};
  }
  part[seg * n + j] = best;
}

__global__ static void colmax_merge(long long n, long long nseg, const tsr_colmax *part,
                                    tsr_colmax *out) {
  long long j = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= n) return;
  tsr_colmax best = part[j];
  for (long long s = 1; s < nseg; s++)
    if (part[s * n + j].big > best.big) best = part[s * n + j];
  out[j] = best;
}

extern "C" int tsr_gpu_col_absmax(int64_t m, int64_t n, const double *a, tsr_colmax *out) {
  tsr_gpu_bind_device();
  for (int64_t j = 0; j < n; j++) out[j] = tsr_colmax{-1.0, -1, 1.0};
  if (m <= 0 || n <= 0) return TSR_OK;
  long long nseg = (m + SEG - 1) / SEG;
  size_t part_n = (sizeof(tsr_colmax) * (size_t)(nseg + 1) * (size_t)n + 7) / 8;
  double *part = NULL, *res = NULL;
  int st = tsr_gpu_alloc(sizeof(double) * part_n, &part);
  if (st == TSR_OK) st = tsr_gpu_alloc(sizeof(tsr_colmax) * (size_t)n, &res);
  if (st == TSR_OK) {
    dim3 grid((unsigned)((n + 127) / 128), (unsigned)nseg);
    colmax_part<<<grid, 128, 0, cudaStreamPerThread>>>(m, n, a, (tsr_colmax *)part);
    colmax_merge<<<(unsigned)((n + 127) / 128), 128, 0, cudaStreamPerThread>>>(
        n, nseg, (const tsr_colmax *)part, (tsr_colmax *)res);
    st = tsr_gpu_finish("column maxima");
  }
  if (st == TSR_OK)
    st = CUDA_STATUS(cudaMemcpy(out, res, sizeof(tsr_colmax) * (size_t)n, cudaMemcpyDeviceToHost));
  tsr_gpu_release(part);
  tsr_gpu_release(res);
  return st;
}

__global__ static void scale_kernel(long long m, long long n, double *a, const double *f) {
  long long total = m * n;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < total;
       i += (long long)gridDim.x * blockDim.x)
    a[i] *= f[i % n];
}

extern "C" int tsr_gpu_scale_cols(int64_t m, int64_t n, double *a, const double *f) {
  tsr_gpu_bind_device();
  double *df = NULL;
  TSR_CHECK(tsr_gpu_alloc(sizeof(double) * (size_t)n, &df));
  int st = CUDA_STATUS(cudaMemcpyAsync(df, f, sizeof(double) * (size_t)n, cudaMemcpyHostToDevice,
                                       cudaStreamPerThread));
  if (st == TSR_OK) {
    scale_kernel<<<tsr_gpu_grid_for(m * n, THREADS), THREADS, 0, cudaStreamPerThread>>>(m, n, a,
                                                                                        df);
    st = tsr_gpu_finish("column scaling");
  }
  tsr_gpu_release(df);
  return st;
}

__global__ static void upper_zero_kernel(long long rows, long long cols, long long ld, double *a) {
  long long total = rows * cols;
  for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < total;
       e += (long long)gridDim.x * blockDim.x) {
    long long col = e / rows, row = e % rows;
    if (row < col) a[col * ld + row] = 0.0;
  }
}

int tsr_gpu_upper_zero(int64_t rows, int64_t cols, int64_t ld, double *a) {
  upper_zero_kernel<<<tsr_gpu_grid_for(rows * cols, THREADS), THREADS, 0, cudaStreamPerThread>>>(
      rows, cols, ld, a);
  CUDA_CHECK(cudaGetLastError());
  return TSR_OK;
}

__global__ static void lower_mirror_kernel(long long n, double *a) {
  long long total = n * n;
  for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < total;
       e += (long long)gridDim.x * blockDim.x) {
    long long col = e / n, row = e % n;
    if (row < col) a[col * n + row] = a[row * n + col];
  }
}

int tsr_gpu_lower_mirror(int64_t n, double *a) {
  lower_mirror_kernel<<<tsr_gpu_grid_for(n * n, THREADS), THREADS, 0, cudaStreamPerThread>>>(n, a);
  CUDA_CHECK(cudaGetLastError());
  return TSR_OK;
}

__global__ static void identity_kernel(long long n, double *a) {
  long long total = n * n;
  for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < total;
       e += (long long)gridDim.x * blockDim.x)
    a[e] = e / n == e % n ? 1.0 : 0.0;
}

int tsr_gpu_identity(int64_t n, double *a) {
  identity_kernel<<<tsr_gpu_grid_for(n * n, THREADS), THREADS, 0, cudaStreamPerThread>>>(n, a);
  CUDA_CHECK(cudaGetLastError());
  return TSR_OK;
}
