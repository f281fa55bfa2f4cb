/*
 * sweep_merge.c - the sweep's table (sweep.h): world rank 0 reads the
 * journal (the manifest, each trial's record and results file) and writes
 * one HDF5 file:
 *   trials/params/NAME  one value per trial (int64, float64 or strings: the
 *                       type every value of NAME parses as)
 *   trials/status       "ok", "failed" or "not run"
 *   trials/error        the failed trials' messages ("" otherwise)
 *   trials/seconds, trials/attempts
 *   trials/reused_bytes held arrays a trial took over from the trial before
 *                       it in its group (rank 0's bytes)
 *   results/NAME        each small result stacked over trials, (trials, ...)
 *                       float64, NaN where a trial has none
 *   fits/NAME/KEY       the record of the fit whose coefficients are result
 *                       NAME (n_iter, converged, objective, passes, warm_start
 *                       ...: the numeric attributes of NAME in each trial's
 *                       file), stacked the same way
 * and root attributes (the job, the counts of trials, warm_start and, for a
 * --warm-start sweep, warm_start_batch), then prints a short table of the
 * best trials.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "io/results.h"
#include "job/sweep.h"
#include "util/error.h"

#define MAX_STACKED 64 /* results stacked (the first, by name), and as many fits' records */

typedef struct stack {
  char *name; /* a result's, or a fit's "NAME/KEY" */
  int fit;    /* a fit's record: fits/NAME/KEY */
  int ndim;   /* of one trial's value */
  int64_t shape[8], count;
  double *data; /* ntrials * count */
  int mixed;    /* shapes differ between trials: not stacked */
} stack;

typedef struct table {
  tsr_sweep_plan plan;
  tsr_trial_record *rec;
  const char **status, **errors;
  double *seconds;
  int64_t *attempts;
  double *reused;
  stack st[2 * MAX_STACKED];
  int nst, nres, nfit;
} table;

static stack *find(table *tb, const char *name, int fit) {
  for (int i = 0; i < tb->nst; i++)
    if (tb->st[i].fit == fit && !strcmp(tb->st[i].name, name)) return &tb->st[i];
  return NULL;
}

static int same_shape(const stack *s, const tsr_result_item *it) {
  if (it->ndim != s->ndim) return 0;
  for (int d = 0; d < it->ndim; d++)
    if (it->shape[d] != s->shape[d]) return 0;
  return 1;
}

static int new_stack(table *tb, const tsr_result_item *it, int fit) {
  if ((fit ? tb->nfit : tb->nres) == MAX_STACKED || it->ndim > 8) return TSR_OK;
  stack *s = &tb->st[tb->nst];
  memset(s, 0, sizeof *s);
  s->fit = fit;
  s->ndim = it->ndim;
  s->count = 1;
  for (int d = 0; d < it->ndim; d++) s->count *= (s->shape[d] = it->shape[d]);
  size_t n = (size_t)(tb->plan.ntrials * s->count);
  if (!(s->name = strdup(it->name)) || !(s->data = malloc(n ? n * sizeof *s->data : 1)))
    return TSR_ERROR(TSR_ERR_MEMORY, "out of memory");
  for (size_t k = 0; k < n; k++) s->data[k] = NAN;
  tb->nst++;
  *(fit ? &tb->nfit : &tb->nres) += 1;
  return TSR_OK;
}

/* Trial t's value of one stack. */
static int add_value(table *tb, int64_t t, const tsr_result_item *it, int fit) {
  stack *s = find(tb, it->name, fit);
  int st = TSR_OK;
  if (!s && (st = new_stack(tb, it, fit)) == TSR_OK) s = find(tb, it->name, fit);
  if (!s || s->mixed) return st;
  if (!same_shape(s, it))
    s->mixed = 1;
  else
    memcpy(s->data + t * s->count, it->data, sizeof(double) * (size_t)s->count);
  return TSR_OK;
}

/* Each numeric attribute KEY of result it (a fit's record) as NAME/KEY. */
static int add_fit(table *tb, int64_t t, const tsr_result_item *it) {
  for (int k = 0; k < it->nattrs; k++) {
    char name[300];
    snprintf(name, sizeof name, "%s/%s", it->name, it->attrs[k].key);
    tsr_result_item one = {name, 0, NULL, 0, &it->attrs[k].number, NULL, 0, NULL, NULL};
    TSR_CHECK(add_value(tb, t, &one, 1));
  }
  return TSR_OK;
}

