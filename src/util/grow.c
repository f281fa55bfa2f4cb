/*
 * grow.c - capacity doubling (grow.h).
 */
#include "util/grow.h"

#include <stdlib.h>

#include "util/error.h"

int tsr_grow(void **p, int64_t *cap, int64_t need, size_t elem, const char *what) {
  if (need <= *cap) return TSR_OK;
  int64_t c = *cap ? *cap * 2 : 8;
  while (c < need) c *= 2;
  void *q = realloc(*p, (size_t)c * elem);
  if (!q) return TSR_ERROR(TSR_ERR_MEMORY, "out of memory %s", what);
  *p = q;
  *cap = c;
  return TSR_OK;
}
