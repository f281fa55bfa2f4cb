/*
 * sinks.h - the save(file, dataset, array) statements of a job, in the order
 * they were written: what to write where, with which compression, and where
 * in the job text it was asked for (for errors found later, when the files
 * are checked). job/save.c writes them. Per-job state, freed by
 * tsr_nodes_free_all().
 */
#ifndef TSR_SINKS_H
#define TSR_SINKS_H

#include "graph/array.h"

struct tsr_source; /* the job text (lang/ast.h), kept only to locate errors */

typedef struct tsr_sink {
  const struct tsr_source *text;
  int line, col;
  char *file, *dataset;
  tsr_node *node;
  int gzip; /* level 0-9, or -1 for none */
} tsr_sink;

/* Records a save statement. A second save of the same dataset into the same
 * file, or of a dataset that would be a group of another, is TSR_ERR_VALUE
 * (message not located: the caller knows where the statement is). */
int tsr_sinks_add(const struct tsr_source *text, int line, int col, const char *file,
                  const char *dataset, tsr_node *node, int gzip);

int tsr_sinks_count(void);
const tsr_sink *tsr_sinks_at(int i);

/* Forgets every save (end of a job). */
void tsr_sinks_free(void);

#endif
