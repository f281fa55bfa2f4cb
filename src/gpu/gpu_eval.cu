/*
 * gpu_eval.cu - the CUDA backend's eval_box: a fused program materialized
 * over a box of its space into device memory, two elements per thread (one
 * Philox pair for a contiguous random leaf), each pair one 16-byte store.
 *
 * Each host thread queues its kernels on its own stream, so the OpenMP
 * workers of a rank keep several streams busy; a thread waits only where
 * another thread may read the output (tsr_gpu_eval_box says which).
 */
#include "gpu/gpu_prog.cuh"

/* Materializes a box; each thread takes two consecutive elements, which for
 * a contiguous random leaf are one Philox pair (half the generation work).
 * Chain programs (every --no-fuse operation on one array: `+ 1`, a slice's
 * copy) keep their value in a register, as the fused reductions do; they
 * used to run through the register file in local memory. The same
 * operations in the same order (element<CHAIN>), so the same bits. */
/* Two blocks of THREADS per SM (128 registers; 92 bytes of spills in the
 * chain kernel, where four blocks' 64 registers spilled 412): left alone
 * the kernel took 148-152 registers, one block per SM, whose 8 warps hid
 * little of Philox's and log's latency. cumsum of 10^9 values on an H100
 * (its materialized input): 10.4 % of the bandwidth against 6.9 % before
 * (with the H200 between them: the ratio, not the seconds). */
#define EVAL_MIN_BLOCKS 2
template <bool CHAIN>
__global__ void __launch_bounds__(THREADS, EVAL_MIN_BLOCKS)
    eval_kernel(const __grid_constant__ dprog p, dbox b, long long count, double *out) {
  long long i = 2 * ((long long)blockIdx.x * blockDim.x + threadIdx.x);
  if (i >= count) return;
  long long idx[TSR_MAXDIM], idx1[TSR_MAXDIM];
  box_coords(b, p.ndim, i, idx);
  if (i + 1 >= count) {
    out[i] = element<CHAIN>(p, idx);
    return;
  }
  for (int a = 0; a < TSR_MAXDIM; a++) idx1[a] = idx[a];
  box_next(b, p.ndim, idx1, 1);
  double v0, v1;
  if (CHAIN && p.leaf[p.code[0].x].kind == LEAF_RANDOM &&
      leaf_index(p.leaf[p.code[0].x], p.ndim, idx1) ==
          leaf_index(p.leaf[p.code[0].x], p.ndim, idx) + 1 &&
      !(leaf_index(p.leaf[p.code[0].x], p.ndim, idx) & 1)) {
    random_pair(p.leaf[p.code[0].x], leaf_index(p.leaf[p.code[0].x], p.ndim, idx), &v0, &v1);
    v0 = chain_rest(p, v0);
    v1 = chain_rest(p, v1);
  } else {
    v0 = element<CHAIN>(p, idx);
    v1 = element<CHAIN>(p, idx1);
  }
  store_pair(out + i, v0, v1);
}

/* Evaluates p over a box into out. An operation of --no-fuse (p->async, set
 * by exec/nofuse.c) returns as soon as its kernel is queued on this thread's stream:
 * its output is read on this thread only (the next operation, the chunk's
 * reduction or download, all queued behind it), and exec/nofuse.c keeps its
 * inputs out of the pool until this thread has waited. Any other program
 * waits for its kernel, as before: the staged rounds of exec/stage.c
 * evaluate on worker threads and read the outputs on the main thread, and
 * per-thread streams do not order one thread's work after another's.
 * Expected effect: W1 --no-fuse waited for 4 kernels per chunk (normal,
 * `+ 1`, slice, sum); now for 2 (the generator's, and the sum's partials),
 * with the chain `+ 1`, slice, sum queued back to back on the worker's
 * stream. A queued kernel's failure shows at the thread's next wait. Waits
 * here also to give uploaded DATA leaves back to the pool. */
int tsr_gpu_eval_box(const tsr_prog *p, const int64_t *start, const int64_t *extent, double *out) {
  long long n = 1;
  for (int a = 0; a < p->ndim; a++) n *= extent[a];
  /* An empty box reads nothing: --no-fuse does not even fill its leaves'
   * chunk sets (exec/nofuse.c), so there is no program to upload. */
  if (n <= 0) return TSR_OK;
  tsr_gpu_bind_device();
  dprog d;
  TSR_CHECK(tsr_gpu_prog_upload(p, &d));
  int st = TSR_OK;
  {
    long long pairs = (n + 1) / 2;
    unsigned blocks = (unsigned)((pairs + THREADS - 1) / THREADS);
    dbox b = tsr_gpu_make_box(p->ndim, start, extent);
    if (d.chain)
      eval_kernel<true><<<blocks, THREADS, 0, STREAM>>>(d, b, n, out);
    else
      eval_kernel<false><<<blocks, THREADS, 0, STREAM>>>(d, b, n, out);
    cudaError_t e = cudaGetLastError();
    if (e == cudaSuccess && !p->async) e = cudaStreamSynchronize(STREAM);
    if (e != cudaSuccess)
      st = TSR_ERROR(TSR_ERR_BACKEND, "GPU evaluation failed: %s", cudaGetErrorString(e));
  }
  int rs = tsr_gpu_prog_release(&d);
  return st != TSR_OK ? st : rs;
}
