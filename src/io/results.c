/*
 * results.c - writes the HDF5 results file (see results.h).
 *
 * Only rank 0 calls this, so there is no MPI here. The file is built in
 * memory (HDF5's core driver), written with write(2) under "<path>.tmp-<pid>"
 * (same directory, so rename(2) is atomic; a full disk or a file-size limit
 * is named by its errno) and renamed onto path only after it has been synced;
 * every failure removes the temporary, which leaves any older file under path
 * untouched.
 */
#define _POSIX_C_SOURCE 200809L

#include "io/results.h"

#include "io/h5check.h"
#include "io/h5common.h"
#include "kernel/ids.h"
#include "util/error.h"
#include "util/strmap.h"

#include <errno.h>
#include <fcntl.h>
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A negative HDF5 status as TSR_ERR_IO naming the step, the object, the
 * file and a cause HDF5 hides (H5_CHECK, tsr_h5_cause: io/h5check.h; errno
 * is cleared before the file is written). */
#define RESULTS_CHECK(expr, what, name, path)                                                   \
  H5_CHECK((expr), TSR_ERR_IO, "cannot %s '%s' in results file '%s'%s", (what), (name), (path), \
           tsr_h5_cause(errno))

size_t tsr_result_item_count(const tsr_result_item *it) {
  size_t n = 1;
  for (int d = 0; d < it->ndim; d++) n *= (size_t)it->shape[d];
  return n;
}

/* Catches caller bugs (the CLI builds items) before anything touches disk. */
static int check_item(const char *path, const tsr_result_item *it, int i) {
  if (!it->name || !it->name[0] || it->ndim < 0 || it->ndim > H5S_MAX_RANK ||
      (it->ndim > 0 && !it->shape))
    return TSR_ERROR(TSR_ERR_INTERNAL, "malformed result item %d for '%s'", i, path);
  for (int d = 0; d < it->ndim; d++)
    if (it->shape[d] < 0)
      return TSR_ERROR(TSR_ERR_INTERNAL, "negative extent in result '%s'", it->name);
  if (!it->data && !it->strings && !it->ints && tsr_result_item_count(it) > 0)
    return TSR_ERROR(TSR_ERR_INTERNAL, "result '%s' has no data", it->name);
  return TSR_OK;
}

static int check_item_names(const char *path, const tsr_result_item *items, int nitems,
                            tsr_strmap *seen) {
  for (int i = 0; i < nitems; i++) {
    TSR_CHECK(check_item(path, &items[i], i));
    size_t len = strlen(items[i].name);
    if (tsr_strmap_get(seen, items[i].name, len) >= 0)
      return TSR_ERROR(TSR_ERR_VALUE, "duplicate result name '%s' for results file '%s'",
                       items[i].name, path);
    TSR_CHECK(tsr_strmap_put(seen, items[i].name, len, i));
  }
  return TSR_OK;
}

/* Duplicates are checked up front so that they never cost a partial file;
 * the names seen so far are a map, so that n results cost O(n). */
static int check_items(const char *path, const tsr_result_item *items, int nitems) {
  tsr_strmap seen = {0};
  int st = check_item_names(path, items, nitems, &seen);
  tsr_strmap_free(&seen);
  return st;
}

static int check_attrs(const char *path, const tsr_attr *attrs, int nattrs) {
  for (int i = 0; i < nattrs; i++)
    if (!attrs[i].key || !attrs[i].key[0])
      return TSR_ERROR(TSR_ERR_INTERNAL, "malformed attribute %d for '%s'", i, path);
  return TSR_OK;
}

/* A scalar dataspace for ndim 0, so readers see a true scalar, not [1]. */
static hid_t make_space(const tsr_result_item *it) {
  hsize_t dims[H5S_MAX_RANK];
  if (it->ndim == 0) return H5Screate(H5S_SCALAR);
  for (int d = 0; d < it->ndim; d++) dims[d] = (hsize_t)it->shape[d];
  return H5Screate_simple(it->ndim, dims, NULL);
}

/* Converts to the item's type ourselves so rounding is plain C semantics,
 * independent of the HDF5 version's overflow handling. */
static int write_typed(hid_t dset, const tsr_result_item *it, const char *path) {
  size_t n = tsr_result_item_count(it);
  void *buf = tsr_h5_pack(it->data, n, it->dtype);
  if (!buf) return TSR_ERROR(TSR_ERR_MEMORY, "out of memory writing '%s'", it->name);
  hid_t mt = tsr_h5_type_of(it->dtype, 1);
  herr_t st = mt < 0 ? -1 : H5Dwrite(dset, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf);
  if (mt >= 0) H5Tclose(mt);
  free(buf);
  RESULTS_CHECK(st, "write dataset", it->name, path);
  return TSR_OK;
}

static hid_t make_string_type(void);

