/*
 * combine.c - partials combined across ranks (combine.h) and chunks
 * replicated on every rank (tsr_exec_replicate, exec.h; linalg uses it too).
 * Full reductions allgather one partial per chunk; axis reductions send
 * partials to the owner of their output chunk, which combines them along
 * the axis in chunk order, then replicate the finished chunks.
 */
#include "exec/combine.h"

#include <stdlib.h>
#include <string.h>

#include "kernel/dtype.h"
#include "mpi/agree.h"
#include "kernel/stats_merge.h"
#include "exec/stage.h"
#include "mpi/comm.h"
#include "plan/plan.h"
#include "util/error.h"
#include "util/trace.h"

void tsr_exec_comm_done(tsr_exec *ex, const char *name, double t0, double bytes) {
  double t1 = tsr_comm_time();
  ex->comm_s += t1 - t0;
  ex->comm_bytes += bytes;
  if (tsr_trace_on) {
    double now = tsr_trace_now();
    tsr_trace_span(TSR_TRACE_COMM, name, 0, now - (t1 - t0), now,
                   (tsr_trace_args){-1, 0, 0, (int64_t)bytes});
  }
}

static int64_t chunk_elems(const tsr_grid *g, int64_t id, int64_t *start, int64_t *extent) {
  int64_t idx[TSR_MAXDIM];
  tsr_grid_unravel(g, id, idx);
  tsr_grid_chunk_box(g, idx, start, extent);
  return tsr_elems_of(g->ndim, extent);
}

/* ---- full reductions ---- */

/* The finished value in r's dtype; NaN stays for check_indices where an
 * index reduction had no element. */
static double finished(const tsr_node *r, const tsr_stat *s) {
  double v = tsr_stat_finish(r->op, s, r->ddof);
  if (v != v && (tsr_red_flags(r->op) & RF_INDEX)) return v;
  return tsr_dtype_cast(v, r->dtype);
}

/* The gathered (id, partial) records in chunk order. */
static int order_partials(const char *all, size_t bytes, int64_t total, tsr_stat *ordered) {
  size_t rec = sizeof(int64_t) + sizeof(tsr_stat);
  int64_t got = 0;
  for (size_t off = 0; off + rec <= bytes; off += rec, got++) {
    int64_t id;
    memcpy(&id, all + off, sizeof id);
    memcpy(&ordered[id], all + off + sizeof id, sizeof(tsr_stat));
  }
  if (got != total)
    return TSR_ERROR(TSR_ERR_INTERNAL, "gathered %lld partials for %lld chunks", (long long)got,
                     (long long)total);
  return TSR_OK;
}

/* Full reduction: every rank gets every chunk's partial, combines in order. */
static int combine_full(tsr_exec *ex, tsr_node *r, const tsr_grid *g, const int64_t *ids, int64_t n,
                        tsr_stat **parts) {
  size_t rec = sizeof(int64_t) + sizeof(tsr_stat);
  char *send, *all;
  size_t *counts;
  TSR_MALLOC(send, rec * (size_t)n);
  for (int64_t i = 0; i < n; i++) {
    memcpy(send + rec * (size_t)i, &ids[i], sizeof(int64_t));
    memcpy(send + rec * (size_t)i + sizeof(int64_t), parts[i], sizeof(tsr_stat));
  }
  double t0 = tsr_comm_time();
  int st = tsr_comm_allgather_bytes(send, rec * (size_t)n, &all, &counts);
  tsr_exec_comm_done(ex, "allgather partials", t0,
                     st == TSR_OK ? (double)(rec * (size_t)tsr_grid_count(g) + rec * (size_t)n)
                                  : 0.0);
  free(send);
  TSR_CHECK(st);
  double tc = tsr_trace_on ? tsr_trace_now() : 0.0;
  int64_t total = tsr_grid_count(g);
  tsr_stat *ordered;
  TSR_CALLOC(ordered, (size_t)total, sizeof(tsr_stat));
  size_t bytes = 0;
  for (int q = 0; q < ex->size; q++) bytes += counts[q];
  st = order_partials(all, bytes, total, ordered);
  free(all);
  free(counts);
  if (st != TSR_OK) {
    free(ordered);
    return st;
  }
  tsr_stat s = tsr_stat_combine(r->op, ordered, total);
  free(ordered);
  if (tsr_trace_on)
    tsr_trace_end(TSR_TRACE_COMBINE, tsr_red_name(r->op), tc, (tsr_trace_args){-1, 0, total, 0});
  TSR_MALLOC(r->value, sizeof(double));
  r->value[0] = finished(r, &s);
  return TSR_OK;
}

