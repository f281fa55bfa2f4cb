/*
 * h5direct.c - the reader's direct path (h5direct.h): which datasets and
 * regions HDF5 would return byte for byte as they lie in the file, and the
 * pread(2) that reads them.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#define _POSIX_C_SOURCE 200809L

#include "io/h5direct.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define DIRECT_NONE (-1)

/* The dataset's layout when its values are stored as plain doubles of this
 * machine (no conversion, no filter, in this file), else DIRECT_NONE. */
static int plain_doubles(hid_t dset, tsr_h5_direct *d) {
  hid_t type = H5Dget_type(dset), dcpl = H5Dget_create_plist(dset), space = H5Dget_space(dset);
  int kind = DIRECT_NONE, ndim = space >= 0 ? H5Sget_simple_extent_ndims(space) : -1;
  hsize_t dims[H5S_MAX_RANK], chunk[H5S_MAX_RANK];
  if (type >= 0 && dcpl >= 0 && ndim >= 1 && ndim <= TSR_MAXDIM &&
      H5Sget_simple_extent_dims(space, dims, NULL) == ndim &&
      H5Tequal(type, H5T_NATIVE_DOUBLE) > 0 && H5Pget_nfilters(dcpl) == 0 &&
      H5Pget_external_count(dcpl) == 0) {
    H5D_layout_t layout = H5Pget_layout(dcpl);
    if (layout == H5D_CONTIGUOUS) kind = H5D_CONTIGUOUS;
    if (layout == H5D_CHUNKED && H5Pget_chunk(dcpl, ndim, chunk) == ndim) kind = H5D_CHUNKED;
  }
  for (int a = 0; kind != DIRECT_NONE && a < ndim; a++) {
    d->dims[a] = (int64_t)dims[a];
    d->chunk[a] = kind == H5D_CHUNKED ? (int64_t)chunk[a] : (int64_t)dims[a];
  }
  d->ndim = ndim;
  if (space >= 0) H5Sclose(space);
  if (dcpl >= 0) H5Pclose(dcpl);
  if (type >= 0) H5Tclose(type);
  return kind;
}

/* HDF5's own descriptor of file when it reads it through the default
 * (sec2) driver and addresses are file offsets (no userblock), else -1. */
static int hdf5_descriptor(hid_t file) {
  hid_t fcpl = H5Fget_create_plist(file), fapl = H5Fget_access_plist(file);
  hsize_t userblock = 1;
  void *handle = NULL;
  int fd = -1;
  if (fcpl >= 0 && fapl >= 0 && H5Pget_userblock(fcpl, &userblock) >= 0 && userblock == 0 &&
      H5Pget_driver(fapl) == H5FD_SEC2 && H5Fget_vfd_handle(file, fapl, &handle) >= 0 && handle)
    fd = *(int *)handle;
  if (fapl >= 0) H5Pclose(fapl);
  if (fcpl >= 0) H5Pclose(fcpl);
  return fd;
}

/* Our own descriptor of path, when it is the file HDF5 has open (hfd). */
static int own_descriptor(const char *path, int hfd) {
  struct stat ours, theirs;
  int fd = hfd >= 0 ? open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK) : -1;
  if (fd >= 0 && (fstat(fd, &ours) != 0 || fstat(hfd, &theirs) != 0 ||
                  ours.st_dev != theirs.st_dev || ours.st_ino != theirs.st_ino)) {
    close(fd);
    fd = -1;
  }
  return fd;
}

void tsr_h5_direct_setup(tsr_h5_direct *d, hid_t file, hid_t dset, const char *path) {
  memset(d, 0, sizeof *d);
  d->fd = -1;
  d->kind = plain_doubles(dset, d);
  if (d->kind == H5D_CONTIGUOUS) {
    haddr_t base = H5Dget_offset(dset); /* undefined until the data is allocated */
    d->base = (int64_t)base;
    if (base == HADDR_UNDEF) d->kind = DIRECT_NONE;
  }
  if (d->kind != DIRECT_NONE) d->fd = own_descriptor(path, hdf5_descriptor(file));
  if (d->fd < 0) d->kind = DIRECT_NONE;
}

