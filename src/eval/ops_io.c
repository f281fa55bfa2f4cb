/*
 * ops_io.c - the builtins of the ops table that touch files or move data:
 * load, save and rechunk (their table lines are in ops.c).
 *
 * load describes its dataset on rank 0 while the job is interpreted and
 * broadcasts what it found (or the error), so that every rank builds the same
 * node and a missing file, dataset or unreadable type is reported once,
 * located in the job text, before any work. The datasets a job loads are kept
 * here, one per (file, dataset), until the job ends.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "eval/ops_io.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"
#include "io/h5array.h"
#include "mpi/comm.h"
#include "mpi/p2p.h"
#include "job/save.h"

/* Chunks of about this many bytes when load is given none (as ops.c). */
#define AUTO_CHUNK_BYTES ((size_t)128 << 20)

static tsr_h5src *sources;

void tsr_h5src_free_all(void) {
  while (sources) {
    tsr_h5src *s = sources;
    sources = s->next;
    free(s->path);
    free(s->dataset);
    free(s);
  }
}

static void set_array(tsr_value *out, tsr_node *n) {
  memset(out, 0, sizeof *out);
  out->kind = V_ARRAY;
  out->arr = n;
}

static int want_string(tsr_interp *ip, const tsr_args *a, int i, const char *what, const char **s) {
  if (a->v[i].kind != V_STR)
    return tsr_interp_error(ip, a->at[i], TSR_ERR_TYPE, "%s must be a string, got %s", what,
                            tsr_value_type_name(&a->v[i]));
  *s = a->v[i].s;
  return TSR_OK;
}

/* HDF5 paths: "x" is "/x"; empty names and empty components are errors. */
static int dataset_path(tsr_interp *ip, const ast_node *at, const char *name, char *buf, size_t n) {
  size_t len = strlen(name);
  if (len == 0 || !strcmp(name, "/") || name[len - 1] == '/' || strstr(name, "//"))
    return tsr_interp_error(ip, at, TSR_ERR_VALUE, "'%s' is not a dataset name: use e.g. \"/x\" or \"/group/x\"",
                            name);
  if (len + 2 > n) return tsr_interp_error(ip, at, TSR_ERR_VALUE, "dataset name too long");
  snprintf(buf, n, "%s%s", name[0] == '/' ? "" : "/", name);
  return TSR_OK;
}

/* ---- load ------------------------------------------------------------------ */

/* What rank 0 found, for every rank. */
typedef struct probe_result {
  int status;
  tsr_h5meta meta;
  char message[1024];
} probe_result;

static int find_source(tsr_interp *ip, const ast_node *at, const char *path, const char *dataset,
                       const tsr_h5src **out) {
  for (tsr_h5src *s = sources; s; s = s->next)
    if (!strcmp(s->path, path) && !strcmp(s->dataset, dataset)) {
      *out = s;
      return TSR_OK;
    }
  probe_result *r;
  TSR_CALLOC(r, 1, sizeof *r);
  if (tsr_comm_rank() == 0) {
    r->status = tsr_h5_describe(path, dataset, &r->meta);
    if (r->status != TSR_OK) {
      char msg[1024];
      snprintf(msg, sizeof msg, "%s", tsr_error_message());
      tsr_error_clear();
      r->status = tsr_interp_error(ip, at, r->status, "%s", msg);
      snprintf(r->message, sizeof r->message, "%s", tsr_error_message());
    }
  }
  int st = tsr_p2p_bcast(r, sizeof *r);
  if (st == TSR_OK && r->status != TSR_OK && tsr_comm_rank() != 0)
    st = TSR_ERROR(r->status, "%s", r->message);
  else if (st == TSR_OK)
    st = r->status;
  tsr_h5src *s = NULL;
  if (st == TSR_OK && !(s = calloc(1, sizeof *s))) st = TSR_ERROR(TSR_ERR_MEMORY, "out of memory");
  if (st == TSR_OK) {
    s->path = strdup(path);
    s->dataset = strdup(dataset);
    s->meta = r->meta;
    s->next = sources;
    sources = s;
    if (!s->path || !s->dataset) st = TSR_ERROR(TSR_ERR_MEMORY, "out of memory");
    *out = s;
  }
  free(r);
  return st;
}

/* "auto" chunks: of a contiguous dataset, Dask's (about 128 MiB, as square
 * as the shape allows); of a chunked one, whole HDF5 chunks, grouped (the
 * axis with the fewest HDF5 chunks per tessera chunk doubled at a time)
 * while they fit in 128 MiB, so that every read covers whole HDF5 chunks. */
