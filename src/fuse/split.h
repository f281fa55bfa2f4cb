/*
 * split.h - programs larger than a backend runs, split into parts.
 *
 * A backend may bound the programs it runs (the CUDA backend passes a
 * program by value as a kernel argument: a few leaves, instructions and
 * registers). Every register of a fused program is an elementwise function
 * of the output coordinates, so any register can be computed by a program
 * of its own over the same box, stored, and read back by the rest as a
 * resident DATA leaf over that box: the same doubles (a stored register
 * keeps its bits; the leaf reads it unrounded), at the cost of one box of
 * backend memory per cut register. tsr_prog_split chooses the cuts bottom
 * up (a register's operands are cut, largest first, until its own program
 * fits) and returns the parts in the order they must run, the result last.
 */
#ifndef TSR_FUSE_SPLIT_H
#define TSR_FUSE_SPLIT_H

#include <stdint.h>

#include "fuse/program.h"

/* The largest program a backend runs; TSR_PROG_UNLIMITED: no bound. */
typedef struct tsr_prog_limits {
  int leaves; /* leaves */
  int instr;  /* instructions (leaf reads included) */
  int regs;   /* registers (constants included) */
  int tables; /* LEAF_CHUNKS leaves */
} tsr_prog_limits;

#define TSR_PROG_UNLIMITED 0x7fffffff

/* The least limits a split always meets: a binary operation on two cut
 * operands (two leaves, three instructions and registers; two CHUNKS
 * leaves of a --no-fuse operation). */
#define TSR_PROG_MIN_LEAVES 2
#define TSR_PROG_MIN_INSTR 3
#define TSR_PROG_MIN_REGS 3
#define TSR_PROG_MIN_TABLES 2

/* One part: a program over the same space as the split one, whose leaves
 * in_leaf[k] read the output of the earlier part in_part[k] over the box
 * being evaluated (bound by tsr_prog_part_bind). */
typedef struct tsr_prog_part {
  tsr_prog prog;
  int nin;
  int *in_leaf, *in_part;
} tsr_prog_part;

typedef struct tsr_split {
  int nparts; /* the last computes the program's result */
  tsr_prog_part *parts;
} tsr_split;

/* Whether p runs within lim as it is. */
int tsr_prog_fits(const tsr_prog *p, const tsr_prog_limits *lim);

/* Splits p into parts that each fit lim (at least the TSR_PROG_MIN_*); a
 * program that fits is one part, a copy of itself. Free with
 * tsr_split_free, also after a failure. */
int tsr_prog_split(const tsr_prog *p, const tsr_prog_limits *lim, tsr_split *s);

/* Points part's inputs at outs[in_part[k]]: the earlier parts' outputs over
 * the box start/extent, row-major in backend memory. */
void tsr_prog_part_bind(tsr_prog_part *part, const int64_t *start, const int64_t *extent,
                        double *const *outs);

void tsr_split_free(tsr_split *s);

#endif
