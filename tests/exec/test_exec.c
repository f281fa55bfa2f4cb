/*
 * test_exec.c - the planner and executor on one rank, driven through the
 * node API: every value is checked against a second implementation written
 * here (element-by-element evaluation from the RNG's scalar functions and
 * closed forms, naive reductions in long double), fused against --no-fuse,
 * and against the same array under other chunkings.
 *
 * The MPI-level properties (same bits on 1-4 ranks) are tested by
 * tests/mpi_invariance.sh; this file covers what one rank computes.
 */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/array.h"
#include "backend/backend.h"
#include "graph/chunks.h"
#include "util/error.h"
#include "exec/exec.h"
#include "exec/nofuse.h"
#include "exec/phase.h"
#include "job/compute.h"
#include "plan/plan.h"
#include "kernel/rng.h"
#include "tessera.h"

enum { R = 37, C = 53 }; /* odd sizes: chunks never divide them */
static const uint64_t KEY = 12345;

static tsr_exec make_exec(int no_fuse, size_t mem_limit) {
  tsr_exec ex;
  memset(&ex, 0, sizeof ex);
  ex.be = tsr_backend_find("cpu");
  ex.rank = 0;
  ex.size = 1;
  ex.threads = 2;
  ex.mem_limit = mem_limit;
  ex.no_fuse = no_fuse;
  ex.progress = 0;
  tsr_backend_config cfg = {.threads = 2, .mem_limit = mem_limit};
  ck_assert_int_eq(tsr_be_setup(ex.be, &cfg), TSR_OK);
  return ex;
}

static tsr_grid grid2(int64_t r, int64_t c, int64_t cr, int64_t cc) {
  tsr_grid g;
  int64_t shape[2] = {r, c}, chunk[2] = {cr, cc};
  ck_assert_int_eq(tsr_grid_init_regular(&g, 2, shape, chunk), TSR_OK);
  return g;
}

static tsr_node *normal2(int64_t cr, int64_t cc) {
  tsr_grid g = grid2(R, C, cr, cc);
  tsr_node *n;
  ck_assert_int_eq(tsr_node_random(RNG_NORMAL, 10.0, 2.0, KEY, 0, &g, TSR_F64, &n), TSR_OK);
  tsr_grid_free(&g);
  return n;
}

/* The value the DESIGN.md definition gives to element (i, j) of normal2. */
static double normal_ref(int64_t i, int64_t j) {
  return 10.0 + 2.0 * tsr_rng_normal_at(KEY, 0, (uint64_t)(i * C + j));
}

static tsr_node *slice2(tsr_node *x, int64_t f0, int64_t s0, int64_t n0, int64_t f1, int64_t s1,
                        int64_t n1) {
  tsr_axis_sel sel[2] = {{TSR_SEL_SLICE, f0, s0, n0, 0}, {TSR_SEL_SLICE, f1, s1, n1, 0}};
  tsr_node *out;
  ck_assert_int_eq(tsr_node_select(x, sel, 2, &out), TSR_OK);
  return out;
}

static void compute(tsr_node *n, int no_fuse) {
  tsr_exec ex = make_exec(no_fuse, (size_t)1 << 30);
  ck_assert_int_eq(tsr_job_compute(&ex, n), TSR_OK);
  ck_assert_ptr_nonnull(n->value);
  tsr_be_teardown(ex.be);
}

static void teardown_nodes(void) { tsr_nodes_free_all(); }

/* exp(sin(x) * 0.5) - x / 3 over x[::-3, 1::2], x = normal2: the reference
 * applies the same IEEE operations element by element. */
static double chain_ref(double x) { return exp(sin(x) * 0.5) - x / 3.0; }

