/*
 * move.c - pieces of backend memory moved between ranks (exec.h's
 * tsr_exec_move): the R factors and Q products of the TSQR tree and the
 * block products of matmul. Three ways, by what the backend's memory is:
 * host memory moves as it is (MPI point-to-point, mpi/p2p.c); device
 * memory with the backend's exchange (NCCL between distinct GPUs) moves
 * device to device, packed per peer; otherwise (GPUs shared by ranks, or
 * TESSERA_HOST_EXCHANGE) each piece is copied to the host, moved with MPI
 * and copied back in, which the summary's host-copy count shows.
 */
#include <stdlib.h>
#include <string.h>

#include "exec/exec.h"
#include "mpi/agree.h"
#include "mpi/comm.h"
#include "util/error.h"

/* Pieces within this rank: a copy in backend memory. */
static int move_own(const tsr_exec *ex, const tsr_p2p_piece *x, int64_t nx) {
  for (int64_t i = 0; i < nx; i++)
    if (x[i].from == ex->rank && x[i].to == ex->rank && x[i].n)
      TSR_CHECK(tsr_be_copy(ex->be, x[i].src, x[i].dst, x[i].n));
  return TSR_OK;
}

/* Per peer, the values this rank sends and receives. */
static void peer_counts(const tsr_exec *ex, const tsr_p2p_piece *x, int64_t nx, size_t *sendn,
                        size_t *recvn) {
  for (int64_t i = 0; i < nx; i++) {
    if (x[i].from == x[i].to) continue;
    if (x[i].from == ex->rank) sendn[x[i].to] += x[i].n;
    if (x[i].to == ex->rank) recvn[x[i].from] += x[i].n;
  }
}

/* Packs (dir 0) this rank's outgoing pieces into per-peer buffers, or
 * unpacks (dir 1) the incoming ones, in list order. */
static int pack(const tsr_exec *ex, const tsr_p2p_piece *x, int64_t nx, double **buf, int dir) {
  size_t *at = calloc((size_t)ex->size, sizeof(size_t));
  int st = at ? TSR_OK : TSR_ERROR(TSR_ERR_MEMORY, "out of memory moving pieces");
  for (int64_t i = 0; i < nx && st == TSR_OK; i++) {
    if (x[i].from == x[i].to || !x[i].n) continue;
    if (dir == 0 && x[i].from == ex->rank) {
      st = tsr_be_copy(ex->be, x[i].src, buf[x[i].to] + at[x[i].to], x[i].n);
      at[x[i].to] += x[i].n;
    } else if (dir == 1 && x[i].to == ex->rank) {
      st = tsr_be_copy(ex->be, buf[x[i].from] + at[x[i].from], x[i].dst, x[i].n);
      at[x[i].from] += x[i].n;
    }
  }
  free(at);
  return st;
}

/* Device to device through the backend's exchange, one message per peer
 * and direction. Collective. */
