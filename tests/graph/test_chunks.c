/*
 * test_chunks.c - unit tests of chunk-grid arithmetic (src/chunks.c).
 *
 * Expected grids come from brute force written independently here (enumerate
 * the selected indices, map each to its chunk by linear scan, group), not from
 * the formulas under test; a few literal cases were checked by hand against
 * dask.array.
 */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/chunks.h"
#include "util/error.h"

#define MAXLEN 64 /* longest axis the brute-force tests build */

/* ---- helpers ---- */

static uint64_t rng_state = 0x9e3779b97f4a7c15u;

/* xorshift64: deterministic, so a failure reproduces exactly. */
static int64_t rnd(int64_t n) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return (int64_t)(rng_state % (uint64_t)n);
}

/* Rotates over a few buffers so that two results can be compared. */
static const char *fmt(const tsr_grid *g) {
  static char buf[4][512];
  static int next;
  next = (next + 1) % 4;
  tsr_grid_format(g, buf[next], sizeof buf[next]);
  return buf[next];
}

/* Asserts that call failed with code and exactly message msg. */
static void expect_error(int rc, int code, const char *msg) {
  ck_assert_int_eq(rc, code);
  ck_assert_int_eq(tsr_error_code(), code);
  ck_assert_str_eq(tsr_error_message(), msg);
  tsr_error_clear();
}

/* Checks every invariant tessera relies on: sizes sum to shape, starts are
 * their prefix sums, sizes are positive unless the axis is empty. */
static void expect_consistent(const tsr_grid *g) {
  for (int a = 0; a < g->ndim; a++) {
    ck_assert_int_ge(g->nchunks[a], 1);
    ck_assert_int_eq(g->starts[a][0], 0);
    for (int64_t i = 0; i < g->nchunks[a]; i++) {
      ck_assert_int_ge(g->sizes[a][i], g->shape[a] == 0 ? 0 : 1);
      ck_assert_int_eq(g->starts[a][i + 1], g->starts[a][i] + g->sizes[a][i]);
    }
    ck_assert_int_eq(g->starts[a][g->nchunks[a]], g->shape[a]);
    if (g->shape[a] == 0) ck_assert_int_eq(g->nchunks[a], 1);
  }
}

static void expect_axis(const tsr_grid *g, int a, const int64_t *sizes, int64_t n) {
  ck_assert_int_eq(g->nchunks[a], n);
  for (int64_t i = 0; i < n; i++) ck_assert_int_eq(g->sizes[a][i], sizes[i]);
}

/* A random partition of len into chunks of 1..maxc (one chunk of 0 if empty). */
static int64_t random_sizes(int64_t len, int64_t maxc, int64_t *sizes) {
  int64_t n = 0;
  if (len == 0) sizes[n++] = 0;
  for (int64_t left = len; left > 0; left -= sizes[n - 1]) {
    int64_t s = 1 + rnd(maxc);
    sizes[n++] = s < left ? s : left;
  }
  return n;
}

static void random_grid(tsr_grid *g, int ndim, int64_t maxlen) {
  int64_t shape[TSR_MAXDIM], n[TSR_MAXDIM], buf[TSR_MAXDIM][MAXLEN + 1];
  const int64_t *sizes[TSR_MAXDIM];
  for (int a = 0; a < ndim; a++) {
    shape[a] = rnd(maxlen + 1);
    n[a] = random_sizes(shape[a], 1 + rnd(6), buf[a]);
    sizes[a] = buf[a];
  }
  ck_assert_int_eq(tsr_grid_init_lists(g, ndim, shape, sizes, n), TSR_OK);
  expect_consistent(g);
}

/* range(len)[start:stop:step] following the rules as Python's documentation
 * states them (defaults, counting from the end, clipping), enumerated by a
 * plain loop. Returns the number of indices written to out. */
static int64_t py_slice(int64_t len, const int64_t *start, const int64_t *stop, const int64_t *step,
                        int64_t *out) {
  int64_t st = step ? *step : 1, n = 0;
  if (st > 0) {
    int64_t lo = start ? *start : 0, hi = stop ? *stop : len;
    lo = lo < 0 ? lo + len : lo;
    hi = hi < 0 ? hi + len : hi;
    lo = lo < 0 ? 0 : lo > len ? len : lo;
    hi = hi < 0 ? 0 : hi > len ? len : hi;
    for (int64_t i = lo; i < hi; i += st) out[n++] = i;
  } else {
    int64_t lo = start ? *start : len - 1, hi = -1; /* hi = -1: down to index 0 */
    lo = lo < 0 ? lo + len : lo;
    lo = lo > len - 1 ? len - 1 : lo;
    if (stop) hi = *stop < 0 ? *stop + len : *stop;
    hi = hi < -1 ? -1 : hi;
    for (int64_t i = lo; i > hi && i >= 0; i += st) out[n++] = i;
  }
  return n;
}

/* Expected chunk sizes of a selection of indices idx[0..n) on axis a of g:
 * map each to its chunk by linear scan, merge runs of the same chunk. */
static int64_t brute_select_sizes(const tsr_grid *g, int a, const int64_t *idx, int64_t n,
                                  int64_t *sizes) {
  int64_t m = 0, prev = -1;
  for (int64_t k = 0; k < n; k++) {
    int64_t c = 0;
    while (!(g->starts[a][c] <= idx[k] && idx[k] < g->starts[a][c + 1])) c++;
    if (c == prev)
      sizes[m - 1]++;
    else
      sizes[m++] = 1;
    prev = c;
  }
  if (m == 0) sizes[m++] = 0;
  return m;
}

/* ---- regular grids ---- */

START_TEST(regular_grid_has_smaller_last_chunk) {
  tsr_grid g;
  int64_t shape[] = {7, 4}, chunk[] = {3, 4};
  ck_assert_int_eq(tsr_grid_init_regular(&g, 2, shape, chunk), TSR_OK);
  ck_assert_str_eq(fmt(&g), "((3, 3, 1), (4,))");
  ck_assert_int_eq(g.starts[0][2], 6);
  expect_consistent(&g);
  tsr_grid_free(&g);
}
END_TEST

START_TEST(regular_chunk_larger_than_axis_gives_one_chunk) {
  tsr_grid g;
  int64_t shape[] = {5}, chunk[] = {100};
  ck_assert_int_eq(tsr_grid_init_regular(&g, 1, shape, chunk), TSR_OK);
  ck_assert_str_eq(fmt(&g), "((5,),)");
  tsr_grid_free(&g);
}
END_TEST

START_TEST(regular_zero_length_axis_has_one_empty_chunk) {
  tsr_grid g;
  int64_t shape[] = {0, 3}, chunk[] = {2, 2};
  ck_assert_int_eq(tsr_grid_init_regular(&g, 2, shape, chunk), TSR_OK);
  ck_assert_str_eq(fmt(&g), "((0,), (2, 1))");
  ck_assert_int_eq(tsr_grid_count(&g), 2);
  expect_consistent(&g);
  tsr_grid_free(&g);
}
END_TEST

