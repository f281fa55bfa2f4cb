/*
 * backend.h - the one door to a backend (the PETSc interface/impls pattern).
 *
 * A backend fills a tsr_backend_ops table (designated initializers; an op it
 * lacks stays NULL) and is registered by name in registry.c. Everything above
 * this layer calls the checked wrappers tsr_be_*() declared below, never
 * be->op() itself: the wrapper owns the "backend X has no op Y" error, the
 * trace span of the call and the progress count, so a call site is one line.
 *
 * A backend evaluates a fused program (fuse/program.h) over boxes of its
 * output space, either materializing the values or reducing them to partials
 * (kernel/stats.h). A program larger than the backend runs (its prog_limits)
 * is split by the wrappers (be_split.c): its parts run one after another over
 * each box, so no expression is refused for its size. The CPU backend lives
 * in src/cpu/, the CUDA backend in
 * src/gpu/. Backends never see MPI: what needs ranks (which device, whether
 * ranks share it) is decided in job/ and handed in through the config.
 */
#ifndef TSR_BACKEND_H
#define TSR_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include "fuse/program.h"
#include "fuse/split.h"
#include "kernel/hist.h"
#include "kernel/stats.h"
#include "util/trace.h"

/* Called by workers as chunks finish (elements done), for progress lines. */
typedef void (*tsr_progress_fn)(void *ctx, int64_t elements);

/* One batch of reductions: a program reduced over nchunks boxes of grid.
 * Partial i (for chunk ids[i]) has out_count[i] stats at out[i]. */
typedef struct tsr_reduce_batch {
  const tsr_prog *prog;
  const tsr_grid *grid;
  int64_t nchunks;
  const int64_t *ids;
  int kind; /* tsr_red_kind */
  int axis; /* -1: all axes */
  tsr_stat **out;
  tsr_progress_fn progress;
  void *progress_ctx;
} tsr_reduce_batch;

/* What a backend is told at setup (job/setup.c fills it). */
typedef struct tsr_backend_config {
  int threads;       /* CPU threads per rank */
  size_t mem_limit;  /* bytes per rank (device memory for GPU backends) */
  int shared;        /* another rank of this node uses the same device (from bind) */
  int any_shared;    /* some rank of the job shares its device: no device transport */
  const char *fault; /* testing knob (TESSERA_FAULT): the wrappers fail this op */
  /* testing knob (TESSERA_PROGRAM_LIMIT): limits below the backend's own, so
   * that split programs run on any backend (0: the backend's own) */
  tsr_prog_limits prog_limit;
  /* testing knob (TESSERA_GPU_NO_WALK): the CUDA backend reduces random
   * chains with its general kernel instead of the walking one (same bits) */
  int no_walk;
} tsr_backend_config;

/* A device's identity: equal for two ranks that use the same device. */
typedef struct tsr_device_id {
  unsigned char bytes[16];
} tsr_device_id;

/* One message of an exchange: n doubles of backend memory at buf, to or
 * from rank peer. */
typedef struct tsr_be_msg {
  int peer;
  double *buf;
  size_t n;
} tsr_be_msg;

/* A column's entry of largest magnitude (col_absmax): |value|, its row,
 * and the sign of the value (1 or -1; 1 for zero). */
typedef struct tsr_colmax {
  double big;
  int64_t row;
  double sign;
} tsr_colmax;

/* One row block of a GLM data pass (glm_pass below). */
typedef struct tsr_glm_block {
  const double *x; /* rows x p, row-major, in backend memory */
  const double *y; /* rows responses, in backend memory */
  int64_t rows;
  const double *beta; /* host memory: nbeta points of p coefficients, then the intercept */
  double *out;        /* host memory: nbeta results of tsr_glm_out_len(p, what) values */
} tsr_glm_block;

/* What a GLM data pass computes per block, with eta_i = x_i . beta[0..p-1]
 * + beta[p] and the family's loss, residual r and weight w (kernel/glm.h):
 *   TSR_GLM_LOSS: out[0] = the sum of the losses;
 *   TSR_GLM_GRAD: and out[1 .. p+1] = [X 1]^T r (the intercept's last);
 *   TSR_GLM_HESS: and out[p+2 ..] = [X 1]^T W [X 1], (p+1) x (p+1) row-major;
 *   TSR_GLM_CHECK: out[0] = the first row of x holding a NaN or an inf,
 *     out[1] = the first row whose y the family does not accept (-1: none). */
