/*
 * gpu_scan.cu - the CUDA backend's scan ops (backend.h: scan, scan_carry)
 * with the shared scalar tsr_ew_binary (kernel/ew_scalar.h). Few long
 * lines (a 1-d chunk, a flattened scan, a tall chunk of few columns) are
 * scanned in tiles combined in a fixed order (scan_tiled), so a chunk gives
 * the same bits on every call; many lines run one thread per line,
 * sequentially along the axis, consecutive threads on consecutive inner
 * values (coalesced).
 * Everything runs on the calling thread's stream and is complete on return,
 * but for a tiled scan's last step, which waits for scan_carry (called on
 * the main thread after the workers' scans: their kernels are complete).
 * scan_box generates a random chain's tiles where it scans them.
 */
#include <cuda_runtime.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>

extern "C" {
#include "util/error.h"
#include "util/grow.h"
}
#include "gpu/gpu_check.h"
#include "gpu/gpu_device.h"
#include "gpu/gpu_linalg.h"
#include "gpu/gpu_prog.cuh" /* scan_box's generated tiles; THREADS */
#include "kernel/dtype.h"
#include "kernel/ew_scalar.h"

__global__ static void lines_kernel(long long outer, long long len, long long inner, double *a,
                                    int op, double identity, int nan) {
  long long lines = outer * inner;
  for (long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x; t < lines;
       t += (long long)gridDim.x * blockDim.x) {
    double *p = a + (t / inner) * len * inner + t % inner, acc = 0.0;
    for (long long l = 0; l < len; l++) {
      double v = p[l * inner];
      if (nan && v != v) v = identity;
      acc = l ? tsr_ew_binary(op, acc, v) : v;
      p[l * inner] = acc;
    }
  }
}

/* Long lines in tiles, in a fixed order (CUB's DeviceScan combines its
 * look-back in an order that depends on timing, so its float results vary
 * from run to run): each tile of TILE values of a line is scanned by one
 * block (tile_kernel: the tile read into shared memory, every thread scans
 * ITEMS consecutive values, the threads' totals combined in thread order by
 * one thread); one block per line scans its tiles' totals (tiles_kernel: a
 * contiguous run of tiles a thread, the runs' totals combined in order by
 * one thread); each tile after the first then needs the inclusive total of
 * the tiles before it (finish_kernel). Line y (blockIdx.y) is a[o, ., i] for
 * y = o inner + i.
 *
 * The last step waits for scan_carry (backend.h): the chunk's carry from
 * the chunks before it and its cast are applied in the same pass, so a
 * value is read and written twice in all instead of three times (1e9
 * values: 48 GB of traffic down to 32). The chunk's last line, which
 * exec/scan.c reads between the two calls, is completed by tiles_kernel. */
#define ITEMS 16
#define TILE (THREADS * ITEMS)
/* shared-memory slot of value k of a tile: one pad every ITEMS values, so
 * that a warp's threads, ITEMS values apart, fall in different banks */
#define SLOT(k) ((k) + (k) / ITEMS)

__device__ static double *line_at(double *a, long long len, long long inner, long long y) {
  return a + (y / inner) * len * inner + y % inner;
}

/* The tile in shared memory (n values) scanned, after each thread has
 * scanned its ITEMS values in place and left their total in tot[t]
 * (thread_scan, or tile_gen_kernel as it generates them): lane g of warp 0
 * scans the totals of threads 8g .. 8g+7 in order, lane 0 the 32 groups'
 * totals in order, and each thread after the first gets the exclusive
 * prefix of the threads before it (one thread scanning all 256 totals kept
 * the others waiting: 256 dependent steps a tile, against 8 + 32 + 8). The
 * tile's total is its last value: agg. */
