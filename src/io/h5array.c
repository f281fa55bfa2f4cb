/*
 * h5array.c - HDF5 datasets as chunked arrays (see h5array.h).
 *
 * Every failure becomes one TSR_ERROR naming the file and the dataset, through
 * H5_TRY; HDF5's automatic error printing is switched off the first time this
 * file touches HDF5, so the message tessera prints is all users see.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#define _POSIX_C_SOURCE 200809L

#include "io/h5array.h"

#include <errno.h>
#include <hdf5.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/error.h"

#define H5_TRY(expr, code, ...)                                                \
  do {                                                                         \
    if ((expr) < 0) return TSR_ERROR((code), __VA_ARGS__);                     \
  } while (0)

/* Datasets are read through a chunk cache of 64 MiB: HDF5 chunks that
 * several reads share are decompressed once while they fit. Larger HDF5
 * chunks bypass the cache and are read straight into tessera's buffer (no
 * extra copy); "auto" chunks make every read cover whole HDF5 chunks. */
#define READ_CACHE_BYTES ((size_t)64 << 20)
#define CONVERT_BYTES ((size_t)8 << 20)

static void quiet(void) {
  static int done;
  if (!done) {
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    done = 1;
  }
}

#ifdef TSR_HAVE_PARALLEL_HDF5
#include <mpi.h>
static int mpi_running(void) {
  int inited = 0, finalized = 0;
  MPI_Initialized(&inited);
  MPI_Finalized(&finalized);
  return inited && !finalized;
}
#endif

/* File access: MPI-IO for collective access in a parallel build. */
static hid_t file_access(int collective) {
  hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
  if (fapl < 0) return fapl;
#ifdef TSR_HAVE_PARALLEL_HDF5
  if (collective && mpi_running() && H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL) < 0) {
    H5Pclose(fapl);
    return -1;
  }
#else
  (void)collective;
#endif
  return fapl;
}

