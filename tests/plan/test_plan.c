/*
 * test_plan.c - the pure planning geometry of plan/plan.h, tested the way
 * dask tests rechunk's intersect_chunks / old_to_new: irregular chunk
 * grids, strided and reversed reads, zero-length boxes. Every expectation
 * is computed here independently, by brute force element by element
 * (scanning the grid's chunk starts, enumerating a box's points), never
 * copied from the code under test.
 */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/chunks.h"
#include "plan/plan.h"
#include "util/error.h"

/* ---- helpers: a deterministic generator and brute-force grid lookups ---- */

static uint64_t rng_state = 88172645463325252ULL;

static int64_t rnd(int64_t lo, int64_t hi) { /* uniform in [lo, hi] */
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return lo + (int64_t)(rng_state % (uint64_t)(hi - lo + 1));
}

/* An irregular grid: chunks of 1..maxc elements per axis, nd axes. */
static tsr_grid random_grid(int nd, int maxchunks, int64_t maxc) {
  int64_t shape[TSR_MAXDIM], *sizes[TSR_MAXDIM], nsizes[TSR_MAXDIM];
  for (int a = 0; a < nd; a++) {
    nsizes[a] = rnd(1, maxchunks);
    sizes[a] = malloc(sizeof(int64_t) * (size_t)nsizes[a]);
    shape[a] = 0;
    for (int64_t c = 0; c < nsizes[a]; c++) shape[a] += sizes[a][c] = rnd(1, maxc);
  }
  tsr_grid g;
  ck_assert_int_eq(tsr_grid_init_lists(&g, nd, shape, (const int64_t *const *)sizes, nsizes),
                   TSR_OK);
  for (int a = 0; a < nd; a++) free(sizes[a]);
  return g;
}

/* The chunk along axis a holding coordinate x, by scanning (-1: none). */
static int64_t chunk_of(const tsr_grid *g, int a, int64_t x) {
  for (int64_t c = 0; c < g->nchunks[a]; c++)
    if (g->starts[a][c] <= x && x < g->starts[a][c + 1]) return c;
  return -1;
}

/* Row-major linear index of chunk coordinates, by hand. */
static int64_t chunk_linear(const tsr_grid *g, const int64_t *idx) {
  int64_t lin = 0;
  for (int a = 0; a < g->ndim; a++) lin = lin * g->nchunks[a] + idx[a];
  return lin;
}

static int64_t total_chunks(const tsr_grid *g) {
  int64_t n = 1;
  for (int a = 0; a < g->ndim; a++) n *= g->nchunks[a];
  return n;
}

/* ---- arithmetic ---- */

START_TEST(ceil_and_floor_division_match_brute_force) {
  for (int64_t b = 1; b <= 7; b++)
    for (int64_t a = -60; a <= 60; a++) {
      int64_t fl = -100, ce = 100;
      for (int64_t q = -100; q <= 100; q++) {
        if (q * b <= a) fl = q;           /* the largest q with q*b <= a */
        if (q * b >= a && q < ce) ce = q; /* the smallest q with q*b >= a */
      }
      ck_assert_int_eq(tsr_floor_div(a, b), fl);
      ck_assert_int_eq(tsr_ceil_div(a, b), ce);
    }
}
END_TEST

START_TEST(elems_of_is_the_product_and_zero_for_empty_boxes) {
  int64_t c[3] = {4, 5, 6}, z[3] = {4, 0, 6};
  ck_assert_int_eq(tsr_elems_of(0, c), 1);
  ck_assert_int_eq(tsr_elems_of(1, c), 4);
  ck_assert_int_eq(tsr_elems_of(3, c), 120);
  ck_assert_int_eq(tsr_elems_of(3, z), 0);
}
END_TEST

/* ---- owners ---- */

