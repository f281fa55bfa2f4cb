/*
 * hist.h - histograms (N_HIST: histogram, histogram2d, histogramdd,
 * bincount), a reduction whose result is a vector of bins: each chunk of
 * the samples is evaluated on its owner (fused through its program, as
 * concatenations are) and binned there by the backend's hist op; the
 * chunks' bins are gathered and added in chunk order, so that the result
 * has the same bits on any number of ranks, and replicated as the node's
 * value.
 */
#ifndef TSR_EXEC_HIST_H
#define TSR_EXEC_HIST_H

#include "exec/exec.h"

/* Computes histogram n whose dependencies are computed already. Collective. */
int tsr_exec_hist(tsr_exec *ex, tsr_node *n);

#endif
