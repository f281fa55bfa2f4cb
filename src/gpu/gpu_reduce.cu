/*
 * gpu_reduce.cu - the CUDA backend's reductions: fused programs reduced over
 * batches of chunks (reduce_chunks) or one box (reduce_box), over all axes
 * or one.
 *
 * Reductions are deterministic: a chunk is split into a number of blocks that
 * depends only on its size; each thread accumulates a fixed set of elements
 * in order, blocks reduce with a fixed shared-memory tree, and the host
 * combines block partials in order. The result is independent of the GPU
 * model, the GPU count and the rank count. A thread waits once per launch,
 * for the partials the host combines, with the next launch already queued.
 */
#include <limits.h>

#include "gpu/gpu_prog.cuh"
#include "kernel/hist.h"

#define MOMENTS(K) (red_monoid_c(K) == RM_MOMENTS)

/* A row's monoid and flags (kernel/red_table.h) as constants of the
 * kernels' templates. */
#define RED_MONOID_C(id, nm, monoid, flags, rd, doc) k == RED_##id ? (monoid):
#define RED_FLAGS_C(id, nm, monoid, flags, rd, doc) k == RED_##id ? (flags):
__host__ __device__ static constexpr int red_monoid_c(int k) {
  return TSR_RED_TABLE(RED_MONOID_C) - 1;
}
__host__ __device__ static constexpr int red_flags_c(int k) { return TSR_RED_TABLE(RED_FLAGS_C) 0; }
#undef RED_MONOID_C
#undef RED_FLAGS_C
#define EXTREME(K) (red_monoid_c(K) == RM_MIN || red_monoid_c(K) == RM_MAX)
#define ADDS(K) (red_monoid_c(K) == RM_ADD || red_monoid_c(K) == RM_MEAN)
/* the other rows: prod, any, all, argmax, ..., count_nonzero: each element
 * enters as its one-element partial merged by the shared monoid */
#define GENERIC(K) (!ADDS(K) && !EXTREME(K) && !MOMENTS(K))
#define INDEXED(K) ((red_flags_c(K) & RF_INDEX) != 0)

/* Per-thread accumulation specialized by reduction kind: sums add, extremes
 * compare; moments add the deviations from the block's shift k (its first
 * element) and their squares, a and b, which the block's tree adds and turns
 * into a mean and squared deviations at the end (block_moments). Welford's
 * update, used before, lost 1e-9 of a variance around 1e8 (dask's
 * test_moment) where the CPU, which sums deviations from a segment's mean,
 * lost nothing: deviations from a near value are exact there. The generic
 * rows merge each element's partial (its index i within the box for
 * argmax/argmin: the walks with no index never run them). */
template <int KIND> struct accum {
  double n = 0, a = 0, b = 0, k = 0;
  __device__ void load(const tsr_stat &s) { n = s.n, a = s.a, b = s.b; }
  __device__ void push(double x, long long i) {
    tsr_stat s = stat(), one = tsr_stat_of_one(KIND, x, (double)i);
    tsr_stat_merge_inline(KIND, &s, &one);
    n = s.n, a = s.a, b = s.b;
  }
  /* add x without counting it: every kind but the extremes and the
   * generic rows, whose add looks at n (the walks count their elements
   * once, counted) */
  __device__ void take(double x) {
    if constexpr (ADDS(KIND)) {
      a += x;
    } else {
      double d = x - k;
      a += d;
      b += d * d;
    }
  }
  __device__ void add(double x, long long i = 0) {
    if constexpr (GENERIC(KIND)) {
      push(x, i);
      return;
    } else if constexpr (EXTREME(KIND)) {
      bool better = red_monoid_c(KIND) == RM_MAX ? x > a : x < a;
      if (n == 0 || x != x || (a == a && better)) a = x;
    } else {
      take(x);
    }
    n += 1;
  }
  /* put, with the element's index in the box for the indexed rows */
  __device__ void put_at(double x, long long i) {
    if constexpr (INDEXED(KIND))
      add(x, i);
    else
      put(x);
  }
  __device__ void put(double x) {
    if constexpr (EXTREME(KIND) || GENERIC(KIND))
      add(x);
    else
      take(x);
  }
  __device__ void counted(long long m) {
    if constexpr (!EXTREME(KIND) && !GENERIC(KIND)) n += (double)m;
  }
  __device__ tsr_stat stat() const { return tsr_stat{n, a, b}; }
};

/* The block's tree: moments add their three sums; the others merge. */
template <int KIND> __device__ static inline void tree_merge(tsr_stat *acc, const tsr_stat *s) {
  if (MOMENTS(KIND)) {
    acc->n += s->n, acc->a += s->a, acc->b += s->b;
  } else {
    tsr_stat_merge_inline(KIND, acc, s);
  }
}

/* Sums of deviations from k to a mean and squared deviations (never below
 * 0 by rounding; NaN stays NaN). */
__device__ static inline tsr_stat block_moments(tsr_stat s, double k) {
  if (s.n == 0) return tsr_stat{0.0, 0.0, 0.0};
  double m2 = s.b - s.a * (s.a / s.n);
  return tsr_stat{s.n, k + s.a / s.n, m2 < 0 ? 0.0 : m2};
}

/* A slice of a full reduction's launch (see reduce_sliced): each thread
 * takes its iterations j0 <= j < j1 only, its running state kept in state
 * (one per thread of every block) between slices; the last slice combines.
 * Unsliced: j0 = 0, j1 = LLONG_MAX, state NULL, last 1. */
struct slice_args {
  long long j0, j1;
  tsr_stat *state;
  int last;
};

/* Full reduction: block (x = part, y = chunk) reduces a fixed contiguous
 * range of the chunk's elements; thread t takes every THREADS-th of them in
 * order; the block's threads combine by a fixed tree. A sliced launch
 * gives each thread the same elements in the same order: the same bits. */
