/*
 * gpu_eval.cu - the CUDA backend's programs: fused programs evaluated and
 * reduced on the GPU.
 *
 * A program (program.h) travels to the device by value as a kernel argument
 * (it lives in the constant bank, read uniformly by every thread) and is
 * interpreted per element: the instruction loop is the same for all threads,
 * so it costs no divergence, and generation (Philox + log + sincos) dominates.
 * Random values use cuRAND's curand_Philox4x32_10 and tessera's own log and
 * sincos (rngmath.h), so they have the bits of the CPU backend.
 *
 * Reductions are deterministic: a chunk is split into a number of blocks that
 * depends only on its size; each thread accumulates a fixed set of elements
 * in order, blocks reduce with a fixed shared-memory tree, and the host
 * combines block partials in order. The result is independent of the GPU
 * model, the GPU count and the rank count.
 *
 * Each host thread queues its copies and kernels on its own stream, so the
 * OpenMP workers of a rank keep several streams busy; a thread waits only
 * where the host needs a result (reduction partials), or where another
 * thread may read the output (tsr_gpu_eval_box says which).
 */
#include <cuda_runtime.h>
#include <pthread.h>
#include <curand_philox4x32_x.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern "C" {
#include "kernel/rngmath.h"
#include "util/signals.h"
#include "kernel/ew_scalar.h"
#include "kernel/stats_merge.h"
#include "util/trace.h"
}
#include "gpu/gpu_check.h"
#include "gpu/gpu_device.h"

#define MAX_LEAVES 8
#define MAX_INSTR 32
#define MAX_REGS 40
#define MAX_TABLES 2 /* CHUNKS leaves per program: a --no-fuse operation reads at most two arrays */
#define THREADS 256
#define LEAF_RESIDENT (LEAF_HELD + 1) /* a DATA leaf already in device memory */
/* The calling host thread's own stream: kernels and copies of one thread run
 * in order, those of different threads side by side (what nvcc's
 * --default-stream per-thread also makes of stream 0, e.g. in the
 * cudaMemcpy of gpu_memory.cu's download). */
#define STREAM cudaStreamPerThread

/* ---- the program as the device sees it ----------------------------------- */

struct dchunks { /* the table of materialized input chunks a CHUNKS leaf reads (--no-fuse) */
  int n;
  long long start[8][TSR_MAXDIM], extent[8][TSR_MAXDIM];
  const double *data[8];
};

struct dleaf {
  int kind, rng, round_f32, base_ndim;
  uint32_t k0, k1, stream;
  int table; /* CHUNKS: its table in dprog::tab */
  double a, b;
  long long e_const, e_coef[TSR_MAXDIM];
  int axis_of[TSR_MAXDIM];
  long long off[TSR_MAXDIM], step[TSR_MAXDIM];
  const double *data;
};

struct dinstr {
  int kind, op, round_f32, dst, x, y;
};

/* The chunk tables travel inside the program, by value: each operation of
 * --no-fuse used to allocate a device copy from the pool and upload it with
 * a synchronous cudaMemcpy (a stream synchronize and a pool lock per
 * operation, and a pool slot per worker that pushed W1 on 64 threads past
 * the pool's 256 slots, into cudaFree/cudaMalloc, which synchronize the
 * device). Expected: that upload's ~10-20 us gone from every operation with
 * array inputs. */
struct dprog {
  int ndim, nleaves, ninstr, result, chain;
  dleaf leaf[MAX_LEAVES];
  dinstr code[MAX_INSTR];
  int reg_const[MAX_REGS];
  double reg_value[MAX_REGS];
  dchunks tab[MAX_TABLES];
};

struct dbox {
  long long start[TSR_MAXDIM], extent[TSR_MAXDIM];
};

/* Kernel arguments live in the constant bank: at most 4 KB of them (32 KB
 * only from CUDA 12.1 on Volta and later). The program, tables included,
 * must leave room for the other arguments of every kernel (at most a box,
 * two ints, a count and a pointer: 88 bytes). */
static_assert(sizeof(dprog) + 96 <= 4096,
              "the device program outgrew the 4 KB of kernel arguments");

/* ---- device code --------------------------------------------------------- */

__device__ static inline double u01(unsigned lo, unsigned hi) {
  unsigned long long v = ((((unsigned long long)hi << 32) | lo) >> 11) + 1;
  return (double)v * 0x1p-53;
}

__device__ static double random_value(const dleaf &l, long long e) {
  unsigned long long p = (unsigned long long)e >> 1;
  uint4 c = make_uint4((unsigned)p, (unsigned)(p >> 32), l.stream, 0);
  uint4 w = curand_Philox4x32_10(c, make_uint2(l.k0, l.k1));
  if (l.rng == RNG_UNIFORM) {
    double u = (e & 1) ? u01(w.z, w.w) : u01(w.x, w.y);
    return l.a + (l.b - l.a) * u;
  }
  double r = sqrt(-2.0 * tsr_log(u01(w.x, w.y)));
  double s, c2;
  tsr_sincos2pi(u01(w.z, w.w), &s, &c2);
  return l.a + l.b * (r * ((e & 1) ? s : c2));
}

