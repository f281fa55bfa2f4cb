/*
 * nofuse.c - --no-fuse execution (nofuse.h): materializing boxes operation
 * by operation, reducing the materialized chunks, the local reader of LOAD
 * leaves and rechunking by local pieces. The fused executor (exec.c,
 * waves.c) calls in here when ex->no_fuse is set.
 */
#include "exec/nofuse.h"

#include <stdlib.h>
#include <string.h>

#include "exec/progcopy.h"
#include "fuse/program.h"
#include "io/h5array.h"
#include "mpi/comm.h"
#include "plan/plan.h"
#include "util/error.h"
#include "util/grow.h"
#include "util/trace.h"
#include "util/workers.h"

/* ---- local reads ---- */

/* --no-fuse: the LOAD leaves' buffers of one operation, freed after it. */
typedef struct local_bufs {
  double *buf[8];
  int n;
} local_bufs;

typedef struct reader_entry {
  const tsr_load_src *src;
  tsr_h5_reader *r;
} reader_entry;

/* Readers of --no-fuse, shared by the threads (HDF5 calls are serialized). */
static reader_entry *local_readers;
static int nlocal;

static int local_reader(const tsr_load_src *src, tsr_h5_reader **r) {
  for (int i = 0; i < nlocal; i++)
    if (local_readers[i].src == src) {
      *r = local_readers[i].r;
      return TSR_OK;
    }
  reader_entry *p = realloc(local_readers, sizeof *p * (size_t)(nlocal + 1));
  if (!p) return TSR_ERROR(TSR_ERR_MEMORY, "out of memory opening '%s'", src->path);
  local_readers = p;
  TSR_CHECK(tsr_h5_reader_open(src->path, src->dataset, 0, r));
  local_readers[nlocal++] = (reader_entry){src, *r};
  return TSR_OK;
}

/* Reads region g of leaf l's dataset into buf: HDF5 calls serialized
 * across threads, a direct read (tsr_h5_plan_direct) outside them, so that
 * the threads' direct reads overlap. */
static int local_read(const tsr_exec *ex, const tsr_leaf *l, const tsr_region *g, int64_t n,
                      double *buf) {
  int st = TSR_OK, direct = 0;
  double t0 = tsr_comm_time();
  tsr_h5_reader *r = NULL;
  tsr_h5_span span;
#pragma omp critical(tsr_hdf5)
  {
    st = local_reader(l->node->src, &r);
    if (st == TSR_OK && n > 0) direct = tsr_h5_plan_direct(r, g->lo, g->stride, g->count, &span);
    if (st == TSR_OK && n > 0 && !direct) st = tsr_h5_read(r, g->lo, g->stride, g->count, buf);
  }
  if (direct) st = tsr_h5_read_span(r, &span, buf);
  double dt = tsr_comm_time() - t0;
#pragma omp atomic
  ((tsr_exec *)ex)->io_s += dt;
#pragma omp atomic
  ((tsr_exec *)ex)->io_bytes += 8.0 * (double)n;
  return st;
}

/* Reads the LOAD leaves of a one-operation program p for the box
 * start/extent in place; bufs receives what to free with local_free. */
static int stage_local(const tsr_exec *ex, tsr_prog *p, const int64_t *start, const int64_t *extent,
                       local_bufs *bufs) {
  bufs->n = 0;
  tsr_sbox b;
  for (int a = 0; a < p->ndim; a++) {
    b.first[a] = start[a];
    b.step[a] = 1;
    b.count[a] = extent[a];
  }
  int st = TSR_OK;
  for (int i = 0; i < p->nleaves && st == TSR_OK; i++) {
    tsr_leaf *l = &p->leaves[i];
    if (l->kind == LEAF_XFER || l->kind == LEAF_HELD)
      return TSR_ERROR(TSR_ERR_INTERNAL, "a rechunk or held leaf in a one-operation program");
    if (l->kind != LEAF_LOAD) continue;
    if (bufs->n == 8) return TSR_ERROR(TSR_ERR_INTERNAL, "more than 8 loads in one operation");
    tsr_region g;
    tsr_leaf_region(l, &b, &g);
    int64_t n = tsr_elems_of(l->base_ndim, g.count);
    double *buf = malloc(sizeof(double) * (size_t)(n + 1));
    if (!buf) return TSR_ERROR(TSR_ERR_MEMORY, "out of memory for a read");
    bufs->buf[bufs->n++] = buf;
    st = local_read(ex, l, &g, n, buf);
    if (st == TSR_OK) tsr_leaf_to_data(l, &g, buf);
  }
  return st;
}

