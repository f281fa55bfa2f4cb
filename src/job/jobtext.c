/*
 * jobtext.c - the text of a job file, read once on rank 0 and broadcast
 * (tsr_read_job, tessera.h). Under mpirun only rank 0 has standard input,
 * and a job file may exist only on rank 0's node (node-local scratch), so
 * no other rank opens it. A read error, or a NUL byte that would silently
 * end the text the lexer sees, is rank 0's and reported once by it.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lang/ast.h"
#include "mpi/agree.h"
#include "mpi/comm.h"
#include "tessera.h"
#include "util/error.h"

/* What rank 0 read, for every rank: the text follows when status is OK. */
typedef struct job_header {
  int status;
  uint64_t n;
  char message[1024];
} job_header;

/* The whole of f into *buf (NUL-terminated; *n bytes before the NUL; the
 * caller frees it, also on failure). */
static int read_all(FILE *f, const char *path, char **buf, size_t *n) {
  size_t cap = 4096;
  *n = 0;
  TSR_MALLOC(*buf, cap);
  for (size_t got; (got = fread(*buf + *n, 1, cap - *n - 1, f)) > 0;) {
    *n += got;
    if (*n + 1 < cap) continue;
    char *p = realloc(*buf, cap *= 2);
    if (!p) {
      free(*buf);
      *buf = NULL;
      return TSR_ERROR(TSR_ERR_MEMORY, "out of memory reading '%s'", path);
    }
    *buf = p;
  }
  (*buf)[*n] = '\0';
  if (!ferror(f)) return TSR_OK;
  return TSR_ERROR(TSR_ERR_IO, "cannot read job file '%s': %s", path, strerror(errno));
}

/* A NUL byte would end the job where the lexer sees it: an error at its
 * line and column instead. */
static int check_nul(const char *path, const char *text, size_t n) {
  const char *nul = memchr(text, '\0', n);
  if (!nul) return TSR_OK;
  int line = 1;
  const char *start = text;
  for (const char *p = text; p < nul; p++)
    if (*p == '\n') line++, start = p + 1;
  tsr_source src = {path, text};
  return tsr_source_error(&src, line, (int)(nul - start) + 1, TSR_ERR_SYNTAX,
                          "NUL byte in the job text");
}

/* Rank 0's part: the file ('-': standard input), checked (*text is freed
 * by the caller, also on failure). */
static int read_job_file(const char *path, char **text, size_t *n) {
  FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
  if (!f) return TSR_ERROR(TSR_ERR_IO, "cannot open job file '%s': %s", path, strerror(errno));
  struct stat sb;
  int st = TSR_OK;
  if (fstat(fileno(f), &sb) == 0 && S_ISDIR(sb.st_mode))
    st = TSR_ERROR(TSR_ERR_IO, "cannot read job file '%s': it is a directory", path);
  if (st == TSR_OK) st = read_all(f, path, text, n);
  if (f != stdin) fclose(f);
  if (st == TSR_OK && *n == 0) st = TSR_ERROR(TSR_ERR_VALUE, "job file '%s' is empty", path);
  if (st == TSR_OK) st = check_nul(path, *text, *n);
  return st;
}

/* Every rank but 0: room for the text, agreed before the broadcast. */
static int receive_text(const job_header *h, char **text) {
  int st = TSR_OK;
  if (tsr_comm_rank() != 0) {
    *text = malloc((size_t)h->n + 1);
    if (!*text)
      st = TSR_ERROR(TSR_ERR_MEMORY, "out of memory for a job of %zu bytes", (size_t)h->n);
  }
  TSR_CHECK(tsr_agree(st));
  st = tsr_comm_bcast_bytes(*text, (size_t)h->n, 0);
  if (tsr_comm_rank() != 0 && *text) (*text)[h->n] = '\0';
  return st;
}

int tsr_read_job(const char *path, char **text) {
  job_header *h;
  size_t n = 0;
  TSR_CALLOC(h, 1, sizeof *h);
  *text = NULL;
  if (tsr_comm_rank() == 0) {
    h->status = read_job_file(path, text, &n);
    h->n = n;
    if (h->status != TSR_OK) snprintf(h->message, sizeof h->message, "%s", tsr_error_message());
  }
  int st = tsr_comm_bcast_bytes(h, sizeof *h, 0);
  if (st == TSR_OK && h->status != TSR_OK)
    st = tsr_comm_rank() == 0 ? h->status : TSR_ERROR(h->status, "%s", h->message);
  if (st == TSR_OK) st = receive_text(h, text);
  if (st != TSR_OK) {
    free(*text);
    *text = NULL;
  }
  free(h);
  return st;
}
