/*
 * test_journal.c - unit tests of a sweep journal's pending files
 * (job/sweep_journal.c, job/sweep_pending.c): the trials a group kept but
 * never wrote as a records file (its process killed) are salvaged by the
 * next load, whole trials only, with their records and their results bit
 * for bit; a pending file that a live process holds is left alone; a
 * salvage never writes a trial twice; processes opening one journal at
 * once all join it, and an open removes only the temporaries of processes
 * that are gone.
 *
 * The crash is made deterministically: a journal kept without a flush, its
 * pending file then cut, extended with garbage or damaged; and, for the
 * lock, a child process killed with SIGKILL. Every test works in its own
 * mkdtemp directory, which the teardown removes.
 */
#define _DEFAULT_SOURCE /* mkdtemp */

#include "io/results.h"
#include "kernel/ids.h"
#include "job/sweep.h"
#include "util/error.h"

#include <check.h>
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define NTRIALS 12

static char dir[64];

static void remove_tree(const char *p) {
  DIR *d = opendir(p);
  if (!d) return;
  for (struct dirent *e; (e = readdir(d));) {
    char sub[512];
    snprintf(sub, sizeof sub, "%s/%s", p, e->d_name);
    if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) unlink(sub);
  }
  closedir(d);
  rmdir(p);
}

static void setup(void) {
  strcpy(dir, "/tmp/tsr-journal-XXXXXX");
  ck_assert_ptr_nonnull(mkdtemp(dir));
  tsr_error_clear();
}

static void teardown(void) { remove_tree(dir); }

/* The names in dir that start with prefix, sorted, space-separated. */
static void names(const char *prefix, char *out, size_t n) {
  struct dirent **list;
  int k = scandir(dir, &list, NULL, alphasort);
  ck_assert_int_ge(k, 0);
  out[0] = 0;
  for (int i = 0; i < k; i++) {
    if (list[i]->d_name[0] != '.' && !strncmp(list[i]->d_name, prefix, strlen(prefix)))
      snprintf(out + strlen(out), n - strlen(out), "%s%s", out[0] ? " " : "", list[i]->d_name);
    free(list[i]);
  }
  free(list);
}

static off_t size_of(const char *name) {
  char path[256];
  struct stat st;
  snprintf(path, sizeof path, "%s/%s", dir, name);
  ck_assert_int_eq(stat(path, &st), 0);
  return st.st_size;
}

/* ---- the trials ------------------------------------------------------------------ */

/* Trial t's results: values that a conversion would change (-0.0, a
 * subnormal, a value float32 cannot hold), int64, strings, a float32
 * item, a scalar with a number and a text attribute. */
static const int64_t shape3[] = {3}, shape2[] = {2};
static double coef_of(int64_t t, int k) {
  const double v[] = {0.1, -0.0, 4.9e-320};
  return v[k] + (k == 0 ? (double)t : 0);
}

static void add_results(tsr_results_set *s, int64_t t) {
  double coef[3] = {coef_of(t, 0), coef_of(t, 1), coef_of(t, 2)}, norm = 2.0 * (double)t + 1e-17;
  double f[2] = {1.5, (double)t};
  double count = 1000.0 + (double)t, flag = (double)(t % 2);
  int64_t ints[2] = {t, -7};
  const char *labels[2] = {"a b", "\xc3\xbc"};
  tsr_attr attrs[] = {{"n_iter", NULL, 12}, {"solver", "lbfgs", 0}};
  tsr_result_item items[] = {
      {"coef", 1, shape3, 0, coef, NULL, 0, NULL, NULL},
      {"n", 1, shape2, 0, NULL, NULL, 0, NULL, ints},
      {"label", 1, shape2, 0, NULL, NULL, 0, labels, NULL},
      {"f", 1, shape2, 1, f, NULL, 0, NULL, NULL},
      {"norm", 0, NULL, 0, &norm, attrs, 2, NULL, NULL},
      /* a job's Python int and bool (param(1000), isnan(nan)): int64 and bool
       * scalars, which a salvage once refused (any dtype but the floats) */
      {"rows", 0, NULL, TSR_I64, &count, NULL, 0, NULL, NULL},
      {"flag", 0, NULL, TSR_BOOL, &flag, NULL, 0, NULL, NULL},
  };
  char group[64];
  tsr_journal_group(t, group, sizeof group);
  ck_assert_int_eq(tsr_results_set_add(s, group, items, 7), TSR_OK);
}