/* Value of a CHUNKS leaf: find the chunk of its table holding the element. */
__device__ static double chunk_value(const dprog &p, const dleaf &l, const long long *idx) {
  long long coord[TSR_MAXDIM];
  for (int b = 0; b < l.base_ndim; b++)
    coord[b] = l.off[b] + (l.axis_of[b] >= 0 ? l.step[b] * idx[l.axis_of[b]] : 0);
  const dchunks &cs = p.tab[l.table];
  for (int c = 0; c < cs.n; c++) {
    long long off = 0, stride = 1;
    bool inside = true;
    for (int b = l.base_ndim - 1; b >= 0; b--) {
      long long r = coord[b] - cs.start[c][b];
      inside = inside && r >= 0 && r < cs.extent[c][b];
      off += r * stride;
      stride *= cs.extent[c][b];
    }
    if (inside) return cs.data[c][off];
  }
  return NAN; /* the executor guarantees coverage; make a bug visible */
}

__device__ static inline long long leaf_index(const dleaf &l, int ndim, const long long *idx) {
  long long e = l.e_const;
  for (int k = 0; k < ndim; k++) e += l.e_coef[k] * idx[k];
  return e;
}

__device__ static double leaf_value(const dprog &p, const dleaf &l, const long long *idx) {
  if (l.kind == LEAF_CHUNKS) return chunk_value(p, l, idx);
  if (l.kind == LEAF_RESIDENT) return l.data[leaf_index(l, p.ndim, idx)];
  long long e = l.e_const;
  for (int k = 0; k < p.ndim; k++) e += l.e_coef[k] * idx[k];
  double v;
  if (l.kind == LEAF_RANDOM)
    v = random_value(l, e);
  else if (l.kind == LEAF_ARANGE)
    v = l.a + l.b * (double)e;
  else
    v = l.data[e];
  return l.round_f32 ? (double)(float)v : v;
}

__device__ static double eval_element(const dprog &p, const long long *idx) {
  double r[MAX_REGS];
  for (int i = 0; i < p.ninstr; i++) {
    const dinstr &ins = p.code[i];
    double v;
    if (ins.kind == I_LEAF) {
      v = leaf_value(p, p.leaf[ins.x], idx);
    } else {
      double x = p.reg_const[ins.x] ? p.reg_value[ins.x] : r[ins.x];
      if (ins.kind == I_UNARY) {
        v = tsr_ew_unary(ins.op, x);
      } else {
        double y = p.reg_const[ins.y] ? p.reg_value[ins.y] : r[ins.y];
        v = tsr_ew_binary(ins.op, x, y);
      }
    }
    r[ins.dst] = ins.round_f32 ? (double)(float)v : v;
  }
  return r[p.result];
}

/* Coordinates of element i of a box (row-major). 64-bit division is a long
 * software sequence on GPUs; where both operands fit in 32 bits (every
 * chunk of W1) the quotient is the same from a 32-bit division, several
 * times cheaper. Expected: most of the index cost per thread of the
 * materializing kernels, which divide once per pair of elements. */
__device__ static void box_coords(const dbox &b, int ndim, long long i, long long *idx) {
  for (int a = ndim - 1; a >= 0; a--) {
    long long e = b.extent[a], q;
    if ((((unsigned long long)i | (unsigned long long)e) >> 32) == 0)
      q = (long long)((unsigned)i / (unsigned)e);
    else
      q = i / e;
    idx[a] = b.start[a] + (i - q * e);
    i = q;
  }
}

/* Moves idx `steps` elements forward in a box (row-major). Divides only
 * when a row boundary is crossed: 64-bit division is slow on GPUs. */
__device__ static void box_next(const dbox &b, int ndim, long long *idx, long long steps) {
  int a = ndim - 1;
  if (a < 0) return;
  idx[a] += steps;
  for (; a > 0; a--) {
    long long pos = idx[a] - b.start[a];
    if (pos < b.extent[a]) return;
    long long carry = pos / b.extent[a];
    idx[a] = b.start[a] + (pos - carry * b.extent[a]);
    idx[a - 1] += carry;
  }
}

/* A "chain" program (a leaf, then one operation after another on the previous
 * result, any other operand a constant) runs with its value in one register
 * instead of the register file in local memory: W1/W2 are chains. */
__device__ static double chain_rest(const dprog &p, double v);

__device__ static double eval_chain(const dprog &p, const long long *idx) {
  return chain_rest(p, leaf_value(p, p.leaf[p.code[0].x], idx));
}

