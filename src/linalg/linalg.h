/*
 * linalg.h - computing linear-algebra nodes (N_LINALG: transpose, matmul,
 * the factors of qr and svd) for the executor. Like a reduction, such a
 * node is computed whole before the programs that read it; its value is then
 * replicated on every rank, except Q and U, whose row blocks stay on their
 * owners (node->held; see doc/design.md for what is distributed).
 */
#ifndef TSR_LINALG_H
#define TSR_LINALG_H

#include "graph/array.h"
#include "backend/backend.h"
#include "exec/exec.h"

/* Whether n is a view the fuser compiles (transpose: its map swaps axes)
 * rather than a result computed here. */
int tsr_linalg_is_view(const tsr_node *n);

/* Computes n (kind N_LINALG) and sets n->value on every rank (n->held for
 * Q and U); its inputs' own reductions are computed already. Collective. */
int tsr_linalg_compute(tsr_exec *ex, tsr_node *n);

/* This rank's row blocks of x (2-d with one column of chunks, or 1-d) in
 * backend memory: blocks[b] for the blocks b it owns (b = rank, rank +
 * size, ...), NULL otherwise. *borrowed: they are x's held chunks, read in
 * place (not to be released); otherwise they were evaluated (or uploaded)
 * for the caller, who releases them. Collective. */
int tsr_linalg_blocks(tsr_exec *ex, tsr_node *x, double **blocks, int *borrowed);

#endif
