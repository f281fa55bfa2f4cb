/*
 * xfer.c - XFER leaves (regions of rechunked arrays) and HELD leaves
 * (pieces of chunks kept on their owners), see stage.h and phase.h. An
 * XFER region is cut into pieces (plan/plan.h); the owners of the source
 * chunks evaluate them in a nested round into per-peer message buffers,
 * which are exchanged (the backend's exchange, or MPI point-to-point) and
 * assembled into the region buffers of this rank's tasks. A region of a
 * held array that lies in one chunk held by the task's own rank is read
 * in place instead (backend memory: no copy, no message), which is how an
 * array persisted or computed on the device stays there while programs
 * with its chunk grid read it.
 */
#include <stdlib.h>
#include <string.h>

#include "exec/phase.h"
#include "exec/progcopy.h"
#include "mpi/agree.h"
#include "mpi/comm.h"
#include "mpi/p2p.h"
#include "mpi/tags.h"
#include "util/error.h"
#include "util/trace.h"

/* ---- moving pieces ---- */

/* Whether pieces travel in the backend's buffers themselves (host memory
 * through MPI, or device buffers through the backend's own exchange, e.g.
 * NCCL) or as downloaded host copies through MPI. ex->host_exchange
 * (TESSERA_HOST_EXCHANGE) forces the copies, so that path is tested on
 * every backend. */
static int use_hook(const tsr_exec *ex) {
  return (tsr_be_has_exchange(ex->be) || (tsr_be_caps(ex->be) & TSR_BE_HOST_MEMORY)) &&
         !ex->host_exchange;
}

/* One exchange of buffers: the backend's own, or MPI point-to-point. */
static int exchange(const tsr_exec *ex, int hook, const tsr_p2p_msg *s, int ns,
                    const tsr_p2p_msg *r, int nr) {
  if (!hook || !tsr_be_has_exchange(ex->be)) return tsr_p2p_exchange(s, ns, r, nr, TSR_TAG_XFER);
  TSR_CHECK(tsr_be_exchange_ready(ex->be)); /* every rank calls exchange */
  tsr_be_msg *bs = calloc((size_t)ns + 1, sizeof *bs), *br = calloc((size_t)nr + 1, sizeof *br);
  int st = bs && br ? TSR_OK : TSR_ERROR(TSR_ERR_MEMORY, "out of memory moving pieces");
  for (int i = 0; st == TSR_OK && i < ns; i++) bs[i] = (tsr_be_msg){s[i].peer, s[i].buf, s[i].n};
  for (int i = 0; st == TSR_OK && i < nr; i++) br[i] = (tsr_be_msg){r[i].peer, r[i].buf, r[i].n};
  if (st == TSR_OK) st = tsr_be_exchange(ex->be, bs, ns, br, nr);
  free(bs);
  free(br);
  return st;
}

/* The messages of an exchange, per peer; host copies of device buffers
 * when the pieces do not travel in the backend's buffers. */
static int build_messages(tsr_exec *ex, int hook, double **sendbuf, const size_t *sendn,
                          double **recvbuf, const size_t *recvn, tsr_p2p_msg *s, int *ns,
                          tsr_p2p_msg *r, int *nr, double **host, double *moved) {
  for (int q = 0; q < ex->size; q++) {
    if (q == ex->rank) continue;
    if (sendn[q]) {
      double *buf = sendbuf[q];
      if (!hook) { /* host path: download, then MPI */
        host[q] = malloc(sizeof(double) * sendn[q]);
        TSR_CHECK(host[q] ? tsr_be_download(ex->be, sendbuf[q], host[q], sendn[q])
                          : TSR_ERROR(TSR_ERR_MEMORY, "out of memory moving pieces"));
        buf = host[q];
      }
      s[(*ns)++] = (tsr_p2p_msg){q, buf, sendn[q]};
      *moved += 8.0 * (double)sendn[q];
    }
    if (recvn[q]) {
      r[(*nr)++] = (tsr_p2p_msg){q, recvbuf[q], recvn[q]};
      *moved += 8.0 * (double)recvn[q];
    }
  }
  return TSR_OK;
}

