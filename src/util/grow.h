/*
 * grow.h - the one growable-array helper: capacity doubling with the error
 * recorded on failure.
 */
#ifndef TSR_GROW_H
#define TSR_GROW_H

#include <stddef.h>
#include <stdint.h>

/* Makes *p (an array of *cap elements of elem bytes) hold at least need
 * elements, doubling from 8; what: the failing allocation's purpose, for
 * the "out of memory <what>" message. */
int tsr_grow(void **p, int64_t *cap, int64_t need, size_t elem, const char *what);

#endif
