/*
 * sweep.c - `tessera sweep`: one job run over many parameter settings.
 *
 * Every rank builds the same trial list (sweep_plan.c) and checks the job
 * once with its defaults, so that an error no setting can cure (syntax, an
 * unknown name, a swept name that is no param()) stops the sweep before any
 * trial. World rank 0 opens the journal (sweep_journal.c) and lists the
 * trials left to run. The world then splits into groups of
 * --ranks-per-trial consecutive ranks (mpi/groups.h), each group the session
 * of its own jobs; groups draw trials from one shared counter until none is
 * left. A trial is tessera run with the trial's --set values, its results
 * kept by the group's leader; a failure is that trial's record, and the
 * others go on. The leader writes the records of the trials that finished
 * together as one file: at the end of each batch, and once a second while
 * a batch runs on, so that a trial costs no file and no fsync of its own.
 * Each finished trial is also appended at once to the group's pending file
 * (one write, not synced), which the next load salvages: a killed process
 * loses no finished trial, and a power cut or a node crash at most about a
 * second's worth (they run again on --resume). At the end world rank 0
 * merges the journal into the output (sweep_merge.c) and prints the best
 * trials.
 *
 * A group takes --batch trials at once and lists their jobs' GLM fits
 * first (interpreting each, computing nothing): fits of the same data and
 * settings that differ only in lamduh are then solved together, as a
 * lambda path, by the first trial that computes one of them, and the
 * others take their results (linalg/glm.c). Each trial otherwise runs and
 * is recorded alone, as without a batch; its seconds are its own work plus
 * an equal share of each path it took part in.
 *
 * With --warm-start a path's fits run one after another from the largest
 * lamduh, each from the solution before it (linalg/glm_batch.c). Which
 * trials share a path then changes their coefficients (within the
 * solver's tolerance), so the auto batch is a constant: the batches are the
 * same consecutive runs of the list for any number of groups.
 */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/results.h"
#include "job/setup.h"
#include "graph/array.h"
#include "job/sweep.h"
#include "mpi/agree.h"
#include "mpi/comm.h"
#include "mpi/groups.h"
#include "util/error.h"
#include "util/signals.h"

#define WARM_BATCH 16      /* --warm-start's auto --batch */
#define RECORD_EVERY_S 1.0 /* a finished trial waits at most this long for its batch's end */

typedef struct sweep {
  const tsr_options *opt;
  const tsr_sweep_options *sw;
  const char *name, *text;
  tsr_sweep_plan plan;
  char dir[4096];
  int64_t ntodo, *todo; /* trials to run, in order */
  int *attempts;        /* per trial of todo: its attempts before this run */
  const char **sets;    /* the user's --set, then one trial's settings */
  int devices_checked;  /* tsr_options.devices_checked of the trials */
  FILE *devnull;
  int group, ok, failed;
  int64_t batch;       /* trials taken at once */
  tsr_fit_path *path;  /* the fits of the batch running, or NULL */
  int run;             /* this run's number in the journal */
  tsr_journal journal; /* the group leader's records */
  double written;      /* when the leader last wrote them */
} sweep;

/* ---- before any trial ------------------------------------------------------- */

static int in_list(const char *list, const char *name) {
  size_t n = strlen(name);
  for (const char *p = list; (p = strstr(p, name)); p += n)
    if ((p == list || p[-1] == ' ') && (p[n] == ',' || p[n] == 0)) return 1;
  return 0;
}

/* The job, its defaults and the user's --set: every rank the same. */
static int check_job(sweep *s) {
  char params[256];
  TSR_CHECK(tsr_job_params(s->opt, s->name, s->text, params, sizeof params));
  for (int j = 0; j < s->plan.nparams; j++) {
    const char *p = s->plan.names[j];
    if (!in_list(params, p))
      return TSR_ERROR(TSR_ERR_VALUE,
                       "the sweep varies %s, but %s has no `%s = param(...)` "
                       "(its params: %s)",
                       p, s->name, p, params[0] ? params : "none");
    for (int k = 0; k < s->opt->nsets; k++)
      if (!strncmp(s->opt->sets[k], p, strlen(p)) && s->opt->sets[k][strlen(p)] == '=')
        return TSR_ERROR(TSR_ERR_VALUE, "--set %s: %s is swept", s->opt->sets[k], p);
  }
  return TSR_OK;
}

