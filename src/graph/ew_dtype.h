/*
 * ew_dtype.h - the result type of an elementwise operation (NumPy's loops).
 */
#ifndef TSR_EW_DTYPE_H
#define TSR_EW_DTYPE_H

#include "graph/array.h"

/* The type of op applied to operands of (promoted) type t, or TSR_ERR_TYPE
 * with a message where NumPy has no loop (bool negative, float bitwise). */
int tsr_ew_result_dtype(int op, tsr_dtype t, tsr_dtype *out);

/* Whether op's results are 0 or 1 whatever its operands (comparisons,
 * isnan, logical_*): their bool cast is the identity, and the fused
 * programs leave it out (fuse/fuse.c). */
int tsr_ew_gives_bool(int op);

#endif
