/*
 * main.c - the `tessera` command: option parsing, the subcommands run, eval
 * and info, and the one place where errors are reported and ranks exit.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tessera.h"

static const char *usage_main =
    "usage: tessera [OPTIONS] COMMAND [ARGS]\n"
    "\n"
    "Dask-style chunked arrays as an MPI application: run a job file or evaluate\n"
    "one expression on every rank of mpirun/srun (or alone, as a single rank).\n"
    "\n"
    "commands:\n"
    "  run FILE [-o OUT.h5]   run a job file; print small results; write them to OUT.h5\n"
    "  eval 'EXPR'            evaluate one expression and print its value on stdout\n"
    "  info [--markdown]      build, backends, ranks, devices and the operations\n"
    "  sweep FILE -o OUT.h5 --grid NAME=V1,V2 ...\n"
    "                         run the job once per parameter setting, the trials\n"
    "                         spread over groups of ranks; one table of every trial\n"
    "  inspect FILE.h5        datasets (shape, dtype, chunks, compression) and the\n"
    "                         provenance attributes of an HDF5 file\n"
    "\n"
    "options (anywhere on the line):\n"
    "  -o, --output FILE      results file for run (HDF5)\n"
    "  --overwrite            let -o and save() replace files that exist (only when\n"
    "                         the run succeeds; without it an existing file is an\n"
    "                         error); never the job file or a file the job loads\n"
    "  --backend=auto|cpu|cuda  where chunks are computed (default auto: cuda when\n"
    "                         built and a GPU is visible, else cpu)\n"
    "  --mem-limit=SIZE       memory per rank for chunk buffers, e.g. 4G, 0.5G, 512M\n"
    "                         or whole bytes; below one chunk's buffers it is refused\n"
    "                         (default: half the node's available memory / local ranks)\n"
    "  --no-fuse              materialize every intermediate chunk (no fusion, no\n"
    "                         slice pushdown): the honest baseline\n"
    "  --threads=N            OpenMP threads per rank (default: the cores of the rank)\n"
    "  --seed=N               job seed: the Philox key of every random array (default 0)\n"
    "  --set NAME=VALUE       run: the value of the job's `NAME = param(default)`\n"
    "                         (repeatable; converted to the default's type)\n"
    "  --progress             show progress from the start (default: after 2 s; rank 0;\n"
    "                         in place on a terminal, a line every 10 s in a log)\n"
    "  -q, --quiet            no progress line and no summary table on stderr\n"
    "  --trace FILE           write every rank's tasks as a Chrome trace (JSON, one\n"
    "                         row per rank; opens in Perfetto) to FILE\n"
    "  --repeat=N             eval: compute N times from scratch, timing each run\n"
    "                         (benchmarks; the first run includes warm-up)\n"
    "  --gpus-shared          allow several ranks per GPU\n"
    "  -h, --help             this help (also: tessera COMMAND --help)\n"
    "  -V, --version          version\n"
    "\n"
    "examples:\n"
    "  mpirun -np 2 tessera run examples/cubing.tsr -o cubing.h5\n"
    "  tessera eval 'mean(normal(10, 1, shape=(4000, 4000), chunks=1000)[::2, ::2])'\n";

static const char *usage_run =
    "usage: tessera run FILE [-o OUT.h5] [OPTIONS]\n"
    "Runs the job in FILE ('-' for standard input). Names bound at top level whose\n"
    "values have at most 2^20 elements are printed on stdout by rank 0 and, with -o,\n"
    "written as datasets of OUT.h5 with provenance attributes. save(file, dataset,\n"
    "array) statements write large arrays. An OUT.h5 or save() file that exists\n"
    "needs --overwrite; -o /dev/null computes and writes nothing.\n"
    "`lam = param(0.1)` in FILE is 0.1, or VALUE with --set lam=VALUE.\n"
    "See tessera --help.\n";

static const char *usage_sweep =
    "usage: tessera sweep FILE -o OUT.h5 [--grid NAME=VALUES]... [--random NAME=DIST]...\n"
    "                     [SWEEP OPTIONS] [OPTIONS]\n"
    "       tessera sweep --merge DIR -o OUT.h5\n"
    "Runs the job in FILE once per trial: each trial sets the job's `NAME =\n"
    "param(default)` values as --set would. Trials are the Cartesian product of the\n"
    "grids (the last --grid varying fastest), each with --trials random draws when\n"
    "there are --random options, numbered in that order. The ranks split into\n"
    "groups of --ranks-per-trial consecutive ranks (one rank, one GPU by default)\n"
    "that take trials from a shared counter until none is left.\n"
    "\n"
    "Each trial's small results, status, error, seconds and attempts are written\n"
    "to the journal OUT.h5.trials/ as it finishes (the trials that finish together\n"
    "as one file, at least once a second), and merged at the end into OUT.h5:\n"
    "trials/params/NAME, trials/status, trials/error, trials/seconds,\n"
    "trials/attempts, results/NAME (stacked over trials; NaN where none) and\n"
    "fits/NAME/KEY (the record of the fit whose coefficients are NAME: n_iter,\n"
    "converged, passes, warm_start ...). A table of the best trials is printed.\n"
    "\n"
    "sweep options:\n"
    "  --grid NAME=V1,V2,...  values of one param (also NAME=LO..HI: integers, both\n"
    "                         included); repeatable\n"
    "  --random NAME=DIST     DIST loguniform:LO:HI, uniform:LO:HI or int:LO:HI (HI\n"
    "                         included); drawn from Philox keyed by --sweep-seed and\n"
    "                         the trial number; repeatable\n"
    "  --trials N             random draws per grid point (default 10)\n"
    "  --sweep-seed N         key of the draws (default 0)\n"
    "  --ranks-per-trial R    ranks of one group (default 1; must divide the ranks)\n"
    "  --batch B|auto         trials a group takes at once (default auto: up to 16);\n"
    "                         their GLM fits of the same data and settings that\n"
    "                         differ only in lamduh are solved together, one pass over\n"
    "                         X for all (bitwise the fits of tessera run --set); 1: off\n"
    "  --warm-start           solve each lambda path from the largest lamduh down,\n"
    "                         one fit after another, each from the coefficients of\n"
    "                         the one before (fewer iterations): they meet the\n"
    "                         solver's convergence test, but only each path's first\n"
    "                         fit keeps the bits of tessera run --set (opt-in for\n"
    "                         that reason); auto --batch is then 16 for any number\n"
    "                         of groups, so results depend on the trials and --batch\n"
    "  --max-retries N        run a failed trial again up to N times (default 0)\n"
    "  --trial-timeout SEC    a trial running longer fails (default: no limit)\n"
    "  --resume               continue the journal: finished trials are kept, failed\n"
    "                         and unfinished ones run again\n"
    "  --shard I/N            run only the trials t with t % N == I (0 <= I < N), e.g.\n"
    "                         one shard per SLURM array task; no table is written\n"
    "  --merge DIR            write the table of journal DIR (after the shards)\n"
    "  --minimize NAME        order the printed table by scalar result NAME\n"
    "  --maximize NAME        ... largest first\n"
    "--set NAME=VALUE fixes a param for every trial. A job error that no setting\n"
    "can cure (syntax, an unknown name, a swept name without param()) stops the sweep\n"
    "before any trial; a trial's own error is recorded and the others go on.\n"
    "Exit status: 0 every trial ok, 3 some trials failed, 1 the sweep failed,\n"
    "130 interrupted, 143 by SIGTERM (the journal keeps the finished trials: --resume).\n";

static const char *usage_eval =
    "usage: tessera eval 'EXPR' [OPTIONS]\n"
    "Evaluates one expression of the job language and prints its value alone on\n"
    "stdout (scalars with %.17g, arrays NumPy-style); timings go to stderr.\n";

static const char *usage_info =
    "usage: tessera info [--markdown]\n"
    "Prints the build, backends, ranks and operations: one line per function of\n"
    "the job language, NAME KIND SIGNATURE: what it does.\n"
    "  --markdown             print only the functions, as the markdown tables of\n"
    "                         the user guide (scripts/gen-function-table.sh)\n";

static const char *usage_inspect =
    "usage: tessera inspect FILE.h5\n"
    "Lists the root attributes of FILE.h5 (the provenance written by tessera run:\n"
    "job, version, backend, ranks, seed, timings ...) and every dataset with its\n"
    "shape, dtype, HDF5 chunks, compression and attributes.\n";

#define MAX_SETS 256

typedef struct cli {
  tsr_options opt;
  tsr_sweep_options sw;
  const char *sets[MAX_SETS]; /* --set NAME=VALUE, in order */
  const char *grids[MAX_SETS], *randoms[MAX_SETS];
  int sweep_only; /* a sweep option was given */
  const char *command;
  const char *arg;
  int help, version;
  int markdown; /* info --markdown */
} cli;

