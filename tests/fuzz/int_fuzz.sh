#!/bin/sh
# int_fuzz.sh - differential fuzzing of the bool and integer dtypes against
# NumPy, EXACT: tests/fuzz/int_fuzz.py writes a job of random expressions
# (one `rK = EXPR` a case) over int8 ... uint64 and bool arrays with ragged
# chunks, chunks of 1 and empty axes: the integer operators and functions,
# comparisons, where, isin, clip, the reductions (nan-forms, ptp, tuple axes),
# median/quantile/percentile, cumsum/cumprod/nancumsum/nancumprod/diff/sort, Python
# int/bool/float scalars (NEP 50), slices with steps and broadcasting. The
# job runs fused and --no-fuse, on 1 and 3 ranks; every result must equal
# NumPy's (NumPy 1.24 with weak promotion) in shape, dtype and value, and
# the results of the 4 modes must be bitwise equal.
#
# FUZZ_SEED (default 0) and FUZZ_CASES (default 600 random cases, after the fixed edge cases: about 8 s on 2 cores) pick the run;
# FUZZ_ONLY=K[,K...] runs only those cases. A mismatch prints the seed, the
# case, the expression, both values and a command that reproduces it; a job
# that fails or hangs in a mode is bisected to the case that makes it fail.
# Known tessera bugs are left out of generation (the `# BUG:` comments in
# int_fuzz.py).
# shellcheck disable=SC1091 # lib.sh: shellcheck -x follows it
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"

need_numpy
SEED=${FUZZ_SEED:-0}
CASES=${FUZZ_CASES:-600}
ONLY=${FUZZ_ONLY:-}
TIMEOUT=${TIMEOUT:-$((60 + CASES / 10))}
FUZZ="$srcdir/tests/fuzz/int_fuzz.py"
fuzz() {
  _c=$1
  shift
  "$PYNP" "$FUZZ" "$_c" --seed "$SEED" --cases "$CASES" --only "$ONLY" "$@"
}

fuzz gen || fail "the generator failed (seed $SEED)"

# run_mode MODE RANKS [--no-fuse]: the job in one mode, results in MODE.h5;
# a job that fails is bisected to the case(s) that make it fail, reported,
# and run again without them.
RESULTS=""
run_mode() {
  _m=$1 _np=$2
  shift 2
  if [ "$_np" -eq 1 ]; then
    capture "$_m.out" "$_m.err" tsr "$@" run job.tsr -o "$_m.h5"
  else
    capture "$_m.out" "$_m.err" mpi_tsr "$_np" "$@" run job.tsr -o "$_m.h5"
  fi
  if [ "$RC" -ne 0 ]; then
    soft_fail "seed $SEED: the job failed in mode $_m ($RC): $(tail -n 5 "$_m.err")"
    if [ "$_np" -eq 1 ]; then
      fuzz isolate --timeout "$TIMEOUT" --mode "$_m" -- "$TESSERA" --quiet "$@" || true
    else
      # shellcheck disable=SC2046
      OMP_NUM_THREADS=${OMP_NUM_THREADS:-1} fuzz isolate --timeout "$TIMEOUT" --mode "$_m" -- \
        "$MPIEXEC" $(mpi_flags "$_np") "$TESSERA" --quiet "$@" || true
    fi
  fi
  [ ! -f "$_m.h5" ] || RESULTS="$RESULTS $_m=$_m.h5"
}

run_mode fused-1 1
run_mode nofuse-1 1 --no-fuse
run_mode fused-3 3
run_mode nofuse-3 3 --no-fuse

# shellcheck disable=SC2046,SC2086
fuzz check $RESULTS || soft_fail "seed $SEED: tessera and NumPy disagree (see above)"
finish