static void local_free(local_bufs *bufs) {
  for (int i = 0; i < bufs->n; i++) free(bufs->buf[i]);
  bufs->n = 0;
}

void tsr_nofuse_job_end(void) {
  for (int i = 0; i < nlocal; i++) tsr_h5_reader_close(local_readers[i].r);
  free(local_readers);
  local_readers = NULL;
  nlocal = 0;
}

/* ---- buffers released once nothing queued reads them ---- */

/* A backend may return from eval_box before its work is done: the CUDA
 * backend queues the kernel on the calling thread's stream and returns. An
 * input chunk released to the backend's pool (shared by the workers) as soon
 * as its consumer is queued could be handed to another worker and
 * overwritten while that consumer still reads it. A host thread's operations
 * run in order, and a call that returns host data (download, reduce_box)
 * returns after everything the thread queued before it; so the buffers a
 * chunk task is done with are retired here and released after such a call:
 * the reduction of the chunk, the caller's download, or a wait for one value
 * (settle) when the retired bytes pass the task's limit.
 *
 * Expected effect (the CUDA backend, whose eval_box returns without waiting
 * for an operation on materialized chunks): W1 --no-fuse waited for each of
 * its 4 kernels per chunk; now for the generator's and the reduction's, with
 * `+ 1`, the slice and the sum queued back to back on the worker's stream,
 * so each worker keeps a chunk's chain queued and the GPU is not left idle
 * between operations. The live set per worker becomes the chunks of the
 * task's cone (W1: 1.8 GB instead of 1.6 GB at the peak), which is what
 * tsr_nofuse_threads reserves (cone_bytes); the limit keeps it there when a
 * box reads several input chunks. */
typedef struct retired {
  double **buf;
  int64_t n, cap;
  double bytes; /* of the retired buffers */
  double limit; /* settle when bytes pass it */
} retired;

static void retired_init(retired *r, double limit) {
  memset(r, 0, sizeof *r);
  r->limit = limit;
}

/* Releases the retired buffers: only when this thread's queued work is done. */
static void retired_release(const tsr_exec *ex, retired *r) {
  for (int64_t i = 0; i < r->n; i++) tsr_be_release(ex->be, r->buf[i]);
  r->n = 0;
  r->bytes = 0.0;
}

/* Waits for the work this thread queued: a download of one value returns
 * after everything queued before it (a kernel's failure shows here). */
static int wait_queued(const tsr_exec *ex, const double *buf) {
  double one;
  return tsr_be_download(ex->be, buf, &one, 1);
}

/* Waits, then releases the retired buffers (even when the wait fails). */
static int retired_settle(const tsr_exec *ex, retired *r) {
  int st = r->n ? wait_queued(ex, r->buf[r->n - 1]) : TSR_OK;
  retired_release(ex, r);
  return st;
}

/* Ends a chunk task: after a call that returned host data (st OK), the
 * queued work is done; after a failure it may not be, so wait first. */
static int retired_end(const tsr_exec *ex, retired *r, int st) {
  if (st == TSR_OK)
    retired_release(ex, r);
  else
    retired_settle(ex, r);
  free(r->buf);
  r->buf = NULL;
  r->cap = 0;
  return st;
}

/* Retires buf (n values; NULL: nothing); without memory to list it, waits
 * and releases it at once. */
static int retire(const tsr_exec *ex, retired *r, double *buf, int64_t n) {
  if (!buf) return TSR_OK;
  int st = tsr_grow((void **)&r->buf, &r->cap, r->n + 1, sizeof *r->buf, "retiring a chunk");
  if (st != TSR_OK) {
    wait_queued(ex, buf);
    tsr_be_release(ex->be, buf);
    return st;
  }
  r->buf[r->n++] = buf;
  r->bytes += 8.0 * (double)n;
  return TSR_OK;
}

/* ---- rechunking by local pieces ---- */

static int materialize(const tsr_exec *ex, const tsr_node *n, const int64_t *start,
                       const int64_t *extent, retired *r, double **out);

/* Materializes piece p of source x and places it in the region buffer. The
 * download waits for everything this thread queued: the piece and what was
 * retired before it are released then. */
