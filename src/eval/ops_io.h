/*
 * ops_io.h - builtins of the ops table that read, write or move arrays:
 * load (an HDF5 dataset as a lazy chunked array), save (a job statement that
 * writes an array) and rechunk. Their table lines are in ops.c.
 */
#ifndef TSR_OPS_IO_H
#define TSR_OPS_IO_H

#include "eval/interp.h"
#include "eval/ops.h"

int tsr_b_load(tsr_interp *ip, const ast_node *call, const tsr_op_def *def, tsr_args *a,
               tsr_value *out);
int tsr_b_save(tsr_interp *ip, const ast_node *call, const tsr_op_def *def, tsr_args *a,
               tsr_value *out);
int tsr_b_rechunk(tsr_interp *ip, const ast_node *call, const tsr_op_def *def, tsr_args *a,
                  tsr_value *out);

/* The job's loaded datasets are freed with its other I/O state (save.c). */
void tsr_h5src_free_all(void);

#endif
