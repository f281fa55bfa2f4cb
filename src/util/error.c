/*
 * error.c - storage for the one recorded error (see error.h).
 *
 * The record is per thread so that OpenMP workers can fail independently;
 * the executor copies a worker's error to the master thread before returning.
 */
#include "util/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

static _Thread_local int err_code;
static _Thread_local char err_msg[1024];
static _Thread_local char err_where[256];
static _Thread_local tsr_error_scope err_scope;
static _Thread_local int err_agreed;

int tsr_error_set(int code, const char *file, int line, const char *fmt, ...) {
  if (err_code == TSR_OK) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err_msg, sizeof err_msg, fmt, ap);
    va_end(ap);
    snprintf(err_where, sizeof err_where, "%s:%d", file, line);
    err_code = code;
  }
  return code;
}

const char *tsr_error_message(void) { return err_msg; }
int tsr_error_code(void) { return err_code; }
const char *tsr_error_where(void) { return err_where; }

void tsr_error_clear(void) {
  err_code = TSR_OK;
  err_msg[0] = '\0';
  err_where[0] = '\0';
  err_scope = TSR_SCOPE_COLLECTIVE;
  err_agreed = 0;
}

void tsr_error_set_scope(tsr_error_scope scope) { err_scope = scope; }
tsr_error_scope tsr_error_get_scope(void) { return err_scope; }
void tsr_error_set_agreed(void) { err_agreed = 1; }
int tsr_error_agreed(void) { return err_agreed; }

const char *tsr_file_kind(mode_t m) {
  return S_ISFIFO(m)   ? "a FIFO"
         : S_ISSOCK(m) ? "a socket"
         : S_ISCHR(m)  ? "a character device"
         : S_ISBLK(m)  ? "a block device"
                       : "not a regular file";
}
