/*
 * h5check.h - the one way io/ turns an HDF5 failure into a tessera error:
 * H5_CHECK returns TSR_ERROR(code, message...) when an HDF5 call returns a
 * negative status. HDF5's own error printing is switched off (tsr_h5_quiet)
 * before a file first touches HDF5, so the message tessera prints is all
 * users see.
 */
#ifndef TSR_H5CHECK_H
#define TSR_H5CHECK_H

#include <errno.h>
#include <hdf5.h>
#include <stdio.h>
#include <string.h>

#include "util/error.h"

#define H5_CHECK(expr, code, ...)                          \
  do {                                                     \
    if ((expr) < 0) return TSR_ERROR((code), __VA_ARGS__); \
  } while (0)

/* After a failed HDF5 write or close, err (errno, cleared before the call):
 * ": <strerror>" when it is a cause HDF5 passes on without naming it (a
 * full disk, a quota, a file-size limit, a device error), else "". Other
 * errno values may be left over from HDF5's own successful probing. */
static inline const char *tsr_h5_cause(int err) {
  static _Thread_local char text[160];
  if (err != ENOSPC && err != EDQUOT && err != EFBIG && err != EIO && err != EROFS) return "";
  snprintf(text, sizeof text, ": %s", strerror(err));
  return text;
}

/* Silences HDF5's automatic error stack printing (once per file that uses it). */
static inline void tsr_h5_quiet(void) {
  static int done;
  if (!done) {
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    done = 1;
  }
}

#endif
