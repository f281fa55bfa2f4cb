/*
 * h5tool.c - writes and reads HDF5 test files with the plain HDF5 C API and no
 * tessera code, so that the load/save tests check tessera against an
 * independent reader and writer:
 *
 *   h5tool write FILE DSET TYPE D0[,D1..] [chunks=C0,..|contiguous] [gzip=L]
 *                [shuffle] [seed=S] [append] [userblock=B]
 *       creates FILE (or adds to it with `append`; a new file with a
 *       userblock of B bytes) a dataset of the given type (f8 f4 i1 i2 i4 i8
 *       u1 u2 u4 u8 little-endian, f8be big-endian; str cmp enum for bad
 *       input) and shape, filled with deterministic pseudo-random values: floats uniform
 *       in [-100, 100) with random low bits, integers in [-1000, 1000]
 *       ([0, 2000] unsigned, small types clipped to their range).
 *   h5tool slab FILE DSET START STEP COUNT [affine=A,B]
 *       the hyperslab (comma lists, one entry per axis; a negative STEP walks
 *       down from START, like a Python slice) read as doubles by H5Dread,
 *       row-major, one %.17g value a line (A * v + B when affine is given,
 *       computed in C doubles).
 *   h5tool stats FILE DSET [START STEP COUNT]
 *       "sum mean min max var" of the hyperslab (all when omitted), computed
 *       in long double (two passes for var): the reference for reductions.
 *   h5tool colstats FILE DSET
 *       for a 2-d dataset: the sum over axis 0 of each column, one a line.
 *   h5tool layout FILE DSET
 *       "dtype chunks|contiguous [gzip L]" of a dataset.
 *
 * Exit status 1 with a message when something cannot be done; 2 on usage.
 */
#include <hdf5.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXD 8

static int die(const char *what, const char *arg) {
  fprintf(stderr, "h5tool: %s%s%s\n", what, arg ? ": " : "", arg ? arg : "");
  exit(1);
}

static int parse_list(const char *s, long long *v) {
  int n = 0;
  while (*s && n < MAXD) {
    char *end;
    v[n++] = strtoll(s, &end, 10);
    if (end == s) die("bad number list", s);
    s = *end == ',' ? end + 1 : end;
  }
  return n;
}

