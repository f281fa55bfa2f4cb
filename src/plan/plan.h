/*
 * plan.h - pure planning geometry: who owns which chunk, what a fused
 * program's leaf reads over a box, how a region of a rechunked array is cut
 * into pieces along its source's chunks, and which chunks make up a wave.
 * Nothing here talks to MPI, files or a backend, and every answer depends
 * only on its arguments: every rank computes the same plan from the grids
 * alone, which is what lets the executor (exec/) skip communicating it.
 */
#ifndef TSR_PLAN_H
#define TSR_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "fuse/program.h"
#include "graph/chunks.h"

/* ---- arithmetic and ownership ---- */

/* ceil(a / b) and floor(a / b) for b > 0, a of either sign. */
int64_t tsr_ceil_div(int64_t a, int64_t b);
int64_t tsr_floor_div(int64_t a, int64_t b);

/* The product of count[0..nd-1] (1 for nd = 0). */
int64_t tsr_elems_of(int nd, const int64_t *count);

/* Owner rank of chunk `linear` among size ranks: cyclic over the grid's
 * linear index. */
static inline int tsr_chunk_owner(int64_t linear, int size) { return (int)(linear % size); }

/* How many of total chunks rank q owns. */
int64_t tsr_owned_count(int64_t total, int q, int size);

/* The chunks of a grid of total chunks that rank `rank` owns, ascending
 * (*ids malloc'ed, at least one slot). */
int tsr_owned_chunks(int rank, int size, int64_t total, int64_t **ids, int64_t *n);

/* ---- boxes and regions ---- */

/* Coordinates first[a] + step[a] * i, 0 <= i < count[a], of a program's space. */
typedef struct tsr_sbox {
  int64_t first[TSR_MAXDIM], step[TSR_MAXDIM], count[TSR_MAXDIM];
} tsr_sbox;

/* A box of a program's space assigned to a rank. */
typedef struct tsr_task {
  int rank;
  tsr_sbox box;
} tsr_task;

/* The elements a leaf reads for a box, per base axis, in increasing order:
 * lo[d] + stride[d] * j, 0 <= j < count[d] (stride > 0). */
typedef struct tsr_region {
  int64_t lo[TSR_MAXDIM], stride[TSR_MAXDIM], count[TSR_MAXDIM];
} tsr_region;

/* What leaf l of a program reads over box b of the program's space. */
void tsr_leaf_region(const tsr_leaf *l, const tsr_sbox *b, tsr_region *r);

/* ---- rechunk pieces ---- */

/* One piece of a region: the part of task `task`'s region that lies in one
 * source chunk, as a strided box of the source array. */
typedef struct tsr_piece {
  int64_t task;
  int src, dst; /* owner of the source chunk; rank of the task */
  tsr_sbox box;
  int64_t j0[TSR_MAXDIM]; /* its offset in the region, per axis */
  int64_t off;            /* where its values are in its message (set by exec) */
} tsr_piece;

typedef struct tsr_piece_list {
  tsr_piece *p;
  int64_t n, cap;
} tsr_piece_list;

/* Appends to pl the pieces of task t's region g (evaluated on rank dst),
 * cut along the source grid G, in row-major order of the source chunks;
 * a region of no elements has no pieces. */
int tsr_plan_region(tsr_piece_list *pl, int64_t t, int dst, const tsr_region *g, const tsr_grid *G,
                    int size);

/* Copies a piece (dense over count) into a region buffer (dense over
 * rcount) at offset j0. */
void tsr_place_piece(int nd, const int64_t *rcount, double *region_buf, const int64_t *j0,
                     const int64_t *count, const double *src);

/* ---- waves ---- */

/* Chunks per rank per wave for one rank's threads and memory budget
 * (mem_limit 0: none), for chunks of at most chunk_elems elements and a
 * program with `staged` staged leaves; between 1 and 4096. */
int tsr_wave_width(int threads, size_t mem_limit, int64_t chunk_elems, int staged);

/* Waves needed for total chunks over size ranks, W per rank per wave. */
int64_t tsr_wave_count(int64_t total, int size, int W);

/* Wave w: every rank's chunks w*W .. w*W+W-1 (by position among its own
 * chunks) as tasks, rank by rank, into tasks (room for size*W); rank's own
 * chunks' positions and ids into slots and ids. */
typedef struct tsr_wave_plan {
  tsr_task *tasks;
  int64_t nt;
  int64_t *slots, *ids, nmine;
} tsr_wave_plan;
void tsr_plan_wave(const tsr_grid *g, int rank, int size, int W, int64_t w, tsr_wave_plan *v);

#endif
