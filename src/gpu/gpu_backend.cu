/*
 * gpu_backend.cu - the CUDA backend's entry: device binding, setup and
 * teardown, `tessera info`'s line and the ops table. The programs run in gpu_eval.cu, memory is gpu_memory.cu's,
 * the dense kernels gpu_linalg.cu's and gpu_dense.cu's, the GLM pass
 * gpu_glm.cu's, the NCCL transport and exchanges gpu_nccl.cu's.
 * Nothing here sees MPI: which ranks share a device is decided in
 * job/setup.c from the identities gpu_bind returns, and handed in.
 */
#include <cuda_runtime.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern "C" {
#include "gpu/gpu_linalg.h"
#include "gpu/gpu_nccl.h"
}
#include "gpu/gpu_check.h"
#include "gpu/gpu_device.h"

static int gpu_available(void) {
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
}

static int exchange_on; /* NCCL carries the exchanges: exchange moves device memory */

/* The entry k (0-based) of a comma-separated list into out; the list's
 * length. */
static int list_entry(const char *list, int k, char *out, size_t n) {
  int count = 0;
  out[0] = '\0';
  for (const char *p = list; *p;) {
    const char *end = strchr(p, ',');
    size_t len = end ? (size_t)(end - p) : strlen(p);
    if (count == k && len < n) {
      memcpy(out, p, len);
      out[len] = '\0';
    }
    count++;
    if (!end) break;
    p = end + 1;
  }
  return count;
}

/* The node's NVIDIA GPUs as the driver lists them, without starting CUDA
 * (0: unknown). */
static int driver_gpus(void) {
  DIR *d = opendir("/proc/driver/nvidia/gpus");
  if (!d) return 0;
  int n = 0;
  for (struct dirent *e; (e = readdir(d));)
    if (e->d_name[0] != '.') n++;
  closedir(d);
  return n;
}

/* One GPU a rank before CUDA starts. With every GPU of a node visible, the
 * CUDA driver initialises each of them in every rank: cudaFree(0) took
 * 0.58-0.77 s with two H200s visible and 0.32-0.34 s with one, and a
 * one-process `eval 1+1` 0.65 s against 0.43 s (bench/RESULTS.md
 * 2026-11-28 10:35; 1.0-1.2 s with four H100s visible). A rank binds
 * device local_rank % n (gpu_bind), so it is made to see that one only:
 * CUDA_VISIBLE_DEVICES becomes that entry of the list the launcher or the
 * user set (srun --gpus-per-task, a batch system's GPU list, by hand; a
 * list of one is left as it is), else that index among the driver's GPUs.
 * The device bound is the one bound before; NCCL keeps its NVLink path
 * (P2P/CUMEM: 325 against 330 GB/s for 1 GiB between two H200s). Once a
 * process; TESSERA_GPU_ISOLATE=0 turns it off (job/setup.c). */
static void gpu_prepare(int local_rank) {
  static int done;
  if (done) return;
  done = 1;
  const char *v = getenv("CUDA_VISIBLE_DEVICES");
  char pick[256];
  if (v) {
    int n = list_entry(v, 0, pick, sizeof pick);
    if (n <= 1 || !list_entry(v, local_rank % n, pick, sizeof pick) || !pick[0]) return;
  } else {
    int n = driver_gpus();
    if (n <= 1) return;
    snprintf(pick, sizeof pick, "%d", local_rank % n);
  }
  setenv("CUDA_VISIBLE_DEVICES", pick, 1);
}

/* Ranks share a GPU when another rank of this node has the same device (by
 * UUID): several ranks seeing all GPUs as 0..n-1, or a launcher that gives
 * each rank its own CUDA_VISIBLE_DEVICES (--gpus-per-task=1) where every rank
 * sees its GPU as device 0. job/setup.c compares the UUIDs bind returns. */
static int gpu_bind(int local_rank, tsr_device_id *id, int *count) {
  int n = 0;
  CUDA_CHECK(cudaGetDeviceCount(&n));
  *count = n;
  tsr_gpu_device_id = local_rank % n;
  CUDA_CHECK(cudaSetDevice(tsr_gpu_device_id));
  cudaDeviceProp prop;
  CUDA_CHECK(cudaGetDeviceProperties(&prop, tsr_gpu_device_id));
  memset(id->bytes, 0, sizeof id->bytes);
  memcpy(id->bytes, prop.uuid.bytes,
         sizeof prop.uuid.bytes < sizeof id->bytes ? sizeof prop.uuid.bytes : sizeof id->bytes);
  return TSR_OK;
}