/* A thread's elements i, i + THREADS, ... < hi of a GEN program, walked
 * row by row: within a row the element index only grows by a fixed step,
 * so the loop keeps a 32-bit count and a 64-bit index (gen_next computes
 * the next row's). The loop body is branch-free (gen_div, gen_sqrt). GEN
 * (no operations after the steps) takes two elements an iteration: one
 * basic block of two independent elements that the compiler interleaves,
 * each constant read once for both (the loop body: 183 -> 168 instructions an
 * element, 2026-11-26). The elements are added in the same order either
 * way, so the bits do not depend on the pairing. */
static_assert(THREADS % 2 == 0, "gen_walk_run: an even step keeps e's parity");
template <int KIND, int MODE, bool NORMAL, class ACC>
__device__ static void gen_walk_run(const dprog &p, const gen_table &t, const dbox &b, long long i,
                                    long long hi, ACC &acc) {
  long long left = (hi - i + THREADS - 1) / THREADS, at = i; /* at: the element's box index */
  acc.counted(left);
  gen_walk w;
  gen_start(p, b, i, &w);
  long long step = p.leaf[0].e_coef[p.ndim - 1] * THREADS;
  for (;;) {
    long long inrow = (w.E - w.j + THREADS - 1) / THREADS, most = 1 << 30;
    int seg = (int)(inrow < left ? (inrow < most ? inrow : most) : (left < most ? left : most));
    /* step is even (THREADS is): within the row, e's parity stays and its
     * Philox counter e / 2 moves by step / 2 */
    unsigned long long q = (unsigned long long)w.e >> 1, qs = (unsigned long long)(step / 2);
    uint64_t odd = (uint64_t)w.e & 1;
    int c = 0;
    if (MODE == GEN)
      for (; c + 1 < seg; c += 2) {
        uint4 w0 = gen_words(p, q), w1 = gen_words(p, q + qs);
        double v0 = gen_value<NORMAL>(p, t, odd, w0), v1 = gen_value<NORMAL>(p, t, odd, w1);
        acc.put_at(v0, at);
        acc.put_at(v1, at + THREADS);
        q += 2 * qs, at += 2 * THREADS;
      }
    for (; c < seg; c++) {
      double v = gen_value<NORMAL>(p, t, odd, gen_words(p, q));
      acc.put_at(MODE == GEN_REST ? gen_rest(p, v) : v, at);
      q += qs, at += THREADS;
    }
    left -= seg;
    if (left == 0) break;
    gen_next(p, b, (long long)seg * THREADS, &w);
  }
}

/* The thread's elements of a 2-D box (or a 1-D one) as one stream, for GEN:
 * where a row is at least THREADS long, a step of THREADS elements crosses
 * at most one row's end, and the element index then moves by
 * wrap = e_coef[0] + e_coef[1] (THREADS - E) instead of e_coef[1] THREADS.
 * With both moves even, the parity of e (sin or cos, which words) is the
 * thread's and each element's Philox counter moves by half of them: a
 * step is a compare and two selects, and an iteration's elements may
 * straddle row ends. gen_walk_run's rows, each with its own set-up and its
 * odd last element taken alone, cost W2 14 instructions an element outside
 * its pair loop (ncu, 2026-11-26 21:46); here only the thread's last
 * GEN_WIDTH - 1 elements or fewer are outside the loop. The same elements
 * in the same order: the same bits. gen_stream_fit says where it applies
 * (the same for the whole box).
 *
 * GEN_WIDTH elements an iteration, their Philox words computed an
 * iteration ahead (GEN_SKEW), at 2 blocks of THREADS per SM (GEN_MIN_BLOCKS:
 * 124 registers): W1 on one H200 (bench/RESULTS.md, 2026-11-26 22:17),
 * pairs at 3 blocks 0.474 s, at 2 blocks 0.471 s, with the words ahead
 * 0.480 s; quads at 3 blocks 0.479 s, at 2 blocks 0.465 s, with the words
 * ahead 0.460 s. */
#ifndef GEN_STREAM
#define GEN_STREAM 1
#endif
#ifndef GEN_SKEW
#define GEN_SKEW 1
#endif
#ifndef GEN_WIDTH
#define GEN_WIDTH 4
#endif
__device__ static inline bool gen_stream_fit(const dprog &p, const dbox &b) {
  if (p.ndim < 1 || p.ndim > 2 || b.extent[p.ndim - 1] >= (1LL << 30)) return false;
  if (p.ndim == 1) return true; /* one row: no step crosses its end */
  long long E = b.extent[1], c1 = p.leaf[0].e_coef[1], c0 = p.leaf[0].e_coef[0];
  return E >= THREADS && ((c0 + c1 * (THREADS - E)) & 1) == 0;
}
template <int KIND, bool NORMAL, class ACC>
__device__ static void gen_stream_run(const dprog &p, const gen_table &t, const dbox &b,
                                      long long i, long long hi, ACC &acc) {
  long long left = (hi - i + THREADS - 1) / THREADS;
  acc.counted(left);
  gen_walk w;
  gen_start(p, b, i, &w);
  long long c1 = p.leaf[0].e_coef[p.ndim - 1], c0 = p.ndim == 2 ? p.leaf[0].e_coef[0] : 0;
  unsigned E = (unsigned)w.E, j = (unsigned)w.j;
  unsigned long long q = (unsigned long long)w.e >> 1;
  unsigned long long qs = (unsigned long long)(c1 * (THREADS / 2));
  unsigned long long qw = (unsigned long long)((c0 + c1 * (THREADS - (long long)E)) / 2);
  uint64_t odd = (uint64_t)w.e & 1;
#define GEN_STEP()        \
  do {                    \
    j += THREADS;         \
    bool wrap = j >= E;   \
    j = wrap ? j - E : j; \
    q += wrap ? qw : qs;  \
  } while (0)
  /* nw: the next iteration's words (GEN_SKEW) */
  uint4 nw[GEN_WIDTH];
  if (GEN_SKEW) {
#pragma unroll
    for (int u = 0; u < GEN_WIDTH; u++) {
      nw[u] = gen_words(p, q);
      GEN_STEP();
    }
  }
  for (long long k = left / GEN_WIDTH; k > 0; k--) {
    uint4 cw[GEN_WIDTH];
#pragma unroll
    for (int u = 0; u < GEN_WIDTH; u++) {
      if (GEN_SKEW) {
        cw[u] = nw[u];
        nw[u] = gen_words(p, q);
      } else {
        cw[u] = gen_words(p, q);
      }
      GEN_STEP();
    }
    double v[GEN_WIDTH];
#pragma unroll
    for (int u = 0; u < GEN_WIDTH; u++) v[u] = gen_value<NORMAL>(p, t, odd, cw[u]);
#pragma unroll
    for (int u = 0; u < GEN_WIDTH; u++) acc.put(v[u]);
  }
  int rest = (int)(left % GEN_WIDTH);
#pragma unroll
  for (int u = 0; u < GEN_WIDTH - 1; u++)
    if (u < rest) {
      if (GEN_SKEW) {
        acc.put(gen_value<NORMAL>(p, t, odd, nw[u]));
      } else {
        acc.put(gen_value<NORMAL>(p, t, odd, gen_words(p, q)));
        GEN_STEP();
      }
    }
#undef GEN_STEP
}