enum { TSR_GLM_LOSS, TSR_GLM_GRAD, TSR_GLM_HESS, TSR_GLM_CHECK };

static inline int64_t tsr_glm_out_len(int64_t p, int what) {
  int64_t q = p + 1;
  return what == TSR_GLM_CHECK  ? 2
         : what == TSR_GLM_LOSS ? 1
         : what == TSR_GLM_GRAD ? 1 + q
                                : 1 + q + q * q;
}

/* nbeta points per block (a lambda path's fits in one read of X): point j
 * at beta + j (p + 1), its results at out + j len; each point's results
 * have the bits of a pass of that point alone (nbeta 1). The data checks
 * take one point. */
typedef struct tsr_glm_pass {
  int family; /* tsr_glm_family (kernel/glm.h) */
  int what;   /* TSR_GLM_* above */
  int64_t p;
  int64_t nblocks;
  const tsr_glm_block *blocks;
  int64_t nbeta; /* points per block, at least 1 */
} tsr_glm_pass;

/* Capabilities (the caps op; fixed once setup has run). */
enum {
  TSR_BE_HOST_MEMORY = 1u << 0, /* alloc returns host memory: MPI and memcpy read it as it is */
  TSR_BE_DENSE = 1u << 1,       /* the dense kernels (qr, svd, gemm, ...) are on */
  TSR_BE_EXCHANGE = 1u << 2,    /* exchange moves backend memory between ranks now */
};

