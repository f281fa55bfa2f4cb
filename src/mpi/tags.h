/*
 * tags.h - every MPI message tag of tessera in one place, so that no two
 * kinds of point-to-point traffic can match each other's messages.
 */
#ifndef TSR_TAGS_H
#define TSR_TAGS_H

#define TSR_TAG_XFER 4242      /* rechunk pieces (exec/xfer.c) */
#define TSR_TAG_TOKEN 4244     /* rank-ordered save token (job/save.c) */
#define TSR_TAG_TSQR_UP 7300   /* TSQR tree, upward level L: + L (linalg/tsqr.c) */
#define TSR_TAG_TSQR_DOWN 7400 /* TSQR tree, downward level L: + L (linalg/tsqr.c) */
#define TSR_TAG_MATMUL 7500    /* matmul operand blocks (linalg/linalg.c) */
#define TSR_TAG_TSQR_GRAM 7600 /* TSQR Gram path: the blocks' Gram matrices (linalg/tsqr_gram.c) */

#endif