/* Keeps trial t as a sweep does: its results added, then its record. */
static void keep(tsr_journal *j, int64_t t, int ok) {
  tsr_trial_record r = {ok ? TSR_TRIAL_OK : TSR_TRIAL_FAILED, 1, 0.25, 0, "", 0, 0};
  if (ok)
    add_results(&j->results, t);
  else
    snprintf(r.error, sizeof r.error, "negative dimension -%d", (int)t);
  ck_assert_int_eq(tsr_journal_keep(j, t, &r), TSR_OK);
}

static void expect_line(char *text, size_t n, int64_t t, int ok) {
  size_t len = strlen(text);
  if (ok)
    snprintf(text + len, n - len, "trial %d status ok attempts 1 seconds 0.25 reused 0 error \n",
             (int)t);
  else
    snprintf(text + len, n - len,
             "trial %d status failed attempts 1 seconds 0.25 reused 0 error negative dimension "
             "-%d\n",
             (int)t, (int)t);
}

static const tsr_result_item *find(const tsr_result_item *items, int n, const char *name) {
  for (int i = 0; i < n; i++)
    if (!strcmp(items[i].name, name)) return &items[i];
  ck_abort_msg("no result '%s'", name);
  return NULL;
}

/* Trial t's results as the merge reads them: the numbers bit for bit. */
static void check_results(const tsr_trial_record *r, int64_t t) {
  char path[4200], group[64];
  tsr_journal_results(dir, t, r, path, sizeof path, group, sizeof group);
  tsr_result_item *items;
  int n;
  ck_assert_int_eq(tsr_results_read(path, group, &items, &n), TSR_OK);
  ck_assert_int_eq(n, 6); /* the strings are no number */
  const tsr_result_item *rows = find(items, n, "rows"), *flag = find(items, n, "flag");
  ck_assert_int_eq(rows->dtype, TSR_I64); /* the types survive the records file */
  ck_assert_int_eq(flag->dtype, TSR_BOOL);
  ck_assert(rows->data[0] == 1000.0 + (double)t && flag->data[0] == (double)(t % 2));
  const tsr_result_item *c = find(items, n, "coef"), *i = find(items, n, "n");
  const tsr_result_item *f = find(items, n, "f"), *m = find(items, n, "norm");
  ck_assert_int_eq(c->ndim, 1);
  ck_assert_int_eq(c->shape[0], 3);
  double coef[3] = {coef_of(t, 0), coef_of(t, 1), coef_of(t, 2)}, norm = 2.0 * (double)t + 1e-17;
  ck_assert_mem_eq(c->data, coef, sizeof coef);
  ck_assert(i->data[0] == (double)t && i->data[1] == -7);
  ck_assert(f->data[0] == 1.5 && f->data[1] == (double)t);
  ck_assert_int_eq(m->ndim, 0);
  ck_assert_mem_eq(m->data, &norm, sizeof norm);
  ck_assert_int_eq(m->nattrs, 1); /* the text attribute is no number */
  ck_assert_str_eq(m->attrs[0].key, "n_iter");
  ck_assert(m->attrs[0].number == 12);
  tsr_results_free(items, n);
}

static void load(tsr_trial_record *recs) {
  ck_assert_int_eq(tsr_journal_load(dir, NTRIALS, recs), TSR_OK);
}

