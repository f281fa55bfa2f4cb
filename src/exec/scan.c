/*
 * scan.c - scans computed whole and kept distributed (scan.h). A chunk is
 * seen as (outer x len x inner) around the scanned axis: the lines along
 * the axis are scanned by the backend, and the carry of a chunk is one
 * cross-section (outer x inner), the combination of the last lines of the
 * chunks before it along the axis, taken in chunk order on the owner.
 */
#include "exec/scan.h"

#include <stdlib.h>
#include <string.h>

#include "exec/stage.h"
#include "kernel/ew_scalar.h"
#include "mpi/agree.h"
#include "mpi/comm.h"
#include "plan/plan.h"
#include "util/error.h"
#include "util/workers.h"

/* Chunk c of n as (outer, len, inner) around the scanned axis; returns its
 * elements. A flattened scan (axis -1) has a 1-d grid. */
static int64_t chunk_lines(const tsr_node *n, int64_t c, int64_t *outer, int64_t *len,
                           int64_t *inner, int64_t *idx) {
  int64_t start[TSR_MAXDIM], extent[TSR_MAXDIM];
  const tsr_grid *g = &n->grid;
  int64_t cnt = tsr_grid_chunk_at(g, c, start, extent);
  tsr_grid_unravel(g, c, idx);
  tsr_stage_scan_lines(n->axis, g->ndim, extent, outer, len, inner);
  return cnt;
}

/* This rank's chunks' last lines (the chunks were scanned as they were
 * staged) packed as records (chunk id, outer x inner values) into *send. */
static int scan_local(tsr_exec *ex, tsr_node *n, double **chunks, char **send, size_t *bytes) {
  const tsr_grid *g = &n->grid;
  int64_t total = tsr_grid_count(g), idx[TSR_MAXDIM];
  size_t cap = 0;
  for (int64_t c = ex->rank; c < total; c += ex->size) {
    int64_t o, l, i;
    chunk_lines(n, c, &o, &l, &i, idx);
    cap += sizeof(int64_t) + sizeof(double) * (size_t)(o * i);
  }
  *bytes = 0;
  *send = malloc(cap + 1);
  if (!*send) return TSR_ERROR(TSR_ERR_MEMORY, "out of memory for a scan's totals");
  for (int64_t c = ex->rank; c < total; c += ex->size) {
    int64_t o, l, i;
    chunk_lines(n, c, &o, &l, &i, idx);
    double *last;
    TSR_CHECK(tsr_be_alloc(ex->be, (size_t)(o * i), &last));
    int st = tsr_be_copy2d(ex->be, o, i, chunks[c] + (l - 1) * i, l * i, last, i);
    memcpy(*send + *bytes, &c, sizeof c);
    if (st == TSR_OK)
      st = tsr_be_download(ex->be, last, (double *)(*send + *bytes + sizeof c), (size_t)(o * i));
    tsr_be_release(ex->be, last);
    TSR_CHECK(st);
    *bytes += sizeof c + sizeof(double) * (size_t)(o * i);
  }
  return TSR_OK;
}

/* Every chunk's last line, allgathered: totals[c] points into *all (the
 * records' values follow an 8-byte id in a malloc'ed buffer: aligned). */
static int gather_totals(tsr_exec *ex, const tsr_node *n, const char *send, size_t bytes,
                         char **all, const double **totals) {
  size_t *counts, sum = 0;
  double t0 = tsr_comm_time();
  int st = tsr_comm_allgather_bytes(send, bytes, all, &counts);
  for (int q = 0; st == TSR_OK && q < ex->size; q++) sum += counts[q];
  tsr_exec_comm_done(ex, "allgather scan totals", t0, st == TSR_OK ? (double)(bytes + sum) : 0.0);
  TSR_CHECK(st);
  free(counts);
  for (size_t off = 0; off < sum;) {
    int64_t id, o, l, i, idx[TSR_MAXDIM];
    memcpy(&id, *all + off, sizeof id);
    chunk_lines(n, id, &o, &l, &i, idx);
    totals[id] = (const double *)(*all + off + sizeof id);
    off += sizeof id + sizeof(double) * (size_t)(o * i);
  }
  return TSR_OK;
}

/* The carry of chunk c (its grid index idx): the last lines of the chunks
 * before it along the axis, combined in chunk order into carry (m values). */
