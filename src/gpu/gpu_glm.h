/*
 * gpu_glm.h - the one-launch loss and gradient pass of the CUDA backend's
 * GLM fits (gpu_glm_pass.cu), for gpu_glm.cu, which does the rest of a pass
 * (Hessians, wide blocks, the data checks). Internal to src/gpu/.
 */
#ifndef TSR_GPU_GLM_H
#define TSR_GPU_GLM_H

#define WQ 128 /* columns (p + 1) the one-launch pass takes at most */
#define WKB 8  /* points of a lambda path one launch takes at most */

/* A block of the launch: its data, the first of its npt coefficient vectors
 * (q values each), its rows, rows per CTA, CTAs, and its first CTA. */
typedef struct wpass_block {
  const double *x, *y, *beta;
  long long rows, chunk, nctas, cta0;
} wpass_block;

typedef struct wpass_args {
  int family, npt;        /* npt <= WKB points */
  long long p, ld, nb;    /* ld: results per point (the loss, then the gradient) */
  long long ctas;         /* of every block */
  const wpass_block *tab; /* nb blocks, in device memory */
  double *part;           /* tsr_gpu_wpass_parts(ctas) x npt x ld partials */
  double *out;            /* block b's point k at out[b ostride + o0 + k ld] */
  long long ostride, o0;
} wpass_args;

#ifdef __CUDACC__
/* The sum over the warp's lanes: the same bits on every lane (addition
 * commutes, so partners of the butterfly compute the same sums). */
__device__ static __forceinline__ double warp_sum(double v) {
  for (int m = 16; m > 0; m >>= 1) v += __shfl_xor_sync(0xffffffffu, v, m);
  return v;
}

/* The sum of n values at v, v + stride, ... on a warp: lane l adds values
 * l, l + 32, ... in order, then the butterfly (the same bits every time). */
__device__ static __forceinline__ double warp_sum_strided(const double *v, long long n,
                                                          long long stride, int lane) {
  double s = 0.0;
  for (long long i = lane; i < n; i += 32) s += v[i * stride];
  return warp_sum(s);
}
#endif

#ifdef __cplusplus
extern "C" {
#endif
/* The CTAs of a block of rows (a function of rows only: the sums' order). */
long long tsr_gpu_wpass_ctas(long long rows);
/* Partial sums per point and result of a launch of ctas CTAs. */
long long tsr_gpu_wpass_parts(long long ctas);
/* Queues the pass and its sums on this thread's stream. */
int tsr_gpu_wpass(const wpass_args *m, int grad);
#ifdef __cplusplus
}
#endif

#endif
