/*
 * array.h - the lazy array DAG built by the interpreter.
 *
 * Each node is one array operation with its shape, dtype and chunk grid known
 * as soon as it is created (like Dask's _meta); nothing is computed until a
 * value is needed. Identical nodes are shared (common-subexpression
 * elimination by hash-consing), except random arrays, which are distinct by
 * construction. A computed node keeps its value (replicated on every rank),
 * or its chunks on their owners (held): the row blocks of Q and U, the
 * chunks of products, and persisted arrays, in backend memory (device
 * memory with the CUDA backend), where later programs read them.
 */
#ifndef TSR_ARRAY_H
#define TSR_ARRAY_H

#include <stdint.h>

#include "graph/chunks.h"
#include "graph/fit.h"
#include "graph/sources.h"
#include "kernel/ids.h"

typedef enum tsr_node_kind {
  N_RANDOM,  /* normal / uniform over a Philox stream */
  N_FULL,    /* constant fill (zeros, ones, full, Python numbers) */
  N_ARANGE,  /* start + step * i */
  N_UNARY,   /* elementwise f(x) */
  N_BINARY,  /* elementwise f(x, y) with broadcasting */
  N_SELECT,  /* indexing and slicing */
  N_ASTYPE,  /* dtype conversion */
  N_REDUCE,  /* sum/mean/min/max/std/var over all axes or one */
  N_LOAD,    /* an HDF5 dataset, read chunk by chunk as hyperslabs (stage.h) */
  N_RECHUNK, /* in[0]'s values on another chunk grid: pieces move between owners */
  N_LINALG,  /* transpose, matmul, qr, svd (op: tsr_la_op; src/linalg/linalg.h) */
  N_PERSIST, /* in[0]'s values, evaluated once and held (below) until the job ends */
  N_SCAN,    /* cumulative op along an axis (below): computed whole, held like N_PERSIST */
  N_SORT,    /* in[0] sorted along an axis (below): computed whole, held like N_PERSIST */
  N_RESHAPE, /* in[0]'s chunks relabelled as another shape's (below): held like N_PERSIST */
  N_CONCAT,  /* in[0] then in[1] along an axis (below): computed whole, held like N_PERSIST */
  N_VALUES,  /* values written in the job (array([...])): its value set when made, kept */
  N_HIST,    /* a histogram of in[0] (below): computed whole, its value replicated */
  N_COMPRESS /* the rows of in[0] where in[1] is true (below): computed whole, held */
} tsr_node_kind;

/* Boolean masks (N_COMPRESS, x[mask] of dask and NumPy): in[0] (R, ...)
 * and in[1] (R,), a mask with in[0]'s chunks along axis 0; the result is
 * the rows of in[0] where in[1] is nonzero, in order. Its length along
 * axis 0 is known only after compute (dask's nan chunks): the job computes
 * each chunk's count first (tsr_node_chunk_counts: the interpreter asks
 * for it while it reads the job), and the result's chunks along axis 0 are
 * those counts, the chunks with none left out; consts[i] is the chunk of
 * in[0] that the result's chunk i along axis 0 comes from. Computed by
 * exec/compress.c: each chunk on its owner, held like a persisted one. */

/* Histograms (N_HIST, dask.array's histogram, histogramdd and bincount):
 * the counts of in[0]'s samples in the bins of consts (the spec of
 * kernel/hist.h), each counted once or by its weight, in[1] (NULL: none).
 * One axis: in[0] of any shape, every element a sample, in[1] of its
 * shape. Several: in[0] (N, D) with one chunk along its axis 1, a row a
 * sample, in[1] (N,). The result has the axes' bin counts as its shape,
 * one chunk. Computed by exec/hist.c before the programs that read it:
 * each chunk of in[0] on its owner, the chunks' counts added in chunk
 * order (the same bits for any rank count). With b = 1 the bins of each
 * chunk are kept apart instead: the result is (in[0]'s chunks, bins), one
 * chunk (tsr_node_chunk_counts). */

