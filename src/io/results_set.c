/*
 * results_set.c - results kept in memory and written later as one results
 * file, each run's under its own group (results.h: tsr_results_set). A
 * sweep's journal keeps the trials that finish together this way, so that
 * they cost one file and one fsync instead of one each. Items and their
 * attributes are deep copies: the job that made them is gone by the write.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/results.h"
#include "util/error.h"
#include "util/grow.h"

static void *dup_bytes(const void *p, size_t n) {
  void *q = p ? malloc(n ? n : 1) : NULL;
  if (q && n) memcpy(q, p, n);
  return q;
}

static int copy_attrs(tsr_result_item *to, const tsr_result_item *from) {
  if (from->nattrs == 0) return TSR_OK;
  tsr_attr *a = calloc((size_t)from->nattrs, sizeof *a);
  if (!a) return TSR_ERROR(TSR_ERR_MEMORY, "out of memory keeping results");
  to->attrs = a;
  to->nattrs = from->nattrs;
  for (int k = 0; k < from->nattrs; k++) {
    a[k] = from->attrs[k];
    a[k].key = strdup(from->attrs[k].key);
    a[k].text = from->attrs[k].text ? strdup(from->attrs[k].text) : NULL;
    if (!a[k].key || (from->attrs[k].text && !a[k].text))
      return TSR_ERROR(TSR_ERR_MEMORY, "out of memory keeping results");
  }
  return TSR_OK;
}

static int copy_strings(tsr_result_item *to, const tsr_result_item *from, size_t n) {
  char **s = calloc(n + 1, sizeof *s);
  to->strings = (const char *const *)s;
  for (size_t k = 0; s && k < n; k++)
    if (!(s[k] = strdup(from->strings[k]))) return TSR_ERROR(TSR_ERR_MEMORY, "out of memory");
  return s ? TSR_OK : TSR_ERROR(TSR_ERR_MEMORY, "out of memory keeping results");
}

/* A deep copy of from, named "group/name" (or name), into to (zeroed). */
static int copy_item(tsr_result_item *to, const char *group, const tsr_result_item *from) {
  size_t n = tsr_result_item_count(from);
  size_t len = (group ? strlen(group) + 1 : 0) + strlen(from->name) + 1;
  char *name = malloc(len);
  if (name) snprintf(name, len, "%s%s%s", group ? group : "", group ? "/" : "", from->name);
  *to = *from;
  to->name = name;
  to->shape = dup_bytes(from->shape, sizeof *from->shape * (size_t)from->ndim);
  to->data = dup_bytes(from->data, from->data ? sizeof *from->data * n : 0);
  to->ints = dup_bytes(from->ints, from->ints ? sizeof *from->ints * n : 0);
  to->strings = NULL, to->attrs = NULL, to->nattrs = 0;
  if (!name || (from->ndim && !to->shape) || (from->data && !to->data) || (from->ints && !to->ints))
    return TSR_ERROR(TSR_ERR_MEMORY, "out of memory keeping results");
  if (from->strings) TSR_CHECK(copy_strings(to, from, n));
  return copy_attrs(to, from);
}

static void free_item(tsr_result_item *it) {
  size_t n = it->strings ? tsr_result_item_count(it) : 0;
  for (size_t k = 0; k < n; k++) free((char *)it->strings[k]);
  for (int k = 0; k < it->nattrs; k++)
    free((char *)it->attrs[k].key), free((char *)it->attrs[k].text);
  free((char *)it->name), free((int64_t *)it->shape), free((double *)it->data);
  free((int64_t *)it->ints), free((char **)it->strings), free((tsr_attr *)it->attrs);
}

int tsr_results_set_add(tsr_results_set *s, const char *group, const tsr_result_item *items,
                        int n) {
  int64_t cap = s->cap;
  TSR_CHECK(tsr_grow((void **)&s->items, &cap, s->n + n, sizeof *s->items, "keeping results"));
  s->cap = cap;
  for (int i = 0; i < n; i++) {
    tsr_result_item *it = &s->items[s->n++];
    memset(it, 0, sizeof *it);
    TSR_CHECK(copy_item(it, group, &items[i]));
  }
  return TSR_OK;
}

void tsr_results_set_truncate(tsr_results_set *s, int n) {
  while (s->n > n) free_item(&s->items[--s->n]);
}

void tsr_results_set_clear(tsr_results_set *s) {
  tsr_results_set_truncate(s, 0);
  free(s->items);
  memset(s, 0, sizeof *s);
}
