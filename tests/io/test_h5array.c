/*
 * test_h5array.c - unit tests of the HDF5 layer of load and save
 * (io/h5array.c), without MPI: files are made and read back with the plain
 * HDF5 C API, so a bug shared by tessera's reader and writer cannot hide.
 */
#define _DEFAULT_SOURCE /* mkdtemp */

#include "util/error.h"
#include "io/h5array.h"

#include <check.h>
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char dir[64], path[128];

static void setup(void) {
  snprintf(dir, sizeof dir, "/tmp/tsr-h5array-XXXXXX");
  ck_assert_ptr_nonnull(mkdtemp(dir));
  snprintf(path, sizeof path, "%s/f.h5", dir);
  tsr_error_clear();
}

static void teardown(void) {
  char cmd[160];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  ck_assert_int_eq(system(cmd), 0);
}

/* A 2-d int16 dataset v[i][j] = 100 i + j with HDF5 chunks (3, 4). */
static void make_int16(const char *name, int rows, int cols) {
  hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  hsize_t dims[2] = {(hsize_t)rows, (hsize_t)cols}, ch[2] = {3, 4};
  hid_t space = H5Screate_simple(2, dims, NULL), dcpl = H5Pcreate(H5P_DATASET_CREATE);
  hid_t lcpl = H5Pcreate(H5P_LINK_CREATE);
  H5Pset_create_intermediate_group(lcpl, 1);
  H5Pset_chunk(dcpl, 2, ch);
  hid_t d = H5Dcreate2(f, name, H5T_STD_I16LE, space, lcpl, dcpl, H5P_DEFAULT);
  H5Pclose(lcpl);
  short *v = malloc(sizeof(short) * (size_t)(rows * cols));
  for (int i = 0; i < rows; i++)
    for (int j = 0; j < cols; j++) v[i * cols + j] = (short)(100 * i + j);
  ck_assert_int_ge(H5Dwrite(d, H5T_NATIVE_SHORT, H5S_ALL, H5S_ALL, H5P_DEFAULT, v), 0);
  free(v);
  H5Dclose(d);
  H5Pclose(dcpl);
  H5Sclose(space);
  H5Fclose(f);
}

START_TEST(cap_chunk_keeps_chunks_under_4_gib_by_halving_the_longest_axis) {
  int64_t small[2] = {1000, 1000};
  tsr_h5_cap_chunk(2, small, 8);
  ck_assert_int_eq(small[0], 1000);
  ck_assert_int_eq(small[1], 1000);
  int64_t big[2] = {100000, 70000}; /* 56 GB of float64 */
  tsr_h5_cap_chunk(2, big, 8);
  ck_assert_int_le(big[0] * big[1] * 8, ((int64_t)1 << 32) - 1);
  ck_assert_int_ge(big[0] * big[1] * 8 * 2, ((int64_t)1 << 32) - 1); /* no smaller than needed */
  int64_t line[1] = {(int64_t)1 << 31}; /* 8 GiB of float32; 4 GiB is one byte too many */
  tsr_h5_cap_chunk(1, line, 4);
  ck_assert_int_eq(line[0], (int64_t)1 << 29);
}
END_TEST

START_TEST(describe_reports_shape_type_and_hdf5_chunks) {
  make_int16("/g/x", 10, 7);
  tsr_h5meta m;
  ck_assert_int_eq(tsr_h5_describe(path, "/g/x", &m), TSR_OK);
  ck_assert_int_eq(m.ndim, 2);
  ck_assert_int_eq(m.shape[0], 10);
  ck_assert_int_eq(m.shape[1], 7);
  ck_assert_int_eq(m.type_class, TSR_H5_INT);
  ck_assert_int_eq(m.type_size, 2);
  ck_assert_int_eq(m.chunked, 1);
  ck_assert_int_eq(m.chunk[0], 3);
  ck_assert_int_eq(m.chunk[1], 4);
}
END_TEST

