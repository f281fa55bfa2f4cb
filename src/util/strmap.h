/*
 * strmap.h - a map from strings to indices, for the front end's name
 * lookups (the interpreter's variables, the keyword names of one call), so
 * that a job of n names costs O(n) rather than a scan per name.
 *
 * Open addressing with linear probing over a power-of-two table kept at most
 * half full. The map points to its keys and does not copy them: each key
 * must stay unchanged until the map is freed. A zeroed map is empty.
 */
#ifndef TSR_STRMAP_H
#define TSR_STRMAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct tsr_strmap_slot tsr_strmap_slot;

typedef struct tsr_strmap {
  tsr_strmap_slot *slots;
  int64_t cap, n; /* cap: 0 or a power of two */
} tsr_strmap;

/* The index stored under the len bytes at s, or -1 when there is none. */
int64_t tsr_strmap_get(const tsr_strmap *m, const char *s, size_t len);

/* Stores index under key (len bytes), which must not be in m yet. */
int tsr_strmap_put(tsr_strmap *m, const char *key, size_t len, int64_t index);

void tsr_strmap_free(tsr_strmap *m);

/* The 64-bit FNV-1a hash of len bytes, the map's (and the sweep journal's
 * checksum of a pending trial). */
uint64_t tsr_hash_bytes(const void *p, size_t len);

#endif
