/*
 * setup.c - one job's setup (setup.h): knobs, threads, memory, the backend
 * and its device.
 */
#define _GNU_SOURCE
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "job/setup.h"

#include <errno.h>
#include <math.h>
#include <omp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend/backend.h"
#include "mpi/agree.h"
#include "mpi/comm.h"
#include "util/error.h"
#include "util/trace.h"

/* ---- knobs ------------------------------------------------------------------ */

static int bad_knob(const char *name, const char *value, const char *expected) {
  return TSR_ERROR(TSR_ERR_VALUE, "%s=%s: expected %s", name, value, expected);
}

/* An on/off knob: unset or empty is def. */
static int knob_bool(const char *name, int def, int *out) {
  const char *v = getenv(name);
  *out = def;
  if (!v || !*v) return TSR_OK;
  static const char *const on[] = {"1", "yes", "true", "on"}, *const off[] = {"0", "no", "false",
                                                                              "off"};
  for (int i = 0; i < 4; i++) {
    if (!strcasecmp(v, on[i])) return *out = 1, TSR_OK;
    if (!strcasecmp(v, off[i])) return *out = 0, TSR_OK;
  }
  return bad_knob(name, v, "1 or 0 (yes/no, true/false, on/off)");
}

/* A positive number of seconds: unset or empty is def. */
static int knob_seconds(const char *name, double def, double *out) {
  const char *v = getenv(name);
  *out = def;
  if (!v || !*v) return TSR_OK;
  char *end;
  errno = 0;
  double x = strtod(v, &end);
  if (errno || *end || !(x > 0) || !isfinite(x))
    return bad_knob(name, v, "a positive number of seconds");
  *out = x;
  return TSR_OK;
}

/* One of the words of list (space-separated): unset or empty is NULL. */
static int knob_word(const char *name, const char *list, const char **out) {
  const char *v = getenv(name);
  *out = NULL;
  if (!v || !*v) return TSR_OK;
  size_t n = strlen(v);
  for (const char *p = list; *p;) {
    size_t w = strcspn(p, " ");
    if (w == n && !strncmp(p, v, n)) return *out = v, TSR_OK;
    p += w + (p[w] == ' ');
  }
  char expected[256];
  snprintf(expected, sizeof expected, "one of %s", list);
  return bad_knob(name, v, expected);
}

/* The largest program a backend runs, as LEAVES,OPERATIONS[,REGISTERS]
 * (tests of split programs): unset or empty is none (zeros). */
static int knob_program_limit(const char *name, tsr_prog_limits *out) {
  const char *v = getenv(name);
  memset(out, 0, sizeof *out);
  if (!v || !*v) return TSR_OK;
  static const int least[3] = {TSR_PROG_MIN_LEAVES, TSR_PROG_MIN_INSTR, TSR_PROG_MIN_REGS};
  int *field[3] = {&out->leaves, &out->instr, &out->regs}, n = 0;
  for (const char *p = v; n < 3; n++) {
    char *end;
    errno = 0;
    long x = strtol(p, &end, 10);
    if (errno || end == p || x < least[n] || x > 1000000 || (*end && *end != ',')) break;
    *field[n] = (int)x;
    if (!*end && n >= 1) return TSR_OK;
    if (!*end) break;
    p = end + 1;
  }
  char expected[128];
  snprintf(expected, sizeof expected,
           "LEAVES,OPERATIONS[,REGISTERS], integers of at least %d, %d and %d", TSR_PROG_MIN_LEAVES,
           TSR_PROG_MIN_INSTR, TSR_PROG_MIN_REGS);
  return bad_knob(name, v, expected);
}

/* TESSERA_TSQR: gram or tree as asked; auto (or unset) is the Gram path on
 * every backend. On two H200s (bench/RESULTS.md 2026-11-28 11:23), svd of
 * 10^6 x 10^3: the tree 0.26 s on 1 GPU and 0.27-0.28 s on 2, the Gram path
 * 0.28 s on 1 and 0.20 s on 2. The choice never depends on the rank count,
 * so the bits do not either. */
static int tsqr_gram(const tsr_knobs *k) {
  if (k->tsqr && strcmp(k->tsqr, "auto")) return !strcmp(k->tsqr, "gram");
  return 1;
}

int tsr_knobs_read(tsr_knobs *k) {
  memset(k, 0, sizeof *k);
  TSR_CHECK(knob_bool("TESSERA_GPUS_SHARED", 0, &k->gpus_shared));
  TSR_CHECK(knob_word("TESSERA_FAULT", tsr_be_fault_ops, &k->fault));
  TSR_CHECK(knob_seconds("TESSERA_PROGRESS_INTERVAL", 10.0, &k->progress_interval));
  TSR_CHECK(knob_bool("TESSERA_HOST_EXCHANGE", 0, &k->host_exchange));
  TSR_CHECK(knob_word("TESSERA_TSQR", "auto tree gram", &k->tsqr));
  TSR_CHECK(knob_bool("TESSERA_HDF5_INDEPENDENT", 0, &k->hdf5_independent));
  TSR_CHECK(knob_program_limit("TESSERA_PROGRAM_LIMIT", &k->program_limit));
  TSR_CHECK(knob_bool("TESSERA_GPU_NO_WALK", 0, &k->gpu_no_walk));
  TSR_CHECK(knob_bool("TESSERA_GPU_ISOLATE", 1, &k->gpu_isolate));
  return TSR_OK;
}

