/*
 * stage.c - a phase's open datasets and source programs, rounds, and LOAD
 * leaves read as HDF5 hyperslabs (see stage.h for staged leaves, phase.h
 * for the vocabulary). XFER and HELD leaves are xfer.c's; waves of
 * consumer chunks are waves.c's.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "exec/stage.h"

#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "exec/phase.h"
#include "exec/progcopy.h"
#include "mpi/agree.h"
#include "mpi/comm.h"
#include "util/error.h"
#include "util/trace.h"
#include "util/workers.h"

int tsr_stage_needed(const tsr_prog *p) {
  for (int i = 0; i < p->nleaves; i++)
    if (p->leaves[i].kind == LEAF_LOAD || p->leaves[i].kind == LEAF_XFER ||
        p->leaves[i].kind == LEAF_HELD)
      return 1;
  return 0;
}

/* ---- the phase's open datasets and source programs ---- */

static int phase_reader(tsr_phase *ph, const tsr_load_src *src, tsr_h5_reader **r) {
  for (int i = 0; i < ph->nreaders; i++)
    if (ph->readers[i].src == src) {
      *r = ph->readers[i].r;
      return TSR_OK;
    }
  tsr_reader_entry *p = realloc(ph->readers, sizeof *p * (size_t)(ph->nreaders + 1));
  if (!p) return TSR_ERROR(TSR_ERR_MEMORY, "out of memory opening '%s'", src->path);
  ph->readers = p;
  TSR_CHECK(tsr_h5_reader_open(src->path, src->dataset, ph->collective, r));
  ph->readers[ph->nreaders++] = (tsr_reader_entry){src, *r};
  return TSR_OK;
}

int tsr_phase_source(tsr_phase *ph, const tsr_node *x, const tsr_prog **out) {
  for (int i = 0; i < ph->nsources; i++)
    if (ph->sources[i]->node == x) {
      *out = &ph->sources[i]->prog;
      return TSR_OK;
    }
  tsr_source_entry **p = realloc(ph->sources, sizeof *p * (size_t)(ph->nsources + 1));
  if (p) ph->sources = p;
  tsr_source_entry *e = p ? calloc(1, sizeof *e) : NULL;
  if (!e) return TSR_ERROR(TSR_ERR_MEMORY, "out of memory compiling a rechunk source");
  /* held: the held chunks themselves, read on their owners */
  int st = x->held ? tsr_prog_compile_held(x, &e->prog) : tsr_prog_compile(x, 0, &e->prog);
  if (st != TSR_OK) {
    free(e);
    return st;
  }
  e->node = x;
  ph->sources[ph->nsources++] = e;
  *out = &e->prog;
  return TSR_OK;
}

void tsr_phase_begin(tsr_phase *ph, tsr_exec *ex) {
  memset(ph, 0, sizeof *ph);
  ph->ex = ex;
#ifdef TSR_HAVE_PARALLEL_HDF5
  ph->collective = ex->size > 1 && !ex->hdf5_independent;
#endif
}

int tsr_phase_end(tsr_phase *ph, int st) {
  for (int i = 0; i < ph->nreaders; i++) {
    ph->ex->io_bytes += tsr_h5_reader_bytes(ph->readers[i].r);
    int c = tsr_h5_reader_close(ph->readers[i].r);
    if (st == TSR_OK) st = c;
  }
  for (int i = 0; i < ph->nsources; i++) {
    tsr_prog_free(&ph->sources[i]->prog);
    free(ph->sources[i]);
  }
  free(ph->readers);
  free(ph->sources);
  tsr_pool_clear(&ph->pool);
  return st;
}

/* ---- LOAD leaves ---- */

