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
  JOIN_BROADCAST_TO
} tsr_join_kind;

/* Every function of tsr_join_kind: def->code says which. */
int tsr_b_join(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a,
               tsr_value *out);

#endif
