#!/bin/sh
# parse_fuzz.sh - fuzzing of the job language's lexer, parser and interpreter
# under whatever the build has (AddressSanitizer and UBSan in a build with
# --enable-sanitizers): tests/fuzz/fuzz_jobs runs generated extremes (1 MB
# lines, 10^5-term expressions, 10^4-deep nesting, binary bytes, huge shapes)
# and FUZZ_CASES mutated jobs of the seed corpus tests/fuzz/corpus/ through
# the path of `tessera run` before any computation: parse, interpret into the
# lazy graph, free. An error from tessera is an expected outcome; a crash, a
# sanitizer report, a stack overflow or a hang (one input running longer than
# FUZZ_INPUT_TIMEOUT seconds) fails the test.
#
# FUZZ_SEED (default 13) and FUZZ_CASES (default 3000 mutated inputs) pick the
# run; every input depends only on the seed, its number and the corpus. The
# bugs the first runs found (signed overflow in integer arithmetic and chunk
# counts, a heap overflow from a wrapped chunk count, a stack array overflow
# in subscripts, postfix chains overflowing the stack, arange lengths from
# out-of-range doubles, quadratic name suggestions; time quadratic in the
# keyword arguments of a call, the variables of a job and the names of an
# unpacking, 10^5 of each now) are fixed; their inputs are among the
# extremes every run makes. A failure prints the seed, the input's number,
# what went wrong and the commands that write the input to a file and run
# it again.
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"

# Built by make check beside the tessera program (libtool's wrapper script).
: "${FUZZ_JOBS:=$(dirname "$TESSERA")/tests/fuzz/fuzz_jobs}"
FUZZ_JOBS=$(abspath "$FUZZ_JOBS")
TIMEOUT=${TIMEOUT:-900}
SEED=${FUZZ_SEED:-13}
CASES=${FUZZ_CASES:-3000}
INPUT_TIMEOUT=${FUZZ_INPUT_TIMEOUT:-30}
CORPUS="$srcdir/tests/fuzz/corpus"

[ -x "$FUZZ_JOBS" ] || fail "no fuzzer at $FUZZ_JOBS (make check builds tests/fuzz/fuzz_jobs)"
set -- "$CORPUS"/*.tsr
[ -f "$1" ] || fail "no seed corpus in $CORPUS"
note "$# corpus files, seed $SEED, $CASES mutated inputs"

start=$(date +%s)
capture fuzz.out fuzz.err ${TIMEOUT:+timeout -k 5 "$TIMEOUT"} \
  "$FUZZ_JOBS" --seed "$SEED" --count "$CASES" --timeout "$INPUT_TIMEOUT" "$@"
end=$(date +%s)
summary=$(grep -a "inputs in" fuzz.err | tail -n 1)
note "${summary:-no summary} (wall $((end - start)) s)"

# A sanitizer report without a crash (halt_on_error=0 in UBSAN_OPTIONS, say)
# fails the run as well.
if [ "$RC" -eq 0 ] && ! grep -a -q -e 'runtime error:' -e 'ERROR: AddressSanitizer' \
  -e '^fuzz_jobs: FAILED' fuzz.err; then
  finish
fi

# The input: the fuzzer names it on its "FAILED" line; a sanitizer report
# that did not end the run (see above) follows the last input started.
input=$(sed -n 's/^fuzz_jobs: FAILED: seed [0-9]*, input \([0-9][0-9]*\).*/\1/p' fuzz.err | head -n 1)
# Up to 60 lines from the first sign of trouble (a stack overflow's report
# lists every frame).
first=$(grep -a -n -m 1 -e '^fuzz_jobs: FAILED' -e 'runtime error:' -e '^==[0-9]*==ERROR' \
  -e '^\[.*\] \*\*\* Process received' fuzz.err | cut -d: -f1)
sed -n "${first:-1},$((${first:-1} + 59))p" fuzz.err >&2
case $RC in
124 | 137) why="the run did not end within $TIMEOUT s" ;;
0) why="a sanitizer report" ;;
*) why="exit status $RC" ;;
esac
corpus_glob="$CORPUS/*.tsr"
if [ -n "$input" ]; then
  fail "seed $SEED, input $input: $why (above). To reproduce it:
  write the input to a file:  $FUZZ_JOBS --seed $SEED --dump $input --out fuzz-$SEED-$input.tsr $corpus_glob
  run that file:              $FUZZ_JOBS --replay fuzz-$SEED-$input.tsr   (or: $TESSERA run fuzz-$SEED-$input.tsr)
  run the input alone:        $FUZZ_JOBS --seed $SEED --only $input $corpus_glob
  go on after it:             $FUZZ_JOBS --seed $SEED --count $CASES --from $((input + 1)) $corpus_glob"
fi
fail "seed $SEED: $why, and no input named (above). To run it again with each input's outcome:
  $FUZZ_JOBS --seed $SEED --count $CASES --verbose $corpus_glob"