static void chunk_carry(const tsr_node *n, const int64_t *idx, const double **totals, int64_t m,
                        double *carry) {
  const tsr_grid *g = &n->grid;
  int axis = n->axis < 0 ? 0 : n->axis;
  int64_t at[TSR_MAXDIM];
  memcpy(at, idx, sizeof(int64_t) * (size_t)g->ndim);
  for (int64_t k = 0; k < idx[axis]; k++) {
    at[axis] = k;
    const double *t = totals[tsr_grid_ravel(g, at)];
    for (int64_t j = 0; j < m; j++) carry[j] = k ? tsr_ew_binary(n->op, carry[j], t[j]) : t[j];
  }
}

/* Chunk c gets its carry (none for the first along the axis) and n's
 * dtype. */
static int carry_chunk(tsr_exec *ex, tsr_node *n, int64_t c, double *chunk, const double **totals) {
  int64_t o, l, i, idx[TSR_MAXDIM];
  chunk_lines(n, c, &o, &l, &i, idx);
  /* the first chunk along the axis too: a backend may have left the scan's
   * last step to scan_carry (backend.h) */
  int first = idx[n->axis < 0 ? 0 : n->axis] == 0;
  double *carry = first ? NULL : malloc(sizeof(double) * (size_t)(o * i));
  if (!first && !carry) return TSR_ERROR(TSR_ERR_MEMORY, "out of memory for a scan's carry");
  if (carry) chunk_carry(n, idx, totals, o * i, carry);
  int st = tsr_be_scan_carry(ex->be, o, l, i, chunk, n->op, carry, (int)n->dtype);
  free(carry);
  return st;
}

/* Every chunk of this rank gets its carry. With device memory the chunks'
 * carry passes run side by side on the workers (each a memory-bound pass:
 * ten 10^8 chunks one after another took 5.9 ms on an H200, 0.59 ms each);
 * host memory keeps one chunk at a time with the backend's own threads. */
static int apply_carries(tsr_exec *ex, tsr_node *n, double **chunks, const double **totals) {
  int64_t total = tsr_grid_count(&n->grid), mine = tsr_owned_count(total, ex->rank, ex->size);
  int side = !(tsr_be_caps(ex->be) & TSR_BE_HOST_MEMORY) && mine > 1;
  tsr_workers w;
  tsr_workers_init(&w);
#pragma omp parallel for schedule(dynamic, 1) if (side)
  for (int64_t k = 0; k < mine; k++) {
    if (tsr_workers_stop(&w)) continue;
    int64_t c = ex->rank + k * ex->size;
    tsr_workers_fail(&w, carry_chunk(ex, n, c, chunks[c], totals));
  }
  return tsr_workers_end(&w);
}

static int scan_chunks(tsr_exec *ex, tsr_node *n, double **chunks) {
  char *send = NULL, *all = NULL;
  size_t bytes = 0;
  const double **totals = calloc((size_t)tsr_grid_count(&n->grid) + 1, sizeof *totals);
  int st = totals ? TSR_OK : TSR_ERROR(TSR_ERR_MEMORY, "out of memory for a scan's totals");
  if (st == TSR_OK) st = scan_local(ex, n, chunks, &send, &bytes);
  st = tsr_agree(st);
  if (st == TSR_OK) st = gather_totals(ex, n, send, bytes, &all, totals);
  if (st == TSR_OK) st = apply_carries(ex, n, chunks, totals);
  free(send);
  free(all);
  free(totals);
  return tsr_agree(st);
}

/* in[0]'s chunk c is the scan's chunk c (the same grid, or the flattened
 * one of as many chunks), so it is on the same owner. Each chunk is scanned
 * on the thread that stages it, as it is staged: the chunks of a wave side
 * by side, and on the GPU a random input's long lines generated where they
 * are scanned (backend.h, scan_box). cumsum of 10^9 normals in ten chunks:
 * 38.5 ms of scan beyond the generation on an H100 before, 10.4-14.1 ms on
 * an H200 after (bench/RESULTS.md 2026-11-28). */
int tsr_exec_scan(tsr_exec *ex, tsr_node *n) {
  tsr_stage_scan s = {n->axis, n->op, n->b != 0, n->a};
  return tsr_exec_whole(ex, n, &s, scan_chunks);
}
