/*
 * ids.h - the ids shared by every layer that names an operation: dtypes,
 * random generators, elementwise operations and reductions. The DAG
 * (graph/array.h), the operation table, the programs and both backends'
 * kernels use these numbers; they depend on nothing else of tessera.
 */
#ifndef TSR_IDS_H
#define TSR_IDS_H

/* Most axes of an array. */
#define TSR_MAXDIM 4

typedef enum tsr_dtype { TSR_F64 = 0, TSR_F32 = 1 } tsr_dtype;

typedef enum tsr_random_kind { RNG_NORMAL, RNG_UNIFORM } tsr_random_kind;

/* Elementwise operations: the ids of the ops table (eval/ops.c) and of kernels. */
typedef enum tsr_ew_op {
  EW_NEG,
  EW_ABS,
  EW_SQRT,
  EW_EXP,
  EW_LOG,
  EW_SIN,
  EW_COS,
  EW_TANH,
  EW_COPY,
  EW_ADD,
  EW_SUB,
  EW_MUL,
  EW_DIV,
  EW_POW,
  EW_MIN,
  EW_MAX,
  EW_GREATER, /* 1.0 where x > y, else 0.0 */
  EW_NOPS
} tsr_ew_op;

typedef enum tsr_red_kind { RED_SUM, RED_MEAN, RED_MIN, RED_MAX, RED_VAR, RED_STD } tsr_red_kind;

#endif