START_TEST(regular_grid_matches_brute_force_for_all_small_sizes) {
  for (int64_t len = 0; len <= 20; len++) {
    for (int64_t c = 1; c <= 22; c++) {
      tsr_grid g;
      ck_assert_int_eq(tsr_grid_init_regular(&g, 1, &len, &c), TSR_OK);
      expect_consistent(&g);
      int64_t expect[MAXLEN], n = 0;
      for (int64_t left = len; left > 0; left -= c) expect[n++] = left < c ? left : c;
      if (n == 0) expect[n++] = 0;
      expect_axis(&g, 0, expect, n);
      tsr_grid_free(&g);
    }
  }
}
END_TEST

START_TEST(regular_zero_chunk_is_rejected_with_axis) {
  tsr_grid g;
  int64_t shape[] = {4, 4}, chunk[] = {2, 0};
  expect_error(tsr_grid_init_regular(&g, 2, shape, chunk), TSR_ERR_VALUE,
               "chunk size must be positive, got 0 on axis 1");
  tsr_grid_free(&g); /* a failed init leaves a freeable grid */
}
END_TEST

START_TEST(negative_shape_and_too_many_dims_are_rejected) {
  tsr_grid g;
  int64_t shape[] = {3, -2, 1, 1, 1}, chunk[] = {1, 1, 1, 1, 1};
  expect_error(tsr_grid_init_regular(&g, 2, shape, chunk), TSR_ERR_VALUE,
               "array length must be non-negative, got -2 on axis 1");
  expect_error(tsr_grid_init_regular(&g, 5, shape, chunk), TSR_ERR_VALUE,
               "arrays have 0 to 4 dimensions, got 5");
  int64_t huge[] = {INT64_MAX / 2, 3};
  expect_error(tsr_grid_init_regular(&g, 2, huge, chunk), TSR_ERR_VALUE,
               "array of shape (4611686018427387903, 3) has too many elements");
}
END_TEST

START_TEST(zero_dimensional_grid_has_one_chunk) {
  tsr_grid g;
  ck_assert_int_eq(tsr_grid_init_regular(&g, 0, NULL, NULL), TSR_OK);
  ck_assert_int_eq(tsr_grid_count(&g), 1);
  ck_assert_int_eq(tsr_grid_max_chunk_elems(&g), 1);
  ck_assert_str_eq(fmt(&g), "()");
  tsr_grid_free(&g);
}
END_TEST

/* ---- explicit lists ---- */

START_TEST(lists_build_irregular_grid) {
  tsr_grid g;
  int64_t s0[] = {2, 5, 1}, s1[] = {4};
  const int64_t *sizes[] = {s0, s1};
  int64_t shape[] = {8, 4}, n[] = {3, 1};
  ck_assert_int_eq(tsr_grid_init_lists(&g, 2, shape, sizes, n), TSR_OK);
  ck_assert_str_eq(fmt(&g), "((2, 5, 1), (4,))");
  expect_consistent(&g);
  tsr_grid_free(&g);
}
END_TEST

START_TEST(lists_with_wrong_sum_are_shape_errors) {
  tsr_grid g;
  int64_t s0[] = {3, 3}, shape[] = {7}, n[] = {2};
  const int64_t *sizes[] = {s0};
  expect_error(tsr_grid_init_lists(&g, 1, shape, sizes, n), TSR_ERR_SHAPE,
               "chunks (3, 3) sum to 6 but axis 0 has length 7");
  int64_t big[] = {INT64_MAX, 5}, shape2[] = {9};
  const int64_t *sizes2[] = {big};
  expect_error(tsr_grid_init_lists(&g, 1, shape2, sizes2, n), TSR_ERR_SHAPE,
               "chunks (9223372036854775807, 5) sum to more than 9223372036854775807 but axis 0 "
               "has length 9");
}
END_TEST

START_TEST(lists_with_nonpositive_sizes_are_value_errors) {
  tsr_grid g;
  int64_t s0[] = {2, 0, 2}, s1[] = {3, -1, 2}, shape[] = {4}, n[] = {3};
  const int64_t *a[] = {s0}, *b[] = {s1};
  expect_error(tsr_grid_init_lists(&g, 1, shape, a, n), TSR_ERR_VALUE,
               "chunk sizes must be positive, got 0 at position 1 on axis 0");
  expect_error(tsr_grid_init_lists(&g, 1, shape, b, n), TSR_ERR_VALUE,
               "chunk sizes must be positive, got -1 at position 1 on axis 0");
}
END_TEST

START_TEST(lists_on_empty_axis_give_one_empty_chunk) {
  tsr_grid g;
  int64_t zero[] = {0}, shape[] = {0, 0}, n[] = {1, 0};
  const int64_t *sizes[] = {zero, NULL};
  ck_assert_int_eq(tsr_grid_init_lists(&g, 2, shape, sizes, n), TSR_OK);
  ck_assert_str_eq(fmt(&g), "((0,), (0,))");
  expect_consistent(&g);
  tsr_grid_free(&g);
}
END_TEST

START_TEST(copy_is_equal_and_independent) {
  for (int t = 0; t < 50; t++) {
    tsr_grid g, h, other;
    random_grid(&g, 1 + (int)rnd(4), 12);
    ck_assert_int_eq(tsr_grid_copy(&h, &g), TSR_OK);
    ck_assert(tsr_grid_equal(&g, &h));
    ck_assert_str_eq(fmt(&h), fmt(&g));
    expect_consistent(&h);
    tsr_grid_free(&g); /* h must own its memory */
    expect_consistent(&h);
    random_grid(&other, h.ndim, 12);
    ck_assert_int_eq(tsr_grid_equal(&h, &other),
                     strcmp(fmt(&h), fmt(&other)) == 0 &&
                         memcmp(h.shape, other.shape, sizeof h.shape) == 0);
    tsr_grid_free(&h);
    tsr_grid_free(&other);
  }
}
END_TEST

/* ---- auto chunks ---- */

START_TEST(auto_chunks_match_dask_on_checked_cases) {
  struct {
    int ndim;
    int64_t shape[3];
    size_t itemsize, target;
    int64_t chunk[3];
  } cases[] = {
      {2, {1000, 1000}, 8, 800, {10, 10}},
      {2, {10, 100000}, 8, 800, {10, 10}},
      {3, {5, 1000, 1000}, 8, 8000, {5, 14, 14}}, /* short axis whole, rest square */
      {1, {7}, 8, 800, {7}},
      {2, {0, 5}, 8, 800, {0, 5}},
      {3, {1000, 1000, 1000}, 8, 128 << 20, {256, 256, 256}}, /* Dask: 255 (float cube root) */
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    tsr_grid g;
    ck_assert_int_eq(
        tsr_grid_init_auto(&g, cases[i].ndim, cases[i].shape, cases[i].itemsize, cases[i].target),
        TSR_OK);
    for (int a = 0; a < cases[i].ndim; a++) ck_assert_int_eq(g.sizes[a][0], cases[i].chunk[a]);
    tsr_grid_free(&g);
  }
}
END_TEST