/* ---- resources ---------------------------------------------------------------- */

static size_t available_memory(void) {
  FILE *f = fopen("/proc/meminfo", "r");
  char line[256];
  size_t kb = 0;
  while (f && fgets(line, sizeof line, f))
    if (sscanf(line, "MemAvailable: %zu kB", &kb) == 1) break;
  if (f) fclose(f);
  if (kb == 0) kb = (size_t)4 << 20; /* 4 GiB when unknown */
  return kb * 1024;
}

/* The most OpenMP threads a rank runs: --threads' own bound (libgomp fails
 * to start far more). */
#define MAX_THREADS 4096

/* A rank whose backend keeps its data in device memory stages chunks and
 * waits for its kernels with at most this many threads. */
#define DEVICE_MAX_THREADS 16

/* The cores this rank is bound to, or the node's cores shared among its
 * ranks when unbound. With a device backend, half of them and at most
 * DEVICE_MAX_THREADS: its threads mostly wait for the GPU, and OpenMP's
 * waiting threads spin on their cores, so that a node's ranks with a thread
 * on every core starve the threads that drive the GPUs (the CUDA driver's,
 * NCCL's, each rank's main thread). On a 4x H200 node of 64 cores, 16
 * threads a rank (every core) took matmul 16384^2 on 4 GPUs to 0.27-0.31 s
 * and 8 to 0.053 s; svd 10^6 x 10^3 0.31-0.36 s against 0.095 s; one GPU's
 * cumsum of 10^9 values 21-32 ms with 64 threads, 17 ms with 16
 * (bench/RESULTS.md 2026-11-28 13:28). */
static int core_threads(int device) {
  cpu_set_t set;
  long node = sysconf(_SC_NPROCESSORS_ONLN);
  int mine = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : (int)node;
  int t = mine < node ? mine : (int)(node / tsr_comm_local_size());
  if (device) t = t / 2 < DEVICE_MAX_THREADS ? t / 2 : DEVICE_MAX_THREADS;
  return t > 0 ? t : 1;
}

/* Threads per rank: OMP_NUM_THREADS when it is a number (its first, as
 * OpenMP reads "N,M"), capped at MAX_THREADS with a note from rank 0 when
 * note is set; otherwise (unset, or a value OpenMP itself ignores) the cores
 * (device: the backend keeps its data in device memory). */
static int default_threads(int note, int device) {
  const char *v = getenv("OMP_NUM_THREADS");
  char *end = NULL;
  errno = 0;
  long n = v ? strtol(v, &end, 10) : 0;
  int number = v && end != v && n > 0 && (*end == '\0' || *end == ',' || *end == ' ');
  if (!number) return core_threads(device);
  if (n <= MAX_THREADS && errno != ERANGE) return (int)n;
  if (note && tsr_comm_rank() == 0)
    fprintf(stderr, "tessera: OMP_NUM_THREADS=%s capped to %d\n", v, MAX_THREADS);
  return MAX_THREADS;
}

/* ---- the backend and its device ------------------------------------------------- */

/* Whether be keeps its data in device memory (a GPU backend). */
static int device_backend(const tsr_backend_ops *be) {
  return !(tsr_be_caps(be) & TSR_BE_HOST_MEMORY);
}

static int choose_backend(const tsr_options *opt, const tsr_knobs *k, const tsr_backend_ops **be) {
  const tsr_backend_ops *gpu = tsr_backend_find("cuda");
  /* before the first CUDA call (available), unless the CPU was asked for */
  if (gpu && gpu->prepare && k->gpu_isolate && opt->backend != TSR_BACKEND_CPU)
    gpu->prepare(tsr_comm_local_rank());
  if (opt->backend == TSR_BACKEND_CUDA) {
    if (!gpu)
      return TSR_ERROR(
          TSR_ERR_BACKEND, "%s",
          "--backend=cuda: this tessera was built without CUDA (reconfigure with --with-cuda)");
    if (!gpu->available())
      return TSR_ERROR(TSR_ERR_BACKEND, "%s",
                       "--backend=cuda: no usable GPU is visible to this rank");
    *be = gpu;
  } else if (opt->backend == TSR_BACKEND_AUTO && gpu && gpu->available()) {
    *be = gpu;
  } else {
    *be = tsr_backend_find("cpu");
  }
  return TSR_OK;
}