START_TEST(owners_are_stable_and_partition_the_chunks) {
  for (int size = 1; size <= 5; size++)
    for (int64_t total = 0; total <= 23; total++) {
      int64_t *seen = calloc((size_t)total + 1, sizeof(int64_t));
      for (int q = 0; q < size; q++) {
        int64_t *ids = NULL, n = 0, expect = 0;
        ck_assert_int_eq(tsr_owned_chunks(q, size, total, &ids, &n), TSR_OK);
        for (int64_t c = 0; c < total; c++) {
          int o = tsr_chunk_owner(c, size);
          ck_assert(o >= 0 && o < size);
          ck_assert_int_eq(o, tsr_chunk_owner(c, size)); /* stable */
          expect += o == q;
        }
        ck_assert_int_eq(n, expect);
        ck_assert_int_eq(tsr_owned_count(total, q, size), expect);
        for (int64_t i = 0; i < n; i++) {
          ck_assert_int_eq(tsr_chunk_owner(ids[i], size), q);
          if (i > 0) ck_assert_int_lt(ids[i - 1], ids[i]);
          seen[ids[i]]++;
        }
        free(ids);
      }
      for (int64_t c = 0; c < total; c++) ck_assert_int_eq(seen[c], 1);
      free(seen);
    }
}
END_TEST

/* ---- leaf regions ---- */

/* A leaf of nd base axes reading base[d] = off[d] + step[d] * out[axis_of[d]]. */
static tsr_leaf make_leaf(int nd, const int *axis_of, const int64_t *off, const int64_t *step) {
  tsr_leaf l;
  memset(&l, 0, sizeof l);
  l.base_ndim = nd;
  for (int d = 0; d < nd; d++) {
    l.axis_of[d] = axis_of[d];
    l.off[d] = off[d];
    l.step[d] = step[d];
  }
  return l;
}

/* Checks r against the coordinates the leaf reads over box b (out: ond
 * axes), found by enumerating every point of the box. */
static void check_region(const tsr_leaf *l, const tsr_sbox *b, int ond, const tsr_region *r) {
  int64_t npts = 1;
  for (int k = 0; k < ond; k++) npts *= b->count[k];
  for (int d = 0; d < l->base_ndim; d++) {
    int64_t lo = INT64_MAX, hi = INT64_MIN, distinct = 0;
    char used[4096] = {0};
    for (int64_t p = 0; p < npts; p++) {
      int64_t rem = p, out[TSR_MAXDIM];
      for (int k = ond - 1; k >= 0; k--) {
        out[k] = b->first[k] + b->step[k] * (rem % b->count[k]);
        rem /= b->count[k];
      }
      int64_t x = l->off[d] + (l->axis_of[d] >= 0 ? l->step[d] * out[l->axis_of[d]] : 0);
      ck_assert(x >= 0 && x < 4096);
      if (!used[x]) distinct++;
      used[x] = 1;
      lo = x < lo ? x : lo;
      hi = x > hi ? x : hi;
    }
    if (npts == 0) continue; /* below: nothing at all is read */
    ck_assert_int_eq(r->count[d], distinct);
    ck_assert_int_eq(r->lo[d], lo);
    ck_assert_int_gt(r->stride[d], 0);
    for (int64_t j = 0; j < r->count[d]; j++) ck_assert(used[r->lo[d] + r->stride[d] * j]);
    ck_assert_int_eq(r->lo[d] + r->stride[d] * (r->count[d] - 1), hi);
  }
  /* every output axis of these tests is read by some base axis */
  if (npts == 0) ck_assert_int_eq(tsr_elems_of(l->base_ndim, r->count), 0);
}

START_TEST(leaf_regions_cover_exactly_what_the_box_reads) {
  /* base axis 0 reversed from out axis 1, base axis 1 strided from out
   * axis 0, base axis 2 broadcast (not moving) */
  int axis_of[3] = {1, 0, -1};
  int64_t off[3] = {200, 7, 13}, step[3] = {-3, 2, 1};
  tsr_leaf l = make_leaf(3, axis_of, off, step);
  for (int iter = 0; iter < 300; iter++) {
    tsr_sbox b;
    for (int k = 0; k < 2; k++) {
      b.step[k] = rnd(-3, 3);
      if (b.step[k] == 0) b.step[k] = 1;
      b.count[k] = rnd(0, 9);
      b.first[k] = b.step[k] > 0 ? rnd(0, 10) : rnd(30, 40);
    }
    tsr_region r;
    tsr_leaf_region(&l, &b, &r);
    check_region(&l, &b, 2, &r);
  }
}
END_TEST

