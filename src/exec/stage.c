/*
 * stage.c - staged leaves: HDF5 hyperslab reads and rechunk pieces moved
 * between ranks, wave by wave (see stage.h).
 *
 * Vocabulary. A task is a strided box of a program's output space assigned
 * to a rank: a chunk of the consumer's grid, or a piece of a rechunk source.
 * A round stages one program for a list of tasks that every rank knows in
 * full: each rank copies the program for its own tasks and replaces the
 * staged leaves of each copy by host buffers (LEAF_DATA leaves whose affine
 * map reads the buffer). A LOAD leaf is read as one hyperslab per task. An
 * XFER leaf's region is cut along the source array's chunk boundaries into
 * pieces; the pieces become the tasks of a nested round (on the source
 * program, at the source chunks' owners), are evaluated into per-peer
 * message buffers, exchanged, and assembled into the region buffers. Every
 * rank runs the same rounds in the same order, which is what makes the MPI
 * exchanges and collective HDF5 calls line up.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "exec/stage.h"

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "util/error.h"
#include "exec/exec.h"
#include "io/h5array.h"
#include "mpi/agree.h"
#include "mpi/comm.h"
#include "mpi/p2p.h"
#include "mpi/tags.h"
#include "util/signals.h"
#include "util/trace.h"

/* Coordinates first[a] + step[a] * i, 0 <= i < count[a], of a program's space. */
typedef struct sbox {
  int64_t first[TSR_MAXDIM], step[TSR_MAXDIM], count[TSR_MAXDIM];
} sbox;

typedef struct task {
  int rank;
  sbox box;
} task;

/* The elements a leaf reads for a box, per base axis, in increasing order. */
typedef struct region {
  int64_t lo[TSR_MAXDIM], stride[TSR_MAXDIM], count[TSR_MAXDIM];
} region;

/* A program copy ready for the backend, with the buffers its leaves read. */
typedef struct runnable {
  tsr_prog prog;
  int64_t start[TSR_MAXDIM], extent[TSR_MAXDIM];
  double **bufs;
  size_t *sizes;
  int nbufs;
} runnable;

typedef struct reader_entry {
  const tsr_h5src *src;
  tsr_h5_reader *r;
} reader_entry;

typedef struct source_entry {
  const tsr_node *node;
  tsr_prog prog;
} source_entry;

/* Staging buffers of a finished wave, reused by the next one: fresh buffers
 * of a chunk's size would cost a page fault per 4 KiB every wave. */
#define POOL 64
typedef struct pool {
  double *buf[POOL];
  size_t n[POOL];
  int k;
} pool;

/* One staged computation (a reduction, a small result, a save). */
typedef struct phase {
  tsr_exec *ex;
  int collective; /* collective HDF5 reads */
  reader_entry *readers;
  int nreaders;
  source_entry *sources;
  int nsources;
  pool pool;
} phase;

/* ---- small helpers ---------------------------------------------------------- */

static int64_t elems_of(int nd, const int64_t *count) {
  int64_t n = 1;
  for (int a = 0; a < nd; a++) n *= count[a];
  return n;
}

static int grow(void **p, int64_t *cap, int64_t need, size_t elem) {
  if (need <= *cap) return TSR_OK;
  int64_t c = *cap ? *cap * 2 : 16;
  while (c < need) c *= 2;
  void *q = realloc(*p, (size_t)c * elem);
  if (!q) return TSR_ERROR(TSR_ERR_MEMORY, "out of memory planning staged chunks");
  *p = q;
  *cap = c;
  return TSR_OK;
}

int tsr_stage_needed(const tsr_prog *p) {
  for (int i = 0; i < p->nleaves; i++)
    if (p->leaves[i].kind == LEAF_LOAD || p->leaves[i].kind == LEAF_XFER ||
        p->leaves[i].kind == LEAF_HELD)
      return 1;
  return 0;
}

/* ---- programs ------------------------------------------------------------------ */

static int prog_copy(const tsr_prog *p, tsr_prog *q) {
  memset(q, 0, sizeof *q);
  q->ndim = p->ndim;
  memcpy(q->shape, p->shape, sizeof q->shape);
  q->nleaves = q->leaves_cap = p->nleaves;
  q->ninstr = q->instr_cap = p->ninstr;
  q->nregs = q->regs_cap = p->nregs;
  q->result = p->result;
  q->leaves = malloc(sizeof(tsr_leaf) * (size_t)(p->nleaves + 1));
  q->code = malloc(sizeof(tsr_instr) * (size_t)(p->ninstr + 1));
  q->reg_const = malloc(sizeof(int) * (size_t)(p->nregs + 1));
  q->reg_value = malloc(sizeof(double) * (size_t)(p->nregs + 1));
  if (!q->leaves || !q->code || !q->reg_const || !q->reg_value) {
    tsr_prog_free(q);
    return TSR_ERROR(TSR_ERR_MEMORY, "out of memory copying a program");
  }
  if (p->nleaves) memcpy(q->leaves, p->leaves, sizeof(tsr_leaf) * (size_t)p->nleaves);
  if (p->ninstr) memcpy(q->code, p->code, sizeof(tsr_instr) * (size_t)p->ninstr);
  if (p->nregs) {
    memcpy(q->reg_const, p->reg_const, sizeof(int) * (size_t)p->nregs);
    memcpy(q->reg_value, p->reg_value, sizeof(double) * (size_t)p->nregs);
  }
  return TSR_OK;
}

/* The linear index of a leaf as an affine form of the output coordinates
 * (fuse.c's leaf_finish, for maps changed here). */
static void leaf_refinish(tsr_leaf *l) {
  int64_t stride = 1;
  l->e_const = 0;
  memset(l->e_coef, 0, sizeof l->e_coef);
  for (int b = l->base_ndim - 1; b >= 0; b--) {
    l->e_const += l->off[b] * stride;
    if (l->axis_of[b] >= 0) l->e_coef[l->axis_of[b]] += l->step[b] * stride;
    stride *= l->base_shape[b];
  }
}

/* p restricted to a strided box of its space, as a program over [0, count):
 * slice pushdown at run time (the box composes into every leaf's map). */
static int prog_view(const tsr_prog *p, const sbox *b, tsr_prog *q) {
  TSR_CHECK(prog_copy(p, q));
  for (int a = 0; a < q->ndim; a++) q->shape[a] = b->count[a];
  for (int i = 0; i < q->nleaves; i++) {
    tsr_leaf *l = &q->leaves[i];
    for (int d = 0; d < l->base_ndim; d++) {
      int k = l->axis_of[d];
      if (k < 0) continue;
      l->off[d] += l->step[d] * b->first[k];
      l->step[d] *= b->step[k];
    }
    leaf_refinish(l);
  }
  return TSR_OK;
}

/* What leaf l of a program reads over box b of the program's space. */
static void leaf_region(const tsr_leaf *l, const sbox *b, region *r) {
  for (int d = 0; d < l->base_ndim; d++) {
    int k = l->axis_of[d];
    int64_t s = k >= 0 ? l->step[d] * b->step[k] : 0;
    int64_t c0 = l->off[d] + (k >= 0 ? l->step[d] * b->first[k] : 0);
    int64_t n = k >= 0 && s != 0 ? b->count[k] : 1;
    if (k >= 0 && b->count[k] == 0) n = 0;
    r->lo[d] = s >= 0 ? c0 : c0 + s * (n - 1);
    r->stride[d] = s > 0 ? s : (s < 0 ? -s : 1);
    r->count[d] = n;
  }
}

