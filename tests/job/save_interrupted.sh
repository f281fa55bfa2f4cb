#!/bin/sh
# save_interrupted.sh - a save that does not finish leaves nothing under the
# file's name (DESIGN.md: output is written to a temporary name and renamed
# only when complete):
#   - one rank of two killed with SIGKILL in the middle of a large save: the
#     job ends (no hang) with a non-zero status, and no file has the final
#     name;
#   - SIGINT in the middle of a save with --overwrite: exit status 130, the
#     old file is untouched and no temporary is left;
#   - an I/O error during the save (the dataset being read disappears): a
#     clear error, the old file untouched, no temporary left.
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"

OMP_NUM_THREADS=1
export OMP_NUM_THREADS
# 4000 x 4000 random numbers (128 MB) with gzip level 9: several seconds of
# writing on any machine, so that the signals land mid-save.
cat >big.tsr <<'EOF'
x = normal(shape=(4000, 4000), chunks=(250, 4000), seed=1)
save("big.h5", "x", x * 1000, compression="gzip", level=9)
EOF

# start_job DIR CMD...: runs CMD in DIR in the background; JOB is its pid.
start_job() {
  _dir=$1
  shift
  mkdir -p "$_dir"
  (cd "$_dir" && exec "$@" </dev/null >out 2>err) &
  JOB=$!
  BG_PIDS="$BG_PIDS $JOB"
}

# wait_tmp DIR SECONDS: waits until DIR holds the temporary file of big.h5.
wait_tmp() {
  _i=0
  while [ $_i -lt $(($2 * 10)) ]; do
    ls "$1" | grep -q '^big\.h5\.tmp-' && return 0
    sleep 0.1
    _i=$((_i + 1))
  done
  return 1
}

# finish_job SECONDS: waits for JOB (killing it after SECONDS); RC, DT.
finish_job() {
  watchdog "$JOB" "$1"
  _t0=$(date +%s)
  set +e
  wait "$JOB"
  RC=$?
  set -e
  DT=$(($(date +%s) - _t0))
}

# ---- SIGKILL of one rank -----------------------------------------------------------------

# shellcheck disable=SC2046
start_job kill "$MPIEXEC" $(mpi_flags 2) "$TESSERA" --quiet run ../big.tsr
wait_tmp kill 60 || fail "no temporary file appeared within 60 s: $(cat kill/err)"
sleep 1
victim=$(ps -o pid= --ppid "$JOB" | tail -n 1 | tr -d ' ')
[ -n "$victim" ] || fail "no rank process under mpirun (pid $JOB)"
note "killing rank process $victim of mpirun $JOB with SIGKILL"
kill -KILL "$victim"
finish_job 60
note "mpirun exited with status $RC, $DT s after the kill"
[ "$DT" -lt 60 ] || fail "the job still ran 60 s after one rank was killed"
[ "$RC" -ne 0 ] || soft_fail "exit status 0 after a rank was killed"
[ ! -e kill/big.h5 ] || soft_fail "a killed save left big.h5 under its final name"
note "left behind (a killed rank cannot clean up): $(ls kill | tr '\n' ' ')"

# ---- SIGINT with --overwrite ------------------------------------------------------------------

mkdir int
printf 'old contents\n' >int/big.h5
# shellcheck disable=SC2046
start_job int "$MPIEXEC" $(mpi_flags 2) "$TESSERA" --quiet --overwrite run ../big.tsr
wait_tmp int 60 || fail "no temporary file appeared within 60 s: $(cat int/err)"
kill -INT "$JOB"
finish_job 30
note "mpirun exited with status $RC, $DT s after SIGINT"
[ "$DT" -lt 30 ] || fail "the job still ran 30 s after SIGINT"
[ "$RC" -ne 0 ] || soft_fail "exit status 0 after SIGINT"
expect_eq "$(cat int/big.h5)" "old contents" "the old file after an interrupted --overwrite save"
expect_eq "$(ls int | tr '\n' ' ')" "big.h5 err out " "files after an interrupted save"

# ---- an I/O error while saving ------------------------------------------------------------------

[ -x "$H5TOOL" ] || fail "h5tool is needed (make check builds it): $H5TOOL"
mkdir ioerr
"$H5TOOL" write ioerr/in.h5 /x f8 3000,3000 chunks=100,3000 gzip=9 seed=2
printf 'old contents\n' >ioerr/out.h5
cat >ioerr/j.tsr <<'EOF'
save("out.h5", "y", load("in.h5", "x", chunks=(100, 3000)) * 2, compression="gzip", level=9)
EOF
# shellcheck disable=SC2046
start_job ioerr "$MPIEXEC" $(mpi_flags 2) "$TESSERA" --quiet --overwrite run j.tsr
_i=0
while [ $_i -lt 600 ] && ! ls ioerr | grep -q '^out\.h5\.tmp-'; do sleep 0.1; _i=$((_i + 1)); done
# Truncating the input under the readers makes their next reads fail.
: >ioerr/in.h5
finish_job 60
note "exit status $RC after the input was truncated: $(grep 'tessera: error' ioerr/err | head -2 | tr '\n' ' ')"
if [ "$RC" -eq 0 ]; then
  note "the save finished before the input was truncated (a fast machine): nothing to check"
else
  grep -q '^tessera: error: ' ioerr/err || soft_fail "no error line after an I/O error: $(cat ioerr/err)"
  expect_eq "$(cat ioerr/out.h5)" "old contents" "the old file after a failed save"
  expect_eq "$(ls ioerr | grep -c tmp || true)" 0 "temporary files after a failed save"
fi

finish
