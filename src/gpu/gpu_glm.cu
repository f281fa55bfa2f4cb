/*
 * gpu_glm.cu - the CUDA backend's GLM data pass (backend.h: glm_pass): for
 * each row block of x and y in device memory, the loss, the gradient
 * [X 1]^T r and the Hessian [X 1]^T W [X 1] of a family (kernel/glm.h, the
 * same per-sample functions as the CPU's cpu_glm.c), or the block's data
 * checks.
 *
 * Per block, on this thread's stream:
 *   tile    (Hessian passes, p + 1 <= TQ) tiles of TR rows copied to shared
 *           memory with coalesced loads, the next tile's loads issued into
 *           registers before this tile is used (software pipelining); TG
 *           threads per row for eta (strided sums, then a butterfly), the
 *           family on one thread per row, then thread j adds column j's
 *           r_i x_ij over the tile's rows in order. Each CTA writes its row
 *           range's partial sums (and S for the Hessian).
 *   rows    (wider blocks) one warp per ROWB rows at a time: each row's eta
 *           (its lanes' columns, then a butterfly), the family's loss, r and w on lane
 *           t for row t, and r x_i added to per-lane registers while x_i is
 *           still in them; so x is read once for the loss and for the
 *           gradient of up to GCOLS columns (the intercept's included). Each
 *           CTA writes its row range's partial sums. For the Hessian it also
 *           writes S = w_i [x_i 1] (rows x (p + 1)) and the sum of the w.
 *   rest    the gradient's columns past GCOLS (wide blocks), from r.
 *   hess    X^T S = [X^T W X | X^T w] (p x (p + 1)) per slice of HROWS
 *           rows: one strided-batched cuBLAS DGEMM (tensor cores; a long
 *           thin product as many independent ones), and one more for the
 *           last, shorter slice.
 *   finish  a block's outputs: every partial summed in a fixed order (one
 *           warp per output, a strided sum per lane, then a butterfly), the
 *           slices' products likewise, and the Hessian's last row from its
 *           last column and the sum of w.
 * Loss and gradient passes of blocks with p + 1 <= WQ (the usual width)
 * run every block in one launch at up to WKB points of a lambda path
 * (backend.h), X read once per launch: gpu_glm_pass.cu. The tile and rows
 * kernels here serve the Hessian's passes and wider blocks, one point
 * after the other.
 * No floating-point atomics, and every launch's geometry depends only on the
 * block's rows and p: a block's sums have the same order, hence the same
 * bits, whichever thread or rank computes it and whatever else is in the
 * pass. The data checks use integer atomicMin, whose result does not depend
 * on the order.
 *
 * Every block's results stay in one device buffer that is copied to the
 * host once, after the last block: one wait per pass.
 */
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

extern "C" {
#include "util/error.h"
}
#include "gpu/gpu_check.h"
#include "gpu/gpu_device.h"
#include "gpu/gpu_glm.h"
#include "gpu/gpu_linalg.h"
#include "kernel/glm.h"

#define STREAM cudaStreamPerThread
#define THREADS 256
#define WARPS (THREADS / 32)
#define FULL 0xffffffffu
#define KREG 8            /* gradient columns a lane keeps in registers */
#define GCOLS (32 * KREG) /* gradient columns the rows kernel covers */
#define ROWB 3            /* rows a warp holds at once */
#define ROW_CHUNK 256     /* rows of a rows CTA (until MAX_CHUNKS) */
#define MAX_CHUNKS 1024   /* rows CTAs of a block at most */
#define REST_THREADS 128  /* columns of a rest CTA */
#define HROWS 1024        /* rows of a slice of the Hessian's product */
#define TR 32             /* rows of a tile of the tile kernel */
#define TQ 128            /* columns (p + 1) the tile kernel takes at most */
#define TG 8              /* threads per row for eta in the tile kernel */
#define TPRE ((TR * (TQ - 1) + THREADS - 1) / THREADS) /* a tile's values per thread */
#ifndef TILE_MINB
#define TILE_MINB 3 /* tile CTAs per SM the registers allow (80 each) */
#endif
#define TILE_CHUNK 96 /* rows of a tile-kernel CTA (until MAX_CHUNKS): ~5 per SM */
#define NONE 0xffffffffffffffffull