START_TEST(auto_chunks_fit_target_and_cover_shape) {
  for (int t = 0; t < 2000; t++) {
    int ndim = 1 + (int)rnd(4);
    int64_t shape[TSR_MAXDIM];
    for (int a = 0; a < ndim; a++) shape[a] = rnd(4) == 0 ? rnd(3) : 1 + rnd(5000);
    size_t itemsize = (size_t)1 << rnd(4), target = (size_t)(1 + rnd(1 << 20));
    tsr_grid g;
    ck_assert_int_eq(tsr_grid_init_auto(&g, ndim, shape, itemsize, target), TSR_OK);
    expect_consistent(&g);
    int empty = 0;
    for (int a = 0; a < ndim; a++) {
      ck_assert_int_le(g.sizes[a][0], shape[a] > 0 ? shape[a] : 0);
      empty |= shape[a] == 0;
    }
    for (int a = 0; a < ndim && empty; a++) ck_assert_int_eq(g.sizes[a][0], shape[a]); /* as Dask */
    if (!empty && target >= itemsize)
      ck_assert_uint_le((size_t)tsr_grid_max_chunk_elems(&g) * itemsize, target);
    tsr_grid_free(&g);
  }
}
END_TEST

START_TEST(auto_chunks_use_most_of_the_target) {
  /* On a big cube the chunks are cubes whose next size up would not fit. */
  int64_t shape[] = {100000, 100000, 100000};
  tsr_grid g;
  ck_assert_int_eq(tsr_grid_init_auto(&g, 3, shape, 4, 1000003), TSR_OK);
  int64_t c = g.sizes[0][0];
  ck_assert_int_eq(g.sizes[1][0], c);
  ck_assert_int_eq(g.sizes[2][0], c);
  ck_assert_int_le(c * c * c * 4, 1000003);
  ck_assert_int_gt((c + 1) * (c + 1) * (c + 1) * 4, 1000003);
  tsr_grid_free(&g);
}
END_TEST

START_TEST(auto_chunks_reject_zero_itemsize_and_target) {
  tsr_grid g;
  int64_t shape[] = {10};
  expect_error(tsr_grid_init_auto(&g, 1, shape, 0, 100), TSR_ERR_VALUE,
               "auto chunks need a positive item size");
  expect_error(tsr_grid_init_auto(&g, 1, shape, 8, 0), TSR_ERR_VALUE,
               "auto chunks need a positive target chunk size in bytes");
  ck_assert_int_eq(tsr_grid_init_auto(&g, 1, shape, 8, 3),
                   TSR_OK); /* below one item: chunks of 1 */
  ck_assert_int_eq(g.nchunks[0], 10);
  tsr_grid_free(&g);
}
END_TEST

/* ---- auto chunks after previous chunks ---- */

#define MAXRUNS 12

/* An axis as runs: size, count, size, count, ... ended by a 0 size. */
static void grid_from_runs(tsr_grid *g, int ndim, const int64_t (*runs)[MAXRUNS]) {
  int64_t shape[TSR_MAXDIM] = {0}, n[TSR_MAXDIM] = {0}, *sizes[TSR_MAXDIM] = {0};
  for (int a = 0; a < ndim; a++) {
    for (int i = 0; runs[a][i] != 0; i += 2) n[a] += runs[a][i + 1];
    sizes[a] = malloc((size_t)n[a] * sizeof(int64_t));
    int64_t m = 0;
    for (int i = 0; runs[a][i] != 0; i += 2)
      for (int64_t k = 0; k < runs[a][i + 1]; k++) shape[a] += sizes[a][m++] = runs[a][i];
  }
  ck_assert_int_eq(tsr_grid_init_lists(g, ndim, shape, (const int64_t *const *)sizes, n), TSR_OK);
  for (int a = 0; a < ndim; a++) free(sizes[a]);
}

/* The cases of Dask's tests (dask 2026.8.0) on auto chunks with previous
 * chunks. auto[a] marks the "auto" axes; a fixed axis holds the chunks Dask
 * was given for it ({0: -1, 1: "auto"} makes axis 0 one chunk). target is
 * the limit in bytes (block_size_limit or array.chunk-size) and want the
 * chunks that test asserts; every one was also checked against dask's
 * normalize_chunks. */
typedef struct prev_case {
  const char *dask_test;
  int ndim;
  int64_t prev[3][MAXRUNS];
  int autos[3];
  size_t itemsize, target;
  int64_t want[3][MAXRUNS];
} prev_case;