/* Exactly the trials of want (ok[]: whether each is ok) are recorded, by
 * run in the records file of want[0], with their records' text. */
static void expect_recorded(const tsr_trial_record *recs, int run, const int64_t *want,
                            const int *ok, int n) {
  char path[4200], text[4096] = "", *got;
  for (int64_t t = 0; t < NTRIALS; t++) {
    int k = 0;
    while (k < n && want[k] != t) k++;
    if (k == n) {
      ck_assert_msg(recs[t].run == -1 && recs[t].status == TSR_TRIAL_TODO, "trial %d recorded",
                    (int)t);
      continue;
    }
    ck_assert_msg(recs[t].status == (ok[k] ? TSR_TRIAL_OK : TSR_TRIAL_FAILED), "trial %d", (int)t);
    ck_assert_int_eq(recs[t].run, run);
    ck_assert_int_eq(recs[t].file, want[0]);
    ck_assert_int_eq(recs[t].attempts, 1);
    if (ok[k]) check_results(&recs[t], t);
    char error[64];
    snprintf(error, sizeof error, "negative dimension -%d", (int)t);
    if (!ok[k]) ck_assert_str_eq(recs[t].error, error);
    expect_line(text, sizeof text, t, ok[k]);
  }
  snprintf(path, sizeof path, "%s/records-%06d-%06d.h5", dir, run, (int)want[0]);
  ck_assert_int_eq(tsr_results_read_text(path, "records", &got), TSR_OK);
  ck_assert_str_eq(got, text);
  free(got);
}

/* ---- salvage of a killed group's trials ---------------------------------------------- */

enum { CUT_IN_BLOB, CUT_IN_HEADER, GARBAGE_AFTER, DAMAGED_BLOB, NDAMAGE };

/* Trials 5 (ok), 7 (failed), 9 and 11 (ok) kept by group 1 of run 3, never
 * flushed; then the pending file damaged one of four ways: the last blob
 * cut in its body or its header (a power cut), garbage after the last
 * blob, one byte of the third blob changed. The load salvages exactly the
 * whole blobs before the damage. */
START_TEST(salvage_keeps_the_whole_trials_before_a_torn_or_damaged_blob) {
  tsr_journal j;
  const int64_t trials[] = {5, 7, 9, 11};
  const int ok[] = {1, 0, 1, 1};
  off_t end[4];
  ck_assert_int_eq(tsr_journal_begin(&j, dir, 3, 1), TSR_OK);
  for (int k = 0; k < 4; k++) {
    keep(&j, trials[k], ok[k]);
    end[k] = size_of("pending-000003-000001.bin");
    ck_assert_int_gt(end[k], k ? end[k - 1] : 0); /* one blob each */
  }
  tsr_journal_end(&j); /* the process ends without its flush */
  char path[256];
  snprintf(path, sizeof path, "%s/pending-000003-000001.bin", dir);
  int fd = open(path, O_RDWR), whole = 4;
  ck_assert_int_ge(fd, 0);
  if (_i == CUT_IN_BLOB) ck_assert_int_eq(ftruncate(fd, (end[2] + end[3]) / 2), 0);
  if (_i == CUT_IN_HEADER) ck_assert_int_eq(ftruncate(fd, end[2] + 5), 0);
  if (_i == GARBAGE_AFTER) { /* a header, 4 bytes of body, a wrong checksum */
    unsigned char junk[28] = "TSRPEND1";
    uint64_t four = 4;
    memcpy(junk + 8, &four, 8);
    memcpy(junk + 16, "abcd", 4);
    ck_assert_int_eq(pwrite(fd, junk, sizeof junk, end[3]), (ssize_t)sizeof junk);
  }
  if (_i == DAMAGED_BLOB) {
    unsigned char c;
    ck_assert_int_eq(pread(fd, &c, 1, end[1] + 40), 1);
    c ^= 0x10;
    ck_assert_int_eq(pwrite(fd, &c, 1, end[1] + 40), 1);
  }
  close(fd);
  whole = _i == GARBAGE_AFTER ? 4 : _i == DAMAGED_BLOB ? 2 : 3;

  tsr_trial_record recs[NTRIALS];
  load(recs);
  expect_recorded(recs, 3, trials, ok, whole);
  char got[512];
  names("", got, sizeof got);
  ck_assert_str_eq(got, "records-000003-000005.h5 starts-000003-000001.log");
  load(recs); /* again: nothing more to salvage, the same records */
  expect_recorded(recs, 3, trials, ok, whole);
}
END_TEST

