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
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kernel/dtype.h"
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

/* ---- element types ---- */

/* h5py's bool: an enum of int8 with FALSE = 0 and TRUE = 1. */
static hid_t bool_type(hid_t base) {
  hid_t t = H5Tenum_create(base);
  signed char f = 0, v = 1;
  if (t >= 0 && (H5Tenum_insert(t, "FALSE", &f) < 0 || H5Tenum_insert(t, "TRUE", &v) < 0)) {
    H5Tclose(t);
    t = -1;
  }
  return t;
}

hid_t tsr_h5_type_of(int dt, int native) {
  switch ((tsr_dtype)dt) {
  case TSR_F64:
    return H5Tcopy(native ? H5T_NATIVE_DOUBLE : H5T_IEEE_F64LE);
  case TSR_F32:
    return H5Tcopy(native ? H5T_NATIVE_FLOAT : H5T_IEEE_F32LE);
  case TSR_BOOL:
    return bool_type(native ? H5T_NATIVE_SCHAR : H5T_STD_I8LE);
  case TSR_I8:
    return H5Tcopy(native ? H5T_NATIVE_INT8 : H5T_STD_I8LE);
  case TSR_I16:
    return H5Tcopy(native ? H5T_NATIVE_INT16 : H5T_STD_I16LE);
  case TSR_I32:
    return H5Tcopy(native ? H5T_NATIVE_INT32 : H5T_STD_I32LE);
  case TSR_I64:
    return H5Tcopy(native ? H5T_NATIVE_INT64 : H5T_STD_I64LE);
  case TSR_U8:
    return H5Tcopy(native ? H5T_NATIVE_UINT8 : H5T_STD_U8LE);
  case TSR_U16:
    return H5Tcopy(native ? H5T_NATIVE_UINT16 : H5T_STD_U16LE);
  case TSR_U32:
    return H5Tcopy(native ? H5T_NATIVE_UINT32 : H5T_STD_U32LE);
  case TSR_U64:
    return H5Tcopy(native ? H5T_NATIVE_UINT64 : H5T_STD_U64LE);
  case TSR_NDTYPES:
    break;
  }
  return -1;
}

int tsr_h5_dtype_of(hid_t type, int *dt) {
  H5T_class_t cls = H5Tget_class(type);
  size_t size = H5Tget_size(type);
  if (cls == H5T_FLOAT) {
    *dt = size == 4 ? TSR_F32 : TSR_F64; /* float16 and wider floats read as float64 */
    return 1;
  }
  if (cls == H5T_INTEGER) {
    int u = H5Tget_sign(type) == H5T_SGN_NONE;
    *dt = size == 1   ? (u ? TSR_U8 : TSR_I8)
          : size == 2 ? (u ? TSR_U16 : TSR_I16)
          : size == 4 ? (u ? TSR_U32 : TSR_I32)
                      : (u ? TSR_U64 : TSR_I64);
    return size == 1 || size == 2 || size == 4 || size == 8;
  }
  if (cls == H5T_ENUM && size == 1 && H5Tget_nmembers(type) == 2) { /* h5py's bool */
    signed char v0 = -1, v1 = -1;
    char *n0 = H5Tget_member_name(type, 0), *n1 = H5Tget_member_name(type, 1);
    int ok = n0 && n1 && H5Tget_member_value(type, 0, &v0) >= 0 &&
             H5Tget_member_value(type, 1, &v1) >= 0 && !strcmp(n0, "FALSE") &&
             !strcmp(n1, "TRUE") && v0 == 0 && v1 == 1;
    H5free_memory(n0);
    H5free_memory(n1);
    *dt = TSR_BOOL;
    return ok;
  }
  return 0;
}

void *tsr_h5_pack(const double *data, size_t n, int dt) {
  size_t size = (size_t)tsr_dtype_size(dt);
  unsigned char *buf = malloc(size * (n + 1));
  if (!buf) return NULL;
  for (size_t i = 0; i < n; i++) {
    double v = data[i];
    switch ((tsr_dtype)dt) {
    case TSR_F64:
      memcpy(buf + 8 * i, &v, 8);
      break;
    case TSR_F32:
      ((float *)buf)[i] = (float)v;
      break;
    case TSR_BOOL:
      ((signed char *)buf)[i] = v != 0;
      break;
    case TSR_I8:
      ((int8_t *)buf)[i] = (int8_t)v;
      break;
    case TSR_I16:
      ((int16_t *)buf)[i] = (int16_t)v;
      break;
    case TSR_I32:
      ((int32_t *)buf)[i] = (int32_t)v;
      break;
    case TSR_I64:
      ((int64_t *)buf)[i] = v >= 9223372036854775807.0 ? INT64_MAX : (int64_t)v;
      break;
    case TSR_U8:
      ((uint8_t *)buf)[i] = (uint8_t)v;
      break;
    case TSR_U16:
      ((uint16_t *)buf)[i] = (uint16_t)v;
      break;
    case TSR_U32:
      ((uint32_t *)buf)[i] = (uint32_t)v;
      break;
    case TSR_U64:
      ((uint64_t *)buf)[i] = v >= 18446744073709551615.0 ? UINT64_MAX : (uint64_t)v;
      break;
    case TSR_NDTYPES:
      break;
    }
  }
  return buf;
}

void tsr_h5_widen_bool(double *out, size_t n) {
  const signed char *b = (const signed char *)out;
  for (size_t i = n; i-- > 0;) out[i] = b[i] != 0 ? 1.0 : 0.0; /* from the end: in place */
}
