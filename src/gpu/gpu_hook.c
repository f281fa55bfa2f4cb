/*
 * gpu_hook.c - the GPU backend's entry in the ops table for builds without
 * a usable CUDA backend: it reports itself unavailable, so `--backend=auto`
 * falls back to the CPU and `--backend=cuda` fails with a clear message.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <stdio.h>

#include "backend/backend.h"
#include "util/error.h"

static int gpu_available(void) { return 0; }
static int gpu_setup(const tsr_backend_config *cfg) {
  (void)cfg;
  return TSR_ERROR(TSR_ERR_BACKEND, "the cuda backend is not built");
}
static void gpu_teardown(void) {}
static int gpu_reduce_chunks(const tsr_reduce_batch *b) {
  (void)b;
  return TSR_ERROR(TSR_ERR_BACKEND, "the cuda backend is not built");
}
static int gpu_eval_box(const tsr_prog *p, const int64_t *s, const int64_t *e, double *o) {
  (void)p, (void)s, (void)e, (void)o;
  return TSR_ERROR(TSR_ERR_BACKEND, "the cuda backend is not built");
}
static int gpu_reduce_box(const tsr_prog *p, const int64_t *s, const int64_t *e, int k, int a,
                          tsr_stat *o) {
  (void)p, (void)s, (void)e, (void)k, (void)a, (void)o;
  return TSR_ERROR(TSR_ERR_BACKEND, "the cuda backend is not built");
}
static int gpu_alloc(size_t bytes, double **ptr) {
  (void)bytes;
  *ptr = NULL;
  return TSR_ERROR(TSR_ERR_BACKEND, "the cuda backend is not built");
}
static void gpu_release(double *ptr) { (void)ptr; }
static int gpu_download(const double *src, double *dst, size_t n) {
  (void)src, (void)dst, (void)n;
  return TSR_ERROR(TSR_ERR_BACKEND, "the cuda backend is not built");
}
static size_t gpu_peak_memory(void) { return 0; }

static void gpu_describe(char *buf, size_t n) {
#ifdef TSR_HAVE_CUDA
  snprintf(buf, n, "cuda: toolkit found at configure time; GPU kernels not built in this version");
#else
  snprintf(buf, n, "cuda: not built (configure --with-cuda)");
#endif
}

const tsr_backend_ops tsr_gpu_backend = {
    "cuda",         gpu_available, gpu_setup,   gpu_teardown, gpu_reduce_chunks, gpu_eval_box,
    gpu_reduce_box, gpu_alloc,     gpu_release, gpu_download, gpu_describe, gpu_peak_memory,
    NULL /* exchange: through host memory */, NULL, NULL, NULL /* dense kernels: the CPU's */};
