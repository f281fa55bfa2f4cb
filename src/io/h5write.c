/*
 * h5write.c - writing saved arrays (h5array.h, "writing"): datasets defined
 * in a temporary file with HDF5 chunks that follow tessera's, boxes written
 * as hyperslabs (collective MPI-IO writes when the writer is collective),
 * and the provenance attributes added once every rank has finished.
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

#define MAX_OPEN 64

struct tsr_h5_writer {
  hid_t file, dxpl;
  int collective;
  const char *final;
  int nopen;
  char *names[MAX_OPEN];
  hid_t dsets[MAX_OPEN];
  int dtype[MAX_OPEN]; /* the dataset's tsr_dtype: values are converted to it before writing */
};

static int writer_start(const char *tmp, const char *final, int collective, int create,
                        tsr_h5_writer **out) {
  tsr_h5_quiet();
  tsr_h5_writer *w;
  TSR_CALLOC(w, 1, sizeof *w);
  w->collective = tsr_h5_is_collective(collective);
  w->final = final;
  w->dxpl = -1;
  hid_t fapl = tsr_h5_file_access(w->collective);
  w->file = fapl < 0 ? -1
            : create ? H5Fcreate(tmp, H5F_ACC_TRUNC, H5P_DEFAULT, fapl)
                     : H5Fopen(tmp, H5F_ACC_RDWR, fapl);
  if (fapl >= 0) H5Pclose(fapl);
  if (w->file >= 0) w->dxpl = tsr_h5_transfer(w->collective);
  if (w->file < 0 || w->dxpl < 0) {
    tsr_h5_writer_close(w);
    return TSR_ERROR(TSR_ERR_IO, "cannot %s the temporary file of '%s'", create ? "create" : "open",
                     final);
  }
  *out = w;
  return TSR_OK;
}

int tsr_h5_writer_create(const char *tmp, const char *final, int collective, tsr_h5_writer **out) {
  return writer_start(tmp, final, collective, 1, out);
}

int tsr_h5_writer_open(const char *tmp, const char *final, int collective, tsr_h5_writer **out) {
  return writer_start(tmp, final, collective, 0, out);
}

/* Keeps the handle open: datasets are written chunk by chunk. */
static int remember(tsr_h5_writer *w, const char *dataset, hid_t d) {
  if (w->nopen == MAX_OPEN) {
    H5Dclose(d);
    return TSR_ERROR(TSR_ERR_VALUE, "more than %d datasets saved into '%s'", MAX_OPEN, w->final);
  }
  hid_t type = H5Dget_type(d);
  int dt = TSR_F64;
  if (type < 0 || !tsr_h5_dtype_of(type, &dt)) dt = TSR_F64;
  w->dtype[w->nopen] = dt;
  if (type >= 0) H5Tclose(type);
  w->names[w->nopen] = strdup(dataset);
  w->dsets[w->nopen++] = d;
  return TSR_OK;
}

int tsr_h5_define(tsr_h5_writer *w, const char *dataset, int ndim, const int64_t *shape,
                  const int64_t *chunk, int dtype, int gzip) {
  hsize_t dims[H5S_MAX_RANK], cdims[H5S_MAX_RANK];
  int chunked = chunk != NULL;
  for (int a = 0; a < ndim; a++) {
    dims[a] = (hsize_t)shape[a];
    if (shape[a] == 0) chunked = 0; /* HDF5 chunks cannot exceed an empty axis */
    if (chunk) cdims[a] = (hsize_t)chunk[a];
  }
  hid_t space = H5Screate_simple(ndim, dims, NULL);
  hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE), lcpl = H5Pcreate(H5P_LINK_CREATE);
  int bad = space < 0 || dcpl < 0 || lcpl < 0;
  if (!bad) bad |= H5Pset_create_intermediate_group(lcpl, 1) < 0;
  if (!bad && chunked) bad |= H5Pset_chunk(dcpl, ndim, cdims) < 0;
  if (!bad && chunked && gzip >= 0) bad |= H5Pset_deflate(dcpl, (unsigned)gzip) < 0;
  if (!bad) bad |= H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER) < 0;
  hid_t d = -1;
  if (!bad) {
    hid_t ft = tsr_h5_type_of(dtype, 0);
    d = ft < 0 ? -1 : H5Dcreate2(w->file, dataset, ft, space, lcpl, dcpl, H5P_DEFAULT);
    if (ft >= 0) H5Tclose(ft);
    bad = d < 0;
  }
  if (space >= 0) H5Sclose(space);
  if (dcpl >= 0) H5Pclose(dcpl);
  if (lcpl >= 0) H5Pclose(lcpl);
  if (bad) return TSR_ERROR(TSR_ERR_IO, "cannot create dataset '%s' in '%s'", dataset, w->final);
  return remember(w, dataset, d);
}

static int dataset_of(tsr_h5_writer *w, const char *dataset, hid_t *d, int *dt) {
  for (int i = 0; i < w->nopen; i++)
    if (w->names[i] && !strcmp(w->names[i], dataset)) {
      *d = w->dsets[i];
      *dt = w->dtype[i];
      return TSR_OK;
    }
  *d = H5Dopen2(w->file, dataset, H5P_DEFAULT);
  H5_CHECK(*d, TSR_ERR_IO, "cannot open dataset '%s' in '%s'", dataset, w->final);
  TSR_CHECK(remember(w, dataset, *d));
  *dt = w->dtype[w->nopen - 1];
  return TSR_OK;
}

/* Datasets of other types than float64 get buffers of their own type
 * (float32 rounding is plain C's), as parallel HDF5 1.10 cannot convert
 * types while writing compressed chunks. */
