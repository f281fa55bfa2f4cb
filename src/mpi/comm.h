/*
 * comm.h - communication layer: MPI setup, node-local ranks and the few
 * collectives the executor needs, all on host buffers (the GPU backend adds
 * NCCL for device buffers behind the same calls).
 */
#ifndef TSR_COMM_H
#define TSR_COMM_H

#include <stddef.h>
#include <stdint.h>

int tsr_comm_init(int *argc, char ***argv);
/* What tsr_comm_init chose for Open MPI's start (its transports on one
 * node, hwloc's GPU plugins) or left to the user, as one line for info. */
void tsr_comm_start_choices(char *buf, size_t n);
void tsr_comm_finalize(void);
/* The end of an interrupted run, which exits with status code next:
 * MPI_Finalize, but the process ends with code if it has not returned
 * within a quarter of a second. When the launcher itself is ending the job
 * (Ctrl-C to mpirun), MPI_Finalize's handshake with it waits until the
 * launcher kills the rank, a second or two later; when only the ranks were
 * signalled it returns at once and the launcher reports their status.
 * Skipped when the launcher's own SIGCONT announced the end (signals.h). */
void tsr_comm_finalize_interrupted(int code);
/* The pid of this rank's parent when it is Open MPI's launcher (mpirun,
 * mpiexec, orterun, orted, prted, prterun: OMPI_COMM_WORLD_SIZE is set and
 * the parent's name is one of these), else 0 (a singleton, srun, another
 * MPI), and 0 when the user asked mpirun to forward job control
 * (OMPI_MCA_orte_forward_job_control), whose resume is also a SIGCONT. */
int tsr_comm_launcher_pid(void);
/* Ends every rank at once: for failures on one rank only. Does not return. */
void tsr_comm_abort(int code);

int tsr_comm_rank(void);
int tsr_comm_size(void);
int tsr_comm_local_rank(void); /* rank among the ranks of this node */
int tsr_comm_local_size(void);

/* Every rank contributes nbytes (may differ); every rank receives the
 * concatenation in rank order in *all (malloc'ed; caller frees) with
 * per-rank byte counts in counts[size] (malloc'ed). */
int tsr_comm_allgather_bytes(const void *send, size_t nbytes, char **all, size_t **counts);

/* Personalized exchange: send[d] holds sendn[d] bytes for rank d; on return
 * *recv holds what every rank sent here, in rank order, recvn[r] bytes from r. */
int tsr_comm_alltoall_bytes(char *const *send, const size_t *sendn, char **recv, size_t **recvn);

/* Allgather of n bytes among the ranks of this node, in local-rank order
 * (recv holds local_size * n bytes). */
int tsr_comm_node_allgather(const void *send, size_t n, void *recv);

/* Broadcast of nbytes from root (used to bootstrap NCCL). */
int tsr_comm_bcast_bytes(void *buf, size_t nbytes, int root);

/* A device transport: the GPU backend registers one (NCCL) at setup, and
 * the two exchanges above then move their data through it (the byte counts
 * still travel over MPI). allgather: every rank sends n bytes; recv receives
 * size*n bytes in rank order. alltoall: send[d]/sendn[d] bytes for rank d,
 * recv[r]/recvn[r] from rank r (counts known on both sides). up: whether it
 * carries the exchanges now (the same on every rank: NCCL's communicator is
 * made at the first device exchange, collectively, and until then the
 * exchanges take MPI). */
typedef struct tsr_comm_transport {
  const char *name;
  int (*allgather)(const void *send, size_t n, void *recv);
  int (*alltoall)(char *const *send, const size_t *sendn, char *const *recv, const size_t *recvn);
  int (*up)(void);
} tsr_comm_transport;
void tsr_comm_set_transport(const tsr_comm_transport *t); /* NULL: MPI only */
const char *tsr_comm_transport_name(void);                /* "MPI" or t->name */

/* Whether the MPI library can take device pointers (MPIX_Query_cuda_support);
 * 0 when unknown. */
int tsr_comm_mpi_cuda_aware(void);

/* Maximum of v over all ranks (used to agree on failure). */
int tsr_comm_max_int(int v, int *out);

int tsr_comm_barrier(void);

double tsr_comm_time(void);

#endif
