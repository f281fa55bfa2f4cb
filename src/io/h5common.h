/*
 * h5common.h - what the io/ files that read, write and list HDF5 datasets
 * share: property lists for independent or collective (MPI-IO) access, and
 * the names of type classes and filters used in messages, and the check
 * that a path is a readable HDF5 file.
 */
#ifndef TSR_H5COMMON_H
#define TSR_H5COMMON_H

#include <hdf5.h>

/* Whether access asked to be collective can be: parallel HDF5 and MPI
 * running (otherwise every call is independent). */
int tsr_h5_is_collective(int collective);

/* File access: MPI-IO for collective access in a parallel build; < 0 on
 * failure. */
hid_t tsr_h5_file_access(int collective);

/* Transfer properties: a conversion buffer, collective transfers when asked. */
hid_t tsr_h5_transfer(int collective);

/* "a string type", "an enum type ...": for messages. */
const char *tsr_h5_class_name(H5T_class_t c);

/* "gzip", "shuffle", ... (registered ids of common plugins too). */
const char *tsr_h5_filter_name(H5Z_filter_t id);

/* The file must exist and be a regular file, checked before HDF5 opens it:
 * opening a FIFO that has no writer (a shell's process substitution) would
 * wait forever (TSR_ERR_IO). */
int tsr_h5_check_regular(const char *path);

/* The file must exist, be readable and be HDF5: each with its own message
 * (TSR_ERR_IO). */
int tsr_h5_check_file(const char *path);

/* ---- element types (kernel/ids.h's tsr_dtype) ---- */

/* A new HDF5 type for dtype dt (close it): little-endian for files, or
 * native for memory; bool is h5py's enum of int8 (FALSE = 0, TRUE = 1). */
hid_t tsr_h5_type_of(int dt, int native);

/* The dtype of a dataset's type, 1; 0 when tessera has none for it. */
int tsr_h5_dtype_of(hid_t type, int *dt);

/* n values (doubles of dtype dt) in dt's native type, a malloc'ed buffer. */
void *tsr_h5_pack(const double *data, size_t n, int dt);

/* The first n bytes of out, bools read with tsr_h5_type_of(TSR_BOOL, 1),
 * as n doubles 0 and 1, in place. */
void tsr_h5_widen_bool(double *out, size_t n);

#endif
