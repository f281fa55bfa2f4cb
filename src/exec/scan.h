/*
 * scan.h - scans (N_SCAN: cumsum, cumprod and their nan-variants), the
 * "compute the whole, keep it distributed" class: computed before the
 * programs that read them, their chunks held on their owners like
 * persisted arrays (gathered into values with --no-fuse).
 */
#ifndef TSR_EXEC_SCAN_H
#define TSR_EXEC_SCAN_H

#include "exec/exec.h"

/* Computes scan n whose dependencies are computed already. Each owner scans
 * its chunks along the axis (the backend's scan op); every chunk's last line
 * (its totals) is allgathered; each owner combines the totals of the chunks
 * before its chunk along the axis in chunk order (so the bits are the same
 * for any rank count) into the chunk's carry and applies it (scan_carry),
 * casting to n's dtype. Collective. */
int tsr_exec_scan(tsr_exec *ex, tsr_node *n);

#endif
