/*
 * nofuse.h - --no-fuse execution: every chunk of every intermediate array
 * is materialized, operation by operation, depth first from the chunk being
 * reduced or evaluated; each intermediate is freed once its consumer ran
 * (on a backend that queues work, at the chunk task's one wait), so the live
 * set per worker is the chunks of one cone. LOAD leaves are read
 * locally (independent reads, serialized across threads); a rechunked
 * array's chunk is assembled from pieces this rank computes itself. Nothing
 * here is collective.
 */
#ifndef TSR_EXEC_NOFUSE_H
#define TSR_EXEC_NOFUSE_H

#include <stdint.h>

#include "backend/backend.h"
#include "exec/exec.h"
#include "exec/progress.h"

/* Materializes node over one box into backend memory (*out, released with
 * the backend's release). The backend may still be writing *out when this
 * returns (the CUDA backend queues its kernels on the calling thread's
 * stream): read it on this thread (a download waits for it). The inputs it
 * read are released before this returns, once nothing queued reads them. */
int tsr_nofuse_materialize(const tsr_exec *ex, const tsr_node *node, const int64_t *start,
                           const int64_t *extent, double **out);

/* Workers that fit the memory budget for reducing (or evaluating) x; an
 * error (the chunk size to use) when not even one does. */
int tsr_nofuse_threads(const tsr_exec *ex, const tsr_node *x, int *threads);

/* The reduction of batch b over x's chunks, materialized chunk by chunk in
 * workers (partials into b->out); ticks pr. */
int tsr_nofuse_reduce(tsr_exec *ex, const tsr_node *x, const tsr_reduce_batch *b, tsr_progress *pr);

/* Closes the files --no-fuse reads kept open (end of a job). */
void tsr_nofuse_job_end(void);

#endif