/* clang-format off */
static const prev_case prev_cases[] = {
    /* test_rechunk.py::test_rechunk_auto_1d (shape, chunks, bs):
     * ones(shape, chunks=(chunks,)).rechunk({0: "auto"}, block_size_limit=bs * 8) */
    {"auto_1d (100, 1, 10)", 1, {{1, 100}}, {1}, 8, 80, {{10, 10}}},
    {"auto_1d (100, 50, 10)", 1, {{50, 2}}, {1}, 8, 80, {{10, 10}}},
    {"auto_1d (100, 100, 10)", 1, {{100, 1}}, {1}, 8, 80, {{10, 10}}},
    {"auto_1d (20, 7, 10)", 1, {{7, 2, 6, 1}}, {1}, 8, 80, {{7, 2, 6, 1}}},
    {"auto_1d (20, (1, 1, 1, 1, 6, 2, 1, 7), 5)", 1, {{1, 4, 6, 1, 2, 1, 1, 1, 7, 1}}, {1}, 8, 40,
     {{5, 4}}},
    {"auto_1d (21, (1,) * 21, 10)", 1, {{1, 21}}, {1}, 8, 80, {{10, 2, 1, 1}}},
    {"auto_1d (30, (3,) * 10, 7)", 1, {{3, 10}}, {1}, 8, 56, {{6, 5}}},
    {"auto_1d (20, (2, 2, 2, 9, 1, 2, 2), 5)", 1, {{2, 3, 9, 1, 1, 1, 2, 2}}, {1}, 8, 40, {{4, 5}}},
    {"auto_1d (20, (10, 10), 4)", 1, {{10, 2}}, {1}, 8, 32, {{4, 5}}},
    {"auto_1d (21, (10, 11), 4)", 1, {{10, 1, 11, 1}}, {1}, 8, 32, {{4, 5, 1, 1}}},
    {"auto_1d (20, (1, 18, 1), 5)", 1, {{1, 1, 18, 1, 1, 1}}, {1}, 8, 40, {{5, 4}}},
    {"auto_1d (38, (10, 18, 10), 5)", 1, {{10, 1, 18, 1, 10, 1}}, {1}, 8, 40, {{5, 7, 3, 1}}},
    /* test_rechunk.py::test_normalize_chunks_auto_2d: int8, limit=bs */
    {"normalize_chunks_auto_2d 1", 2, {{1, 3}, {10, 8}}, {1, 1}, 1, 160, {{3, 1}, {50, 1, 30, 1}}},
    {"normalize_chunks_auto_2d 2", 2, {{2, 2}, {20, 1}}, {1, 1}, 1, 5, {{1, 4}, {5, 4}}},
    {"normalize_chunks_auto_2d 3", 2, {{1, 2}, {20, 1}}, {1, 1}, 1, 5, {{1, 2}, {5, 4}}},
    /* test_rechunk.py::test_rechunk_auto_2d: ones((20, 20), chunks=(2, 2)) */
    {"auto_2d {0: -1, 1: auto}", 2, {{20, 1}, {2, 10}}, {0, 1}, 8, 160, {{20, 1}, {1, 20}}},
    {"auto_2d (-1, auto)", 2, {{20, 1}, {2, 10}}, {0, 1}, 8, 640, {{20, 1}, {4, 5}}},
    {"auto_2d {0: auto}", 2, {{2, 10}, {2, 10}}, {1, 0}, 8, 160, {{10, 2}, {2, 10}}},
    {"auto_2d {0: auto} (2, 2, 2, 2, 2, 5, 5)", 2, {{2, 10}, {2, 5, 5, 2}}, {1, 0}, 8, 160,
     {{4, 5}, {2, 5, 5, 2}}},
    /* test_rechunk.py::test_rechunk_auto_3d */
    {"auto_3d", 3, {{2, 10}, {2, 10}, {2, 10}}, {1, 1, 0}, 8, 1600, {{10, 2}, {10, 2}, {2, 10}}},
    /* test_rechunk.py::test_rechunk_auto_image_stack, n = 100 and 1000:
     * ones((n, 1000, 1000), chunks=(1, 1000, 1000)).rechunk("auto") keeps whole
     * planes, and rechunking that result again changes nothing. */
    {"image_stack 100 uint8 10MiB", 3, {{1, 100}, {1000, 1}, {1000, 1}}, {1, 1, 1}, 1, 10 << 20,
     {{10, 10}, {1000, 1}, {1000, 1}}},
    {"image_stack 100 uint8 10MiB again", 3, {{10, 10}, {1000, 1}, {1000, 1}}, {1, 1, 1}, 1,
     10 << 20, {{10, 10}, {1000, 1}, {1000, 1}}},
    {"image_stack 100 uint8 7MiB", 3, {{1, 100}, {1000, 1}, {1000, 1}}, {1, 1, 1}, 1, 7 << 20,
     {{7, 14, 2, 1}, {1000, 1}, {1000, 1}}},
    {"image_stack 100 float64 1MiB", 3, {{1, 100}, {1000, 1}, {1000, 1}}, {1, 1, 1}, 8, 1 << 20,
     {{1, 100}, {362, 2, 276, 1}, {362, 2, 276, 1}}},
    {"image_stack 100 float64 1MiB (n, 2000, 2000)", 3, {{1, 100}, {1000, 2}, {1000, 2}},
     {1, 1, 1}, 8, 1 << 20, {{1, 100}, {362, 5, 190, 1}, {362, 5, 190, 1}}},
    {"image_stack 1000 uint8 10MiB", 3, {{1, 1000}, {1000, 1}, {1000, 1}}, {1, 1, 1}, 1, 10 << 20,
     {{10, 100}, {1000, 1}, {1000, 1}}},
    {"image_stack 1000 uint8 10MiB again", 3, {{10, 100}, {1000, 1}, {1000, 1}}, {1, 1, 1}, 1,
     10 << 20, {{10, 100}, {1000, 1}, {1000, 1}}},
    {"image_stack 1000 uint8 7MiB", 3, {{1, 1000}, {1000, 1}, {1000, 1}}, {1, 1, 1}, 1, 7 << 20,
     {{7, 142, 6, 1}, {1000, 1}, {1000, 1}}},
    {"image_stack 1000 float64 1MiB", 3, {{1, 1000}, {1000, 1}, {1000, 1}}, {1, 1, 1}, 8, 1 << 20,
     {{1, 1000}, {362, 2, 276, 1}, {362, 2, 276, 1}}},
    {"image_stack 1000 float64 1MiB (n, 2000, 2000)", 3, {{1, 1000}, {1000, 2}, {1000, 2}},
     {1, 1, 1}, 8, 1 << 20, {{1, 1000}, {362, 5, 190, 1}, {362, 5, 190, 1}}},
    /* test_rechunk.py::test_rechunk_down: the 10MiB stack above with a 1MiB
     * limit (Dask's reduce case), on every axis or on one */
    {"rechunk_down auto", 3, {{10, 10}, {1000, 1}, {1000, 1}}, {1, 1, 1}, 1, 1 << 20,
     {{4, 25}, {511, 1, 489, 1}, {511, 1, 489, 1}}},
    {"rechunk_down {0: auto}", 3, {{10, 10}, {1000, 1}, {1000, 1}}, {1, 0, 0}, 1, 1 << 20,
     {{1, 100}, {1000, 1}, {1000, 1}}},
    {"rechunk_down {1: auto}", 3, {{10, 10}, {1000, 1}, {1000, 1}}, {0, 1, 0}, 1, 1 << 20,
     {{10, 10}, {104, 9, 64, 1}, {1000, 1}}},
    /* test_rechunk.py::test_rechunk_zero: a 1-byte limit gives chunks of 1 */
    {"rechunk_zero", 1, {{5, 2}}, {1}, 8, 1, {{1, 10}}},
    /* test_array_core.py::test_auto_chunks: int32, the default 128 MiB */
    {"test_auto_chunks", 2, {{1264, 6, 1045, 1}, {1264, 1, 491, 1}}, {1, 1}, 4, 128 << 20,
     {{8629, 1}, {1755, 1}}},
    /* test_array_core.py::test_auto_chunks_h5py: from_array of a (1000, 1000)
     * float64 dataset with HDF5 chunks (32, 64), 1 MiB: whole HDF5 chunks
     * grouped, as load does with a chunked dataset */
    {"test_auto_chunks_h5py", 2, {{32, 31, 8, 1}, {64, 15, 40, 1}}, {1, 1}, 8, 1 << 20,
     {{256, 3, 232, 1}, {512, 1, 488, 1}}},
};
/* clang-format on */

START_TEST(auto_prev_matches_dask_tests) {
  for (size_t i = 0; i < sizeof prev_cases / sizeof prev_cases[0]; i++) {
    const prev_case *c = &prev_cases[i];
    tsr_grid prev, want, g;
    grid_from_runs(&prev, c->ndim, c->prev);
    grid_from_runs(&want, c->ndim, c->want);
    ck_assert_int_eq(tsr_grid_init_auto_prev(&g, &prev, c->autos, c->itemsize, c->target), TSR_OK);
    ck_assert_msg(tsr_grid_equal(&g, &want), "%s: got %.200s, Dask has %.200s", c->dask_test,
                  fmt(&g), fmt(&want));
    tsr_grid_free(&prev);
    tsr_grid_free(&want);
    tsr_grid_free(&g);
  }
}
END_TEST

