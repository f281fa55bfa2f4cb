#!/usr/bin/env bash
# test.sh - from a fresh checkout to passing tests: installs the
# dependencies, builds tessera with warnings as errors and runs `make check`.
# With --full, or when CI=true, it also runs the tests again in a build with
# AddressSanitizer and UBSan, and `make distcheck` (the release tarball
# builds, passes its tests, installs and uninstalls cleanly); the first two
# builds then use serial HDF5 and distcheck's uses parallel HDF5
# (--with-hdf5=parallel, collective MPI-IO in load/save), so that the whole
# suite runs against both. The CUDA backend is compiled in the first build
# only (nothing runs it here).
#
#   scripts/test.sh            quick: -Werror build + make check
#   scripts/test.sh --full     + sanitizers + distcheck (what CI runs)
#
# Environment:
#   CONFIGURE_FLAGS  extra flags for every configure (e.g. --with-hdf5=serial)
#   JOBS             parallel make jobs (default: nproc)
#
# Builds go to build-check/ and build-sanitize/ beside the sources. Exits
# non-zero on the first failure; the last line is "tests: N passed, N failed,
# N skipped" over every make check that ran.
set -euo pipefail

cd "$(dirname "$0")/.."
top=$PWD
full=0
[ "${CI:-}" = true ] && full=1
for arg in "$@"; do
  case "$arg" in
    --full) full=1 ;;
    --quick) full=0 ;;
    -h|--help) sed -n '2,18s/^# \{0,1\}//p' "$0"; exit 0 ;;
    *) echo "test.sh: unknown argument '$arg' (see --help)" >&2; exit 2 ;;
  esac
done
jobs=${JOBS:-$(nproc)}
read -r -a user_flags <<<"${CONFIGURE_FLAGS:-}"

passed=0 failed=0 skipped=0
t_start=$SECONDS
step() { printf '\n==> [%4ds] %s\n' "$((SECONDS - t_start))" "$*"; }
summary() { echo "tests: $passed passed, $failed failed, $skipped skipped"; }

# Adds the counts of the test-suite.log in the current directory to the totals.
count_tests() {
  [ -f test-suite.log ] || return 0
  local k v
  for k in PASS XFAIL FAIL XPASS ERROR SKIP; do
    v=$(sed -n "s/^# $k: *\([0-9][0-9]*\)$/\1/p" test-suite.log | head -1)
    v=${v:-0}
    case $k in
      PASS|XFAIL) passed=$((passed + v)) ;;
      SKIP) skipped=$((skipped + v)) ;;
      *) failed=$((failed + v)) ;;
    esac
  done
}

# make check in the current build directory; on failure shows the log.
run_check() {
  local what=$1
  step "make check ($what)"
  rm -f test-suite.log
  if make -j"$jobs" check; then
    count_tests
    return 0
  fi
  count_tests
  if [ -f test-suite.log ]; then
    echo "---- $PWD/test-suite.log ----"
    cat test-suite.log
  fi
  echo "test.sh: make check failed ($what)" >&2
  summary
  exit 1
}

# Configures a fresh build in $1 with the given flags; prints the summary.
configure_in() {
  local dir=$1
  shift
  rm -rf "$dir"
  mkdir -p "$dir"
  cd "$dir"
  step "configure $* (in $dir)"
  if ! "$top/configure" "$@" >configure.out 2>&1; then
    cat configure.out
    echo "test.sh: configure failed; see $dir/config.log" >&2
    exit 1
  fi
  sed -n '/configured:$/,$p' configure.out
}

