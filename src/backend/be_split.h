/*
 * be_split.h - the checked wrappers' path for programs larger than the
 * backend runs (backend.c calls it, nothing else does): the program split
 * into parts (fuse/split.h), run part by part over each box. Internal to
 * src/backend/.
 */
#ifndef TSR_BACKEND_BE_SPLIT_H
#define TSR_BACKEND_BE_SPLIT_H

#include "backend/backend.h"

int tsr_be_split_eval_box(const tsr_backend_ops *be, const tsr_prog_limits *lim, const tsr_prog *p,
                          const int64_t *start, const int64_t *extent, double *out);
int tsr_be_split_reduce_box(const tsr_backend_ops *be, const tsr_prog_limits *lim,
                            const tsr_prog *p, const int64_t *start, const int64_t *extent,
                            int kind, int axis, tsr_stat *out);
int tsr_be_split_reduce_chunks(const tsr_backend_ops *be, const tsr_prog_limits *lim,
                               const tsr_reduce_batch *b);

#endif