START_TEST(auto_prev_keeps_whole_planes_of_a_stack) {
  /* The case of the issue: a stack of 1000 x 1000 float64 planes, one plane
   * a chunk, rechunked to the default 128 MiB: 16 whole planes a chunk
   * (dask.array gives the same), where the square rule (no previous chunks)
   * cuts every plane into 512 x 512 pieces. auto_axes NULL means every axis. */
  static const int64_t stack[3][MAXRUNS] = {{1, 64}, {1000, 1}, {1000, 1}};
  static const int64_t planes[3][MAXRUNS] = {{16, 4}, {1000, 1}, {1000, 1}};
  tsr_grid prev, want, g;
  grid_from_runs(&prev, 3, stack);
  grid_from_runs(&want, 3, planes);
  ck_assert_int_eq(tsr_grid_init_auto_prev(&g, &prev, NULL, 8, (size_t)128 << 20), TSR_OK);
  ck_assert_msg(tsr_grid_equal(&g, &want), "got %s", fmt(&g));
  tsr_grid_free(&g);
  ck_assert_int_eq(tsr_grid_init_auto(&g, 3, prev.shape, 8, (size_t)128 << 20), TSR_OK);
  ck_assert_str_eq(fmt(&g), "((64,), (512, 488), (512, 488))");
  tsr_grid_free(&prev);
  tsr_grid_free(&want);
  tsr_grid_free(&g);
}
END_TEST

START_TEST(auto_prev_counts_a_whole_axis_once) {
  /* The one known difference from Dask: when shrinking (the previous block
   * is over the limit) an axis that grows past its length on a later pass is
   * taken whole, and Dask then counts its length twice (its median entry is
   * deleted, then re-added with the length, which also enters largest_block),
   * so the other axes come out far smaller than the limit asks. A (5, 2000,
   * 2000) float64 array in one chunk (153 MiB), rechunked to 128 MiB: Dask
   * gives ((1, 1, 1, 1, 1), (2000,), (2000,)) (31 MiB chunks); tessera counts
   * the length once and gives ((4, 1), (2000,), (2000,)) (122 MiB). Likewise
   * ((3,), (4,)) of bytes with an 11-byte limit: Dask ((1, 1, 1), (4,)). */
  static const int64_t prev_runs[2][3][MAXRUNS] = {{{5, 1}, {2000, 1}, {2000, 1}},
                                                   {{3, 1}, {4, 1}}};
  static const int64_t want_runs[2][3][MAXRUNS] = {{{4, 1, 1, 1}, {2000, 1}, {2000, 1}},
                                                   {{2, 1, 1, 1}, {4, 1}}};
  static const int ndim[2] = {3, 2};
  static const size_t itemsize[2] = {8, 1}, target[2] = {(size_t)128 << 20, 11};
  for (int i = 0; i < 2; i++) {
    tsr_grid prev, want, g;
    grid_from_runs(&prev, ndim[i], prev_runs[i]);
    grid_from_runs(&want, ndim[i], want_runs[i]);
    ck_assert_int_eq(tsr_grid_init_auto_prev(&g, &prev, NULL, itemsize[i], target[i]), TSR_OK);
    ck_assert_msg(tsr_grid_equal(&g, &want), "got %s", fmt(&g));
    tsr_grid_free(&prev);
    tsr_grid_free(&want);
    tsr_grid_free(&g);
  }
}
END_TEST

START_TEST(auto_prev_covers_shape_and_keeps_fixed_axes) {
  for (int t = 0; t < 2000; t++) {
    int ndim = 1 + (int)rnd(4), autos[TSR_MAXDIM];
    tsr_grid prev, g;
    random_grid(&prev, ndim, 40);
    for (int a = 0; a < ndim; a++) autos[a] = rnd(4) != 0;
    size_t itemsize = (size_t)1 << rnd(4), target = (size_t)(1 + rnd(1 << 16));
    ck_assert_int_eq(tsr_grid_init_auto_prev(&g, &prev, autos, itemsize, target), TSR_OK);
    expect_consistent(&g);
    ck_assert_int_eq(g.ndim, ndim);
    for (int a = 0; a < ndim; a++) {
      ck_assert_int_eq(g.shape[a], prev.shape[a]);
      if (autos[a]) continue;
      ck_assert_int_eq(g.nchunks[a], prev.nchunks[a]);
      for (int64_t i = 0; i < g.nchunks[a]; i++) ck_assert_int_eq(g.sizes[a][i], prev.sizes[a][i]);
    }
    tsr_grid_free(&prev);
    tsr_grid_free(&g);
  }
}
END_TEST

START_TEST(auto_prev_handles_empty_and_zero_dimensional_grids) {
  tsr_grid prev, g;
  int64_t shape[] = {0, 5}, chunk[] = {4, 2};
  ck_assert_int_eq(tsr_grid_init_regular(&prev, 2, shape, chunk), TSR_OK);
  ck_assert_int_eq(tsr_grid_init_auto_prev(&g, &prev, NULL, 8, 16), TSR_OK);
  ck_assert_str_eq(fmt(&g), "((0,), (2, 2, 1))"); /* as dask's normalize_chunks */
  tsr_grid_free(&prev);
  tsr_grid_free(&g);
  ck_assert_int_eq(tsr_grid_init_regular(&prev, 0, shape, chunk), TSR_OK);
  ck_assert_int_eq(tsr_grid_init_auto_prev(&g, &prev, NULL, 8, 16), TSR_OK);
  ck_assert_int_eq(g.ndim, 0);
  ck_assert_int_eq(tsr_grid_count(&g), 1);
  expect_error(tsr_grid_init_auto_prev(&g, &prev, NULL, 0, 16), TSR_ERR_VALUE,
               "auto chunks need a positive item size");
  expect_error(tsr_grid_init_auto_prev(&g, &prev, NULL, 8, 0), TSR_ERR_VALUE,
               "auto chunks need a positive target chunk size in bytes");
  tsr_grid_free(&prev);
  tsr_grid_free(&g);
}
END_TEST

/* ---- indexing of chunks ---- */

START_TEST(ravel_and_unravel_round_trip_in_row_major_order) {
  for (int t = 0; t < 100; t++) {
    tsr_grid g;
    random_grid(&g, 1 + (int)rnd(4), 10);
    int64_t prev[TSR_MAXDIM] = {0}, idx[TSR_MAXDIM];
    for (int64_t lin = 0; lin < tsr_grid_count(&g); lin++) {
      tsr_grid_unravel(&g, lin, idx);
      ck_assert_int_eq(tsr_grid_ravel(&g, idx), lin);
      int cmp = 0; /* row-major: coordinates increase lexicographically */
      for (int a = 0; a < g.ndim && cmp == 0; a++) {
        ck_assert(idx[a] >= 0 && idx[a] < g.nchunks[a]);
        cmp = (idx[a] > prev[a]) - (idx[a] < prev[a]);
      }
      ck_assert(lin == 0 ? cmp == 0 : cmp > 0);
      memcpy(prev, idx, sizeof idx);
    }
    tsr_grid_free(&g);
  }
}
END_TEST

START_TEST(count_is_product_of_chunks_per_axis) {
  tsr_grid g;
  int64_t shape[] = {10, 7, 3}, chunk[] = {4, 2, 5};
  ck_assert_int_eq(tsr_grid_init_regular(&g, 3, shape, chunk), TSR_OK);
  ck_assert_int_eq(tsr_grid_count(&g), 3 * 4 * 1);
  ck_assert_int_eq(tsr_grid_max_chunk_elems(&g), 4 * 2 * 3);
  int64_t idx[] = {2, 3, 0}, start[3], extent[3];
  tsr_grid_chunk_box(&g, idx, start, extent);
  ck_assert(start[0] == 8 && start[1] == 6 && start[2] == 0);
  ck_assert(extent[0] == 2 && extent[1] == 1 && extent[2] == 3);
  tsr_grid_free(&g);
}
END_TEST

