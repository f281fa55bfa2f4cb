/*
 * fuse.c - the optimizer: slice pushdown and fusion of elementwise chains.
 *
 * Compiling walks the DAG from the consumer down, carrying an affine map from
 * the consumer's coordinates to the current node's coordinates. A slice only
 * changes the map (its offset/step compose into it), a broadcast ties an axis
 * to a fixed coordinate, and elementwise operations become register
 * instructions; generators and computed arrays become leaves that read their
 * values through the final map. The result is one program per consumer: no
 * intermediate array is ever materialized, and only the selected elements of a
 * sliced random array are generated.
 */
#include "fuse/program.h"

#include <stdlib.h>
#include <string.h>

#include "graph/ew_dtype.h"
#include "kernel/dtype.h"
#include "kernel/ew_scalar.h"
#include "util/error.h"
#include "util/grow.h"

/* Out of memory while growing a program: "out of memory compiling a program". */
#define GROW_WHAT "compiling a program"

/* Map from output coordinates to a node's coordinates, one entry per node axis. */
typedef struct axis_map {
  int out_axis[TSR_MAXDIM]; /* < 0: fixed at off */
  int64_t off[TSR_MAXDIM], step[TSR_MAXDIM];
} axis_map;

static int new_reg(tsr_prog *p, int is_const, double value, int *reg) {
  int64_t cap = p->regs_cap; /* one capacity for the two arrays */
  TSR_CHECK(tsr_grow((void **)&p->reg_const, &cap, p->nregs + 1, sizeof(int), GROW_WHAT));
  cap = p->regs_cap;
  TSR_CHECK(tsr_grow((void **)&p->reg_value, &cap, p->nregs + 1, sizeof(double), GROW_WHAT));
  p->regs_cap = cap;
  p->reg_const[p->nregs] = is_const;
  p->reg_value[p->nregs] = value;
  *reg = p->nregs++;
  return TSR_OK;
}

static int emit(tsr_prog *p, tsr_instr ins) {
  /* the backends' elementwise switches trust this: an id of the wrong arity is caught here */
  if ((ins.kind == I_UNARY || ins.kind == I_BINARY) &&
      tsr_ew_arity(ins.op) != (ins.kind == I_UNARY ? 1 : 2))
    return TSR_ERROR(TSR_ERR_INTERNAL, "elementwise id %d is not a %s operation", ins.op,
                     ins.kind == I_UNARY ? "unary" : "binary");
  /* a cast that changes nothing costs a pass on the CPU and keeps a GPU
   * program off its generator loops (gpu_prog.cu, is_gen) */
  if (ins.cast == TSR_BOOL && ins.kind != I_LEAF && tsr_ew_gives_bool(ins.op)) ins.cast = TSR_F64;
  TSR_CHECK(tsr_grow((void **)&p->code, &p->instr_cap, p->ninstr + 1, sizeof ins, GROW_WHAT));
  p->code[p->ninstr++] = ins;
  return TSR_OK;
}

/* The register of a leaf of n already read through the same map, or -1:
 * x in where(x > 10, x + 1, 0) is one leaf, generated or read once per
 * element (the program is in single assignment form, so its register may
 * be read twice). */
static int leaf_reg(const tsr_prog *p, const tsr_node *n, const axis_map *m, tsr_leaf_kind kind) {
  for (int i = 0; i < p->nleaves; i++) {
    const tsr_leaf *l = &p->leaves[i];
    int same = l->node == n && l->kind == kind;
    for (int b = 0; same && b < n->grid.ndim; b++)
      same = l->axis_of[b] == m->out_axis[b] && l->off[b] == m->off[b] && l->step[b] == m->step[b];
    for (int k = 0; same && k < p->ninstr; k++)
      if (p->code[k].kind == I_LEAF && p->code[k].x == i) return p->code[k].dst;
  }
  return -1;
}

