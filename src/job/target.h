/*
 * target.h - the one check of a file a job is about to write: the results
 * file (-o) and every save() target. Rank 0 runs it before any work and the
 * ranks agree on the outcome (the callers do, mpi/agree.h); writing later
 * goes through a temporary beside the target (io/results.h), renamed onto it.
 *
 * Refused: the job file itself and any file the job loads (same st_dev and
 * st_ino, whatever the names; --overwrite does not help), a directory, any
 * other non-regular file (FIFO, socket, device: never renamed over), an
 * existing file without --overwrite, and a directory that cannot take the
 * temporary. /dev/null is accepted and means "discard": the caller computes
 * but writes nothing. Stale temporaries of the target ("NAME.tmp-PID" whose
 * process is gone) are removed, each said on stderr.
 */
#ifndef TSR_JOB_TARGET_H
#define TSR_JOB_TARGET_H

#include <stddef.h>

typedef struct tsr_target_rules {
  int overwrite;        /* an existing regular file may be replaced */
  const char *job_file; /* the job's file, never a target (NULL or "-": none) */
  const char *cannot;   /* "cannot CANNOT 'path': why" ("create results file") */
  const char *noun;     /* "NOUN'path' exists ..." ("results file ", or "") */
} tsr_target_rules;

/* Rank 0, before any work; not collective. TSR_OK with *discard set when
 * path is /dev/null (0 otherwise); else the error code, with the reason
 * (path and all, no position) in why[n] and no error recorded. */
int tsr_target_check(const char *path, const tsr_target_rules *r, int *discard, char *why,
                     size_t n);

#endif
