/*
 * combine.h - combining reduction partials across ranks (exec.c computes
 * them; combine.c gathers and finishes them in chunk-index order, so the
 * result does not depend on the number of ranks).
 */
#ifndef TSR_EXEC_COMBINE_H
#define TSR_EXEC_COMBINE_H

#include <stdint.h>

#include "exec/exec.h"

/* r->value on every rank from this rank's partials: parts[i] of chunk
 * ids[i] of r's input grid g (r->axis < 0: one tsr_stat per chunk; else one
 * per element of the chunk's image). Collective. */
int tsr_combine_partials(tsr_exec *ex, tsr_node *r, const tsr_grid *g, const int64_t *ids,
                         int64_t n, tsr_stat **parts);

#endif