static int rechunk_piece(const tsr_exec *ex, const tsr_node *x, const tsr_piece *p,
                         const tsr_region *g, retired *r, double *host) {
  int nd = x->grid.ndim;
  int64_t n_piece = tsr_elems_of(nd, p->box.count);
  double *dev = NULL, *h = malloc(sizeof(double) * (size_t)(n_piece + 1));
  int st = h ? materialize(ex, x, p->box.first, p->box.count, r, &dev)
             : TSR_ERROR(TSR_ERR_MEMORY, "out of memory rechunking a chunk");
  if (st == TSR_OK) st = tsr_be_download(ex->be, dev, h, (size_t)n_piece);
  if (st == TSR_OK) tsr_place_piece(nd, g->count, host, p->j0, p->box.count, h);
  int rs = retire(ex, r, dev, n_piece);
  if (st == TSR_OK) st = rs;
  if (st == TSR_OK) retired_release(ex, r);
  free(h);
  return st;
}

/* A box of a rechunked array (n->kind N_RECHUNK) into backend memory *out:
 * the source's chunks that the box overlaps are materialized one piece
 * (chunk and box intersected) at a time and copied in through host memory. */
static int rechunk_box(const tsr_exec *ex, const tsr_node *n, const int64_t *start,
                       const int64_t *extent, retired *r, double **out) {
  const tsr_node *x = n->in[0];
  int nd = x->grid.ndim;
  int64_t total = tsr_elems_of(nd, extent);
  double *host = malloc(sizeof(double) * (size_t)(total + 1));
  if (!host) return TSR_ERROR(TSR_ERR_MEMORY, "out of memory rechunking a chunk");
  tsr_region g;
  memset(&g, 0, sizeof g);
  for (int a = 0; a < nd && a < TSR_MAXDIM; a++) {
    g.lo[a] = start[a];
    g.stride[a] = 1;
    g.count[a] = extent[a];
  }
  tsr_piece_list pl = {0};
  int st;
  *out = NULL;
  TSR_CHECK_GOTO(st, tsr_plan_region(&pl, 0, 0, &g, &x->grid, 1), done);
  for (int64_t k = 0; k < pl.n; k++)
    TSR_CHECK_GOTO(st, rechunk_piece(ex, x, &pl.p[k], &g, r, host), done);
  TSR_CHECK_GOTO(st, tsr_be_alloc(ex->be, (size_t)total, out), done);
  TSR_CHECK_GOTO(st, tsr_be_upload(ex->be, host, *out, (size_t)total), done);
done:
  free(pl.p);
  free(host);
  if (st != TSR_OK) {
    tsr_be_release(ex->be, *out);
    *out = NULL;
  }
  return st;
}

/* ---- materializing operation by operation ---- */

/* A static name for a node's own operation (trace rows of --no-fuse). */
static const char *node_label(const tsr_node *n) {
  switch (n->kind) {
  case N_RANDOM:
    switch ((tsr_random_kind)n->op) {
    case RNG_NORMAL:
      return "normal";
    case RNG_UNIFORM:
      return "uniform";
    case RNG_GAMMA:
      return "gamma";
    case RNG_BETA:
      return "beta";
    case RNG_STUDENT_T:
      return "standard_t";
    case RNG_POISSON:
      return "poisson";
    case RNG_BINOMIAL:
      return "binomial";
    case RNG_INTEGERS:
      return "integers";
    }
    return "random";
  case N_FULL:
    return "full";
  case N_ARANGE:
    return "arange";
  case N_UNARY:
  case N_BINARY:
    return tsr_ew_name(n->op);
  case N_SELECT:
    return "slice";
  case N_ASTYPE:
    return "astype";
  case N_REDUCE:
    return tsr_red_name(n->op);
  case N_LINALG:
    return "linalg";
  case N_SCAN:
    return tsr_scan_name(n);
  case N_SORT:
    return "sort";
  case N_RESHAPE:
    return "reshape";
  case N_CONCAT:
    return "concatenate";
  case N_VALUES:
    return "array";
  case N_HIST:
    return "histogram";
  case N_COMPRESS:
    return "mask";
  default:
    return "operation";
  }
}

