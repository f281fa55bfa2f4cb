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

static int same_bits(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

/* The finished value of len values added one at a time, as an axis reduction
 * over a non-last axis adds them. */
static double finish_by_rows(int kind, const double *x, int64_t len, int ddof) {
  tsr_stat acc = tsr_stat_empty(kind);
  for (int64_t i = 0; i < len; i++) tsr_stat_update_row(kind, &acc, &x[i], 1);
  return tsr_stat_finish(kind, &acc, ddof);
}

START_TEST(test_var_std_of_one_inf_or_nan_is_nan) {
  const double vals[] = {INFINITY, -INFINITY, NAN};
  const int kinds[] = {RED_VAR, RED_STD};
  for (int k = 0; k < 2; k++)
    for (int i = 0; i < 3; i++) {
      tsr_stat whole = tsr_stat_of_values(kinds[k], &vals[i], 1);
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
    tsr_stat whole = tsr_stat_of_values(kinds[k], x, 3);
    ck_assert(same_bits(tsr_stat_finish(kinds[k], &whole, 0), 0.0));
    for (int64_t len = 1; len <= 3; len++)
      ck_assert(same_bits(finish_by_rows(kinds[k], x, len, 0), 0.0));
    tsr_stat one = {1.0, -0.0, 0.0}, acc = tsr_stat_empty(kinds[k]);
    tsr_stat_merge(kinds[k], &acc, &one);
    ck_assert(same_bits(tsr_stat_finish(kinds[k], &acc, 0), 0.0));
  }
}
END_TEST

static Suite *stats_suite(void) {
  Suite *s = suite_create("stats");
  TCase *special = tcase_create("special values");
  tcase_add_test(special, test_var_std_of_one_inf_or_nan_is_nan);
  tcase_add_test(special, test_var_of_one_finite_value_is_zero);
  tcase_add_test(special, test_sum_and_mean_of_negative_zeros_are_positive_zero);
  suite_add_tcase(s, special);
  return s;
}

int main(void) {
  SRunner *runner = srunner_create(stats_suite());
  srunner_run_all(runner, CK_NORMAL);
  int failed = srunner_ntests_failed(runner);
  srunner_free(runner);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
