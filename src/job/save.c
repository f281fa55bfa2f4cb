/*
 * save.c - writing saved arrays to HDF5 files (see save.h).
 *
 * The HDF5 chunks of a saved dataset are the tessera chunks (the largest
 * chunk size of each axis, capped to HDF5's 4 GiB), so each rank's chunk
 * writes whole HDF5 chunks when the grid is regular. Temporary names are
 * "<file>.tmp-<pid of rank 0>", in the file's directory so that rename(2) is
 * atomic; every rank derives the same name from rank 0's pid.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#define _POSIX_C_SOURCE 200809L

#include "job/save.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kernel/dtype.h"
#include "util/error.h"
#include "exec/exec.h"
#include "exec/nofuse.h"
#include "job/compute.h"
#include "job/target.h"
#include "mpi/agree.h"
#include "mpi/tags.h"
#include "io/h5array.h"
#include "mpi/comm.h"
#include "mpi/p2p.h"
#include "graph/sinks.h"
#include "util/grow.h"
#include "util/signals.h"
#include "exec/stage.h"
#include "util/trace.h"

typedef struct save_file {
  char *path, *tmp;
  int created; /* the temporary exists (rank 0 removes it on failure) */
  int discard; /* the target is /dev/null: computed, never written */
} save_file;

/* The files of the job's saves (graph/sinks.h), each once, in the order of
 * their first save. */
static save_file *files;
static int64_t nfiles, files_cap;

int tsr_save_count(void) { return tsr_sinks_count(); }

static int file_index(const char *path) {
  for (int i = 0; i < nfiles; i++)
    if (!strcmp(files[i].path, path)) return i;
  return -1;
}

static int add_file(const char *path) {
  TSR_CHECK(tsr_grow((void **)&files, &files_cap, nfiles + 1, sizeof *files, "for saved files"));
  files[nfiles] = (save_file){strdup(path), NULL, 0, 0};
  if (!files[nfiles].path) return TSR_ERROR(TSR_ERR_MEMORY, "out of memory");
  nfiles++;
  return TSR_OK;
}

/* Builds the list of files from the sinks (once a job). */
static int list_files(void) {
  if (nfiles > 0) return TSR_OK;
  for (int i = 0; i < tsr_sinks_count(); i++)
    if (file_index(tsr_sinks_at(i)->file) < 0) TSR_CHECK(add_file(tsr_sinks_at(i)->file));
  return TSR_OK;
}

/* The first save into a file, for error positions. */
static const tsr_sink *first_save(const char *path) {
  for (int i = 0; i < tsr_sinks_count(); i++)
    if (!strcmp(tsr_sinks_at(i)->file, path)) return tsr_sinks_at(i);
  return NULL;
}

/* ---- checks before any work --------------------------------------------------- */

/* The reason why, located at the first save into path. */
static int target_error(const char *path, int code, const char *why) {
  const tsr_sink *e = first_save(path);
  return tsr_source_error(e->text, e->line, e->col, code, "%s", why);
}

/* Rank 0: the shared check (job/target.h), and not the results file. */
static int check_target(save_file *f, int overwrite, const char *results_path,
                        const char *job_file) {
  tsr_target_rules r = {overwrite, job_file, "save to", ""};
  char why[1024];
  if (results_path && !strcmp(f->path, results_path)) {
    snprintf(why, sizeof why, "'%s' is also the results file (-o)", f->path);
    return target_error(f->path, TSR_ERR_VALUE, why);
  }
  int st = tsr_target_check(f->path, &r, &f->discard, why, sizeof why);
  return st == TSR_OK ? st : target_error(f->path, st, why);
}

/* Every rank learns which files are /dev/null (computed, not written). */
static int share_discards(void) {
  int *flags;
  TSR_CALLOC(flags, (size_t)nfiles, sizeof *flags);
  for (int i = 0; i < nfiles; i++) flags[i] = files[i].discard;
  int st = tsr_p2p_bcast(flags, sizeof *flags * (size_t)nfiles);
  for (int i = 0; i < nfiles && st == TSR_OK; i++) files[i].discard = flags[i];
  free(flags);
  return st;
}

int tsr_save_check(int overwrite, const char *results_path, const char *job_file) {
  int st = list_files();
  if (nfiles == 0) return st;
  if (tsr_comm_rank() == 0)
    for (int i = 0; i < nfiles && st == TSR_OK; i++)
      st = check_target(&files[i], overwrite, results_path, job_file);
  TSR_CHECK(tsr_agree_rank0(st, "cannot write a saved file"));
  return tsr_agree(share_discards());
}

