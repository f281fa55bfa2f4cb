/*
 * test_results.c - unit tests of the HDF5 results-file writer (io/results.c).
 *
 * Files are read back with the plain HDF5 C API, not through the writer, so a
 * bug shared by writing and reading cannot hide. Every test works in its own
 * mkdtemp directory, which the teardown removes.
 */
#define _DEFAULT_SOURCE /* mkdtemp, DT_DIR */

#include "util/error.h"
#include "io/results.h"

#include <check.h>
#include <dirent.h>
#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[64];
static char path[128];

static void remove_tree(const char *p) {
  DIR *d = opendir(p);
  if (!d) {
    unlink(p);
    return;
  }
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    char sub[512];
    snprintf(sub, sizeof sub, "%s/%s", p, e->d_name);
    remove_tree(sub);
  }
  closedir(d);
  rmdir(p);
}

static void setup(void) {
  strcpy(dir, "/tmp/tsr-results-XXXXXX");
  ck_assert_ptr_nonnull(mkdtemp(dir));
  snprintf(path, sizeof path, "%s/out.h5", dir);
  tsr_error_clear();
}

static void teardown(void) {
  chmod(dir, 0700); /* undo the read-only test */
  remove_tree(dir);
}

/* Number of entries in d (0 when d cannot be opened). */
static int count_entries(const char *d) {
  DIR *h = opendir(d);
  if (!h) return 0;
  int n = 0;
  struct dirent *e;
  while ((e = readdir(h)) != NULL)
    if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) n++;
  closedir(h);
  return n;
}

static int has_temporary(const char *d) {
  DIR *h = opendir(d);
  if (!h) return 0;
  int found = 0;
  struct dirent *e;
  while ((e = readdir(h)) != NULL)
    if (strstr(e->d_name, ".tmp")) found = 1;
  closedir(h);
  return found;
}

static void write_text(const char *p, const char *text) {
  FILE *f = fopen(p, "w");
  ck_assert_ptr_nonnull(f);
  fputs(text, f);
  fclose(f);
}

static int has_text(const char *p, const char *text) {
  char buf[64] = {0};
  FILE *f = fopen(p, "r");
  if (!f) return 0;
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  return n == strlen(text) && memcmp(buf, text, n) == 0;
}

static void assert_io_failure(int st, const char *p) {
  ck_assert_int_eq(st, TSR_ERR_IO);
  ck_assert_int_eq(tsr_error_code(), TSR_ERR_IO);
  ck_assert_ptr_nonnull(strstr(tsr_error_message(), p));
}

/* Shape and file type of dataset name; values read as double. */
typedef struct readback {
  H5S_class_t space_class;
  int ndim;
  hsize_t dims[4];
  H5T_class_t type_class;
  size_t type_size;
  double values[16];
} readback;

static readback read_dataset(const char *file_path, const char *name) {
  readback r;
  memset(&r, 0, sizeof r);
  hid_t f = H5Fopen(file_path, H5F_ACC_RDONLY, H5P_DEFAULT);
  ck_assert_int_ge(f, 0);
  hid_t d = H5Dopen2(f, name, H5P_DEFAULT);
  ck_assert_int_ge(d, 0);
  hid_t s = H5Dget_space(d);
  r.space_class = H5Sget_simple_extent_type(s);
  r.ndim = H5Sget_simple_extent_ndims(s);
  ck_assert_int_le(r.ndim, 4);
  H5Sget_simple_extent_dims(s, r.dims, NULL);
  ck_assert_int_le(H5Sget_simple_extent_npoints(s), 16);
  hid_t t = H5Dget_type(d);
  r.type_class = H5Tget_class(t);
  r.type_size = H5Tget_size(t);
  ck_assert_int_ge(H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, r.values), 0);
  H5Tclose(t);
  H5Sclose(s);
  H5Dclose(d);
  H5Fclose(f);
  return r;
}

static void assert_bits_eq(const double *got, const double *want, int n) {
  ck_assert_int_eq(memcmp(got, want, (size_t)n * sizeof *want), 0);
}

START_TEST(scalar_is_stored_as_scalar_float64_exactly) {
  double v = 0.1;
  tsr_result_item it = {"total", 0, NULL, 0, &v, NULL, 0, NULL, NULL};
  ck_assert_int_eq(tsr_results_write(path, &it, 1, NULL, 0), TSR_OK);
  readback r = read_dataset(path, "total");
  ck_assert_int_eq(r.space_class, H5S_SCALAR);
  ck_assert_int_eq(r.ndim, 0);
  ck_assert_int_eq(r.type_class, H5T_FLOAT);
  ck_assert_uint_eq(r.type_size, 8);
  assert_bits_eq(r.values, &v, 1);
}
END_TEST