/* Turns leaf l (of a program copy, in the copy's own coordinates) into a
 * DATA leaf reading buf, which holds region r row-major. */
static void leaf_to_data(tsr_leaf *l, const region *r, const double *buf) {
  int64_t stride = 1;
  l->e_const = 0;
  memset(l->e_coef, 0, sizeof l->e_coef);
  for (int d = l->base_ndim - 1; d >= 0; d--) {
    int k = l->axis_of[d], moving = k >= 0 && l->step[d] != 0;
    int64_t off = moving ? (l->off[d] - r->lo[d]) / r->stride[d] : 0;
    int64_t sign = moving ? (l->step[d] > 0 ? 1 : -1) : 0;
    l->e_const += off * stride;
    if (moving) l->e_coef[k] += sign * stride;
    l->off[d] = off;
    l->step[d] = sign;
    if (!moving) l->axis_of[d] = -1;
    l->base_shape[d] = r->count[d];
    stride *= r->count[d];
  }
  l->kind = LEAF_DATA;
  l->data = buf;
  l->resident = 0;
}

/* A buffer for n doubles; a big one on transparent huge pages where the
 * kernel offers them (madvise mode), as NumPy does: a chunk read into fresh
 * 4 KiB pages costs a page fault per page. */
static double *big_alloc(size_t n) {
  size_t bytes = sizeof(double) * (n + 1);
  void *p = NULL;
  if (bytes < ((size_t)4 << 20)) return malloc(bytes);
  if (posix_memalign(&p, (size_t)2 << 20, bytes) != 0) return NULL;
#ifdef MADV_HUGEPAGE
  madvise(p, bytes, MADV_HUGEPAGE);
#endif
  return p;
}

/* A buffer of at least n doubles: a pooled one not more than twice as big. */
static double *pool_get(pool *pl, size_t n) {
  int best = -1;
  for (int i = 0; i < pl->k; i++)
    if (pl->n[i] >= n && pl->n[i] <= 2 * n + 64 && (best < 0 || pl->n[i] < pl->n[best])) best = i;
  if (best < 0) return big_alloc(n);
  double *b = pl->buf[best];
  pl->buf[best] = pl->buf[--pl->k];
  pl->n[best] = pl->n[pl->k];
  return b;
}

static void pool_put(pool *pl, double *b, size_t n) {
  if (!b) return;
  if (pl->k == POOL) {
    free(b);
    return;
  }
  pl->buf[pl->k] = b;
  pl->n[pl->k++] = n;
}

static void pool_clear(pool *pl) {
  for (int i = 0; i < pl->k; i++) free(pl->buf[i]);
  pl->k = 0;
}

/* A staging buffer of n doubles owned by u (back to the pool with u). */
static double *runnable_buffer(pool *pl, runnable *u, size_t n) {
  double **p = realloc(u->bufs, sizeof(double *) * (size_t)(u->nbufs + 1));
  if (p) u->bufs = p;
  size_t *q = p ? realloc(u->sizes, sizeof(size_t) * (size_t)(u->nbufs + 1)) : NULL;
  if (q) u->sizes = q;
  double *b = q ? pool_get(pl, n) : NULL;
  if (!b) {
    TSR_ERROR(TSR_ERR_MEMORY, "out of memory staging a chunk (%zu values)", n);
    return NULL;
  }
  u->bufs[u->nbufs] = b;
  u->sizes[u->nbufs++] = n;
  return b;
}

static void runnables_free(pool *pl, runnable *u, int64_t n) {
  for (int64_t k = 0; k < n; k++) {
    for (int i = 0; i < u[k].nbufs; i++) pool_put(pl, u[k].bufs[i], u[k].sizes[i]);
    free(u[k].bufs);
    free(u[k].sizes);
    tsr_prog_free(&u[k].prog);
  }
  free(u);
}

/* ---- the phase's open datasets and source programs -------------------------------- */

static int phase_reader(phase *ph, const tsr_h5src *src, tsr_h5_reader **r) {
  for (int i = 0; i < ph->nreaders; i++)
    if (ph->readers[i].src == src) {
      *r = ph->readers[i].r;
      return TSR_OK;
    }
  reader_entry *p = realloc(ph->readers, sizeof *p * (size_t)(ph->nreaders + 1));
  if (!p) return TSR_ERROR(TSR_ERR_MEMORY, "out of memory opening '%s'", src->path);
  ph->readers = p;
  TSR_CHECK(tsr_h5_reader_open(src->path, src->dataset, ph->collective, r));
  ph->readers[ph->nreaders++] = (reader_entry){src, *r};
  return TSR_OK;
}

static int phase_source(phase *ph, const tsr_node *x, const tsr_prog **out) {
  for (int i = 0; i < ph->nsources; i++)
    if (ph->sources[i].node == x) {
      *out = &ph->sources[i].prog;
      return TSR_OK;
    }
  source_entry *p = realloc(ph->sources, sizeof *p * (size_t)(ph->nsources + 1));
  if (!p) return TSR_ERROR(TSR_ERR_MEMORY, "out of memory compiling a rechunk source");
  ph->sources = p;
  if (x->held) /* the held chunks themselves, read on their owners */
    TSR_CHECK(tsr_prog_compile_held(x, &ph->sources[ph->nsources].prog));
  else
    TSR_CHECK(tsr_prog_compile(x, 0, &ph->sources[ph->nsources].prog));
  ph->sources[ph->nsources].node = x;
  *out = &ph->sources[ph->nsources++].prog;
  return TSR_OK;
}

static void phase_begin(phase *ph, tsr_exec *ex) {
  memset(ph, 0, sizeof *ph);
  ph->ex = ex;
#ifdef TSR_HAVE_PARALLEL_HDF5
  ph->collective = ex->size > 1 && !getenv("TESSERA_HDF5_INDEPENDENT");
#endif
}

/* Closes every reader (in the same order on every rank: collective closes). */
static int phase_end(phase *ph, int st) {
  for (int i = 0; i < ph->nreaders; i++) {
    ph->ex->io_bytes += tsr_h5_reader_bytes(ph->readers[i].r);
    int c = tsr_h5_reader_close(ph->readers[i].r);
    if (st == TSR_OK) st = c;
  }
  for (int i = 0; i < ph->nsources; i++) tsr_prog_free(&ph->sources[i].prog);
  free(ph->readers);
  free(ph->sources);
  pool_clear(&ph->pool);
  return st;
}

/* ---- rounds -------------------------------------------------------------------- */

static int stage_round(phase *ph, const tsr_prog *P, const task *tasks, int64_t ntasks, int view,
                       runnable **out, int64_t *nout);

/* Tasks per rank in a round: this rank's and the largest. */
static void count_tasks(const phase *ph, const task *tasks, int64_t ntasks, int64_t *mine,
                        int64_t *most) {
  int64_t *per = calloc((size_t)ph->ex->size, sizeof *per);
  *mine = *most = 0;
  for (int64_t t = 0; t < ntasks; t++) {
    if (per) per[tasks[t].rank]++;
    if (tasks[t].rank == ph->ex->rank) (*mine)++;
  }
  for (int q = 0; per && q < ph->ex->size; q++) *most = per[q] > *most ? per[q] : *most;
  if (!per) *most = ntasks; /* never fewer calls than any rank makes */
  free(per);
}

