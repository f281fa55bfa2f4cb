/*
 * rngdist.h - random generators that need several variates per element
 * (gamma, beta, Student's t, Poisson, binomial, bounded integers), written
 * once for the host and the device (cpu/cpu_eval.c fill_leaf, gpu_prog.cuh
 * random_value).
 *
 * Element e of such an array draws from its own sequence of Philox blocks:
 * block j (j = 1, 2, ...) is Philox4x32-10 of the counter (e mod 2^32,
 * e div 2^32, stream, j) under the seed's key, each block two 64-bit words.
 * Word 3 of the counter is 0 for normal/uniform arrays (rng.h), so the
 * sequences never reuse their blocks, and an element's value depends only on
 * (seed, stream, e): the same for any chunking, rank count and slice.
 *
 * Same bits on both backends: Philox is integer arithmetic, log and exp are
 * rngmath.h's tsr_log and the fma-only tsr_exp below, sqrt and the basic
 * operations are IEEE, and the build contracts nothing (-ffp-contract=off,
 * nvcc --fmad=false).
 *
 * The methods are exact (rejection or inversion): gamma by Marsaglia and
 * Tsang (2000) with u^(1/a) for shape < 1; Poisson by inversion below
 * lam = 10 and Hörmann's PTRS (1993) above; binomial by inversion below
 * n min(p, 1-p) = 10 and Hörmann's BTRS (1993) above, with log-factorial
 * differences computed without cancellation for large n and lam.
 */
#ifndef TSR_RNGDIST_H
#define TSR_RNGDIST_H

#include <math.h>
#include <stdint.h>

#include "kernel/ids.h"
#include "kernel/rngmath.h"

