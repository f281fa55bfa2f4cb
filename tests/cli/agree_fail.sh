#!/bin/sh
# agree_fail.sh - errors that one rank sees and another does not (issue 27:
# "ranks that disagree must agree to fail", and crashes on odd input): an
# environment knob set on one rank only, a job on standard input or in a file
# that only rank 0 can read, load() of a FIFO, a NUL byte in a job,
# OMP_NUM_THREADS far beyond any machine, and a --mem-limit below one chunk.
# Each fails cleanly (or runs) within bounds, with its message printed once.
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"

TIMEOUT=30 # every tessera below; a hang fails instead of stalling

# timed CMD...: capture (out, err, RC) of CMD, and its wall time in DT.
timed() {
  _t0=$(date +%s.%N)
  capture out err "$@"
  DT=$(awk -v a="$_t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
}

# once WHAT PATTERN: err has exactly one "tessera: error:" line, matching
# the extended regular expression PATTERN; the run did not hang.
once() {
  if [ "$RC" -eq 124 ] || [ "$RC" -eq 137 ]; then
    soft_fail "$1: killed after $TIMEOUT s (a hang)"
    return 0
  fi
  [ "$RC" -ne 0 ] || soft_fail "$1: exit status 0"
  _n=$(grep -c '^tessera: error:' err || true)
  [ "$_n" = 1 ] || soft_fail "$1: $_n 'tessera: error:' lines on stderr: $(cat err)"
  grep '^tessera: error:' err | grep -Eq -- "$2" ||
    soft_fail "$1: the error does not match /$2/: $(cat err)"
}

# within WHAT SECONDS: the last timed command took at most SECONDS (start-up
# of the ranks included).
within() {
  awk -v t="$DT" -v m="$2" 'BEGIN { exit !(t <= m) }' || soft_fail "$1: took $DT s (at most $2 s)"
}

RANK='${OMPI_COMM_WORLD_RANK:-${PMI_RANK:-0}}'

# ---- 7: a TESSERA_* knob that one rank alone has wrong ----------------------
timed mpi_run 2 sh -c "if [ $RANK = 1 ]; then export TESSERA_PROGRESS_INTERVAL=abc; fi
exec \"\$TESSERA\" --quiet eval 1+1"
note "knob on rank 1 only: exit $RC after $DT s"
once "a bad knob on one rank only" '^tessera: error: rank 1: TESSERA_PROGRESS_INTERVAL=abc: expected'
within "a bad knob on one rank only" 15
# the same knob on every rank: one report, by rank 0, without a rank
export TESSERA_PROGRESS_INTERVAL=abc
capture out err mpi_tsr 2 eval 1+1
unset TESSERA_PROGRESS_INTERVAL
once "a bad knob on every rank" '^tessera: error: TESSERA_PROGRESS_INTERVAL=abc: expected'

# ---- 8: the job text is rank 0's, broadcast -----------------------------------
printf 'lam = param(2)\nx = lam + 1\n' >job.tsr
timed mpi_tsr 2 run - <job.tsr
note "run - on 2 ranks: exit $RC after $DT s"
[ "$RC" -eq 0 ] && grep -q '^x = 3$' out ||
  soft_fail "run - on 2 ranks (standard input on rank 0 only): exit $RC: $(cat out err)"
mkdir d0 d1
cp job.tsr d0/
capture out err mpi_run 2 sh -c "cd d$RANK && exec \"\$TESSERA\" --quiet run job.tsr"
[ "$RC" -eq 0 ] && grep -q '^x = 3$' out ||
  soft_fail "a job file on rank 0's node only: exit $RC: $(cat out err)"
capture out err mpi_tsr 2 sweep - -o sweep.h5 --grid lam=1,2 <job.tsr
[ "$RC" -eq 0 ] && [ -f sweep.h5 ] ||
  soft_fail "sweep - on 2 ranks: exit $RC: $(cat out err)"
capture out err mpi_tsr 2 run missing.tsr
once "a missing job file on 2 ranks" "^tessera: error: cannot open job file 'missing.tsr'"
[ "$RC" -eq 1 ] || soft_fail "a missing job file on 2 ranks: exit $RC, expected 1"

# ---- 9: load() of a FIFO -------------------------------------------------------
mkfifo fifo.h5
timed tsr eval "sum(load('fifo.h5', 'x'))"
once "load of a FIFO" "'fifo.h5' is not a regular file \\(a FIFO\\)"
within "load of a FIFO" 10
timed mpi_tsr 2 eval "sum(load('fifo.h5', 'x'))"
once "load of a FIFO on 2 ranks" "'fifo.h5' is not a regular file \\(a FIFO\\)"

# ---- 10: a NUL byte in the job text ---------------------------------------------
printf 'x = 1\ny = 2\000y = )\n' >nul.tsr
capture out err tsr run nul.tsr
once "a NUL byte in a job" '^tessera: error: nul.tsr:2:6: NUL byte in the job text'
grep -q '^ *^$' err || soft_fail "a NUL byte in a job: no caret: $(cat err)"
[ ! -s out ] || soft_fail "a NUL byte in a job: ran it: $(cat out)"
capture out err mpi_tsr 2 run - <nul.tsr
once "a NUL byte in a job on standard input, 2 ranks" 'NUL byte in the job text'

# ---- 11: OMP_NUM_THREADS beyond any machine -----------------------------------------
export OMP_NUM_THREADS=100000
capture out err tsr eval 'sum(normal(shape=1000, chunks=100))'
[ "$RC" -eq 0 ] || soft_fail "OMP_NUM_THREADS=100000: exit $RC: $(tail -3 err)"
[ "$(grep -c '^tessera: OMP_NUM_THREADS=100000 capped to 4096$' err || true)" = 1 ] ||
  soft_fail "OMP_NUM_THREADS=100000: not one note of the cap: $(cat err)"
export OMP_NUM_THREADS=abc
capture out err tsr eval 'sum(ones(1000, chunks=100))'
unset OMP_NUM_THREADS
[ "$RC" -eq 0 ] && [ "$(cat out)" = 1000 ] || soft_fail "OMP_NUM_THREADS=abc: exit $RC: $(cat out err)"

# ---- 12: --mem-limit: whole bytes, fractions with a unit, at least one chunk ------------
capture out err tsr --backend=cpu --mem-limit=0.5 --no-fuse eval 'sum(ones(100000, chunks=10000))'
[ "$RC" -eq 2 ] && grep -q "^tessera: error: bad --mem-limit '0.5'" err ||
  soft_fail "--mem-limit=0.5 (a fraction of a byte): exit $RC: $(cat out err)"
capture out err tsr --backend=cpu --mem-limit=0.5G eval 'sum(ones(1000, chunks=100))'
[ "$RC" -eq 0 ] && [ "$(cat out)" = 1000 ] || soft_fail "--mem-limit=0.5G: exit $RC: $(cat err)"
# a fused result is computed into chunk buffers: one must fit
capture out err tsr --backend=cpu --mem-limit=0.5k eval 'normal(shape=1000, chunks=1000) + 1'
once "a fused chunk over --mem-limit" 'chunks of 1000 elements need 8000 bytes each, over --mem-limit 500 bytes'
# a fused reduction of generated chunks needs no chunk buffer: it runs
capture out err tsr --backend=cpu --mem-limit=0.5k eval 'sum(ones(100000, chunks=10000))'
[ "$RC" -eq 0 ] && [ "$(cat out)" = 100000 ] ||
  soft_fail "a fused reduction under --mem-limit=0.5k: exit $RC: $(cat err)"
capture out err mpi_tsr 2 --backend=cpu --mem-limit=0.5k --no-fuse eval 'sum(normal(shape=100000, chunks=10000))'
once "a --no-fuse chunk over --mem-limit=0.5k, 2 ranks" 'over --mem-limit'

finish