/* Reads every LOAD leaf of P for this rank's tasks. With collective reads
 * every rank makes the same number of calls per leaf (empty ones when it
 * has fewer tasks), and a rank that failed keeps making empty calls. */
static int stage_loads(phase *ph, const tsr_prog *P, const task *tasks, int64_t ntasks,
                       runnable *mine, int64_t nmine, int64_t most) {
  int st = TSR_OK, any = 0;
  for (int i = 0; i < P->nleaves; i++) any |= P->leaves[i].kind == LEAF_LOAD;
  if (!any) return TSR_OK;
  int64_t slots = ph->collective ? most : nmine, k = 0;
  const task **my = malloc(sizeof(task *) * (size_t)(nmine + 1));
  if (!my) return TSR_ERROR(TSR_ERR_MEMORY, "out of memory staging reads");
  for (int64_t t = 0; t < ntasks; t++)
    if (tasks[t].rank == ph->ex->rank) my[k++] = &tasks[t];
  double t0 = tsr_comm_time(), tt = tsr_trace_on ? tsr_trace_now() : 0.0, bytes = 0;
  for (int64_t s = 0; s < slots; s++) {
    for (int i = 0; i < P->nleaves; i++) {
      const tsr_leaf *l = &P->leaves[i];
      if (l->kind != LEAF_LOAD) continue;
      tsr_h5_reader *r = NULL;
      int rs = phase_reader(ph, l->node->src, &r);
      if (rs != TSR_OK) {
        if (st == TSR_OK) st = rs;
        if (!ph->collective) break;
        continue;
      }
      if (s >= nmine || st != TSR_OK) { /* nothing (more) to read here */
        if (ph->collective) rs = tsr_h5_read(r, NULL, NULL, NULL, NULL);
        if (st == TSR_OK) st = rs;
        continue;
      }
      region g;
      leaf_region(l, &my[s]->box, &g);
      int64_t n = elems_of(l->base_ndim, g.count);
      double *buf = runnable_buffer(&ph->pool, &mine[s], (size_t)n);
      rs = buf ? TSR_OK : TSR_ERR_MEMORY;
      if (rs == TSR_OK && n > 0)
        rs = tsr_h5_read(r, g.lo, g.stride, g.count, buf);
      else if (ph->collective)
        tsr_h5_read(r, NULL, NULL, NULL, NULL);
      if (rs == TSR_OK) leaf_to_data(&mine[s].prog.leaves[i], &g, buf);
      bytes += 8.0 * (double)n;
      if (st == TSR_OK) st = rs;
    }
    if (st != TSR_OK && !ph->collective) break;
  }
  ph->ex->io_s += tsr_comm_time() - t0;
  if (tsr_trace_on)
    tsr_trace_end(TSR_TRACE_IO, "read hyperslabs", tt, (tsr_trace_args){-1, 0, 0, (int64_t)bytes});
  free(my);
  return st;
}

/* One piece of an XFER region: the part of task `task`'s region that lies
 * in one source chunk, as a strided box of the source array. */
typedef struct piece {
  int64_t task;
  int src, dst;
  sbox box;
  int64_t j0[TSR_MAXDIM]; /* its offset in the region, per axis */
  int64_t off;            /* where its values are in its message */
} piece;

typedef struct plan {
  piece *p;
  int64_t n, cap;
} plan;

