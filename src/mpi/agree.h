/*
 * agree.h - ranks agreeing on an outcome after a step of collective work,
 * so that no rank waits forever in a later collective for one that gave up.
 * Built on tsr_comm_max_int (comm.h).
 */
#ifndef TSR_AGREE_H
#define TSR_AGREE_H

#include <stdint.h>

/* Every rank learns whether any failed (or was interrupted) and returns the
 * same status. A rank's own new error is printed by that rank; the others
 * fail silently with "another rank failed". Collective. */
int tsr_agree(int st);

/* st, when failing, is an error that every rank found the same, with the
 * same text (a check of data every rank holds, or of the replicated small
 * algebra): rank 0 prints it once, and later agreements keep it so. Not
 * collective: every rank must call it with the same st. */
int tsr_agreed(int st);

/* A data error that a rank may find in its own part of the data (a bad
 * value in its rows): index is this rank's first offending index (global;
 * INT64_MAX when it found none), st its error. Every rank learns the
 * smallest index over all ranks and returns the error of the rank that
 * found it, which rank 0 prints once: the same message for any number of
 * ranks. A rank that failed otherwise (index INT64_MAX, st failing) makes
 * it tsr_agree(st). Collective. */
int tsr_agree_first(int st, int64_t index);

/* As tsr_agree, for a check every rank makes of the same input (an
 * environment variable, a command-line limit): when every rank failed,
 * rank 0 alone reports its error, once; when only some did, each of those
 * reports its own, with its rank. Collective. */
int tsr_agree_each(int st);

/* The same integer on every rank: the minimum of v. Collective. */
int tsr_agree_min(int v, int *out);

/* Rank 0 decides; the others learn the outcome and report nothing: a rank
 * whose own st is TSR_OK fails silently with "rank 0 <what>" when another
 * failed (TSR_ERR_COMM when the agreement itself fails). Collective. */
int tsr_agree_rank0(int st, const char *what);

#endif
