/*
 * glm_batch.c - a lambda path (glm.h: tsr_glm_solve_path): the fits of one
 * X and y at several penalties, each by its unchanged solver on a thread of
 * its own, in lockstep. A solver's data pass (tsr_glm_eval on its lane's
 * data) is a request that blocks its thread; once every solver still
 * running has asked, the calling thread serves them all, one pass over X
 * per kind of request (tsr_glm_eval_many), and wakes them.
 *
 * Each solver gets the bits it would get alone, so it takes the same steps
 * and ends with the same coefficients. The solvers call no MPI and share no
 * state but the requests; every collective runs on the calling thread (so
 * MPI_THREAD_FUNNELED is enough). The ranks compare each round's requests
 * before its pass: ranks whose solvers went apart (out of memory on one)
 * fail the path together instead of waiting on each other.
 *
 * A warm path (tsr_glm_solve_warm, a sweep's --warm-start) gives that up:
 * its fits run one after another on the calling thread, from the largest
 * lamduh down, each solver starting from the solution before it. Its
 * passes over X are then the sum of its fits' (a lockstep path's are about
 * its slowest fit's), for fewer iterations in all.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "linalg/glm.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "mpi/agree.h"
#include "mpi/comm.h"
#include "util/error.h"
#include "util/signals.h"

enum { RUNNING, ASKED, DONE };

typedef struct lane {
  struct tsr_glm_batch *bt;
  tsr_glm_data d; /* the fit's data, with this lane's pass count */
  tsr_glm_problem pb;
  tsr_glm_solver solve;
  tsr_fit *fit;
  double *beta, *obj;
  int st, state, started;
  int what, rst; /* the request, and its outcome */
  const double *rbeta;
  double *rout;
  pthread_t th;
} lane;

typedef struct tsr_glm_batch {
  pthread_mutex_t mu;
  pthread_cond_t asked, served; /* a lane asked or ended; the requests were served */
  int n;
  lane *lanes;
  int broken;           /* the ranks' requests differed: every request fails */
  double *betas, *outs; /* the served points and their results (n of the largest) */
} tsr_glm_batch;

int tsr_glm_solver_batches(int solver) { return solver != TSR_SOLVER_ADMM; }

static void *lane_main(void *arg) {
  lane *l = arg;
  int st = l->solve(&l->pb, l->beta, l->fit, l->obj);
  pthread_mutex_lock(&l->bt->mu);
  l->st = st;
  l->state = DONE;
  pthread_cond_signal(&l->bt->asked);
  pthread_mutex_unlock(&l->bt->mu);
  return NULL;
}

int tsr_glm_batch_request(tsr_glm_data *d, const double *beta, int what, double *out) {
  tsr_glm_batch *bt = d->batch;
  lane *l = &bt->lanes[d->lane];
  pthread_mutex_lock(&bt->mu);
  l->rbeta = beta, l->what = what, l->rout = out;
  l->state = ASKED;
  pthread_cond_signal(&bt->asked);
  while (l->state == ASKED) pthread_cond_wait(&bt->served, &bt->mu);
  int st = l->rst;
  pthread_mutex_unlock(&bt->mu);
  return st == TSR_OK ? TSR_OK : TSR_ERROR(st, "a pass of the lambda path failed");
}

/* Waits until no lane runs (each asked or ended); returns how many asked.
 * Until they are served, the lanes are left to this thread. */
static int wait_round(tsr_glm_batch *bt) {
  int running, asked;
  pthread_mutex_lock(&bt->mu);
  do {
    running = asked = 0;
    for (int i = 0; i < bt->n; i++)
      running += bt->lanes[i].state == RUNNING, asked += bt->lanes[i].state == ASKED;
    if (running) pthread_cond_wait(&bt->asked, &bt->mu);
  } while (running);
  pthread_mutex_unlock(&bt->mu);
  return asked;
}

/* Whether every rank's lanes asked for the same kinds and ended alike.
 * Collective (every rank sees the same answer). */