static int auto_grid(const tsr_h5src *s, tsr_dtype dt, tsr_grid *g) {
  const tsr_h5meta *m = &s->meta;
  size_t item = dt == TSR_F32 ? 4 : 8;
  if (!m->chunked) return tsr_grid_init_auto(g, m->ndim, m->shape, item, AUTO_CHUNK_BYTES);
  int64_t chunk[TSR_MAXDIM], budget = (int64_t)(AUTO_CHUNK_BYTES / item), elems = 1;
  for (int a = 0; a < m->ndim; a++) {
    int64_t len = m->shape[a] > 0 ? m->shape[a] : 1;
    chunk[a] = m->chunk[a] < len ? m->chunk[a] : len;
    elems *= chunk[a];
  }
  for (;;) {
    int best = -1;
    for (int a = 0; a < m->ndim; a++)
      if (chunk[a] < m->shape[a] && (best < 0 || chunk[a] / m->chunk[a] < chunk[best] / m->chunk[best]))
        best = a;
    if (best < 0) break;
    int64_t grown = chunk[best] * 2 < m->shape[best] ? chunk[best] * 2 : m->shape[best];
    if (elems / chunk[best] * grown > budget) break;
    elems = elems / chunk[best] * grown;
    chunk[best] = grown;
  }
  return tsr_grid_init_regular(g, m->ndim, m->shape, chunk);
}

/* chunks= of load: the forms of every creation function, with errors that
 * name the file and the dataset. */
static int load_grid(tsr_interp *ip, const tsr_args *a, int i, const tsr_h5src *s, tsr_dtype dt,
                     tsr_grid *g) {
  const tsr_value *v = &a->v[i];
  const tsr_h5meta *m = &s->meta;
  char shape[128];
  tsr_shape_format(m->ndim, m->shape, shape, sizeof shape);
  memset(g, 0, sizeof *g);
  if (!a->given[i] || (v->kind == V_STR && !strcmp(v->s, "auto")))
    return tsr_interp_relocate(ip, a->at[i], auto_grid(s, dt, g));
  if (v->kind == V_TUPLE && v->nitems != m->ndim)
    return tsr_interp_error(ip, a->at[i], TSR_ERR_SHAPE,
                            "chunks has %d entries but dataset '%s' in '%s' has %d dimensions %s",
                            v->nitems, s->dataset, s->path, m->ndim, shape);
  if (v->kind != V_TUPLE && v->kind != V_INT && v->kind != V_NONE)
    return tsr_interp_error(ip, a->at[i], TSR_ERR_TYPE,
                            "chunks must be \"auto\", an integer or a tuple, got %s",
                            tsr_value_type_name(v));
  int64_t *sizes[TSR_MAXDIM] = {0}, n[TSR_MAXDIM];
  int st = TSR_OK;
  for (int k = 0; k < m->ndim && st == TSR_OK; k++) {
    const tsr_value *e = v->kind == V_TUPLE ? &v->items[k] : v;
    int64_t len = m->shape[k];
    if (e->kind == V_TUPLE) {
      n[k] = e->nitems;
      sizes[k] = malloc(sizeof(int64_t) * (size_t)(e->nitems + 1));
      if (!sizes[k]) st = TSR_ERROR(TSR_ERR_MEMORY, "out of memory");
      for (int j = 0; j < e->nitems && st == TSR_OK; j++) {
        if (e->items[j].kind != V_INT)
          st = tsr_interp_error(ip, a->at[i], TSR_ERR_TYPE, "chunk sizes must be integers");
        else
          sizes[k][j] = e->items[j].i;
      }
      continue;
    }
    if (e->kind != V_INT && e->kind != V_NONE) {
      st = tsr_interp_error(ip, a->at[i], TSR_ERR_TYPE, "chunks must be integers or tuples, got %s",
                            tsr_value_type_name(e));
      break;
    }
    long long c = e->kind == V_NONE || e->i == -1 ? (len > 0 ? len : 1) : e->i;
    if (c <= 0) {
      st = tsr_interp_error(ip, a->at[i], TSR_ERR_VALUE, "chunk size must be positive, got %lld on axis %d", c, k);
      break;
    }
    n[k] = len == 0 ? 1 : (len + c - 1) / c;
    sizes[k] = malloc(sizeof(int64_t) * (size_t)n[k]);
    if (!sizes[k]) st = TSR_ERROR(TSR_ERR_MEMORY, "out of memory");
    for (int64_t j = 0; j < n[k] && st == TSR_OK; j++) sizes[k][j] = len - j * c < c ? len - j * c : c;
    if (st == TSR_OK && len == 0) sizes[k][0] = 0;
  }
  if (st == TSR_OK) {
    st = tsr_grid_init_lists(g, m->ndim, m->shape, (const int64_t *const *)sizes, n);
    if (st != TSR_OK && st != TSR_ERR_MEMORY) {
      char msg[1024];
      snprintf(msg, sizeof msg, "%s", tsr_error_message());
      tsr_error_clear();
      st = tsr_interp_error(ip, a->at[i], st, "%s (dataset '%s' in '%s' has shape %s)", msg,
                            s->dataset, s->path, shape);
    }
  }
  for (int k = 0; k < TSR_MAXDIM; k++) free(sizes[k]);
  return st;
}

/* The first two arguments of load and save: a non-empty file name and a
 * dataset path (normalized into dataset). */
