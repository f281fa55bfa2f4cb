/*
 * groups.h - a sweep's groups of ranks: the world split into groups of
 * consecutive ranks (so that a group stays on one node when ranks are
 * placed by node), each group the session of its own jobs (session.h), and
 * a shared trial counter the groups draw from without a manager rank.
 */
#ifndef TSR_MPI_GROUPS_H
#define TSR_MPI_GROUPS_H

#include <stdint.h>

int tsr_comm_world_rank(void);
int tsr_comm_world_size(void);

/* Splits the world into groups of ranks_per_group consecutive ranks (the
 * world's size must be a multiple) and makes this rank's group the session.
 * *group is this rank's group number. Collective over the world. */
int tsr_groups_split(int ranks_per_group, int *group);

/* Makes the world the session again and frees the groups. Collective over
 * the world. */
int tsr_groups_join(void);

/* The shared counter: opened at 0 on world rank 0 (collective over the
 * world, outside the groups' work); next() returns the counter's value and
 * adds one, atomically across groups; called by every rank of a group
 * together (the group's rank 0 draws, the others receive the same number). */
int tsr_counter_open(void);
int tsr_counter_next(int64_t *value);
/* next() that adds n: the caller takes value .. value + n - 1. */
int tsr_counter_take(int64_t n, int64_t *value);
void tsr_counter_close(void);

/* Maximum of v over the whole world (not the session). */
int tsr_world_max_int(int v, int *out);

/* Gathers every world rank's n bytes to world rank 0 (recv: size * n bytes
 * there, in rank order; ignored elsewhere). */
int tsr_world_gather(const void *send, int n, void *recv);

#endif
