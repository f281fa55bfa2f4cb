/*
 * compute.h - what to compute first: a node's values need every reduction
 * and linear-algebra result it reads to be computed whole before it. The
 * walk lives here, above both the executor (exec/: reductions, small
 * results) and linalg/ (N_LINALG nodes), so neither calls the other back.
 */
#ifndef TSR_JOB_COMPUTE_H
#define TSR_JOB_COMPUTE_H

#include "exec/exec.h"
#include "graph/array.h"

/* Computes node's values (and first every reduction and linear-algebra
 * result it depends on); on return node->value holds all of it on every
 * rank. Collective. */
int tsr_job_compute(tsr_exec *ex, tsr_node *node);

/* Computes every reduction and linear-algebra result node depends on (not
 * node itself), so that its chunks can then be evaluated (save writes
 * them). Collective. */
int tsr_job_prepare(tsr_exec *ex, tsr_node *node);

/* Checks, before any work, that node can be computed within the memory
 * budget and that what it holds fits (collective errors: every rank finds
 * the same). */
int tsr_job_check(tsr_exec *ex, tsr_node *node);

#endif