/* Reshapes (N_RESHAPE, dask.array's reshape): in[0] is the input
 * rechunked by dask's reshape_rechunk, so that its chunk c (C order of the
 * chunk grids) holds, in row-major order, exactly the values of the
 * result's chunk c: computing it relabels in[0]'s chunks, each on the rank
 * that owns both (exec/concat.c). */

/* Concatenations (N_CONCAT, dask.array's concatenate): in[0] then in[1]
 * along axis; the result's chunks along it are in[0]'s then in[1]'s, and
 * on the other axes the common refinement of the two (dask's
 * unify_chunks), so that each chunk lies inside one input. Computed whole
 * (exec/concat.c): each chunk is evaluated from the input it lies in, on
 * its owner; a nest of concatenations not yet computed (concatenate of
 * many arrays, block, pad) is evaluated from its leaves in one step. */

/* Scans (N_SCAN, dask's cumreduction): op is the elementwise binary function
 * (EW_ADD: cumsum, EW_MUL: cumprod), a its identity, b 1 when NaN counts as
 * the identity (nancumsum). axis is the scanned axis of in[0], or -1: in[0]
 * flattened in C order, in[0] then having chunks that span every axis but
 * the first, so that its chunk c is chunk c of the 1-d result. Computed by
 * exec/scan.c before the programs that read it. */

/* Sorts (N_SORT): in[0]'s values sorted ascending along axis, NaN last
 * (NumPy's sort), op what else is at each line's start and a its q (see
 * tsr_node_sort), in[0] having one chunk along axis; axis -1: in[0] is one
 * chunk and the result its values flattened in C order, 1-d, one chunk.
 * Computed by exec/sort.c before the programs that read it. */

/* Linear-algebra results (N_LINALG): computed whole by src/linalg before the
 * programs that read them, like reductions. a: k of svd(x, k=) (0: all). */
typedef enum tsr_la_op {
  LA_TRANSPOSE,
  LA_MATMUL,
  LA_QR_Q,
  LA_QR_R,
  LA_SVD_U,
  LA_SVD_S,
  LA_SVD_VT,
  LA_GLM_COEF,      /* the coefficients of a GLM fit (node->fit) of X = in[0], y = in[1] */
  LA_GLM_INTERCEPT, /* its intercept (0-d) */
  LA_DIAGONAL,      /* a view: the diagonal of two axes, last (a: tsr_diag_code) */
  LA_CHOLESKY,      /* r upper with r^T r = in[0] (its upper triangle), one small matrix */
  LA_TRSM,          /* in[1] r^-1 for r = in[0] upper triangular (k x k), one small matrix */
  LA_LU             /* getrf of in[0] (n x n), one small matrix, 1-d: L and U packed (n x n,
                     * row-major), the row order p (row i of P^T a is a's row p[i]), then
                     * NumPy's slogdet sign and logabsdet and its det */
} tsr_la_op;

/* The largest side of the one small matrix of LA_CHOLESKY, LA_TRSM and LA_LU
 * (linalg/small.h: its value goes to every rank). */
#define TSR_SMALL_MAX 8192

