/*
 * nccl_bw.c - NCCL all-reduce bandwidth between the ranks of one node, one
 * GPU a rank (bench/startup.sh builds and runs it): SIZE bytes of float64
 * (default 1 GiB), REPS timed calls after 3 warm-ups, the median's algorithm
 * and bus bandwidth as nccl-tests defines them (busbw = algbw 2 (n-1) / n).
 * The rank's device is local rank % visible devices, as tessera binds it, so
 * the same program measures ranks that see every GPU and ranks restricted to
 * their own (CUDA_VISIBLE_DEVICES set per rank).
 * usage: mpirun -np N nccl_bw [bytes [reps]]
 */
#include <cuda_runtime.h>
#include <mpi.h>
#include <nccl.h>
#include <stdio.h>
#include <stdlib.h>

#define CK(call, what)                               \
  do {                                               \
    if ((call) != 0) {                               \
      fprintf(stderr, "nccl_bw: %s failed\n", what); \
      MPI_Abort(MPI_COMM_WORLD, 1);                  \
    }                                                \
  } while (0)

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size, local, ndev = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
  MPI_Comm_rank(node, &local);
  size_t bytes = argc > 1 ? strtoull(argv[1], NULL, 10) : (size_t)1 << 30;
  int reps = argc > 2 ? atoi(argv[2]) : 10;
  CK(cudaGetDeviceCount(&ndev), "cudaGetDeviceCount");
  CK(cudaSetDevice(local % ndev), "cudaSetDevice");
  ncclUniqueId id;
  if (rank == 0) CK(ncclGetUniqueId(&id), "ncclGetUniqueId");
  MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, MPI_COMM_WORLD);
  ncclComm_t comm;
  double t0 = MPI_Wtime();
  CK(ncclCommInitRank(&comm, size, id, rank), "ncclCommInitRank");
  double tinit = MPI_Wtime() - t0;
  size_t n = bytes / sizeof(double);
  double *buf;
  cudaStream_t s;
  CK(cudaMalloc((void **)&buf, n * sizeof(double)), "cudaMalloc");
  CK(cudaMemset(buf, 0, n * sizeof(double)), "cudaMemset");
  CK(cudaStreamCreate(&s), "cudaStreamCreate");
  double *t = malloc(sizeof(double) * (size_t)(reps + 1));
  for (int i = -3; i < reps; i++) {
    MPI_Barrier(MPI_COMM_WORLD);
    double a = MPI_Wtime();
    CK(ncclAllReduce(buf, buf, n, ncclDouble, ncclSum, comm, s), "ncclAllReduce");
    CK(cudaStreamSynchronize(s), "cudaStreamSynchronize");
    double e = MPI_Wtime() - a, m;
    MPI_Allreduce(&e, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (i >= 0) t[i] = m;
  }
  qsort(t, (size_t)reps, sizeof *t, cmp);
  double med = t[reps / 2], alg = (double)(n * sizeof(double)) / med / 1e9;
  if (rank == 0)
    printf("nccl_bw: %d ranks, %d device%s visible to rank 0, %.0f MB all-reduce: %.3f ms, "
           "algbw %.1f GB/s, busbw %.1f GB/s, communicator set-up %.3f s\n",
           size, ndev, ndev == 1 ? "" : "s", (double)(n * sizeof(double)) / 1e6, med * 1e3, alg,
           alg * 2.0 * (size - 1) / size, tinit);
  ncclCommDestroy(comm);
  cudaFree(buf);
  free(t);
  MPI_Finalize();
  return 0;
}
