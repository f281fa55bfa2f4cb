/*
 * gpu_glm_pass.cu - the CUDA backend's one-launch GLM pass (gpu_glm.h):
 * the loss and gradient of every row block of a pass (p + 1 <= WQ columns)
 * at up to WKB points (a lambda path, backend.h) in one launch that reads X
 * once, and the sums of its partials in a second launch. gpu_glm.cu calls
 * it for loss and gradient passes; Hessians and wider blocks stay there.
 *
 * A warp takes a fixed range of rows (a function of the block's rows only)
 * and walks it in order, R rows at a time, with the next step's rows loaded
 * into registers while this step's are used. Lane l holds columns l, l + 32,
 * l + 64, l + 96 of each row (the intercept's column is 1): for each (row,
 * point) pair its share of eta (four fmas in column order), then a
 * butterfly over the lanes; lane j computes the family of pair j (one
 * transcendental a lane, not 32); its residual goes to every lane by a
 * shuffle and each lane adds r x_ic to its columns' sums, rows in order; the
 * loss of point k is added up on lane k, rows in order. So every sum of a
 * point has the same order whether the launch has 1 or 8 points: the bits
 * of a single fit's pass. Each warp writes its partials; the finish launch
 * sums a block's partials (warps in order) with one warp per output.
 *
 * Expected effect against the tile kernel (one CTA-wide tile in shared
 * memory, four barriers per 32 rows, 1.4 TB/s on an H200 for W4's single
 * fit): no barrier and no shared-memory copy of X, the next step's rows in
 * flight while a step is used: near the HBM read rate for one point (a pass over W4's
 * 0.8 GB X in ~0.25 ms instead of 0.57 ms), and for 8 points one read of
 * X where the tile kernel read it twice.
 */
#include <cuda_runtime.h>
#include <stdint.h>

extern "C" {
#include "util/error.h"
}
#include "gpu/gpu_check.h"
#include "gpu/gpu_glm.h"
#include "kernel/glm.h"

#define STREAM cudaStreamPerThread
#define WT 256          /* threads of a CTA */
#define WW (WT / 32)    /* warps of a CTA */
#define WROWS 256       /* rows a warp takes (about) */
#define WCOLS (WQ / 32) /* columns a lane holds */
#define MAX_WCTAS 65535 /* CTAs of a block at most */
#define FULL 0xffffffffu
#ifndef WPASS_R1
#define WPASS_R1 4 /* rows a step with one point */
#endif
#ifndef WPASS_MINB1
#define WPASS_MINB1 2 /* CTAs per SM the one-point kernel's registers allow */
#endif

/* Row i's values in the lane's columns: x, then 1 for the intercept, 0 past
 * it; a row past hi is all 0. */
__device__ static __forceinline__ void wrow(const double *x, long long p, long long i, long long hi,
                                            int lane, double *v) {
  const double *xr = x + i * p + lane;
#pragma unroll
  for (int m = 0; m < WCOLS; m++) {
    long long c = lane + 32 * m;
    v[m] = i >= hi ? 0.0 : c < p ? xr[32 * m] : c == p ? 1.0 : 0.0;
  }
}