static int rank0(void) { return tsr_rank() == 0; }

static int usage_error(const char *fmt, const char *what) {
  if (rank0()) {
    fprintf(stderr, "tessera: error: ");
    fprintf(stderr, fmt, what);
    fprintf(stderr, "\n(see tessera --help)\n");
  }
  return TSR_ERR_USAGE;
}

/* "4G", "0.5G", "512M", "100k" or a whole number of bytes (at least 1): a
 * fraction needs a unit, and what it comes to is whole bytes. */
static int parse_size(const char *s, size_t *out) {
  static const char units[] = "kKmMgGtT";
  static const double mult[] = {1e3, 1e3, 1e6, 1e6, 1e9, 1e9, 1e12, 1e12};
  char *end;
  errno = 0;
  double v = strtod(s, &end);
  if (end == s || errno || !(v > 0) || !(isdigit((unsigned char)*s) || *s == '.')) return -1;
  const char *u = *end ? strchr(units, *end) : NULL;
  double bytes = u ? v * mult[u - units] : v;
  end += u != NULL;
  if (*end == 'B' || *end == 'b') end++;
  if (*end || !(bytes >= 1) || bytes > 1e18 || (!u && bytes != floor(bytes))) return -1;
  *out = (size_t)bytes;
  return 0;
}

