#!/usr/bin/env bash
# quickstart.sh - from a fresh checkout to a result: installs the
# dependencies, builds tessera, runs the speed-cubing job at laptop size on
# two MPI ranks (examples/cubing-small.tsr), and shows the results file.
#
#   scripts/quickstart.sh
#
# Environment:
#   BUILD_DIR        where to build (default: build, beside the sources)
#   CONFIGURE_FLAGS  extra flags for configure (e.g. --with-hdf5=serial)
#   NP               MPI ranks (default 2)
#   OUT              results file (default cubing.h5, in the repository root)
#
# The CPU backend is used when no GPU is visible: tessera's --backend=auto
# picks it by itself.
set -euo pipefail

cd "$(dirname "$0")/.."
top=$PWD
build=${BUILD_DIR:-build}
np=${NP:-2}
out=${OUT:-cubing.h5}
job=examples/cubing-small.tsr

step() { printf '\n==> %s\n' "$*"; }

step "dependencies"
bash scripts/install-deps.sh

# Autotools outputs are not in git. autoreconf again only when configure is
# missing or older than its inputs (make reruns it too, when needed).
if [ ! -x configure ] || [ configure.ac -nt configure ] || [ Makefile.am -nt Makefile.in ]; then
  step "autoreconf -fi"
  mkdir -p m4
  autoreconf -fi
fi

# An in-place ./configure rules out building in another directory (VPATH).
if [ -f config.status ] && [ "$build" != . ]; then
  echo "quickstart.sh: the sources are configured in place; building there (BUILD_DIR=.)"
  build=.
fi
mkdir -p "$build"
cd "$build"
if [ ! -f Makefile ]; then
  step "configure ${CONFIGURE_FLAGS:-}"
  # shellcheck disable=SC2086 # CONFIGURE_FLAGS is a list of flags
  "$top/configure" ${CONFIGURE_FLAGS:-}
fi

step "make"
make -j"$(nproc)"
tessera=$PWD/tessera
cd "$top"

# Open MPI refuses to run as root without these, and more ranks than cores
# without --oversubscribe.
launcher=(mpirun -np "$np")
if mpirun --version 2>/dev/null | grep -q 'Open MPI'; then
  if [ "$(id -u)" -eq 0 ]; then
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  fi
  if [ "$(nproc)" -lt "$np" ]; then
    launcher+=(--oversubscribe)
  fi
fi

# --overwrite: a second quickstart replaces the first one's results.
step "${launcher[*]} tessera run $job -o $out --overwrite"
"${launcher[@]}" "$tessera" run "$job" -o "$out" --overwrite

step "h5ls -r -d $out (the results)"
h5ls -r -d "$out"

step "provenance (attributes of /)"
# Every attribute but the job text, one per line: name = value.
for a in $(h5dump -A -H "$out" | sed -n 's/^ *ATTRIBUTE "\(.*\)" {$/\1/p'); do
  [ "$a" = job ] && continue
  printf '  %-18s %s\n' "$a" "$(h5dump -a "/$a" "$out" | sed -n 's/^ *(0): //p')"
done
echo
echo "Done. Next: $tessera --help, README.md, doc/user-guide.md"