static_assert(THREADS == GCOLS, "the rows kernel's threads sum one gradient column each");

/* ---- kernel arguments ------------------------------------------------------ */

typedef struct rows_args {
  int family;
  long long p, rows, chunk, ld; /* chunk: rows per CTA; ld: partial sums per CTA and point */
  const double *x, *y, *beta;
  double *part, *r; /* r: per row, or NULL where not needed */
  double *s;        /* the Hessian's S = w_i [x_i 1] (rows x (p + 1)), or NULL */
} rows_args;

typedef struct finish_args {
  long long p, q, nrc, ld, nsum; /* nsum: partial sums per CTA (ld of them) */
  long long nsl;                 /* slices of the Hessian's product (0: none) */
  const double *part, *hpart;    /* hpart: per slice, p x q */
  double *out;
} finish_args;

/* ---- the rows kernel ------------------------------------------------------- */

/* Row i's entries of the lane's register columns; the intercept column is
 * 1, the columns past it 0. */
__device__ static __forceinline__ void load_row(const rows_args &a, long long i, long long hi,
                                                int lane, double *xv) {
  const double *xr = a.x + (i < hi ? i : 0) * a.p + lane;
  long long left = a.p - lane; /* column lane + 32 k is x's while 32 k < left */
#pragma unroll
  for (int k = 0; k < KREG; k++)
    xv[k] = i < hi && 32 * k < left ? xr[32 * k] : 32 * k == left ? 1.0 : 0.0;
}

/* The lane's share of x_i . beta[0..p-1], in column order (beta from the
 * cache: in registers too, the gradient's kernel would spill). */
__device__ static __forceinline__ double lane_dot(const rows_args &a, long long i, long long hi,
                                                  int lane, const double *xv) {
  double s = 0.0;
  if (i >= hi) return s;
#pragma unroll
  for (int k = 0; k < KREG; k++)
    if (lane + 32 * k < a.p) s = fma(xv[k], __ldg(&a.beta[lane + 32 * k]), s);
  for (long long j = GCOLS + lane; j < a.p; j += 32) s = fma(a.x[i * a.p + j], a.beta[j], s);
  return s;
}

/* Lane t < ROWB: row i0 + t's loss (added to *loss), weight and residual,
 * which it returns (0 on the other lanes). */
__device__ static __forceinline__ double family_row(const rows_args &a, long long i0, long long hi,
                                                    int lane, const double *dot, double *loss,
                                                    double *w) {
  double d = 0.0, r = 0.0;
#pragma unroll
  for (int t = 0; t < ROWB; t++)
    if (lane == t) d = dot[t];
  long long i = i0 + lane;
  if (lane < ROWB && i < hi) {
    double y = a.y[i], eta = d + a.beta[a.p], mu = tsr_glm_mean(a.family, eta);
    *loss += tsr_glm_loss(a.family, eta, mu, y);
    r = mu - y;
    *w = tsr_glm_weight(a.family, mu);
    if (a.r) a.r[i] = r;
  }
  return r;
}

/* acc[k] += r_i x_ik for the warp's rows i0 .. i0 + ROWB - 1 in order
 * (lane t holds row i0 + t's r). */
__device__ static __forceinline__ void add_gradient(long long i0, long long hi, double r,
                                                    const double (*xv)[KREG], double *acc) {
#pragma unroll
  for (int t = 0; t < ROWB; t++) {
    double rt = __shfl_sync(FULL, r, t);
    if (i0 + t < hi)
#pragma unroll
      for (int k = 0; k < KREG; k++) acc[k] = fma(rt, xv[t][k], acc[k]);
  }
}

/* The CTA's partial sums, warps in order: the loss, then the gradient's
 * first GCOLS columns, then (for the Hessian) the sum of the weights. */