/* ---- axis reductions ---- */

/* Chunk coordinates of the reduction's output chunk fed by input chunk idx. */
static int64_t out_chunk_of(const tsr_node *r, const tsr_grid *in, const int64_t *idx) {
  int64_t o[TSR_MAXDIM];
  int k = 0;
  for (int a = 0; a < in->ndim; a++) {
    if (a == r->axis) {
      if (r->keepdims) o[k++] = 0;
      continue;
    }
    o[k++] = idx[a];
  }
  return tsr_grid_ravel(&r->grid, o);
}

/* Bytes of chunk id's axis partial (start/extent/idx: its box). */
static size_t partial_bytes(const tsr_node *r, const tsr_grid *g, int64_t id, int64_t *idx,
                            int64_t *out) {
  int64_t start[TSR_MAXDIM], extent[TSR_MAXDIM];
  tsr_grid_unravel(g, id, idx);
  tsr_grid_chunk_box(g, idx, start, extent);
  *out = out_chunk_of(r, g, idx);
  return sizeof(tsr_stat) * (size_t)tsr_partial_count(g->ndim, extent, r->axis);
}

/* Per destination rank: (id, partial) records of the chunks it combines. */
static int pack_partials(const tsr_exec *ex, const tsr_node *r, const tsr_grid *g,
                         const int64_t *ids, int64_t n, tsr_stat **parts, char **send,
                         size_t *sendn) {
  int P = ex->size;
  int64_t idx[TSR_MAXDIM], oc;
  for (int pass = 0; pass < 2; pass++) { /* sizes, then copies */
    for (int q = 0; q < P; q++) {
      if (pass == 1) TSR_MALLOC(send[q], sendn[q]);
      sendn[q] = 0;
    }
    for (int64_t i = 0; i < n; i++) {
      size_t len = partial_bytes(r, g, ids[i], idx, &oc);
      int q = tsr_chunk_owner(oc, P);
      if (pass == 1) {
        memcpy(send[q] + sendn[q], &ids[i], sizeof(int64_t));
        memcpy(send[q] + sendn[q] + sizeof(int64_t), parts[i], len);
      }
      sendn[q] += sizeof(int64_t) + len;
    }
  }
  return TSR_OK;
}

/* Sends every partial to the owner of its output chunk: *recv holds *bytes
 * of records. */
static int move_partials(tsr_exec *ex, const tsr_node *r, const tsr_grid *g, const int64_t *ids,
                         int64_t n, tsr_stat **parts, char **recv, size_t *bytes) {
  int P = ex->size;
  char **send;
  size_t *sendn, *recvn;
  TSR_CALLOC(send, (size_t)P, sizeof(char *));
  TSR_CALLOC(sendn, (size_t)P, sizeof(size_t));
  int st = pack_partials(ex, r, g, ids, n, parts, send, sendn);
  double t0 = tsr_comm_time(), moved = 0;
  for (int q = 0; q < P; q++) moved += (double)sendn[q];
  if (st == TSR_OK) st = tsr_comm_alltoall_bytes(send, sendn, recv, &recvn);
  for (int q = 0; q < P && st == TSR_OK; q++) moved += (double)recvn[q];
  tsr_exec_comm_done(ex, "alltoall partials", t0, st == TSR_OK ? moved : 0.0);
  for (int q = 0; q < P; q++) free(send[q]);
  free(send);
  free(sendn);
  TSR_CHECK(st);
  *bytes = 0;
  for (int q = 0; q < P; q++) *bytes += recvn[q];
  free(recvn);
  return TSR_OK;
}

