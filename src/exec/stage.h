/*
 * stage.h - staged leaves: the values of a fused program that are fetched
 * rather than computed from an element's index. Before a box of such a
 * program is evaluated, each staged leaf is replaced by a host buffer holding
 * exactly the elements the box reads:
 *
 *   LEAF_LOAD  a hyperslab (start, stride, count) of an HDF5 dataset, read by
 *              the rank that evaluates the box (slices are pushed down into
 *              the hyperslab, so x[::10] reads a tenth of the data);
 *   LEAF_XFER  a region of a rechunked array: its pieces are computed by the
 *              owners of the source array's chunks (owner-computes on the
 *              source grid) and sent point-to-point to the rank evaluating
 *              the box; rechunk of a rechunk moves data twice. A held node
 *              (Q, U, products: chunks kept on their owners, array.h) is
 *              read as an XFER leaf whose source is the node itself, whose
 *              program (tsr_prog_compile_held) has one
 *   LEAF_HELD  leaf: a piece of a chunk held here, copied out of it.
 *
 * The executor runs such programs in waves: in wave w every rank stages and
 * evaluates its next few chunks (as many as it has threads, fewer when the
 * memory budget says so), so that memory stays bounded and every rank makes
 * the same collective calls (MPI exchanges, collective HDF5 reads with
 * parallel HDF5) in the same order. Every rank derives the whole plan of a
 * wave (who sends which piece to whom) from the grids alone; nothing about
 * the plan is communicated. Failures are agreed on after each step, so no
 * rank waits for a rank that gave up.
 *
 * Files: stage.c (rounds, LOAD leaves), xfer.c (XFER and HELD leaves),
 * waves.c (waves and the functions below), pool.c (staging buffers),
 * progcopy.c (program copies), phase.h (what they share); the plans are
 * plan/plan.h's. --no-fuse runs through nofuse.h instead.
 */
#ifndef TSR_STAGE_H
#define TSR_STAGE_H

#include <stdint.h>

#include "backend/backend.h"
#include "exec/exec.h"
#include "fuse/program.h"

/* Whether p has LOAD or XFER leaves (then only these functions run it). */
int tsr_stage_needed(const tsr_prog *p);

/* The fused reduction of b (b->prog has staged leaves) over this rank's
 * chunks b->ids, partials into b->out as reduce_chunks would. Collective. */
int tsr_stage_reduce(tsr_exec *ex, const tsr_reduce_batch *b);

/* Evaluates p (staged leaves) over this rank's chunks ids[0..n-1] of grid g
 * into host buffers host[i] (malloc'ed here, freed by the caller). Collective. */
int tsr_stage_eval(tsr_exec *ex, const tsr_prog *p, const tsr_grid *g, const int64_t *ids,
                   int64_t n, double **host);

/* Called on every rank after each wave, with this wave's chunks of this rank
 * (n may be 0) and their values in host memory; returns a status (every rank
 * is told of a failure afterwards). */
typedef int (*tsr_wave_fn)(void *ctx, int64_t n, const int64_t *ids, double *const *host);

/* Evaluates node over this rank's chunks of its grid wave by wave and hands
 * each wave to done (save writes it): fused through its program (staged or
 * not), or materialized chunk by chunk with --no-fuse. The wave size is the
 * same on every rank. Collective. */
int tsr_stage_waves(tsr_exec *ex, const tsr_node *node, tsr_wave_fn done, void *ctx);

/* As tsr_wave_fn, with the wave's chunks in backend memory: bufs[i] is
 * the i-th chunk's buffer, of exactly its size; the consumer may take it
 * (set bufs[i] to NULL: it is then the consumer's to release with
 * tsr_be_release), else it is released after the call. */
typedef int (*tsr_wave_take_fn)(void *ctx, int64_t n, const int64_t *ids, double **bufs);

/* tsr_stage_waves without the host copies: each chunk is evaluated (or
 * materialized with --no-fuse) into backend memory and handed over as it
 * is, for the consumers that keep chunks where they are (persist, the
 * blocks of qr/svd). Collective. */
int tsr_stage_waves_be(tsr_exec *ex, const tsr_node *node, tsr_wave_take_fn take, void *ctx);

/* A scan of each chunk as it is evaluated, with the backend's scan
 * arguments (backend.h): along axis (-1: the chunk flattened, one line). */
typedef struct tsr_stage_scan {
  int axis, op, nan;
  double identity;
} tsr_stage_scan;

/* A box of extent as (outer, len, inner) around axis (-1: the box
 * flattened, one line), as the backend's scans take it. */
void tsr_stage_scan_lines(int axis, int nd, const int64_t *extent, int64_t *outer, int64_t *len,
                          int64_t *inner);

/* tsr_stage_waves_be with each chunk scanned (scan_box: evaluated and
 * scanned in one pass where the backend can) on the thread that evaluated
 * it, before take sees it; scan NULL: tsr_stage_waves_be. Collective. */
int tsr_stage_waves_be_scan(tsr_exec *ex, const tsr_node *node, const tsr_stage_scan *scan,
                            tsr_wave_take_fn take, void *ctx);

/* A box of a node's space, evaluated on one rank. */
typedef struct tsr_stage_box {
  int rank;
  int64_t start[TSR_MAXDIM], extent[TSR_MAXDIM];
} tsr_stage_box;

/* Evaluates node over every box of the list (the same list on every rank),
 * each on its rank: dev[k] receives this rank's k-th box (in list order) in
 * backend memory (the caller releases them with tsr_be_release). Fused,
 * through the node's program and its staged leaves (collective); with
 * --no-fuse each rank materializes its own boxes. */
int tsr_stage_boxes_be(tsr_exec *ex, const tsr_node *node, const tsr_stage_box *boxes, int64_t n,
                       double **dev);

#endif
