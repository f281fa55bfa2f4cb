/*
 * sources.h - the job's file services for the interpreter (eval/context.h):
 * describing a dataset to load (rank 0 opens the HDF5 file, every rank
 * learns the answer) and whether gzip can be written.
 */
#ifndef TSR_JOB_SOURCES_H
#define TSR_JOB_SOURCES_H

#include <stdint.h>

#include "eval/interp.h"

/* tsr_interp_init with the job's file services in the interpreter's context. */
void tsr_job_interp_init(tsr_interp *ip, const tsr_source *src, uint64_t seed);

#endif