/* Finishes output chunk `oc` (cnt elements) from its K partials in slot. */
static void finish_chunk(const tsr_node *r, const tsr_stat *const *slot, int64_t K, int64_t cnt,
                         tsr_stat *col, double *vals) {
  for (int64_t e = 0; e < cnt; e++) {
    for (int64_t k = 0; k < K; k++) col[k] = slot[k] ? slot[k][e] : tsr_stat_empty(r->op);
    tsr_stat s = tsr_stat_combine(r->op, col, K);
    vals[e] = finished(r, &s);
  }
}

/* This rank's output chunks mine[0..nmine-1] finished into vals[j]. */
static int finish_mine(const tsr_node *r, const tsr_stat **slot, int64_t K, const int64_t *mine,
                       int64_t nmine, double **vals) {
  int64_t start[TSR_MAXDIM], extent[TSR_MAXDIM];
  tsr_stat *col;
  TSR_MALLOC(col, sizeof(tsr_stat) * (size_t)K);
  int st = TSR_OK;
  for (int64_t j = 0; j < nmine; j++) {
    int64_t cnt = chunk_elems(&r->grid, mine[j], start, extent);
    vals[j] = malloc(sizeof(double) * (size_t)(cnt + 1));
    if (!vals[j]) {
      st = TSR_ERROR(TSR_ERR_MEMORY, "out of memory combining a reduction");
      break;
    }
    finish_chunk(r, &slot[mine[j] * K], K, cnt, col, vals[j]);
  }
  free(col);
  return st;
}

/* Axis reduction: partials travel to the owner of their output chunk, which
 * combines them along the axis in chunk order; then the finished values are
 * replicated. */
static int combine_axis(tsr_exec *ex, tsr_node *r, const tsr_grid *g, const int64_t *ids, int64_t n,
                        tsr_stat **parts) {
  char *recv = NULL;
  size_t bytes = 0;
  TSR_CHECK(move_partials(ex, r, g, ids, n, parts, &recv, &bytes));
  double tc = tsr_trace_on ? tsr_trace_now() : 0.0;
  /* Index the received partials by (output chunk, position along axis). */
  int64_t nout = tsr_grid_count(&r->grid), K = g->nchunks[r->axis], idx[TSR_MAXDIM], oc;
  const tsr_stat **slot;
  TSR_CALLOC(slot, (size_t)(nout * K), sizeof(tsr_stat *));
  for (size_t off = 0; off < bytes;) {
    int64_t id;
    memcpy(&id, recv + off, sizeof id);
    size_t len = partial_bytes(r, g, id, idx, &oc);
    slot[oc * K + idx[r->axis]] = (const tsr_stat *)(recv + off + sizeof id);
    off += sizeof id + len;
  }
  int64_t *mine = NULL, nmine = 0;
  TSR_CHECK(tsr_owned_chunks(ex->rank, ex->size, nout, &mine, &nmine));
  double **vals;
  TSR_CALLOC(vals, (size_t)nmine + 1, sizeof(double *));
  int st = finish_mine(r, slot, K, mine, nmine, vals);
  free(slot);
  free(recv);
  if (tsr_trace_on)
    tsr_trace_end(TSR_TRACE_COMBINE, tsr_red_name(r->op), tc, (tsr_trace_args){-1, 0, 0, 0});
  if (st == TSR_OK) st = tsr_exec_replicate(ex, r, mine, nmine, vals);
  for (int64_t j = 0; j < nmine; j++) free(vals[j]);
  free(vals);
  free(mine);
  return st;
}

/* The backends' indices of RF_INDEX partials are within their chunk (flat
 * C order over the chunk's box, or along the axis): made global here, once
 * for every backend. Within a chunk both orders agree, so the ties the
 * backends broke by the smaller local index stay broken the same way. */