typedef struct tsr_node tsr_node;
struct tsr_node {
  tsr_node_kind kind;
  int op; /* tsr_ew_op, tsr_random_kind or tsr_red_kind */
  tsr_dtype dtype;
  tsr_grid grid;   /* shape and chunks */
  tsr_node *in[2]; /* operands (NULL when unused) */
  double a, b;     /* RANDOM: loc/scale or low/high; FULL: value; ARANGE: start/step */
  uint64_t key;    /* RANDOM: Philox key */
  uint32_t stream; /* RANDOM: Philox stream */
  tsr_axis_sel sel[TSR_MAXDIM * 2]; /* SELECT */
  int nsel;
  int axis;                /* REDUCE: -1 for all axes */
  int keepdims, ddof;      /* REDUCE */
  const tsr_load_src *src; /* LOAD: the file and dataset (graph/sources.h) */
  int id;                  /* creation number (stable across ranks) */
  int depth;               /* 1 + the deepest operand's depth (TSR_MAX_DEPTH at most) */
  uint64_t hash;
  double *value; /* computed values (row-major), replicated; NULL until computed */
  double **held; /* or computed and distributed (held): per chunk id of grid, its
                       * row-major values in backend memory on its owner, NULL elsewhere;
                       * read through staged leaves (stage.h) */
  void (*held_free)(const void *ctx, double *chunk); /* releases a held chunk */
  const void *held_ctx;
  double held_bytes;  /* bytes of held chunks on this rank */
  int hold_checked;   /* its held bytes were counted by the checks before work */
  int held_size;      /* the ranks among which its chunks are held */
  uint64_t print;     /* its fingerprint across jobs (tsr_node_fingerprint), 0: not yet */
  int print_none;     /* it has none (depends on a fit or a decomposition) */
  tsr_fit *fit;       /* LINALG GLM_*: the fit (graph/fit.h) */
  double *consts;     /* HIST: the bins (kernel/hist.h), owned by the node */
  int64_t nconsts;
  char label[48];     /* PERSIST: what the user wrote ("x", "persist at 3:5"), for errors */
  tsr_node *next_all; /* list of all nodes, for freeing */
};

/* The deepest array expression the passes over the graph, which recurse
 * through operands, take: a deeper one is an error where it is built. */
#define TSR_MAX_DEPTH 20000

/* Node creation. Each returns TSR_OK and *out, or an error (shape mismatch,
 * bad chunks ...) with a message; errors are reported against the source by
 * the interpreter. */
int tsr_node_random(int kind, double a, double b, uint64_t key, uint32_t stream,
                    const tsr_grid *grid, tsr_dtype dt, tsr_node **out);
int tsr_node_full(double value, const tsr_grid *grid, tsr_dtype dt, tsr_node **out);
int tsr_node_arange(double start, double step, const tsr_grid *grid, tsr_dtype dt, tsr_node **out);
int tsr_node_unary(int op, tsr_node *x, tsr_node **out);
int tsr_node_binary(int op, tsr_node *x, tsr_node *y, tsr_node **out);
/* where(c, a, b): a where c is nonzero (NaN too), else b; broadcast. */
int tsr_node_where(tsr_node *c, tsr_node *a, tsr_node *b, tsr_node **out);
int tsr_node_select(tsr_node *x, const tsr_axis_sel *sel, int nsel, tsr_node **out);
int tsr_node_astype(tsr_node *x, tsr_dtype dt, tsr_node **out);
int tsr_node_reduce(int kind, tsr_node *x, int axis, int keepdims, int ddof, tsr_node **out);
int tsr_node_load(const tsr_load_src *src, const tsr_grid *grid, tsr_dtype dt, tsr_node **out);
/* x on grid (same shape); returns x itself when the grids are equal. */
int tsr_node_rechunk(tsr_node *x, const tsr_grid *grid, tsr_node **out);
/* A transpose's axis order as its node's parameter (N_LINALG, LA_TRANSPOSE):
 * output axis i is input axis perm[i]; 0 for the axes reversed (x.T), else
 * 1 + the sum of perm[i] 4^i (an exact double; TSR_MAXDIM is 4). */
static inline double tsr_perm_code(int ndim, const int *perm) {
  double code = 1.0, scale = 1.0;
  int reversed = 1;
  for (int i = 0; i < ndim; i++, scale *= 4.0) {
    code += perm[i] * scale;
    reversed &= perm[i] == ndim - 1 - i;
  }
  return reversed ? 0.0 : code;
}
static inline void tsr_perm_of(double code, int ndim, int *perm) {
  long long c = (long long)code - 1;
  for (int i = 0; i < ndim; i++, c /= 4) perm[i] = code == 0.0 ? ndim - 1 - i : (int)(c % 4);
}

