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

/* Creates the communicator on the current device and registers the
 * transport with comm.h. Collective; a no-op on one rank. */
int tsr_gpu_nccl_start(void);
/* Whether the communicator is up (2 or more ranks, GPUs not shared). */
int tsr_gpu_nccl_started(void);
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
