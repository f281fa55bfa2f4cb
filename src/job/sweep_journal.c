/*
 * sweep_journal.c - the journal of a sweep (sweep.h): a directory
 * "<output>.trials" holding
 *   manifest           the trial list and the job's hash (sweep_plan.c)
 *   job.tsr            the job, for --merge's provenance
 *   trial-NNNNNN.try   the attempts of trial N so far, written as it starts
 *   trial-NNNNNN.h5    trial N's results file (tessera run's), when it succeeded
 *   trial-NNNNNN.rec   trial N's record: status, attempts, seconds, error
 * Every file is written under a temporary name and renamed (atomic on one
 * file system), and a trial is finished exactly when its .rec exists, so a
 * crash at any moment leaves finished trials whole and the rest to redo.
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "job/sweep.h"
#include "util/error.h"

void tsr_journal_dir(const char *output, char *dir, size_t n) {
  snprintf(dir, n, "%s.trials", output);
}

void tsr_journal_path(const char *dir, int64_t t, const char *ext, char *path, size_t n) {
  snprintf(path, n, "%s/trial-%06" PRId64 ".%s", dir, t, ext);
}

/* Writes text to path through a temporary name; with exclusive, an existing
 * path is left alone and reported as EEXIST. */
static int write_atomic(const char *path, const char *text, int exclusive) {
  char tmp[4200];
  snprintf(tmp, sizeof tmp, "%s.tmp-%ld", path, (long)getpid());
  FILE *f = fopen(tmp, "w");
  if (!f) return TSR_ERROR(TSR_ERR_IO, "cannot write '%s': %s", tmp, strerror(errno));
  int ok = fputs(text, f) >= 0;
  ok = (fflush(f) == 0) & ok;
  ok = (fsync(fileno(f)) == 0) & ok;
  ok = (fclose(f) == 0) & ok;
  int err = errno;
  if (ok && exclusive) {
    ok = link(tmp, path) == 0;
    err = errno;
    unlink(tmp);
    if (!ok && err == EEXIST) return -EEXIST;
  } else if (ok) {
    ok = rename(tmp, path) == 0;
    err = errno;
  }
  if (!ok) {
    unlink(tmp);
    return TSR_ERROR(TSR_ERR_IO, "cannot write '%s': %s", path, strerror(err));
  }
  return TSR_OK;
}

static char *read_text(const char *path) {
  FILE *f = fopen(path, "r");
  if (!f) return NULL;
  char *buf = NULL;
  size_t cap = 0, n = 0;
  for (;;) {
    if (n + 4096 > cap) {
      char *b = realloc(buf, cap = 2 * cap + 8192);
      if (!b) break;
      buf = b;
    }
    size_t got = fread(buf + n, 1, cap - n - 1, f);
    n += got;
    if (got == 0) break;
  }
  fclose(f);
  if (buf) buf[n] = 0;
  return buf;
}

/* Whether dir holds a trial's files (records or results). */
static int has_trials(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) return 0;
  int found = 0;
  for (struct dirent *e; !found && (e = readdir(d));) found = !strncmp(e->d_name, "trial-", 6);
  closedir(d);
  return found;
}

/* Removes temporaries left by a run that was killed (and, with all, every
 * trial's file). */
static void remove_files(const char *dir, int all) {
  DIR *d = opendir(dir);
  if (!d) return;
  char path[4200];
  for (struct dirent *e; (e = readdir(d));)
    if (strstr(e->d_name, ".tmp-") || (all && !strncmp(e->d_name, "trial-", 6))) {
      snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
      unlink(path);
    }
  closedir(d);
}

int tsr_journal_open(const char *dir, const char *manifest, const char *job_text, int may_continue,
                     int fresh) {
  char path[4200];
  if (mkdir(dir, 0777) && errno != EEXIST)
    return TSR_ERROR(TSR_ERR_IO, "cannot create the sweep's journal '%s': %s", dir,
                     strerror(errno));
  snprintf(path, sizeof path, "%s/manifest", dir);
  int st = write_atomic(path, manifest, 1);
  if (st == -EEXIST) {
    char *old = read_text(path);
    int same = old && !strcmp(old, manifest);
    free(old);
    if (!same && fresh) {
      remove_files(dir, 1);
      TSR_CHECK(write_atomic(path, manifest, 0));
    } else if (!same)
      return TSR_ERROR(
          TSR_ERR_VALUE,
          "the journal '%s' is of another sweep (its job, trials or --warm-start differ): "
          "--overwrite starts it afresh, or use another -o",
          dir);
    if (fresh) remove_files(dir, 1);
    if (!may_continue && has_trials(dir))
      return TSR_ERROR(TSR_ERR_VALUE,
                       "the journal '%s' holds trials of this sweep: --resume continues it", dir);
  } else {
    TSR_CHECK(st);
  }
  remove_files(dir, 0);
  snprintf(path, sizeof path, "%s/job.tsr", dir);
  return write_atomic(path, job_text, 0);
}

static int read_in(const char *dir, const char *name, char **text) {
  char path[4200];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  if (!(*text = read_text(path)))
    return TSR_ERROR(TSR_ERR_IO, "cannot read '%s': %s", path, strerror(errno));
  return TSR_OK;
}

int tsr_journal_manifest(const char *dir, char **text) { return read_in(dir, "manifest", text); }
int tsr_journal_job(const char *dir, char **text) { return read_in(dir, "job.tsr", text); }

int tsr_journal_start(const char *dir, int64_t t, int attempts) {
  char path[4200], text[32];
  tsr_journal_path(dir, t, "try", path, sizeof path);
  snprintf(text, sizeof text, "%d\n", attempts);
  return write_atomic(path, text, 0);
}

int tsr_journal_record(const char *dir, int64_t t, const tsr_trial_record *r) {
  char path[4200], text[1400], err[1024];
  snprintf(err, sizeof err, "%s", r->error);
  for (char *c = err; *c; c++)
    if (*c == '\n') *c = ' ';
  snprintf(text, sizeof text, "status %s\nattempts %d\nseconds %.17g\nreused %.17g\nerror %s\n",
           r->status == TSR_TRIAL_OK ? "ok" : "failed", r->attempts, r->seconds, r->reused, err);
  tsr_journal_path(dir, t, "rec", path, sizeof path);
  return write_atomic(path, text, 0);
}

void tsr_journal_read(const char *dir, int64_t t, tsr_trial_record *r) {
  char path[4200];
  memset(r, 0, sizeof *r);
  tsr_journal_path(dir, t, "try", path, sizeof path);
  char *text = read_text(path);
  if (text) r->attempts = atoi(text);
  free(text);
  tsr_journal_path(dir, t, "rec", path, sizeof path);
  if (!(text = read_text(path))) return;
  char status[16] = "";
  const char *e = strstr(text, "\nerror ");
  if (sscanf(text, "status %15s attempts %d seconds %lf", status, &r->attempts, &r->seconds) == 3) {
    r->status = !strcmp(status, "ok") ? TSR_TRIAL_OK : TSR_TRIAL_FAILED;
    if (e) snprintf(r->error, sizeof r->error, "%.*s", (int)strcspn(e + 7, "\n"), e + 7);
    const char *u = strstr(text, "\nreused ");
    if (u) r->reused = strtod(u + 8, NULL);
  }
  free(text);
}
