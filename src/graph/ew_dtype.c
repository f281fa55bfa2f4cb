/*
 * ew_dtype.c - the result type of each elementwise operation, as NumPy's
 * ufunc loops give it (the operands' types already promoted by the caller:
 * graph/array.c). Every row of kernel/ew_table.h has its case (-Wswitch
 * checks), so a new row cannot silently take a type.
 */
#include "graph/ew_dtype.h"

#include "kernel/dtype.h"
#include "kernel/dtype_names.h"
#include "util/error.h"

typedef enum rule {
  SAME,        /* the operands' type (bool stays bool: add is or, multiply is and) */
  SAME_NUMBER, /* the operands' type; bool computes as int8 (square, //, %, **) */
  NO_BOOL,     /* the operands' type; bool is an error (negative, subtract, sign) */
  FLOATING,    /* a float: float_of(the type) */
  DIVIDING,    /* true division: float64 for integers and bool */
  LOGICAL,     /* bool */
  BITWISE,     /* integers and bool only */
  SHIFTING,    /* integers only (bool computes as int8) */
  INTERNAL     /* set by its caller (where) */
} rule;

static rule rule_of(tsr_ew_op op) {
  switch (op) {
  case EW_COPY:
  case EW_ADD:
  case EW_MUL:
  case EW_ABS:
  case EW_MIN:
  case EW_MAX:
  case EW_FMIN:
  case EW_FMAX:
  case EW_NANZERO:
  case EW_NOTNAN:
    return SAME;
  case EW_SQUARE:
  case EW_RECIPROCAL:
  case EW_POW:
  case EW_FMOD:
  case EW_REMAINDER:
  case EW_FLOOR_DIVIDE:
    return SAME_NUMBER;
  case EW_NEG:
  case EW_SUB:
  case EW_SIGN:
    return NO_BOOL;
  case EW_SQRT:
  case EW_EXP:
  case EW_LOG:
  case EW_SIN:
  case EW_COS:
  case EW_TANH:
  case EW_LOG1P:
  case EW_EXPM1:
  case EW_LOG2:
  case EW_LOG10:
  case EW_EXP2:
  case EW_TAN:
  case EW_ARCSIN:
  case EW_ARCCOS:
  case EW_ARCTAN:
  case EW_SINH:
  case EW_COSH:
  case EW_ARCSINH:
  case EW_ARCCOSH:
  case EW_ARCTANH:
  case EW_FLOOR:
  case EW_CEIL:
  case EW_TRUNC:
  case EW_RINT:
  case EW_CBRT:
  case EW_DEG2RAD:
  case EW_RAD2DEG:
  case EW_ARCTAN2:
  case EW_HYPOT:
  case EW_COPYSIGN:
  case EW_LOGADDEXP:
  case EW_LOGADDEXP2:
  case EW_NEXTAFTER:
  case EW_HEAVISIDE:
    return FLOATING;
  case EW_DIV:
    return DIVIDING;
  case EW_GREATER:
  case EW_GREATER_EQUAL:
  case EW_LESS:
  case EW_LESS_EQUAL:
  case EW_EQUAL:
  case EW_NOT_EQUAL:
  case EW_ISNAN:
  case EW_ISINF:
  case EW_ISFINITE:
  case EW_SIGNBIT:
  case EW_LOGICAL_NOT:
  case EW_LOGICAL_AND:
  case EW_LOGICAL_OR:
  case EW_LOGICAL_XOR:
    return LOGICAL;
  case EW_BITWISE_AND:
  case EW_BITWISE_OR:
  case EW_BITWISE_XOR:
  case EW_INVERT:
    return BITWISE;
  case EW_LEFT_SHIFT:
  case EW_RIGHT_SHIFT:
    return SHIFTING;
  case EW_WHERE_PICK:
  case EW_WHERE_FILL:
    return INTERNAL;
  case EW_NOPS:
    break;
  }
  return INTERNAL;
}

int tsr_ew_result_dtype(int op, tsr_dtype t, tsr_dtype *out) {
  const char *name = tsr_ew_name(op), *tn = tsr_dtype_str(t);
  switch (rule_of((tsr_ew_op)op)) {
  case SAME:
    *out = t;
    return TSR_OK;
  case SAME_NUMBER:
    *out = t == TSR_BOOL ? TSR_I8 : t;
    return TSR_OK;
  case NO_BOOL:
    if (t == TSR_BOOL)
      return TSR_ERROR(TSR_ERR_TYPE,
                       "%s is not supported for bool (NumPy refuses it too): use logical_not "
                       "or logical_xor, or astype an integer type first",
                       name);
    *out = t;
    return TSR_OK;
  case FLOATING:
    *out = tsr_dtype_float_of(t);
    return TSR_OK;
  case DIVIDING:
    *out = tsr_dtype_is_float(t) ? t : TSR_F64;
    return TSR_OK;
  case LOGICAL:
    *out = TSR_BOOL;
    return TSR_OK;
  case BITWISE:
  case SHIFTING:
    if (tsr_dtype_is_float(t))
      return TSR_ERROR(TSR_ERR_TYPE, "%s needs integer or bool operands, got %s", name, tn);
    *out = t == TSR_BOOL && rule_of((tsr_ew_op)op) == SHIFTING ? TSR_I8 : t;
    return TSR_OK;
  case INTERNAL:
    *out = TSR_F64;
    return TSR_OK;
  }
  return TSR_ERROR(TSR_ERR_INTERNAL, "no result type for elementwise op %d", op);
}

int tsr_ew_gives_bool(int op) { return rule_of((tsr_ew_op)op) == LOGICAL; }
