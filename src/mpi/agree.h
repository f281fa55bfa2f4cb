/*
 * agree.h - ranks agreeing on an outcome after a step of collective work,
 * so that no rank waits forever in a later collective for one that gave up.
 * Built on tsr_comm_max_int (comm.h).
 */
#ifndef TSR_AGREE_H
#define TSR_AGREE_H

/* Every rank learns whether any failed (or was interrupted) and returns the
 * same status. A rank's own new error is printed by that rank; the others
 * fail silently with "another rank failed". Collective. */
int tsr_agree(int st);

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
