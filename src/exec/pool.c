/*
 * pool.c - the staging buffer pool and runnable program copies (pool.h).
 */
#include "exec/pool.h"

#include <stdlib.h>
#include <sys/mman.h>

#include "util/error.h"

/* A buffer for n doubles; a big one on transparent huge pages where the
 * kernel offers them (madvise mode), as NumPy does: a chunk read into fresh
 * 4 KiB pages costs a page fault per page. */
static double *big_alloc(size_t n) {
  size_t bytes = sizeof(double) * (n + 1);
  void *p = NULL;
  if (bytes < ((size_t)4 << 20)) return malloc(bytes);
  if (posix_memalign(&p, (size_t)2 << 20, bytes) != 0) return NULL;
#ifdef MADV_HUGEPAGE
  madvise(p, bytes, MADV_HUGEPAGE);
#endif
  return p;
}

/* A buffer of at least n doubles: a pooled one not more than twice as big. */
static double *pool_get(tsr_pool *pl, size_t n) {
  int best = -1;
  for (int i = 0; i < pl->k; i++)
    if (pl->n[i] >= n && pl->n[i] <= 2 * n + 64 && (best < 0 || pl->n[i] < pl->n[best])) best = i;
  if (best < 0) return big_alloc(n);
  double *b = pl->buf[best];
  pl->buf[best] = pl->buf[--pl->k];
  pl->n[best] = pl->n[pl->k];
  return b;
}

static void pool_put(tsr_pool *pl, double *b, size_t n) {
  if (!b) return;
  if (pl->k == TSR_POOL_SIZE) {
    free(b);
    return;
  }
  pl->buf[pl->k] = b;
  pl->n[pl->k++] = n;
}

void tsr_pool_clear(tsr_pool *pl) {
  for (int i = 0; i < pl->k; i++) free(pl->buf[i]);
  pl->k = 0;
}

double *tsr_runnable_buffer(tsr_pool *pl, tsr_runnable *u, size_t n) {
  double **p = realloc(u->bufs, sizeof(double *) * (size_t)(u->nbufs + 1));
  if (p) u->bufs = p;
  size_t *q = p ? realloc(u->sizes, sizeof(size_t) * (size_t)(u->nbufs + 1)) : NULL;
  if (q) u->sizes = q;
  double *b = q ? pool_get(pl, n) : NULL;
  if (!b) {
    TSR_ERROR(TSR_ERR_MEMORY, "out of memory staging a chunk (%zu values)", n);
    return NULL;
  }
  u->bufs[u->nbufs] = b;
  u->sizes[u->nbufs++] = n;
  return b;
}

void tsr_runnables_free(tsr_pool *pl, tsr_runnable *u, int64_t n) {
  for (int64_t k = 0; k < n; k++) {
    for (int i = 0; i < u[k].nbufs; i++) pool_put(pl, u[k].bufs[i], u[k].sizes[i]);
    free(u[k].bufs);
    free(u[k].sizes);
    tsr_prog_free(&u[k].prog);
  }
  free(u);
}