/* Adds trial t's results and fit records to the stacks. */
static int add_trial(table *tb, const char *dir, int64_t t) {
  char path[4200], group[64];
  tsr_result_item *items;
  int n;
  tsr_journal_results(dir, t, &tb->rec[t], path, sizeof path, group, sizeof group);
  TSR_CHECK(tsr_results_read(path, group[0] ? group : NULL, &items, &n));
  int st = TSR_OK;
  for (int i = 0; i < n && st == TSR_OK; i++) {
    st = add_value(tb, t, &items[i], 0);
    if (st == TSR_OK) st = add_fit(tb, t, &items[i]);
  }
  tsr_results_free(items, n);
  return st;
}

static int read_journal(table *tb, const char *dir, int *any_failed) {
  int64_t n = tb->plan.ntrials;
  tb->rec = calloc((size_t)n, sizeof *tb->rec);
  tb->status = calloc((size_t)n, sizeof *tb->status);
  tb->errors = calloc((size_t)n, sizeof *tb->errors);
  tb->seconds = calloc((size_t)n, sizeof *tb->seconds);
  tb->attempts = calloc((size_t)n, sizeof *tb->attempts);
  tb->reused = calloc((size_t)n, sizeof *tb->reused);
  if (!tb->rec || !tb->status || !tb->errors || !tb->seconds || !tb->attempts || !tb->reused)
    return TSR_ERROR(TSR_ERR_MEMORY, "out of memory");
  *any_failed = 0;
  TSR_CHECK(tsr_journal_load(dir, n, tb->rec));
  for (int64_t t = 0; t < n; t++) {
    tsr_trial_status s = tb->rec[t].status;
    tb->status[t] = s == TSR_TRIAL_OK ? "ok" : s == TSR_TRIAL_FAILED ? "failed" : "not run";
    tb->errors[t] = tb->rec[t].error;
    tb->seconds[t] = s == TSR_TRIAL_TODO ? NAN : tb->rec[t].seconds;
    tb->attempts[t] = tb->rec[t].attempts;
    tb->reused[t] = s == TSR_TRIAL_TODO ? NAN : tb->rec[t].reused;
    *any_failed |= s != TSR_TRIAL_OK;
    if (s == TSR_TRIAL_OK) TSR_CHECK(add_trial(tb, dir, t));
  }
  return TSR_OK;
}

/* ---- the parameters' columns ------------------------------------------------ */

static const char *value_of(const table *tb, int64_t t, int j) {
  return strchr(tb->plan.settings[t * tb->plan.nparams + j], '=') + 1;
}

/* 2: every value an integer; 1: a number; 0: text. */
static int column_kind(const table *tb, int j) {
  int kind = 2;
  for (int64_t t = 0; t < tb->plan.ntrials && kind; t++) {
    const char *v = value_of(tb, t, j);
    char *end;
    errno = 0;
    (void)strtoll(v, &end, 10);
    if (*end || end == v || errno) {
      kind = 1;
      (void)strtod(v, &end);
      if (*end || end == v) kind = 0;
    }
  }
  return kind;
}

typedef struct columns {
  char names[64][300];
  void *buf[64];
  int n;
} columns;

static int param_item(const table *tb, int j, columns *c, tsr_result_item *it) {
  int64_t n = tb->plan.ntrials;
  int kind = column_kind(tb, j);
  snprintf(c->names[c->n], sizeof c->names[0], "trials/params/%s", tb->plan.names[j]);
  *it = (tsr_result_item){c->names[c->n], 1, &tb->plan.ntrials, 0, NULL, NULL, 0, NULL, NULL};
  size_t width = kind == 0 ? sizeof(char *) : 8;
  if (!(c->buf[c->n] = malloc((size_t)n * width)))
    return TSR_ERROR(TSR_ERR_MEMORY, "out of memory");
  for (int64_t t = 0; t < n; t++) {
    const char *v = value_of(tb, t, j);
    if (kind == 2) ((int64_t *)c->buf[c->n])[t] = strtoll(v, NULL, 10);
    if (kind == 1) ((double *)c->buf[c->n])[t] = strtod(v, NULL);
    if (kind == 0) ((const char **)c->buf[c->n])[t] = v;
  }
  if (kind == 2) it->ints = c->buf[c->n];
  if (kind == 1) it->data = c->buf[c->n];
  if (kind == 0) it->strings = c->buf[c->n];
  c->n++;
  return TSR_OK;
}

/* ---- the file ---------------------------------------------------------------- */