START_TEST(vector_round_trips_values_and_shape) {
  double v[5] = {1.0 / 3.0, -0.0, 1e300, -2.5e-310, INFINITY};
  int64_t shape[1] = {5};
  tsr_result_item it = {"v", 1, shape, 0, v, NULL, 0, NULL, NULL};
  ck_assert_int_eq(tsr_results_write(path, &it, 1, NULL, 0), TSR_OK);
  readback r = read_dataset(path, "v");
  ck_assert_int_eq(r.space_class, H5S_SIMPLE);
  ck_assert_int_eq(r.ndim, 1);
  ck_assert_uint_eq(r.dims[0], 5);
  ck_assert_uint_eq(r.type_size, 8);
  assert_bits_eq(r.values, v, 5);
}
END_TEST

START_TEST(matrix_round_trips_row_major_with_shape) {
  double m[6] = {1, 2, 3, 4, 5, 6.125};
  int64_t shape[2] = {2, 3};
  tsr_result_item it = {"m", 2, shape, 0, m, NULL, 0, NULL, NULL};
  ck_assert_int_eq(tsr_results_write(path, &it, 1, NULL, 0), TSR_OK);
  readback r = read_dataset(path, "m");
  ck_assert_int_eq(r.ndim, 2);
  ck_assert_uint_eq(r.dims[0], 2);
  ck_assert_uint_eq(r.dims[1], 3);
  assert_bits_eq(r.values, m, 6);
}
END_TEST

START_TEST(float32_item_is_stored_as_float32_of_the_doubles) {
  double v[3] = {0.1, -1e-3, 16777217.0};
  int64_t shape[1] = {3};
  tsr_result_item it = {"f", 1, shape, 1, v, NULL, 0, NULL, NULL};
  ck_assert_int_eq(tsr_results_write(path, &it, 1, NULL, 0), TSR_OK);
  readback r = read_dataset(path, "f");
  ck_assert_int_eq(r.type_class, H5T_FLOAT);
  ck_assert_uint_eq(r.type_size, 4);
  ck_assert_uint_eq(r.dims[0], 3);
  for (int i = 0; i < 3; i++) {
    float want = (float)v[i];
    ck_assert_int_eq(memcmp(&(float){(float)r.values[i]}, &want, 4), 0);
  }
}
END_TEST

START_TEST(several_items_are_all_written) {
  double a = 1, b[2] = {2, 3};
  int64_t shape[1] = {2};
  tsr_result_item its[2] = {{"a", 0, NULL, 0, &a, NULL, 0, NULL, NULL},
                            {"b", 1, shape, 1, b, NULL, 0, NULL, NULL}};
  ck_assert_int_eq(tsr_results_write(path, its, 2, NULL, 0), TSR_OK);
  ck_assert(read_dataset(path, "a").values[0] == 1.0);
  ck_assert(read_dataset(path, "b").values[1] == 3.0);
}
END_TEST

START_TEST(empty_vector_is_stored_with_zero_extent) {
  int64_t shape[1] = {0};
  tsr_result_item it = {"e", 1, shape, 0, NULL, NULL, 0, NULL, NULL};
  ck_assert_int_eq(tsr_results_write(path, &it, 1, NULL, 0), TSR_OK);
  readback r = read_dataset(path, "e");
  ck_assert_int_eq(r.ndim, 1);
  ck_assert_uint_eq(r.dims[0], 0);
}
END_TEST

/* Reads a string attribute of the root group, fixed or variable length. */
static char *read_string_attr(hid_t f, const char *key) {
  hid_t a = H5Aopen(f, key, H5P_DEFAULT);
  ck_assert_int_ge(a, 0);
  hid_t t = H5Aget_type(a);
  ck_assert_int_eq(H5Tget_class(t), H5T_STRING);
  ck_assert_int_eq(H5Tget_cset(t), H5T_CSET_UTF8);
  char *out;
  if (H5Tis_variable_str(t) > 0) {
    char *s = NULL;
    ck_assert_int_ge(H5Aread(a, t, &s), 0);
    out = strdup(s);
    H5free_memory(s);
  } else {
    out = calloc(H5Tget_size(t) + 1, 1);
    ck_assert_int_ge(H5Aread(a, t, out), 0);
  }
  H5Tclose(t);
  H5Aclose(a);
  return out;
}