/* Tasks per rank in a round: this rank's and the largest. */
static void count_tasks(const tsr_phase *ph, const tsr_task *tasks, int64_t ntasks, int64_t *mine,
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

/* The region of LOAD leaf l over task's box, its size and a buffer for it
 * in u (NULL when out of memory). */
static double *region_buffer(tsr_phase *ph, const tsr_leaf *l, const tsr_task *task,
                             tsr_runnable *u, tsr_region *g, int64_t *n) {
  tsr_leaf_region(l, &task->box, g);
  *n = tsr_elems_of(l->base_ndim, g->count);
  return tsr_runnable_buffer(&ph->pool, u, (size_t)*n);
}

/* Collective reads: reads LOAD leaf i of task slot s (s >= nmine or an
 * earlier failure: an empty collective read). Adds the bytes read to
 * *bytes. */
static int load_slot(tsr_phase *ph, const tsr_prog *P, int i, const tsr_task *task, tsr_runnable *u,
                     int skip, double *bytes) {
  const tsr_leaf *l = &P->leaves[i];
  tsr_h5_reader *r = NULL;
  int rs = phase_reader(ph, l->node->src, &r);
  if (rs != TSR_OK) return rs;
  if (skip) /* nothing (more) to read here */
    return tsr_h5_read(r, NULL, NULL, NULL, NULL);
  tsr_region g;
  int64_t n;
  double *buf = region_buffer(ph, l, task, u, &g, &n);
  rs = buf ? TSR_OK : TSR_ERR_MEMORY;
  if (rs == TSR_OK && n > 0)
    rs = tsr_h5_read(r, g.lo, g.stride, g.count, buf);
  else
    tsr_h5_read(r, NULL, NULL, NULL, NULL);
  if (rs == TSR_OK) tsr_leaf_to_data(&u->prog.leaves[i], &g, buf);
  *bytes += 8.0 * (double)n;
  return rs;
}

/* Collective reads of every LOAD leaf of P for this rank's tasks
 * my[0..nmine-1]: every rank makes the same number of calls per leaf (empty
 * ones when it has fewer tasks), and a rank that failed keeps making empty
 * calls. */
static int load_slots(tsr_phase *ph, const tsr_prog *P, const tsr_task **my, tsr_runnable *mine,
                      int64_t nmine, int64_t slots, double *bytes) {
  int st = TSR_OK;
  for (int64_t s = 0; s < slots; s++)
    for (int i = 0; i < P->nleaves; i++) {
      if (P->leaves[i].kind != LEAF_LOAD) continue;
      int skip = s >= nmine || st != TSR_OK;
      int rs = load_slot(ph, P, i, skip ? NULL : my[s], skip ? NULL : &mine[s], skip, bytes);
      if (st == TSR_OK) st = rs;
    }
  return st;
}

/* Independent reads go in two steps: each read is planned in task and leaf
 * order on this thread, those HDF5 must make (conversions, filters,
 * strided or scattered regions) made at once; those whose bytes lie in the
 * file as they are wanted (tsr_h5_plan_direct) are then read together,
 * with pread on the executor's threads, and their leaves finished in order.
 * A failure is the one the serial order meets first. */
typedef struct direct_read {
  tsr_h5_reader *r;
  tsr_h5_span span;
  double *buf;
  tsr_leaf *leaf; /* of the task's program copy: a DATA leaf once read */
  tsr_region g;
  int64_t at; /* its place in the order of the round's reads */
} direct_read;

typedef struct direct_list {
  direct_read *d;
  int64_t n;
  double bytes[2]; /* read through HDF5, read directly (8 per element) */
} direct_list;

/* Plans LOAD leaf i of a task (read number at of the round): a direct read
 * joins dl, any other is made through HDF5 now. */
static int plan_slot(tsr_phase *ph, const tsr_prog *P, int i, const tsr_task *task, tsr_runnable *u,
                     int64_t at, direct_list *dl) {
  const tsr_leaf *l = &P->leaves[i];
  tsr_h5_reader *r = NULL;
  TSR_CHECK(phase_reader(ph, l->node->src, &r));
  tsr_region g;
  int64_t n;
  double *buf = region_buffer(ph, l, task, u, &g, &n);
  if (!buf) return TSR_ERR_MEMORY;
  tsr_h5_span span;
  if (n > 0 && tsr_h5_plan_direct(r, g.lo, g.stride, g.count, &span)) {
    dl->d[dl->n++] = (direct_read){r, span, buf, &u->prog.leaves[i], g, at};
    dl->bytes[1] += 8.0 * (double)n;
    return TSR_OK;
  }
  if (n > 0) TSR_CHECK(tsr_h5_read(r, g.lo, g.stride, g.count, buf));
  tsr_leaf_to_data(&u->prog.leaves[i], &g, buf);
  dl->bytes[0] += 8.0 * (double)n;
  return TSR_OK;
}

/* Plans every read of the round, in order, up to the first failure (its
 * place in the order goes to w). */
static void plan_reads(tsr_phase *ph, const tsr_prog *P, const tsr_task **my, tsr_runnable *mine,
                       int64_t nmine, direct_list *dl, tsr_workers *w) {
  int64_t at = 0;
  for (int64_t s = 0; s < nmine; s++)
    for (int i = 0; i < P->nleaves; i++) {
      if (P->leaves[i].kind != LEAF_LOAD) continue;
      int st = plan_slot(ph, P, i, my[s], &mine[s], at, dl);
      if (st != TSR_OK) {
        tsr_workers_fail_at(w, at, st);
        return;
      }
      at++;
    }
}

/* Direct read k of dl, at its place in w's order (traced on its thread,
 * with its bytes). */
static void read_one(const direct_list *dl, int64_t k, tsr_workers *w) {
  const direct_read *d = &dl->d[k];
  if (!tsr_workers_begin_at(w, d->at)) return;
  double tt = tsr_trace_on ? tsr_trace_now() : 0.0;
  tsr_workers_fail_at(w, d->at, tsr_h5_read_span(d->r, &d->span, d->buf));
  if (tsr_trace_on)
    tsr_trace_end(TSR_TRACE_IO, "pread", tt, (tsr_trace_args){-1, 0, 0, d->span.bytes});
}

/* Reads the direct reads of dl on the executor's threads. Staged inside a
 * team (waves.c: the main thread stages the next wave while the others
 * evaluate this one) they are tasks of that team, which each thread takes
 * as it finishes its chunks; elsewhere a loop of their own. */
static void read_direct(const tsr_phase *ph, const direct_list *dl, tsr_workers *w) {
  if (dl->n == 0) return;
  if (omp_get_num_threads() > 1) {
    for (int64_t k = 0; k < dl->n; k++) {
#pragma omp task firstprivate(k)
      read_one(dl, k, w);
    }
#pragma omp taskwait
    return;
  }
  int threads = ph->ex->threads < dl->n ? ph->ex->threads : (int)dl->n;
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads > 1 ? threads : 1)
  for (int64_t k = 0; k < dl->n; k++) read_one(dl, k, w);
}