/* Chunk range of input leaf l covering the leaf's image of a box. */
static void leaf_chunk_range(const tsr_leaf *l, const int64_t *start, const int64_t *extent,
                             int64_t *lo, int64_t *hi) {
  const tsr_grid *g = &l->node->grid;
  for (int b = 0; b < l->base_ndim; b++) {
    int k = l->axis_of[b];
    int64_t c0 = l->off[b], c1 = l->off[b];
    if (k >= 0) {
      c0 = l->off[b] + l->step[b] * start[k];
      c1 = l->off[b] + l->step[b] * (start[k] + extent[k] - 1);
    }
    if (c0 > c1) {
      int64_t t = c0;
      c0 = c1;
      c1 = t;
    }
    lo[b] = tsr_grid_find(g, b, c0);
    hi[b] = tsr_grid_find(g, b, c1);
  }
}

/* Lists for count chunks in an empty set. */
static int chunkset_alloc(tsr_chunkset *cs, int64_t count) {
  cs->n = 0;
  cs->start = malloc(sizeof *cs->start * (size_t)(count + 1));
  cs->extent = malloc(sizeof *cs->extent * (size_t)(count + 1));
  cs->data = malloc(sizeof *cs->data * (size_t)(count + 1));
  if (cs->start && cs->extent && cs->data) return TSR_OK;
  return TSR_ERROR(TSR_ERR_MEMORY, "out of memory listing %lld input chunks", (long long)count);
}

/* Retires the chunks of a set (ndim axes: its consumer may still be queued)
 * and frees its lists. */
static int chunkset_end(const tsr_exec *ex, retired *r, int ndim, tsr_chunkset *cs) {
  int st = TSR_OK;
  for (int64_t i = 0; i < cs->n; i++) {
    int rs = retire(ex, r, (double *)cs->data[i], tsr_elems_of(ndim, cs->extent[i]));
    if (st == TSR_OK) st = rs;
  }
  free(cs->start);
  free(cs->extent);
  free((void *)cs->data);
  memset(cs, 0, sizeof *cs);
  return st;
}

/* Materializes every input chunk a CHUNKS leaf reads for this box (on
 * failure the set is ended here). */
static int fill_chunkset(const tsr_exec *ex, const tsr_leaf *l, const int64_t *start,
                         const int64_t *extent, retired *r, tsr_chunkset *cs) {
  int64_t lo[TSR_MAXDIM], hi[TSR_MAXDIM], idx[TSR_MAXDIM];
  const tsr_grid *g = &l->node->grid;
  leaf_chunk_range(l, start, extent, lo, hi);
  int64_t count = 1;
  for (int b = 0; b < l->base_ndim; b++) count *= hi[b] - lo[b] + 1;
  int st = chunkset_alloc(cs, count);
  if (st != TSR_OK) {
    chunkset_end(ex, r, l->base_ndim, cs);
    return st;
  }
  for (int64_t c = 0; c < count; c++) {
    int64_t rem = c;
    for (int b = l->base_ndim - 1; b >= 0; b--) {
      idx[b] = lo[b] + rem % (hi[b] - lo[b] + 1);
      rem /= hi[b] - lo[b] + 1;
    }
    tsr_grid_chunk_box(g, idx, cs->start[cs->n], cs->extent[cs->n]);
    double *buf;
    st = materialize(ex, l->node, cs->start[cs->n], cs->extent[cs->n], r, &buf);
    if (st != TSR_OK) {
      chunkset_end(ex, r, l->base_ndim, cs);
      return st;
    }
    cs->data[cs->n++] = buf;
  }
  return TSR_OK;
}

/* A CHUNKS leaf whose box lies in one input chunk (the usual case: chunks
 * of an elementwise chain align) reads that chunk as a resident DATA leaf:
 * its map shifted to the chunk's origin, over the chunk's shape, gives the
 * row-major index within the chunk. The same values (neither kind rounds),
 * read as the reduction of box_program reads a chunk. Expected effect on the
 * GPU: per element an affine index instead of a search of the chunk table
 * with a bounds test per axis, and the register chain path (eval_kernel)
 * instead of the interpreter's register file: the `+ 1` and slice kernels of
 * W1 move towards their memory-bandwidth time (0.37 ms and 0.14 ms per chunk
 * on an H200). On the CPU both kinds copy a row at a time: no change. */
static void chunk_view(tsr_leaf *l) {
  const tsr_chunkset *cs = l->chunks;
  tsr_leaf_to_chunk(l, cs->start[0], cs->extent[0], cs->data[0]);
}