/* A flush writes trials 0 and 1 and empties the pending file; trials 2
 * and 3 are kept, then the process dies: they become the records file a
 * flush would have written, named by trial 2. */
START_TEST(salvage_after_a_flush_writes_the_trials_kept_since) {
  tsr_journal j;
  ck_assert_int_eq(tsr_journal_begin(&j, dir, 2, 0), TSR_OK);
  keep(&j, 0, 1);
  keep(&j, 1, 1);
  ck_assert_int_eq(tsr_journal_flush(&j), TSR_OK);
  ck_assert_int_eq(size_of("pending-000002-000000.bin"), 0);
  keep(&j, 2, 1);
  keep(&j, 3, 1);
  tsr_journal_end(&j);
  tsr_trial_record recs[NTRIALS];
  load(recs);
  char got[512];
  names("", got, sizeof got);
  ck_assert_str_eq(got,
                   "records-000002-000000.h5 records-000002-000002.h5 starts-000002-000000.log");
  const int64_t flushed[] = {0, 1}, salvaged[] = {2, 3};
  for (int k = 0; k < 2; k++) {
    ck_assert(recs[flushed[k]].status == TSR_TRIAL_OK && recs[flushed[k]].file == 0);
    ck_assert(recs[salvaged[k]].status == TSR_TRIAL_OK && recs[salvaged[k]].file == 2);
    check_results(&recs[flushed[k]], flushed[k]);
    check_results(&recs[salvaged[k]], salvaged[k]);
  }
}
END_TEST

/* The process died after a flush's records file was in place but before
 * the pending file was emptied: the pending file holds that file's trials,
 * and the salvage drops it instead of writing them again. */
START_TEST(salvage_drops_a_pending_file_whose_flush_was_done) {
  tsr_journal j;
  ck_assert_int_eq(tsr_journal_begin(&j, dir, 2, 0), TSR_OK);
  keep(&j, 4, 1);
  keep(&j, 6, 1);
  char path[256];
  snprintf(path, sizeof path, "%s/pending-000002-000000.bin", dir);
  off_t n = size_of("pending-000002-000000.bin");
  unsigned char *copy = malloc((size_t)n);
  int fd = open(path, O_RDONLY);
  ck_assert_int_eq(pread(fd, copy, (size_t)n, 0), n);
  close(fd);
  ck_assert_int_eq(tsr_journal_flush(&j), TSR_OK);
  tsr_journal_end(&j); /* empty: removed */
  struct stat flushed, after;
  snprintf(path, sizeof path, "%s/records-000002-000004.h5", dir);
  ck_assert_int_eq(stat(path, &flushed), 0);
  snprintf(path, sizeof path, "%s/pending-000002-000000.bin", dir);
  fd = open(path, O_WRONLY | O_CREAT, 0666);
  ck_assert_int_eq(write(fd, copy, (size_t)n), n);
  close(fd);
  free(copy);
  tsr_trial_record recs[NTRIALS];
  load(recs);
  char got[512];
  names("", got, sizeof got);
  ck_assert_str_eq(got, "records-000002-000004.h5 starts-000002-000000.log");
  snprintf(path, sizeof path, "%s/records-000002-000004.h5", dir);
  ck_assert_int_eq(stat(path, &after), 0);
  ck_assert_msg(after.st_ino == flushed.st_ino, "the flushed records file was written again");
  const int64_t trials[] = {4, 6};
  const int ok[] = {1, 1};
  expect_recorded(recs, 2, trials, ok, 2);
}
END_TEST