static int parse_uint(const char *s, unsigned long long *out) {
  char *end;
  errno = 0;
  *out = strtoull(s, &end, 10);
  return (end == s || *end || errno || *s == '-') ? -1 : 0;
}

/* Option with a value: "--name=value" or "--name value". */
static const char *option_value(int argc, char **argv, int *i, const char *name) {
  size_t n = strlen(name);
  if (!strncmp(argv[*i], name, n) && argv[*i][n] == '=') return argv[*i] + n + 1;
  if (!strcmp(argv[*i], name) && *i + 1 < argc) return argv[++*i];
  return NULL;
}

static int parse_timeout(const char *v, double *out) {
  char *end;
  errno = 0;
  *out = strtod(v, &end);
  return (end == v || *end || errno || !(*out > 0) || *out > 1e9) ? -1 : 0;
}

/* --shard I/N */
static int parse_shard(const char *v, tsr_sweep_options *sw) {
  unsigned long long i, n;
  char a[32];
  size_t k = strcspn(v, "/");
  if (!v[k] || k >= sizeof a) return -1;
  memcpy(a, v, k);
  a[k] = 0;
  if (parse_uint(a, &i) || parse_uint(v + k + 1, &n) || n == 0 || i >= n || n > 1000000) return -1;
  sw->shard = (int)i;
  sw->nshards = (int)n;
  return 0;
}