START_TEST(chunk_boxes_tile_the_array_and_max_is_largest_box) {
  for (int t = 0; t < 100; t++) {
    tsr_grid g;
    random_grid(&g, 1 + (int)rnd(3), 10);
    int64_t idx[TSR_MAXDIM], start[TSR_MAXDIM], extent[TSR_MAXDIM], total = 0, largest = 0;
    for (int64_t lin = 0; lin < tsr_grid_count(&g); lin++) {
      tsr_grid_unravel(&g, lin, idx);
      tsr_grid_chunk_box(&g, idx, start, extent);
      int64_t elems = 1;
      for (int a = 0; a < g.ndim; a++) {
        int64_t before = 0;
        for (int64_t c = 0; c < idx[a]; c++) before += g.sizes[a][c];
        ck_assert_int_eq(start[a], before);
        elems *= extent[a];
      }
      total += elems;
      largest = elems > largest ? elems : largest;
    }
    int64_t all = 1;
    for (int a = 0; a < g.ndim; a++) all *= g.shape[a];
    ck_assert_int_eq(total, all);
    ck_assert_int_eq(tsr_grid_max_chunk_elems(&g), largest);
    tsr_grid_free(&g);
  }
}
END_TEST

START_TEST(find_agrees_with_linear_scan) {
  for (int t = 0; t < 200; t++) {
    tsr_grid g;
    random_grid(&g, 1, MAXLEN);
    for (int64_t i = -2; i < g.shape[0] + 2; i++) {
      int64_t expect = -1, lo = 0;
      for (int64_t c = 0; c < g.nchunks[0]; lo += g.sizes[0][c++])
        if (lo <= i && i < lo + g.sizes[0][c]) expect = c;
      ck_assert_int_eq(tsr_grid_find(&g, 0, i), expect);
    }
    tsr_grid_free(&g);
  }
}
END_TEST

/* ---- slices ---- */

START_TEST(slice_normalize_matches_python_for_all_small_slices) {
  int64_t vals[21], out[MAXLEN], first, step, count;
  for (int i = 0; i < 21; i++) vals[i] = i - 10;
  for (int64_t len = 0; len <= 7; len++)
    for (int s0 = -1; s0 < 21; s0++)
      for (int s1 = -1; s1 < 21; s1++)
        for (int64_t st = -5; st <= 4; st++) { /* -5 stands for an omitted step */
          const int64_t *start = s0 < 0 ? NULL : &vals[s0], *stop = s1 < 0 ? NULL : &vals[s1];
          const int64_t *stp = st == -5 ? NULL : &st;
          int rc = tsr_slice_normalize(len, start, stop, stp, &first, &step, &count);
          if (st == 0) {
            expect_error(rc, TSR_ERR_VALUE, "slice step cannot be zero");
            continue;
          }
          ck_assert_int_eq(rc, TSR_OK);
          int64_t n = py_slice(len, start, stop, stp, out);
          ck_assert_int_eq(count, n);
          ck_assert_int_eq(step, stp ? st : 1);
          for (int64_t k = 0; k < n; k++) ck_assert_int_eq(first + k * step, out[k]);
        }
}
END_TEST

START_TEST(slice_normalize_handles_extreme_values) {
  int64_t first, step, count, big = INT64_MAX, small = INT64_MIN, one = 1, minus = -1;
  ck_assert_int_eq(tsr_slice_normalize(10, &small, &big, &big, &first, &step, &count), TSR_OK);
  ck_assert(first == 0 && count == 1);
  ck_assert_int_eq(tsr_slice_normalize(10, &big, &small, &small, &first, &step, &count), TSR_OK);
  ck_assert(first == 9 && count == 1 && step == -INT64_MAX);
  ck_assert_int_eq(tsr_slice_normalize(10, NULL, NULL, &minus, &first, &step, &count), TSR_OK);
  ck_assert(first == 9 && step == -1 && count == 10);
  ck_assert_int_eq(tsr_slice_normalize(0, &one, NULL, NULL, &first, &step, &count), TSR_OK);
  ck_assert_int_eq(count, 0);
}
END_TEST

/* ---- selection ---- */

