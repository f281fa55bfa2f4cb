/*
 * compress.h - boolean masks (N_COMPRESS: x[mask]), the "compute the
 * whole, keep it distributed" class: each chunk of the result is the rows
 * of one chunk of the input where the mask's chunk is true, computed on
 * the result chunk's owner and held there like a persisted chunk (gathered
 * into a value with --no-fuse).
 */
#ifndef TSR_EXEC_COMPRESS_H
#define TSR_EXEC_COMPRESS_H

#include "exec/exec.h"

/* Computes n whose dependencies are computed already. Collective. */
int tsr_exec_compress(tsr_exec *ex, tsr_node *n);

#endif
