/*
 * results.h - the results file of `tessera run -o FILE.h5`.
 *
 * Rank 0 writes every small top-level value of a job as a dataset of that
 * name, plus provenance attributes on the root group. The file is written
 * under a temporary name in the same directory and renamed only when complete,
 * so a failed run never leaves a file under the final name.
 */
#ifndef TSR_RESULTS_H
#define TSR_RESULTS_H

#include <stddef.h>
#include <stdint.h>

typedef struct tsr_attr {
  const char *key;
  const char *text; /* string attribute when non-NULL ... */
  double number;    /* ... else a float64 attribute */
} tsr_attr;

typedef struct tsr_result_item {
  const char *name;      /* dataset name (a job variable name) */
  int ndim;              /* 0 for a scalar */
  const int64_t *shape;  /* ndim entries */
  int dtype;             /* tsr_dtype stored (data is converted) */
  const double *data;    /* row-major values */
  const tsr_attr *attrs; /* attributes of the dataset (a fit's report), or NULL */
  int nattrs;
  const char *const *strings; /* when non-NULL, the values instead of data: UTF-8 strings */
  const int64_t *ints;        /* when non-NULL, the values instead of data: int64 */
} tsr_result_item;

/* A name may hold '/': the dataset then goes into groups made on the way
 * ("trials/params/lam"). */

/* The number of values of an item (the product of its shape; 1 for a scalar). */
size_t tsr_result_item_count(const tsr_result_item *it);

/* Writes items and root attributes to path (through path's temporary name).
 * Fails with TSR_ERR_IO naming the file when it cannot be written; then no
 * file is left under either name. */
int tsr_results_write(const char *path, const tsr_result_item *items, int nitems,
                      const tsr_attr *attrs, int nattrs);

/* Every numeric dataset of group (NULL: the root group; none when there is
 * no such group) of a results file, read as float64, with its numeric
 * scalar attributes (a fit's record) as float64 attrs (items, names,
 * shapes, data and attrs malloc'ed; free with tsr_results_free). */
int tsr_results_read(const char *path, const char *group, tsr_result_item **items, int *nitems);
void tsr_results_free(tsr_result_item *items, int nitems);

/* The string attribute key of the root group of path (malloc'ed). */
int tsr_results_read_text(const char *path, const char *key, char **text);

/* Results kept in memory (results_set.c): the runs that add to it each
 * under their own group, written later as one file by tsr_results_write
 * (items, n). Deep copies. */
typedef struct tsr_results_set {
  tsr_result_item *items;
  int n, cap;
} tsr_results_set;

/* Copies items into s, each named "group/NAME" (NAME when group is NULL). */
int tsr_results_set_add(tsr_results_set *s, const char *group, const tsr_result_item *items, int n);
/* Drops the items after the first n (a run that failed after adding). */
void tsr_results_set_truncate(tsr_results_set *s, int n);
/* Frees everything; s is empty and reusable. */
void tsr_results_set_clear(tsr_results_set *s);

/* Renames tmp onto path, the last step of writing a file through its
 * temporary: refused when path is there and is neither a regular file nor
 * a symbolic link (a FIFO, a device or a directory is never replaced). */
int tsr_results_rename(const char *tmp, const char *path);

/* Checks, before any work, that path's directory takes the temporary file:
 * creates and removes it. Fails with TSR_ERR_IO naming the file. */
int tsr_results_probe(const char *path);

#endif
