/*
 * sweep_journal.c - the journal of a sweep (sweep.h): a directory
 * "<output>.trials" holding
 *   manifest                  the trial list and the job's hash (sweep_plan.c)
 *   job.tsr                   the job, for --merge's provenance
 *   run-RRRRRR                run R's claim: each tessera sweep on the journal
 *                             (shards running at once too) takes a number of
 *                             its own, above every earlier one
 *   starts-RRRRRR-GGGGGG.log  the trials group G of run R started, a line
 *                             "TRIAL ATTEMPTS" each, appended as each starts
 *   records-RRRRRR-TTTTTT.h5  trials of run R that finished together (the
 *                             first is T): a root attribute "records", a
 *                             line each (status, attempts, seconds, reused
 *                             bytes, error), and each ok trial's results
 *                             under its group trial-NNNNNN
 *   pending-RRRRRR-GGGGGG.bin the trials group G of run R finished since its
 *                             last records file, a blob each (record line and
 *                             results, sweep_pending.c), appended as each
 *                             finishes and emptied when the records file is
 *                             written; locked (fcntl) while its group lives
 * Any number of processes may create or join a journal at once (a job
 * array's shards start together): the manifest and job.tsr are written to
 * a private temporary "NAME.tmp-PID" and linked into place, so the first
 * wins and the others find its whole text, which must be theirs; an open
 * removes only the temporaries whose PID is gone from this host.
 * A records file is written under a temporary name, synced and renamed
 * (atomic on one file system), then the directory is synced, and a trial
 * is finished exactly when a records file holds it: a crash at any moment
 * leaves every recorded trial whole and the rest to redo. A later run's
 * record of a trial replaces an earlier one's. The records files are
 * written once a second at most (an fsync each trial would cost more than
 * a small trial); in between, each finished trial is one write() to the
 * pending file, not synced: once it returns the kernel has it, so a killed
 * process (kill -9, a segfault, the OOM killer) loses no finished trial,
 * and only a power cut or a node crash can lose the last second's. A load
 * first salvages the pending files no live process holds (their lock is
 * free) into the records files their flush would have written. The start
 * marks only count attempts: they are not synced either. Journals of older
 * versions, one trial-NNNNNN.try, .rec and .h5 each, are still read.
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "io/results.h"
#include "job/sweep.h"
#include "util/error.h"
#include "util/grow.h"
#include "util/signals.h"

void tsr_journal_dir(const char *output, char *dir, size_t n) {
  snprintf(dir, n, "%s.trials", output);
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

/* Whether name is PREFIX NUMBER [- NUMBER] SUFFIX, exactly; the numbers
 * into a and b (b: -1 when there is one). */
static int journal_name(const char *name, const char *prefix, const char *suffix, long long *a,
                        long long *b) {
  size_t n = strlen(prefix), m = strlen(suffix), len = strlen(name);
  if (strncmp(name, prefix, n) || len < n + m + 1 || strcmp(name + len - m, suffix)) return 0;
  char num[64];
  if (len - n - m >= sizeof num) return 0;
  memcpy(num, name + n, len - n - m);
  num[len - n - m] = 0;
  int used = 0;
  *b = -1;
  if (sscanf(num, "%lld-%lld%n", a, b, &used) == 2 && !num[used]) return 1;
  return sscanf(num, "%lld%n", a, &used) == 1 && !num[used];
}

static int is_trial_file(const char *name) {
  return !strncmp(name, "trial-", 6) || !strncmp(name, "records-", 8) ||
         !strncmp(name, "starts-", 7) || !strncmp(name, "pending-", 8);
}

/* Whether dir holds a trial's files (starts, records, pending or results). */
static int has_trials(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) return 0;
  int found = 0;
  for (struct dirent *e; !found && (e = readdir(d));) found = is_trial_file(e->d_name);
  closedir(d);
  return found;
}

/* The writer of a temporary "NAME.tmp-PID": its PID, or 0 when name is
 * not one. */
static long tmp_writer(const char *name) {
  const char *t = NULL;
  for (const char *p = name; (p = strstr(p, ".tmp-")); p++) t = p;
  char *end;
  long pid = t ? strtol(t + 5, &end, 10) : 0;
  return t && pid > 0 && end != t + 5 && !*end ? pid : 0;
}

/* The processes of one journal are assumed to run on one host: shards
 * started on several nodes at once, sharing a journal on a network file
 * system, can take another node's PID for a dead one (tsr_temp_writer_gone). */
