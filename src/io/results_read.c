/*
 * results_read.c - reads back the small results of a results file
 * (results.h): what a sweep stacks from its trials' files. Only rank 0 of a
 * sweep calls it, so there is no MPI here.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdlib.h>
#include <string.h>

#include "io/h5check.h"
#include "io/h5common.h"
#include "io/results.h"
#include "kernel/ids.h"

typedef struct collect {
  const char *path;
  tsr_result_item *items;
  int n, cap, st;
} collect;

typedef struct attrs {
  tsr_attr *a;
  int n, st;
} attrs;

/* A numeric scalar attribute of a dataset (a fit's n_iter, passes ...)
 * into the list; the others are skipped. */
static herr_t visit_attr(hid_t d, const char *name, const H5A_info_t *info, void *data) {
  attrs *at = data;
  (void)info;
  hid_t a = H5Aopen(d, name, H5P_DEFAULT);
  if (a < 0) return 0;
  hid_t type = H5Aget_type(a), space = H5Aget_space(a);
  H5T_class_t cls = type >= 0 ? H5Tget_class(type) : H5T_NO_CLASS;
  double v;
  int ok = (cls == H5T_FLOAT || cls == H5T_INTEGER) && space >= 0 &&
           H5Sget_simple_extent_npoints(space) == 1 && H5Aread(a, H5T_NATIVE_DOUBLE, &v) >= 0;
  if (type >= 0) H5Tclose(type);
  if (space >= 0) H5Sclose(space);
  H5Aclose(a);
  if (!ok) return 0;
  tsr_attr *grown = realloc(at->a, sizeof *grown * (size_t)(at->n + 1));
  char *key = grown ? strdup(name) : NULL;
  if (grown) at->a = grown;
  if (!key) {
    at->st = TSR_ERROR(TSR_ERR_MEMORY, "out of memory");
    return -1;
  }
  at->a[at->n++] = (tsr_attr){key, NULL, v};
  return 0;
}

/* A dataset of numbers (any tsr_dtype: h5py's bool enum too) as doubles
 * with its dtype, so that a sweep's merge and --resume keep the types a
 * straight run writes; strings and other types are skipped. */
static int read_one(hid_t d, const char *name, collect *c) {
  hid_t space = H5Dget_space(d), type = H5Dget_type(d);
  int ok = space >= 0 && type >= 0, dt = TSR_F64;
  ok = ok && tsr_h5_dtype_of(type, &dt);
  int ndim = ok ? H5Sget_simple_extent_ndims(space) : -1;
  if (type >= 0) H5Tclose(type);
  if (!ok || ndim < 0) { /* not a number: skipped */
    if (space >= 0) H5Sclose(space);
    return TSR_OK;
  }
  hsize_t dims[H5S_MAX_RANK];
  H5Sget_simple_extent_dims(space, dims, NULL);
  H5Sclose(space);
  tsr_result_item *it = &c->items[c->n];
  memset(it, 0, sizeof *it);
  int64_t *shape = calloc((size_t)ndim + 1, sizeof *shape);
  size_t count = 1;
  for (int k = 0; k < ndim && shape; k++) count *= (size_t)(shape[k] = (int64_t)dims[k]);
  double *data = shape ? malloc(count ? count * sizeof *data : 1) : NULL;
  char *nm = strdup(name);
  *it = (tsr_result_item){nm, ndim, shape, dt, data, NULL, 0, NULL, NULL};
  c->n++;
  if (!shape || !data || !nm) return TSR_ERROR(TSR_ERR_MEMORY, "out of memory");
  if (count && dt == TSR_BOOL) {
    hid_t mem = tsr_h5_type_of(TSR_BOOL, 1);
    herr_t e = mem >= 0 ? H5Dread(d, mem, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) : -1;
    if (mem >= 0) H5Tclose(mem);
    if (e < 0) return TSR_ERROR(TSR_ERR_IO, "cannot read '%s' in '%s'", name, c->path);
    tsr_h5_widen_bool(data, count);
  } else if (count) {
    H5_CHECK(H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, data), TSR_ERR_IO,
             "cannot read '%s' in '%s'", name, c->path);
  }
  attrs at = {NULL, 0, TSR_OK};
  hsize_t idx = 0;
  H5Aiterate2(d, H5_INDEX_NAME, H5_ITER_INC, &idx, visit_attr, &at);
  it->attrs = at.a, it->nattrs = at.n;
  return at.st;
}

