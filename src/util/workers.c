/*
 * workers.c - the first failure of a parallel loop, carried to the thread
 * that started it (workers.h).
 */
#include "util/workers.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "util/error.h"
#include "util/signals.h"

void tsr_workers_init(tsr_workers *w) {
  w->status = TSR_OK;
  w->interruptible = 0;
  w->at = INT64_MAX;
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

int tsr_workers_begin_at(tsr_workers *w, int64_t i) {
  int64_t at;
#pragma omp atomic read
  at = w->at;
  if (at < i || (w->interruptible && tsr_interrupted())) return 0;
  tsr_error_clear();
  return 1;
}

int tsr_workers_fail_at(tsr_workers *w, int64_t i, int st) {
  if (st == TSR_OK) return st;
#pragma omp critical(tsr_workers)
  if (i < w->at) {
    snprintf(w->message, sizeof w->message, "%s", tsr_error_message());
    w->status = st;
#pragma omp atomic write
    w->at = i;
  }
  return st;
}

int tsr_workers_end_at(tsr_workers *w) {
  if (w->status == TSR_OK) return TSR_OK;
  if (tsr_error_code() == w->status && !strcmp(tsr_error_message(), w->message)) return w->status;
  tsr_error_clear();
  return w->message[0] ? TSR_ERROR(w->status, "%s", w->message) : w->status;
}
