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
#include <stdint.h>
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

/* ---- the direct path (tsr_h5_plan_direct, tsr_h5_read_span) ---- */

/* What a float64 test dataset is made of. */
typedef struct f8spec {
  hid_t type;        /* file type */
  const hsize_t *ch; /* HDF5 chunks, or NULL: contiguous */
  int gzip;          /* deflate level, or < 0 */
  hsize_t userblock; /* of a new file */
  hsize_t written;   /* rows written (the rest never is: unallocated chunks) */
} f8spec;

/* A 2-d float64 dataset v[i][j] = 100 i + j + 0.25 (rows >= written: the
 * fill value -1.5) in a new file. */
static void make_f8(const char *name, int rows, int cols, f8spec sp) {
  hid_t fcpl = H5Pcreate(H5P_FILE_CREATE);
  if (sp.userblock) H5Pset_userblock(fcpl, sp.userblock);
  hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, fcpl, H5P_DEFAULT);
  hsize_t dims[2] = {(hsize_t)rows, (hsize_t)cols};
  hid_t space = H5Screate_simple(2, dims, NULL), dcpl = H5Pcreate(H5P_DATASET_CREATE);
  double fill = -1.5;
  H5Pset_fill_value(dcpl, H5T_NATIVE_DOUBLE, &fill);
  if (sp.ch) H5Pset_chunk(dcpl, 2, sp.ch);
  if (sp.gzip >= 0) H5Pset_deflate(dcpl, (unsigned)sp.gzip);
  hid_t d = H5Dcreate2(f, name, sp.type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
  double *v = malloc(sizeof(double) * (size_t)(rows * cols));
  for (int i = 0; i < rows; i++)
    for (int j = 0; j < cols; j++) v[i * cols + j] = 100.0 * i + j + 0.25;
  hsize_t start[2] = {0, 0}, count[2] = {sp.written ? sp.written : (hsize_t)rows, (hsize_t)cols};
  hid_t mspace = H5Screate_simple(2, count, NULL);
  H5Sselect_hyperslab(space, H5S_SELECT_SET, start, NULL, count, NULL);
  ck_assert_int_ge(H5Dwrite(d, H5T_NATIVE_DOUBLE, mspace, space, H5P_DEFAULT, v), 0);
  free(v);
  H5Sclose(mspace);
  H5Dclose(d);
  H5Pclose(dcpl);
  H5Pclose(fcpl);
  H5Sclose(space);
  H5Fclose(f);
}

static const hsize_t CH46[2] = {4, 6};

/* Plans the box start/count (stride 1 unless given) and checks that it is
 * direct or not as expected, and that the span reads exactly the doubles
 * tsr_h5_read does, counting the same bytes. */
static void expect_direct(tsr_h5_reader *r, int64_t r0, int64_t c0, int64_t nr, int64_t nc,
                          const int64_t *stride, int direct) {
  int64_t start[2] = {r0, c0}, count[2] = {nr, nc}, one[2] = {1, 1};
  tsr_h5_span span = {-1, -1};
  int got = tsr_h5_plan_direct(r, start, stride ? stride : one, count, &span);
  ck_assert_msg(got == direct, "box (%lld, %lld) + (%lld, %lld): direct %d, expected %d",
                (long long)r0, (long long)c0, (long long)nr, (long long)nc, got, direct);
  if (!got) return;
  ck_assert_int_eq(span.bytes, nr * nc * 8);
  double want[64], out[64];
  ck_assert_int_le(nr * nc, 64);
  ck_assert_int_eq(tsr_h5_read(r, start, one, count, want), TSR_OK);
  double before = tsr_h5_reader_bytes(r);
  ck_assert_int_eq(tsr_h5_read_span(r, &span, out), TSR_OK);
  ck_assert(tsr_h5_reader_bytes(r) == before + 8.0 * (double)(nr * nc));
  ck_assert_int_eq(memcmp(want, out, sizeof(double) * (size_t)(nr * nc)), 0);
}

START_TEST(direct_reads_are_runs_of_one_stored_chunk) {
  make_f8("/x", 10, 6, (f8spec){H5T_IEEE_F64LE, CH46, -1, 0, 0});
  tsr_h5_reader *r;
  ck_assert_int_eq(tsr_h5_reader_open(path, "/x", 0, &r), TSR_OK);
  expect_direct(r, 0, 0, 4, 6, NULL, 1); /* a whole chunk */
  expect_direct(r, 4, 0, 4, 6, NULL, 1);
  expect_direct(r, 8, 0, 2, 6, NULL, 1); /* the edge chunk's rows in the dataset */
  expect_direct(r, 5, 0, 2, 6, NULL, 1); /* whole rows inside a chunk */
  expect_direct(r, 6, 1, 1, 4, NULL, 1); /* part of one row */
  expect_direct(r, 9, 5, 1, 1, NULL, 1);
  expect_direct(r, 2, 0, 4, 6, NULL, 0);              /* across two chunks */
  expect_direct(r, 0, 0, 4, 3, NULL, 0);              /* gaps between rows */
  expect_direct(r, 0, 0, 2, 6, (int64_t[]){2, 1}, 0); /* a step */
  expect_direct(r, 3, 0, 1, 6, (int64_t[]){5, 1}, 1); /* a step over one element: none */
  ck_assert_int_eq(tsr_h5_reader_close(r), TSR_OK);
}
END_TEST

