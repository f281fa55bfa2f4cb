/*
 * error.h - the one error type of tessera and the macros that propagate it.
 *
 * Every function that can fail returns an int status (TSR_OK == 0 on success)
 * and, on failure, records one message with tsr_error_set(). Callers wrap such
 * calls in TSR_CHECK so that the happy path reads straight down; the message
 * travels up unchanged to the CLI, which reports it once as
 * "tessera: error: ..." on rank 0 and exits non-zero on every rank.
 */
#ifndef TSR_ERROR_H
#define TSR_ERROR_H

#include <stddef.h>

typedef enum tsr_status {
  TSR_OK = 0,
  TSR_ERR_SYNTAX,     /* job text does not parse */
  TSR_ERR_NAME,       /* unknown variable, function or keyword */
  TSR_ERR_TYPE,       /* wrong kind of value (string where a number is needed, ...) */
  TSR_ERR_SHAPE,      /* shape, broadcast or chunk mismatch */
  TSR_ERR_VALUE,      /* a value out of its domain (negative chunk, zero step, ...) */
  TSR_ERR_INDEX,      /* index out of range */
  TSR_ERR_MEMORY,     /* allocation failed or a chunk cannot fit --mem-limit */
  TSR_ERR_IO,         /* file or HDF5 failure */
  TSR_ERR_BACKEND,    /* backend not built or not usable */
  TSR_ERR_COMM,       /* MPI/NCCL failure */
  TSR_ERR_INTERRUPTED,/* SIGINT/SIGTERM received */
  TSR_ERR_USAGE,      /* bad command-line usage */
  TSR_ERR_INTERNAL    /* a bug: an invariant of tessera itself was broken */
} tsr_status;

/* Records an error (printf-style message) and returns code. The message of the
 * first error wins until tsr_error_clear(); later calls only add context. */
int tsr_error_set(int code, const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* The recorded message ("" when none) and its code. */
const char *tsr_error_message(void);
int tsr_error_code(void);
void tsr_error_clear(void);

/* Where an error is reported: a collective error (every rank found the same
 * one, e.g. a syntax error) is printed once by rank 0; a local one (this
 * rank failed, others may not have) is printed by the failing rank with its
 * number; a silent one (another rank failed) is not printed here at all. */
typedef enum { TSR_SCOPE_COLLECTIVE, TSR_SCOPE_LOCAL, TSR_SCOPE_SILENT } tsr_error_scope;
void tsr_error_set_scope(tsr_error_scope scope);
tsr_error_scope tsr_error_get_scope(void);

/* Source position of the recorded error (for --debug output). */
const char *tsr_error_where(void);

#define TSR_ERROR(code, ...) tsr_error_set((code), __FILE__, __LINE__, __VA_ARGS__)

/* Propagates a failing status upward. */
#define TSR_CHECK(expr)                                                        \
  do {                                                                         \
    int tsr_check_status_ = (expr);                                            \
    if (tsr_check_status_ != TSR_OK) return tsr_check_status_;                 \
  } while (0)

/* For functions that hold resources: stores the status of expr in st and,
 * on failure, jumps to label, where everything held is released once:
 *
 *     int st = TSR_OK;
 *     TSR_CHECK_GOTO(st, step_one(buf), done);
 *     TSR_CHECK_GOTO(st, step_two(buf), done);
 *   done:
 *     free(buf);
 *     return st;
 */
#define TSR_CHECK_GOTO(st, expr, label)                                        \
  do {                                                                         \
    (st) = (expr);                                                             \
    if ((st) != TSR_OK) goto label;                                            \
  } while (0)

/* Allocation that turns failure into TSR_ERR_MEMORY. */
#define TSR_MALLOC(ptr, nbytes)                                                \
  do {                                                                         \
    size_t tsr_n_ = (size_t)(nbytes);                                          \
    (ptr) = malloc(tsr_n_ ? tsr_n_ : 1);                                       \
    if (!(ptr))                                                                \
      return TSR_ERROR(TSR_ERR_MEMORY, "out of memory allocating %zu bytes",   \
                       tsr_n_);                                                \
  } while (0)

#define TSR_CALLOC(ptr, count, size)                                           \
  do {                                                                         \
    size_t tsr_c_ = (size_t)(count), tsr_s_ = (size_t)(size);                  \
    (ptr) = calloc(tsr_c_ ? tsr_c_ : 1, tsr_s_ ? tsr_s_ : 1);                  \
    if (!(ptr))                                                                \
      return TSR_ERROR(TSR_ERR_MEMORY, "out of memory allocating %zu x %zu bytes", \
                       tsr_c_, tsr_s_);                                        \
  } while (0)

#endif