static int write_data(hid_t dset, const tsr_result_item *it, const char *path) {
  if (tsr_result_item_count(it) == 0) return TSR_OK; /* HDF5 rejects a NULL buffer */
  if (it->dtype != TSR_F64 && !it->ints && !it->strings) return write_typed(dset, it, path);
  if (it->ints) {
    RESULTS_CHECK(H5Dwrite(dset, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, it->ints),
                  "write dataset", it->name, path);
    return TSR_OK;
  }
  if (it->strings) {
    hid_t type = make_string_type();
    RESULTS_CHECK(type, "make the string type of", it->name, path);
    herr_t st = H5Dwrite(dset, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, it->strings);
    H5Tclose(type);
    RESULTS_CHECK(st, "write dataset", it->name, path);
    return TSR_OK;
  }
  RESULTS_CHECK(H5Dwrite(dset, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, it->data),
                "write dataset", it->name, path);
  return TSR_OK;
}

/* Variable-length UTF-8 so any text fits without choosing a size. */
static hid_t make_string_type(void) {
  hid_t type = H5Tcopy(H5T_C_S1);
  if (type < 0) return type;
  if (H5Tset_size(type, H5T_VARIABLE) < 0 || H5Tset_cset(type, H5T_CSET_UTF8) < 0) {
    H5Tclose(type);
    return -1;
  }
  return type;
}

static herr_t write_attr_value(hid_t file, const tsr_attr *a, hid_t space) {
  hid_t ftype = a->text ? make_string_type() : H5Tcopy(H5T_IEEE_F64LE);
  if (ftype < 0) return -1;
  hid_t attr = H5Acreate2(file, a->key, ftype, space, H5P_DEFAULT, H5P_DEFAULT);
  herr_t st = -1;
  if (attr >= 0) {
    st = a->text ? H5Awrite(attr, ftype, &a->text) : H5Awrite(attr, H5T_NATIVE_DOUBLE, &a->number);
    if (H5Aclose(attr) < 0) st = -1;
  }
  H5Tclose(ftype);
  return st;
}

static int write_attr(hid_t loc, const tsr_attr *a, const char *path) {
  hid_t space = H5Screate(H5S_SCALAR);
  RESULTS_CHECK(space, "create dataspace for attribute", a->key, path);
  herr_t st = write_attr_value(loc, a, space);
  H5Sclose(space);
  RESULTS_CHECK(st, "write attribute", a->key, path);
  return TSR_OK;
}

static int write_item(hid_t file, const tsr_result_item *it, const char *path) {
  hid_t space = make_space(it);
  RESULTS_CHECK(space, "create dataspace for", it->name, path);
  hid_t type = it->strings ? make_string_type()
               : it->ints  ? H5Tcopy(H5T_STD_I64LE)
                           : tsr_h5_type_of(it->dtype, 0);
  hid_t lcpl = H5Pcreate(H5P_LINK_CREATE);
  if (lcpl >= 0 && H5Pset_create_intermediate_group(lcpl, 1) < 0) {
    H5Pclose(lcpl);
    lcpl = -1;
  }
  hid_t dset = type < 0 || lcpl < 0
                   ? -1
                   : H5Dcreate2(file, it->name, type, space, lcpl, H5P_DEFAULT, H5P_DEFAULT);
  if (lcpl >= 0) H5Pclose(lcpl);
  if (type >= 0) H5Tclose(type);
  H5Sclose(space);
  RESULTS_CHECK(dset, "create dataset", it->name, path);
  int st = write_data(dset, it, path);
  for (int i = 0; i < it->nattrs && st == TSR_OK; i++) st = write_attr(dset, &it->attrs[i], path);
  herr_t closed = H5Dclose(dset);
  if (st != TSR_OK) return st;
  RESULTS_CHECK(closed, "close dataset", it->name, path);
  return TSR_OK;
}

static int write_contents(hid_t file, const char *path, const tsr_result_item *items, int nitems,
                          const tsr_attr *attrs, int nattrs) {
  for (int i = 0; i < nitems; i++) TSR_CHECK(write_item(file, &items[i], path));
  for (int i = 0; i < nattrs; i++) TSR_CHECK(write_attr(file, &attrs[i], path));
  return TSR_OK;
}

static int io_error(const char *path, int err) {
  return TSR_ERROR(TSR_ERR_IO, "cannot create results file '%s': %s", path, strerror(err));
}

/* Claims the temporary name with O_EXCL first: it gives an exact errno for
 * the common failures (missing directory, no permission), which HDF5 hides. */
static int reserve_tmp(const char *path, const char *tmp) {
  int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL, 0666);
  if (fd < 0) return io_error(path, errno);
  close(fd);
  return TSR_OK;
}

/* HDF5's core driver without a backing store: the file lives in memory. */
static hid_t memory_access(void) {
  hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
  if (fapl >= 0 && H5Pset_fapl_core(fapl, (size_t)1 << 20, 0) < 0) {
    H5Pclose(fapl);
    return -1;
  }
  return fapl;
}

