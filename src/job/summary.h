/*
 * summary.h - the table at the end of a run: phase times on rank 0, then per
 * rank its chunk tasks, compute / communication / I/O seconds, logical
 * gigabytes and the rate achieved, bytes moved and peak memory, gathered to
 * rank 0 and printed there (stderr unless --quiet).
 */
#ifndef TSR_SUMMARY_H
#define TSR_SUMMARY_H

#include <stdio.h>

#include "exec/exec.h"

/* Wall-clock seconds of a job's phases on this rank. */
typedef struct tsr_run_times {
  double parse, plan, compute, comm, write, total;
  /* within plan: the backend's start (the CUDA driver), the device's bind,
   * the backend's setup (NCCL, memory), from tsr_job_setup_parts */
  double start, bind, setup;
} tsr_run_times;

/* Collective: every rank sends its figures from ex; rank 0 prints the table
 * to out. Returns 0 or a tsr_status (communication failures only). */
int tsr_summary_report(const tsr_exec *ex, const tsr_run_times *t, FILE *out);

/* Peak resident memory of this process, in bytes. */
double tsr_summary_peak_rss(void);

#endif
