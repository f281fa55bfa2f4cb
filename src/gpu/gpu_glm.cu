/*
 * gpu_glm.cu - the CUDA backend's GLM data pass (backend.h: glm_pass): for
 * each row block of x and y in device memory, the loss, the gradient
 * [X 1]^T r and the Hessian [X 1]^T W [X 1] of a family (kernel/glm.h, the
 * same per-sample functions as the CPU's cpu_glm.c), or the block's data
 * checks.
 *
 * Per block, on this thread's stream:
 *   rows    one warp per ROWB rows at a time: each row's eta (its lanes'
 *           columns, then a butterfly), the family's loss, r and w on lane
 *           t for row t, and r x_i added to per-lane registers while x_i is
 *           still in them; so x is read once for the loss and for the
 *           gradient of up to GCOLS columns (the intercept's included). Each
 *           CTA writes its row range's partial sums.
 *   rest    the gradient's columns past GCOLS (wide blocks), from r.
 *   hess    X^T W X in TILE x TILE tiles of the upper triangle, each CTA one
 *           tile over one row range, from the w of rows.
 *   finish  a block's outputs: every partial summed in index order, the
 *           Hessian's lower triangle read from the upper.
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
#define TILE 64           /* Hessian tile: TILE x TILE entries per CTA */
#define KT 16             /* rows of a Hessian step */
#define HESS_CTAS 512     /* Hessian CTAs of a block, about: a few per SM */
#define HESS_MIN_ROWS 256 /* rows of a Hessian CTA at least */
#define NONE 0xffffffffffffffffull

static_assert(THREADS == GCOLS, "the rows kernel's threads sum one gradient column each");
static_assert(TILE * TILE == THREADS * 16, "a Hessian thread computes 4 x 4 entries");

/* ---- kernel arguments ------------------------------------------------------ */

typedef struct rows_args {
  int family;
  long long p, rows, chunk, ld; /* chunk: rows per CTA; ld: partial sums per CTA */
  const double *x, *y, *beta;
  double *part, *r, *w; /* r, w: per row, or NULL where not needed */
} rows_args;

typedef struct hess_args {
  long long p, rows, chunk, ntile, npairs;
  const double *x, *w;
  double *part; /* per CTA: TILE x TILE, [row range][tile pair] */
} hess_args;

typedef struct finish_args {
  long long q, len, nrc, ld, nhc, npairs;
  const double *part, *hpart;
  double *out;
} finish_args;

/* ---- the rows kernel ------------------------------------------------------- */

/* The sum over the warp's lanes: the same bits on every lane (addition
 * commutes, so partners of the butterfly compute the same sums). */