static tsr_node *chain(tsr_node *x) {
  tsr_grid g1 = grid2(1, 1, 1, 1);
  tsr_node *half, *three, *s, *m, *e, *d, *out;
  ck_assert_int_eq(tsr_node_full(0.5, &g1, TSR_F64, &half), TSR_OK);
  ck_assert_int_eq(tsr_node_full(3.0, &g1, TSR_F64, &three), TSR_OK);
  tsr_grid_free(&g1);
  ck_assert_int_eq(tsr_node_unary(EW_SIN, x, &s), TSR_OK);
  ck_assert_int_eq(tsr_node_binary(EW_MUL, s, half, &m), TSR_OK);
  ck_assert_int_eq(tsr_node_unary(EW_EXP, m, &e), TSR_OK);
  ck_assert_int_eq(tsr_node_binary(EW_DIV, x, three, &d), TSR_OK);
  ck_assert_int_eq(tsr_node_binary(EW_SUB, e, d, &out), TSR_OK);
  return out;
}

/* Rows, ... (13 of them), columns 1, 3, ..., 51 (26). */
enum { SR = 13, SC = 26 };
static int64_t srow(int64_t i) { return R - 1 - 3 * i; }
static int64_t scol(int64_t j) { return 1 + 2 * j; }

START_TEST(random_values_follow_the_definition_under_any_chunking) {
  const int64_t chunkings[][2] = {{R, C}, {5, 7}, {1, C}, {R, 1}, {16, 40}};
  for (size_t k = 0; k < sizeof chunkings / sizeof *chunkings; k++) {
    tsr_node *x = normal2(chunkings[k][0], chunkings[k][1]);
    tsr_node *y;
    tsr_grid g1 = grid2(1, 1, 1, 1);
    tsr_node *zero;
    ck_assert_int_eq(tsr_node_full(0.0, &g1, TSR_F64, &zero), TSR_OK);
    tsr_grid_free(&g1);
    ck_assert_int_eq(tsr_node_binary(EW_ADD, x, zero, &y), TSR_OK);
    compute(y, _i);
    for (int64_t i = 0; i < R; i++)
      for (int64_t j = 0; j < C; j++) {
        double want = normal_ref(i, j) + 0.0;
        if (y->value[i * C + j] != want)
          ck_abort_msg("chunks %lldx%lld, %s: x[%lld, %lld] = %.17g, want %.17g",
                       (long long)chunkings[k][0], (long long)chunkings[k][1],
                       _i ? "no fusion" : "fused", (long long)i, (long long)j, y->value[i * C + j],
                       want);
      }
    teardown_nodes();
  }
}
END_TEST

START_TEST(fused_chain_over_negative_step_slice_matches_elementwise_reference) {
  tsr_node *x = normal2(6, 11);
  tsr_node *s = slice2(x, R - 1, -3, SR, 1, 2, SC);
  tsr_node *y = chain(s);
  ck_assert_int_eq(y->grid.shape[0], SR);
  ck_assert_int_eq(y->grid.shape[1], SC);
  compute(y, _i);
  for (int64_t i = 0; i < SR; i++)
    for (int64_t j = 0; j < SC; j++) {
      double want = chain_ref(normal_ref(srow(i), scol(j)));
      double got = y->value[i * SC + j];
      /* Same IEEE operations except sin/exp, whose libm results the CPU
       * backend may compute with its own vector code: allow 4 ulps. */
      if (fabs(got - want) > 4 * nextafter(fabs(want), INFINITY) - 4 * fabs(want))
        ck_abort_msg("%s: y[%lld, %lld] = %.17g, want %.17g", _i ? "no fusion" : "fused",
                     (long long)i, (long long)j, got, want);
    }
  teardown_nodes();
}
END_TEST

/* --no-fuse materializes a box of a strided slice of 1 x 1 chunks (a whole
 * matmul operand, say) from the ~2000 input chunks it reads: any number, as
 * the fused path reads them (once refused past 8). */
