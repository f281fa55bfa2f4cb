/*
 * ops_array.h - builtins of the ops table that make or combine arrays:
 * generators (normal, uniform, random, zeros, ones, full, arange),
 * elementwise functions, reductions, astype and persist. Their table lines are in
 * ops.c.
 */
#ifndef TSR_OPS_ARRAY_H
#define TSR_OPS_ARRAY_H

#include "eval/builtin.h"

/* The stream of a random array: its seed= at iseed, else the job's next. */
int tsr_random_stream(tsr_ctx *c, tsr_args *a, int iseed, uint32_t *stream);
int tsr_b_random2(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a,
                  tsr_value *out);
int tsr_b_rand_dims(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a,
                    tsr_value *out);
int tsr_b_random(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a,
                 tsr_value *out);
int tsr_b_fill(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a,
               tsr_value *out);
int tsr_b_arange(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a,
                 tsr_value *out);
int tsr_b_unary(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a,
                tsr_value *out);
/* x1 op x2 (def->code: tsr_ew_op); numbers give a number. */
/* A Python number v as the operand of op with an array of type like (NEP
 * 50's weak scalar: it takes the array's type where its kind allows); an
 * array is itself. */
int tsr_weak_operand(tsr_ctx *c, const tsr_value *v, const ast_node *at, tsr_dtype like, int op,
                     tsr_node **out);
int tsr_b_scalar_type(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a,
                      tsr_value *out);
int tsr_b_binary(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a,
                 tsr_value *out);
/* clip(a, a_min, a_max): maximum then minimum, a bound None is left out. */
int tsr_b_clip(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a,
               tsr_value *out);
/* round(a, decimals=0): NumPy's, rint of a scaled by 10**decimals. */
int tsr_b_round(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a,
                tsr_value *out);
int tsr_b_reduce(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a,
                 tsr_value *out);
int tsr_b_astype(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a,
                 tsr_value *out);
/* persist(x): x held in backend memory once computed (graph/array.h). */
int tsr_b_persist(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a,
                  tsr_value *out);
/* x.compute(): x itself (Dask's name; a job computes what it needs). */
int tsr_b_compute(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a,
                  tsr_value *out);

#endif
