/*
 * h5read.c - a small reader of HDF5 files for the shell tests, written with
 * the plain HDF5 C API and no tessera code, so that the tests check tessera's
 * results files with an independent reader.
 *
 *   h5read FILE DATASET       "shape: (d0, d1, ...)" ("()" for a scalar),
 *                             "dtype: float64|float32|...", then every value
 *                             (row-major) with %.17g, one a line
 *   h5read FILE --attr NAME   an attribute of the root group: a string as is,
 *                             numbers with %.17g, one a line
 *   h5read FILE --list        the names of every dataset, one a line
 *
 * Exits 1 with a message on stderr when the file, dataset or attribute
 * cannot be read; 2 on bad usage.
 */
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *prog = "h5read";

static int die(const char *fmt, const char *a, const char *b) {
  fprintf(stderr, "%s: ", prog);
  fprintf(stderr, fmt, a, b);
  fputc('\n', stderr);
  return 1;
}

static const char *type_name(hid_t type) {
  H5T_class_t cls = H5Tget_class(type);
  size_t size = H5Tget_size(type);
  if (cls == H5T_FLOAT) return size == 4 ? "float32" : size == 8 ? "float64" : "float";
  if (cls == H5T_INTEGER) {
    static const char *const s[] = {"int8", "int16", "int32", "int64"}, *const u[] = {
                                                                            "uint8", "uint16",
                                                                            "uint32", "uint64"};
    int k = size == 1 ? 0 : size == 2 ? 1 : size == 4 ? 2 : 3;
    return H5Tget_sign(type) == H5T_SGN_NONE ? u[k] : s[k];
  }
  if (cls == H5T_ENUM && size == 1) return "bool";
  if (cls == H5T_STRING) return "string";
  return "other";
}

/* Number of elements and the shape line of a dataspace. */
static hssize_t print_shape(hid_t space) {
  int nd = H5Sget_simple_extent_ndims(space);
  if (nd < 0) return -1;
  hsize_t dims[H5S_MAX_RANK];
  H5Sget_simple_extent_dims(space, dims, NULL);
  printf("shape: (");
  for (int d = 0; d < nd; d++) printf("%s%llu", d ? ", " : "", (unsigned long long)dims[d]);
  printf("%s)\n", nd == 1 ? "," : "");
  return H5Sget_simple_extent_npoints(space);
}

static void print_numbers(const double *v, hssize_t n) {
  for (hssize_t i = 0; i < n; i++) printf("%.17g\n", v[i]);
}

static int read_dataset(hid_t file, const char *path, const char *name) {
  hid_t d = H5Dopen2(file, name, H5P_DEFAULT);
  if (d < 0) return die("no dataset '%s' in '%s'", name, path);
  hid_t space = H5Dget_space(d), type = H5Dget_type(d);
  int rc = 1;
  hssize_t n = print_shape(space);
  H5T_class_t cls = H5Tget_class(type);
  if (n < 0 || (cls != H5T_FLOAT && cls != H5T_INTEGER)) {
    die("dataset '%s' in '%s' is not numeric", name, path);
  } else {
    printf("dtype: %s\n", type_name(type));
    double *buf = malloc(sizeof(double) * (size_t)(n > 0 ? n : 1));
    if (!buf) {
      die("out of memory reading '%s'%s", name, "");
    } else if (n > 0 && H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0) {
      die("cannot read dataset '%s' in '%s'", name, path);
    } else {
      print_numbers(buf, n);
      rc = 0;
    }
    free(buf);
  }
  H5Tclose(type);
  H5Sclose(space);
  H5Dclose(d);
  return rc;
}

static int read_string_attr(hid_t a, hid_t type, const char *name) {
  int rc = 1;
  if (H5Tis_variable_str(type) > 0) {
    hid_t mem = H5Tcopy(H5T_C_S1);
    H5Tset_size(mem, H5T_VARIABLE);
    H5Tset_cset(mem, H5Tget_cset(type));
    char *s = NULL;
    if (H5Aread(a, mem, &s) >= 0 && s) {
      printf("%s\n", s);
      H5free_memory(s);
      rc = 0;
    }
    H5Tclose(mem);
  } else {
    size_t size = H5Tget_size(type);
    char *s = calloc(1, size + 1);
    hid_t mem = H5Tcopy(type);
    if (s && H5Aread(a, mem, s) >= 0) {
      printf("%s\n", s);
      rc = 0;
    }
    H5Tclose(mem);
    free(s);
  }
  if (rc) die("cannot read string attribute '%s'%s", name, "");
  return rc;
}

static int read_attr(hid_t file, const char *path, const char *name) {
  if (H5Aexists(file, name) <= 0) return die("no attribute '%s' in '%s'", name, path);
  hid_t a = H5Aopen(file, name, H5P_DEFAULT);
  if (a < 0) return die("cannot open attribute '%s' in '%s'", name, path);
  hid_t type = H5Aget_type(a), space = H5Aget_space(a);
  int rc = 1;
  H5T_class_t cls = H5Tget_class(type);
  if (cls == H5T_STRING) {
    rc = read_string_attr(a, type, name);
  } else if (cls == H5T_FLOAT || cls == H5T_INTEGER) {
    hssize_t n = H5Sget_simple_extent_npoints(space);
    double *buf = malloc(sizeof(double) * (size_t)(n > 0 ? n : 1));
    if (buf && n >= 0 && H5Aread(a, H5T_NATIVE_DOUBLE, buf) >= 0) {
      print_numbers(buf, n);
      rc = 0;
    } else {
      die("cannot read attribute '%s' in '%s'", name, path);
    }
    free(buf);
  } else {
    die("attribute '%s' in '%s' is neither a string nor a number", name, path);
  }
  H5Sclose(space);
  H5Tclose(type);
  H5Aclose(a);
  return rc;
}

/* H5Lvisit keeps one signature across HDF5 1.8 to 1.14 (the unversioned
 * names map consistently), unlike H5Ovisit. */
static herr_t list_one(hid_t group, const char *name, const H5L_info_t *info, void *data) {
  (void)info;
  (void)data;
  hid_t obj = H5Oopen(group, name, H5P_DEFAULT);
  if (obj < 0) return 0; /* a dangling link is not a dataset */
  if (H5Iget_type(obj) == H5I_DATASET) printf("%s\n", name);
  H5Oclose(obj);
  return 0;
}

static int list_datasets(hid_t file, const char *path) {
  if (H5Lvisit(file, H5_INDEX_NAME, H5_ITER_INC, list_one, NULL) < 0)
    return die("cannot list the datasets of '%s'%s", path, "");
  return 0;
}

int main(int argc, char **argv) {
  if (argc != 3 && !(argc == 4 && !strcmp(argv[2], "--attr"))) {
    fprintf(stderr, "usage: %s FILE DATASET | FILE --attr NAME | FILE --list\n", prog);
    return 2;
  }
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL); /* our messages only */
  const char *path = argv[1];
  hid_t file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  if (file < 0) return die("cannot open HDF5 file '%s'%s", path, "");
  int rc;
  if (argc == 4)
    rc = read_attr(file, path, argv[3]);
  else if (!strcmp(argv[2], "--list"))
    rc = list_datasets(file, path);
  else
    rc = read_dataset(file, path, argv[2]);
  H5Fclose(file);
  if (fflush(stdout) != 0) rc = 1;
  return rc;
}