#define GROUP 8
static_assert(THREADS == 32 * GROUP, "tile_prefix: one warp's lanes take the threads' totals");
__device__ static void tile_prefix(double *s, double *tot, double *gtot, int n, int op,
                                   double *agg) {
  int t = threadIdx.x, lo = t * ITEMS, hi = lo + ITEMS < n ? lo + ITEMS : n;
  __syncthreads();
  int used = (n + ITEMS - 1) / ITEMS;
  if (t < 32) {
    int g0 = t * GROUP, g1 = g0 + GROUP < used ? g0 + GROUP : used;
    double run = 0.0;
    for (int u = g0; u < g1; u++) /* the group's inclusive scan, in place */
      tot[u] = run = u > g0 ? ew_binary_dev(op, run, tot[u]) : tot[u];
    gtot[t] = run;
    __syncwarp();
    if (t == 0) { /* the groups' exclusive prefixes, in order */
      int groups = (used + GROUP - 1) / GROUP;
      double r = gtot[0];
      for (int g = 1; g < groups; g++) {
        double here = gtot[g];
        gtot[g] = r;
        r = ew_binary_dev(op, r, here);
      }
    }
    __syncwarp();
    /* the threads' exclusive prefixes (thread 0 has none) */
    for (int u = g1 - 1; u > g0; u--)
      tot[u] = t ? ew_binary_dev(op, gtot[t], tot[u - 1]) : tot[u - 1];
    if (t > 0 && g0 < g1) tot[g0] = gtot[t];
  }
  __syncthreads();
  if (t > 0)
    for (int k = lo; k < hi; k++) s[SLOT(k)] = ew_binary_dev(op, tot[t], s[SLOT(k)]);
  if (lo < n && hi == n) *agg = s[SLOT(n - 1)];
  __syncthreads();
}

/* Each thread's ITEMS consecutive values of the tile scanned in place. */
__device__ static void thread_scan(double *s, double *tot, int n, int op) {
  int t = threadIdx.x, lo = t * ITEMS, hi = lo + ITEMS < n ? lo + ITEMS : n;
  double acc = 0.0;
  for (int k = lo; k < hi; k++)
    s[SLOT(k)] = acc = k > lo ? ew_binary_dev(op, acc, s[SLOT(k)]) : s[SLOT(k)];
  tot[t] = acc;
}

__global__ static void tile_kernel(long long len, long long inner, double *a, int op,
                                   double identity, int nan, double *agg) {
  __shared__ double s[SLOT(TILE)];
  __shared__ double tot[THREADS], gtot[32];
  long long tiles = (len + TILE - 1) / TILE, base = (long long)blockIdx.x * TILE;
  double *p = line_at(a, len, inner, blockIdx.y);
  int n = (int)(len - base < TILE ? len - base : TILE), t = threadIdx.x;
  for (int k = t; k < n; k += THREADS) {
    double v = p[(base + k) * inner];
    s[SLOT(k)] = nan && v != v ? identity : v;
  }
  __syncthreads();
  thread_scan(s, tot, n, op);
  tile_prefix(s, tot, gtot, n, op, &agg[blockIdx.y * tiles + blockIdx.x]);
  for (int k = t; k < n; k += THREADS) p[(base + k) * inner] = s[SLOT(k)];
}

/* A generated value of the tile: the program's, NaN read as identity when
 * nan is set. */
template <bool NORMAL>
__device__ static inline double gen_one(const dprog &p, const gen_table &table, uint64_t odd,
                                        uint4 words, int nan, double identity) {
  double v = gen_value<NORMAL>(p, table, odd, words);
  if (p.chain == GEN_REST) v = gen_rest(p, v);
  return nan && v != v ? identity : v;
}

/* tile_kernel for scan_box: each thread generates its ITEMS consecutive
 * values of the tile (a GEN or GEN_REST program, gpu_prog.cuh, with the
 * full reductions' walk and arithmetic: eval_box's bits) and scans them as
 * it goes, instead of reading them; lines of the box's last axis (inner is
 * 1: line y is the box's elements y len .. y len + len - 1). Where the
 * values are consecutive elements of the leaf from an even one, each pair
 * comes from one Philox call and one log and square root (the compiler
 * shares them between the pair's two gen_value calls, which read the same
 * words), as eval_kernel's pairs do: the walk one element a thread took
 * 1.33-1.45 ms a 10^8 chunk on an H200, the generation alone 0.75 ms. */