/* Independent reads of every LOAD leaf of P (nloads of them) for this
 * rank's tasks my[0..nmine-1]. Adds the bytes read to *bytes. */
static int load_planned(tsr_phase *ph, const tsr_prog *P, const tsr_task **my, tsr_runnable *mine,
                        int64_t nmine, int nloads, double *bytes) {
  direct_list dl = {0};
  dl.d = malloc(sizeof *dl.d * (size_t)(nmine * nloads + 1));
  if (!dl.d) return TSR_ERROR(TSR_ERR_MEMORY, "out of memory staging reads");
  tsr_workers w;
  tsr_workers_init(&w);
  double tt = tsr_trace_on ? tsr_trace_now() : 0.0;
  plan_reads(ph, P, my, mine, nmine, &dl, &w);
  if (tsr_trace_on && (dl.bytes[0] > 0 || dl.n == 0))
    tt = tsr_trace_end(TSR_TRACE_IO, "read hyperslabs", tt,
                       (tsr_trace_args){-1, 0, 0, (int64_t)dl.bytes[0]});
  read_direct(ph, &dl, &w);
  if (tsr_trace_on && dl.n > 0) /* the bytes are on each read's span */
    tsr_trace_end(TSR_TRACE_IO, "read directly", tt, (tsr_trace_args){-1, 0, 0, 0});
  int st = tsr_workers_end_at(&w);
  for (int64_t k = 0; k < dl.n && st == TSR_OK; k++)
    tsr_leaf_to_data(dl.d[k].leaf, &dl.d[k].g, dl.d[k].buf);
  *bytes += dl.bytes[0] + dl.bytes[1];
  free(dl.d);
  return st;
}

/* Reads every LOAD leaf of P for this rank's tasks (most: the largest
 * number of tasks of any rank). */