/* The options of tessera sweep; 1 when a is none of them. */
static int parse_sweep_option(cli *c, int argc, char **argv, int *i) {
  const char *v;
  unsigned long long u;
  tsr_sweep_options *sw = &c->sw;
  if (!strcmp(argv[*i], "--resume")) {
    sw->resume = 1;
  } else if (!strcmp(argv[*i], "--warm-start")) {
    sw->warm_start = 1;
  } else if ((v = option_value(argc, argv, i, "--grid"))) {
    if (sw->ngrids == MAX_SETS) return usage_error("more than %s --grid options", "256");
    c->grids[sw->ngrids++] = v;
  } else if ((v = option_value(argc, argv, i, "--random"))) {
    if (sw->nrandoms == MAX_SETS) return usage_error("more than %s --random options", "256");
    c->randoms[sw->nrandoms++] = v;
  } else if ((v = option_value(argc, argv, i, "--trials"))) {
    if (parse_uint(v, &u) || u == 0 || u > 1000000) return usage_error("bad --trials '%s'", v);
    sw->trials = (int)u;
  } else if ((v = option_value(argc, argv, i, "--sweep-seed"))) {
    if (parse_uint(v, &u)) return usage_error("bad --sweep-seed '%s'", v);
    sw->sweep_seed = u;
  } else if ((v = option_value(argc, argv, i, "--ranks-per-trial"))) {
    if (parse_uint(v, &u) || u == 0 || u > 1000000)
      return usage_error("bad --ranks-per-trial '%s'", v);
    sw->ranks_per_trial = (int)u;
  } else if ((v = option_value(argc, argv, i, "--batch"))) {
    if (!strcmp(v, "auto"))
      sw->batch = 0;
    else if (parse_uint(v, &u) || u == 0 || u > 1024)
      return usage_error("bad --batch '%s': use 1 to 1024 or auto", v);
    else
      sw->batch = (int)u;
  } else if ((v = option_value(argc, argv, i, "--max-retries"))) {
    if (parse_uint(v, &u) || u > 100) return usage_error("bad --max-retries '%s': use 0 to 100", v);
    sw->max_retries = (int)u;
  } else if ((v = option_value(argc, argv, i, "--trial-timeout"))) {
    if (parse_timeout(v, &sw->trial_timeout))
      return usage_error("bad --trial-timeout '%s': use seconds > 0", v);
  } else if ((v = option_value(argc, argv, i, "--shard"))) {
    if (parse_shard(v, sw)) return usage_error("bad --shard '%s': use I/N with 0 <= I < N", v);
  } else if ((v = option_value(argc, argv, i, "--merge"))) {
    sw->merge = v;
  } else if ((v = option_value(argc, argv, i, "--minimize"))) {
    sw->minimize = v;
  } else if ((v = option_value(argc, argv, i, "--maximize"))) {
    sw->maximize = v;
  } else {
    return 1;
  }
  c->sweep_only = 1;
  return TSR_OK;
}

