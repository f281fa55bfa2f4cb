# lib.sh - shared helpers of the shell tests; every tests/*/*.sh sources it.
#
# The programs come from the environment that `make check` sets
# (AM_TESTS_ENVIRONMENT in Makefile.am): TESSERA, MPIEXEC, H5READ, H5TOOL, srcdir.
# The defaults below let a test be run by hand from the build directory:
#     sh /path/to/src/tests/exec/closed_forms.sh
# Exit codes follow Automake: 0 pass, 1 fail, 77 skip.

set -eu

: "${TESSERA:=./tessera}"
: "${MPIEXEC:=mpiexec}"
: "${H5READ:=tests/tools/h5read}"
: "${H5TOOL:=tests/tools/h5tool}"
if [ -z "${srcdir:-}" ]; then
  srcdir=$(cd "$(dirname "$0")/../.." && pwd)
fi

# Absolute paths, because tests work inside their own temporary directory.
abspath() {
  case $1 in
  /*) printf '%s\n' "$1" ;;
  */*) printf '%s/%s\n' "$(pwd)" "$1" ;;
  *) command -v "$1" 2>/dev/null || printf '%s\n' "$1" ;;
  esac
}
TESSERA=$(abspath "$TESSERA")
H5READ=$(abspath "$H5READ")
H5TOOL=$(abspath "$H5TOOL")
srcdir=$(cd "$srcdir" && pwd)
export TESSERA MPIEXEC H5READ H5TOOL srcdir

TEST_NAME=$(basename "$0" .sh)
TMP=$(mktemp -d "${TMPDIR:-/tmp}/tessera-$TEST_NAME.XXXXXX")
BG_PIDS=""