static int same_round(tsr_glm_batch *bt, tsr_exec *ex) {
  if (ex->size == 1) return 1;
  unsigned sig = 0;
  for (int i = 0; i < bt->n; i++)
    sig = sig * 5u + (unsigned)(bt->lanes[i].state == DONE ? 4 : bt->lanes[i].what);
  int s = (int)(sig & 0x3fffffffu), hi = 0, lo = 0;
  if (tsr_comm_max_int(s, &hi) != TSR_OK || tsr_comm_max_int(-s, &lo) != TSR_OK) return 0;
  return hi == -lo;
}

/* One pass for the lanes that asked for what: their points in lane order. */
static void serve_kind(tsr_glm_batch *bt, tsr_glm_data *d, int what) {
  int64_t q = d->q, len = tsr_glm_out_len(d->p, what), k = 0;
  for (int i = 0; i < bt->n; i++)
    if (bt->lanes[i].state == ASKED && bt->lanes[i].what == what)
      memcpy(bt->betas + q * k++, bt->lanes[i].rbeta, sizeof(double) * (size_t)q);
  if (k == 0) return;
  int st = bt->broken ? TSR_ERROR(TSR_ERR_INTERNAL, "the ranks' lambda paths went apart")
                      : tsr_glm_eval_many(d, k, bt->betas, what, bt->outs);
  d->passes++;
  k = 0;
  for (int i = 0; i < bt->n; i++) {
    lane *l = &bt->lanes[i];
    if (l->state != ASKED || l->what != what) continue;
    if (st == TSR_OK) memcpy(l->rout, bt->outs + len * k, sizeof(double) * (size_t)len);
    l->rst = st;
    k++;
  }
}

/* Rounds until every lane has ended. Returns the first failed pass's
 * status (the lanes that asked for it got it too). */
static int serve(tsr_glm_batch *bt, tsr_glm_data *d) {
  int st = TSR_OK;
  while (wait_round(bt) > 0) {
    if (!bt->broken && !same_round(bt, d->ex)) bt->broken = 1;
    for (int what = TSR_GLM_LOSS; what <= TSR_GLM_HESS; what++) serve_kind(bt, d, what);
    pthread_mutex_lock(&bt->mu);
    for (int i = 0; i < bt->n; i++) {
      lane *l = &bt->lanes[i];
      if (l->state != ASKED) continue;
      if (st == TSR_OK) st = l->rst;
      l->state = RUNNING;
    }
    pthread_cond_broadcast(&bt->served);
    pthread_mutex_unlock(&bt->mu);
  }
  return bt->broken && st == TSR_OK ? TSR_ERR_INTERNAL : st;
}

static int batch_open(tsr_glm_batch *bt, const tsr_glm_problem *pb, int n) {
  int64_t q = pb->q, len = tsr_glm_out_len(pb->p, TSR_GLM_HESS);
  memset(bt, 0, sizeof *bt);
  pthread_mutex_init(&bt->mu, NULL);
  pthread_cond_init(&bt->asked, NULL);
  pthread_cond_init(&bt->served, NULL);
  bt->n = n;
  bt->lanes = calloc((size_t)n, sizeof(lane));
  bt->betas = malloc(sizeof(double) * (size_t)(n * q));
  bt->outs = malloc(sizeof(double) * (size_t)(n * len));
  if (!bt->lanes || !bt->betas || !bt->outs)
    return TSR_ERROR(TSR_ERR_MEMORY, "out of memory for a lambda path of %d fits", n);
  return TSR_OK;
}

static void batch_close(tsr_glm_batch *bt) {
  pthread_mutex_destroy(&bt->mu);
  pthread_cond_destroy(&bt->asked);
  pthread_cond_destroy(&bt->served);
  free(bt->lanes), free(bt->betas), free(bt->outs);
}

/* Waits for every lane; sts[i] its status, the worst over the ranks
 * (their solvers fail alike unless memory runs out on one). Collective. */
static int batch_join(tsr_glm_batch *bt, tsr_fit *fits, int *sts) {
  int st = TSR_OK;
  for (int i = 0; i < bt->n; i++) {
    lane *l = &bt->lanes[i];
    if (l->started) pthread_join(l->th, NULL);
    fits[i].passes = l->d.passes;
    sts[i] = l->st;
    if (tsr_comm_max_int(l->st, &sts[i]) != TSR_OK) st = TSR_ERR_COMM;
  }
  return st;
}

