/*
 * gpu_selftest.cu - device checks behind gpu_selftest.h: the walking
 * kernels' uniforms by one fma, branch-free division and square root and
 * their one-polynomial sin/cos (gpu_prog.cuh) against the IEEE operations
 * and the general path, on the operands the walk gives them, bit for bit.
 */
#include "gpu/gpu_prog.cuh"

extern "C" {
#include "gpu/gpu_selftest.h"
}

__device__ static inline uint64_t mix64(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  return x ^ (x >> 33);
}

/* u01's values: a multiple of 2^-53 in (0, 1] from 64 random bits. */
__device__ static inline double unit(uint64_t h) { return (double)((h >> 11) + 1) * 0x1p-53; }

/* gen_u01 against u01 for the words h and its complement. */
__device__ static void check_words(uint64_t h, unsigned long long *bad) {
  for (int k = 0; k < 2; k++, h = ~h)
    if (tsr_bits_of(gen_u01((unsigned)h, (unsigned)(h >> 32))) !=
        tsr_bits_of(u01((unsigned)h, (unsigned)(h >> 32))))
      bad[TSR_GEN_U01]++;
}

/* The comparisons for one u pair; bad gets one count per differing result. */
__device__ static void check_one(const gen_table &t, double u1, double u2, uint64_t want_sin,
                                 unsigned long long *bad) {
  double k, f = tsr_log_reduce(u1, &k);
  if (tsr_bits_of(gen_div(f, 2.0 + f)) != tsr_bits_of(__ddiv_rn(f, 2.0 + f))) bad[TSR_GEN_DIV]++;
  double x = -2.0 * tsr_log(u1);
  if (tsr_bits_of(gen_sqrt(x)) != tsr_bits_of(__dsqrt_rn(x))) bad[TSR_GEN_SQRT]++;
  double sc = tsr_sin_or_cos2pi(u2, want_sin);
  if (tsr_bits_of(gen_sin_or_cos2pi(t, u2, want_sin)) != tsr_bits_of(sc)) bad[TSR_GEN_SINCOS]++;
  /* gen_raw from the words that give u1 and u2 (e's parity picks sin) */
  uint64_t k1 = (uint64_t)(u1 * 0x1p53) - 1, k2 = (uint64_t)(u2 * 0x1p53) - 1;
  uint4 w = make_uint4((unsigned)(k1 << 11), (unsigned)(k1 >> 21), (unsigned)(k2 << 11),
                       (unsigned)(k2 >> 21));
  double ref = __dsqrt_rn(x) * sc;
  if (tsr_bits_of(gen_raw<true>(t, want_sin, w)) != tsr_bits_of(ref)) bad[TSR_GEN_NORMAL]++;
}

__global__ static void gen_math_kernel(long long n, uint64_t seed, unsigned long long *out) {
  __shared__ gen_table t;
  gen_table_fill(&t);
  unsigned long long bad[TSR_GEN_CHECKS] = {0};
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i == 0) { /* the edges: u = 1 gives log 0 and the root of -0 */
    const double edge[] = {1.0, 1.0 - 0x1p-53, 0x1p-53, 0.25, 0.5, 0.75, 0.125, 0.875};
    for (int a = 0; a < 8; a++)
      for (int b = 0; b < 8; b++)
        for (int s = 0; s < 2; s++) check_one(t, edge[a], edge[b], (uint64_t)s, bad);
    check_words(0, bad); /* and ~0 */
    for (int k = 0; k < 64; k++) check_words(1ULL << k, bad);
  }
  for (; i < n; i += (long long)gridDim.x * blockDim.x) {
    uint64_t h = mix64(seed + (uint64_t)i), g = mix64(h ^ 0x9E3779B97F4A7C15ULL);
    /* a third anywhere in (0, 1]; a third just below 1 (f just below 0,
     * roots near 0); a third just above 1/2 (f just above 0) */
    double u1 = i % 3 == 0   ? unit(h)
                : i % 3 == 1 ? (double)((1ULL << 53) - (g & 0xffffff)) * 0x1p-53
                             : 0.5 + (double)((g & 0xffffff) + 1) * 0x1p-53;
    check_one(t, u1, unit(g), h & 1, bad);
    check_words(h, bad);
  }
  for (int c = 0; c < TSR_GEN_CHECKS; c++)
    if (bad[c]) atomicAdd(&out[c], bad[c]);
}

int tsr_gpu_gen_math_check(int64_t n, uint64_t seed, uint64_t *counts) {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) return 1;
  unsigned long long *d = NULL, h[TSR_GEN_CHECKS];
  cudaError_t e = cudaMalloc(&d, sizeof h);
  if (e == cudaSuccess) e = cudaMemset(d, 0, sizeof h);
  if (e == cudaSuccess) {
    gen_math_kernel<<<1024, THREADS>>>((long long)n, seed, d);
    e = cudaGetLastError();
  }
  if (e == cudaSuccess) e = cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  cudaFree(d);
  if (e != cudaSuccess) {
    fprintf(stderr, "gen_math: %s\n", cudaGetErrorString(e));
    return -1;
  }
  for (int c = 0; c < TSR_GEN_CHECKS; c++) counts[c] = h[c];
  return 0;
}
