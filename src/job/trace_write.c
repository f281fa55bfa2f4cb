/*
 * trace_write.c - the trace file (trace_write.h).
 *
 * The file is written once, by rank 0, from every rank's spans formatted as
 * JSON text on their own rank with clock offsets measured after a barrier:
 * MPI_Wtime-style clocks of different nodes need not agree, but their drift
 * over one run is far below a chunk's duration. The file is written under a
 * temporary name (created by the probe, before any work) and renamed when
 * complete.
 */
#define _GNU_SOURCE
#include "job/trace_write.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/error.h"
#include "util/grow.h"
#include "util/trace.h"
#include "mpi/agree.h"
#include "mpi/comm.h"

static FILE *out_file; /* rank 0, between probe and write */
static char out_tmp[4096];

int tsr_trace_probe(const char *path) {
  int st = TSR_OK;
  if (tsr_comm_rank() == 0 && !out_file) {
    snprintf(out_tmp, sizeof out_tmp, "%s.tmp.%ld", path, (long)getpid());
    out_file = fopen(out_tmp, "w");
    if (!out_file)
      st = TSR_ERROR(TSR_ERR_IO, "cannot create trace file '%s': %s", path, strerror(errno));
  }
  return tsr_agree_rank0(st, "cannot create the trace file");
}

void tsr_trace_discard(void) {
  tsr_trace_clear();
  if (out_file) {
    fclose(out_file);
    out_file = NULL;
    unlink(out_tmp);
  }
}

/* ---- JSON text ------------------------------------------------------------- */

typedef struct text {
  char *s;
  size_t n, cap;
  int failed;
} text;

static void put(text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(text *t, const char *fmt, ...) {
  if (t->failed) return;
  for (;;) {
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(t->s ? t->s + t->n : NULL, t->s ? t->cap - t->n : 0, fmt, ap);
    va_end(ap);
    if (k < 0) {
      t->failed = 1;
      return;
    }
    if (t->s && t->n + (size_t)k < t->cap) {
      t->n += (size_t)k;
      return;
    }
    size_t cap = t->cap ? t->cap : 1 << 16;
    while (cap <= t->n + (size_t)k) cap *= 2;
    char *p = realloc(t->s, cap);
    if (!p) {
      t->failed = 1;
      return;
    }
    t->s = p;
    t->cap = cap;
  }
}

/* A JSON string body: quotes, backslashes and control characters escaped. */
static void put_escaped(text *t, const char *s) {
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\')
      put(t, "\\%c", c);
    else if (c < 0x20)
      put(t, "\\u%04x", c);
    else
      put(t, "%c", c);
  }
}

static void thread_row_name(int tid, char *buf, size_t n) {
  if (tid == 0)
    snprintf(buf, n, "thread 0 (main)");
  else if (tid >= TSR_TRACE_TID_DEVICE)
    snprintf(buf, n, "GPU stream of thread %d", tid - TSR_TRACE_TID_DEVICE);
  else
    snprintf(buf, n, "thread %d", tid);
}

/* The thread rows of a rank: every tid that has a span, main thread first. */
typedef struct rows {
  int *tid;
  int64_t n, cap;
  int failed;
} rows;

static void add_row(const tsr_trace_rec *s, void *arg) {
  rows *r = arg;
  for (int64_t k = 0; k < r->n; k++)
    if (r->tid[k] == s->tid) return;
  if (r->failed || tsr_grow((void **)&r->tid, &r->cap, r->n + 1, sizeof(int), "for trace rows")) {
    r->failed = 1;
    return;
  }
  r->tid[r->n++] = s->tid;
}