/* The row-major index, in an array of extents ext, of the first element of
 * the box lo/count when the box is one run in row-major order (from the
 * last axis: whole axes, then at most one partial axis, then axes of one
 * element), else -1. */
static int64_t run_start(int nd, const int64_t *ext, const int64_t *lo, const int64_t *count) {
  int a = nd - 1;
  while (a > 0 && count[a] == ext[a]) a--;
  for (int b = a - 1; b >= 0; b--)
    if (count[b] != 1) return -1;
  int64_t at = 0;
  for (int b = 0; b < nd; b++) at = at * ext[b] + lo[b];
  return at;
}

/* Where the stored bytes of the chunk at origin are (allocated, unfiltered),
 * and how many; 0 when HDF5 would make them up (fill values) or say nothing. */
static int chunk_bytes(hid_t dset, int nd, const int64_t *origin, int64_t *addr, int64_t *size) {
#if H5_VERSION_GE(1, 10, 5)
  hsize_t at[H5S_MAX_RANK], bytes = 0;
  haddr_t where = HADDR_UNDEF;
  unsigned mask = 1;
  for (int a = 0; a < nd; a++) at[a] = (hsize_t)origin[a];
  if (H5Dget_chunk_info_by_coord(dset, at, &mask, &where, &bytes) < 0 || where == HADDR_UNDEF ||
      mask != 0)
    return 0;
  *addr = (int64_t)where;
  *size = (int64_t)bytes;
  return 1;
#else
  (void)dset, (void)nd, (void)origin, (void)addr, (void)size;
  return 0;
#endif
}

/* The region's first element within its chunk (one run of the stored
 * chunk), its file offset in *addr; 0 when it spans chunks or has gaps. */
static int chunk_run(const tsr_h5_direct *d, hid_t dset, const int64_t *start, const int64_t *count,
                     int64_t n, int64_t *addr) {
  int64_t origin[TSR_MAXDIM], rel[TSR_MAXDIM], size = 0;
  for (int a = 0; a < d->ndim; a++) {
    origin[a] = start[a] - start[a] % d->chunk[a];
    rel[a] = start[a] - origin[a];
    if (rel[a] + count[a] > d->chunk[a]) return 0;
  }
  int64_t at = run_start(d->ndim, d->chunk, rel, count);
  if (at < 0 || !chunk_bytes(dset, d->ndim, origin, addr, &size)) return 0;
  if ((at + n) * 8 > size) return 0; /* not the whole chunk as stored: leave it to HDF5 */
  *addr += at * 8;
  return 1;
}

int tsr_h5_direct_plan(const tsr_h5_direct *d, hid_t dset, const int64_t *start,
                       const int64_t *stride, const int64_t *count, tsr_h5_span *span) {
  if (d->kind == DIRECT_NONE) return 0;
  int64_t n = 1, addr = 0;
  for (int a = 0; a < d->ndim; a++) {
    if (count[a] < 1 || start[a] < 0 || start[a] + count[a] > d->dims[a]) return 0;
    if (count[a] > 1 && stride[a] != 1) return 0;
    n *= count[a];
  }
  if (d->kind == H5D_CONTIGUOUS) {
    int64_t at = run_start(d->ndim, d->dims, start, count);
    if (at < 0) return 0;
    addr = d->base + at * 8;
  } else if (!chunk_run(d, dset, start, count, n, &addr)) {
    return 0;
  }
  span->offset = addr;
  span->bytes = n * 8;
  return 1;
}

int tsr_h5_direct_read(const tsr_h5_direct *d, const tsr_h5_span *span, void *out, int *eof) {
  char *p = out;
  int64_t done = 0;
  *eof = 0;
  while (done < span->bytes) {
    ssize_t got =
        pread(d->fd, p + done, (size_t)(span->bytes - done), (off_t)(span->offset + done));
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return errno;
    if (got == 0) {
      *eof = 1;
      return EIO;
    }
    done += got;
  }
  return 0;
}

void tsr_h5_direct_close(tsr_h5_direct *d) {
  if (d->fd >= 0) close(d->fd);
  d->fd = -1;
  d->kind = DIRECT_NONE;
}
