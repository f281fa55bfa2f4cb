/*
 * sweep.h - the pieces of `tessera sweep` (job/sweep.c drives them):
 *   the trial list, built the same on every rank from --grid and --random
 *   (sweep_plan.c), and the journal, a directory beside the output where
 *   the trials' outcomes are written atomically as they finish (those that
 *   finish together in one file), so that a crash loses no recorded trial
 *   and --resume and --merge can read it (sweep_journal.c); each finished
 *   trial is also appended at once to its group's pending file (its blobs:
 *   sweep_pending.c), so that a killed process loses no finished trial.
 */
#ifndef TSR_JOB_SWEEP_H
#define TSR_JOB_SWEEP_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "io/results.h"
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
  /* Read back: the run that recorded it (-1: none; 0: an older journal's own
   * files), and the first trial of its records file. */
  int run;
  int64_t file;
} tsr_trial_record;

/* "<output>.trials" */
void tsr_journal_dir(const char *output, char *dir, size_t n);

/* Creates dir with the manifest and a copy of the job, or checks that an
 * existing dir holds the same manifest and job. fresh removes the trials it
 * holds; otherwise a dir with trials is an error unless may_continue. *run:
 * this run's number, claimed in dir (above every earlier run's). Safe for
 * any number of processes opening one dir at once (the shards of a job
 * array): the first creates, the others join. */
int tsr_journal_open(const char *dir, const char *manifest, const char *job_text, int may_continue,
                     int fresh, int *run);
/* Reads dir/manifest (malloc'ed text). */
int tsr_journal_manifest(const char *dir, char **text);
/* The job text kept in dir (malloc'ed). */
int tsr_journal_job(const char *dir, char **text);

/* Every trial's record (recs: ntrials): the latest run's, or TODO; its
 * attempts count the starts marked too (a run that crashed). First the
 * pending files that no live process holds become records files. Not while
 * this process has a journal begun: its own lock would not keep it out. */
int tsr_journal_load(const char *dir, int64_t ntrials, tsr_trial_record *recs);
/* "trial-NNNNNN": the group of trial t's results in a records file. */
void tsr_journal_group(int64_t t, char *group, size_t n);
/* Where the results of trial t (r: its record, ok) are: the file, and the
 * group in it ("" for the root). */
void tsr_journal_results(const char *dir, int64_t t, const tsr_trial_record *r, char *path,
                         size_t n, char *group, size_t gn);

/* A growing byte buffer (a pending file's blob, salvaged records). */
typedef struct tsr_bytes {
  unsigned char *p;
  size_t len;
  int64_t cap;
} tsr_bytes;

/* A group leader's records of one run: starts appended to a log as the
 * trials start; finished trials kept (their results in results, added by
 * tsr_run_job under tsr_journal_group) until tsr_journal_flush writes them
 * as one records file, with one fsync. Each kept trial is also appended to
 * the pending file with one write and no fsync, which the flush empties: a
 * load salvages what a killed process left there. */
typedef struct tsr_journal {
  char dir[4096];
  int run, group, log, has_log;
  int pending, has_pending; /* the pending file, locked while open */
  tsr_results_set results;
  int sent;       /* results items already in the pending file */
  tsr_bytes blob; /* a kept trial's blob, reused */
  char *text;     /* the kept trials' records, a line each */
  size_t len;
  int64_t cap;
  int64_t first; /* the first kept trial (-1: none) */
  int kept;
} tsr_journal;

/* Opens group's start log and pending file of run in dir. */
int tsr_journal_begin(tsr_journal *j, const char *dir, int run, int group);
/* Marks trial t's start (its attempts so far, this one included). */
int tsr_journal_start(tsr_journal *j, int64_t t, int attempts);
/* Keeps trial t's record (ok: its results are the items of j->results
 * added since the last keep) and appends both to the pending file. */
int tsr_journal_keep(tsr_journal *j, int64_t t, const tsr_trial_record *r);
/* Writes the kept trials as one records file; they are then recorded, and
 * the pending file is emptied. */
int tsr_journal_flush(tsr_journal *j);
/* Closes the log and the pending file (removed when empty) and frees what
 * is kept (unwritten: flush first, or it waits in the pending file for the
 * next load). */
void tsr_journal_end(tsr_journal *j);

/* ---- the pending file's blobs (sweep_pending.c) ---- */

/* Appends n bytes of p to b. */
int tsr_bytes_put(tsr_bytes *b, const void *p, size_t n);
void tsr_bytes_free(tsr_bytes *b);

/* One kept trial as a blob, into b (its old contents replaced): its record
 * line (len bytes) and its results items. */
int tsr_pending_encode(tsr_bytes *b, const char *line, size_t len, const tsr_result_item *items,
                       int n);
/* The blob at the start of p (n bytes): when it is whole and its checksum
 * holds, *used is its size, *line and *len its record line (in p) and its
 * items are added to set (their names as they are); otherwise (torn or
 * damaged) *used is 0 and nothing is added. */
int tsr_pending_decode(const unsigned char *p, size_t n, size_t *used, const char **line,
                       size_t *len, tsr_results_set *set);

#endif
