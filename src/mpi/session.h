/*
 * session.h - the MPI communicator of the running job (the world, or a
 * sweep's group of ranks), for the files of mpi/ and io/ that call MPI
 * themselves (point-to-point, MPI-IO). Includes <mpi.h>: not for headers
 * that the front end sees.
 */
#ifndef TSR_MPI_SESSION_H
#define TSR_MPI_SESSION_H

#include <mpi.h>

MPI_Comm tsr_comm_session(void);

/* Makes c the session: tsr_comm_rank/size and every collective of comm.h
 * then refer to it. */
int tsr_comm_session_set(MPI_Comm c);

#endif