typedef struct tsr_backend_ops {
  const char *name;
  /* Nonzero when the backend can run here (devices present, ...). */
  int (*available)(void);
  /* Optional (backends with devices): selects this rank's device from its
   * rank among the ranks of its node (local_rank mod the devices visible),
   * and returns the device's identity and how many devices are visible.
   * job/setup.c compares identities across the node before setup, so that
   * the backend itself never needs MPI. */
  int (*bind)(int local_rank, tsr_device_id *id, int *count);
  /* Optional: called once a process, before any other op (job/setup.c,
   * before available), with the rank's node-local rank: the CUDA backend
   * restricts the process to the GPU bind will choose (CUDA_VISIBLE_DEVICES),
   * so that the driver starts one device instead of every GPU of the node. */
  void (*prepare)(int local_rank);
  /* Prepares devices, streams, pools for this rank. */
  int (*setup)(const tsr_backend_config *cfg);
  void (*teardown)(void);
  /* TSR_BE_* flags. */
  unsigned (*caps)(void);
  /* Optional: the largest program eval_box, reduce_box and reduce_chunks
   * take (absent: any). The wrappers split larger ones (be_split.c). */
  void (*prog_limits)(tsr_prog_limits *out);
  /* Reduces a batch of chunks (the fused hot path). */
  int (*reduce_chunks)(const tsr_reduce_batch *batch);
  /* Materializes prog over one box into out: row-major, in backend memory
   * (from alloc below). */
  int (*eval_box)(const tsr_prog *prog, const int64_t *start, const int64_t *extent, double *out);
  /* Reduces prog over one box into out (count: 1 or the box without axis). */
  int (*reduce_box)(const tsr_prog *prog, const int64_t *start, const int64_t *extent, int kind,
                    int axis, tsr_stat *out);
  /* Backend memory, where --no-fuse keeps materialized chunks (host memory
   * for the CPU, device memory for the GPU); CHUNKS leaves and leaves marked
   * resident read it. download copies n values of it to host memory, upload
   * n values of host memory into it; both return with the copy complete, so
   * that another thread may read the buffer next. */
  int (*alloc)(size_t bytes, double **ptr);
  void (*release)(double *ptr);
  int (*download)(const double *src, double *dst, size_t n);
  int (*upload)(const double *src, double *dst, size_t n);
  /* One line for `tessera info`. */
  void (*describe)(char *buf, size_t n);
  /* Peak backend memory this rank used since setup (device memory for the
   * GPU), in bytes; 0 when the backend does not measure it. */
  size_t (*peak_memory)(void);
  /* Optional: bytes of backend memory this rank may use (the device pool's
   * limit on the GPU); absent for host memory, which --mem-limit governs. */
  size_t (*memory_limit)(void);
  /* Optional: sends and receives pieces held in backend memory, one message
   * per peer and direction, all posted at once; returns when every message
   * has arrived. Used only while caps has TSR_BE_EXCHANGE (the CUDA backend:
   * NCCL between distinct GPUs); otherwise the executor moves host memory
   * with MPI (the buffers themselves when TSR_BE_HOST_MEMORY, downloaded
   * copies otherwise). */
  int (*exchange)(const tsr_be_msg *sends, int nsends, const tsr_be_msg *recvs, int nrecvs);
  /* Optional, collective: called on every rank before a round of exchanges
   * (also by ranks with nothing to send), so that a transport made on first
   * use is made by all ranks together (the CUDA backend: NCCL's
   * communicator, whose 0.42-0.46 s a job without exchanges never pays). */
  int (*exchange_ready)(void);
  /* Dense kernels of src/linalg, on row-major matrices in this backend's
   * memory (from alloc: device memory on the GPU, so no block of a matrix
   * leaves the device). Threads may call them at once; the same operands
   * give the same bits on every call, whatever the thread or rank count.
   * Each returns when its results are in place (a later op on any thread
   * may read them). Offered when caps has TSR_BE_DENSE.
   * qr: a (m x n) = q (m x K) r (K x n, upper triangular, zeros below),
   *   K = min(m, n); q may be a itself when m >= n (a is then overwritten).
   * svd: a (m x n) = u (m x P) diag(s) vt (P x n), P = min(m, n), s
   *   descending (s too in backend memory).
   * gemm: c (m x n) = a (m x k) b (k x n) + beta c, with leading
   *   dimensions lda, ldb, ldc.
   * copy2d: rows x cols values from src (rows lds apart) to dst (ldd apart).
   * axpy: y[i] += x[i] for n values.
   * col_absmax: for each column j of a (m x n, compact), its entry of
   *   largest magnitude (the first in row order on ties) into out[j], in
   *   host memory (svd_flip's choice of signs).
   * scale_cols: column j of a (m x n, compact) multiplied by f[j] (n values
   *   in host memory).
   * qr_deferred (optional): qr for m >= n whose q may still lack a last
   *   triangular correction: Q = q c with c (n x n, upper triangular) when
   *   *has_c is set on return, so that a caller who multiplies Q by a small
   *   matrix anyway (the TSQR down-sweep) applies c to that matrix instead
   *   of to the m rows of q (CholeskyQR2's second pass).
   * gram (optional, with cholesky and trsm_upper_right: TSQR's Gram path):
   *   g (n x n, full and symmetric) = a^T a for a (m x n).
   * cholesky: in place on a (n x n, symmetric): the upper triangular r
   *   with r^T r = a, zeros below; *ok = 0 (a then undefined) when a is not
   *   positive definite.
   * trsm_upper_right: a (m x n) <- a r^-1 in place, r (n x n) upper
   *   triangular. */
  int (*qr)(int64_t m, int64_t n, const double *a, double *q, double *r);
  int (*svd)(int64_t m, int64_t n, const double *a, double *s, double *u, double *vt);
  int (*gemm)(int64_t m, int64_t n, int64_t k, const double *a, int64_t lda, const double *b,
              int64_t ldb, double beta, double *c, int64_t ldc);
  int (*copy2d)(int64_t rows, int64_t cols, const double *src, int64_t lds, double *dst,
                int64_t ldd);
  int (*axpy)(size_t n, const double *x, double *y);
  int (*col_absmax)(int64_t m, int64_t n, const double *a, tsr_colmax *out);
  int (*scale_cols)(int64_t m, int64_t n, double *a, const double *f);
  int (*qr_deferred)(int64_t m, int64_t n, const double *a, double *q, double *r, double *c,
                     int *has_c);
  int (*gram)(int64_t m, int64_t n, const double *a, double *g);
  int (*cholesky)(int64_t n, double *a, int *ok);
  int (*trsm_upper_right)(int64_t m, int64_t n, const double *r, double *a);
  /* glm_pass: one data pass of a GLM fit over row blocks (tsr_glm_pass):
   * each block's sums in a fixed order, so that a block gives the same bits
   * whichever rank or thread computes it and whatever else is in the pass.
   * Called from one thread at a time. */
  int (*glm_pass)(const tsr_glm_pass *pass);
  /* Scans (exec/scan.c), in place on a (outer x len x inner, compact, in
   * backend memory), along its middle axis, with the shared scalar
   * tsr_ew_binary(op, ., .) (kernel/ew_scalar.h); each line in order, so the
   * same chunk gives the same bits on every call and rank.
   * scan: a[o, l, i] = a[o, l-1, i] op a[o, l, i] for l = 1 .. len-1, a NaN
   *   read as identity first when nan is set.
   * scan_carry: a[o, l, i] = a[o, l, i] op carry[o, i] (carry: outer x
   *   inner values in host memory; NULL: none), then each value cast to
   *   dtype (tsr_dtype_cast). Called once for every chunk that scan
   *   scanned, also with no carry and dtype float64: scan may leave its
   *   last step to it (the CUDA backend's tiled lines: one pass over the
   *   chunk fewer), so only the last line a[., len-1, .] is final when scan
   *   returns. */
  int (*scan)(int64_t outer, int64_t len, int64_t inner, double *a, int op, double identity,
              int nan);
  int (*scan_carry)(int64_t outer, int64_t len, int64_t inner, double *a, int op,
                    const double *carry, int dtype);
  /* Optional: eval_box of prog over a box into a, then scan of a as
   * (outer x len x inner), in one pass where the backend can (the CUDA
   * backend: the tiles of a random chain's long lines are generated where
   * they are scanned, so its input is never written and read back). The
   * same bits as eval_box then scan; NULL: those two calls. */
  int (*scan_box)(const tsr_prog *prog, const int64_t *start, const int64_t *extent, int64_t outer,
                  int64_t len, int64_t inner, double *a, int op, double identity, int nan);
  /* Sort (exec/sort.c), in place on a (outer x len x inner, compact, in
   * backend memory): each line a[o, ., i] ascending, NaN last (NumPy's
   * sort); the same values in the same order on every call. what
   * (kernel/quantile.h): TSR_SORT_ONLY, or then a[o, 0, i] replaced by
   * NumPy's nanquantile q (TSR_SORT_NANQUANTILE) or nanmedian of the line
   * (tsr_q_sorted of its values before the first NaN). */
  int (*sort)(int64_t outer, int64_t len, int64_t inner, double *a, int what, double q);
  /* Histogram (exec/hist.c): adds into out (host memory, h->nbins + 1
   * values, the last for the samples outside every bin) the n samples of x
   * (n x h->ndim, row-major, in backend memory), each counted once, or by
   * its weight w[i] (w: n values in backend memory; NULL: none), binned by
   * the shared kernel/hist.h; the same bits on every call. */
  int (*hist)(const tsr_hist *h, const double *x, int64_t n, const double *w, double *out);
  /* LU with partial pivoting (linalg/small.c), in place on a (n x n,
   * column-major, in backend memory): LAPACK's getrf, L unit lower and U
   * packed in a, ipiv (host memory, n values) its 1-based row swaps;
   * *singular set when a pivot is exactly zero (the factors still made). */
  int (*lu)(int64_t n, double *a, int *ipiv, int *singular);
  /* Compress (exec/compress.c): the rows of x (rows x len, row-major, in
   * backend memory) where m (rows values, backend memory) is nonzero (NaN
   * too), in order, into out (count x len, backend memory; count the
   * number of them, known to the caller). */
  int (*compress)(int64_t rows, int64_t len, const double *x, const double *m, int64_t count,
                  double *out);
  /* Optional: hist's counts (one axis, at most TSR_HIST_FUSED_BINS bins, no
   * weights) of prog's values over nbox boxes (box k: start and extent at
   * k * TSR_MAXDIM), added into out + k (h->nbins + 1), fused: the values
   * binned where they are computed, never stored (the CUDA backend: a
   * random chain's Philox stream binned as a reduction reduces it; the
   * boxes' launches queued together, one wait). NULL: exec/hist.c stages
   * each box and calls hist. */
  int (*hist_box)(const tsr_prog *prog, int64_t nbox, const int64_t *start, const int64_t *extent,
                  const tsr_hist *h, double *out);
} tsr_backend_ops;

