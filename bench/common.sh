# shellcheck shell=bash
# bench/common.sh - helpers sourced by the benchmark scripts (not run directly).
#
#   BENCH_DIR     this directory (absolute), whatever the caller's cwd
#   REPO_DIR      the repository root
#   find_tessera  sets TESSERA: $TESSERA, else ../tessera (in-tree build),
#                 ../build/tessera, ../build-check/tessera (scripts/quickstart.sh's
#                 and scripts/test.sh's builds),
#                 /tmp/build*/tessera (newest first; sanitizer and -O0
#                 builds skipped), `which tessera`
#   require CMD   exits 3 with a message when CMD is not on PATH
#   mpi_root_env  exports the OpenMPI run-as-root variables when uid is 0
#   machine_line  one line describing the CPU, cores, memory and GPU (if any)
#   commit_line   the repository's HEAD (+dirty(src)) at run time
#   binary_line   when the measured tessera was built, and its CFLAGS
#   numpy_bench_setup  RUNS, RANKS, REP, TESSERA, MPIEXEC for the scripts
#                 that time tessera (--repeat) against a NumPy peer
#   tessera_best NP EXPR  tessera's best per-run time of `eval --repeat=$REP`
#                 on NP ranks (the value printed goes to stderr)
#   ratio A B     A / B with two decimals, "-" when either is missing
#   record_head TITLE [LOADS [MORE]]  the first lines of a RESULTS.md record

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_DIR=$(cd "$BENCH_DIR/.." && pwd)

die() {
  echo "$(basename "$0"): error: $*" >&2
  exit 3
}

require() {
  command -v "$1" >/dev/null 2>&1 || die "'$1' not found on PATH${2:+ ($2)}"
}

# A libtool wrapper script (uninstalled build) or a real binary both work.
tessera_ok() {
  [ -n "$1" ] && [ -f "$1" ] && [ -x "$1" ] && "$1" --version >/dev/null 2>&1
}

# Autodetection skips sanitizer and -O0 builds (their config.log says so).
tessera_fast() {
  local log
  log=$(dirname "$1")/config.log
  ! head -20 "$log" 2>/dev/null | grep -q -e 'sanitize' -e '-O0'
}

find_tessera() {
  if [ -n "${TESSERA:-}" ]; then
    tessera_ok "$TESSERA" || die "TESSERA=$TESSERA is not a working tessera executable"
    TESSERA=$(cd "$(dirname "$TESSERA")" && pwd)/$(basename "$TESSERA")
    return
  fi
  local c
  # shellcheck disable=SC2012  # newest build first
  for c in "$REPO_DIR/tessera" "$REPO_DIR/build/tessera" "$REPO_DIR/build-check/tessera" \
    $(ls -dt /tmp/build*/tessera 2>/dev/null) "$(command -v tessera 2>/dev/null)"; do
    if tessera_ok "$c" && tessera_fast "$c"; then
      TESSERA=$c
      return
    fi
  done
  die "no tessera executable found: build it (mkdir /tmp/build && cd /tmp/build && $REPO_DIR/configure && make) or set TESSERA=/path/to/tessera"
}

mpi_root_env() {
  if [ "$(id -u)" = 0 ]; then
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  fi
}

machine_line() {
  local cpu mem gpu
  cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -1)
  mem=$(awk '/^MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo 2>/dev/null)
  gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
  grep -q '^flags.* hypervisor' /proc/cpuinfo 2>/dev/null && cpu="$cpu (VM)"
  echo "${cpu:-unknown CPU}, $(nproc) cores, ${mem:-? GiB}, ${gpu:-no GPU}"
}

# The repository's HEAD when the script runs: the binary may be older (see
# binary_line), so a record gives both.
commit_line() {
  local c
  c=$(git -C "$REPO_DIR" rev-parse --short HEAD 2>/dev/null) || c=unknown
  if [ -n "$(git -C "$REPO_DIR" status --porcelain --untracked-files=no -- src 2>/dev/null)" ]; then
    c="$c+dirty(src)"
  fi
  echo "$c"
}

# When the measured build was made (newest of the executable and, for a libtool
# build, its .libs/), and its CFLAGS (from the build's Makefile).
binary_line() {
  local d t flags
  d=$(dirname "$TESSERA")
  # shellcheck disable=SC2012
  t=$(ls -t "$TESSERA" "$d"/.libs/* 2>/dev/null | head -1)
  t=$(date -u -r "${t:-$TESSERA}" '+%F %T UTC' 2>/dev/null)
  flags=$(sed -n 's/^CFLAGS = //p' "$d/Makefile" 2>/dev/null | head -1)
  echo "built $t${flags:+, CFLAGS=$flags}"
}

# tessera_best NP EXPR: the best of tessera's own per-run times ("run i of
# n: T s") of `eval --repeat=$REP EXPR`: alone with all threads (NP 1), or
# under $MPIEXEC on NP ranks with one thread each. The value it printed
# goes to stderr; a failed run exits 4.
tessera_best() {
  local out
  if [ "$1" = 1 ]; then
    out=$("$TESSERA" eval --repeat="$REP" "$2" 2>&1) || { echo "tessera failed: $out" >&2; exit 4; }
  else
    out=$(OMP_NUM_THREADS=1 "${MPIEXEC:-mpiexec}" -np "$1" --oversubscribe --bind-to none "$TESSERA" eval \
      --repeat="$REP" "$2" 2>&1) || { echo "tessera on $1 ranks failed: $out" >&2; exit 4; }
  fi
  echo "$out" | sed -n 's/^tessera: run [0-9]* of [0-9]*: \([0-9.]*\) s$/\1/p' | sort -g | head -1
  echo "$out" | head -1 >&2
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN {if (a == "" || b == "") print "-"; else printf "%.2f", a / b}'; }

# numpy_bench_setup: what the scripts that time tessera with --repeat against
# a NumPy peer share: RUNS (default 3) and RANKS (default 2) from the
# environment, REP (tessera prints per-run times from 2 runs on), python3
# with numpy, awk, TESSERA, the run-as-root variables, MPIEXEC.
numpy_bench_setup() {
  RUNS=${RUNS:-3}
  RANKS=${RANKS:-2}
  REP=$((RUNS < 2 ? 2 : RUNS))
  require python3
  require awk
  python3 -c 'import numpy' 2>/dev/null || die "python3 cannot import numpy"
  find_tessera
  mpi_root_env
  MPIEXEC=${MPIEXEC:-mpiexec}
}

# record_head TITLE [LOADS [MORE]]: the heading and the device and commit
# lines of a RESULTS.md record. LOADS replaces "load average before: ..."
# (e.g. before/after figures, a disk); MORE is added to the commit line.
record_head() {
  echo
  echo "### $(date -u '+%F %H:%M') UTC $1"
  echo
  echo "- device: $(machine_line); ${2:-load average before: $(cut -d' ' -f1-3 /proc/loadavg)}"
  echo "- commit: $(commit_line) (HEAD at run time); tessera: $TESSERA ($(binary_line))${3:+; $3}"
}
