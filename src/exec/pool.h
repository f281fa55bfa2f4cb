/*
 * pool.h - staging buffers: runnable program copies (one per staged task)
 * own the host buffers their DATA leaves read; a phase's pool keeps the
 * buffers of a finished wave for the next one, since fresh buffers of a
 * chunk's size would cost a page fault per 4 KiB every wave.
 */
#ifndef TSR_EXEC_POOL_H
#define TSR_EXEC_POOL_H

#include <stddef.h>
#include <stdint.h>

#include "fuse/program.h"

#define TSR_POOL_SIZE 64
typedef struct tsr_pool {
  double *buf[TSR_POOL_SIZE];
  size_t n[TSR_POOL_SIZE];
  int k;
} tsr_pool;

/* A program copy ready for the backend, with the buffers its leaves read. */
typedef struct tsr_runnable {
  tsr_prog prog;
  int64_t start[TSR_MAXDIM], extent[TSR_MAXDIM];
  double **bufs;
  size_t *sizes;
  int nbufs;
} tsr_runnable;

/* Frees every pooled buffer. */
void tsr_pool_clear(tsr_pool *pl);

/* A staging buffer of n doubles owned by u (back to the pool with u);
 * NULL (error recorded) when out of memory. */
double *tsr_runnable_buffer(tsr_pool *pl, tsr_runnable *u, size_t n);

/* Frees n runnables and the array u; their buffers go back to the pool. */
void tsr_runnables_free(tsr_pool *pl, tsr_runnable *u, int64_t n);

#endif