static int write_table(table *tb, const char *output, const char *job, const char *dir) {
  int np = tb->plan.nparams < 64 ? tb->plan.nparams : 64, nitems = 0, st = TSR_OK;
  tsr_result_item items[64 + 5 + 2 * MAX_STACKED];
  columns *c = calloc(1, sizeof *c);
  int64_t *shapes = calloc((size_t)(2 * MAX_STACKED * 9), sizeof *shapes);
  if (!c || !shapes) st = TSR_ERROR(TSR_ERR_MEMORY, "out of memory");
  for (int j = 0; j < np && st == TSR_OK; j++) st = param_item(tb, j, c, &items[nitems++]);
  const int64_t *n1 = &tb->plan.ntrials;
  items[nitems++] = (tsr_result_item){"trials/status", 1, n1, 0, NULL, NULL, 0, tb->status, NULL};
  items[nitems++] = (tsr_result_item){"trials/error", 1, n1, 0, NULL, NULL, 0, tb->errors, NULL};
  items[nitems++] = (tsr_result_item){"trials/seconds", 1, n1, 0, tb->seconds, NULL, 0, NULL, NULL};
  items[nitems++] =
      (tsr_result_item){"trials/attempts", 1, n1, 0, NULL, NULL, 0, NULL, tb->attempts};
  items[nitems++] =
      (tsr_result_item){"trials/reused_bytes", 1, n1, 0, tb->reused, NULL, 0, NULL, NULL};
  char(*names)[320] = calloc(2 * MAX_STACKED, sizeof *names);
  if (!names && st == TSR_OK) st = TSR_ERROR(TSR_ERR_MEMORY, "out of memory");
  for (int i = 0; i < tb->nst && st == TSR_OK; i++) {
    stack *s = &tb->st[i];
    if (s->mixed) continue;
    int64_t *sh = shapes + 9 * i;
    sh[0] = tb->plan.ntrials;
    for (int d = 0; d < s->ndim; d++) sh[d + 1] = s->shape[d];
    snprintf(names[i], sizeof names[0], "%s/%s", s->fit ? "fits" : "results", s->name);
    items[nitems++] = (tsr_result_item){names[i], s->ndim + 1, sh, 0, s->data, NULL, 0, NULL, NULL};
  }
  char date[64], counts[3][32];
  time_t now = time(NULL);
  struct tm tm;
  gmtime_r(&now, &tm);
  strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &tm);
  int64_t ok = 0, failed = 0;
  for (int64_t t = 0; t < tb->plan.ntrials; t++) {
    ok += tb->rec[t].status == TSR_TRIAL_OK;
    failed += tb->rec[t].status == TSR_TRIAL_FAILED;
  }
  snprintf(counts[0], sizeof counts[0], "%s", TSR_VERSION);
  tsr_attr attrs[] = {{"job", job, 0},
                      {"tessera_version", counts[0], 0},
                      {"date", date, 0},
                      {"journal", dir, 0},
                      {"trials", NULL, (double)tb->plan.ntrials},
                      {"trials_ok", NULL, (double)ok},
                      {"trials_failed", NULL, (double)failed},
                      {"trials_not_run", NULL, (double)(tb->plan.ntrials - ok - failed)},
                      {"warm_start", NULL, tb->plan.warm_batch > 0},
                      {"warm_start_batch", NULL, tb->plan.warm_batch}};
  int nattrs = tb->plan.warm_batch > 0 ? 10 : 9;
  if (st == TSR_OK) st = tsr_results_write(output, items, nitems, attrs, nattrs);
  for (int i = 0; c && i < c->n; i++) free(c->buf[i]);
  free(c);
  free(names);
  free(shapes);
  return st;
}

/* ---- the table of the best trials -------------------------------------------- */

static const double *metric_of(const table *tb, const char *name) {
  for (int i = 0; name && i < tb->nst; i++)
    if (!tb->st[i].fit && !strcmp(tb->st[i].name, name) && tb->st[i].ndim == 0 && !tb->st[i].mixed)
      return tb->st[i].data;
  return NULL;
}

static const double *sort_metric;
static int sort_sign;
static int by_metric(const void *a, const void *b) {
  double x = sort_metric[*(const int64_t *)a], y = sort_metric[*(const int64_t *)b];
  if (isnan(x) != isnan(y)) return isnan(x) ? 1 : -1;
  if (x != y && !isnan(x)) return (x < y ? -1 : 1) * sort_sign;
  return *(const int64_t *)a < *(const int64_t *)b ? -1 : 1;
}

