#!/usr/bin/env bash
# gpu-check.sh - the whole GPU check of tessera on any GPU node, in one run:
# build from the `make dist` tarball with CUDA, run the test suite on 1 GPU
# and on 2 GPUs (when the node has them), then the GPU benchmarks. Logs go to
# one folder. Works offline: Random123 and Check may come unpacked from their
# Debian packages (--deps DIR, see --fetch-deps) where the node lacks them.
#
# usage: scripts/gpu-check.sh [--tarball FILE] [--logs DIR] [--deps DIR]
#                             [--jobs N] [--no-bench] [--no-suite] [--bench-args "..."]
#        scripts/gpu-check.sh --fetch-deps DIR   (on a machine with apt: download
#                                                 and unpack the packages into DIR)
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
tarball="" logs="${OUT:-$PWD/gpu-check-logs}" deps="" jobs=$(nproc) bench=1 suite=1 bench_args=""
while [ $# -gt 0 ]; do
  case "$1" in
    --tarball) tarball=$2; shift 2 ;;
    --logs) logs=$2; shift 2 ;;
    --deps) deps=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --no-bench) bench=0; shift ;;
    --no-suite) suite=0; shift ;;
    --bench-args) bench_args=$2; shift 2 ;;
    --fetch-deps)
      mkdir -p "$2/debs" && cd "$2/debs"
      apt-get download check libsubunit-dev libsubunit0 librandom123-dev
      for f in *.deb; do dpkg -x "$f" ..; done
      echo "unpacked into $2 (pass --deps $2)"; exit 0 ;;
    -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
    *) echo "gpu-check.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done

export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
if [ "$(id -u)" = 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
mkdir -p "$logs"
summary="$logs/summary.txt"
: > "$summary"
note() { echo "$*" | tee -a "$summary"; }

ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
note "gpu-check: $(date -u +%FT%TZ) on $(hostname): $ngpu GPU(s)"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee -a "$summary" || true
[ "$ngpu" -ge 1 ] || { note "no GPU visible: nothing to check"; exit 1; }

if [ -z "$tarball" ]; then
  tarball=$(ls -t "$here"/tessera-*.tar.gz "$here"/.dist/tessera-*.tar.gz 2>/dev/null | head -1 || true)
fi
[ -n "$tarball" ] && [ -f "$tarball" ] || { note "no dist tarball (make dist, or --tarball)"; exit 1; }
[ -z "$deps" ] && [ -d "$here/.dist/deps" ] && deps="$here/.dist/deps"
[ -n "$deps" ] && deps=$(cd "$deps" && pwd)
tarball=$(cd "$(dirname "$tarball")" && pwd)/$(basename "$tarball")

work=$(mktemp -d /tmp/tessera-gpu-XXXXXX)
tar -C "$work" -xzf "$tarball"
cd "$work"/tessera-*
# The MPI wrapper compiles tessera, whatever CC the node's environment sets.
conf=(--with-cuda --disable-native CC=mpicc)
if [ -n "$deps" ]; then
  lib="$deps/usr/lib/x86_64-linux-gnu"
  conf+=(CPPFLAGS="-I$deps/usr/include")
  [ -f "$lib/libcheck_pic.a" ] && conf+=(CHECK_CFLAGS="-I$deps/usr/include -pthread"
                                         CHECK_LIBS="-L$lib -l:libcheck_pic.a -l:libsubunit.a -lrt -lm -pthread")
fi
if ! pkg-config --exists hdf5 2>/dev/null && [ -d /usr/include/hdf5/serial ]; then
  conf+=(HDF5_CFLAGS="-I/usr/include/hdf5/serial" HDF5_LIBS="-L/usr/lib/x86_64-linux-gnu/hdf5/serial -lhdf5")
fi
note "configure ${conf[*]}"
./configure "${conf[@]}" > "$logs/configure.log" 2>&1 || { tail -30 "$logs/configure.log"; note "configure FAILED"; exit 1; }
tail -12 "$logs/configure.log" | tee -a "$summary"
t0=$(date +%s)
make -j"$jobs" > "$logs/build.log" 2>&1 || { tail -40 "$logs/build.log"; note "build FAILED"; exit 1; }
note "build: $(( $(date +%s) - t0 )) s"
./tessera info | tee -a "$summary"

status=0
run_suite() { # name, CUDA_VISIBLE_DEVICES
  local name=$1 devs=$2
  note "== test suite on $name (CUDA_VISIBLE_DEVICES=$devs)"
  if CUDA_VISIBLE_DEVICES=$devs TESSERA_GPUS_SHARED=1 make -j"$jobs" check > "$logs/check-$name.log" 2>&1; then
    note "make check on $name: PASS"
  else
    note "make check on $name: FAIL"; status=1
  fi
  grep -E '^(PASS|FAIL|SKIP|XFAIL|ERROR):' "$logs/check-$name.log" | tee -a "$summary" || true
  cp test-suite.log "$logs/test-suite-$name.log" 2>/dev/null || true
}
# Python packages the node lacks (scikit-learn for the GLM tests, dask for the
# peers) may come as wheels in .whl/: installed before the suite.
if [ -d "$here/.whl" ] && ls "$here"/.whl/*.whl >/dev/null 2>&1; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
    --target /tmp/tessera-site "$here"/.whl/*.whl && export PYTHONPATH=/tmp/tessera-site${PYTHONPATH:+:$PYTHONPATH}
fi
if [ "$suite" = 1 ]; then
  run_suite 1gpu 0
  if [ "$ngpu" -ge 2 ]; then run_suite 2gpu 0,1; else note "one GPU: the 2-GPU suite is not run"; fi
fi

if [ "$bench" = 1 ] && [ -x bench/gpu_bench.sh ]; then
  note "== benchmarks"
  TESSERA=$PWD/tessera bench/gpu_bench.sh $bench_args 2>&1 | tee "$logs/bench.log" | tail -40 | tee -a "$summary" || status=1
  if [ -x bench/gpu_linalg.sh ]; then
    TESSERA=$PWD/tessera bench/gpu_linalg.sh $bench_args 2>&1 | tee "$logs/bench-linalg.log" | tail -20 | tee -a "$summary" || status=1
  fi
fi
note "gpu-check: done, status $status (logs in $logs)"
exit $status
