/*
 * target.c - the check of a file a job will write (target.h): what the
 * target is now (job file, loaded input, /dev/null, directory, special file,
 * existing file), stale temporaries beside it, and whether its directory
 * takes a new temporary. Plain POSIX on rank 0; no MPI, no HDF5.
 */
#define _POSIX_C_SOURCE 200809L
#include "job/target.h"

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "graph/sources.h"
#include "util/error.h"
#include "util/signals.h"

/* Writes the reason into why[n] and returns code. */
__attribute__((format(printf, 4, 5))) static int refuse(char *why, size_t n, int code,
                                                        const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(why, n, fmt, ap);
  va_end(ap);
  return code;
}

/* Files are the same when st_dev and st_ino are: names may differ. */
static int same_file(const struct stat *a, const char *other) {
  struct stat b;
  return other && stat(other, &b) == 0 && a->st_dev == b.st_dev && a->st_ino == b.st_ino;
}

static int is_dev_null(const struct stat *sb) {
  struct stat null;
  return S_ISCHR(sb->st_mode) && stat("/dev/null", &null) == 0 && sb->st_rdev == null.st_rdev;
}

/* The name under which the job loads the file sb, or NULL. */
static const char *loaded_as(const struct stat *sb) {
  for (const tsr_load_src *s = tsr_sources_list(); s; s = s->next)
    if (same_file(sb, s->path)) return s->path;
  return NULL;
}

/* A target that exists: refused, discarded (/dev/null) or replaceable. */
static int check_existing(const char *path, const struct stat *sb, const tsr_target_rules *r,
                          int *discard, char *why, size_t n) {
  const char *src;
  if (r->job_file && strcmp(r->job_file, "-") && same_file(sb, r->job_file))
    return refuse(why, n, TSR_ERR_VALUE, "%s'%s' is the job file: choose another name", r->noun,
                  path);
  if ((src = loaded_as(sb)))
    return refuse(why, n, TSR_ERR_VALUE,
                  "%s'%s' is loaded by this job (load(\"%s\", ...)): writing it would destroy "
                  "its input, even with --overwrite; choose another name",
                  r->noun, path, src);
  if (is_dev_null(sb)) {
    *discard = 1;
    return TSR_OK;
  }
  if (S_ISDIR(sb->st_mode))
    return refuse(why, n, TSR_ERR_IO, "cannot %s '%s': it is a directory", r->cannot, path);
  if (!S_ISREG(sb->st_mode))
    return refuse(why, n, TSR_ERR_IO,
                  "cannot %s '%s': it is %s; tessera writes regular files only (/dev/null "
                  "discards)",
                  r->cannot, path, tsr_file_kind(sb->st_mode));
  if (!r->overwrite)
    return refuse(why, n, TSR_ERR_IO, "%s'%s' exists: run with --overwrite to replace it", r->noun,
                  path);
  return TSR_OK;
}

/* "BASE.tmp-PID" -> PID, or 0 when name is not a temporary of base. */
static long temp_pid(const char *name, const char *base) {
  size_t len = strlen(base);
  if (strncmp(name, base, len) || strncmp(name + len, ".tmp-", 5)) return 0;
  const char *digits = name + len + 5;
  if (!*digits || strspn(digits, "0123456789") != strlen(digits) || strlen(digits) > 9) return 0;
  return atol(digits);
}

static void remove_one(const char *dir, const char *name, int with_dir) {
  size_t len = strlen(dir) + strlen(name) + 2;
  char *full = malloc(len);
  if (!full) return;
  snprintf(full, len, "%s%s%s", with_dir ? dir : "", with_dir && strcmp(dir, "/") ? "/" : "", name);
  if (unlink(full) == 0) fprintf(stderr, "tessera: removed stale temporary %s\n", full);
  free(full);
}

/* Removes the stale temporaries of path (a failed run killed before it
 * could remove its own). Best effort: an unreadable directory is left to
 * the temporary's own check. */
static void remove_stale(const char *path) {
  const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
  char *dir = slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) : strdup(".");
  DIR *d = dir ? opendir(dir) : NULL;
  for (struct dirent *e; d && (e = readdir(d));) {
    long pid = temp_pid(e->d_name, base);
    if (pid > 0 && tsr_temp_writer_gone(pid)) remove_one(dir, e->d_name, slash != NULL);
  }
  if (d) closedir(d);
  free(dir);
}

/* The directory takes path's temporary: made and removed at once. */
static int probe_temp(const char *path, const tsr_target_rules *r, char *why, size_t n) {
  size_t len = strlen(path) + 32;
  char *tmp = malloc(len);
  if (!tmp) return refuse(why, n, TSR_ERR_MEMORY, "out of memory");
  snprintf(tmp, len, "%s.tmp-%ld", path, (long)getpid());
  int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL, 0666), st = TSR_OK;
  if (fd < 0) {
    st = refuse(why, n, TSR_ERR_IO, "cannot %s '%s': %s", r->cannot, path, strerror(errno));
  } else {
    close(fd);
    unlink(tmp);
  }
  free(tmp);
  return st;
}

int tsr_target_check(const char *path, const tsr_target_rules *r, int *discard, char *why,
                     size_t n) {
  struct stat sb;
  *discard = 0;
  if (!path[0]) return refuse(why, n, TSR_ERR_VALUE, "an empty file name");
  if (stat(path, &sb) == 0) {
    int st = check_existing(path, &sb, r, discard, why, n);
    if (st != TSR_OK || *discard) return st;
  }
  remove_stale(path);
  return probe_temp(path, r, why, n);
}
