/*
 * h5array.h - HDF5 datasets as chunked arrays: what `load`, `save` and
 * `tessera inspect` need from HDF5, and nothing else.
 *
 * Reading: a dataset is described once (rank 0, at interpretation time, so
 * that every user error is found before any work), then each rank reads the
 * hyperslabs (start, stride, count) of the chunks it owns, converted to
 * doubles by HDF5. Writing: datasets are defined in a temporary file whose
 * HDF5 chunks follow the tessera chunks, each rank writes its chunks as
 * hyperslabs, and the caller renames the file when every rank has finished.
 * With parallel HDF5 (TSR_HAVE_PARALLEL_HDF5) files opened "collective" use
 * the MPI-IO driver and collective transfers, and every rank must make the
 * same calls in the same order; otherwise files use HDF5's default driver and
 * each call is independent. Errors are TSR_ERR_IO (or _TYPE, _VALUE for what
 * a dataset holds) and name the file and the dataset; HDF5's own error stack
 * is silenced. HDF5 is not thread-safe: callers serialize every call but
 * tsr_h5_read_span.
 */
#ifndef TSR_H5ARRAY_H
#define TSR_H5ARRAY_H

#include <stdint.h>
#include <stdio.h>

#include "kernel/ids.h"
#include "io/results.h"

typedef enum tsr_h5_class { TSR_H5_FLOAT, TSR_H5_INT, TSR_H5_UINT } tsr_h5_class;

/* What load needs to know about a dataset. */
typedef struct tsr_h5meta {
  int ndim;
  int64_t shape[TSR_MAXDIM];
  int type_class;            /* tsr_h5_class */
  int type_size;             /* bytes per element in the file */
  int dtype;                 /* tsr_dtype of its values */
  int chunked;               /* HDF5 chunked layout ... */
  int64_t chunk[TSR_MAXDIM]; /* ... with these chunk dimensions */
} tsr_h5meta;

/* Checks that path is an HDF5 file holding `dataset`, a dataset of 1 to
 * TSR_MAXDIM dimensions of a floating-point or integer type whose filters
 * this HDF5 can decode, and describes it. Independent (any one rank). */
int tsr_h5_describe(const char *path, const char *dataset, tsr_h5meta *meta);

/* ---- reading ------------------------------------------------------------ */

typedef struct tsr_h5_reader tsr_h5_reader;

/* Opens a dataset for reading (collective: every rank opens it, MPI-IO
 * collective reads; without parallel HDF5 the flag is ignored). */
int tsr_h5_reader_open(const char *path, const char *dataset, int collective, tsr_h5_reader **out);

/* Reads the hyperslab start/stride/count (one entry per dataset axis, stride
 * >= 1, count >= 1) into out, row-major over count, converted to doubles.
 * count == NULL: a collective reader's part in a read with nothing to read. */
int tsr_h5_read(tsr_h5_reader *r, const int64_t *start, const int64_t *stride, const int64_t *count,
                double *out);

/* The direct path (h5direct.h): a read whose doubles lie in the file as one
 * run of bytes that HDF5 would return unchanged is planned with HDF5 (like
 * any HDF5 call, serialized) and then read with pread(2) off HDF5, by any
 * thread, several at once. A span says where the bytes are. */
typedef struct tsr_h5_span {
  int64_t offset; /* in the file */
  int64_t bytes;  /* 8 per element of the region, row-major */
} tsr_h5_span;

/* Whether the read tsr_h5_read(r, start, stride, count, ...) (count >= 1)
 * can be made as tsr_h5_read_span(r, span, ...) with the same result: 1 and
 * *span when it can, 0 when it must go through HDF5 (collective readers:
 * always). Never fails (doubt leaves the read to HDF5). */
int tsr_h5_plan_direct(tsr_h5_reader *r, const int64_t *start, const int64_t *stride,
                       const int64_t *count, tsr_h5_span *span);

/* Reads a span planned on r into out (span->bytes / 8 doubles). Thread-safe:
 * several threads may read spans of r at once, while another calls HDF5.
 * Errors: TSR_ERR_IO naming the dataset and the file. */
int tsr_h5_read_span(tsr_h5_reader *r, const tsr_h5_span *span, double *out);

/* Bytes read so far through r (the file's element size times the elements),
 * by tsr_h5_read and tsr_h5_read_span. */
double tsr_h5_reader_bytes(const tsr_h5_reader *r);

/* Closes r (collective for a collective reader). Safe on NULL. */
int tsr_h5_reader_close(tsr_h5_reader *r);

/* ---- writing ------------------------------------------------------------ */

typedef struct tsr_h5_writer tsr_h5_writer;

/* Creates (truncating) or reopens the temporary file tmp, reported to users
 * as `final`. Collective when `collective`. */
int tsr_h5_writer_create(const char *tmp, const char *final, int collective, tsr_h5_writer **out);
int tsr_h5_writer_open(const char *tmp, const char *final, int collective, tsr_h5_writer **out);

/* Defines a dataset of tsr_dtype dtype and the given shape, with HDF5
 * chunks of `chunk` (NULL or an empty shape: contiguous) and gzip at level
 * 0-9 (< 0: none). Intermediate groups are created. Collective when the
 * writer is. */
int tsr_h5_define(tsr_h5_writer *w, const char *dataset, int ndim, const int64_t *shape,
                  const int64_t *chunk, int dtype, int gzip);

/* Writes the box start/count of a defined dataset from data (row-major over
 * count, doubles; converted to the dataset's type by HDF5). count == NULL: a
 * collective writer's part in a write with nothing to write. */
int tsr_h5_write(tsr_h5_writer *w, const char *dataset, const int64_t *start, const int64_t *count,
                 const double *data);

/* Closes w (collective for a collective writer); flushes everything. */
int tsr_h5_writer_close(tsr_h5_writer *w);

/* Adds attributes to the root group of the (closed) file tmp. */
int tsr_h5_set_attrs(const char *tmp, const char *final, const tsr_attr *attrs, int nattrs);

/* HDF5's largest chunk is 4 GiB: halves the longest axis of chunk until one
 * chunk of itemsize-byte elements fits. */
void tsr_h5_cap_chunk(int ndim, int64_t *chunk, int64_t itemsize);

/* Whether gzip (deflate) can be written by this HDF5. */
int tsr_h5_gzip_available(void);

/* Once, before any other HDF5 call: HDF5 does not close its files at exit
 * (tessera closes each one itself). After a failed H5Fclose (a write past a
 * file-size limit) HDF5 1.10 keeps a broken file that its exit-time cleanup
 * would crash on, turning a reported error into a segfault. */
void tsr_h5_library_init(void);

/* A file HDF5 could not close (a full disk, a file-size limit) stays in its
 * table of open files half closed, and HDF5's own cleanup of it crashes
 * (HDF5 1.10's H5F__close_cb): at exit, which tsr_h5_library_init turns off,
 * and, with parallel HDF5, inside MPI_Finalize. note records such a close
 * (h5write.c); close_failed tells the end of the run to skip MPI_Finalize. */
void tsr_h5_note_close_failed(void);
int tsr_h5_close_failed(void);

/* ---- listing --------------------------------------------------------------- */

/* Prints every dataset of path (shape, dtype, HDF5 chunks, filters, its
 * attributes) and the root group's attributes to out. */
int tsr_h5_inspect(const char *path, FILE *out);

#endif