template <bool CHAIN>
__device__ static inline double element(const dprog &p, const long long *idx) {
  return CHAIN ? eval_chain(p, idx) : eval_element(p, idx);
}

/* Per-thread accumulation specialized by reduction kind: sums add, extremes
 * compare, moments update by Welford; merged into tsr_stat at the end. */
template <int KIND> struct accum {
  double n = 0, a = 0, b = 0;
  __device__ void add(double x) {
    if (KIND == RED_SUM || KIND == RED_MEAN) {
      a += x;
    } else if (KIND == RED_MIN || KIND == RED_MAX) {
      bool better = KIND == RED_MAX ? x > a : x < a;
      if (n == 0 || x != x || (a == a && better)) a = x;
    } else {
      double d = x - a;
      a += d / (n + 1);
      b += d * (x - a);
    }
    n += 1;
  }
  __device__ tsr_stat stat() const { return tsr_stat{n, a, b}; }
};

/* Full reduction: block (x = part, y = chunk) reduces a fixed contiguous
 * range of the chunk's elements; thread t takes every THREADS-th of them in
 * order; the block's threads combine by a fixed tree. */
template <int KIND, bool CHAIN>
__global__ void reduce_full_kernel(dprog p, const dbox *boxes, const long long *counts,
                                   const int *nparts, tsr_stat *out, long long out_stride) {
  __shared__ tsr_stat part[THREADS];
  int chunk = blockIdx.y, t = threadIdx.x;
  int nb = nparts[chunk];
  accum<KIND> acc;
  if ((int)blockIdx.x < nb) {
    long long n = counts[chunk];
    long long lo = n * blockIdx.x / nb, hi = n * (blockIdx.x + 1) / nb;
    const dbox &b = boxes[chunk];
    long long idx[TSR_MAXDIM];
    long long i = lo + t;
    if (i < hi) box_coords(b, p.ndim, i, idx);
    for (; i < hi; i += THREADS) {
      acc.add(element<CHAIN>(p, idx));
      box_next(b, p.ndim, idx, THREADS);
    }
  }
  part[t] = acc.stat();
  __syncthreads();
  for (int s = THREADS / 2; s > 0; s >>= 1) {
    if (t < s) tsr_stat_merge_inline(KIND, &part[t], &part[t + s]);
    __syncthreads();
  }
  if (t == 0 && (int)blockIdx.x < nb) out[chunk * out_stride + blockIdx.x] = part[0];
}

template <bool CHAIN>
static void launch_reduce_full(int kind, dim3 grid, const dprog &d, const dbox *b,
                               const long long *c, const int *np, tsr_stat *out, long long stride) {
  switch (kind) {
  case RED_SUM:
    reduce_full_kernel<RED_SUM, CHAIN><<<grid, THREADS, 0, STREAM>>>(d, b, c, np, out, stride);
    break;
  case RED_MEAN:
    reduce_full_kernel<RED_MEAN, CHAIN><<<grid, THREADS, 0, STREAM>>>(d, b, c, np, out, stride);
    break;
  case RED_MIN:
    reduce_full_kernel<RED_MIN, CHAIN><<<grid, THREADS, 0, STREAM>>>(d, b, c, np, out, stride);
    break;
  case RED_MAX:
    reduce_full_kernel<RED_MAX, CHAIN><<<grid, THREADS, 0, STREAM>>>(d, b, c, np, out, stride);
    break;
  case RED_VAR:
    reduce_full_kernel<RED_VAR, CHAIN><<<grid, THREADS, 0, STREAM>>>(d, b, c, np, out, stride);
    break;
  default:
    reduce_full_kernel<RED_STD, CHAIN><<<grid, THREADS, 0, STREAM>>>(d, b, c, np, out, stride);
    break;
  }
}

/* Whether a program is a chain (see eval_chain). */
static int is_chain(const tsr_prog *p) {
  if (p->ninstr == 0 || p->code[0].kind != I_LEAF) return 0;
  for (int i = 1; i < p->ninstr; i++) {
    const tsr_instr *c = &p->code[i], *prev = &p->code[i - 1];
    if (c->kind == I_LEAF) return 0;
    if (c->kind == I_UNARY && c->x != prev->dst) return 0;
    if (c->kind == I_BINARY) {
      int left = c->x == prev->dst && p->reg_const[c->y];
      int right = c->y == prev->dst && p->reg_const[c->x];
      if (!left && !right) return 0;
    }
  }
  return p->result == p->code[p->ninstr - 1].dst;
}

/* Axis reduction: one thread per element of the partial, walking the reduced
 * axis in order. */
