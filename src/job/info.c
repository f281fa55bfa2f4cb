/*
 * info.c - `tessera info`: the build, the ranks, every registered backend
 * (and the CUDA one when it is not built), how device data moves, the HDF5
 * flavour, and the operation table; `tessera info --markdown`: the operation
 * table as the user guide's table of functions (scripts/gen-function-table.sh
 * writes it there, tests/cli/doc_functions.sh fails when the two differ).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <stdio.h>
#include <string.h>

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

/* The heading of each group of the user guide's table (eval/builtin.h), and
 * the group of an op whose line names none: its kind's. */
static const char *const section_titles[SEC_COUNT] = {
    [SEC_CREATION] = "array creation",
    [SEC_ELEMENTWISE] = "elementwise (NumPy broadcasting)",
    [SEC_REDUCTION] = "reductions",
    [SEC_SCAN] = "scans, differences, sorting",
    [SEC_ARRAY] = "arrays",
    [SEC_HDF5] = "HDF5",
    [SEC_LINALG] = "linear algebra",
    [SEC_MODEL] = "models (sections 6 and 7)",
    [SEC_JOB] = "jobs",
};
static const tsr_op_section kind_sections[] = {SEC_CREATION, SEC_ELEMENTWISE, SEC_REDUCTION,
                                               SEC_ARRAY};

static tsr_op_section op_section(const tsr_op_def *op) {
  return op->section != SEC_KIND ? op->section : kind_sections[op->kind];
}

/* The length of the signature that starts an op's doc line: up to its first
 * ": " outside brackets and quotes (the whole line when there is none). */
static size_t signature_length(const char *doc) {
  int depth = 0, quoted = 0;
  for (size_t i = 0; doc[i]; i++) {
    if (doc[i] == '"')
      quoted = !quoted;
    else if (!quoted && strchr("([{", doc[i]))
      depth++;
    else if (!quoted && strchr(")]}", doc[i]))
      depth--;
    else if (!quoted && !depth && doc[i] == ':' && doc[i + 1] == ' ')
      return i;
  }
  return strlen(doc);
}

/* n characters of s in a table cell, where '|' must be escaped (in code too)
 * and, outside code, '*' (`2**x1 + 2**x2` would turn bold). */
static void cell(FILE *out, const char *s, size_t n, int code) {
  for (size_t i = 0; i < n; i++) {
    if (s[i] == '|' || (s[i] == '*' && !code)) fputc('\\', out);
    fputc(s[i], out);
  }
}

/* One row: `signature` (and `x.name(...)` for a method its doc does not
 * spell), then what it does. */
static void markdown_row(FILE *out, const tsr_op_def *op) {
  size_t n = signature_length(op->doc);
  char method[64];
  snprintf(method, sizeof method, ".%s(", op->name);
  fputs("| `", out);
  cell(out, op->doc, n, 1);
  fputc('`', out);
  if (op->is_method && !strstr(op->doc, method))
    fprintf(out, ", `x.%s(%s)`", op->name, op->params[1] ? "..." : "");
  fputs(" | ", out);
  if (op->doc[n]) cell(out, op->doc + n + 2, strlen(op->doc + n + 2), 0);
  fputs(" |\n", out);
}

void tsr_info_markdown(FILE *out) {
  for (int sec = SEC_KIND + 1, first = 1; sec < SEC_COUNT; sec++) {
    int n = 0;
    for (int i = 0; i < tsr_nops; i++) {
      if (op_section(&tsr_ops[i]) != (tsr_op_section)sec) continue;
      if (!n++)
        fprintf(out, "%s#### %s\n\n| function | what it does |\n|---|---|\n", first ? "" : "\n",
                section_titles[sec]);
      markdown_row(out, &tsr_ops[i]);
    }
    first = first && !n;
  }
}