/* ---- the registry (registry.c) ----------------------------------------- */

/* The backend registered under name ("cpu", "cuda"); NULL when this build
 * has none of that name. */
const tsr_backend_ops *tsr_backend_find(const char *name);
/* Registered backends, in registration order (the CPU's first). */
int tsr_backend_count(void);
const tsr_backend_ops *tsr_backend_at(int i);

/* ---- the checked wrappers (backend.c) ---------------------------------- */

/* What one call over a box reports: a trace span of category cat named
 * name (a literal or a table entry) for chunk (-1: none), counting one chunk
 * task when counts_chunk and 8 bytes per element when counts_bytes; and,
 * when it succeeds, the box's elements to progress (may be NULL). A NULL
 * span: nothing is reported. */
typedef struct tsr_be_span {
  tsr_trace_cat cat;
  const char *name;
  int64_t chunk;
  int counts_chunk, counts_bytes;
  tsr_progress_fn progress;
  void *progress_ctx;
} tsr_be_span;

int tsr_be_has_bind(const tsr_backend_ops *be);
int tsr_be_bind(const tsr_backend_ops *be, int local_rank, tsr_device_id *id, int *count);
/* Setup; also arms cfg->fault: the wrappers of qr, svd, gemm, eval_box,
 * reduce_box and reduce_chunks then fail with "injected fault in BACKEND op
 * OP (TESSERA_FAULT)", wherever they are called (worker threads included),
 * so that tests can check that such failures reach the report. */