static double read_number_attr(hid_t f, const char *key) {
  double v = NAN;
  hid_t a = H5Aopen(f, key, H5P_DEFAULT);
  ck_assert_int_ge(a, 0);
  hid_t t = H5Aget_type(a);
  ck_assert_int_eq(H5Tget_class(t), H5T_FLOAT);
  ck_assert_uint_eq(H5Tget_size(t), 8);
  ck_assert_int_ge(H5Aread(a, H5T_NATIVE_DOUBLE, &v), 0);
  H5Tclose(t);
  H5Aclose(a);
  return v;
}

START_TEST(string_and_number_attributes_read_back_from_root) {
  tsr_attr attrs[3] = {{"tessera_version", "0.1.0", 0},
                       {"job", "x = ones(4) # \xc3\xa9t\xc3\xa9 \xe2\x9c\x93", 0},
                       {"nranks", NULL, 4.0}};
  ck_assert_int_eq(tsr_results_write(path, NULL, 0, attrs, 3), TSR_OK);
  hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  ck_assert_int_ge(f, 0);
  for (int i = 0; i < 2; i++) {
    char *s = read_string_attr(f, attrs[i].key);
    ck_assert_str_eq(s, attrs[i].text);
    free(s);
  }
  ck_assert(read_number_attr(f, "nranks") == 4.0);
  H5Fclose(f);
}
END_TEST

START_TEST(success_leaves_only_the_final_file) {
  double v = 1;
  tsr_result_item it = {"x", 0, NULL, 0, &v, NULL, 0, NULL, NULL};
  ck_assert_int_eq(tsr_results_write(path, &it, 1, NULL, 0), TSR_OK);
  ck_assert_int_eq(count_entries(dir), 1);
  ck_assert_int_gt(H5Fis_hdf5(path), 0);
}
END_TEST

START_TEST(missing_directory_fails_with_io_error_naming_file) {
  char p[256];
  snprintf(p, sizeof p, "%s/no/such/out.h5", dir);
  assert_io_failure(tsr_results_write(p, NULL, 0, NULL, 0), p);
  ck_assert_ptr_nonnull(strstr(tsr_error_message(), "No such file"));
  ck_assert_int_eq(count_entries(dir), 0);
}
END_TEST

START_TEST(path_that_is_a_directory_fails_and_leaves_no_temporary) {
  ck_assert_int_eq(mkdir(path, 0700), 0);
  double v = 1;
  tsr_result_item it = {"x", 0, NULL, 0, &v, NULL, 0, NULL, NULL};
  assert_io_failure(tsr_results_write(path, &it, 1, NULL, 0), path);
  ck_assert_int_eq(count_entries(dir), 1); /* just the directory itself */
  ck_assert_int_eq(count_entries(path), 0);
  ck_assert(!has_temporary(dir));
}
END_TEST

START_TEST(parent_that_is_a_regular_file_fails_even_for_root) {
  char parent[160], p[256];
  snprintf(parent, sizeof parent, "%s/plain", dir);
  write_text(parent, "x");
  snprintf(p, sizeof p, "%s/out.h5", parent);
  assert_io_failure(tsr_results_write(p, NULL, 0, NULL, 0), p);
  ck_assert_int_eq(count_entries(dir), 1);
}
END_TEST

START_TEST(read_only_directory_fails_and_leaves_nothing) {
  if (geteuid() == 0) return; /* root ignores the permission bits */
  ck_assert_int_eq(chmod(dir, 0500), 0);
  assert_io_failure(tsr_results_write(path, NULL, 0, NULL, 0), path);
  ck_assert_int_eq(count_entries(dir), 0);
}
END_TEST

/* "a/b" needs a group "a" where dataset "a" is, so HDF5 fails after the
 * temporary exists. */
START_TEST(failure_while_writing_keeps_existing_file_and_removes_temporary) {
  write_text(path, "old");
  double v = 1;
  tsr_result_item its[2] = {{"a", 0, NULL, 0, &v, NULL, 0, NULL, NULL},
                            {"a/b", 0, NULL, 0, &v, NULL, 0, NULL, NULL}};
  assert_io_failure(tsr_results_write(path, its, 2, NULL, 0), path);
  ck_assert_ptr_nonnull(strstr(tsr_error_message(), "a/b"));
  ck_assert(has_text(path, "old"));
  ck_assert_int_eq(count_entries(dir), 1);
}
END_TEST

