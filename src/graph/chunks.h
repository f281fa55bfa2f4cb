/*
 * chunks.h - chunk grids: Dask's normalized per-axis chunk lists.
 *
 * A grid splits an n-d shape into blocks: along axis a there are nchunks[a]
 * chunks of sizes sizes[a][0..nchunks[a]-1] (summing to shape[a]). Slicing a
 * grid moves no data: each input chunk contributes the number of selected
 * indices it holds (chunks left empty are dropped), so slices with steps
 * produce irregular grids, exactly as dask.array does. Every rank computes the
 * same grids from the same inputs.
 */
#ifndef TSR_CHUNKS_H
#define TSR_CHUNKS_H

#include <stddef.h>
#include <stdint.h>

#include "kernel/ids.h"

/* The most chunks one array may have (all axes together): every chunk costs
 * table entries and plan work on every rank, and a grid beyond this is a
 * mistake (chunks=1 on a large axis), refused before anything is allocated. */
#define TSR_MAX_CHUNKS ((int64_t)1 << 24)

typedef struct tsr_grid {
  int ndim;
  int64_t shape[TSR_MAXDIM];
  int64_t nchunks[TSR_MAXDIM];
  int64_t *sizes[TSR_MAXDIM];  /* nchunks[a] entries, each >= 1 unless shape[a]==0 */
  int64_t *starts[TSR_MAXDIM]; /* nchunks[a]+1 prefix sums: starts[a][0]=0, last = shape[a] */
} tsr_grid;

/* An axis of length 0 has one chunk of size 0 (as in Dask). */

/* Regular grid: chunk[a] >= 1 elements per chunk, the last one smaller. */
int tsr_grid_init_regular(tsr_grid *g, int ndim, const int64_t *shape, const int64_t *chunk);

/* Grid from explicit per-axis size lists; sums must equal shape (TSR_ERR_SHAPE
 * otherwise), sizes must be >= 1 (TSR_ERR_VALUE otherwise). */
int tsr_grid_init_lists(tsr_grid *g, int ndim, const int64_t *shape, const int64_t *const *sizes,
                        const int64_t *nsizes);

/* Chunks of about target_bytes (Dask's "auto"): as close to square/cubic
 * blocks as the shape allows, each axis's chunk size <= its length. */
int tsr_grid_init_auto(tsr_grid *g, int ndim, const int64_t *shape, size_t itemsize,
                       size_t target_bytes);

/* Dask's "auto" given previous chunks (normalize_chunks' previous_chunks):
 * the chunks of the array being rechunked, or a dataset's storage chunks.
 * The axes with auto_axes[a] set (every axis if auto_axes is NULL) get chunks
 * of about target_bytes in prev's proportions: whole previous chunks grouped
 * where they are small enough, else a regular size (a multiple of the
 * commonest previous chunk when above it); an axis whose share passes its
 * length is taken whole. The other axes keep prev's chunks. Same shape as
 * prev. */
int tsr_grid_init_auto_prev(tsr_grid *g, const tsr_grid *prev, const int *auto_axes,
                            size_t itemsize, size_t target_bytes);

int tsr_grid_copy(tsr_grid *dst, const tsr_grid *src);
void tsr_grid_free(tsr_grid *g);
int tsr_grid_equal(const tsr_grid *a, const tsr_grid *b);

/* Total number of chunks and conversions between linear chunk index
 * (row-major over the chunk grid) and per-axis chunk coordinates. */
int64_t tsr_grid_count(const tsr_grid *g);
void tsr_grid_unravel(const tsr_grid *g, int64_t linear, int64_t *idx);
int64_t tsr_grid_ravel(const tsr_grid *g, const int64_t *idx);

/* Element box of a chunk: start[a] and extent[a] for each axis. */
void tsr_grid_chunk_box(const tsr_grid *g, const int64_t *idx, int64_t *start, int64_t *extent);
/* The same for linear chunk c; returns its number of elements. */
int64_t tsr_grid_chunk_at(const tsr_grid *g, int64_t c, int64_t *start, int64_t *extent);

/* Number of the chunk of axis `axis` that holds element `index` (binary search). */
int64_t tsr_grid_find(const tsr_grid *g, int axis, int64_t index);

/* Largest chunk, in elements. */
int64_t tsr_grid_max_chunk_elems(const tsr_grid *g);

/* Python slice semantics on an axis of length len: start/stop/step may be NULL
 * (omitted). Negative values count from the end; out-of-range start/stop are
 * clipped. Outputs the first index, the step and the element count.
 * step == 0 is TSR_ERR_VALUE ("slice step cannot be zero"). */
int tsr_slice_normalize(int64_t len, const int64_t *start, const int64_t *stop, const int64_t *step,
                        int64_t *first, int64_t *out_step, int64_t *count);

typedef enum { TSR_SEL_SLICE, TSR_SEL_INDEX, TSR_SEL_NEWAXIS } tsr_sel_kind;

/* What an index expression selects on one input axis (NEWAXIS consumes none). */
typedef struct tsr_axis_sel {
  tsr_sel_kind kind;
  int64_t first, step, count; /* SLICE: normalized by tsr_slice_normalize */
  int64_t index;              /* INDEX: a valid non-negative index */
} tsr_axis_sel;

/* Grid of x[sel]: nsel selections covering the input axes in order (input
 * axes beyond them are taken whole). Indexed axes disappear, NEWAXIS inserts
 * an axis of length 1 with one chunk. Per sliced axis, each input chunk
 * contributes its selected count, in selection order (reversed for negative
 * steps); empty contributions are dropped (an empty result has one chunk of 0). */
int tsr_grid_select(const tsr_grid *in, const tsr_axis_sel *sel, int nsel, tsr_grid *out);

/* Grid of an elementwise result of a and b under NumPy broadcasting (shapes
 * right-aligned, length-1 axes stretch). On equal-length axes the chunk
 * boundaries are the union of both (Dask's unify_chunks); a stretched axis
 * takes the other operand's chunks. Mismatch: TSR_ERR_SHAPE with a message
 * "operands could not be broadcast together with shapes (..) (..)". */
int tsr_grid_broadcast(const tsr_grid *a, const tsr_grid *b, tsr_grid *out);

/* dask.array's reshape rule (reshape_rechunk; chunks_join.c): in_grid is
 * in's shape rechunked, out_grid the result's chunks, with as many chunks,
 * chunk c of one holding, in row-major order, the values of chunk c of the
 * other. A reshape dask does not do is TSR_ERR_SHAPE with its explanation. */
int tsr_grid_reshape(const tsr_grid *in, int ndim, const int64_t *shape, tsr_grid *in_grid,
                     tsr_grid *out_grid);

/* The grid of a and b joined along axis (concatenate): a's chunks then
 * b's along it, and the union of their boundaries on the other axes, whose
 * lengths must be equal (TSR_ERR_SHAPE with NumPy's message). */
int tsr_grid_concat(const tsr_grid *a, const tsr_grid *b, int axis, tsr_grid *out);

/* Grid after reducing `axis` (keepdims: the axis stays with one chunk of 1). */
int tsr_grid_reduce(const tsr_grid *in, int axis, int keepdims, tsr_grid *out);

/* "(3, 4)" and "((2, 1), (4,))" style text, for messages and tests. */
void tsr_shape_format(int ndim, const int64_t *shape, char *buf, size_t n);
void tsr_grid_format(const tsr_grid *g, char *buf, size_t n);

#endif
