/*
 * rng.c - tessera's random numbers on the CPU (the definition is in rng.h).
 *
 * The _at functions are the reference: Philox and the formulas of rng.h
 * written out literally, one element at a time. The fill functions produce
 * the same bits fast, a block at a time: Philox for the block's counters into
 * small arrays of raw words, then simple loops that turn the words into
 * doubles. Every loop is branch-free so that it vectorizes; the math
 * (rngmath.h) is exact IEEE arithmetic, so vector and scalar code agree bit
 * for bit.
 *
 * Speed needs -O3 -fopenmp (for the simd loops), -fno-math-errno (else sqrt
 * stays scalar) and hardware FMA (-march=native; without it fma() is a
 * library call, ten times slower). The results depend on none of these,
 * nor on -ffp-contract: no product here feeds an addition outside fma().
 */
#include "kernel/rng.h"

#include <math.h>

#include "kernel/rngmath.h"

/* Random123's Philox is the reference where installed; otherwise the
 * transcription below (the known-answer tests check whichever is built). */
#if defined(__has_include)
#if __has_include(<Random123/philox.h>)
#include <Random123/philox.h>
#define TSR_HAVE_RANDOM123 1
#endif
#endif

#if defined(__AVX2__) || defined(__AVX512F__)
#include <immintrin.h>
#endif

/* The loops below are written for vectorization; omp simd (with -fopenmp)
 * makes sure of it, -O3 alone vectorizes most of them. */
#if defined(_OPENMP)
#define TSR_SIMD _Pragma("omp simd")
#else
#define TSR_SIMD
#endif

/* Counters per block: the block's words and doubles stay in L1. A multiple
 * of the widest vector (16 lanes of 32 bits). */
enum { BLOCK = 256 };

/* Philox4x32 multipliers and key increments (Salmon et al., SC11). */
#define PHILOX_M0 0xD2511F53u
#define PHILOX_M1 0xCD9E8D57u
#define PHILOX_W0 0x9E3779B9u
#define PHILOX_W1 0xBB67AE85u
#define PHILOX_ROUNDS 10

/* ---- Philox, one counter ------------------------------------------------ */

#ifdef TSR_HAVE_RANDOM123
void tsr_philox4x32_10(const uint32_t ctr[4], const uint32_t key[2], uint32_t out[4]) {
  philox4x32_ctr_t c = {{ctr[0], ctr[1], ctr[2], ctr[3]}};
  philox4x32_key_t k = {{key[0], key[1]}};
  philox4x32_ctr_t r = philox4x32_R(PHILOX_ROUNDS, c, k);
  for (int i = 0; i < 4; i++) out[i] = r.v[i];
}
#else
void tsr_philox4x32_10(const uint32_t ctr[4], const uint32_t key[2], uint32_t out[4]) {
  uint32_t c0 = ctr[0], c1 = ctr[1], c2 = ctr[2], c3 = ctr[3];
  uint32_t k0 = key[0], k1 = key[1];
  for (int r = 0; r < PHILOX_ROUNDS; r++) {
    uint64_t p0 = (uint64_t)PHILOX_M0 * c0, p1 = (uint64_t)PHILOX_M1 * c2;
    c0 = (uint32_t)(p1 >> 32) ^ c1 ^ k0;
    c1 = (uint32_t)p1;
    c2 = (uint32_t)(p0 >> 32) ^ c3 ^ k1;
    c3 = (uint32_t)p0;
    k0 += PHILOX_W0;
    k1 += PHILOX_W1;
  }
  out[0] = c0;
  out[1] = c1;
  out[2] = c2;
  out[3] = c3;
}
#endif

/* ---- reference path ---------------------------------------------------- */

static void words_at(uint64_t key, uint32_t stream, uint64_t e, uint32_t x[4]) {
  uint64_t p = e >> 1;
  const uint32_t ctr[4] = {(uint32_t)p, (uint32_t)(p >> 32), stream, 0};
  const uint32_t k[2] = {(uint32_t)key, (uint32_t)(key >> 32)};
  tsr_philox4x32_10(ctr, k, x);
}

static double uniform_of(uint32_t lo, uint32_t hi) {
  uint64_t v = ((((uint64_t)hi << 32) | lo) >> 11) + 1;
  return (double)v * 0x1p-53;
}

double tsr_rng_uniform_at(uint64_t key, uint32_t stream, uint64_t e) {
  uint32_t x[4];
  words_at(key, stream, e, x);
  return (e & 1) ? uniform_of(x[2], x[3]) : uniform_of(x[0], x[1]);
}

