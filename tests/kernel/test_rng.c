/*
 * test_rng.c - unit tests of the random numbers (src/rng.c, src/rngmath.h):
 * Philox against the published known answers, the uniform and normal values
 * against the definition in rng.h, the fast fill paths against the reference
 * path bit for bit, the math against long-double libm, and the statistics.
 */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/rng.h"
#include "kernel/rngdist.h"
#include "kernel/rngmath.h"

enum { N_MATH_POINTS = 1000000, N_STAT_POINTS = 1000000 };

static const uint64_t KEY = 0x0123456789abcdefULL;
static const uint32_t STREAM = 17;

static int same_bits(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

/* The uniform of rng.h from two raw words, computed in integers. */
static double uniform_from_words(uint32_t lo, uint32_t hi) {
  uint64_t v = ((((uint64_t)hi << 32) | lo) >> 11) + 1;
  return ldexp((double)v, -53);
}

static void words_of(uint64_t key, uint32_t stream, uint64_t e, uint32_t x[4]) {
  uint64_t p = e / 2;
  const uint32_t ctr[4] = {(uint32_t)(p & 0xffffffffu), (uint32_t)(p >> 32), stream, 0};
  const uint32_t k[2] = {(uint32_t)(key & 0xffffffffu), (uint32_t)(key >> 32)};
  tsr_philox4x32_10(ctr, k, x);
}

/* A cheap independent generator for test inputs (xorshift64). */
static uint64_t test_state = 0x9e3779b97f4a7c15ULL;
static uint64_t next_test_bits(void) {
  test_state ^= test_state << 13;
  test_state ^= test_state >> 7;
  test_state ^= test_state << 17;
  return test_state;
}

/* A uniform of the form rng.h produces: a multiple of 2^-53 in (0, 1]. */
static double next_test_uniform(void) { return ldexp((double)((next_test_bits() >> 11) + 1), -53); }

/* Error of got in units of the last place of the double nearest to ref. */
static double ulp_error(double got, long double ref) {
  double nearest = (double)ref;
  if (nearest == 0.0) return got == 0.0 ? 0.0 : INFINITY;
  long double ulp = ldexpl(1.0L, ilogb(nearest) - 52);
  return (double)(fabsl((long double)got - ref) / ulp);
}

/* ---- Philox --------------------------------------------------------------- */

/* Random123's kat_vectors, "philox4x32 10" lines: counter, key, output. */
START_TEST(test_philox_matches_random123_known_answers) {
  static const uint32_t kat[3][10] = {
      {0, 0, 0, 0, 0, 0, 0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8},
      {0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0x408f276d,
       0x41c83b0e, 0xa20bc7c6, 0x6d5451fd},
      {0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344, 0xa4093822, 0x299f31d0, 0xd16cfe09,
       0x94fdcceb, 0x5001e420, 0x24126ea1},
  };
  for (int v = 0; v < 3; v++) {
    uint32_t out[4];
    tsr_philox4x32_10(&kat[v][0], &kat[v][4], out);
    for (int i = 0; i < 4; i++)
      ck_assert_msg(out[i] == kat[v][6 + i], "vector %d word %d: %08x != %08x", v, i, out[i],
                    kat[v][6 + i]);
  }
}
END_TEST

/* ---- uniform and normal against the definition -------------------------- */

START_TEST(test_uniform_is_in_unit_interval_and_follows_definition) {
  const uint64_t starts[] = {0, 1000001, (1ULL << 32) - 8, (1ULL << 33) + 3, UINT64_MAX - 4000};
  size_t outside = 0, differ = 0;
  for (int s = 0; s < 5; s++) {
    for (uint64_t e = starts[s]; e < starts[s] + 4000; e++) {
      uint32_t x[4];
      words_of(KEY, STREAM, e, x);
      double want = (e % 2 == 0) ? uniform_from_words(x[0], x[1]) : uniform_from_words(x[2], x[3]);
      double got = tsr_rng_uniform_at(KEY, STREAM, e);
      outside += !(got > 0.0 && got <= 1.0);
      differ += !same_bits(got, want);
    }
  }
  ck_assert_uint_eq(outside, 0);
  ck_assert_uint_eq(differ, 0);
}
END_TEST

START_TEST(test_normal_is_box_muller_of_the_two_uniforms) {
  size_t differ = 0, far = 0;
  for (uint64_t e = (1ULL << 32) - 2000; e < (1ULL << 32) + 2000; e++) {
    uint32_t x[4];
    words_of(KEY, STREAM, e, x);
    double u1 = uniform_from_words(x[0], x[1]), u2 = uniform_from_words(x[2], x[3]);
    double s, c;
    tsr_sincos2pi(u2, &s, &c);
    double r = sqrt(-2.0 * tsr_log(u1));
    double got = tsr_rng_normal_at(KEY, STREAM, e);
    differ += !same_bits(got, (e % 2 == 0) ? r * c : r * s);
    /* and close to the same formula in libm's long double */
    long double rl = sqrtl(-2.0L * logl(u1)),
                tl = 2.0L * 3.14159265358979323846264338327950288L * u2;
    long double ref = (e % 2 == 0) ? rl * cosl(tl) : rl * sinl(tl);
    far += !(fabsl(got - ref) <= 1e-14L * (1.0L + fabsl(ref)));
  }
  ck_assert_uint_eq(differ, 0);
  ck_assert_uint_eq(far, 0);
}
END_TEST

/* ---- fast fill against the reference ------------------------------------ */

typedef void (*fill_fn)(uint64_t, uint32_t, uint64_t, int64_t, size_t, double *);
typedef double (*at_fn)(uint64_t, uint32_t, uint64_t);

static void check_fill_equals_at(fill_fn fill, at_fn at, const char *what) {
  static const int64_t steps[] = {1, 2, 3, 0, -1, -7};
  static const size_t lengths[] = {0, 1, 2, 3, 7, 255, 256, 257, 511, 512, 513, 1001};
  /* Even and odd starts, small and beyond 2^32 counters; 2^33 - 300 makes
   * the counter's high word change inside a block. */
  static const uint64_t starts[] = {
      0, 1, 4096, 4097, (1ULL << 33) - 300, (1ULL << 33) - 301, (1ULL << 40) + 6, (1ULL << 40) + 7};
  double *out = malloc(1001 * sizeof *out);
  ck_assert_ptr_nonnull(out);
  for (size_t s = 0; s < sizeof steps / sizeof *steps; s++)
    for (size_t l = 0; l < sizeof lengths / sizeof *lengths; l++)
      for (size_t b = 0; b < sizeof starts / sizeof *starts; b++) {
        uint64_t e0 = starts[b] + 8000; /* room for negative steps */
        fill(KEY, STREAM, e0, steps[s], lengths[l], out);
        size_t differ = 0;
        for (size_t i = 0; i < lengths[l]; i++) {
          uint64_t e = e0 + (uint64_t)((int64_t)i * steps[s]);
          differ += !same_bits(out[i], at(KEY, STREAM, e));
        }
        ck_assert_msg(differ == 0, "%s de=%lld n=%zu e0=%llu: %zu elements differ", what,
                      (long long)steps[s], lengths[l], (unsigned long long)e0, differ);
      }
  free(out);
}

START_TEST(test_fill_uniform_equals_uniform_at_bitwise) {
  check_fill_equals_at(tsr_rng_fill_uniform, tsr_rng_uniform_at, "uniform");
}
END_TEST

START_TEST(test_fill_normal_equals_normal_at_bitwise) {
  check_fill_equals_at(tsr_rng_fill_normal, tsr_rng_normal_at, "normal");
}
END_TEST

/* One call over a range equals calls over pieces split at random points. */
static void check_chunking_invariance(fill_fn fill, int64_t de) {
  enum { N = 5000 };
  static double whole[N], pieces[N];
  uint64_t e0 = (1ULL << 32) + 12345;
  fill(KEY, STREAM, e0, de, N, whole);
  for (int trial = 0; trial < 20; trial++) {
    size_t i = 0;
    while (i < N) {
      size_t len = 1 + next_test_bits() % 700;
      if (len > N - i) len = N - i;
      fill(KEY, STREAM, e0 + (uint64_t)((int64_t)i * de), de, len, pieces + i);
      i += len;
    }
    ck_assert(memcmp(whole, pieces, sizeof whole) == 0);
  }
}

START_TEST(test_fill_is_invariant_to_chunking) {
  check_chunking_invariance(tsr_rng_fill_uniform, 1);
  check_chunking_invariance(tsr_rng_fill_normal, 1);
  check_chunking_invariance(tsr_rng_fill_normal, 2);
  check_chunking_invariance(tsr_rng_fill_normal, 5);
}
END_TEST

/* ---- rngmath against long-double libm ----------------------------------- */

static const double max_ulp = 2.0;

/* The edges, then uniforms of the rng.h form, every third one scaled down
 * by up to 2^-52 so that small arguments get their share. */
static double log_test_point(int i, const double *edges, int n_edges) {
  if (i < n_edges) return edges[i];
  double u = next_test_uniform();
  if (i % 3 == 0) u = fmax(ldexp(u, -(int)(next_test_bits() % 53)), 0x1p-53);
  return u;
}

START_TEST(test_log_is_within_2_ulp_of_logl) {
  static const double edges[] = {0x1p-53,
                                 0x1p-52,
                                 0x1.8p-52,
                                 0.125,
                                 0.25,
                                 0.5,
                                 0.75,
                                 1.0 - 0x1p-53,
                                 1.0,
                                 0x1.6a09e667f3bcdp-1,
                                 0x1.6a09e667f3bccp-1,
                                 0x1.6a09e667f3bcep-1,
                                 0.1,
                                 0.9};
  const int n_edges = (int)(sizeof edges / sizeof *edges);
  /* One assertion at the end: Check records every assertion it passes. */
  double worst = 0.0, worst_u = 0.0;
  for (int i = 0; i < N_MATH_POINTS + n_edges; i++) {
    double u = log_test_point(i, edges, n_edges);
    double err = ulp_error(tsr_log(u), logl((long double)u));
    if (!(err <= worst)) {
      worst = err;
      worst_u = u;
    }
  }
  ck_assert_msg(worst <= max_ulp, "log(%a): %.3f ulp", worst_u, worst);
  ck_assert(tsr_log(1.0) == 0.0);
}
END_TEST

/* sin and cos of 2 pi u in long double. Reducing u to r = u - n/4 first is
 * exact and keeps sinl's relative accuracy near the zeros, where 2 pi u
 * itself would round away the small result. */
static void sincos2pi_reference(double u, long double *s, long double *c) {
  const long double two_pi = 6.283185307179586476925286766559005768L;
  long double n = roundl(4.0L * u), r = (long double)u - n / 4.0L;
  long double sr = sinl(two_pi * r), cr = cosl(two_pi * r);
  switch ((int)n & 3) {
  case 0:
    *s = sr;
    *c = cr;
    break;
  case 1:
    *s = cr;
    *c = -sr;
    break;
  case 2:
    *s = -sr;
    *c = -cr;
    break;
  default:
    *s = -cr;
    *c = sr;
    break;
  }
}

START_TEST(test_sincos2pi_is_within_2_ulp_of_sinl_cosl) {
  static const double edges[] = {
      0x1p-53,       0x1p-52, 0.125,          0.25 - 0x1p-53, 0.25 + 0x1p-53, 0.375, 0.5 - 0x1p-53,
      0.5 + 0x1p-53, 0.625,   0.75 - 0x1p-53, 0.875,          1.0 - 0x1p-53,  0.1,   0.3};
  const int n_edges = (int)(sizeof edges / sizeof *edges);
  double worst = 0.0, worst_u = 0.0;
  for (int i = 0; i < N_MATH_POINTS + n_edges; i++) {
    double u = i < n_edges ? edges[i] : next_test_uniform();
    double s, c;
    long double rs, rc;
    tsr_sincos2pi(u, &s, &c);
    sincos2pi_reference(u, &rs, &rc);
    double err = fmax(ulp_error(s, rs), ulp_error(c, rc));
    if (!(err <= worst)) {
      worst = err;
      worst_u = u;
    }
  }
  ck_assert_msg(worst <= max_ulp, "sincos(2 pi %a): %.3f ulp", worst_u, worst);
}
END_TEST

START_TEST(test_sincos2pi_is_exact_at_quarter_turns) {
  static const double u[] = {0.0, 0.25, 0.5, 0.75, 1.0};
  static const double want_s[] = {0.0, 1.0, 0.0, -1.0, 0.0};
  static const double want_c[] = {1.0, 0.0, -1.0, 0.0, 1.0};
  for (int i = 0; i < 5; i++) {
    double s, c;
    tsr_sincos2pi(u[i], &s, &c);
    ck_assert_msg(s == want_s[i] && c == want_c[i], "u=%g: sin %a cos %a", u[i], s, c);
  }
}
END_TEST

/* ---- statistics ------------------------------------------------------------ */

START_TEST(test_normal_has_mean_0_variance_1_and_normal_tails) {
  const size_t n = N_STAT_POINTS;
  double *x = malloc(n * sizeof *x);
  ck_assert_ptr_nonnull(x);
  tsr_rng_fill_normal(KEY, STREAM, 0, 1, n, x);
  double sum = 0.0, sum_sq = 0.0;
  size_t beyond_3 = 0;
  for (size_t i = 0; i < n; i++) {
    sum += x[i];
    sum_sq += x[i] * x[i];
    beyond_3 += fabs(x[i]) > 3.0;
  }
  double mean = sum / n, var = sum_sq / n - mean * mean;
  ck_assert_msg(fabs(mean) < 6.0 / sqrt((double)n), "mean %g", mean);
  ck_assert_msg(fabs(var - 1.0) < 6.0 * sqrt(2.0 / n), "variance %g", var);
  /* P(|X| > 3) = erfc(3 / sqrt 2); the count is binomial. */
  double p = erfc(3.0 / sqrt(2.0)), expect = p * n, sd = sqrt(n * p * (1.0 - p));
  ck_assert_msg(fabs((double)beyond_3 - expect) < 6.0 * sd, "%zu beyond 3, expected %.0f", beyond_3,
                expect);
  free(x);
}
END_TEST

static size_t count_equal(const double *a, const double *b, size_t n) {
  size_t same = 0;
  for (size_t i = 0; i < n; i++) same += a[i] == b[i];
  return same;
}

START_TEST(test_streams_and_keys_give_different_sequences) {
  enum { N = 2000 };
  static double base[N], other[N];
  tsr_rng_fill_normal(KEY, STREAM, 0, 1, N, base);
  tsr_rng_fill_normal(KEY, STREAM + 1, 0, 1, N, other);
  ck_assert_uint_eq(count_equal(base, other, N), 0);
  tsr_rng_fill_normal(KEY ^ 1, STREAM, 0, 1, N, other);
  ck_assert_uint_eq(count_equal(base, other, N), 0);
  tsr_rng_fill_normal(KEY ^ (1ULL << 40), STREAM, 0, 1, N, other);
  ck_assert_uint_eq(count_equal(base, other, N), 0);
  tsr_rng_fill_normal(KEY, STREAM, N, 1, N, other);
  ck_assert_uint_eq(count_equal(base, other, N), 0);
}
END_TEST

/* ---- rngdist.h: the per-element sequences and their math ------------------ */

/* The host+device Philox of rngdist.h is the same function as rng.c's. */
START_TEST(test_philox_hd_matches_philox4x32_10) {
  for (int v = 0; v < 10000; v++) {
    uint32_t c[4], k[2], want[4];
    for (int i = 0; i < 4; i++) c[i] = (uint32_t)next_test_bits();
    for (int i = 0; i < 2; i++) k[i] = (uint32_t)next_test_bits();
    tsr_philox4x32_10(c, k, want);
    tsr_philox_hd(c, k[0], k[1]);
    for (int i = 0; i < 4; i++) ck_assert_uint_eq(c[i], want[i]);
  }
}
END_TEST

START_TEST(test_exp_is_within_2_ulp_of_expl) {
  double worst = 0;
  for (int i = 0; i < N_MATH_POINTS; i++) {
    double x = -745.0 + 1454.0 * next_test_uniform();
    if (i % 2) x = ldexp(next_test_uniform() - 0.5, -(i % 40));
    double got = tsr_exp(x);
    long double ref = expl((long double)x);
    if (ref < 0x1p-1022L) continue; /* subnormal results: fewer bits */
    double err = ulp_error(got, ref);
    if (err > worst) worst = err;
  }
  ck_assert_msg(worst <= 2.0, "tsr_exp: %g ulp", worst);
  ck_assert(tsr_exp(0.0) == 1.0);
  ck_assert(tsr_exp(-800.0) == 0.0 && isinf(tsr_exp(800.0)));
}
END_TEST

START_TEST(test_log1p_and_lfact_are_accurate) {
  double worst = 0;
  for (int i = 0; i < 100000; i++) {
    double x = ldexp(next_test_uniform(), -(i % 60)) * (i % 3 ? 1 : -0.999);
    double err = ulp_error(tsr_log1p_hd(x), log1pl((long double)x));
    if (err > worst) worst = err;
  }
  ck_assert_msg(worst <= 4.0, "tsr_log1p_hd: %g ulp", worst);
  for (double k = 0; k < 3000; k += 1) {
    long double ref = lgammal((long double)k + 1);
    ck_assert_msg(fabsl((long double)tsr_lfact(k) - ref) <= 1e-15L * (1 + ref), "lfact(%g)", k);
  }
  /* the difference for large arguments, against lgammal */
  const double big[][2] = {{1e9 + 1234, 1e9}, {2e6 - 5000, 2e6}, {1e12, 1e12 + 77}};
  for (int i = 0; i < 3; i++) {
    long double ref = lgammal((long double)big[i][0] + 1) - lgammal((long double)big[i][1] + 1);
    double got = tsr_lfact_diff(big[i][0], big[i][1]);
    ck_assert_msg(fabsl((long double)got - ref) <= 1e-9L * (1 + fabsl(ref)),
                  "lfact_diff %d: %.17g vs %.17Lg", i, got, ref);
  }
}
END_TEST

/* An element's value depends only on (key, stream, e); integers are in range. */
START_TEST(test_dist_at_is_deterministic_and_in_range) {
  for (uint64_t e = (1ULL << 32) - 500; e < (1ULL << 32) + 500; e++) {
    double g = tsr_rng_dist_at(RNG_GAMMA, 0.5, 2.0, KEY, STREAM, e);
    ck_assert(same_bits(g, tsr_rng_dist_at(RNG_GAMMA, 0.5, 2.0, KEY, STREAM, e)));
    ck_assert(g >= 0 && isfinite(g));
    double b = tsr_rng_dist_at(RNG_BETA, 0.3, 0.4, KEY, STREAM, e);
    ck_assert(b >= 0 && b <= 1);
    double k = tsr_rng_dist_at(RNG_INTEGERS, -7, 5, KEY, STREAM, e);
    ck_assert(k >= -7 && k < 5 && k == floor(k));
    double p = tsr_rng_dist_at(RNG_POISSON, 1e6, 0, KEY, STREAM, e);
    ck_assert(p >= 0 && p == floor(p));
    double n = tsr_rng_dist_at(RNG_BINOMIAL, 100, 0.7, KEY, STREAM, e);
    ck_assert(n >= 0 && n <= 100 && n == floor(n));
  }
}
END_TEST

static Suite *rng_suite(void) {
  Suite *s = suite_create("rng");
  TCase *philox = tcase_create("philox");
  tcase_add_test(philox, test_philox_matches_random123_known_answers);
  suite_add_tcase(s, philox);

  TCase *values = tcase_create("values");
  tcase_add_test(values, test_uniform_is_in_unit_interval_and_follows_definition);
  tcase_add_test(values, test_normal_is_box_muller_of_the_two_uniforms);
  tcase_add_test(values, test_fill_uniform_equals_uniform_at_bitwise);
  tcase_add_test(values, test_fill_normal_equals_normal_at_bitwise);
  tcase_add_test(values, test_fill_is_invariant_to_chunking);
  tcase_set_timeout(values, 60);
  suite_add_tcase(s, values);

  TCase *math = tcase_create("math");
  tcase_add_test(math, test_log_is_within_2_ulp_of_logl);
  tcase_add_test(math, test_sincos2pi_is_within_2_ulp_of_sinl_cosl);
  tcase_add_test(math, test_sincos2pi_is_exact_at_quarter_turns);
  tcase_set_timeout(math, 60);
  suite_add_tcase(s, math);

  TCase *dist = tcase_create("rngdist");
  tcase_add_test(dist, test_philox_hd_matches_philox4x32_10);
  tcase_add_test(dist, test_exp_is_within_2_ulp_of_expl);
  tcase_add_test(dist, test_log1p_and_lfact_are_accurate);
  tcase_add_test(dist, test_dist_at_is_deterministic_and_in_range);
  tcase_set_timeout(dist, 60);
  suite_add_tcase(s, dist);

  TCase *stats = tcase_create("statistics");
  tcase_add_test(stats, test_normal_has_mean_0_variance_1_and_normal_tails);
  tcase_add_test(stats, test_streams_and_keys_give_different_sequences);
  tcase_set_timeout(stats, 60);
  suite_add_tcase(s, stats);
  return s;
}

int main(void) {
  SRunner *runner = srunner_create(rng_suite());
  srunner_run_all(runner, CK_NORMAL);
  int failed = srunner_ntests_failed(runner);
  srunner_free(runner);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
