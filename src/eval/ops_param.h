/*
 * ops_param.h - param(): a value of the job that a run may set from the
 * command line (`tessera run job.tsr --set lam=0.1`), the unit a parameter
 * sweep varies. Its table line is in ops.c.
 */
#ifndef TSR_OPS_PARAM_H
#define TSR_OPS_PARAM_H

#include "eval/builtin.h"

/* name = param(default) */
int tsr_b_param(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a,
                tsr_value *out);

/* After the job has been read: the first --set that no param() took, as an
 * error that names the job's params; TSR_OK when every one was taken. */
int tsr_params_check_used(const tsr_ctx *c);

#endif
