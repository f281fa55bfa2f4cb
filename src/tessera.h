/*
 * tessera.h - public API of libtessera.
 *
 * A program (the `tessera` CLI, or a user's C code) initializes a session on
 * every MPI rank, runs job text or evaluates one expression, and finalizes.
 * Every rank calls the same functions with the same arguments; each builds the
 * same plan and runs its own share of the chunks. Functions return 0 or a
 * tsr_status (util/status.h); tsr_error_message() says what went wrong and
 * tsr_error_get_scope() which ranks should print it.
 */
#ifndef TESSERA_H
#define TESSERA_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "util/status.h" /* tsr_status, TSR_CHECK, tsr_error_message() ... */

#define TSR_VERSION "0.1.0"

typedef enum tsr_backend_kind {
  TSR_BACKEND_AUTO,
  TSR_BACKEND_CPU,
  TSR_BACKEND_CUDA
} tsr_backend_kind;

typedef struct tsr_options {
  tsr_backend_kind backend; /* auto: cuda when built and GPUs are visible, else cpu */
  size_t mem_limit;         /* bytes per rank for chunk buffers; 0 = default */
  int no_fuse;              /* materialize every intermediate chunk */
  int quiet;                /* no progress or timing lines */
  int progress;             /* 1: always, 0: never, -1: when a run is long */
  int threads;              /* OpenMP threads per rank; 0 = default */
  uint64_t seed;            /* job seed: the Philox key of every random array */
  const char *output;       /* results file (-o) or NULL */
  int gpus_shared;          /* allow several ranks per GPU */
  int repeat;               /* eval: compute this many times, timing each (benchmarks) */
  int overwrite;            /* save() may replace existing files */
  const char *trace;        /* Chrome trace-event JSON file (--trace) or NULL */
  const char *const *sets;  /* --set NAME=VALUE: values of the job's param()s */
  int nsets;
  int devices_checked;           /* internal (a sweep's trials): 1 + whether ranks of a node share a
                          GPU, checked over the world before its groups split; 0: check */
  struct tsr_fit_path *fit_path; /* internal (a sweep's batch of trials): fits solved
                                    together (graph/fit.h), or NULL */
  struct tsr_results_set *keep;  /* internal (a sweep's trials): rank 0 adds the results here
                                    (io/results.h), under the group named output, instead of
                                    writing the file output */
} tsr_options;

/* Sets defaults (auto backend, default memory limit, seed 0, ...). */
void tsr_options_default(tsr_options *opt);

/* Starts MPI (or joins an already initialized MPI) and installs the
 * interrupt handler. Returns 0 or a tsr_status. */
int tsr_init(int *argc, char ***argv);

/* Ends MPI if tsr_init started it. */
void tsr_finalize(void);

/* The end of a run that returned TSR_ERR_INTERRUPTED: the exit status to
 * return (128 + the signal: 130 for SIGINT, 143 for SIGTERM; 130 on a rank
 * that learnt of another's interrupt), after ending MPI without waiting more
 * than a quarter of a second for a launcher that is itself ending the job.
 * The process must exit next. */
int tsr_finalize_interrupted(void);

/* Rank and size of the world communicator. */
int tsr_rank(void);
int tsr_size(void);

/* The text of the job file path ('-': standard input), read on rank 0 alone
 * and broadcast: *text (malloc'ed, NUL-terminated; the caller frees it) on
 * every rank, or rank 0's error (a missing or empty file, a NUL byte in the
 * text at its line and column) on every rank, reported by rank 0. Collective. */
int tsr_read_job(const char *path, char **text);

/* Runs a job (name is used in messages): prints small top-level values on
 * rank 0 to out and, when opt->output is set, writes the results file.
 * Returns 0 or a tsr_status; tsr_error_message() says what went wrong. */
int tsr_run_job(const tsr_options *opt, const char *name, const char *text, FILE *out);

/* A parameter sweep (tessera sweep): the job run once per trial, the
 * trials spread over groups of ranks. */
typedef struct tsr_sweep_options {
  const char *const *grids; /* "NAME=V1,V2,..." or "NAME=LO..HI" (integers) */
  int ngrids;
  const char *const *randoms; /* "NAME=loguniform:LO:HI", "uniform:LO:HI", "int:LO:HI" */
  int nrandoms;
  int trials;           /* random draws per grid point (default 10) */
  uint64_t sweep_seed;  /* the Philox key of the draws */
  int ranks_per_trial;  /* ranks of one group (default 1) */
  int resume;           /* continue the journal: skip finished trials */
  int max_retries;      /* runs of a failed trial again, at once (default 0) */
  double trial_timeout; /* seconds; 0: none */
  int batch;            /* trials a group takes at once, their fits solved as lambda
                           paths (0: auto, 1: one at a time) */
  int warm_start;       /* a path's fits one after another from the largest lamduh,
                           each from the solution before it (auto batch: 16) */
  int shard, nshards;   /* run only trials t with t % nshards == shard (0: no shards) */
  const char *merge;    /* merge this journal directory into opt->output; run nothing */
  const char *minimize; /* the scalar result that orders the table of best trials */
  const char *maximize;
} tsr_sweep_options;

/* Runs the sweep of job text (name in messages) and writes opt->output.
 * TSR_OK: every trial done; TSR_ERR_TRIALS: the sweep ran and some trials
 * failed (recorded); any other status: the sweep itself failed. */
int tsr_sweep(const tsr_options *opt, const tsr_sweep_options *sw, const char *name,
              const char *text, FILE *out);

/* Evaluates one expression and prints its value alone to out (rank 0). */
int tsr_eval(const tsr_options *opt, const char *expr, FILE *out);

/* Lists the datasets of an HDF5 file (shape, dtype, chunks, compression,
 * attributes) and its root attributes (the provenance tessera writes) to out
 * on rank 0. Every rank returns the same status. */
int tsr_inspect(const char *path, FILE *out);

/* Writes the build and runtime description (`tessera info`) to out. */
void tsr_info(FILE *out);

/* Writes the operation table as the user guide's table of functions, one
 * markdown table per group (`tessera info --markdown`). */
void tsr_info_markdown(FILE *out);

#endif