cleanup() {
  for p in $BG_PIDS; do kill -KILL "$p" 2>/dev/null || true; done
  cd /
  rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP
cd "$TMP"

# Open MPI 4 keeps each launch's session directory under one shared
# /tmp/ompi.HOST.UID, and a launch that ends removes that directory when it
# looks empty: two tests starting and ending launches at the same moment
# (make -j) can race, and the starting one fails in orte_init ("mkdir ...
# No such file or directory"). Every test gets its own session root: its
# TMPDIR (which a singleton tessera's own session base also follows).
TMPDIR=$TMP
export TMPDIR

# ---- reporting --------------------------------------------------------------

note() { printf '# %s\n' "$*"; }

fail() {
  printf 'FAIL: %s: %s\n' "$TEST_NAME" "$*" >&2
  exit 1
}

skip() {
  printf 'SKIP: %s: %s\n' "$TEST_NAME" "$*"
  exit 77
}

# Failures that should not stop the test at once (so that one run reports
# every broken case); call finish at the end.
FAILURES=0
soft_fail() {
  printf 'FAIL: %s: %s\n' "$TEST_NAME" "$*" >&2
  FAILURES=$((FAILURES + 1))
}
finish() {
  if [ "$FAILURES" -ne 0 ]; then
    printf 'FAIL: %s: %d failed check(s)\n' "$TEST_NAME" "$FAILURES" >&2
    exit 1
  fi
  printf 'PASS: %s\n' "$TEST_NAME"
  exit 0
}

# ---- running tessera ------------------------------------------------------

# TIMEOUT=SECONDS (optional) bounds every tsr / mpi_run command below, so
# that a hang fails the test instead of stalling `make check`.

# tsr ARGS...: the program alone (an MPI singleton), without timing lines.
tsr() { ${TIMEOUT:+timeout -k 5 "$TIMEOUT"} "$TESSERA" --quiet "$@"; }

# mpi_flags K: the launcher's options for K ranks on this host (Open MPI
# needs --oversubscribe beyond the cores; binding is left to the OS).
MPI_IS_OPENMPI=
mpi_flags() {
  if [ -z "$MPI_IS_OPENMPI" ]; then
    if "$MPIEXEC" --version 2>&1 | grep -q -e 'Open MPI' -e OpenRTE; then
      MPI_IS_OPENMPI=yes
    else
      MPI_IS_OPENMPI=no
    fi
  fi
  if [ "$MPI_IS_OPENMPI" = yes ]; then
    printf -- '-np %s --oversubscribe --bind-to none\n' "$1"
  else
    printf -- '-n %s\n' "$1"
  fi
}
if [ "$(id -u)" = 0 ]; then # Open MPI refuses root without these
  OMPI_ALLOW_RUN_AS_ROOT=1
  OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  export OMPI_ALLOW_RUN_AS_ROOT OMPI_ALLOW_RUN_AS_ROOT_CONFIRM
fi

# mpi_run K CMD ARGS...: CMD on K ranks of this host. One OpenMP thread per
# rank unless OMP_NUM_THREADS is set, so that K ranks on 2 cores stay fair.
mpi_run() {
  _np=$1
  shift
  _flags=$(mpi_flags "$_np")
  # shellcheck disable=SC2086
  OMP_NUM_THREADS=${OMP_NUM_THREADS:-1} ${TIMEOUT:+timeout -k 5 "$TIMEOUT"} "$MPIEXEC" $_flags "$@"
}

# mpi_tsr K ARGS...: tessera --quiet on K ranks.
mpi_tsr() {
  _np=$1
  shift
  mpi_run "$_np" "$TESSERA" --quiet "$@"
}

# startup_delay MIN: sets _delay to MIN seconds, or to four times what a
# trivial tessera run takes here if that is more (measured once a test): a
# signal that comes before tessera's handlers are in place (a loaded machine
# can take seconds in MPI_Init) kills it, or reaches the test's own process
# group through Open MPI's singleton start-up.
startup_delay() {
  if [ -z "${STARTUP_S:-}" ]; then
    _s0=$(date +%s.%N)
    "$TESSERA" --quiet eval 1 >/dev/null 2>&1 || true
    STARTUP_S=$(awk -v a="$_s0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
  fi
  _delay=$(awk -v m="$1" -v s="$STARTUP_S" 'BEGIN { d = 4 * s; printf "%.2f", (d > m ? d : m) }')
}

# watchdog PID SECONDS: in the background, kills PID for good if it still
# runs after SECONDS (whole seconds); ends by itself when PID ends.
watchdog() {
  sh -c 'i=0; while kill -0 "$1" 2>/dev/null && [ $i -lt $(($2 * 50)) ]; do sleep 0.02; i=$((i + 1)); done
         kill -KILL "$1" 2>/dev/null' watchdog "$1" "$2" &
}

# wait_watched PID: waits for the background PID, which a watchdog kills for
# good after 10 s (a hang costs no more), and sets _rc to its exit status.
# The watchdog is never signalled: a subshell keeps the test's traps until it
# runs its first command, so killing it at once ran the test's 'exit 1' and
# its EXIT trap (cleanup: rm -rf $TMP) under the feet of the test. It looks
# at the process every 20 ms and ends with it.
wait_watched() {
  watchdog "$1" 10
  set +e
  wait "$1"
  _rc=$?
  set -e
}

# signal_test WHAT SIG DELAY WANT MAXS DIR CMD...: CMD in the background,
# SIG after DELAY s (at least; see startup_delay); it must exit within MAXS s
# with status WANT (130, or "nonzero" for mpirun, whose status for a
# signalled job is Open MPI's),
# leaving DIR empty. A watchdog kills it for good after 10 s.
signal_test() {
  _what=$1 _sig=$2 _delay=$3 _want=$4 _maxs=$5 _dir=$6
  shift 6
  mkdir "$_dir"
  startup_delay "$_delay"
  "$@" </dev/null >"$_dir.out" 2>"$_dir.err" &
  _pid=$!
  BG_PIDS="$BG_PIDS $_pid"
  sleep "$_delay"
  kill -"$_sig" "$_pid" 2>/dev/null || fail "$_what: ended before $_sig: $(tail -3 "$_dir.err")"
  _t0=$(date +%s.%N)
  wait_watched "$_pid"
  _dt=$(awk -v a="$_t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
  note "$_what: exit status $_rc, $_dt s after SIG$_sig"
  if [ "$_want" = nonzero ]; then
    [ "$_rc" -ne 0 ] || soft_fail "$_what: exit status 0 after SIG$_sig"
  else
    [ "$_rc" -eq "$_want" ] || soft_fail "$_what: exit status $_rc after SIG$_sig, expected $_want: $(tail -3 "$_dir.err")"
  fi
  awk -v t="$_dt" -v m="$_maxs" 'BEGIN { exit !(t <= m) }' ||
    soft_fail "$_what: $_dt s from SIG$_sig to exit (at most $_maxs s)"
  [ -z "$(ls -A "$_dir")" ] || soft_fail "$_what: left $(ls -A "$_dir")"
}

# running PID...: some PID is a process that has not exited (a zombie whose
# parent has not reaped it yet counts as exited).
running() {
  for _p in "$@"; do
    _state=$(cut -d' ' -f3 "/proc/$_p/stat" 2>/dev/null) || continue
    [ "$_state" = Z ] || return 0
  done
  return 1
}

# start_two_ranks DIR MIN ARGS...: makes DIR, starts tessera ARGS on 2 ranks
# under mpirun in the background (output in DIR.out and DIR.err, mpirun's
# pid in _pid) and waits startup_delay MIN's seconds.
start_two_ranks() {
  _sdir=$1
  startup_delay "$2"
  shift 2
  mkdir "$_sdir"
  # shellcheck disable=SC2046
  "$MPIEXEC" $(mpi_flags 2) "$TESSERA" "$@" </dev/null >"$_sdir.out" 2>"$_sdir.err" &
  _pid=$!
  BG_PIDS="$BG_PIDS $_pid"
  sleep "$_delay"
}

# ranks_gone_after T0 PID...: waits (10 s at most) until no PID runs; _dt
# is the time since T0 (date +%s.%N) in seconds.
ranks_gone_after() {
  _since=$1
  shift
  _n=0
  while running "$@" && [ "$_n" -lt 500 ]; do
    sleep 0.02
    _n=$((_n + 1))
  done
  _dt=$(awk -v a="$_since" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
}

# mpirun_signal_test WHAT SIG MAXS DIR ARGS...: tessera ARGS on 2 ranks under
# mpirun; after startup_delay's wait SIG goes to mpirun itself (Ctrl-C, a
# batch system's SIGTERM): every rank must be gone within MAXS s, mpirun must
# end with a non-zero status within 5 s (its status and its own last second
# are Open MPI's), rank 0 must say "interrupted" once and DIR must be empty.
mpirun_signal_test() {
  _what=$1 _sig=$2 _maxs=$3 _dir=$4
  shift 4
  start_two_ranks "$_dir" 2 "$@"
  _ranks=$(pgrep -P "$_pid" | tr '\n' ' ')
  [ -n "$_ranks" ] || fail "$_what: no rank process found"
  kill -"$_sig" "$_pid"
  _t0=$(date +%s.%N)
  # shellcheck disable=SC2086
  ranks_gone_after "$_t0" $_ranks
  wait_watched "$_pid"
  _dm=$(awk -v a="$_t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
  note "$_what: ranks gone $_dt s after SIG$_sig, mpirun $_dm s, exit status $_rc"
  [ "$_rc" -ne 0 ] || soft_fail "$_what: mpirun exit status 0 after SIG$_sig"
  awk -v t="$_dt" -v m="$_maxs" 'BEGIN { exit !(t <= m) }' ||
    soft_fail "$_what: the ranks took $_dt s after SIG$_sig to exit (at most $_maxs s)"
  awk -v t="$_dm" 'BEGIN { exit !(t <= 5) }' || soft_fail "$_what: mpirun took $_dm s to return"
  [ "$(grep -c 'interrupted' "$_dir.err")" -eq 1 ] ||
    soft_fail "$_what: 'interrupted' not said once: $(cat "$_dir.err")"
  [ -z "$(ls -A "$_dir")" ] || soft_fail "$_what: left $(ls -A "$_dir")"
}

# ranks_signal_test WHAT SIG WANT MAXS DIR ARGS...: tessera ARGS on 2 ranks
# under mpirun; after startup_delay's wait SIG goes to the ranks (mpirun's
# children), not to mpirun: every rank must be gone within MAXS s, mpirun
# must return their status WANT, and DIR must be left empty.
ranks_signal_test() {
  _what=$1 _sig=$2 _want=$3 _maxs=$4 _dir=$5
  shift 5
  start_two_ranks "$_dir" 2 "$@"
  _ranks=$(pgrep -P "$_pid" | tr '\n' ' ')
  [ -n "$_ranks" ] || fail "$_what: no rank process found"
  # shellcheck disable=SC2086
  kill -"$_sig" $_ranks
  _t0=$(date +%s.%N)
  # shellcheck disable=SC2086
  ranks_gone_after "$_t0" $_ranks
  wait_watched "$_pid"
  note "$_what: ranks gone $_dt s after SIG$_sig, mpirun exit status $_rc"
  [ "$_rc" -eq "$_want" ] || soft_fail "$_what: mpirun exit status $_rc, expected $_want: $(tail -3 "$_dir.err")"
  awk -v t="$_dt" -v m="$_maxs" 'BEGIN { exit !(t <= m) }' ||
    soft_fail "$_what: the ranks took $_dt s after SIG$_sig to exit (at most $_maxs s)"
  [ -z "$(ls -A "$_dir")" ] || soft_fail "$_what: left $(ls -A "$_dir")"
}

# kill_rank_test DIR ARGS...: tessera ARGS on 2 ranks under mpirun; after
# 4 s (or startup_delay's) one rank is killed with SIGKILL: mpirun must end the job within 5 s
# with a non-zero status, leaving DIR empty.
kill_rank_test() {
  _dir=$1
  shift
  start_two_ranks "$_dir" 4 "$@"
  _victim=$(pgrep -f -- "$*" | while read -r _p; do
    [ "$_p" != "$_pid" ] && [ "$(ps -o comm= -p "$_p")" != "$(basename "$MPIEXEC")" ] && echo "$_p"
  done | tail -1)
  [ -n "$_victim" ] || fail "SIGKILL of a rank: no rank process found"
  kill -KILL "$_victim"
  _t0=$(date +%s)
  wait_watched "$_pid"
  _dt=$(($(date +%s) - _t0))
  note "SIGKILL of rank $_victim: mpirun exit status $_rc after $_dt s"
  [ "$_rc" -ne 0 ] || soft_fail "SIGKILL of a rank: mpirun exit status 0"
  [ "$_dt" -le 5 ] || soft_fail "SIGKILL of a rank: mpirun ran $_dt s after it"
  [ -z "$(ls -A "$_dir")" ] || soft_fail "SIGKILL of a rank: left $(ls -A "$_dir")"
}

# job_each_mode WHAT RANKS CHECK: job.tsr run on 1 rank, on RANKS ranks and
# with --no-fuse (results one.h5, many.h5, nf.h5), each run's exit status
# checked and its file passed to CHECK "WHAT, MODE" FILE.
job_each_mode() {
  capture out err tsr run job.tsr -o one.h5
  [ "$RC" -eq 0 ] || fail "$1 on 1 rank: exit status $RC: $(tail -3 err)"
  "$3" "$1, 1 rank" one.h5
  capture out err mpi_tsr "$2" run job.tsr -o many.h5
  [ "$RC" -eq 0 ] || fail "$1 on $2 ranks: exit status $RC: $(tail -3 err)"
  "$3" "$1, $2 ranks" many.h5
  capture out err tsr --no-fuse run job.tsr -o nf.h5
  [ "$RC" -eq 0 ] || fail "$1 with --no-fuse: exit status $RC: $(tail -3 err)"
  "$3" "$1, --no-fuse" nf.h5
}

# one_error_each EXPR...: `tessera eval EXPR` fails for each EXPR with exit
# status 1 and one `tessera: error:` line (soft failures).
one_error_each() {
  for _e in "$@"; do
    capture out err tsr eval "$_e"
    [ "$RC" -eq 1 ] && [ "$(grep -c '^tessera: error:' err)" -eq 1 ] ||
      soft_fail "$_e: exit status $RC, expected one error line: $(cat err)"
  done
}

# capture OUT ERR CMD ARGS...: runs CMD with stdout in OUT and stderr in
# ERR, and sets RC to its exit status (set -e does not stop on failure).
capture() {
  _out=$1 _err=$2
  shift 2
  set +e
  "$@" >"$_out" 2>"$_err"
  RC=$?
  set -e
}

need_python() { command -v python3 >/dev/null 2>&1; }

# python_with MODULES PACKAGES: sets PY to a python3 that imports MODULES
# (the one on PATH, else the system's, where install-deps.sh puts them), or
# skips the test naming the Debian PACKAGES; in CI (CI=true) it fails it.
python_with() {
  PY=""
  for _py in python3 /usr/bin/python3; do
    if command -v "$_py" >/dev/null 2>&1 && "$_py" -c "import $1" 2>/dev/null; then
      PY=$_py
      return 0
    fi
  done
  _why="no python3 imports $1 (apt-get install $2)"
  [ "${CI:-}" != true ] || fail "$_why: CI must run this test"
  skip "$_why"
}

# need_numpy: PYNP, a python3 with numpy and h5py.
need_numpy() {
  python_with 'h5py, numpy' 'python3-numpy python3-h5py'
  PYNP=$PY
}

# The case tables' inputs, in tessera and in NumPy (numpy_cases.py): a3
# (3 x 4 x 5, chunks 2, 3, 2: ragged on every axis), v (7, chunks 3) and m
# (4 x 6, chunks 3, 4).
CASE_INPUTS_T='a3 = arange(3.0, chunks=2)[:, None, None] * 100 + arange(4.0, chunks=3)[None, :, None] * 10 + arange(5.0, chunks=2)[None, None, :]
v = arange(7.0, chunks=3) * 1.5 - 2
m = (arange(4, chunks=3)[:, None] * 6 + arange(6, chunks=4)[None, :]).astype("float64")'
CASE_INPUTS_N='a3 = np.arange(3.0)[:, None, None] * 100 + np.arange(4.0)[None, :, None] * 10 + np.arange(5.0)[None, None, :]
v = np.arange(7.0) * 1.5 - 2
m = (np.arange(4)[:, None] * 6 + np.arange(6)[None, :]).astype(np.float64)'

# cases_job: job.tsr of the case inputs and `name = expr` for each line
# `name|tessera expr|NumPy expr` of cases.txt.
cases_job() {
  {
    printf '%s\n' "$CASE_INPUTS_T"
    while IFS='|' read -r _name _expr _; do echo "$_name = $_expr"; done <cases.txt
  } >job.tsr
}

# cases_check WHAT FILE: the results file FILE against cases.txt's NumPy
# expressions on the case inputs (a soft failure naming WHAT otherwise).
cases_check() {
  NUMPY_SETUP="$CASE_INPUTS_N" "$PYNP" "$srcdir/tests/tools/numpy_cases.py" "$2" cases.txt ||
    soft_fail "$1: values differ from NumPy"
}

# need_sklearn: PYSK, a python3 with scikit-learn, numpy and h5py (the GLM oracles).
need_sklearn() {
  python_with 'sklearn, h5py, numpy' 'python3-sklearn python3-h5py'
  PYSK=$PY
}

# ---- comparing ------------------------------------------------------------

# same_table A B WHAT: two sweep tables (tessera sweep -o) hold the same
# datasets and values (NaN equal to NaN), the same warm-start attributes,
# timings and attempts aside; a soft failure naming WHAT. Needs PYNP.
same_table() {
  "$PYNP" - "$1" "$2" <<'PY' || soft_fail "$3: the tables differ"
import h5py, numpy as np, sys
a, b = h5py.File(sys.argv[1], "r"), h5py.File(sys.argv[2], "r")
keys = []
a.visit(lambda k: keys.append(k) if isinstance(a[k], h5py.Dataset) else None)
skip = ("trials/seconds", "trials/attempts", "trials/reused_bytes", "fits/coef/seconds")
bad = [k for k in keys if k not in skip and
       not (k in b and a[k].shape == b[k].shape and
            np.array_equal(a[k][()], b[k][()], equal_nan=a[k].dtype.kind == "f"))]
bad += [k for k in ("warm_start", "warm_start_batch") if a.attrs.get(k) != b.attrs.get(k)]
print("differ:", bad) if bad else None
sys.exit(bool(bad))
PY
}

# expect_eq ACTUAL EXPECTED [WHAT]: identical text.
expect_eq() {
  [ "$1" = "$2" ] || fail "${3:-value}: got '$1', expected '$2'"
}

# is_close A B RELTOL: true when |A - B| <= RELTOL * max(|A|, |B|); equal text
# (nan, inf) counts as close, and so do two zeros.
is_close() {
  [ "$1" = "$2" ] && return 0
  awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN {
    if (a !~ /^[-+]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?$/) exit 1
    if (b !~ /^[-+]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?$/) exit 1
    a += 0; b += 0
    d = a - b; if (d < 0) d = -d
    m = a < 0 ? -a : a; mb = b < 0 ? -b : b; if (mb > m) m = mb
    exit !(d <= t * m)
  }'
}

# expect_close ACTUAL EXPECTED RELTOL [WHAT]
expect_close() {
  is_close "$1" "$2" "$3" || fail "${4:-value}: got '$1', expected '$2' (relative tolerance $3)"
}

# expect_abs ACTUAL EXPECTED ABSTOL [WHAT]: |ACTUAL - EXPECTED| <= ABSTOL.
expect_abs() {
  awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= t) }' ||
    fail "${4:-value}: got '$1', expected '$2' within $3"
}

# ---- job output -------------------------------------------------------------

# value_of NAME FILE: the text after "NAME = " in tessera run output (one line).
value_of() {
  _v=$(sed -n "s/^$1 = //p" "$2")
  [ -n "$_v" ] || fail "no line '$1 = ...' in output: $(cat "$2")"
  printf '%s\n' "$_v"
}

# array_tokens FILE: the numbers of a NumPy-style printed array, one a line.
array_tokens() {
  tr -d '[]' <"$1" | tr -s ' \n' '\n\n' | sed '/^$/d'
}

# same_bits WHAT FILE_A FILE_B: results files A and B hold the same datasets
# with the same bytes (needs numpy and h5py: need_numpy first).
same_bits() { # WHAT FILE_A FILE_B
  "$PYNP" - "$2" "$3" <<'PY' || soft_fail "$1: bits differ"
import h5py, numpy as np, sys
a, b = h5py.File(sys.argv[1], "r"), h5py.File(sys.argv[2], "r")
bad = [k for k in a if k not in b or np.asarray(a[k][()]).tobytes() != np.asarray(b[k][()]).tobytes()]
print(*bad)
sys.exit(1 if bad or set(a) != set(b) else 0)
PY
}

# three_ways WHAT CHECK: job.tsr on 1 rank, on 3 ranks and with --no-fuse,
# each results file checked by "CHECK LABEL FILE" (one.h5, three.h5, nf.h5).
three_ways() {
  capture out err tsr run job.tsr -o one.h5
  [ "$RC" -eq 0 ] || fail "the $1 job on 1 rank: exit status $RC: $(tail -3 err)"
  "$2" "1 rank" one.h5
  capture out err mpi_tsr 3 run job.tsr -o three.h5
  [ "$RC" -eq 0 ] || fail "the $1 job on 3 ranks: exit status $RC: $(tail -3 err)"
  "$2" "3 ranks" three.h5
  capture out err tsr --no-fuse run job.tsr -o nf.h5
  [ "$RC" -eq 0 ] || fail "the $1 job with --no-fuse: exit status $RC: $(tail -3 err)"
  "$2" "--no-fuse" nf.h5
}