/* GEN kernels run 2 blocks of THREADS per SM (124 registers: gen_stream_run's
 * quads and the next quad's words; before it, gen_walk_run's pairs ran 3
 * blocks at 78), GEN_REST ones were at 4 (64 registers; left alone they take 68 and
 * fit 3): W1 0.627 -> 0.617 s on an H200 with the one-element loop; 5 blocks
 * (51 registers, more stack) was slower, 0.646 s (bench/RESULTS.md,
 * 2026-11-26 15:30). With dag programs (the where row) the 64 registers
 * spilled 152 bytes beside dag_rest's register file; with the cheap rows
 * of the elementwise table inline and the rest behind a call
 * (gpu_prog.cuh, ew_binary_dev) 36; at 3 blocks (78 registers) none. */
#ifndef GEN_MIN_BLOCKS
#define GEN_MIN_BLOCKS 2
#endif
#define MIN_BLOCKS(MODE) ((MODE) == GEN ? GEN_MIN_BLOCKS : (MODE) == GEN_REST ? 3 : 1)
template <int KIND, int MODE, bool SLICED>
__global__ void __launch_bounds__(THREADS, MIN_BLOCKS(MODE))
    reduce_full_kernel(const __grid_constant__ dprog p, const dbox *boxes, const long long *counts,
                       const int *nparts, tsr_stat *out, long long out_stride, slice_args sl) {
  __shared__ tsr_stat part[THREADS];
  __shared__ double shift;
  __shared__ gen_table table;
  if (MODE >= GEN) gen_table_fill(&table);
  int chunk = blockIdx.y, t = threadIdx.x;
  int nb = nparts[chunk];
  accum<KIND> acc;
  if (SLICED && sl.j0 > 0)
    acc.load(sl.state[((long long)chunk * gridDim.x + blockIdx.x) * THREADS + t]);
  if (MOMENTS(KIND)) { /* the block's first element, the same in every slice */
    if (t == 0) {
      shift = 0.0;
      long long n = counts[chunk], lo = n * blockIdx.x / nb;
      if ((int)blockIdx.x < nb && lo < n * (blockIdx.x + 1) / nb) {
        long long idx0[TSR_MAXDIM];
        box_coords(boxes[chunk], p.ndim, lo, idx0);
        shift = element<MODE != 0>(p, idx0);
      }
    }
    __syncthreads();
    acc.k = shift;
  }
  if ((int)blockIdx.x < nb) {
    long long n = counts[chunk];
    long long lo = n * blockIdx.x / nb, hi = n * (blockIdx.x + 1) / nb;
    const dbox &b = boxes[chunk];
    long long idx[TSR_MAXDIM];
    long long i = lo + t;
    if (SLICED) { /* this slice's iterations only */
      i += sl.j0 * THREADS;
      if (sl.j1 < (hi - lo + THREADS - 1) / THREADS + 1 && lo + t + sl.j1 * THREADS < hi)
        hi = lo + t + sl.j1 * THREADS;
    }
    if constexpr (MODE < GEN) { /* the element's index i in the box */
      if (i < hi) box_coords(b, p.ndim, i, idx);
      for (; i < hi; i += THREADS) {
        acc.add(element<MODE != 0>(p, idx), i);
        box_next(b, p.ndim, idx, THREADS);
      }
    } else if (MODE == GEN && GEN_STREAM && !INDEXED(KIND) && gen_stream_fit(p, b)) {
      if (i < hi && p.leaf[0].rng == RNG_NORMAL)
        gen_stream_run<KIND, true>(p, table, b, i, hi, acc);
      else if (i < hi)
        gen_stream_run<KIND, false>(p, table, b, i, hi, acc);
    } else {
      if (i < hi && p.leaf[0].rng == RNG_NORMAL)
        gen_walk_run<KIND, MODE, true>(p, table, b, i, hi, acc);
      else if (i < hi)
        gen_walk_run<KIND, MODE, false>(p, table, b, i, hi, acc);
    }
  }
  if (SLICED && !sl.last) {
    sl.state[((long long)chunk * gridDim.x + blockIdx.x) * THREADS + t] = acc.stat();
    return;
  }
  part[t] = acc.stat();
  __syncthreads();
  for (int s = THREADS / 2; s > 0; s >>= 1) {
    if (t < s) tree_merge<KIND>(&part[t], &part[t + s]);
    __syncthreads();
  }
  if (t == 0 && (int)blockIdx.x < nb)
    out[chunk * out_stride + blockIdx.x] = MOMENTS(KIND) ? block_moments(part[0], shift) : part[0];
}