int tsr_save_plan(tsr_exec *ex) {
  for (int i = 0; i < tsr_sinks_count(); i++) TSR_CHECK(tsr_job_check(ex, tsr_sinks_at(i)->node));
  return TSR_OK;
}

/* ---- writing ----------------------------------------------------------------- */

/* HDF5 chunks: the largest tessera chunk along each axis. */
static void hdf5_chunks(const tsr_node *n, int64_t *chunk) {
  const tsr_grid *g = &n->grid;
  for (int a = 0; a < g->ndim; a++) {
    chunk[a] = 1;
    for (int64_t c = 0; c < g->nchunks[a]; c++)
      chunk[a] = g->sizes[a][c] > chunk[a] ? g->sizes[a][c] : chunk[a];
  }
  tsr_h5_cap_chunk(g->ndim, chunk, tsr_dtype_size(n->dtype));
}

static int collective_writes(const tsr_exec *ex) {
#ifdef TSR_HAVE_PARALLEL_HDF5
  return ex->size > 1;
#else
  (void)ex;
  return 0;
#endif
}

typedef struct writing {
  tsr_exec *ex;
  save_file *f;
  const tsr_sink *e;
  int collective;
  tsr_h5_writer *w; /* open for the whole dataset: collective or one rank */
} writing;

static int write_chunks(writing *c, tsr_h5_writer *w, int64_t n, const int64_t *ids,
                        double *const *host) {
  const tsr_grid *g = &c->e->node->grid;
  int st = TSR_OK;
  double t0 = tsr_comm_time(), tt = tsr_trace_on ? tsr_trace_now() : 0.0, bytes = 0;
  for (int64_t k = 0; k < n && st == TSR_OK; k++) {
    int64_t idx[TSR_MAXDIM], start[TSR_MAXDIM], extent[TSR_MAXDIM], cnt = 1;
    tsr_grid_unravel(g, ids[k], idx);
    tsr_grid_chunk_box(g, idx, start, extent);
    for (int a = 0; a < g->ndim; a++) cnt *= extent[a];
    if (cnt > 0)
      st = tsr_h5_write(w, c->e->dataset, start, extent, host[k]);
    else if (c->collective)
      st = tsr_h5_write(w, c->e->dataset, NULL, NULL, NULL);
    bytes += (double)cnt * tsr_dtype_size(c->e->node->dtype);
  }
  c->ex->io_s += tsr_comm_time() - t0;
  c->ex->io_bytes += bytes;
  if (tsr_trace_on)
    tsr_trace_end(TSR_TRACE_IO, "write chunks", tt, (tsr_trace_args){-1, 0, 0, (int64_t)bytes});
  return st;
}

/* After each wave: collective writes (every rank the same number of calls),
 * one rank's open file, or the ranks in turn, each opening the file after the
 * previous one closed it (serial HDF5 allows one writer at a time). */
static int write_wave(void *vctx, int64_t n, const int64_t *ids, double *const *host) {
  writing *c = vctx;
  tsr_exec *ex = c->ex;
  if (c->f->discard || tsr_node_size(c->e->node) == 0) return TSR_OK; /* nothing to write */
  if (c->collective) {
    int most = (int)n;
    TSR_CHECK(tsr_comm_max_int(most, &most));
    int st = write_chunks(c, c->w, n, ids, host);
    for (int64_t k = n; k < most; k++) {
      int rs = tsr_h5_write(c->w, c->e->dataset, NULL, NULL, NULL);
      if (st == TSR_OK) st = rs;
    }
    return st;
  }
  if (c->w) return write_chunks(c, c->w, n, ids, host);
  int token = TSR_OK, st = TSR_OK;
  if (ex->rank > 0) TSR_CHECK(tsr_p2p_recv_int(ex->rank - 1, &token, TSR_TAG_TOKEN));
  if (token == TSR_OK && n > 0) {
    tsr_h5_writer *w = NULL;
    st = tsr_h5_writer_open(c->f->tmp, c->f->path, 0, &w);
    if (st == TSR_OK) st = write_chunks(c, w, n, ids, host);
    int cs = tsr_h5_writer_close(w);
    if (st == TSR_OK) st = cs;
  }
  if (ex->rank + 1 < ex->size) {
    int rs = tsr_p2p_send_int(ex->rank + 1, token != TSR_OK ? token : st, TSR_TAG_TOKEN);
    if (st == TSR_OK) st = rs;
  }
  return st;
}