/* Up to 10 rows: by the metric when there is one, else in trial order. */
static void print_best(const table *tb, const tsr_sweep_options *sw, FILE *out) {
  const char *mname = sw->minimize ? sw->minimize : sw->maximize;
  const double *m = metric_of(tb, mname);
  if (mname && !m)
    fprintf(stderr, "tessera: warning: sweep: no scalar result named %s to order the trials by\n",
            mname);
  int64_t n = tb->plan.ntrials, *order = malloc(sizeof *order * (size_t)n);
  if (!order) return;
  for (int64_t t = 0; t < n; t++) order[t] = t;
  if (m) {
    sort_metric = m;
    sort_sign = sw->maximize && !sw->minimize ? -1 : 1;
    qsort(order, (size_t)n, sizeof *order, by_metric);
  }
  int shown[4], nshown = 0; /* the metric, then other scalars that are not swept params */
  for (int i = 0; i < tb->nst && nshown < 4; i++)
    if (m && tb->st[i].data == m) shown[nshown++] = i;
  for (int i = 0; i < tb->nst && nshown < 4; i++) {
    int param = 0;
    for (int j = 0; j < tb->plan.nparams; j++) param |= !strcmp(tb->plan.names[j], tb->st[i].name);
    if (!tb->st[i].fit && tb->st[i].ndim == 0 && !tb->st[i].mixed && !param && tb->st[i].data != m)
      shown[nshown++] = i;
  }
  fprintf(out, "%s\n%6s  %-8s", m ? "best trials:" : "trials:", "trial", "status");
  for (int j = 0; j < tb->plan.nparams && j < 6; j++) fprintf(out, "  %-12s", tb->plan.names[j]);
  for (int i = 0; i < nshown; i++) fprintf(out, "  %-14s", tb->st[shown[i]].name);
  fputc('\n', out);
  for (int64_t r = 0; r < n && r < 10; r++) {
    int64_t t = order[r];
    fprintf(out, "%6" PRId64 "  %-8s", t, tb->status[t]);
    for (int j = 0; j < tb->plan.nparams && j < 6; j++) {
      const char *v = value_of(tb, t, j);
      char *end;
      double x = strtod(v, &end);
      if (*end || end == v)
        fprintf(out, "  %-12.12s", v);
      else
        fprintf(out, "  %-12.6g", x);
    }
    for (int i = 0; i < nshown; i++) fprintf(out, "  %-14.8g", tb->st[shown[i]].data[t]);
    fputc('\n', out);
  }
  if (n > 10) fprintf(out, "(%" PRId64 " more in the table)\n", n - 10);
  fflush(out);
  free(order);
}

static void table_free(table *tb) {
  for (int i = 0; i < tb->nst; i++) {
    free(tb->st[i].name);
    free(tb->st[i].data);
  }
  free(tb->rec);
  free(tb->status);
  free(tb->errors);
  free(tb->seconds);
  free(tb->attempts);
  free(tb->reused);
  tsr_sweep_plan_free(&tb->plan);
}

static void print_summary(const table *tb, const char *output, int quiet) {
  int64_t ok = 0, failed = 0, n = tb->plan.ntrials;
  for (int64_t t = 0; t < n; t++) {
    ok += tb->rec[t].status == TSR_TRIAL_OK;
    failed += tb->rec[t].status == TSR_TRIAL_FAILED;
  }
  if (!quiet || failed || ok + failed < n)
    fprintf(stderr,
            "tessera: sweep: %" PRId64 " trial%s: %" PRId64 " ok, %" PRId64 " failed, %" PRId64
            " not run; table in %s\n",
            n, n == 1 ? "" : "s", ok, failed, n - ok - failed, output);
  for (int i = 0; i < tb->nst; i++)
    if (tb->st[i].mixed)
      fprintf(stderr,
              "tessera: warning: sweep: %s has different shapes in different trials: "
              "not stacked (the journal's records files have it, under trial-NNNNNN)\n",
              tb->st[i].name);
}

int tsr_sweep_merge(const char *dir, const char *output, const tsr_sweep_options *sw, int quiet,
                    FILE *out, int *any_failed) {
  table tb;
  memset(&tb, 0, sizeof tb);
  char *manifest = NULL, *job = NULL;
  int st = tsr_journal_manifest(dir, &manifest);
  if (st == TSR_OK) st = tsr_journal_job(dir, &job);
  if (st == TSR_OK) st = tsr_sweep_manifest_parse(dir, manifest, &tb.plan);
  if (st == TSR_OK) st = read_journal(&tb, dir, any_failed);
  if (st == TSR_OK) st = write_table(&tb, output, job, dir);
  if (st == TSR_OK) {
    print_summary(&tb, output, quiet);
    print_best(&tb, sw, out);
  }
  table_free(&tb);
  free(manifest);
  free(job);
  return st;
}
