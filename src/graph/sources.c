/*
 * sources.c - the datasets of a job (sources.h): a short list, searched
 * linearly (a job loads a handful).
 */
#define _POSIX_C_SOURCE 200809L
#include "graph/sources.h"

#include <stdlib.h>
#include <string.h>

#include "util/error.h"

static tsr_load_src *sources;

const tsr_load_src *tsr_sources_find(const char *path, const char *dataset) {
  for (const tsr_load_src *s = sources; s; s = s->next)
    if (!strcmp(s->path, path) && !strcmp(s->dataset, dataset)) return s;
  return NULL;
}

const tsr_load_src *tsr_sources_list(void) { return sources; }

static void free_one(tsr_load_src *s) {
  free(s->path);
  free(s->dataset);
  free(s);
}

int tsr_sources_add(const char *path, const char *dataset, const tsr_dataset_info *info,
                    const tsr_load_src **out) {
  tsr_load_src *s;
  TSR_CALLOC(s, 1, sizeof *s);
  s->path = strdup(path);
  s->dataset = strdup(dataset);
  if (!s->path || !s->dataset) {
    free_one(s);
    return TSR_ERROR(TSR_ERR_MEMORY, "out of memory");
  }
  s->info = *info;
  s->next = sources;
  sources = s;
  *out = s;
  return TSR_OK;
}

void tsr_sources_free(void) {
  while (sources) {
    tsr_load_src *s = sources;
    sources = s->next;
    free_one(s);
  }
}
