/*
 * registry.c - the backends this build has, by name (PETSc's VecRegisterAll):
 * the CPU's always, the CUDA backend's only when it was built, so a build
 * without CUDA has no table for it at all and `--backend=cuda` is refused by
 * name in job/setup.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <string.h>

#include "backend/backend.h"

extern const tsr_backend_ops tsr_cpu_backend;
#ifdef TSR_HAVE_CUDA
extern const tsr_backend_ops tsr_gpu_backend;
#endif

static const tsr_backend_ops *const registered[] = {
    &tsr_cpu_backend,
#ifdef TSR_HAVE_CUDA
    &tsr_gpu_backend,
#endif
};

int tsr_backend_count(void) { return (int)(sizeof registered / sizeof registered[0]); }

const tsr_backend_ops *tsr_backend_at(int i) {
  return i >= 0 && i < tsr_backend_count() ? registered[i] : NULL;
}

const tsr_backend_ops *tsr_backend_find(const char *name) {
  for (int i = 0; i < tsr_backend_count(); i++)
    if (!strcmp(registered[i]->name, name)) return registered[i];
  return NULL;
}