/* Removes the temporaries of processes that are gone (a run that was
 * killed), never those of a process that may still be writing them (a
 * shard started at the same moment). */
static void remove_stale(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) return;
  char path[4200];
  for (struct dirent *e; (e = readdir(d));) {
    long pid = tmp_writer(e->d_name);
    if (!pid || !tsr_temp_writer_gone(pid)) continue;
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    unlink(path);
  }
  closedir(d);
}

/* Removes every trial's file and run claim (--overwrite). */
static void remove_trials(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) return;
  char path[4200];
  for (struct dirent *e; (e = readdir(d));)
    if (is_trial_file(e->d_name) || !strncmp(e->d_name, "run-", 4)) {
      snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
      unlink(path);
    }
  closedir(d);
}

/* The largest run number any file of dir names (0: none). */
static int last_run(const char *dir) {
  DIR *d = opendir(dir);
  long long run = 0, a, b;
  for (struct dirent *e; d && (e = readdir(d));)
    if (journal_name(e->d_name, "run-", "", &a, &b) ||
        journal_name(e->d_name, "records-", ".h5", &a, &b) ||
        journal_name(e->d_name, "starts-", ".log", &a, &b) ||
        journal_name(e->d_name, "pending-", ".bin", &a, &b))
      run = a > run ? a : run;
  if (d) closedir(d);
  return (int)run;
}

/* Claims the next free run number with an exclusive create. */
static int claim_run(const char *dir, int *run) {
  char path[4200];
  for (int r = last_run(dir) + 1;; r++) {
    snprintf(path, sizeof path, "%s/run-%06d", dir, r);
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0666);
    if (fd >= 0) {
      close(fd);
      *run = r;
      return TSR_OK;
    }
    if (errno != EEXIST)
      return TSR_ERROR(TSR_ERR_IO, "cannot write '%s': %s", path, strerror(errno));
  }
}

enum { CREATED, FOUND_SAME, FOUND_OTHER };

/* Creates path with text, or finds it there (*found): of any number of
 * processes creating it at once, one links its private temporary into
 * place and the others find that one's whole text, never a part. */
static int create_or_join(const char *path, const char *text, int *found) {
  int st = write_atomic(path, text, 1);
  *found = CREATED;
  if (st != -EEXIST) return st;
  char *old = read_text(path);
  *found = old && !strcmp(old, text) ? FOUND_SAME : FOUND_OTHER;
  free(old);
  return TSR_OK;
}

static int another_sweep(const char *dir) {
  return TSR_ERROR(TSR_ERR_VALUE,
                   "the journal '%s' is of another sweep (its job, trials or --warm-start "
                   "differ): --overwrite starts it afresh, or use another -o",
                   dir);
}

/* The manifest, created, joined or (fresh) replaced; with fresh the
 * journal's trials are removed. */
static int open_manifest(const char *dir, const char *manifest, int may_continue, int fresh) {
  char path[4200];
  int found;
  snprintf(path, sizeof path, "%s/manifest", dir);
  TSR_CHECK(create_or_join(path, manifest, &found));
  if (found == CREATED) return TSR_OK;
  if (found == FOUND_OTHER && !fresh) return another_sweep(dir);
  if (fresh) remove_trials(dir);
  if (found == FOUND_OTHER) TSR_CHECK(write_atomic(path, manifest, 0));
  if (!may_continue && has_trials(dir))
    return TSR_ERROR(TSR_ERR_VALUE,
                     "the journal '%s' holds trials of this sweep: --resume continues it", dir);
  return TSR_OK;
}

/* Any number of processes may open one journal at the same moment (the
 * shards of a job array): each creates what is missing or joins what
 * another created, and removes only the temporaries of the gone. */