static int add_leaf(tsr_prog *p, const tsr_node *n, const axis_map *m, tsr_leaf_kind kind,
                    int *reg) {
  if ((*reg = leaf_reg(p, n, m, kind)) >= 0) return TSR_OK;
  TSR_CHECK(
      tsr_grow((void **)&p->leaves, &p->leaves_cap, p->nleaves + 1, sizeof(tsr_leaf), GROW_WHAT));
  tsr_leaf *l = &p->leaves[p->nleaves];
  memset(l, 0, sizeof *l);
  l->kind = kind;
  l->node = n;
  l->cast = kind != LEAF_DATA && kind != LEAF_CHUNKS ? (int)n->dtype : TSR_F64;
  l->base_ndim = n->grid.ndim;
  for (int b = 0; b < n->grid.ndim; b++) {
    l->base_shape[b] = n->grid.shape[b];
    l->axis_of[b] = m->out_axis[b];
    l->off[b] = m->off[b];
    l->step[b] = m->step[b];
  }
  if (kind == LEAF_RANDOM) {
    l->rng = n->op;
    l->key = n->key;
    l->stream = n->stream;
  }
  l->a = n->a;
  l->b = n->b;
  l->data = n->value;
  TSR_CHECK(new_reg(p, 0, 0.0, reg));
  tsr_instr ins = {I_LEAF, 0, 0, *reg, p->nleaves, -1};
  p->nleaves++;
  return emit(p, ins);
}

/* The map of input `in` of an elementwise node: NumPy broadcasting aligns
 * shapes on the right; a length-1 axis of the input against a longer one is
 * read at coordinate 0 for every output coordinate. */
static void broadcast_map(const tsr_node *node, const tsr_node *in, const axis_map *m,
                          axis_map *im) {
  int shift = node->grid.ndim - in->grid.ndim;
  for (int b = 0; b < in->grid.ndim; b++) {
    int na = b + shift;
    if (in->grid.shape[b] == 1 && node->grid.shape[na] != 1) {
      im->out_axis[b] = -1;
      im->off[b] = 0;
      im->step[b] = 0;
    } else {
      im->out_axis[b] = m->out_axis[na];
      im->off[b] = m->off[na];
      im->step[b] = m->step[na];
    }
  }
}

/* The map of a SELECT node's input: slices compose, integer indices fix a
 * coordinate, new axes consume an output axis of length 1. */
static void select_map(const tsr_node *node, const axis_map *m, axis_map *im) {
  const tsr_node *in = node->in[0];
  int ia = 0, na = 0;
  for (int s = 0; s < node->nsel; s++) {
    const tsr_axis_sel *sel = &node->sel[s];
    if (sel->kind == TSR_SEL_NEWAXIS) {
      na++;
    } else if (sel->kind == TSR_SEL_INDEX) {
      im->out_axis[ia] = -1;
      im->off[ia] = sel->index;
      im->step[ia] = 0;
      ia++;
    } else {
      im->out_axis[ia] = m->out_axis[na];
      im->off[ia] = sel->first + sel->step * m->off[na];
      im->step[ia] = sel->step * m->step[na];
      ia++;
      na++;
    }
  }
  for (; ia < in->grid.ndim; ia++, na++) {
    im->out_axis[ia] = m->out_axis[na];
    im->off[ia] = m->off[na];
    im->step[ia] = m->step[na];
  }
}

static int compile_node(tsr_prog *p, const tsr_node *n, const axis_map *m, int depth, int one_op,
                        int *reg);

static int compile_input(tsr_prog *p, const tsr_node *in, const axis_map *im, int depth, int one_op,
                         int *reg) {
  if (one_op && in->value == NULL && in->kind != N_FULL)
    return add_leaf(p, in, im, LEAF_CHUNKS, reg);
  return compile_node(p, in, im, depth + 1, one_op, reg);
}

/* A view of input `in` (slice, transpose) through map im: nothing of its
 * own to compute, except with --no-fuse, where the view is the operation
 * (a copy of the input's chunks it reads). */
