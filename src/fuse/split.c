/*
 * split.c - programs split into parts that fit a backend (split.h): the
 * choice of cut registers, then one program per cut register and one for
 * the result, each reading the cut registers it uses as DATA leaves.
 *
 * Programs are in single assignment form (fuse.c writes every register
 * once, before any instruction reads it), so each register has one
 * defining instruction and the instruction order is an evaluation order.
 */
#include "fuse/split.h"

#include <stdlib.h>
#include <string.h>

#include "util/error.h"

/* What a program needs. The program of an instruction sums its operands',
 * so an operand read twice counts twice: an upper bound of the part built. */
typedef struct cost {
  int64_t leaves, instr, regs, tables;
} cost;

/* The cut choice over one program. */
typedef struct plan {
  const tsr_prog *p;
  const tsr_prog_limits *lim;
  int *def;  /* by register: its defining instruction (-1: a constant) */
  char *cut; /* by register: computed by a part of its own */
  cost *of;  /* by instruction: the program of its register, cut operands as leaves */
  int *part; /* by cut register: the part that computes it */
} plan;

static int cost_fits(const cost *c, const tsr_prog_limits *lim) {
  return c->leaves <= lim->leaves && c->instr <= lim->instr && c->regs <= lim->regs &&
         c->tables <= lim->tables;
}

int tsr_prog_fits(const tsr_prog *p, const tsr_prog_limits *lim) {
  if (p->nleaves > lim->leaves || p->ninstr > lim->instr || p->nregs > lim->regs) return 0;
  if (p->nleaves <= lim->tables) return 1;
  int tables = 0;
  for (int i = 0; i < p->nleaves; i++) tables += p->leaves[i].kind == LEAF_CHUNKS;
  return tables <= lim->tables;
}

/* How much of the limits a cost takes: the larger operand is cut first. */
static double share(const cost *c, const tsr_prog_limits *lim) {
  return (double)c->leaves / lim->leaves + (double)c->instr / lim->instr +
         (double)c->regs / lim->regs + (double)c->tables / lim->tables;
}

static void cost_add(cost *a, cost b) {
  a->leaves += b.leaves;
  a->instr += b.instr;
  a->regs += b.regs;
  a->tables += b.tables;
}

/* An operand: a constant register, a cut register (one leaf read), or the
 * program of its instruction inline. */
static cost operand_cost(const plan *pl, int r) {
  if (pl->p->reg_const[r]) return (cost){0, 0, 1, 0};
  if (pl->cut[r]) return (cost){1, 1, 1, 0};
  return pl->of[pl->def[r]];
}

static cost instr_cost(const plan *pl, int i) {
  const tsr_instr *ins = &pl->p->code[i];
  if (ins->kind == I_LEAF) return (cost){1, 1, 1, pl->p->leaves[ins->x].kind == LEAF_CHUNKS};
  cost c = {0, 1, 1, 0};
  cost_add(&c, operand_cost(pl, ins->x));
  if (ins->kind == I_BINARY) cost_add(&c, operand_cost(pl, ins->y));
  return c;
}

/* The operand of instruction i to cut next: the larger one still inline
 * (-1: none is). */
static int largest_operand(const plan *pl, int i) {
  const tsr_instr *ins = &pl->p->code[i];
  int ops[2] = {ins->x, ins->kind == I_BINARY ? ins->y : -1}, best = -1;
  double most = -1.0;
  for (int k = 0; k < 2 && ins->kind != I_LEAF; k++) {
    int r = ops[k];
    if (r < 0 || pl->p->reg_const[r] || pl->cut[r]) continue;
    cost c = operand_cost(pl, r);
    double s = share(&c, pl->lim);
    if (s > most) most = s, best = r;
  }
  return best;
}

/* Bottom up: each instruction's program is made to fit by cutting its
 * operands, the largest first; its operands' programs fit already. A cut
 * below a register that two instructions read changes a program costed
 * before it, so passes repeat until one cuts nothing (one more pass for
 * the trees fuse.c compiles). */
