/*
 * inspect.c - `tessera inspect FILE.h5`: what a run wrote, listed by rank 0
 * (the listing itself is io/h5array.c); every rank agrees on the outcome, so
 * the command behaves the same under mpirun.
 */
#include <stdio.h>

#include "util/error.h"
#include "io/h5array.h"
#include "mpi/comm.h"
#include "tessera.h"

int tsr_inspect(const char *path, FILE *out) {
  int st = tsr_comm_rank() == 0 ? tsr_h5_inspect(path, out) : TSR_OK;
  if (tsr_comm_rank() == 0) fflush(out);
  int worst = st;
  if (tsr_comm_max_int(st, &worst) != TSR_OK) return TSR_ERR_COMM;
  if (st == TSR_OK && worst != TSR_OK) {
    st = TSR_ERROR(worst, "rank 0 could not list '%s'", path);
    tsr_error_set_scope(TSR_SCOPE_SILENT);
  }
  return st;
}
