/*
 * sources.h - the datasets a job loads: one record per (file, dataset),
 * shared by every load node that reads it, with what planning needs to know
 * (shape, natural dtype, storage chunks). How a file is opened is not known
 * here: the job layer describes a dataset (io/, on rank 0, broadcast) and the
 * interpreter records the answer. Per-job state, freed by tsr_nodes_free_all().
 */
#ifndef TSR_SOURCES_H
#define TSR_SOURCES_H

#include <stdint.h>

#include "kernel/ids.h"

/* What a loaded dataset holds, as far as the graph is concerned. */
typedef struct tsr_dataset_info {
  int ndim;
  int64_t shape[TSR_MAXDIM];
  tsr_dtype dtype;           /* float32 for 4-byte floats, else float64 */
  int chunked;               /* stored in chunks ... */
  int64_t chunk[TSR_MAXDIM]; /* ... of these dimensions */
} tsr_dataset_info;

typedef struct tsr_load_src {
  char *path, *dataset;
  tsr_dataset_info info;
  struct tsr_load_src *next;
} tsr_load_src;

/* The record of (path, dataset), or NULL when the job has not loaded it. */
const tsr_load_src *tsr_sources_find(const char *path, const char *dataset);

/* Every record, newest first (follow ->next; NULL when none): the files a
 * job reads, which the job layer checks its output files against. */
const tsr_load_src *tsr_sources_list(void);

/* Records (path, dataset) with what it holds. */
int tsr_sources_add(const char *path, const char *dataset, const tsr_dataset_info *info,
                    const tsr_load_src **out);

/* Forgets every record (end of a job). */
void tsr_sources_free(void);

#endif
