/*
 * wave_plan.c - wave arithmetic (plan.h): how many chunks each rank stages at
 * once, and which chunks of which rank make up wave w. exec/waves.c runs
 * the waves; the plan of each is the same on every rank.
 */
#include "plan/plan.h"

int tsr_wave_width(int threads, size_t mem_limit, int64_t chunk_elems, int staged) {
  /* two waves are staged at once: the one computed and the next */
  double per = 8.0 * (double)chunk_elems * (double)(2 + 4 * staged);
  int64_t fit = mem_limit ? (int64_t)((double)mem_limit / (per > 1 ? per : 1)) : threads;
  int64_t n = threads < fit ? threads : fit;
  return (int)(n < 1 ? 1 : n > 4096 ? 4096 : n);
}

int64_t tsr_wave_count(int64_t total, int size, int W) {
  return (tsr_owned_count(total, 0, size) + W - 1) / W;
}

static void chunk_task(const tsr_grid *g, int q, int64_t id, tsr_task *t) {
  int64_t idx[TSR_MAXDIM], start[TSR_MAXDIM], extent[TSR_MAXDIM];
  tsr_grid_unravel(g, id, idx);
  tsr_grid_chunk_box(g, idx, start, extent);
  t->rank = q;
  for (int a = 0; a < g->ndim; a++) {
    t->box.first[a] = start[a];
    t->box.step[a] = 1;
    t->box.count[a] = extent[a];
  }
}

void tsr_plan_wave(const tsr_grid *g, int rank, int size, int W, int64_t w, tsr_wave_plan *v) {
  int64_t total = tsr_grid_count(g);
  v->nt = v->nmine = 0;
  for (int q = 0; q < size; q++)
    for (int64_t i = w * W; i < (w + 1) * W && i < tsr_owned_count(total, q, size); i++) {
      int64_t id = q + (int64_t)size * i;
      chunk_task(g, q, id, &v->tasks[v->nt++]);
      if (q == rank) {
        v->slots[v->nmine] = i;
        v->ids[v->nmine++] = id;
      }
    }
}