template <bool NORMAL>
__global__ static void tile_gen_kernel(const __grid_constant__ dprog p, dbox b, long long len,
                                       double *a, int op, double identity, int nan, double *agg) {
  __shared__ double s[SLOT(TILE)];
  __shared__ double tot[THREADS], gtot[32];
  __shared__ gen_table table;
  gen_table_fill(&table);
  long long tiles = (len + TILE - 1) / TILE, base = (long long)blockIdx.x * TILE;
  double *out = a + (long long)blockIdx.y * len;
  int n = (int)(len - base < TILE ? len - base : TILE), t = threadIdx.x;
  int lo = t * ITEMS, cnt = lo < n ? (n - lo < ITEMS ? n - lo : ITEMS) : 0;
  double acc = 0.0;
  if (cnt > 0) {
    gen_walk w;
    gen_start(p, b, (long long)blockIdx.y * len + base + lo, &w);
    if (p.leaf[0].e_coef[p.ndim - 1] == 1 && !(w.e & 1) && w.j + cnt <= w.E) {
      unsigned long long q = (unsigned long long)w.e >> 1;
      for (int k = 0; k < cnt; k += 2, q++) {
        uint4 words = gen_words(p, q);
        double v0 = gen_one<NORMAL>(p, table, 0, words, nan, identity);
        double v1 = gen_one<NORMAL>(p, table, 1, words, nan, identity);
        s[SLOT(lo + k)] = acc = k ? ew_binary_dev(op, acc, v0) : v0;
        if (k + 1 < cnt) s[SLOT(lo + k + 1)] = acc = ew_binary_dev(op, acc, v1);
      }
    } else {
      for (int k = 0; k < cnt; k++) {
        double v = gen_one<NORMAL>(p, table, (uint64_t)w.e & 1,
                                   gen_words(p, (unsigned long long)w.e >> 1), nan, identity);
        s[SLOT(lo + k)] = acc = k ? ew_binary_dev(op, acc, v) : v;
        if (k + 1 < cnt) gen_next(p, b, 1, &w);
      }
    }
  }
  tot[t] = acc;
  tile_prefix(s, tot, gtot, n, op, &agg[blockIdx.y * tiles + blockIdx.x]);
  for (int k = t; k < n; k += THREADS) out[base + k] = s[SLOT(k)];
}

/* One block a line: agg[y, .] becomes the inclusive scan of the tile
 * totals, and the line's last value gets the tiles before its tile. */
#define TT 1024
__global__ static void tiles_kernel(long long len, long long inner, double *a, long long tiles,
                                    double *agg, int op) {
  __shared__ double tot[TT];
  double *g = agg + blockIdx.y * tiles;
  long long per = (tiles + TT - 1) / TT, lo = threadIdx.x * per;
  long long hi = lo + per < tiles ? lo + per : tiles;
  double acc = 0.0;
  for (long long k = lo; k < hi; k++) g[k] = acc = k > lo ? tsr_ew_binary(op, acc, g[k]) : g[k];
  tot[threadIdx.x] = acc;
  __syncthreads();
  if (threadIdx.x == 0) {
    long long used = (tiles + per - 1) / per;
    double run = tot[0];
    for (long long u = 1; u < used; u++) {
      double here = tot[u];
      tot[u] = run;
      run = tsr_ew_binary(op, run, here);
    }
  }
  __syncthreads();
  if (threadIdx.x > 0)
    for (long long k = lo; k < hi; k++) g[k] = tsr_ew_binary(op, tot[threadIdx.x], g[k]);
  __syncthreads();
  if (threadIdx.x == 0) { /* the last value: tile (len - 1) / TILE's prefix */
    long long last = (len - 1) / TILE;
    double *p = line_at(a, len, inner, blockIdx.y) + (len - 1) * inner;
    if (last > 0) *p = tsr_ew_binary(op, g[last - 1], *p);
  }
}

