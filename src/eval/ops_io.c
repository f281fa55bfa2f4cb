/*
 * ops_io.c - the builtins of the ops table that touch files or move data:
 * load, save and rechunk (their table lines are in ops.c).
 *
 * load asks the job to describe its dataset (context.h: rank 0 opens the
 * file and every rank learns what it found, or the error) while the job is
 * interpreted, so that every rank builds the same node and a missing file,
 * dataset or unreadable type is reported once, located in the job text,
 * before any work. The datasets a job loads are graph/ state
 * (graph/sources.h), one per (file, dataset); save statements too
 * (graph/sinks.h).
 */
#include "eval/ops_io.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"
#include "graph/sinks.h"
#include "graph/sources.h"

/* "auto" chunks are about this many bytes (as args.c; Dask's array.chunk-size). */
#define AUTO_CHUNK_BYTES ((size_t)128 << 20)

/* HDF5 paths: "x" is "/x"; empty names and empty components are errors. */
static int dataset_path(tsr_ctx *c, const ast_node *at, const char *name, char *buf, size_t n) {
  size_t len = strlen(name);
  if (len == 0 || !strcmp(name, "/") || name[len - 1] == '/' || strstr(name, "//"))
    return tsr_ctx_error(c, at, TSR_ERR_VALUE,
                         "'%s' is not a dataset name: use e.g. \"/x\" or \"/group/x\"", name);
  if (len + 2 > n) return tsr_ctx_error(c, at, TSR_ERR_VALUE, "dataset name too long");
  snprintf(buf, n, "%s%s", name[0] == '/' ? "" : "/", name);
  return TSR_OK;
}

/* ---- load ------------------------------------------------------------------ */

/* The job's record of (path, dataset), described by the job's services the
 * first time; their errors are located at the load call. */
static int find_source(tsr_ctx *c, const ast_node *at, const char *path, const char *dataset,
                       const tsr_load_src **out) {
  if ((*out = tsr_sources_find(path, dataset))) return TSR_OK;
  if (!c->open_dataset)
    return tsr_ctx_error(c, at, TSR_ERR_IO, "this job cannot read files ('%s')", path);
  tsr_dataset_info info;
  int st = c->open_dataset(path, dataset, &info);
  if (st == TSR_ERR_COMM || st == TSR_ERR_MEMORY) return st; /* not the user's mistake */
  if (st != TSR_OK) return tsr_ctx_relocate(c, at, st);
  return tsr_sources_add(path, dataset, &info, out);
}

/* "auto" chunks, as dask.array.from_array: of a contiguous dataset, about
 * 128 MiB as square as the shape allows; of a chunked one, shaped after its
 * HDF5 chunks (Dask's previous_chunks, see chunks.h). */
static int auto_grid(const tsr_load_src *s, tsr_dtype dt, tsr_grid *g) {
  const tsr_dataset_info *m = &s->info;
  size_t item = dt == TSR_F32 ? 4 : 8;
  if (!m->chunked) return tsr_grid_init_auto(g, m->ndim, m->shape, item, AUTO_CHUNK_BYTES);
  tsr_grid stored;
  TSR_CHECK(tsr_grid_init_regular(&stored, m->ndim, m->shape, m->chunk));
  int st = tsr_grid_init_auto_prev(g, &stored, NULL, item, AUTO_CHUNK_BYTES);
  tsr_grid_free(&stored);
  return st;
}

/* A grid of explicit per-axis chunks, with an error that names the file and
 * the dataset when the sizes do not fit its shape. */
