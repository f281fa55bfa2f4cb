/*
 * agree.c - agreement on failure across ranks (agree.h): the executor,
 * linalg and the job's rank-0 steps all end a collective step here; a data
 * error that several ranks find becomes one message, printed once.
 */
#include "mpi/agree.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi/comm.h"
#include "util/error.h"
#include "util/signals.h"

int tsr_agree(int st) {
  if (st == TSR_OK && tsr_interrupted()) st = TSR_ERROR(TSR_ERR_INTERRUPTED, "interrupted");
  int worst = st;
  if (tsr_comm_max_int(st, &worst) != TSR_OK) return st == TSR_OK ? TSR_ERR_COMM : st;
  if (st == TSR_ERR_INTERRUPTED) {
    tsr_error_set_scope(TSR_SCOPE_COLLECTIVE);
  } else if (st != TSR_OK) { /* a fresh error is this rank's; an agreed one keeps its scope */
    if (tsr_error_get_scope() == TSR_SCOPE_COLLECTIVE && !tsr_error_agreed())
      tsr_error_set_scope(TSR_SCOPE_LOCAL);
  } else if (worst != TSR_OK) {
    st = TSR_ERROR(worst, "another rank failed");
    tsr_error_set_scope(worst == TSR_ERR_INTERRUPTED ? TSR_SCOPE_COLLECTIVE : TSR_SCOPE_SILENT);
  }
  return st;
}

int tsr_agreed(int st) {
  if (st == TSR_OK) return st;
  tsr_error_set_scope(TSR_SCOPE_COLLECTIVE);
  tsr_error_set_agreed();
  return st;
}

/* What each rank tells of its data error. */
typedef struct first_bad {
  int64_t index;
  int st;
} first_bad;

/* The rank that found the smallest index (the lower rank of a tie; -1: no
 * rank found one), and whether a rank failed without one. */
static int owner_of(const first_bad *all, int n, int *other) {
  int owner = -1;
  *other = 0;
  for (int r = 0; r < n; r++) {
    if (all[r].st != TSR_OK && all[r].index == INT64_MAX) *other = 1;
    if (all[r].index != INT64_MAX && (owner < 0 || all[r].index < all[owner].index)) owner = r;
  }
  return owner;
}

/* Every rank takes owner's error (its code and text) as its own. */
static int take_error(int owner, int st) {
  struct {
    int code;
    char text[1024];
  } e = {st, ""};
  if (tsr_comm_rank() == owner) snprintf(e.text, sizeof e.text, "%s", tsr_error_message());
  TSR_CHECK(tsr_comm_bcast_bytes(&e, sizeof e, owner));
  tsr_error_clear();
  return tsr_agreed(TSR_ERROR(e.code, "%s", e.text));
}

int tsr_agree_first(int st, int64_t index) {
  first_bad mine;
  memset(&mine, 0, sizeof mine);
  mine.index = st == TSR_OK ? INT64_MAX : index, mine.st = st;
  char *all = NULL;
  size_t *counts = NULL;
  if (tsr_comm_allgather_bytes(&mine, sizeof mine, &all, &counts) != TSR_OK)
    return st == TSR_OK ? TSR_ERR_COMM : st;
  int other, owner = owner_of((const first_bad *)all, tsr_comm_size(), &other);
  free(all);
  free(counts);
  if (owner < 0 || other) return tsr_agree(st);
  return take_error(owner, st);
}

int tsr_agree_each(int st) {
  int some_ok = st == TSR_OK;
  if (tsr_comm_max_int(some_ok, &some_ok) != TSR_OK) return st == TSR_OK ? TSR_ERR_COMM : st;
  st = tsr_agree(st);
  if (st != TSR_OK && !some_ok) tsr_error_set_scope(TSR_SCOPE_COLLECTIVE);
  return st;
}

int tsr_agree_min(int v, int *out) {
  int neg = -v;
  TSR_CHECK(tsr_comm_max_int(neg, &neg));
  *out = -neg;
  return TSR_OK;
}

int tsr_agree_rank0(int st, const char *what) {
  int worst = st;
  if (tsr_comm_max_int(st, &worst) != TSR_OK) return TSR_ERR_COMM;
  if (st == TSR_OK && worst != TSR_OK) {
    st = TSR_ERROR(worst, "rank 0 %s", what);
    tsr_error_set_scope(TSR_SCOPE_SILENT);
  }
  return st;
}
