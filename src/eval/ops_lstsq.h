/*
 * ops_lstsq.h - lstsq, solve, inv, pinv and svd_compressed (ops_lstsq.c),
 * composed of the thin SVD, QR and matmul. Their table lines are in ops.c.
 */
#ifndef TSR_OPS_LSTSQ_H
#define TSR_OPS_LSTSQ_H

#include "eval/builtin.h"

/* The function of ops.c's lines of tsr_b_lstsq (def->code). */
typedef enum { LSQ_LSTSQ, LSQ_SOLVE, LSQ_INV, LSQ_PINV } tsr_lstsq_kind;

/* x, residuals, rank, s = lstsq(a, b, rcond=None); solve(a, b); inv(a);
 * pinv(a, rcond=1e-15). */
int tsr_b_lstsq(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a,
                tsr_value *out);
/* u, s, v = svd_compressed(a, k, iterator="power", n_power_iter=0,
 * n_oversamples=10, seed=None): dask's randomized SVD. */
int tsr_b_svd_compressed(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a,
                         tsr_value *out);

/* cholesky(a, upper=False) and solve_triangular(a, b, lower=False) of
 * one small matrix (computed by the backend: linalg/small.h). */
int tsr_b_cholesky(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a,
                   tsr_value *out);
int tsr_b_solve_triangular(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a,
                           tsr_value *out);

/* det (def->code 0) and slogdet (1) */
int tsr_b_det(tsr_ctx *c, const ast_node *at, const tsr_op_def *def, tsr_args *a, tsr_value *out);
int tsr_b_lu(tsr_ctx *c, const ast_node *at, const tsr_op_def *def, tsr_args *a, tsr_value *out);

#endif