/* Creates f's temporary file with every dataset saved into it. */
static int create_file(tsr_exec *ex, save_file *f, int collective, tsr_h5_writer **keep) {
  tsr_h5_writer *w = NULL;
  int st = TSR_OK;
  *keep = NULL;
  if (collective || ex->rank == 0) {
    st = tsr_h5_writer_create(f->tmp, f->path, collective, &w);
    if (st == TSR_OK && ex->rank == 0) {
      f->created = 1;
      tsr_signals_add_temp(f->tmp); /* Ctrl-C removes it at once */
    }
    for (int i = 0; i < tsr_sinks_count() && st == TSR_OK; i++) {
      const tsr_sink *e = tsr_sinks_at(i);
      if (strcmp(e->file, f->path)) continue;
      int64_t chunk[TSR_MAXDIM];
      hdf5_chunks(e->node, chunk);
      st = tsr_h5_define(w, e->dataset, e->node->grid.ndim, e->node->grid.shape, chunk,
                         (int)e->node->dtype, e->gzip);
    }
    if (collective || ex->size == 1) {
      *keep = w; /* written by every rank (collective) or the only one */
    } else {
      int cs = tsr_h5_writer_close(w);
      if (st == TSR_OK) st = cs;
    }
  }
  st = tsr_agree(st);
  if (st != TSR_OK && *keep) {
    tsr_h5_writer_close(*keep);
    *keep = NULL;
  }
  return st;
}

static int write_file(tsr_exec *ex, save_file *f) {
  int collective = collective_writes(ex);
  tsr_h5_writer *w = NULL;
  if (!f->discard) TSR_CHECK(create_file(ex, f, collective, &w));
  int st = TSR_OK;
  for (int i = 0; i < tsr_sinks_count() && st == TSR_OK; i++) {
    const tsr_sink *e = tsr_sinks_at(i);
    if (strcmp(e->file, f->path)) continue;
    writing c = {ex, f, e, collective, w};
    st = tsr_job_prepare(ex, e->node); /* the reductions it reads */
    if (st == TSR_OK) st = tsr_stage_waves(ex, e->node, write_wave, &c);
  }
  if (w) {
    int cs = tsr_h5_writer_close(w);
    if (st == TSR_OK) st = cs;
  }
  return tsr_agree(st);
}

int tsr_save_run(tsr_exec *ex) {
  TSR_CHECK(list_files());
  if (nfiles == 0) return TSR_OK;
  long pid = (long)getpid();
  TSR_CHECK(tsr_p2p_bcast(&pid, sizeof pid));
  for (int i = 0; i < nfiles; i++) {
    size_t len = strlen(files[i].path) + 32;
    TSR_MALLOC(files[i].tmp, len);
    snprintf(files[i].tmp, len, "%s.tmp-%ld", files[i].path, pid);
  }
  for (int i = 0; i < nfiles; i++) TSR_CHECK(write_file(ex, &files[i]));
  return TSR_OK;
}

/* ---- commit or abort ---------------------------------------------------------- */

static int sync_path(const char *path, const char *shown) {
  int fd = open(path, O_RDONLY);
  if (fd < 0) return TSR_ERROR(TSR_ERR_IO, "cannot sync '%s': %s", shown, strerror(errno));
  int rc = fsync(fd), err = errno;
  close(fd);
  if (rc < 0) return TSR_ERROR(TSR_ERR_IO, "cannot sync '%s': %s", shown, strerror(err));
  return TSR_OK;
}

int tsr_save_commit(const tsr_attr *attrs, int nattrs) {
  if (nfiles == 0) return TSR_OK;
  int st = TSR_OK;
  if (tsr_comm_rank() == 0) {
    for (int i = 0; i < nfiles && st == TSR_OK; i++) {
      save_file *f = &files[i];
      if (f->discard) continue;
      st = tsr_h5_set_attrs(f->tmp, f->path, attrs, nattrs);
      if (st == TSR_OK) st = sync_path(f->tmp, f->path);
    }
    for (int i = 0; i < nfiles && st == TSR_OK; i++) {
      if (files[i].discard) continue;
      tsr_signals_remove_temp(files[i].tmp);
      st = tsr_results_rename(files[i].tmp, files[i].path);
      if (st == TSR_OK) files[i].created = 0;
    }
    if (st != TSR_OK) tsr_save_abort();
  }
  return tsr_agree_rank0(st, "could not finish a saved file");
}

void tsr_save_abort(void) {
  if (tsr_comm_rank() != 0) return;
  for (int i = 0; i < nfiles; i++)
    if (files[i].created && files[i].tmp) {
      tsr_signals_remove_temp(files[i].tmp);
      unlink(files[i].tmp);
      files[i].created = 0;
    }
}

void tsr_io_job_end(void) {
  for (int i = 0; i < nfiles; i++) {
    free(files[i].path);
    free(files[i].tmp);
  }
  free(files);
  files = NULL;
  nfiles = files_cap = 0;
  tsr_nofuse_job_end();
}
