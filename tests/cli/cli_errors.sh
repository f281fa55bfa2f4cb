#!/bin/sh
# cli_errors.sh - every class of bad input (DESIGN.md, "Bad input") is
# reported once, by rank 0, as exactly one line "tessera: error: ..." (source
# errors add the source line and a caret under the reported column), with a
# non-zero exit, nothing on stdout, no results file, and no hang on 2 ranks.
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"

TIMEOUT=60 # every tessera below; a hang fails instead of stalling

# check_stderr WHAT FILE PATTERN: FILE has exactly one "tessera: error:" line,
# and it matches the extended regular expression PATTERN.
check_stderr() {
  _n=$(grep -c '^tessera: error:' "$2" || true)
  if [ "$_n" != 1 ]; then
    soft_fail "$1: $_n 'tessera: error:' lines on stderr:
$(cat "$2")"
    return 0
  fi
  grep '^tessera: error:' "$2" | grep -Eq -- "$3" ||
    soft_fail "$1: the error does not match /$3/: $(grep '^tessera: error:' "$2")"
}

# check_failed WHAT: the last capture (out/err) failed cleanly.
check_failed() {
  if [ "$RC" -eq 0 ]; then
    soft_fail "$1: exit status 0"
  elif [ "$RC" -eq 124 ] || [ "$RC" -eq 137 ]; then
    soft_fail "$1: killed after $TIMEOUT s (a hang?)"
    # One hang is reported; later ones need not cost a minute each.
    TIMEOUT=15
  fi
  [ ! -s out ] || soft_fail "$1: wrote to stdout: $(cat out)"
}

# check_caret WHAT NAME LINE: a source error reported at NAME:LINE:COL shows
# the source line and a caret under column COL.
check_caret() {
  _col=$(sed -n "s/^tessera: error: $2:$3:\\([0-9][0-9]*\\): .*/\\1/p" err | head -n 1)
  if [ -z "$_col" ]; then
    soft_fail "$1: no '$2:$3:COL:' position in: $(head -n 1 err)"
    return 0
  fi
  # The caret line is 4 spaces, COL-1 blanks (tabs kept), then '^'.
  _caret=$(grep -n '^ *^$' err | head -n 1)
  if [ -z "$_caret" ]; then
    soft_fail "$1: no caret line:
$(cat err)"
    return 0
  fi
  _at=${_caret%%:*}
  _pos=$(sed -n "${_at}p" err | awk '{ print index($0, "^") }')
  [ "$_pos" -eq $((_col + 4)) ] || soft_fail "$1: caret at column $((_pos - 4)), error says $_col:
$(cat err)"
  # The line above the caret is the source line.
  _src=$(sed -n "$((_at - 1))p" err)
  [ -n "$(printf '%s' "$_src" | tr -d ' ')" ] || soft_fail "$1: no source line above the caret"
}

# bad_eval WHAT EXPR PATTERN [OPTIONS...]: `eval EXPR` fails alone with an
# error matching PATTERN (a source error located on line 1 of <eval>, with a
# caret, unless PATTERN starts with '!'); then the same expression as a job
# with -o on 2 ranks fails the same way and writes no file.
bad_eval() {
  _what=$1 _expr=$2 _pat=$3
  shift 3
  capture out err tsr "$@" eval "$_expr"
  check_failed "$_what (eval)"
  case $_pat in
  !*)
    check_stderr "$_what (eval)" err "${_pat#!}"
    ;;
  *)
    check_stderr "$_what (eval)" err "^tessera: error: <eval>:1:[0-9]+: .*($_pat)"
    check_caret "$_what (eval)" '<eval>' 1
    ;;
  esac
  [ -z "${EVAL_ONLY:-}" ] || return 0
  printf 'ok = sum(arange(3))\n\nx = %s\n' "$_expr" >bad.tsr
  rm -rf res && mkdir res
  capture out err mpi_tsr 2 "$@" run bad.tsr -o res/out.h5
  check_failed "$_what (run, 2 ranks)"
  case $_pat in
  !*) check_stderr "$_what (run, 2 ranks)" err "${_pat#!}" ;;
  *)
    check_stderr "$_what (run, 2 ranks)" err "^tessera: error: bad\\.tsr:3:[0-9]+: .*($_pat)"
    check_caret "$_what (run, 2 ranks)" 'bad\.tsr' 3
    ;;
  esac
  [ -z "$(ls -A res)" ] || soft_fail "$_what (run, 2 ranks): left $(ls -A res)"
}

