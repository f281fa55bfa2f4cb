/*
 * h5check.h - the one way io/ turns an HDF5 failure into a tessera error:
 * H5_CHECK returns TSR_ERROR(code, message...) when an HDF5 call returns a
 * negative status. HDF5's own error printing is switched off (tsr_h5_quiet)
 * before a file first touches HDF5, so the message tessera prints is all
 * users see.
 */
#ifndef TSR_H5CHECK_H
#define TSR_H5CHECK_H

#include <hdf5.h>

#include "util/error.h"

#define H5_CHECK(expr, code, ...)                          \
  do {                                                     \
    if ((expr) < 0) return TSR_ERROR((code), __VA_ARGS__); \
  } while (0)

/* Silences HDF5's automatic error stack printing (once per file that uses it). */
static inline void tsr_h5_quiet(void) {
  static int done;
  if (!done) {
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    done = 1;
  }
}

#endif
