/*
 * sources.c - the file services the job gives the interpreter (sources.h).
 *
 * load describes its dataset on rank 0 while the job is interpreted and
 * broadcasts what it found (or the error), so that every rank builds the same
 * node and a missing file, dataset or unreadable type is reported once, before
 * any work. The interpreter locates the message in the job text.
 */
#include "job/sources.h"

#include <stdio.h>
#include <stdlib.h>

#include "util/error.h"
#include "io/h5array.h"
#include "mpi/comm.h"
#include "mpi/p2p.h"

/* What rank 0 found, for every rank. */
typedef struct probe_result {
  int status;
  tsr_h5meta meta;
  char message[1024];
} probe_result;

static void info_of(const tsr_h5meta *m, tsr_dataset_info *info) {
  *info = (tsr_dataset_info){.ndim = m->ndim, .chunked = m->chunked};
  info->dtype = (tsr_dtype)m->dtype;
  for (int a = 0; a < m->ndim; a++) {
    info->shape[a] = m->shape[a];
    info->chunk[a] = m->chunk[a];
  }
}

/* Collective: rank 0 describes, every rank returns its status and message. */
static int open_dataset(const char *path, const char *dataset, tsr_dataset_info *info) {
  probe_result *r;
  TSR_CALLOC(r, 1, sizeof *r);
  if (tsr_comm_rank() == 0) {
    r->status = tsr_h5_describe(path, dataset, &r->meta);
    if (r->status != TSR_OK) snprintf(r->message, sizeof r->message, "%s", tsr_error_message());
  }
  int st = tsr_p2p_bcast(r, sizeof *r);
  if (st == TSR_OK && r->status != TSR_OK && tsr_comm_rank() != 0)
    st = TSR_ERROR(r->status, "%s", r->message);
  else if (st == TSR_OK)
    st = r->status;
  if (st == TSR_OK) info_of(&r->meta, info);
  free(r);
  return st;
}

void tsr_job_interp_init(tsr_interp *ip, const tsr_source *src, uint64_t seed) {
  tsr_interp_init(ip, src, seed);
  ip->ctx.open_dataset = open_dataset;
  ip->ctx.gzip_available = tsr_h5_gzip_available;
}
