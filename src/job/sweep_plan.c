/*
 * sweep_plan.c - the trial list of a sweep (sweep.h) from --grid and
 * --random, and the manifest that records it in the journal.
 *
 * A random value of trial t for the j-th --random parameter is
 * u = tsr_rng_uniform_at(sweep_seed, j, t), the same Philox uniform in (0, 1]
 * as every random array, so the trials do not depend on how many groups run
 * them, or on which shard draws them.
 */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "job/sweep.h"
#include "kernel/rng.h"
#include "util/error.h"

/* The sweep may hold at most this many trials. */
#define MAX_TRIALS ((int64_t)1 << 24)

typedef struct axis {
  char *name;
  int nvalues;
  char **values; /* grid values, as given (or expanded from LO..HI) */
  int kind;      /* random: 1 loguniform, 2 uniform, 3 int */
  double lo, hi;
} axis;

static int bad(const char *opt, const char *spec, const char *why) {
  return TSR_ERROR(TSR_ERR_VALUE, "bad %s '%s': %s", opt, spec, why);
}

/* NAME= at the front of spec: a job name (letters, digits, _; not a digit first). */
static int split_name(const char *opt, const char *spec, axis *a, const char **rest) {
  size_t n = strcspn(spec, "=");
  int ok = n > 0 && spec[n] == '=' && !isdigit((unsigned char)spec[0]);
  for (size_t k = 0; k < n && ok; k++) ok = spec[k] == '_' || isalnum((unsigned char)spec[k]);
  if (!ok) return bad(opt, spec, "use NAME=VALUES, NAME a param() of the job");
  a->name = strndup(spec, n);
  if (!a->name) return TSR_ERROR(TSR_ERR_MEMORY, "out of memory");
  *rest = spec + n + 1;
  return TSR_OK;
}

static int parse_ll(const char *s, long long *v) {
  char *end;
  errno = 0;
  *v = strtoll(s, &end, 10);
  return end != s && !*end && !errno;
}

static int push_value(axis *a, const char *s, size_t n) {
  char **v = realloc(a->values, sizeof *v * (size_t)(a->nvalues + 1));
  if (!v) return TSR_ERROR(TSR_ERR_MEMORY, "out of memory");
  a->values = v;
  if (!(v[a->nvalues] = strndup(s, n))) return TSR_ERROR(TSR_ERR_MEMORY, "out of memory");
  a->nvalues++;
  return TSR_OK;
}

/* "V1,V2,..." or "LO..HI" (integers, both included). */
static int parse_grid(const char *spec, axis *a) {
  const char *v;
  TSR_CHECK(split_name("--grid", spec, a, &v));
  const char *dots = strstr(v, "..");
  if (dots && !strchr(v, ',')) {
    char lo_s[64];
    long long lo, hi;
    size_t n = (size_t)(dots - v);
    if (n >= sizeof lo_s) return bad("--grid", spec, "LO..HI takes integers");
    memcpy(lo_s, v, n);
    lo_s[n] = 0;
    if (!parse_ll(lo_s, &lo) || !parse_ll(dots + 2, &hi) || hi < lo)
      return bad("--grid", spec, "LO..HI takes integers with LO <= HI");
    if (hi - lo >= 1000000) return bad("--grid", spec, "more than 10^6 values");
    for (long long x = lo; x <= hi; x++) {
      char buf[32];
      int k = snprintf(buf, sizeof buf, "%lld", x);
      TSR_CHECK(push_value(a, buf, (size_t)k));
    }
    return TSR_OK;
  }
  for (const char *p = v;; p++) {
    size_t n = strcspn(p, ",");
    if (n == 0) return bad("--grid", spec, "an empty value");
    TSR_CHECK(push_value(a, p, n));
    p += n;
    if (!*p) break;
  }
  return TSR_OK;
}

static int parse_double(const char *s, double *v) {
  char *end;
  errno = 0;
  *v = strtod(s, &end);
  return end != s && !*end && !errno && isfinite(*v);
}

/* "loguniform:LO:HI", "uniform:LO:HI" or "int:LO:HI" (HI included). */
static int parse_random(const char *spec, axis *a) {
  const char *v;
  TSR_CHECK(split_name("--random", spec, a, &v));
  static const char *kinds[] = {"loguniform:", "uniform:", "int:"};
  for (int k = 0; k < 3 && !a->kind; k++)
    if (!strncmp(v, kinds[k], strlen(kinds[k]))) {
      a->kind = k + 1;
      v += strlen(kinds[k]);
    }
  const char *colon = strchr(v, ':');
  char lo_s[64];
  size_t n = colon ? (size_t)(colon - v) : 0;
  if (!a->kind || !colon || n >= sizeof lo_s)
    return bad("--random", spec, "use NAME=loguniform:LO:HI, uniform:LO:HI or int:LO:HI");
  memcpy(lo_s, v, n);
  lo_s[n] = 0;
  if (!parse_double(lo_s, &a->lo) || !parse_double(colon + 1, &a->hi) || !(a->lo < a->hi))
    return bad("--random", spec, "LO and HI are finite numbers with LO < HI");
  if (a->kind == 1 && a->lo <= 0) return bad("--random", spec, "loguniform needs 0 < LO");
  if (a->kind == 3 && (a->lo != floor(a->lo) || a->hi != floor(a->hi) || a->hi - a->lo > 1e15))
    return bad("--random", spec, "int takes integer bounds");
  return TSR_OK;
}

