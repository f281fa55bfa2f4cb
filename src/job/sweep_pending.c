/*
 * sweep_pending.c - the blobs of a sweep journal's pending files (sweep.h):
 * one finished trial each, appended by its group's leader with one write as
 * the trial is kept, and read back by a load that salvages the file of a
 * process killed before its records file was written (sweep_journal.c).
 *
 * A blob is "TSRPEND1", the body's length, the body and the body's FNV-1a
 * 64-bit checksum. The body: the record line, the number of items and, per
 * item, its name, ndim, shape, dtype, its values (none, float64, int64
 * or strings) and its attributes (key, then text or number). Lengths,
 * counts and flags are uint64, shapes int64, numbers float64 and strings a
 * length and their bytes, each as the host lays it out in memory: a pending
 * file is read only by tessera on the same kind of machine (little-endian
 * x86-64 or aarch64), which salvages it into a records file, the journal's
 * portable form. A blob cut short (a power cut that lost the unsynced tail,
 * a process killed inside its write) fails its length or its checksum, and
 * a salvage keeps the whole blobs before it.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "io/results.h"
#include "kernel/ids.h"
#include "job/sweep.h"
#include "util/error.h"
#include "util/grow.h"
#include "util/strmap.h"

#define MAGIC "TSRPEND1"
#define HEAD 16 /* the magic and the body's length */

enum { VALUES_NONE, VALUES_F64, VALUES_I64, VALUES_STRINGS };

int tsr_bytes_put(tsr_bytes *b, const void *p, size_t n) {
  TSR_CHECK(tsr_grow((void **)&b->p, &b->cap, (int64_t)(b->len + n), 1, "keeping a trial"));
  if (n) memcpy(b->p + b->len, p, n);
  b->len += n;
  return TSR_OK;
}

void tsr_bytes_free(tsr_bytes *b) {
  free(b->p);
  memset(b, 0, sizeof *b);
}

/* ---- writing ------------------------------------------------------------------- */

static int put_u64(tsr_bytes *b, uint64_t v) { return tsr_bytes_put(b, &v, sizeof v); }

static int put_str(tsr_bytes *b, const char *s, size_t n) {
  TSR_CHECK(put_u64(b, n));
  return tsr_bytes_put(b, s, n);
}

/* In the order results.c writes them: int64, strings, else float64. */
static int put_values(tsr_bytes *b, const tsr_result_item *it) {
  size_t n = tsr_result_item_count(it);
  uint64_t kind = it->ints      ? VALUES_I64
                  : it->strings ? VALUES_STRINGS
                  : it->data    ? VALUES_F64
                                : VALUES_NONE;
  TSR_CHECK(put_u64(b, kind));
  if (kind == VALUES_I64) return tsr_bytes_put(b, it->ints, n * sizeof *it->ints);
  if (kind == VALUES_F64) return tsr_bytes_put(b, it->data, n * sizeof *it->data);
  for (size_t k = 0; kind == VALUES_STRINGS && k < n; k++)
    TSR_CHECK(put_str(b, it->strings[k], strlen(it->strings[k])));
  return TSR_OK;
}

static int put_attrs(tsr_bytes *b, const tsr_result_item *it) {
  TSR_CHECK(put_u64(b, (uint64_t)it->nattrs));
  for (int k = 0; k < it->nattrs; k++) {
    const tsr_attr *a = &it->attrs[k];
    TSR_CHECK(put_str(b, a->key, strlen(a->key)));
    TSR_CHECK(put_u64(b, a->text != NULL));
    TSR_CHECK(a->text ? put_str(b, a->text, strlen(a->text))
                      : tsr_bytes_put(b, &a->number, sizeof a->number));
  }
  return TSR_OK;
}

static int put_item(tsr_bytes *b, const tsr_result_item *it) {
  TSR_CHECK(put_str(b, it->name, strlen(it->name)));
  TSR_CHECK(put_u64(b, (uint64_t)it->ndim));
  TSR_CHECK(tsr_bytes_put(b, it->shape, sizeof *it->shape * (size_t)it->ndim));
  TSR_CHECK(put_u64(b, (uint64_t)it->dtype));
  TSR_CHECK(put_values(b, it));
  return put_attrs(b, it);
}

int tsr_pending_encode(tsr_bytes *b, const char *line, size_t len, const tsr_result_item *items,
                       int n) {
  b->len = 0;
  TSR_CHECK(tsr_bytes_put(b, MAGIC, 8));
  TSR_CHECK(put_u64(b, 0)); /* the body's length, once known */
  TSR_CHECK(put_str(b, line, len));
  TSR_CHECK(put_u64(b, (uint64_t)n));
  for (int i = 0; i < n; i++) TSR_CHECK(put_item(b, &items[i]));
  uint64_t body = b->len - HEAD;
  memcpy(b->p + 8, &body, sizeof body);
  return put_u64(b, tsr_hash_bytes(b->p + HEAD, body));
}

/* ---- reading --------------------------------------------------------------------- */

/* The body being read, and the arena that one decoded item's arrays and
 * strings are copied into (8-aligned, as the body's bytes need not be):
 * each 8-byte field of the body becomes at most 8 bytes of alignment and a
 * NUL besides its own bytes, so twice the body holds any item. A read past
 * the body, or a value no writer makes, sets bad: the blob is damaged. */
typedef struct reader {
  const unsigned char *p;
  size_t left;
  int bad;
  unsigned char *arena;
  size_t used, size;
} reader;

static const unsigned char *take(reader *r, size_t n) {
  if (r->bad || n > r->left) {
    r->bad = 1;
    return NULL;
  }
  r->p += n, r->left -= n;
  return r->p - n;
}