double tsr_rng_normal_at(uint64_t key, uint32_t stream, uint64_t e) {
  uint32_t x[4];
  words_at(key, stream, e, x);
  double r = sqrt(-2.0 * tsr_log(uniform_of(x[0], x[1])));
  double s, c;
  tsr_sincos2pi(uniform_of(x[2], x[3]), &s, &c);
  return (e & 1) ? r * s : r * c;
}

/* ---- Philox, a block of counters ---------------------------------------- */

/* Counters in, raw words out, one array per word (x0, x1 start as the
 * counter's low and high words; x2 = stream, x3 = 0 for every counter). */
typedef struct words {
  uint32_t x0[BLOCK], x1[BLOCK], x2[BLOCK], x3[BLOCK];
} words;

/* The round keys, the same for every counter. */
typedef struct round_keys {
  uint32_t k0[PHILOX_ROUNDS], k1[PHILOX_ROUNDS];
} round_keys;

static round_keys round_keys_of(uint64_t key) {
  round_keys rk;
  uint32_t k0 = (uint32_t)key, k1 = (uint32_t)(key >> 32);
  for (int r = 0; r < PHILOX_ROUNDS; r++) {
    rk.k0[r] = k0;
    rk.k1[r] = k1;
    k0 += PHILOX_W0;
    k1 += PHILOX_W1;
  }
  return rk;
}

/* Compilers vectorize the 32x32->64 multiply with shuffles that pack and
 * unpack lanes, which makes the portable loop 2.5x slower than the
 * intrinsics below: an even/odd scheme with vpmuludq on the even lanes and
 * on the odd lanes shifted down, then blends put the halves back in place. */
#if defined(__AVX512F__)
enum { PHILOX_LANES = 16 };

static inline void mulhilo16(__m512i a, __m512i m, __m512i *hi, __m512i *lo) {
  __m512i even = _mm512_mul_epu32(a, m);
  __m512i odd = _mm512_mul_epu32(_mm512_srli_epi64(a, 32), m);
  *hi = _mm512_mask_blend_epi32(0xAAAA, _mm512_srli_epi64(even, 32), odd);
  *lo = _mm512_mask_blend_epi32(0xAAAA, even, _mm512_slli_epi64(odd, 32));
}

static void philox_rounds(const round_keys *rk, int n, words *w) {
  const __m512i m0 = _mm512_set1_epi32((int)PHILOX_M0);
  const __m512i m1 = _mm512_set1_epi32((int)PHILOX_M1);
  for (int i = 0; i < n; i += PHILOX_LANES) {
    __m512i c0 = _mm512_loadu_si512(w->x0 + i), c1 = _mm512_loadu_si512(w->x1 + i);
    __m512i c2 = _mm512_loadu_si512(w->x2 + i), c3 = _mm512_loadu_si512(w->x3 + i);
    for (int r = 0; r < PHILOX_ROUNDS; r++) {
      __m512i hi0, lo0, hi1, lo1;
      mulhilo16(c0, m0, &hi0, &lo0);
      mulhilo16(c2, m1, &hi1, &lo1);
      c0 = _mm512_xor_si512(_mm512_xor_si512(hi1, c1), _mm512_set1_epi32((int)rk->k0[r]));
      c1 = lo1;
      c2 = _mm512_xor_si512(_mm512_xor_si512(hi0, c3), _mm512_set1_epi32((int)rk->k1[r]));
      c3 = lo0;
    }
    _mm512_storeu_si512(w->x0 + i, c0);
    _mm512_storeu_si512(w->x1 + i, c1);
    _mm512_storeu_si512(w->x2 + i, c2);
    _mm512_storeu_si512(w->x3 + i, c3);
  }
}
#elif defined(__AVX2__)
enum { PHILOX_LANES = 8 };

static inline void mulhilo8(__m256i a, __m256i m, __m256i *hi, __m256i *lo) {
  __m256i even = _mm256_mul_epu32(a, m);
  __m256i odd = _mm256_mul_epu32(_mm256_srli_epi64(a, 32), m);
  *hi = _mm256_blend_epi32(_mm256_srli_epi64(even, 32), odd, 0xAA);
  *lo = _mm256_blend_epi32(even, _mm256_slli_epi64(odd, 32), 0xAA);
}

