/*
 * gpu_nccl.h - the NCCL transport of the CUDA backend: one communicator over
 * all ranks (bootstrapped over MPI), through which the executor's exchanges
 * (reduction partials, axis-reduction rows) move once the backend is set up.
 */
#ifndef TSR_GPU_NCCL_H
#define TSR_GPU_NCCL_H

#ifdef __cplusplus
extern "C" {
#endif

#include "backend/backend.h"

/* Registers the transport with comm.h where there are 2 or more ranks
 * (on distinct GPUs: the caller's decision); the communicator itself is
 * made by tsr_gpu_nccl_ready. */
int tsr_gpu_nccl_start(void);
/* Collective (the backend's exchange_ready): makes the communicator on the
 * current device the first time, over all ranks. */
int tsr_gpu_nccl_ready(void);
/* Whether NCCL carries the exchanges (2 or more ranks, GPUs not shared). */
int tsr_gpu_nccl_on(void);
/* The backend's exchange op (backend.h): device buffers sent and received
 * with grouped ncclSend/ncclRecv, one message per peer and direction. The
 * buffers are ready (every op of the backend has finished when it
 * returns); returns when every message has arrived. */
int tsr_gpu_nccl_exchange(const tsr_be_msg *sends, int nsends, const tsr_be_msg *recvs, int nrecvs);
/* Unregisters and destroys it. */
void tsr_gpu_nccl_stop(void);
/* "NCCL 2.28.3" (the library's version). */
void tsr_gpu_nccl_version(char *buf, unsigned long n);

#ifdef __cplusplus
}
#endif

#endif
