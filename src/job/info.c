/*
 * info.c - `tessera info`: the build, the ranks, every registered backend
 * (and the CUDA one when it is not built), how device data moves, the HDF5
 * flavour, and the operation table.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <stdio.h>

#include "backend/backend.h"
#include "eval/ops.h"
#include "lang/modules.h"
#include "mpi/comm.h"
#include "tessera.h"

/* The NumPy/Dask names a pasted script may use (lang/modules.h). */
static void info_prefixes(FILE *out) {
  static const char *const what[] = {"every operation above but the random generators",
                                     "the random generators"};
  fprintf(out, "prefixes:");
  for (int random = 0; random <= 1; random++) {
    for (int i = 0, n = 0; i < tsr_nmodule_prefixes; i++)
      if (tsr_module_prefixes[i].random == random)
        fprintf(out, "%s%s.NAME", n++ ? ", " : random ? "; " : " ", tsr_module_prefixes[i].prefix);
    fprintf(out, " (%s)", what[random]);
  }
  char imports[256];
  tsr_module_imports(imports, sizeof imports);
  fprintf(out, "\nimports: accepted and ignored: %s\n", imports);
}

void tsr_info(FILE *out) {
  char buf[256];
  fprintf(out, "tessera %s\n", TSR_VERSION);
  fprintf(out, "ranks: %d (this node: %d)\n", tsr_comm_size(), tsr_comm_local_size());
  for (int i = 0; i < tsr_backend_count(); i++) {
    tsr_be_describe(tsr_backend_at(i), buf, sizeof buf);
    fprintf(out, "backend %s\n", buf);
  }
  if (!tsr_backend_find("cuda")) fprintf(out, "backend cuda: not built (configure --with-cuda)\n");
  fprintf(out, "mpi: CUDA-aware %s (device data moves through %s)\n",
          tsr_comm_mpi_cuda_aware() ? "yes" : "no",
#ifdef TSR_HAVE_CUDA
          "NCCL with the cuda backend"
#else
          "host buffers and MPI"
#endif
  );
  char start[600];
  tsr_comm_start_choices(start, sizeof start);
  fprintf(out, "mpi start: %s\n", start);
#ifdef TSR_HAVE_PARALLEL_HDF5
  fprintf(out, "hdf5: parallel (load/save: collective MPI-IO reads and writes)\n");
#else
  fprintf(out, "hdf5: serial (load: independent reads; save: ranks write in turn)\n");
#endif
  fprintf(out, "operations:\n");
  static const char *kinds[] = {"generator", "elementwise", "reduction", "array"};
  for (int i = 0; i < tsr_nops; i++)
    fprintf(out, "  %-10s %-12s %s\n", tsr_ops[i].name, kinds[tsr_ops[i].kind], tsr_ops[i].doc);
  info_prefixes(out);
}