__global__ void reduce_axis_kernel(dprog p, dbox b, int axis, int kind, long long count,
                                   tsr_stat *out) {
  long long o = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (o >= count) return;
  long long idx[TSR_MAXDIM], rem = o;
  for (int a = p.ndim - 1; a >= 0; a--) {
    if (a == axis) continue;
    idx[a] = b.start[a] + rem % b.extent[a];
    rem /= b.extent[a];
  }
  tsr_stat acc = {0.0, 0.0, 0.0};
  for (long long k = 0; k < b.extent[axis]; k++) {
    idx[axis] = b.start[axis] + k;
    tsr_stat one = {1.0, eval_element(p, idx), 0.0};
    tsr_stat_merge_inline(kind, &acc, &one);
  }
  out[o] = acc;
}

/* Both elements of a Philox pair (e even) at once: one counter, one log,
 * one sincos. Same arithmetic as random_value, so the same bits. */
__device__ static void random_pair(const dleaf &l, long long e, double *v0, double *v1) {
  unsigned long long p = (unsigned long long)e >> 1;
  uint4 c = make_uint4((unsigned)p, (unsigned)(p >> 32), l.stream, 0);
  uint4 w = curand_Philox4x32_10(c, make_uint2(l.k0, l.k1));
  double u1 = u01(w.x, w.y), u2 = u01(w.z, w.w);
  if (l.rng == RNG_UNIFORM) {
    *v0 = l.a + (l.b - l.a) * u1;
    *v1 = l.a + (l.b - l.a) * u2;
  } else {
    double r = sqrt(-2.0 * tsr_log(u1)), s, c2;
    tsr_sincos2pi(u2, &s, &c2);
    *v0 = l.a + l.b * (r * c2);
    *v1 = l.a + l.b * (r * s);
  }
  if (l.round_f32) {
    *v0 = (double)(float)*v0;
    *v1 = (double)(float)*v1;
  }
}

/* The operations after the leaf of a chain program, on a leaf value. */
__device__ static double chain_rest(const dprog &p, double v) {
  int prev = p.code[0].dst;
  for (int i = 1; i < p.ninstr; i++) {
    const dinstr &ins = p.code[i];
    if (ins.kind == I_UNARY)
      v = tsr_ew_unary(ins.op, v);
    else if (ins.x == prev)
      v = tsr_ew_binary(ins.op, v, p.reg_value[ins.y]);
    else
      v = tsr_ew_binary(ins.op, p.reg_value[ins.x], v);
    if (ins.round_f32) v = (double)(float)v;
    prev = ins.dst;
  }
  return v;
}

/* The pair of a thread as one 16-byte store where out + i is aligned (i is
 * even; buffers from the pool are): two 8-byte stores 16 bytes apart fill
 * each 32-byte sector in two halves, which Nsight Compute showed costing
 * read-modify-write traffic, 3.34 GB of DRAM traffic to write an 0.8 GB
 * chunk of normals (H100, W2 --no-fuse). Expected: the generation and `+ 1`
 * kernels of --no-fuse 1.8 and 2.1 ms per 10000^2 chunk toward 1.0 and 0.7. */
__device__ static inline void store_pair(double *at, double v0, double v1) {
  if (((uintptr_t)at & 15) == 0)
    *reinterpret_cast<double2 *>(at) = make_double2(v0, v1);
  else
    at[0] = v0, at[1] = v1;
}

/* Materializes a box; each thread takes two consecutive elements, which for
 * a contiguous random leaf are one Philox pair (half the generation work).
 * Chain programs (every --no-fuse operation on one array: `+ 1`, a slice's
 * copy) keep their value in a register, as the fused reductions do; they
 * used to run through the register file in local memory. The same
 * operations in the same order (element<CHAIN>), so the same bits. */
