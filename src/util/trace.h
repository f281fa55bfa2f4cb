/*
 * trace.h - what each rank did, and when: the spans behind `--trace FILE`.
 *
 * Every rank records its own tasks (fused chunk kernels, --no-fuse
 * materializations, combining partials, collectives, file I/O, the phases of
 * a job) as spans with a start, an end, a category and a few counts, in
 * per-thread buffers and without any communication. At the end of a run the
 * job layer (job/trace_write.h) aligns the ranks' clocks, gathers every span
 * to rank 0 and writes one Chrome trace-event JSON file.
 *
 * Tracing off costs one load and branch of tsr_trace_on per span site; the
 * backends may include this header (it depends on nothing else).
 */
#ifndef TSR_TRACE_H
#define TSR_TRACE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum tsr_trace_cat {
  TSR_TRACE_PHASE,       /* parse, plan, compute, write: the job's phases */
  TSR_TRACE_CHUNK,       /* one fused chunk task: generation + elementwise + reduction */
  TSR_TRACE_MATERIALIZE, /* --no-fuse: one operation over one chunk */
  TSR_TRACE_BACKEND,     /* a call into the backend, seen from the host */
  TSR_TRACE_DEVICE,      /* device-side time of a GPU launch (CUDA events) */
  TSR_TRACE_COMBINE,     /* combining partials in chunk order */
  TSR_TRACE_COMM,        /* a collective */
  TSR_TRACE_IO,          /* reading or writing a file */
  TSR_TRACE_NCATS
} tsr_trace_cat;

/* Thread rows: OpenMP thread k is row k (0: the rank's main thread); device
 * spans of the stream used by host thread k are row TSR_TRACE_TID_DEVICE + k. */
#define TSR_TRACE_TID_DEVICE 1000

/* Counts carried by a span; -1 (chunk) or 0 where they do not apply. */
typedef struct tsr_trace_args {
  int64_t chunk;    /* linear chunk id, or -1 */
  int64_t chunks;   /* chunk tasks this span completes */
  int64_t elements; /* logical elements computed */
  int64_t bytes;    /* bytes moved (sent + received, read, written) */
} tsr_trace_args;

/* Nonzero while recording; read it before timing anything. */
extern int tsr_trace_on;

/* Seconds on a monotonic clock (the clock of every span). */
double tsr_trace_now(void);

/* Starts recording on this rank (idempotent). Not collective. */
void tsr_trace_start(void);

/* Records a span [t0, t1] (from tsr_trace_now) of category cat on thread row
 * tid. name must outlive the trace (a string literal or a static table
 * entry). Thread-safe; a no-op when tracing is off. Beyond a fixed budget of
 * spans per rank further spans are counted as dropped, not stored. */
void tsr_trace_span(tsr_trace_cat cat, const char *name, int tid, double t0, double t1,
                    tsr_trace_args args);

/* Records a span that ends now and returns now. */
double tsr_trace_end(tsr_trace_cat cat, const char *name, double t0, tsr_trace_args args);

/* The start of a span: tsr_trace_now() while recording, else 0 (one load
 * and branch when tracing is off). */
static inline double tsr_trace_mark(void) { return tsr_trace_on ? tsr_trace_now() : 0.0; }

/* A phase span (no counts) from t0, a tsr_trace_mark, to now; a no-op when
 * tracing is off. */
static inline void tsr_trace_phase(const char *name, double t0) {
  tsr_trace_args none = {-1, 0, 0, 0};
  if (tsr_trace_on) tsr_trace_end(TSR_TRACE_PHASE, name, t0, none);
}

/* The calling thread's row: its OpenMP thread number. */
int tsr_trace_tid(void);

/* A recorded span, as tsr_trace_span stored it. */
typedef struct tsr_trace_rec {
  double t0, t1;
  const char *name;
  tsr_trace_args a;
  int32_t tid, cat;
} tsr_trace_rec;

/* Stops recording and calls fn on every span this rank recorded. */
void tsr_trace_each(void (*fn)(const tsr_trace_rec *s, void *arg), void *arg);

/* When recording started (tsr_trace_now's clock), and how many spans were
 * dropped beyond the budget. */
double tsr_trace_started(void);
int64_t tsr_trace_dropped(void);

/* "phase", "chunk", ...: the category's name in the trace file. */
const char *tsr_trace_cat_name(int cat);

/* Stops recording and frees the spans. */
void tsr_trace_clear(void);

#ifdef __cplusplus
}
#endif

#endif
