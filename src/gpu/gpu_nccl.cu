/*
 * gpu_nccl.cu - NCCL transport (see gpu_nccl.h).
 *
 * The executor's exchanges hold host bytes (partials downloaded from the
 * device). They are staged through pinned host memory into device buffers,
 * moved with ncclAllGather or grouped ncclSend/ncclRecv on one stream, and
 * copied back; the byte counts were agreed over MPI before. Buffers grow as
 * needed and are kept for the next exchange.
 */
#include <cuda_runtime.h>
#include <nccl.h>
#include <stdio.h>
#include <string.h>

extern "C" {
#include "util/error.h"
#include "util/trace.h"
#include "mpi/comm.h"
#include "gpu/gpu_check.h"
#include "gpu/gpu_nccl.h"
}
#include "gpu/gpu_device.h" /* C++ declarations, as gpu_memory.cu defines them */

static ncclComm_t comm;
static int started, nranks, me;
static int wanted; /* 2 or more ranks on distinct GPUs: NCCL carries the exchanges */
static cudaStream_t stream;
static char *dsend, *drecv, *hstage;
static size_t dsend_n, drecv_n, hstage_n;

static int grow_device(char **p, size_t *have, size_t want) {
  if (want <= *have) return TSR_OK;
  if (*p) cudaFree(*p);
  tsr_gpu_count_outside(-(long long)*have); /* outside the pool, in the summary's peak */
  *p = NULL;
  *have = 0;
  CUDA_CHECK(cudaMalloc((void **)p, want));
  *have = want;
  tsr_gpu_count_outside((long long)want);
  return TSR_OK;
}

static int grow_host(size_t want) {
  if (want <= hstage_n) return TSR_OK;
  if (hstage) cudaFreeHost(hstage);
  hstage = NULL;
  hstage_n = 0;
  CUDA_CHECK(cudaMallocHost((void **)&hstage, want));
  hstage_n = want;
  return TSR_OK;
}