/* Lane i: a copy of the problem at lams[i], its solver on its thread. */
static void lane_start(tsr_glm_batch *bt, const tsr_glm_problem *pb, tsr_glm_solver solve, int i,
                       double lam, double *beta, tsr_fit *fit, double *obj) {
  lane *l = &bt->lanes[i];
  l->bt = bt;
  l->d = *pb->data;
  l->d.batch = bt, l->d.lane = i, l->d.passes = 0;
  l->pb = *pb;
  l->pb.data = &l->d, l->pb.fit = fit, l->pb.lam = lam;
  l->solve = solve, l->fit = fit, l->beta = beta, l->obj = obj;
  l->state = RUNNING;
  pthread_mutex_lock(&bt->mu); /* a lane that cannot start has ended */
  l->started = pthread_create(&l->th, NULL, lane_main, l) == 0;
  if (!l->started) l->state = DONE, l->st = TSR_ERR_MEMORY;
  pthread_mutex_unlock(&bt->mu);
}

int tsr_glm_solve_path(const tsr_glm_problem *pb, tsr_glm_solver solve, int n, const double *lams,
                       double *const *betas, tsr_fit *fits, double *objs, int *sts) {
  tsr_glm_batch bt;
  int st = tsr_agree(batch_open(&bt, pb, n));
  if (st == TSR_OK) {
    for (int i = 0; i < n; i++)
      lane_start(&bt, pb, solve, i, lams[i], betas[i], &fits[i], &objs[i]);
    st = serve(&bt, pb->data);
    int joined = batch_join(&bt, fits, sts);
    if (st == TSR_OK) st = joined;
  }
  batch_close(&bt);
  return st;
}

/* ---- a warm path ------------------------------------------------------------ */

/* order: 0 .. n - 1 by decreasing lams, equal ones in index order. */
static void by_decreasing(int n, const double *lams, int *order) {
  for (int i = 0; i < n; i++) {
    int j = i;
    for (; j > 0 && lams[order[j - 1]] < lams[i]; j--) order[j] = order[j - 1];
    order[j] = i;
  }
}

/* Fit i of a warm path, from the solution from (NULL: cold), into betas[i]
 * and the rest; its status agreed over the ranks. */
static int solve_one(const tsr_glm_problem *pb, tsr_glm_solver solve, tsr_glm_start *w, int i,
                     const double *lams, const double *from, double *const *betas, tsr_fit *fits,
                     double *objs) {
  tsr_glm_problem one = *pb;
  one.lam = lams[i], one.fit = &fits[i], one.start = w;
  w->warm = from != NULL;
  if (from) memcpy(betas[i], from, sizeof(double) * (size_t)pb->q);
  int before = pb->data->passes;
  int st = tsr_agree(solve(&one, betas[i], &fits[i], &objs[i]));
  fits[i].passes = pb->data->passes - before;
  fits[i].warm_start = w->warm;
  return st;
}

int tsr_glm_solve_warm(const tsr_glm_problem *pb, tsr_glm_solver solve, int n, const double *lams,
                       double *const *betas, tsr_fit *fits, double *objs, int *sts) {
  int *order = malloc(sizeof *order * (size_t)n);
  int st = tsr_agree(order ? TSR_OK : TSR_ERROR(TSR_ERR_MEMORY, "out of memory for a path"));
  if (st != TSR_OK) return st;
  by_decreasing(n, lams, order);
  tsr_glm_start w = {0};
  const double *from = NULL;
  for (int k = 0; k < n; k++) sts[k] = TSR_ERR_INTERRUPTED;
  for (int k = 0; k < n && st == TSR_OK; k++) {
    int i = order[k];
    sts[i] = solve_one(pb, solve, &w, i, lams, from, betas, fits, objs);
    if (sts[i] == TSR_ERR_INTERRUPTED || tsr_interrupted()) st = TSR_ERR_INTERRUPTED;
    if (sts[i] == TSR_OK)
      from = betas[i];
    else
      tsr_error_clear(); /* solved again alone in its trial, for its message */
  }
  free(order);
  return st;
}