# ---- source errors -----------------------------------------------------------------

bad_eval "syntax: unclosed parenthesis" 'sum(arange(3)' "expected '\\)'|unclosed|never closed|'\\('"
bad_eval "syntax: operator without operand" '1 +* 2' "unexpected|invalid|syntax"
bad_eval "syntax: trailing operator" 'sum(arange(3)) +' "unexpected|end of input|syntax"
bad_eval "syntax: bad character" 'arange(3) $ 2' "unexpected|invalid|character"
bad_eval "unknown function with a suggestion" 'smu(arange(3))' "unknown function 'smu'.*did you mean 'sum'"
bad_eval "unknown function" 'frobnicate(3)' "unknown function 'frobnicate'"
bad_eval "unknown name with a suggestion" 'sum(nromal(shape=3))' "did you mean 'normal'"
bad_eval "unknown keyword with a suggestion" 'sum(arange(3), axs=0)' "keyword.*'axs'.*did you mean 'axis'"
bad_eval "unknown keyword of a generator" 'normal(shape=(3,), chunkz=2)' "'chunkz'.*did you mean 'chunks'"
bad_eval "unknown method with a suggestion" 'arange(3).meen()' "'meen'.*did you mean 'mean'"
bad_eval "broadcast mismatch" 'arange(3) + arange(4)' "broadcast.*\\(3,\\).*\\(4,\\)"
bad_eval "broadcast mismatch in 2-d" 'ones((3, 4)) * ones((4, 3))' "broadcast.*\\(3, 4\\).*\\(4, 3\\)"
bad_eval "index out of range" 'arange(3)[5]' "out of (bounds|range)"
bad_eval "negative index out of range" 'ones((2, 3))[0, -4]' "out of (bounds|range)"
bad_eval "too many indices" 'arange(3)[1, 2]' "too many indices"
bad_eval "axis out of range" 'sum(ones((2, 2)), axis=2)' "axis 2 is out of bounds"
bad_eval "zero slice step" 'arange(3)[::0]' "step cannot be zero"
bad_eval "zero arange step" 'arange(0, 3, 0)' "step cannot be zero"
bad_eval "zero chunk size" 'ones(10, chunks=0)' "chunk.*(positive|zero|0)"
bad_eval "negative chunk size" 'ones(10, chunks=-2)' "chunk.*(positive|negative|-2)"
bad_eval "zero chunk in a tuple" 'ones((4, 4), chunks=(2, 0))' "chunk.*(positive|zero|0)"
bad_eval "zero entry in explicit chunks" 'ones(4, chunks=((4, 0),))' "chunk.*(positive|zero|>= ?1|0)"
bad_eval "chunks tuple of the wrong length" 'ones((4, 4), chunks=(2,))' "chunks.*(1 entr|length|dimension)"
bad_eval "chunks not summing to the shape" 'ones(10, chunks=((3, 3),))' "sum to 6.*10|10.*6"
bad_eval "unsupported dtype" 'ones(3, dtype="complex128")' "dtype.*complex128"
bad_eval "negative dimension" 'ones(-1)' "negative"
bad_eval "wrong argument type" 'ones("a")' "shape|integer|str"
bad_eval "missing shape" 'normal(0, 1)' "shape"
bad_eval "zero-size min" 'min(ones(0))' "zero-size|empty|identity"
bad_eval "negative scale" 'normal(0, -1, shape=3)' "scale"
bad_eval "seed out of range" 'normal(shape=3, seed=-1)' "seed"
# (A job may hold big arrays: only eval must refuse to print one.)
EVAL_ONLY=1
bad_eval "eval result too large" 'normal(shape=(2000, 2000))' "!^tessera: error: .*(elements|too large|prints at most)"
EVAL_ONLY=