/* World rank 0: the journal, and the trials of this run (this shard's,
 * not yet done). */
static int open_journal(sweep *s) {
  if (!s->sw->resume && !s->opt->overwrite && access(s->opt->output, F_OK) == 0)
    return TSR_ERROR(TSR_ERR_VALUE,
                     "'%s' exists: --overwrite replaces it, --resume continues "
                     "its sweep",
                     s->opt->output);
  TSR_CHECK(tsr_results_probe(s->opt->output));
  char *manifest = tsr_sweep_manifest(&s->plan, s->text);
  if (!manifest) return TSR_ERROR(TSR_ERR_MEMORY, "out of memory");
  int st = tsr_journal_open(s->dir, manifest, s->text, s->sw->resume || s->sw->nshards,
                            s->opt->overwrite && !s->sw->resume && !s->sw->nshards, &s->run);
  free(manifest);
  TSR_CHECK(st);
  TSR_MALLOC(s->todo, sizeof *s->todo * (size_t)s->plan.ntrials);
  TSR_MALLOC(s->attempts, sizeof *s->attempts * (size_t)s->plan.ntrials);
  tsr_trial_record *recs = calloc((size_t)s->plan.ntrials, sizeof *recs);
  st = recs ? tsr_journal_load(s->dir, s->plan.ntrials, recs)
            : TSR_ERROR(TSR_ERR_MEMORY, "out of memory reading the journal");
  s->ntodo = 0;
  for (int64_t t = 0; t < s->plan.ntrials && st == TSR_OK; t++) {
    if (s->sw->nshards && t % s->sw->nshards != s->sw->shard) continue;
    if (recs[t].status == TSR_TRIAL_OK) continue;
    s->attempts[s->ntodo] = recs[t].attempts;
    s->todo[s->ntodo++] = t;
  }
  free(recs);
  return st;
}

/* Every rank learns world rank 0's list. */
static int share_todo(sweep *s) {
  TSR_CHECK(tsr_comm_bcast_bytes(&s->run, sizeof s->run, 0));
  TSR_CHECK(tsr_comm_bcast_bytes(&s->ntodo, sizeof s->ntodo, 0));
  if (tsr_comm_rank() != 0) {
    TSR_MALLOC(s->todo, sizeof *s->todo * (size_t)(s->ntodo + 1));
    TSR_MALLOC(s->attempts, sizeof *s->attempts * (size_t)(s->ntodo + 1));
  }
  TSR_CHECK(tsr_comm_bcast_bytes(s->todo, sizeof *s->todo * (size_t)s->ntodo, 0));
  return tsr_comm_bcast_bytes(s->attempts, sizeof *s->attempts * (size_t)s->ntodo, 0);
}

/* ---- trials --------------------------------------------------------------- */

static void describe(const sweep *s, int64_t t, char *buf, size_t n) {
  size_t used = 0;
  buf[0] = 0;
  for (int j = 0; j < s->plan.nparams && used < n; j++)
    used += (size_t)snprintf(buf + used, n - used, "%s%s", j ? " " : "",
                             s->plan.settings[t * s->plan.nparams + j]);
}

/* Trial todo[k]'s settings after the user's --set, into o. */
static void trial_options(sweep *s, int64_t k, tsr_options *o) {
  *o = *s->opt;
  for (int j = 0; j < s->plan.nparams; j++)
    s->sets[s->opt->nsets + j] = s->plan.settings[s->todo[k] * s->plan.nparams + j];
  o->sets = s->sets;
  o->nsets = s->opt->nsets + s->plan.nparams;
}

/* One run of trial todo[k], its results kept in the journal (the
 * leader's) under the trial's group; *msg gets the error's text. */
