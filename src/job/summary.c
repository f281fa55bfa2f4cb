/*
 * summary.c - the end-of-run table (see summary.h).
 *
 * Each rank sends one fixed-size record to rank 0 (an exchange in which only
 * rank 0 receives). Beyond MAX_ROWS ranks the table keeps rank 0, the
 * slowest rank and the totals, so a 1000-rank job's log stays readable.
 */
#define _GNU_SOURCE
#include "job/summary.h"

#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "util/error.h"
#include "mpi/comm.h"

#define MAX_ROWS 64

typedef struct rank_figures {
  double chunks, compute_s, comm_s, io_s, elements, comm_bytes, io_bytes, peak_rss, peak_dev;
  char host[64];
} rank_figures;

double tsr_summary_peak_rss(void) {
  struct rusage ru;
  if (getrusage(RUSAGE_SELF, &ru) != 0) return 0.0;
  return (double)ru.ru_maxrss * 1024.0; /* Linux: kilobytes */
}

static void figures_of(const tsr_exec *ex, rank_figures *f) {
  memset(f, 0, sizeof *f);
  f->chunks = (double)ex->chunks_done;
  f->compute_s = ex->compute_s;
  f->comm_s = ex->comm_s;
  f->io_s = ex->io_s;
  f->elements = ex->elements;
  f->comm_bytes = ex->comm_bytes;
  f->io_bytes = ex->io_bytes;
  f->peak_rss = tsr_summary_peak_rss();
  f->peak_dev = ex->be ? (double)tsr_be_peak_memory(ex->be) : 0.0;
  gethostname(f->host, sizeof f->host - 1);
}

static void print_row(FILE *out, const char *label, const rank_figures *f) {
  double gb = f->elements * 8.0 / 1e9;
  char dev[32] = "-"; /* backends that do not measure their memory */
  if (f->peak_dev > 0) snprintf(dev, sizeof dev, "%.0f", f->peak_dev / 1e6);
  fprintf(out, "tessera: %5s %7.0f %10.3f %8.3f %7.3f %11.3f %8.2f %9.3f %8.3f %8.0f %7s  %s\n",
          label, f->chunks, f->compute_s, f->comm_s, f->io_s, gb,
          f->compute_s > 0 ? gb / f->compute_s : 0.0, f->comm_bytes / 1e6, f->io_bytes / 1e6,
          f->peak_rss / 1e6, dev, f->host);
}

static void print_table(FILE *out, const tsr_run_times *t, const rank_figures *all, int size) {
  fprintf(out,
          "tessera: phases (rank 0): parse %.3f s, plan %.3f s (set-up: backend start %.3f s, "
          "device %.3f s, backend %.3f s), compute %.3f s, comm %.3f s, write %.3f s, "
          "total %.3f s\n",
          t->parse, t->plan, t->start, t->bind, t->setup, t->compute, t->comm, t->write, t->total);
  fprintf(out, "tessera: %5s %7s %10s %8s %7s %11s %8s %9s %8s %8s %7s  %s\n", "rank", "chunks",
          "compute_s", "comm_s", "io_s", "logical_GB", "GB/s", "comm_MB", "io_MB", "peak_MB",
          "dev_MB", "host");
  int slowest = 0;
  rank_figures sum;
  memset(&sum, 0, sizeof sum);
  for (int r = 0; r < size; r++) {
    const rank_figures *f = &all[r];
    if (f->compute_s > all[slowest].compute_s) slowest = r;
    sum.chunks += f->chunks;
    sum.elements += f->elements;
    sum.comm_bytes += f->comm_bytes;
    sum.io_bytes += f->io_bytes;
    sum.peak_rss += f->peak_rss;
    sum.peak_dev += f->peak_dev;
    if (f->compute_s > sum.compute_s) sum.compute_s = f->compute_s;
    if (f->comm_s > sum.comm_s) sum.comm_s = f->comm_s;
    if (f->io_s > sum.io_s) sum.io_s = f->io_s;
  }
  char label[16];
  for (int r = 0; r < size; r++) {
    if (size > MAX_ROWS && r != 0 && r != slowest) continue;
    snprintf(label, sizeof label, "%d", r);
    print_row(out, label, &all[r]);
  }
  if (size > 1) {
    print_row(out, "all", &sum);
    fprintf(out, "tessera: (all: times of the slowest rank; chunks, GB, MB: sums%s)\n",
            size > MAX_ROWS ? "; rows: rank 0 and the slowest rank" : "");
  }
}

int tsr_summary_report(const tsr_exec *ex, const tsr_run_times *t, FILE *out) {
  int size = tsr_comm_size();
  rank_figures mine;
  figures_of(ex, &mine);
  char **send;
  size_t *sendn, *recvn;
  char *recv;
  TSR_CALLOC(send, (size_t)size, sizeof(char *));
  TSR_CALLOC(sendn, (size_t)size, sizeof(size_t));
  send[0] = (char *)&mine;
  sendn[0] = sizeof mine;
  int st = tsr_comm_alltoall_bytes(send, sendn, &recv, &recvn);
  free(send);
  free(sendn);
  TSR_CHECK(st);
  if (tsr_comm_rank() == 0) {
    size_t bytes = 0;
    for (int r = 0; r < size; r++) bytes += recvn[r];
    if (bytes == sizeof(rank_figures) * (size_t)size)
      print_table(out, t, (const rank_figures *)recv, size);
    fflush(out);
  }
  free(recv);
  free(recvn);
  return TSR_OK;
}
