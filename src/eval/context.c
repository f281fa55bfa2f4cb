/*
 * context.c - the located-error services of context.h, shared by every
 * builtin and the interpreter.
 */
#include "eval/context.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "util/error.h"

int tsr_ctx_error(tsr_ctx *c, const ast_node *at, int code, const char *fmt, ...) {
  char msg[768];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return tsr_source_error(c->text, at ? at->line : 0, at ? at->col : 0, code, "%s", msg);
}

int tsr_ctx_relocate(tsr_ctx *c, const ast_node *at, int status) {
  if (status == TSR_OK || status == TSR_ERR_MEMORY || status == TSR_ERR_INTERNAL) return status;
  char msg[1024];
  snprintf(msg, sizeof msg, "%s", tsr_error_message());
  if (strchr(msg, '\n')) return status; /* already located */
  tsr_error_clear();
  return tsr_ctx_error(c, at, status, "%s", msg);
}