/* Whether another rank of this node bound the same device. */
static int node_shares(const tsr_device_id *id, int *shared) {
  int local = tsr_comm_local_rank(), nlocal = tsr_comm_local_size();
  tsr_device_id *ids;
  TSR_CALLOC(ids, (size_t)nlocal, sizeof *ids);
  int st = tsr_comm_node_allgather(id, sizeof *id, ids);
  *shared = 0;
  for (int r = 0; st == TSR_OK && r < nlocal; r++)
    if (r != local && !memcmp(&ids[r], id, sizeof *id)) *shared = 1;
  free(ids);
  return st;
}

/* Binds this rank's device and learns which ranks share one. Ranks of a
 * node that share a GPU are refused unless allowed (NCCL needs a GPU per
 * rank); where any rank shares one, device transports stay off everywhere.
 * Every rank agrees before any fails. */
static int bind_device(const tsr_backend_ops *be, int allow_shared, int checked,
                       tsr_backend_config *cfg) {
  if (!tsr_be_has_bind(be)) return TSR_OK;
  tsr_device_id id;
  int count = 0, refuse = 0;
  TSR_CHECK(tsr_agree(tsr_be_bind(be, tsr_comm_local_rank(), &id, &count)));
  if (checked) { /* a sweep's trial: the world was checked before the groups split */
    cfg->shared = cfg->any_shared = checked - 1;
    return TSR_OK;
  }
  TSR_CHECK(tsr_agree(node_shares(&id, &cfg->shared)));
  TSR_CHECK(tsr_comm_max_int(cfg->shared && !allow_shared, &refuse));
  if (refuse)
    return TSR_ERROR(TSR_ERR_BACKEND,
                     "ranks of a node share a GPU (%d ranks on this node, %d GPU%s visible to "
                     "this rank): use one rank per GPU, or --gpus-shared",
                     tsr_comm_local_size(), count, count == 1 ? "" : "s");
  return tsr_comm_max_int(cfg->shared, &cfg->any_shared);
}

static tsr_setup_parts parts;
const tsr_setup_parts *tsr_job_setup_parts(void) { return &parts; }

int tsr_job_setup(const tsr_options *opt, tsr_exec *ex) {
  tsr_knobs k;
  memset(ex, 0, sizeof *ex);
  parts.begun = parts.started = parts.bound = parts.ready = tsr_trace_now();
  /* a knob or a GPU that one rank alone lacks must not leave the others
   * waiting in the collectives ahead */
  int st = tsr_knobs_read(&k);
  if (st == TSR_OK) st = choose_backend(opt, &k, &ex->be);
  TSR_CHECK(tsr_agree_each(st));
  parts.started = parts.bound = parts.ready = tsr_trace_now();
  ex->rank = tsr_comm_rank();
  ex->size = tsr_comm_size();
  ex->threads = opt->threads > 0 ? opt->threads
                                 : default_threads(!opt->devices_checked, device_backend(ex->be));
  /* every backend's parallel loops (the executor's, linalg's) run this many
   * threads: OpenMP's own default is every core of the node in each rank */
  omp_set_num_threads(ex->threads);
  ex->mem_limit =
      opt->mem_limit ? opt->mem_limit : available_memory() / 2 / (size_t)tsr_comm_local_size();
  ex->no_fuse = opt->no_fuse;
  ex->progress = opt->quiet ? 0 : opt->progress;
  ex->quiet = opt->quiet;
  ex->fit_path = opt->fit_path;
  ex->progress_interval = k.progress_interval;
  ex->hdf5_independent = k.hdf5_independent;
  ex->host_exchange = k.host_exchange;
  ex->tsqr_gram = tsqr_gram(&k);
  tsr_backend_config cfg = {.threads = ex->threads,
                            .mem_limit = opt->mem_limit,
                            .fault = k.fault,
                            .prog_limit = k.program_limit,
                            .no_walk = k.gpu_no_walk};
  TSR_CHECK(bind_device(ex->be, opt->gpus_shared || k.gpus_shared, opt->devices_checked, &cfg));
  parts.bound = parts.ready = tsr_trace_now();
  st = tsr_be_setup(ex->be, &cfg);
  parts.ready = tsr_trace_now();
  return st;
}

int tsr_job_devices_check(const tsr_options *opt, int *checked) {
  tsr_knobs k;
  const tsr_backend_ops *be = NULL;
  tsr_backend_config cfg = {0};
  int st = tsr_knobs_read(&k);
  if (st == TSR_OK) st = choose_backend(opt, &k, &be);
  TSR_CHECK(tsr_agree_each(st));
  if (opt->threads == 0) default_threads(1, 0); /* its note once, not once a trial */
  TSR_CHECK(bind_device(be, opt->gpus_shared || k.gpus_shared, 0, &cfg));
  *checked = 1 + cfg.any_shared;
  return TSR_OK;
}