/* A diagonal's offset and axes as its node's parameter (LA_DIAGONAL):
 * 16 offset + 4 axis1 + axis2, an exact double. */
static inline double tsr_diag_code(long long offset, int axis1, int axis2) {
  return 16.0 * (double)offset + 4.0 * axis1 + axis2;
}
static inline void tsr_diag_of(double code, long long *offset, int *axis1, int *axis2) {
  long long c = (long long)code, low = ((c % 16) + 16) % 16;
  *offset = (c - low) / 16, *axis1 = (int)(low / 4), *axis2 = (int)(low % 4);
}

/* x with its axes in the order perm (output axis i is x's axis perm[i]):
 * a view (N_LINALG, LA_TRANSPOSE) on x's chunks permuted; a transpose of a
 * transpose is one, and the identity x itself. */
int tsr_node_transpose(tsr_node *x, const int *perm, tsr_node **out);

/* A linear-algebra result (kind N_LINALG) of x (and y for matmul) on grid. */
int tsr_node_linalg(int op, tsr_node *x, tsr_node *y, double param, const tsr_grid *grid,
                    tsr_dtype dt, tsr_node **out);
/* An output of a GLM fit of X and y (op LA_GLM_COEF or LA_GLM_INTERCEPT). */
int tsr_node_fit(int op, tsr_node *x, tsr_node *y, tsr_fit *fit, const tsr_grid *grid,
                 tsr_node **out);

/* Whether n's chunks are kept on their owners once computed (persisted
 * arrays, the row blocks of Q and U, the chunks of products). */
int tsr_node_kept(const tsr_node *n);

/* A scan of x (see N_SCAN) along axis (-1: flattened, the result 1-d)
 * with result dtype dt; an empty x gives zeros of the result's shape. */
int tsr_node_scan(int op, double identity, int nan, tsr_node *x, int axis, tsr_dtype dt,
                  tsr_node **out);
/* x sorted along axis (see N_SORT; -1: flattened, the result 1-d), x
 * rechunked to one chunk along it first; x's dtype. what (a
 * TSR_SORT_ kind of kernel/quantile.h) other than TSR_SORT_ONLY puts each
 * line's nanquantile q or nanmedian at its start (x float64 then). */
int tsr_node_sort(tsr_node *x, int axis, int what, double q, tsr_node **out);
/* x sorted over the axes of mask together (NumPy's tuple axis of the
 * order statistics): x's other axes, then the axes of mask moved last and
 * flattened into one (C order), sorted along it; b is 1 + mask then (the
 * sort reorders each chunk of x so). */
int tsr_node_sort_axes(tsr_node *x, unsigned mask, int what, double q, tsr_node **out);
/* A scan's NumPy name (cumsum, nancumprod ...). */
const char *tsr_scan_name(const tsr_node *n);

/* An array of the given values (row-major, grid's size of them, already
 * of type dt), such as array([[1, 2], [3, 4]]) writes: computed from the
 * start and never cleared; equal values make one node. */
int tsr_node_values(const tsr_grid *grid, tsr_dtype dt, const double *values, tsr_node **out);

/* x with shape (ndim axes; the product equal to x's size), on dask's
 * chunks (see N_RESHAPE); x itself for its own shape. A reshape that dask
 * does not do (an axis split across others unevenly) is an error with
 * dask's explanation. */
int tsr_node_reshape(tsr_node *x, int ndim, const int64_t *shape, tsr_node **out);
/* x rechunked to one chunk along the axes of mask, its chunks kept on the
 * others (x itself when it has them already). */
int tsr_node_one_chunk(tsr_node *x, unsigned mask, tsr_node **out);
/* x and y joined along axis (see N_CONCAT): their shapes equal on the
 * other axes; the promoted dtype. */