START_TEST(select_matches_dask_on_checked_cases) {
  int64_t s0[] = {3, 5, 2, 7, 3}, shape[] = {20}, n[] = {5};
  const int64_t *sizes[] = {s0};
  tsr_grid g, out;
  ck_assert_int_eq(tsr_grid_init_lists(&g, 1, shape, sizes, n), TSR_OK);
  struct {
    int64_t start, stop, step;
    const char *expect;
  } cases[] = {
      {0, 20, 3, "((1, 2, 1, 2, 1),)"},
      {19, -21, -3, "((1, 3, 2, 1),)"},
      {15, 1, -4, "((2, 2),)"},
      {-100, 100, 7, "((1, 1, 1),)"},
      {5, 2, 1, "((0,),)"},
      {19, -21, -1, "((3, 7, 2, 5, 3),)"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    tsr_axis_sel sel = {.kind = TSR_SEL_SLICE};
    ck_assert_int_eq(tsr_slice_normalize(20, &cases[i].start, &cases[i].stop, &cases[i].step,
                                         &sel.first, &sel.step, &sel.count),
                     TSR_OK);
    ck_assert_int_eq(tsr_grid_select(&g, &sel, 1, &out), TSR_OK);
    ck_assert_str_eq(fmt(&out), cases[i].expect);
    tsr_grid_free(&out);
  }
  tsr_axis_sel sel[] = {{.kind = TSR_SEL_NEWAXIS},
                        {.kind = TSR_SEL_SLICE, .first = 3, .step = 1, .count = 17}};
  ck_assert_int_eq(tsr_grid_select(&g, sel, 2, &out), TSR_OK);
  ck_assert_str_eq(fmt(&out), "((1,), (5, 2, 7, 3))");
  tsr_grid_free(&out);
  tsr_grid_free(&g);
}
END_TEST

/* A random selection on an axis of length len: a slice (any of its parts
 * possibly omitted), an integer index (when len > 0), or a new axis. Fills
 * idx/nidx with the slice's indices by brute force. */
static void random_sel(int64_t len, tsr_axis_sel *sel, int64_t *idx, int64_t *nidx) {
  int64_t r = rnd(6);
  if (r == 0 && len > 0) {
    *sel = (tsr_axis_sel){.kind = TSR_SEL_INDEX, .index = rnd(len)};
    return;
  }
  if (r == 1) {
    *sel = (tsr_axis_sel){.kind = TSR_SEL_NEWAXIS};
    return;
  }
  int64_t start = rnd(2 * len + 8) - len - 4, stop = rnd(2 * len + 8) - len - 4;
  int64_t step = (1 + rnd(7)) * (rnd(2) ? 1 : -1);
  const int64_t *p0 = rnd(4) ? &start : NULL, *p1 = rnd(4) ? &stop : NULL,
                *p2 = rnd(4) ? &step : NULL;
  *sel = (tsr_axis_sel){.kind = TSR_SEL_SLICE};
  ck_assert_int_eq(tsr_slice_normalize(len, p0, p1, p2, &sel->first, &sel->step, &sel->count),
                   TSR_OK);
  *nidx = py_slice(len, p0, p1, p2, idx);
}

static void check_random_select(void) {
  tsr_grid g, out;
  random_grid(&g, 1 + (int)rnd(3), 30);
  tsr_axis_sel sel[TSR_MAXDIM];
  int64_t idx[TSR_MAXDIM][MAXLEN], nidx[TSR_MAXDIM];
  int nsel = 0, ia = 0, out_ndim = 0;
  for (int want = (int)rnd(g.ndim + 1); ia < want && nsel < TSR_MAXDIM; nsel++) {
    random_sel(g.shape[ia], &sel[nsel], idx[nsel], &nidx[nsel]);
    ia += sel[nsel].kind != TSR_SEL_NEWAXIS;
    out_ndim += sel[nsel].kind != TSR_SEL_INDEX;
  }
  if (out_ndim + g.ndim - ia > TSR_MAXDIM) {
    tsr_grid_free(&g);
    return;
  }
  ck_assert_int_eq(tsr_grid_select(&g, sel, nsel, &out), TSR_OK);
  expect_consistent(&out);
  ck_assert_int_eq(out.ndim, out_ndim + g.ndim - ia);
  int oa = 0;
  ia = 0;
  for (int i = 0; i < nsel; i++) {
    int64_t expect[MAXLEN], m;
    if (sel[i].kind == TSR_SEL_NEWAXIS) {
      expect[0] = 1;
      expect_axis(&out, oa++, expect, 1);
    } else if (sel[i].kind == TSR_SEL_SLICE) {
      m = brute_select_sizes(&g, ia, idx[i], nidx[i], expect);
      ck_assert_int_eq(out.shape[oa], nidx[i]);
      expect_axis(&out, oa++, expect, m);
    }
    ia += sel[i].kind != TSR_SEL_NEWAXIS;
  }
  for (; ia < g.ndim; ia++, oa++) expect_axis(&out, oa, g.sizes[ia], g.nchunks[ia]);
  tsr_grid_free(&out);
  tsr_grid_free(&g);
}

START_TEST(select_matches_brute_force_on_random_grids) {
  for (int t = 0; t < 20000; t++) check_random_select();
}
END_TEST

START_TEST(select_reports_bad_indices) {
  tsr_grid g, out;
  int64_t shape[] = {4, 5, 1, 1}, chunk[] = {2, 2, 1, 1};
  ck_assert_int_eq(tsr_grid_init_regular(&g, 2, shape, chunk), TSR_OK);
  tsr_axis_sel idx[] = {{.kind = TSR_SEL_INDEX, .index = 1},
                        {.kind = TSR_SEL_INDEX, .index = 5},
                        {.kind = TSR_SEL_INDEX, .index = 0}};
  expect_error(tsr_grid_select(&g, idx, 2, &out), TSR_ERR_INDEX,
               "index 5 is out of bounds for axis 1 with size 5");
  expect_error(tsr_grid_select(&g, idx, 3, &out), TSR_ERR_INDEX,
               "too many indices for array: array is 2-dimensional, but 3 were indexed");
  tsr_axis_sel bad = {.kind = TSR_SEL_SLICE, .first = 2, .step = 1, .count = 3};
  ck_assert_int_eq(tsr_grid_select(&g, &bad, 1, &out), TSR_ERR_INTERNAL);
  tsr_error_clear();
  tsr_grid_free(&g);
  ck_assert_int_eq(tsr_grid_init_regular(&g, 4, shape, chunk), TSR_OK);
  tsr_axis_sel nw = {.kind = TSR_SEL_NEWAXIS};
  expect_error(tsr_grid_select(&g, &nw, 1, &out), TSR_ERR_VALUE,
               "indexing would give 5 dimensions, but at most 4 are supported");
  tsr_grid_free(&out);
  tsr_grid_free(&g);
}
END_TEST

/* ---- broadcasting ---- */

static tsr_grid grid2(int ndim, int64_t s0, int64_t c0, int64_t s1, int64_t c1) {
  tsr_grid g;
  int64_t shape[] = {s0, s1}, chunk[] = {c0, c1};
  ck_assert_int_eq(tsr_grid_init_regular(&g, ndim, shape, chunk), TSR_OK);
  return g;
}

static void expect_broadcast(tsr_grid a, tsr_grid b, const char *expect) {
  tsr_grid out;
  ck_assert_int_eq(tsr_grid_broadcast(&a, &b, &out), TSR_OK);
  ck_assert_str_eq(fmt(&out), expect);
  expect_consistent(&out);
  tsr_grid_free(&out);
  ck_assert_int_eq(tsr_grid_broadcast(&b, &a, &out), TSR_OK); /* symmetric */
  ck_assert_str_eq(fmt(&out), expect);
  tsr_grid_free(&out);
  tsr_grid_free(&a);
  tsr_grid_free(&b);
}

START_TEST(broadcast_row_against_column) {
  expect_broadcast(grid2(2, 1, 1, 6, 2), grid2(2, 4, 3, 1, 1), "((3, 1), (2, 2, 2))");
}
END_TEST

START_TEST(broadcast_missing_axes_and_scalars) {
  expect_broadcast(grid2(1, 6, 4, 0, 0), grid2(2, 3, 2, 6, 5), "((2, 1), (4, 1, 1))");
  expect_broadcast(grid2(0, 0, 0, 0, 0), grid2(2, 3, 2, 6, 5), "((2, 1), (5, 1))");
  expect_broadcast(grid2(1, 1, 1, 0, 0), grid2(2, 1, 1, 6, 5), "((1,), (5, 1))");
  expect_broadcast(grid2(2, 1, 1, 0, 1), grid2(2, 7, 3, 1, 1), "((3, 3, 1), (0,))");
}
END_TEST

START_TEST(broadcast_unequal_chunkings_take_union_of_boundaries) {
  expect_broadcast(grid2(1, 6, 2, 0, 0), grid2(1, 6, 3, 0, 0), "((2, 1, 1, 2),)");
  for (int t = 0; t < 500; t++) {
    tsr_grid a, b, out;
    random_grid(&a, 1, MAXLEN);
    int64_t sizes[MAXLEN + 1], n = random_sizes(a.shape[0], 1 + rnd(9), sizes);
    const int64_t *sp = sizes;
    ck_assert_int_eq(tsr_grid_init_lists(&b, 1, a.shape, &sp, &n), TSR_OK);
    ck_assert_int_eq(tsr_grid_broadcast(&a, &b, &out), TSR_OK);
    expect_consistent(&out);
    int cut[MAXLEN + 1] = {0}; /* cut[i]: a chunk boundary lies before element i */
    for (int64_t c = 0; c < a.nchunks[0]; c++) cut[a.starts[0][c]] = 1;
    for (int64_t c = 0; c < b.nchunks[0]; c++) cut[b.starts[0][c]] = 1;
    int64_t expect[MAXLEN + 1], m = 0;
    for (int64_t i = 0; i < a.shape[0]; i++) {
      if (cut[i]) expect[m++] = 0;
      expect[m - 1]++;
    }
    if (m == 0) expect[m++] = 0;
    expect_axis(&out, 0, expect, m);
    tsr_grid_free(&a);
    tsr_grid_free(&b);
    tsr_grid_free(&out);
  }
}
END_TEST

START_TEST(broadcast_mismatch_names_both_shapes) {
  tsr_grid a = grid2(2, 2, 1, 3, 1), b = grid2(1, 4, 2, 0, 0), out;
  expect_error(tsr_grid_broadcast(&a, &b, &out), TSR_ERR_SHAPE,
               "operands could not be broadcast together with shapes (2, 3) (4,)");
  tsr_grid_free(&out);
  tsr_grid_free(&a);
  tsr_grid_free(&b);
}
END_TEST

/* ---- reduction ---- */

START_TEST(reduce_drops_or_keeps_axis) {
  tsr_grid g = grid2(2, 4, 2, 3, 2), out;
  ck_assert_int_eq(tsr_grid_reduce(&g, 0, 0, &out), TSR_OK);
  ck_assert_str_eq(fmt(&out), "((2, 1),)");
  ck_assert_int_eq(out.shape[0], 3);
  tsr_grid_free(&out);
  ck_assert_int_eq(tsr_grid_reduce(&g, 1, 1, &out), TSR_OK);
  ck_assert_str_eq(fmt(&out), "((2, 2), (1,))");
  ck_assert_int_eq(out.shape[1], 1);
  expect_consistent(&out);
  tsr_grid_free(&out);
  ck_assert_int_eq(tsr_grid_reduce(&g, -1, 0, &out), TSR_OK);
  ck_assert_str_eq(fmt(&out), "((2, 2),)");
  tsr_grid_free(&out);
  expect_error(tsr_grid_reduce(&g, 2, 0, &out), TSR_ERR_INDEX,
               "axis 2 is out of bounds for array of dimension 2");
  tsr_grid_free(&g);
}
END_TEST

START_TEST(reduce_of_empty_axis_keeps_length_one) {
  tsr_grid g = grid2(2, 4, 2, 0, 2), out;
  ck_assert_int_eq(tsr_grid_reduce(&g, 1, 1, &out), TSR_OK);
  ck_assert_str_eq(fmt(&out), "((2, 2), (1,))");
  tsr_grid_free(&out);
  tsr_grid_free(&g);
  g = grid2(1, 5, 5, 0, 0);
  ck_assert_int_eq(tsr_grid_reduce(&g, 0, 0, &out), TSR_OK);
  ck_assert_str_eq(fmt(&out), "()");
  ck_assert_int_eq(tsr_grid_count(&out), 1);
  tsr_grid_free(&out);
  tsr_grid_free(&g);
}
END_TEST

/* ---- formatting ---- */

START_TEST(shape_format_uses_python_tuple_syntax) {
  char buf[64];
  int64_t shape[] = {3, 4};
  tsr_shape_format(0, shape, buf, sizeof buf);
  ck_assert_str_eq(buf, "()");
  tsr_shape_format(1, shape, buf, sizeof buf);
  ck_assert_str_eq(buf, "(3,)");
  tsr_shape_format(2, shape, buf, sizeof buf);
  ck_assert_str_eq(buf, "(3, 4)");
}
END_TEST

START_TEST(format_marks_truncated_text) {
  char buf[8];
  int64_t shape[] = {12345, 67890};
  tsr_shape_format(2, shape, buf, sizeof buf);
  ck_assert_str_eq(buf, "(123...");
  tsr_grid g = grid2(2, 100, 1, 3, 1);
  char big[64];
  tsr_grid_format(&g, big, sizeof big);
  ck_assert_int_eq(strlen(big), sizeof big - 1);
  ck_assert_str_eq(big + sizeof big - 4, "...");
  tsr_grid_format(&g, buf, 1);
  ck_assert_str_eq(buf, "");
  tsr_grid_free(&g);
}
END_TEST

static Suite *chunks_suite(void) {
  Suite *s = suite_create("chunks");
  TCase *tc = tcase_create("grids");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, regular_grid_has_smaller_last_chunk);
  tcase_add_test(tc, regular_chunk_larger_than_axis_gives_one_chunk);
  tcase_add_test(tc, regular_zero_length_axis_has_one_empty_chunk);
  tcase_add_test(tc, regular_grid_matches_brute_force_for_all_small_sizes);
  tcase_add_test(tc, regular_zero_chunk_is_rejected_with_axis);
  tcase_add_test(tc, negative_shape_and_too_many_dims_are_rejected);
  tcase_add_test(tc, zero_dimensional_grid_has_one_chunk);
  tcase_add_test(tc, lists_build_irregular_grid);
  tcase_add_test(tc, lists_with_wrong_sum_are_shape_errors);
  tcase_add_test(tc, lists_with_nonpositive_sizes_are_value_errors);
  tcase_add_test(tc, lists_on_empty_axis_give_one_empty_chunk);
  tcase_add_test(tc, copy_is_equal_and_independent);
  tcase_add_test(tc, auto_chunks_match_dask_on_checked_cases);
  tcase_add_test(tc, auto_chunks_fit_target_and_cover_shape);
  tcase_add_test(tc, auto_chunks_use_most_of_the_target);
  tcase_add_test(tc, auto_chunks_reject_zero_itemsize_and_target);
  tcase_add_test(tc, auto_prev_matches_dask_tests);
  tcase_add_test(tc, auto_prev_keeps_whole_planes_of_a_stack);
  tcase_add_test(tc, auto_prev_counts_a_whole_axis_once);
  tcase_add_test(tc, auto_prev_covers_shape_and_keeps_fixed_axes);
  tcase_add_test(tc, auto_prev_handles_empty_and_zero_dimensional_grids);
  tcase_add_test(tc, ravel_and_unravel_round_trip_in_row_major_order);
  tcase_add_test(tc, count_is_product_of_chunks_per_axis);
  tcase_add_test(tc, chunk_boxes_tile_the_array_and_max_is_largest_box);
  tcase_add_test(tc, find_agrees_with_linear_scan);
  tcase_add_test(tc, slice_normalize_matches_python_for_all_small_slices);
  tcase_add_test(tc, slice_normalize_handles_extreme_values);
  tcase_add_test(tc, select_matches_dask_on_checked_cases);
  tcase_add_test(tc, select_matches_brute_force_on_random_grids);
  tcase_add_test(tc, select_reports_bad_indices);
  tcase_add_test(tc, broadcast_row_against_column);
  tcase_add_test(tc, broadcast_missing_axes_and_scalars);
  tcase_add_test(tc, broadcast_unequal_chunkings_take_union_of_boundaries);
  tcase_add_test(tc, broadcast_mismatch_names_both_shapes);
  tcase_add_test(tc, reduce_drops_or_keeps_axis);
  tcase_add_test(tc, reduce_of_empty_axis_keeps_length_one);
  tcase_add_test(tc, shape_format_uses_python_tuple_syntax);
  tcase_add_test(tc, format_marks_truncated_text);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  SRunner *sr = srunner_create(chunks_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
