/*
 * modules.h - the module prefixes a NumPy or Dask user writes: `np.sum(x)`,
 * `da.random.normal(...)`, `numpy.mean(x, axis=0)` call the same functions as
 * `sum(x)`, `normal(...)`, `mean(x, axis=0)`, and the import lines of a pasted
 * script header (`import numpy as np`) are accepted and ignored.
 *
 * One table (modules.c) holds the prefixes; the parser reads it to accept
 * imports, the interpreter to resolve prefixed names, `tessera info` to list
 * them. The job language has no module objects: a prefix only ever stands in
 * front of the name of a function or constant.
 */
#ifndef TSR_MODULES_H
#define TSR_MODULES_H

#include <stddef.h>

#include "lang/ast.h"

typedef struct tsr_module_prefix {
  const char *prefix; /* as written before the last dot: "np", "dask.array.random" */
  const char *module; /* the Python module it names: "numpy", "dask.array.random" */
  int random;         /* 1: random distributions only (NumPy's np.random) ; 0: the rest */
  const char *other;  /* the prefix of the other half: "np.random" for "np" and back */
} tsr_module_prefix;

extern const tsr_module_prefix tsr_module_prefixes[];
extern const int tsr_nmodule_prefixes;

/* The longest prefix that dotted ("np.random.normal") starts with, followed
 * by a dot; *rest is what follows that dot ("normal"). NULL when none. */
const tsr_module_prefix *tsr_module_match(const char *dotted, const char **rest);

/* Whether `import module` (alias NULL) or `import module as alias` is one
 * of the accepted header lines: the module of a prefix, under that prefix
 * or under its own name. */
int tsr_module_import_ok(const char *module, const char *alias);

/* The accepted import lines, ", "-separated, into buf (for messages). */
void tsr_module_imports(char *buf, size_t n);

/* Writes the dotted name that e spells (NAME or NAME.NAME...) into buf;
 * 0 when e is anything else or the name does not fit. */
int tsr_dotted_name(const ast_node *e, char *buf, size_t n);

#endif