static int gpu_setup(const tsr_backend_config *cfg) {
  if (tsr_gpu_device_id < 0) {
    tsr_device_id id;
    int n;
    TSR_CHECK(gpu_bind(0, &id, &n));
  }
  size_t free_b = 0, total_b = 0;
  CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
  tsr_gpu_memory_start(cfg->mem_limit && cfg->mem_limit < free_b ? cfg->mem_limit
                                                                 : free_b / 10 * 9);
  tsr_gpu_no_walk = cfg->no_walk;
  /* NCCL needs a distinct GPU per rank: where any node shares GPUs among
   * ranks (--gpus-shared), every rank exchanges through MPI instead. */
  if (!cfg->any_shared) TSR_CHECK(tsr_gpu_nccl_start());
  exchange_on = tsr_gpu_nccl_on();
  if (tsr_gpu_memory_limit() < tsr_gpu_eval_min_memory())
    return TSR_ERROR(TSR_ERR_MEMORY, "--mem-limit leaves too little GPU memory (%zu bytes)",
                     tsr_gpu_memory_limit());
  return TSR_OK;
}

static void gpu_teardown(void) {
  tsr_gpu_nccl_stop();
  tsr_gpu_linalg_release();
  tsr_gpu_eval_stop();
  tsr_gpu_memory_stop();
}

static void gpu_describe(char *buf, size_t n) {
  int count = 0, rt = 0, drv = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) count = 0;
  cudaRuntimeGetVersion(&rt);
  cudaDriverGetVersion(&drv);
  if (count == 0) {
    snprintf(buf, n, "cuda: built (runtime %d.%d); no GPU visible", rt / 1000, (rt % 1000) / 10);
    return;
  }
  cudaDeviceProp prop;
  cudaGetDeviceProperties(&prop, tsr_gpu_device_id >= 0 ? tsr_gpu_device_id : 0);
  char nccl[32];
  tsr_gpu_nccl_version(nccl, sizeof nccl);
  snprintf(buf, n, "cuda: %d GPU%s (%s, %.0f GiB), runtime %d.%d, driver %d.%d, %s", count,
           count == 1 ? "" : "s", prop.name, prop.totalGlobalMem / 1073741824.0, rt / 1000,
           (rt % 1000) / 10, drv / 1000, (drv % 1000) / 10, nccl);
}

/* Device memory; the dense kernels (cuSOLVER/cuBLAS on device buffers)
 * always; exchanges of device buffers while NCCL is up. */
static unsigned gpu_caps(void) { return TSR_BE_DENSE | (exchange_on ? TSR_BE_EXCHANGE : 0u); }

extern "C" const tsr_backend_ops tsr_gpu_backend = {
    .name = "cuda",
    .available = gpu_available,
    .bind = gpu_bind,
    .prepare = gpu_prepare,
    .setup = gpu_setup,
    .teardown = gpu_teardown,
    .caps = gpu_caps,
    .prog_limits = tsr_gpu_prog_limits,
    .reduce_chunks = tsr_gpu_reduce_chunks,
    .eval_box = tsr_gpu_eval_box,
    .reduce_box = tsr_gpu_reduce_box,
    .alloc = tsr_gpu_alloc,
    .release = tsr_gpu_release,
    .download = tsr_gpu_download,
    .upload = tsr_gpu_upload,
    .describe = gpu_describe,
    .peak_memory = tsr_gpu_peak_memory,
    .memory_limit = tsr_gpu_memory_limit,
    .exchange = tsr_gpu_nccl_exchange,
    .exchange_ready = tsr_gpu_nccl_ready,
    .qr = tsr_gpu_qr,
    .svd = tsr_gpu_svd,
    .gemm = tsr_gpu_gemm,
    .copy2d = tsr_gpu_copy2d,
    .axpy = tsr_gpu_axpy,
    .col_absmax = tsr_gpu_col_absmax,
    .scale_cols = tsr_gpu_scale_cols,
    .qr_deferred = tsr_gpu_qr_deferred,
    .gram = tsr_gpu_gram,
    .cholesky = tsr_gpu_cholesky,
    .trsm_upper_right = tsr_gpu_trsm_upper_right,
    .glm_pass = tsr_gpu_glm_pass,
    .scan = tsr_gpu_scan,
    .scan_carry = tsr_gpu_scan_carry,
    .scan_box = tsr_gpu_scan_box,
    .sort = tsr_gpu_sort,
    .hist = tsr_gpu_hist,
    .lu = tsr_gpu_lu,
    .compress = tsr_gpu_compress,
    .hist_box = tsr_gpu_hist_box,
};
