/*
 * comm.c - MPI implementation of comm.h. Every MPI call goes through
 * TSR_MPI_CHECK (mpi/mpi_check.h), so a failure becomes a tessera error with
 * the MPI message.
 */
#include "mpi/comm.h"

#include <mpi.h>
#if defined(__has_include)
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h> /* Open MPI: MPIX_CUDA_AWARE_SUPPORT */
#endif
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mpi/mpi_check.h"
#include "mpi/session.h"
#include "util/error.h"
#include "util/signals.h"

/* The session is the communicator every collective of a job uses: the world,
 * or a sweep's group of ranks (mpi/groups.c). rank and size are the
 * session's; the node communicator is always the world's (GPU binding). */
static int started_mpi, rank, size, local_rank, local_size = 1;
static MPI_Comm session = MPI_COMM_NULL;
static MPI_Comm node_comm = MPI_COMM_NULL; /* the ranks of this node */
static char session_base[4096];            /* isolated singleton's own tmpdir */

/* Removes the session base once Open MPI has emptied it (at exit, so that
 * MPI_Abort's exit removes it too); a non-empty directory is left alone. */
static void session_base_remove(void) {
  if (session_base[0]) rmdir(session_base);
}

/* Started without a launcher (a singleton), Open MPI would spawn a helper
 * daemon first: 0.2 s of every short run. Isolated singleton start skips it,
 * but every isolated singleton is job [0,1] and so shares one session
 * directory (/tmp/ompi.HOST.UID/jf.0/1) that the first to finish removes
 * under the others' feet ("A call to mkdir was unable to create the desired
 * directory" when several start at once). Each gets a session base of its
 * own; without one it keeps the daemon. The user's own settings win. */
