/*
 * trace.c - span recording and the Chrome trace-event writer (see trace.h).
 *
 * Spans go into blocks owned by the thread that records them (a lock is
 * taken only to link a new block), so workers never contend while tracing.
 * The file is written once, by rank 0, from every rank's spans formatted as
 * JSON text on their own rank with clock offsets measured after a barrier:
 * MPI_Wtime-style clocks of different nodes need not agree, but their drift
 * over one run is far below a chunk's duration.
 */
#define _GNU_SOURCE
#include "util/trace.h"

#include <errno.h>
#include <omp.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util/error.h"
#include "mpi/comm.h"

#define BLOCK_SPANS 4096
#define MAX_SPANS ((int64_t)1 << 20) /* per rank: 64 MB of spans at most */

typedef struct span {
  double t0, t1;
  const char *name;
  tsr_trace_args a;
  int32_t tid, cat;
} span;

typedef struct block {
  struct block *next;
  int n;
  span s[BLOCK_SPANS];
} block;

int tsr_trace_on;
static block *blocks;
static pthread_mutex_t blocks_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned generation = 1; /* bumped when blocks are freed */
static _Thread_local block *mine;
static _Thread_local unsigned mine_generation;
static int64_t stored, dropped;
static double started;
static FILE *out_file; /* rank 0, between probe and write */
static char out_tmp[4096];

static const char *cat_names[TSR_TRACE_NCATS] = {"phase",   "chunk",   "materialize", "backend",
                                                 "device",  "combine", "comm",        "io"};

double tsr_trace_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void tsr_trace_start(void) {
  if (tsr_trace_on) return;
  started = tsr_trace_now();
  tsr_trace_on = 1;
}

int tsr_trace_tid(void) { return omp_get_thread_num(); }

static block *own_block(void) {
  if (mine && mine_generation == generation && mine->n < BLOCK_SPANS) return mine;
  block *b = malloc(sizeof *b);
  if (!b) return NULL;
  b->n = 0;
  pthread_mutex_lock(&blocks_lock);
  b->next = blocks;
  blocks = b;
  mine_generation = generation;
  pthread_mutex_unlock(&blocks_lock);
  mine = b;
  return b;
}

void tsr_trace_span(tsr_trace_cat cat, const char *name, int tid, double t0, double t1,
                    tsr_trace_args args) {
  if (!tsr_trace_on) return;
  block *b = NULL;
  if (__atomic_fetch_add(&stored, 1, __ATOMIC_RELAXED) < MAX_SPANS) b = own_block();
  if (!b) {
    __atomic_fetch_add(&dropped, 1, __ATOMIC_RELAXED);
    return;
  }
  b->s[b->n++] = (span){t0, t1 > t0 ? t1 : t0, name, args, tid, (int32_t)cat};
}

double tsr_trace_end(tsr_trace_cat cat, const char *name, double t0, tsr_trace_args args) {
  if (!tsr_trace_on) return 0.0;
  double now = tsr_trace_now();
  tsr_trace_span(cat, name, tsr_trace_tid(), t0, now, args);
  return now;
}

static void free_blocks(void) {
  pthread_mutex_lock(&blocks_lock);
  while (blocks) {
    block *next = blocks->next;
    free(blocks);
    blocks = next;
  }
  generation++;
  stored = dropped = 0;
  pthread_mutex_unlock(&blocks_lock);
}

void tsr_trace_discard(void) {
  tsr_trace_on = 0;
  free_blocks();
  if (out_file) {
    fclose(out_file);
    out_file = NULL;
    unlink(out_tmp);
  }
}

/* ---- the output file: written under a temporary name, renamed when complete */

int tsr_trace_probe(const char *path) {
  int st = TSR_OK;
  if (tsr_comm_rank() == 0 && !out_file) {
    snprintf(out_tmp, sizeof out_tmp, "%s.tmp.%ld", path, (long)getpid());
    out_file = fopen(out_tmp, "w");
    if (!out_file)
      st = TSR_ERROR(TSR_ERR_IO, "cannot create trace file '%s': %s", path, strerror(errno));
  }
  int worst = st;
  if (tsr_comm_max_int(st, &worst) != TSR_OK) return TSR_ERR_COMM;
  if (st == TSR_OK && worst != TSR_OK) {
    st = TSR_ERROR(worst, "rank 0 cannot create the trace file");
    tsr_error_set_scope(TSR_SCOPE_SILENT);
  }
  return st;
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
    if (c == '"' || c == '\\') put(t, "\\%c", c);
    else if (c < 0x20) put(t, "\\u%04x", c);
    else put(t, "%c", c);
  }
}

static void thread_row_name(int tid, char *buf, size_t n) {
  if (tid == 0) snprintf(buf, n, "thread 0 (main)");
  else if (tid >= TSR_TRACE_TID_DEVICE) snprintf(buf, n, "GPU stream of thread %d", tid - TSR_TRACE_TID_DEVICE);
  else snprintf(buf, n, "thread %d", tid);
}