START_TEST(a_zero_length_box_reads_nothing) {
  int axis_of[2] = {0, 1};
  int64_t off[2] = {5, 50}, step[2] = {1, -1};
  tsr_leaf l = make_leaf(2, axis_of, off, step);
  tsr_sbox b = {{0, 3}, {1, 1}, {4, 0}};
  tsr_region r;
  tsr_leaf_region(&l, &b, &r);
  ck_assert_int_eq(tsr_elems_of(2, r.count), 0);
}
END_TEST

/* ---- rechunk pieces ---- */

/* Checks the pieces of region g (task t, rank dst) over source grid G:
 * every element of the region in exactly one piece, each piece's box the
 * region's coordinates at its offset, inside one source chunk, whose owner
 * is its src; then places pieces holding the source's linear indices and
 * compares the assembled region element by element. */
static void check_pieces(const tsr_piece_list *pl, const tsr_region *g, const tsr_grid *G, int size,
                         int64_t t, int dst) {
  int nd = G->ndim;
  int64_t n = tsr_elems_of(nd, g->count), covered = 0;
  if (n == 0) {
    ck_assert_int_eq(pl->n, 0);
    return;
  }
  double *region = malloc(sizeof(double) * (size_t)n);
  for (int64_t e = 0; e < n; e++) region[e] = -1;
  for (int64_t k = 0; k < pl->n; k++) {
    const tsr_piece *p = &pl->p[k];
    int64_t cidx[TSR_MAXDIM], pn = tsr_elems_of(nd, p->box.count);
    ck_assert_int_eq(p->task, t);
    ck_assert_int_eq(p->dst, dst);
    ck_assert_int_gt(pn, 0);
    for (int d = 0; d < nd; d++) {
      ck_assert_int_eq(p->box.step[d], g->stride[d]);
      ck_assert_int_eq(p->box.first[d], g->lo[d] + g->stride[d] * p->j0[d]);
      ck_assert(p->j0[d] >= 0 && p->j0[d] + p->box.count[d] <= g->count[d]);
      int64_t last = p->box.first[d] + p->box.step[d] * (p->box.count[d] - 1);
      cidx[d] = chunk_of(G, d, p->box.first[d]);
      ck_assert_int_ge(cidx[d], 0);
      ck_assert_int_eq(chunk_of(G, d, last), cidx[d]); /* inside its source chunk */
    }
    ck_assert_int_eq(p->src, (int)(chunk_linear(G, cidx) % size));
    /* The piece's values: each element's linear index in the source array. */
    double *vals = malloc(sizeof(double) * (size_t)pn);
    for (int64_t e = 0; e < pn; e++) {
      int64_t rem = e, lin = 0, co[TSR_MAXDIM];
      for (int d = nd - 1; d >= 0; d--) {
        co[d] = p->box.first[d] + p->box.step[d] * (rem % p->box.count[d]);
        rem /= p->box.count[d];
      }
      for (int d = 0; d < nd; d++) lin = lin * G->shape[d] + co[d];
      vals[e] = (double)lin;
    }
    tsr_place_piece(nd, g->count, region, p->j0, p->box.count, vals);
    free(vals);
    covered += pn;
  }
  ck_assert_int_eq(covered, n); /* with the check below: each element exactly once */
  for (int64_t e = 0; e < n; e++) {
    int64_t rem = e, lin = 0, co[TSR_MAXDIM], j[TSR_MAXDIM], hits = 0;
    for (int d = nd - 1; d >= 0; d--) {
      j[d] = rem % g->count[d];
      co[d] = g->lo[d] + g->stride[d] * j[d];
      rem /= g->count[d];
    }
    for (int64_t k = 0; k < pl->n; k++) {
      int in = 1;
      for (int d = 0; d < nd; d++)
        in &= pl->p[k].j0[d] <= j[d] && j[d] < pl->p[k].j0[d] + pl->p[k].box.count[d];
      hits += in;
    }
    ck_assert_int_eq(hits, 1);
    for (int d = 0; d < nd; d++) lin = lin * G->shape[d] + co[d];
    ck_assert_int_eq((int64_t)region[e], lin);
  }
  free(region);
}