/* The bytes of the finished file (malloc'ed). */
static int take_image(hid_t file, const char *path, void **image, size_t *size) {
  ssize_t n = H5Fflush(file, H5F_SCOPE_GLOBAL) < 0 ? -1 : H5Fget_file_image(file, NULL, 0);
  if (n < 0) return TSR_ERROR(TSR_ERR_IO, "cannot finish results file '%s'", path);
  TSR_MALLOC(*image, (size_t)n);
  if (H5Fget_file_image(file, *image, (size_t)n) != n) {
    free(*image);
    *image = NULL;
    return TSR_ERROR(TSR_ERR_IO, "cannot finish results file '%s'", path);
  }
  *size = (size_t)n;
  return TSR_OK;
}

/* Builds the complete HDF5 file in memory, so that HDF5 never writes to
 * disk: a full disk or a file-size limit then fails in write_image with
 * its own errno, which HDF5 would hide. */
static int build_image(const char *path, const char *tmp, const tsr_result_item *items, int nitems,
                       const tsr_attr *attrs, int nattrs, void **image, size_t *size) {
  hid_t fapl = memory_access();
  hid_t file = fapl < 0 ? -1 : H5Fcreate(tmp, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
  if (fapl >= 0) H5Pclose(fapl);
  if (file < 0) return TSR_ERROR(TSR_ERR_IO, "cannot create results file '%s'", path);
  int st = write_contents(file, path, items, nitems, attrs, nattrs);
  if (st == TSR_OK) st = take_image(file, path, image, size);
  herr_t closed = H5Fclose(file);
  if (st == TSR_OK && closed < 0) {
    free(*image);
    *image = NULL;
    st = TSR_ERROR(TSR_ERR_IO, "cannot finish results file '%s'", path);
  }
  return st;
}

static int write_error(const char *path, int err) {
  return TSR_ERROR(TSR_ERR_IO, "cannot write results file '%s': %s", path, strerror(err));
}

/* Writes image into tmp (which reserve_tmp created) and syncs it: without
 * fsync a crash just after the rename could leave an empty file under the
 * final name on some file systems. */
static int write_image(const char *path, const char *tmp, const char *image, size_t size) {
  int fd = open(tmp, O_WRONLY | O_TRUNC);
  if (fd < 0) return write_error(path, errno);
  size_t done = 0;
  int err = 0;
  while (done < size && !err) {
    ssize_t n = write(fd, image + done, size - done);
    if (n > 0)
      done += (size_t)n;
    else if (n == 0)
      err = EIO;
    else if (errno != EINTR)
      err = errno;
  }
  if (!err && fsync(fd) < 0) err = errno;
  if (close(fd) < 0 && !err) err = errno;
  return err ? write_error(path, err) : TSR_OK;
}

int tsr_results_rename(const char *tmp, const char *path) {
  struct stat sb;
  if (lstat(path, &sb) == 0 && !S_ISREG(sb.st_mode) && !S_ISLNK(sb.st_mode))
    return TSR_ERROR(TSR_ERR_IO, "cannot replace '%s': it is not a regular file", path);
  if (rename(tmp, path) < 0)
    return TSR_ERROR(TSR_ERR_IO, "cannot rename the temporary file onto '%s': %s", path,
                     strerror(errno));
  return TSR_OK;
}

static int write_and_rename(const char *path, const char *tmp, const tsr_result_item *items,
                            int nitems, const tsr_attr *attrs, int nattrs) {
  void *image = NULL;
  size_t size = 0;
  TSR_CHECK(build_image(path, tmp, items, nitems, attrs, nattrs, &image, &size));
  int st = write_image(path, tmp, image, size);
  free(image);
  return st == TSR_OK ? tsr_results_rename(tmp, path) : st;
}

int tsr_results_probe(const char *path) {
  size_t len = strlen(path) + 32;
  char *tmp;
  TSR_MALLOC(tmp, len);
  snprintf(tmp, len, "%s.tmp-%ld", path, (long)getpid());
  int st = reserve_tmp(path, tmp);
  if (st == TSR_OK) unlink(tmp);
  free(tmp);
  return st;
}

int tsr_results_write(const char *path, const tsr_result_item *items, int nitems,
                      const tsr_attr *attrs, int nattrs) {
  if (!path || !path[0] || nitems < 0 || nattrs < 0)
    return TSR_ERROR(TSR_ERR_INTERNAL, "bad arguments to tsr_results_write");
  TSR_CHECK(check_items(path, items, nitems));
  TSR_CHECK(check_attrs(path, attrs, nattrs));
  size_t len = strlen(path) + 32;
  char *tmp;
  TSR_MALLOC(tmp, len);
  snprintf(tmp, len, "%s.tmp-%ld", path, (long)getpid());
  int st = reserve_tmp(path, tmp);
  if (st == TSR_OK) {
    H5E_auto2_t old_func;
    void *old_data;
    H5Eget_auto2(H5E_DEFAULT, &old_func, &old_data);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    st = write_and_rename(path, tmp, items, nitems, attrs, nattrs);
    H5Eset_auto2(H5E_DEFAULT, old_func, old_data);
    if (st != TSR_OK) unlink(tmp);
  }
  free(tmp);
  return st;
}