static int run_once(sweep *s, int64_t k, char *msg, size_t n) {
  tsr_options o;
  char group[64];
  trial_options(s, k, &o);
  tsr_journal_group(s->todo[k], group, sizeof group);
  o.output = group;
  o.keep = &s->journal.results;
  int kept = s->journal.results.n;
  o.quiet = 1;
  o.progress = 0;
  o.trace = NULL;
  o.devices_checked = s->devices_checked;
  o.fit_path = s->path;
  if (s->path) s->path->extra_s = 0;
  if (s->sw->trial_timeout > 0) tsr_signals_deadline(s->sw->trial_timeout);
  int st = tsr_run_job(&o, s->name, s->text, s->devnull);
  int timed_out = tsr_signals_deadline_passed();
  tsr_signals_deadline_clear();
  msg[0] = 0;
  if (st != TSR_OK && timed_out)
    snprintf(msg, n, "timed out after %g s (--trial-timeout)", s->sw->trial_timeout);
  else if (st != TSR_OK) /* the first line: a source error's context lines follow it */
    snprintf(msg, n, "%.*s", (int)strcspn(tsr_error_message(), "\n"),
             tsr_error_message()[0] ? tsr_error_message() : "failed on another rank");
  if (st != TSR_OK && timed_out) st = TSR_ERR_VALUE; /* a failed trial, not an interrupt */
  if (st != TSR_OK) tsr_results_set_truncate(&s->journal.results, kept);
  tsr_error_clear();
  return st;
}

static void report_trial(const sweep *s, int64_t t, const tsr_trial_record *r) {
  if ((s->opt->quiet && r->status == TSR_TRIAL_OK) || tsr_comm_rank() != 0) return;
  char what[512];
  describe(s, t, what, sizeof what);
  if (r->status == TSR_TRIAL_OK)
    fprintf(stderr, "tessera: sweep: trial %" PRId64 " ok in %.3f s (%s)\n", t, r->seconds, what);
  else
    fprintf(stderr, "tessera: sweep: trial %" PRId64 " failed after %d attempt%s (%s): %s\n", t,
            r->attempts, r->attempts == 1 ? "" : "s", what, r->error);
}

/* The leader's writes of the kept records: at the end of a batch (all),
 * or when the last write is RECORD_EVERY_S old. */
static int write_records(sweep *s, int all) {
  if (tsr_comm_rank() != 0 || (!all && tsr_comm_time() - s->written < RECORD_EVERY_S))
    return TSR_OK;
  s->written = tsr_comm_time();
  return tsr_journal_flush(&s->journal);
}

/* Runs trial todo[k] (retrying a failure --max-retries times) and keeps
 * its record; TSR_ERR_INTERRUPTED ends the sweep with the trial unkept. */
static int run_trial(sweep *s, int64_t k) {
  int64_t t = s->todo[k];
  tsr_trial_record r = {TSR_TRIAL_FAILED, s->attempts[k], 0, 0, "", 0, 0};
  int leader = tsr_comm_rank() == 0;
  for (int retry = 0; retry <= s->sw->max_retries; retry++) {
    r.attempts++;
    if (leader) TSR_CHECK(tsr_journal_start(&s->journal, t, r.attempts));
    double t0 = tsr_comm_time();
    int st = run_once(s, k, r.error, sizeof r.error);
    r.seconds = tsr_comm_time() - t0 - (s->path ? s->path->extra_s : 0);
    r.reused = tsr_nodes_adopted_bytes();
    if (st == TSR_ERR_INTERRUPTED || tsr_interrupted())
      return TSR_ERROR(TSR_ERR_INTERRUPTED, "interrupted");
    if (st == TSR_OK) {
      r.status = TSR_TRIAL_OK;
      break;
    }
  }
  if (r.status == TSR_TRIAL_OK)
    s->ok++;
  else
    s->failed++;
  report_trial(s, t, &r);
  if (leader) TSR_CHECK(tsr_journal_keep(&s->journal, t, &r));
  return write_records(s, 0);
}

/* The fits of trials todo[k .. k + n - 1] into path. A trial whose job
 * fails here lists nothing: it fails again, on its own, when it runs. */
static void list_fits(sweep *s, int64_t k, int64_t n, tsr_fit_path *path) {
  for (int64_t i = k; i < k + n; i++) {
    tsr_options o;
    trial_options(s, i, &o);
    if (tsr_job_fits(&o, s->name, s->text, path) != TSR_OK) tsr_error_clear();
  }
}

