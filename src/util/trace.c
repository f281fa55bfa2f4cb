/*
 * trace.c - span recording (see trace.h).
 *
 * Spans go into blocks owned by the thread that records them (a lock is
 * taken only to link a new block), so workers never contend while tracing.
 * Nothing here communicates: the job layer gathers and writes the spans
 * (job/trace_write.c).
 */
#define _GNU_SOURCE
#include "util/trace.h"

#include <omp.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#define BLOCK_SPANS 4096
#define MAX_SPANS ((int64_t)1 << 20) /* per rank: 64 MB of spans at most */

typedef struct block {
  struct block *next;
  int n;
  tsr_trace_rec s[BLOCK_SPANS];
} block;

int tsr_trace_on;
static block *blocks;
static pthread_mutex_t blocks_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned generation = 1; /* bumped when blocks are freed */
static _Thread_local block *mine;
static _Thread_local unsigned mine_generation;
static int64_t stored, dropped;
static double started;

static const char *cat_names[TSR_TRACE_NCATS] = {"phase",  "chunk",   "materialize", "backend",
                                                 "device", "combine", "comm",        "io"};

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
  b->s[b->n++] = (tsr_trace_rec){t0, t1 > t0 ? t1 : t0, name, args, tid, (int32_t)cat};
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

void tsr_trace_clear(void) {
  tsr_trace_on = 0;
  free_blocks();
}

/* ---- reading what was recorded (the writer, job/trace_write.c) -------------- */

void tsr_trace_each(void (*fn)(const tsr_trace_rec *s, void *arg), void *arg) {
  tsr_trace_on = 0;
  for (block *b = blocks; b; b = b->next)
    for (int i = 0; i < b->n; i++) fn(&b->s[i], arg);
}

double tsr_trace_started(void) { return started; }
int64_t tsr_trace_dropped(void) { return dropped; }

const char *tsr_trace_cat_name(int cat) {
  return cat >= 0 && cat < TSR_TRACE_NCATS ? cat_names[cat] : "?";
}
