/*
 * sort.h - sorts along one axis (N_SORT), the "compute the whole, keep it
 * distributed" class like the scans (exec/scan.h): the sorted axis is one
 * chunk, so each owner sorts the lines of its chunks and nothing moves
 * between ranks; the chunks are held on their owners like persisted arrays
 * (gathered into values with --no-fuse).
 */
#ifndef TSR_EXEC_SORT_H
#define TSR_EXEC_SORT_H

#include "exec/exec.h"

/* Computes sort n whose dependencies are computed already. Collective. */
int tsr_exec_sort(tsr_exec *ex, tsr_node *n);

#endif
