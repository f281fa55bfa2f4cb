/*
 * concat.h - reshapes (N_RESHAPE) and concatenations (N_CONCAT), the
 * "compute the whole, keep it distributed" class of the sorts and scans:
 * the chunks are held on their owners like persisted arrays (gathered into
 * values with --no-fuse). A reshape's chunk c is its rechunked input's
 * chunk c, which the same rank owns: nothing moves. A concatenation's chunk
 * is evaluated from the input it lies in, on the chunk's owner (held
 * inputs' pieces move once, from their owners).
 */
#ifndef TSR_EXEC_CONCAT_H
#define TSR_EXEC_CONCAT_H

#include "exec/exec.h"

/* Computes reshape n whose dependencies are computed already. Collective. */
int tsr_exec_reshape(tsr_exec *ex, tsr_node *n);

/* The inputs a concatenation n is evaluated from: n's operands, or theirs
 * where an operand is itself a concatenation not computed yet (a nest is
 * computed in one step). Calls each(ctx, input) once per input, in a fixed
 * order, and stops at the first status that is not TSR_OK. */
int tsr_concat_inputs(tsr_node *n, int (*each)(void *ctx, tsr_node *in), void *ctx);

/* Computes concatenation n whose inputs (tsr_concat_inputs) are computed
 * already. Collective. */
int tsr_exec_concat(tsr_exec *ex, tsr_node *n);

#endif
