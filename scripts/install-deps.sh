#!/usr/bin/env bash
# install-deps.sh - installs what building and testing tessera needs, on
# Debian or Ubuntu, with apt-get.
#
# Idempotent: when every package is already installed it only says so (no
# apt-get update, no root needed). Otherwise it runs apt-get update and
# installs the missing ones, through sudo when not run as root.
#
#   scripts/install-deps.sh           install what is missing
#   scripts/install-deps.sh --check   list what is missing; exit 1 if anything is
#   scripts/install-deps.sh --list    print the package list
#   ... --with-batch                  also a one-node SLURM (slurmctld, slurmd,
#                                     munge) and shellcheck, for the job-script
#                                     tests; implied when CI=true
#   ... --with-parallel-hdf5          also parallel HDF5 (libhdf5-openmpi-dev,
#                                     beside the serial one), for the second
#                                     build of scripts/test.sh; implied when CI=true
#
# On other systems it prints the list and returns 0: configure then names
# whatever is still missing (MPI, HDF5, Random123, LAPACKE, Check).
set -euo pipefail

# The CUDA backend needs the CUDA toolkit and NCCL in /usr/local/cuda (or
# --with-cuda=DIR); they do not come from here.
PACKAGES=(
  build-essential autoconf automake libtool pkg-config # toolchain, Autotools
  libopenmpi-dev openmpi-bin                           # MPI (mpicc, mpirun)
  libhdf5-dev hdf5-tools                               # results files, h5dump/h5ls
  libopenblas-dev liblapacke-dev                       # CPU linear algebra
  librandom123-dev                                     # Philox on the CPU
  check                                                # unit tests
  python3 python3-numpy python3-h5py                  # test helpers, h5py/NumPy checks
  python3-sklearn                                      # the GLM tests' oracle
  python3-dask                                         # the chunk rules' oracle (tests/exec/joins.sh)
)
# tests/job/slurm_job.sh starts a one-node SLURM of its own; tests/job/job_scripts.sh
# lints jobs/ with shellcheck. Both skip (loudly) without them outside CI.
BATCH_PACKAGES=(slurmctld slurmd slurm-client munge shellcheck)
# scripts/test.sh --full builds and tests a second time against parallel HDF5
# (collective MPI-IO reads and writes in load/save).
PHDF5_PACKAGES=(libhdf5-openmpi-dev)

mode=install
batch=0 phdf5=0
[ "${CI:-}" = true ] && batch=1 && phdf5=1
for arg in "$@"; do
  case "$arg" in
    --check) mode=check ;;
    --list) mode=list ;;
    --with-batch) batch=1 ;;
    --with-parallel-hdf5) phdf5=1 ;;
    -h|--help) sed -n '2,20s/^# \{0,1\}//p' "$0"; exit 0 ;;
    *) echo "install-deps.sh: unknown argument '$arg' (see --help)" >&2; exit 2 ;;
  esac
done
if [ "$batch" -eq 1 ]; then PACKAGES+=("${BATCH_PACKAGES[@]}"); fi
if [ "$phdf5" -eq 1 ]; then PACKAGES+=("${PHDF5_PACKAGES[@]}"); fi
if [ "$mode" = list ]; then printf '%s\n' "${PACKAGES[@]}"; exit 0; fi

if ! command -v dpkg-query >/dev/null 2>&1 || ! command -v apt-get >/dev/null 2>&1; then
  echo "install-deps.sh: no apt-get/dpkg here; install the equivalents of:" >&2
  echo "  ${PACKAGES[*]}" >&2
  exit 0
fi

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q ' installed$' || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps.sh: all ${#PACKAGES[@]} packages are installed"
  exit 0
fi
if [ "$mode" = check ]; then
  echo "install-deps.sh: missing: ${missing[*]}"
  exit 1
fi

sudo=()
if [ "$(id -u)" -ne 0 ]; then
  if ! command -v sudo >/dev/null 2>&1; then
    echo "install-deps.sh: not root and no sudo; as root run: apt-get install ${missing[*]}" >&2
    exit 1
  fi
  sudo=(sudo)
fi

echo "install-deps.sh: installing ${missing[*]}"
"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q
"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
