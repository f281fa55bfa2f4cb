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

/* The SVD of the small R (K x ncols, backend memory): R = u diag(s) vt;
 * small = [s, vt] (first k, host), *m0 = u[:, :k] (K x k, backend memory).
 * Local: the tree's root (tsqr.c), every rank in the Gram path. */
int tsr_tsqr_root_svd(const tsr_tsqr_plan *pl, const double *R, int64_t K, int64_t k, double *small,
                      double **m0);

#endif