static void format_rows(text *t, int rank) {
  rows r = {0};
  tsr_trace_rec main_row = {.tid = 0};
  add_row(&main_row, &r);
  tsr_trace_each(add_row, &r);
  if (r.failed) {
    tsr_error_clear(); /* reported as the formatting's failure */
    t->failed = 1;
  }
  char name[64];
  for (int64_t k = 0; k < r.n && !r.failed; k++) {
    thread_row_name(r.tid[k], name, sizeof name);
    put(t,
        "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%d,\"tid\":%d,\"args\":{\"name\":\"%s\"}},"
        "\n",
        rank, r.tid[k], name);
    put(t,
        "{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":%d,\"tid\":%d,\"args\":{\"sort_"
        "index\":%d}},\n",
        rank, r.tid[k], r.tid[k]);
  }
  free(r.tid);
}

/* One span as an "X" event; pid and the clock shift come with it. */
typedef struct span_out {
  text *t;
  int rank;
  double shift; /* offset + origin */
} span_out;

static void format_span(const tsr_trace_rec *s, void *arg) {
  span_out *o = arg;
  text *t = o->t;
  double ts = (s->t0 - o->shift) * 1e6, dur = (s->t1 - s->t0) * 1e6;
  put(t, "{\"ph\":\"X\",\"cat\":\"%s\",\"name\":\"", tsr_trace_cat_name(s->cat));
  put_escaped(t, s->name ? s->name : "?");
  put(t, "\",\"pid\":%d,\"tid\":%d,\"ts\":%.3f,\"dur\":%.3f,\"args\":{", o->rank, (int)s->tid, ts,
      dur);
  const char *sep = "";
  if (s->a.chunk >= 0) {
    put(t, "\"chunk\":%lld", (long long)s->a.chunk);
    sep = ",";
  }
  if (s->a.chunks) put(t, "%s\"chunks\":%lld", sep, (long long)s->a.chunks), sep = ",";
  if (s->a.elements) put(t, "%s\"elements\":%lld", sep, (long long)s->a.elements), sep = ",";
  if (s->a.bytes) put(t, "%s\"bytes\":%lld", sep, (long long)s->a.bytes);
  put(t, "}},\n");
}

/* This rank's metadata and spans, each event followed by ",\n". */
static void format_rank(text *t, int rank, double offset, double origin) {
  char host[256] = "?";
  gethostname(host, sizeof host - 1);
  host[sizeof host - 1] = '\0';
  put(t,
      "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%d,\"tid\":0,\"args\":{\"name\":\"rank %d (",
      rank, rank);
  put_escaped(t, host);
  put(t, ")\"}},\n");
  put(t,
      "{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":%d,\"tid\":0,\"args\":{\"sort_index\":"
      "%d}},\n",
      rank, rank);
  format_rows(t, rank);
  span_out o = {t, rank, offset + origin};
  tsr_trace_each(format_span, &o);
}

static int write_file(FILE *f, const char *meta, const char *all, const size_t *counts, int size,
                      int64_t total_dropped) {
  fprintf(f,
          "{\"displayTimeUnit\":\"ms\",\n\"otherData\":{\"generator\":\"tessera\",\"ranks\":%d,"
          "\"dropped_spans\":%lld%s%s},\n\"traceEvents\":[\n",
          size, (long long)total_dropped, meta && *meta ? "," : "", meta ? meta : "");
  size_t off = 0;
  for (int r = 0; r < size; r++) {
    fwrite(all + off, 1, counts[r], f);
    off += counts[r];
  }
  /* Every event ends with ",\n": close the array with a last, harmless one. */
  fprintf(f, "{\"ph\":\"M\",\"name\":\"trace_end\",\"pid\":0,\"tid\":0,\"args\":{}}\n]}\n");
  return fflush(f) == 0 && !ferror(f) ? TSR_OK : TSR_ERR_IO;
}

/* ---- the collective write ------------------------------------------------------ */

static void earliest(const tsr_trace_rec *s, void *arg) {
  double *first = arg;
  if (s->t0 < *first) *first = s->t0;
}

/* Where this rank's clock stands against rank 0's (*offset), the earliest
 * span of any rank on rank 0's clock (*origin), and every rank's dropped
 * spans: after a barrier every rank reads its clock "at once". */