static int parse_option(cli *c, int argc, char **argv, int *i) {
  int sw = parse_sweep_option(c, argc, argv, i);
  if (sw != 1) return sw;
  const char *a = argv[*i], *v;
  unsigned long long u;
  if (!strcmp(a, "-h") || !strcmp(a, "--help"))
    c->help = 1;
  else if (!strcmp(a, "-V") || !strcmp(a, "--version"))
    c->version = 1;
  else if (!strcmp(a, "--no-fuse"))
    c->opt.no_fuse = 1;
  else if (!strcmp(a, "--quiet") || !strcmp(a, "-q"))
    c->opt.quiet = 1;
  else if (!strcmp(a, "--progress"))
    c->opt.progress = 1;
  else if (!strcmp(a, "--gpus-shared"))
    c->opt.gpus_shared = 1;
  else if (!strcmp(a, "--overwrite"))
    c->opt.overwrite = 1;
  else if (!strcmp(a, "--markdown"))
    c->markdown = 1;
  else if (!strcmp(a, "-o") || !strncmp(a, "--output", 8)) {
    v = !strcmp(a, "-o") ? (*i + 1 < argc ? argv[++*i] : NULL)
                         : option_value(argc, argv, i, "--output");
    if (!v || !*v) return usage_error("%s needs a file name", a[1] == 'o' ? "-o" : "--output");
    c->opt.output = v;
  } else if (!strncmp(a, "--trace", 7) && (a[7] == '\0' || a[7] == '=')) {
    v = option_value(argc, argv, i, "--trace");
    if (!v || !*v) return usage_error("%s needs a file name", "--trace");
    c->opt.trace = v;
  } else if ((v = option_value(argc, argv, i, "--backend"))) {
    if (!strcmp(v, "auto"))
      c->opt.backend = TSR_BACKEND_AUTO;
    else if (!strcmp(v, "cpu"))
      c->opt.backend = TSR_BACKEND_CPU;
    else if (!strcmp(v, "cuda") || !strcmp(v, "gpu"))
      c->opt.backend = TSR_BACKEND_CUDA;
    else
      return usage_error("unknown backend '%s': use auto, cpu or cuda", v);
  } else if ((v = option_value(argc, argv, i, "--mem-limit"))) {
    if (parse_size(v, &c->opt.mem_limit))
      return usage_error("bad --mem-limit '%s': use e.g. 4G, 0.5G or 512M, or a whole number "
                         "of bytes",
                         v);
  } else if ((v = option_value(argc, argv, i, "--threads"))) {
    if (parse_uint(v, &u) || u == 0 || u > 4096) return usage_error("bad --threads '%s'", v);
    c->opt.threads = (int)u;
  } else if ((v = option_value(argc, argv, i, "--repeat"))) {
    if (parse_uint(v, &u) || u == 0 || u > 64)
      return usage_error("bad --repeat '%s': use 1 to 64", v);
    c->opt.repeat = (int)u;
  } else if ((v = option_value(argc, argv, i, "--set"))) {
    size_t n = strcspn(v, "=");
    int ok = n > 0 && v[n] == '=' && !(v[0] >= '0' && v[0] <= '9');
    for (size_t k = 0; k < n && ok; k++) ok = v[k] == '_' || isalnum((unsigned char)v[k]);
    if (!ok) return usage_error("bad --set '%s': use NAME=VALUE, NAME a param() of the job", v);
    if (c->opt.nsets == MAX_SETS) return usage_error("more than %s --set options", "256");
    c->sets[c->opt.nsets++] = v;
    c->opt.sets = c->sets;
  } else if ((v = option_value(argc, argv, i, "--seed"))) {
    if (parse_uint(v, &u)) return usage_error("bad --seed '%s': use a non-negative integer", v);
    c->opt.seed = u;
  } else {
    return usage_error("unknown option '%s'", a);
  }
  return TSR_OK;
}

static int parse_cli(cli *c, int argc, char **argv) {
  memset(c, 0, sizeof *c);
  tsr_options_default(&c->opt);
  for (int i = 1; i < argc; i++) {
    if (argv[i][0] == '-' && argv[i][1] != '\0' &&
        !(c->command && !strcmp(c->command, "eval") && !c->arg &&
          (argv[i][1] == '.' || (argv[i][1] >= '0' && argv[i][1] <= '9') || argv[i][1] == '('))) {
      TSR_CHECK(parse_option(c, argc, argv, &i));
    } else if (!c->command) {
      c->command = argv[i];
    } else if (!c->arg) {
      c->arg = argv[i];
    } else {
      return usage_error("unexpected argument '%s'", argv[i]);
    }
  }
  return TSR_OK;
}

static int sweep_command(cli *c) {
  if (c->help) return rank0() ? fputs(usage_sweep, stdout), TSR_OK : TSR_OK;
  c->sw.grids = c->grids;
  c->sw.randoms = c->randoms;
  if (c->sw.minimize && c->sw.maximize)
    return usage_error("%s", "--minimize and --maximize: choose one");
  if (c->sw.merge) {
    if (c->arg || c->sw.ngrids || c->sw.nrandoms || c->sw.nshards || c->sw.resume)
      return usage_error("%s", "--merge DIR -o OUT.h5 takes no job file and no trial options");
    if (!c->opt.output) return usage_error("%s", "--merge needs -o OUT.h5");
    return tsr_sweep(&c->opt, &c->sw, NULL, NULL, stdout);
  }
  if (!c->arg) return usage_error("%s", "sweep needs a job file");
  if (!c->opt.output) return usage_error("%s", "sweep needs -o OUT.h5 (the table of trials)");
  if (c->opt.trace) return usage_error("%s", "--trace is for run and eval, not sweep");
  char *text;
  TSR_CHECK(tsr_read_job(c->arg, &text));
  int st = tsr_sweep(&c->opt, &c->sw, c->arg, text, stdout);
  free(text);
  return st;
}

