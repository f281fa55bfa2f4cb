/*
 * ops_glm.h - builtins of the ops table for GLMs: logistic_regression,
 * linear_regression and poisson_regression (the fit), and predict /
 * predict_proba. Their table lines are in ops.c; a fit's nodes are
 * computed by src/linalg/glm.c, predictions are ordinary array expressions.
 */
#ifndef TSR_OPS_GLM_H
#define TSR_OPS_GLM_H

#include "eval/builtin.h"

/* def->code is the family (kernel/glm.h). */
int tsr_b_glm_fit(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a,
                  tsr_value *out);
/* def->code: 0 predict, 1 predict_proba. */
int tsr_b_glm_predict(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a,
                      tsr_value *out);

#endif