/* Trials todo[k .. k + n - 1], their fits as lambda paths. */
static int run_batch(sweep *s, int64_t k, int64_t n) {
  tsr_fit_path path = {0};
  path.warm = s->sw->warm_start;
  if (n > 1) {
    list_fits(s, k, n, &path);
    s->path = &path;
  }
  int st = TSR_OK; /* each record must be kept (and written when due); interrupted too, what
                      finished is written */
  for (int64_t i = k; i < k + n && st == TSR_OK; i++) st = tsr_agree(run_trial(s, i));
  int written = tsr_agree(write_records(s, 1));
  if (st == TSR_OK) st = written;
  if (path.paths && tsr_comm_rank() == 0 && !s->opt->quiet)
    fprintf(stderr,
            "tessera: sweep: trials %" PRId64 " to %" PRId64 ": %d lambda path%s%s, %d passes "
            "over X\n",
            s->todo[k], s->todo[k + n - 1], path.paths, path.paths == 1 ? "" : "s",
            path.warm ? " (warm starts)" : "", path.passes);
  s->path = NULL;
  tsr_fit_path_clear(&path);
  return st;
}

/* The group's loop: take a batch, run it, until the counter passes the
 * list. A group whose leader cannot write a record stops. */
static int run_group(sweep *s) {
  int leader = tsr_comm_rank() == 0;
  int st = tsr_agree(leader ? tsr_journal_begin(&s->journal, s->dir, s->run, s->group) : TSR_OK);
  s->written = tsr_comm_time();
  tsr_nodes_carry(1); /* held arrays no param changes go from trial to trial */
  while (st == TSR_OK) {
    int64_t k;
    if ((st = tsr_counter_take(s->batch, &k)) != TSR_OK || k >= s->ntodo) break;
    st = run_batch(s, k, k + s->batch <= s->ntodo ? s->batch : s->ntodo - k);
  }
  tsr_nodes_carry(0);
  tsr_journal_end(&s->journal);
  return st;
}

/* --batch, or auto: up to 16 trials, fewer when the groups would not all
 * get one; with --warm-start 16, whatever the groups. */
static int64_t batch_size(const sweep *s) {
  if (s->sw->batch > 0) return s->sw->batch;
  if (s->sw->warm_start) return WARM_BATCH;
  int per = s->sw->ranks_per_trial > 0 ? s->sw->ranks_per_trial : 1;
  int64_t groups = tsr_comm_world_size() / per, b = (s->ntodo + groups - 1) / groups;
  return b < 1 ? 1 : b > 16 ? 16 : b;
}

/* ---- the whole sweep ------------------------------------------------------- */

static int setup(sweep *s) {
  int per = s->sw->ranks_per_trial > 0 ? s->sw->ranks_per_trial : 1;
  if (tsr_comm_world_size() % per)
    return TSR_ERROR(TSR_ERR_VALUE, "%d ranks do not split into groups of --ranks-per-trial %d",
                     tsr_comm_world_size(), per);
  TSR_CHECK(tsr_sweep_plan_build(s->sw, &s->plan));
  if (s->sw->warm_start) s->plan.warm_batch = s->sw->batch > 0 ? s->sw->batch : WARM_BATCH;
  TSR_CHECK(check_job(s));
  int st = tsr_comm_rank() == 0 ? open_journal(s) : TSR_OK;
  TSR_CHECK(tsr_agree_rank0(st, "could not open the sweep's journal"));
  TSR_CHECK(share_todo(s));
  TSR_CHECK(tsr_job_devices_check(s->opt, &s->devices_checked));
  s->batch = batch_size(s);
  TSR_MALLOC(s->sets, sizeof *s->sets * (size_t)(s->opt->nsets + s->plan.nparams + 1));
  for (int k = 0; k < s->opt->nsets; k++) s->sets[k] = s->opt->sets[k];
  if (!(s->devnull = fopen("/dev/null", "w")))
    return TSR_ERROR(TSR_ERR_IO, "cannot open /dev/null");
  return TSR_OK;
}

/* All groups: run, then back to the world. The counter's window is freed
 * only when every group has passed the end of the list. */
