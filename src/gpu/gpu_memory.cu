/*
 * gpu_memory.cu - device memory of the CUDA backend: this rank's device, a
 * small caching pool under the rank's device-memory limit, copies in and
 * out, and the peak the summary reports.
 */
#include <cuda_runtime.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "gpu/gpu_check.h"
#include "gpu/gpu_device.h"

extern "C" {
#include "util/grow.h"
}

int tsr_gpu_device_id = -1;
static size_t device_mem_limit; /* bytes of device memory this rank may use */

/* ---- device memory: a caching pool ---------------------------------------
 * --no-fuse allocates and frees a chunk per operation; cudaMalloc/cudaFree
 * cost milliseconds and synchronize, so freed blocks are kept for reuse.
 * Held arrays keep one block per chunk, so the table grows with them (a
 * fixed table of 4096 blocks refused a persisted array's 4097th chunk as
 * "out of GPU memory" far below the limit). Idle blocks are given back when
 * a new block would pass the limit or cudaMalloc finds no room. */
typedef struct {
  double *ptr;
  size_t bytes;
  int used;
} pool_block;
static pool_block *pool;
static int64_t npool, pool_cap;
static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static size_t pool_bytes;

/* The device memory this rank allocated: the pool's blocks and the few
 * allocations outside it (launch scratch, NCCL staging), and their peak,
 * which the summary reports. cudaMemGetInfo cannot tell: it counts every
 * process on the GPU (tests run side by side; ranks may share a GPU). */
static size_t outside_bytes, own_peak;
static void note_peak(void) { /* under pool_lock */
  if (pool_bytes + outside_bytes > own_peak) own_peak = pool_bytes + outside_bytes;
}
void tsr_gpu_count_outside(long long bytes) {
  pthread_mutex_lock(&pool_lock);
  outside_bytes = (size_t)((long long)outside_bytes + bytes);
  note_peak();
  pthread_mutex_unlock(&pool_lock);
}
size_t tsr_gpu_peak_memory(void) { return own_peak; }

/* Frees the idle blocks (under pool_lock); 1 if there were any. */
static int pool_trim(void) {
  int64_t kept = 0;
  for (int64_t i = 0; i < npool; i++) {
    if (pool[i].used) {
      pool[kept++] = pool[i];
    } else {
      cudaFree(pool[i].ptr);
      pool_bytes -= pool[i].bytes;
    }
  }
  int freed = kept < npool;
  npool = kept;
  return freed;
}

/* What the pool holds, for the out-of-memory message (under pool_lock). */
static void pool_census(char *buf, size_t n) {
  int64_t used = 0;
  size_t used_bytes = 0;
  for (int64_t i = 0; i < npool; i++)
    if (pool[i].used) {
      used++;
      used_bytes += pool[i].bytes;
    }
  snprintf(buf, n, "%lld blocks in use holding %zu bytes, %lld idle, %zu outside the pool",
           (long long)used, used_bytes, (long long)(npool - used), outside_bytes);
}

int tsr_gpu_alloc(size_t bytes, double **ptr) {
  tsr_gpu_bind_device();
  pthread_mutex_lock(&pool_lock);
  int64_t best = -1;
  for (int64_t i = 0; i < npool; i++)
    if (!pool[i].used && pool[i].bytes >= bytes && pool[i].bytes <= 2 * bytes + 4096 &&
        (best < 0 || pool[i].bytes < pool[best].bytes))
      best = i;
  if (best >= 0) {
    pool[best].used = 1;
    *ptr = pool[best].ptr;
    pthread_mutex_unlock(&pool_lock);
    return TSR_OK;
  }
  int st = tsr_grow((void **)&pool, &pool_cap, npool + 1, sizeof *pool, "for the GPU pool's table");
  if (st != TSR_OK) {
    pthread_mutex_unlock(&pool_lock);
    return st;
  }
  if (pool_bytes + bytes > device_mem_limit) pool_trim();
  cudaError_t e = cudaErrorMemoryAllocation;
  if (pool_bytes + bytes <= device_mem_limit) {
    e = cudaMalloc((void **)ptr, bytes);
    if (e == cudaErrorMemoryAllocation && pool_trim()) { /* other processes' memory */
      cudaGetLastError();
      e = cudaMalloc((void **)ptr, bytes);
    }
  }
  if (e == cudaSuccess) {
    pool[npool++] = (pool_block){*ptr, bytes, 1};
    pool_bytes += bytes;
    note_peak();
  }
  char census[160] = "";
  if (e != cudaSuccess) {
    cudaGetLastError(); /* not sticky: the caller reports it */
    pool_census(census, sizeof census);
  }
  pthread_mutex_unlock(&pool_lock);
  if (e != cudaSuccess)
    return TSR_ERROR(TSR_ERR_MEMORY,
                     "out of GPU memory: %zu bytes for a chunk (%zu in use, limit %zu; %s)", bytes,
                     pool_bytes, device_mem_limit, census);
  return TSR_OK;
}

void tsr_gpu_release(double *ptr) {
  pthread_mutex_lock(&pool_lock);
  for (int64_t i = npool - 1; i >= 0; i--)
    if (pool[i].ptr == ptr) {
      pool[i].used = 0;
      break;
    }
  pthread_mutex_unlock(&pool_lock);
}

int tsr_gpu_download(const double *src, double *dst, size_t n) {
  tsr_gpu_bind_device();
  CUDA_CHECK(cudaMemcpy(dst, src, sizeof(double) * n, cudaMemcpyDeviceToHost));
  return TSR_OK;
}

/* Returns with the values in device memory: a cudaMemcpy from pageable host
 * memory may return once they are staged, before the DMA has written them,
 * and the buffer is often read next on another thread's stream (a --no-fuse
 * rechunk's chunk staged on a worker, sorted on the main thread: a median
 * once read the block's previous contents on a loaded GPU). */
int tsr_gpu_upload(const double *src, double *dst, size_t n) {
  tsr_gpu_bind_device();
  CUDA_CHECK(cudaMemcpy(dst, src, sizeof(double) * n, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaStreamSynchronize(cudaStreamPerThread));
  return TSR_OK;
}

void tsr_gpu_memory_start(size_t limit) {
  device_mem_limit = limit;
  pthread_mutex_lock(&pool_lock);
  own_peak = pool_bytes + outside_bytes; /* what earlier jobs of the process left */
  pthread_mutex_unlock(&pool_lock);
}

size_t tsr_gpu_memory_limit(void) { return device_mem_limit; }

void tsr_gpu_memory_stop(void) {
  for (int64_t i = 0; i < npool; i++) cudaFree(pool[i].ptr);
  free(pool);
  pool = NULL;
  npool = pool_cap = 0;
  pool_bytes = 0;
}