int tsr_be_setup(const tsr_backend_ops *be, const tsr_backend_config *cfg);
/* The op names TESSERA_FAULT accepts, separated by spaces. */
extern const char tsr_be_fault_ops[];
void tsr_be_teardown(const tsr_backend_ops *be);
unsigned tsr_be_caps(const tsr_backend_ops *be);
/* The largest program be runs in one piece: its own limits, lowered by
 * cfg->prog_limit of the last setup. */
void tsr_be_prog_limits(const tsr_backend_ops *be, tsr_prog_limits *out);
const char *tsr_be_name(const tsr_backend_ops *be);
/* eval_box, reduce_box and reduce_chunks take programs of any size: one
 * that exceeds tsr_be_prog_limits runs as parts (be_split.c), each cut
 * register one more box of backend memory while a box is evaluated. */
int tsr_be_reduce_chunks(const tsr_backend_ops *be, const tsr_reduce_batch *b);
int tsr_be_eval_box(const tsr_backend_ops *be, const tsr_prog *p, const int64_t *start,
                    const int64_t *extent, double *out, const tsr_be_span *span);
/* alloc (the box's elements, at least one) + eval_box; *out is NULL on failure. */
int tsr_be_eval_new(const tsr_backend_ops *be, const tsr_prog *p, const int64_t *start,
                    const int64_t *extent, double **out, const tsr_be_span *span);
int tsr_be_reduce_box(const tsr_backend_ops *be, const tsr_prog *p, const int64_t *start,
                      const int64_t *extent, int kind, int axis, tsr_stat *out,
                      const tsr_be_span *span);
/* n doubles of backend memory (at least one). */
int tsr_be_alloc(const tsr_backend_ops *be, size_t n, double **ptr);
void tsr_be_release(const tsr_backend_ops *be, double *ptr); /* NULL: nothing */
int tsr_be_download(const tsr_backend_ops *be, const double *src, double *dst, size_t n);
int tsr_be_upload(const tsr_backend_ops *be, const double *src, double *dst, size_t n);
int tsr_be_has_exchange(const tsr_backend_ops *be);
/* Collective: the backend's exchange_ready where it has one. */
int tsr_be_exchange_ready(const tsr_backend_ops *be);
int tsr_be_exchange(const tsr_backend_ops *be, const tsr_be_msg *sends, int nsends,
                    const tsr_be_msg *recvs, int nrecvs);
void tsr_be_describe(const tsr_backend_ops *be, char *buf, size_t n);
size_t tsr_be_peak_memory(const tsr_backend_ops *be);
/* The backend's own memory limit (0: none of its own, host memory). */
size_t tsr_be_memory_limit(const tsr_backend_ops *be);