# A job file: position of an error on a later line, and nothing printed
# before it (every line is checked before any computing starts).
printf 'total = sum(arange(3))\nb = totl + 1\n' >job2.tsr
capture out err tsr run job2.tsr
check_failed "unknown name in a job"
check_stderr "unknown name in a job" err "^tessera: error: job2\\.tsr:2:5: name 'totl' is not defined; did you mean 'total'\\?"
check_caret "unknown name in a job" 'job2\.tsr' 2
printf 'total = sum(arange(3))\nb = (1 +\n  * 2)\n' >job3.tsr
capture out err tsr run job3.tsr
check_failed "syntax error on line 3"
check_stderr "syntax error on line 3" err '^tessera: error: job3\.tsr:3:[0-9]+: '
check_caret "syntax error on line 3" 'job3\.tsr' 3
# From standard input the name is "-" or "<stdin>".
set +e
timeout 60 "$TESSERA" --quiet run - <job2.tsr >out 2>err
RC=$?
set -e
check_failed "unknown name in a job on stdin"
check_stderr "unknown name in a job on stdin" err "^tessera: error: (-|<stdin>|stdin):2:5: name 'totl'"

# ---- errors outside the job text ----------------------------------------------------

# bad_cli WHAT PATTERN ARGS...: tessera ARGS fails (alone and on 2 ranks).
bad_cli() {
  _what=$1 _pat=$2
  shift 2
  capture out err tsr "$@"
  check_failed "$_what"
  check_stderr "$_what" err "$_pat"
  capture out err mpi_tsr 2 "$@"
  check_failed "$_what (2 ranks)"
  check_stderr "$_what (2 ranks)" err "$_pat"
}

big='sum(normal(shape=(4000, 4000), chunks=2000) + 1)'
bad_cli "--no-fuse chunks over --mem-limit" 'mem-limit' --no-fuse --mem-limit=1M eval "$big"
rm -rf res && mkdir res
printf 'x = %s\n' "$big" >mem.tsr
bad_cli "--no-fuse chunks over --mem-limit, run -o" 'mem-limit' --no-fuse --mem-limit=1M run mem.tsr -o res/out.h5
[ -z "$(ls -A res)" ] || soft_fail "memory-limit failure left $(ls -A res)"
bad_cli "missing job file" "nonexistent/job\\.tsr" run "$TMP/nonexistent/job.tsr"
bad_cli "unknown option" "unknown option '--frobnicate'" --frobnicate eval 1
bad_cli "unknown command" "unknown command 'frob'" frob
bad_cli "eval without an expression" "eval" eval
bad_cli "run without a file" "run" run
bad_cli "bad --mem-limit" "mem-limit" --mem-limit=lots eval 1
bad_cli "bad --seed" "seed" --seed=-3 eval 1
bad_cli "bad --threads" "threads" --threads=0 eval 1
bad_cli "unknown backend" "backend" --backend=quantum eval 1
# Environment knobs: job/setup.c reads and checks every TESSERA_* variable once;
# a bad value is one error naming it (TESSERA_FAULT: tests/backend/worker_errors.sh).
# bad_knob VAR VALUE EXPECTED: tessera with VAR=VALUE fails with that error;
# VAR is then what it was (gpu-check.sh runs the suite with
# TESSERA_GPUS_SHARED=1, which the 2-rank checks below need on one GPU).
bad_knob() {
  _had=$(printenv "$1") && _set=1 || _set=0
  export "$1=$2"
  bad_cli "$1=$2" "^tessera: error: $1=$2: expected $3" eval 'sum(ones(3))'
  if [ "$_set" = 1 ]; then export "$1=$_had"; else unset "$1"; fi
}
for v in abc 0 -2 inf nan 1e999 5s; do
  bad_knob TESSERA_PROGRESS_INTERVAL "$v" 'a positive number of seconds'
