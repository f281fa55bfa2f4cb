/*
 * session.c - one job from text to results: parse, interpret, plan, compute
 * what must be printed or written, print on rank 0, write the results file.
 * Everything before the first compute is deterministic and identical on all
 * ranks, so a user error is found by every rank at once, before heavy work.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <math.h>
#include <signal.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lang/ast.h"
#include "backend/backend.h"
#include "util/error.h"
#include "exec/exec.h"
#include "eval/interp.h"
#include "eval/ops_param.h"
#include "io/h5array.h"
#include "io/results.h"
#include "job/compute.h"
#include "mpi/agree.h"
#include "mpi/comm.h"
#include "eval/ops.h"
#include "job/save.h"
#include "job/setup.h"
#include "job/sources.h"
#include "job/trace_write.h"
#include "util/signals.h"
#include "job/summary.h"
#include "job/sweep.h"
#include "job/target.h"
#include "tessera.h"
#include "util/trace.h"

/* Values with at most this many elements are printed and written. */
#define SMALL_ELEMS ((int64_t)1 << 20)

void tsr_options_default(tsr_options *opt) {
  memset(opt, 0, sizeof *opt);
  opt->backend = TSR_BACKEND_AUTO;
  opt->progress = -1;
}

int tsr_init(int *argc, char ***argv) {
  tsr_h5_library_init();
  TSR_CHECK(tsr_comm_init(argc, argv));
  tsr_signals_install();
  tsr_signals_launcher(tsr_comm_launcher_pid());
  return TSR_OK;
}

/* After HDF5 failed to close a file, MPI_Finalize would crash in HDF5's
 * cleanup of it (io/h5array.h): the run, which has failed already, ends
 * without it. */
void tsr_finalize(void) {
  if (tsr_h5_close_failed()) {
    fflush(stdout);
    fflush(stderr);
    return;
  }
  tsr_comm_finalize();
}

int tsr_finalize_interrupted(void) {
  int sig = tsr_interrupt_signal(), code = 128 + (sig > 0 ? sig : SIGINT);
  fflush(stdout);
  fflush(stderr);
  if (!tsr_h5_close_failed()) tsr_comm_finalize_interrupted(code);
  return code;
}
int tsr_rank(void) { return tsr_comm_rank(); }
int tsr_size(void) { return tsr_comm_size(); }

/* Rank 0 checks the results file before any work (job/target.h); the other
 * ranks learn the outcome, and report nothing themselves. *discard: -o is
 * /dev/null (rank 0 knows it; only rank 0 writes). */
static int check_output(const tsr_options *opt, const char *job_file, int *discard) {
  tsr_target_rules r = {opt->overwrite, job_file, "create results file", "results file "};
  char why[1024];
  int st = TSR_OK;
  *discard = 0;
  if (tsr_comm_rank() == 0) {
    st = tsr_target_check(opt->output, &r, discard, why, sizeof why);
    if (st != TSR_OK) st = TSR_ERROR(st, "%s", why);
  }
  return tsr_agree_rank0(st, "cannot create the results file");
}

/* Before any work: the results file, then the saved files. */
static int check_targets(const tsr_options *opt, const char *job_file, int *discard) {
  if (opt->output && !opt->keep) TSR_CHECK(check_output(opt, job_file, discard));
  return tsr_save_check(opt->overwrite, opt->output, job_file);
}

/* ---- what to compute ---------------------------------------------------- */

static int is_small(const tsr_value *v) {
  return v->kind != V_ARRAY || tsr_node_size(v->arr) <= SMALL_ELEMS;
}

static int check_value(tsr_exec *ex, const tsr_value *v) {
  if (v->kind == V_ARRAY) return tsr_job_check(ex, v->arr);
  for (int i = 0; i < (v->kind == V_TUPLE ? v->nitems : 0); i++)
    TSR_CHECK(check_value(ex, &v->items[i]));
  return TSR_OK;
}

static int compute_value(tsr_exec *ex, tsr_value *v) {
  if (v->kind == V_ARRAY) return tsr_job_compute(ex, v->arr);
  for (int i = 0; i < (v->kind == V_TUPLE ? v->nitems : 0); i++)
    TSR_CHECK(compute_value(ex, &v->items[i]));
  return TSR_OK;
}

