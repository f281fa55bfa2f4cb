/*
 * p2p.c - MPI point-to-point exchanges of host buffers (see p2p.h). Every MPI
 * call goes through TSR_MPI_CHECK so a failure becomes a tessera error.
 */
#include "mpi/p2p.h"

#include <mpi.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mpi/mpi_check.h"
#include "mpi/session.h"
#include "util/error.h"

/* MPI counts are int: longer messages go in pieces of this many doubles. */
#define PIECE ((size_t)1 << 27)

static int world(int *size) {
  int inited = 0, finalized = 0;
  MPI_Initialized(&inited);
  MPI_Finalized(&finalized);
  *size = 1;
  if (inited && !finalized) MPI_Comm_size(tsr_comm_session(), size);
  return *size > 1;
}

static size_t pieces(size_t n) { return n == 0 ? 0 : (n - 1) / PIECE + 1; }

int tsr_p2p_exchange(const tsr_p2p_msg *sends, int nsends, const tsr_p2p_msg *recvs, int nrecvs,
                     int tag) {
  int size;
  if (!world(&size)) {
    if (nsends || nrecvs)
      return TSR_ERROR(TSR_ERR_INTERNAL, "point-to-point messages without other ranks");
    return TSR_OK;
  }
  size_t nreq = 0;
  for (int i = 0; i < nsends; i++) nreq += pieces(sends[i].n);
  for (int i = 0; i < nrecvs; i++) nreq += pieces(recvs[i].n);
  MPI_Request *req;
  TSR_MALLOC(req, sizeof *req * (nreq + 1));
  size_t k = 0;
  int rc = MPI_SUCCESS;
  /* Receives first, so that most sends find their match already posted. */
  for (int i = 0; i < nrecvs && rc == MPI_SUCCESS; i++)
    for (size_t off = 0; off < recvs[i].n && rc == MPI_SUCCESS; off += PIECE) {
      size_t len = recvs[i].n - off < PIECE ? recvs[i].n - off : PIECE;
      rc = MPI_Irecv(recvs[i].buf + off, (int)len, MPI_DOUBLE, recvs[i].peer, tag,
                     tsr_comm_session(), &req[k++]);
    }
  for (int i = 0; i < nsends && rc == MPI_SUCCESS; i++)
    for (size_t off = 0; off < sends[i].n && rc == MPI_SUCCESS; off += PIECE) {
      size_t len = sends[i].n - off < PIECE ? sends[i].n - off : PIECE;
      rc = MPI_Isend(sends[i].buf + off, (int)len, MPI_DOUBLE, sends[i].peer, tag,
                     tsr_comm_session(), &req[k++]);
    }
  if (rc == MPI_SUCCESS) rc = MPI_Waitall((int)k, req, MPI_STATUSES_IGNORE);
  free(req);
  TSR_MPI_CHECK(rc);
  return TSR_OK;
}

int tsr_p2p_bcast(void *buf, size_t n) {
  int size;
  if (!world(&size)) return TSR_OK;
  if (n > (size_t)INT32_MAX) return TSR_ERROR(TSR_ERR_INTERNAL, "broadcast of %zu bytes", n);
  TSR_MPI_CHECK(MPI_Bcast(buf, (int)n, MPI_BYTE, 0, tsr_comm_session()));
  return TSR_OK;
}

int tsr_p2p_send_int(int peer, int value, int tag) {
  int size;
  if (!world(&size)) return TSR_OK;
  TSR_MPI_CHECK(MPI_Send(&value, 1, MPI_INT, peer, tag, tsr_comm_session()));
  return TSR_OK;
}

int tsr_p2p_recv_int(int peer, int *value, int tag) {
  int size;
  if (!world(&size)) return TSR_OK;
  TSR_MPI_CHECK(MPI_Recv(value, 1, MPI_INT, peer, tag, tsr_comm_session(), MPI_STATUS_IGNORE));
  return TSR_OK;
}

int tsr_p2p_move(const tsr_p2p_piece *x, int64_t nx, int me, int size, int tag) {
  int P = size, st = TSR_OK;
  size_t *sendn = calloc((size_t)P, sizeof(size_t)), *recvn = calloc((size_t)P, sizeof(size_t));
  double **sbuf = calloc((size_t)P, sizeof(double *)), **rbuf = calloc((size_t)P, sizeof(double *));
  tsr_p2p_msg *sends = calloc((size_t)P, sizeof *sends), *recvs = calloc((size_t)P, sizeof *recvs);
  if (!sendn || !recvn || !sbuf || !rbuf || !sends || !recvs)
    st = TSR_ERROR(TSR_ERR_MEMORY, "out of memory for messages");
  for (int64_t i = 0; i < nx && st == TSR_OK; i++) {
    if (x[i].from == me && x[i].to == me) {
      if (x[i].n) memcpy(x[i].dst, x[i].src, sizeof(double) * x[i].n); /* empty: may be NULL */
    } else if (!x[i].n)
      continue;
    else if (x[i].from == me)
      sendn[x[i].to] += x[i].n;
    else if (x[i].to == me)
      recvn[x[i].from] += x[i].n;
  }
  int ns = 0, nr = 0;
  for (int p = 0; p < P && st == TSR_OK; p++) {
    if (sendn[p]) {
      if (!(sbuf[p] = malloc(sizeof(double) * sendn[p])))
        st = TSR_ERROR(TSR_ERR_MEMORY, "out of memory");
      sends[ns++] = (tsr_p2p_msg){p, sbuf[p], sendn[p]};
    }
    if (recvn[p] && st == TSR_OK) {
      if (!(rbuf[p] = malloc(sizeof(double) * recvn[p])))
        st = TSR_ERROR(TSR_ERR_MEMORY, "out of memory");
      recvs[nr++] = (tsr_p2p_msg){p, rbuf[p], recvn[p]};
    }
  }
  if (st == TSR_OK) {
    for (int p = 0; p < P; p++) sendn[p] = recvn[p] = 0;
    for (int64_t i = 0; i < nx; i++)
      if (x[i].from == me && x[i].to != me && x[i].n) {
        memcpy(sbuf[x[i].to] + sendn[x[i].to], x[i].src, sizeof(double) * x[i].n);
        sendn[x[i].to] += x[i].n;
      }
    if (ns || nr) st = tsr_p2p_exchange(sends, ns, recvs, nr, tag);
  }
  for (int64_t i = 0; i < nx && st == TSR_OK; i++)
    if (x[i].to == me && x[i].from != me && x[i].n) {
      memcpy(x[i].dst, rbuf[x[i].from] + recvn[x[i].from], sizeof(double) * x[i].n);
      recvn[x[i].from] += x[i].n;
    }
  for (int p = 0; sbuf && rbuf && p < P; p++) free(sbuf[p]), free(rbuf[p]);
  free(sendn), free(recvn), free(sbuf), free(rbuf), free(sends), free(recvs);
  return st;
}
