/*
 * status.h - the status codes of tessera and the two macros that make and
 * propagate them: the part of util/error.h that the public API (tessera.h)
 * shows, so that a program (the CLI) reports errors the way the library
 * records them.
 */
#ifndef TSR_STATUS_H
#define TSR_STATUS_H

typedef enum tsr_status {
  TSR_OK = 0,
  TSR_ERR_SYNTAX,      /* job text does not parse */
  TSR_ERR_NAME,        /* unknown variable, function or keyword */
  TSR_ERR_TYPE,        /* wrong kind of value (string where a number is needed, ...) */
  TSR_ERR_SHAPE,       /* shape, broadcast or chunk mismatch */
  TSR_ERR_VALUE,       /* a value out of its domain (negative chunk, zero step, ...) */
  TSR_ERR_INDEX,       /* index out of range */
  TSR_ERR_MEMORY,      /* allocation failed or a chunk cannot fit --mem-limit */
  TSR_ERR_IO,          /* file or HDF5 failure */
  TSR_ERR_BACKEND,     /* backend not built or not usable */
  TSR_ERR_COMM,        /* MPI/NCCL failure */
  TSR_ERR_INTERRUPTED, /* SIGINT/SIGTERM received */
  TSR_ERR_USAGE,       /* bad command-line usage */
  TSR_ERR_INTERNAL,    /* a bug: an invariant of tessera itself was broken */
  TSR_ERR_TRIALS       /* a sweep ended with some trials failed (the others are done) */
} tsr_status;

/* Records an error (printf-style message) and returns code. The message of the
 * first error wins until tsr_error_clear(); later calls only add context. */
int tsr_error_set(int code, const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* The recorded message ("" when none) and its code. */
const char *tsr_error_message(void);
int tsr_error_code(void);

/* Where an error is reported: a collective error (every rank found the same
 * one, e.g. a syntax error) is printed once by rank 0; a local one (this
 * rank failed, others may not have) is printed by the failing rank with its
 * number; a silent one (another rank failed) is not printed here at all. */
typedef enum { TSR_SCOPE_COLLECTIVE, TSR_SCOPE_LOCAL, TSR_SCOPE_SILENT } tsr_error_scope;
tsr_error_scope tsr_error_get_scope(void);

#define TSR_ERROR(code, ...) tsr_error_set((code), __FILE__, __LINE__, __VA_ARGS__)

/* Propagates a failing status upward. */
#define TSR_CHECK(expr)                                        \
  do {                                                         \
    int tsr_check_status_ = (expr);                            \
    if (tsr_check_status_ != TSR_OK) return tsr_check_status_; \
  } while (0)

#endif