int tsr_h5_write(tsr_h5_writer *w, const char *dataset, const int64_t *start, const int64_t *count,
                 const double *data) {
  hid_t d;
  int dt = TSR_F64;
  TSR_CHECK(dataset_of(w, dataset, &d, &dt));
  hid_t fspace = H5Dget_space(d), mspace = -1;
  int nd = H5Sget_simple_extent_ndims(fspace), bad = fspace < 0;
  hsize_t s[H5S_MAX_RANK], c[H5S_MAX_RANK], one = 1;
  double dummy = 0;
  size_t n = 0;
  if (!bad && count) {
    n = 1;
    for (int a = 0; a < nd; a++) {
      s[a] = (hsize_t)start[a];
      c[a] = (hsize_t)count[a];
      n *= (size_t)count[a];
    }
    bad = H5Sselect_hyperslab(fspace, H5S_SELECT_SET, s, NULL, c, NULL) < 0;
    mspace = H5Screate_simple(nd, c, NULL);
  } else if (!bad) {
    H5Sselect_none(fspace);
    mspace = H5Screate_simple(1, &one, NULL);
    H5Sselect_none(mspace);
    data = &dummy;
  }
  int packed = dt != TSR_F64;
  void *f = packed ? tsr_h5_pack(data, n, dt) : NULL;
  hid_t mt = tsr_h5_type_of(dt, 1);
  if ((packed && !f) || mt < 0) bad = 1;
  errno = 0;
  if (!bad)
    bad =
        mspace < 0 || H5Dwrite(d, mt, mspace, fspace, w->dxpl, packed ? f : (const void *)data) < 0;
  int err = errno;
  if (mt >= 0) H5Tclose(mt);
  free(f);
  if (mspace >= 0) H5Sclose(mspace);
  if (fspace >= 0) H5Sclose(fspace);
  if (bad)
    return TSR_ERROR(TSR_ERR_IO, "cannot write dataset '%s' of '%s'%s", dataset, w->final,
                     tsr_h5_cause(err));
  return TSR_OK;
}

int tsr_h5_writer_close(tsr_h5_writer *w) {
  if (!w) return TSR_OK;
  int bad = 0;
  errno = 0; /* the closes write what HDF5 kept in its caches */
  for (int i = 0; i < w->nopen; i++) {
    bad |= H5Dclose(w->dsets[i]) < 0;
    free(w->names[i]);
  }
  if (w->dxpl >= 0) H5Pclose(w->dxpl);
  if (w->file >= 0 && H5Fclose(w->file) < 0) {
    bad = 1;
    tsr_h5_note_close_failed();
  }
  int err = errno;
  const char *final = w->final;
  free(w);
  if (bad) return TSR_ERROR(TSR_ERR_IO, "cannot finish writing '%s'%s", final, tsr_h5_cause(err));
  return TSR_OK;
}

static herr_t put_attr(hid_t obj, const tsr_attr *a) {
  hid_t space = H5Screate(H5S_SCALAR), type;
  if (a->text) {
    type = H5Tcopy(H5T_C_S1);
    H5Tset_size(type, H5T_VARIABLE);
    H5Tset_cset(type, H5T_CSET_UTF8);
  } else {
    type = H5Tcopy(H5T_IEEE_F64LE);
  }
  herr_t st = -1;
  if (H5Aexists(obj, a->key) > 0) H5Adelete(obj, a->key);
  hid_t attr = H5Acreate2(obj, a->key, type, space, H5P_DEFAULT, H5P_DEFAULT);
  if (attr >= 0) {
    st = a->text ? H5Awrite(attr, type, &a->text) : H5Awrite(attr, H5T_NATIVE_DOUBLE, &a->number);
    if (H5Aclose(attr) < 0) st = -1;
  }
  H5Tclose(type);
  H5Sclose(space);
  return st;
}

int tsr_h5_set_attrs(const char *tmp, const char *final, const tsr_attr *attrs, int nattrs) {
  tsr_h5_quiet();
  hid_t file = H5Fopen(tmp, H5F_ACC_RDWR, H5P_DEFAULT);
  H5_CHECK(file, TSR_ERR_IO, "cannot reopen the temporary file of '%s'", final);
  int bad = 0;
  errno = 0;
  for (int i = 0; i < nattrs && !bad; i++) bad = put_attr(file, &attrs[i]) < 0;
  if (H5Fclose(file) < 0) {
    bad = 1;
    tsr_h5_note_close_failed();
  }
  if (bad)
    return TSR_ERROR(TSR_ERR_IO, "cannot write the attributes of '%s'%s", final,
                     tsr_h5_cause(errno));
  return TSR_OK;
}

void tsr_h5_cap_chunk(int ndim, int64_t *chunk, int64_t itemsize) {
  const int64_t limit = ((int64_t)1 << 32) - 1;
  for (;;) {
    int64_t bytes = itemsize;
    int longest = 0;
    for (int a = 0; a < ndim; a++) {
      bytes = chunk[a] > 0 && bytes > limit / chunk[a] ? limit + 1 : bytes * chunk[a];
      if (chunk[a] > chunk[longest]) longest = a;
    }
    if (bytes <= limit || chunk[longest] <= 1) return;
    chunk[longest] = (chunk[longest] + 1) / 2;
  }
}

int tsr_h5_gzip_available(void) {
  tsr_h5_quiet();
  unsigned cfg = 0;
  return H5Zfilter_avail(H5Z_FILTER_DEFLATE) > 0 &&
         H5Zget_filter_info(H5Z_FILTER_DEFLATE, &cfg) >= 0 &&
         (cfg & H5Z_FILTER_CONFIG_ENCODE_ENABLED);
}