static void globalize_indices(const tsr_node *r, const tsr_grid *g, const int64_t *ids, int64_t n,
                              tsr_stat **parts) {
  int64_t start[TSR_MAXDIM], extent[TSR_MAXDIM];
  for (int64_t i = 0; i < n; i++) {
    chunk_elems(g, ids[i], start, extent);
    int64_t cnt = tsr_partial_count(g->ndim, extent, r->axis);
    for (int64_t e = 0; e < cnt; e++) {
      tsr_stat *s = &parts[i][e];
      if (s->n == 0) continue;
      if (r->axis >= 0) {
        s->b += (double)start[r->axis];
        continue;
      }
      int64_t rem = (int64_t)s->b, flat = 0, mult = 1;
      for (int a = g->ndim - 1; a >= 0; a--) {
        flat += (start[a] + rem % extent[a]) * mult;
        rem /= extent[a];
        mult *= g->shape[a];
      }
      s->b = (double)flat;
    }
  }
}

/* An index reduction's slice with no element left (nanargmax of all NaN)
 * finished as NaN: NumPy's ValueError, on every rank alike (the values
 * are replicated). */
static int check_indices(tsr_node *r) {
  int64_t size = tsr_node_size(r);
  for (int64_t e = 0; e < size; e++)
    if (r->value[e] != r->value[e]) {
      free(r->value);
      r->value = NULL;
      return TSR_ERROR(TSR_ERR_VALUE, "%s: All-NaN slice encountered", tsr_red_name(r->op));
    }
  return TSR_OK;
}

int tsr_combine_partials(tsr_exec *ex, tsr_node *r, const tsr_grid *g, const int64_t *ids,
                         int64_t n, tsr_stat **parts) {
  int index = tsr_red_flags(r->op) & RF_INDEX;
  if (index) globalize_indices(r, g, ids, n, parts);
  TSR_CHECK(r->axis < 0 ? combine_full(ex, r, g, ids, n, parts)
                        : combine_axis(ex, r, g, ids, n, parts));
  return index ? check_indices(r) : TSR_OK;
}

/* ---- replication ---- */

/* (id, values) records of this rank's chunks. */
static int pack_chunks(const tsr_grid *g, const int64_t *ids, int64_t n, double *const *bufs,
                       char **send, size_t *bytes) {
  int64_t start[TSR_MAXDIM], extent[TSR_MAXDIM];
  size_t off = 0;
  *bytes = 0;
  for (int64_t i = 0; i < n; i++)
    *bytes += sizeof(int64_t) + sizeof(double) * (size_t)chunk_elems(g, ids[i], start, extent);
  TSR_MALLOC(*send, *bytes);
  for (int64_t i = 0; i < n; i++) {
    size_t len = sizeof(double) * (size_t)chunk_elems(g, ids[i], start, extent);
    memcpy(*send + off, &ids[i], sizeof(int64_t));
    memcpy(*send + off + sizeof(int64_t), bufs[i], len);
    off += sizeof(int64_t) + len;
  }
  return TSR_OK;
}

/* Scatters a chunk (row-major over extent, at start) into the full array. */
static void scatter_chunk(const tsr_grid *g, const int64_t *start, const int64_t *extent,
                          const double *src, double *value) {
  int64_t row_stride[TSR_MAXDIM], s = 1, cnt = tsr_elems_of(g->ndim, extent);
  for (int a = g->ndim - 1; a >= 0; a--) {
    row_stride[a] = s;
    s *= g->shape[a];
  }
  for (int64_t e = 0; e < cnt; e++) {
    int64_t rem = e, dst = 0;
    for (int a = g->ndim - 1; a >= 0; a--) {
      dst += (start[a] + rem % extent[a]) * row_stride[a];
      rem /= extent[a];
    }
    value[dst] = src[e];
  }
}