/* The dense kernels (see the ops table), on this backend's memory. */
int tsr_be_qr(const tsr_backend_ops *be, int64_t m, int64_t n, const double *a, double *q,
              double *r);
int tsr_be_svd(const tsr_backend_ops *be, int64_t m, int64_t n, const double *a, double *s,
               double *u, double *vt);
int tsr_be_gemm(const tsr_backend_ops *be, int64_t m, int64_t n, int64_t k, const double *a,
                int64_t lda, const double *b, int64_t ldb, double beta, double *c, int64_t ldc);
int tsr_be_copy2d(const tsr_backend_ops *be, int64_t rows, int64_t cols, const double *src,
                  int64_t lds, double *dst, int64_t ldd);
/* n contiguous values (copy2d of one row). */
int tsr_be_copy(const tsr_backend_ops *be, const double *src, double *dst, size_t n);
int tsr_be_axpy(const tsr_backend_ops *be, size_t n, const double *x, double *y);
int tsr_be_col_absmax(const tsr_backend_ops *be, int64_t m, int64_t n, const double *a,
                      tsr_colmax *out);
int tsr_be_scale_cols(const tsr_backend_ops *be, int64_t m, int64_t n, double *a, const double *f);
/* Whether the backend has qr_deferred (for m >= n; see the ops table). */
int tsr_be_has_qr_deferred(const tsr_backend_ops *be);
int tsr_be_qr_deferred(const tsr_backend_ops *be, int64_t m, int64_t n, const double *a, double *q,
                       double *r, double *c, int *has_c);
/* Whether the backend has gram, cholesky and trsm_upper_right. */
int tsr_be_has_gram(const tsr_backend_ops *be);
int tsr_be_gram(const tsr_backend_ops *be, int64_t m, int64_t n, const double *a, double *g);
int tsr_be_cholesky(const tsr_backend_ops *be, int64_t n, double *a, int *ok);
int tsr_be_lu(const tsr_backend_ops *be, int64_t n, double *a, int *ipiv, int *singular);
int tsr_be_compress(const tsr_backend_ops *be, int64_t rows, int64_t len, const double *x,
                    const double *m, int64_t count, double *out);
int tsr_be_trsm_upper_right(const tsr_backend_ops *be, int64_t m, int64_t n, const double *r,
                            double *a);
int tsr_be_glm_pass(const tsr_backend_ops *be, const tsr_glm_pass *pass);
int tsr_be_scan(const tsr_backend_ops *be, int64_t outer, int64_t len, int64_t inner, double *a,
                int op, double identity, int nan);
int tsr_be_scan_carry(const tsr_backend_ops *be, int64_t outer, int64_t len, int64_t inner,
                      double *a, int op, const double *carry, int dtype);
/* eval_box of p over the box into a (backend memory, the box's elements)
 * and scan of a (the ops table's scan_box; without it, the two calls). */
int tsr_be_scan_box(const tsr_backend_ops *be, const tsr_prog *p, const int64_t *start,
                    const int64_t *extent, int64_t outer, int64_t len, int64_t inner, double *a,
                    int op, double identity, int nan);
int tsr_be_hist(const tsr_backend_ops *be, const tsr_hist *h, const double *x, int64_t n,
                const double *w, double *out);
/* Whether the backend bins prog's values fused (hist_box: it has the op
 * and prog fits its kernels whole). */
int tsr_be_hist_box_takes(const tsr_backend_ops *be, const tsr_prog *prog);
int tsr_be_hist_box(const tsr_backend_ops *be, const tsr_prog *prog, int64_t nbox,
                    const int64_t *start, const int64_t *extent, const tsr_hist *h, double *out);
int tsr_be_sort(const tsr_backend_ops *be, int64_t outer, int64_t len, int64_t inner, double *a,
                int what, double q);

/* Values copied between backend memory and host memory since setup, by
 * download and upload (both 0 for backends whose memory is host memory:
 * nothing is copied). The summary reports them, and tests check that the
 * device-resident paths copy no block. */
void tsr_be_host_copies(double *down_bytes, double *up_bytes);

#endif
