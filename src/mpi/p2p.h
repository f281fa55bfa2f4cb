/*
 * p2p.h - point-to-point communication on host buffers: what rechunking
 * (exec/xfer.c) and rank-ordered HDF5 writes (job/save.c) need beyond the
 * collectives of comm.h. Every call is a no-op on one rank, or when MPI was
 * never started (unit tests that interpret without mpirun).
 */
#ifndef TSR_P2P_H
#define TSR_P2P_H

#include <stddef.h>
#include <stdint.h>

/* One message: n doubles at buf, to or from rank peer. */
typedef struct tsr_p2p_msg {
  int peer;
  double *buf;
  size_t n;
} tsr_p2p_msg;

/* Posts every receive and send at once and waits for all of them (no
 * ordering constraint between ranks, so it cannot deadlock when every rank
 * posts the matching halves). At most one message per (peer, direction);
 * tag separates concurrent exchanges. Messages of any length travel in
 * pieces of at most 2^27 doubles. */
int tsr_p2p_exchange(const tsr_p2p_msg *sends, int nsends, const tsr_p2p_msg *recvs, int nrecvs,
                     int tag);

/* One piece of data moving from rank `from` to rank `to` (maybe the same):
 * n doubles read at src on `from`, written at dst on `to`. */
typedef struct tsr_p2p_piece {
  int from, to;
  const double *src;
  double *dst;
  size_t n;
} tsr_p2p_piece;

/* Moves every piece of a list that every rank knows in full: pieces within
 * this rank by copy, the others packed per peer in list order and sent with
 * one tsr_p2p_exchange. me and size: this rank and the number of ranks. */
int tsr_p2p_move(const tsr_p2p_piece *x, int64_t nx, int me, int size, int tag);

/* Rank 0's n bytes at buf are copied to every rank. Collective. */
int tsr_p2p_bcast(void *buf, size_t n);

/* A small integer token for rank-ordered work (rank r waits for r-1). */
int tsr_p2p_send_int(int peer, int value, int tag);
int tsr_p2p_recv_int(int peer, int *value, int tag);

#endif
