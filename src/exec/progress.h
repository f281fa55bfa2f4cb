/*
 * progress.h - rank 0's progress line for one computation of the executor
 * (a reduction: exec.c; --no-fuse: nofuse.c). Workers tick it as chunks
 * finish (it is the backend's tsr_progress_fn).
 */
#ifndef TSR_EXEC_PROGRESS_H
#define TSR_EXEC_PROGRESS_H

#include <stdint.h>

#include "exec/exec.h"

typedef struct tsr_progress {
  int enabled; /* this rank prints */
  int always;
  int tty;
  double interval; /* seconds between lines */
  double t0, last;
  int64_t done, total;         /* elements of this rank's share */
  int64_t chunks_done, chunks; /* chunk tasks of this rank's share */
  const char *what;
  int printed;
} tsr_progress;

void tsr_progress_init(tsr_progress *p, const tsr_exec *ex, const char *what, int64_t elements,
                       int64_t chunks);

/* A chunk of `elements` elements finished (any thread). */
void tsr_progress_tick(void *vctx, int64_t elements);

/* Once a line was shown, the last state, so that a terminal's line does not
 * stay at an earlier percentage. */
void tsr_progress_end(tsr_progress *p);

#endif
