/*
 * test_workers.c - unit tests of how a parallel loop fails (src/util/workers.c):
 * an ordered loop reports the failure a serial loop would meet first, with
 * that iteration's own message, whichever thread failed first.
 */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"
#include "util/workers.h"

enum { N = 64 };

/* Iteration i of a loop whose iterations in fails[] fail ("failed at i"). */
static int work(int64_t i, const int *fails, int *ran) {
  ran[i] = 1;
  if (!fails[i]) return TSR_OK;
  return TSR_ERROR(TSR_ERR_IO, "failed at %lld", (long long)i);
}

static int ordered_loop(tsr_workers *w, const int *fails, int *ran) {
#pragma omp parallel for schedule(dynamic, 1) num_threads(4)
  for (int64_t i = 0; i < N; i++)
    if (tsr_workers_begin_at(w, i)) tsr_workers_fail_at(w, i, work(i, fails, ran));
  return tsr_workers_end_at(w);
}

START_TEST(an_ordered_loop_reports_its_lowest_failing_iteration) {
  int fails[N] = {0}, ran[N] = {0};
  fails[9] = fails[40] = fails[63] = 1;
  tsr_workers w;
  tsr_workers_init(&w);
  tsr_error_clear();
  ck_assert_int_eq(ordered_loop(&w, fails, ran), TSR_ERR_IO);
  ck_assert_str_eq(tsr_error_message(), "failed at 9");
  for (int i = 0; i <= 9; i++)
    ck_assert_msg(ran[i], "iteration %d before the failure did not run", i);
}
END_TEST

START_TEST(a_failure_recorded_before_the_loop_keeps_its_place_in_the_order) {
  int fails[N] = {0}, ran[N] = {0};
  tsr_workers w;
  tsr_workers_init(&w);
  tsr_error_clear();
  tsr_workers_fail_at(&w, 50, TSR_ERROR(TSR_ERR_MEMORY, "planning failed at 50"));
  ck_assert_int_eq(ordered_loop(&w, fails, ran), TSR_ERR_MEMORY); /* nothing earlier failed */
  ck_assert_str_eq(tsr_error_message(), "planning failed at 50");
  fails[20] = 1;
  tsr_workers_init(&w);
  tsr_error_clear();
  tsr_workers_fail_at(&w, 50, TSR_ERROR(TSR_ERR_MEMORY, "planning failed at 50"));
  ck_assert_int_eq(ordered_loop(&w, fails, ran), TSR_ERR_IO); /* an earlier iteration did */
  ck_assert_str_eq(tsr_error_message(), "failed at 20");
}
END_TEST

START_TEST(an_ordered_loop_without_failures_is_ok) {
  int fails[N] = {0}, ran[N] = {0};
  tsr_workers w;
  tsr_workers_init(&w);
  tsr_error_clear();
  ck_assert_int_eq(ordered_loop(&w, fails, ran), TSR_OK);
  for (int i = 0; i < N; i++) ck_assert(ran[i]);
}
END_TEST

int main(void) {
  Suite *s = suite_create("workers");
  TCase *t = tcase_create("workers");
  tcase_add_test(t, an_ordered_loop_reports_its_lowest_failing_iteration);
  tcase_add_test(t, a_failure_recorded_before_the_loop_keeps_its_place_in_the_order);
  tcase_add_test(t, an_ordered_loop_without_failures_is_ok);
  suite_add_tcase(s, t);
  SRunner *runner = srunner_create(s);
  srunner_run_all(runner, CK_NORMAL);
  int failed = srunner_ntests_failed(runner);
  srunner_free(runner);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
