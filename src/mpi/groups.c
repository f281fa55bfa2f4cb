/*
 * groups.c - a sweep's groups and shared counter (groups.h). The counter is
 * one int64 in a window on world rank 0, drawn with MPI_Fetch_and_op under a
 * shared lock: atomic across groups, and no rank waits for a manager's loop.
 */
#include "mpi/groups.h"

#include "mpi/comm.h"
#include "mpi/mpi_check.h"
#include "mpi/session.h"
#include "util/error.h"

static MPI_Comm group_comm = MPI_COMM_NULL;
static MPI_Win counter_win = MPI_WIN_NULL;
static int64_t *counter_mem;

int tsr_comm_world_rank(void) {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

int tsr_comm_world_size(void) {
  int s = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &s);
  return s;
}

int tsr_groups_split(int ranks_per_group, int *group) {
  int wr = tsr_comm_world_rank(), ws = tsr_comm_world_size();
  if (ranks_per_group < 1 || ws % ranks_per_group)
    return TSR_ERROR(TSR_ERR_VALUE, "%d ranks do not split into groups of %d", ws, ranks_per_group);
  *group = wr / ranks_per_group;
  TSR_MPI_CHECK(MPI_Comm_split(MPI_COMM_WORLD, *group, wr, &group_comm));
  TSR_MPI_CHECK(MPI_Comm_set_errhandler(group_comm, MPI_ERRORS_RETURN));
  return tsr_comm_session_set(group_comm);
}

int tsr_groups_join(void) {
  TSR_CHECK(tsr_comm_session_set(MPI_COMM_WORLD));
  if (group_comm != MPI_COMM_NULL) MPI_Comm_free(&group_comm);
  return TSR_OK;
}

int tsr_counter_open(void) {
  MPI_Aint bytes = tsr_comm_world_rank() == 0 ? (MPI_Aint)sizeof(int64_t) : 0;
  TSR_MPI_CHECK(MPI_Win_allocate(bytes, sizeof(int64_t), MPI_INFO_NULL, MPI_COMM_WORLD,
                                 &counter_mem, &counter_win));
  if (bytes) {
    TSR_MPI_CHECK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, counter_win));
    *counter_mem = 0;
    TSR_MPI_CHECK(MPI_Win_unlock(0, counter_win));
  }
  TSR_MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
  return TSR_OK;
}

static int draw(int64_t n, int64_t *value) {
  TSR_MPI_CHECK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, counter_win));
  TSR_MPI_CHECK(MPI_Fetch_and_op(&n, value, MPI_INT64_T, 0, 0, MPI_SUM, counter_win));
  TSR_MPI_CHECK(MPI_Win_unlock(0, counter_win));
  return TSR_OK;
}

int tsr_counter_next(int64_t *value) { return tsr_counter_take(1, value); }

int tsr_counter_take(int64_t n, int64_t *value) {
  int st = tsr_comm_rank() == 0 ? draw(n, value) : TSR_OK;
  int worst = st;
  TSR_CHECK(tsr_comm_max_int(st, &worst));
  if (worst != TSR_OK) return st != TSR_OK ? st : TSR_ERROR(worst, "the group's counter failed");
  return tsr_comm_bcast_bytes(value, sizeof *value, 0);
}

void tsr_counter_close(void) {
  if (counter_win != MPI_WIN_NULL) MPI_Win_free(&counter_win);
}

int tsr_world_max_int(int v, int *out) {
  TSR_MPI_CHECK(MPI_Allreduce(&v, out, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
  return TSR_OK;
}

int tsr_world_gather(const void *send, int n, void *recv) {
  TSR_MPI_CHECK(MPI_Gather(send, n, MPI_BYTE, recv, n, MPI_BYTE, 0, MPI_COMM_WORLD));
  return TSR_OK;
}
