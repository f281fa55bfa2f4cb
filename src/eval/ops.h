/*
 * ops.h - the operation table: every function and method of the job
 * language is declared once here, with its parameters, its kind and the id of
 * its kernel. The interpreter binds arguments from it, `tessera info` lists
 * it, and the kernel ids are what the backends implement.
 */
#ifndef TSR_OPS_H
#define TSR_OPS_H

#include "lang/ast.h"
#include "eval/value.h"

#define TSR_MAX_PARAMS 8

typedef enum tsr_op_kind { OPK_GENERATOR, OPK_ELEMENTWISE, OPK_REDUCTION, OPK_ARRAY } tsr_op_kind;

typedef struct tsr_interp tsr_interp;

/* Arguments bound to the parameters of an op, by parameter position. */
typedef struct tsr_args {
  tsr_value v[TSR_MAX_PARAMS];
  int given[TSR_MAX_PARAMS];
  const ast_node *at[TSR_MAX_PARAMS]; /* where each argument was written */
} tsr_args;

typedef struct tsr_op_def tsr_op_def;
typedef int (*tsr_builtin)(tsr_interp *ip, const ast_node *call, const tsr_op_def *def,
                           tsr_args *a, tsr_value *out);

struct tsr_op_def {
  const char *name;
  tsr_op_kind kind;
  int code;                              /* tsr_ew_op / tsr_red_kind / tsr_random_kind */
  const char *params[TSR_MAX_PARAMS + 1]; /* NULL-terminated */
  int npos;                              /* how many may be given by position */
  int nreq;                              /* how many are required */
  int is_method;                         /* also x.name(...) with x as first parameter */
  tsr_builtin fn;
  const char *doc;                       /* one line for `tessera info` */
};

extern const tsr_op_def tsr_ops[];
extern const int tsr_nops;

const tsr_op_def *tsr_op_find(const char *name, int as_method);

/* Interpreter services the builtins use (interp.c). */
int tsr_interp_error(tsr_interp *ip, const ast_node *at, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
int tsr_interp_relocate(tsr_interp *ip, const ast_node *at, int status);
uint32_t tsr_interp_next_stream(tsr_interp *ip);
uint64_t tsr_interp_seed(tsr_interp *ip);
/* n zeroed bytes that live until the job ends (tuple items of results). */
int tsr_interp_alloc(tsr_interp *ip, size_t n, void **out);

/* Argument conversions of ops.c, for builtins in other files (ops_io.c):
 * dtype= strings, chunks= in every accepted form, integers. */
int tsr_arg_dtype(tsr_interp *ip, const tsr_args *a, int i, tsr_dtype *dt);
int tsr_arg_chunks(tsr_interp *ip, const tsr_args *a, int i, int ndim, const int64_t *shape,
                   tsr_dtype dt, tsr_grid *g);
int tsr_arg_int(tsr_interp *ip, const tsr_args *a, int i, const char *what, long long *out);

#endif