int tsr_node_concat(tsr_node *x, tsr_node *y, int axis, tsr_node **out);

/* A histogram (see N_HIST) of x, weighted by w (NULL: none), over the
 * bins of spec (len doubles, kernel/hist.h; copied), of dtype dt. */
int tsr_node_hist(tsr_node *x, tsr_node *w, const double *spec, int64_t len, tsr_dtype dt,
                  tsr_node **out);

/* The count of nonzero values of each chunk of the 1-d m: an N_HIST of m
 * as bool, its chunks apart; value (nchunks, 2): [c, 1] is chunk c's. */
int tsr_node_chunk_counts(tsr_node *m, tsr_node **out);
/* The rows of x (R, ...) where m (R,) is nonzero (see N_COMPRESS), m on
 * x's chunks of axis 0 already, counts the value of
 * tsr_node_chunk_counts(m). */
int tsr_node_compress(tsr_node *x, tsr_node *m, const double *counts, tsr_node **out);

/* persist(x): x's values on x's grid, held once computed (kind N_PERSIST);
 * label names it in errors. */
int tsr_node_persist(tsr_node *x, const char *label, tsr_node **out);

int64_t tsr_node_size(const tsr_node *n);
const char *tsr_dtype_name(tsr_dtype dt);
const char *tsr_ew_name(int op);
const char *tsr_red_name(int kind);

/* n's chunks (indexed by chunk id of its grid; this rank's own, NULL for
 * the others) become its held chunks: the array is taken over, and each
 * chunk is released with release(ctx, chunk) (the backend's memory; NULL:
 * free()). Their bytes on this rank are counted here. */
void tsr_node_hold(tsr_node *n, double **chunks, void (*release)(const void *ctx, double *chunk),
                   const void *ctx);

/* Frees n's held chunks (n->held), if any. */
void tsr_node_release_held(tsr_node *n);

/* Bytes of held chunks on this rank, over every node of the job. */
double tsr_nodes_held_bytes(void);

/* ---- held arrays carried from one job to the next (a sweep's trials) ----
 * With carrying on, the end of a job keeps the held chunks of its persisted
 * arrays, each under the array's fingerprint: a hash of what computes it
 * (operations, shapes, chunks, seeds and streams, files and datasets), the
 * same in the next job for the same expression. A persisted array of the
 * next job with that fingerprint (and the same ranks) adopts the chunks
 * instead of computing them; carried arrays no node of the job matches are
 * released before its work (prune). A file a job loads must not change
 * between the jobs. Turning carrying off releases everything carried. */
void tsr_nodes_carry(int on);
void tsr_nodes_carry_prune(void);
/* Whether n (N_PERSIST, held among size ranks) adopted carried chunks. */
int tsr_node_adopt(tsr_node *n, int size);
/* Bytes this rank adopted since the last prune. */
double tsr_nodes_adopted_bytes(void);
/* 0 when n has no fingerprint (it depends on a fit or a decomposition). */
uint64_t tsr_node_fingerprint(tsr_node *n);
/* An output of a fit: a hash of the fingerprints of its X and y and of the
 * fit's settings but lamduh (the fits of two jobs with the same key differ
 * at most in lamduh); 0 when X or y has no fingerprint. */
uint64_t tsr_node_fit_key(tsr_node *n);
/* Lists every fit of the job in p (graph/fit.h: key and lamduh). */
int tsr_nodes_list_fits(tsr_fit_path *p);

/* Forgets every computed value (benchmark repeats recompute from scratch). */
void tsr_nodes_clear_values(void);

/* The end of a job: frees every node created since the last call and the
 * job's other graph state (decompositions, graph/groups.h; loaded datasets,
 * graph/sources.h; save statements, graph/sinks.h). */
void tsr_nodes_free_all(void);

#endif
