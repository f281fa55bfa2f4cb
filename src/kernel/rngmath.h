/*
 * rngmath.h - the log and sin/cos(2 pi u) behind tessera's normal random
 * numbers, written out here instead of taken from libm or CUDA's math library
 * so that the CPU and GPU backends produce the same bits (see rng.h).
 *
 * Every multiply-add is an explicit fma() and the remaining operations are
 * single IEEE operations, so the results are fixed by IEEE 754 alone. No
 * product feeds an addition unless it is exact, so the results hold even
 * where the compiler contracts a*b+c on its own (nvcc's default --fmad=true,
 * gcc's -ffp-contract=fast); keep it that way when editing.
 *
 * Both functions are branch-free (selects and bit operations only) so that
 * loops calling them vectorize. Accuracy: within 1 ulp (tests/test_rng.c).
 * Polynomial coefficients: near-minimax (Chebyshev) fits made with mpmath.
 */
#ifndef TSR_RNGMATH_H
#define TSR_RNGMATH_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#ifdef __CUDACC__
#define TSR_HD __host__ __device__
#else
#define TSR_HD
#endif

TSR_HD static inline uint64_t tsr_bits_of(double x) {
  uint64_t b;
  memcpy(&b, &x, sizeof b);
  return b;
}

TSR_HD static inline double tsr_double_of(uint64_t b) {
  double x;
  memcpy(&x, &b, sizeof x);
  return x;
}

/* Natural log of a positive, finite, normal x (fdlibm's scheme): x = 2^k m
 * with m in [sqrt(1/2), sqrt(2)), f = m - 1, s = f / (2 + f), and
 * log(1 + f) = f - f^2/2 + s (f^2/2 + R(s^2)). */
TSR_HD static inline double tsr_log(double x) {
  const uint64_t sqrt_half = 0x3fe6a09e667f3bcdULL;
  const double ln2_hi = 0x1.62e42fee00000p-1; /* k * ln2_hi is exact */
  const double ln2_lo = 0x1.a39ef35793c76p-33;
  uint64_t ix = tsr_bits_of(x);
  /* The 2^62 bias keeps the difference non-negative, so a logical shift
   * (which SSE/AVX2 have for 64-bit lanes, unlike an arithmetic one) gives
   * k + 1024. */
  uint64_t kb = (ix - sqrt_half + (1ULL << 62)) >> 52;
  double m = tsr_double_of(ix - ((kb - 1024) << 52));
  /* Exact int -> double without a 64-bit conversion instruction. */
  double k = tsr_double_of(0x4330000000000000ULL | kb) - (0x1p52 + 1024.0);
  double f = m - 1.0;
  double s = f / (2.0 + f);
  double z = s * s;
  double p = fma(z, 0x1.2b584aae78a57p-3, 0x1.39fe606542ddep-3);
  p = fma(z, p, 0x1.7462b4ab2ef6bp-3);
  p = fma(z, p, 0x1.c71c62e5800a1p-3);
  p = fma(z, p, 0x1.2492492df148dp-2);
  p = fma(z, p, 0x1.99999999952e2p-2);
  p = fma(z, p, 0x1.5555555555558p-1);
  /* f * f * 0.5: the last product is exact, so contracting it into the
   * subtraction below would not change the bits. */
  double hfsq = f * f * 0.5;
  double y = fma(s, fma(z, p, hfsq), k * ln2_lo);
  return fma(k, ln2_hi, f - (hfsq - y));
}

/* sin(2 pi r) for |r| <= 1/8: 2 pi r + r^3 P(r^2), the leading term in
 * double-double so that the result keeps its last bit. */
TSR_HD static inline double tsr_sin2pi_kernel(double r, double r2) {
  const double twopi_hi = 0x1.921fb54442d18p+2;
  const double twopi_lo = 0x1.1a62633145c07p-52;
  double p = fma(r2, -0x1.6cc577dadd922p-1, 0x1.e8f036bcd3237p+1);
  p = fma(r2, p, -0x1.e3074d2614b2dp+3);
  p = fma(r2, p, 0x1.50783486facaap+5);
  p = fma(r2, p, -0x1.32d2cce62b872p+6);
  p = fma(r2, p, 0x1.466bc6775aae1p+6);
  p = fma(r2, p, -0x1.4abbce625be53p+5);
  return fma(twopi_hi, r, r * fma(r2, p, twopi_lo));
}

/* cos(2 pi r) for |r| <= 1/8: 1 - 2 pi^2 r^2 + r^4 Q(r^2). The first two
 * terms are summed with their rounding errors carried into the tail, which
 * keeps the result within 1 ulp (cos is >= 0.7 here, so 1 - h is exact). */
TSR_HD static inline double tsr_cos2pi_kernel(double r, double r2) {
  const double c2_hi = -0x1.3bd3cc9be45dep+4; /* -2 pi^2 */
  const double c2_lo = -0x1.692b71366cc04p-50;
  double q = fma(r2, -0x1.b38340f56931fp+0, 0x1.f9cfc07738157p+2);
  q = fma(r2, q, -0x1.a6d1f0ab7905cp+4);
  q = fma(r2, q, 0x1.e1f50688302c5p+5);
  q = fma(r2, q, -0x1.55d3c7e3cbd74p+6);
  q = fma(r2, q, 0x1.03c1f081b5ac4p+6);
  double r2_lo = fma(r, r, -r2); /* r * r == r2 + r2_lo exactly */
  double h = fma(c2_hi, r2, 1.0);
  double h_err = fma(c2_hi, r2, 1.0 - h);
  double tail = fma(r2 * r2, q, h_err);
  tail = fma(c2_lo, r2, tail);
  tail = fma(c2_hi, r2_lo, tail);
  return h + tail;
}

/* sin(2 pi u) and cos(2 pi u) for u in [0, 1]. u = n/4 + r with integer n and
 * |r| <= 1/8 is exact (u is a multiple of 2^-53 in tessera), so the only
 * rounding is in the kernels; quarter turns give exact 0 and +-1. */
TSR_HD static inline void tsr_sincos2pi(double u, double *s, double *c) {
  /* Adding 1.5 * 2^52 rounds 4u to an integer n held in the low bits. */
  const double round_magic = 0x1.8p52;
  double t = fma(u, 4.0, round_magic);
  uint64_t q = tsr_bits_of(t) & 3; /* quadrant: n mod 4 */
  double r = fma(t - round_magic, -0.25, u);
  double r2 = r * r;
  double sk = tsr_sin2pi_kernel(r, r2), ck = tsr_cos2pi_kernel(r, r2);
  /* Rotate by n quarter turns: odd n swaps sin and cos; the sign bits come
   * from n (sin < 0 for n = 2, 3; cos < 0 for n = 1, 2). */
  double sv = (q & 1) ? ck : sk, cv = (q & 1) ? sk : ck;
  *s = tsr_double_of(tsr_bits_of(sv) ^ ((q & 2) << 62));
  *c = tsr_double_of(tsr_bits_of(cv) ^ (((q + 1) & 2) << 62));
}

#endif