static int align_clocks(double *offset, double *origin, int64_t *total_dropped) {
  double first = tsr_trace_started(), mine[3], *clocks = NULL;
  size_t *counts = NULL;
  tsr_trace_each(earliest, &first);
  mine[1] = first;
  mine[2] = (double)tsr_trace_dropped();
  int st = tsr_comm_barrier();
  mine[0] = tsr_trace_now();
  if (st == TSR_OK) st = tsr_comm_allgather_bytes(mine, sizeof mine, (char **)&clocks, &counts);
  if (st == TSR_OK) {
    *total_dropped = 0;
    for (int r = 0; r < tsr_comm_size(); r++) {
      double o = clocks[3 * r + 1] - (clocks[3 * r] - clocks[0]);
      if (r == 0 || o < *origin) *origin = o;
      *total_dropped += (int64_t)clocks[3 * r + 2];
    }
    *offset = mine[0] - clocks[0];
  }
  free(clocks);
  free(counts);
  return st;
}

/* A gather to rank 0: an exchange where only rank 0 receives. */
static int gather_text(const text *t, char **all, size_t **counts) {
  int size = tsr_comm_size();
  char **send = calloc((size_t)size, sizeof(char *));
  size_t *sendn = calloc((size_t)size, sizeof(size_t));
  int st = TSR_OK;
  if (!send || !sendn) st = TSR_ERROR(TSR_ERR_MEMORY, "out of memory gathering the trace");
  if (st == TSR_OK) {
    send[0] = t->s;
    sendn[0] = t->n;
    st = tsr_comm_alltoall_bytes(send, sendn, all, counts);
  }
  free(send);
  free(sendn);
  return st;
}

/* Rank 0: the file, complete, under its final name. */
static int finish_file(const char *path, const char *meta, const char *all, const size_t *counts,
                       int64_t total_dropped) {
  int st = out_file ? write_file(out_file, meta, all, counts, tsr_comm_size(), total_dropped)
                    : TSR_ERR_IO;
  if (out_file && fclose(out_file) != 0) st = TSR_ERR_IO;
  out_file = NULL;
  if (st == TSR_OK && rename(out_tmp, path) != 0) st = TSR_ERR_IO;
  if (st != TSR_OK) {
    TSR_ERROR(TSR_ERR_IO, "cannot write trace file '%s': %s", path, strerror(errno));
    unlink(out_tmp);
  }
  return st;
}

/* Every rank's spans as JSON at rank 0 (*all, counts[r] bytes from rank r). */
static int collect(char **all, size_t **counts, int64_t *total_dropped) {
  double offset = 0, origin = 0;
  TSR_CHECK(align_clocks(&offset, &origin, total_dropped));
  text t = {0};
  int st = TSR_OK;
  format_rank(&t, tsr_comm_rank(), offset, origin);
  if (t.failed) { /* keep the collective going with nothing to send */
    t.n = 0;
    st = TSR_ERROR(TSR_ERR_MEMORY, "out of memory formatting the trace");
  }
  int gst = gather_text(&t, all, counts);
  free(t.s);
  return st != TSR_OK ? st : gst;
}

int tsr_trace_write(const char *path, const char *meta) {
  tsr_trace_on = 0;
  char *all = NULL;
  size_t *counts = NULL;
  int64_t total_dropped = 0;
  int st = collect(&all, &counts, &total_dropped);
  if (st == TSR_OK && tsr_comm_rank() == 0)
    st = finish_file(path, meta, all, counts, total_dropped);
  free(all);
  free(counts);
  tsr_trace_clear();
  int worst = st;
  if (tsr_comm_max_int(st, &worst) != TSR_OK) return TSR_ERR_COMM;
  if (st != TSR_OK)
    tsr_error_set_scope(TSR_SCOPE_LOCAL);
  else if (worst != TSR_OK) {
    st = TSR_ERROR(worst, "rank 0 could not write the trace file");
    tsr_error_set_scope(TSR_SCOPE_SILENT);
  }
  return st;
}