START_TEST(duplicate_attribute_fails_and_keeps_existing_file) {
  write_text(path, "old");
  tsr_attr attrs[2] = {{"k", "one", 0}, {"k", NULL, 2.0}};
  assert_io_failure(tsr_results_write(path, NULL, 0, attrs, 2), path);
  ck_assert(has_text(path, "old"));
  ck_assert_int_eq(count_entries(dir), 1);
}
END_TEST

/* HDF5 prints its error stack by default; only our message may reach users. */
START_TEST(hdf5_failure_prints_nothing_to_stderr) {
  char log[160];
  snprintf(log, sizeof log, "%s/stderr.log", dir);
  fflush(stderr);
  int saved = dup(STDERR_FILENO);
  ck_assert(freopen(log, "w", stderr) != NULL);
  double v = 1;
  tsr_result_item its[2] = {{"a", 0, NULL, 0, &v, NULL, 0, NULL, NULL},
                            {"a/b", 0, NULL, 0, &v, NULL, 0, NULL, NULL}};
  int st = tsr_results_write(path, its, 2, NULL, 0);
  fflush(stderr);
  dup2(saved, STDERR_FILENO);
  close(saved);
  assert_io_failure(st, path);
  struct stat sb;
  ck_assert_int_eq(stat(log, &sb), 0);
  ck_assert_int_eq(sb.st_size, 0);
}
END_TEST

START_TEST(success_replaces_existing_file) {
  write_text(path, "old");
  double v = 7;
  tsr_result_item it = {"x", 0, NULL, 0, &v, NULL, 0, NULL, NULL};
  ck_assert_int_eq(tsr_results_write(path, &it, 1, NULL, 0), TSR_OK);
  ck_assert(read_dataset(path, "x").values[0] == 7.0);
  ck_assert_int_eq(count_entries(dir), 1);
}
END_TEST

START_TEST(duplicate_dataset_names_are_rejected_before_any_file_exists) {
  double v = 1;
  tsr_result_item its[2] = {{"x", 0, NULL, 0, &v, NULL, 0, NULL, NULL},
                            {"x", 0, NULL, 0, &v, NULL, 0, NULL, NULL}};
  ck_assert_int_eq(tsr_results_write(path, its, 2, NULL, 0), TSR_ERR_VALUE);
  ck_assert_ptr_nonnull(strstr(tsr_error_message(), "duplicate"));
  ck_assert_ptr_nonnull(strstr(tsr_error_message(), "'x'"));
  ck_assert_int_eq(count_entries(dir), 0);
}
END_TEST

static Suite *results_suite(void) {
  Suite *s = suite_create("results");
  TCase *ok = tcase_create("round_trip");
  tcase_add_checked_fixture(ok, setup, teardown);
  tcase_add_test(ok, scalar_is_stored_as_scalar_float64_exactly);
  tcase_add_test(ok, vector_round_trips_values_and_shape);
  tcase_add_test(ok, matrix_round_trips_row_major_with_shape);
  tcase_add_test(ok, float32_item_is_stored_as_float32_of_the_doubles);
  tcase_add_test(ok, several_items_are_all_written);
  tcase_add_test(ok, empty_vector_is_stored_with_zero_extent);
  tcase_add_test(ok, string_and_number_attributes_read_back_from_root);
  tcase_add_test(ok, success_leaves_only_the_final_file);
  tcase_add_test(ok, success_replaces_existing_file);
  suite_add_tcase(s, ok);
  TCase *bad = tcase_create("failure");
  tcase_add_checked_fixture(bad, setup, teardown);
  tcase_add_test(bad, missing_directory_fails_with_io_error_naming_file);
  tcase_add_test(bad, path_that_is_a_directory_fails_and_leaves_no_temporary);
  tcase_add_test(bad, parent_that_is_a_regular_file_fails_even_for_root);
  tcase_add_test(bad, read_only_directory_fails_and_leaves_nothing);
  tcase_add_test(bad, failure_while_writing_keeps_existing_file_and_removes_temporary);
  tcase_add_test(bad, duplicate_attribute_fails_and_keeps_existing_file);
  tcase_add_test(bad, hdf5_failure_prints_nothing_to_stderr);
  tcase_add_test(bad, duplicate_dataset_names_are_rejected_before_any_file_exists);
  suite_add_tcase(s, bad);
  return s;
}

int main(void) {
  SRunner *sr = srunner_create(results_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
