/*
 * test_stats.c - unit tests of the reduction partials (src/kernel/stats.c,
 * stats_merge.h): a partial built one value at a time (axis reductions over
 * a non-contiguous axis, CPU and GPU) must finish to what the partial of the
 * same values built at once gives, and to what NumPy gives, for values that
 * are not ordinary numbers too.
 */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/ids.h"
#include "kernel/stats.h"
#include "kernel/stats_merge.h"

const char *tsr_red_name(int kind); /* graph/array.c */

static int same_bits(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

/* The finished value of len values added one at a time, as an axis reduction
 * over a non-last axis adds them. */
static double finish_by_rows(int kind, const double *x, int64_t len, int ddof) {
  tsr_stat acc = tsr_stat_empty(kind);
  for (int64_t i = 0; i < len; i++) tsr_stat_update_row(kind, &acc, &x[i], 1, (double)i);
  return tsr_stat_finish(kind, &acc, ddof);
}

START_TEST(test_var_std_of_one_inf_or_nan_is_nan) {
  const double vals[] = {INFINITY, -INFINITY, NAN};
  const int kinds[] = {RED_VAR, RED_STD};
  for (int k = 0; k < 2; k++)
    for (int i = 0; i < 3; i++) {
      tsr_stat whole = tsr_stat_of_values(kinds[k], &vals[i], 1, 0.0);
      ck_assert(isnan(tsr_stat_finish(kinds[k], &whole, 0)));
      ck_assert(isnan(finish_by_rows(kinds[k], &vals[i], 1, 0)));
    }
}
END_TEST

START_TEST(test_var_of_one_finite_value_is_zero) {
  const double x = 3.5;
  ck_assert(same_bits(finish_by_rows(RED_VAR, &x, 1, 0), 0.0));
  ck_assert(isnan(finish_by_rows(RED_VAR, &x, 1, 1))); /* n - ddof <= 0 */
}
END_TEST

/* NumPy's sums start from +0.0: a sum of -0.0 values is +0.0 however it is
 * built, at once, one value at a time, or by merging partials. */
START_TEST(test_sum_and_mean_of_negative_zeros_are_positive_zero) {
  const double x[] = {-0.0, -0.0, -0.0};
  const int kinds[] = {RED_SUM, RED_MEAN};
  for (int k = 0; k < 2; k++) {
    tsr_stat whole = tsr_stat_of_values(kinds[k], x, 3, 0.0);
    ck_assert(same_bits(tsr_stat_finish(kinds[k], &whole, 0), 0.0));
    for (int64_t len = 1; len <= 3; len++)
      ck_assert(same_bits(finish_by_rows(kinds[k], x, len, 0), 0.0));
    tsr_stat one = {1.0, -0.0, 0.0}, acc = tsr_stat_empty(kinds[k]);
    tsr_stat_merge(kinds[k], &acc, &one);
    ck_assert(same_bits(tsr_stat_finish(kinds[k], &acc, 0), 0.0));
  }
}
END_TEST

/* Every kind of the enum is a row of red_table.h with a name and a monoid;
 * a kind past the table has none: it finishes to NaN rather than to another
 * row's value (the switches of graph/array.c and the CUDA dispatch are
 * generated from the rows with no default; array.c's, over the enum, is
 * checked by -Wswitch; tsr_node_reduce refuses a kind past the table). */
START_TEST(test_every_kind_is_a_row) {
  for (int k = 0; k < RED_NKINDS; k++) {
    ck_assert_str_ne(tsr_red_name(k), "?");
    ck_assert_int_ge(tsr_red_monoid(k), 0);
  }
  ck_assert_str_eq(tsr_red_name(RED_NKINDS), "?");
  ck_assert_int_eq(tsr_red_monoid(RED_NKINDS), -1);
  ck_assert_int_eq(tsr_red_flags(RED_NKINDS), 0);
  tsr_stat s = {3.0, 1.0, 2.0};
  ck_assert(isnan(tsr_stat_finish(RED_NKINDS, &s, 0)));
  ck_assert(isnan(tsr_stat_finish(-1, &s, 0)));
  /* ddof only where the row takes it */
  for (int k = 0; k < RED_NKINDS; k++)
    ck_assert_int_eq((tsr_red_flags(k) & RF_DDOF) != 0, k == RED_VAR || k == RED_STD);
}
END_TEST

/* The finished value of x built at once, one value at a time, and by
 * merging its halves in both groupings of three parts. */
static void check_ways(int kind, const double *x, int64_t len, double want) {
  tsr_stat whole = tsr_stat_of_values(kind, x, len, 0.0);
  ck_assert(same_bits(tsr_stat_finish(kind, &whole, 0), want));
  ck_assert(same_bits(finish_by_rows(kind, x, len, 0), want));
  for (int64_t i = 0; i <= len; i++)
    for (int64_t j = i; j <= len; j++) {
      tsr_stat p[3] = {tsr_stat_of_values(kind, x, i, 0.0),
                       tsr_stat_of_values(kind, x + i, j - i, (double)i),
                       tsr_stat_of_values(kind, x + j, len - j, (double)j)};
      tsr_stat l = p[0], r = p[1];
      tsr_stat_merge(kind, &l, &p[1]);
      tsr_stat_merge(kind, &l, &p[2]);
      tsr_stat_merge(kind, &r, &p[2]);
      tsr_stat_merge(kind, &p[0], &r);
      ck_assert(same_bits(tsr_stat_finish(kind, &l, 0), want));
      ck_assert(same_bits(tsr_stat_finish(kind, &p[0], 0), want));
    }
}

/* NumPy: argmax/argmin give the first extreme, the first NaN where there
 * is one; nanargmax/nanargmin skip NaN (all NaN: no index, NaN here, an
 * error in exec/combine.c). */
START_TEST(test_arg_kinds_first_index_nan_first) {
  const double x[] = {1, 3, NAN, 3, -INFINITY, NAN, INFINITY, INFINITY, -INFINITY};
  check_ways(RED_ARGMAX, x, 9, 2.0);
  check_ways(RED_ARGMIN, x, 9, 2.0);
  check_ways(RED_NANARGMAX, x, 9, 6.0);
  check_ways(RED_NANARGMIN, x, 9, 4.0);
  check_ways(RED_ARGMAX, x, 2, 1.0);
  check_ways(RED_ARGMAX, x + 6, 2, 0.0);
  const double z[] = {0.0, -0.0, 0.0};
  check_ways(RED_ARGMAX, z, 3, 0.0);
  check_ways(RED_ARGMIN, z, 3, 0.0);
  const double nans[] = {NAN, NAN};
  tsr_stat s = tsr_stat_of_values(RED_NANARGMAX, nans, 2, 0.0);
  ck_assert(isnan(tsr_stat_finish(RED_NANARGMAX, &s, 0)));
}
END_TEST

/* The lanes of argmax/argmin over whole runs (stats.c, lane_arg) against
 * the values added one at a time: ties across lanes, NaN in any lane or in
 * the tail, +-0, +-inf, lengths around the lane count. */
START_TEST(test_arg_lanes_match_one_at_a_time) {
  const double pool[] = {-1.0, 0.0, -0.0, 2.0, 2.0, INFINITY, -INFINITY, 5.0, NAN};
  double x[40];
  srand(7);
  for (int trial = 0; trial < 4000; trial++) {
    int len = 1 + rand() % 40, npool = trial % 2 ? 9 : 8; /* NaN in half the trials */
    for (int i = 0; i < len; i++) x[i] = pool[rand() % npool];
    const int kinds[] = {RED_ARGMAX, RED_ARGMIN};
    for (int k = 0; k < 2; k++) {
      tsr_stat whole = tsr_stat_of_values(kinds[k], x, len, 3.0);
      double want = finish_by_rows(kinds[k], x, len, 0) + 3.0;
      ck_assert_msg(tsr_stat_finish(kinds[k], &whole, 0) == want,
                    "%s of %d values (trial %d): %g, one at a time %g", tsr_red_name(kinds[k]), len,
                    trial, tsr_stat_finish(kinds[k], &whole, 0), want);
      ck_assert(same_bits(whole.a, x[(int64_t)want - 3]));
    }
  }
}
END_TEST

START_TEST(test_prod_any_all_count_nonzero) {
  const double x[] = {2, -1, NAN, 0.5, 3};
  check_ways(RED_PROD, x, 2, -2.0);
  check_ways(RED_PROD, x, 5, NAN);
  check_ways(RED_NANPROD, x, 5, -3.0);
  check_ways(RED_NANPROD, x + 2, 1, 1.0); /* all NaN: the identity */
  check_ways(RED_PROD, x, 0, 1.0);
  check_ways(RED_ANY, x, 5, 1.0);
  check_ways(RED_ALL, x, 5, 1.0); /* NaN is nonzero */
  check_ways(RED_ANY, x, 0, 0.0);
  check_ways(RED_ALL, x, 0, 1.0);
  check_ways(RED_COUNT_NONZERO, x, 5, 5.0);
  const double y[] = {0, 0, -0.0, 1, 0};
  check_ways(RED_ANY, y, 3, 0.0);
  check_ways(RED_ANY, y, 5, 1.0);
  check_ways(RED_ALL, y, 5, 0.0);
  check_ways(RED_COUNT_NONZERO, y, 5, 1.0);
  check_ways(RED_COUNT_NONZERO, y, 0, 0.0);
}
END_TEST

static Suite *stats_suite(void) {
  Suite *s = suite_create("stats");
  TCase *special = tcase_create("special values");
  tcase_add_test(special, test_var_std_of_one_inf_or_nan_is_nan);
  tcase_add_test(special, test_var_of_one_finite_value_is_zero);
  tcase_add_test(special, test_sum_and_mean_of_negative_zeros_are_positive_zero);
  suite_add_tcase(s, special);
  TCase *rows = tcase_create("table rows");
  tcase_add_test(rows, test_every_kind_is_a_row);
  tcase_add_test(rows, test_arg_kinds_first_index_nan_first);
  tcase_add_test(rows, test_arg_lanes_match_one_at_a_time);
  tcase_add_test(rows, test_prod_any_all_count_nonzero);
  suite_add_tcase(s, rows);
  return s;
}

int main(void) {
  SRunner *runner = srunner_create(stats_suite());
  srunner_run_all(runner, CK_NORMAL);
  int failed = srunner_ntests_failed(runner);
  srunner_free(runner);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
