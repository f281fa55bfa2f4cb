/*
 * mpi_check.h - the one MPI check: every MPI call of mpi/ goes through
 * TSR_MPI_CHECK, so a failure returns a tessera error (TSR_ERR_COMM) with
 * the call and MPI's message. Only for .c files of mpi/ (includes <mpi.h>).
 */
#ifndef TSR_MPI_CHECK_H
#define TSR_MPI_CHECK_H

#include <mpi.h>

#include "util/error.h"

#define TSR_MPI_CHECK(call)                                             \
  do {                                                                  \
    int mpi_rc_ = (call);                                               \
    if (mpi_rc_ != MPI_SUCCESS) {                                       \
      char mpi_msg_[MPI_MAX_ERROR_STRING];                              \
      int mpi_len_ = 0;                                                 \
      MPI_Error_string(mpi_rc_, mpi_msg_, &mpi_len_);                   \
      return TSR_ERROR(TSR_ERR_COMM, "%s failed: %s", #call, mpi_msg_); \
    }                                                                   \
  } while (0)

#endif