template <bool GRAD>
__device__ static __forceinline__ void store_partials(const rows_args &a, double loss, double wsum,
                                                      const double *acc) {
  __shared__ double sh[WARPS][GRAD ? GCOLS + 2 : 1];
  int warp = threadIdx.x / 32, lane = threadIdx.x % 32, c = threadIdx.x;
  double lw = 0.0, ww = 0.0;
  for (int t = 0; t < ROWB; t++) lw += __shfl_sync(FULL, loss, t);
  for (int t = 0; t < ROWB; t++) ww += __shfl_sync(FULL, wsum, t);
  if (lane == 0) sh[warp][GRAD ? GCOLS : 0] = lw;
  if (GRAD && lane == 0) sh[warp][GCOLS + 1] = ww;
  if (GRAD)
    for (int k = 0; k < KREG; k++) sh[warp][lane + 32 * k] = acc[k];
  __syncthreads();
  double *out = a.part + blockIdx.x * a.ld;
  if (c == 0) {
    double s = sh[0][GRAD ? GCOLS : 0];
    for (int w = 1; w < WARPS; w++) s += sh[w][GRAD ? GCOLS : 0];
    out[0] = s;
  }
  if (GRAD && c <= a.p) {
    double s = sh[0][c];
    for (int w = 1; w < WARPS; w++) s += sh[w][c];
    out[1 + c] = s;
  }
  if (GRAD && a.s && c == 0) {
    double s = sh[0][GCOLS + 1];
    for (int w = 1; w < WARPS; w++) s += sh[w][GCOLS + 1];
    out[2 + a.p] = s;
  }
}

/* Rows i0 .. i0 + ROWB - 1 of S = w_i [x_i 1] (lane t holds row i0 + t's
 * w): the register columns from xv, the others from x. */
__device__ static __forceinline__ void store_s(const rows_args &a, long long i0, long long hi,
                                               int lane, double w, const double (*xv)[KREG]) {
  long long q = a.p + 1;
#pragma unroll
  for (int t = 0; t < ROWB; t++) {
    double wt = __shfl_sync(FULL, w, t);
    long long i = i0 + t;
    if (i >= hi) continue;
    double *sr = a.s + i * q;
#pragma unroll
    for (int k = 0; k < KREG; k++)
      if (lane + 32 * k < q) sr[lane + 32 * k] = wt * xv[t][k];
    for (long long j = GCOLS + lane; j < q; j += 32)
      sr[j] = wt * (j < a.p ? a.x[i * a.p + j] : 1.0);
  }
}

/* CTA b: rows [b chunk, (b + 1) chunk); warp w takes ROWB rows at a time,
 * from w ROWB on, every WARPS ROWB rows. */
template <bool GRAD> __global__ static void __launch_bounds__(THREADS, 2) rows_kernel(rows_args a) {
  int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  long long lo = (long long)blockIdx.x * a.chunk, hi = min(a.rows, lo + a.chunk);
  double acc[KREG], loss = 0.0, wsum = 0.0;
#pragma unroll
  for (int k = 0; k < KREG; k++) acc[k] = 0.0;
  for (long long i0 = lo + warp * ROWB; i0 < hi; i0 += WARPS * ROWB) {
    double xv[ROWB][KREG], dot[ROWB];
#pragma unroll
    for (int t = 0; t < ROWB; t++) load_row(a, i0 + t, hi, lane, xv[t]);
#pragma unroll
    for (int t = 0; t < ROWB; t++) dot[t] = warp_sum(lane_dot(a, i0 + t, hi, lane, xv[t]));
    double w = 0.0, r = family_row(a, i0, hi, lane, dot, &loss, &w);
    wsum += w;
    if (GRAD) add_gradient(i0, hi, r, xv, acc);
    if (GRAD && a.s) store_s(a, i0, hi, lane, w, xv);
  }
  store_partials<GRAD>(a, loss, wsum, acc);
}

/* Thread tid's share of the tile of rows [t0, t0 + TR) (contiguous in x)
 * into its registers: values tid, tid + THREADS, ... (none past hi). */
__device__ static __forceinline__ void load_tile(const double *x, int p, long long t0, long long hi,
                                                 int tid, double *pre) {
  long long n = t0 < hi ? min((long long)TR, hi - t0) * p : 0;
  const double *src = x + t0 * p;
#pragma unroll
  for (int k = 0; k < TPRE; k++) {
    int e = tid + k * THREADS;
    pre[k] = e < n ? src[e] : 0.0;
  }
}