static int want_file_dataset(tsr_interp *ip, tsr_args *a, const char **file, char *dataset,
                             size_t n) {
  const char *name = "";
  TSR_CHECK(want_string(ip, a, 0, "file", file));
  TSR_CHECK(want_string(ip, a, 1, "dataset", &name));
  TSR_CHECK(dataset_path(ip, a->at[1], name, dataset, n));
  if (!(*file)[0]) return tsr_interp_error(ip, a->at[0], TSR_ERR_VALUE, "file name is empty");
  return TSR_OK;
}

/* load(file, dataset, chunks="auto", dtype=None) */
int tsr_b_load(tsr_interp *ip, const ast_node *call, const tsr_op_def *def, tsr_args *a,
               tsr_value *out) {
  (void)def;
  const char *file = "";
  char dataset[1024];
  TSR_CHECK(want_file_dataset(ip, a, &file, dataset, sizeof dataset));
  tsr_dtype dt = TSR_F64;
  if (a->given[3] && a->v[3].kind != V_NONE) TSR_CHECK(tsr_arg_dtype(ip, a, 3, &dt));
  const tsr_h5src *s = NULL;
  TSR_CHECK(find_source(ip, call, file, dataset, &s));
  if (!a->given[3] || a->v[3].kind == V_NONE)
    dt = s->meta.type_class == TSR_H5_FLOAT && s->meta.type_size == 4 ? TSR_F32 : TSR_F64;
  tsr_grid g;
  TSR_CHECK(load_grid(ip, a, 2, s, dt, &g));
  tsr_node *n = NULL;
  int st = tsr_node_load(s, &g, dt, &n);
  tsr_grid_free(&g);
  TSR_CHECK(st);
  set_array(out, n);
  return TSR_OK;
}

/* ---- save ------------------------------------------------------------------- */

/* save(file, dataset, array, compression=None, level=4) */
int tsr_b_save(tsr_interp *ip, const ast_node *call, const tsr_op_def *def, tsr_args *a,
               tsr_value *out) {
  (void)def;
  const char *file = "";
  char dataset[1024];
  TSR_CHECK(want_file_dataset(ip, a, &file, dataset, sizeof dataset));
  if (a->v[2].kind != V_ARRAY)
    return tsr_interp_error(ip, a->at[2], TSR_ERR_TYPE,
                            "save writes arrays, got %s (small values go to the results file, -o)",
                            tsr_value_type_name(&a->v[2]));
  tsr_node *x = a->v[2].arr;
  if (x->grid.ndim == 0)
    return tsr_interp_error(ip, a->at[2], TSR_ERR_VALUE,
                            "save writes arrays of 1 to %d dimensions, got a 0-d array (small "
                            "values go to the results file, -o)", TSR_MAXDIM);
  int gzip = -1;
  const tsr_value *c = &a->v[3];
  if (a->given[3] && c->kind != V_NONE) {
    if (c->kind != V_STR || strcmp(c->s, "gzip"))
      return tsr_interp_error(ip, a->at[3], TSR_ERR_VALUE, "compression must be \"gzip\" or None");
    if (!tsr_h5_gzip_available())
      return tsr_interp_error(ip, a->at[3], TSR_ERR_VALUE, "this HDF5 cannot write gzip");
    gzip = 4;
  }
  if (a->given[4] && a->v[4].kind != V_NONE) {
    long long level;
    TSR_CHECK(tsr_arg_int(ip, a, 4, "level", &level));
    if (gzip < 0)
      return tsr_interp_error(ip, a->at[4], TSR_ERR_VALUE, "level= needs compression=\"gzip\"");
    if (level < 0 || level > 9)
      return tsr_interp_error(ip, a->at[4], TSR_ERR_VALUE, "gzip level must be 0 to 9, got %lld", level);
    gzip = (int)level;
  }
  TSR_CHECK(tsr_save_add(ip->src, call->line, call->col, file, dataset, x, gzip));
  memset(out, 0, sizeof *out); /* None */
  return TSR_OK;
}

/* ---- rechunk ------------------------------------------------------------------ */

/* rechunk(x, chunks), x.rechunk(chunks) */
int tsr_b_rechunk(tsr_interp *ip, const ast_node *call, const tsr_op_def *def, tsr_args *a,
                  tsr_value *out) {
  (void)def;
  (void)call;
  if (a->v[0].kind != V_ARRAY)
    return tsr_interp_error(ip, a->at[0], TSR_ERR_TYPE, "rechunk needs an array, got %s",
                            tsr_value_type_name(&a->v[0]));
  tsr_node *x = a->v[0].arr, *n = NULL;
  /* Rechunking twice moves the data once: the values are the same. */
  while (x->kind == N_RECHUNK) x = x->in[0];
  tsr_grid g;
  TSR_CHECK(tsr_arg_chunks(ip, a, 1, x->grid.ndim, x->grid.shape, x->dtype, &g));
  int st = tsr_node_rechunk(x, &g, &n);
  tsr_grid_free(&g);
  TSR_CHECK(st);
  set_array(out, n);
  return TSR_OK;
}
