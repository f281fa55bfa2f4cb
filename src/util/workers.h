/*
 * workers.h - the one way a parallel loop (OpenMP workers) fails: the first
 * worker to fail records its status and its message; the others skip the
 * rest of their iterations; after the loop the calling thread returns that
 * status with that message (error records are per thread, util/error.h, so a
 * worker's message would otherwise stay on the worker).
 *
 *     tsr_workers w;
 *     tsr_workers_init(&w);
 *   #pragma omp parallel for
 *     for (i = 0; i < n; i++) {
 *       if (tsr_workers_stop(&w)) continue;
 *       tsr_workers_fail(&w, work(i));
 *     }
 *     return tsr_workers_end(&w);
 */
#ifndef TSR_WORKERS_H
#define TSR_WORKERS_H

#include <stdint.h>

typedef struct tsr_workers {
  int status;         /* the first failure's status (TSR_OK: none) */
  int interruptible;  /* stop on SIGINT/SIGTERM too (util/signals.h) */
  int64_t at;         /* ordered loops: the iteration that failed (INT64_MAX: none) */
  char message[1024]; /* the first failure's message, from its worker */
} tsr_workers;

void tsr_workers_init(tsr_workers *w);
/* As init, and workers also stop when the job is interrupted. */
void tsr_workers_init_interruptible(tsr_workers *w);

/* Whether a worker should skip its iteration: an earlier failure, or an
 * interrupt (interruptible loops). */
int tsr_workers_stop(tsr_workers *w);

/* Called by a worker with a status: a failure is recorded with the worker's
 * message when it is the first. Returns st. */
int tsr_workers_fail(tsr_workers *w, int st);

/* After the loop, on the thread that started it: the recorded status, its
 * message re-recorded on this thread (TSR_OK when nothing failed). */
int tsr_workers_end(tsr_workers *w);

/* Ordered loops: the failure reported is the one a serial loop would have
 * met first (the lowest failing iteration), whichever thread failed first:
 *
 *     tsr_workers_init(&w);
 *   #pragma omp parallel for
 *     for (i = 0; i < n; i++)
 *       if (tsr_workers_begin_at(&w, i)) tsr_workers_fail_at(&w, i, work(i));
 *     return tsr_workers_end_at(&w);
 *
 * begin_at: whether iteration i should run (no failure recorded at an
 * earlier one); when it should, the calling thread's error record is
 * cleared, so that a failure of i records i's own message. */
int tsr_workers_begin_at(tsr_workers *w, int64_t i);

/* As tsr_workers_fail, for iteration i: kept when no earlier iteration's
 * failure is. May be called before the loop too (a failure found while
 * planning, at its place in the order). */
int tsr_workers_fail_at(tsr_workers *w, int64_t i, int st);

/* As tsr_workers_end, the recorded message replacing whatever this thread
 * holds (it may have failed at a later iteration). */
int tsr_workers_end_at(tsr_workers *w);

#endif