/* Point k's eta of row `row` of the tile (TG threads, strided sums, then
 * a butterfly; every thread of the warp takes part). */
__device__ static __forceinline__ double tile_eta(const double (*xs)[TQ + 1], const double *b,
                                                  int p, int row, int part, int nr) {
  double d = 0.0;
  if (row < nr)
    for (int c = part; c < p; c += TG) d = fma(xs[row][c], b[c], d);
  for (int m = TG / 2; m > 0; m >>= 1) d += __shfl_xor_sync(FULL, d, m);
  return d;
}

/* CTA cta of a block: rows [cta chunk, (cta + 1) chunk) in tiles of TR
 * rows (p + 1 <= TQ), at npt <= KB points (beta: npt x q); see the file's
 * top comment. A point's sums (gs, lsum: per point, in shared memory, each
 * entry one thread's) run over the rows in order whatever npt is. */
template <bool GRAD, int KB>
__device__ static void tile_body(const rows_args &a, long long cta, int npt) {
  __shared__ double xs[TR][TQ + 1]; /* odd row length: column reads hit distinct banks */
  __shared__ double bs[KB][TQ], gs[KB][TQ], rs[KB][TR], ls[KB][TR], ws[TR], lsum[KB];
  int tid = threadIdx.x, p = (int)a.p, q = p + 1, row = tid / TG, part = tid % TG;
  long long lo = cta * a.chunk, hi = min(a.rows, lo + a.chunk);
  for (int j = tid; j < npt * q; j += THREADS) bs[j / q][j % q] = a.beta[j];
  for (int j = tid; j < npt * TQ; j += THREADS) gs[j / TQ][j % TQ] = 0.0;
  if (tid < npt) lsum[tid] = 0.0;
  double wsum = 0.0;
  double pre[TPRE]; /* the next tile, loaded while this one is used */
  load_tile(a.x, p, lo, hi, tid, pre);
  for (long long t0 = lo; t0 < hi; t0 += TR) {
    int nr = (int)min((long long)TR, hi - t0);
    __syncthreads(); /* the last tile is used up */
#pragma unroll
    for (int k = 0; k < TPRE; k++) {
      int e = tid + k * THREADS, r = e / p;
      if (e < nr * p) xs[r][e - r * p] = pre[k];
    }
    if (tid < nr) xs[tid][p] = 1.0;
    __syncthreads();
    load_tile(a.x, p, t0 + TR, hi, tid, pre);
    double y = part == 0 && row < nr ? a.y[t0 + row] : 0.0;
#pragma unroll
    for (int k = 0; k < KB; k++) {
      if (k >= npt) break; /* the same for every thread */
      double d = tile_eta(xs, bs[k], p, row, part, nr);
      if (part == 0 && row < nr) {
        double eta = d + bs[k][p], mu = tsr_glm_mean(a.family, eta);
        ls[k][row] = tsr_glm_loss(a.family, eta, mu, y);
        rs[k][row] = mu - y;
        if (k == 0) ws[row] = tsr_glm_weight(a.family, mu);
      }
    }
    __syncthreads();
    if (tid < npt)
      for (int r = 0; r < nr; r++) lsum[tid] += ls[tid][r];
    if (tid == 0)
      for (int r = 0; r < nr; r++) wsum += ws[r];
    for (int k = 0; GRAD && k < npt && tid < q; k++) {
      double g = gs[k][tid];
      for (int r = 0; r < nr; r++) g = fma(rs[k][r], xs[r][tid], g);
      gs[k][tid] = g;
    }
    if (GRAD && a.s)
      for (int e = tid; e < nr * q; e += THREADS) {
        int r = e / q;
        a.s[t0 * q + e] = ws[r] * xs[r][e - r * q]; /* S's tile is contiguous too */
      }
  }
  __syncthreads();
  for (int k = 0; k < npt; k++) {
    double *out = a.part + (cta * npt + k) * a.ld;
    if (tid == 0) out[0] = lsum[k];
    if (GRAD && tid < q) out[1 + tid] = gs[k][tid];
    if (GRAD && a.s && tid == 0) out[1 + q] = wsum;
  }
}

