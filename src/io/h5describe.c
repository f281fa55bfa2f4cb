/*
 * h5describe.c - what load needs to know about a dataset, found before any
 * work (tsr_h5_describe, h5array.h): that the file exists, is readable and
 * is HDF5, that the dataset exists (each missing group named), and its type,
 * shape, storage chunks and filters. Every failure names the file and the
 * dataset.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#define _POSIX_C_SOURCE 200809L

#include "io/h5array.h"

#include <stdlib.h>
#include <string.h>

#include "io/h5check.h"
#include "io/h5common.h"

/* Every group on the way must exist (H5Lexists fails on a missing parent). */
static int find_object(hid_t file, const char *path, const char *name) {
  size_t len = strlen(name);
  if (len == 0 || !strcmp(name, "/"))
    return TSR_ERROR(TSR_ERR_VALUE, "dataset name '%s' for '%s' is empty", name, path);
  char *prefix;
  TSR_MALLOC(prefix, len + 1);
  int st = TSR_OK;
  for (size_t i = 1; i <= len && st == TSR_OK; i++) {
    if (i < len && name[i] != '/') continue;
    memcpy(prefix, name, i);
    prefix[i] = '\0';
    if (i == 1 && name[0] == '/') continue;
    if (H5Lexists(file, prefix, H5P_DEFAULT) > 0) continue;
    if (i < len)
      st = TSR_ERROR(TSR_ERR_IO, "no dataset '%s' in '%s' (no group '%s')", name, path, prefix);
    else
      st = TSR_ERROR(TSR_ERR_IO, "no dataset '%s' in '%s'", name, path);
  }
  free(prefix);
  return st;
}

static int describe_type(hid_t dset, const char *path, const char *name, tsr_h5meta *m) {
  hid_t type = H5Dget_type(dset);
  H5_CHECK(type, TSR_ERR_IO, "cannot read the type of dataset '%s' in '%s'", name, path);
  H5T_class_t cls = H5Tget_class(type);
  m->type_size = (int)H5Tget_size(type);
  int st = TSR_OK;
  if (cls == H5T_FLOAT)
    m->type_class = TSR_H5_FLOAT;
  else if (cls == H5T_INTEGER)
    m->type_class = H5Tget_sign(type) == H5T_SGN_NONE ? TSR_H5_UINT : TSR_H5_INT;
  if (!tsr_h5_dtype_of(type, &m->dtype))
    st = TSR_ERROR(TSR_ERR_TYPE,
                   "dataset '%s' in '%s' has %s of %d bytes: load reads floating-point, integer "
                   "and h5py's bool datasets",
                   name, path, tsr_h5_class_name(cls), m->type_size);
  else if (cls != H5T_FLOAT && cls != H5T_INTEGER && cls != H5T_ENUM)
    st = TSR_ERROR(TSR_ERR_TYPE,
                   "dataset '%s' in '%s' has %s: load reads floating-point and integer datasets",
                   name, path, tsr_h5_class_name(cls));
  H5Tclose(type);
  return st;
}

static int describe_space(hid_t dset, const char *path, const char *name, tsr_h5meta *m) {
  hid_t space = H5Dget_space(dset);
  H5_CHECK(space, TSR_ERR_IO, "cannot read the shape of dataset '%s' in '%s'", name, path);
  H5S_class_t sc = H5Sget_simple_extent_type(space);
  int nd = H5Sget_simple_extent_ndims(space);
  hsize_t dims[H5S_MAX_RANK];
  if (nd > 0 && nd <= H5S_MAX_RANK) H5Sget_simple_extent_dims(space, dims, NULL);
  H5Sclose(space);
  if (sc != H5S_SIMPLE || nd < 1 || nd > TSR_MAXDIM)
    return TSR_ERROR(TSR_ERR_VALUE,
                     "dataset '%s' in '%s' has %d dimensions%s: load reads datasets of 1 to %d",
                     name, path, sc == H5S_SIMPLE ? nd : 0,
                     sc == H5S_SCALAR ? " (a scalar)"
                     : sc == H5S_NULL ? " (no data)"
                                      : "",
                     TSR_MAXDIM);
  m->ndim = nd;
  for (int a = 0; a < nd; a++) m->shape[a] = (int64_t)dims[a];
  return TSR_OK;
}

static int describe_layout(hid_t dset, const char *path, const char *name, tsr_h5meta *m) {
  hid_t dcpl = H5Dget_create_plist(dset);
  H5_CHECK(dcpl, TSR_ERR_IO, "cannot read the layout of dataset '%s' in '%s'", name, path);
  int st = TSR_OK;
  m->chunked = H5Pget_layout(dcpl) == H5D_CHUNKED;
  if (m->chunked) {
    hsize_t c[H5S_MAX_RANK];
    if (H5Pget_chunk(dcpl, m->ndim, c) != m->ndim)
      st = TSR_ERROR(TSR_ERR_IO, "cannot read the chunks of dataset '%s' in '%s'", name, path);
    for (int a = 0; a < m->ndim && st == TSR_OK; a++) m->chunk[a] = (int64_t)c[a];
  }
  int nf = H5Pget_nfilters(dcpl);
  for (int i = 0; i < nf && st == TSR_OK; i++) {
    unsigned flags = 0, cd[8];
    size_t ncd = 8;
    char fname[64] = "";
    H5Z_filter_t id =
        H5Pget_filter2(dcpl, (unsigned)i, &flags, &ncd, cd, sizeof fname, fname, NULL);
    if (id < 0 || H5Zfilter_avail(id) <= 0)
      st = TSR_ERROR(TSR_ERR_IO,
                     "dataset '%s' in '%s' uses filter %d (%s), which this HDF5 cannot decode",
                     name, path, (int)id, tsr_h5_filter_name(id));
  }
  H5Pclose(dcpl);
  return st;
}

static int describe_in(hid_t file, const char *path, const char *name, tsr_h5meta *m) {
  TSR_CHECK(find_object(file, path, name));
  hid_t obj = H5Oopen(file, name, H5P_DEFAULT);
  H5_CHECK(obj, TSR_ERR_IO, "cannot open '%s' in '%s'", name, path);
  int is_dset = H5Iget_type(obj) == H5I_DATASET, st = TSR_OK;
  if (!is_dset) st = TSR_ERROR(TSR_ERR_TYPE, "'%s' in '%s' is a group, not a dataset", name, path);
  if (st == TSR_OK) st = describe_type(obj, path, name, m);
  if (st == TSR_OK) st = describe_space(obj, path, name, m);
  if (st == TSR_OK) st = describe_layout(obj, path, name, m);
  H5Oclose(obj);
  return st;
}

int tsr_h5_describe(const char *path, const char *dataset, tsr_h5meta *meta) {
  tsr_h5_quiet();
  memset(meta, 0, sizeof *meta);
  TSR_CHECK(tsr_h5_check_file(path));
  hid_t file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  H5_CHECK(file, TSR_ERR_IO, "cannot open HDF5 file '%s'", path);
  int st = describe_in(file, path, dataset, meta);
  H5Fclose(file);
  return st;
}
