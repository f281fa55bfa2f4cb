/*
 * h5read.c - reading hyperslabs of a dataset (h5array.h, "reading"),
 * converted to doubles by HDF5, independently or collectively (MPI-IO), or,
 * where the file holds exactly the doubles asked for in one run of bytes,
 * with pread off HDF5 (the direct path, h5direct.h).
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
#include "io/h5direct.h"

/* Datasets are read through a chunk cache of 64 MiB: HDF5 chunks that
 * several reads share are decompressed once while they fit. Larger HDF5
 * chunks bypass the cache and are read straight into tessera's buffer (no
 * extra copy); "auto" chunks (Dask's rule from the HDF5 chunks) cover whole
 * HDF5 chunks wherever those are smaller than an axis's share of 128 MiB.
 * Direct reads bypass the cache: what they read needs no decoding, and a
 * chunk that fits the cache would otherwise be copied twice. */
#define READ_CACHE_BYTES ((size_t)64 << 20)

struct tsr_h5_reader {
  hid_t file, dset, dxpl;
  int ndim, collective;
  size_t type_size;
  hid_t mtype; /* the memory type read into: doubles, or bytes for bool */
  int is_bool;
  double bytes; /* updated atomically: direct reads run on several threads */
  char *path, *name;
  tsr_h5_direct direct;
};

int tsr_h5_reader_open(const char *path, const char *dataset, int collective, tsr_h5_reader **out) {
  tsr_h5_quiet();
  tsr_h5_reader *r;
  TSR_CALLOC(r, 1, sizeof *r);
  r->file = r->dset = r->dxpl = r->mtype = -1;
  r->direct.kind = -1;
  r->direct.fd = -1;
  r->collective = tsr_h5_is_collective(collective);
  r->path = strdup(path);
  r->name = strdup(dataset);
  int st = r->path && r->name ? TSR_OK : TSR_ERROR(TSR_ERR_MEMORY, "out of memory");
  /* not a FIFO here either: the file may have changed since rank 0 described
   * it, or be another file on this rank's node */
  if (st == TSR_OK) st = tsr_h5_check_regular(path);
  hid_t fapl = st == TSR_OK ? tsr_h5_file_access(r->collective) : -1;
  if (st == TSR_OK && fapl >= 0) r->file = H5Fopen(path, H5F_ACC_RDONLY, fapl);
  if (fapl >= 0) H5Pclose(fapl);
  if (st == TSR_OK && r->file < 0) st = TSR_ERROR(TSR_ERR_IO, "cannot open HDF5 file '%s'", path);
  if (st == TSR_OK) {
    hid_t dapl = H5Pcreate(H5P_DATASET_ACCESS);
    H5Pset_chunk_cache(dapl, 12421, READ_CACHE_BYTES, 1.0);
    r->dset = H5Dopen2(r->file, dataset, dapl);
    H5Pclose(dapl);
    if (r->dset < 0) st = TSR_ERROR(TSR_ERR_IO, "cannot open dataset '%s' in '%s'", dataset, path);
  }
  if (st == TSR_OK) {
    hid_t space = H5Dget_space(r->dset), type = H5Dget_type(r->dset);
    r->ndim = H5Sget_simple_extent_ndims(space);
    r->type_size = H5Tget_size(type);
    int dt = TSR_F64;
    r->is_bool = tsr_h5_dtype_of(type, &dt) && dt == TSR_BOOL;
    r->mtype = r->is_bool ? tsr_h5_type_of(TSR_BOOL, 1) : H5Tcopy(H5T_NATIVE_DOUBLE);
    if (r->mtype < 0)
      st = TSR_ERROR(TSR_ERR_IO, "cannot read the type of '%s' in '%s'", dataset, path);
    H5Sclose(space);
    H5Tclose(type);
    r->dxpl = tsr_h5_transfer(r->collective);
    if (r->dxpl < 0)
      st = TSR_ERROR(TSR_ERR_IO, "cannot set up reading '%s' in '%s'", dataset, path);
  }
  if (st == TSR_OK && !r->collective) tsr_h5_direct_setup(&r->direct, r->file, r->dset, path);
  if (st != TSR_OK) {
    tsr_h5_reader_close(r);
    return st;
  }
  *out = r;
  return TSR_OK;
}