START_TEST(dask_old_to_new_example_cuts_at_the_old_boundary) {
  /* old chunks (5, 5); the new chunk [3, 10) takes [3, 5) of old chunk 0
   * and all of old chunk 1 */
  int64_t shape[1] = {10}, s0[2] = {5, 5}, ns[1] = {2};
  const int64_t *sizes[1] = {s0};
  tsr_grid G;
  ck_assert_int_eq(tsr_grid_init_lists(&G, 1, shape, sizes, ns), TSR_OK);
  tsr_region g = {{3}, {1}, {7}};
  tsr_piece_list pl = {0};
  ck_assert_int_eq(tsr_plan_region(&pl, 0, 0, &g, &G, 2), TSR_OK);
  ck_assert_int_eq(pl.n, 2);
  ck_assert_int_eq(pl.p[0].box.first[0], 3);
  ck_assert_int_eq(pl.p[0].box.count[0], 2);
  ck_assert_int_eq(pl.p[0].src, 0);
  ck_assert_int_eq(pl.p[1].box.first[0], 5);
  ck_assert_int_eq(pl.p[1].box.count[0], 5);
  ck_assert_int_eq(pl.p[1].j0[0], 2);
  ck_assert_int_eq(pl.p[1].src, 1);
  free(pl.p);
  tsr_grid_free(&G);
}
END_TEST

START_TEST(pieces_cover_random_regions_of_irregular_grids_exactly_once) {
  for (int iter = 0; iter < 400; iter++) {
    int nd = (int)rnd(1, 3), size = (int)rnd(1, 5), dst = (int)rnd(0, size - 1);
    tsr_grid G = random_grid(nd, 6, 5);
    tsr_region g;
    memset(&g, 0, sizeof g);
    for (int d = 0; d < nd; d++) {
      g.stride[d] = rnd(1, 4);
      g.lo[d] = rnd(0, G.shape[d] - 1);
      int64_t most = (G.shape[d] - 1 - g.lo[d]) / g.stride[d] + 1;
      g.count[d] = rnd(iter % 10 == 0 ? 0 : 1, most); /* some empty regions */
    }
    tsr_piece_list pl = {0};
    int64_t t = rnd(0, 9);
    ck_assert_int_eq(tsr_plan_region(&pl, t, dst, &g, &G, size), TSR_OK);
    check_pieces(&pl, &g, &G, size, t, dst);
    free(pl.p);
    tsr_grid_free(&G);
  }
}
END_TEST

START_TEST(a_reversed_read_is_cut_into_pieces_of_its_region) {
  /* x[::-2] of a source chunked (3, 1, 4, 2): the leaf reads every other
   * element in increasing order; its region's pieces must cover it */
  int64_t shape[1] = {10}, s0[4] = {3, 1, 4, 2}, ns[1] = {4};
  const int64_t *sizes[1] = {s0};
  tsr_grid G;
  ck_assert_int_eq(tsr_grid_init_lists(&G, 1, shape, sizes, ns), TSR_OK);
  int axis_of[1] = {0};
  int64_t off[1] = {9}, step[1] = {-2};
  tsr_leaf l = make_leaf(1, axis_of, off, step);
  tsr_sbox b = {{0}, {1}, {5}};
  tsr_region g;
  tsr_leaf_region(&l, &b, &g);
  check_region(&l, &b, 1, &g);
  tsr_piece_list pl = {0};
  ck_assert_int_eq(tsr_plan_region(&pl, 0, 0, &g, &G, 3), TSR_OK);
  check_pieces(&pl, &g, &G, 3, 0, 0);
  free(pl.p);
  tsr_grid_free(&G);
}
END_TEST

START_TEST(a_zero_length_axis_has_no_pieces) {
  int64_t shape[2] = {0, 5}, chunk[2] = {3, 2};
  tsr_grid G;
  ck_assert_int_eq(tsr_grid_init_regular(&G, 2, shape, chunk), TSR_OK);
  tsr_region g = {{0, 0}, {1, 1}, {0, 5}};
  tsr_piece_list pl = {0};
  ck_assert_int_eq(tsr_plan_region(&pl, 0, 0, &g, &G, 2), TSR_OK);
  ck_assert_int_eq(pl.n, 0);
  free(pl.p);
  tsr_grid_free(&G);
}
END_TEST

/* ---- waves ---- */