/* One block's CTAs (the Hessian's passes: S is one block's). */
template <bool GRAD>
__global__ static void __launch_bounds__(THREADS, TILE_MINB) tile_kernel(rows_args a) {
  tile_body<GRAD, 1>(a, blockIdx.x, 1);
}

/* The gradient's columns GCOLS .. p of CTA (column group, row range),
 * rows in order. */
__global__ static void rest_kernel(rows_args a) {
  long long j = GCOLS + (long long)blockIdx.x * blockDim.x + threadIdx.x, c = blockIdx.y;
  if (j > a.p) return;
  long long lo = c * a.chunk, hi = min(a.rows, lo + a.chunk);
  double s = 0.0;
  for (long long i = lo; i < hi; i++) s = fma(a.r[i], j < a.p ? a.x[i * a.p + j] : 1.0, s);
  a.part[c * a.ld + 1 + j] = s;
}

/* ---- a block's outputs ----------------------------------------------------- */

/* Warp k < nsum: output k (the loss, the gradient, and last the sum of the
 * weights, which is H[p][p]) from the CTAs' partials. Then, with the
 * Hessian, warp nsum + e for entry e = (a, c) of its first p rows with
 * a <= c, from the slices' products, written to (a, c) and (c, a): the
 * Hessian is exactly symmetric. */
__global__ static void finish_kernel(finish_args f) {
  long long k = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / 32;
  int lane = threadIdx.x % 32;
  if (k < f.nsum) {
    double s = warp_sum_strided(f.part + k, f.nrc, f.ld, lane);
    if (lane == 0) f.out[k < 1 + f.q ? k : 1 + f.q + f.p * f.q + f.p] = s;
    return;
  }
  long long e = k - f.nsum;
  long long a = e / f.q, c = e % f.q;
  if (f.nsl == 0 || e >= f.p * f.q || c < a) return;
  double s = warp_sum_strided(f.hpart + e, f.nsl, f.p * f.q, lane);
  double *h = f.out + 1 + f.q;
  if (lane == 0) h[a * f.q + c] = h[c * f.q + a] = s;
}

/* ---- the data checks ------------------------------------------------------- */

/* slot[0]: the first row of x with a NaN or an inf; slot[1]: the first row
 * whose y the family refuses (NONE: none). */
__global__ static void check_kernel(int family, long long p, long long rows, const double *x,
                                    const double *y, unsigned long long *slot) {
  long long first = (long long)blockIdx.x * blockDim.x + threadIdx.x,
            step = (long long)gridDim.x * blockDim.x;
  for (long long e = first; e < rows * p; e += step)
    if (!(x[e] - x[e] == 0.0)) atomicMin(&slot[0], (unsigned long long)(e / p));
  for (long long i = first; i < rows; i += step)
    if (!tsr_glm_y_ok(family, y[i])) atomicMin(&slot[1], (unsigned long long)i);
}

__global__ static void check_finish(long long n, const unsigned long long *slot, double *out) {
  long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (k < n) out[k] = slot[k] == NONE ? -1.0 : (double)slot[k];
}

/* ---- the pass on the host -------------------------------------------------- */

static long long cdiv(long long a, long long b) { return (a + b - 1) / b; }
static long long min_ll(long long a, long long b) { return a < b ? a : b; }

/* Blocks of a grid-stride launch over n elements (at most 65536). */
static unsigned grid_for(long long n) {
  long long blocks = cdiv(n, THREADS);
  return (unsigned)(blocks < 1 ? 1 : blocks < 65536 ? blocks : 65536);
}

/* A pass: its sizes, its device scratch (sized for the largest block,
 * reused block after block) and its host staging. */
typedef struct glm_run {
  const tsr_glm_pass *pass;
  long long q, len, ld, max_rows;
  long long nbeta, ngrp; /* points per block; the one launch's groups of WKB points */
  int grad, hess;
  double *beta, *out, *part, *r, *s, *hpart, *host, *tab;
  int one_launch; /* loss or gradient with p + 1 <= WQ: every block in one launch */
  long long ctas; /* the one launch's CTAs */
  unsigned long long *slot;
} glm_run;

/* The rows CTAs of a block and their row ranges: functions of the block's
 * rows only. */
static long long row_ctas(long long rows, long long q) {
  return min_ll(cdiv(rows, q <= TQ ? TILE_CHUNK : ROW_CHUNK), MAX_CHUNKS);
}

