/*
 * phase.h - one staged computation (a reduction, a small result, a save)
 * and its rounds, shared by stage.c (rounds, LOAD leaves), xfer.c (XFER and
 * HELD leaves) and waves.c (waves of consumer chunks).
 *
 * Vocabulary. A task is a strided box of a program's output space assigned
 * to a rank (plan/plan.h): a chunk of the consumer's grid, or a piece of a
 * rechunk source. A round stages one program for a list of tasks that every
 * rank knows in full: each rank copies the program for its own tasks and
 * replaces the staged leaves of each copy by host buffers (progcopy.h). A
 * LOAD leaf is read as one hyperslab per task. An XFER leaf's region is cut
 * along the source array's chunk boundaries into pieces; the pieces become
 * the tasks of a nested round (on the source program, at the source chunks'
 * owners), are evaluated into per-peer message buffers, exchanged, and
 * assembled into the region buffers. Every rank runs the same rounds in the
 * same order, which is what makes the MPI exchanges and collective HDF5
 * calls line up.
 */
#ifndef TSR_EXEC_PHASE_H
#define TSR_EXEC_PHASE_H

#include <stdint.h>

#include "exec/exec.h"
#include "exec/pool.h"
#include "fuse/program.h"
#include "io/h5array.h"
#include "plan/plan.h"

typedef struct tsr_reader_entry {
  const tsr_load_src *src;
  tsr_h5_reader *r;
} tsr_reader_entry;

typedef struct tsr_source_entry {
  const tsr_node *node;
  tsr_prog prog;
} tsr_source_entry;

typedef struct tsr_phase {
  tsr_exec *ex;
  int collective; /* collective HDF5 reads */
  tsr_reader_entry *readers;
  int nreaders;
  /* each entry its own allocation: a round running a source's program can
   * compile further sources (a nested rechunk, a held array read in pieces),
   * which must not move the program it is running */
  tsr_source_entry **sources;
  int nsources;
  tsr_pool pool;
} tsr_phase;

void tsr_phase_begin(tsr_phase *ph, tsr_exec *ex);

/* Closes every reader (in the same order on every rank: collective
 * closes); returns st, or the first close's failure. */
int tsr_phase_end(tsr_phase *ph, int st);

/* The compiled program of rechunk source (or held node) x, kept for the
 * phase. */
int tsr_phase_source(tsr_phase *ph, const tsr_node *x, const tsr_prog **out);

/* Stages P for a round of tasks: *out receives this rank's tasks' runnable
 * copies (view: the copy covers the task's strided box as [0, count)).
 * Collective. */
int tsr_stage_round(tsr_phase *ph, const tsr_prog *P, const tsr_task *tasks, int64_t ntasks,
                    int view, tsr_runnable **out, int64_t *nout);

/* Stages and evaluates this rank's tasks of a round into dst[k] (backend
 * memory). Collective. */
int tsr_eval_round(tsr_phase *ph, const tsr_prog *P, const tsr_task *tasks, int64_t ntasks,
                   int view, double *const *dst);

/* Stages XFER leaf i of P for this rank's tasks (mine: their copies).
 * Collective. */
int tsr_stage_xfer(tsr_phase *ph, const tsr_prog *P, int i, const tsr_task *tasks, int64_t ntasks,
                   tsr_runnable *mine, int64_t nmine);

/* Stages the HELD leaves of P for this rank's tasks: local copies. */
int tsr_stage_held(tsr_phase *ph, const tsr_prog *P, const tsr_task *tasks, int64_t ntasks,
                   tsr_runnable *mine);

#endif
