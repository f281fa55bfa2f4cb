/*
 * ids.h - the ids shared by every layer that names an operation: dtypes,
 * random generators, elementwise operations and reductions. The DAG
 * (graph/array.h), the operation table, the programs and both backends'
 * kernels use these numbers; they depend on nothing else of tessera.
 */
#ifndef TSR_IDS_H
#define TSR_IDS_H

#include "kernel/ew_table.h"
#include "kernel/red_table.h"

/* Most axes of an array. */
#define TSR_MAXDIM 4

/* Element types. Values are held as doubles in every buffer and program
 * register; a dtype other than float64 is the set of doubles its values
 * may take (kernel/dtype.h casts into it after each operation): float32's
 * roundings, an integer type's integers (wrapping as NumPy's), bool's 0 and
 * 1. Integers are therefore exact to 2**53 (int64/uint64 beyond that round;
 * doc/design.md §3). TSR_F64 is 0: "no cast". */
typedef enum tsr_dtype {
  TSR_F64 = 0,
  TSR_F32,
  TSR_BOOL,
  TSR_I8,
  TSR_I16,
  TSR_I32,
  TSR_I64,
  TSR_U8,
  TSR_U16,
  TSR_U32,
  TSR_U64,
  TSR_NDTYPES
} tsr_dtype;

/* Random generators: a leaf's values, with its parameters a and b. NORMAL
 * (loc, scale) and UNIFORM (low, high) are transforms of one Philox word
 * pair per element (rng.h); the others draw a sequence of Philox blocks per
 * element (rngdist.h): GAMMA (shape, scale), BETA (a, b), STUDENT_T (df),
 * POISSON (lam), BINOMIAL (n, p), INTEGERS (low, high: high exclusive). */
typedef enum tsr_random_kind {
  RNG_NORMAL,
  RNG_UNIFORM,
  RNG_GAMMA,
  RNG_BETA,
  RNG_STUDENT_T,
  RNG_POISSON,
  RNG_BINOMIAL,
  RNG_INTEGERS
} tsr_random_kind;

/* Elementwise operations: the ids of the ops table (eval/ops.c) and of
 * kernels, one per row of kernel/ew_table.h (EW_NEG, EW_ADD, ...). */
#define TSR_EW_ENUM_U(id, nm, expr, doc) EW_##id,
#define TSR_EW_ENUM_I(id, nm, expr) EW_##id,
#define TSR_EW_ENUM_B(id, nm, sym, expr, doc) EW_##id,
#define TSR_EW_ENUM_J(id, nm, expr) EW_##id,
typedef enum tsr_ew_op {
  TSR_EW_TABLE(TSR_EW_ENUM_U, TSR_EW_ENUM_I, TSR_EW_ENUM_B, TSR_EW_ENUM_J) EW_NOPS
} tsr_ew_op;
#undef TSR_EW_ENUM_U
#undef TSR_EW_ENUM_I
#undef TSR_EW_ENUM_B
#undef TSR_EW_ENUM_J

/* Reductions: one per row of kernel/red_table.h (RED_SUM, RED_PROD, ...). */
#define TSR_RED_ENUM(id, nm, monoid, flags, rd, doc) RED_##id,
typedef enum tsr_red_kind { TSR_RED_TABLE(TSR_RED_ENUM) RED_NKINDS } tsr_red_kind;
#undef TSR_RED_ENUM

#endif