/* Philox4x32-10 of c under (k0, k1), in place (the rounds of rng.c). */
TSR_HD static inline void tsr_philox_hd(uint32_t c[4], uint32_t k0, uint32_t k1) {
  for (int r = 0; r < 10; r++) {
    uint64_t p0 = (uint64_t)0xD2511F53u * c[0], p1 = (uint64_t)0xCD9E8D57u * c[2];
    uint32_t c1 = c[1], c3 = c[3];
    c[0] = (uint32_t)(p1 >> 32) ^ c1 ^ k0;
    c[1] = (uint32_t)p1;
    c[2] = (uint32_t)(p0 >> 32) ^ c3 ^ k1;
    c[3] = (uint32_t)p0;
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
}

/* One element's sequence of 64-bit words, uniforms and normals. */
typedef struct tsr_rng_seq {
  uint32_t k0, k1, stream, block;
  uint64_t e, spare;
  double spare_normal;
  int has_spare, has_normal;
} tsr_rng_seq;

TSR_HD static inline tsr_rng_seq tsr_seq_init(uint64_t key, uint32_t stream, uint64_t e) {
  tsr_rng_seq s;
  s.k0 = (uint32_t)key;
  s.k1 = (uint32_t)(key >> 32);
  s.stream = stream;
  s.block = 0;
  s.e = e;
  s.spare = 0;
  s.spare_normal = 0.0;
  s.has_spare = 0;
  s.has_normal = 0;
  return s;
}

TSR_HD static inline uint64_t tsr_seq_bits(tsr_rng_seq *s) {
  if (s->has_spare) {
    s->has_spare = 0;
    return s->spare;
  }
  uint32_t c[4] = {(uint32_t)s->e, (uint32_t)(s->e >> 32), s->stream, ++s->block};
  tsr_philox_hd(c, s->k0, s->k1);
  s->spare = ((uint64_t)c[3] << 32) | c[2];
  s->has_spare = 1;
  return ((uint64_t)c[1] << 32) | c[0];
}

/* Uniform on (0, 1], a multiple of 2^-53 (as rng.h's). */
TSR_HD static inline double tsr_seq_uniform(tsr_rng_seq *s) {
  return (double)((tsr_seq_bits(s) >> 11) + 1) * 0x1p-53;
}

/* Standard normal: Box-Muller, cosine then sine branch. */
TSR_HD static inline double tsr_seq_normal(tsr_rng_seq *s) {
  if (s->has_normal) {
    s->has_normal = 0;
    return s->spare_normal;
  }
  double r = sqrt(-2.0 * tsr_log(tsr_seq_uniform(s)));
  double sn, cs;
  tsr_sincos2pi(tsr_seq_uniform(s), &sn, &cs);
  s->spare_normal = r * sn;
  s->has_normal = 1;
  return r * cs;
}

/* ---- math: the same bits on host and device -------------------------------- */

/* log of any x >= 0 (tsr_log takes positive normal numbers only). */
TSR_HD static inline double tsr_log_any(double x) {
  if (!(x > 0)) return x == 0 ? -INFINITY : NAN;
  if (x == INFINITY) return x;
  if (x < 0x1p-1022) return tsr_log(x * 0x1p54) - 54.0 * 0x1.62e42fefa39efp-1;
  return tsr_log(x);
}

/* log(1 + x) for x > -1, accurate for small x (Goldberg's trick). */
TSR_HD static inline double tsr_log1p_hd(double x) {
  double u = 1.0 + x;
  if (u == 1.0) return x;
  return tsr_log_any(u) * (x / (u - 1.0));
}

/* exp(x): x = k ln2 + r, |r| <= ln2/2, Taylor polynomial of degree 13 by
 * fma, then two exact-or-once-rounded scalings by powers of two. */
TSR_HD static inline double tsr_exp(double x) {
  if (x != x) return x;
  if (x > 709.8) return INFINITY;
  if (x < -745.2) return 0.0;
  const double magic = 0x1.8p52;
  double t = fma(x, 0x1.71547652b82fep0, magic);
  double k = t - magic;
  double r = fma(-k, 0x1.62e42fee00000p-1, x);
  r = fma(-k, 0x1.a39ef35793c76p-33, r);
  double p = 1.0 / 6227020800.0;
  p = fma(p, r, 1.0 / 479001600.0);
  p = fma(p, r, 1.0 / 39916800.0);
  p = fma(p, r, 1.0 / 3628800.0);
  p = fma(p, r, 1.0 / 362880.0);
  p = fma(p, r, 1.0 / 40320.0);
  p = fma(p, r, 1.0 / 5040.0);
  p = fma(p, r, 1.0 / 720.0);
  p = fma(p, r, 1.0 / 120.0);
  p = fma(p, r, 1.0 / 24.0);
  p = fma(p, r, 1.0 / 6.0);
  p = fma(p, r, 0.5);
  p = fma(p, r, 1.0);
  p = fma(p, r, 1.0);
  int ki = (int)k, k1 = ki / 2, k2 = ki - k1;
  double s1 = tsr_double_of((uint64_t)(k1 + 1023) << 52);
  double s2 = tsr_double_of((uint64_t)(k2 + 1023) << 52);
  return p * s1 * s2;
}

/* Stirling's correction lgamma(x) - ((x - 1/2) log x - x + log(2 pi)/2),
 * x >= 17: error below 1e-16. */
TSR_HD static inline double tsr_stirling_corr(double x) {
  double r = 1.0 / x, r2 = r * r;
  return r * (1.0 / 12 - r2 * (1.0 / 360 - r2 * (1.0 / 1260 - r2 * (1.0 / 1680))));
}

#define TSR_HALF_LOG_2PI 0.9189385332046727

/* log(k!) for an integer k >= 0. */
TSR_HD static inline double tsr_lfact(double k) {
  const double t[16] = {0.0,
                        0.0,
                        0.693147180559945,
                        1.7917594692280554,
                        3.178053830347945,
                        4.787491742782047,
                        6.579251212010102,
                        8.525161361065415,
                        10.604602902745249,
                        12.801827480081467,
                        15.104412573075514,
                        17.502307845873887,
                        19.987214495661885,
                        22.55216385312342,
                        25.191221182738683,
                        27.89927138384089};
  if (k < 16) return t[(int)k];
  double x = k + 1.0;
  return (k + 0.5) * tsr_log(x) - x + TSR_HALF_LOG_2PI + tsr_stirling_corr(x);
}

/* log(k!) - log(m!) for integers k, m >= 0, without the cancellation of
 * the difference of two large values: with d = (k - m) / (m + 1),
 * (k + 1/2) log(k + 1) - (m + 1/2) log(m + 1) = (k - m) log(m + 1)
 * + (k + 1/2) log1p(d). */
TSR_HD static inline double tsr_lfact_diff(double k, double m) {
  if (k < 16 || m < 16) return tsr_lfact(k) - tsr_lfact(m);
  double dk = k - m;
  double t = dk * tsr_log(m + 1.0) + (k + 0.5) * tsr_log1p_hd(dk / (m + 1.0));
  return t - dk + (tsr_stirling_corr(k + 1.0) - tsr_stirling_corr(m + 1.0));
}

/* ---- the generators ---------------------------------------------------------- */

enum { TSR_RNG_MAX_TRIES = 10000 }; /* a bound on rejection loops: never reached in practice */

/* Gamma(a, 1), a >= 1: Marsaglia and Tsang. */
TSR_HD static inline double tsr_gamma_mt(tsr_rng_seq *s, double a) {
  double d = a - 1.0 / 3.0, c = 1.0 / sqrt(9.0 * d);
  for (int tries = 0; tries < TSR_RNG_MAX_TRIES; tries++) {
    double x, v;
    do {
      x = tsr_seq_normal(s);
      v = 1.0 + c * x;
    } while (v <= 0);
    v = v * v * v;
    double u = tsr_seq_uniform(s), x2 = x * x;
    if (u < 1.0 - 0.0331 * (x2 * x2)) return d * v;
    if (tsr_log(u) < 0.5 * x2 + d * (1.0 - v + tsr_log(v))) return d * v;
  }
  return NAN;
}

/* log of a Gamma(a, 1) variate, a > 0: for a < 1, log G(a + 1) + log(u) / a
 * (the value itself may underflow). */
TSR_HD static inline double tsr_gamma_log(tsr_rng_seq *s, double a) {
  if (a >= 1) return tsr_log_any(tsr_gamma_mt(s, a));
  double g = tsr_gamma_mt(s, a + 1.0);
  return tsr_log_any(g) + tsr_log(tsr_seq_uniform(s)) / a;
}

TSR_HD static inline double tsr_gamma_value(tsr_rng_seq *s, double a) {
  if (a >= 1) return tsr_gamma_mt(s, a);
  return tsr_exp(tsr_gamma_log(s, a));
}

/* Poisson(lam), lam >= 0. */
TSR_HD static inline double tsr_poisson(tsr_rng_seq *s, double lam) {
  if (!(lam > 0)) return lam == 0 ? 0.0 : NAN;
  if (lam < 10) { /* inversion, one uniform on [0, 1) */
    for (int tries = 0; tries < TSR_RNG_MAX_TRIES; tries++) {
      double u = 1.0 - tsr_seq_uniform(s), p = tsr_exp(-lam), cdf = p;
      for (int x = 0; x < 200; x++) {
        if (u < cdf) return (double)x;
        p = p * lam / (double)(x + 1);
        cdf += p;
      }
    }
    return NAN;
  }
  /* PTRS: transformed rejection with squeeze (Hörmann 1993). */
  double slam = sqrt(lam), loglam = tsr_log(lam);
  double b = 0.931 + 2.53 * slam, a = -0.059 + 0.02483 * b;
  double invalpha = 1.1239 + 1.1328 / (b - 3.4), vr = 0.9277 - 3.6224 / (b - 2.0);
  /* log p(m) at the mode m = floor(lam), then log p(k) = log p(m) +
   * (k - m) log lam - (log k! - log m!). */
  double m = floor(lam), logpm;
  if (m < 16)
    logpm = -lam + m * loglam - tsr_lfact(m);
  else
    logpm = (m + 1.0 - lam) + m * tsr_log1p_hd((lam - m - 1.0) / (m + 1.0)) -
            0.5 * tsr_log(m + 1.0) - TSR_HALF_LOG_2PI - tsr_stirling_corr(m + 1.0);
  double loginv = tsr_log(invalpha);
  for (int tries = 0; tries < TSR_RNG_MAX_TRIES; tries++) {
    double u = tsr_seq_uniform(s) - 0.5, v = tsr_seq_uniform(s);
    double us = 0.5 - fabs(u);
    double k = floor((2.0 * a / us + b) * u + lam + 0.43);
    if (us >= 0.07 && v <= vr) return k;
    if (k < 0 || (us < 0.013 && v > us)) continue;
    double lhs = tsr_log(v) + loginv - tsr_log(a / (us * us) + b);
    if (lhs <= logpm + (k - m) * loglam - tsr_lfact_diff(k, m)) return k;
  }
  return NAN;
}

/* Binomial(n, p), n a non-negative integer, p in [0, 1]. */
TSR_HD static inline double tsr_binomial(tsr_rng_seq *s, double n, double p) {
  if (n == 0 || p == 0) return 0.0;
  if (p == 1) return n;
  int flip = p > 0.5;
  double pp = flip ? 1.0 - p : p, q = 1.0 - pp, x = NAN;
  if (n * pp < 10) { /* inversion (Devroye's), one uniform on [0, 1) */
    double sr = pp / q, ar = (n + 1.0) * sr, r0 = tsr_exp(n * tsr_log1p_hd(-pp));
    for (int tries = 0; tries < TSR_RNG_MAX_TRIES && x != x; tries++) {
      double u = 1.0 - tsr_seq_uniform(s), r = r0;
      for (double k = 0; k <= n && k < 200; k++) {
        if (u < r) {
          x = k;
          break;
        }
        u -= r;
        r *= ar / (k + 1.0) - sr;
      }
    }
  } else { /* BTRS: transformed rejection with squeeze (Hörmann 1993) */
    double spq = sqrt(n * pp * q), b = 1.15 + 2.53 * spq;
    double a = -0.0873 + 0.0248 * b + 0.01 * pp, c = n * pp + 0.5, vr = 0.92 - 4.2 / b;
    double alpha = (2.83 + 5.1 / b) * spq, lpq = tsr_log(pp / q), m = floor((n + 1.0) * pp);
    for (int tries = 0; tries < TSR_RNG_MAX_TRIES; tries++) {
      double u = tsr_seq_uniform(s) - 0.5, v = tsr_seq_uniform(s);
      double us = 0.5 - fabs(u);
      double k = floor((2.0 * a / us + b) * u + c);
      if (k < 0 || k > n) continue;
      if (us >= 0.07 && v <= vr) {
        x = k;
        break;
      }
      double lv = tsr_log(v * alpha / (a / (us * us) + b));
      if (lv <= -tsr_lfact_diff(k, m) - tsr_lfact_diff(n - k, n - m) + (k - m) * lpq) {
        x = k;
        break;
      }
    }
  }
  return flip ? n - x : x;
}

/* An integer uniform on [lo, lo + r), 1 <= r <= 2^53: 64-bit words, those
 * below 2^64 mod r rejected, reduced mod r. */
TSR_HD static inline double tsr_integer(tsr_rng_seq *s, double lo, double r) {
  uint64_t n = (uint64_t)r, skip = (0 - n) % n;
  for (int tries = 0; tries < TSR_RNG_MAX_TRIES; tries++) {
    uint64_t x = tsr_seq_bits(s);
    if (x >= skip) return lo + (double)(x % n);
  }
  return NAN;
}

/* Element e of a random array of one of the kinds above, parameters a, b
 * as tsr_random_kind lists them (kernel/ids.h). */
TSR_HD static inline double tsr_rng_dist_at(int kind, double a, double b, uint64_t key,
                                            uint32_t stream, uint64_t e) {
  tsr_rng_seq s = tsr_seq_init(key, stream, e);
  switch ((tsr_random_kind)kind) {
  case RNG_GAMMA:
    return b * tsr_gamma_value(&s, a);
  case RNG_BETA:
    if (a >= 1 && b >= 1) {
      double g1 = tsr_gamma_mt(&s, a), g2 = tsr_gamma_mt(&s, b);
      return g1 / (g1 + g2);
    } else {
      double l1 = tsr_gamma_log(&s, a), l2 = tsr_gamma_log(&s, b);
      return 1.0 / (1.0 + tsr_exp(l2 - l1));
    }
  case RNG_STUDENT_T: {
    double z = tsr_seq_normal(&s), g = tsr_gamma_value(&s, 0.5 * a);
    return sqrt(0.5 * a) * z / sqrt(g);
  }
  case RNG_POISSON:
    return tsr_poisson(&s, a);
  case RNG_BINOMIAL:
    return tsr_binomial(&s, a, b);
  case RNG_INTEGERS:
    return tsr_integer(&s, a, b - a);
  case RNG_NORMAL:
  case RNG_UNIFORM:
    break;
  }
  return NAN;
}

#endif