/* A child process keeps trial 6 and waits: its pending file is locked, so a
 * load (another process's --merge or shard) leaves it alone; once the child
 * is killed with SIGKILL, the next load salvages the trial. */
START_TEST(a_live_pending_file_is_left_alone_and_salvaged_after_kill_9) {
  int ready[2];
  ck_assert_int_eq(pipe(ready), 0);
  pid_t child = fork();
  ck_assert_int_ge(child, 0);
  if (child == 0) {
    tsr_journal j;
    tsr_trial_record r = {TSR_TRIAL_OK, 1, 0.25, 0, "", 0, 0};
    alarm(60); /* gone even if the parent fails before its kill */
    if (tsr_journal_begin(&j, dir, 4, 2) != TSR_OK) _exit(1);
    add_results(&j.results, 6);
    if (tsr_journal_keep(&j, 6, &r) != TSR_OK || write(ready[1], "k", 1) != 1) _exit(1);
    for (;;) pause();
  }
  char c;
  ck_assert_int_eq(read(ready[0], &c, 1), 1);
  tsr_trial_record recs[NTRIALS];
  load(recs);
  ck_assert_int_eq(recs[6].run, -1);
  char got[512];
  names("pending-", got, sizeof got);
  ck_assert_str_eq(got, "pending-000004-000002.bin");
  ck_assert_int_gt(size_of("pending-000004-000002.bin"), 0);
  kill(child, SIGKILL);
  int status;
  ck_assert_int_eq(waitpid(child, &status, 0), child);
  ck_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
  load(recs);
  const int64_t trials[] = {6};
  const int ok[] = {1};
  expect_recorded(recs, 4, trials, ok, 1);
  names("pending-", got, sizeof got);
  ck_assert_str_eq(got, "");
}
END_TEST

/* A group that ends after its flushes leaves no pending file; one left
 * empty or holding only a torn blob (a crash before a whole trial) is
 * removed by the load, with no records file. */
START_TEST(empty_and_torn_only_pending_files_are_removed) {
  tsr_journal j;
  ck_assert_int_eq(tsr_journal_begin(&j, dir, 1, 0), TSR_OK);
  keep(&j, 0, 1);
  ck_assert_int_eq(tsr_journal_flush(&j), TSR_OK);
  tsr_journal_end(&j);
  char got[512], path[256];
  names("pending-", got, sizeof got);
  ck_assert_str_eq(got, "");
  snprintf(path, sizeof path, "%s/pending-000005-000000.bin", dir);
  close(open(path, O_WRONLY | O_CREAT, 0666));
  snprintf(path, sizeof path, "%s/pending-000005-000001.bin", dir);
  int fd = open(path, O_WRONLY | O_CREAT, 0666);
  ck_assert_int_eq(write(fd, "TSRPEND1\x40\0\0\0\0\0\0\0trial 3", 23), 23);
  close(fd);
  tsr_trial_record recs[NTRIALS];
  load(recs);
  names("", got, sizeof got);
  ck_assert_str_eq(got, "records-000001-000000.h5 starts-000001-000000.log");
  ck_assert(recs[0].status == TSR_TRIAL_OK && recs[3].run == -1);
}
END_TEST

/* ---- opening: shards at once, temporaries of the gone -------------------------------- */

static void touch(const char *name) {
  char path[256];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  close(open(path, O_WRONLY | O_CREAT, 0666));
}

/* A PID that no process has: a child's, once it has been waited for. */
static long dead_pid(void) {
  pid_t pid = fork();
  if (pid == 0) _exit(0);
  ck_assert_int_ge(waitpid(pid, NULL, 0), 0);
  return (long)pid;
}

