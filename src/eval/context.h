/*
 * context.h - what a builtin may ask of the one who runs it: report an error
 * at a place in the job text, the job's Philox key and the next random
 * stream, memory that lives until the job ends, and the job's file services.
 *
 * Builtins (ops_*.c) take a tsr_ctx, never the interpreter, so the operation
 * table depends on this small interface and the interpreter depends on the
 * table, not both ways. The interpreter fills the first services (interp.c);
 * the job layer fills the file services (job/sources.c), so that opening an
 * HDF5 file and agreeing on it across ranks stays out of the front end.
 */
#ifndef TSR_CONTEXT_H
#define TSR_CONTEXT_H

#include <stddef.h>
#include <stdint.h>

#include "lang/ast.h"
#include "graph/array.h"
#include "graph/sources.h"

typedef struct tsr_ctx {
  const tsr_source *text; /* the job text: errors are located in it */
  void *self;             /* the interpreter, passed back to its services */
  uint64_t (*seed)(void *self);
  uint32_t (*next_stream)(void *self);
  /* n zeroed bytes that live until the job ends (tuple items of results). */
  int (*alloc)(void *self, size_t n, void **out);
  /* Describes dataset of the file at path, the same on every rank
   * (collective); errors unlocated. NULL: this job cannot read files. */
  int (*open_dataset)(const char *path, const char *dataset, tsr_dataset_info *info);
  /* Whether save(..., compression="gzip") can be written. */
  int (*gzip_available)(void);
  /* param(): the name the statement being run assigns to (NULL: not a
   * single-name assignment), and the run's NAME=VALUE settings (--set),
   * each marked in set_used when a param() takes it. */
  const char *target;
  const ast_node *target_value; /* that statement's whole right-hand side */
  const char *const *sets;
  int nsets;
  unsigned char *set_used;
  char params[256]; /* the names param() has bound so far, ", "-separated */
  /* Computes n (small: at most 2^20 elements) now, while the job is read,
   * into n->value (collective: every rank reads the same job): a boolean
   * mask's counts, which the rest of the job's shapes depend on, and the
   * values a function needs as constants (tsr_eager_values, args.c). The
   * job layer fills it
   * (job/session.c); NULL: this reading of the job computes nothing (a
   * sweep's look at its parameters), and such a job is refused. */
  int (*compute_now)(void *job, tsr_node *n);
  void *job;
} tsr_ctx;

/* A printf-style error located at `at`; returns code. */
int tsr_ctx_error(tsr_ctx *c, const ast_node *at, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* An error raised deeper (a broadcast mismatch in the chunk-grid code, say),
 * moved to the expression that caused it; memory and internal errors and
 * already located messages are returned as they are. */
int tsr_ctx_relocate(tsr_ctx *c, const ast_node *at, int status);

static inline uint64_t tsr_ctx_seed(tsr_ctx *c) { return c->seed(c->self); }
static inline uint32_t tsr_ctx_next_stream(tsr_ctx *c) { return c->next_stream(c->self); }
static inline int tsr_ctx_alloc(tsr_ctx *c, size_t n, void **out) {
  return c->alloc(c->self, n, out);
}

#endif
