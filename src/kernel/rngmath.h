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

/* The polynomial coefficients and split constants, one list: on the host
 * a static const table whose constant-index reads fold to immediates; in
 * device code a __constant__ table, which the instructions read as operands
 * (written as literals, each 64-bit constant took two uniform-register moves
 * per use: 49 of the ~375 instructions per element of W1's kernel). The
 * same values either way, so the same bits. Names: LOG_P0 is log's
 * coefficient of z^0 in P, etc.; TWOPI = 2 pi, C2 = -2 pi^2 (hi + lo). */
#define TSR_RNG_COEFFICIENTS(X) \
  X(LOG_LN2_HI, 0x1.62e42fee00000p-1) \
  X(LOG_LN2_LO, 0x1.a39ef35793c76p-33) \
  X(LOG_P6, 0x1.2b584aae78a57p-3) \
  X(LOG_P5, 0x1.39fe606542ddep-3) \
  X(LOG_P4, 0x1.7462b4ab2ef6bp-3) \
  X(LOG_P3, 0x1.c71c62e5800a1p-3) \
  X(LOG_P2, 0x1.2492492df148dp-2) \
  X(LOG_P1, 0x1.99999999952e2p-2) \
  X(LOG_P0, 0x1.5555555555558p-1) \
  X(SIN_TWOPI_HI, 0x1.921fb54442d18p+2) \
  X(SIN_TWOPI_LO, 0x1.1a62633145c07p-52) \
  X(SIN_P6, -0x1.6cc577dadd922p-1) \
  X(SIN_P5, 0x1.e8f036bcd3237p+1) \
  X(SIN_P4, -0x1.e3074d2614b2dp+3) \
  X(SIN_P3, 0x1.50783486facaap+5) \
  X(SIN_P2, -0x1.32d2cce62b872p+6) \
  X(SIN_P1, 0x1.466bc6775aae1p+6) \
  X(SIN_P0, -0x1.4abbce625be53p+5) \
  X(COS_C2_HI, -0x1.3bd3cc9be45dep+4) \
  X(COS_C2_LO, -0x1.692b71366cc04p-50) \
  X(COS_Q5, -0x1.b38340f56931fp+0) \
  X(COS_Q4, 0x1.f9cfc07738157p+2) \
  X(COS_Q3, -0x1.a6d1f0ab7905cp+4) \
  X(COS_Q2, 0x1.e1f50688302c5p+5) \
  X(COS_Q1, -0x1.55d3c7e3cbd74p+6) \
  X(COS_Q0, 0x1.03c1f081b5ac4p+6)
#define TSR_RC_INDEX(name, value) TSR_RC_##name,
#define TSR_RC_VALUE(name, value) value,
enum { TSR_RNG_COEFFICIENTS(TSR_RC_INDEX) TSR_RC_COUNT };
static const double tsr_rng_coef[TSR_RC_COUNT] = {TSR_RNG_COEFFICIENTS(TSR_RC_VALUE)};
#ifdef __CUDACC__
/* Not const: a const table with its initializer in sight is folded back
 * into the literals. */
static __constant__ double tsr_rng_coef_dev[TSR_RC_COUNT] = {TSR_RNG_COEFFICIENTS(TSR_RC_VALUE)};
#endif
#ifdef __CUDA_ARCH__
#define TSR_RC(name) tsr_rng_coef_dev[TSR_RC_##name]
#else
#define TSR_RC(name) tsr_rng_coef[TSR_RC_##name]
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
 * log(1 + f) = f - f^2/2 + s (f^2/2 + R(s^2)). In two parts around its one
 * division, which the GPU's walking kernels do without the general path's
 * checks (gpu_prog.cuh, gen_div): tsr_log_reduce gives f and k, and
 * tsr_log_finish the log from f, k and s. */
TSR_HD static inline double tsr_log_reduce(double x, double *k) {
  const uint64_t sqrt_half = 0x3fe6a09e667f3bcdULL;
  uint64_t ix = tsr_bits_of(x);
  /* The 2^62 bias keeps the difference non-negative, so a logical shift
   * (which SSE/AVX2 have for 64-bit lanes, unlike an arithmetic one) gives
   * k + 1024. */
  uint64_t kb = (ix - sqrt_half + (1ULL << 62)) >> 52;
  double m = tsr_double_of(ix - ((kb - 1024) << 52));
  /* Exact int -> double without a 64-bit conversion instruction. */
  *k = tsr_double_of(0x4330000000000000ULL | kb) - (0x1p52 + 1024.0);
  return m - 1.0;
}

TSR_HD static inline double tsr_log_finish(double f, double k, double s) {
  double z = s * s;
  double p = fma(z, TSR_RC(LOG_P6), TSR_RC(LOG_P5));
  p = fma(z, p, TSR_RC(LOG_P4));
  p = fma(z, p, TSR_RC(LOG_P3));
  p = fma(z, p, TSR_RC(LOG_P2));
  p = fma(z, p, TSR_RC(LOG_P1));
  p = fma(z, p, TSR_RC(LOG_P0));
  /* f * f * 0.5: the last product is exact, so contracting it into the
   * subtraction below would not change the bits. */
  double hfsq = f * f * 0.5;
  double y = fma(s, fma(z, p, hfsq), k * TSR_RC(LOG_LN2_LO));
  return fma(k, TSR_RC(LOG_LN2_HI), f - (hfsq - y)); /* k * ln2_hi is exact */
}

TSR_HD static inline double tsr_log(double x) {
  double k, f = tsr_log_reduce(x, &k);
  return tsr_log_finish(f, k, f / (2.0 + f));
}

