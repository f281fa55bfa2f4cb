/*
 * error.h - the one error type of tessera and the macros that propagate it.
 *
 * Every function that can fail returns an int status (TSR_OK == 0 on success)
 * and, on failure, records one message with tsr_error_set(). Callers wrap such
 * calls in TSR_CHECK so that the happy path reads straight down; the message
 * travels up unchanged to the CLI, which reports it once as
 * "tessera: error: ..." on rank 0 and exits non-zero on every rank. The
 * codes, the scopes and TSR_ERROR/TSR_CHECK are in util/status.h, which the
 * public API (tessera.h) shares; what follows is for the library only.
 */
#ifndef TSR_ERROR_H
#define TSR_ERROR_H

#include <stddef.h>
#include <sys/types.h>

#include "util/status.h"

/* Forgets the recorded error (the next one is recorded afresh). */
void tsr_error_clear(void);

/* Sets where the recorded error is reported (util/status.h). */
void tsr_error_set_scope(tsr_error_scope scope);

/* Marks the recorded error as one that every rank holds, the same text on
 * each (mpi/agree.h: tsr_agreed), so that an agreement after it leaves it
 * to rank 0 to print; tsr_error_clear forgets the mark. */
void tsr_error_set_agreed(void);
int tsr_error_agreed(void);

/* Source position of the recorded error (for --debug output). */
const char *tsr_error_where(void);

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
#define TSR_CHECK_GOTO(st, expr, label) \
  do {                                  \
    (st) = (expr);                      \
    if ((st) != TSR_OK) goto label;     \
  } while (0)

/* Allocation that turns failure into TSR_ERR_MEMORY. */
#define TSR_MALLOC(ptr, nbytes)                                                                 \
  do {                                                                                          \
    size_t tsr_n_ = (size_t)(nbytes);                                                           \
    (ptr) = malloc(tsr_n_ ? tsr_n_ : 1);                                                        \
    if (!(ptr)) return TSR_ERROR(TSR_ERR_MEMORY, "out of memory allocating %zu bytes", tsr_n_); \
  } while (0)

#define TSR_CALLOC(ptr, count, size)                                                       \
  do {                                                                                     \
    size_t tsr_c_ = (size_t)(count), tsr_s_ = (size_t)(size);                              \
    (ptr) = calloc(tsr_c_ ? tsr_c_ : 1, tsr_s_ ? tsr_s_ : 1);                              \
    if (!(ptr))                                                                            \
      return TSR_ERROR(TSR_ERR_MEMORY, "out of memory allocating %zu x %zu bytes", tsr_c_, \
                       tsr_s_);                                                            \
  } while (0)

/* What a file that is not a regular file is (a FIFO, a socket, a character
 * or block device), for messages. */
const char *tsr_file_kind(mode_t mode);

#endif
