/*
 * test_array.c - unit tests of node creation (src/graph/array.c): an equal
 * node written again is the same node (hash-consing), ids count creations,
 * and both hold for jobs of many nodes, where nodes are found through the
 * index by hash rather than a scan of the job.
 */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "graph/array.h"
#include "util/error.h"

/* A 1-d grid of n elements in chunks of c. */
static tsr_grid grid1(int64_t n, int64_t c) {
  tsr_grid g;
  ck_assert_int_eq(tsr_grid_init_regular(&g, 1, &n, &c), TSR_OK);
  return g;
}

static tsr_node *full(double v, const tsr_grid *g) {
  tsr_node *n = NULL;
  ck_assert_int_eq(tsr_node_full(v, g, TSR_F64, &n), TSR_OK);
  return n;
}

static tsr_node *times(tsr_node *x, tsr_node *y) {
  tsr_node *n = NULL;
  ck_assert_int_eq(tsr_node_binary(EW_MUL, x, y, &n), TSR_OK);
  return n;
}

START_TEST(an_equal_node_is_the_same_node) {
  tsr_grid g = grid1(3, 3), h = grid1(3, 2);
  tsr_node *one = full(1.0, &g);
  ck_assert_ptr_eq(full(1.0, &g), one);
  ck_assert_ptr_ne(full(1.0, &h), one);            /* other chunks */
  ck_assert_ptr_ne(full(0.0, &g), full(-0.0, &g)); /* values compare bit by bit */
  ck_assert_ptr_eq(full(NAN, &g), full(NAN, &g));
  tsr_node *x = times(one, full(2.0, &g));
  ck_assert_ptr_eq(times(one, full(2.0, &g)), x);
  ck_assert_ptr_ne(times(full(2.0, &g), one), x); /* operands in order */
  tsr_node *r = NULL, *s = NULL, *t = NULL;
  ck_assert_int_eq(tsr_node_random(RNG_NORMAL, 0, 1, 7, 1, &g, TSR_F64, &r), TSR_OK);
  ck_assert_int_eq(tsr_node_random(RNG_NORMAL, 0, 1, 7, 2, &g, TSR_F64, &s), TSR_OK);
  ck_assert_int_eq(tsr_node_random(RNG_NORMAL, 0, 1, 7, 1, &g, TSR_F64, &t), TSR_OK);
  ck_assert_ptr_ne(r, s); /* random arrays differ by stream */
  ck_assert_ptr_eq(r, t);
  tsr_nodes_free_all();
  tsr_grid_free(&g);
  tsr_grid_free(&h);
}
END_TEST

/* 10^5 statements "x_i = ones(3) * (i + 0.5)": 2 * 10^5 + 1 nodes, numbered
 * in the order of creation; writing each again finds it and creates nothing. */
START_TEST(nodes_are_found_among_many) {
  enum { N = 100000 };
  tsr_node **x = malloc(sizeof *x * N);
  ck_assert_ptr_nonnull(x);
  tsr_grid g = grid1(3, 3);
  tsr_node *one = full(1.0, &g);
  ck_assert_int_eq(one->id, 0);
  for (int i = 0; i < N; i++) {
    tsr_node *c = full(i + 0.5, &g);
    x[i] = times(one, c);
    ck_assert_int_eq(c->id, 2 * i + 1);
    ck_assert_int_eq(x[i]->id, 2 * i + 2);
  }
  for (int i = 0; i < N; i++) ck_assert_ptr_eq(times(one, full(i + 0.5, &g)), x[i]);
  ck_assert_int_eq(times(x[0], x[1])->id, 2 * N + 1);
  tsr_nodes_free_all();
  /* a new job starts from nothing: ids from 0, no node of the last job found */
  tsr_node *again = full(5.0, &g);
  ck_assert_int_eq(again->id, 0);
  ck_assert_int_eq(full(1.0, &g)->id, 1);
  tsr_nodes_free_all();
  tsr_grid_free(&g);
  free(x);
}
END_TEST

int main(void) {
  Suite *s = suite_create("array");
  TCase *t = tcase_create("array");
  tcase_add_test(t, an_equal_node_is_the_same_node);
  tcase_add_test(t, nodes_are_found_among_many);
  suite_add_tcase(s, t);
  SRunner *runner = srunner_create(s);
  srunner_run_all(runner, CK_NORMAL);
  int failed = srunner_ntests_failed(runner);
  srunner_free(runner);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