static void philox_rounds(const round_keys *rk, int n, words *w) {
  const __m256i m0 = _mm256_set1_epi32((int)PHILOX_M0);
  const __m256i m1 = _mm256_set1_epi32((int)PHILOX_M1);
  for (int i = 0; i < n; i += PHILOX_LANES) {
    __m256i c0 = _mm256_loadu_si256((const __m256i *)(w->x0 + i));
    __m256i c1 = _mm256_loadu_si256((const __m256i *)(w->x1 + i));
    __m256i c2 = _mm256_loadu_si256((const __m256i *)(w->x2 + i));
    __m256i c3 = _mm256_loadu_si256((const __m256i *)(w->x3 + i));
    for (int r = 0; r < PHILOX_ROUNDS; r++) {
      __m256i hi0, lo0, hi1, lo1;
      mulhilo8(c0, m0, &hi0, &lo0);
      mulhilo8(c2, m1, &hi1, &lo1);
      c0 = _mm256_xor_si256(_mm256_xor_si256(hi1, c1), _mm256_set1_epi32((int)rk->k0[r]));
      c1 = lo1;
      c2 = _mm256_xor_si256(_mm256_xor_si256(hi0, c3), _mm256_set1_epi32((int)rk->k1[r]));
      c3 = lo0;
    }
    _mm256_storeu_si256((__m256i *)(w->x0 + i), c0);
    _mm256_storeu_si256((__m256i *)(w->x1 + i), c1);
    _mm256_storeu_si256((__m256i *)(w->x2 + i), c2);
    _mm256_storeu_si256((__m256i *)(w->x3 + i), c3);
  }
}
#else
enum { PHILOX_LANES = 1 };

static void philox_rounds(const round_keys *rk, int n, words *w) {
  TSR_SIMD
  for (int i = 0; i < n; i++) {
    uint32_t c0 = w->x0[i], c1 = w->x1[i], c2 = w->x2[i], c3 = w->x3[i];
    for (int r = 0; r < PHILOX_ROUNDS; r++) {
      uint64_t p0 = (uint64_t)PHILOX_M0 * c0, p1 = (uint64_t)PHILOX_M1 * c2;
      c0 = (uint32_t)(p1 >> 32) ^ c1 ^ rk->k0[r];
      c1 = (uint32_t)p1;
      c2 = (uint32_t)(p0 >> 32) ^ c3 ^ rk->k1[r];
      c3 = (uint32_t)p0;
    }
    w->x0[i] = c0;
    w->x1[i] = c1;
    w->x2[i] = c2;
    w->x3[i] = c3;
  }
}
#endif

/* Philox of the counters of elements e + i*de, i < n. The counters are set
 * up to a whole vector so that the vector rounds read no garbage. */
static void philox_block(const round_keys *rk, uint32_t stream, uint64_t e, int64_t de, int n,
                         words *w) {
  int padded = (n + PHILOX_LANES - 1) / PHILOX_LANES * PHILOX_LANES;
  TSR_SIMD
  for (int i = 0; i < padded; i++) {
    uint64_t p = (e + (uint64_t)i * (uint64_t)de) >> 1;
    w->x0[i] = (uint32_t)p;
    w->x1[i] = (uint32_t)(p >> 32);
    w->x2[i] = stream;
    w->x3[i] = 0;
  }
  philox_rounds(rk, padded, w);
}

/* ---- words to doubles --------------------------------------------------- */

/* uniform_of() without a 64-bit int -> double conversion, which SSE and AVX2
 * lack: with v = hi * 2^21 + (lo >> 11), u = (v + 1) * 2^-53 is summed from
 * two 32-bit signed conversions (hi offset by 2^31 to fit), each step exact. */
static inline double uniform_fast(uint32_t lo, uint32_t hi) {
  double hi_centered = (double)(int32_t)(hi ^ 0x80000000u); /* hi - 2^31 */
  double lo_bits = (double)(int32_t)(lo >> 11);
  return fma(hi_centered, 0x1p-32, fma(lo_bits, 0x1p-53, 0.5 + 0x1p-53));
}

/* Box-Muller inputs of a block: the squared radius -2 log u1 and the sin and
 * cos of 2 pi u2. sqrt is left to a loop of its own, so that where math
 * errno keeps it scalar the rest still vectorizes. */
typedef struct polar {
  double rr[BLOCK], sin[BLOCK], cos[BLOCK];
} polar;

