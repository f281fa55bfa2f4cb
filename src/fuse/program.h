/*
 * program.h - fused chunk programs: what the optimizer hands the backends.
 *
 * A program computes the elements of an array (the "output space") over any
 * box of that space. Its leaves read their values by global index through an
 * affine map from output coordinates to the leaf's own coordinates, so a slice
 * pushed down into a random array generates exactly the selected elements and
 * a broadcast operand is read with step 0. The code is a short register
 * program of elementwise operations over row segments; scalars live in
 * registers flagged constant. With --no-fuse, a program covers one operation
 * and its leaves are the materialized chunks of its inputs.
 */
#ifndef TSR_PROGRAM_H
#define TSR_PROGRAM_H

#include <stddef.h>
#include <stdint.h>

#include "graph/array.h"
#include "graph/chunks.h"

typedef enum tsr_leaf_kind {
  LEAF_RANDOM, /* Philox random numbers (tsr_random_kind), affine-indexed */
  LEAF_ARANGE, /* a + b * linear index */
  LEAF_DATA,   /* a row-major array in memory */
  LEAF_LOAD,   /* an HDF5 dataset: staged into a DATA leaf per box (stage.h) */
  LEAF_XFER,   /* a rechunked array: staged into a DATA leaf per box (stage.h) */
  LEAF_CHUNKS, /* materialized chunks of a node (--no-fuse) */
  LEAF_HELD    /* held chunks (node->held) read where they are held: rechunk sources (stage.h) */
} tsr_leaf_kind;

/* Materialized chunks of one node: boxes and their row-major buffers, as
 * many as a box reads (a strided subscript may read any number), in lists
 * the executor allocates. */
typedef struct tsr_chunkset {
  int64_t n;
  int64_t (*start)[TSR_MAXDIM];
  int64_t (*extent)[TSR_MAXDIM];
  const double **data;
} tsr_chunkset;

typedef struct tsr_leaf {
  tsr_leaf_kind kind;
  int rng; /* tsr_random_kind */
  uint64_t key;
  uint32_t stream;
  double a, b; /* RANDOM: the parameters of its kind (kernel/ids.h); ARANGE: start, step */
  int cast;    /* tsr_dtype its values are cast to (kernel/dtype.h); TSR_F64: none */
  int base_ndim;
  int64_t base_shape[TSR_MAXDIM];
  /* base coordinate b = off[b] + step[b] * out[axis_of[b]]  (axis_of[b] < 0: off[b]) */
  int axis_of[TSR_MAXDIM];
  int64_t off[TSR_MAXDIM], step[TSR_MAXDIM];
  /* linear base index = e_const + sum_k e_coef[k] * out[k] (derived by tsr_leaf_finish) */
  int64_t e_const, e_coef[TSR_MAXDIM];
  const double *data; /* DATA: host memory, or backend memory when resident */
  int resident;
  const tsr_node *node;       /* CHUNKS: the node whose chunks are read */
  const tsr_chunkset *chunks; /* CHUNKS: set by the executor before evaluation */
} tsr_leaf;

typedef enum tsr_instr_kind { I_LEAF, I_UNARY, I_BINARY } tsr_instr_kind;

typedef struct tsr_instr {
  tsr_instr_kind kind;
  int op;        /* tsr_ew_op */
  int cast;      /* tsr_dtype the result is cast to; TSR_F64: none */
  int dst, x, y; /* registers; I_LEAF: x is the leaf index */
} tsr_instr;

typedef struct tsr_prog {
  int ndim;
  int64_t shape[TSR_MAXDIM];
  int nleaves;
  int64_t leaves_cap;
  tsr_leaf *leaves;
  int ninstr;
  int64_t instr_cap;
  tsr_instr *code;
  int nregs;
  int64_t regs_cap;
  int *reg_const;    /* register holds one value for every element */
  double *reg_value; /* that value */
  int result;        /* register with the output */
  int async;         /* --no-fuse's operations (exec/nofuse.c): the backend may return before
                      * the output is written; the calling thread's later work is ordered
                      * after it, and nothing else reads it. 0: the output is complete on
                      * return, for any thread to read */
} tsr_prog;

/* Fuses node (an elementwise/slice/generator expression; reductions inside
 * must already be computed) into one program over node's own shape. With
 * one_op set, only node's own operation is compiled and its non-computed
 * inputs become LEAF_CHUNKS leaves (the --no-fuse path). */
int tsr_prog_compile(const tsr_node *node, int one_op, tsr_prog *out);

/* The program of a held node (node->held) as the source of rechunk pieces:
 * one LEAF_HELD leaf, evaluated only over boxes inside chunks this rank
 * holds (exec/xfer.c). */
int tsr_prog_compile_held(const tsr_node *node, tsr_prog *out);

void tsr_prog_free(tsr_prog *p);

/* Derives l->e_const and l->e_coef (the leaf's linear base index as an
 * affine function of output coordinates) from its map; called again by
 * whoever changes a map after compilation (program views of exec/). */
void tsr_leaf_finish(tsr_leaf *l);

#endif