static int choose_cuts(plan *pl) {
  for (int more = 1; more;) {
    more = 0;
    for (int i = 0; i < pl->p->ninstr; i++) {
      pl->of[i] = instr_cost(pl, i);
      while (!cost_fits(&pl->of[i], pl->lim)) {
        int r = largest_operand(pl, i);
        if (r < 0)
          return TSR_ERROR(TSR_ERR_INTERNAL,
                           "a program does not split within %d leaves, %d operations, %d "
                           "registers",
                           pl->lim->leaves, pl->lim->instr, pl->lim->regs);
        pl->cut[r] = 1;
        more = 1;
        pl->of[i] = instr_cost(pl, i);
      }
    }
  }
  return TSR_OK;
}

/* Whether register r may be read by instruction i: a constant, or written
 * before i. */
static int reads_ok(const plan *pl, int r, int i) {
  if (r < 0 || r >= pl->p->nregs) return 0;
  return pl->p->reg_const[r] || (pl->def[r] >= 0 && pl->def[r] < i);
}

/* Defining instructions, checking the single assignment form. */
static int find_defs(plan *pl) {
  const tsr_prog *p = pl->p;
  for (int r = 0; r < p->nregs; r++) pl->def[r] = -1;
  for (int i = 0; i < p->ninstr; i++) {
    const tsr_instr *ins = &p->code[i];
    int ok =
        ins->dst >= 0 && ins->dst < p->nregs && pl->def[ins->dst] < 0 && !p->reg_const[ins->dst];
    if (ins->kind == I_LEAF)
      ok = ok && ins->x >= 0 && ins->x < p->nleaves;
    else
      ok = ok && reads_ok(pl, ins->x, i) && (ins->kind != I_BINARY || reads_ok(pl, ins->y, i));
    if (!ok) return TSR_ERROR(TSR_ERR_INTERNAL, "instruction %d of a program to split", i);
    pl->def[ins->dst] = i;
  }
  int r = p->result;
  if (r < 0 || r >= p->nregs || pl->def[r] < 0)
    return TSR_ERROR(TSR_ERR_INTERNAL, "a program to split has no computed result");
  return TSR_OK;
}

/* ---- building one part ---- */

/* A part under construction: its arrays are sized for the most it can
 * hold (every leaf and instruction of p, and a leaf read per register). */
typedef struct part_ctx {
  const plan *pl;
  tsr_prog_part *part;
  int *newreg;  /* by register of p: its register in the part (-1: none yet) */
  int *newleaf; /* by leaf of p: its leaf in the part (-1: none yet) */
} part_ctx;

static int part_alloc(const tsr_prog *p, tsr_prog_part *part) {
  tsr_prog *q = &part->prog;
  int64_t leaves = p->nleaves + p->nregs + 1, instr = p->ninstr + p->nregs + 1, regs = p->nregs + 1;
  memset(part, 0, sizeof *part);
  q->ndim = p->ndim;
  memcpy(q->shape, p->shape, sizeof q->shape);
  q->leaves = malloc(sizeof *q->leaves * (size_t)leaves);
  q->code = malloc(sizeof *q->code * (size_t)instr);
  q->reg_const = malloc(sizeof *q->reg_const * (size_t)regs);
  q->reg_value = malloc(sizeof *q->reg_value * (size_t)regs);
  part->in_leaf = malloc(sizeof *part->in_leaf * (size_t)regs);
  part->in_part = malloc(sizeof *part->in_part * (size_t)regs);
  q->leaves_cap = leaves, q->instr_cap = instr, q->regs_cap = regs;
  if (q->leaves && q->code && q->reg_const && q->reg_value && part->in_leaf && part->in_part)
    return TSR_OK;
  return TSR_ERROR(TSR_ERR_MEMORY, "out of memory splitting a program");
}