START_TEST(direct_reads_are_row_major_runs_of_contiguous_data) {
  make_f8("/c", 7, 5, (f8spec){H5T_IEEE_F64LE, NULL, -1, 0, 0});
  tsr_h5_reader *r;
  ck_assert_int_eq(tsr_h5_reader_open(path, "/c", 0, &r), TSR_OK);
  expect_direct(r, 0, 0, 7, 5, NULL, 1); /* all of it */
  expect_direct(r, 2, 0, 3, 5, NULL, 1); /* a block of rows */
  expect_direct(r, 6, 2, 1, 3, NULL, 1); /* part of a row */
  expect_direct(r, 2, 0, 3, 4, NULL, 0); /* columns */
  expect_direct(r, 0, 0, 4, 5, (int64_t[]){2, 1}, 0);
  ck_assert_int_eq(tsr_h5_reader_close(r), TSR_OK);
}
END_TEST

/* Each case must stay with HDF5 and read what HDF5 reads. */
static void expect_hdf5(const char *what, int64_t r0, double first) {
  tsr_h5_reader *r;
  ck_assert_int_eq(tsr_h5_reader_open(path, "/x", 0, &r), TSR_OK);
  int64_t start[2] = {r0, 0}, one[2] = {1, 1}, count[2] = {4, 6};
  tsr_h5_span span;
  ck_assert_msg(!tsr_h5_plan_direct(r, start, one, count, &span), "%s: planned direct", what);
  double out[24];
  ck_assert_int_eq(tsr_h5_read(r, start, one, count, out), TSR_OK);
  ck_assert_msg(out[0] == first, "%s: read %g, expected %g", what, out[0], first);
  ck_assert_int_eq(tsr_h5_reader_close(r), TSR_OK);
}

START_TEST(conversions_filters_userblocks_and_fill_values_stay_with_hdf5) {
  make_f8("/x", 10, 6, (f8spec){H5T_IEEE_F64BE, CH46, -1, 0, 0});
  expect_hdf5("big-endian float64", 4, 400.25);
  make_f8("/x", 10, 6, (f8spec){H5T_IEEE_F32LE, CH46, -1, 0, 0});
  expect_hdf5("float32", 4, 400.25);
  make_f8("/x", 10, 6, (f8spec){H5T_IEEE_F64LE, CH46, 4, 0, 0});
  expect_hdf5("gzip", 4, 400.25);
  make_f8("/x", 10, 6, (f8spec){H5T_IEEE_F64LE, CH46, -1, 512, 0});
  expect_hdf5("a userblock (chunked)", 4, 400.25);
  make_f8("/x", 10, 6, (f8spec){H5T_IEEE_F64LE, NULL, -1, 1024, 0});
  expect_hdf5("a userblock (contiguous)", 4, 400.25);
  make_f8("/x", 10, 6, (f8spec){H5T_IEEE_F64LE, CH46, -1, 0, 4});
  expect_hdf5("a chunk never written", 4, -1.5);
}
END_TEST

START_TEST(a_span_beyond_the_end_of_the_file_is_an_io_error_naming_it) {
  make_f8("/x", 10, 6, (f8spec){H5T_IEEE_F64LE, NULL, -1, 0, 0});
  tsr_h5_reader *r;
  ck_assert_int_eq(tsr_h5_reader_open(path, "/x", 0, &r), TSR_OK);
  int64_t start[2] = {0, 0}, one[2] = {1, 1}, count[2] = {10, 6};
  tsr_h5_span span;
  ck_assert(tsr_h5_plan_direct(r, start, one, count, &span));
  ck_assert_int_eq(truncate(path, span.offset + 100), 0); /* the file changed under the reader */
  double out[60];
  ck_assert_int_eq(tsr_h5_read_span(r, &span, out), TSR_ERR_IO);
  ck_assert_ptr_nonnull(strstr(tsr_error_message(), "cannot read dataset '/x' of"));
  ck_assert_ptr_nonnull(strstr(tsr_error_message(), path));
  ck_assert_ptr_nonnull(strstr(tsr_error_message(), "ends before"));
  tsr_h5_reader_close(r);
}
END_TEST

START_TEST(several_threads_read_spans_of_one_reader_at_once) {
  enum { ROWS = 4000, COLS = 6, CH = 100 };
  const hsize_t ch[2] = {CH, COLS};
  make_f8("/x", ROWS, COLS, (f8spec){H5T_IEEE_F64LE, ch, -1, 0, 0});
  tsr_h5_reader *r;
  ck_assert_int_eq(tsr_h5_reader_open(path, "/x", 0, &r), TSR_OK);
  tsr_h5_span spans[ROWS / CH];
  int64_t one[2] = {1, 1}, count[2] = {CH, COLS};
  for (int k = 0; k < ROWS / CH; k++)
    ck_assert(tsr_h5_plan_direct(r, (int64_t[]){k * CH, 0}, one, count, &spans[k]));
  double *out = malloc(sizeof(double) * ROWS * COLS);
  int bad = 0;
#pragma omp parallel for schedule(dynamic, 1) num_threads(4) reduction(+ : bad)
  for (int k = 0; k < ROWS / CH; k++)
    bad += tsr_h5_read_span(r, &spans[k], out + k * CH * COLS) != TSR_OK;
  ck_assert_int_eq(bad, 0);
  for (int i = 0; i < ROWS; i++)
    for (int j = 0; j < COLS; j++) ck_assert(out[i * COLS + j] == 100.0 * i + j + 0.25);
  ck_assert(tsr_h5_reader_bytes(r) == 8.0 * ROWS * COLS);
  free(out);
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
  tcase_add_test(t, direct_reads_are_runs_of_one_stored_chunk);
  tcase_add_test(t, direct_reads_are_row_major_runs_of_contiguous_data);
  tcase_add_test(t, conversions_filters_userblocks_and_fill_values_stay_with_hdf5);
  tcase_add_test(t, a_span_beyond_the_end_of_the_file_is_an_io_error_naming_it);
  tcase_add_test(t, several_threads_read_spans_of_one_reader_at_once);
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
