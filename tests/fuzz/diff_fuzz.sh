#!/bin/sh
# diff_fuzz.sh - differential fuzzing against NumPy: tests/fuzz/diff_fuzz.py
# writes a job of random well-typed expressions (one `rK = EXPR` a case:
# creation functions with irregular chunks, shapes of 0 to 4 axes with
# length-0 and length-1 axes, slices with negative steps and out-of-range
# bounds, integer and None indexes, broadcasting, elementwise functions,
# every reduction with axis/keepdims/ddof, .T, @, rechunk, astype, persist;
# every elementwise function that `tessera info` lists, on arrays holding
# +-0, +-inf and NaN; the nan-reductions, prod, ptp, average with weights,
# median and the quantiles, tuple and negative axes; cumsum, cumprod,
# nancumsum, nancumprod, diff, sort; comparisons, where, nan_to_num, isclose,
# allclose, isin; bool and int64 results: any, all, count_nonzero, argmax,
# argmin, nanargmax, nanargmin, the sum of a comparison; take and list
# indices, diag, outer, inner, vdot, kron, tensordot, einsum, topk; int64
# results of argsort, argtopk, digitize, searchsorted, histogram(...)[0] with
# range= or edges, bincount(x, minlength=M); and, in a few percent of the
# cases, results whose length the values decide: boolean masks x[mask],
# nonzero, where(c), flatnonzero, argwhere, compress, extract, unique,
# union1d, intersect1d, on operands whose truth or order is known),
# after fixed regression cases that once crashed tessera or gave a wrong
# value. The job runs fused and --no-fuse, on 1 and 3 ranks; every result
# must match NumPy in shape, dtype and value (within the rounding bound
# stated in diff_fuzz.py), and the 1-rank and 3-rank results of each mode
# must be bitwise equal. Covered only by hand-written tests: lstsq, solve,
# inv, pinv, svd_compressed, cholesky, solve_triangular, lu, det, slogdet,
# norm, histogram2d and histogramdd.
#
# FUZZ_SEED (default 0) and FUZZ_CASES (default 2000 random cases: about 7 s
# on 2 cores) pick the run; FUZZ_ONLY=K[,K...] runs only those cases. A
# mismatch prints the seed, the case, the expression, both values and a
# command that reproduces it; a job that fails or hangs in a mode is bisected
# to the case that makes it fail. Known tessera bugs are left out of
# generation (the `# BUG:` comments in diff_fuzz.py).
# shellcheck disable=SC1091 # lib.sh: shellcheck -x follows it
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"

need_numpy
SEED=${FUZZ_SEED:-0}
CASES=${FUZZ_CASES:-2000}
ONLY=${FUZZ_ONLY:-}
# each run of the job: about 1 s per 1000 cases here (2 cores), ten times that
# with sanitizers; a hang (a rank waiting for the others forever) ends at it
TIMEOUT=${TIMEOUT:-$((60 + CASES / 10))}
FUZZ="$srcdir/tests/fuzz/diff_fuzz.py"
# fuzz CMD ARGS...: the fuzzer with this run's seed, cases and selection.
fuzz() {
  _c=$1
  shift
  "$PYNP" "$FUZZ" "$_c" --seed "$SEED" --cases "$CASES" --only "$ONLY" --info info.txt "$@"
}

# the elementwise functions to fuzz: those of the operation table
capture info.txt info.err tsr info
[ "$RC" -eq 0 ] || fail "tessera info failed ($RC): $(cat info.err)"

fuzz gen || fail "the generator failed (seed $SEED)"
capture inputs.out inputs.err tsr run inputs.tsr -o inputs.h5
[ "$RC" -eq 0 ] || fail "the job writing the random inputs failed ($RC): $(cat inputs.err)"

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

# shellcheck disable=SC2086
fuzz check $RESULTS || soft_fail "seed $SEED: tessera and NumPy disagree (see above)"
finish
