/*
 * inspect.c - `tessera inspect FILE.h5`: what a run wrote, listed by rank 0
 * (the listing itself is io/h5array.c); every rank agrees on the outcome, so
 * the command behaves the same under mpirun.
 */
#include <stdio.h>

#include "util/error.h"
#include "io/h5array.h"
#include "mpi/agree.h"
#include "mpi/comm.h"
#include "tessera.h"

int tsr_inspect(const char *path, FILE *out) {
  int st = tsr_comm_rank() == 0 ? tsr_h5_inspect(path, out) : TSR_OK;
  if (tsr_comm_rank() == 0) fflush(out);
  char what[4200];
  snprintf(what, sizeof what, "could not list '%s'", path);
  return tsr_agree_rank0(st, what);
}
