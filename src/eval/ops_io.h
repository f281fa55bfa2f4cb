/*
 * ops_io.h - builtins of the ops table that read, write or move arrays:
 * load (a dataset as a lazy chunked array, graph/sources.h), save (a job
 * statement, graph/sinks.h) and rechunk. Their table lines are in ops.c.
 * Files are opened by the job's services (context.h), not here.
 */
#ifndef TSR_OPS_IO_H
#define TSR_OPS_IO_H

#include "eval/builtin.h"

int tsr_b_load(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a,
               tsr_value *out);
int tsr_b_save(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a,
               tsr_value *out);
int tsr_b_rechunk(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a,
                  tsr_value *out);

#endif