static int stage_loads(tsr_phase *ph, const tsr_prog *P, const tsr_task *tasks, int64_t ntasks,
                       tsr_runnable *mine, int64_t nmine, int64_t most) {
  int nloads = 0;
  for (int i = 0; i < P->nleaves; i++) nloads += P->leaves[i].kind == LEAF_LOAD;
  if (!nloads) return TSR_OK;
  int64_t k = 0;
  const tsr_task **my = malloc(sizeof(tsr_task *) * (size_t)(nmine + 1));
  if (!my) return TSR_ERROR(TSR_ERR_MEMORY, "out of memory staging reads");
  for (int64_t t = 0; t < ntasks; t++)
    if (tasks[t].rank == ph->ex->rank) my[k++] = &tasks[t];
  double t0 = tsr_comm_time(), tt = tsr_trace_on ? tsr_trace_now() : 0.0, bytes = 0;
  int st = ph->collective ? load_slots(ph, P, my, mine, nmine, most, &bytes)
                          : load_planned(ph, P, my, mine, nmine, nloads, &bytes);
  ph->ex->io_s += tsr_comm_time() - t0;
  if (tsr_trace_on && ph->collective)
    tsr_trace_end(TSR_TRACE_IO, "read hyperslabs", tt, (tsr_trace_args){-1, 0, 0, (int64_t)bytes});
  free(my);
  return st;
}

/* ---- rounds ---- */

/* Copies P for this rank's tasks into mine[] (view: restricted to the box). */
static int copy_programs(const tsr_phase *ph, const tsr_prog *P, const tsr_task *tasks,
                         int64_t ntasks, int view, tsr_runnable *mine) {
  for (int64_t t = 0, k = 0; t < ntasks; t++) {
    if (tasks[t].rank != ph->ex->rank) continue;
    tsr_runnable *u = &mine[k++];
    const tsr_sbox *b = &tasks[t].box;
    TSR_CHECK(view ? tsr_prog_view(P, b, &u->prog) : tsr_prog_copy(P, &u->prog));
    for (int a = 0; a < P->ndim; a++) {
      u->start[a] = view ? 0 : b->first[a];
      u->extent[a] = b->count[a];
    }
  }
  return TSR_OK;
}

int tsr_stage_round(tsr_phase *ph, const tsr_prog *P, const tsr_task *tasks, int64_t ntasks,
                    int view, tsr_runnable **out, int64_t *nout) {
  int64_t nmine, most;
  count_tasks(ph, tasks, ntasks, &nmine, &most);
  tsr_runnable *mine = calloc((size_t)nmine + 1, sizeof *mine);
  int st = mine ? TSR_OK : TSR_ERROR(TSR_ERR_MEMORY, "out of memory staging chunks");
  if (st == TSR_OK) st = copy_programs(ph, P, tasks, ntasks, view, mine);
  /* A rank that failed still makes its (empty) collective reads. */
  int rs = stage_loads(ph, P, tasks, ntasks, mine, st == TSR_OK ? nmine : 0, most);
  if (st == TSR_OK) st = rs;
  if (st == TSR_OK) st = tsr_stage_held(ph, P, tasks, ntasks, mine);
  st = tsr_agree(st);
  for (int i = 0; i < P->nleaves && st == TSR_OK; i++)
    if (P->leaves[i].kind == LEAF_XFER) st = tsr_stage_xfer(ph, P, i, tasks, ntasks, mine, nmine);
  if (st != TSR_OK) {
    if (mine) tsr_runnables_free(&ph->pool, mine, nmine);
    return st;
  }
  *out = mine;
  *nout = nmine;
  return TSR_OK;
}

int tsr_eval_round(tsr_phase *ph, const tsr_prog *P, const tsr_task *tasks, int64_t ntasks,
                   int view, double *const *dst) {
  tsr_runnable *mine = NULL;
  int64_t nmine = 0;
  TSR_CHECK(tsr_stage_round(ph, P, tasks, ntasks, view, &mine, &nmine));
  const tsr_backend_ops *be = ph->ex->be;
  tsr_workers w;
  tsr_workers_init(&w);
#pragma omp parallel for schedule(dynamic, 1)
  for (int64_t k = 0; k < nmine; k++) {
    if (tsr_workers_stop(&w)) continue;
    tsr_workers_fail(
        &w, tsr_be_eval_box(be, &mine[k].prog, mine[k].start, mine[k].extent, dst[k], NULL));
  }
  tsr_runnables_free(&ph->pool, mine, nmine);
  return tsr_agree(tsr_workers_end(&w));
}