START_TEST(no_fuse_box_reads_any_number_of_input_chunks) {
  tsr_exec ex = make_exec(1, (size_t)1 << 30);
  tsr_node *s = slice2(normal2(1, 1), R - 1, -3, SR, 1, 2, SC);
  const int64_t start[2] = {0, 0}, extent[2] = {SR, SC};
  double *dev = NULL, host[SR * SC];
  ck_assert_int_eq(tsr_nofuse_materialize(&ex, s, start, extent, &dev), TSR_OK);
  ck_assert_int_eq(tsr_be_download(ex.be, dev, host, SR * SC), TSR_OK);
  tsr_be_release(ex.be, dev);
  for (int64_t i = 0; i < SR; i++)
    for (int64_t j = 0; j < SC; j++)
      if (host[i * SC + j] != normal_ref(srow(i), scol(j)))
        ck_abort_msg("s[%lld, %lld] = %.17g, want %.17g", (long long)i, (long long)j,
                     host[i * SC + j], normal_ref(srow(i), scol(j)));
  tsr_be_teardown(ex.be);
  teardown_nodes();
}
END_TEST

/* Naive reductions of the reference values, in long double. */
typedef struct {
  long double sum, sumsq;
  double min, max;
  int64_t n;
} naive;

static naive naive_of(int64_t r0, int64_t r1, int64_t c0, int64_t c1) {
  naive a = {0, 0, INFINITY, -INFINITY, 0};
  for (int64_t i = r0; i < r1; i++)
    for (int64_t j = c0; j < c1; j++) {
      double v = chain_ref(normal_ref(srow(i), scol(j)));
      a.sum += v;
      a.sumsq += (long double)v * v;
      a.min = v < a.min ? v : a.min;
      a.max = v > a.max ? v : a.max;
      a.n++;
    }
  return a;
}

static void assert_close(double got, long double want, double rel, const char *what) {
  double err = fabs(got - (double)want), scale = fabs((double)want) > 1 ? fabs((double)want) : 1;
  if (err > rel * scale)
    ck_abort_msg("%s = %.17g, want %.17Lg (rel err %.3g)", what, got, want, err / scale);
}

static double reduce_value(int kind, int axis, int ddof, int no_fuse, tsr_node **out, int chunk_r,
                           int chunk_c) {
  tsr_node *y = chain(slice2(normal2(chunk_r, chunk_c), R - 1, -3, SR, 1, 2, SC));
  ck_assert_int_eq(tsr_node_reduce(kind, y, axis, 0, ddof, out), TSR_OK);
  compute(*out, no_fuse);
  return (*out)->value[0];
}

START_TEST(full_reductions_match_naive_long_double) {
  naive a = naive_of(0, SR, 0, SC);
  long double mean = a.sum / a.n, var = a.sumsq / a.n - mean * mean;
  tsr_node *r;
  char what[64];
  const char *mode = _i ? "no fusion" : "fused";
  snprintf(what, sizeof what, "sum (%s)", mode);
  assert_close(reduce_value(RED_SUM, -1, 0, _i, &r, 6, 11), a.sum, 1e-13, what);
  snprintf(what, sizeof what, "mean (%s)", mode);
  assert_close(reduce_value(RED_MEAN, -1, 0, _i, &r, 6, 11), mean, 1e-13, what);
  snprintf(what, sizeof what, "var (%s)", mode);
  assert_close(reduce_value(RED_VAR, -1, 0, _i, &r, 6, 11), var, 1e-10, what);
  snprintf(what, sizeof what, "std ddof=1 (%s)", mode);
  assert_close(reduce_value(RED_STD, -1, 1, _i, &r, 6, 11), sqrtl(var * a.n / (a.n - 1)), 1e-10,
               what);
  /* min and max are exact: the same element, wherever it is. */
  ck_assert_double_eq(reduce_value(RED_MIN, -1, 0, _i, &r, 6, 11), a.min);
  ck_assert_double_eq(reduce_value(RED_MAX, -1, 0, _i, &r, 6, 11), a.max);
  teardown_nodes();
}
END_TEST

