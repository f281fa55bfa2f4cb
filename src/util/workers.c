/*
 * workers.c - the first failure of a parallel loop, carried to the thread
 * that started it (workers.h).
 */
#include "util/workers.h"

#include <stdio.h>

#include "util/error.h"
#include "util/signals.h"

void tsr_workers_init(tsr_workers *w) {
  w->status = TSR_OK;
  w->interruptible = 0;
  w->message[0] = '\0';
}

void tsr_workers_init_interruptible(tsr_workers *w) {
  tsr_workers_init(w);
  w->interruptible = 1;
}

int tsr_workers_stop(tsr_workers *w) {
  int st;
#pragma omp atomic read
  st = w->status;
  return st != TSR_OK || (w->interruptible && tsr_interrupted());
}

int tsr_workers_fail(tsr_workers *w, int st) {
  if (st == TSR_OK) return st;
#pragma omp critical(tsr_workers)
  if (w->status == TSR_OK) {
    const char *msg = tsr_error_message();
    snprintf(w->message, sizeof w->message, "%s",
             msg[0] ? msg : "a worker failed without a message");
#pragma omp atomic write
    w->status = st;
  }
  return st;
}

int tsr_workers_end(tsr_workers *w) {
  if (w->status == TSR_OK) return TSR_OK;
  if (tsr_error_code() == TSR_OK) return TSR_ERROR(w->status, "%s", w->message);
  return w->status;
}
