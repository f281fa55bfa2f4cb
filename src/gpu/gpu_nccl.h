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

/* Creates the communicator on the current device and registers the
 * transport with comm.h. Collective; a no-op on one rank. */
int tsr_gpu_nccl_start(void);
/* Unregisters and destroys it. */
void tsr_gpu_nccl_stop(void);
/* "NCCL 2.28.3" (the library's version). */
void tsr_gpu_nccl_version(char *buf, unsigned long n);

#ifdef __cplusplus
}
#endif

#endif