/* a[k] = f(k, a[k]) for k < n, grid-stride, with UNROLL loads of a thread
 * issued before any is used (one at a time left the carry pass of a 10^8
 * chunk at 0.78 ms on an H200, 2.0 TB/s: a load a thread, even at full
 * occupancy, is too little in flight for HBM3e; with four, 0.665 ms; with
 * eight, ten chunks side by side 5.0 ms, 0.50 ms each. Sixteen, as eight
 * 16-byte loads, took the whole scan 1.3 ms longer: bench/RESULTS.md
 * 2026-11-28 13:37). */
#define UNROLL 8
template <class F> __device__ static inline void each_unrolled(double *a, long long n, F f) {
  long long stride = (long long)gridDim.x * blockDim.x;
  for (long long k0 = (long long)blockIdx.x * blockDim.x + threadIdx.x; k0 < n;
       k0 += UNROLL * stride) {
    double v[UNROLL];
#pragma unroll
    for (int u = 0; u < UNROLL; u++)
      if (k0 + u * stride < n) v[u] = a[k0 + u * stride];
#pragma unroll
    for (int u = 0; u < UNROLL; u++)
      if (k0 + u * stride < n) a[k0 + u * stride] = f(k0 + u * stride, v[u]);
  }
}
template <int OP> __device__ static inline double scan_op(int op, double x, double y) {
  return OP >= 0 ? tsr_ew_binary(OP, x, y) : ew_binary_dev(op, x, y);
}
/* The last step of a tiled scan with the chunk's carry and cast: slab o
 * (blockIdx.y) of the chunk, element (l, i) at k = l inner + i; the values
 * of the first tile and the already complete last value get no prefix.
 * OP: the operation as a constant where it is one of the common ones (the
 * switch then folds away: two indirect branches an element fewer), else -1
 * and op; INNER1: lines of inner 1, whose index math is the element's own
 * (the carry one value a slab). */
template <int OP, bool INNER1>
__global__ static void __launch_bounds__(THREADS, 4)
    finish_kernel(long long len, long long inner, double *a, int op, const double *agg,
                  long long tiles, const double *carry, int dtype) {
  const double *g = agg + (long long)blockIdx.y * inner * tiles;
  double c1 = INNER1 && carry ? carry[blockIdx.y] : 0.0;
  each_unrolled(a + blockIdx.y * len * inner, len * inner, [&](long long k, double w) {
    long long l = INNER1 ? k : k / inner, i = INNER1 ? 0 : k - l * inner;
    if (l >= TILE && l != len - 1) w = scan_op<OP>(op, g[i * tiles + l / TILE - 1], w);
    if (carry) w = scan_op<OP>(op, w, INNER1 ? c1 : carry[blockIdx.y * inner + i]);
    return dtype == TSR_F64 ? w : tsr_dtype_cast(w, dtype);
  });
}

template <int OP>
static void launch_finish(long long outer, long long len, long long inner, double *a, int op,
                          const double *agg, long long tiles, const double *carry, int dtype) {
  dim3 grid(tsr_gpu_grid_for((len * inner + UNROLL - 1) / UNROLL, THREADS), (unsigned)outer);
  if (inner == 1)
    finish_kernel<OP, true>
        <<<grid, THREADS, 0, cudaStreamPerThread>>>(len, inner, a, op, agg, tiles, carry, dtype);
  else
    finish_kernel<OP, false>
        <<<grid, THREADS, 0, cudaStreamPerThread>>>(len, inner, a, op, agg, tiles, carry, dtype);
}

