/*
 * backend.h - the ops table every backend fills (the PETSc interface/impls
 * pattern): the executor calls these and never a backend's own functions.
 *
 * A backend evaluates a fused program (program.h) over boxes of its output
 * space, either materializing the values or reducing them to partials
 * (stats.h). The CPU backend lives in src/cpu/, the CUDA backend in src/gpu/.
 */
#ifndef TSR_BACKEND_H
#define TSR_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include "mpi/p2p.h"
#include "fuse/program.h"
#include "kernel/stats.h"

/* Called by workers as chunks finish (elements done), for progress lines. */
typedef void (*tsr_progress_fn)(void *ctx, int64_t elements);

/* One batch of reductions: a program reduced over nchunks boxes of grid.
 * Partial i (for chunk ids[i]) has out_count[i] stats at out[i]. */
typedef struct tsr_reduce_batch {
  const tsr_prog *prog;
  const tsr_grid *grid;
  int64_t nchunks;
  const int64_t *ids;
  int kind;     /* tsr_red_kind */
  int axis;     /* -1: all axes */
  tsr_stat **out;
  tsr_progress_fn progress;
  void *progress_ctx;
} tsr_reduce_batch;

/* What a backend is told at setup. */
typedef struct tsr_backend_config {
  int threads;      /* CPU threads per rank */
  size_t mem_limit; /* bytes per rank (device memory for GPU backends) */
  int gpus_shared;  /* several ranks may share one GPU */
} tsr_backend_config;

typedef struct tsr_backend_ops {
  const char *name;
  /* Nonzero when the backend can run here (devices present, ...). */
  int (*available)(void);
  /* Prepares devices, streams, pools for this rank. */
  int (*setup)(const tsr_backend_config *cfg);
  void (*teardown)(void);
  /* Reduces a batch of chunks (the fused hot path). */
  int (*reduce_chunks)(const tsr_reduce_batch *batch);
  /* Materializes prog over one box into out: row-major, in backend memory
   * (from alloc below). */
  int (*eval_box)(const tsr_prog *prog, const int64_t *start, const int64_t *extent,
                  double *out);
  /* Reduces prog over one box into out (count: 1 or the box without axis). */
  int (*reduce_box)(const tsr_prog *prog, const int64_t *start, const int64_t *extent,
                    int kind, int axis, tsr_stat *out);
  /* Backend memory, where --no-fuse keeps materialized chunks (host memory
   * for the CPU, device memory for the GPU); CHUNKS leaves and leaves marked
   * resident read it. download copies n values of it to host memory. */
  int (*alloc)(size_t bytes, double **ptr);
  void (*release)(double *ptr);
  int (*download)(const double *src, double *dst, size_t n);
  /* One line for `tessera info`. */
  void (*describe)(char *buf, size_t n);
  /* Peak backend memory this rank used since setup (device memory for the
   * GPU), in bytes; 0 when the backend does not measure it. */
  size_t (*peak_memory)(void);
  /* Rechunking: sends and receives pieces held in backend memory (from
   * alloc), one message per peer and direction, all posted at once; returns
   * when every message has arrived. Optional: NULL makes the executor
   * download the pieces and move host copies with MPI point-to-point
   * (stage.c), which is how a GPU backend works until it moves device
   * buffers itself (NCCL send/recv). The CPU's memory is host memory, so its
   * exchange is MPI point-to-point on the buffers themselves. */
  int (*exchange)(const tsr_p2p_msg *sends, int nsends, const tsr_p2p_msg *recvs, int nrecvs);
  /* Dense kernels of src/linalg, on row-major matrices in host memory;
   * threads may call them at once, and the same operands give the same bits
   * on every call. NULL: the backend has none, and linalg uses the CPU's.
   * qr: a (m x n) = q (m x K) r (K x n, upper triangular, zeros below), with
   * K = min(m, n). svd: a (m x n) = u (m x P) diag(s) vt (P x n), P =
   * min(m, n), s descending. gemm: c (m x n) = a (m x k) b (k x n) + beta c,
   * with leading dimensions lda, ldb, ldc. */
  int (*qr)(int64_t m, int64_t n, const double *a, double *q, double *r);
  int (*svd)(int64_t m, int64_t n, const double *a, double *s, double *u, double *vt);
  int (*gemm)(int64_t m, int64_t n, int64_t k, const double *a, int64_t lda, const double *b,
              int64_t ldb, double beta, double *c, int64_t ldc);
} tsr_backend_ops;

extern const tsr_backend_ops tsr_cpu_backend;
extern const tsr_backend_ops tsr_gpu_backend;

/* Elements of the partial of one box: 1, or the box's size without `axis`. */
int64_t tsr_partial_count(int ndim, const int64_t *extent, int axis);

#endif