static int explicit_grid(tsr_ctx *c, const ast_node *at, const tsr_value *v, const tsr_load_src *s,
                         const char *shape, tsr_grid *g) {
  const tsr_dataset_info *m = &s->info;
  int64_t *sizes[TSR_MAXDIM] = {0}, n[TSR_MAXDIM];
  int st = TSR_OK;
  for (int k = 0; k < m->ndim; k++)
    TSR_CHECK_GOTO(st,
                   tsr_arg_chunk_axis(c, at, v->kind == V_TUPLE ? &v->items[k] : v, k, m->shape[k],
                                      &sizes[k], &n[k]),
                   done);
  st = tsr_grid_init_lists(g, m->ndim, m->shape, (const int64_t *const *)sizes, n);
  if (st != TSR_OK && st != TSR_ERR_MEMORY) {
    char msg[1024];
    snprintf(msg, sizeof msg, "%s", tsr_error_message());
    tsr_error_clear();
    st = tsr_ctx_error(c, at, st, "%s (dataset '%s' in '%s' has shape %s)", msg, s->dataset,
                       s->path, shape);
  }
done:
  for (int k = 0; k < TSR_MAXDIM; k++) free(sizes[k]);
  return st;
}

/* chunks= of load: the forms of every creation function, with errors that
 * name the file and the dataset. */
static int load_grid(tsr_ctx *c, const tsr_args *a, int i, const tsr_load_src *s, tsr_dtype dt,
                     tsr_grid *g) {
  const tsr_value *v = &a->v[i];
  const tsr_dataset_info *m = &s->info;
  char shape[128];
  tsr_shape_format(m->ndim, m->shape, shape, sizeof shape);
  memset(g, 0, sizeof *g);
  if (!a->given[i] || (v->kind == V_STR && !strcmp(v->s, "auto")))
    return tsr_ctx_relocate(c, a->at[i], auto_grid(s, dt, g));
  if (v->kind == V_TUPLE && v->nitems != m->ndim)
    return tsr_ctx_error(c, a->at[i], TSR_ERR_SHAPE,
                         "chunks has %d entries but dataset '%s' in '%s' has %d dimensions %s",
                         v->nitems, s->dataset, s->path, m->ndim, shape);
  if (v->kind != V_TUPLE && v->kind != V_INT && v->kind != V_NONE)
    return tsr_ctx_error(c, a->at[i], TSR_ERR_TYPE,
                         "chunks must be \"auto\", an integer or a tuple, got %s",
                         tsr_value_type_name(v));
  return explicit_grid(c, a->at[i], v, s, shape, g);
}

/* The first two arguments of load and save: a non-empty file name and a
 * dataset path (normalized into dataset). */
static int want_file_dataset(tsr_ctx *c, tsr_args *a, const char **file, char *dataset, size_t n) {
  const char *name = "";
  TSR_CHECK(tsr_arg_string(c, a, 0, "file", file));
  TSR_CHECK(tsr_arg_string(c, a, 1, "dataset", &name));
  TSR_CHECK(dataset_path(c, a->at[1], name, dataset, n));
  if (!(*file)[0]) return tsr_ctx_error(c, a->at[0], TSR_ERR_VALUE, "file name is empty");
  return TSR_OK;
}

/* load(file, dataset, chunks="auto", dtype=None) */
int tsr_b_load(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a,
               tsr_value *out) {
  (void)def;
  const char *file = "";
  char dataset[1024];
  TSR_CHECK(want_file_dataset(c, a, &file, dataset, sizeof dataset));
  tsr_dtype dt = TSR_F64;
  if (a->given[3] && a->v[3].kind != V_NONE) TSR_CHECK(tsr_arg_dtype(c, a, 3, &dt));
  const tsr_load_src *s = NULL;
  TSR_CHECK(find_source(c, call, file, dataset, &s));
  if (!a->given[3] || a->v[3].kind == V_NONE) dt = s->info.dtype;
  tsr_grid g;
  TSR_CHECK(load_grid(c, a, 2, s, dt, &g));
  tsr_node *n = NULL;
  int st = tsr_node_load(s, &g, dt, &n);
  tsr_grid_free(&g);
  TSR_CHECK(st);
  tsr_set_array(out, n);
  return TSR_OK;
}

/* ---- save ------------------------------------------------------------------- */