/* Fills the CHUNKS leaves of p: leaf i reads sets[i]. */
static int fill_inputs(const tsr_exec *ex, tsr_prog *p, const int64_t *start, const int64_t *extent,
                       retired *r, tsr_chunkset *sets) {
  for (int i = 0; i < p->nleaves; i++) {
    if (p->leaves[i].kind != LEAF_CHUNKS) continue;
    TSR_CHECK(fill_chunkset(ex, &p->leaves[i], start, extent, r, &sets[i]));
    p->leaves[i].chunks = &sets[i];
    if (p->leaves[i].chunks->n == 1) chunk_view(&p->leaves[i]);
  }
  return TSR_OK;
}

/* Materializes node n over a box into backend memory *out, depth first; the
 * input chunks it read are retired into r (the backend may still be reading
 * them when this returns). */
static int materialize(const tsr_exec *ex, const tsr_node *n, const int64_t *start,
                       const int64_t *extent, retired *r, double **out) {
  if (n->kind == N_RECHUNK && !n->in[0]->value) /* piece by piece from the source chunks */
    return rechunk_box(ex, n, start, extent, r, out);
  tsr_prog p;
  TSR_CHECK(tsr_prog_compile(n, 1, &p));
  /* An operation on materialized chunks may return before its output is
   * written: this thread's next operation, reduction or download is
   * ordered after it, and its inputs stay out of the pool until this
   * thread has waited (chunkset_end). */
  for (int i = 0; i < p.nleaves; i++) p.async |= p.leaves[i].kind == LEAF_CHUNKS;
  tsr_chunkset *sets = calloc((size_t)p.nleaves + 1, sizeof *sets); /* by leaf */
  local_bufs staged = {{0}, 0};
  int st = sets ? TSR_OK : TSR_ERROR(TSR_ERR_MEMORY, "out of memory listing input chunks");
  *out = NULL;
  if (st != TSR_OK) goto done;
  TSR_CHECK_GOTO(st, stage_local(ex, &p, start, extent, &staged), done); /* loads: read here */
  /* An empty box reads nothing: its image in an input is no box at all. */
  if (tsr_elems_of(n->grid.ndim, extent) > 0)
    TSR_CHECK_GOTO(st, fill_inputs(ex, &p, start, extent, r, sets), done);
  tsr_be_span span = {TSR_TRACE_MATERIALIZE, node_label(n), -1, 0, 1, NULL, NULL};
  st = tsr_be_eval_new(ex->be, &p, start, extent, out, &span);
done:
  for (int i = 0; i < p.nleaves; i++) /* the filled sets, one per CHUNKS leaf */
    if (p.leaves[i].chunks) {
      int rs = chunkset_end(ex, r, p.leaves[i].base_ndim, &sets[i]);
      if (st == TSR_OK) st = rs;
    }
  free(sets);
  if (st == TSR_OK && r->bytes > r->limit) st = retired_settle(ex, r);
  local_free(&staged); /* a DATA leaf's host buffer: the backend copied it before returning */
  tsr_prog_free(&p);
  if (st != TSR_OK && *out) { /* kept until what is queued is done */
    retire(ex, r, *out, tsr_elems_of(n->grid.ndim, extent));
    *out = NULL;
  }
  return st;
}

static double cone_bytes(const tsr_node *n);

int tsr_nofuse_materialize(const tsr_exec *ex, const tsr_node *n, const int64_t *start,
                           const int64_t *extent, double **out) {
  retired r;
  retired_init(&r, cone_bytes(n));
  int st = materialize(ex, n, start, extent, &r, out);
  /* The inputs go back once this thread's queued work is done; that wait
   * (when there were inputs) also covers the kernel that writes *out. */
  int ws = retired_settle(ex, &r);
  if (st == TSR_OK && ws != TSR_OK) {
    st = ws;
    tsr_be_release(ex->be, *out); /* the wait covered the kernel that wrote it */
    *out = NULL;
  }
  return retired_end(ex, &r, st);
}

/* ---- reductions ---- */

/* A program that reads a materialized box back (reduction of --no-fuse chunks). */
static int box_program(const tsr_node *n, const int64_t *start, const int64_t *extent,
                       const double *data, tsr_prog *p) {
  tsr_node view = *n;
  view.value = (double *)data;
  TSR_CHECK(tsr_prog_compile(&view, 0, p));
  tsr_leaf *l = &p->leaves[0];
  l->resident = 1;
  int64_t stride = 1;
  l->e_const = 0;
  for (int b = n->grid.ndim - 1; b >= 0; b--) {
    l->base_shape[b] = extent[b];
    l->e_const -= start[b] * stride;
    l->e_coef[b] = stride;
    stride *= extent[b];
  }
  return TSR_OK;
}