static hid_t transfer(int collective) {
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

static int is_collective(int collective) {
#ifdef TSR_HAVE_PARALLEL_HDF5
  return collective && mpi_running();
#else
  (void)collective;
  return 0;
#endif
}

/* ---- describing a dataset ------------------------------------------------ */

/* The file must exist, be readable and be HDF5: each with its own message. */
static int check_file(const char *path) {
  struct stat sb;
  if (stat(path, &sb) != 0)
    return TSR_ERROR(TSR_ERR_IO, "cannot open '%s': %s", path, strerror(errno));
  if (S_ISDIR(sb.st_mode)) return TSR_ERROR(TSR_ERR_IO, "'%s' is a directory, not an HDF5 file", path);
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

static const char *class_name(H5T_class_t c) {
  switch (c) {
  case H5T_STRING: return "a string type";
  case H5T_COMPOUND: return "a compound type";
  case H5T_ENUM: return "an enum type (booleans are enums)";
  case H5T_ARRAY: return "an array type";
  case H5T_BITFIELD: return "a bitfield type";
  case H5T_OPAQUE: return "an opaque type";
  case H5T_REFERENCE: return "a reference type";
  case H5T_VLEN: return "a variable-length type";
  case H5T_TIME: return "a time type";
  default: return "an unknown type";
  }
}

static int describe_type(hid_t dset, const char *path, const char *name, tsr_h5meta *m) {
  hid_t type = H5Dget_type(dset);
  H5_TRY(type, TSR_ERR_IO, "cannot read the type of dataset '%s' in '%s'", name, path);
  H5T_class_t cls = H5Tget_class(type);
  m->type_size = (int)H5Tget_size(type);
  int st = TSR_OK;
  if (cls == H5T_FLOAT)
    m->type_class = TSR_H5_FLOAT;
  else if (cls == H5T_INTEGER)
    m->type_class = H5Tget_sign(type) == H5T_SGN_NONE ? TSR_H5_UINT : TSR_H5_INT;
  else
    st = TSR_ERROR(TSR_ERR_TYPE,
                   "dataset '%s' in '%s' has %s: load reads floating-point and integer datasets",
                   name, path, class_name(cls));
  H5Tclose(type);
  return st;
}

static int describe_space(hid_t dset, const char *path, const char *name, tsr_h5meta *m) {
  hid_t space = H5Dget_space(dset);
  H5_TRY(space, TSR_ERR_IO, "cannot read the shape of dataset '%s' in '%s'", name, path);
  H5S_class_t sc = H5Sget_simple_extent_type(space);
  int nd = H5Sget_simple_extent_ndims(space);
  hsize_t dims[H5S_MAX_RANK];
  if (nd > 0 && nd <= H5S_MAX_RANK) H5Sget_simple_extent_dims(space, dims, NULL);
  H5Sclose(space);
  if (sc != H5S_SIMPLE || nd < 1 || nd > TSR_MAXDIM)
    return TSR_ERROR(TSR_ERR_VALUE,
                     "dataset '%s' in '%s' has %d dimensions%s: load reads datasets of 1 to %d",
                     name, path, sc == H5S_SIMPLE ? nd : 0,
                     sc == H5S_SCALAR ? " (a scalar)" : sc == H5S_NULL ? " (no data)" : "",
                     TSR_MAXDIM);
  m->ndim = nd;
  for (int a = 0; a < nd; a++) m->shape[a] = (int64_t)dims[a];
  return TSR_OK;
}

static const char *filter_name(H5Z_filter_t id) {
  switch (id) {
  case H5Z_FILTER_DEFLATE: return "gzip";
  case H5Z_FILTER_SHUFFLE: return "shuffle";
  case H5Z_FILTER_FLETCHER32: return "fletcher32";
  case H5Z_FILTER_SZIP: return "szip";
  case H5Z_FILTER_NBIT: return "nbit";
  case H5Z_FILTER_SCALEOFFSET: return "scaleoffset";
  case 32000: return "lzf";
  case 32001: return "blosc";
  case 32004: return "lz4";
  case 32008: return "bitshuffle";
  case 32015: return "zstd";
  default: return "unknown";
  }
}

static int describe_layout(hid_t dset, const char *path, const char *name, tsr_h5meta *m) {
  hid_t dcpl = H5Dget_create_plist(dset);
  H5_TRY(dcpl, TSR_ERR_IO, "cannot read the layout of dataset '%s' in '%s'", name, path);
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
    H5Z_filter_t id = H5Pget_filter2(dcpl, (unsigned)i, &flags, &ncd, cd, sizeof fname, fname, NULL);
    if (id < 0 || H5Zfilter_avail(id) <= 0)
      st = TSR_ERROR(TSR_ERR_IO,
                     "dataset '%s' in '%s' uses filter %d (%s), which this HDF5 cannot decode",
                     name, path, (int)id, filter_name(id));
  }
  H5Pclose(dcpl);
  return st;
}

static int describe_in(hid_t file, const char *path, const char *name, tsr_h5meta *m) {
  TSR_CHECK(find_object(file, path, name));
  hid_t obj = H5Oopen(file, name, H5P_DEFAULT);
  H5_TRY(obj, TSR_ERR_IO, "cannot open '%s' in '%s'", name, path);
  int is_dset = H5Iget_type(obj) == H5I_DATASET, st = TSR_OK;
  if (!is_dset) st = TSR_ERROR(TSR_ERR_TYPE, "'%s' in '%s' is a group, not a dataset", name, path);
  if (st == TSR_OK) st = describe_type(obj, path, name, m);
  if (st == TSR_OK) st = describe_space(obj, path, name, m);
  if (st == TSR_OK) st = describe_layout(obj, path, name, m);
  H5Oclose(obj);
  return st;
}

int tsr_h5_describe(const char *path, const char *dataset, tsr_h5meta *meta) {
  quiet();
  memset(meta, 0, sizeof *meta);
  TSR_CHECK(check_file(path));
  hid_t file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  H5_TRY(file, TSR_ERR_IO, "cannot open HDF5 file '%s'", path);
  int st = describe_in(file, path, dataset, meta);
  H5Fclose(file);
  return st;
}

/* ---- reading ------------------------------------------------------------- */

struct tsr_h5_reader {
  hid_t file, dset, dxpl;
  int ndim, collective;
  size_t type_size;
  double bytes;
  char *path, *name;
};

int tsr_h5_reader_open(const char *path, const char *dataset, int collective,
                       tsr_h5_reader **out) {
  quiet();
  tsr_h5_reader *r;
  TSR_CALLOC(r, 1, sizeof *r);
  r->file = r->dset = r->dxpl = -1;
  r->collective = is_collective(collective);
  r->path = strdup(path);
  r->name = strdup(dataset);
  int st = r->path && r->name ? TSR_OK : TSR_ERROR(TSR_ERR_MEMORY, "out of memory");
  hid_t fapl = st == TSR_OK ? file_access(r->collective) : -1;
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
    H5Sclose(space);
    H5Tclose(type);
    r->dxpl = transfer(r->collective);
    if (r->dxpl < 0) st = TSR_ERROR(TSR_ERR_IO, "cannot set up reading '%s' in '%s'", dataset, path);
  }
  if (st != TSR_OK) {
    tsr_h5_reader_close(r);
    return st;
  }
  *out = r;
  return TSR_OK;
}