/* compression= and level= of save: -1 (none) or the gzip level. */
static int want_gzip(tsr_ctx *c, const tsr_args *a, int *gzip) {
  const tsr_value *comp = &a->v[3];
  if (a->given[3] && comp->kind != V_NONE) {
    if (comp->kind != V_STR || strcmp(comp->s, "gzip"))
      return tsr_ctx_error(c, a->at[3], TSR_ERR_VALUE, "compression must be \"gzip\" or None");
    if (!c->gzip_available || !c->gzip_available())
      return tsr_ctx_error(c, a->at[3], TSR_ERR_VALUE, "this HDF5 cannot write gzip");
    *gzip = 4;
  }
  if (!a->given[4] || a->v[4].kind == V_NONE) return TSR_OK;
  long long level;
  TSR_CHECK(tsr_arg_int(c, a, 4, "level", &level));
  if (*gzip < 0)
    return tsr_ctx_error(c, a->at[4], TSR_ERR_VALUE, "level= needs compression=\"gzip\"");
  if (level < 0 || level > 9)
    return tsr_ctx_error(c, a->at[4], TSR_ERR_VALUE, "gzip level must be 0 to 9, got %lld", level);
  *gzip = (int)level;
  return TSR_OK;
}

/* save(file, dataset, array, compression=None, level=4) */
int tsr_b_save(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a,
               tsr_value *out) {
  (void)def;
  const char *file = "";
  char dataset[1024];
  TSR_CHECK(want_file_dataset(c, a, &file, dataset, sizeof dataset));
  if (a->v[2].kind != V_ARRAY)
    return tsr_ctx_error(c, a->at[2], TSR_ERR_TYPE,
                         "save writes arrays, got %s (small values go to the results file, -o)",
                         tsr_value_type_name(&a->v[2]));
  tsr_node *x = a->v[2].arr;
  if (x->grid.ndim == 0)
    return tsr_ctx_error(c, a->at[2], TSR_ERR_VALUE,
                         "save writes arrays of 1 to %d dimensions, got a 0-d array (small "
                         "values go to the results file, -o)",
                         TSR_MAXDIM);
  int gzip = -1;
  TSR_CHECK(want_gzip(c, a, &gzip));
  TSR_CHECK(tsr_ctx_relocate(
      c, call, tsr_sinks_add(c->text, call->line, call->col, file, dataset, x, gzip)));
  memset(out, 0, sizeof *out); /* None */
  return TSR_OK;
}

/* ---- rechunk ------------------------------------------------------------------ */

/* chunks= of rechunk: "auto" follows x's chunks (Dask's previous_chunks). */
static int rechunk_grid(tsr_ctx *c, const tsr_args *a, const tsr_node *x, tsr_grid *g) {
  const tsr_value *v = &a->v[1];
  if (v->kind != V_STR || strcmp(v->s, "auto"))
    return tsr_arg_chunks(c, a, 1, x->grid.ndim, x->grid.shape, x->dtype, g);
  return tsr_ctx_relocate(
      c, a->at[1],
      tsr_grid_init_auto_prev(g, &x->grid, NULL, x->dtype == TSR_F32 ? 4 : 8, AUTO_CHUNK_BYTES));
}

/* rechunk(x, chunks), x.rechunk(chunks) */
int tsr_b_rechunk(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a,
                  tsr_value *out) {
  (void)def;
  (void)call;
  tsr_node *x, *n = NULL;
  TSR_CHECK(tsr_arg_array(c, a, 0, "rechunk", &x));
  tsr_grid g;
  TSR_CHECK(rechunk_grid(c, a, x, &g));
  /* Rechunking twice moves the data once: the values are the same. */
  while (x->kind == N_RECHUNK) x = x->in[0];
  int st = tsr_node_rechunk(x, &g, &n);
  tsr_grid_free(&g);
  TSR_CHECK(st);
  tsr_set_array(out, n);
  return TSR_OK;
}