static uint64_t state;
static uint64_t next_u64(void) { /* splitmix64 */
  uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

static hid_t file_type(const char *t, int *is_float) {
  *is_float = 0;
  if (!strcmp(t, "f8")) return *is_float = 1, H5T_IEEE_F64LE;
  if (!strcmp(t, "f4")) return *is_float = 1, H5T_IEEE_F32LE;
  if (!strcmp(t, "f8be")) return *is_float = 1, H5T_IEEE_F64BE;
  if (!strcmp(t, "i1")) return H5T_STD_I8LE;
  if (!strcmp(t, "i2")) return H5T_STD_I16LE;
  if (!strcmp(t, "i4")) return H5T_STD_I32LE;
  if (!strcmp(t, "i8")) return H5T_STD_I64LE;
  if (!strcmp(t, "u1")) return H5T_STD_U8LE;
  if (!strcmp(t, "u2")) return H5T_STD_U16LE;
  if (!strcmp(t, "u4")) return H5T_STD_U32LE;
  if (!strcmp(t, "u8")) return H5T_STD_U64LE;
  return -1;
}

/* Datasets load must refuse: a string, a compound and an enum other than
 * h5py's bool (enum: FALSE = 0, TRUE = 1, which load reads as bool). */
static hid_t bad_type(const char *t) {
  if (!strcmp(t, "str")) {
    hid_t s = H5Tcopy(H5T_C_S1);
    H5Tset_size(s, 8);
    return s;
  }
  if (!strcmp(t, "cmp")) {
    hid_t c = H5Tcreate(H5T_COMPOUND, 16);
    H5Tinsert(c, "a", 0, H5T_NATIVE_DOUBLE);
    H5Tinsert(c, "b", 8, H5T_NATIVE_DOUBLE);
    return c;
  }
  if (!strcmp(t, "enum")) {
    hid_t e = H5Tenum_create(H5T_NATIVE_INT8);
    signed char f = 0, tr = 1;
    H5Tenum_insert(e, "FALSE", &f);
    H5Tenum_insert(e, "TRUE", &tr);
    return e;
  }
  if (!strcmp(t, "enum3")) { /* not h5py's bool */
    hid_t e = H5Tenum_create(H5T_NATIVE_INT8);
    signed char r = 0, g = 1, b = 2;
    H5Tenum_insert(e, "RED", &r);
    H5Tenum_insert(e, "GREEN", &g);
    H5Tenum_insert(e, "BLUE", &b);
    return e;
  }
  return -1;
}

static int cmd_write(int argc, char **argv) {
  if (argc < 6) return 2;
  const char *path = argv[2], *name = argv[3], *tname = argv[4];
  long long dims[MAXD], chunks[MAXD];
  int nd = parse_list(argv[5], dims), nc = 0, gzip = -1, shuffle = 0, append = 0, contiguous = 0;
  long long userblock = 0;
  state = 12345;
  for (int i = 6; i < argc; i++) {
    if (!strncmp(argv[i], "chunks=", 7))
      nc = parse_list(argv[i] + 7, chunks);
    else if (!strcmp(argv[i], "contiguous"))
      contiguous = 1;
    else if (!strncmp(argv[i], "gzip=", 5))
      gzip = atoi(argv[i] + 5);
    else if (!strcmp(argv[i], "shuffle"))
      shuffle = 1;
    else if (!strncmp(argv[i], "seed=", 5))
      state = strtoull(argv[i] + 5, NULL, 10);
    else if (!strcmp(argv[i], "append"))
      append = 1;
    else if (!strncmp(argv[i], "userblock=", 10))
      userblock = strtoll(argv[i] + 10, NULL, 10);
    else
      die("unknown write option", argv[i]);
  }
  int is_float;
  hid_t ftype = file_type(tname, &is_float), bad = -1;
  if (ftype < 0 && (bad = bad_type(tname)) < 0) die("unknown type", tname);
  hsize_t hd[MAXD], hc[MAXD];
  size_t n = 1;
  for (int a = 0; a < nd; a++) {
    hd[a] = (hsize_t)dims[a];
    n *= (size_t)dims[a];
    hc[a] = a < nc ? (hsize_t)chunks[a] : 1;
  }
  hid_t fcpl = H5Pcreate(H5P_FILE_CREATE);
  if (userblock > 0 && H5Pset_userblock(fcpl, (hsize_t)userblock) < 0) die("bad userblock", NULL);
  hid_t file = append ? H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT)
                      : H5Fcreate(path, H5F_ACC_TRUNC, fcpl, H5P_DEFAULT);
  if (file < 0) die("cannot create", path);
  H5Pclose(fcpl);
  hid_t space = nd == 0 ? H5Screate(H5S_SCALAR) : H5Screate_simple(nd, hd, NULL);
  hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE), lcpl = H5Pcreate(H5P_LINK_CREATE);
  H5Pset_create_intermediate_group(lcpl, 1);
  if (nc && !contiguous) H5Pset_chunk(dcpl, nd, hc);
  if (nc && shuffle) H5Pset_shuffle(dcpl);
  if (nc && gzip >= 0) H5Pset_deflate(dcpl, (unsigned)gzip);
  hid_t d = H5Dcreate2(file, name, ftype >= 0 ? ftype : bad, space, lcpl, dcpl, H5P_DEFAULT);
  if (d < 0) die("cannot create dataset", name);
  herr_t st = 0;
  if (ftype >= 0) {
    double *v = malloc(sizeof(double) * (n + 1));
    if (!v) die("out of memory", NULL);
    for (size_t i = 0; i < n; i++) {
      uint64_t r = next_u64();
      if (is_float) {
        v[i] = -100.0 + 200.0 * (double)(r >> 11) * 0x1.0p-53;
      } else {
        long long k = (long long)(r % 2001) - (tname[0] == 'u' ? 0 : 1000);
        if (!strcmp(tname, "i1")) k = k > 127 ? 127 : k < -128 ? -128 : k;
        if (!strcmp(tname, "u1")) k = k > 255 ? 255 : k;
        v[i] = (double)k;
      }
    }
    if (n > 0) st = H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v);
    free(v);
  } else {
    char *raw = calloc(n + 1, 16);
    if (!raw) die("out of memory", NULL);
    if (n > 0) st = H5Dwrite(d, bad, H5S_ALL, H5S_ALL, H5P_DEFAULT, raw);
    free(raw);
    H5Tclose(bad);
  }
  if (st < 0) die("cannot write", name);
  H5Dclose(d);
  H5Pclose(dcpl);
  H5Pclose(lcpl);
  H5Sclose(space);
  if (H5Fclose(file) < 0) die("cannot close", path);
  return 0;
}

