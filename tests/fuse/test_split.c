/*
 * test_split.c - programs split to fit a backend's limits (fuse/split.h)
 * and run split by the backend wrappers (backend/be_split.c):
 *   - every part of a split fits the limits, down to the least ones, and
 *     the cuts choose registers that the parts read back;
 *   - a program that fits stays one part, unchanged;
 *   - the issue's expression (9 leaves, 26 operations) and a chain of 30
 *     constants (registers over the GPU's 40) split within the GPU's limits;
 *   - random programs (shared registers, float32 rounding, random, arange
 *     and chunk-table leaves) evaluated and reduced split, by the CPU
 *     backend under TESSERA_PROGRAM_LIMIT's limits, give the bits of the
 *     unsplit program: eval_box, reduce_box (all axes and one axis) and
 *     reduce_chunks.
 */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "fuse/split.h"
#include "graph/array.h"
#include "graph/chunks.h"
#include "util/error.h"

enum { R = 23, C = 41 }; /* odd sizes: chunks never divide them */
static const tsr_prog_limits GPU = {8, 32, 40, 2};
static const tsr_prog_limits LEAST = {TSR_PROG_MIN_LEAVES, TSR_PROG_MIN_INSTR, TSR_PROG_MIN_REGS,
                                      TSR_PROG_MIN_TABLES};

static uint64_t rng_state;
static unsigned next(unsigned n) { /* xorshift64 */
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return (unsigned)(rng_state % n);
}

/* ---- random programs -------------------------------------------------------- */

static double table_data[R * C];
static int64_t table_start[1][TSR_MAXDIM], table_extent[1][TSR_MAXDIM] = {{R, C}};
static const double *table_ptr[1] = {table_data};
static const tsr_chunkset table = {1, table_start, table_extent, table_ptr};

static void leaf_init(tsr_leaf *l, int k) {
  memset(l, 0, sizeof *l);
  l->kind = k % 3 == 0 ? LEAF_RANDOM : k % 3 == 1 ? LEAF_ARANGE : LEAF_CHUNKS;
  l->rng = k % 2 ? RNG_UNIFORM : RNG_NORMAL;
  l->key = 99;
  l->stream = (uint32_t)k;
  l->a = 0.5 * k;
  l->b = 1.0 + 0.01 * k;
  l->cast = next(4) == 0 && l->kind != LEAF_CHUNKS ? TSR_F32 : TSR_F64;
  l->base_ndim = 2;
  l->base_shape[0] = R, l->base_shape[1] = C;
  l->axis_of[0] = 0, l->axis_of[1] = 1;
  l->step[0] = l->step[1] = 1;
  l->chunks = l->kind == LEAF_CHUNKS ? &table : NULL;
  tsr_leaf_finish(l);
}

static int add_reg(tsr_prog *p, int is_const, double v) {
  p->reg_const[p->nregs] = is_const;
  p->reg_value[p->nregs] = v;
  return p->nregs++;
}

/* An operand: a recent register (deep chains), any earlier one (shared
 * registers: a DAG) or a new constant. */
static int operand(tsr_prog *p) {
  unsigned how = next(8);
  if (how == 0) return add_reg(p, 1, 0.25 * (next(9) + 1));
  int last = p->code[p->ninstr - 1].dst;
  if (how < 5) return last;
  return p->code[next((unsigned)p->ninstr)].dst;
}

static void random_prog(int nleaves, int nops, tsr_prog *p) {
  static const int unary[] = {EW_NEG, EW_ABS, EW_SIN, EW_TANH, EW_COPY};
  static const int binary[] = {EW_ADD, EW_SUB, EW_MUL, EW_MAX, EW_MIN};
  memset(p, 0, sizeof *p);
  p->ndim = 2;
  p->shape[0] = R, p->shape[1] = C;
  size_t regs = (size_t)(nleaves + 3 * nops + 2);
  p->leaves = calloc((size_t)nleaves, sizeof *p->leaves);
  p->code = calloc((size_t)(nleaves + nops), sizeof *p->code);
  p->reg_const = calloc(regs, sizeof(int));
  p->reg_value = calloc(regs, sizeof(double));
  for (int k = 0; k < nleaves; k++) {
    leaf_init(&p->leaves[p->nleaves++], k);
    p->code[p->ninstr++] = (tsr_instr){I_LEAF, 0, 0, add_reg(p, 0, 0), k, -1};
  }
  for (int i = 0; i < nops; i++) {
    int bin = next(3) != 0, x = operand(p), y = bin ? operand(p) : -1;
    if (bin && p->reg_const[x] && p->reg_const[y]) x = p->code[p->ninstr - 1].dst;
    int op = bin ? binary[next(5)] : unary[next(5)];
    tsr_instr ins = {bin ? I_BINARY : I_UNARY, op, next(6) == 0, add_reg(p, 0, 0), x, y};
    p->code[p->ninstr++] = ins;
  }
  p->result = p->code[p->ninstr - 1].dst;
}

static tsr_prog_limits random_limits(void) {
  tsr_prog_limits l = {2 + (int)next(7), 3 + (int)next(30), 3 + (int)next(38), 2};
  return l;
}

