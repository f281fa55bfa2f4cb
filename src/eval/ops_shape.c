/*
 * ops_shape.c - shape builtins that are views (ops_shape.h). Each builds the
 * selection NumPy's function amounts to (flip: a step of -1 on its axes;
 * expand_dims: new axes; squeeze: index 0 on axes of length 1; atleast_Nd:
 * new axes where NumPy puts them) and makes one N_SELECT node of it, so the
 * output's chunks are the input's, reversed on a flipped axis and of one
 * chunk on a new axis, as dask.array's.
 */
#include "eval/ops_shape.h"

#include "util/error.h"

static tsr_axis_sel whole(const tsr_node *x, int a) {
  return (tsr_axis_sel){TSR_SEL_SLICE, 0, 1, x->grid.shape[a], 0};
}

static tsr_axis_sel new_axis(void) { return (tsr_axis_sel){TSR_SEL_NEWAXIS, 0, 0, 0, 0}; }

static int select_node(tsr_ctx *c, const ast_node *call, tsr_node *x, const tsr_axis_sel *sel,
                       int nsel, tsr_value *out) {
  tsr_node *n;
  TSR_CHECK(tsr_ctx_relocate(c, call, tsr_node_select(x, sel, nsel, &n)));
  tsr_set_array(out, n);
  return TSR_OK;
}

/* x with the axes of mask reversed (x[..., ::-1, ...]). */
static int flip(tsr_ctx *c, const ast_node *call, tsr_node *x, unsigned mask, tsr_value *out) {
  tsr_axis_sel sel[TSR_MAXDIM];
  const int64_t back = -1;
  for (int a = 0; a < x->grid.ndim; a++) {
    sel[a] = whole(x, a);
    if ((mask >> a) & 1u)
      TSR_CHECK(tsr_slice_normalize(x->grid.shape[a], NULL, NULL, &back, &sel[a].first,
                                    &sel[a].step, &sel[a].count));
  }
  return select_node(c, call, x, sel, x->grid.ndim, out);
}

/* The number of axes an axis= argument names (an int: 1, a tuple its
 * items), for expand_dims, whose axes count in the output. */
static int axes_given(tsr_ctx *c, const tsr_args *a, int i, int *n) {
  const tsr_value *v = &a->v[i];
  if (v->kind == V_TUPLE) {
    *n = v->nitems;
    return TSR_OK;
  }
  if (v->kind == V_INT || v->kind == V_BOOL) {
    *n = 1;
    return TSR_OK;
  }
  return tsr_ctx_error(c, a->at[i], TSR_ERR_TYPE,
                       "axis must be an integer or a tuple of integers, got %s",
                       tsr_value_type_name(v));
}

/* a with a new axis of length 1 at each position of axis (positions in the
 * output, as NumPy's). */
static int expand_dims(tsr_ctx *c, const ast_node *call, tsr_node *x, tsr_args *a, tsr_value *out) {
  int n = 0, axis = 0, nd = x->grid.ndim;
  unsigned mask = 0;
  TSR_CHECK(axes_given(c, a, 1, &n));
  if (nd + n > TSR_MAXDIM)
    return tsr_ctx_error(c, call, TSR_ERR_VALUE, "at most %d dimensions are supported", TSR_MAXDIM);
  TSR_CHECK(tsr_arg_axes(c, a, 1, nd + n, &axis, &mask));
  tsr_axis_sel sel[TSR_MAXDIM];
  for (int d = 0, in = 0; d < nd + n; d++) sel[d] = (mask >> d) & 1u ? new_axis() : whole(x, in++);
  return select_node(c, call, x, sel, nd + n, out);
}

/* a without its axes of length 1 (axis=None), or without the named ones,
 * each of which must have length 1. */
static int squeeze(tsr_ctx *c, const ast_node *call, tsr_node *x, tsr_args *a, tsr_value *out) {
  int axis = -1, nd = x->grid.ndim, named = a->given[1] && a->v[1].kind != V_NONE;
  unsigned mask = 0;
  TSR_CHECK(tsr_arg_axes(c, a, 1, nd, &axis, &mask));
  tsr_axis_sel sel[TSR_MAXDIM];
  for (int d = 0; d < nd; d++) {
    int drop = ((mask >> d) & 1u) && x->grid.shape[d] == 1;
    if (named && ((mask >> d) & 1u) && x->grid.shape[d] != 1)
      return tsr_ctx_error(c, a->at[1], TSR_ERR_VALUE,
                           "cannot select an axis to squeeze out which has size not equal to one "
                           "(axis %d has length %lld)",
                           d, (long long)x->grid.shape[d]);
    sel[d] = drop ? (tsr_axis_sel){TSR_SEL_INDEX, 0, 0, 0, 0} : whole(x, d);
  }
  return select_node(c, call, x, sel, nd, out);
}

/* NumPy's atleast_1d/2d/3d: 0-d -> (1,) / (1, 1) / (1, 1, 1); 1-d (N,) ->
 * (1, N) / (1, N, 1); 2-d (M, N) -> (M, N, 1) for 3d; the rest as they are. */
static int atleast(tsr_ctx *c, const ast_node *call, tsr_node *x, int want, tsr_value *out) {
  int nd = x->grid.ndim, ns = 0;
  if (nd >= want) {
    tsr_set_array(out, x);
    return TSR_OK;
  }
  tsr_axis_sel sel[TSR_MAXDIM];
  if (nd == 0)
    for (int d = 0; d < want; d++) sel[ns++] = new_axis();
  else if (want == 2) /* 1-d */
    sel[ns++] = new_axis(), sel[ns++] = whole(x, 0);
  else { /* want 3: (1, N, 1) or (M, N, 1) */
    if (nd == 1) sel[ns++] = new_axis();
    for (int d = 0; d < nd; d++) sel[ns++] = whole(x, d);
    sel[ns++] = new_axis();
  }
  return select_node(c, call, x, sel, ns, out);
}

int tsr_b_shape(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a,
                tsr_value *out) {
  tsr_node *x;
  TSR_CHECK(tsr_as_array(c, &a->v[0], a->at[0], tsr_value_dtype(&a->v[0]), &x));
  int nd = x->grid.ndim, axis = -1;
  unsigned mask = 0;
  switch ((tsr_shape_kind)def->code) {
  case SHAPE_FLIP:
    TSR_CHECK(tsr_arg_axes(c, a, 1, nd, &axis, &mask));
    return flip(c, call, x, mask, out);
  case SHAPE_FLIPLR:
  case SHAPE_FLIPUD: {
    int lr = def->code == SHAPE_FLIPLR;
    if (nd < 1 + lr)
      return tsr_ctx_error(c, a->at[0], TSR_ERR_SHAPE, "%s: input must be >= %d-d, got %d-d",
                           def->name, 1 + lr, nd);
    return flip(c, call, x, 1u << lr, out);
  }
  case SHAPE_EXPAND_DIMS:
    return expand_dims(c, call, x, a, out);
  case SHAPE_SQUEEZE:
    return squeeze(c, call, x, a, out);
  case SHAPE_ATLEAST_1D:
  case SHAPE_ATLEAST_2D:
  case SHAPE_ATLEAST_3D:
    return atleast(c, call, x, 1 + def->code - SHAPE_ATLEAST_1D, out);
  }
  return tsr_ctx_error(c, call, TSR_ERR_INTERNAL, "unknown shape function %s", def->name);
}
