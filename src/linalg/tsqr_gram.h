/*
 * tsqr_gram.h - the Gram path of tsr_tsqr's thin SVD (tsqr.h), for
 * tsqr.c: CholeskyQR2 over all row blocks at once, its Gram matrices summed
 * in block order on every rank, so that no R factor travels a tree.
 */
#ifndef TSR_TSQR_GRAM_H
#define TSR_TSQR_GRAM_H

#include "linalg/tsqr.h"

/* The thin SVD of tsr_tsqr (mode TSR_TSQR_SVD, the same blocks, out and
 * small) without its svd_flip, for total rows >= ncols on a backend with
 * gram (tsr_be_has_gram). *fell_back is set (on every rank, TSR_OK, no block
 * touched, out all NULL) when the first Cholesky factor fails or its
 * diagonal spreads over 1e4: the matrix is too ill conditioned for
 * CholeskyQR2, the caller runs the tree. Collective. */
int tsr_tsqr_gram(const tsr_tsqr_plan *pl, int64_t k, double **blocks, double **out, double *small,
                  int *fell_back);

#endif