static herr_t visit(hid_t group, const char *name, const H5L_info_t *info, void *data) {
  collect *c = data;
  (void)info;
  if (c->n == c->cap) {
    tsr_result_item *p = realloc(c->items, sizeof *p * (size_t)(c->cap = 2 * c->cap + 8));
    if (!p) {
      c->st = TSR_ERROR(TSR_ERR_MEMORY, "out of memory");
      return -1;
    }
    c->items = p;
  }
  hid_t d = H5Oopen(group, name, H5P_DEFAULT);
  if (d < 0) return 0;
  if (H5Iget_type(d) == H5I_DATASET) c->st = read_one(d, name, c);
  H5Oclose(d);
  return c->st == TSR_OK ? 0 : -1;
}

int tsr_results_read(const char *path, const char *group, tsr_result_item **items, int *nitems) {
  tsr_h5_quiet();
  collect c = {path, NULL, 0, 0, TSR_OK};
  *items = NULL;
  *nitems = 0;
  hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  if (f < 0) return TSR_ERROR(TSR_ERR_IO, "cannot open results file '%s'", path);
  if (group && H5Lexists(f, group, H5P_DEFAULT) <= 0) { /* a run with no numeric result */
    H5Fclose(f);
    return TSR_OK;
  }
  hid_t g = group ? H5Gopen2(f, group, H5P_DEFAULT) : f;
  if (g < 0) {
    H5Fclose(f);
    return TSR_ERROR(TSR_ERR_IO, "cannot open group '%s' in results file '%s'", group, path);
  }
  hsize_t idx = 0;
  herr_t rc = H5Literate(g, H5_INDEX_NAME, H5_ITER_INC, &idx, visit, &c);
  if (g != f) H5Gclose(g);
  H5Fclose(f);
  if (rc < 0 && c.st == TSR_OK) c.st = TSR_ERROR(TSR_ERR_IO, "cannot list '%s'", path);
  if (c.st != TSR_OK) {
    tsr_results_free(c.items, c.n);
    return c.st;
  }
  *items = c.items;
  *nitems = c.n;
  return TSR_OK;
}

int tsr_results_read_text(const char *path, const char *key, char **text) {
  tsr_h5_quiet();
  *text = NULL;
  hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  if (f < 0) return TSR_ERROR(TSR_ERR_IO, "cannot open results file '%s'", path);
  hid_t a = H5Aexists(f, key) > 0 ? H5Aopen(f, key, H5P_DEFAULT) : -1;
  hid_t type = a >= 0 ? H5Aget_type(a) : -1, mem = H5Tcopy(H5T_C_S1);
  char *s = NULL;
  int ok = type >= 0 && mem >= 0 && H5Tget_class(type) == H5T_STRING &&
           H5Tis_variable_str(type) > 0 && H5Tset_size(mem, H5T_VARIABLE) >= 0 &&
           H5Tset_cset(mem, H5Tget_cset(type)) >= 0 && H5Aread(a, mem, &s) >= 0 && s;
  if (ok) *text = strdup(s);
  if (s) H5free_memory(s);
  if (mem >= 0) H5Tclose(mem);
  if (type >= 0) H5Tclose(type);
  if (a >= 0) H5Aclose(a);
  H5Fclose(f);
  if (!ok) return TSR_ERROR(TSR_ERR_IO, "no text attribute '%s' in '%s'", key, path);
  return *text ? TSR_OK : TSR_ERROR(TSR_ERR_MEMORY, "out of memory");
}

void tsr_results_free(tsr_result_item *items, int nitems) {
  for (int i = 0; i < nitems; i++) {
    free((char *)items[i].name);
    free((int64_t *)items[i].shape);
    free((double *)items[i].data);
    for (int k = 0; k < items[i].nattrs; k++) free((char *)items[i].attrs[k].key);
    free((tsr_attr *)items[i].attrs);
  }
  free(items);
}