/* Moves the pieces: per peer one message each way, in piece order. Receive
 * buffers are backend memory with the hook, host memory without. */
static int move_pieces(tsr_exec *ex, double **sendbuf, const size_t *sendn, double **recvbuf,
                       const size_t *recvn) {
  int P = ex->size, ns = 0, nr = 0, hook = use_hook(ex);
  tsr_p2p_msg *s = calloc((size_t)P + 1, sizeof *s), *r = calloc((size_t)P + 1, sizeof *r);
  double **host = calloc((size_t)P + 1, sizeof(double *));
  int st = s && r && host ? TSR_OK : TSR_ERROR(TSR_ERR_MEMORY, "out of memory moving pieces");
  double moved = 0, t0 = tsr_comm_time(), tt = tsr_trace_on ? tsr_trace_now() : 0.0;
  if (st == TSR_OK)
    st = build_messages(ex, hook, sendbuf, sendn, recvbuf, recvn, s, &ns, r, &nr, host, &moved);
  if (st == TSR_OK) st = exchange(ex, hook, s, ns, r, nr);
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

/* ---- held chunks read in place ---- */

/* Whether region g lies in one chunk of x's grid; *c: that chunk. */
static int inside_one_chunk(const tsr_node *x, const tsr_region *g, int64_t *c) {
  const tsr_grid *G = &x->grid;
  int64_t idx[TSR_MAXDIM];
  for (int d = 0; d < G->ndim; d++) {
    if (g->count[d] <= 0) return 0;
    idx[d] = tsr_grid_find(G, d, g->lo[d]);
    int64_t last = g->lo[d] + g->stride[d] * (g->count[d] - 1);
    if (idx[d] < 0 || last >= G->starts[d][idx[d] + 1]) return 0;
  }
  *c = tsr_grid_ravel(G, idx);
  return 1;
}

/* Per task, the held chunk of src it reads in place (-1: it gets pieces):
 * a task whose region lies in one chunk held by the task's own rank reads
 * that chunk where it is, in backend memory (device memory on the GPU),
 * with no copy and no message. Every rank derives the same map from the
 * grids alone, so the piece plans agree. */
static int local_tasks(const tsr_exec *ex, const tsr_leaf *L, const tsr_node *src,
                       const tsr_task *tasks, int64_t ntasks, int64_t **out) {
  int64_t *local = malloc(sizeof(int64_t) * (size_t)(ntasks + 1));
  if (!local) return TSR_ERROR(TSR_ERR_MEMORY, "out of memory planning a rechunk");
  for (int64_t t = 0; t < ntasks; t++) {
    tsr_region g;
    int64_t c = -1;
    local[t] = -1;
    if (src != L->node || !src->held) continue; /* a rechunk: its source is computed */
    tsr_leaf_region(L, &tasks[t].box, &g);
    if (inside_one_chunk(src, &g, &c) && tsr_chunk_owner(c, ex->size) == tasks[t].rank)
      local[t] = c;
  }
  *out = local;
  return TSR_OK;
}

/* Leaf l (of this rank's copy) reads held chunk c of x in place. */
static void local_leaf(const tsr_node *x, int64_t c, tsr_leaf *l) {
  int64_t start[TSR_MAXDIM], extent[TSR_MAXDIM];
  tsr_grid_chunk_at(&x->grid, c, start, extent);
  tsr_leaf_to_chunk(l, start, extent, x->held[c]);
}

/* ---- XFER leaves ---- */

/* One XFER leaf's staging: the pieces and the per-peer message buffers
 * (by source rank for what arrives, by destination for what leaves). */
typedef struct xfer {
  tsr_piece_list pl;
  size_t *sendn, *recvn;
  double **sendbuf, **recvbuf, **host;
  tsr_task *ptasks;
  double **dst;
  int64_t *local; /* per task: the held chunk it reads in place on its own rank, or -1 */
  int hook;
  int nd; /* dimensions of the source array */
} xfer;

static int xfer_alloc(xfer *x, int P) {
  x->sendn = calloc((size_t)P, sizeof(size_t));
  x->recvn = calloc((size_t)P, sizeof(size_t));
  x->sendbuf = calloc((size_t)P, sizeof(double *));
  x->recvbuf = calloc((size_t)P, sizeof(double *));
  x->ptasks = malloc(sizeof(tsr_task) * (size_t)(x->pl.n + 1));
  x->dst = malloc(sizeof(double *) * (size_t)(x->pl.n + 1));
  if (!x->sendn || !x->recvn || !x->sendbuf || !x->recvbuf || !x->ptasks || !x->dst)
    return TSR_ERROR(TSR_ERR_MEMORY, "out of memory planning a rechunk");
  return TSR_OK;
}

static void xfer_free(const tsr_exec *ex, xfer *x) {
  for (int q = 0; q < ex->size; q++) {
    if (x->host) free(x->host[q]);
    if (x->sendbuf && x->sendbuf[q]) tsr_be_release(ex->be, x->sendbuf[q]);
    if (x->recvbuf && x->recvbuf[q] && x->hook) tsr_be_release(ex->be, x->recvbuf[q]);
    if (x->recvbuf && x->recvbuf[q] && !x->hook) free(x->recvbuf[q]);
  }
  free(x->host);
  free(x->sendn);
  free(x->recvn);
  free(x->sendbuf);
  free(x->recvbuf);
  free(x->ptasks);
  free(x->dst);
  free(x->local);
  free(x->pl.p);
}

/* Message layout: per (src, dst), the pieces in plan order; each piece is
 * a task of the source round, at the owner of its source chunk. */
static void xfer_layout(const tsr_exec *ex, int nd, xfer *x) {
  for (int64_t k = 0; k < x->pl.n; k++) {
    tsr_piece *p = &x->pl.p[k];
    size_t n = (size_t)tsr_elems_of(nd, p->box.count);
    if (p->src == ex->rank) {
      p->off = (int64_t)x->sendn[p->dst];
      x->sendn[p->dst] += n;
    }
    if (p->dst == ex->rank && p->src != ex->rank) {
      p->off = (int64_t)x->recvn[p->src];
      x->recvn[p->src] += n;
    }
    x->ptasks[k] = (tsr_task){p->src, p->box};
  }
}

static int xfer_buffers(const tsr_exec *ex, xfer *x) {
  for (int q = 0; q < ex->size; q++) {
    if (x->sendn[q]) TSR_CHECK(tsr_be_alloc(ex->be, x->sendn[q], &x->sendbuf[q]));
    if (!x->recvn[q] || q == ex->rank) continue;
    if (x->hook) {
      TSR_CHECK(tsr_be_alloc(ex->be, x->recvn[q], &x->recvbuf[q]));
    } else if (!(x->recvbuf[q] = malloc(sizeof(double) * x->recvn[q]))) {
      return TSR_ERROR(TSR_ERR_MEMORY, "out of memory receiving pieces");
    }
  }
  return TSR_OK;
}

/* Plans the pieces of every task's region and allocates their messages. */
static int xfer_plan(tsr_exec *ex, const tsr_leaf *L, const tsr_grid *G, const tsr_task *tasks,
                     int64_t ntasks, xfer *x) {
  for (int64_t t = 0; t < ntasks; t++) {
    if (x->local[t] >= 0) continue; /* read in place: no pieces */
    tsr_region g;
    tsr_leaf_region(L, &tasks[t].box, &g);
    TSR_CHECK(tsr_plan_region(&x->pl, t, tasks[t].rank, &g, G, ex->size));
  }
  TSR_CHECK(xfer_alloc(x, ex->size));
  xfer_layout(ex, G->ndim, x);
  return xfer_buffers(ex, x);
}

/* Every rank takes part in the source round, even with nothing to do; then
 * the pieces move. */
static int xfer_run(tsr_phase *ph, const tsr_node *src, xfer *x) {
  tsr_exec *ex = ph->ex;
  const tsr_prog *Px = NULL;
  TSR_CHECK(tsr_phase_source(ph, src, &Px));
  int64_t m = 0;
  for (int64_t k = 0; k < x->pl.n; k++)
    if (x->pl.p[k].src == ex->rank) x->dst[m++] = x->sendbuf[x->pl.p[k].dst] + x->pl.p[k].off;
  TSR_CHECK(tsr_eval_round(ph, Px, x->ptasks, x->pl.n, 1, x->dst));
  return move_pieces(ex, x->sendbuf, x->sendn, x->recvbuf, x->recvn);
}

/* Host copies of what arrived (and of this rank's own pieces), per source. */
static int xfer_host(const tsr_exec *ex, xfer *x) {
  int me = ex->rank;
  x->host = calloc((size_t)ex->size, sizeof(double *));
  if (!x->host) return TSR_ERROR(TSR_ERR_MEMORY, "out of memory assembling pieces");
  for (int q = 0; q < ex->size; q++) {
    size_t n = q == me ? x->sendn[me] : x->recvn[q];
    double *from = q == me ? x->sendbuf[me] : x->recvbuf[q];
    if (!n) continue;
    if (q != me && !x->hook) { /* already host memory */
      x->host[q] = x->recvbuf[q];
      x->recvbuf[q] = NULL;
      continue;
    }
    x->host[q] = malloc(sizeof(double) * n);
    TSR_CHECK(x->host[q] ? tsr_be_download(ex->be, from, x->host[q], n)
                         : TSR_ERROR(TSR_ERR_MEMORY, "out of memory"));
  }
  return TSR_OK;
}

/* This rank's region buffers of leaf i (regs[k], rbuf[k] of its k-th task),
 * with the leaf of each copy turned into a DATA leaf reading it. */
static int xfer_regions(tsr_phase *ph, const tsr_leaf *L, int i, int nd, const tsr_task *tasks,
                        int64_t ntasks, const int64_t *local, tsr_runnable *mine, tsr_region *regs,
                        double **rbuf) {
  for (int64_t t = 0, k = 0; t < ntasks; t++) {
    if (tasks[t].rank != ph->ex->rank) continue;
    if (local[t] >= 0) { /* a held chunk of this rank, read where it is */
      local_leaf(L->node, local[t], &mine[k++].prog.leaves[i]);
      continue;
    }
    tsr_leaf_region(L, &tasks[t].box, &regs[k]);
    rbuf[k] = tsr_runnable_buffer(&ph->pool, &mine[k], (size_t)tsr_elems_of(nd, regs[k].count));
    if (!rbuf[k]) return TSR_ERR_MEMORY;
    tsr_leaf_to_data(&mine[k].prog.leaves[i], &regs[k], rbuf[k]);
    k++;
  }
  return TSR_OK;
}

/* Assembles this rank's regions from host copies of what arrived. */
static int xfer_assemble(tsr_phase *ph, const tsr_leaf *L, int i, const tsr_task *tasks,
                         int64_t ntasks, tsr_runnable *mine, int64_t nmine, xfer *x) {
  int me = ph->ex->rank, nd = x->nd, st;
  int64_t *mytask = malloc(sizeof(int64_t) * (size_t)(ntasks + 1));
  tsr_region *regs = calloc((size_t)nmine + 1, sizeof(tsr_region));
  double **rbuf = calloc((size_t)nmine + 1, sizeof(double *));
  st = mytask && regs && rbuf ? TSR_OK : TSR_ERROR(TSR_ERR_MEMORY, "out of memory");
  if (st != TSR_OK) goto done;
  for (int64_t t = 0, k = 0; t < ntasks; t++) mytask[t] = tasks[t].rank == me ? k++ : -1;
  TSR_CHECK_GOTO(st, xfer_regions(ph, L, i, nd, tasks, ntasks, x->local, mine, regs, rbuf), done);
  for (int64_t k = 0; k < x->pl.n; k++) {
    const tsr_piece *p = &x->pl.p[k];
    if (p->dst != me) continue;
    int64_t t = mytask[p->task];
    /* the self message is laid out by destination: offsets are in sendbuf[me] */
    tsr_place_piece(nd, regs[t].count, rbuf[t], p->j0, p->box.count, x->host[p->src] + p->off);
  }
done:
  free(mytask);
  free(regs);
  free(rbuf);
  return st;
}

int tsr_stage_xfer(tsr_phase *ph, const tsr_prog *P, int i, const tsr_task *tasks, int64_t ntasks,
                   tsr_runnable *mine, int64_t nmine) {
  tsr_exec *ex = ph->ex;
  const tsr_leaf *L = &P->leaves[i];
  const tsr_node *src = L->node->held ? L->node : L->node->in[0]; /* where the pieces come from */
  xfer x;
  memset(&x, 0, sizeof x);
  x.hook = use_hook(ex);
  x.nd = src->grid.ndim;
  int st = local_tasks(ex, L, src, tasks, ntasks, &x.local);
  if (st == TSR_OK) st = xfer_plan(ex, L, &src->grid, tasks, ntasks, &x);
  st = tsr_agree(st);
  if (st == TSR_OK) st = tsr_agree(xfer_run(ph, src, &x));
  if (st == TSR_OK) st = xfer_host(ex, &x);
  if (st == TSR_OK) st = xfer_assemble(ph, L, i, tasks, ntasks, mine, nmine, &x);
  xfer_free(ex, &x);
  return st;
}

/* ---- HELD leaves ---- */

/* The held chunk *c of node x holding all of region g (an error when g
 * spans chunks or the chunk is not here). */
static int held_chunk(const tsr_node *x, const tsr_region *g, int64_t *c) {
  if (!inside_one_chunk(x, g, c)) return TSR_ERROR(TSR_ERR_INTERNAL, "a box spans held chunks");
  if (!x->held[*c])
    return TSR_ERROR(TSR_ERR_INTERNAL, "held chunk %lld is not on this rank", (long long)*c);
  return TSR_OK;
}

/* HELD leaf i of one task's copy u: the held chunk holding the piece, read
 * in place (backend memory: the backend copies the piece into its message). */
static int stage_held_task(tsr_phase *ph, const tsr_leaf *l, int i, const tsr_task *task,
                           tsr_runnable *u) {
  (void)ph;
  tsr_region g;
  tsr_leaf_region(l, &task->box, &g);
  int64_t n = tsr_elems_of(l->base_ndim, g.count), c = -1;
  if (n == 0) { /* an empty piece reads nothing */
    tsr_leaf_to_data(&u->prog.leaves[i], &g, NULL);
    return TSR_OK;
  }
  TSR_CHECK(held_chunk(l->node, &g, &c));
  local_leaf(l->node, c, &u->prog.leaves[i]);
  return TSR_OK;
}

/* Such a program is the source of rechunk pieces, cut along the held
 * node's grid and evaluated by the owners of its chunks, so each piece is
 * read from a chunk of this rank's. */
int tsr_stage_held(tsr_phase *ph, const tsr_prog *P, const tsr_task *tasks, int64_t ntasks,
                   tsr_runnable *mine) {
  for (int i = 0; i < P->nleaves; i++) {
    if (P->leaves[i].kind != LEAF_HELD) continue;
    for (int64_t t = 0, k = 0; t < ntasks; t++) {
      if (tasks[t].rank != ph->ex->rank) continue;
      TSR_CHECK(stage_held_task(ph, &P->leaves[i], i, &tasks[t], &mine[k++]));
    }
  }
  return TSR_OK;
}