template <bool GRAD, int KB>
__global__ static void __launch_bounds__(WT, KB == 1 ? WPASS_MINB1 : 2) wpass_kernel(wpass_args m) {
  constexpr int R = KB >= 4 ? 8 / KB : WPASS_R1; /* rows a step: R KB <= 8 pairs */
  __shared__ double bs[KB][WQ];
  __shared__ long long sb;
  if (threadIdx.x == 0) {
    long long b = 0;
    while (b + 1 < m.nb && m.tab[b + 1].cta0 <= (long long)blockIdx.x) b++;
    sb = b;
  }
  __syncthreads();
  const wpass_block t = m.tab[sb];
  long long q = m.p + 1, cta = blockIdx.x - t.cta0;
  int lane = threadIdx.x % 32, warp = threadIdx.x / 32, npt = m.npt;
  for (int j = threadIdx.x; j < KB * WQ; j += WT) {
    int k = j / WQ, c = j % WQ;
    bs[k][c] = k < npt && c < q ? t.beta[k * q + c] : 0.0;
  }
  __syncthreads();
  long long clo = cta * t.chunk, chi = min(t.rows, clo + t.chunk), wc = (t.chunk + WW - 1) / WW;
  long long lo = min(chi, clo + warp * wc), hi = min(chi, lo + wc);
  double acc[KB][WCOLS], lsum = 0.0, xv[R][WCOLS], xn[R][WCOLS];
#pragma unroll
  for (int k = 0; k < KB; k++)
#pragma unroll
    for (int c = 0; c < WCOLS; c++) acc[k][c] = 0.0;
#pragma unroll
  for (int s = 0; s < R; s++) wrow(t.x, m.p, lo + s, hi, lane, xv[s]);
  for (long long i0 = lo; i0 < hi; i0 += R) {
#pragma unroll
    for (int s = 0; s < R; s++) wrow(t.x, m.p, i0 + R + s, hi, lane, xn[s]);
    double mine = 0.0; /* eta of pair lane (row lane / KB, point lane % KB) */
#pragma unroll
    for (int s = 0; s < R; s++)
#pragma unroll
      for (int k = 0; k < KB; k++) {
        if (k >= npt) break;
        double d = 0.0;
#pragma unroll
        for (int c = 0; c < WCOLS; c++) d = fma(xv[s][c], bs[k][lane + 32 * c], d);
        d = warp_sum(d);
        if (lane == s * KB + k) mine = d;
      }
    int ps = lane / KB, pk = lane % KB;
    double loss = 0.0, r = 0.0;
    if (lane < R * KB && pk < npt && i0 + ps < hi) {
      double y = t.y[i0 + ps], mu = tsr_glm_mean(m.family, mine);
      loss = tsr_glm_loss(m.family, mine, mu, y);
      r = mu - y;
    }
#pragma unroll
    for (int s = 0; s < R; s++) {
      double l = __shfl_sync(FULL, loss, s * KB + pk);
      if (i0 + s < hi && lane < npt && lane < KB) lsum += l;
      if (GRAD && i0 + s < hi)
#pragma unroll
        for (int k = 0; k < KB; k++) {
          if (k >= npt) break;
          double rk = __shfl_sync(FULL, r, s * KB + k);
#pragma unroll
          for (int c = 0; c < WCOLS; c++) acc[k][c] = fma(rk, xv[s][c], acc[k][c]);
        }
    }
#pragma unroll
    for (int s = 0; s < R; s++)
#pragma unroll
      for (int c = 0; c < WCOLS; c++) xv[s][c] = xn[s][c];
  }
  double *part = m.part + ((t.cta0 + cta) * WW + warp) * npt * m.ld;
#pragma unroll
  for (int k = 0; k < KB; k++) {
    if (k >= npt) break;
    if (lane == k) part[k * m.ld] = lsum;
#pragma unroll
    for (int c = 0; GRAD && c < WCOLS; c++)
      if (lane + 32 * c < q) part[k * m.ld + 1 + lane + 32 * c] = acc[k][c];
  }
}

/* Warp w: output o = w mod (npt ld) of block b = w / (npt ld), the sum of
 * that block's warps' partials in order (lane-strided sums, then the
 * butterfly). */
__global__ static void wpass_finish(wpass_args m) {
  long long n = m.npt * m.ld, w = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / 32,
            b = w / n, o = w % n;
  if (b >= m.nb) return;
  const wpass_block &t = m.tab[b];
  int lane = threadIdx.x % 32;
  double s = warp_sum_strided(m.part + t.cta0 * WW * n + o, t.nctas * WW, n, lane);
  if (lane == 0) m.out[b * m.ostride + m.o0 + o] = s;
}

extern "C" long long tsr_gpu_wpass_ctas(long long rows) {
  long long c = (rows + WW * WROWS - 1) / (WW * WROWS);
  return rows <= 0 ? 0 : c < MAX_WCTAS ? c : MAX_WCTAS;
}

extern "C" long long tsr_gpu_wpass_parts(long long ctas) { return ctas * WW; }

extern "C" int tsr_gpu_wpass(const wpass_args *m, int grad) {
  unsigned ctas = (unsigned)m->ctas, fin = (unsigned)((m->nb * m->npt * m->ld * 32 + WT - 1) / WT);
  if (m->p + 1 > WQ || m->npt < 1 || m->npt > WKB)
    return TSR_ERROR(TSR_ERR_INTERNAL, "GLM pass: %d points of %lld columns in one launch", m->npt,
                     (long long)m->p + 1);
#define WPASS(K)                                             \
  (grad ? wpass_kernel<true, K><<<ctas, WT, 0, STREAM>>>(*m) \
        : wpass_kernel<false, K><<<ctas, WT, 0, STREAM>>>(*m))
  if (ctas > 0 && m->npt == 1)
    WPASS(1);
  else if (ctas > 0 && m->npt <= 4)
    WPASS(4);
  else if (ctas > 0)
    WPASS(WKB);
#undef WPASS
  if (fin > 0) wpass_finish<<<fin, WT, 0, STREAM>>>(*m);
  return CUDA_STATUS(cudaGetLastError());
}