static int compile_view(tsr_prog *p, const tsr_node *in, const axis_map *im, int depth, int one_op,
                        int *reg) {
  if (one_op && depth == 0) {
    int x;
    TSR_CHECK(compile_input(p, in, im, depth, one_op, &x));
    TSR_CHECK(new_reg(p, 0, 0.0, reg));
    return emit(p, (tsr_instr){I_UNARY, EW_COPY, 0, *reg, x, -1});
  }
  return compile_input(p, in, im, depth, one_op, reg);
}

static int compile_node(tsr_prog *p, const tsr_node *n, const axis_map *m, int depth, int one_op,
                        int *reg) {
  if (n->value != NULL && tsr_node_size(n) == 1 && depth > 0)
    return new_reg(p, 1, n->value[0], reg);
  if (n->value != NULL) return add_leaf(p, n, m, LEAF_DATA, reg);
  /* Held chunks (stage.h): every reader, the node's own program too, gets
   * them as rechunk pieces from their owners (tsr_prog_compile_held). */
  if (n->held != NULL) return add_leaf(p, n, m, LEAF_XFER, reg);
  switch (n->kind) {
  case N_FULL:
    if (depth > 0) return new_reg(p, 1, n->a, reg);
    {
      int c;
      TSR_CHECK(new_reg(p, 1, n->a, &c));
      TSR_CHECK(new_reg(p, 0, 0.0, reg));
      return emit(p, (tsr_instr){I_UNARY, EW_COPY, 0, *reg, c, -1});
    }
  case N_RANDOM:
    return add_leaf(p, n, m, LEAF_RANDOM, reg);
  case N_ARANGE:
    return add_leaf(p, n, m, LEAF_ARANGE, reg);
  case N_UNARY:
  case N_ASTYPE: {
    int x;
    TSR_CHECK(compile_input(p, n->in[0], m, depth, one_op, &x));
    int op = n->kind == N_UNARY ? n->op : EW_COPY;
    TSR_CHECK(new_reg(p, 0, 0.0, reg));
    return emit(p, (tsr_instr){I_UNARY, op, (int)n->dtype, *reg, x, -1});
  }
  case N_BINARY: {
    axis_map mx, my;
    int x, y;
    broadcast_map(n, n->in[0], m, &mx);
    broadcast_map(n, n->in[1], m, &my);
    TSR_CHECK(compile_input(p, n->in[0], &mx, depth, one_op, &x));
    TSR_CHECK(compile_input(p, n->in[1], &my, depth, one_op, &y));
    TSR_CHECK(new_reg(p, 0, 0.0, reg));
    return emit(p, (tsr_instr){I_BINARY, n->op, (int)n->dtype, *reg, x, y});
  }
  case N_SELECT: {
    axis_map mi;
    select_map(n, m, &mi);
    return compile_view(p, n->in[0], &mi, depth, one_op, reg);
  }
  case N_LOAD: /* read per box by the executor (exec/stage.c) */
    return add_leaf(p, n, m, LEAF_LOAD, reg);
  case N_RECHUNK: /* pieces from the source chunks' owners (exec/xfer.c) */
    if (n->in[0]->value != NULL) return compile_node(p, n->in[0], m, depth, one_op, reg);
    return add_leaf(p, n, m, LEAF_XFER, reg);
  case N_LINALG:
    if (n->op == LA_TRANSPOSE) { /* a view: output axis i is input axis perm[i] */
      int perm[TSR_MAXDIM] = {0};
      axis_map mt = *m;
      tsr_perm_of(n->a, n->grid.ndim, perm);
      for (int i = 0; i < n->grid.ndim; i++)
        mt.out_axis[perm[i]] = m->out_axis[i], mt.off[perm[i]] = m->off[i],
        mt.step[perm[i]] = m->step[i];
      return compile_view(p, n->in[0], &mt, depth, one_op, reg);
    }
    if (n->op == LA_DIAGONAL) { /* a view: axis1 and axis2 both follow the last axis */
      long long off;
      int a1 = 0, a2 = 0, last = n->grid.ndim - 1;
      axis_map mt = *m;
      tsr_diag_of(n->a, &off, &a1, &a2);
      for (int b = 0, i = 0; b < n->in[0]->grid.ndim; b++) {
        if (b == a1 || b == a2) {
          mt.out_axis[b] = m->out_axis[last], mt.step[b] = m->step[last];
          mt.off[b] = m->off[last] + (b == a1 ? (off < 0 ? -off : 0) : (off > 0 ? off : 0));
        } else
          mt.out_axis[b] = m->out_axis[i], mt.off[b] = m->off[i], mt.step[b] = m->step[i], i++;
      }
      return compile_view(p, n->in[0], &mt, depth, one_op, reg);
    }
    break;       /* the others are computed whole first (job/compute.c) */
  case N_REDUCE: /* computed first (job/compute.c, exec/exec.c) */
  case N_SCAN:   /* computed first (exec/scan.c), then held or replicated */
  case N_SORT:   /* computed first (exec/sort.c), then held or replicated */
  case N_RESHAPE: /* computed first (exec/concat.c), then held or replicated */
  case N_CONCAT:
  case N_VALUES: /* its value is set when it is made (above) */
  case N_HIST:   /* computed first (exec/hist.c), its value replicated */
  case N_COMPRESS: /* computed first (exec/compress.c), then held or replicated */
    break;
  case N_PERSIST: /* held once computed (above); until then, and with --no-fuse, its input */
    return compile_view(p, n->in[0], m, depth, one_op, reg);
  }
  return TSR_ERROR(TSR_ERR_INTERNAL, "reduction %d reached the fuser before it was computed",
                   n->id);
}