static void singleton_isolate(void) {
  if (getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMIX_RANK") || getenv("PMI_RANK")) return;
  if (getenv("OMPI_MCA_ess_singleton_isolated") || getenv("OMPI_MCA_orte_tmpdir_base")) return;
  const char *tmp = getenv("TMPDIR");
  if (!tmp || !*tmp) tmp = "/tmp";
  int n = snprintf(session_base, sizeof session_base, "%s/tessera-mpi.XXXXXX", tmp);
  if (n < 0 || (size_t)n >= sizeof session_base || !mkdtemp(session_base)) {
    session_base[0] = 0;
    return;
  }
  atexit(session_base_remove);
  setenv("OMPI_MCA_orte_tmpdir_base", session_base, 1);
  setenv("OMPI_MCA_ess_singleton_isolated", "1", 1);
}

/* On one node (a singleton, or an Open MPI launch whose ranks all share a
 * node) the shared-memory transports are all a job needs, and Open MPI's
 * probing of its network ones (UCX, libfabric) took 0.2 s of every start
 * (`tessera --version` 0.245 -> 0.043 s, `mpirun -np 2 tessera eval` 0.34 ->
 * 0.13 s on the 2-core VM). So tessera asks for ob1 over self and shared
 * memory there, unless the user chose a pml or btl (OMPI_MCA_pml,
 * OMPI_MCA_btl), which always wins. Launches over several nodes, and srun's,
 * keep Open MPI's own choice. */
static int chose_transports, chose_hwloc; /* what tsr_comm_start_choices reports */
static void single_node_transports(void) {
  if (getenv("OMPI_MCA_pml") || getenv("OMPI_MCA_btl")) return;
  const char *size = getenv("OMPI_COMM_WORLD_SIZE"), *local = getenv("OMPI_COMM_WORLD_LOCAL_SIZE");
  int singleton = !size && !getenv("PMIX_RANK") && !getenv("PMI_RANK");
  if (!singleton && !(size && local && !strcmp(size, local))) return;
  setenv("OMPI_MCA_pml", "ob1", 1);
#if defined(OMPI_MAJOR_VERSION) && OMPI_MAJOR_VERSION >= 5
  setenv("OMPI_MCA_btl", "self,sm", 1);
#else
  setenv("OMPI_MCA_btl", "self,vader", 1);
#endif
  chose_transports = 1;
}

/* Open MPI's hwloc discovers the node's topology at MPI_Init, and its GPU
 * plugins (CUDA, NVML, OpenCL, ROCm SMI, Level Zero, GL) start each GPU
 * library to list the devices: on GPU nodes that was most of every start
 * (`tessera --version` 0.72-0.94 s on a two-H200 VM, 0.098 s without
 * them; bench/RESULTS.md 2026-11-26 20:10). Open MPI's placement and
 * tessera's own GPU binding need none of it (the CUDA backend asks CUDA
 * itself), so the plugins are left out unless the user set
 * HWLOC_COMPONENTS, which always wins. */
static void hwloc_without_gpus(void) {
  if (getenv("HWLOC_COMPONENTS")) return;
  setenv("HWLOC_COMPONENTS", "-cuda,-nvml,-opencl,-rsmi,-levelzero,-gl", 1);
  chose_hwloc = 1;
}

void tsr_comm_start_choices(char *buf, size_t n) {
  const char *pml = getenv("OMPI_MCA_pml"), *btl = getenv("OMPI_MCA_btl");
  const char *hw = getenv("HWLOC_COMPONENTS");
  char t[256], h[256];
  if (chose_transports)
    snprintf(t, sizeof t, "pml %s, btl %s (one node)", pml, btl);
  else if (pml || btl)
    snprintf(t, sizeof t, "pml %s, btl %s (yours)", pml ? pml : "default", btl ? btl : "default");
  else
    snprintf(t, sizeof t, "Open MPI's own transports");
  if (chose_hwloc)
    snprintf(h, sizeof h, "hwloc without its GPU plugins");
  else if (hw)
    snprintf(h, sizeof h, "HWLOC_COMPONENTS=%s (yours)", hw);
  else
    snprintf(h, sizeof h, "hwloc as Open MPI loads it");
  snprintf(buf, n, "%s; %s", t, h);
}

int tsr_comm_init(int *argc, char ***argv) {
  int inited = 0;
  TSR_MPI_CHECK(MPI_Initialized(&inited));
  if (!inited) {
    single_node_transports();
    singleton_isolate();
    hwloc_without_gpus();
    int provided;
    TSR_MPI_CHECK(MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided));
    started_mpi = 1;
  }
  TSR_MPI_CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  TSR_CHECK(tsr_comm_session_set(MPI_COMM_WORLD));
  TSR_MPI_CHECK(
      MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node_comm));
  TSR_MPI_CHECK(MPI_Comm_set_errhandler(node_comm, MPI_ERRORS_RETURN));
  TSR_MPI_CHECK(MPI_Comm_rank(node_comm, &local_rank));
  TSR_MPI_CHECK(MPI_Comm_size(node_comm, &local_size));
  return TSR_OK;
}

void tsr_comm_finalize(void) {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized && node_comm != MPI_COMM_NULL) MPI_Comm_free(&node_comm);
  if (started_mpi && !finalized) MPI_Finalize();
}

void tsr_comm_finalize_interrupted(int code) {
  if (tsr_signals_launcher_ending()) return; /* it would wait for the launcher's SIGKILL */
  tsr_signals_exit_after(0.25, code);
  tsr_comm_finalize();
}