/* An open removes the temporaries of a process that is gone (a dead PID,
 * or its own) and keeps those of a live one, which may be writing them. */
START_TEST(an_open_removes_the_temporaries_of_dead_processes_only) {
  char name[64], dead[64], own[64];
  pid_t live = fork();
  if (live == 0) {
    pause();
    _exit(0);
  }
  snprintf(name, sizeof name, "job.tsr.tmp-%ld", (long)live);
  snprintf(dead, sizeof dead, "records-000001-000000.h5.tmp-%ld", dead_pid());
  snprintf(own, sizeof own, "manifest.tmp-%ld", (long)getpid());
  touch(name), touch(dead), touch(own), touch("notes.tmp-x");
  int run;
  ck_assert_int_eq(tsr_journal_open(dir, "m\n", "job\n", 1, 0, &run), TSR_OK);
  kill(live, SIGKILL);
  waitpid(live, NULL, 0);
  char got[512];
  names("", got, sizeof got);
  char want[512];
  snprintf(want, sizeof want, "job.tsr %s manifest notes.tmp-x run-000001", name);
  ck_assert_str_eq(got, want);
}
END_TEST

/* Eight processes open a new journal at the same moment: every one
 * succeeds with a run of its own, and the journal holds one manifest and
 * one job.tsr, whole. Another sweep's manifest or job is still refused. */
START_TEST(eight_opens_at_once_all_join_one_journal) {
  char sub[128];
  snprintf(sub, sizeof sub, "%s/j.trials", dir);
  pid_t kids[8];
  for (int k = 0; k < 8; k++)
    if ((kids[k] = fork()) == 0) {
      int run;
      _exit(tsr_journal_open(sub, "manifest 1\n", "a = param(0)\n", 1, 0, &run) == TSR_OK ? run
                                                                                          : 100);
    }
  int seen = 0;
  for (int k = 0; k < 8; k++) {
    int ws;
    ck_assert_int_ge(waitpid(kids[k], &ws, 0), 0);
    ck_assert(WIFEXITED(ws) && WEXITSTATUS(ws) >= 1 && WEXITSTATUS(ws) <= 8);
    ck_assert_msg(!(seen & (1 << WEXITSTATUS(ws))), "run %d twice", WEXITSTATUS(ws));
    seen |= 1 << WEXITSTATUS(ws);
  }
  char *text;
  ck_assert_int_eq(tsr_journal_manifest(sub, &text), TSR_OK);
  ck_assert_str_eq(text, "manifest 1\n");
  free(text);
  ck_assert_int_eq(tsr_journal_job(sub, &text), TSR_OK);
  ck_assert_str_eq(text, "a = param(0)\n");
  free(text);
  int run;
  ck_assert_int_ne(tsr_journal_open(sub, "manifest 2\n", "a = param(0)\n", 1, 0, &run), TSR_OK);
  ck_assert(strstr(tsr_error_message(), "is of another sweep"));
  tsr_error_clear();
  ck_assert_int_ne(tsr_journal_open(sub, "manifest 1\n", "a = param(1)\n", 1, 0, &run), TSR_OK);
  ck_assert(strstr(tsr_error_message(), "is of another sweep"));
  remove_tree(sub);
}
END_TEST

/* ---- the blob --------------------------------------------------------------------------- */

/* A blob decodes to the record line and the items it was made of, every
 * field (strings, text attributes, float32 flag) the same; every shorter
 * prefix of it is torn: nothing decoded, nothing added. */