int tsr_journal_open(const char *dir, const char *manifest, const char *job_text, int may_continue,
                     int fresh, int *run) {
  char path[4200];
  int found = CREATED;
  if (mkdir(dir, 0777) && errno != EEXIST)
    return TSR_ERROR(TSR_ERR_IO, "cannot create the sweep's journal '%s': %s", dir,
                     strerror(errno));
  remove_stale(dir);
  TSR_CHECK(open_manifest(dir, manifest, may_continue, fresh));
  snprintf(path, sizeof path, "%s/job.tsr", dir);
  TSR_CHECK(fresh ? write_atomic(path, job_text, 0) : create_or_join(path, job_text, &found));
  if (found == FOUND_OTHER) return another_sweep(dir);
  return claim_run(dir, run);
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

/* ---- records files and pending files ------------------------------------------- */

/* Syncs the directory, so that a records file's new name outlives a power
 * cut too (file systems that cannot sync a directory say EINVAL). */
static int sync_dir(const char *dir) {
  int fd = open(dir, O_RDONLY | O_DIRECTORY);
  if (fd < 0) return TSR_ERROR(TSR_ERR_IO, "cannot open '%s': %s", dir, strerror(errno));
  int rc = fsync(fd), err = errno;
  close(fd);
  if (rc == 0 || err == EINVAL) return TSR_OK;
  return TSR_ERROR(TSR_ERR_IO, "cannot sync '%s': %s", dir, strerror(err));
}

static void records_path(const char *dir, int run, int64_t first, char *path, size_t n) {
  snprintf(path, n, "%s/records-%06d-%06" PRId64 ".h5", dir, run, first);
}

/* Run's trials that finished together, the first named first (their lines
 * in text, their results in res), as one records file: the flush's and the
 * salvage's writer. */
static int write_records(const char *dir, int run, int64_t first, const char *text,
                         const tsr_results_set *res) {
  char path[4200];
  records_path(dir, run, first, path, sizeof path);
  tsr_attr attrs[] = {{"records", text, 0}, {"tessera_version", TSR_VERSION, 0}};
  TSR_CHECK(tsr_results_write(path, res->items, res->n, attrs, 2));
  return sync_dir(dir);
}

/* Opens path (flags) and takes its write lock without waiting: an fcntl
 * lock, which holds until this process closes the file or ends, however it
 * ends (it does not keep out the process itself). *fd: the file, or -1 when
 * another process holds the lock, when path is gone or was replaced while
 * it was taken (the file is no longer path's), or when, *no_locks, the
 * file system has no locks (a Lustre mounted without flock). */
static int lock_open(const char *path, int flags, int *fd, int *no_locks) {
  struct flock lk;
  memset(&lk, 0, sizeof lk);
  lk.l_type = F_WRLCK;
  lk.l_whence = SEEK_SET; /* start 0, length 0: the whole file */
  *no_locks = 0;
  if ((*fd = open(path, flags, 0666)) < 0)
    return errno == ENOENT && !(flags & O_CREAT)
               ? TSR_OK
               : TSR_ERROR(TSR_ERR_IO, "cannot open '%s': %s", path, strerror(errno));
  struct stat a, b;
  int locked = fcntl(*fd, F_SETLK, &lk) == 0;
  *no_locks = !locked && errno != EACCES && errno != EAGAIN;
  if (locked && fstat(*fd, &a) == 0 && stat(path, &b) == 0 && a.st_dev == b.st_dev &&
      a.st_ino == b.st_ino)
    return TSR_OK;
  close(*fd);
  *fd = -1;
  return TSR_OK;
}

static int read_fd(int fd, const char *path, tsr_bytes *b) {
  unsigned char chunk[65536];
  for (ssize_t got; (got = read(fd, chunk, sizeof chunk)) != 0;) {
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return TSR_ERROR(TSR_ERR_IO, "cannot read '%s': %s", path, strerror(errno));
    TSR_CHECK(tsr_bytes_put(b, chunk, (size_t)got));
  }
  return TSR_OK;
}

/* ---- salvage: the pending files of processes that were killed -------------------- */

/* The trial of a record line, or -1. */
static int64_t line_trial(const char *line, size_t len) {
  char head[40];
  long long t;
  snprintf(head, sizeof head, "%.*s", (int)(len < sizeof head ? len : sizeof head - 1), line);
  return sscanf(head, "trial %lld ", &t) == 1 && t >= 0 ? t : -1;
}

/* The trials of a pending file's blobs, up to the first torn or damaged
 * one: their lines in text (a string), their results in res, the first of
 * them in *first (-1: none). */
static int read_blobs(const unsigned char *p, size_t n, tsr_bytes *text, tsr_results_set *res,
                      int64_t *first) {
  *first = -1;
  for (size_t used = 1; n && used; p += used, n -= used) {
    const char *line;
    size_t len;
    int before = res->n;
    TSR_CHECK(tsr_pending_decode(p, n, &used, &line, &len, res));
    if (used && line_trial(line, len) < 0) { /* not a record line: damaged */
      tsr_results_set_truncate(res, before);
      used = 0;
    }
    if (used && *first < 0) *first = line_trial(line, len);
    if (used) TSR_CHECK(tsr_bytes_put(text, line, len));
  }
  return tsr_bytes_put(text, "", 1);
}

/* Salvages dir/name, run's pending file, unless a live process holds it:
 * its trials become the records file its flush would have written, named
 * by its first trial (the first one kept since the flush before, which
 * emptied the file), unless that file is there (the flush was done, the
 * emptying was not); then the pending file is removed. */
static int salvage(const char *dir, const char *name, int run) {
  char path[4200], records[4200];
  int fd, no_locks;
  snprintf(path, sizeof path, "%s/%s", dir, name);
  TSR_CHECK(lock_open(path, O_RDWR, &fd, &no_locks));
  if (fd < 0) return TSR_OK;
  tsr_bytes blobs = {0}, text = {0};
  tsr_results_set res = {0};
  int64_t first = -1;
  int st = read_fd(fd, path, &blobs);
  if (st == TSR_OK) st = read_blobs(blobs.p, blobs.len, &text, &res, &first);
  if (first >= 0) records_path(dir, run, first, records, sizeof records);
  if (st == TSR_OK && first >= 0 && access(records, F_OK) != 0)
    st = write_records(dir, run, first, (const char *)text.p, &res);
  if (st == TSR_OK && unlink(path))
    st = TSR_ERROR(TSR_ERR_IO, "cannot remove '%s': %s", path, strerror(errno));
  close(fd);
  tsr_bytes_free(&blobs);
  tsr_bytes_free(&text);
  tsr_results_set_clear(&res);
  return st;
}

static int salvage_all(const char *dir) {
  DIR *d = opendir(dir);
  long long a, b;
  int st = TSR_OK;
  for (struct dirent *e; d && st == TSR_OK && (e = readdir(d));)
    if (journal_name(e->d_name, "pending-", ".bin", &a, &b) && b >= 0)
      st = salvage(dir, e->d_name, (int)a);
  if (d) closedir(d);
  return st;
}

/* ---- reading every record ------------------------------------------------------ */

typedef struct loading {
  const char *dir;
  int64_t n;
  tsr_trial_record *recs;
  int *starts; /* the most attempts a start mark of each trial counts */
} loading;

/* r as trial t's record unless a later run's is there already. */
static void take(loading *l, int64_t t, const tsr_trial_record *r) {
  if (t < 0 || t >= l->n || l->recs[t].run >= r->run) return;
  l->recs[t] = *r;
}

/* One line of a records attribute: "trial T status S attempts A seconds X
 * reused B error TEXT". */
static int parse_record(const char *line, int64_t *t, tsr_trial_record *r) {
  long long tt;
  char status[16];
  int used = 0;
  if (sscanf(line, "trial %lld status %15s attempts %d seconds %lf reused %lf error %n", &tt,
             status, &r->attempts, &r->seconds, &r->reused, &used) != 5 ||
      !used)
    return 0;
  r->status = !strcmp(status, "ok") ? TSR_TRIAL_OK : TSR_TRIAL_FAILED;
  snprintf(r->error, sizeof r->error, "%s", line + used);
  *t = tt;
  return 1;
}

static void load_records(loading *l, const char *name, int run, int64_t first) {
  char path[4200], *text = NULL;
  snprintf(path, sizeof path, "%s/%s", l->dir, name);
  if (tsr_results_read_text(path, "records", &text) != TSR_OK) {
    tsr_error_clear(); /* not a records file: no trial is recorded by it */
    return;
  }
  for (char *line = text, *nl; line && *line; line = nl ? nl + 1 : NULL) {
    if ((nl = strchr(line, '\n'))) *nl = 0;
    tsr_trial_record r = {0};
    int64_t t;
    r.run = run, r.file = first;
    if (parse_record(line, &t, &r)) take(l, t, &r);
  }
  free(text);
}

/* "TRIAL ATTEMPTS" lines; a last line without its newline (cut by a
 * power loss) is not one. */
static void load_starts(loading *l, const char *name) {
  char path[4200];
  snprintf(path, sizeof path, "%s/%s", l->dir, name);
  char *text = read_text(path);
  for (char *line = text, *nl; line && (nl = strchr(line, '\n')); line = nl + 1) {
    long long t;
    int a;
    *nl = 0;
    if (sscanf(line, "%lld %d", &t, &a) == 2 && t >= 0 && t < l->n && a > l->starts[t])
      l->starts[t] = a;
  }
  free(text);
}

/* An older journal's trial-NNNNNN.rec ("status S\nattempts A\nseconds X\n
 * reused B\nerror TEXT\n") or .try ("ATTEMPTS\n"). */
static void load_old(loading *l, const char *name, int64_t t, int rec) {
  char path[4200];
  snprintf(path, sizeof path, "%s/%s", l->dir, name);
  char *text = read_text(path), status[16] = "";
  tsr_trial_record r = {0};
  if (text && !rec && t >= 0 && t < l->n && atoi(text) > l->starts[t]) l->starts[t] = atoi(text);
  if (text && rec &&
      sscanf(text, "status %15s attempts %d seconds %lf", status, &r.attempts, &r.seconds) == 3) {
    const char *e = strstr(text, "\nerror "), *u = strstr(text, "\nreused ");
    r.status = !strcmp(status, "ok") ? TSR_TRIAL_OK : TSR_TRIAL_FAILED;
    if (e) snprintf(r.error, sizeof r.error, "%.*s", (int)strcspn(e + 7, "\n"), e + 7);
    if (u) r.reused = strtod(u + 8, NULL);
    r.run = 0, r.file = t;
    take(l, t, &r);
  }
  free(text);
}

static void load_entry(loading *l, const char *name) {
  long long a, b;
  if (journal_name(name, "records-", ".h5", &a, &b) && b >= 0) load_records(l, name, (int)a, b);
  if (journal_name(name, "starts-", ".log", &a, &b)) load_starts(l, name);
  if (journal_name(name, "trial-", ".rec", &a, &b) && b < 0) load_old(l, name, a, 1);
  if (journal_name(name, "trial-", ".try", &a, &b) && b < 0) load_old(l, name, a, 0);
}

int tsr_journal_load(const char *dir, int64_t ntrials, tsr_trial_record *recs) {
  TSR_CHECK(salvage_all(dir));
  loading l = {dir, ntrials, recs, calloc((size_t)ntrials + 1, sizeof(int))};
  if (!l.starts) return TSR_ERROR(TSR_ERR_MEMORY, "out of memory reading the journal");
  for (int64_t t = 0; t < ntrials; t++) recs[t] = (tsr_trial_record){.run = -1};
  DIR *d = opendir(dir);
  for (struct dirent *e; d && (e = readdir(d));) load_entry(&l, e->d_name);
  if (d) closedir(d);
  for (int64_t t = 0; t < ntrials; t++)
    if (l.starts[t] > recs[t].attempts) recs[t].attempts = l.starts[t];
  free(l.starts);
  return d ? TSR_OK : TSR_ERROR(TSR_ERR_IO, "cannot read '%s': %s", dir, strerror(errno));
}

void tsr_journal_group(int64_t t, char *group, size_t n) {
  snprintf(group, n, "trial-%06" PRId64, t);
}

void tsr_journal_results(const char *dir, int64_t t, const tsr_trial_record *r, char *path,
                         size_t n, char *group, size_t gn) {
  if (r->run == 0) { /* an older journal's own file */
    snprintf(path, n, "%s/trial-%06" PRId64 ".h5", dir, t);
    group[0] = 0;
    return;
  }
  records_path(dir, r->run, r->file, path, n);
  tsr_journal_group(t, group, gn);
}

/* ---- a group's writer ----------------------------------------------------------- */

static void pending_path(const tsr_journal *j, char *path, size_t n) {
  snprintf(path, n, "%s/pending-%06d-%06d.bin", j->dir, j->run, j->group);
}

/* The pending file, created and locked (a salvage that took it in the
 * moment between has removed it: then again). Where the file system has no
 * locks there is none, and a killed process loses the trials it finished
 * since its last records file, as before there were pending files. */
static int open_pending(tsr_journal *j) {
  char path[4200];
  int no_locks = 0;
  pending_path(j, path, sizeof path);
  for (int tries = 0; tries < 100; tries++) {
    TSR_CHECK(lock_open(path, O_WRONLY | O_CREAT | O_APPEND, &j->pending, &no_locks));
    if (j->pending >= 0) {
      j->has_pending = 1;
      return TSR_OK;
    }
    if (no_locks) {
      unlink(path);
      return TSR_OK;
    }
    nanosleep(&(struct timespec){0, 1000000}, NULL);
  }
  return TSR_ERROR(TSR_ERR_IO, "cannot lock '%s': another process holds it", path);
}

/* After a failure the pending file is left as it is, unlocked, for a load
 * to salvage, and no more trials are appended to it. */
static void retire_pending(tsr_journal *j) {
  if (j->has_pending) close(j->pending);
  j->has_pending = 0;
}

static int pending_error(const tsr_journal *j, const char *what, int err) {
  char path[4200];
  pending_path(j, path, sizeof path);
  return TSR_ERROR(TSR_ERR_IO, "cannot %s '%s': %s", what, path, strerror(err));
}

int tsr_journal_begin(tsr_journal *j, const char *dir, int run, int group) {
  memset(j, 0, sizeof *j);
  snprintf(j->dir, sizeof j->dir, "%s", dir);
  j->run = run, j->group = group;
  j->first = -1;
  char path[4200];
  snprintf(path, sizeof path, "%s/starts-%06d-%06d.log", dir, run, group);
  j->log = open(path, O_WRONLY | O_CREAT | O_APPEND, 0666);
  if (j->log < 0) return TSR_ERROR(TSR_ERR_IO, "cannot write '%s': %s", path, strerror(errno));
  j->has_log = 1;
  return open_pending(j);
}

int tsr_journal_start(tsr_journal *j, int64_t t, int attempts) {
  char line[64];
  int n = snprintf(line, sizeof line, "%" PRId64 " %d\n", t, attempts);
  if (write(j->log, line, (size_t)n) != n) /* one write: a whole line or none */
    return TSR_ERROR(TSR_ERR_IO, "cannot write the start of trial %" PRId64 " in '%s': %s", t,
                     j->dir, strerror(errno));
  return TSR_OK;
}

/* A kept trial's record line and results items (from the first not yet
 * appended) as one blob in one write, not synced: once write returns, the
 * kernel has the whole trial whatever becomes of the process. */
static int append_pending(tsr_journal *j, const char *line, size_t len, int from) {
  int st = tsr_pending_encode(&j->blob, line, len, j->results.items + from, j->results.n - from);
  for (size_t done = 0; st == TSR_OK && done < j->blob.len;) {
    ssize_t w = write(j->pending, j->blob.p + done, j->blob.len - done);
    if (w < 0 && errno == EINTR) continue;
    if (w > 0) done += (size_t)w;
    if (w <= 0) st = pending_error(j, "write a trial to", errno);
  }
  if (st != TSR_OK) retire_pending(j);
  return st;
}

int tsr_journal_keep(tsr_journal *j, int64_t t, const tsr_trial_record *r) {
  char err[1024];
  snprintf(err, sizeof err, "%s", r->error);
  for (char *c = err; *c; c++)
    if (*c == '\n') *c = ' ';
  size_t at = j->len;
  TSR_CHECK(tsr_grow((void **)&j->text, &j->cap, (int64_t)(j->len + sizeof err + 160), 1,
                     "keeping a trial's record"));
  j->len += (size_t)snprintf(j->text + j->len, (size_t)j->cap - j->len,
                             "trial %" PRId64 " status %s attempts %d seconds %.17g reused %.17g "
                             "error %s\n",
                             t, r->status == TSR_TRIAL_OK ? "ok" : "failed", r->attempts,
                             r->seconds, r->reused, err);
  if (j->first < 0) j->first = t;
  j->kept++;
  int from = j->sent; /* the items added since the last keep: this trial's */
  j->sent = j->results.n;
  return j->has_pending ? append_pending(j, j->text + at, j->len - at, from) : TSR_OK;
}

int tsr_journal_flush(tsr_journal *j) {
  if (!j->kept) return TSR_OK;
  int st = write_records(j->dir, j->run, j->first, j->text, &j->results);
  if (st == TSR_OK && j->has_pending && ftruncate(j->pending, 0))
    st = pending_error(j, "empty", errno);
  if (st != TSR_OK) retire_pending(j);
  tsr_results_set_clear(&j->results);
  j->len = 0, j->kept = 0, j->first = -1, j->sent = 0;
  return st;
}

void tsr_journal_end(tsr_journal *j) {
  if (j->has_log) close(j->log);
  struct stat st;
  char path[4200];
  pending_path(j, path, sizeof path);
  if (j->has_pending && fstat(j->pending, &st) == 0 && st.st_size == 0)
    unlink(path); /* while locked, so that no salvage has it */
  retire_pending(j);
  tsr_results_set_clear(&j->results);
  tsr_bytes_free(&j->blob);
  free(j->text);
  memset(j, 0, sizeof *j);
}