static int move_device(tsr_exec *ex, const tsr_p2p_piece *x, int64_t nx) {
  int P = ex->size, ns = 0, nr = 0;
  size_t *sendn = calloc((size_t)P, sizeof(size_t)), *recvn = calloc((size_t)P, sizeof(size_t));
  double **sbuf = calloc((size_t)P, sizeof(double *)), **rbuf = calloc((size_t)P, sizeof(double *));
  tsr_be_msg *s = calloc((size_t)P, sizeof *s), *r = calloc((size_t)P, sizeof *r);
  int st = sendn && recvn && sbuf && rbuf && s && r
               ? TSR_OK
               : TSR_ERROR(TSR_ERR_MEMORY, "out of memory moving pieces");
  if (st == TSR_OK) peer_counts(ex, x, nx, sendn, recvn);
  for (int q = 0; q < P && st == TSR_OK; q++) {
    if (sendn[q] && (st = tsr_be_alloc(ex->be, sendn[q], &sbuf[q])) == TSR_OK)
      s[ns++] = (tsr_be_msg){q, sbuf[q], sendn[q]};
    if (st == TSR_OK && recvn[q] && (st = tsr_be_alloc(ex->be, recvn[q], &rbuf[q])) == TSR_OK)
      r[nr++] = (tsr_be_msg){q, rbuf[q], recvn[q]};
  }
  if (st == TSR_OK) st = pack(ex, x, nx, sbuf, 0);
  int ready = tsr_be_exchange_ready(ex->be); /* collective: every rank, whatever st */
  /* nobody waits for a message a failed rank will not send */
  st = tsr_agree(st != TSR_OK ? st : ready);
  if (st == TSR_OK && (ns || nr)) st = tsr_be_exchange(ex->be, s, ns, r, nr);
  if (st == TSR_OK) st = pack(ex, x, nx, rbuf, 1);
  for (int q = 0; sbuf && rbuf && q < P; q++) {
    tsr_be_release(ex->be, sbuf[q]);
    tsr_be_release(ex->be, rbuf[q]);
  }
  free(sendn), free(recvn), free(sbuf), free(rbuf), free(s), free(r);
  return st;
}

/* Through host copies and MPI. Collective. */
static int move_staged(tsr_exec *ex, const tsr_p2p_piece *x, int64_t nx, int tag) {
  tsr_p2p_piece *h = calloc((size_t)nx + 1, sizeof *h);
  int st = h ? TSR_OK : TSR_ERROR(TSR_ERR_MEMORY, "out of memory moving pieces");
  for (int64_t i = 0; i < nx && st == TSR_OK; i++) {
    h[i] = (tsr_p2p_piece){x[i].from, x[i].to, NULL, NULL, x[i].n};
    if (x[i].from == x[i].to || !x[i].n) continue;
    if (x[i].from == ex->rank) {
      double *b = malloc(sizeof(double) * x[i].n);
      h[i].src = b;
      st = b ? tsr_be_download(ex->be, x[i].src, b, x[i].n)
             : TSR_ERROR(TSR_ERR_MEMORY, "out of memory moving pieces");
    } else if (x[i].to == ex->rank && !(h[i].dst = malloc(sizeof(double) * x[i].n))) {
      st = TSR_ERROR(TSR_ERR_MEMORY, "out of memory moving pieces");
    }
  }
  st = tsr_agree(st);
  if (st == TSR_OK) st = tsr_p2p_move(h, nx, ex->rank, ex->size, tag);
  for (int64_t i = 0; i < nx && st == TSR_OK; i++)
    if (x[i].to == ex->rank && x[i].from != ex->rank && x[i].n)
      st = tsr_be_upload(ex->be, h[i].dst, x[i].dst, x[i].n);
  for (int64_t i = 0; h && i < nx; i++) {
    free((double *)h[i].src);
    free(h[i].dst);
  }
  free(h);
  return st;
}

int tsr_exec_move(tsr_exec *ex, const tsr_p2p_piece *x, int64_t nx, int tag) {
  double t0 = tsr_comm_time(), moved = 0;
  for (int64_t i = 0; i < nx; i++)
    if (x[i].from != x[i].to && (x[i].from == ex->rank || x[i].to == ex->rank))
      moved += 8.0 * (double)x[i].n;
  int host = tsr_be_caps(ex->be) & TSR_BE_HOST_MEMORY, st;
  if (host)
    st = tsr_p2p_move(x, nx, ex->rank, ex->size, tag);
  else if (tsr_be_has_exchange(ex->be) && !ex->host_exchange)
    st = move_device(ex, x, nx);
  else
    st = move_staged(ex, x, nx, tag);
  if (!host) {
    int own = move_own(ex, x, nx);
    if (st == TSR_OK) st = own;
  }
  tsr_exec_comm_done(ex, "move pieces", t0, moved); /* a --trace span of its own */
  return tsr_agree(st);
}
