/*
 * h5common.c - property lists, names and the file check shared by the HDF5
 * files of io/ (h5common.h).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#define _POSIX_C_SOURCE 200809L

#include "io/h5common.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/error.h"

/* Type conversions (file type to doubles) go through a buffer of this size. */
#define CONVERT_BYTES ((size_t)8 << 20)

#ifdef TSR_HAVE_PARALLEL_HDF5
#include "mpi/session.h"
static int mpi_running(void) {
  int inited = 0, finalized = 0;
  MPI_Initialized(&inited);
  MPI_Finalized(&finalized);
  return inited && !finalized;
}
#endif

/* File access: MPI-IO for collective access in a parallel build. */
hid_t tsr_h5_file_access(int collective) {
  hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
  if (fapl < 0) return fapl;
#ifdef TSR_HAVE_PARALLEL_HDF5
  if (collective && mpi_running() &&
      H5Pset_fapl_mpio(fapl, tsr_comm_session(), MPI_INFO_NULL) < 0) {
    H5Pclose(fapl);
    return -1;
  }
#else
  (void)collective;
#endif
  return fapl;
}

hid_t tsr_h5_transfer(int collective) {
  hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
  if (dxpl < 0) return dxpl;
  H5Pset_buffer(dxpl, CONVERT_BYTES, NULL, NULL);
#ifdef TSR_HAVE_PARALLEL_HDF5
  if (collective && mpi_running() && H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE) < 0) {
    H5Pclose(dxpl);
    return -1;
  }
#else
  (void)collective;
#endif
  return dxpl;
}

int tsr_h5_is_collective(int collective) {
#ifdef TSR_HAVE_PARALLEL_HDF5
  return collective && mpi_running();
#else
  (void)collective;
  return 0;
#endif
}

const char *tsr_h5_class_name(H5T_class_t c) {
  switch (c) {
  case H5T_STRING:
    return "a string type";
  case H5T_COMPOUND:
    return "a compound type";
  case H5T_ENUM:
    return "an enum type (booleans are enums)";
  case H5T_ARRAY:
    return "an array type";
  case H5T_BITFIELD:
    return "a bitfield type";
  case H5T_OPAQUE:
    return "an opaque type";
  case H5T_REFERENCE:
    return "a reference type";
  case H5T_VLEN:
    return "a variable-length type";
  case H5T_TIME:
    return "a time type";
  default:
    return "an unknown type";
  }
}

const char *tsr_h5_filter_name(H5Z_filter_t id) {
  switch (id) {
  case H5Z_FILTER_DEFLATE:
    return "gzip";
  case H5Z_FILTER_SHUFFLE:
    return "shuffle";
  case H5Z_FILTER_FLETCHER32:
    return "fletcher32";
  case H5Z_FILTER_SZIP:
    return "szip";
  case H5Z_FILTER_NBIT:
    return "nbit";
  case H5Z_FILTER_SCALEOFFSET:
    return "scaleoffset";
  case 32000:
    return "lzf";
  case 32001:
    return "blosc";
  case 32004:
    return "lz4";
  case 32008:
    return "bitshuffle";
  case 32015:
    return "zstd";
  default:
    return "unknown";
  }
}

int tsr_h5_check_regular(const char *path) {
  struct stat sb;
  if (stat(path, &sb) != 0)
    return TSR_ERROR(TSR_ERR_IO, "cannot open '%s': %s", path, strerror(errno));
  if (S_ISDIR(sb.st_mode))
    return TSR_ERROR(TSR_ERR_IO, "'%s' is a directory, not an HDF5 file", path);
  if (!S_ISREG(sb.st_mode))
    return TSR_ERROR(TSR_ERR_IO, "'%s' is not a regular file (%s)", path,
                     tsr_file_kind(sb.st_mode));
  return TSR_OK;
}

/* The file must exist, be readable and be HDF5: each with its own message. */
int tsr_h5_check_file(const char *path) {
  TSR_CHECK(tsr_h5_check_regular(path));
  if (access(path, R_OK) != 0)
    return TSR_ERROR(TSR_ERR_IO, "cannot read '%s': %s", path, strerror(errno));
#if H5_VERSION_GE(1, 12, 0)
  htri_t is = H5Fis_accessible(path, H5P_DEFAULT);
#else
  htri_t is = H5Fis_hdf5(path);
#endif
  if (is <= 0) return TSR_ERROR(TSR_ERR_IO, "'%s' is not an HDF5 file", path);
  return TSR_OK;
}

void tsr_h5_library_init(void) { H5dont_atexit(); }

/* Process-wide, as HDF5's own table of open files is. */
static int close_failed;
void tsr_h5_note_close_failed(void) { close_failed = 1; }
int tsr_h5_close_failed(void) { return close_failed; }
