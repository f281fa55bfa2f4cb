/*
 * exec.h - the executor: lowers a node to chunk tasks, assigns each chunk
 * to a rank (cyclic over the chunk grid's linear index, plan/plan.h: every
 * rank computes the same assignment), runs this rank's share under the
 * memory budget, and combines partials across ranks in chunk-index order.
 * It computes one node at a time; what must be computed first (reductions,
 * linear algebra) is walked by job/compute.c.
 */
#ifndef TSR_EXEC_H
#define TSR_EXEC_H

#include <stddef.h>
#include <stdint.h>

#include "backend/backend.h"
#include "graph/array.h"
#include "mpi/p2p.h"

typedef struct tsr_exec {
  const tsr_backend_ops *be;
  int rank, size;
  int threads;
  size_t mem_limit;
  int no_fuse;
  int progress; /* 1 always, 0 never, -1 after a couple of seconds */
  int quiet;    /* --quiet: no report lines on stderr (warnings still) */
  /* knobs (job/setup.c reads them from the environment, once) */
  double progress_interval; /* seconds between progress lines in a log; 0: 10 */
  int hdf5_independent;     /* independent HDF5 reads even with parallel HDF5 */
  int host_exchange;        /* rechunk pieces through host copies and MPI */
  int tsqr_gram;            /* thin SVDs by TSQR's Gram path (linalg/tsqr.h), not the tree */
  tsr_fit_path *fit_path;   /* a sweep's batch: its trials' fits (graph/fit.h), or NULL */
  /* totals */
  double compute_s;    /* time spent computing */
  double comm_s;       /* time spent in collectives */
  double elements;     /* logical elements evaluated by this rank */
  int64_t chunks_done; /* chunk tasks run by this rank */
  double comm_bytes;   /* bytes this rank sent and received in collectives */
  double io_s;         /* time spent reading and writing files */
  double io_bytes;     /* bytes read and written */
  double held_planned; /* bytes this rank will hold, as the checks before work count them */
} tsr_exec;

/* Computes reduction r (kind N_REDUCE) whose own dependencies are computed
 * already; on return r->value holds all of it on every rank. Collective. */
int tsr_exec_reduce(tsr_exec *ex, tsr_node *r);

/* Computes a small non-reduced node whose dependencies are computed
 * already; on return node->value holds all of it on every rank. Collective. */
int tsr_exec_elementwise(tsr_exec *ex, tsr_node *node);

/* A chunk of g computed into a buffer needs 8 bytes an element: a budget
 * below that is refused, not run one chunk at a time over it. */
int tsr_exec_check_chunk(const tsr_exec *ex, const tsr_grid *g);

/* Checks, before any work, that dependency n can be computed within the
 * memory budget (a chunk's buffer where one is needed; with --no-fuse the
 * chain of them), and, for a node that will be held (persisted arrays, Q
 * and U, products), that its chunks fit the memory left beside what the
 * checks so far plan to hold (the walk over dependencies, and the agreement
 * of the ranks on its outcome, are job/compute.c's). */
int tsr_exec_check_node(tsr_exec *ex, tsr_node *n);

/* Computes persisted node n (kind N_PERSIST) whose dependencies are
 * computed already: every rank evaluates its chunks into backend memory
 * and holds them (n->held). Collective. */
int tsr_exec_persist(tsr_exec *ex, tsr_node *n);

/* Whether node n will be held once computed (not with --no-fuse, which
 * gathers results and recomputes persisted arrays where they are read). */
int tsr_exec_holds(const tsr_exec *ex, const tsr_node *n);

/* Times a collective that began at t0 (tsr_comm_time) and moved bytes: adds
 * to the rank's communication totals, and records a span when tracing. */
void tsr_exec_comm_done(tsr_exec *ex, const char *name, double t0, double bytes);

/* The same check for the requested result node itself. */
int tsr_exec_check_result(const tsr_exec *ex, const tsr_node *node);

/* Moves pieces of backend memory between ranks (src on rank from, dst on
 * rank to; every rank knows the whole list): as they are when the
 * backend's memory is host memory, device to device through the backend's
 * exchange (NCCL), or else through host copies and MPI. Counts the time
 * and bytes as communication. Collective (agreed status). */
int tsr_exec_move(tsr_exec *ex, const tsr_p2p_piece *x, int64_t nx, int tag);

/* The release function of chunks held in ex's backend memory
 * (tsr_node_hold's, with the backend as its context). */
void tsr_exec_held_free(const void *be, double *chunk);

/* A consumer of tsr_stage_waves_be (stage.h) that keeps every chunk it is
 * handed: chunks is a double ** indexed by chunk id, which takes them over. */
int tsr_exec_take_chunks(void *chunks, int64_t n, const int64_t *ids, double **bufs);

/* node->value on every rank from the chunks each rank computed: ids[i] is
 * one of this rank's chunks of node's grid, bufs[i] its row-major values.
 * Collective. */
int tsr_exec_replicate(tsr_exec *ex, tsr_node *node, const int64_t *ids, int64_t n,
                       double *const *bufs);

/* Held node o's chunks gathered into o->value on every rank (--no-fuse
 * reads only replicated values); the held chunks are released. Collective. */
int tsr_exec_gather_held(tsr_exec *ex, tsr_node *o);

/* How many chunks of g a rank stages at once in a step of boxes (hist.c,
 * compress.c): its threads, as many as a quarter of the memory budget takes
 * with buffers buffers of g's largest chunk each. */
int64_t tsr_exec_chunks_per_step(const tsr_exec *ex, const tsr_grid *g, int buffers);

/* The end of a "compute the whole" step (st: its status, agreed): on
 * success n holds chunks (by chunk id, this rank's; taken over), gathered
 * into a value with --no-fuse; otherwise they are released. Returns st or
 * the gather's status. */
int tsr_exec_hold_chunks(tsr_exec *ex, tsr_node *n, double **chunks, int st);

/* "Compute the whole, keep it distributed" (scans, sorts): n's input
 * in[0], on a grid whose chunk c has the owner of n's chunk c, staged into
 * this rank's chunks (each chunk scanned as it is staged where scan is not
 * NULL: stage.h), transformed in place by each(ex, n, chunks), and held as
 * n's chunks (gathered into a value with --no-fuse). Collective. */
struct tsr_stage_scan;
int tsr_exec_whole(tsr_exec *ex, tsr_node *n, const struct tsr_stage_scan *scan,
                   int (*each)(tsr_exec *ex, tsr_node *n, double **chunks));

#endif
