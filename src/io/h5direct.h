/*
 * h5direct.h - the reader's direct path (h5read.c): where the bytes of a
 * region lie in the file when HDF5 would hand them back unchanged, so that
 * they can be read with pread(2), off HDF5 and from several threads at once.
 *
 * A dataset qualifies when its type is this machine's double (no
 * conversion), it has no filters and no external storage, its layout is
 * contiguous or chunked, and the file is an ordinary file (HDF5's default
 * driver, no userblock: addresses are file offsets) that a descriptor of our
 * own opens too (the same device and inode as HDF5's). A region of such a
 * dataset (stride 1 wherever it takes more than one element) is direct when
 * it is one run in row-major order of the contiguous data, or of one
 * allocated chunk as stored (unfiltered chunks are stored whole, edge chunks
 * padded: the run of an edge chunk's rows that lie in the dataset is as good
 * as any). Everything else (a region across chunks or with gaps, a chunk
 * never written, which HDF5 fills) stays with HDF5.
 */
#ifndef TSR_H5DIRECT_H
#define TSR_H5DIRECT_H

#include <hdf5.h>
#include <stdint.h>

#include "io/h5array.h"

typedef struct tsr_h5_direct {
  int kind; /* H5D_CONTIGUOUS or H5D_CHUNKED when the dataset qualifies, else -1 */
  int ndim;
  int64_t dims[TSR_MAXDIM], chunk[TSR_MAXDIM];
  int64_t base; /* contiguous: the data's offset in the file */
  int fd;       /* our own descriptor of the file, or -1 */
} tsr_h5_direct;

/* Finds whether dataset dset of file (opened from path, independently) can
 * be read directly, and opens the descriptor if so. Never fails: anything
 * unusual (or an HDF5 call that fails) leaves every read to HDF5. */
void tsr_h5_direct_setup(tsr_h5_direct *d, hid_t file, hid_t dset, const char *path);

/* Whether the region start/stride/count (count >= 1) is direct; if so, span
 * says where its bytes are. HDF5 calls: serialized like any other. */
int tsr_h5_direct_plan(const tsr_h5_direct *d, hid_t dset, const int64_t *start,
                       const int64_t *stride, const int64_t *count, tsr_h5_span *span);

/* Reads span into out with pread (thread-safe). Returns 0, else an errno
 * value (0 bytes before the end: EIO with *eof set). */
int tsr_h5_direct_read(const tsr_h5_direct *d, const tsr_h5_span *span, void *out, int *eof);

/* Closes the descriptor. */
void tsr_h5_direct_close(tsr_h5_direct *d);

#endif