START_TEST(axis_reductions_match_naive_per_row_and_column) {
  tsr_node *r;
  reduce_value(RED_SUM, 1, 0, _i, &r, 4, 9);
  ck_assert_int_eq(r->grid.ndim, 1);
  ck_assert_int_eq(r->grid.shape[0], SR);
  for (int64_t i = 0; i < SR; i++) {
    naive a = naive_of(i, i + 1, 0, SC);
    assert_close(r->value[i], a.sum, 1e-13, "row sum");
  }
  reduce_value(RED_MAX, 0, 0, _i, &r, 4, 9);
  ck_assert_int_eq(r->grid.shape[0], SC);
  for (int64_t j = 0; j < SC; j++) ck_assert_double_eq(r->value[j], naive_of(0, SR, j, j + 1).max);
  reduce_value(RED_MEAN, 0, 0, _i, &r, 4, 9);
  for (int64_t j = 0; j < SC; j++) {
    naive a = naive_of(0, SR, j, j + 1);
    assert_close(r->value[j], a.sum / a.n, 1e-13, "column mean");
  }
  teardown_nodes();
}
END_TEST

/* The reduction order is fixed per chunk grid: computing twice gives the
 * same bits, and fused and unfused agree within 1e-12. */
START_TEST(reductions_repeat_bitwise_and_fusion_agrees) {
  tsr_node *r;
  double a = reduce_value(RED_SUM, -1, 0, 0, &r, 5, 8);
  tsr_nodes_clear_values();
  compute(r, 0);
  ck_assert_msg(r->value[0] == a, "second run %.17g != first %.17g", r->value[0], a);
  double b = reduce_value(RED_SUM, -1, 0, 1, &r, 5, 8);
  ck_assert_msg(fabs(a - b) <= 1e-12 * fabs(a), "fused %.17g, unfused %.17g", a, b);
  teardown_nodes();
}
END_TEST

/* Closed forms: sum of arange(n) sliced backwards with a step. */
START_TEST(arange_slices_reduce_to_closed_forms) {
  const int64_t n = 100003, chunks[] = {1000, 7, 100003, 4096};
  for (size_t k = 0; k < sizeof chunks / sizeof *chunks; k++) {
    tsr_grid g;
    ck_assert_int_eq(tsr_grid_init_regular(&g, 1, &n, &chunks[k]), TSR_OK);
    tsr_node *a, *s, *r;
    ck_assert_int_eq(tsr_node_arange(0, 1, &g, TSR_F64, &a), TSR_OK);
    tsr_grid_free(&g);
    /* a[::-7]: n-1, n-8, ..., count = ceil(n / 7). */
    int64_t cnt = (n + 6) / 7, first = n - 1;
    tsr_axis_sel sel = {TSR_SEL_SLICE, first, -7, cnt, 0};
    ck_assert_int_eq(tsr_node_select(a, &sel, 1, &s), TSR_OK);
    ck_assert_int_eq(tsr_node_reduce(RED_SUM, s, -1, 0, 0, &r), TSR_OK);
    compute(r, _i);
    double want = (double)cnt * first - 7.0 * (double)cnt * (cnt - 1) / 2;
    ck_assert_msg(r->value[0] == want, "chunks %lld: %.17g, want %.17g", (long long)chunks[k],
                  r->value[0], want);
    teardown_nodes();
  }
}
END_TEST

START_TEST(float32_results_are_rounded_to_float) {
  tsr_node *x = normal2(10, 10), *y;
  ck_assert_int_eq(tsr_node_astype(x, TSR_F32, &y), TSR_OK);
  compute(y, _i);
  for (int64_t i = 0; i < R; i++)
    for (int64_t j = 0; j < C; j++)
      ck_assert_double_eq(y->value[i * C + j], (double)(float)normal_ref(i, j));
  teardown_nodes();
}
END_TEST

START_TEST(no_fuse_chunks_over_the_memory_limit_are_refused_before_work) {
  tsr_node *x = normal2(R, C), *r;
  ck_assert_int_eq(tsr_node_reduce(RED_SUM, x, -1, 0, 0, &r), TSR_OK);
  tsr_exec ex = make_exec(1, 1000); /* one 37x53 chunk is 15.7 kB */
  ck_assert_int_ne(tsr_job_check(&ex, r), TSR_OK);
  ck_assert_msg(strstr(tsr_error_message(), "mem-limit") != NULL, "message: %s",
                tsr_error_message());
  ck_assert_ptr_null(r->value);
  /* Fused, nothing is stored: the same limit is enough. */
  ex.no_fuse = 0;
  ck_assert_int_eq(tsr_job_check(&ex, r), TSR_OK);
  ck_assert_int_eq(tsr_job_compute(&ex, r), TSR_OK);
  tsr_be_teardown(ex.be);
  teardown_nodes();
}
END_TEST

