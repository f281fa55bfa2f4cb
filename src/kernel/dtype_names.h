/*
 * dtype_names.h - the element types' names and NumPy's promotion rules
 * (NEP 50: a Python scalar is "weak" and takes the array's type).
 */
#ifndef TSR_DTYPE_NAMES_H
#define TSR_DTYPE_NAMES_H

#include "kernel/ids.h"

/* Python scalars as operands: their kind only (NEP 50) */
typedef enum tsr_scalar_kind { TSR_SCALAR_BOOL, TSR_SCALAR_INT, TSR_SCALAR_FLOAT } tsr_scalar_kind;

/* "float64", "int8", "bool" ... */
const char *tsr_dtype_str(int dt);

/* Reads a NumPy dtype name or alias ("int64", "i8", "int", "f4", "bool",
 * "np.uint8"); 0 when it names none of tessera's types. */
int tsr_dtype_parse(const char *s, tsr_dtype *dt);

/* np.result_type of two arrays' types */
tsr_dtype tsr_dtype_promote(tsr_dtype a, tsr_dtype b);

/* an array of type a with a Python scalar of kind k */
tsr_dtype tsr_dtype_promote_weak(tsr_dtype a, tsr_scalar_kind k);

/* the type of a floating ufunc (sqrt, exp, divide ...) of type a: a itself
 * for floats, float64 for 32- and 64-bit integers, float32 for bool and 8-
 * and 16-bit integers (NumPy: float16, which tessera has not) */
tsr_dtype tsr_dtype_float_of(tsr_dtype a);

/* the type of sum/prod/cumsum of type a: int64 for bool and signed, uint64
 * for unsigned, a for floats */
tsr_dtype tsr_dtype_sum_of(tsr_dtype a);

/* whether v is a value of type a (a Python int for an integer array) */
int tsr_dtype_fits(tsr_dtype a, double v);

#endif