static int nccl_allgather(const void *send, size_t n, void *recv) {
  size_t total = n * (size_t)nranks;
  TSR_CHECK(grow_device(&dsend, &dsend_n, n));
  TSR_CHECK(grow_device(&drecv, &drecv_n, total));
  TSR_CHECK(grow_host(total > n ? total : n));
  memcpy(hstage, send, n);
  CUDA_CHECK(cudaMemcpyAsync(dsend, hstage, n, cudaMemcpyHostToDevice, stream));
  NCCL_CHECK(ncclAllGather(dsend, drecv, n, ncclChar, comm, stream));
  CUDA_CHECK(cudaMemcpyAsync(hstage, drecv, total, cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
  memcpy(recv, hstage, total);
  return TSR_OK;
}

static int nccl_alltoall(char *const *send, const size_t *sendn, char *const *recv,
                         const size_t *recvn) {
  size_t st = 0, rt = 0;
  for (int r = 0; r < nranks; r++) {
    st += sendn[r];
    rt += recvn[r];
  }
  TSR_CHECK(grow_device(&dsend, &dsend_n, st ? st : 1));
  TSR_CHECK(grow_device(&drecv, &drecv_n, rt ? rt : 1));
  TSR_CHECK(grow_host(st > rt ? st : (rt ? rt : 1)));
  size_t off = 0;
  for (int r = 0; r < nranks; r++) {
    if (sendn[r]) memcpy(hstage + off, send[r], sendn[r]);
    off += sendn[r];
  }
  CUDA_CHECK(cudaMemcpyAsync(dsend, hstage, st, cudaMemcpyHostToDevice, stream));
  NCCL_CHECK(ncclGroupStart());
  size_t so = 0, ro = 0;
  for (int r = 0; r < nranks; r++) {
    if (sendn[r]) NCCL_CHECK(ncclSend(dsend + so, sendn[r], ncclChar, r, comm, stream));
    if (recvn[r]) NCCL_CHECK(ncclRecv(drecv + ro, recvn[r], ncclChar, r, comm, stream));
    so += sendn[r];
    ro += recvn[r];
  }
  NCCL_CHECK(ncclGroupEnd());
  /* The staging buffer is reused for what arrived once the sends are done. */
  CUDA_CHECK(cudaMemcpyAsync(hstage, drecv, rt, cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
  ro = 0;
  for (int r = 0; r < nranks; r++) {
    if (recvn[r]) memcpy(recv[r], hstage + ro, recvn[r]);
    ro += recvn[r];
  }
  return TSR_OK;
}

extern "C" int tsr_gpu_nccl_on(void) { return wanted; }

extern "C" int tsr_gpu_nccl_exchange(const tsr_be_msg *sends, int nsends, const tsr_be_msg *recvs,
                                     int nrecvs) {
  if (!started)
    return TSR_ERROR(TSR_ERR_INTERNAL, "a device exchange before exchange_ready made NCCL's "
                                       "communicator");
  NCCL_CHECK(ncclGroupStart());
  for (int i = 0; i < nsends; i++)
    if (sends[i].n)
      NCCL_CHECK(ncclSend(sends[i].buf, sends[i].n, ncclDouble, sends[i].peer, comm, stream));
  for (int i = 0; i < nrecvs; i++)
    if (recvs[i].n)
      NCCL_CHECK(ncclRecv(recvs[i].buf, recvs[i].n, ncclDouble, recvs[i].peer, comm, stream));
  NCCL_CHECK(ncclGroupEnd());
  CUDA_CHECK(cudaStreamSynchronize(stream));
  return TSR_OK;
}

static int nccl_up(void) { return started; }
static const tsr_comm_transport nccl_transport = {"NCCL", nccl_allgather, nccl_alltoall, nccl_up};

extern "C" int tsr_gpu_nccl_start(void) {
  nranks = tsr_comm_size();
  me = tsr_comm_rank();
  if (wanted || nranks < 2) return TSR_OK;
  wanted = 1;
  tsr_comm_set_transport(&nccl_transport);
  return TSR_OK;
}

/* The communicator, made when the first round of device exchanges begins
 * (on every rank together: exchange_ready is collective), not at setup: a
 * job without exchanges (`eval 1+1`, a reduction) no longer pays its set-up,
 * 0.42-0.46 s between two H200s (bench/RESULTS.md 2026-11-28 10:50). Until
 * then the comm layer's exchanges take MPI (nccl_up). */
extern "C" int tsr_gpu_nccl_ready(void) {
  if (!wanted || started) return TSR_OK;
  double t0 = tsr_trace_mark();
  ncclUniqueId id;
  if (me == 0) NCCL_CHECK(ncclGetUniqueId(&id));
  TSR_CHECK(tsr_comm_bcast_bytes(&id, sizeof id, 0));
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  NCCL_CHECK(ncclCommInitRank(&comm, nranks, id, me));
  started = 1;
  if (tsr_trace_on)
    tsr_trace_end(TSR_TRACE_COMM, "NCCL communicator", t0, (tsr_trace_args){-1, 0, 0, 0});
  return TSR_OK;
}

extern "C" void tsr_gpu_nccl_stop(void) {
  tsr_comm_set_transport(NULL);
  wanted = 0;
  if (!started) return;
  ncclCommDestroy(comm);
  cudaStreamDestroy(stream);
  if (dsend) cudaFree(dsend);
  if (drecv) cudaFree(drecv);
  if (hstage) cudaFreeHost(hstage);
  dsend = drecv = hstage = NULL;
  dsend_n = drecv_n = hstage_n = 0;
  started = 0;
}

extern "C" void tsr_gpu_nccl_version(char *buf, unsigned long n) {
  int v = 0;
  ncclGetVersion(&v);
  /* NCCL >= 2.9 encodes major*10000 + minor*100 + patch. */
  snprintf(buf, n, "NCCL %d.%d.%d", v / 10000, (v / 100) % 100, v % 100);
}