/* ---- results file -------------------------------------------------------- */

typedef struct timings {
  double parse, plan, compute, comm, write, total;
} timings;

static void iso_date(char *buf, size_t n) {
  time_t t = time(NULL);
  struct tm tm;
  gmtime_r(&t, &tm);
  strftime(buf, n, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* Provenance attributes of every file a run writes (results file, saves). */
typedef struct provenance {
  char date[64], devices[256], ver[32];
  tsr_attr attrs[16];
  int n;
} provenance;

static void provenance_fill(provenance *p, const tsr_options *opt, const tsr_exec *ex,
                            const struct tsr_interp *ip, const char *text, const timings *t) {
  iso_date(p->date, sizeof p->date);
  tsr_be_describe(ex->be, p->devices, sizeof p->devices);
  snprintf(p->ver, sizeof p->ver, "%s", TSR_VERSION);
  tsr_attr attrs[] = {
      {"job", text, 0},
      {"tessera_version", p->ver, 0},
      {"backend", tsr_be_name(ex->be), 0},
      {"devices", p->devices, 0},
      {"date", p->date, 0},
      {"fused", opt->no_fuse ? "no" : "yes", 0},
      {"ranks", NULL, ex->size},
      {"threads_per_rank", NULL, ex->threads},
      {"seed", NULL, (double)opt->seed},
      {"random_streams", NULL, (double)ip->streams},
      {"time_parse_s", NULL, t->parse},
      {"time_plan_s", NULL, t->plan},
      {"time_compute_s", NULL, t->compute},
      {"time_comm_s", NULL, t->comm},
      {"time_total_s", NULL, t->total},
  };
  p->n = (int)(sizeof attrs / sizeof *attrs);
  memcpy(p->attrs, attrs, sizeof attrs);
}

/* A fit's report as attributes of its coefficients' dataset. */
enum { FIT_ATTRS = 11 };
static int fit_attrs(const tsr_fit *f, tsr_attr *a) {
  tsr_attr list[FIT_ATTRS] = {
      {"family", tsr_glm_families[f->family].name, 0},
      {"solver", tsr_glm_solvers[f->solver].name, 0},
      {"regularizer", tsr_glm_regularizers[f->reg].name, 0},
      {"lamduh", NULL, f->lamduh},
      {"l1_ratio", NULL, f->l1_ratio},
      {"n_iter", NULL, f->n_iter},
      {"converged", NULL, f->converged},
      {"objective", NULL, f->objective},
      {"passes", NULL, f->passes},
      {"seconds", NULL, f->seconds},
      {"warm_start", NULL, f->warm_start},
  };
  memcpy(a, list, sizeof list);
  return FIT_ATTRS;
}

static int write_results(const tsr_options *opt, const tsr_exec *ex, struct tsr_interp *ip,
                         const char *text, const timings *t) {
  tsr_result_item *items = calloc((size_t)ip->nnames + 1, sizeof *items);
  double *scalars = calloc((size_t)ip->nnames + 1, sizeof *scalars);
  tsr_attr *attrs = calloc((size_t)(ip->nnames + 1) * FIT_ATTRS, sizeof *attrs);
  if (!items || !scalars || !attrs) {
    free(items);
    free(scalars);
    free(attrs);
    return TSR_ERROR(TSR_ERR_MEMORY, "out of memory");
  }
  int n = 0;
  for (int i = 0; i < ip->nnames; i++) {
    const tsr_binding *b = &ip->names[i];
    const tsr_value *v = &b->value;
    if (b->is_expression || !is_small(v)) continue;
    if (v->kind == V_ARRAY) {
      items[n] = (tsr_result_item){b->name,
                                   v->arr->grid.ndim,
                                   v->arr->grid.shape,
                                   (int)v->arr->dtype,
                                   v->arr->value,
                                   NULL,
                                   0,
                                   NULL,
                                   NULL};
      const tsr_node *a = v->arr;
      if (a->kind == N_LINALG && a->op == LA_GLM_COEF && a->fit) {
        items[n].attrs = attrs + (size_t)n * FIT_ATTRS;
        items[n].nattrs = fit_attrs(a->fit, attrs + (size_t)n * FIT_ATTRS);
      }
    } else if (tsr_value_is_number(v)) {
      /* a Python bool or int as NumPy's np.asarray makes it: bool, int64 */
      int dt = v->kind == V_BOOL ? TSR_BOOL : v->kind == V_INT ? TSR_I64 : TSR_F64;
      scalars[i] = tsr_value_number(v);
      items[n] = (tsr_result_item){b->name, 0, NULL, dt, &scalars[i], NULL, 0, NULL, NULL};
    } else {
      continue;
    }
    n++;
  }
  provenance pv;
  provenance_fill(&pv, opt, ex, ip, text, t);
  int st = opt->keep ? tsr_results_set_add(opt->keep, opt->output, items, n)
                     : tsr_results_write(opt->output, items, n, pv.attrs, pv.n);
  free(items);
  free(scalars);
  free(attrs);
  return st;
}

/* Rank 0: writes the results file (or adds to the kept set), with its time
 * and size in the I/O counters and the trace. */
static int output_results(const tsr_options *opt, tsr_exec *ex, struct tsr_interp *ip,
                          const char *text, timings *t) {
  double tw = tsr_comm_time(), trw = tsr_trace_now();
  int st = write_results(opt, ex, ip, text, t);
  t->write = tsr_comm_time() - tw;
  struct stat sb;
  if (opt->keep || st != TSR_OK) return st;
  double bytes = stat(opt->output, &sb) == 0 ? (double)sb.st_size : 0.0;
  ex->io_s += t->write;
  ex->io_bytes += bytes;
  if (tsr_trace_on)
    tsr_trace_span(TSR_TRACE_IO, "write results", 0, trw, tsr_trace_now(),
                   (tsr_trace_args){-1, 0, 0, (int64_t)bytes});
  return st;
}

/* ---- printing ---------------------------------------------------------------- */

static void print_bindings(FILE *out, const struct tsr_interp *ip) {
  for (int i = 0; i < ip->nnames; i++) {
    const tsr_binding *b = &ip->names[i];
    if (!is_small(&b->value) || b->value.kind == V_NONE) continue;
    fprintf(out, "%s = ", b->name);
    if (b->value.kind == V_ARRAY && b->value.arr->grid.ndim > 1) fputc('\n', out);
    tsr_value_print(out, &b->value);
    fputc('\n', out);
  }
  fflush(out);
}

static void print_summary(const tsr_exec *ex, const timings *t) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  double gb = ex->elements * 8.0 / 1e9;
  fprintf(stderr,
          "tessera: %d rank%s x %d thread%s, %s backend%s: compute %.3f s (%.3g GB logical, "
          "%.2f GB/s per rank), comm %.3f s (%s), total %.3f s, peak RSS %.0f MB",
          ex->size, ex->size == 1 ? "" : "s", ex->threads, ex->threads == 1 ? "" : "s",
          tsr_be_name(ex->be), ex->no_fuse ? " (no fusion)" : "", t->compute, gb,
          t->compute > 0 ? gb / t->compute : 0.0, t->comm, tsr_comm_transport_name(), t->total,
          ru.ru_maxrss / 1024.0);
  size_t dev = tsr_be_peak_memory(ex->be);
  if (dev || !(tsr_be_caps(ex->be) & TSR_BE_HOST_MEMORY)) /* 0 MB is news on a device too */
    fprintf(stderr, ", peak device memory %.0f MB", dev / 1e6);
  double held = tsr_nodes_held_bytes(), down, up;
  if (held > 0) fprintf(stderr, ", held %.1f MB", held / 1e6);
  tsr_be_host_copies(&down, &up);
  if (!(tsr_be_caps(ex->be) & TSR_BE_HOST_MEMORY))
    fprintf(stderr, ", host copies %.1f MB down, %.1f MB up", down / 1e6, up / 1e6);
  fputc('\n', stderr);
}

/* ---- the end of a run: summary table and trace ------------------------------ */

/* --trace: rank 0 checks the file can be made, then every rank records. The
 * phases before (parse from *mark to parsed, setup since) are recorded now. */
static int trace_begin(const tsr_options *opt, double *mark, double parsed) {
  if (!opt->trace) return TSR_OK;
  TSR_CHECK(tsr_trace_probe(opt->trace));
  tsr_trace_start();
  double now = tsr_trace_now();
  tsr_trace_span(TSR_TRACE_PHASE, "parse", 0, *mark, parsed, (tsr_trace_args){-1, 0, 0, 0});
  tsr_trace_span(TSR_TRACE_PHASE, "setup", 0, parsed, now, (tsr_trace_args){-1, 0, 0, 0});
  /* its parts (setup.h): on the phases' row, inside the setup span */
  const tsr_setup_parts *sp = tsr_job_setup_parts();
  static const char *const part[] = {"setup: backend start", "setup: device bind",
                                     "setup: backend setup"};
  const double at[] = {sp->begun, sp->started, sp->bound, sp->ready};
  for (int i = 0; i < 3; i++)
    tsr_trace_span(TSR_TRACE_PHASE, part[i], 0, at[i], at[i + 1], (tsr_trace_args){-1, 0, 0, 0});
  *mark = now;
  return TSR_OK;
}

/* Records the phase that began at *mark and ends now; the next begins now. */
static void trace_phase(const char *name, double *mark) {
  if (!tsr_trace_on) return;
  double now = tsr_trace_now();
  tsr_trace_span(TSR_TRACE_PHASE, name, 0, *mark, now, (tsr_trace_args){-1, 0, 0, 0});
  *mark = now;
}

/* After a successful run, on every rank: the summary table (unless --quiet)
 * and the trace file (--trace), both gathered to rank 0. Collective. */
static int finish_run(const tsr_options *opt, const tsr_exec *ex, const timings *t) {
  if (!opt->quiet) {
    const tsr_setup_parts *sp = tsr_job_setup_parts();
    tsr_run_times rt = {t->parse,
                        t->plan,
                        t->compute,
                        t->comm,
                        t->write,
                        t->total,
                        sp->started - sp->begun,
                        sp->bound - sp->started,
                        sp->ready - sp->bound};
    TSR_CHECK(tsr_summary_report(ex, &rt, stderr));
  }
  if (!opt->trace) return TSR_OK;
  char meta[512];
  snprintf(meta, sizeof meta,
           "\"tessera_version\":\"%s\",\"backend\":\"%s\",\"threads_per_rank\":%d,"
           "\"fused\":%s",
           TSR_VERSION, tsr_be_name(ex->be), ex->threads, ex->no_fuse ? "false" : "true");
  return tsr_trace_write(opt->trace, meta);
}

/* ---- entry points ------------------------------------------------------------- */

static int plan_and_compute(tsr_exec *ex, struct tsr_interp *ip, timings *t) {
  double t0 = tsr_comm_time();
  tsr_nodes_carry_prune(); /* a sweep's trial: what the last trial held and this one does not */
  for (int i = 0; i < ip->nnames; i++)
    if (is_small(&ip->names[i].value)) TSR_CHECK(check_value(ex, &ip->names[i].value));
  TSR_CHECK(tsr_save_plan(ex));
  for (int i = 0; i < ip->nnames; i++) {
    tsr_value *v = &ip->names[i].value;
    if (is_small(v)) TSR_CHECK(compute_value(ex, v));
  }
  TSR_CHECK(tsr_save_run(ex)); /* into temporary files, renamed at the end */
  t->compute = tsr_comm_time() - t0 - ex->comm_s;
  t->comm = ex->comm_s;
  return TSR_OK;
}

/* What the job may compute while it is read (tsr_ctx's compute_now): the
 * executor, set up on the first such computation instead of after the
 * reading. */
typedef struct eager_job {
  const tsr_options *opt;
  tsr_exec *ex;
  int ready;
} eager_job;

/* The executor, unless the reading of the job has set it up already. */
static int setup_once(eager_job *j) {
  if (j->ready) return TSR_OK;
  TSR_CHECK(tsr_job_setup(j->opt, j->ex));
  j->ready = 1;
  return TSR_OK;
}

static int compute_now(void *job, tsr_node *n) {
  eager_job *j = job;
  TSR_CHECK(setup_once(j));
  TSR_CHECK(tsr_job_check(j->ex, n));
  return tsr_job_compute(j->ex, n);
}

/* Interprets prog with opt's --set values into ip (initialized here; the
 * caller frees it): every --set must have been taken by a param(). With
 * job, the job may compute while it is read (compute_now). */
static int interpret(const tsr_options *opt, const tsr_source *src, const ast_program *prog,
                     struct tsr_interp *ip, eager_job *job) {
  tsr_job_interp_init(ip, src, opt->seed);
  ip->ctx.compute_now = job ? compute_now : NULL;
  ip->ctx.job = job;
  unsigned char *used = calloc((size_t)opt->nsets + 1, 1);
  ip->ctx.sets = opt->sets;
  ip->ctx.nsets = used ? opt->nsets : 0;
  ip->ctx.set_used = used;
  int st = used ? tsr_interp_program(ip, prog) : TSR_ERROR(TSR_ERR_MEMORY, "out of memory");
  if (st == TSR_OK) st = tsr_params_check_used(&ip->ctx);
  free(used);
  ip->ctx.set_used = NULL;
  return st;
}

int tsr_run_job(const tsr_options *opt, const char *name, const char *text, FILE *out) {
  double t0 = tsr_comm_time(), mark = tsr_trace_now();
  timings t = {0};
  tsr_source src = {name, text};
  ast_program prog;
  TSR_CHECK(tsr_parse_program(&src, &prog));
  struct tsr_interp ip;
  tsr_exec ex;
  eager_job job = {opt, &ex, 0};
  int st = interpret(opt, &src, &prog, &ip, &job), discard = 0;
  t.parse = tsr_comm_time() - t0;
  double parsed = tsr_trace_now();
  if (st == TSR_OK) st = setup_once(&job);
  if (st == TSR_OK) st = check_targets(opt, name, &discard);
  if (st == TSR_OK) st = trace_begin(opt, &mark, parsed);
  t.plan = tsr_comm_time() - t0 - t.parse;
  if (st == TSR_OK) st = plan_and_compute(&ex, &ip, &t);
  trace_phase("compute", &mark);
  t.total = tsr_comm_time() - t0;
  /* Every rank knows the same st here (errors so far are collective), so
   * either all ranks take part in the agreement on the results file or none. */
  int computed = st == TSR_OK;
  if (computed && ex.rank == 0) {
    print_bindings(out, &ip);
    if (opt->output && !discard) st = output_results(opt, &ex, &ip, text, &t);
  }
  if (computed && opt->output) {
    int worst = st;
    if (tsr_comm_max_int(st, &worst) == TSR_OK && worst != TSR_OK && st == TSR_OK)
      st = TSR_ERROR(worst, "rank 0 could not write the results file");
  }
  /* Saved files get their names only now that everything has succeeded. */
  if (st == TSR_OK) {
    provenance pv;
    provenance_fill(&pv, opt, &ex, &ip, text, &t);
    st = tsr_save_commit(pv.attrs, pv.n);
  }
  if (st != TSR_OK) tsr_save_abort();
  trace_phase("write", &mark);
  if (st == TSR_OK && ex.rank == 0 && !opt->quiet) print_summary(&ex, &t);
  if (st == TSR_OK) st = finish_run(opt, &ex, &t);
  if (st != TSR_OK) tsr_trace_discard();
  tsr_interp_free(&ip);
  tsr_ast_program_free(&prog);
  tsr_nodes_free_all();
  tsr_io_job_end();
  return st;
}

int tsr_job_params(const tsr_options *opt, const char *name, const char *text, char *params,
                   size_t n) {
  tsr_source src = {name, text};
  ast_program prog;
  TSR_CHECK(tsr_parse_program(&src, &prog));
  struct tsr_interp ip;
  int st = interpret(opt, &src, &prog, &ip, NULL);
  if (st == TSR_OK && tsr_save_count() > 0)
    st = TSR_ERROR(TSR_ERR_VALUE,
                   "%s: save() in a sweep would write the same file in every trial: the "
                   "sweep keeps each trial's small results instead",
                   name);
  snprintf(params, n, "%s", ip.ctx.params);
  tsr_interp_free(&ip);
  tsr_ast_program_free(&prog);
  tsr_nodes_free_all();
  tsr_io_job_end();
  return st;
}

int tsr_job_fits(const tsr_options *opt, const char *name, const char *text,
                 struct tsr_fit_path *path) {
  tsr_source src = {name, text};
  ast_program prog;
  TSR_CHECK(tsr_parse_program(&src, &prog));
  struct tsr_interp ip;
  int st = interpret(opt, &src, &prog, &ip, NULL);
  if (st == TSR_OK) st = tsr_nodes_list_fits(path);
  tsr_interp_free(&ip);
  tsr_ast_program_free(&prog);
  tsr_nodes_free_all();
  tsr_io_job_end();
  return st;
}

/* Computes v (repeat times for benchmarks: each time from scratch, after a
 * barrier) and returns the compute time of each run in times[], and the
 * communication time of the last run in *last_comm (the first run may pay
 * one-time costs, such as NCCL's connection setup). */
static int compute_timed(tsr_exec *ex, tsr_value *v, int repeat, double *times, double *last_comm) {
  for (int r = 0; r < repeat; r++) {
    tsr_nodes_clear_values();
    TSR_CHECK(tsr_comm_barrier());
    double t0 = tsr_comm_time();
    *last_comm = ex->comm_s;
    TSR_CHECK(compute_value(ex, v));
    TSR_CHECK(tsr_comm_barrier());
    times[r] = tsr_comm_time() - t0;
    *last_comm = ex->comm_s - *last_comm;
  }
  return TSR_OK;
}

int tsr_eval(const tsr_options *opt, const char *expr, FILE *out) {
  double t0 = tsr_comm_time(), times[64], mark = tsr_trace_now(), last_comm = 0;
  int repeat = opt->repeat > 0 ? (opt->repeat < 64 ? opt->repeat : 64) : 1;
  timings t = {0};
  tsr_source src = {"<eval>", expr};
  ast_node *e;
  TSR_CHECK(tsr_parse_expression(&src, &e));
  struct tsr_interp ip;
  tsr_job_interp_init(&ip, &src, opt->seed);
  tsr_value v;
  tsr_exec ex;
  eager_job job = {opt, &ex, 0};
  ip.ctx.compute_now = compute_now;
  ip.ctx.job = &job;
  int st = tsr_interp_expr(&ip, e, &v);
  if (st == TSR_OK && tsr_save_count() > 0)
    st = tsr_source_error(&src, e->line, e->col, TSR_ERR_VALUE,
                          "save() writes files only in job files (tessera run FILE)");
  if (st == TSR_OK && !is_small(&v))
    st = tsr_source_error(
        &src, e->line, e->col, TSR_ERR_VALUE,
        "the result has %lld elements; eval prints at most %lld: reduce or slice it",
        (long long)tsr_node_size(v.arr), (long long)SMALL_ELEMS);
  double parsed = tsr_trace_now();
  t.parse = tsr_comm_time() - t0;
  if (st == TSR_OK) st = setup_once(&job);
  if (st == TSR_OK) st = check_value(&ex, &v);
  t.plan = tsr_comm_time() - t0 - t.parse; /* set-up included, as tsr_run_job's */
  if (st == TSR_OK) st = trace_begin(opt, &mark, parsed);
  if (st == TSR_OK) st = compute_timed(&ex, &v, repeat, times, &last_comm);
  trace_phase("compute", &mark);
  t.comm = st == TSR_OK ? last_comm : 0;
  if (st == TSR_OK) { /* the summary shows one run */
    ex.elements /= repeat;
    ex.compute_s /= repeat;
    ex.comm_s /= repeat;
    ex.comm_bytes /= repeat;
    ex.chunks_done /= repeat;
  }
  t.compute = st == TSR_OK ? times[repeat - 1] - t.comm : 0;
  t.total = tsr_comm_time() - t0;
  if (st == TSR_OK && ex.rank == 0) {
    tsr_value_print(out, &v);
    fputc('\n', out);
    fflush(out);
    for (int r = 0; r < repeat && repeat > 1 && !opt->quiet; r++)
      fprintf(stderr, "tessera: run %d of %d: %.6f s\n", r + 1, repeat, times[r]);
    if (!opt->quiet) print_summary(&ex, &t);
  }
  if (st == TSR_OK) st = finish_run(opt, &ex, &t);
  if (st != TSR_OK) tsr_trace_discard();
  tsr_interp_free(&ip);
  tsr_ast_free(e);
  tsr_nodes_free_all();
  tsr_io_job_end();
  return st;
}