/* The value of random axis j (among the random ones) for trial t. */
static void draw(const axis *a, uint64_t seed, uint32_t j, int64_t t, char *buf, size_t n) {
  double u = tsr_rng_uniform_at(seed, j, (uint64_t)t); /* (0, 1] */
  if (a->kind == 3) {
    double span = a->hi - a->lo + 1, k = floor((1.0 - u) * span);
    snprintf(buf, n, "%.0f", a->lo + (k < span ? k : span - 1));
  } else if (a->kind == 1) {
    snprintf(buf, n, "%.17g", exp(log(a->lo) + u * (log(a->hi) - log(a->lo))));
  } else {
    snprintf(buf, n, "%.17g", a->lo + u * (a->hi - a->lo));
  }
}

static void axes_free(axis *ax, int n) {
  for (int i = 0; i < n; i++) {
    free(ax[i].name);
    for (int k = 0; k < ax[i].nvalues; k++) free(ax[i].values[k]);
    free(ax[i].values);
  }
  free(ax);
}

static int setting(tsr_sweep_plan *p, int64_t t, int j, const char *value) {
  size_t n = strlen(p->names[j]) + strlen(value) + 2;
  char *s = malloc(n);
  if (!s) return TSR_ERROR(TSR_ERR_MEMORY, "out of memory");
  snprintf(s, n, "%s=%s", p->names[j], value);
  p->settings[t * p->nparams + j] = s;
  return TSR_OK;
}

static int fill(const tsr_sweep_options *sw, const axis *ax, int draws, tsr_sweep_plan *p) {
  for (int64_t t = 0; t < p->ntrials; t++) {
    int64_t g = t / draws; /* grid point: mixed radix, the last grid fastest */
    for (int j = sw->ngrids - 1; j >= 0; j--) {
      TSR_CHECK(setting(p, t, j, ax[j].values[g % ax[j].nvalues]));
      g /= ax[j].nvalues;
    }
    for (int j = 0; j < sw->nrandoms; j++) {
      char buf[64];
      draw(&ax[sw->ngrids + j], sw->sweep_seed, (uint32_t)j, t, buf, sizeof buf);
      TSR_CHECK(setting(p, t, sw->ngrids + j, buf));
    }
  }
  return TSR_OK;
}

static int check_names(const axis *ax, int n) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < i; j++)
      if (!strcmp(ax[i].name, ax[j].name))
        return TSR_ERROR(TSR_ERR_VALUE, "%s is swept twice (--grid/--random)", ax[i].name);
  return TSR_OK;
}

static int build(const tsr_sweep_options *sw, axis *ax, tsr_sweep_plan *p) {
  int n = sw->ngrids + sw->nrandoms;
  for (int i = 0; i < sw->ngrids; i++) TSR_CHECK(parse_grid(sw->grids[i], &ax[i]));
  for (int i = 0; i < sw->nrandoms; i++)
    TSR_CHECK(parse_random(sw->randoms[i], &ax[sw->ngrids + i]));
  TSR_CHECK(check_names(ax, n));
  int draws = sw->nrandoms ? (sw->trials > 0 ? sw->trials : 10) : 1;
  int64_t total = draws;
  for (int i = 0; i < sw->ngrids; i++) {
    total *= ax[i].nvalues;
    if (total > MAX_TRIALS)
      return TSR_ERROR(TSR_ERR_VALUE, "the sweep has more than %" PRId64 " trials", MAX_TRIALS);
  }
  p->nparams = n;
  p->ntrials = total;
  p->names = calloc((size_t)n, sizeof *p->names);
  p->settings = calloc((size_t)(total * n), sizeof *p->settings);
  if (!p->names || !p->settings) return TSR_ERROR(TSR_ERR_MEMORY, "out of memory");
  for (int i = 0; i < n; i++)
    if (!(p->names[i] = strdup(ax[i].name))) return TSR_ERROR(TSR_ERR_MEMORY, "out of memory");
  return fill(sw, ax, draws, p);
}