/* ---- the split itself --------------------------------------------------------- */

/* Every part fits, reads only earlier parts, and the last has the result. */
static void check_split(const tsr_prog *p, const tsr_prog_limits *lim, tsr_split *s) {
  ck_assert_int_eq(tsr_prog_split(p, lim, s), TSR_OK);
  ck_assert_int_ge(s->nparts, 1);
  for (int k = 0; k < s->nparts; k++) {
    const tsr_prog_part *part = &s->parts[k];
    ck_assert_msg(tsr_prog_fits(&part->prog, lim), "part %d of %d: %d leaves, %d instr, %d regs", k,
                  s->nparts, part->prog.nleaves, part->prog.ninstr, part->prog.nregs);
    ck_assert_int_ge(part->prog.result, 0);
    ck_assert(!part->prog.reg_const[part->prog.result]);
    for (int j = 0; j < part->nin; j++) {
      ck_assert_int_lt(part->in_part[j], k);
      ck_assert_int_eq(part->prog.leaves[part->in_leaf[j]].kind, LEAF_DATA);
    }
  }
}

START_TEST(every_part_fits_down_to_the_least_limits) {
  rng_state = 0x9e3779b97f4a7c15ull;
  for (int t = 0; t < 400; t++) {
    tsr_prog p;
    random_prog(1 + (int)next(12), (int)next(90), &p);
    tsr_prog_limits lim = t % 4 == 0 ? LEAST : t % 4 == 1 ? GPU : random_limits();
    tsr_split s;
    check_split(&p, &lim, &s);
    if (tsr_prog_fits(&p, &lim)) ck_assert_int_eq(s.nparts, 1);
    tsr_split_free(&s);
    tsr_prog_free(&p);
  }
}
END_TEST

/* A node expression over x and y, compiled fused. */
static tsr_node *leaf_node(int k) {
  tsr_grid g;
  int64_t shape[2] = {R, C}, chunk[2] = {7, 11};
  ck_assert_int_eq(tsr_grid_init_regular(&g, 2, shape, chunk), TSR_OK);
  tsr_node *n;
  if (k % 2)
    ck_assert_int_eq(tsr_node_arange(k, 0.5, &g, TSR_F64, &n), TSR_OK);
  else
    ck_assert_int_eq(tsr_node_random(RNG_NORMAL, k, 2.0, 7, (uint32_t)k, &g, TSR_F64, &n), TSR_OK);
  tsr_grid_free(&g);
  return n;
}

static tsr_node *bin(int op, tsr_node *x, tsr_node *y) {
  tsr_node *n;
  ck_assert_int_eq(tsr_node_binary(op, x, y, &n), TSR_OK);
  return n;
}

static tsr_node *un(int op, tsr_node *x) {
  tsr_node *n;
  ck_assert_int_eq(tsr_node_unary(op, x, &n), TSR_OK);
  return n;
}

START_TEST(a_program_that_fits_stays_one_part) {
  /* exp(-(x + 1)) * y: 2 leaves, 6 instructions (with the constant) */
  tsr_node *x = leaf_node(0), *y = leaf_node(1);
  tsr_node *e = bin(EW_MUL, un(EW_EXP, un(EW_NEG, bin(EW_ADD, x, y))), y);
  tsr_prog p;
  ck_assert_int_eq(tsr_prog_compile(e, 0, &p), TSR_OK);
  ck_assert(tsr_prog_fits(&p, &GPU));
  tsr_split s;
  check_split(&p, &GPU, &s);
  ck_assert_int_eq(s.nparts, 1);
  ck_assert_int_eq(s.parts[0].nin, 0);
  ck_assert_int_eq(s.parts[0].prog.ninstr, p.ninstr);
  ck_assert_int_eq(s.parts[0].prog.nleaves, p.nleaves);
  ck_assert_int_eq(s.parts[0].prog.nregs, p.nregs);
  for (int i = 0; i < p.ninstr; i++) ck_assert_int_eq(s.parts[0].prog.code[i].op, p.code[i].op);
  tsr_split_free(&s);
  tsr_prog_free(&p);
  tsr_nodes_free_all();
}
END_TEST

