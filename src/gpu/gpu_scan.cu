/*
 * gpu_scan.cu - the CUDA backend's scan ops (backend.h: scan, scan_carry)
 * with the shared scalar tsr_ew_binary (kernel/ew_scalar.h). Few long
 * lines (a 1-d chunk, a flattened scan, a tall chunk of few columns) are
 * scanned in tiles combined in a fixed order (scan_tiled), so a chunk gives
 * the same bits on every call; many lines run one thread per line,
 * sequentially along the axis, consecutive threads on consecutive inner
 * values (coalesced).
 * Everything runs on the calling thread's stream and is complete on return,
 * but for a tiled scan's last step, which waits for scan_carry.
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
#include "kernel/dtype.h"
#include "kernel/ew_scalar.h"

#define THREADS 256

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

__global__ static void tile_kernel(long long len, long long inner, double *a, int op,
                                   double identity, int nan, double *agg) {
  __shared__ double s[SLOT(TILE)];
  __shared__ double tot[THREADS];
  long long tiles = (len + TILE - 1) / TILE, base = (long long)blockIdx.x * TILE;
  double *p = line_at(a, len, inner, blockIdx.y);
  int n = (int)(len - base < TILE ? len - base : TILE), t = threadIdx.x;
  for (int k = t; k < n; k += THREADS) {
    double v = p[(base + k) * inner];
    s[SLOT(k)] = nan && v != v ? identity : v;
  }
  __syncthreads();
  int lo = t * ITEMS, hi = lo + ITEMS < n ? lo + ITEMS : n;
  double acc = 0.0;
  for (int k = lo; k < hi; k++)
    s[SLOT(k)] = acc = k > lo ? tsr_ew_binary(op, acc, s[SLOT(k)]) : s[SLOT(k)];
  tot[t] = acc;
  __syncthreads();
  if (t == 0) { /* exclusive prefixes of the threads, in order */
    int used = (n + ITEMS - 1) / ITEMS;
    double run = tot[0];
    for (int u = 1; u < used; u++) {
      double here = tot[u];
      tot[u] = run;
      run = tsr_ew_binary(op, run, here);
    }
    agg[blockIdx.y * tiles + blockIdx.x] = run;
  }
  __syncthreads();
  if (t > 0)
    for (int k = lo; k < hi; k++) s[SLOT(k)] = tsr_ew_binary(op, tot[t], s[SLOT(k)]);
  __syncthreads();
  for (int k = t; k < n; k += THREADS) p[(base + k) * inner] = s[SLOT(k)];
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

/* The last step of a tiled scan with the chunk's carry and cast: slab o
 * (blockIdx.y) of the chunk, element (l, i) at k = l inner + i; the values
 * of the first tile and the already complete last value get no prefix. */
__global__ static void finish_kernel(long long len, long long inner, double *a, int op,
                                     const double *agg, long long tiles, const double *carry,
                                     int dtype) {
  double *s = a + blockIdx.y * len * inner;
  long long n = len * inner;
  for (long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x; k < n;
       k += (long long)gridDim.x * blockDim.x) {
    long long l = inner == 1 ? k : k / inner, i = k - l * inner;
    double v = s[k];
    if (l >= TILE && l != len - 1)
      v = tsr_ew_binary(op, agg[(blockIdx.y * inner + i) * tiles + l / TILE - 1], v);
    if (carry) v = tsr_ew_binary(op, v, carry[blockIdx.y * inner + i]);
    s[k] = dtype == TSR_F64 ? v : tsr_dtype_cast(v, dtype);
  }
}

/* Tiled scans whose last step waits for scan_carry: the chunk's pointer,
 * shape and tile totals (pool memory). exec/scan.c calls scan_carry for
 * every chunk it scanned, on the thread that scanned it. */
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
 * step is left to scan_carry when the tiles are more than one. */
static int scan_tiled(long long outer, long long len, long long inner, double *a, int op,
                      double identity, int nan) {
  long long tiles = (len + TILE - 1) / TILE, lines = outer * inner;
  double *agg = NULL;
  if (tiles > INT_MAX) return TSR_ERROR(TSR_ERR_BACKEND, "GPU scan of %lld values: too long", len);
  TSR_CHECK(tsr_gpu_alloc(sizeof(double) * (size_t)(tiles * lines), &agg));
  tile_kernel<<<dim3((unsigned)tiles, (unsigned)lines), THREADS, 0, cudaStreamPerThread>>>(
      len, inner, a, op, identity, nan, agg);
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
  if (lines < FEW_LINES && len > TILE) return scan_tiled(outer, len, inner, a, op, identity, nan);
  lines_kernel<<<tsr_gpu_grid_for(outer * inner, THREADS), THREADS, 0, cudaStreamPerThread>>>(
      outer, len, inner, a, op, identity, nan);
  return tsr_gpu_finish("scan");
}

__global__ static void carry_kernel(long long outer, long long len, long long inner, double *a,
                                    int op, const double *carry, int dtype) {
  long long total = outer * len * inner;
  for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < total;
       e += (long long)gridDim.x * blockDim.x) {
    double v = a[e];
    if (carry) v = tsr_ew_binary(op, v, carry[(e / (len * inner)) * inner + e % inner]);
    a[e] = dtype == TSR_F64 ? v : tsr_dtype_cast(v, dtype);
  }
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
    finish_kernel<<<dim3(tsr_gpu_grid_for(len * inner, THREADS), (unsigned)outer), THREADS, 0,
                    cudaStreamPerThread>>>(len, inner, a, op, ps.agg, tiles, dc, dtype);
    st = tsr_gpu_finish("scan carry");
  } else if (st == TSR_OK) {
    carry_kernel<<<tsr_gpu_grid_for(outer * len * inner, THREADS), THREADS, 0,
                   cudaStreamPerThread>>>(outer, len, inner, a, op, dc, dtype);
    st = tsr_gpu_finish("scan carry");
  }
  if (tiled) tsr_gpu_release(ps.agg);
  tsr_gpu_release(dc);
  return st;
}
