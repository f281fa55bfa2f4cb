/*
 * tsqr.h - tall-skinny QR and thin SVD of a matrix split into row blocks
 * (one column of chunks), distributed over MPI ranks.
 *
 * Block b (rows[b] x ncols, row-major) is held by rank b % size. Each owner
 * factors its blocks locally (geqrf/orgqr); the R factors are then combined
 * in a binary tree fixed by block index, never by rank: at step s = 1, 2,
 * 4, ... node i (a multiple of 2s) stacks its R over the R of node i + s
 * and factors the stack again, on the owner of block i. The root's R is
 * decomposed on rank 0 (the owner of block 0) and broadcast; Q (or U) is
 * recovered by applying the tree's factors back down the same tree. Every
 * floating-point operation therefore happens in the same order with the
 * same operands whatever the number of ranks: results are bitwise identical
 * across rank counts.
 *
 * The local kernels (QR, SVD, GEMM, copies) are the dense ops of a backend
 * (backend.h) on its own memory: LAPACKE/CBLAS on the CPU, cuSOLVER/cuBLAS
 * on device buffers with the CUDA backend, where the blocks, every R and
 * every Q factor stay on the device; the R factors and the down-sweep's
 * products move between ranks with tsr_exec_move (NCCL device to device
 * between distinct GPUs). Only the small results (r, or s and vt) reach
 * host memory.
 */
#ifndef TSR_TSQR_H
#define TSR_TSQR_H

#include <stdint.h>

#include "backend/backend.h"
#include "exec/exec.h"

typedef struct tsr_tsqr_plan {
  int64_t nblocks;
  int64_t ncols;
  const int64_t *rows;       /* rows of each block, nblocks entries, all > 0 */
  int rank, size;            /* this rank and the number of ranks */
  const tsr_backend_ops *be; /* whose dense ops run the local kernels, on its memory */
  tsr_exec *ex;              /* moves pieces between ranks (NULL: host memory, MPI) */
  int take_blocks;           /* the blocks are the tree's: leaves factor them in place */
  int gram;                  /* SVD by the Gram path where it applies (see above) */
} tsr_tsqr_plan;

/* What tsr_tsqr computes: the thin QR (q, r) or the thin SVD (u, s, vt)
 * truncated to its first k singular triplets. */
typedef enum tsr_tsqr_mode { TSR_TSQR_QR, TSR_TSQR_SVD } tsr_tsqr_mode;

/* K = min(total rows, ncols), the number of columns of Q and U.
 * blocks[b]: block b in backend memory (owned blocks only; others
 * ignored), left unchanged unless take_blocks (then released, and NULL).
 * out[b]: for each owned block, rows[b] x kout in backend memory (release
 * with tsr_be_release), the rows of Q (QR, kout = K) or of U (SVD, kout =
 * k); NULL for blocks of other ranks.
 * small: replicated on every rank on return; QR: r (K x ncols, diagonal
 * made nonnegative, Q's columns flipped to match); SVD: s (k values,
 * descending) followed by vt (k x ncols), signs normalized like sklearn's
 * svd_flip (u-based): in each column of U the entry of largest magnitude
 * (the first in row order on ties) is positive, the row of vt flipped to
 * match. Collective. */
int tsr_tsqr(const tsr_tsqr_plan *pl, tsr_tsqr_mode mode, int64_t k, double **blocks, double **out,
             double *small);

/* min(total rows, ncols). */
int64_t tsr_tsqr_rank_bound(const tsr_tsqr_plan *pl);

#endif