static int64_t ceil_div(int64_t a, int64_t b) { return a >= 0 ? (a + b - 1) / b : -((-a) / b); }
static int64_t floor_div(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

/* Cuts task t's region g along the source grid G into pieces. */
static int plan_region(plan *pl, int64_t t, int dst, const region *g, const tsr_grid *G, int size) {
  int nd = G->ndim;
  int64_t c0[TSR_MAXDIM], c1[TSR_MAXDIM], idx[TSR_MAXDIM], ncomb = 1;
  if (elems_of(nd, g->count) == 0) return TSR_OK;
  for (int d = 0; d < nd; d++) {
    c0[d] = tsr_grid_find(G, d, g->lo[d]);
    c1[d] = tsr_grid_find(G, d, g->lo[d] + g->stride[d] * (g->count[d] - 1));
    if (c0[d] < 0 || c1[d] < 0) return TSR_ERROR(TSR_ERR_INTERNAL, "rechunk region outside its source");
    ncomb *= c1[d] - c0[d] + 1;
  }
  for (int64_t c = 0; c < ncomb; c++) {
    int64_t rem = c, j0[TSR_MAXDIM], jn[TSR_MAXDIM];
    int empty = 0;
    for (int d = nd - 1; d >= 0; d--) {
      idx[d] = c0[d] + rem % (c1[d] - c0[d] + 1);
      rem /= c1[d] - c0[d] + 1;
    }
    for (int d = 0; d < nd && !empty; d++) {
      int64_t lo = G->starts[d][idx[d]], hi = G->starts[d][idx[d] + 1];
      int64_t a = ceil_div(lo - g->lo[d], g->stride[d]), b = floor_div(hi - 1 - g->lo[d], g->stride[d]);
      a = a < 0 ? 0 : a;
      b = b > g->count[d] - 1 ? g->count[d] - 1 : b;
      j0[d] = a;
      jn[d] = b - a + 1;
      empty = jn[d] <= 0;
    }
    if (empty) continue;
    TSR_CHECK(grow((void **)&pl->p, &pl->cap, pl->n + 1, sizeof(piece)));
    piece *p = &pl->p[pl->n++];
    memset(p, 0, sizeof *p);
    p->task = t;
    p->dst = dst;
    p->src = tsr_chunk_owner(tsr_grid_ravel(G, idx), size);
    for (int d = 0; d < nd; d++) {
      p->j0[d] = j0[d];
      p->box.first[d] = g->lo[d] + g->stride[d] * j0[d];
      p->box.step[d] = g->stride[d];
      p->box.count[d] = jn[d];
    }
  }
  return TSR_OK;
}

/* Evaluates this rank's tasks of a round into dst[k] (backend memory). */
static int eval_round(phase *ph, const tsr_prog *P, const task *tasks, int64_t ntasks, int view,
                      double *const *dst) {
  runnable *mine = NULL;
  int64_t nmine = 0;
  TSR_CHECK(stage_round(ph, P, tasks, ntasks, view, &mine, &nmine));
  const tsr_backend_ops *be = ph->ex->be;
  int status = TSR_OK;
  char message[1024] = "";
#pragma omp parallel for schedule(dynamic, 1)
  for (int64_t k = 0; k < nmine; k++) {
    int st;
#pragma omp atomic read
    st = status;
    if (st != TSR_OK) continue;
    st = tsr_be_eval_box(be, &mine[k].prog, mine[k].start, mine[k].extent, dst[k], NULL);
    if (st != TSR_OK) {
#pragma omp critical(tsr_stage_error)
      if (status == TSR_OK) {
        snprintf(message, sizeof message, "%s", tsr_error_message());
        status = st;
      }
    }
  }
  runnables_free(&ph->pool, mine, nmine);
  if (status != TSR_OK && tsr_error_code() == TSR_OK) TSR_ERROR(status, "%s", message);
  return tsr_agree(status);
}

/* Copies a piece (dense over count) into a region buffer at offset j0. */
static void place_piece(int nd, const int64_t *rcount, double *region_buf, const int64_t *j0,
                        const int64_t *count, const double *src) {
  int64_t rows = 1, width = nd > 0 ? count[nd - 1] : 1;
  for (int d = 0; d + 1 < nd; d++) rows *= count[d];
  for (int64_t r = 0; r < rows; r++) {
    int64_t rem = r, off = 0, stride = rcount[nd - 1];
    for (int d = nd - 2; d >= 0; d--) {
      off += (j0[d] + rem % count[d]) * stride;
      rem /= count[d];
      stride *= rcount[d];
    }
    memcpy(region_buf + off + j0[nd - 1], src + r * width, sizeof(double) * (size_t)width);
  }
}

/* Whether pieces travel in the backend's buffers themselves (host memory
 * through MPI, or device buffers through the backend's own exchange, e.g.
 * NCCL) or as downloaded host copies through MPI. TESSERA_HOST_EXCHANGE
 * forces the copies, so that path is tested on every backend. */
static int use_hook(const tsr_exec *ex) {
  return (tsr_be_has_exchange(ex->be) || (tsr_be_caps(ex->be) & TSR_BE_HOST_MEMORY)) &&
         !getenv("TESSERA_HOST_EXCHANGE");
}

/* One exchange of buffers: the backend's own, or MPI point-to-point. */
static int exchange(const tsr_exec *ex, int hook, const tsr_p2p_msg *s, int ns,
                    const tsr_p2p_msg *r, int nr) {
  if (!hook || !tsr_be_has_exchange(ex->be)) return tsr_p2p_exchange(s, ns, r, nr, TSR_TAG_XFER);
  tsr_be_msg *bs = calloc((size_t)ns + 1, sizeof *bs), *br = calloc((size_t)nr + 1, sizeof *br);
  int st = bs && br ? TSR_OK : TSR_ERROR(TSR_ERR_MEMORY, "out of memory moving pieces");
  for (int i = 0; st == TSR_OK && i < ns; i++) bs[i] = (tsr_be_msg){s[i].peer, s[i].buf, s[i].n};
  for (int i = 0; st == TSR_OK && i < nr; i++) br[i] = (tsr_be_msg){r[i].peer, r[i].buf, r[i].n};
  if (st == TSR_OK) st = tsr_be_exchange(ex->be, bs, ns, br, nr);
  free(bs);
  free(br);
  return st;
}

/* Moves the pieces: per peer one message each way, in piece order. Receive
 * buffers are backend memory with the hook, host memory without. */
static int move_pieces(tsr_exec *ex, double **sendbuf, const size_t *sendn, double **recvbuf,
                       const size_t *recvn) {
  int P = ex->size, me = ex->rank, ns = 0, nr = 0, hook = use_hook(ex);
  tsr_p2p_msg *s = calloc((size_t)P + 1, sizeof *s), *r = calloc((size_t)P + 1, sizeof *r);
  double **host = calloc((size_t)P + 1, sizeof(double *));
  int st = s && r && host ? TSR_OK : TSR_ERROR(TSR_ERR_MEMORY, "out of memory moving pieces");
  double moved = 0, t0 = tsr_comm_time(), tt = tsr_trace_on ? tsr_trace_now() : 0.0;
  for (int q = 0; q < P && st == TSR_OK; q++) {
    if (q == me) continue;
    if (sendn[q]) {
      double *buf = sendbuf[q];
      if (!hook) { /* host path: download, then MPI */
        host[q] = malloc(sizeof(double) * sendn[q]);
        st = host[q] ? tsr_be_download(ex->be, sendbuf[q], host[q], sendn[q])
                     : TSR_ERROR(TSR_ERR_MEMORY, "out of memory moving pieces");
        buf = host[q];
      }
      s[ns++] = (tsr_p2p_msg){q, buf, sendn[q]};
      moved += 8.0 * (double)sendn[q];
    }
    if (recvn[q]) {
      r[nr++] = (tsr_p2p_msg){q, recvbuf[q], recvn[q]};
      moved += 8.0 * (double)recvn[q];
    }
  }
  if (st == TSR_OK)
    st = exchange(ex, hook, s, ns, r, nr);
  for (int q = 0; host && q < P; q++) free(host[q]);
  free(host);
  free(s);
  free(r);
  ex->comm_s += tsr_comm_time() - t0;
  ex->comm_bytes += moved;
  if (tsr_trace_on)
    tsr_trace_end(TSR_TRACE_COMM, "rechunk pieces", tt, (tsr_trace_args){-1, 0, 0, (int64_t)moved});
  return st;
}

/* Stages XFER leaf i of P for this rank's tasks. Collective. */
static int stage_xfer(phase *ph, const tsr_prog *P, int i, const task *tasks, int64_t ntasks,
                      runnable *mine, int64_t nmine) {
  tsr_exec *ex = ph->ex;
  const tsr_leaf *L = &P->leaves[i];
  const tsr_node *x = L->node->held ? L->node : L->node->in[0]; /* where the pieces come from */
  const tsr_grid *G = &x->grid;
  int Pn = ex->size, me = ex->rank, nd = G->ndim;
  plan pl = {0};
  int st = TSR_OK;
  for (int64_t t = 0; t < ntasks && st == TSR_OK; t++) {
    region g;
    leaf_region(L, &tasks[t].box, &g);
    st = plan_region(&pl, t, tasks[t].rank, &g, G, Pn);
  }
  /* Message layout: per (src, dst), the pieces in plan order. */
  size_t *sendn = calloc((size_t)Pn, sizeof(size_t)), *recvn = calloc((size_t)Pn, sizeof(size_t));
  double **sendbuf = calloc((size_t)Pn, sizeof(double *)), **recvbuf = calloc((size_t)Pn, sizeof(double *));
  task *ptasks = malloc(sizeof(task) * (size_t)(pl.n + 1));
  double **dst = malloc(sizeof(double *) * (size_t)(pl.n + 1));
  if (st == TSR_OK && (!sendn || !recvn || !sendbuf || !recvbuf || !ptasks || !dst))
    st = TSR_ERROR(TSR_ERR_MEMORY, "out of memory planning a rechunk");
  for (int64_t k = 0; k < pl.n && st == TSR_OK; k++) {
    piece *p = &pl.p[k];
    size_t n = (size_t)elems_of(nd, p->box.count);
    if (p->src == me) {
      p->off = (int64_t)sendn[p->dst];
      sendn[p->dst] += n;
    }
    if (p->dst == me && p->src != me) {
      p->off = (int64_t)recvn[p->src];
      recvn[p->src] += n;
    }
    ptasks[k] = (task){p->src, p->box};
  }
  int hook = use_hook(ex);
  for (int q = 0; q < Pn && st == TSR_OK; q++) {
    if (sendn[q]) st = tsr_be_alloc(ex->be, sendn[q], &sendbuf[q]);
    if (st != TSR_OK || !recvn[q] || q == me) continue;
    if (hook) {
      st = tsr_be_alloc(ex->be, recvn[q], &recvbuf[q]);
    } else if (!(recvbuf[q] = malloc(sizeof(double) * recvn[q]))) {
      st = TSR_ERROR(TSR_ERR_MEMORY, "out of memory receiving pieces");
    }
  }
  /* Every rank takes part in the source round, even with nothing to do. */
  const tsr_prog *Px = NULL;
  st = tsr_agree(st);
  if (st == TSR_OK) st = phase_source(ph, x, &Px);
  int64_t m = 0;
  for (int64_t k = 0; k < pl.n && st == TSR_OK; k++)
    if (pl.p[k].src == me) dst[m++] = sendbuf[pl.p[k].dst] + pl.p[k].off;
  if (st == TSR_OK) st = eval_round(ph, Px, ptasks, pl.n, 1, dst);
  if (st == TSR_OK) st = move_pieces(ex, sendbuf, sendn, recvbuf, recvn);
  st = tsr_agree(st);

  /* Assemble this rank's regions from host copies of what arrived. */
  double **host = calloc((size_t)Pn, sizeof(double *));
  if (st == TSR_OK && !host) st = TSR_ERROR(TSR_ERR_MEMORY, "out of memory assembling pieces");
  for (int q = 0; q < Pn && st == TSR_OK; q++) {
    size_t n = q == me ? sendn[me] : recvn[q];
    double *from = q == me ? sendbuf[me] : recvbuf[q];
    if (!n) continue;
    if (q != me && !hook) { /* already host memory */
      host[q] = recvbuf[q];
      recvbuf[q] = NULL;
      continue;
    }
    host[q] = malloc(sizeof(double) * n);
    st = host[q] ? tsr_be_download(ex->be, from, host[q], n) : TSR_ERROR(TSR_ERR_MEMORY, "out of memory");
  }
  int64_t *mytask = malloc(sizeof(int64_t) * (size_t)(ntasks + 1));
  if (st == TSR_OK && !mytask) st = TSR_ERROR(TSR_ERR_MEMORY, "out of memory");
  for (int64_t t = 0, k = 0; t < ntasks && st == TSR_OK; t++) mytask[t] = tasks[t].rank == me ? k++ : -1;
  region *regs = calloc((size_t)nmine + 1, sizeof(region));
  double **rbuf = calloc((size_t)nmine + 1, sizeof(double *));
  if (st == TSR_OK && (!regs || !rbuf)) st = TSR_ERROR(TSR_ERR_MEMORY, "out of memory");
  for (int64_t t = 0; t < ntasks && st == TSR_OK; t++) {
    int64_t k = mytask[t];
    if (k < 0) continue;
    leaf_region(L, &tasks[t].box, &regs[k]);
    rbuf[k] = runnable_buffer(&ph->pool, &mine[k], (size_t)elems_of(nd, regs[k].count));
    st = rbuf[k] ? TSR_OK : TSR_ERR_MEMORY;
    if (st == TSR_OK) leaf_to_data(&mine[k].prog.leaves[i], &regs[k], rbuf[k]);
  }
  for (int64_t k = 0; k < pl.n && st == TSR_OK; k++) {
    const piece *p = &pl.p[k];
    if (p->dst != me) continue;
    int64_t t = mytask[p->task];
    /* the self message is laid out by destination: offsets are in sendbuf[me] */
    place_piece(nd, regs[t].count, rbuf[t], p->j0, p->box.count, host[p->src] + p->off);
  }
  for (int q = 0; q < Pn; q++) {
    if (host) free(host[q]);
    if (sendbuf && sendbuf[q]) tsr_be_release(ex->be, sendbuf[q]);
    if (recvbuf && recvbuf[q] && hook) tsr_be_release(ex->be, recvbuf[q]);
    if (recvbuf && recvbuf[q] && !hook) free(recvbuf[q]);
  }
  free(host);
  free(mytask);
  free(regs);
  free(rbuf);
  free(sendn);
  free(recvn);
  free(sendbuf);
  free(recvbuf);
  free(ptasks);
  free(dst);
  free(pl.p);
  return st;
}

/* Copies region r of held chunk c of x (r inside that chunk) into buf, row-major. */
static void copy_held(const tsr_node *x, int64_t c, const region *r, double *buf) {
  const tsr_grid *G = &x->grid;
  int nd = G->ndim;
  int64_t idx[TSR_MAXDIM], start[TSR_MAXDIM], extent[TSR_MAXDIM], n = elems_of(nd, r->count);
  tsr_grid_unravel(G, c, idx);
  tsr_grid_chunk_box(G, idx, start, extent);
  const double *src = x->held[c];
  for (int64_t e = 0; e < n; e++) {
    int64_t rem = e, off = 0, stride = 1;
    for (int d = nd - 1; d >= 0; d--) {
      off += (r->lo[d] - start[d] + r->stride[d] * (rem % r->count[d])) * stride;
      rem /= r->count[d];
      stride *= extent[d];
    }
    buf[e] = src[off];
  }
}

/* Stages the HELD leaves of P for this rank's tasks: such a program is the
 * source of rechunk pieces, cut along the held node's grid and evaluated by
 * the owners of its chunks, so each is a local copy. */
static int stage_held(phase *ph, const tsr_prog *P, const task *tasks, int64_t ntasks, runnable *mine) {
  for (int i = 0; i < P->nleaves; i++) {
    const tsr_leaf *l = &P->leaves[i];
    if (l->kind != LEAF_HELD) continue;
    const tsr_grid *G = &l->node->grid;
    for (int64_t t = 0, k = 0; t < ntasks; t++) {
      if (tasks[t].rank != ph->ex->rank) continue;
      runnable *u = &mine[k++];
      region g;
      leaf_region(l, &tasks[t].box, &g);
      int64_t n = elems_of(l->base_ndim, g.count), idx[TSR_MAXDIM], c = -1;
      if (n > 0) {
        for (int d = 0; d < G->ndim; d++) {
          idx[d] = tsr_grid_find(G, d, g.lo[d]);
          int64_t last = g.lo[d] + g.stride[d] * (g.count[d] - 1);
          if (idx[d] < 0 || last >= G->starts[d][idx[d] + 1])
            return TSR_ERROR(TSR_ERR_INTERNAL, "a box spans held chunks");
        }
        c = tsr_grid_ravel(G, idx);
        if (!l->node->held[c]) return TSR_ERROR(TSR_ERR_INTERNAL, "held chunk %lld is not on this rank", (long long)c);
      }
      double *buf = runnable_buffer(&ph->pool, u, (size_t)n);
      if (!buf) return TSR_ERR_MEMORY;
      if (n > 0) copy_held(l->node, c, &g, buf);
      leaf_to_data(&u->prog.leaves[i], &g, buf);
    }
  }
  return TSR_OK;
}

/* Stages P for a round of tasks: *out receives this rank's tasks' runnable
 * copies (view: the copy covers the task's strided box as [0, count)). */
static int stage_round(phase *ph, const tsr_prog *P, const task *tasks, int64_t ntasks, int view,
                       runnable **out, int64_t *nout) {
  int64_t nmine, most, k = 0;
  count_tasks(ph, tasks, ntasks, &nmine, &most);
  runnable *mine = calloc((size_t)nmine + 1, sizeof *mine);
  int st = mine ? TSR_OK : TSR_ERROR(TSR_ERR_MEMORY, "out of memory staging chunks");
  for (int64_t t = 0; t < ntasks && st == TSR_OK; t++) {
    if (tasks[t].rank != ph->ex->rank) continue;
    runnable *u = &mine[k++];
    const sbox *b = &tasks[t].box;
    st = view ? prog_view(P, b, &u->prog) : prog_copy(P, &u->prog);
    for (int a = 0; a < P->ndim; a++) {
      u->start[a] = view ? 0 : b->first[a];
      u->extent[a] = b->count[a];
    }
  }
  /* A rank that failed still makes its (empty) collective reads. */
  int rs = stage_loads(ph, P, tasks, ntasks, mine, st == TSR_OK ? nmine : 0, most);
  if (st == TSR_OK) st = rs;
  if (st == TSR_OK) st = stage_held(ph, P, tasks, ntasks, mine);
  st = tsr_agree(st);
  for (int i = 0; i < P->nleaves && st == TSR_OK; i++)
    if (P->leaves[i].kind == LEAF_XFER) st = stage_xfer(ph, P, i, tasks, ntasks, mine, nmine);
  if (st != TSR_OK) {
    if (mine) runnables_free(&ph->pool, mine, nmine);
    return st;
  }
  *out = mine;
  *nout = nmine;
  return TSR_OK;
}

/* ---- waves of consumer chunks --------------------------------------------------- */

/* Chunks of g owned by rank q. */
static int64_t owned_count(int64_t total, int q, int size) {
  return total > q ? (total - q + size - 1) / size : 0;
}

/* Chunks per rank per wave: the threads, fewer when the memory budget asks,
 * and the same on every rank (the plan of a wave depends on it). */
static int wave_size(const tsr_exec *ex, const tsr_grid *g, const tsr_prog *P, int *w) {
  int staged = 0;
  for (int i = 0; P && i < P->nleaves; i++)
    staged += P->leaves[i].kind == LEAF_LOAD || P->leaves[i].kind == LEAF_XFER ||
              P->leaves[i].kind == LEAF_HELD;
  /* two waves are staged at once: the one computed and the next */
  double per = 8.0 * (double)tsr_grid_max_chunk_elems(g) * (double)(2 + 4 * staged);
  int64_t fit = ex->mem_limit ? (int64_t)((double)ex->mem_limit / (per > 1 ? per : 1)) : ex->threads;
  int64_t n = ex->threads < fit ? ex->threads : fit;
  return tsr_agree_min((int)(n < 1 ? 1 : n > 4096 ? 4096 : n), w);
}

/* Work on one staged chunk: slot is its position among this rank's chunks. */
typedef int (*chunk_fn)(void *ctx, int64_t slot, int64_t id, const tsr_prog *prog,
                        const int64_t *start, const int64_t *extent);

/* One wave: every rank's chunks w*W .. w*W+W-1, and this rank's staged. */
typedef struct wave {
  task *tasks;
  int64_t nt;
  int64_t *slots, *ids, nmine; /* this rank's chunks: position among its chunks, id */
  runnable *mine;
  int64_t got;
} wave;

static void wave_plan(const tsr_exec *ex, const tsr_grid *g, int W, int64_t w, wave *v) {
  int64_t total = tsr_grid_count(g);
  v->nt = v->nmine = 0;
  v->mine = NULL;
  v->got = 0;
  for (int q = 0; q < ex->size; q++)
    for (int64_t i = w * W; i < (w + 1) * W && i < owned_count(total, q, ex->size); i++) {
      int64_t id = q + (int64_t)ex->size * i, idx[TSR_MAXDIM], start[TSR_MAXDIM], extent[TSR_MAXDIM];
      tsr_grid_unravel(g, id, idx);
      tsr_grid_chunk_box(g, idx, start, extent);
      task *t = &v->tasks[v->nt++];
      t->rank = q;
      for (int a = 0; a < g->ndim; a++) {
        t->box.first[a] = start[a];
        t->box.step[a] = 1;
        t->box.count[a] = extent[a];
      }
      if (q == ex->rank) {
        v->slots[v->nmine] = i;
        v->ids[v->nmine++] = id;
      }
    }
}

/* Stages a planned wave (collective); without a program (--no-fuse) fn
 * materializes each chunk itself and only the boxes are set. */
static int wave_stage(phase *ph, const tsr_prog *P, const tsr_grid *g, wave *v) {
  if (P) return stage_round(ph, P, v->tasks, v->nt, 0, &v->mine, &v->got);
  v->mine = calloc((size_t)v->nmine + 1, sizeof *v->mine);
  if (!v->mine) return TSR_ERROR(TSR_ERR_MEMORY, "out of memory");
  for (int64_t k = 0, t = 0; k < v->nt; k++)
    if (v->tasks[k].rank == ph->ex->rank) {
      for (int a = 0; a < g->ndim; a++) {
        v->mine[t].start[a] = v->tasks[k].box.first[a];
        v->mine[t].extent[a] = v->tasks[k].box.count[a];
      }
      t++;
    }
  v->got = v->nmine;
  return TSR_OK;
}

static int wave_alloc(wave *v, int size, int W) {
  v->tasks = malloc(sizeof(task) * (size_t)size * (size_t)W);
  v->slots = malloc(sizeof(int64_t) * (size_t)W);
  v->ids = malloc(sizeof(int64_t) * (size_t)W);
  v->mine = NULL;
  v->got = 0;
  return v->tasks && v->slots && v->ids ? TSR_OK : TSR_ERROR(TSR_ERR_MEMORY, "out of memory planning waves");
}

static void wave_free(wave *v) {
  free(v->tasks);
  free(v->slots);
  free(v->ids);
}

/* Runs fn over this rank's chunks of g in waves; after each wave (when
 * given) calls done with the wave's chunks. While the threads compute wave
 * w, the main thread stages wave w+1 (its reads and exchanges: the MPI and
 * HDF5 calls stay on the main thread), so I/O overlaps computation.
 * Collective. */
static int run_waves(phase *ph, const tsr_prog *P, const tsr_grid *g, chunk_fn fn, void *ctx,
                     int (*done)(void *, int64_t, int64_t, const int64_t *), void *dctx) {
  tsr_exec *ex = ph->ex;
  int W;
  TSR_CHECK(wave_size(ex, g, P, &W));
  int64_t nwaves = (owned_count(tsr_grid_count(g), 0, ex->size) + W - 1) / W;
  wave cur, next;
  int st = wave_alloc(&cur, ex->size, W), rs = wave_alloc(&next, ex->size, W);
  st = tsr_agree(st != TSR_OK ? st : rs);
  if (st == TSR_OK && nwaves > 0) {
    wave_plan(ex, g, W, 0, &cur);
    st = wave_stage(ph, P, g, &cur);
  }
  for (int64_t w = 0; w < nwaves && st == TSR_OK; w++) {
    int more = w + 1 < nwaves, next_st = TSR_OK, status = TSR_OK;
    char message[1024] = "";
    if (more) wave_plan(ex, g, W, w + 1, &next);
#pragma omp parallel
    {
#pragma omp master
      if (more) next_st = wave_stage(ph, P, g, &next);
#pragma omp for schedule(dynamic, 1) nowait
      for (int64_t k = 0; k < cur.got; k++) {
        int cst;
#pragma omp atomic read
        cst = status;
        if (cst != TSR_OK || tsr_interrupted()) continue;
        cst = fn(ctx, cur.slots[k], cur.ids[k], P ? &cur.mine[k].prog : NULL, cur.mine[k].start,
                 cur.mine[k].extent);
        if (cst != TSR_OK) {
#pragma omp critical(tsr_stage_error)
          if (status == TSR_OK) {
            snprintf(message, sizeof message, "%s", tsr_error_message());
            status = cst;
          }
        }
      }
    }
    if (status != TSR_OK && tsr_error_code() == TSR_OK) TSR_ERROR(status, "%s", message);
    if (cur.mine) runnables_free(&ph->pool, cur.mine, cur.got);
    cur.mine = NULL;
    /* next_st is the same on every rank (staging agrees); the chunks' is not */
    st = tsr_agree(status != TSR_OK ? status : next_st);
    if (st == TSR_OK && done) st = tsr_agree(done(dctx, w * W, cur.nmine, cur.ids));
    wave t = cur;
    cur = next;
    next = t;
  }
  if (cur.mine) runnables_free(&ph->pool, cur.mine, cur.got);
  if (next.mine) runnables_free(&ph->pool, next.mine, next.got);
  wave_free(&cur);
  wave_free(&next);
  return st;
}

/* ---- consumers ---------------------------------------------------------------- */

typedef struct reduce_ctx {
  const tsr_exec *ex;
  const tsr_reduce_batch *b;
} reduce_ctx;

static int reduce_one(void *vctx, int64_t slot, int64_t id, const tsr_prog *prog,
                      const int64_t *start, const int64_t *extent) {
  reduce_ctx *c = vctx;
  const tsr_reduce_batch *b = c->b;
  if (slot >= b->nchunks || b->ids[slot] != id)
    return TSR_ERROR(TSR_ERR_INTERNAL, "staged chunk %lld is not this rank's chunk %lld",
                     (long long)id, (long long)slot);
  tsr_be_span span = {TSR_TRACE_CHUNK, tsr_red_name(b->kind), id, 1, 0, b->progress, b->progress_ctx};
  return tsr_be_reduce_box(c->ex->be, prog, start, extent, b->kind, b->axis, b->out[slot], &span);
}

int tsr_stage_reduce(tsr_exec *ex, const tsr_reduce_batch *b) {
  phase ph;
  phase_begin(&ph, ex);
  reduce_ctx c = {ex, b};
  int st = run_waves(&ph, b->prog, b->grid, reduce_one, &c, NULL, NULL);
  return phase_end(&ph, st);
}

typedef struct eval_ctx {
  const tsr_exec *ex;
  const tsr_node *node; /* --no-fuse: materialized */
  double **host;        /* by slot */
  int64_t base;         /* first slot of host[] */
  double **dev;         /* waves, fused: a backend buffer per slot, kept for the next wave */
  size_t cap;           /* waves: the size of kept buffers (host[] is kept too); else 0 */
} eval_ctx;

static int eval_one(void *vctx, int64_t slot, int64_t id, const tsr_prog *prog,
                    const int64_t *start, const int64_t *extent) {
  eval_ctx *c = vctx;
  const tsr_backend_ops *be = c->ex->be;
  int nd = c->node ? c->node->grid.ndim : prog->ndim;
  size_t n = (size_t)elems_of(nd, extent);
  double *dev = NULL, t0 = tsr_trace_on ? tsr_trace_now() : 0.0;
  double **keep = c->dev ? &c->dev[slot - c->base] : NULL, **h = &c->host[slot - c->base];
  int st = TSR_OK;
  if (prog && keep && !*keep) st = tsr_be_alloc(be, c->cap, keep);
  if (prog) {
    dev = keep ? *keep : NULL;
    if (st == TSR_OK && !dev) st = tsr_be_alloc(be, n, &dev);
    if (st == TSR_OK) st = tsr_be_eval_box(be, prog, start, extent, dev, NULL);
  } else {
    st = tsr_exec_materialize(c->ex, c->node, start, extent, &dev);
  }
  if (st == TSR_OK && !*h) *h = malloc(sizeof(double) * ((c->cap ? c->cap : n) + 1));
  if (st == TSR_OK && !*h) st = TSR_ERROR(TSR_ERR_MEMORY, "out of memory for a chunk");
  if (st == TSR_OK) st = tsr_be_download(be, dev, *h, n);
  if (!(keep && dev == *keep)) tsr_be_release(be, dev);
  if (st != TSR_OK) return st;
  if (tsr_trace_on)
    tsr_trace_end(TSR_TRACE_CHUNK, "evaluate", t0, (tsr_trace_args){id, 1, (int64_t)n, 0});
  return TSR_OK;
}

int tsr_stage_eval(tsr_exec *ex, const tsr_prog *p, const tsr_grid *g, const int64_t *ids,
                   int64_t n, double **host) {
  phase ph;
  phase_begin(&ph, ex);
  eval_ctx c = {ex, NULL, host, 0, NULL, 0};
  int st = run_waves(&ph, p, g, eval_one, &c, NULL, NULL);
  for (int64_t i = 0; i < n; i++) { /* the executor's counts, as its own loop keeps them */
    int64_t idx[TSR_MAXDIM], start[TSR_MAXDIM], extent[TSR_MAXDIM];
    tsr_grid_unravel(g, ids[i], idx);
    tsr_grid_chunk_box(g, idx, start, extent);
    ex->elements += (double)elems_of(g->ndim, extent);
  }
  ex->chunks_done += n;
  return phase_end(&ph, st);
}

int tsr_stage_boxes(tsr_exec *ex, const tsr_node *node, const tsr_stage_box *boxes, int64_t n,
                    double **out) {
  const tsr_backend_ops *be = ex->be;
  int nd = node->grid.ndim, st = TSR_OK;
  int64_t nmine = 0, k = 0;
  for (int64_t t = 0; t < n; t++) nmine += boxes[t].rank == ex->rank;
  double **dev = calloc((size_t)nmine + 1, sizeof(double *));
  task *tasks = calloc((size_t)n + 1, sizeof(task));
  if (!dev || !tasks) st = TSR_ERROR(TSR_ERR_MEMORY, "out of memory staging boxes");
  for (int64_t t = 0; t < n && st == TSR_OK; t++) {
    tasks[t].rank = boxes[t].rank;
    for (int a = 0; a < nd; a++) {
      tasks[t].box.first[a] = boxes[t].start[a];
      tasks[t].box.step[a] = 1;
      tasks[t].box.count[a] = boxes[t].extent[a];
    }
    if (boxes[t].rank != ex->rank) continue;
    size_t cnt = (size_t)elems_of(nd, boxes[t].extent);
    out[k] = malloc(sizeof(double) * (cnt + 1));
    if (!out[k]) st = TSR_ERROR(TSR_ERR_MEMORY, "out of memory for a box of %zu values", cnt);
    else if (ex->no_fuse) st = tsr_exec_materialize(ex, node, boxes[t].start, boxes[t].extent, &dev[k]);
    else st = tsr_be_alloc(be, cnt, &dev[k]);
    k++;
  }
  if (!ex->no_fuse) { /* every rank stages, even after a failure of its own */
    phase ph;
    tsr_prog p;
    phase_begin(&ph, ex);
    int cs = tsr_prog_compile(node, 0, &p);
    st = tsr_agree(st == TSR_OK ? cs : st);
    if (st == TSR_OK) st = eval_round(&ph, &p, tasks, n, 0, dev);
    if (cs == TSR_OK) tsr_prog_free(&p);
    st = phase_end(&ph, st);
  }
  for (int64_t t = 0, j = 0; t < n && j < k; t++) {
    if (boxes[t].rank != ex->rank) continue;
    if (st == TSR_OK) st = tsr_be_download(be, dev[j], out[j], (size_t)elems_of(nd, boxes[t].extent));
    tsr_be_release(be, dev[j]);
    j++;
  }
  if (st != TSR_OK)
    for (int64_t j = 0; j < k; j++) {
      free(out[j]);
      out[j] = NULL;
    }
  free(dev);
  free(tasks);
  return st;
}

typedef struct waves_ctx {
  eval_ctx e;
  int64_t W;
  tsr_wave_fn done;
  void *ctx;
} waves_ctx;

/* The wave's buffers stay for the next wave: fresh ones of a chunk's size
 * would cost a page fault per 4 KiB each time. */
static int wave_done(void *vctx, int64_t first, int64_t n, const int64_t *ids) {
  waves_ctx *c = vctx;
  int st = c->done(c->ctx, n, ids, c->e.host);
  c->e.base = first + c->W;
  return st;
}

int tsr_stage_waves(tsr_exec *ex, const tsr_node *node, tsr_wave_fn done, void *ctx) {
  phase ph;
  phase_begin(&ph, ex);
  double t0 = tsr_comm_time(), io0 = ex->io_s, comm0 = ex->comm_s;
  tsr_prog p;
  int st = ex->no_fuse ? TSR_OK : tsr_prog_compile(node, 0, &p);
  int W = 1;
  if (st == TSR_OK) st = wave_size(ex, &node->grid, ex->no_fuse ? NULL : &p, &W);
  waves_ctx c = {{ex, ex->no_fuse ? node : NULL, NULL, 0, NULL, 0}, W, done, ctx};
  c.e.host = calloc((size_t)W + 1, sizeof(double *));
  c.e.dev = ex->no_fuse ? NULL : calloc((size_t)W + 1, sizeof(double *));
  c.e.cap = (size_t)tsr_grid_max_chunk_elems(&node->grid);
  if (st == TSR_OK && (!c.e.host || (!ex->no_fuse && !c.e.dev)))
    st = TSR_ERROR(TSR_ERR_MEMORY, "out of memory");
  st = tsr_agree(st);
  if (st == TSR_OK)
    st = run_waves(&ph, ex->no_fuse ? NULL : &p, &node->grid, eval_one, &c.e, wave_done, &c);
  for (int64_t k = 0; k < W; k++) {
    if (c.e.host) free(c.e.host[k]);
    if (c.e.dev) tsr_be_release(ex->be, c.e.dev[k]);
  }
  free(c.e.host);
  free(c.e.dev);
  if (!ex->no_fuse) tsr_prog_free(&p);
  /* The executor's counts: this rank's chunks, and time not spent in I/O or MPI. */
  const tsr_grid *g = &node->grid;
  for (int64_t id = ex->rank; st == TSR_OK && id < tsr_grid_count(g); id += ex->size) {
    int64_t idx[TSR_MAXDIM], start[TSR_MAXDIM], extent[TSR_MAXDIM];
    tsr_grid_unravel(g, id, idx);
    tsr_grid_chunk_box(g, idx, start, extent);
    ex->elements += (double)elems_of(g->ndim, extent);
    ex->chunks_done++;
  }
  ex->compute_s += tsr_comm_time() - t0 - (ex->io_s - io0) - (ex->comm_s - comm0);
  return phase_end(&ph, st);
}

/* ---- --no-fuse: local reads ------------------------------------------------------ */

/* Readers of --no-fuse, shared by the threads (HDF5 calls are serialized). */
static reader_entry *local_readers;
static int nlocal;

static int local_reader(const tsr_h5src *src, tsr_h5_reader **r) {
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

int tsr_stage_local(const tsr_exec *ex, tsr_prog *p, const int64_t *start, const int64_t *extent,
                    tsr_stage_bufs *bufs) {
  bufs->n = 0;
  sbox b;
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
    region g;
    leaf_region(l, &b, &g);
    int64_t n = elems_of(l->base_ndim, g.count);
    double *buf = malloc(sizeof(double) * (size_t)(n + 1));
    if (!buf) return TSR_ERROR(TSR_ERR_MEMORY, "out of memory for a read");
    bufs->buf[bufs->n++] = buf;
    double t0 = tsr_comm_time();
#pragma omp critical(tsr_hdf5)
    {
      tsr_h5_reader *r = NULL;
      st = local_reader(l->node->src, &r);
      if (st == TSR_OK && n > 0) st = tsr_h5_read(r, g.lo, g.stride, g.count, buf);
    }
    double dt = tsr_comm_time() - t0;
#pragma omp atomic
    ((tsr_exec *)ex)->io_s += dt;
#pragma omp atomic
    ((tsr_exec *)ex)->io_bytes += 8.0 * (double)n;
    if (st == TSR_OK) leaf_to_data(l, &g, buf);
  }
  return st;
}

void tsr_stage_local_free(tsr_stage_bufs *bufs) {
  for (int i = 0; i < bufs->n; i++) free(bufs->buf[i]);
  bufs->n = 0;
}

void tsr_stage_job_end(void) {
  for (int i = 0; i < nlocal; i++) tsr_h5_reader_close(local_readers[i].r);
  free(local_readers);
  local_readers = NULL;
  nlocal = 0;
}

/* ---- --no-fuse: rechunking by local pieces -------------------------------------- */

int tsr_stage_rechunk_box(const tsr_exec *ex, const tsr_node *n, const int64_t *start,
                          const int64_t *extent, double **out) {
  const tsr_node *x = n->in[0];
  const tsr_grid *G = &x->grid;
  int nd = G->ndim;
  int64_t total = elems_of(nd, extent);
  double *host = malloc(sizeof(double) * (size_t)(total + 1));
  if (!host) return TSR_ERROR(TSR_ERR_MEMORY, "out of memory rechunking a chunk");
  region g;
  memset(&g, 0, sizeof g);
  for (int a = 0; a < nd && a < TSR_MAXDIM; a++) {
    g.lo[a] = start[a];
    g.stride[a] = 1;
    g.count[a] = extent[a];
  }
  plan pl = {0};
  int st = plan_region(&pl, 0, 0, &g, G, 1);
  for (int64_t k = 0; k < pl.n && st == TSR_OK; k++) {
    const piece *p = &pl.p[k];
    int64_t n_piece = elems_of(nd, p->box.count);
    double *dev = NULL, *h = malloc(sizeof(double) * (size_t)(n_piece + 1));
    st = h ? tsr_exec_materialize(ex, x, p->box.first, p->box.count, &dev)
           : TSR_ERROR(TSR_ERR_MEMORY, "out of memory rechunking a chunk");
    if (st == TSR_OK) st = tsr_be_download(ex->be, dev, h, (size_t)n_piece);
    if (st == TSR_OK) place_piece(nd, g.count, host, p->j0, p->box.count, h);
    tsr_be_release(ex->be, dev);
    free(h);
  }
  free(pl.p);
  *out = NULL;
  if (st == TSR_OK) st = tsr_be_alloc(ex->be, (size_t)total, out);
  if (st == TSR_OK) st = tsr_be_upload(ex->be, host, *out, (size_t)total);
  free(host);
  if (st != TSR_OK) {
    tsr_be_release(ex->be, *out);
    *out = NULL;
  }
  return st;
}