/* The unsliced launches (every one of W1 and W2) run the kernel without
 * the slice logic: its index and state code cost 1.3% of W1 on an H200.
 * One kernel per row of kernel/red_table.h: the cases come from the rows
 * and there is no default, so a kind that is not a row is an error, never
 * another row's kernel (before, any kind not listed ran the std kernel). */
/* The kinds with kernels of their own for random chains (GEN, GEN_REST:
 * the paired Philox loops, the bulk of this file's compile time): W1's and
 * W2's, and argmax/argmin, whose walk gives each element its index in the
 * box (gen_walk_run's `at`; before, they ran element by element, 3.7x the
 * time of max over W2's array on an H100). The other rows run such
 * programs as CHAIN ones, element by element, which keeps the build at
 * eight kinds' kernels instead of fifteen (nvcc took over 9 minutes for
 * this file with every row in every mode). */
#define GEN_KIND(K)                                                                           \
  ((K) == RED_SUM || (K) == RED_MEAN || (K) == RED_MIN || (K) == RED_MAX || (K) == RED_VAR || \
   (K) == RED_STD || (K) == RED_ARGMAX || (K) == RED_ARGMIN)
template <int MODE, bool SLICED>
static int launch_kind(int kind, dim3 grid, const dprog &d, const dbox *b, const long long *c,
                       const int *np, tsr_stat *out, long long stride, slice_args sl) {
#define TSR_REDUCE_CASE(id, nm, monoid, flags, rd, doc)                            \
  case RED_##id:                                                                   \
    if constexpr (MODE >= GEN && !GEN_KIND(RED_##id)) {                            \
      return launch_kind<CHAIN, SLICED>(kind, grid, d, b, c, np, out, stride, sl); \
    } else {                                                                       \
      reduce_full_kernel<RED_##id, MODE, SLICED>                                   \
          <<<grid, THREADS, 0, STREAM>>>(d, b, c, np, out, stride, sl);            \
      return TSR_OK;                                                               \
    }
  switch ((tsr_red_kind)kind) {
    TSR_RED_TABLE(TSR_REDUCE_CASE)
  case RED_NKINDS:
    break;
  }
#undef TSR_REDUCE_CASE
  return TSR_ERROR(TSR_ERR_INTERNAL, "no CUDA reduction kernel for kind %d", kind);
}

template <int MODE>
static int launch_reduce_full(int kind, dim3 grid, const dprog &d, const dbox *b,
                              const long long *c, const int *np, tsr_stat *out, long long stride,
                              slice_args sl) {
  if (sl.state) return launch_kind<MODE, true>(kind, grid, d, b, c, np, out, stride, sl);
  return launch_kind<MODE, false>(kind, grid, d, b, c, np, out, stride, sl);
}

/* Axis reduction: one thread per element of the partial, walking the reduced
 * axis in order. */
__global__ void reduce_axis_kernel(const __grid_constant__ dprog p, dbox b, int axis, int kind,
                                   long long count, tsr_stat *out) {
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
    tsr_stat one = tsr_stat_of_one(kind, eval_element(p, idx), (double)k);
    tsr_stat_merge_inline(kind, &acc, &one);
  }
  out[o] = acc;
}

/* Blocks per chunk: a function of the chunk's size only (determinism). */
static int parts_for(long long n) {
  long long nb = (n + 65535) / 65536;
  return (int)(nb < 1 ? 1 : nb > 1024 ? 1024 : nb);
}

/* Device scratch for one launch of up to GROUP chunks: the boxes, element
 * counts and block counts (one device block, dbx/dcnt/dparts, filled by one
 * copy from its pinned image hbx/hcnt/hparts), and the blocks' partials
 * (dout, copied back into pinned hout). */
#define GROUP 64
#define MAX_PARTS 1024
/* Elements of one launch over several chunks (W1's and W2's 64 chunks of
 * 2.5e7 selected elements: 1.6e9, about 25 ms on an H200); a launch of one
 * chunk over SLICE_ELEMS is sliced to about SLICE_S of device time. */
#define GROUP_ELEMS (1LL << 31)
#define SLICE_ELEMS (1LL << 28)
#define SLICE_S 0.025
#define LAUNCH_IN_BYTES (GROUP * (sizeof(dbox) + sizeof(long long) + sizeof(int)))
#define LAUNCH_OUT_BYTES (sizeof(tsr_stat) * MAX_PARTS * GROUP)

struct launch_scratch {
  int slot; /* in scratch_cache; -1: none */
  dbox *dbx, *hbx;
  long long *dcnt, *hcnt;
  int *dparts, *hparts;
  tsr_stat *dout, *hout;
  cudaEvent_t done; /* recorded after the copy of the partials */
};

/* Launch scratch is cached (cudaMallocHost costs milliseconds): a few sets,
 * one per host thread working at a time. */
#define SCRATCH_SETS 32
static launch_scratch scratch_cache[SCRATCH_SETS];
static int scratch_busy[SCRATCH_SETS];
static pthread_mutex_t scratch_lock = PTHREAD_MUTEX_INITIALIZER;