int tsr_h5_read(tsr_h5_reader *r, const int64_t *start, const int64_t *stride,
                const int64_t *count, double *out) {
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
  if (st == TSR_OK && (mspace < 0 || H5Dread(r->dset, H5T_NATIVE_DOUBLE, mspace, fspace, r->dxpl, out) < 0))
    st = TSR_ERR_IO;
  if (mspace >= 0) H5Sclose(mspace);
  if (fspace >= 0) H5Sclose(fspace);
  if (st != TSR_OK)
    return TSR_ERROR(TSR_ERR_IO, "cannot read dataset '%s' of '%s'", r->name, r->path);
  r->bytes += (double)n * (double)r->type_size;
  return TSR_OK;
}

double tsr_h5_reader_bytes(const tsr_h5_reader *r) { return r->bytes; }

int tsr_h5_reader_close(tsr_h5_reader *r) {
  if (!r) return TSR_OK;
  int bad = 0;
  if (r->dxpl >= 0) H5Pclose(r->dxpl);
  if (r->dset >= 0) bad |= H5Dclose(r->dset) < 0;
  if (r->file >= 0) bad |= H5Fclose(r->file) < 0;
  int st = bad ? TSR_ERROR(TSR_ERR_IO, "cannot close '%s'", r->path ? r->path : "?") : TSR_OK;
  free(r->path);
  free(r->name);
  free(r);
  return st;
}

/* ---- writing --------------------------------------------------------------- */

#define MAX_OPEN 64

struct tsr_h5_writer {
  hid_t file, dxpl;
  int collective;
  const char *final;
  int nopen;
  char *names[MAX_OPEN];
  hid_t dsets[MAX_OPEN];
  int f32[MAX_OPEN]; /* float32 in the file: converted before writing */
};

