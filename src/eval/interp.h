/*
 * interp.h - the interpreter: walks the syntax tree, binding names to values
 * and building the lazy array DAG. It computes nothing itself; the session
 * (job/session.c) decides what to compute once the whole job has been read, so
 * every user error in the job is found before any heavy work starts. The one
 * exception: a boolean mask's counts, which the shapes of the rest depend on,
 * are computed when the mask is met (tsr_ctx's compute_now, eval/ops_mask.c).
 */
#ifndef TSR_INTERP_H
#define TSR_INTERP_H

#include <stdint.h>

#include "lang/ast.h"
#include "eval/context.h"
#include "eval/value.h"
#include "util/strmap.h"

typedef struct tsr_binding {
  char *name; /* variable name, or the statement's text for expressions */
  tsr_value value;
  int is_expression; /* a bare expression statement */
  int line;
} tsr_binding;

typedef struct tsr_interp tsr_interp;
struct tsr_interp {
  tsr_ctx ctx; /* what builtins see of it (context.h); the job adds file services */
  const tsr_source *src;
  uint64_t seed;      /* Philox key of every random array */
  uint32_t streams;   /* random arrays created so far */
  tsr_binding *names; /* in order of first binding */
  int nnames;
  int64_t cap;
  tsr_strmap vars;     /* variable name -> its index in names (not expressions) */
  const char *line_at; /* the start of line line_no of the job text, where */
  int line_no;         /* the last expression statement's text was found */
  void **arena;        /* every allocation of the job's values */
  int64_t narena, arena_cap;
};

void tsr_interp_init(struct tsr_interp *ip, const tsr_source *src, uint64_t seed);
void tsr_interp_free(struct tsr_interp *ip);

/* Runs every statement of a program. */
int tsr_interp_program(struct tsr_interp *ip, const ast_program *prog);

/* Evaluates one expression. */
int tsr_interp_expr(struct tsr_interp *ip, const ast_node *e, tsr_value *out);

#endif
