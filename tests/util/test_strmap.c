/*
 * test_strmap.c - unit tests of the string-to-index map (src/util/strmap.c)
 * that the parser and the interpreter look names up in.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"
#include "util/strmap.h"

static int put(tsr_strmap *m, const char *key, int64_t index) {
  return tsr_strmap_put(m, key, strlen(key), index);
}

static int64_t get(const tsr_strmap *m, const char *key) {
  return tsr_strmap_get(m, key, strlen(key));
}

START_TEST(an_empty_map_finds_nothing) {
  tsr_strmap m = {0};
  ck_assert_int_eq(get(&m, "x"), -1);
  ck_assert_int_eq(get(&m, ""), -1);
  tsr_strmap_free(&m);
  tsr_strmap_free(&m); /* freeing leaves an empty map */
  ck_assert_int_eq(get(&m, "x"), -1);
}
END_TEST

START_TEST(keys_are_whole_byte_strings) {
  tsr_strmap m = {0};
  ck_assert_int_eq(put(&m, "k4", 0), TSR_OK);
  ck_assert_int_eq(put(&m, "k42", 1), TSR_OK);
  ck_assert_int_eq(put(&m, "", 2), TSR_OK);
  ck_assert_int_eq(get(&m, "k4"), 0);
  ck_assert_int_eq(get(&m, "k42"), 1);
  ck_assert_int_eq(get(&m, ""), 2);
  ck_assert_int_eq(get(&m, "k"), -1);
  ck_assert_int_eq(get(&m, "k420"), -1);
  ck_assert_int_eq(get(&m, "K4"), -1);
  /* a lookup by length: the text need not end after the name */
  ck_assert_int_eq(tsr_strmap_get(&m, "k42=1", 3), 1);
  ck_assert_int_eq(tsr_strmap_get(&m, "k42=1", 2), 0);
  tsr_strmap_free(&m);
}
END_TEST

START_TEST(every_key_is_found_after_the_table_grows) {
  enum { N = 100000 };
  char(*keys)[16] = malloc(sizeof *keys * N);
  ck_assert_ptr_nonnull(keys);
  tsr_strmap m = {0};
  for (int i = 0; i < N; i++) {
    snprintf(keys[i], sizeof keys[i], "a%d", i);
    ck_assert_int_eq(put(&m, keys[i], i), TSR_OK);
  }
  ck_assert_int_eq(m.n, N);
  ck_assert_int_ge(m.cap, 2 * N);
  for (int i = 0; i < N; i++) ck_assert_int_eq(get(&m, keys[i]), i);
  ck_assert_int_eq(get(&m, "a100000"), -1);
  ck_assert_int_eq(get(&m, "b1"), -1);
  tsr_strmap_free(&m);
  free(keys);
}
END_TEST

int main(void) {
  Suite *s = suite_create("strmap");
  TCase *t = tcase_create("strmap");
  tcase_add_test(t, an_empty_map_finds_nothing);
  tcase_add_test(t, keys_are_whole_byte_strings);
  tcase_add_test(t, every_key_is_found_after_the_table_grows);
  suite_add_tcase(s, t);
  SRunner *runner = srunner_create(s);
  srunner_run_all(runner, CK_NORMAL);
  int failed = srunner_ntests_failed(runner);
  srunner_free(runner);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