/* This rank's metadata and spans, each event followed by ",\n". */
static void format_rank(text *t, int rank, double offset, double origin) {
  char host[256] = "?", name[64];
  gethostname(host, sizeof host - 1);
  host[sizeof host - 1] = '\0';
  put(t, "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%d,\"tid\":0,\"args\":{\"name\":\"rank %d (",
      rank, rank);
  put_escaped(t, host);
  put(t, ")\"}},\n");
  put(t, "{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":%d,\"tid\":0,\"args\":{\"sort_index\":%d}},\n",
      rank, rank);
  /* Thread rows: every tid that has a span, plus the main thread. */
  int seen_cap = 64, nseen = 1, *seen = malloc(sizeof(int) * (size_t)seen_cap);
  if (!seen) {
    t->failed = 1;
    return;
  }
  seen[0] = 0;
  for (block *b = blocks; b; b = b->next)
    for (int i = 0; i < b->n; i++) {
      int tid = b->s[i].tid, k = 0;
      while (k < nseen && seen[k] != tid) k++;
      if (k < nseen) continue;
      if (nseen == seen_cap) {
        int *p = realloc(seen, sizeof(int) * (size_t)(seen_cap *= 2));
        if (!p) {
          free(seen);
          t->failed = 1;
          return;
        }
        seen = p;
      }
      seen[nseen++] = tid;
    }
  for (int k = 0; k < nseen; k++) {
    thread_row_name(seen[k], name, sizeof name);
    put(t, "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%d,\"tid\":%d,\"args\":{\"name\":\"%s\"}},\n",
        rank, seen[k], name);
    put(t, "{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":%d,\"tid\":%d,\"args\":{\"sort_index\":%d}},\n",
        rank, seen[k], seen[k]);
  }
  free(seen);
  for (block *b = blocks; b; b = b->next)
    for (int i = 0; i < b->n; i++) {
      const span *s = &b->s[i];
      double ts = (s->t0 - offset - origin) * 1e6, dur = (s->t1 - s->t0) * 1e6;
      put(t, "{\"ph\":\"X\",\"cat\":\"%s\",\"name\":\"", cat_names[s->cat]);
      put_escaped(t, s->name ? s->name : "?");
      put(t, "\",\"pid\":%d,\"tid\":%d,\"ts\":%.3f,\"dur\":%.3f,\"args\":{", rank, (int)s->tid, ts, dur);
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
}

static int write_file(FILE *f, const char *meta, const char *all, const size_t *counts, int size,
                      int64_t total_dropped) {
  fprintf(f, "{\"displayTimeUnit\":\"ms\",\n\"otherData\":{\"generator\":\"tessera\",\"ranks\":%d,"
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

int tsr_trace_write(const char *path, const char *meta) {
  tsr_trace_on = 0;
  int rank = tsr_comm_rank(), size = tsr_comm_size(), st = TSR_OK;
  /* Clock offsets: after a barrier every rank reads its clock "at once".
   * Time 0 of the file is the earliest span of any rank. */
  double first = started, mine_clock[3], *clocks = NULL;
  for (block *b = blocks; b; b = b->next)
    for (int i = 0; i < b->n; i++)
      if (b->s[i].t0 < first) first = b->s[i].t0;
  mine_clock[1] = first;
  mine_clock[2] = (double)dropped;
  size_t *ccounts = NULL;
  char *all = NULL;
  size_t *counts = NULL;
  st = tsr_comm_barrier();
  mine_clock[0] = tsr_trace_now();
  if (st == TSR_OK) st = tsr_comm_allgather_bytes(mine_clock, sizeof mine_clock, (char **)&clocks, &ccounts);
  text t = {0};
  int64_t total_dropped = 0;
  if (st == TSR_OK) {
    double origin = 0;
    for (int r = 0; r < size; r++) {
      double o = clocks[3 * r + 1] - (clocks[3 * r] - clocks[0]);
      if (r == 0 || o < origin) origin = o;
      total_dropped += (int64_t)clocks[3 * r + 2];
    }
    format_rank(&t, rank, mine_clock[0] - clocks[0], origin);
    if (t.failed) { /* keep the collective going with nothing to send */
      t.n = 0;
      st = TSR_ERROR(TSR_ERR_MEMORY, "out of memory formatting the trace");
    }
    /* A gather to rank 0: an exchange where only rank 0 receives. */
    char **send = calloc((size_t)size, sizeof(char *));
    size_t *sendn = calloc((size_t)size, sizeof(size_t));
    if (!send || !sendn) {
      free(send);
      free(sendn);
      free(t.s);
      free(clocks);
      free(ccounts);
      return TSR_ERROR(TSR_ERR_MEMORY, "out of memory gathering the trace");
    }
    send[0] = t.s;
    sendn[0] = t.n;
    int gst = tsr_comm_alltoall_bytes(send, sendn, &all, &counts);
    if (st == TSR_OK) st = gst;
    free(send);
    free(sendn);
  }
  free(t.s);
  free(clocks);
  free(ccounts);
  if (st == TSR_OK && rank == 0) {
    st = out_file ? write_file(out_file, meta, all, counts, size, total_dropped) : TSR_ERR_IO;
    if (out_file && fclose(out_file) != 0) st = TSR_ERR_IO;
    out_file = NULL;
    if (st == TSR_OK && rename(out_tmp, path) != 0) st = TSR_ERR_IO;
    if (st != TSR_OK) {
      TSR_ERROR(TSR_ERR_IO, "cannot write trace file '%s': %s", path, strerror(errno));
      unlink(out_tmp);
    }
  }
  free(all);
  free(counts);
  free_blocks();
  int worst = st;
  if (tsr_comm_max_int(st, &worst) != TSR_OK) return TSR_ERR_COMM;
  if (st != TSR_OK) tsr_error_set_scope(TSR_SCOPE_LOCAL);
  else if (worst != TSR_OK) {
    st = TSR_ERROR(worst, "rank 0 could not write the trace file");
    tsr_error_set_scope(TSR_SCOPE_SILENT);
  }
  return st;
}
