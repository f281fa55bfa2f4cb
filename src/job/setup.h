/*
 * setup.h - one job's setup: the environment knobs, read and checked once;
 * threads and memory per rank; the backend, chosen through the registry, its
 * device bound and compared with the other ranks of the node (the one place
 * where what a backend needs from MPI is decided), then set up.
 */
#ifndef TSR_JOB_SETUP_H
#define TSR_JOB_SETUP_H

#include "exec/exec.h"
#include "tessera.h"

/* Every TESSERA_* variable tessera reads, with its value after checking. */
typedef struct tsr_knobs {
  int gpus_shared;          /* TESSERA_GPUS_SHARED: as --gpus-shared (test suites on GPU nodes) */
  const char *fault;        /* TESSERA_FAULT: a backend op made to fail (tests) */
  double progress_interval; /* TESSERA_PROGRESS_INTERVAL: seconds between progress lines in logs */
  int host_exchange;        /* TESSERA_HOST_EXCHANGE: rechunk pieces as host copies (tests) */
  const char *tsqr;         /* TESSERA_TSQR: auto, tree or gram, the thin SVD's TSQR path */
  int hdf5_independent;     /* TESSERA_HDF5_INDEPENDENT: independent, not collective, reads */
  tsr_prog_limits program_limit; /* TESSERA_PROGRAM_LIMIT: smaller programs than the backend's
                                  * own, so that split programs run anywhere (tests) */
  int gpu_isolate;               /* TESSERA_GPU_ISOLATE (default 1): each rank sees only its own GPU
                    * (backend.h, prepare) */
  int gpu_no_walk; /* TESSERA_GPU_NO_WALK: GPU reductions of random chains by the general
                    * kernel, to compare its bits with the walking one (tests) */
} tsr_knobs;

/* Reads the knobs; a malformed value is one usage error naming it. */
int tsr_knobs_read(tsr_knobs *k);

/* Fills ex for this job and sets its backend up. Collective. */
int tsr_job_setup(const tsr_options *opt, tsr_exec *ex);

/* The parts of the last tsr_job_setup, as tsr_trace_now times: begun,
 * then the backend started (choosing it starts the CUDA driver), the device
 * bound (its context), the backend set up (NCCL, the memory pool). The
 * summary and --trace split set-up into them. */
typedef struct tsr_setup_parts {
  double begun, started, bound, ready;
} tsr_setup_parts;
const tsr_setup_parts *tsr_job_setup_parts(void);

/* Before a sweep's groups split: binds this rank's device and checks, over
 * the world, that ranks of a node share no GPU (unless allowed). *checked
 * is then 1 + whether any do, for the trials' tsr_options.devices_checked.
 * Collective over the world. */
int tsr_job_devices_check(const tsr_options *opt, int *checked);

#endif