/* Tiled scans whose last step waits for scan_carry: the chunk's pointer,
 * shape and tile totals (pool memory). exec/scan.c calls scan_carry for
 * every chunk scanned (on its main thread; the scans ran on the workers
 * and waited for their kernels). */
typedef struct {
  double *a, *agg;
  long long outer, len, inner;
} pending_scan;
static pending_scan *pending;
static int64_t npending, pending_cap;
static pthread_mutex_t pending_lock = PTHREAD_MUTEX_INITIALIZER;

static int pending_put(pending_scan ps) {
  pthread_mutex_lock(&pending_lock);
  int st = TSR_OK;
  for (int64_t k = 0; k < npending; k++)
    if (pending[k].a == ps.a) { /* a buffer scanned again before its carry */
      tsr_gpu_release(pending[k].agg);
      pending[k] = pending[--npending];
      break;
    }
  st = tsr_grow((void **)&pending, &pending_cap, npending + 1, sizeof *pending,
                "for the GPU scans' tile totals");
  if (st == TSR_OK) pending[npending++] = ps;
  pthread_mutex_unlock(&pending_lock);
  return st;
}

static int pending_take(double *a, pending_scan *out) {
  pthread_mutex_lock(&pending_lock);
  int found = 0;
  for (int64_t k = 0; k < npending && !found; k++)
    if (pending[k].a == a) {
      *out = pending[k];
      pending[k] = pending[--npending];
      found = 1;
    }
  pthread_mutex_unlock(&pending_lock);
  return found;
}

/* Lines (outer x inner, fewer than 65536) of len values in tiles; the last
 * step is left to scan_carry when the tiles are more than one. gen: the
 * tiles generated from that program over box b (inner is 1), else read. */
static int scan_tiled(long long outer, long long len, long long inner, double *a, int op,
                      double identity, int nan, const dprog *gen, const dbox *b) {
  long long tiles = (len + TILE - 1) / TILE, lines = outer * inner;
  double *agg = NULL;
  if (tiles > INT_MAX) return TSR_ERROR(TSR_ERR_BACKEND, "GPU scan of %lld values: too long", len);
  TSR_CHECK(tsr_gpu_alloc(sizeof(double) * (size_t)(tiles * lines), &agg));
  dim3 grid((unsigned)tiles, (unsigned)lines);
  if (gen && gen->leaf[0].rng == RNG_NORMAL)
    tile_gen_kernel<true>
        <<<grid, THREADS, 0, cudaStreamPerThread>>>(*gen, *b, len, a, op, identity, nan, agg);
  else if (gen)
    tile_gen_kernel<false>
        <<<grid, THREADS, 0, cudaStreamPerThread>>>(*gen, *b, len, a, op, identity, nan, agg);
  else
    tile_kernel<<<grid, THREADS, 0, cudaStreamPerThread>>>(len, inner, a, op, identity, nan, agg);
  if (tiles > 1)
    tiles_kernel<<<dim3(1, (unsigned)lines), TT, 0, cudaStreamPerThread>>>(len, inner, a, tiles,
                                                                           agg, op);
  int st = tsr_gpu_finish("scan");
  if (st == TSR_OK && tiles > 1) {
    st = pending_put(pending_scan{a, agg, outer, len, inner});
    if (st == TSR_OK) return TSR_OK;
  }
  tsr_gpu_release(agg);
  return st;
}

/* Few lines but long ones: tiles keep the GPU busy; else one thread a line. */
#define FEW_LINES 4096

extern "C" int tsr_gpu_scan(int64_t outer, int64_t len, int64_t inner, double *a, int op,
                            double identity, int nan) {
  tsr_gpu_bind_device();
  long long lines = outer * inner;
  if (lines < FEW_LINES && len > TILE)
    return scan_tiled(outer, len, inner, a, op, identity, nan, NULL, NULL);
  lines_kernel<<<tsr_gpu_grid_for(outer * inner, THREADS), THREADS, 0, cudaStreamPerThread>>>(
      outer, len, inner, a, op, identity, nan);
  return tsr_gpu_finish("scan");
}