/* Peak bytes one --no-fuse worker holds: a chunk of every operation on the
 * longest chain, counted generously as all operations of the cone. */
static double cone_bytes(const tsr_node *n) {
  if (n->value || n->held || n->kind == N_FULL) return 0.0;
  double mine = 8.0 * (double)tsr_grid_max_chunk_elems(&n->grid);
  double sum = mine;
  for (int i = 0; i < 2; i++)
    if (n->in[i]) sum += cone_bytes(n->in[i]);
  return sum;
}

/* What the workers of one batch may take together: --mem-limit and, on a
 * device, no more than the device's limit less what held arrays take there.
 * The default --mem-limit is a share of the node's host memory: on a node of
 * 256 GB it let 12 workers of 3.2 GB chunks ask an 80 GB card for 77 GB. */
static double worker_limit(const tsr_exec *ex) {
  double limit = (double)ex->mem_limit;
  size_t dev = tsr_be_memory_limit(ex->be);
  if (dev) {
    double left = (double)dev - tsr_nodes_held_bytes();
    if (left < limit) limit = left > 0 ? left : 0;
  }
  return limit;
}

int tsr_nofuse_threads(const tsr_exec *ex, const tsr_node *x, int *threads) {
  double per = cone_bytes(x) + 8.0 * (double)tsr_grid_max_chunk_elems(&x->grid);
  double limit = worker_limit(ex);
  if (per < 8.0) per = 8.0; /* empty chunks: no bytes, but a worker still runs */
  if (per > limit) {
    int64_t fit = (int64_t)(limit / (per / (double)tsr_grid_max_chunk_elems(&x->grid)));
    return TSR_ERROR(TSR_ERR_MEMORY,
                     "chunks of %lld elements need %.0f MB per worker without fusion, over "
                     "--mem-limit %.0f MB: use chunks of at most %lld elements",
                     (long long)tsr_grid_max_chunk_elems(&x->grid), per / 1e6, limit / 1e6,
                     (long long)(fit > 0 ? fit : 1));
  }
  /* limit / per may pass INT_MAX (64 GB over the 8 bytes of a one-element
   * chunk): compared as a double, never converted while that large. */
  double fit = limit / per;
  *threads = fit < (double)ex->threads ? (int)fit : ex->threads;
  return TSR_OK;
}

/* Materializes and reduces chunk i of the batch. The reduction returns host
 * partials, so when it succeeds everything the chain queued is done and its
 * chunks go back to the pool (limit: cone_bytes(x)). */
static int reduce_chunk(tsr_exec *ex, const tsr_node *x, const tsr_reduce_batch *b, int64_t i,
                        double limit, tsr_progress *pr) {
  int64_t idx[TSR_MAXDIM], start[TSR_MAXDIM], extent[TSR_MAXDIM];
  tsr_grid_unravel(b->grid, b->ids[i], idx);
  tsr_grid_chunk_box(b->grid, idx, start, extent);
  double *buf = NULL;
  tsr_prog p;
  retired r;
  retired_init(&r, limit);
  tsr_be_span span = {
      TSR_TRACE_CHUNK, tsr_red_name(b->kind), b->ids[i], 1, 0, tsr_progress_tick, pr};
  int st = materialize(ex, x, start, extent, &r, &buf);
  if (st == TSR_OK) st = box_program(x, start, extent, buf, &p);
  if (st == TSR_OK) {
    st = tsr_be_reduce_box(ex->be, &p, start, extent, b->kind, b->axis, b->out[i], &span);
    tsr_prog_free(&p);
  }
  int rs = retire(ex, &r, buf, tsr_elems_of(x->grid.ndim, extent));
  return retired_end(ex, &r, st == TSR_OK ? rs : st);
}

int tsr_nofuse_reduce(tsr_exec *ex, const tsr_node *x, const tsr_reduce_batch *b,
                      tsr_progress *pr) {
  int threads = 1;
  TSR_CHECK(tsr_nofuse_threads(ex, x, &threads));
  double limit = cone_bytes(x);
  tsr_workers w;
  tsr_workers_init_interruptible(&w);
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
  for (int64_t i = 0; i < b->nchunks; i++) {
    if (tsr_workers_stop(&w)) continue;
    tsr_workers_fail(&w, reduce_chunk(ex, x, b, i, limit, pr));
  }
  return tsr_workers_end(&w);
}