START_TEST(owner_assignment_is_balanced_and_total) {
  for (int size = 1; size <= 9; size++) {
    int64_t count[9] = {0};
    const int64_t n = 1000;
    for (int64_t c = 0; c < n; c++) {
      int o = tsr_chunk_owner(c, size);
      ck_assert_int_ge(o, 0);
      ck_assert_int_lt(o, size);
      count[o]++;
    }
    for (int r = 0; r < size; r++) {
      ck_assert_int_ge(count[r], n / size);
      ck_assert_int_le(count[r], n / size + 1);
    }
  }
}
END_TEST

/* A round that runs a rechunk source's program may compile further sources
 * (a nested rechunk, a held array read in pieces): the program it runs must
 * stay where it is meanwhile (it once moved with the table: a use after free). */
START_TEST(phase_source_programs_stay_put_while_others_compile) {
  tsr_exec ex = make_exec(0, (size_t)1 << 30);
  tsr_phase ph;
  tsr_phase_begin(&ph, &ex);
  tsr_node *x = normal2(6, 11);
  const tsr_prog *first = NULL, *again = NULL, *other = NULL;
  ck_assert_int_eq(tsr_phase_source(&ph, x, &first), TSR_OK);
  for (int64_t k = 1; k <= 40; k++)
    ck_assert_int_eq(tsr_phase_source(&ph, slice2(x, 0, 1, k % R, 0, 1, C), &other), TSR_OK);
  ck_assert_int_eq(tsr_phase_source(&ph, x, &again), TSR_OK);
  ck_assert_ptr_eq(again, first);
  ck_assert_int_eq(tsr_phase_end(&ph, TSR_OK), TSR_OK);
  tsr_be_teardown(ex.be);
  teardown_nodes();
}
END_TEST

static Suite *exec_suite(void) {
  Suite *s = suite_create("exec");
  TCase *tc = tcase_create("one rank");
  tcase_set_timeout(tc, 120);
  /* Loop index 0: fused; 1: --no-fuse. */
  tcase_add_loop_test(tc, random_values_follow_the_definition_under_any_chunking, 0, 2);
  tcase_add_loop_test(tc, fused_chain_over_negative_step_slice_matches_elementwise_reference, 0, 2);
  tcase_add_loop_test(tc, full_reductions_match_naive_long_double, 0, 2);
  tcase_add_loop_test(tc, axis_reductions_match_naive_per_row_and_column, 0, 2);
  tcase_add_test(tc, reductions_repeat_bitwise_and_fusion_agrees);
  tcase_add_loop_test(tc, arange_slices_reduce_to_closed_forms, 0, 2);
  tcase_add_loop_test(tc, float32_results_are_rounded_to_float, 0, 2);
  tcase_add_test(tc, no_fuse_chunks_over_the_memory_limit_are_refused_before_work);
  tcase_add_test(tc, owner_assignment_is_balanced_and_total);
  tcase_add_test(tc, phase_source_programs_stay_put_while_others_compile);
  tcase_add_test(tc, no_fuse_box_reads_any_number_of_input_chunks);
  suite_add_tcase(s, tc);
  return s;
}

int main(int argc, char **argv) {
  if (tsr_init(&argc, &argv) != TSR_OK) {
    fprintf(stderr, "test_exec: %s\n", tsr_error_message());
    return EXIT_FAILURE;
  }
  SRunner *sr = srunner_create(exec_suite());
  /* MPI is started once in this process: no forked test cases. */
  srunner_set_fork_status(sr, CK_NOFORK);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  tsr_finalize();
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