static int writer_start(const char *tmp, const char *final, int collective, int create,
                        tsr_h5_writer **out) {
  quiet();
  tsr_h5_writer *w;
  TSR_CALLOC(w, 1, sizeof *w);
  w->collective = is_collective(collective);
  w->final = final;
  w->dxpl = -1;
  hid_t fapl = file_access(w->collective);
  w->file = fapl < 0 ? -1
            : create ? H5Fcreate(tmp, H5F_ACC_TRUNC, H5P_DEFAULT, fapl)
                     : H5Fopen(tmp, H5F_ACC_RDWR, fapl);
  if (fapl >= 0) H5Pclose(fapl);
  if (w->file >= 0) w->dxpl = transfer(w->collective);
  if (w->file < 0 || w->dxpl < 0) {
    tsr_h5_writer_close(w);
    return TSR_ERROR(TSR_ERR_IO, "cannot %s the temporary file of '%s'", create ? "create" : "open", final);
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
  w->f32[w->nopen] = type >= 0 && H5Tget_size(type) == 4;
  if (type >= 0) H5Tclose(type);
  w->names[w->nopen] = strdup(dataset);
  w->dsets[w->nopen++] = d;
  return TSR_OK;
}

int tsr_h5_define(tsr_h5_writer *w, const char *dataset, int ndim, const int64_t *shape,
                  const int64_t *chunk, int float32, int gzip) {
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
    d = H5Dcreate2(w->file, dataset, float32 ? H5T_IEEE_F32LE : H5T_IEEE_F64LE, space, lcpl,
                   dcpl, H5P_DEFAULT);
    bad = d < 0;
  }
  if (space >= 0) H5Sclose(space);
  if (dcpl >= 0) H5Pclose(dcpl);
  if (lcpl >= 0) H5Pclose(lcpl);
  if (bad) return TSR_ERROR(TSR_ERR_IO, "cannot create dataset '%s' in '%s'", dataset, w->final);
  return remember(w, dataset, d);
}

static int dataset_of(tsr_h5_writer *w, const char *dataset, hid_t *d, int *f32) {
  for (int i = 0; i < w->nopen; i++)
    if (w->names[i] && !strcmp(w->names[i], dataset)) {
      *d = w->dsets[i];
      *f32 = w->f32[i];
      return TSR_OK;
    }
  *d = H5Dopen2(w->file, dataset, H5P_DEFAULT);
  H5_TRY(*d, TSR_ERR_IO, "cannot open dataset '%s' in '%s'", dataset, w->final);
  TSR_CHECK(remember(w, dataset, *d));
  *f32 = w->f32[w->nopen - 1];
  return TSR_OK;
}

/* float32 datasets get float32 buffers: rounding is plain C's, and parallel
 * HDF5 1.10 cannot convert types while writing compressed chunks. */
int tsr_h5_write(tsr_h5_writer *w, const char *dataset, const int64_t *start,
                 const int64_t *count, const double *data) {
  hid_t d;
  int f32 = 0;
  TSR_CHECK(dataset_of(w, dataset, &d, &f32));
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
  float *f = f32 ? malloc(sizeof(float) * (n + 1)) : NULL;
  if (f32 && !f) bad = 1;
  for (size_t i = 0; i < n && f; i++) f[i] = (float)data[i];
  if (!bad)
    bad = mspace < 0 || H5Dwrite(d, f32 ? H5T_NATIVE_FLOAT : H5T_NATIVE_DOUBLE, mspace, fspace,
                                 w->dxpl, f32 ? (const void *)f : (const void *)data) < 0;
  free(f);
  if (mspace >= 0) H5Sclose(mspace);
  if (fspace >= 0) H5Sclose(fspace);
  if (bad) return TSR_ERROR(TSR_ERR_IO, "cannot write dataset '%s' of '%s'", dataset, w->final);
  return TSR_OK;
}