START_TEST(a_blob_round_trips_and_each_prefix_is_torn) {
  tsr_results_set items = {0};
  add_results(&items, 8);
  const char *line = "trial 8 status ok attempts 1 seconds 0.25 reused 0 error \n";
  tsr_bytes b = {0};
  ck_assert_int_eq(tsr_pending_encode(&b, line, strlen(line), items.items, items.n), TSR_OK);
  tsr_results_set got = {0};
  const char *l;
  size_t used, len;
  for (size_t n = 0; n < b.len; n++) {
    ck_assert_int_eq(tsr_pending_decode(b.p, n, &used, &l, &len, &got), TSR_OK);
    ck_assert_msg(used == 0 && got.n == 0, "a prefix of %zu bytes of %zu decoded", n, b.len);
  }
  ck_assert_int_eq(tsr_pending_decode(b.p, b.len, &used, &l, &len, &got), TSR_OK);
  ck_assert_uint_eq(used, b.len);
  ck_assert_uint_eq(len, strlen(line));
  ck_assert(!memcmp(l, line, len));
  ck_assert_int_eq(got.n, items.n);
  for (int i = 0; i < got.n; i++) {
    const tsr_result_item *a = &items.items[i], *c = &got.items[i];
    ck_assert_str_eq(c->name, a->name);
    ck_assert_int_eq(c->ndim, a->ndim);
    ck_assert_int_eq(c->dtype, a->dtype);
    if (a->ndim) ck_assert_mem_eq(c->shape, a->shape, sizeof *a->shape * (size_t)a->ndim);
    size_t count = a->ndim ? (size_t)a->shape[0] : 1;
    ck_assert((c->data == NULL) == (a->data == NULL) && (c->ints == NULL) == (a->ints == NULL));
    ck_assert((c->strings == NULL) == (a->strings == NULL));
    if (a->data) ck_assert_mem_eq(c->data, a->data, count * sizeof *a->data);
    if (a->ints) ck_assert_mem_eq(c->ints, a->ints, count * sizeof *a->ints);
    for (size_t k = 0; a->strings && k < count; k++) ck_assert_str_eq(c->strings[k], a->strings[k]);
    ck_assert_int_eq(c->nattrs, a->nattrs);
    for (int k = 0; k < a->nattrs; k++) {
      ck_assert_str_eq(c->attrs[k].key, a->attrs[k].key);
      ck_assert((c->attrs[k].text == NULL) == (a->attrs[k].text == NULL));
      if (a->attrs[k].text) ck_assert_str_eq(c->attrs[k].text, a->attrs[k].text);
      ck_assert_mem_eq(&c->attrs[k].number, &a->attrs[k].number, sizeof(double));
    }
  }
  tsr_results_set_clear(&got);
  tsr_results_set_clear(&items);
  tsr_bytes_free(&b);
}
END_TEST

static Suite *journal_suite(void) {
  Suite *s = suite_create("journal");
  TCase *salvage = tcase_create("salvage");
  tcase_add_checked_fixture(salvage, setup, teardown);
  tcase_add_loop_test(salvage, salvage_keeps_the_whole_trials_before_a_torn_or_damaged_blob, 0,
                      NDAMAGE);
  tcase_add_test(salvage, salvage_after_a_flush_writes_the_trials_kept_since);
  tcase_add_test(salvage, salvage_drops_a_pending_file_whose_flush_was_done);
  tcase_add_test(salvage, a_live_pending_file_is_left_alone_and_salvaged_after_kill_9);
  tcase_add_test(salvage, empty_and_torn_only_pending_files_are_removed);
  suite_add_tcase(s, salvage);
  TCase *open = tcase_create("open");
  tcase_add_checked_fixture(open, setup, teardown);
  tcase_add_test(open, an_open_removes_the_temporaries_of_dead_processes_only);
  tcase_add_test(open, eight_opens_at_once_all_join_one_journal);
  suite_add_tcase(s, open);
  TCase *blob = tcase_create("blob");
  tcase_add_test(blob, a_blob_round_trips_and_each_prefix_is_torn);
  suite_add_tcase(s, blob);
  return s;
}

int main(void) {
  SRunner *sr = srunner_create(journal_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
