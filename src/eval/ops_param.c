/*
 * ops_param.c - param() (ops_param.h): `lam = param(0.1)` binds lam to 0.1,
 * or to the value a run gives with --set lam=VALUE, converted to the
 * default's type (an integer, a number, True/False or a string), so that a
 * setting that does not fit is one error at the param's line, before work.
 */
#include "eval/ops_param.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"

/* The --set whose name is `name`, or -1 (the last one wins). */
static int find_set(const tsr_ctx *c, const char *name) {
  int found = -1;
  size_t n = strlen(name);
  for (int i = 0; i < c->nsets; i++)
    if (!strncmp(c->sets[i], name, n) && c->sets[i][n] == '=') found = i;
  return found;
}

static int bad_setting(tsr_ctx *c, const ast_node *at, const char *set, const char *what) {
  return tsr_ctx_error(c, at, TSR_ERR_VALUE, "--set %s: %s is %s (the type of its default)", set,
                       c->target, what);
}

/* text as a value of def's type into out. */
static int convert(tsr_ctx *c, const ast_node *at, const char *set, const char *text,
                   const tsr_value *def, tsr_value *out) {
  char *end;
  memset(out, 0, sizeof *out);
  out->kind = def->kind;
  errno = 0;
  switch (def->kind) {
  case V_INT:
    out->i = strtoll(text, &end, 10);
    if (end == text || *end || errno) return bad_setting(c, at, set, "an integer");
    return TSR_OK;
  case V_FLOAT:
    out->f = strtod(text, &end);
    if (end == text || *end || errno || !isfinite(out->f))
      return bad_setting(c, at, set, "a finite number");
    return TSR_OK;
  case V_BOOL:
    if (strcmp(text, "True") && strcmp(text, "False"))
      return bad_setting(c, at, set, "True or False");
    out->i = !strcmp(text, "True");
    return TSR_OK;
  default: { /* V_STR */
    size_t n = strlen(text);
    char *s;
    TSR_CHECK(tsr_ctx_alloc(c, n + 1, (void **)&s));
    memcpy(s, text, n + 1);
    out->s = s;
    return TSR_OK;
  }
  }
}

int tsr_b_param(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a,
                tsr_value *out) {
  (void)def;
  if (!c->target || call != c->target_value)
    return tsr_ctx_error(c, call, TSR_ERR_VALUE,
                         "param() must be the whole right-hand side of an assignment to one "
                         "name: name = param(default)");
  size_t used = strlen(c->params);
  snprintf(c->params + used, sizeof c->params - used, "%s%s", used ? ", " : "", c->target);
  const tsr_value *d = &a->v[0];
  if (d->kind != V_INT && d->kind != V_FLOAT && d->kind != V_BOOL && d->kind != V_STR)
    return tsr_ctx_error(c, a->at[0], TSR_ERR_TYPE,
                         "a param's default must be a number, True/False or a string, got %s",
                         tsr_value_type_name(d));
  int i = find_set(c, c->target);
  if (i < 0) {
    *out = *d;
    return TSR_OK;
  }
  for (int k = 0; k < c->nsets; k++) /* every --set of this name is taken */
    if (!strncmp(c->sets[k], c->target, strlen(c->target)) && c->sets[k][strlen(c->target)] == '=')
      c->set_used[k] = 1;
  return convert(c, call, c->sets[i], c->sets[i] + strlen(c->target) + 1, d, out);
}

int tsr_params_check_used(const tsr_ctx *c) {
  for (int i = 0; i < c->nsets; i++)
    if (!c->set_used[i])
      return TSR_ERROR(TSR_ERR_VALUE, "--set %s: the job has no param() named %.*s (its params: %s)",
                       c->sets[i], (int)strcspn(c->sets[i], "="), c->sets[i],
                       c->params[0] ? c->params : "none");
  return TSR_OK;
}