/* sin(2 pi r) for |r| <= 1/8: 2 pi r + r^3 P(r^2), the leading term in
 * double-double so that the result keeps its last bit. Polynomial and tail
 * apart, for the GPU's walking kernels, which evaluate only the polynomial
 * each element needs (gpu_prog.cuh, gen_sin_or_cos2pi). */
TSR_HD static inline double tsr_sin2pi_poly(double r2) {
  double p = fma(r2, TSR_RC(SIN_P6), TSR_RC(SIN_P5));
  p = fma(r2, p, TSR_RC(SIN_P4));
  p = fma(r2, p, TSR_RC(SIN_P3));
  p = fma(r2, p, TSR_RC(SIN_P2));
  p = fma(r2, p, TSR_RC(SIN_P1));
  return fma(r2, p, TSR_RC(SIN_P0));
}
TSR_HD static inline double tsr_sin2pi_tail(double r, double r2, double p) {
  return fma(TSR_RC(SIN_TWOPI_HI), r, r * fma(r2, p, TSR_RC(SIN_TWOPI_LO)));
}

/* cos(2 pi r) for |r| <= 1/8: 1 - 2 pi^2 r^2 + r^4 Q(r^2). The first two
 * terms are summed with their rounding errors carried into the tail, which
 * keeps the result within 1 ulp (cos is >= 0.7 here, so 1 - h is exact). */
TSR_HD static inline double tsr_cos2pi_poly(double r2) {
  double q = fma(r2, TSR_RC(COS_Q5), TSR_RC(COS_Q4));
  q = fma(r2, q, TSR_RC(COS_Q3));
  q = fma(r2, q, TSR_RC(COS_Q2));
  q = fma(r2, q, TSR_RC(COS_Q1));
  return fma(r2, q, TSR_RC(COS_Q0));
}
TSR_HD static inline double tsr_cos2pi_tail(double r, double r2, double q) {
  double r2_lo = fma(r, r, -r2); /* r * r == r2 + r2_lo exactly */
  double h = fma(TSR_RC(COS_C2_HI), r2, 1.0);
  double h_err = fma(TSR_RC(COS_C2_HI), r2, 1.0 - h);
  double tail = fma(r2 * r2, q, h_err);
  tail = fma(TSR_RC(COS_C2_LO), r2, tail);
  tail = fma(TSR_RC(COS_C2_HI), r2_lo, tail);
  return h + tail;
}

/* u = n/4 + r with integer n and |r| <= 1/8 is exact (u is a multiple of
 * 2^-53 in tessera), so the only rounding is in the kernels; the reduction
 * gives r, r^2 and q = n mod 4. */
TSR_HD static inline uint64_t tsr_quarter_reduce(double u, double *r, double *r2) {
  /* Adding 1.5 * 2^52 rounds 4u to an integer n held in the low bits. */
  const double round_magic = 0x1.8p52;
  double t = fma(u, 4.0, round_magic);
  *r = fma(t - round_magic, -0.25, u);
  *r2 = *r * *r;
  return tsr_bits_of(t) & 3;
}

/* The shared part of tsr_sincos2pi and tsr_sin_or_cos2pi: q = n mod 4, sk
 * and ck the kernels at r. */
TSR_HD static inline uint64_t tsr_quarter_turns(double u, double *sk, double *ck) {
  double r, r2;
  uint64_t q = tsr_quarter_reduce(u, &r, &r2);
  *sk = tsr_sin2pi_tail(r, r2, tsr_sin2pi_poly(r2));
  *ck = tsr_cos2pi_tail(r, r2, tsr_cos2pi_poly(r2));
  return q;
}

/* sin(2 pi u) and cos(2 pi u) for u in [0, 1]; quarter turns give exact 0
 * and +-1. */
TSR_HD static inline void tsr_sincos2pi(double u, double *s, double *c) {
  double sk, ck;
  uint64_t q = tsr_quarter_turns(u, &sk, &ck);
  /* Rotate by n quarter turns: odd n swaps sin and cos; the sign bits come
   * from n (sin < 0 for n = 2, 3; cos < 0 for n = 1, 2). */
  double sv = (q & 1) ? ck : sk, cv = (q & 1) ? sk : ck;
  *s = tsr_double_of(tsr_bits_of(sv) ^ ((q & 2) << 62));
  *c = tsr_double_of(tsr_bits_of(cv) ^ (((q + 1) & 2) << 62));
}

/* One result of tsr_sincos2pi, sin(2 pi u) where want_sin is 1, cos where 0,
 * by the same operations (the same bits), without rotating the other: the
 * odd elements of a normal array take the sine, the even ones the cosine.
 * The kernel it takes is the sine's where tsr_quarter_uses_sin, and
 * tsr_quarter_sign gives that kernel's value its sign. */
TSR_HD static inline uint64_t tsr_quarter_uses_sin(uint64_t q, uint64_t want_sin) {
  return (q ^ want_sin) & 1;
}
TSR_HD static inline double tsr_quarter_sign(double v, uint64_t q, uint64_t want_sin) {
  return tsr_double_of(tsr_bits_of(v) ^ (((q + (want_sin ^ 1)) & 2) << 62));
}
TSR_HD static inline double tsr_sin_or_cos2pi(double u, uint64_t want_sin) {
  double sk, ck;
  uint64_t q = tsr_quarter_turns(u, &sk, &ck);
  return tsr_quarter_sign(tsr_quarter_uses_sin(q, want_sin) ? sk : ck, q, want_sin);
}

#endif