START_TEST(describe_names_file_and_dataset_when_the_dataset_is_missing) {
  make_int16("x", 4, 4);
  tsr_h5meta m;
  ck_assert_int_eq(tsr_h5_describe(path, "/y", &m), TSR_ERR_IO);
  ck_assert_ptr_nonnull(strstr(tsr_error_message(), "no dataset '/y'"));
  ck_assert_ptr_nonnull(strstr(tsr_error_message(), path));
}
END_TEST

START_TEST(strided_hyperslab_reads_convert_integers_to_doubles) {
  make_int16("x", 10, 7);
  tsr_h5_reader *r;
  ck_assert_int_eq(tsr_h5_reader_open(path, "/x", 0, &r), TSR_OK);
  int64_t start[2] = {1, 6}, stride[2] = {4, 3}, count[2] = {3, 1};
  double out[3];
  ck_assert_int_eq(tsr_h5_read(r, start, stride, count, out), TSR_OK);
  ck_assert(out[0] == 106 && out[1] == 506 && out[2] == 906);
  ck_assert(tsr_h5_reader_bytes(r) == 6.0); /* 3 int16 elements */
  ck_assert_int_eq(tsr_h5_reader_close(r), TSR_OK);
}
END_TEST

START_TEST(writer_follows_given_chunks_and_gzip_and_rounds_float32) {
  char tmp[160];
  snprintf(tmp, sizeof tmp, "%s.tmp", path);
  tsr_h5_writer *w;
  ck_assert_int_eq(tsr_h5_writer_create(tmp, path, 0, &w), TSR_OK);
  int64_t shape[2] = {5, 6}, chunk[2] = {2, 6}, start[2] = {2, 0}, count[2] = {2, 6};
  ck_assert_int_eq(tsr_h5_define(w, "/a/b", 2, shape, chunk, 1, 7), TSR_OK);
  double v[12];
  for (int i = 0; i < 12; i++) v[i] = 1.0 / (i + 1);
  ck_assert_int_eq(tsr_h5_write(w, "/a/b", start, count, v), TSR_OK);
  ck_assert_int_eq(tsr_h5_writer_close(w), TSR_OK);
  hid_t f = H5Fopen(tmp, H5F_ACC_RDONLY, H5P_DEFAULT), d = H5Dopen2(f, "/a/b", H5P_DEFAULT);
  hid_t dcpl = H5Dget_create_plist(d), type = H5Dget_type(d);
  hsize_t c[2];
  ck_assert_int_eq(H5Pget_chunk(dcpl, 2, c), 2);
  ck_assert(c[0] == 2 && c[1] == 6);
  unsigned flags, cd[2] = {0};
  size_t ncd = 2;
  ck_assert_int_eq(H5Pget_filter2(dcpl, 0, &flags, &ncd, cd, 0, NULL, NULL), H5Z_FILTER_DEFLATE);
  ck_assert_int_eq(cd[0], 7);
  ck_assert_int_eq((int)H5Tget_size(type), 4);
  float back[30];
  ck_assert_int_ge(H5Dread(d, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, back), 0);
  for (int i = 0; i < 12; i++) ck_assert(back[12 + i] == (float)v[i]);
  H5Tclose(type);
  H5Pclose(dcpl);
  H5Dclose(d);
  H5Fclose(f);
}
END_TEST

static Suite *h5array_suite(void) {
  Suite *s = suite_create("h5array");
  TCase *t = tcase_create("h5array");
  tcase_add_checked_fixture(t, setup, teardown);
  tcase_add_test(t, cap_chunk_keeps_chunks_under_4_gib_by_halving_the_longest_axis);
  tcase_add_test(t, describe_reports_shape_type_and_hdf5_chunks);
  tcase_add_test(t, describe_names_file_and_dataset_when_the_dataset_is_missing);
  tcase_add_test(t, strided_hyperslab_reads_convert_integers_to_doubles);
  tcase_add_test(t, writer_follows_given_chunks_and_gzip_and_rounds_float32);
  suite_add_tcase(s, t);
  return s;
}

int main(void) {
  SRunner *sr = srunner_create(h5array_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