int tsr_sweep_plan_build(const tsr_sweep_options *sw, tsr_sweep_plan *p) {
  memset(p, 0, sizeof *p);
  int n = sw->ngrids + sw->nrandoms;
  if (n == 0) return TSR_ERROR(TSR_ERR_VALUE, "a sweep needs --grid or --random");
  if (sw->trials > 0 && sw->nrandoms == 0)
    return TSR_ERROR(TSR_ERR_VALUE, "--trials counts the draws of --random: there is none");
  axis *ax = calloc((size_t)n, sizeof *ax);
  if (!ax) return TSR_ERROR(TSR_ERR_MEMORY, "out of memory");
  int st = build(sw, ax, p);
  axes_free(ax, n);
  if (st != TSR_OK) tsr_sweep_plan_free(p);
  return st;
}

void tsr_sweep_plan_free(tsr_sweep_plan *p) {
  for (int i = 0; p->names && i < p->nparams; i++) free(p->names[i]);
  for (int64_t k = 0; p->settings && k < p->ntrials * p->nparams; k++) free(p->settings[k]);
  free(p->names);
  free(p->settings);
  memset(p, 0, sizeof *p);
}

/* ---- manifest ---------------------------------------------------------------- */

static uint64_t fnv1a(const char *s) {
  uint64_t h = 1469598103934665603ull;
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
  return h;
}

/* One line each: "tessera-sweep 1", "job HASH", "params N", N "param NAME",
 * "trials T", then T*N setting lines "NAME=VALUE" (a value holds no newline),
 * and "warm-start B" for a --warm-start sweep of batch B. */
char *tsr_sweep_manifest(const tsr_sweep_plan *p, const char *job_text) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  if (!f) return NULL;
  fprintf(f, "tessera-sweep 1\njob %016" PRIx64 "\nparams %d\n", fnv1a(job_text), p->nparams);
  for (int j = 0; j < p->nparams; j++) fprintf(f, "param %s\n", p->names[j]);
  fprintf(f, "trials %" PRId64 "\n", p->ntrials);
  for (int64_t k = 0; k < p->ntrials * p->nparams; k++) fprintf(f, "%s\n", p->settings[k]);
  if (p->warm_batch) fprintf(f, "warm-start %d\n", p->warm_batch);
  if (fclose(f)) {
    free(buf);
    return NULL;
  }
  return buf;
}

/* The next line of *s (its newline replaced), or NULL at the end. */
static char *next_line(char **s) {
  if (!*s || !**s) return NULL;
  char *line = *s, *nl = strchr(line, '\n');
  if (nl) {
    *nl = 0;
    *s = nl + 1;
  } else {
    *s = line + strlen(line);
  }
  return line;
}

static int parse_body(const char *dir, char *s, tsr_sweep_plan *p) {
  char *l;
  long long n;
  if (!(l = next_line(&s)) || strcmp(l, "tessera-sweep 1") || !(l = next_line(&s)) ||
      strncmp(l, "job ", 4) || !(l = next_line(&s)) || sscanf(l, "params %lld", &n) != 1 || n < 1 ||
      n > 4096)
    return TSR_ERROR(TSR_ERR_IO, "'%s/manifest' is not a tessera sweep manifest", dir);
  p->nparams = (int)n;
  if (!(p->names = calloc((size_t)n, sizeof *p->names)))
    return TSR_ERROR(TSR_ERR_MEMORY, "out of memory");
  for (int j = 0; j < p->nparams; j++)
    if (!(l = next_line(&s)) || strncmp(l, "param ", 6) || !(p->names[j] = strdup(l + 6)))
      return TSR_ERROR(TSR_ERR_IO, "'%s/manifest': bad param line", dir);
  if (!(l = next_line(&s)) || sscanf(l, "trials %lld", &n) != 1 || n < 1 || n > MAX_TRIALS)
    return TSR_ERROR(TSR_ERR_IO, "'%s/manifest': bad trials line", dir);
  p->ntrials = n;
  if (!(p->settings = calloc((size_t)(n * p->nparams), sizeof *p->settings)))
    return TSR_ERROR(TSR_ERR_MEMORY, "out of memory");
  for (int64_t k = 0; k < p->ntrials * p->nparams; k++)
    if (!(l = next_line(&s)) || !strchr(l, '=') || !(p->settings[k] = strdup(l)))
      return TSR_ERROR(TSR_ERR_IO, "'%s/manifest' ends early", dir);
  if ((l = next_line(&s)) && (sscanf(l, "warm-start %d", &p->warm_batch) != 1 || p->warm_batch < 1))
    return TSR_ERROR(TSR_ERR_IO, "'%s/manifest': bad line after the trials", dir);
  return TSR_OK;
}

int tsr_sweep_manifest_parse(const char *dir, const char *text, tsr_sweep_plan *p) {
  memset(p, 0, sizeof *p);
  char *copy = strdup(text);
  if (!copy) return TSR_ERROR(TSR_ERR_MEMORY, "out of memory");
  int st = parse_body(dir, copy, p);
  free(copy);
  if (st != TSR_OK) tsr_sweep_plan_free(p);
  return st;
}