static int dev_alloc(long long n, const char *what, double **ptr) {
  if (tsr_gpu_alloc(sizeof(double) * (size_t)(n > 0 ? n : 1), ptr) != TSR_OK)
    return TSR_ERROR(TSR_ERR_MEMORY, "out of GPU memory for a GLM pass (%s: %lld values)", what, n);
  return TSR_OK;
}

static int run_alloc(glm_run *g) {
  long long nb = g->pass->nblocks, rows = g->max_rows;
  int check = g->pass->what == TSR_GLM_CHECK;
  TSR_CHECK(dev_alloc(nb * g->nbeta * g->len, "results", &g->out));
  if (check) { /* pool memory is double *: converted, not aliased */
    double *slot = NULL;
    int st = dev_alloc(2 * nb, "checks", &slot);
    g->slot = (unsigned long long *)slot;
    return st;
  }
  TSR_CHECK(dev_alloc(nb * g->nbeta * g->q, "coefficients", &g->beta));
  long long nparts = g->one_launch ? tsr_gpu_wpass_parts(g->ctas) * min_ll(g->nbeta, WKB)
                                    : row_ctas(rows, g->q);
  TSR_CHECK(dev_alloc(nparts * g->ld, "partial sums", &g->part));
  if (g->one_launch) /* wpass_block is 7 words; a table per group of points */
    TSR_CHECK(dev_alloc(g->ngrp * nb * (long long)(sizeof(wpass_block) / sizeof(double)),
                        "block table", &g->tab));
  if (g->grad && g->q > GCOLS) TSR_CHECK(dev_alloc(rows, "residuals", &g->r));
  if (g->hess) TSR_CHECK(dev_alloc(rows * g->q, "w [X 1]", &g->s));
  if (g->hess)
    TSR_CHECK(dev_alloc(cdiv(rows, HROWS) * g->pass->p * g->q, "Hessian slices", &g->hpart));
  return TSR_OK;
}

static void run_free(glm_run *g) {
  double *dev[] = {g->beta, g->out, g->part, g->r, g->s, g->hpart, g->tab, (double *)g->slot};
  for (size_t i = 0; i < sizeof dev / sizeof dev[0]; i++)
    if (dev[i]) tsr_gpu_release(dev[i]);
  free(g->host);
}

/* Every block's coefficients to the device in one copy (staged in host). */
static int upload_betas(glm_run *g) {
  const tsr_glm_pass *ps = g->pass;
  long long n = g->nbeta * g->q; /* a block's points */
  double *hb = g->host + ps->nblocks * g->nbeta * g->len;
  for (long long b = 0; b < ps->nblocks; b++)
    memcpy(hb + b * n, ps->blocks[b].beta, sizeof(double) * (size_t)n);
  CUDA_CHECK(cudaMemcpyAsync(g->beta, hb, sizeof(double) * (size_t)(ps->nblocks * n),
                             cudaMemcpyHostToDevice, STREAM));
  return TSR_OK;
}

