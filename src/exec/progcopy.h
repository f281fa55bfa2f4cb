/*
 * progcopy.h - copies of a fused program for one staged task: the copy is
 * restricted to the task's box, and its staged leaves (LOAD, XFER, HELD)
 * are turned into DATA leaves reading host buffers that hold exactly the
 * region they read (plan/plan.h), or, for held chunks on this rank, the
 * chunk itself in backend memory. Used by stage.c, xfer.c and nofuse.c.
 */
#ifndef TSR_EXEC_PROGCOPY_H
#define TSR_EXEC_PROGCOPY_H

#include "fuse/program.h"
#include "plan/plan.h"

/* A deep copy of p into q (freed with tsr_prog_free). */
int tsr_prog_copy(const tsr_prog *p, tsr_prog *q);

/* p restricted to a strided box of its space, as a program over [0, count):
 * slice pushdown at run time (the box composes into every leaf's map). */
int tsr_prog_view(const tsr_prog *p, const tsr_sbox *b, tsr_prog *q);

/* Turns leaf l (of a program copy, in the copy's own coordinates) into a
 * DATA leaf reading buf, which holds region r row-major. */
void tsr_leaf_to_data(tsr_leaf *l, const tsr_region *r, const double *buf);

/* Turns leaf l (of a program copy) into a DATA leaf reading, where it is,
 * a whole chunk (start, extent) of its node held in backend memory at
 * data (resident: the backend reads it in place, nothing is copied). */
void tsr_leaf_to_chunk(tsr_leaf *l, const int64_t *start, const int64_t *extent,
                       const double *data);

#endif
