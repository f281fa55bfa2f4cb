/*
 * groups.h - decompositions whose outputs are computed together: qr gives
 * (q, r), svd gives (u, s, vt). The interpreter registers each group when it
 * builds the nodes; linear algebra looks a node's group up to compute all of
 * its outputs at once. Per-job state, freed by tsr_nodes_free_all().
 */
#ifndef TSR_GROUPS_H
#define TSR_GROUPS_H

#include "graph/array.h"

/* Registers outs[0..n-1] (n <= 3) as one decomposition; registering the same
 * first output again is a no-op. */
int tsr_group_add(tsr_node *const *outs, int n);

/* The group that n belongs to: *outs (its outputs in order) and *n_outs; 0
 * when n is in none. */
int tsr_group_of(const tsr_node *n, tsr_node *const **outs, int *n_outs);

/* Forgets every group (end of a job). */
void tsr_groups_free(void);

#endif