/* The loss (gradient, Hessian) of block b at its point j into its results. */
static int block_sums(glm_run *g, long long b, long long j) {
  const tsr_glm_block *bl = &g->pass->blocks[b];
  long long p = g->pass->p, rows = bl->rows, nrc = row_ctas(rows, g->q);
  double *out = g->out + (b * g->nbeta + j) * g->len;
  if (rows <= 0)
    return CUDA_STATUS(cudaMemsetAsync(out, 0, sizeof(double) * (size_t)g->len, STREAM));
  rows_args a = {.family = g->pass->family,
                 .p = p,
                 .rows = rows,
                 .chunk = cdiv(rows, nrc),
                 .ld = g->ld,
                 .x = bl->x,
                 .y = bl->y,
                 .beta = g->beta + (b * g->nbeta + j) * g->q,
                 .part = g->part,
                 .r = g->r,
                 .s = g->s};
  if (g->q <= TQ && g->grad)
    tile_kernel<true><<<(unsigned)nrc, THREADS, 0, STREAM>>>(a);
  else if (g->q <= TQ)
    tile_kernel<false><<<(unsigned)nrc, THREADS, 0, STREAM>>>(a);
  else if (g->grad)
    rows_kernel<true><<<(unsigned)nrc, THREADS, 0, STREAM>>>(a);
  else
    rows_kernel<false><<<(unsigned)nrc, THREADS, 0, STREAM>>>(a);
  if (g->grad && g->q > GCOLS)
    rest_kernel<<<dim3((unsigned)cdiv(g->q - GCOLS, REST_THREADS), (unsigned)nrc), REST_THREADS, 0,
                  STREAM>>>(a);
  CUDA_CHECK(cudaGetLastError());
  long long q = g->q, full = g->hess ? rows / HROWS : 0, tail = g->hess ? rows % HROWS : 0;
  if (full > 0) /* slice i: X_i^T S_i = [X_i^T W_i X_i | X_i^T w_i], p x q */
    TSR_CHECK(tsr_gpu_gemm_tn_async(p, q, HROWS, bl->x, p, HROWS * p, g->s, q, HROWS * q, g->hpart,
                                    q, p * q, full));
  if (tail > 0)
    TSR_CHECK(tsr_gpu_gemm_tn_async(p, q, tail, bl->x + full * HROWS * p, p, 0,
                                    g->s + full * HROWS * q, q, 0, g->hpart + full * p * q, q, 0,
                                    1));
  long long nsl = full + (tail > 0), entries = nsl > 0 ? p * q : 0;
  finish_args f = {p, q, nrc, g->ld, g->ld, nsl, g->part, g->hpart, out};
  finish_kernel<<<(unsigned)cdiv((g->ld + entries) * 32, THREADS), THREADS, 0, STREAM>>>(f);
  CUDA_CHECK(cudaGetLastError());
  return TSR_OK;
}

/* Every block's loss (and gradient) at points j0 .. j0 + npt - 1 in one
 * launch, and their sums in another (gpu_glm_pass.cu); the table of blocks
 * goes up first. */
static int pass_group(glm_run *g, long long j0, int npt) {
  const tsr_glm_pass *ps = g->pass;
  long long nb = ps->nblocks, cta0 = 0, grp = j0 / WKB, pbw = sizeof(wpass_block) / sizeof(double);
  wpass_block *tab = (wpass_block *)(g->host + nb * g->nbeta * (g->len + g->q) + grp * nb * pbw);
  for (long long b = 0; b < nb; b++) {
    const tsr_glm_block *bl = &ps->blocks[b];
    long long n = tsr_gpu_wpass_ctas(bl->rows);
    tab[b] = (wpass_block){bl->x, bl->y, g->beta + (b * g->nbeta + j0) * g->q, bl->rows,
                           n > 0 ? cdiv(bl->rows, n) : 0, n, cta0};
    cta0 += n;
  }
  wpass_block *dtab = (wpass_block *)g->tab + grp * nb;
  CUDA_CHECK(
      cudaMemcpyAsync(dtab, tab, sizeof(wpass_block) * (size_t)nb, cudaMemcpyHostToDevice, STREAM));
  wpass_args m = {g->pass->family, npt,    ps->p,  g->ld,  nb,
                  g->ctas,         dtab,   g->part, g->out, g->nbeta * g->len,
                  j0 * g->len};
  return tsr_gpu_wpass(&m, g->grad);
}

/* Every block at every point, WKB points per launch. */
static int pass_sums(glm_run *g) {
  for (long long j0 = 0; j0 < g->nbeta; j0 += WKB)
    TSR_CHECK(pass_group(g, j0, (int)min_ll(WKB, g->nbeta - j0)));
  return TSR_OK;
}

/* Every block at every point, one launch sequence per block and point. */
static int blocks_sums(glm_run *g) {
  for (long long b = 0; b < g->pass->nblocks; b++)
    for (long long j = 0; j < g->nbeta; j++) TSR_CHECK(block_sums(g, b, j));
  return TSR_OK;
}

static int block_check(glm_run *g, long long b) {
  const tsr_glm_block *bl = &g->pass->blocks[b];
  long long p = g->pass->p;
  if (bl->rows <= 0) return TSR_OK;
  check_kernel<<<grid_for(bl->rows * (p > 1 ? p : 1)), THREADS, 0, STREAM>>>(
      g->pass->family, p, bl->rows, bl->x, bl->y, g->slot + 2 * b);
  CUDA_CHECK(cudaGetLastError());
  return TSR_OK;
}