int tsr_h5_writer_close(tsr_h5_writer *w) {
  if (!w) return TSR_OK;
  int bad = 0;
  for (int i = 0; i < w->nopen; i++) {
    bad |= H5Dclose(w->dsets[i]) < 0;
    free(w->names[i]);
  }
  if (w->dxpl >= 0) H5Pclose(w->dxpl);
  if (w->file >= 0) bad |= H5Fclose(w->file) < 0;
  const char *final = w->final;
  free(w);
  if (bad) return TSR_ERROR(TSR_ERR_IO, "cannot finish writing '%s'", final);
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
  quiet();
  hid_t file = H5Fopen(tmp, H5F_ACC_RDWR, H5P_DEFAULT);
  H5_TRY(file, TSR_ERR_IO, "cannot reopen the temporary file of '%s'", final);
  int bad = 0;
  for (int i = 0; i < nattrs && !bad; i++) bad = put_attr(file, &attrs[i]) < 0;
  bad |= H5Fclose(file) < 0;
  if (bad) return TSR_ERROR(TSR_ERR_IO, "cannot write the attributes of '%s'", final);
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
  quiet();
  unsigned cfg = 0;
  return H5Zfilter_avail(H5Z_FILTER_DEFLATE) > 0 &&
         H5Zget_filter_info(H5Z_FILTER_DEFLATE, &cfg) >= 0 && (cfg & H5Z_FILTER_CONFIG_ENCODE_ENABLED);
}

/* ---- listing --------------------------------------------------------------- */

static void print_type(FILE *out, hid_t type) {
  H5T_class_t cls = H5Tget_class(type);
  size_t size = H5Tget_size(type);
  if (cls == H5T_FLOAT)
    fprintf(out, "float%zu", 8 * size);
  else if (cls == H5T_INTEGER)
    fprintf(out, "%sint%zu", H5Tget_sign(type) == H5T_SGN_NONE ? "u" : "", 8 * size);
  else if (cls == H5T_STRING)
    fprintf(out, "string");
  else
    fprintf(out, "%s", class_name(cls) + (class_name(cls)[1] == 'n' ? 3 : 2));
}

static void print_dims(FILE *out, int nd, const hsize_t *d) {
  fputc('(', out);
  for (int a = 0; a < nd; a++) fprintf(out, "%s%llu", a ? ", " : "", (unsigned long long)d[a]);
  fputs(nd == 1 ? ",)" : ")", out);
}

/* A string value; lines after the first are indented under it. */
static void print_text(FILE *out, const char *s, const char *indent) {
  if (!strchr(s, '\n')) {
    fprintf(out, "%s\n", s);
    return;
  }
  fputc('\n', out);
  while (*s) {
    size_t n = strcspn(s, "\n");
    fprintf(out, "%s| %.*s\n", indent, (int)n, s);
    s += n + (s[n] == '\n');
  }
}

typedef struct attr_ctx {
  FILE *out;
  const char *indent;
  int count;
} attr_ctx;

static herr_t print_attr(hid_t obj, const char *name, const H5A_info_t *info, void *data) {
  (void)info;
  attr_ctx *ctx = data;
  FILE *out = ctx->out;
  const char *indent = ctx->indent;
  ctx->count++;
  hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
  if (a < 0) return 0;
  hid_t type = H5Aget_type(a), space = H5Aget_space(a);
  H5T_class_t cls = H5Tget_class(type);
  hssize_t n = H5Sget_simple_extent_npoints(space);
  fprintf(out, "%s%s = ", indent, name);
  if (cls == H5T_STRING && H5Tis_variable_str(type) > 0 && n == 1) {
    hid_t mem = H5Tcopy(H5T_C_S1);
    H5Tset_size(mem, H5T_VARIABLE);
    H5Tset_cset(mem, H5Tget_cset(type));
    char *s = NULL;
    if (H5Aread(a, mem, &s) >= 0 && s) {
      char deeper[64];
      snprintf(deeper, sizeof deeper, "%s    ", indent);
      print_text(out, s, deeper);
      H5free_memory(s);
    } else {
      fprintf(out, "(unreadable)\n");
    }
    H5Tclose(mem);
  } else if (cls == H5T_STRING && n == 1) {
    size_t size = H5Tget_size(type);
    char *s = calloc(1, size + 1);
    if (s && H5Aread(a, type, s) >= 0)
      fprintf(out, "%s\n", s);
    else
      fprintf(out, "(unreadable)\n");
    free(s);
  } else if ((cls == H5T_FLOAT || cls == H5T_INTEGER) && n >= 1 && n <= 64) {
    double v[64];
    if (H5Aread(a, H5T_NATIVE_DOUBLE, v) >= 0)
      for (hssize_t i = 0; i < n; i++) fprintf(out, "%s%.17g", i ? " " : "", v[i]);
    else
      fprintf(out, "(unreadable)");
    fputc('\n', out);
  } else {
    print_type(out, type);
    fprintf(out, " attribute (%lld values)\n", (long long)n);
  }
  H5Sclose(space);
  H5Tclose(type);
  H5Aclose(a);
  return 0;
}

