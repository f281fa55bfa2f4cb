/*
 * strmap.c - the string-to-index map of strmap.h.
 */
#include "util/strmap.h"

#include <stdlib.h>
#include <string.h>

#include "util/error.h"

struct tsr_strmap_slot {
  const char *key; /* NULL: empty */
  size_t len;
  uint64_t hash;
  int64_t index;
};

/* FNV-1a: names are short, and this is what one comparison would cost. */
uint64_t tsr_hash_bytes(const void *p, size_t len) {
  const unsigned char *s = p;
  uint64_t h = 0xcbf29ce484222325ULL;
  for (size_t i = 0; i < len; i++) h = (h ^ s[i]) * 0x100000001b3ULL;
  return h;
}

/* The slot holding the key, or the empty slot where it would go. */
static tsr_strmap_slot *find(tsr_strmap_slot *slots, int64_t cap, const char *s, size_t len,
                             uint64_t h) {
  uint64_t mask = (uint64_t)cap - 1;
  for (uint64_t i = h & mask;; i = (i + 1) & mask) {
    tsr_strmap_slot *e = &slots[i];
    if (!e->key || (e->hash == h && e->len == len && !memcmp(e->key, s, len))) return e;
  }
}

int64_t tsr_strmap_get(const tsr_strmap *m, const char *s, size_t len) {
  if (!m->n) return -1;
  const tsr_strmap_slot *e = find(m->slots, m->cap, s, len, tsr_hash_bytes(s, len));
  return e->key ? e->index : -1;
}

/* Doubles the table (from 16) and moves every key into it. */
static int grow(tsr_strmap *m) {
  int64_t cap = m->cap ? 2 * m->cap : 16;
  tsr_strmap_slot *slots;
  TSR_CALLOC(slots, (size_t)cap, sizeof *slots);
  for (int64_t i = 0; i < m->cap; i++) {
    const tsr_strmap_slot *e = &m->slots[i];
    if (e->key) *find(slots, cap, e->key, e->len, e->hash) = *e;
  }
  free(m->slots);
  m->slots = slots;
  m->cap = cap;
  return TSR_OK;
}

int tsr_strmap_put(tsr_strmap *m, const char *key, size_t len, int64_t index) {
  if (2 * (m->n + 1) > m->cap) TSR_CHECK(grow(m));
  uint64_t h = tsr_hash_bytes(key, len);
  *find(m->slots, m->cap, key, len, h) = (tsr_strmap_slot){key, len, h, index};
  m->n++;
  return TSR_OK;
}

void tsr_strmap_free(tsr_strmap *m) {
  free(m->slots);
  memset(m, 0, sizeof *m);
}