/* Every block's results to the host in one copy, then to each block's out. */
static int download_outs(glm_run *g) {
  const tsr_glm_pass *ps = g->pass;
  long long per = g->nbeta * g->len, n = ps->nblocks * per;
  if (ps->what == TSR_GLM_CHECK) {
    check_finish<<<(unsigned)cdiv(n, THREADS), THREADS, 0, STREAM>>>(n, g->slot, g->out);
    CUDA_CHECK(cudaGetLastError());
  }
  CUDA_CHECK(
      cudaMemcpyAsync(g->host, g->out, sizeof(double) * (size_t)n, cudaMemcpyDeviceToHost, STREAM));
  CUDA_CHECK(cudaStreamSynchronize(STREAM));
  for (long long b = 0; b < ps->nblocks; b++)
    memcpy(ps->blocks[b].out, g->host + b * per, sizeof(double) * (size_t)per);
  return TSR_OK;
}

static int run_start(const tsr_glm_pass *ps, glm_run *g) {
  memset(g, 0, sizeof *g);
  g->pass = ps;
  if (ps->what < TSR_GLM_LOSS || ps->what > TSR_GLM_CHECK || ps->family < 0 ||
      ps->family >= TSR_GLM_NFAMILIES || ps->p < 0)
    return TSR_ERROR(TSR_ERR_INTERNAL, "GLM pass: bad request (what %d, family %d, p %lld)",
                     ps->what, ps->family, (long long)ps->p);
  g->q = ps->p + 1;
  g->len = tsr_glm_out_len(ps->p, ps->what);
  g->nbeta = ps->nbeta;
  g->ngrp = cdiv(ps->nbeta, WKB);
  g->grad = ps->what == TSR_GLM_GRAD || ps->what == TSR_GLM_HESS;
  g->hess = ps->what == TSR_GLM_HESS;
  g->ld = g->hess ? 2 + g->q : g->grad ? 1 + g->q : 1;
  g->one_launch = ps->what != TSR_GLM_CHECK && !g->hess && g->q <= WQ;
  for (long long b = 0; b < ps->nblocks && g->one_launch; b++)
    g->ctas += tsr_gpu_wpass_ctas(ps->blocks[b].rows);
  for (long long b = 0; b < ps->nblocks; b++)
    if (ps->blocks[b].rows > g->max_rows) g->max_rows = ps->blocks[b].rows;
  size_t nhost = (size_t)(ps->nblocks * (g->nbeta * (g->len + g->q) +
                                         g->ngrp * (long long)(sizeof(wpass_block) / 8)));
  if (!(g->host = (double *)malloc(sizeof(double) * nhost)))
    return TSR_ERROR(TSR_ERR_MEMORY, "out of memory for a GLM pass (%zu values)", nhost);
  return run_alloc(g);
}

extern "C" int tsr_gpu_glm_pass(const tsr_glm_pass *pass) {
  if (pass->nblocks <= 0) return TSR_OK;
  tsr_gpu_bind_device();
  glm_run g;
  int st = TSR_OK, check = pass->what == TSR_GLM_CHECK;
  TSR_CHECK_GOTO(st, run_start(pass, &g), done);
  if (check)
    CUDA_CHECK_GOTO(
        st, cudaMemsetAsync(g.slot, 0xff, sizeof(double) * (size_t)(2 * pass->nblocks), STREAM),
        done);
  else
    TSR_CHECK_GOTO(st, upload_betas(&g), done);
  if (g.one_launch)
    TSR_CHECK_GOTO(st, pass_sums(&g), done);
  else if (!check)
    TSR_CHECK_GOTO(st, blocks_sums(&g), done);
  else
    for (long long b = 0; b < pass->nblocks; b++) TSR_CHECK_GOTO(st, block_check(&g, b), done);
  st = download_outs(&g);
done:
  if (st != TSR_OK) cudaStreamSynchronize(STREAM); /* launched work may still use the scratch */
  run_free(&g);
  return st;
}