START_TEST(the_issues_expression_splits_within_the_gpu_limits) {
  /* 9 leaves and 26 operations: the expression the GPU used to refuse */
  tsr_node *e = leaf_node(0);
  for (int k = 1; k < 9; k++) {
    tsr_node *t = un(k % 2 ? EW_SIN : EW_EXP, bin(EW_MUL, leaf_node(k), leaf_node(k)));
    e = bin(k % 3 ? EW_ADD : EW_SUB, e, un(EW_ABS, t));
  }
  tsr_prog p;
  ck_assert_int_eq(tsr_prog_compile(e, 0, &p), TSR_OK);
  ck_assert_int_gt(p.nleaves, GPU.leaves);
  ck_assert(!tsr_prog_fits(&p, &GPU));
  tsr_split s;
  check_split(&p, &GPU, &s);
  ck_assert_int_ge(s.nparts, 2);
  tsr_split_free(&s);
  tsr_prog_free(&p);
  /* one leaf, 30 constants: over the GPU's registers, not its leaves */
  tsr_node *c = leaf_node(1), *one;
  tsr_grid g0;
  ck_assert_int_eq(tsr_grid_init_regular(&g0, 0, NULL, NULL), TSR_OK);
  for (int k = 0; k < 30; k++) {
    ck_assert_int_eq(tsr_node_full(1.0 + k, &g0, TSR_F64, &one), TSR_OK);
    c = bin(EW_ADD, c, one);
  }
  tsr_grid_free(&g0);
  ck_assert_int_eq(tsr_prog_compile(c, 0, &p), TSR_OK);
  ck_assert_int_gt(p.nregs, GPU.regs);
  check_split(&p, &GPU, &s);
  ck_assert_int_ge(s.nparts, 2);
  tsr_split_free(&s);
  tsr_prog_free(&p);
  tsr_nodes_free_all();
}
END_TEST

/* ---- split programs run by the backend ------------------------------------------ */

static const tsr_backend_ops *cpu_with(const tsr_prog_limits *lim) {
  const tsr_backend_ops *be = tsr_backend_find("cpu");
  tsr_backend_config cfg = {.threads = 2};
  if (lim) cfg.prog_limit = *lim;
  ck_assert_int_eq(tsr_be_setup(be, &cfg), TSR_OK);
  return be;
}

/* eval_box, reduce_box (sum, var over all axes; mean over axis 0) and
 * reduce_chunks (std over a 4 x 5 grid) of p into one buffer of values. */
enum { NOUT = R * C + 3 + 3 + 3 * C + 20 * 3 };
static void run_all(const tsr_backend_ops *be, const tsr_prog *p, double *out) {
  int64_t start[2] = {0, 0}, extent[2] = {R, C}, bstart[2] = {3, 5}, bext[2] = {R - 4, C - 9};
  memset(out, 0, sizeof(double) * NOUT);
  double *o = out;
  ck_assert_int_eq(tsr_be_eval_box(be, p, start, extent, o, NULL), TSR_OK);
  o += R * C;
  ck_assert_int_eq(tsr_be_reduce_box(be, p, start, extent, RED_SUM, -1, (tsr_stat *)o, NULL),
                   TSR_OK);
  o += 3;
  ck_assert_int_eq(tsr_be_reduce_box(be, p, bstart, bext, RED_VAR, -1, (tsr_stat *)o, NULL),
                   TSR_OK);
  o += 3;
  ck_assert_int_eq(tsr_be_reduce_box(be, p, start, extent, RED_MEAN, 0, (tsr_stat *)o, NULL),
                   TSR_OK);
  o += 3 * C;
  tsr_grid g;
  int64_t shape[2] = {R, C}, chunk[2] = {6, 9}, ids[20];
  tsr_stat *parts[20];
  ck_assert_int_eq(tsr_grid_init_regular(&g, 2, shape, chunk), TSR_OK);
  for (int i = 0; i < 20; i++) ids[i] = 19 - i, parts[i] = (tsr_stat *)(o + 3 * i);
  tsr_reduce_batch b = {p, &g, 20, ids, RED_STD, -1, parts, NULL, NULL};
  ck_assert_int_eq(tsr_be_reduce_chunks(be, &b), TSR_OK);
  tsr_grid_free(&g);
}

START_TEST(split_programs_give_the_bits_of_unsplit_ones) {
  static double want[NOUT], got[NOUT];
  rng_state = 0x2545f4914f6cdd1dull;
  for (int i = 0; i < R * C; i++) table_data[i] = 0.001 * i - 0.3;
  int split_some = 0;
  for (int t = 0; t < 60; t++) {
    tsr_prog p;
    random_prog(1 + (int)next(12), 1 + (int)next(60), &p);
    tsr_prog_limits lim = t % 3 == 0 ? LEAST : random_limits();
    split_some += !tsr_prog_fits(&p, &lim);
    run_all(cpu_with(NULL), &p, want);
    run_all(cpu_with(&lim), &p, got);
    ck_assert_msg(!memcmp(want, got, sizeof want), "program %d (%d leaves, %d instr) differs split",
                  t, p.nleaves, p.ninstr);
    tsr_prog_free(&p);
  }
  ck_assert_int_gt(split_some, 30);
  tsr_prog_limits own;
  tsr_be_prog_limits(cpu_with(NULL), &own);
  ck_assert_int_eq(own.leaves, TSR_PROG_UNLIMITED); /* the CPU runs any program */
}
END_TEST

static Suite *split_suite(void) {
  Suite *s = suite_create("split");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, every_part_fits_down_to_the_least_limits);
  tcase_add_test(tc, a_program_that_fits_stays_one_part);
  tcase_add_test(tc, the_issues_expression_splits_within_the_gpu_limits);
  tcase_add_test(tc, split_programs_give_the_bits_of_unsplit_ones);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  SRunner *sr = srunner_create(split_suite());
  srunner_set_fork_status(sr, CK_NOFORK);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? 1 : 0;
}
