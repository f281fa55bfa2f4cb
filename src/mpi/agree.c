/*
 * agree.c - agreement on failure across ranks (agree.h): the executor,
 * linalg and the job's rank-0 steps all end a collective step here.
 */
#include "mpi/agree.h"

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
    if (tsr_error_get_scope() == TSR_SCOPE_COLLECTIVE) tsr_error_set_scope(TSR_SCOPE_LOCAL);
  } else if (worst != TSR_OK) {
    st = TSR_ERROR(worst, "another rank failed");
    tsr_error_set_scope(worst == TSR_ERR_INTERRUPTED ? TSR_SCOPE_COLLECTIVE : TSR_SCOPE_SILENT);
  }
  return st;
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
