/*
 * compute.c - the "compute what first" walk (compute.h): depth first over a
 * node's inputs, stopping at values already computed or held; reductions and
 * persisted arrays, scans, sorts and histograms go to the executor, linear-algebra results to linalg/,
 * and the rest is evaluated by whoever reads it.
 */
#include "job/compute.h"

#include "exec/compress.h"
#include "exec/concat.h"
#include "exec/hist.h"
#include "exec/scan.h"
#include "exec/sort.h"
#include "linalg/linalg.h"
#include "mpi/agree.h"
#include "util/error.h"

static int compute_dependencies(tsr_exec *ex, tsr_node *n);

static int compute_input(void *ex, tsr_node *in) { return compute_dependencies(ex, in); }

static int compute_dependencies(tsr_exec *ex, tsr_node *n) {
  if (n->value || n->held) return TSR_OK;
  if (n->kind == N_CONCAT) { /* a nest of them in one step, from its inputs */
    TSR_CHECK(tsr_concat_inputs(n, compute_input, ex));
    return tsr_exec_concat(ex, n);
  }
  for (int i = 0; i < 2; i++)
    if (n->in[i]) TSR_CHECK(compute_dependencies(ex, n->in[i]));
  if (n->kind == N_REDUCE) return tsr_exec_reduce(ex, n);
  if (n->kind == N_LINALG && !tsr_linalg_is_view(n)) return tsr_agree(tsr_linalg_compute(ex, n));
  if (n->kind == N_PERSIST && tsr_exec_holds(ex, n)) return tsr_exec_persist(ex, n);
  if (n->kind == N_SCAN) return tsr_exec_scan(ex, n);
  if (n->kind == N_SORT) return tsr_exec_sort(ex, n);
  if (n->kind == N_RESHAPE) return tsr_exec_reshape(ex, n);
  if (n->kind == N_HIST) return tsr_exec_hist(ex, n);
  if (n->kind == N_COMPRESS) return tsr_exec_compress(ex, n);
  return TSR_OK;
}

static int check_node(tsr_exec *ex, tsr_node *n);

static int check_input(void *ex, tsr_node *in) { return check_node(ex, in); }

static int check_node(tsr_exec *ex, tsr_node *n) {
  if (n->value || n->held) return TSR_OK;
  if (n->kind == N_CONCAT)
    TSR_CHECK(tsr_concat_inputs(n, check_input, ex));
  else
    for (int i = 0; i < 2; i++)
      if (n->in[i]) TSR_CHECK(check_node(ex, n->in[i]));
  return tsr_exec_check_node(ex, n);
}

int tsr_job_compute(tsr_exec *ex, tsr_node *node) {
  TSR_CHECK(compute_dependencies(ex, node));
  if (node->value) return TSR_OK;
  return tsr_exec_elementwise(ex, node);
}

int tsr_job_prepare(tsr_exec *ex, tsr_node *node) { return compute_dependencies(ex, node); }

int tsr_job_check(tsr_exec *ex, tsr_node *node) {
  int st = check_node(ex, node);
  if (st == TSR_OK) st = tsr_exec_check_result(ex, node);
  /* the default budget is each node's own: ranks may judge alike or not */
  return tsr_agree_each(st);
}
