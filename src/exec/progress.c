/*
 * progress.c - rank 0's progress line (progress.h): on a terminal it is
 * rewritten in place (\r) every second; in a batch log (stderr not a
 * terminal) a full line is printed every ex->progress_interval seconds
 * (TESSERA_PROGRESS_INTERVAL; default 10), so logs stay short. By default
 * the first line waits 2 s (--progress: at once).
 */
#include "exec/progress.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "mpi/comm.h"

void tsr_progress_init(tsr_progress *p, const tsr_exec *ex, const char *what, int64_t elements,
                       int64_t chunks) {
  memset(p, 0, sizeof *p);
  p->enabled = ex->rank == 0 && ex->progress != 0;
  p->always = ex->progress == 1;
  p->tty = p->enabled && isatty(2);
  p->interval = 1.0;
  if (!p->tty) p->interval = ex->progress_interval > 0 ? ex->progress_interval : 10.0;
  p->t0 = tsr_comm_time();
  /* --progress shows the first chunk at once (in a batch log too); otherwise
   * the first line comes after 2 s on a terminal, after one interval in a log. */
  p->last = p->always ? p->t0 - p->interval : p->t0;
  p->total = elements;
  p->chunks = chunks;
  p->what = what;
}

static void progress_print(tsr_progress *p, double now, int64_t done, int64_t chunks_done) {
  double frac = p->total ? (double)done / (double)p->total : 1.0;
  double rate = now > p->t0 ? (double)done * 8.0 / (now - p->t0) / 1e9 : 0.0;
  double eta = frac > 0 ? (now - p->t0) * (1.0 - frac) / frac : 0.0;
  fprintf(stderr,
          "%stessera: %s %5.1f%% (%.1f GB/s per rank, ETA %.0f s), rank 0: %lld/%lld chunks%s",
          p->tty ? "\r" : "", p->what, 100.0 * frac, rate, eta, (long long)chunks_done,
          (long long)p->chunks, p->tty ? "\033[K" : "\n");
  fflush(stderr);
  p->printed = 1;
}

void tsr_progress_tick(void *vctx, int64_t elements) {
  tsr_progress *p = vctx;
  int64_t done, chunks_done;
#pragma omp atomic capture
  done = p->done += elements;
#pragma omp atomic capture
  chunks_done = ++p->chunks_done;
  if (!p->enabled) return;
  double now = tsr_comm_time();
  if (now - p->last < p->interval || (!p->always && now - p->t0 < 2.0)) return;
#pragma omp critical(tsr_progress)
  if (now - p->last >= p->interval) {
    p->last = now;
    progress_print(p, now, done, chunks_done);
  }
}

void tsr_progress_end(tsr_progress *p) {
  if (!p->printed) return;
  progress_print(p, tsr_comm_time(), p->done, p->chunks_done);
  if (p->tty) fprintf(stderr, "\n");
}
