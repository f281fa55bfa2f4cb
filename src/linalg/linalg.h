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

/* Registers the outputs of one decomposition (qr: q, r; svd: u, s, vt) so
 * that computing any of them computes all. */
int tsr_linalg_group(tsr_node *const *outs, int n);

/* Whether n is a view the fuser compiles (transpose: its map swaps axes)
 * rather than a result computed here. */
int tsr_linalg_is_view(const tsr_node *n);

/* Computes n (kind N_LINALG) and sets n->value on every rank (n->held for
 * Q and U); its inputs' own reductions are computed already. Collective. */
int tsr_linalg_compute(tsr_exec *ex, tsr_node *n);

/* The backend whose dense kernels (qr, svd, gemm) linear algebra runs on:
 * the executor's when it has them, else the CPU's. */
const tsr_backend_ops *tsr_linalg_kernels(const tsr_exec *ex);

/* Forgets the job's decomposition groups (end of a job). */
void tsr_linalg_job_end(void);

#endif
