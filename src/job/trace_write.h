/*
 * trace_write.h - the `--trace FILE` output: after a run every rank's spans
 * (util/trace.h) are aligned to one clock, gathered to rank 0 and written as
 * one Chrome trace-event JSON file (one process row per rank, one thread row
 * per OpenMP thread or GPU stream) that Perfetto and chrome://tracing open.
 */
#ifndef TSR_TRACE_WRITE_H
#define TSR_TRACE_WRITE_H

/* Rank 0 checks, before any work, that path can be written (it creates the
 * temporary file). Collective. */
int tsr_trace_probe(const char *path);

/* Collective: aligns clocks, gathers every rank's spans to rank 0, which
 * writes the JSON to path (meta is a JSON object's members, e.g.
 * "\"backend\":\"cpu\"", put under "otherData"; may be NULL). Returns 0 or a
 * tsr_status (rank 0's file errors are reported by rank 0; every rank
 * returns the same status). Recording stops and the spans are freed. */
int tsr_trace_write(const char *path, const char *meta);

/* Stops recording, frees the spans and removes the temporary file (after a
 * failed run). */
void tsr_trace_discard(void);

#endif