static uint64_t get_u64(reader *r) {
  uint64_t v = 0;
  const unsigned char *p = take(r, sizeof v);
  if (p) memcpy(&v, p, sizeof v);
  return v;
}

static void *room(reader *r, size_t n) {
  size_t at = (r->used + 7) & ~(size_t)7;
  if (r->bad || at > r->size || n > r->size - at) {
    r->bad = 1;
    return NULL;
  }
  r->used = at + n;
  return r->arena + at;
}

/* count elements of size bytes, copied into the arena. */
static void *get_array(reader *r, uint64_t count, size_t size) {
  if (count > r->left / size) r->bad = 1;
  size_t n = r->bad ? 0 : (size_t)count * size;
  void *to = room(r, n);
  const unsigned char *from = take(r, n);
  if (to && from && n) memcpy(to, from, n);
  return r->bad ? NULL : to;
}

static char *get_str(reader *r) {
  uint64_t n = get_u64(r);
  if (n > r->left) r->bad = 1;
  char *s = room(r, r->bad ? 0 : (size_t)n + 1);
  const unsigned char *from = take(r, (size_t)n);
  if (!s || !from) return NULL;
  memcpy(s, from, (size_t)n);
  s[n] = 0;
  return s;
}

/* The shape into it; returns the number of values. */
static size_t get_shape(reader *r, tsr_result_item *it) {
  uint64_t ndim = get_u64(r);
  if (ndim > 64) r->bad = 1;
  int64_t *shape = get_array(r, r->bad ? 0 : ndim, sizeof *shape);
  size_t count = 1;
  for (uint64_t d = 0; shape && d < ndim && !r->bad; d++) {
    if (shape[d] < 0 || (shape[d] > 0 && count > r->left / (uint64_t)shape[d]))
      r->bad = 1;
    else
      count *= (size_t)shape[d];
  }
  it->ndim = (int)ndim;
  it->shape = shape;
  return count;
}

static void get_values(reader *r, tsr_result_item *it, size_t count) {
  uint64_t kind = get_u64(r);
  if (kind == VALUES_F64) it->data = get_array(r, count, sizeof *it->data);
  if (kind == VALUES_I64) it->ints = get_array(r, count, sizeof *it->ints);
  if (kind == VALUES_STRINGS) {
    if (count > r->left / 8) r->bad = 1; /* a string is at least its length */
    const char **s = room(r, count * sizeof *s);
    for (size_t k = 0; s && k < count && !r->bad; k++) s[k] = get_str(r);
    it->strings = s;
  }
  if (kind > VALUES_STRINGS) r->bad = 1;
}

static void get_attrs(reader *r, tsr_result_item *it) {
  uint64_t n = get_u64(r);
  if (n > r->left / 24 || n > INT32_MAX) r->bad = 1; /* key, flag, number: 24 bytes at least */
  tsr_attr *a = room(r, (r->bad ? 0 : n) * sizeof *a);
  for (uint64_t k = 0; a && k < n && !r->bad; k++) {
    a[k].key = get_str(r);
    uint64_t has_text = get_u64(r);
    a[k].text = has_text ? get_str(r) : NULL;
    a[k].number = 0;
    const unsigned char *num = has_text ? NULL : take(r, sizeof a[k].number);
    if (num) memcpy(&a[k].number, num, sizeof a[k].number);
    if (has_text > 1) r->bad = 1;
  }
  it->attrs = a;
  it->nattrs = (int)n;
}

/* One item into it, its arrays in the arena (used again by the next). */
static void get_item(reader *r, tsr_result_item *it) {
  memset(it, 0, sizeof *it);
  r->used = 0;
  it->name = get_str(r);
  size_t count = get_shape(r, it);
  uint64_t dtype = get_u64(r); /* any tsr_dtype: before, only float64 and float32 were read */
  if (dtype >= TSR_NDTYPES) r->bad = 1;
  it->dtype = (int)dtype;
  get_values(r, it, count);
  get_attrs(r, it);
}

int tsr_pending_decode(const unsigned char *p, size_t n, size_t *used, const char **line,
                       size_t *len, tsr_results_set *set) {
  uint64_t body = 0, sum = 0;
  *used = 0;
  if (n < HEAD + sizeof sum || memcmp(p, MAGIC, 8)) return TSR_OK;
  memcpy(&body, p + 8, sizeof body);
  if (body > n - HEAD - sizeof sum) return TSR_OK; /* torn */
  memcpy(&sum, p + HEAD + body, sizeof sum);
  if (tsr_hash_bytes(p + HEAD, (size_t)body) != sum) return TSR_OK;
  reader r = {p + HEAD, (size_t)body, 0, malloc(2 * (size_t)body + 64), 0, 2 * (size_t)body + 64};
  if (!r.arena) return TSR_ERROR(TSR_ERR_MEMORY, "out of memory reading a pending trial");
  uint64_t line_len = get_u64(&r);
  const unsigned char *text = take(&r, (size_t)line_len);
  uint64_t nitems = get_u64(&r);
  int before = set->n, st = TSR_OK;
  for (uint64_t i = 0; i < nitems && !r.bad && st == TSR_OK; i++) {
    tsr_result_item it;
    get_item(&r, &it);
    if (!r.bad) st = tsr_results_set_add(set, NULL, &it, 1);
  }
  free(r.arena);
  if (st != TSR_OK || r.bad || r.left) { /* a body its checksum holds, but no writer made */
    tsr_results_set_truncate(set, before);
    return st;
  }
  *used = HEAD + (size_t)body + sizeof sum;
  *line = (const char *)text;
  *len = (size_t)line_len;
  return TSR_OK;
}