__device__ static __forceinline__ double warp_sum(double v) {
  for (int m = 16; m > 0; m >>= 1) v += __shfl_xor_sync(FULL, v, m);
  return v;
}

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
                                                    int lane, const double *dot, double *loss) {
  double d = 0.0, r = 0.0;
#pragma unroll
  for (int t = 0; t < ROWB; t++)
    if (lane == t) d = dot[t];
  long long i = i0 + lane;
  if (lane < ROWB && i < hi) {
    double y = a.y[i], eta = d + a.beta[a.p], mu = tsr_glm_mean(a.family, eta);
    *loss += tsr_glm_loss(a.family, eta, mu, y);
    r = mu - y;
    if (a.w) a.w[i] = tsr_glm_weight(a.family, mu);
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
 * first GCOLS columns. */
template <bool GRAD>
__device__ static __forceinline__ void store_partials(const rows_args &a, double loss,
                                                      const double *acc) {
  __shared__ double sh[WARPS][GRAD ? GCOLS + 1 : 1];
  int warp = threadIdx.x / 32, lane = threadIdx.x % 32, c = threadIdx.x;
  double lw = 0.0;
  for (int t = 0; t < ROWB; t++) lw += __shfl_sync(FULL, loss, t);
  if (lane == 0) sh[warp][GRAD ? GCOLS : 0] = lw;
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
}

/* CTA b: rows [b chunk, (b + 1) chunk); warp w takes ROWB rows at a time,
 * from w ROWB on, every WARPS ROWB rows. */
template <bool GRAD> __global__ static void __launch_bounds__(THREADS, 2) rows_kernel(rows_args a) {
  int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  long long lo = (long long)blockIdx.x * a.chunk, hi = min(a.rows, lo + a.chunk);
  double acc[KREG], loss = 0.0;
#pragma unroll
  for (int k = 0; k < KREG; k++) acc[k] = 0.0;
  for (long long i0 = lo + warp * ROWB; i0 < hi; i0 += WARPS * ROWB) {
    double xv[ROWB][KREG], dot[ROWB];
#pragma unroll
    for (int t = 0; t < ROWB; t++) load_row(a, i0 + t, hi, lane, xv[t]);
#pragma unroll
    for (int t = 0; t < ROWB; t++) dot[t] = warp_sum(lane_dot(a, i0 + t, hi, lane, xv[t]));
    double r = family_row(a, i0, hi, lane, dot, &loss);
    if (GRAD) add_gradient(i0, hi, r, xv, acc);
  }
  store_partials<GRAD>(a, loss, acc);
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

/* ---- the Hessian kernel ---------------------------------------------------- */

/* The tiles (ta <= tc) of pair number idx, pairs numbered row by row. */
__host__ __device__ static inline long long pair_index(long long ta, long long tc, long long n) {
  return ta * n - ta * (ta - 1) / 2 + (tc - ta);
}

__device__ static void pair_tiles(long long idx, long long n, long long *ta, long long *tc) {
  long long t = 0;
  while (idx >= n - t) idx -= n - t++;
  *ta = t, *tc = t + idx;
}

/* Column j of row i of [X 1] (0 past it). */
__device__ static __forceinline__ double xval(const hess_args &a, long long i, long long j) {
  return j < a.p ? a.x[i * a.p + j] : j == a.p ? 1.0 : 0.0;
}

/* KT rows from i0 into the tiles: sa = w x (columns of tile ta), sc = x
 * (tile tc); rows past hi are 0. */
__device__ static __forceinline__ void load_tiles(const hess_args &a, long long i0, long long hi,
                                                  long long ta, long long tc, double (*sa)[TILE],
                                                  double (*sc)[TILE]) {
  for (int e = threadIdx.x; e < KT * TILE; e += THREADS) {
    int kk = e / TILE, cc = e % TILE;
    long long i = i0 + kk;
    bool in = i < hi;
    sa[kk][cc] = in ? a.w[i] * xval(a, i, ta * TILE + cc) : 0.0;
    sc[kk][cc] = in ? xval(a, i, tc * TILE + cc) : 0.0;
  }
}

/* CTA (pair, row range): H[a][c] += w_i x_ia x_ic over the range's rows in
 * order, for a in tile ta, c in tile tc; thread (tx, ty) computes entries
 * (ty + 16 u, tx + 16 v). */
__global__ static void __launch_bounds__(THREADS) hess_kernel(hess_args a) {
  __shared__ double sa[KT][TILE], sc[KT][TILE];
  long long ta, tc, lo = (long long)blockIdx.y * a.chunk, hi = min(a.rows, lo + a.chunk);
  pair_tiles(blockIdx.x, a.ntile, &ta, &tc);
  int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
  double acc[4][4] = {};
  for (long long i0 = lo; i0 < hi; i0 += KT) {
    load_tiles(a, i0, hi, ta, tc, sa, sc);
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < KT; kk++) {
      double u[4], v[4];
#pragma unroll
      for (int m = 0; m < 4; m++) u[m] = sa[kk][ty + 16 * m], v[m] = sc[kk][tx + 16 * m];
#pragma unroll
      for (int m = 0; m < 4; m++)
#pragma unroll
        for (int n = 0; n < 4; n++) acc[m][n] = fma(u[m], v[n], acc[m][n]);
    }
    __syncthreads();
  }
  double *out = a.part + ((long long)blockIdx.y * a.npairs + blockIdx.x) * (TILE * TILE);
#pragma unroll
  for (int m = 0; m < 4; m++)
#pragma unroll
    for (int n = 0; n < 4; n++) out[(ty + 16 * m) * TILE + tx + 16 * n] = acc[m][n];
}

/* ---- a block's outputs ----------------------------------------------------- */

/* Output k of a block: its partials summed in CTA order. The Hessian's
 * (a, c) and (c, a) both come from the upper triangle's (min, max). */
__global__ static void finish_kernel(finish_args f) {
  long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= f.len) return;
  const double *src = f.part + k;
  long long n = f.nrc, stride = f.ld;
  if (k >= f.ld) {
    long long e = k - f.ld, r = e / f.q, c = e % f.q, lo = min(r, c), hi = max(r, c);
    long long pair = pair_index(lo / TILE, hi / TILE, (f.q + TILE - 1) / TILE);
    src = f.hpart + pair * (TILE * TILE) + (lo % TILE) * TILE + hi % TILE;
    n = f.nhc, stride = f.npairs * (TILE * TILE);
  }
  double s = src[0];
  for (long long i = 1; i < n; i++) s += src[i * stride];
  f.out[k] = s;
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
  long long q, len, ld, ntile, npairs, max_rows;
  int grad, hess;
  double *beta, *out, *part, *r, *w, *hpart, *host;
  unsigned long long *slot;
} glm_run;

/* The rows CTAs of a block and their row ranges; the Hessian's likewise:
 * functions of the block's rows (and p) only. */
static long long row_ctas(long long rows) { return min_ll(cdiv(rows, ROW_CHUNK), MAX_CHUNKS); }
static long long hess_ctas(long long rows, long long npairs) {
  long long n = min_ll(cdiv(rows, HESS_MIN_ROWS), cdiv(HESS_CTAS, npairs));
  return n < 1 ? 1 : n;
}

static int dev_alloc(long long n, const char *what, double **ptr) {
  if (tsr_gpu_alloc(sizeof(double) * (size_t)(n > 0 ? n : 1), ptr) != TSR_OK)
    return TSR_ERROR(TSR_ERR_MEMORY, "out of GPU memory for a GLM pass (%s: %lld values)", what, n);
  return TSR_OK;
}

static int run_alloc(glm_run *g) {
  long long nb = g->pass->nblocks, rows = g->max_rows;
  int check = g->pass->what == TSR_GLM_CHECK;
  TSR_CHECK(dev_alloc(nb * g->len, "results", &g->out));
  if (check) { /* pool memory is double *: converted, not aliased */
    double *slot = NULL;
    int st = dev_alloc(2 * nb, "checks", &slot);
    g->slot = (unsigned long long *)slot;
    return st;
  }
  TSR_CHECK(dev_alloc(nb * g->q, "coefficients", &g->beta));
  TSR_CHECK(dev_alloc(row_ctas(rows) * g->ld, "partial sums", &g->part));
  if (g->grad && g->q > GCOLS) TSR_CHECK(dev_alloc(rows, "residuals", &g->r));
  if (g->hess) TSR_CHECK(dev_alloc(rows, "weights", &g->w));
  if (g->hess)
    TSR_CHECK(dev_alloc(hess_ctas(rows, g->npairs) * g->npairs * TILE * TILE, "Hessian tiles",
                        &g->hpart));
  return TSR_OK;
}

static void run_free(glm_run *g) {
  double *dev[] = {g->beta, g->out, g->part, g->r, g->w, g->hpart, (double *)g->slot};
  for (size_t i = 0; i < sizeof dev / sizeof dev[0]; i++)
    if (dev[i]) tsr_gpu_release(dev[i]);
  free(g->host);
}

/* Every block's coefficients to the device in one copy (staged in host). */
static int upload_betas(glm_run *g) {
  const tsr_glm_pass *ps = g->pass;
  double *hb = g->host + ps->nblocks * g->len;
  for (long long b = 0; b < ps->nblocks; b++)
    memcpy(hb + b * g->q, ps->blocks[b].beta, sizeof(double) * (size_t)g->q);
  CUDA_CHECK(cudaMemcpyAsync(g->beta, hb, sizeof(double) * (size_t)(ps->nblocks * g->q),
                             cudaMemcpyHostToDevice, STREAM));
  return TSR_OK;
}

/* The loss (gradient, Hessian) of block b into its results. */
static int block_sums(glm_run *g, long long b) {
  const tsr_glm_block *bl = &g->pass->blocks[b];
  long long p = g->pass->p, rows = bl->rows, nrc = row_ctas(rows);
  double *out = g->out + b * g->len;
  if (rows <= 0)
    return CUDA_STATUS(cudaMemsetAsync(out, 0, sizeof(double) * (size_t)g->len, STREAM));
  rows_args a = {.family = g->pass->family,
                 .p = p,
                 .rows = rows,
                 .chunk = cdiv(rows, nrc),
                 .ld = g->ld,
                 .x = bl->x,
                 .y = bl->y,
                 .beta = g->beta + b * g->q,
                 .part = g->part,
                 .r = g->r,
                 .w = g->w};
  if (g->grad)
    rows_kernel<true><<<(unsigned)nrc, THREADS, 0, STREAM>>>(a);
  else
    rows_kernel<false><<<(unsigned)nrc, THREADS, 0, STREAM>>>(a);
  if (g->grad && g->q > GCOLS)
    rest_kernel<<<dim3((unsigned)cdiv(g->q - GCOLS, REST_THREADS), (unsigned)nrc), REST_THREADS, 0,
                  STREAM>>>(a);
  long long nhc = g->hess ? hess_ctas(rows, g->npairs) : 0;
  if (g->hess) {
    hess_args h = {p, rows, cdiv(rows, nhc), g->ntile, g->npairs, bl->x, g->w, g->hpart};
    hess_kernel<<<dim3((unsigned)g->npairs, (unsigned)nhc), THREADS, 0, STREAM>>>(h);
  }
  finish_args f = {g->q, g->len, nrc, g->ld, nhc, g->npairs, g->part, g->hpart, out};
  finish_kernel<<<(unsigned)cdiv(g->len, THREADS), THREADS, 0, STREAM>>>(f);
  CUDA_CHECK(cudaGetLastError());
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
  long long n = ps->nblocks * g->len;
  if (ps->what == TSR_GLM_CHECK) {
    check_finish<<<(unsigned)cdiv(n, THREADS), THREADS, 0, STREAM>>>(n, g->slot, g->out);
    CUDA_CHECK(cudaGetLastError());
  }
  CUDA_CHECK(
      cudaMemcpyAsync(g->host, g->out, sizeof(double) * (size_t)n, cudaMemcpyDeviceToHost, STREAM));
  CUDA_CHECK(cudaStreamSynchronize(STREAM));
  for (long long b = 0; b < ps->nblocks; b++)
    memcpy(ps->blocks[b].out, g->host + b * g->len, sizeof(double) * (size_t)g->len);
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
  g->grad = ps->what == TSR_GLM_GRAD || ps->what == TSR_GLM_HESS;
  g->hess = ps->what == TSR_GLM_HESS;
  g->ld = g->grad ? 1 + g->q : 1;
  g->ntile = cdiv(g->q, TILE);
  g->npairs = g->ntile * (g->ntile + 1) / 2;
  for (long long b = 0; b < ps->nblocks; b++)
    if (ps->blocks[b].rows > g->max_rows) g->max_rows = ps->blocks[b].rows;
  size_t nhost = (size_t)(ps->nblocks * (g->len + g->q));
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
  for (long long b = 0; b < pass->nblocks; b++)
    TSR_CHECK_GOTO(st, check ? block_check(&g, b) : block_sums(&g, b), done);
  st = download_outs(&g);
done:
  if (st != TSR_OK) cudaStreamSynchronize(STREAM); /* launched work may still use the scratch */
  run_free(&g);
  return st;
}
