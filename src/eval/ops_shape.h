/*
 * ops_shape.h - shape builtins that are views (ops_shape.c): flip, fliplr,
 * flipud, expand_dims, squeeze, atleast_1d/2d/3d. Each is one selection of
 * its input (graph/chunks.h: slices, indices, new axes), so it fuses into
 * whatever reads it, on every backend, with the chunks dask gives. Their
 * table lines are in ops.c.
 */
#ifndef TSR_OPS_SHAPE_H
#define TSR_OPS_SHAPE_H

#include "eval/builtin.h"

/* The view of ops.c's lines (def->code). */
typedef enum {
  SHAPE_FLIP,
  SHAPE_FLIPLR,
  SHAPE_FLIPUD,
  SHAPE_EXPAND_DIMS,
  SHAPE_SQUEEZE,
  SHAPE_ATLEAST_1D,
  SHAPE_ATLEAST_2D,
  SHAPE_ATLEAST_3D
} tsr_shape_kind;

/* flip(m, axis=None), fliplr(m), flipud(m), expand_dims(a, axis),
 * squeeze(a, axis=None), atleast_1d(x), atleast_2d(x), atleast_3d(x):
 * def->code a tsr_shape_kind. */
int tsr_b_shape(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a,
                tsr_value *out);

#endif
