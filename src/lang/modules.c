/*
 * modules.c - the table of module prefixes (see modules.h) and the walks over
 * it. Adding a prefix is one line here; the parser, the interpreter, `tessera
 * info` and the docs' list follow.
 */
#include "lang/modules.h"

#include <stdio.h>
#include <string.h>

/* The plain prefixes, then their random halves (NumPy keeps distributions
 * in numpy.random, Dask in dask.array.random). */
const tsr_module_prefix tsr_module_prefixes[] = {
    {"np", "numpy", 0, "np.random"},
    {"numpy", "numpy", 0, "numpy.random"},
    {"da", "dask.array", 0, "da.random"},
    {"dask.array", "dask.array", 0, "dask.array.random"},
    {"np.linalg", "numpy.linalg", 0, "np.random"},
    {"numpy.linalg", "numpy.linalg", 0, "numpy.random"},
    {"da.linalg", "dask.array.linalg", 0, "da.random"},
    {"dask.array.linalg", "dask.array.linalg", 0, "dask.array.random"},
    {"linalg", "numpy.linalg", 0, "np.random"},
    {"np.fft", "numpy.fft", 0, "np.random"},
    {"numpy.fft", "numpy.fft", 0, "numpy.random"},
    {"da.fft", "dask.array.fft", 0, "da.random"},
    {"dask.array.fft", "dask.array.fft", 0, "dask.array.random"},
    {"fft", "numpy.fft", 0, "np.random"},
    {"np.random", "numpy.random", 1, "np"},
    {"numpy.random", "numpy.random", 1, "numpy"},
    {"da.random", "dask.array.random", 1, "da"},
    {"dask.array.random", "dask.array.random", 1, "dask.array"},
};
const int tsr_nmodule_prefixes = (int)(sizeof tsr_module_prefixes / sizeof *tsr_module_prefixes);

const tsr_module_prefix *tsr_module_match(const char *dotted, const char **rest) {
  const tsr_module_prefix *best = NULL;
  size_t best_len = 0;
  for (int i = 0; i < tsr_nmodule_prefixes; i++) {
    const char *p = tsr_module_prefixes[i].prefix;
    size_t len = strlen(p);
    if (len > best_len && strncmp(dotted, p, len) == 0 && dotted[len] == '.') {
      best = &tsr_module_prefixes[i];
      best_len = len;
    }
  }
  if (best) *rest = dotted + best_len + 1;
  return best;
}

/* A submodule's prefix (np.linalg, np.fft): a name written under its parent's
 * import, never imported itself. */
static int submodule(const tsr_module_prefix *m) {
  return strstr(m->module, ".linalg") != NULL || strstr(m->module, ".fft") != NULL;
}

/* Only the plain halves are imported: `import numpy.random` is not a header
 * line the table promises to understand. */
int tsr_module_import_ok(const char *module, const char *alias) {
  for (int i = 0; i < tsr_nmodule_prefixes; i++) {
    const tsr_module_prefix *m = &tsr_module_prefixes[i];
    if (m->random || submodule(m) || strcmp(m->module, module) != 0) continue;
    if (!strcmp(m->prefix, alias ? alias : module)) return 1;
  }
  return 0;
}

void tsr_module_imports(char *buf, size_t n) {
  size_t used = 0;
  buf[0] = '\0';
  for (int i = 0; i < tsr_nmodule_prefixes && used < n; i++) {
    const tsr_module_prefix *m = &tsr_module_prefixes[i];
    if (m->random || submodule(m)) continue;
    int k = strcmp(m->prefix, m->module)
                ? snprintf(buf + used, n - used, "%simport %s as %s", used ? ", " : "", m->module,
                           m->prefix)
                : snprintf(buf + used, n - used, "%simport %s", used ? ", " : "", m->module);
    if (k > 0) used += (size_t)k;
  }
}

int tsr_dotted_name(const ast_node *e, char *buf, size_t n) {
  if (e->kind == AST_NAME) return snprintf(buf, n, "%s", e->str) < (int)n;
  if (e->kind != AST_ATTR || !tsr_dotted_name(e->left, buf, n)) return 0;
  size_t len = strlen(buf);
  return snprintf(buf + len, n - len, ".%s", e->str) < (int)(n - len);
}