int tsr_h5_read(tsr_h5_reader *r, const int64_t *start, const int64_t *stride, const int64_t *count,
                double *out) {
  hsize_t s[H5S_MAX_RANK], t[H5S_MAX_RANK], c[H5S_MAX_RANK], one = 1;
  double dummy;
  hid_t fspace = H5Dget_space(r->dset), mspace = -1;
  int st = fspace < 0 ? TSR_ERR_IO : TSR_OK;
  size_t n = 1;
  if (st == TSR_OK && count) {
    for (int a = 0; a < r->ndim; a++) {
      s[a] = (hsize_t)start[a];
      t[a] = (hsize_t)stride[a];
      c[a] = (hsize_t)count[a];
      n *= (size_t)count[a];
    }
    if (H5Sselect_hyperslab(fspace, H5S_SELECT_SET, s, t, c, NULL) < 0) st = TSR_ERR_IO;
    mspace = H5Screate_simple(r->ndim, c, NULL);
  } else if (st == TSR_OK) {
    H5Sselect_none(fspace);
    mspace = H5Screate_simple(1, &one, NULL);
    H5Sselect_none(mspace);
    out = &dummy;
    n = 0;
  }
  if (st == TSR_OK && (mspace < 0 || H5Dread(r->dset, r->mtype, mspace, fspace, r->dxpl, out) < 0))
    st = TSR_ERR_IO;
  if (st == TSR_OK && r->is_bool) tsr_h5_widen_bool(out, n);
  if (mspace >= 0) H5Sclose(mspace);
  if (fspace >= 0) H5Sclose(fspace);
  if (st != TSR_OK)
    return TSR_ERROR(TSR_ERR_IO, "cannot read dataset '%s' of '%s'", r->name, r->path);
  double b = (double)n * (double)r->type_size;
#pragma omp atomic
  r->bytes += b;
  return TSR_OK;
}

int tsr_h5_plan_direct(tsr_h5_reader *r, const int64_t *start, const int64_t *stride,
                       const int64_t *count, tsr_h5_span *span) {
  return tsr_h5_direct_plan(&r->direct, r->dset, start, stride, count, span);
}

int tsr_h5_read_span(tsr_h5_reader *r, const tsr_h5_span *span, double *out) {
  int eof = 0, err = tsr_h5_direct_read(&r->direct, span, out, &eof);
  if (err) {
    char why[128] = "the file ends before the data (changed while read?)";
    if (!eof && strerror_r(err, why, sizeof why) != 0) snprintf(why, sizeof why, "error %d", err);
    return TSR_ERROR(TSR_ERR_IO, "cannot read dataset '%s' of '%s': %s", r->name, r->path, why);
  }
  double b = (double)span->bytes;
#pragma omp atomic
  r->bytes += b;
  return TSR_OK;
}

double tsr_h5_reader_bytes(const tsr_h5_reader *r) { return r->bytes; }

int tsr_h5_reader_close(tsr_h5_reader *r) {
  if (!r) return TSR_OK;
  int bad = 0;
  tsr_h5_direct_close(&r->direct);
  if (r->dxpl >= 0) H5Pclose(r->dxpl);
  if (r->mtype >= 0) H5Tclose(r->mtype);
  if (r->dset >= 0) bad |= H5Dclose(r->dset) < 0;
  if (r->file >= 0) bad |= H5Fclose(r->file) < 0;
  int st = bad ? TSR_ERROR(TSR_ERR_IO, "cannot close '%s'", r->path ? r->path : "?") : TSR_OK;
  free(r->path);
  free(r->name);
  free(r);
  return st;
}