static int is_launcher_name(const char *name) {
  static const char *const names[] = {"mpirun", "mpiexec", "orterun", "orted", "prted", "prterun"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (!strcmp(name, names[i])) return 1;
  return 0;
}

int tsr_comm_launcher_pid(void) {
  const char *fwd = getenv("OMPI_MCA_orte_forward_job_control");
  if (!getenv("OMPI_COMM_WORLD_SIZE") || (fwd && *fwd && strcmp(fwd, "0"))) return 0;
  pid_t parent = getppid();
  char path[64], name[64] = "";
  snprintf(path, sizeof path, "/proc/%ld/comm", (long)parent);
  FILE *f = fopen(path, "r");
  if (!f) return 0;
  if (!fgets(name, sizeof name, f)) name[0] = 0;
  fclose(f);
  name[strcspn(name, "\n")] = 0;
  return is_launcher_name(name) ? (int)parent : 0;
}

void tsr_comm_abort(int code) {
  MPI_Abort(MPI_COMM_WORLD, code);
  exit(code);
}

int tsr_comm_session_set(MPI_Comm c) {
  TSR_MPI_CHECK(MPI_Comm_rank(c, &rank));
  TSR_MPI_CHECK(MPI_Comm_size(c, &size));
  session = c;
  return TSR_OK;
}

MPI_Comm tsr_comm_session(void) { return session == MPI_COMM_NULL ? MPI_COMM_WORLD : session; }

int tsr_comm_rank(void) { return rank; }
int tsr_comm_size(void) { return size; }
int tsr_comm_local_rank(void) { return local_rank; }
int tsr_comm_local_size(void) { return local_size; }
double tsr_comm_time(void) { return MPI_Wtime(); }

/* MPI counts are int: large exchanges travel as MPI_BYTE in pieces counted
 * in a contiguous type of this many bytes. */
static int displacements(const size_t *n, int size, int **counts, int **displs, size_t *total) {
  TSR_MALLOC(*counts, sizeof(int) * (size_t)size);
  TSR_MALLOC(*displs, sizeof(int) * (size_t)size);
  size_t t = 0;
  for (int r = 0; r < size; r++) {
    if (n[r] > (size_t)0x7fffffff || t > (size_t)0x7fffffff)
      return TSR_ERROR(TSR_ERR_COMM, "exchange of %zu bytes exceeds what one MPI call moves",
                       t + n[r]);
    (*counts)[r] = (int)n[r];
    (*displs)[r] = (int)t;
    t += n[r];
  }
  *total = t;
  return TSR_OK;
}

static const tsr_comm_transport *transport;

void tsr_comm_set_transport(const tsr_comm_transport *t) { transport = t; }
const char *tsr_comm_transport_name(void) { return transport ? transport->name : "MPI"; }

int tsr_comm_mpi_cuda_aware(void) {
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
  return MPIX_Query_cuda_support();
#else
  return 0;
#endif
}

int tsr_comm_node_allgather(const void *send, size_t n, void *recv) {
  if (n > (size_t)0x7fffffff) return TSR_ERROR(TSR_ERR_COMM, "node exchange of %zu bytes", n);
  TSR_MPI_CHECK(MPI_Allgather(send, (int)n, MPI_BYTE, recv, (int)n, MPI_BYTE, node_comm));
  return TSR_OK;
}

int tsr_comm_bcast_bytes(void *buf, size_t nbytes, int root) {
  if (nbytes > (size_t)0x7fffffff)
    return TSR_ERROR(TSR_ERR_COMM, "broadcast of %zu bytes exceeds one MPI call", nbytes);
  TSR_MPI_CHECK(MPI_Bcast(buf, (int)nbytes, MPI_BYTE, root, tsr_comm_session()));
  return TSR_OK;
}

/* Allgather through the device transport: equal contributions padded to the
 * largest, then compacted in rank order. */
static int transport_allgather(const void *send, size_t nbytes, const size_t *counts, char *all) {
  size_t most = 0, off = 0;
  for (int r = 0; r < size; r++) most = counts[r] > most ? counts[r] : most;
  if (most == 0) return TSR_OK;
  char *pad, *recv;
  TSR_CALLOC(pad, most, 1);
  if (nbytes) memcpy(pad, send, nbytes);
  recv = malloc(most * (size_t)size);
  if (!recv) {
    free(pad);
    return TSR_ERROR(TSR_ERR_MEMORY, "out of memory for a %zu-byte exchange", most * size);
  }
  int st = transport->allgather(pad, most, recv);
  for (int r = 0; st == TSR_OK && r < size; r++) {
    memcpy(all + off, recv + most * (size_t)r, counts[r]);
    off += counts[r];
  }
  free(pad);
  free(recv);
  return st;
}

int tsr_comm_allgather_bytes(const void *send, size_t nbytes, char **all, size_t **counts) {
  unsigned long long mine = nbytes;
  unsigned long long *each;
  TSR_MALLOC(each, sizeof(*each) * (size_t)size);
  TSR_MPI_CHECK(MPI_Allgather(&mine, 1, MPI_UNSIGNED_LONG_LONG, each, 1, MPI_UNSIGNED_LONG_LONG,
                              tsr_comm_session()));
  TSR_MALLOC(*counts, sizeof(size_t) * (size_t)size);
  for (int r = 0; r < size; r++) (*counts)[r] = (size_t)each[r];
  free(each);
  int *rc, *rd;
  size_t total;
  TSR_CHECK(displacements(*counts, size, &rc, &rd, &total));
  TSR_MALLOC(*all, total ? total : 1);
  if (transport && size > 1 && transport->up()) {
    free(rc);
    free(rd);
    return transport_allgather(send, nbytes, *counts, *all);
  }
  int st = MPI_Allgatherv(send, (int)nbytes, MPI_BYTE, *all, rc, rd, MPI_BYTE, tsr_comm_session());
  free(rc);
  free(rd);
  if (st != MPI_SUCCESS) return TSR_ERROR(TSR_ERR_COMM, "MPI_Allgatherv failed");
  return TSR_OK;
}

int tsr_comm_alltoall_bytes(char *const *send, const size_t *sendn, char **recv, size_t **recvn) {
  unsigned long long *sn, *rn;
  TSR_MALLOC(sn, sizeof(*sn) * (size_t)size);
  TSR_MALLOC(rn, sizeof(*rn) * (size_t)size);
  for (int r = 0; r < size; r++) sn[r] = sendn[r];
  TSR_MPI_CHECK(MPI_Alltoall(sn, 1, MPI_UNSIGNED_LONG_LONG, rn, 1, MPI_UNSIGNED_LONG_LONG,
                             tsr_comm_session()));
  TSR_MALLOC(*recvn, sizeof(size_t) * (size_t)size);
  for (int r = 0; r < size; r++) (*recvn)[r] = (size_t)rn[r];
  free(sn);
  free(rn);
  int *sc, *sd, *rc, *rd;
  size_t stotal, rtotal;
  TSR_CHECK(displacements(sendn, size, &sc, &sd, &stotal));
  TSR_CHECK(displacements(*recvn, size, &rc, &rd, &rtotal));
  if (transport && size > 1 && transport->up()) {
    char **rp;
    TSR_MALLOC(*recv, rtotal ? rtotal : 1);
    TSR_MALLOC(rp, sizeof(char *) * (size_t)size);
    for (int r = 0; r < size; r++) rp[r] = *recv + rd[r];
    int tst = transport->alltoall(send, sendn, rp, *recvn);
    free(rp);
    free(sc);
    free(sd);
    free(rc);
    free(rd);
    return tst;
  }
  char *sbuf;
  TSR_MALLOC(sbuf, stotal);
  for (int r = 0; r < size; r++)
    if (sendn[r]) memcpy(sbuf + sd[r], send[r], sendn[r]);
  TSR_MALLOC(*recv, rtotal);
  int st = MPI_Alltoallv(sbuf, sc, sd, MPI_BYTE, *recv, rc, rd, MPI_BYTE, tsr_comm_session());
  free(sbuf);
  free(sc);
  free(sd);
  free(rc);
  free(rd);
  if (st != MPI_SUCCESS) return TSR_ERROR(TSR_ERR_COMM, "MPI_Alltoallv failed");
  return TSR_OK;
}

int tsr_comm_max_int(int v, int *out) {
  TSR_MPI_CHECK(MPI_Allreduce(&v, out, 1, MPI_INT, MPI_MAX, tsr_comm_session()));
  return TSR_OK;
}

int tsr_comm_barrier(void) {
  TSR_MPI_CHECK(MPI_Barrier(tsr_comm_session()));
  return TSR_OK;
}