int tsr_exec_replicate(tsr_exec *ex, tsr_node *node, const int64_t *ids, int64_t n,
                       double *const *bufs) {
  const tsr_grid *g = &node->grid;
  int64_t start[TSR_MAXDIM], extent[TSR_MAXDIM];
  char *send, *all;
  size_t *counts, bytes, total = 0;
  TSR_CHECK(pack_chunks(g, ids, n, bufs, &send, &bytes));
  double t0 = tsr_comm_time();
  int st = tsr_comm_allgather_bytes(send, bytes, &all, &counts);
  free(send);
  for (int q = 0; st == TSR_OK && q < ex->size; q++) total += counts[q];
  tsr_exec_comm_done(ex, "allgather chunks", t0, st == TSR_OK ? (double)(bytes + total) : 0.0);
  TSR_CHECK(st);
  free(counts);
  int64_t size = tsr_node_size(node);
  node->value = malloc(sizeof(double) * (size_t)(size + 1));
  if (!node->value) {
    free(all);
    return TSR_ERROR(TSR_ERR_MEMORY, "out of memory for a result of %lld elements",
                     (long long)size);
  }
  for (size_t off = 0; off < total;) {
    int64_t id;
    memcpy(&id, all + off, sizeof id);
    int64_t cnt = chunk_elems(g, id, start, extent);
    scatter_chunk(g, start, extent, (const double *)(all + off + sizeof id), node->value);
    off += sizeof id + sizeof(double) * (size_t)cnt;
  }
  free(all);
  return TSR_OK;
}

int tsr_exec_gather_held(tsr_exec *ex, tsr_node *o) {
  int64_t total = tsr_grid_count(&o->grid), n = 0;
  int64_t *ids = malloc(sizeof(int64_t) * (size_t)(total / ex->size + 1));
  double **bufs = calloc((size_t)(total / ex->size + 1), sizeof(double *));
  int st = ids && bufs ? TSR_OK : TSR_ERROR(TSR_ERR_MEMORY, "out of memory gathering a result");
  for (int64_t c = ex->rank; c < total && st == TSR_OK; c += ex->size, n++) {
    int64_t start[TSR_MAXDIM], extent[TSR_MAXDIM],
        cnt = tsr_grid_chunk_at(&o->grid, c, start, extent);
    ids[n] = c;
    bufs[n] = malloc(sizeof(double) * (size_t)(cnt + 1));
    st = bufs[n] ? tsr_be_download(ex->be, o->held[c], bufs[n], (size_t)cnt)
                 : TSR_ERROR(TSR_ERR_MEMORY, "out of memory gathering a result");
  }
  st = tsr_agree(st);
  if (st == TSR_OK) st = tsr_exec_replicate(ex, o, ids, n, bufs);
  for (int64_t i = 0; bufs && i < n; i++) free(bufs[i]);
  free(ids), free(bufs);
  tsr_node_release_held(o);
  return st;
}

int tsr_exec_whole(tsr_exec *ex, tsr_node *n, const tsr_stage_scan *scan,
                   int (*each)(tsr_exec *ex, tsr_node *n, double **chunks)) {
  if (n->held || n->value) return TSR_OK;
  int64_t total = tsr_grid_count(&n->grid);
  double **chunks = calloc((size_t)total + 1, sizeof(double *));
  int st = tsr_agree(chunks ? TSR_OK : TSR_ERROR(TSR_ERR_MEMORY, "out of memory"));
  if (st == TSR_OK) st = tsr_stage_waves_be_scan(ex, n->in[0], scan, tsr_exec_take_chunks, chunks);
  if (st == TSR_OK) st = each(ex, n, chunks);
  return tsr_exec_hold_chunks(ex, n, chunks, st);
}

int tsr_exec_hold_chunks(tsr_exec *ex, tsr_node *n, double **chunks, int st) {
  if (st == TSR_OK) {
    tsr_node_hold(n, chunks, tsr_exec_held_free, ex->be);
    n->held_size = ex->size;
    return ex->no_fuse ? tsr_exec_gather_held(ex, n) : TSR_OK;
  }
  for (int64_t i = 0, total = tsr_grid_count(&n->grid); chunks && i < total; i++)
    tsr_be_release(ex->be, chunks[i]);
  free(chunks);
  return st;
}