START_TEST(waves_visit_every_chunk_once_at_its_owner) {
  for (int iter = 0; iter < 60; iter++) {
    int nd = (int)rnd(1, 3), size = (int)rnd(1, 4), W = (int)rnd(1, 3);
    tsr_grid g = random_grid(nd, 4, 4);
    int64_t total = total_chunks(&g), nw = tsr_wave_count(total, size, W);
    int64_t *seen = calloc((size_t)total + 1, sizeof(int64_t));
    tsr_wave_plan v;
    v.tasks = malloc(sizeof(tsr_task) * (size_t)(size * W));
    v.slots = malloc(sizeof(int64_t) * (size_t)W);
    v.ids = malloc(sizeof(int64_t) * (size_t)W);
    for (int rank = 0; rank < size; rank++) {
      int64_t mine = 0;
      for (int64_t w = 0; w < nw; w++) {
        tsr_plan_wave(&g, rank, size, W, w, &v);
        for (int64_t k = 0; k < v.nt; k++) {
          const tsr_task *t = &v.tasks[k];
          int64_t idx[TSR_MAXDIM];
          for (int a = 0; a < nd; a++) {
            idx[a] = chunk_of(&g, a, t->box.first[a]);
            ck_assert_int_eq(t->box.first[a], g.starts[a][idx[a]]); /* a whole chunk */
            ck_assert_int_eq(t->box.count[a], g.starts[a][idx[a] + 1] - g.starts[a][idx[a]]);
            ck_assert_int_eq(t->box.step[a], 1);
          }
          int64_t lin = chunk_linear(&g, idx);
          ck_assert_int_eq(t->rank, (int)(lin % size));
          if (rank == 0) seen[lin]++; /* every rank sees the same plan */
        }
        for (int64_t k = 0; k < v.nmine; k++) {
          ck_assert_int_eq(v.ids[k] % size, rank);
          ck_assert_int_eq(v.slots[k], mine++); /* its position among the rank's chunks */
        }
      }
      ck_assert_int_eq(mine,
                       (total - rank + size - 1) / size > 0 ? (total - rank + size - 1) / size : 0);
    }
    for (int64_t c = 0; c < total; c++) ck_assert_int_eq(seen[c], 1);
    free(v.tasks);
    free(v.slots);
    free(v.ids);
    free(seen);
    tsr_grid_free(&g);
  }
}
END_TEST

START_TEST(wave_width_follows_threads_and_memory) {
  ck_assert_int_eq(tsr_wave_width(8, 0, 1000, 1), 8);       /* no budget: the threads */
  ck_assert_int_eq(tsr_wave_width(0, 0, 1000, 1), 1);       /* at least one */
  ck_assert_int_eq(tsr_wave_width(9000, 0, 1000, 0), 4096); /* at most 4096 */
  /* per chunk: 8 bytes x 1000 elements x (2 + 4 x 2 staged leaves) = 80 kB */
  ck_assert_int_eq(tsr_wave_width(8, 3 * 80000, 1000, 2), 3);
  ck_assert_int_eq(tsr_wave_width(8, 1000, 1000, 2), 1);
}
END_TEST

static Suite *plan_suite(void) {
  Suite *s = suite_create("plan");
  TCase *tc = tcase_create("geometry");
  tcase_add_test(tc, ceil_and_floor_division_match_brute_force);
  tcase_add_test(tc, elems_of_is_the_product_and_zero_for_empty_boxes);
  tcase_add_test(tc, owners_are_stable_and_partition_the_chunks);
  tcase_add_test(tc, leaf_regions_cover_exactly_what_the_box_reads);
  tcase_add_test(tc, a_zero_length_box_reads_nothing);
  tcase_add_test(tc, dask_old_to_new_example_cuts_at_the_old_boundary);
  tcase_add_test(tc, pieces_cover_random_regions_of_irregular_grids_exactly_once);
  tcase_add_test(tc, a_reversed_read_is_cut_into_pieces_of_its_region);
  tcase_add_test(tc, a_zero_length_axis_has_no_pieces);
  tcase_add_test(tc, waves_visit_every_chunk_once_at_its_owner);
  tcase_add_test(tc, wave_width_follows_threads_and_memory);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  SRunner *sr = srunner_create(plan_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