/* eval_box + scan, in one pass for the tiled lines along the box's last
 * axis (inner 1) of a random chain (GEN, GEN_REST): its tiles are generated
 * where they are scanned, so the input is never written and read back. */
extern "C" int tsr_gpu_scan_box(const tsr_prog *prog, const int64_t *start, const int64_t *extent,
                                int64_t outer, int64_t len, int64_t inner, double *a, int op,
                                double identity, int nan) {
  tsr_gpu_bind_device();
  if (outer * inner < FEW_LINES && len > TILE && inner == 1 && tsr_gpu_prog_walks(prog)) {
    dprog d;
    TSR_CHECK(tsr_gpu_prog_upload(prog, &d));
    dbox b = tsr_gpu_make_box(prog->ndim, start, extent);
    int st = scan_tiled(outer, len, inner, a, op, identity, nan, &d, &b);
    int rs = tsr_gpu_prog_release(&d);
    return st != TSR_OK ? st : rs;
  }
  TSR_CHECK(tsr_gpu_eval_box(prog, start, extent, a));
  return tsr_gpu_scan(outer, len, inner, a, op, identity, nan);
}

__global__ static void __launch_bounds__(THREADS, 4)
    carry_kernel(long long outer, long long len, long long inner, double *a, int op,
                 const double *carry, int dtype) {
  each_unrolled(a, outer * len * inner, [&](long long e, double w) {
    if (carry) w = ew_binary_dev(op, w, carry[(e / (len * inner)) * inner + e % inner]);
    return dtype == TSR_F64 ? w : tsr_dtype_cast(w, dtype);
  });
}

extern "C" int tsr_gpu_scan_carry(int64_t outer, int64_t len, int64_t inner, double *a, int op,
                                  const double *carry, int dtype) {
  tsr_gpu_bind_device();
  pending_scan ps = {NULL, NULL, 0, 0, 0};
  int tiled = pending_take(a, &ps);
  if (tiled && (ps.outer != outer || ps.len != len || ps.inner != inner)) {
    tsr_gpu_release(ps.agg);
    return TSR_ERROR(TSR_ERR_INTERNAL, "GPU scan carry: a chunk of another shape than scanned");
  }
  if (!tiled && !carry && dtype == TSR_F64) return TSR_OK;
  double *dc = NULL;
  int st = TSR_OK;
  if (carry) {
    st = tsr_gpu_alloc(sizeof(double) * (size_t)(outer * inner), &dc);
    if (st == TSR_OK)
      st = CUDA_STATUS(cudaMemcpyAsync(dc, carry, sizeof(double) * (size_t)(outer * inner),
                                       cudaMemcpyHostToDevice, cudaStreamPerThread));
  }
  if (st == TSR_OK && tiled) {
    long long tiles = (len + TILE - 1) / TILE;
    if (op == EW_ADD)
      launch_finish<EW_ADD>(outer, len, inner, a, op, ps.agg, tiles, dc, dtype);
    else if (op == EW_MUL)
      launch_finish<EW_MUL>(outer, len, inner, a, op, ps.agg, tiles, dc, dtype);
    else
      launch_finish<-1>(outer, len, inner, a, op, ps.agg, tiles, dc, dtype);
    st = tsr_gpu_finish("scan carry");
  } else if (st == TSR_OK) {
    carry_kernel<<<tsr_gpu_grid_for((outer * len * inner + UNROLL - 1) / UNROLL, THREADS), THREADS,
                   0, cudaStreamPerThread>>>(outer, len, inner, a, op, dc, dtype);
    st = tsr_gpu_finish("scan carry");
  }
  if (tiled) tsr_gpu_release(ps.agg);
  tsr_gpu_release(dc);
  return st;
}