static void polar_block(int n, const words *w, polar *b) {
  TSR_SIMD
  for (int i = 0; i < n; i++) {
    b->rr[i] = -2.0 * tsr_log(uniform_fast(w->x0[i], w->x1[i]));
    tsr_sincos2pi(uniform_fast(w->x2[i], w->x3[i]), &b->sin[i], &b->cos[i]);
  }
}

/* Elements 2p, 2p+1, ... of n counters: each counter gives two elements. */
static void uniform_pairs(int n, const words *w, double *out) {
  TSR_SIMD
  for (int i = 0; i < n; i++) {
    out[2 * i] = uniform_fast(w->x0[i], w->x1[i]);
    out[2 * i + 1] = uniform_fast(w->x2[i], w->x3[i]);
  }
}

static void normal_pairs(int n, const words *w, double *out) {
  polar b;
  polar_block(n, w, &b);
  TSR_SIMD
  for (int i = 0; i < n; i++) {
    double r = sqrt(b.rr[i]);
    out[2 * i] = r * b.cos[i];
    out[2 * i + 1] = r * b.sin[i];
  }
}

/* Elements e + i*de of n counters, one counter each; the parity of the
 * element picks its half of the counter (uniform) or sin vs cos (normal). */
static void uniform_elems(uint64_t e, int64_t de, int n, const words *w, double *out) {
  TSR_SIMD
  for (int i = 0; i < n; i++) {
    int odd = (int)((e + (uint64_t)i * (uint64_t)de) & 1);
    out[i] = uniform_fast(odd ? w->x2[i] : w->x0[i], odd ? w->x3[i] : w->x1[i]);
  }
}

static void normal_elems(uint64_t e, int64_t de, int n, const words *w, double *out) {
  polar b;
  polar_block(n, w, &b);
  TSR_SIMD
  for (int i = 0; i < n; i++) {
    int odd = (int)((e + (uint64_t)i * (uint64_t)de) & 1);
    out[i] = sqrt(b.rr[i]) * (odd ? b.sin[i] : b.cos[i]);
  }
}

/* ---- fill ----------------------------------------------------------------- */

typedef double (*value_at_fn)(uint64_t key, uint32_t stream, uint64_t e);
typedef void (*pairs_fn)(int n, const words *w, double *out);
typedef void (*elems_fn)(uint64_t e, int64_t de, int n, const words *w, double *out);

/* de == 1: one counter per pair of elements; an element whose partner lies
 * outside the range (odd e0, or the last one) takes the reference path. */
static void fill_contiguous(uint64_t key, uint32_t stream, uint64_t e0, size_t n, double *out,
                            value_at_fn at, pairs_fn pairs) {
  if (n > 0 && (e0 & 1)) {
    *out++ = at(key, stream, e0++);
    n--;
  }
  if (n & 1) out[n - 1] = at(key, stream, e0 + n - 1);
  round_keys rk = round_keys_of(key);
  words w;
  for (size_t done = 0; done < n / 2; done += BLOCK) {
    int m = (int)(n / 2 - done < BLOCK ? n / 2 - done : BLOCK);
    philox_block(&rk, stream, e0 + 2 * done, 2, m, &w);
    pairs(m, &w, out + 2 * done);
  }
}

/* Any other de: one counter per element. */
static void fill_strided(uint64_t key, uint32_t stream, uint64_t e0, int64_t de, size_t n,
                         double *out, elems_fn elems) {
  round_keys rk = round_keys_of(key);
  words w;
  for (size_t done = 0; done < n; done += BLOCK) {
    int m = (int)(n - done < BLOCK ? n - done : BLOCK);
    uint64_t e = e0 + (uint64_t)done * (uint64_t)de;
    philox_block(&rk, stream, e, de, m, &w);
    elems(e, de, m, &w, out + done);
  }
}

void tsr_rng_fill_uniform(uint64_t key, uint32_t stream, uint64_t e0, int64_t de, size_t n,
                          double *out) {
  if (de == 1)
    fill_contiguous(key, stream, e0, n, out, tsr_rng_uniform_at, uniform_pairs);
  else
    fill_strided(key, stream, e0, de, n, out, uniform_elems);
}

void tsr_rng_fill_normal(uint64_t key, uint32_t stream, uint64_t e0, int64_t de, size_t n,
                         double *out) {
  if (de == 1)
    fill_contiguous(key, stream, e0, n, out, tsr_rng_normal_at, normal_pairs);
  else
    fill_strided(key, stream, e0, de, n, out, normal_elems);
}