template <bool CHAIN> __global__ void eval_kernel(dprog p, dbox b, long long count, double *out) {
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

/* ---- host side ------------------------------------------------------------ */

/* Every call below queues its copies and kernels on the calling host thread's
 * own stream (STREAM), so the OpenMP workers of a rank keep several streams
 * busy at once, and a thread's operations run in the order it queued them. */

/* The table of the chunks a --no-fuse leaf reads goes into the program (the
 * chunks are in device memory already: backend memory from gpu_alloc). */
static int table_chunks(const tsr_leaf *l, dprog *d, int *ntab, dleaf *x) {
  if (*ntab == MAX_TABLES)
    return TSR_ERROR(TSR_ERR_BACKEND, "an operation reads more than %d arrays of chunks",
                     MAX_TABLES);
  dchunks *t = &d->tab[*ntab];
  t->n = l->chunks->n;
  for (int c = 0; c < t->n; c++) {
    for (int b = 0; b < l->base_ndim; b++) {
      t->start[c][b] = l->chunks->start[c][b];
      t->extent[c][b] = l->chunks->extent[c][b];
    }
    t->data[c] = l->chunks->data[c];
  }
  x->table = (*ntab)++;
  return TSR_OK;
}

/* A DATA leaf's host values, copied into pool memory on this thread's stream.
 * From pageable memory cudaMemcpyAsync returns once the driver has staged
 * the values (waiting for the stream if it must), so the caller may free its
 * buffer. The pool replaces a cudaMalloc/cudaFree per call, which
 * synchronize the whole device: per chunk of a staged load, and per --no-fuse
 * operation that reads a replicated array. */
static int upload_data(const tsr_leaf *l, dleaf *x) {
  int64_t n = 1;
  for (int b = 0; b < l->base_ndim; b++) n *= l->base_shape[b];
  double *dev;
  TSR_CHECK(tsr_gpu_alloc(sizeof(double) * (size_t)(n + 1), &dev));
  x->data = dev; /* released by prog_release, also when the copy fails */
  CUDA_CHECK(
      cudaMemcpyAsync(dev, l->data, sizeof(double) * (size_t)n, cudaMemcpyHostToDevice, STREAM));
  return TSR_OK;
}

/* One leaf in its device form. */
static int leaf_upload(const tsr_leaf *l, dprog *d, int *ntab, dleaf *x) {
  x->kind = l->kind;
  x->base_ndim = l->base_ndim;
  for (int b = 0; b < TSR_MAXDIM; b++) {
    x->axis_of[b] = b < l->base_ndim ? l->axis_of[b] : -1;
    x->off[b] = l->off[b];
    x->step[b] = l->step[b];
  }
  x->rng = l->rng;
  x->round_f32 = l->round_f32;
  x->k0 = (uint32_t)l->key;
  x->k1 = (uint32_t)(l->key >> 32);
  x->stream = l->stream;
  x->a = l->a;
  x->b = l->b;
  x->e_const = l->e_const;
  for (int k = 0; k < TSR_MAXDIM; k++) x->e_coef[k] = l->e_coef[k];
  if (l->kind == LEAF_CHUNKS) return table_chunks(l, d, ntab, x);
  if (l->kind == LEAF_DATA && l->resident) {
    x->data = l->data;
    x->kind = LEAF_RESIDENT; /* device data owned by the executor */
  } else if (l->kind == LEAF_DATA) {
    return upload_data(l, x);
  }
  return TSR_OK;
}

static int prog_release(dprog *d);

/* Copies a program to its device form; DATA leaves are uploaded (given back
 * by prog_release). */
static int prog_upload(const tsr_prog *p, dprog *d) {
  memset(d, 0, sizeof *d);
  if (p->nleaves > MAX_LEAVES || p->ninstr > MAX_INSTR || p->nregs > MAX_REGS)
    return TSR_ERROR(TSR_ERR_BACKEND,
                     "expression too large for one GPU program (%d leaves, %d "
                     "operations): split it with intermediate names",
                     p->nleaves, p->ninstr);
  d->ndim = p->ndim;
  d->nleaves = p->nleaves;
  d->ninstr = p->ninstr;
  d->result = p->result;
  d->chain = is_chain(p);
  int ntab = 0, st = TSR_OK;
  for (int i = 0; i < p->nleaves && st == TSR_OK; i++)
    st = leaf_upload(&p->leaves[i], d, &ntab, &d->leaf[i]);
  if (st != TSR_OK) {
    prog_release(d);
    return st;
  }
  for (int i = 0; i < p->ninstr; i++) {
    const tsr_instr *s = &p->code[i];
    d->code[i] = dinstr{(int)s->kind, s->op, s->round_f32, s->dst, s->x, s->y};
  }
  for (int r = 0; r < p->nregs; r++) {
    d->reg_const[r] = p->reg_const[r];
    d->reg_value[r] = p->reg_value[r];
  }
  return TSR_OK;
}

/* Gives the uploaded DATA leaves back to the pool once the work this thread
 * queued is done (another thread may take a block as soon as it is back):
 * one wait, only when there are such leaves, and none in effect after a
 * reduction, which has waited for its partials already. */
static int prog_release(dprog *d) {
  int any = 0;
  for (int i = 0; i < d->nleaves; i++) any |= d->leaf[i].kind == LEAF_DATA && d->leaf[i].data;
  if (!any) return TSR_OK;
  int st = CUDA_STATUS(cudaStreamSynchronize(STREAM));
  for (int i = 0; i < d->nleaves; i++)
    if (d->leaf[i].kind == LEAF_DATA && d->leaf[i].data) {
      tsr_gpu_release((double *)d->leaf[i].data);
      d->leaf[i].data = NULL;
    }
  return st;
}

/* Blocks per chunk: a function of the chunk's size only (determinism). */
static int parts_for(long long n) {
  long long nb = (n + 65535) / 65536;
  return (int)(nb < 1 ? 1 : nb > 1024 ? 1024 : nb);
}

static dbox make_box(int ndim, const int64_t *start, const int64_t *extent) {
  dbox b;
  memset(&b, 0, sizeof b);
  for (int a = 0; a < ndim; a++) {
    b.start[a] = start[a];
    b.extent[a] = extent[a];
  }
  return b;
}

/* Device scratch for one launch of up to GROUP chunks: the boxes, element
 * counts and block counts (one device block, dbx/dcnt/dparts, filled by one
 * copy from its pinned image hbx/hcnt/hparts), and the blocks' partials
 * (dout, copied back into pinned hout). */
#define GROUP 64
#define MAX_PARTS 1024
#define LAUNCH_IN_BYTES (GROUP * (sizeof(dbox) + sizeof(long long) + sizeof(int)))

struct launch_scratch {
  int slot; /* in scratch_cache; -1: none */
  dbox *dbx, *hbx;
  long long *dcnt, *hcnt;
  int *dparts, *hparts;
  tsr_stat *dout, *hout;
};

/* Launch scratch is cached (cudaMallocHost costs milliseconds): a few sets,
 * one per host thread working at a time. */
#define SCRATCH_SETS 32
static launch_scratch scratch_cache[SCRATCH_SETS];
static int scratch_busy[SCRATCH_SETS];
static pthread_mutex_t scratch_lock = PTHREAD_MUTEX_INITIALIZER;

static void scratch_destroy(launch_scratch *s) {
  cudaFree(s->dbx);
  cudaFreeHost(s->hbx);
  cudaFree(s->dout);
  cudaFreeHost(s->hout);
  memset(s, 0, sizeof *s);
}

/* Points the counts and block counts into the block that starts with the boxes. */
static void scratch_split(void *block, dbox **bx, long long **cnt, int **parts) {
  *bx = (dbox *)block;
  *cnt = block ? (long long *)(*bx + GROUP) : NULL;
  *parts = block ? (int *)(*cnt + GROUP) : NULL;
}

static int scratch_create(launch_scratch *s) {
  void *din = NULL, *hin = NULL;
  memset(s, 0, sizeof *s);
  int st = CUDA_STATUS(cudaMalloc(&din, LAUNCH_IN_BYTES));
  if (st == TSR_OK) st = CUDA_STATUS(cudaMallocHost(&hin, LAUNCH_IN_BYTES));
  scratch_split(din, &s->dbx, &s->dcnt, &s->dparts);
  scratch_split(hin, &s->hbx, &s->hcnt, &s->hparts);
  if (st == TSR_OK) st = CUDA_STATUS(cudaMalloc(&s->dout, sizeof(tsr_stat) * MAX_PARTS * GROUP));
  if (st == TSR_OK)
    st = CUDA_STATUS(cudaMallocHost(&s->hout, sizeof(tsr_stat) * MAX_PARTS * GROUP));
  if (st != TSR_OK) scratch_destroy(s);
  return st;
}

/* More host threads than sets wait for one: a GPU is kept busy by a few. */
static pthread_cond_t scratch_free = PTHREAD_COND_INITIALIZER;

static void scratch_release(launch_scratch *s) {
  if (s->slot < 0) return;
  pthread_mutex_lock(&scratch_lock);
  scratch_busy[s->slot] = 0;
  pthread_cond_signal(&scratch_free);
  pthread_mutex_unlock(&scratch_lock);
  s->slot = -1;
}

static int scratch_alloc(launch_scratch *s) {
  pthread_mutex_lock(&scratch_lock);
  int slot = -1;
  for (;;) {
    for (int i = 0; i < SCRATCH_SETS && slot < 0; i++)
      if (!scratch_busy[i]) slot = i;
    if (slot >= 0) break;
    pthread_cond_wait(&scratch_free, &scratch_lock);
  }
  scratch_busy[slot] = 1;
  pthread_mutex_unlock(&scratch_lock);
  int st = scratch_cache[slot].dout ? TSR_OK : scratch_create(&scratch_cache[slot]);
  *s = scratch_cache[slot];
  s->slot = slot;
  if (st != TSR_OK) scratch_release(s);
  return st;
}

/* --trace: a kernel's device time from CUDA events on this thread's stream. */
struct kernel_timer {
  cudaEvent_t ev[2];
  int on;
};

static void timer_start(kernel_timer *t) {
  t->on = tsr_trace_on && cudaEventCreate(&t->ev[0]) == cudaSuccess;
  if (t->on && cudaEventCreate(&t->ev[1]) != cudaSuccess) {
    cudaEventDestroy(t->ev[0]);
    t->on = 0;
  }
  if (t->on) cudaEventRecord(t->ev[0], STREAM);
}

static void timer_stop(kernel_timer *t) {
  if (t->on) cudaEventRecord(t->ev[1], STREAM);
}

/* After the host waited for the kernel: its span ends about now (only the
 * short copy of the partials ran after it) and lasts the events' interval.
 * Its launch time would place it too early when other work of the thread
 * (--no-fuse: the chain of operations it reduces) was queued ahead of it. */
static void timer_end(kernel_timer *t, int ok, tsr_trace_args args) {
  if (!t->on) return;
  float ms = 0.0f;
  if (ok && cudaEventElapsedTime(&ms, t->ev[0], t->ev[1]) == cudaSuccess) {
    double end = tsr_trace_now();
    tsr_trace_span(TSR_TRACE_DEVICE, "reduce kernel", TSR_TRACE_TID_DEVICE + tsr_trace_tid(),
                   end - 1e-3 * ms, end, args);
  }
  cudaEventDestroy(t->ev[0]);
  cudaEventDestroy(t->ev[1]);
}

/* The launch, its copies and the one wait of reduce_boxes; maxparts: the
 * stride of the partials. */
static int reduce_launch(const dprog *d, int kind, int64_t count, int maxparts, launch_scratch *s,
                         kernel_timer *t) {
  dim3 grid((unsigned)maxparts, (unsigned)count);
  int st =
      CUDA_STATUS(cudaMemcpyAsync(s->dbx, s->hbx, LAUNCH_IN_BYTES, cudaMemcpyHostToDevice, STREAM));
  if (st == TSR_OK) {
    timer_start(t);
    if (d->chain)
      launch_reduce_full<true>(kind, grid, *d, s->dbx, s->dcnt, s->dparts, s->dout, maxparts);
    else
      launch_reduce_full<false>(kind, grid, *d, s->dbx, s->dcnt, s->dparts, s->dout, maxparts);
    timer_stop(t);
    st = CUDA_STATUS(cudaGetLastError());
  }
  if (st == TSR_OK)
    st = CUDA_STATUS(cudaMemcpyAsync(s->hout, s->dout,
                                     sizeof(tsr_stat) * (size_t)maxparts * (size_t)count,
                                     cudaMemcpyDeviceToHost, STREAM));
  /* also on failure: the set's pinned buffers may go to another thread next */
  int ws = CUDA_STATUS(cudaStreamSynchronize(STREAM));
  return st != TSR_OK ? st : ws;
}

/* Full reductions of up to GROUP boxes (s->hbx[0..count)) in one launch;
 * out[i] gets box i's partial. Expected effect, per --no-fuse chunk: three
 * synchronous uploads (each waits for whatever the thread queued before
 * it) and a 24 KB download become one asynchronous copy each way and the
 * one wait the host needs for the partials; per fused batch of 64 W1 chunks, the partials copied back shrink
 * from MAX_PARTS to the 382 blocks used per chunk (1.5 MB to 0.6 MB). The
 * same partials combined in the same order: the same bits. */
static int reduce_boxes(const dprog *d, int kind, int ndim, int64_t count, tsr_stat **out,
                        launch_scratch *s, tsr_progress_fn progress, void *ctx) {
  int maxparts = 1;
  long long elems = 0;
  for (int64_t i = 0; i < count; i++) {
    s->hcnt[i] = 1;
    for (int a = 0; a < ndim; a++) s->hcnt[i] *= s->hbx[i].extent[a];
    s->hparts[i] = parts_for(s->hcnt[i]);
    if (s->hparts[i] > maxparts) maxparts = s->hparts[i];
    elems += s->hcnt[i];
  }
  kernel_timer t{};
  int st = reduce_launch(d, kind, count, maxparts, s, &t);
  /* chunks: batch launches only (--no-fuse's chunk spans count its chunks) */
  timer_end(&t, st == TSR_OK, tsr_trace_args{-1, progress ? count : 0, elems, 0});
  if (st != TSR_OK) return st;
  for (int64_t i = 0; i < count; i++) {
    out[i][0] = tsr_stat_combine(kind, s->hout + (size_t)maxparts * (size_t)i, s->hparts[i]);
    if (progress) progress(ctx, s->hcnt[i]);
  }
  return TSR_OK;
}

/* Axis reduction of one box into out (host, count stats): the partials in
 * pool memory rather than a cudaMalloc/cudaFree per chunk, which
 * synchronize the device; the copy back is the one wait. */
static int reduce_axis(const dprog *d, const int64_t *start, const int64_t *extent, int kind,
                       int axis, tsr_stat *out) {
  long long count = tsr_partial_count(d->ndim, extent, axis);
  if (count <= 0) return TSR_OK;
  double *dev = NULL;
  TSR_CHECK(tsr_gpu_alloc(sizeof(tsr_stat) * (size_t)(count + 1), &dev));
  reduce_axis_kernel<<<(unsigned)((count + 127) / 128), 128, 0, STREAM>>>(
      *d, make_box(d->ndim, start, extent), axis, kind, count, (tsr_stat *)dev);
  int st = CUDA_STATUS(cudaGetLastError());
  if (st == TSR_OK)
    st = CUDA_STATUS(cudaMemcpyAsync(out, dev, sizeof(tsr_stat) * (size_t)count,
                                     cudaMemcpyDeviceToHost, STREAM));
  int ws = CUDA_STATUS(cudaStreamSynchronize(STREAM)); /* before the block goes back */
  tsr_gpu_release(dev);
  return st != TSR_OK ? st : ws;
}

/* Axis reductions of a batch, chunk by chunk, with one upload of the program. */
static int reduce_chunks_axis(const tsr_reduce_batch *bt) {
  dprog d;
  TSR_CHECK(prog_upload(bt->prog, &d));
  int st = TSR_OK;
  for (int64_t i = 0; i < bt->nchunks && st == TSR_OK && !tsr_interrupted(); i++) {
    int64_t idx[TSR_MAXDIM], start[TSR_MAXDIM], extent[TSR_MAXDIM], n = 1;
    tsr_grid_unravel(bt->grid, bt->ids[i], idx);
    tsr_grid_chunk_box(bt->grid, idx, start, extent);
    st = reduce_axis(&d, start, extent, bt->kind, bt->axis, bt->out[i]);
    for (int a = 0; a < bt->grid->ndim; a++) n *= extent[a];
    if (st == TSR_OK && bt->progress) bt->progress(bt->progress_ctx, n);
  }
  int rs = prog_release(&d);
  return st != TSR_OK ? st : rs;
}

int tsr_gpu_reduce_chunks(const tsr_reduce_batch *bt) {
  tsr_gpu_bind_device();
  if (bt->axis >= 0) return reduce_chunks_axis(bt);
  dprog d;
  launch_scratch s;
  TSR_CHECK(prog_upload(bt->prog, &d));
  int st = scratch_alloc(&s);
  for (int64_t first = 0; first < bt->nchunks && st == TSR_OK && !tsr_interrupted();
       first += GROUP) {
    int64_t count = bt->nchunks - first < GROUP ? bt->nchunks - first : GROUP;
    for (int64_t i = 0; i < count; i++) {
      int64_t idx[TSR_MAXDIM], start[TSR_MAXDIM], extent[TSR_MAXDIM];
      tsr_grid_unravel(bt->grid, bt->ids[first + i], idx);
      tsr_grid_chunk_box(bt->grid, idx, start, extent);
      s.hbx[i] = make_box(bt->grid->ndim, start, extent);
    }
    st = reduce_boxes(&d, bt->kind, bt->grid->ndim, count, bt->out + first, &s, bt->progress,
                      bt->progress_ctx);
  }
  scratch_release(&s);
  int rs = prog_release(&d);
  return st != TSR_OK ? st : rs;
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
  tsr_gpu_bind_device();
  dprog d;
  TSR_CHECK(prog_upload(p, &d));
  long long n = 1;
  for (int a = 0; a < p->ndim; a++) n *= extent[a];
  int st = TSR_OK;
  if (n > 0) {
    long long pairs = (n + 1) / 2;
    unsigned blocks = (unsigned)((pairs + THREADS - 1) / THREADS);
    dbox b = make_box(p->ndim, start, extent);
    if (d.chain)
      eval_kernel<true><<<blocks, THREADS, 0, STREAM>>>(d, b, n, out);
    else
      eval_kernel<false><<<blocks, THREADS, 0, STREAM>>>(d, b, n, out);
    cudaError_t e = cudaGetLastError();
    if (e == cudaSuccess && !p->async) e = cudaStreamSynchronize(STREAM);
    if (e != cudaSuccess)
      st = TSR_ERROR(TSR_ERR_BACKEND, "GPU evaluation failed: %s", cudaGetErrorString(e));
  }
  int rs = prog_release(&d);
  return st != TSR_OK ? st : rs;
}

int tsr_gpu_reduce_box(const tsr_prog *p, const int64_t *start, const int64_t *extent, int kind,
                       int axis, tsr_stat *out) {
  tsr_gpu_bind_device();
  dprog d;
  TSR_CHECK(prog_upload(p, &d));
  int st = TSR_OK;
  if (axis >= 0) {
    st = reduce_axis(&d, start, extent, kind, axis, out);
  } else {
    launch_scratch s;
    st = scratch_alloc(&s);
    if (st == TSR_OK) {
      s.hbx[0] = make_box(p->ndim, start, extent);
      st = reduce_boxes(&d, kind, p->ndim, 1, &out, &s, NULL, NULL);
    }
    scratch_release(&s);
  }
  int rs = prog_release(&d);
  return st != TSR_OK ? st : rs;
}

size_t tsr_gpu_eval_min_memory(void) { return sizeof(tsr_stat) * MAX_PARTS * GROUP * 2; }

void tsr_gpu_eval_stop(void) {
  for (int i = 0; i < SCRATCH_SETS; i++)
    if (scratch_cache[i].dout) scratch_destroy(&scratch_cache[i]);
}
