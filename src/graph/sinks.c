/*
 * sinks.c - the save statements of a job (sinks.h), in an array in the
 * order written.
 */
#define _POSIX_C_SOURCE 200809L
#include "graph/sinks.h"

#include <stdlib.h>
#include <string.h>

#include "util/error.h"
#include "util/grow.h"

static tsr_sink *sinks;
static int64_t nsinks, cap;

int tsr_sinks_count(void) { return (int)nsinks; }
const tsr_sink *tsr_sinks_at(int i) { return &sinks[i]; }

/* Whether dataset a is a group on the way to b ("/a" and "/a/b"). */
static int is_parent(const char *a, const char *b) {
  size_t n = strlen(a);
  return strncmp(a, b, n) == 0 && b[n] == '/';
}

static int clash(const char *file, const char *dataset) {
  for (int64_t i = 0; i < nsinks; i++) {
    const tsr_sink *o = &sinks[i];
    if (strcmp(o->file, file)) continue;
    if (!strcmp(o->dataset, dataset))
      return TSR_ERROR(TSR_ERR_VALUE, "dataset '%s' of '%s' is already saved on line %d", dataset,
                       file, o->line);
    if (is_parent(o->dataset, dataset) || is_parent(dataset, o->dataset))
      return TSR_ERROR(
          TSR_ERR_VALUE,
          "datasets '%s' and '%s' of '%s' (line %d): one would be a group of the other", dataset,
          o->dataset, file, o->line);
  }
  return TSR_OK;
}

int tsr_sinks_add(const struct tsr_source *text, int line, int col, const char *file,
                  const char *dataset, tsr_node *node, int gzip) {
  TSR_CHECK(clash(file, dataset));
  TSR_CHECK(tsr_grow((void **)&sinks, &cap, nsinks + 1, sizeof *sinks, "recording a save"));
  tsr_sink *e = &sinks[nsinks];
  *e = (tsr_sink){text, line, col, strdup(file), strdup(dataset), node, gzip};
  if (!e->file || !e->dataset) {
    free(e->file);
    free(e->dataset);
    return TSR_ERROR(TSR_ERR_MEMORY, "out of memory");
  }
  nsinks++;
  return TSR_OK;
}

void tsr_sinks_free(void) {
  for (int64_t i = 0; i < nsinks; i++) {
    free(sinks[i].file);
    free(sinks[i].dataset);
  }
  free(sinks);
  sinks = NULL;
  nsinks = cap = 0;
}