void tsr_leaf_finish(tsr_leaf *l) {
  int64_t stride = 1;
  l->e_const = 0;
  memset(l->e_coef, 0, sizeof l->e_coef);
  for (int b = l->base_ndim - 1; b >= 0; b--) {
    l->e_const += l->off[b] * stride;
    if (l->axis_of[b] >= 0) l->e_coef[l->axis_of[b]] += l->step[b] * stride;
    stride *= l->base_shape[b];
  }
}

/* An empty program over node's space and the identity map into it. */
static void prog_start(const tsr_node *node, tsr_prog *out, axis_map *m) {
  memset(out, 0, sizeof *out);
  out->ndim = node->grid.ndim;
  for (int a = 0; a < node->grid.ndim; a++) {
    out->shape[a] = node->grid.shape[a];
    m->out_axis[a] = a;
    m->off[a] = 0;
    m->step[a] = 1;
  }
}

int tsr_prog_compile_held(const tsr_node *node, tsr_prog *out) {
  axis_map m;
  prog_start(node, out, &m);
  int st = add_leaf(out, node, &m, LEAF_HELD, &out->result);
  if (st != TSR_OK) {
    tsr_prog_free(out);
    return st;
  }
  tsr_leaf_finish(&out->leaves[0]);
  return TSR_OK;
}

int tsr_prog_compile(const tsr_node *node, int one_op, tsr_prog *out) {
  axis_map m;
  prog_start(node, out, &m);
  int st = compile_node(out, node, &m, 0, one_op, &out->result);
  if (st != TSR_OK) {
    tsr_prog_free(out);
    return st;
  }
  if (out->reg_const[out->result]) { /* a constant expression still needs a row */
    int r;
    TSR_CHECK(new_reg(out, 0, 0.0, &r));
    TSR_CHECK(emit(out, (tsr_instr){I_UNARY, EW_COPY, 0, r, out->result, -1}));
    out->result = r;
  }
  for (int i = 0; i < out->nleaves; i++) tsr_leaf_finish(&out->leaves[i]);
  return TSR_OK;
}

void tsr_prog_free(tsr_prog *p) {
  free(p->leaves);
  free(p->code);
  free(p->reg_const);
  free(p->reg_value);
  memset(p, 0, sizeof *p);
}
