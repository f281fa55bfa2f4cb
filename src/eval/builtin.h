/*
 * builtin.h - what a builtin of the operation table is: its table line
 * (tsr_op_def), the arguments the interpreter bound to its parameters
 * (tsr_args), and the argument conversions every family of builtins shares
 * (args.c). Builtins take a context (context.h), never the interpreter.
 */
#ifndef TSR_BUILTIN_H
#define TSR_BUILTIN_H

#include "lang/ast.h"
#include "eval/context.h"
#include "eval/value.h"

#define TSR_MAX_PARAMS 10

typedef enum tsr_op_kind { OPK_GENERATOR, OPK_ELEMENTWISE, OPK_REDUCTION, OPK_ARRAY } tsr_op_kind;

/* The group of the user guide's table of functions (`tessera info
 * --markdown`) an op is listed in: its kind's (SEC_KIND), or the one its line
 * names, so that scans, HDF5, linear algebra, models and job statements are
 * not lost among the arrays. In the order the groups are printed. */
typedef enum tsr_op_section {
  SEC_KIND,
  SEC_CREATION,
  SEC_ELEMENTWISE,
  SEC_REDUCTION,
  SEC_SCAN,
  SEC_ARRAY,
  SEC_HDF5,
  SEC_LINALG,
  SEC_MODEL,
  SEC_JOB,
  SEC_COUNT
} tsr_op_section;

/* Arguments bound to the parameters of an op, by parameter position. */
typedef struct tsr_args {
  tsr_value v[TSR_MAX_PARAMS];
  int given[TSR_MAX_PARAMS];
  const ast_node *at[TSR_MAX_PARAMS]; /* where each argument was written */
} tsr_args;

typedef struct tsr_op_def tsr_op_def;
typedef int (*tsr_builtin)(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a,
                           tsr_value *out);

struct tsr_op_def {
  const char *name;
  tsr_op_kind kind;
  int code;                               /* tsr_ew_op / tsr_red_kind / tsr_random_kind */
  const char *params[TSR_MAX_PARAMS + 1]; /* NULL-terminated */
  int npos;                               /* how many may be given by position */
  int nreq;                               /* how many are required */
  int is_method;                          /* also x.name(...) with x as first parameter */
  tsr_builtin fn;
  const char *doc;        /* "SIGNATURE: what it does", for `tessera info` and the guide */
  const char *symbol;     /* the operator it implements ("+", ".T"), or NULL */
  tsr_op_section section; /* its group in the user guide's table */
};

/* Argument conversions (args.c): argument i of a, with errors located at it. */
int tsr_arg_int(tsr_ctx *c, const tsr_args *a, int i, const char *what, long long *out);
int tsr_arg_number(tsr_ctx *c, const tsr_args *a, int i, const char *what, double *out);
int tsr_arg_string(tsr_ctx *c, const tsr_args *a, int i, const char *what, const char **s);
/* shape=: an integer or a tuple of integers. */
int tsr_arg_shape(tsr_ctx *c, const tsr_args *a, int i, int *ndim, int64_t *shape);
/* dtype=: float64 when not given or None. */
int tsr_arg_dtype(tsr_ctx *c, const tsr_args *a, int i, tsr_dtype *dt);
/* chunks= in every accepted form ("auto" when not given). */
int tsr_arg_chunks(tsr_ctx *c, const tsr_args *a, int i, int ndim, const int64_t *shape,
                   tsr_dtype dt, tsr_grid *g);
/* One axis of chunks=: an int (-1 or None: the whole axis) or an explicit
 * tuple, into a new array *sizes of *n sizes (the caller frees it). */
int tsr_arg_chunk_axis(tsr_ctx *c, const ast_node *at, const tsr_value *e, int axis, int64_t len,
                       int64_t **sizes, int64_t *n);
/* An axis ax of ndim (negative counts from the end) into *axis, or "WHAT
 * AX is out of bounds for array of dimension NDIM" at at. */
int tsr_axis_index(tsr_ctx *c, const ast_node *at, long long ax, int ndim, const char *what,
                   int *axis);
/* axis=: None -> -1 (all axes); negative counts from the end. */
int tsr_arg_axis(tsr_ctx *c, const tsr_args *a, int i, int ndim, int *axis);

/* axis= of a reduction, as NumPy's: an int or None as tsr_arg_axis, or a
 * tuple (a list) of distinct axes, negative ones counted from the end. A
 * tuple of every axis gives -1 (the full reduction, as None), of one axis
 * that axis, otherwise TSR_AXES_SET with the listed axes in *mask (none:
 * no reduction). *mask is always the set of reduced axes. */
#define TSR_AXES_SET (-2)
int tsr_arg_axes(tsr_ctx *c, const tsr_args *a, int i, int ndim, int *axis, unsigned *mask);

/* n's values (n at most max elements), computed now if they are not yet
 * (tsr_ctx's compute_now), into *vals (n->value): what a function takes
 * as constants when an array is given (isin's test elements, digitize's
 * bins, histogram's range from the data's extremes). what names the
 * function in errors. */
int tsr_eager_values(tsr_ctx *c, const ast_node *at, tsr_node *n, int64_t max, const char *what,
                     const double **vals);

/* Argument i as an array: "WHAT needs an array, got TYPE" at it otherwise. */
int tsr_arg_array(tsr_ctx *c, const tsr_args *a, int i, const char *what, tsr_node **out);

/* A number as a 0-d array of dtype like; an array as itself. */
int tsr_as_array(tsr_ctx *c, const tsr_value *v, const ast_node *at, tsr_dtype like,
                 tsr_node **out);

void tsr_set_array(tsr_value *out, tsr_node *n);
void tsr_set_float(tsr_value *out, double f);
/* x op v and v op x for a number v, which takes x's dtype as in `x + 1`
 * (builtins composed of nodes: ops_create.c, ops_random.c, ops_stats.c). */
int tsr_node_op_number(int op, tsr_node *x, double v, tsr_node **out);
int tsr_number_op_node(int op, double v, tsr_node *x, tsr_node **out);
/* A tuple of the n arrays nodes (q, r = qr(x); xx, yy = meshgrid(x, y)). */
int tsr_set_tuple(tsr_ctx *c, tsr_node *const *nodes, int n, tsr_value *out);

#endif