static int run_groups(sweep *s) {
  TSR_CHECK(tsr_counter_open());
  int st = tsr_groups_split(s->sw->ranks_per_trial > 0 ? s->sw->ranks_per_trial : 1, &s->group);
  if (st == TSR_OK) st = run_group(s);
  int interrupted = st == TSR_ERR_INTERRUPTED, worst_int = interrupted;
  int joined = tsr_groups_join();
  tsr_counter_close();
  TSR_CHECK(joined);
  TSR_CHECK(tsr_world_max_int(interrupted, &worst_int));
  int worst = st;
  TSR_CHECK(tsr_world_max_int(st, &worst));
  if (worst_int) return TSR_ERROR(TSR_ERR_INTERRUPTED, "interrupted");
  if (st != TSR_OK) return st;
  return worst != TSR_OK ? TSR_ERROR(worst, "another group failed") : TSR_OK;
}

/* World totals of ok and failed trials. */
static int totals(sweep *s, int *ok, int *failed) {
  int64_t mine[2] = {s->ok, s->failed}, *all = NULL;
  int size = tsr_comm_world_size();
  if (tsr_comm_world_rank() == 0) TSR_MALLOC(all, sizeof *all * 2 * (size_t)size);
  int st = tsr_world_gather(mine, (int)sizeof mine, all);
  *ok = *failed = 0;
  for (int r = 0; all && r < size; r++)
    if (r % (s->sw->ranks_per_trial > 0 ? s->sw->ranks_per_trial : 1) == 0) {
      *ok += (int)all[2 * r];
      *failed += (int)all[2 * r + 1];
    }
  free(all);
  return st;
}

static int finish(sweep *s, FILE *out) {
  int ok = 0, failed = 0, st = TSR_OK, any_failed = 0;
  TSR_CHECK(totals(s, &ok, &failed));
  int leader = tsr_comm_rank() == 0;
  if (s->sw->nshards) {
    if (leader && !s->opt->quiet)
      fprintf(stderr,
              "tessera: sweep: shard %d/%d: %d trial%s ok, %d failed; merge the shards with "
              "tessera sweep --merge %s -o %s\n",
              s->sw->shard, s->sw->nshards, ok, ok == 1 ? "" : "s", failed, s->dir, s->opt->output);
    return failed ? TSR_ERR_TRIALS : TSR_OK;
  }
  if (leader) st = tsr_sweep_merge(s->dir, s->opt->output, s->sw, s->opt->quiet, out, &any_failed);
  TSR_CHECK(tsr_agree_rank0(st, "could not merge the sweep's journal"));
  TSR_CHECK(tsr_comm_bcast_bytes(&any_failed, sizeof any_failed, 0));
  return any_failed ? TSR_ERR_TRIALS : TSR_OK;
}

static int merge_only(const tsr_options *opt, const tsr_sweep_options *sw, FILE *out) {
  int any_failed = 0, st = TSR_OK;
  if (tsr_comm_rank() == 0)
    st = tsr_sweep_merge(sw->merge, opt->output, sw, opt->quiet, out, &any_failed);
  TSR_CHECK(tsr_agree_rank0(st, "could not merge the sweep's journal"));
  TSR_CHECK(tsr_comm_bcast_bytes(&any_failed, sizeof any_failed, 0));
  return any_failed ? TSR_ERR_TRIALS : TSR_OK;
}

int tsr_sweep(const tsr_options *opt, const tsr_sweep_options *sw, const char *name,
              const char *text, FILE *out) {
  if (!opt->output) return TSR_ERROR(TSR_ERR_VALUE, "a sweep needs -o OUT.h5 (its table)");
  if (sw->merge) return merge_only(opt, sw, out);
  sweep s = {0};
  s.opt = opt;
  s.sw = sw;
  s.name = name;
  s.text = text;
  tsr_journal_dir(opt->output, s.dir, sizeof s.dir);
  int st = setup(&s);
  if (st == TSR_OK) st = run_groups(&s);
  if (st == TSR_OK) st = finish(&s, out);
  if (s.devnull) fclose(s.devnull);
  free(s.todo);
  free(s.attempts);
  free(s.sets);
  tsr_sweep_plan_free(&s.plan);
  return st;
}
