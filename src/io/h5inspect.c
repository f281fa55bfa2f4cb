/*
 * h5inspect.c - `tessera inspect FILE.h5` (tsr_h5_inspect, h5array.h):
 * every dataset with its shape, dtype, HDF5 chunks, filters and
 * attributes, and the root group's attributes (the provenance a run wrote).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "io/h5array.h"

#include <stdlib.h>
#include <string.h>

#include "io/h5check.h"
#include "io/h5common.h"

static void print_type(FILE *out, hid_t type) {
  H5T_class_t cls = H5Tget_class(type);
  size_t size = H5Tget_size(type);
  if (cls == H5T_FLOAT)
    fprintf(out, "float%zu", 8 * size);
  else if (cls == H5T_INTEGER)
    fprintf(out, "%sint%zu", H5Tget_sign(type) == H5T_SGN_NONE ? "u" : "", 8 * size);
  else if (cls == H5T_STRING)
    fprintf(out, "string");
  else
    fprintf(out, "%s", tsr_h5_class_name(cls) + (tsr_h5_class_name(cls)[1] == 'n' ? 3 : 2));
}

static void print_dims(FILE *out, int nd, const hsize_t *d) {
  fputc('(', out);
  for (int a = 0; a < nd; a++) fprintf(out, "%s%llu", a ? ", " : "", (unsigned long long)d[a]);
  fputs(nd == 1 ? ",)" : ")", out);
}

/* A string value; lines after the first are indented under it. */
static void print_text(FILE *out, const char *s, const char *indent) {
  if (!strchr(s, '\n')) {
    fprintf(out, "%s\n", s);
    return;
  }
  fputc('\n', out);
  while (*s) {
    size_t n = strcspn(s, "\n");
    fprintf(out, "%s| %.*s\n", indent, (int)n, s);
    s += n + (s[n] == '\n');
  }
}

typedef struct attr_ctx {
  FILE *out;
  const char *indent;
  int count;
} attr_ctx;

static herr_t print_attr(hid_t obj, const char *name, const H5A_info_t *info, void *data) {
  (void)info;
  attr_ctx *ctx = data;
  FILE *out = ctx->out;
  const char *indent = ctx->indent;
  ctx->count++;
  hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
  if (a < 0) return 0;
  hid_t type = H5Aget_type(a), space = H5Aget_space(a);
  H5T_class_t cls = H5Tget_class(type);
  hssize_t n = H5Sget_simple_extent_npoints(space);
  fprintf(out, "%s%s = ", indent, name);
  if (cls == H5T_STRING && H5Tis_variable_str(type) > 0 && n == 1) {
    hid_t mem = H5Tcopy(H5T_C_S1);
    H5Tset_size(mem, H5T_VARIABLE);
    H5Tset_cset(mem, H5Tget_cset(type));
    char *s = NULL;
    if (H5Aread(a, mem, &s) >= 0 && s) {
      char deeper[64];
      snprintf(deeper, sizeof deeper, "%s    ", indent);
      print_text(out, s, deeper);
      H5free_memory(s);
    } else {
      fprintf(out, "(unreadable)\n");
    }
    H5Tclose(mem);
  } else if (cls == H5T_STRING && n == 1) {
    size_t size = H5Tget_size(type);
    char *s = calloc(1, size + 1);
    if (s && H5Aread(a, type, s) >= 0)
      fprintf(out, "%s\n", s);
    else
      fprintf(out, "(unreadable)\n");
    free(s);
  } else if ((cls == H5T_FLOAT || cls == H5T_INTEGER) && n >= 1 && n <= 64) {
    double v[64];
    if (H5Aread(a, H5T_NATIVE_DOUBLE, v) >= 0)
      for (hssize_t i = 0; i < n; i++) fprintf(out, "%s%.17g", i ? " " : "", v[i]);
    else
      fprintf(out, "(unreadable)");
    fputc('\n', out);
  } else {
    print_type(out, type);
    fprintf(out, " attribute (%lld values)\n", (long long)n);
  }
  H5Sclose(space);
  H5Tclose(type);
  H5Aclose(a);
  return 0;
}

static void print_layout(FILE *out, hid_t d, int nd) {
  hid_t dcpl = H5Dget_create_plist(d);
  if (dcpl < 0) return;
  if (H5Pget_layout(dcpl) == H5D_CHUNKED) {
    hsize_t c[H5S_MAX_RANK];
    H5Pget_chunk(dcpl, nd, c);
    fputs("  chunks ", out);
    print_dims(out, nd, c);
  } else {
    fputs(H5Pget_layout(dcpl) == H5D_COMPACT ? "  compact" : "  contiguous", out);
  }
  int nf = H5Pget_nfilters(dcpl);
  if (nf <= 0) fputs("  no compression", out);
  for (int i = 0; i < nf; i++) {
    unsigned flags = 0, cd[8] = {0};
    size_t ncd = 8;
    char name[64] = "";
    H5Z_filter_t id = H5Pget_filter2(dcpl, (unsigned)i, &flags, &ncd, cd, sizeof name, name, NULL);
    if (id == H5Z_FILTER_DEFLATE)
      fprintf(out, "  gzip level %u", ncd > 0 ? cd[0] : 0);
    else
      fprintf(out, "  %s", tsr_h5_filter_name(id));
  }
  H5Pclose(dcpl);
}

static herr_t print_dataset(hid_t group, const char *name, const H5L_info_t *info, void *data) {
  (void)info;
  FILE *out = data;
  hid_t d = H5Oopen(group, name, H5P_DEFAULT);
  if (d < 0) return 0;
  if (H5Iget_type(d) != H5I_DATASET) {
    H5Oclose(d);
    return 0;
  }
  hid_t space = H5Dget_space(d), type = H5Dget_type(d);
  int nd = H5Sget_simple_extent_ndims(space);
  hsize_t dims[H5S_MAX_RANK];
  if (nd > 0) H5Sget_simple_extent_dims(space, dims, NULL);
  fprintf(out, "  /%s  shape ", name);
  print_dims(out, nd > 0 ? nd : 0, dims);
  fputs("  ", out);
  print_type(out, type);
  print_layout(out, d, nd);
  fputc('\n', out);
  hsize_t idx = 0;
  attr_ctx ctx = {out, "      ", 0};
  H5Aiterate2(d, H5_INDEX_NAME, H5_ITER_INC, &idx, print_attr, &ctx);
  H5Tclose(type);
  H5Sclose(space);
  H5Oclose(d);
  return 0;
}

int tsr_h5_inspect(const char *path, FILE *out) {
  tsr_h5_quiet();
  TSR_CHECK(tsr_h5_check_file(path));
  hid_t file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  H5_CHECK(file, TSR_ERR_IO, "cannot open HDF5 file '%s'", path);
  fprintf(out, "%s\nattributes:\n", path);
  hsize_t idx = 0;
  attr_ctx ctx = {out, "  ", 0};
  H5Aiterate2(file, H5_INDEX_NAME, H5_ITER_INC, &idx, print_attr, &ctx);
  if (ctx.count == 0) fprintf(out, "  (none)\n");
  fprintf(out, "datasets:\n");
  herr_t st = H5Lvisit(file, H5_INDEX_NAME, H5_ITER_INC, print_dataset, out);
  H5Fclose(file);
  if (st < 0) return TSR_ERROR(TSR_ERR_IO, "cannot list the datasets of '%s'", path);
  return TSR_OK;
}
