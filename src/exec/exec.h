/*
 * exec.h - the planner and executor: lowers a node to chunk tasks, assigns
 * each chunk to a rank (cyclic over the chunk grid's linear index: every rank
 * computes the same assignment), runs this rank's share under the memory
 * budget, and combines partials across ranks in chunk-index order.
 */
#ifndef TSR_EXEC_H
#define TSR_EXEC_H

#include <stddef.h>
#include <stdint.h>

#include "graph/array.h"
#include "backend/backend.h"

typedef struct tsr_exec {
  const tsr_backend_ops *be;
  int rank, size;
  int threads;
  size_t mem_limit;
  int no_fuse;
  int progress;        /* 1 always, 0 never, -1 after a couple of seconds */
  double compute_s;    /* time spent computing */
  double comm_s;       /* time spent in collectives */
  double elements;     /* logical elements evaluated by this rank */
  int64_t chunks_done; /* chunk tasks run by this rank */
  double comm_bytes;   /* bytes this rank sent and received in collectives */
  double io_s;         /* time spent reading and writing files */
  double io_bytes;     /* bytes read and written */
} tsr_exec;

/* Computes node's values (and first every reduction it depends on); on
 * return node->value holds all of it on every rank. Collective. */
int tsr_exec_compute(tsr_exec *ex, tsr_node *node);

/* Checks, before any work, that node can be computed within the memory
 * budget (collective errors: every rank finds the same). */
int tsr_exec_check(const tsr_exec *ex, const tsr_node *node);

/* Computes every reduction node depends on (not node itself), so that its
 * chunks can then be evaluated (save writes them). Collective. */
int tsr_exec_prepare(tsr_exec *ex, tsr_node *node);

/* node->value on every rank from the chunks each rank computed: ids[i] is
 * one of this rank's chunks of node's grid, bufs[i] its row-major values.
 * Collective. */
int tsr_exec_replicate(tsr_exec *ex, tsr_node *node, const int64_t *ids, int64_t n,
                       double *const *bufs);

/* --no-fuse: materializes node over one box, operation by operation, into
 * backend memory (*out, released with the backend's release). Not collective. */
int tsr_exec_materialize(const tsr_exec *ex, const tsr_node *node, const int64_t *start,
                         const int64_t *extent, double **out);

/* Owner rank of chunk `linear` among size ranks. */
static inline int tsr_chunk_owner(int64_t linear, int size) { return (int)(linear % size); }

#endif