/* Opens DSET and selects START/STEP/COUNT (a negative step reads the same
 * elements from the lowest one up; *reversed says which axes to flip). */
static hid_t select_slab(hid_t d, int argc, char **argv, int at, int *nd, long long *count,
                         int *reversed) {
  hid_t space = H5Dget_space(d);
  *nd = H5Sget_simple_extent_ndims(space);
  hsize_t dims[MAXD];
  H5Sget_simple_extent_dims(space, dims, NULL);
  for (int a = 0; a < *nd; a++) {
    count[a] = (long long)dims[a];
    reversed[a] = 0;
  }
  if (argc <= at + 2) return space;
  long long start[MAXD], step[MAXD];
  if (parse_list(argv[at], start) != *nd || parse_list(argv[at + 1], step) != *nd ||
      parse_list(argv[at + 2], count) != *nd)
    die("START, STEP and COUNT need one entry per axis", NULL);
  hsize_t s[MAXD], t[MAXD], c[MAXD];
  for (int a = 0; a < *nd; a++) {
    reversed[a] = step[a] < 0;
    t[a] = (hsize_t)(step[a] < 0 ? -step[a] : step[a]);
    s[a] = (hsize_t)(step[a] < 0 ? start[a] + step[a] * (count[a] - 1) : start[a]);
    c[a] = (hsize_t)count[a];
  }
  if (H5Sselect_hyperslab(space, H5S_SELECT_SET, s, t, c, NULL) < 0) die("bad hyperslab", NULL);
  return space;
}

static double *read_slab(const char *path, const char *name, int argc, char **argv, int at, int *nd,
                         long long *count, size_t *n) {
  hid_t file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  if (file < 0) die("cannot open", path);
  hid_t d = H5Dopen2(file, name, H5P_DEFAULT);
  if (d < 0) die("no dataset", name);
  int reversed[MAXD];
  hid_t fspace = select_slab(d, argc, argv, at, nd, count, reversed);
  hsize_t c[MAXD];
  *n = 1;
  for (int a = 0; a < *nd; a++) {
    c[a] = (hsize_t)count[a];
    *n *= (size_t)count[a];
  }
  double *v = malloc(sizeof(double) * (*n + 1)), *w = malloc(sizeof(double) * (*n + 1));
  if (!v || !w) die("out of memory", NULL);
  hid_t mspace = H5Screate_simple(*nd, c, NULL);
  if (*n > 0 && H5Dread(d, H5T_NATIVE_DOUBLE, mspace, fspace, H5P_DEFAULT, v) < 0)
    die("cannot read", name);
  /* flip the reversed axes */
  for (size_t i = 0; i < *n; i++) {
    size_t rem = i, src = 0, stride = 1;
    for (int a = *nd - 1; a >= 0; a--) {
      size_t k = rem % (size_t)count[a];
      rem /= (size_t)count[a];
      src += (reversed[a] ? (size_t)count[a] - 1 - k : k) * stride;
      stride *= (size_t)count[a];
    }
    w[i] = v[src];
  }
  free(v);
  H5Sclose(mspace);
  H5Sclose(fspace);
  H5Dclose(d);
  H5Fclose(file);
  return w;
}

static int cmd_slab(int argc, char **argv) {
  if (argc < 4) return 2;
  double A = 1, B = 0;
  int affine = 0, nd;
  if (argc >= 8 && !strncmp(argv[7], "affine=", 7)) {
    affine = 1;
    if (sscanf(argv[7] + 7, "%lf,%lf", &A, &B) != 2) die("bad affine", argv[7]);
  }
  long long count[MAXD];
  size_t n;
  double *v = read_slab(argv[2], argv[3], argc, argv, 4, &nd, count, &n);
  for (size_t i = 0; i < n; i++) {
    double x = v[i];
    if (affine) x = A * x + B;
    printf("%.17g\n", x);
  }
  free(v);
  return 0;
}