static int run_command(cli *c) {
  if (c->sweep_only && strcmp(c->command, "sweep"))
    return usage_error("sweep options are for tessera sweep, not %s", c->command);
  if (c->markdown && strcmp(c->command, "info"))
    return usage_error("--markdown is for tessera info, not %s", c->command);
  if (!strcmp(c->command, "run")) {
    if (c->help) return rank0() ? fputs(usage_run, stdout), TSR_OK : TSR_OK;
    if (!c->arg) return usage_error("%s", "run needs a job file");
    char *text;
    TSR_CHECK(tsr_read_job(c->arg, &text));
    int st = tsr_run_job(&c->opt, c->arg, text, stdout);
    free(text);
    return st;
  }
  if (!strcmp(c->command, "sweep")) return sweep_command(c);
  if (c->opt.nsets > 0)
    return usage_error("--set is for tessera run (%s has no param())", c->command);
  if (!strcmp(c->command, "eval")) {
    if (c->help) return rank0() ? fputs(usage_eval, stdout), TSR_OK : TSR_OK;
    if (!c->arg) return usage_error("%s", "eval needs an expression");
    return tsr_eval(&c->opt, c->arg, stdout);
  }
  if (!strcmp(c->command, "info")) {
    if (rank0()) fputs(c->help ? usage_info : "", stdout);
    if (!c->help && rank0()) (c->markdown ? tsr_info_markdown : tsr_info)(stdout);
    return TSR_OK;
  }
  if (!strcmp(c->command, "inspect")) {
    if (c->help) return rank0() ? fputs(usage_inspect, stdout), TSR_OK : TSR_OK;
    if (!c->arg) return usage_error("%s", "inspect needs an HDF5 file");
    return tsr_inspect(c->arg, stdout);
  }
  if (!strcmp(c->command, "help")) {
    if (rank0()) fputs(usage_main, stdout);
    return TSR_OK;
  }
  return usage_error("unknown command '%s': use run, eval, sweep, info or inspect", c->command);
}

static int report(int st) {
  if (st == TSR_OK) return 0;
  if (st == TSR_ERR_INTERRUPTED) {
    if (rank0()) fprintf(stderr, "\ntessera: interrupted\n");
    return 130;
  }
  if (st == TSR_ERR_USAGE) return 2;
  if (st == TSR_ERR_TRIALS) return 3; /* the sweep said which */
  tsr_error_scope scope = tsr_error_get_scope();
  if (scope == TSR_SCOPE_LOCAL)
    fprintf(stderr, "tessera: error: rank %d: %s\n", tsr_rank(), tsr_error_message());
  else if (scope == TSR_SCOPE_COLLECTIVE && rank0())
    fprintf(stderr, "tessera: error: %s\n", tsr_error_message());
  return 1;
}

int main(int argc, char **argv) {
  if (tsr_init(&argc, &argv) != TSR_OK) {
    fprintf(stderr, "tessera: error: %s\n", tsr_error_message());
    return 1;
  }
  cli c;
  int st = parse_cli(&c, argc, argv);
  if (st == TSR_OK) {
    if (c.version) {
      if (rank0()) printf("tessera %s\n", TSR_VERSION);
    } else if (!c.command) {
      if (rank0()) fputs(usage_main, c.help ? stdout : stderr);
      if (!c.help) st = TSR_ERR_USAGE;
    } else {
      st = run_command(&c);
    }
  }
  int code = report(st);
  if (st == TSR_ERR_INTERRUPTED) return tsr_finalize_interrupted(); /* 128 + the signal */
  tsr_finalize();
  return code;
}
