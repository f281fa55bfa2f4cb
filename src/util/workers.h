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

typedef struct tsr_workers {
  int status;         /* the first failure's status (TSR_OK: none) */
  int interruptible;  /* stop on SIGINT/SIGTERM too (util/signals.h) */
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

#endif
