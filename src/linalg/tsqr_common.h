/*
 * tsqr_common.h - what the TSQR tree (tsqr.c) and the Gram path
 * (tsqr_gram.c) share: block ownership, backend memory, moves between
 * ranks and --trace spans. Internal to linalg/.
 */
#ifndef TSR_TSQR_COMMON_H
#define TSR_TSQR_COMMON_H

#include "linalg/tsqr.h"
#include "mpi/agree.h"
#include "mpi/p2p.h"
#include "util/trace.h"

/* Block b's owner. */
static inline int owner(const tsr_tsqr_plan *pl, int64_t b) { return (int)(b % pl->size); }

/* --trace: one span per step (category phase). */
static inline double step_start(void) { return tsr_trace_on ? tsr_trace_now() : 0.0; }
static inline void step_end(const char *name, double t0) {
  if (tsr_trace_on) tsr_trace_end(TSR_TRACE_PHASE, name, t0, (tsr_trace_args){-1, 0, 0, 0});
}

/* n values of backend memory. */
static inline int balloc(const tsr_tsqr_plan *pl, int64_t n, double **p) {
  return tsr_be_alloc(pl->be, (size_t)(n > 0 ? n : 1), p);
}
static inline void bfree(const tsr_tsqr_plan *pl, double *p) { tsr_be_release(pl->be, p); }

/* Moves pieces between ranks (collective). */
static inline int move(const tsr_tsqr_plan *pl, const tsr_p2p_piece *x, int64_t nx, int tag) {
  if (pl->ex) return tsr_exec_move(pl->ex, x, nx, tag);
  return tsr_agree(tsr_p2p_move(x, nx, pl->rank, pl->size, tag));
}

#endif
