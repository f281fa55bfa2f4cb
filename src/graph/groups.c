/*
 * groups.c - the decompositions of a job (groups.h): a short list, searched
 * linearly (a job has a handful).
 */
#include "graph/groups.h"

#include <stdlib.h>

#include "util/error.h"

typedef struct group {
  tsr_node *outs[3];
  int n;
  struct group *next;
} group;

static group *groups;

int tsr_group_add(tsr_node *const *outs, int n) {
  for (group *g = groups; g; g = g->next)
    if (g->outs[0] == outs[0]) return TSR_OK; /* the same decomposition written twice */
  if (n < 1 || n > 3) return TSR_ERROR(TSR_ERR_INTERNAL, "a decomposition of %d outputs", n);
  group *g;
  TSR_CALLOC(g, 1, sizeof *g);
  for (int i = 0; i < n; i++) g->outs[i] = outs[i];
  g->n = n;
  g->next = groups;
  groups = g;
  return TSR_OK;
}

int tsr_group_of(const tsr_node *n, tsr_node *const **outs, int *n_outs) {
  for (group *g = groups; g; g = g->next)
    for (int i = 0; i < g->n; i++)
      if (g->outs[i] == n) {
        *outs = g->outs;
        *n_outs = g->n;
        return 1;
      }
  return 0;
}

void tsr_groups_free(void) {
  while (groups) {
    group *g = groups;
    groups = g->next;
    free(g);
  }
}
