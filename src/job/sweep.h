/*
 * sweep.h - the pieces of `tessera sweep` (job/sweep.c drives them):
 *   the trial list, built the same on every rank from --grid and --random
 *   (sweep_plan.c), and the journal, a directory beside the output where
 *   each trial's outcome is written atomically as it finishes, so that a
 *   crash loses no finished trial and --resume and --merge can read it
 *   (sweep_journal.c).
 */
#ifndef TSR_JOB_SWEEP_H
#define TSR_JOB_SWEEP_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "tessera.h"

/* Trials in a fixed order: the Cartesian product of the grids (the last
 * --grid varying fastest), each grid point with `trials` random draws when
 * there are --random options. settings[t * nparams + j] is "NAME=VALUE". */
typedef struct tsr_sweep_plan {
  int nparams;
  char **names;
  int64_t ntrials;
  char **settings;
  int warm_batch; /* --warm-start: its --batch (results depend on it); 0: not warm */
} tsr_sweep_plan;

int tsr_sweep_plan_build(const tsr_sweep_options *sw, tsr_sweep_plan *p);
void tsr_sweep_plan_free(tsr_sweep_plan *p);

/* The manifest: the plan and the job's hash, as text (malloc'ed). Two runs
 * of the same sweep write the same manifest; a --warm-start sweep's names
 * its batch, so that --resume and --merge keep it. */
char *tsr_sweep_manifest(const tsr_sweep_plan *p, const char *job_text);
/* Parses a manifest back into a plan. */
int tsr_sweep_manifest_parse(const char *dir, const char *text, tsr_sweep_plan *p);

/* Parses and interprets the job (no computing) with opt's --set values:
 * the errors that do not depend on a swept value, found before any trial.
 * params receives the names of the job's param()s, ", "-separated. A job
 * that save()s is refused. Collective. */
int tsr_job_params(const tsr_options *opt, const char *name, const char *text, char *params,
                   size_t n);

/* Parses and interprets the job (no computing) with opt's --set values and
 * lists its fits in path (graph/fit.h: their keys and lamduh). */
int tsr_job_fits(const tsr_options *opt, const char *name, const char *text,
                 struct tsr_fit_path *path);

/* World rank 0: merges the journal dir into output (a table of every
 * trial) and prints the best trials to out (sw->minimize / maximize);
 * *any_failed says whether a trial failed or did not run. */
int tsr_sweep_merge(const char *dir, const char *output, const tsr_sweep_options *sw, int quiet,
                    FILE *out, int *any_failed);

/* ---- the journal (rank 0 of the world or of a group) ---- */

typedef enum { TSR_TRIAL_TODO = 0, TSR_TRIAL_OK = 1, TSR_TRIAL_FAILED = 2 } tsr_trial_status;

typedef struct tsr_trial_record {
  tsr_trial_status status;
  int attempts;
  double seconds;
  double reused; /* bytes of held arrays it took over from the group's trial before */
  char error[1024];
} tsr_trial_record;

/* "<output>.trials" */
void tsr_journal_dir(const char *output, char *dir, size_t n);
/* dir/trial-NNNNNN.ext */
void tsr_journal_path(const char *dir, int64_t t, const char *ext, char *path, size_t n);

/* Creates dir with the manifest and a copy of the job, or checks that an
 * existing dir holds the same manifest. fresh removes the trials it holds;
 * otherwise a dir with trials is an error unless may_continue. */
int tsr_journal_open(const char *dir, const char *manifest, const char *job_text, int may_continue,
                     int fresh);
/* Reads dir/manifest (malloc'ed text). */
int tsr_journal_manifest(const char *dir, char **text);
/* The job text kept in dir (malloc'ed). */
int tsr_journal_job(const char *dir, char **text);

/* Records trial t's start (its attempts so far, this one included). */
int tsr_journal_start(const char *dir, int64_t t, int attempts);
/* Writes trial t's record (the results file, when ok, is already there). */
int tsr_journal_record(const char *dir, int64_t t, const tsr_trial_record *r);
/* Reads trial t: its record, or TODO with the attempts its start marks. */
void tsr_journal_read(const char *dir, int64_t t, tsr_trial_record *r);

#endif
