/*
 * ops_join.h - builtins that join arrays or change their shape beyond a
 * view (ops_join.c): reshape and ravel (graph N_RESHAPE, dask's chunk rule),
 * concatenate and everything built on it (stack, hstack, vstack, dstack,
 * column_stack, block, append, roll, tile, pad, repeat: N_CONCAT, whose
 * nests are computed in one step), rot90 (flips and a transpose: views) and
 * broadcast_to (a where over a constant: fused). Their table lines are in
 * ops.c.
 */
#ifndef TSR_OPS_JOIN_H
#define TSR_OPS_JOIN_H

#include "eval/builtin.h"

/* The function of ops.c's lines (def->code). */
typedef enum {
  JOIN_RESHAPE,
  JOIN_RAVEL,
  JOIN_CONCATENATE,
  JOIN_STACK,
  JOIN_HSTACK,
  JOIN_VSTACK,
  JOIN_DSTACK,
  JOIN_COLUMN_STACK,
  JOIN_BLOCK,
  JOIN_APPEND,
  JOIN_ROLL,
  JOIN_ROT90,
  JOIN_TILE,
  JOIN_PAD,
  JOIN_REPEAT,
  JOIN_BROADCAST_TO,
  JOIN_TAKE,
  JOIN_TOPK,
  JOIN_ARGTOPK,
  JOIN_FFTSHIFT,
  JOIN_IFFTSHIFT,
  JOIN_BROADCAST_ARRAYS
} tsr_join_kind;

/* x[idx] along axis for n valid (non-negative) indices: dask's take, each
 * run of consecutive indices in one input chunk one output chunk (a slice
 * where the run is evenly spaced, else its elements joined). */
int tsr_node_take(tsr_node *x, int axis, const int64_t *idx, int64_t n, tsr_node **out);

/* x padded with value by w[d][0] before and w[d][1] after each axis d
 * (pad(x, w, constant_values=value), dask's chunks). */
int tsr_node_pad_constant(tsr_node *x, const int64_t (*w)[2], double value, tsr_node **out);

/* Every function of tsr_join_kind: def->code says which. */
int tsr_b_join(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a,
               tsr_value *out);

#endif