done
# TESSERA_PROGRAM_LIMIT=LEAVES,OPERATIONS[,REGISTERS]: at least what one
# binary operation of two cut operands needs (2, 3, 3).
for v in 8 abc 1,5 2,2 2,3,2 4,6,8,10 4,6, ,4 4,x 4.5,6 -2,5 99999999999,9; do
  bad_knob TESSERA_PROGRAM_LIMIT "$v" 'LEAVES,OPERATIONS\[,REGISTERS\], integers of at least 2, 3 and 3'
done
for v in bogus TREE 1; do
  bad_knob TESSERA_TSQR "$v" 'one of auto tree gram'
done
for k in TESSERA_HOST_EXCHANGE TESSERA_HDF5_INDEPENDENT TESSERA_GPUS_SHARED TESSERA_GPU_NO_WALK \
  TESSERA_GPU_ISOLATE; do
  bad_knob "$k" 2 '1 or 0'
  bad_knob "$k" maybe '1 or 0'
done
# A results file that cannot be created is found before the job computes
# (DESIGN.md: user errors are detected before heavy work where possible).
printf 'x = sum(arange(10))\n' >small.tsr
bad_cli "-o into a missing directory" "nodir/out\\.h5" run small.tsr -o "$TMP/nodir/out.h5"
[ ! -e nodir ] || soft_fail "-o into a missing directory created it"

# A directory or an empty file as the job.
bad_cli "a directory as the job" "is a directory" run "$TMP"
: >empty.tsr
bad_cli "an empty job file" "job file 'empty.tsr' is empty" run empty.tsr

# Long expressions: a 200000-term sum of numbers runs (no recursion down the
# chain); an array expression deeper than the graph passes take is one error.
awk 'BEGIN { printf "x = 1"; for (i = 1; i < 200000; i++) printf " + 1"; print "" }' >long.tsr
capture out err tsr run long.tsr
[ "$RC" -eq 0 ] && grep -q '^x = 200000$' out || soft_fail "a 200000-term sum: exit $RC, $(head -c 300 out err)"
awk 'BEGIN { printf "a = ones(3)\nx = sum(a * 2"; for (i = 1; i < 20001; i++) printf " + a * 2"; print ")" }' >deep.tsr
capture out err tsr run deep.tsr
check_failed "an array expression 20001 operations deep"
check_stderr "an array expression 20001 operations deep" err "deep.tsr:2:[0-9]+: array expression more than 20000 operations deep"

# --no-fuse chunks that cannot fit --mem-limit: refused before any work,
# with the sizes and the largest chunk that would fit.
capture out err tsr --no-fuse --mem-limit=50M eval 'sum(normal(shape=(10000, 10000), chunks=(5000, 5000)) + 1)'
check_failed "a --no-fuse chunk chain over --mem-limit"
check_stderr "a --no-fuse chunk chain over --mem-limit" err \
  'chunks of 25000000 elements need 600 MB per worker without fusion, over --mem-limit 50 MB: use chunks of at most [0-9]+ elements'

# --backend=cuda where no CUDA backend can run.
info=$(tsr info)
if printf '%s\n' "$info" | grep -Eq '^backend cuda: [0-9]+ GPU'; then
  note "a CUDA backend is available here: the --backend=cuda error case is skipped"
else
  bad_cli "--backend=cuda without a usable CUDA backend" "cuda" --backend=cuda eval 'sum(ones(3))'
fi

finish