static void scratch_destroy(launch_scratch *s) {
  if (s->dout) tsr_gpu_count_outside(-(long long)(LAUNCH_IN_BYTES + LAUNCH_OUT_BYTES));
  cudaFree(s->dbx);
  cudaFreeHost(s->hbx);
  cudaFree(s->dout);
  cudaFreeHost(s->hout);
  if (s->done) cudaEventDestroy(s->done);
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
  if (st == TSR_OK) st = CUDA_STATUS(cudaMalloc(&s->dout, LAUNCH_OUT_BYTES));
  if (st == TSR_OK) st = CUDA_STATUS(cudaMallocHost(&s->hout, LAUNCH_OUT_BYTES));
  if (st == TSR_OK) st = CUDA_STATUS(cudaEventCreateWithFlags(&s->done, cudaEventDisableTiming));
  if (st != TSR_OK)
    scratch_destroy(s);
  else /* outside the pool, in the summary's peak */
    tsr_gpu_count_outside((long long)(LAUNCH_IN_BYTES + LAUNCH_OUT_BYTES));
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

/* A set for this thread; wait 0: none (s->slot -1, TSR_OK) if all are taken. */
static int scratch_alloc(launch_scratch *s, int wait) {
  pthread_mutex_lock(&scratch_lock);
  int slot = -1;
  for (;;) {
    for (int i = 0; i < SCRATCH_SETS && slot < 0; i++)
      if (!scratch_busy[i]) slot = i;
    if (slot >= 0 || !wait) break;
    pthread_cond_wait(&scratch_free, &scratch_lock);
  }
  if (slot < 0) {
    pthread_mutex_unlock(&scratch_lock);
    memset(s, 0, sizeof *s);
    s->slot = -1;
    return TSR_OK;
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

/* The launch, then its launch error. */
static int launch_slice(const dprog *d, int kind, dim3 grid, launch_scratch *s, int maxparts,
                        slice_args sl) {
  int st;
  if (d->chain == GEN)
    st = launch_reduce_full<GEN>(kind, grid, *d, s->dbx, s->dcnt, s->dparts, s->dout, maxparts, sl);
  else if (d->chain == GEN_REST)
    st = launch_reduce_full<GEN_REST>(kind, grid, *d, s->dbx, s->dcnt, s->dparts, s->dout, maxparts,
                                      sl);
  else if (d->chain)
    st = launch_reduce_full<CHAIN>(kind, grid, *d, s->dbx, s->dcnt, s->dparts, s->dout, maxparts,
                                   sl);
  else
    st = launch_reduce_full<0>(kind, grid, *d, s->dbx, s->dcnt, s->dparts, s->dout, maxparts, sl);
  return st != TSR_OK ? st : CUDA_STATUS(cudaGetLastError());
}

/* One launch too long to wait for in one piece (a chunk of billions of
 * elements: Ctrl-C or a batch system's SIGTERM would wait for all of it),
 * as slices of each thread's iterations, the host waiting for each and
 * looking at the interrupt flag in between. A slice's length adapts to
 * SLICE_S of device time. Each thread still takes the same elements in the
 * same order, with its running state in device memory between slices, so
 * the partials have the bits of one launch. */
static int reduce_sliced(const dprog *d, int kind, dim3 grid, launch_scratch *s, int maxparts,
                         long long iters, long long elems) {
  double *state = NULL;
  size_t nstate = (size_t)grid.x * grid.y * THREADS * (sizeof(tsr_stat) / sizeof(double));
  TSR_CHECK(tsr_gpu_alloc(sizeof(double) * nstate, &state));
  long long step = (long long)SLICE_ELEMS * iters / (elems > 0 ? elems : 1);
  int st = TSR_OK;
  for (long long j = 0; j < iters && st == TSR_OK;) {
    if (step < 1) step = 1;
    long long j1 = iters - j <= step ? iters : j + step;
    int last = j1 == iters;
    double t0 = tsr_trace_now();
    st = launch_slice(d, kind, grid, s, maxparts,
                      slice_args{j, last ? LLONG_MAX : j1, (tsr_stat *)state, last});
    if (st == TSR_OK && !last) st = CUDA_STATUS(cudaStreamSynchronize(STREAM));
    if (st == TSR_OK && !last && tsr_interrupted())
      st = TSR_ERROR(TSR_ERR_INTERRUPTED, "interrupted");
    double dt = tsr_trace_now() - t0, f = dt > 0 ? SLICE_S / dt : 8.0;
    step = (long long)((double)step * (f > 8.0 ? 8.0 : f < 0.125 ? 0.125 : f));
    j = j1;
  }
  if (st != TSR_OK)
    cudaStreamSynchronize(STREAM); /* before the state goes back */
  else
    st = CUDA_STATUS(cudaStreamSynchronize(STREAM));
  tsr_gpu_release(state);
  return st;
}

/* A batch of boxes in flight: s->hbx[0..count) launched, their partials
 * coming back into s->hout (reduce_submit), combined by reduce_finish. */
struct reduce_job {
  int64_t count;
  int maxparts;
  long long elems;
  kernel_timer t;
};

/* The launch and its copies, queued on the thread's stream, the set's event
 * recorded after them; maxparts: the stride of the partials; iters: the
 * most iterations a thread makes. A sliced launch waits for each slice. On
 * failure the stream has been waited for (the set's pinned buffers may go
 * to another thread next). */
static int reduce_launch(const dprog *d, int kind, int64_t count, int maxparts, long long iters,
                         long long elems, launch_scratch *s, kernel_timer *t) {
  dim3 grid((unsigned)maxparts, (unsigned)count);
  int st =
      CUDA_STATUS(cudaMemcpyAsync(s->dbx, s->hbx, LAUNCH_IN_BYTES, cudaMemcpyHostToDevice, STREAM));
  if (st == TSR_OK) {
    timer_start(t);
    if (elems > SLICE_ELEMS && count == 1) {
      st = reduce_sliced(d, kind, grid, s, maxparts, iters, elems);
    } else {
      st = launch_slice(d, kind, grid, s, maxparts, slice_args{0, LLONG_MAX, NULL, 1});
    }
    timer_stop(t);
  }
  if (st == TSR_OK)
    st = CUDA_STATUS(cudaMemcpyAsync(s->hout, s->dout,
                                     sizeof(tsr_stat) * (size_t)maxparts * (size_t)count,
                                     cudaMemcpyDeviceToHost, STREAM));
  if (st == TSR_OK) st = CUDA_STATUS(cudaEventRecord(s->done, STREAM));
  if (st != TSR_OK) cudaStreamSynchronize(STREAM);
  return st;
}

/* Full reductions of up to GROUP boxes (s->hbx[0..count)) in one launch,
 * queued (reduce_finish waits for them and combines). Expected effect, per
 * --no-fuse chunk: three synchronous uploads (each waits for whatever the
 * thread queued before it) and a 24 KB download become one asynchronous
 * copy each way and the one wait the host needs for the partials; per fused
 * batch of 64 W1 chunks, the partials copied back shrink from MAX_PARTS to
 * the 382 blocks used per chunk (1.5 MB to 0.6 MB). The same partials
 * combined in the same order: the same bits. */
static int reduce_submit(const dprog *d, int kind, int ndim, int64_t count, launch_scratch *s,
                         reduce_job *job) {
  int maxparts = 1;
  long long elems = 0, iters = 0;
  for (int64_t i = 0; i < count; i++) {
    s->hcnt[i] = 1;
    for (int a = 0; a < ndim; a++) s->hcnt[i] *= s->hbx[i].extent[a];
    s->hparts[i] = parts_for(s->hcnt[i]);
    if (s->hparts[i] > maxparts) maxparts = s->hparts[i];
    elems += s->hcnt[i];
    long long per_block = (s->hcnt[i] + s->hparts[i] - 1) / s->hparts[i];
    long long it = (per_block + THREADS - 1) / THREADS;
    if (it > iters) iters = it;
  }
  *job = reduce_job{count, maxparts, elems, kernel_timer{}};
  return reduce_launch(d, kind, count, maxparts, iters, elems, s, &job->t);
}

/* Waits for a submitted batch (ok: its submission succeeded) and gives
 * box i its partial out[i]. */
static int reduce_finish(int ok, int kind, reduce_job *job, tsr_stat **out, launch_scratch *s,
                         tsr_progress_fn progress, void *ctx) {
  int st = ok ? CUDA_STATUS(cudaEventSynchronize(s->done)) : TSR_OK;
  /* chunks: batch launches only (--no-fuse's chunk spans count its chunks) */
  timer_end(&job->t, ok && st == TSR_OK,
            tsr_trace_args{-1, progress ? job->count : 0, job->elems, 0});
  if (!ok || st != TSR_OK) return st;
  for (int64_t i = 0; i < job->count; i++) {
    out[i][0] = tsr_stat_combine(kind, s->hout + (size_t)job->maxparts * (size_t)i, s->hparts[i]);
    if (progress) progress(ctx, s->hcnt[i]);
  }
  return TSR_OK;
}

static int reduce_boxes(const dprog *d, int kind, int ndim, int64_t count, tsr_stat **out,
                        launch_scratch *s) {
  reduce_job job;
  int st = reduce_submit(d, kind, ndim, count, s, &job);
  int fs = reduce_finish(st == TSR_OK, kind, &job, out, s, NULL, NULL);
  return st != TSR_OK ? st : fs;
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
      *d, tsr_gpu_make_box(d->ndim, start, extent), axis, kind, count, (tsr_stat *)dev);
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
  TSR_CHECK(tsr_gpu_prog_upload(bt->prog, &d));
  int st = TSR_OK;
  for (int64_t i = 0; i < bt->nchunks && st == TSR_OK && !tsr_interrupted(); i++) {
    int64_t idx[TSR_MAXDIM], start[TSR_MAXDIM], extent[TSR_MAXDIM], n = 1;
    tsr_grid_unravel(bt->grid, bt->ids[i], idx);
    tsr_grid_chunk_box(bt->grid, idx, start, extent);
    st = reduce_axis(&d, start, extent, bt->kind, bt->axis, bt->out[i]);
    for (int a = 0; a < bt->grid->ndim; a++) n *= extent[a];
    if (st == TSR_OK && bt->progress) bt->progress(bt->progress_ctx, n);
  }
  int rs = tsr_gpu_prog_release(&d);
  return st != TSR_OK ? st : rs;
}

/* Fills s->hbx with the batch's chunks from first on: up to GROUP a launch,
 * and no more elements than GROUP_ELEMS unless one chunk alone has them
 * (then it is sliced): a launch stays short enough for Ctrl-C; a chunk's
 * partials do not depend on its launch's company. Returns the count. */
static int64_t group_fill(const tsr_reduce_batch *bt, int64_t first, launch_scratch *s) {
  long long elems = 0;
  int64_t count = 0;
  for (; count < GROUP && first + count < bt->nchunks; count++) {
    int64_t idx[TSR_MAXDIM], start[TSR_MAXDIM], extent[TSR_MAXDIM], n = 1;
    tsr_grid_unravel(bt->grid, bt->ids[first + count], idx);
    tsr_grid_chunk_box(bt->grid, idx, start, extent);
    for (int a = 0; a < bt->grid->ndim; a++) n *= extent[a];
    if (count > 0 && elems + n > GROUP_ELEMS) break;
    elems += n;
    s->hbx[count] = tsr_gpu_make_box(bt->grid->ndim, start, extent);
  }
  return count;
}

/* The batch's launches two at a time where a second scratch set is free:
 * the next launch is queued before the host waits for this one, so the
 * GPU goes from one to the next without waiting for the host's copy,
 * combination and launch in between (W1: 40 launches and 21 ms between
 * them on an H200, 2026-11-26 21:45). At most two launches (~50 ms) are
 * queued when Ctrl-C comes. */
int tsr_gpu_reduce_chunks(const tsr_reduce_batch *bt) {
  tsr_gpu_bind_device();
  if (bt->axis >= 0) return reduce_chunks_axis(bt);
  dprog d;
  launch_scratch s[2];
  reduce_job job[2];
  TSR_CHECK(tsr_gpu_prog_upload(bt->prog, &d));
  int st = scratch_alloc(&s[0], 1), ndim = bt->grid->ndim;
  s[1].slot = -1;
  if (st == TSR_OK && scratch_alloc(&s[1], 0) != TSR_OK) { /* then one set */
    s[1].slot = -1;
    cudaGetLastError(); /* a failed allocation's error, which a launch check would see */
  }
  int64_t first[2] = {0, 0}, next = 0;
  int cur = 0, pending = 0; /* pending: s[cur] has a submitted batch */
  while (st == TSR_OK && !tsr_interrupted() && (pending || next < bt->nchunks)) {
    if (!pending) { /* the first launch, or one set only */
      first[cur] = next;
      next += group_fill(bt, next, &s[cur]);
      st = reduce_submit(&d, bt->kind, ndim, next - first[cur], &s[cur], &job[cur]);
      if (st != TSR_OK) break;
      pending = 1;
    }
    int other = cur ^ 1, two = 0;
    if (s[other].slot >= 0 && next < bt->nchunks && !tsr_interrupted()) {
      first[other] = next;
      next += group_fill(bt, next, &s[other]);
      st = reduce_submit(&d, bt->kind, ndim, next - first[other], &s[other], &job[other]);
      two = st == TSR_OK;
    }
    int fs = reduce_finish(1, bt->kind, &job[cur], bt->out + first[cur], &s[cur], bt->progress,
                           bt->progress_ctx);
    if (st == TSR_OK) st = fs;
    pending = two;
    if (two && st != TSR_OK) { /* the other launch still runs: wait for it */
      reduce_finish(1, bt->kind, &job[other], bt->out + first[other], &s[other], NULL, NULL);
      pending = 0;
    }
    cur = two ? other : cur;
  }
  if (pending) /* interrupted with a launch queued: wait before the sets go back */
    reduce_finish(1, bt->kind, &job[cur], bt->out + first[cur], &s[cur], NULL, NULL);
  scratch_release(&s[1]);
  scratch_release(&s[0]);
  int rs = tsr_gpu_prog_release(&d);
  return st != TSR_OK ? st : rs;
}

int tsr_gpu_reduce_box(const tsr_prog *p, const int64_t *start, const int64_t *extent, int kind,
                       int axis, tsr_stat *out) {
  tsr_gpu_bind_device();
  dprog d;
  TSR_CHECK(tsr_gpu_prog_upload(p, &d));
  int st = TSR_OK;
  if (axis >= 0) {
    st = reduce_axis(&d, start, extent, kind, axis, out);
  } else {
    launch_scratch s;
    st = scratch_alloc(&s, 1);
    if (st == TSR_OK) {
      s.hbx[0] = tsr_gpu_make_box(p->ndim, start, extent);
      st = reduce_boxes(&d, kind, p->ndim, 1, &out, &s);
    }
    scratch_release(&s);
  }
  int rs = tsr_gpu_prog_release(&d);
  return st != TSR_OK ? st : rs;
}

/* ---- histograms of a fused program (backend.h: hist_box) ---------------- */

/* The accumulator of a histogram: each element counted in its bin of the
 * shared kernel/hist.h, in this warp's copy of the bins in shared memory
 * (the walks above call put/put_at and counted as for a reduction). */
struct hist_accum {
  unsigned int *bins;
  const tsr_hist_axis *axis;
  long long outside;
  __device__ void put(double x) {
    long long b = tsr_hist_bin(axis, x);
    atomicAdd(&bins[b < 0 ? outside : b], 1u);
  }
  __device__ void put_at(double x, long long) { put(x); }
  __device__ void add(double x, long long = 0) { put(x); }
  __device__ void counted(long long) {}
};

#define HIST_COPIES 8     /* copies of the bins a CTA keeps (one a warp) */
#define HIST_SHARED 40960 /* bytes of them at most (TSR_HIST_FUSED_BINS + 1 once) */
#define HIST_CTAS 1056    /* CTAs a box at most: each adds its bins once */

/* The box's elements split over the CTAs in contiguous ranges, thread t of
 * a CTA taking every THREADS-th from its start, as reduce_full_kernel
 * does (the same walks: a random chain's Philox stream is generated where
 * it is binned); the copies of the bins then added to the box's counts.
 * Counts are integers: the order of the adds does not matter. */
template <int MODE>
__global__ void __launch_bounds__(THREADS, MIN_BLOCKS(MODE))
    hist_box_kernel(const __grid_constant__ dprog p, dbox b, long long n, tsr_hist h, int copies,
                    unsigned long long *counts) {
  extern __shared__ unsigned int hist_bins[];
  __shared__ gen_table table;
  if (MODE >= GEN) gen_table_fill(&table);
  long long slots = h.nbins + 1;
  int t = threadIdx.x;
  for (long long k = t; k < slots * copies; k += THREADS) hist_bins[k] = 0;
  __syncthreads();
  hist_accum acc{hist_bins + (t / 32 % copies) * slots, &h.axis[0], h.nbins};
  long long lo = n * blockIdx.x / gridDim.x, hi = n * (blockIdx.x + 1) / gridDim.x;
  long long i = lo + t;
  if constexpr (MODE < GEN) {
    long long idx[TSR_MAXDIM];
    if (i < hi) box_coords(b, p.ndim, i, idx);
    for (; i < hi; i += THREADS) {
      acc.put(element<MODE != 0>(p, idx));
      box_next(b, p.ndim, idx, THREADS);
    }
  } else if (MODE == GEN && GEN_STREAM && gen_stream_fit(p, b)) {
    if (i < hi && p.leaf[0].rng == RNG_NORMAL)
      gen_stream_run<RED_SUM, true>(p, table, b, i, hi, acc);
    else if (i < hi)
      gen_stream_run<RED_SUM, false>(p, table, b, i, hi, acc);
  } else {
    if (i < hi && p.leaf[0].rng == RNG_NORMAL)
      gen_walk_run<RED_SUM, MODE, true>(p, table, b, i, hi, acc);
    else if (i < hi)
      gen_walk_run<RED_SUM, MODE, false>(p, table, b, i, hi, acc);
  }
  __syncthreads();
  for (long long k = t; k < slots; k += THREADS) {
    unsigned long long sum = 0;
    for (int c = 0; c < copies; c++) sum += hist_bins[c * slots + k];
    if (sum) atomicAdd(&counts[k], sum);
  }
}

int tsr_gpu_hist_box(const tsr_prog *prog, int64_t nbox, const int64_t *start,
                     const int64_t *extent, const tsr_hist *h, double *out) {
  if (h->ndim != 1) return TSR_ERROR(TSR_ERR_INTERNAL, "a fused histogram of %d axes", h->ndim);
  tsr_gpu_bind_device();
  long long slots = h->nbins + 1, total = slots * nbox;
  int copies = HIST_COPIES;
  while (copies > 1 && (long long)copies * slots * 4 > HIST_SHARED) copies /= 2;
  if ((long long)copies * slots * 4 > HIST_SHARED)
    return TSR_ERROR(TSR_ERR_INTERNAL, "a fused histogram of %lld bins", (long long)h->nbins);
  dprog d;
  TSR_CHECK(tsr_gpu_prog_upload(prog, &d));
  long long nedges = h->axis[0].edges ? h->axis[0].nb + 1 : 0;
  double *mem = NULL;
  int st = tsr_gpu_alloc(
      sizeof(unsigned long long) * (size_t)total + sizeof(double) * (size_t)(nedges + 1), &mem);
  unsigned long long *counts = (unsigned long long *)mem, *host = NULL;
  tsr_hist dh = *h; /* its edges on the device */
  if (st == TSR_OK) {
    double *edges = (double *)(counts + total);
    st =
        CUDA_STATUS(cudaMemsetAsync(counts, 0, sizeof(unsigned long long) * (size_t)total, STREAM));
    if (st == TSR_OK && nedges)
      st = CUDA_STATUS(cudaMemcpyAsync(edges, h->axis[0].edges, sizeof(double) * (size_t)nedges,
                                       cudaMemcpyHostToDevice, STREAM));
    dh.axis[0].edges = nedges ? edges : NULL;
    host = (unsigned long long *)malloc(sizeof(unsigned long long) * (size_t)total);
    if (st == TSR_OK && !host) st = TSR_ERROR(TSR_ERR_MEMORY, "out of memory for a histogram");
  }
  long long elems = 0;
  kernel_timer kt;
  timer_start(&kt);
  for (int64_t k = 0; k < nbox && st == TSR_OK; k++) { /* queued one after another */
    const int64_t *bs = start + k * TSR_MAXDIM, *be = extent + k * TSR_MAXDIM;
    long long n = 1;
    for (int a = 0; a < prog->ndim; a++) n *= be[a];
    if (n <= 0) continue;
    elems += n;
    long long ctas = (n + THREADS * 16 - 1) / (THREADS * 16);
    dim3 grid((unsigned)(ctas < 1 ? 1 : ctas > HIST_CTAS ? HIST_CTAS : ctas));
    size_t shared = (size_t)copies * (size_t)slots * 4;
    dbox b = tsr_gpu_make_box(prog->ndim, bs, be);
    unsigned long long *c = counts + k * slots;
    if (d.chain == GEN)
      hist_box_kernel<GEN><<<grid, THREADS, shared, STREAM>>>(d, b, n, dh, copies, c);
    else if (d.chain == GEN_REST)
      hist_box_kernel<GEN_REST><<<grid, THREADS, shared, STREAM>>>(d, b, n, dh, copies, c);
    else if (d.chain)
      hist_box_kernel<CHAIN><<<grid, THREADS, shared, STREAM>>>(d, b, n, dh, copies, c);
    else
      hist_box_kernel<0><<<grid, THREADS, shared, STREAM>>>(d, b, n, dh, copies, c);
    st = CUDA_STATUS(cudaGetLastError());
  }
  timer_stop(&kt);
  if (st == TSR_OK)
    st = CUDA_STATUS(cudaMemcpyAsync(host, counts, sizeof(unsigned long long) * (size_t)total,
                                     cudaMemcpyDeviceToHost, STREAM));
  int ws = CUDA_STATUS(cudaStreamSynchronize(STREAM)); /* before the memory goes back */
  if (st == TSR_OK) st = ws;
  timer_end(&kt, st == TSR_OK, tsr_trace_args{-1, nbox, elems, 0});
  if (st == TSR_OK)
    for (long long k = 0; k < total; k++) out[k] += (double)host[k];
  free(host);
  if (mem) tsr_gpu_release(mem);
  int rs = tsr_gpu_prog_release(&d);
  return st != TSR_OK ? st : rs;
}

size_t tsr_gpu_eval_min_memory(void) { return LAUNCH_OUT_BYTES * 2; }

void tsr_gpu_eval_stop(void) {
  for (int i = 0; i < SCRATCH_SETS; i++)
    if (scratch_cache[i].dout) scratch_destroy(&scratch_cache[i]);
}