# Open MPI: tests run as root in CI, and may start more ranks than there are
# cores.
if [ "$(id -u)" -eq 0 ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
export OMPI_MCA_rmaps_base_oversubscribe=1

step "dependencies"
bash scripts/install-deps.sh

step "autoreconf -fi"
if [ -f config.status ]; then
  echo "test.sh: the sources are configured in place; run 'make distclean' there first" >&2
  exit 1
fi
mkdir -p m4
autoreconf -fi

# The CUDA backend is compiled (not run) where nvcc is: configure looks in
# /usr/local/cuda; an nvcc elsewhere on PATH is passed on when NCCL is there too.
cuda_flags=()
if [ ! -x /usr/local/cuda/bin/nvcc ] && command -v nvcc >/dev/null 2>&1; then
  cuda_dir=$(dirname "$(dirname "$(command -v nvcc)")")
  if [ -f "$cuda_dir/include/nccl.h" ] || [ -f /usr/include/nccl.h ]; then
    cuda_flags=(--with-cuda="$cuda_dir")
  fi
fi

# HDF5: the full run tests serial HDF5 in the first builds and parallel HDF5
# in distcheck's (both are installed in CI), unless CONFIGURE_FLAGS chooses.
hdf5_flags=() hdf5_dist=""
if [ "$full" -eq 1 ] && [[ " ${user_flags[*]} " != *" --with-hdf5"* ]]; then
  hdf5_flags=(--with-hdf5=serial)
  if pkg-config --exists hdf5-openmpi 2>/dev/null; then
    hdf5_dist=--with-hdf5=parallel
  elif [ "${CI:-}" = true ]; then
    echo "test.sh: parallel HDF5 (libhdf5-openmpi-dev) is missing: CI tests both HDF5 builds" >&2
    exit 1
  else
    echo "test.sh: parallel HDF5 is not installed: only serial HDF5 is tested" >&2
  fi
fi

# CI compiles the CUDA code for the H100/H200's sm_90 only: the portable
# compute_80 PTX of the default NVCCFLAGS is a second pass of nvcc over every
# kernel (gpu_reduce.cu alone takes minutes), which CI's 30 minutes cannot
# spare; the GPU nodes build with their own flags (scripts/gpu-check.sh).
if [ "${CI:-}" = true ] && [ -z "${NVCCFLAGS:-}" ]; then
  export NVCCFLAGS="-O3 -gencode=arch=compute_90,code=sm_90"
fi

# 1. Warnings are errors; the build the tests and CI rely on.
configure_in "$top/build-check" --enable-werror "${hdf5_flags[@]}" "${cuda_flags[@]}" "${user_flags[@]}"
step "make -j$jobs"
make -j"$jobs"
run_check "-Werror build"

if [ "$full" -eq 1 ]; then
  # 2. AddressSanitizer + UBSan. Any UB report aborts the test that hit it.
  # Leak checking is off: Open MPI 4.1 (Debian 12) leaks about 110 KB in
  # MPI_Init from MCA components that it dlclose()s at MPI_Finalize, so
  # LeakSanitizer reports them as "<unknown module>" frames that no
  # suppression can match, and every MPI program would fail. (Tried: leaks on,
  # with suppressions for libmpi/libopen-pal/libopen-rte/libhwloc/libevent
  # and fast_unwind_on_malloc=0: clean as a singleton, still failing under
  # mpirun, and 10x slower.)
  # The CUDA code is compiled once, in build 1: nvcc takes 2 cores about 10
  # minutes for the whole backend, which no host-side test runs here, and
  # its objects are not instrumented; builds 2 and 3 are --without-cuda (the
  # GPU node builds the dist tarball with CUDA: scripts/gpu-check.sh).
  configure_in "$top/build-sanitize" --enable-sanitizers --enable-werror --without-cuda "${hdf5_flags[@]}" "${user_flags[@]}"
  step "make -j$jobs (sanitizers)"
  make -j"$jobs"
  export ASAN_OPTIONS=detect_leaks=0
  export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
  run_check "sanitizers"
  unset ASAN_OPTIONS UBSAN_OPTIONS

  # 3. The release tarball: builds out of a read-only source tree (against
  # parallel HDF5 when installed), passes make check, installs, uninstalls
  # and cleans up completely.
  # Its make check leaves out the tests that only compute (the fuzzers, the
  # statistical and the NumPy-surface suites) and cli_errors.sh (the error
  # messages, the longest test at two minutes): builds 1 and 2 ran them on
  # the same sources. That keeps CI within its 30 minutes; every other test
  # (files, ranks, sweeps, the CLI) runs against parallel HDF5 here.
  cd "$top/build-check"
  step "make distcheck"
  distcheck_flags="--enable-werror --without-cuda $hdf5_dist ${user_flags[*]}"
  dist_tests=$(make -s print-tests | grep -Ev '^tests/(gpu/gen_math$|cli/cli_errors\.sh|fuzz/|kernel/(generators|distributions|rng_statistics)\.sh|exec/(reduce_axes|quantile|dtypes|ufuncs|scan|reductions2|creation|closed_forms|ptp_average)\.sh)' | tr '\n' ' ')
  if ! make -j"$jobs" distcheck DISTCHECK_CONFIGURE_FLAGS="$distcheck_flags" TESTS="$dist_tests"; then
    log=$(find . -path '*/_build/*' -name test-suite.log 2>/dev/null | head -1)
    if [ -n "$log" ]; then
      echo "---- $log ----"
      cat "$log"
    fi
    echo "test.sh: make distcheck failed" >&2
    summary
    exit 1
  fi
fi

step "done in $((SECONDS - t_start)) s"
summary