static int cmd_stats(int argc, char **argv) {
  if (argc < 4) return 2;
  int nd;
  long long count[MAXD];
  size_t n;
  double *v = read_slab(argv[2], argv[3], argc, argv, 4, &nd, count, &n);
  long double sum = 0, ss = 0;
  double mn = INFINITY, mx = -INFINITY;
  for (size_t i = 0; i < n; i++) {
    sum += v[i];
    mn = v[i] < mn ? v[i] : mn;
    mx = v[i] > mx ? v[i] : mx;
  }
  long double mean = sum / (long double)n;
  for (size_t i = 0; i < n; i++) ss += (v[i] - mean) * (v[i] - mean);
  printf("%.17g %.17g %.17g %.17g %.17g\n", (double)sum, (double)mean, mn, mx,
         (double)(ss / (long double)n));
  free(v);
  return 0;
}

static int cmd_colstats(int argc, char **argv) {
  if (argc < 4) return 2;
  int nd;
  long long count[MAXD];
  size_t n;
  double *v = read_slab(argv[2], argv[3], 4, argv, 4, &nd, count, &n);
  if (nd != 2) die("colstats needs a 2-d dataset", argv[3]);
  for (long long j = 0; j < count[1]; j++) {
    long double s = 0;
    for (long long i = 0; i < count[0]; i++) s += v[i * count[1] + j];
    printf("%.17g\n", (double)s);
  }
  free(v);
  return 0;
}

static int cmd_layout(int argc, char **argv) {
  if (argc < 4) return 2;
  hid_t file = H5Fopen(argv[2], H5F_ACC_RDONLY, H5P_DEFAULT);
  if (file < 0) die("cannot open", argv[2]);
  hid_t d = H5Dopen2(file, argv[3], H5P_DEFAULT);
  if (d < 0) die("no dataset", argv[3]);
  hid_t type = H5Dget_type(d), dcpl = H5Dget_create_plist(d), space = H5Dget_space(d);
  int nd = H5Sget_simple_extent_ndims(space);
  printf("%s%zu", H5Tget_class(type) == H5T_FLOAT ? "f" : "i", H5Tget_size(type));
  if (H5Pget_layout(dcpl) == H5D_CHUNKED) {
    hsize_t c[MAXD];
    H5Pget_chunk(dcpl, nd, c);
    printf(" chunks=");
    for (int a = 0; a < nd; a++) printf("%s%llu", a ? "," : "", (unsigned long long)c[a]);
  } else {
    printf(" contiguous");
  }
  for (int i = 0; i < H5Pget_nfilters(dcpl); i++) {
    unsigned flags, cd[4] = {0};
    size_t ncd = 4;
    H5Z_filter_t f = H5Pget_filter2(dcpl, (unsigned)i, &flags, &ncd, cd, 0, NULL, NULL);
    if (f == H5Z_FILTER_DEFLATE)
      printf(" gzip=%u", cd[0]);
    else
      printf(" filter=%d", (int)f);
  }
  printf("\n");
  H5Sclose(space);
  H5Pclose(dcpl);
  H5Tclose(type);
  H5Dclose(d);
  H5Fclose(file);
  return 0;
}

int main(int argc, char **argv) {
  int rc = 2;
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  if (argc >= 2 && !strcmp(argv[1], "write"))
    rc = cmd_write(argc, argv);
  else if (argc >= 2 && !strcmp(argv[1], "slab"))
    rc = cmd_slab(argc, argv);
  else if (argc >= 2 && !strcmp(argv[1], "stats"))
    rc = cmd_stats(argc, argv);
  else if (argc >= 2 && !strcmp(argv[1], "colstats"))
    rc = cmd_colstats(argc, argv);
  else if (argc >= 2 && !strcmp(argv[1], "layout"))
    rc = cmd_layout(argc, argv);
  if (rc == 2)
    fprintf(stderr,
            "usage: h5tool write|slab|stats|colstats|layout FILE DSET ... (see tests/h5tool.c)\n");
  return rc;
}