static int part_reg(tsr_prog *q, int is_const, double value) {
  q->reg_const[q->nregs] = is_const;
  q->reg_value[q->nregs] = value;
  return q->nregs++;
}

/* A leaf that reads a cut register's part over the evaluated box: resident
 * (backend memory), unrounded (the register is rounded already), its map
 * completed by tsr_prog_part_bind. */
static int input_leaf(part_ctx *c, int r) {
  tsr_prog *q = &c->part->prog;
  tsr_leaf *l = &q->leaves[q->nleaves];
  memset(l, 0, sizeof *l);
  l->kind = LEAF_DATA;
  l->resident = 1;
  l->base_ndim = q->ndim;
  for (int b = 0; b < q->ndim; b++) l->axis_of[b] = b, l->step[b] = 1;
  c->part->in_leaf[c->part->nin] = q->nleaves;
  c->part->in_part[c->part->nin++] = c->pl->part[r];
  int reg = part_reg(q, 0, 0.0);
  q->code[q->ninstr++] = (tsr_instr){I_LEAF, 0, 0, reg, q->nleaves++, -1};
  return reg;
}

/* Register r of p as the part reads it (a constant or cut register the
 * first time it is read). */
static int map_operand(part_ctx *c, int r, int *out) {
  const tsr_prog *p = c->pl->p;
  if (c->newreg[r] < 0 && p->reg_const[r])
    c->newreg[r] = part_reg(&c->part->prog, 1, p->reg_value[r]);
  if (c->newreg[r] < 0 && c->pl->cut[r] && c->pl->part[r] >= 0) c->newreg[r] = input_leaf(c, r);
  if (c->newreg[r] < 0) return TSR_ERROR(TSR_ERR_INTERNAL, "register %d read before its part", r);
  *out = c->newreg[r];
  return TSR_OK;
}

static int copy_instr(part_ctx *c, int i) {
  const tsr_prog *p = c->pl->p;
  tsr_prog *q = &c->part->prog;
  tsr_instr ins = p->code[i];
  if (ins.kind == I_LEAF) {
    if (c->newleaf[ins.x] < 0) {
      q->leaves[q->nleaves] = p->leaves[ins.x];
      c->newleaf[ins.x] = q->nleaves++;
    }
    ins.x = c->newleaf[ins.x];
  } else {
    TSR_CHECK(map_operand(c, ins.x, &ins.x));
    if (ins.kind == I_BINARY) TSR_CHECK(map_operand(c, ins.y, &ins.y));
  }
  ins.dst = c->newreg[p->code[i].dst] = part_reg(q, 0, 0.0);
  q->code[q->ninstr++] = ins;
  return TSR_OK;
}

/* The instructions of root's part: root's, and back through operands that
 * are computed inline (not constants, not cut). */
static void mark_needed(const plan *pl, int root, char *need) {
  need[pl->def[root]] = 1;
  for (int i = pl->def[root]; i >= 0; i--) {
    const tsr_instr *ins = &pl->p->code[i];
    if (!need[i] || ins->kind == I_LEAF) continue;
    int ops[2] = {ins->x, ins->kind == I_BINARY ? ins->y : ins->x};
    for (int k = 0; k < 2; k++)
      if (!pl->p->reg_const[ops[k]] && !pl->cut[ops[k]]) need[pl->def[ops[k]]] = 1;
  }
}

/* The part that computes register root. */
static int build_part(const plan *pl, int root, tsr_prog_part *part) {
  const tsr_prog *p = pl->p;
  char *need = calloc((size_t)p->ninstr + 1, 1);
  part_ctx c = {pl, part, malloc(sizeof(int) * ((size_t)p->nregs + 1)),
                malloc(sizeof(int) * ((size_t)p->nleaves + 1))};
  int st = part_alloc(p, part);
  if (st == TSR_OK && (!need || !c.newreg || !c.newleaf))
    st = TSR_ERROR(TSR_ERR_MEMORY, "out of memory splitting a program");
  if (st == TSR_OK) {
    for (int r = 0; r < p->nregs; r++) c.newreg[r] = -1;
    for (int l = 0; l < p->nleaves; l++) c.newleaf[l] = -1;
    mark_needed(pl, root, need);
    for (int i = 0; i <= pl->def[root] && st == TSR_OK; i++)
      if (need[i]) st = copy_instr(&c, i);
    part->prog.result = c.newreg[root];
  }
  free(need);
  free(c.newreg);
  free(c.newleaf);
  return st;
}

