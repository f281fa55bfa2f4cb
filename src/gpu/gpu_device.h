/*
 * gpu_device.h - what the files of the CUDA backend share: this rank's
 * device (bound once by gpu_backend.cu's bind, selected again by every entry
 * point that a worker thread may call), device memory from the caching pool
 * (gpu_memory.cu) and the program entry points (gpu_eval.cu). Internal to
 * src/gpu/.
 */
#ifndef TSR_GPU_DEVICE_H
#define TSR_GPU_DEVICE_H

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

extern "C" {
#include "backend/backend.h"
}

/* ---- this rank's device (gpu_memory.cu) ---- */
extern int tsr_gpu_device_id; /* -1 until bound */
extern int tsr_gpu_no_walk;   /* TESSERA_GPU_NO_WALK (gpu_prog.cu) */
/* The current device is per host thread: every entry point that OpenMP
 * workers may call selects this rank's GPU first. */
static inline void tsr_gpu_bind_device(void) {
  if (tsr_gpu_device_id >= 0) cudaSetDevice(tsr_gpu_device_id);
}

/* ---- device memory: the caching pool (gpu_memory.cu) ---- */
/* Starts a job's peak from what the process holds, with limit bytes for the pool. */
void tsr_gpu_memory_start(size_t limit);
size_t tsr_gpu_memory_limit(void);
void tsr_gpu_memory_stop(void); /* frees every pooled block */
/* Device memory allocated (bytes > 0) or freed outside the pool: counted in the peak. */
void tsr_gpu_count_outside(long long bytes);
size_t tsr_gpu_peak_memory(void);
int tsr_gpu_alloc(size_t bytes, double **ptr);
void tsr_gpu_release(double *ptr);
int tsr_gpu_download(const double *src, double *dst, size_t n);
int tsr_gpu_upload(const double *src, double *dst, size_t n);

/* ---- programs on the device (gpu_eval.cu) ---- */
int tsr_gpu_reduce_chunks(const tsr_reduce_batch *bt);
int tsr_gpu_eval_box(const tsr_prog *p, const int64_t *start, const int64_t *extent, double *out);
int tsr_gpu_reduce_box(const tsr_prog *p, const int64_t *start, const int64_t *extent, int kind,
                       int axis, tsr_stat *out);
/* A histogram of one axis of p's values over boxes, fused (gpu_reduce.cu). */
int tsr_gpu_hist_box(const tsr_prog *p, int64_t nbox, const int64_t *start, const int64_t *extent,
                     const tsr_hist *h, double *out);
/* The largest program a kernel takes (gpu_prog.cuh: the program travels
 * as a kernel argument); the wrappers split larger ones. */
void tsr_gpu_prog_limits(tsr_prog_limits *out);
/* Device memory the launches need at least (setup refuses a smaller limit). */
size_t tsr_gpu_eval_min_memory(void);
void tsr_gpu_eval_stop(void); /* frees the cached launch scratch */

#endif