static void print_layout(FILE *out, hid_t d, int nd) {
  hid_t dcpl = H5Dget_create_plist(d);
  if (dcpl < 0) return;
  if (H5Pget_layout(dcpl) == H5D_CHUNKED) {
    hsize_t c[H5S_MAX_RANK];
    H5Pget_chunk(dcpl, nd, c);
    fputs("  chunks ", out);
    print_dims(out, nd, c);
  } else {
    fputs(H5Pget_layout(dcpl) == H5D_COMPACT ? "  compact" : "  contiguous", out);
  }
  int nf = H5Pget_nfilters(dcpl);
  if (nf <= 0) fputs("  no compression", out);
  for (int i = 0; i < nf; i++) {
    unsigned flags = 0, cd[8] = {0};
    size_t ncd = 8;
    char name[64] = "";
    H5Z_filter_t id = H5Pget_filter2(dcpl, (unsigned)i, &flags, &ncd, cd, sizeof name, name, NULL);
    if (id == H5Z_FILTER_DEFLATE)
      fprintf(out, "  gzip level %u", ncd > 0 ? cd[0] : 0);
    else
      fprintf(out, "  %s", filter_name(id));
  }
  H5Pclose(dcpl);
}

static herr_t print_dataset(hid_t group, const char *name, const H5L_info_t *info, void *data) {
  (void)info;
  FILE *out = data;
  hid_t d = H5Oopen(group, name, H5P_DEFAULT);
  if (d < 0) return 0;
  if (H5Iget_type(d) != H5I_DATASET) {
    H5Oclose(d);
    return 0;
  }
  hid_t space = H5Dget_space(d), type = H5Dget_type(d);
  int nd = H5Sget_simple_extent_ndims(space);
  hsize_t dims[H5S_MAX_RANK];
  if (nd > 0) H5Sget_simple_extent_dims(space, dims, NULL);
  fprintf(out, "  /%s  shape ", name);
  print_dims(out, nd > 0 ? nd : 0, dims);
  fputs("  ", out);
  print_type(out, type);
  print_layout(out, d, nd);
  fputc('\n', out);
  hsize_t idx = 0;
  attr_ctx ctx = {out, "      ", 0};
  H5Aiterate2(d, H5_INDEX_NAME, H5_ITER_INC, &idx, print_attr, &ctx);
  H5Tclose(type);
  H5Sclose(space);
  H5Oclose(d);
  return 0;
}

int tsr_h5_inspect(const char *path, FILE *out) {
  quiet();
  TSR_CHECK(check_file(path));
  hid_t file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  H5_TRY(file, TSR_ERR_IO, "cannot open HDF5 file '%s'", path);
  fprintf(out, "%s\nattributes:\n", path);
  hsize_t idx = 0;
  attr_ctx ctx = {out, "  ", 0};
  H5Aiterate2(file, H5_INDEX_NAME, H5_ITER_INC, &idx, print_attr, &ctx);
  if (ctx.count == 0) fprintf(out, "  (none)\n");
  fprintf(out, "datasets:\n");
  herr_t st = H5Lvisit(file, H5_INDEX_NAME, H5_ITER_INC, print_dataset, out);
  H5Fclose(file);
  if (st < 0) return TSR_ERROR(TSR_ERR_IO, "cannot list the datasets of '%s'", path);
  return TSR_OK;
}