/* One part per cut register in evaluation order, then the result's. Only
 * registers written before the result can be read by its program: a cut
 * after it (read by dead code alone) gets no part. */
static int build_parts(plan *pl, tsr_split *s) {
  const tsr_prog *p = pl->p;
  int last = pl->def[p->result], n = 1;
  for (int r = 0; r < p->nregs; r++) pl->part[r] = -1;
  for (int i = 0; i < last; i++) n += pl->cut[p->code[i].dst];
  s->parts = calloc((size_t)n, sizeof *s->parts);
  if (!s->parts) return TSR_ERROR(TSR_ERR_MEMORY, "out of memory splitting a program");
  for (int i = 0; i < last; i++) {
    int r = p->code[i].dst;
    if (!pl->cut[r]) continue;
    pl->part[r] = s->nparts;
    TSR_CHECK(build_part(pl, r, &s->parts[s->nparts++]));
  }
  return build_part(pl, p->result, &s->parts[s->nparts++]);
}

static int limits_ok(const tsr_prog_limits *lim) {
  return lim->leaves >= TSR_PROG_MIN_LEAVES && lim->instr >= TSR_PROG_MIN_INSTR &&
         lim->regs >= TSR_PROG_MIN_REGS && lim->tables >= TSR_PROG_MIN_TABLES;
}

int tsr_prog_split(const tsr_prog *p, const tsr_prog_limits *lim, tsr_split *s) {
  memset(s, 0, sizeof *s);
  if (!limits_ok(lim))
    return TSR_ERROR(TSR_ERR_INTERNAL, "program limits of %d leaves, %d operations, %d registers",
                     lim->leaves, lim->instr, lim->regs);
  size_t nr = (size_t)p->nregs + 1;
  plan pl = {p,
             lim,
             malloc(sizeof(int) * nr),
             calloc(nr, 1),
             malloc(sizeof(cost) * ((size_t)p->ninstr + 1)),
             malloc(sizeof(int) * nr)};
  int st = pl.def && pl.cut && pl.of && pl.part
               ? TSR_OK
               : TSR_ERROR(TSR_ERR_MEMORY, "out of memory splitting a program");
  if (st == TSR_OK) st = find_defs(&pl);
  if (st == TSR_OK && !tsr_prog_fits(p, lim)) st = choose_cuts(&pl);
  if (st == TSR_OK) st = build_parts(&pl, s);
  free(pl.def);
  free(pl.cut);
  free(pl.of);
  free(pl.part);
  return st;
}

void tsr_prog_part_bind(tsr_prog_part *part, const int64_t *start, const int64_t *extent,
                        double *const *outs) {
  for (int k = 0; k < part->nin; k++) {
    tsr_leaf *l = &part->prog.leaves[part->in_leaf[k]];
    l->data = outs[part->in_part[k]];
    for (int b = 0; b < l->base_ndim; b++) {
      l->base_shape[b] = extent[b];
      l->off[b] = -start[b]; /* row-major over the box: out - start */
    }
    tsr_leaf_finish(l);
  }
}

void tsr_split_free(tsr_split *s) {
  for (int k = 0; k < s->nparts; k++) {
    tsr_prog_free(&s->parts[k].prog);
    free(s->parts[k].in_leaf);
    free(s->parts[k].in_part);
  }
  free(s->parts);
  memset(s, 0, sizeof *s);
}
