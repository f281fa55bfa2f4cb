/*
 * save.h - the `save(file, dataset, array)` statements of a job.
 *
 * Interpreting a save only records it (graph/sinks.h). Before any
 * work, rank 0 checks every target file (an existing file needs --overwrite,
 * the directory must take a temporary file) and the ranks agree. After the
 * small values are computed, each file is written under a temporary name in
 * its directory: every rank computes the chunks it owns, wave by wave, and
 * writes them as hyperslabs (collective MPI-IO writes with parallel HDF5;
 * with serial HDF5 the ranks write in turn, rank r after rank r-1). Only when
 * the whole job has succeeded on every rank does rank 0 add the provenance
 * attributes, sync and rename each file onto its final name; a failed run
 * removes the temporaries, so an existing file is replaced only on success.
 */
#ifndef TSR_SAVE_H
#define TSR_SAVE_H

#include "lang/ast.h"
#include "exec/exec.h"
#include "io/results.h"

/* Number of saves recorded by this job. */
int tsr_save_count(void);

/* Before any work: rank 0 checks every target (job/target.h: exists
 * without overwrite, the job file, a loaded file, a directory or special
 * file, a directory that cannot take the temporary; here also the results
 * file -o itself); every rank returns the same status and learns which
 * targets are /dev/null (computed, not written). Collective. */
int tsr_save_check(int overwrite, const char *results_path, const char *job_file);

/* Before any work: every saved array can be computed within the memory
 * budget (the executor's check). Collective errors. */
int tsr_save_plan(tsr_exec *ex);

/* Computes and writes every saved array into its temporary file. Collective. */
int tsr_save_run(tsr_exec *ex);

/* After a successful job: rank 0 adds attrs to each file, syncs it and
 * renames it onto its final name; every rank returns the same status.
 * Collective. On failure the temporaries are removed. */
int tsr_save_commit(const tsr_attr *attrs, int nattrs);

/* After a failed job: removes the temporaries (rank 0). Not collective. */
void tsr_save_abort(void);

/* Forgets the job's saved files (end of every job; the save statements and
 * loaded datasets end with the graph, tsr_nodes_free_all). */
void tsr_io_job_end(void);

#endif
