/*
 * small.h - linear algebra on one small matrix (small.c): the Cholesky
 * factor (LA_CHOLESKY), the triangular solve (LA_TRSM) and the LU
 * factorization with NumPy's determinant (LA_LU), computed by the
 * backend on its own memory from the inputs' values replicated on every
 * rank; the result is replicated the same way.
 */
#ifndef TSR_LINALG_SMALL_H
#define TSR_LINALG_SMALL_H

#include "exec/exec.h"
#include "graph/array.h"

/* Computes n (N_LINALG, op LA_CHOLESKY, LA_TRSM or LA_LU) whose inputs'
 * dependencies are computed already; n->value on every rank. A matrix that
 * is not positive definite is an error (on every rank alike). Collective. */
int tsr_small_compute(tsr_exec *ex, tsr_node *n);

#endif
