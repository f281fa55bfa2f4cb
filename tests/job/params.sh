#!/bin/sh
# params.sh - job parameters: `name = param(default)` is its default, or the
# value of `tessera run --set name=VALUE` converted to the default's type
# (integer, number, True/False, string), on 1 and 2 ranks; the value goes to
# the results file like any name; a GLM fit whose lamduh is a param, run with
# --set, gives the bits of the same job with that lamduh written in it (what
# a sweep's trials rely on); each misuse is one error: a setting of the wrong
# type (at the param's line), a --set that names no param, a malformed
# --set, --set outside `run`, param() that is not a whole right-hand side.
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"

TIMEOUT=60
cat >job.tsr <<'EOF2'
lam = param(1.0)
n = param(3)
tag = param("base")
flag = param(False)
x = normal(0, 1, (400, 3), chunks=(100, 3), seed=n)
s = sum(x * lam)
EOF2

capture out err tsr run job.tsr
[ "$RC" -eq 0 ] || fail "defaults: exit $RC: $(cat err)"
expect_eq "$(grep -E '^(lam|n|tag|flag) =' out | tr '\n' ' ')" "lam = 1 n = 3 tag = 'base' flag = False " "defaults"

capture out err tsr run job.tsr --set lam=0.25 --set n=7 --set tag=other --set=flag=True -o res.h5
[ "$RC" -eq 0 ] || fail "--set: exit $RC: $(cat err)"
expect_eq "$(grep -E '^(lam|n|tag|flag) =' out | tr '\n' ' ')" "lam = 0.25 n = 7 tag = 'other' flag = True " "--set values"
s_set=$(sed -n 's/^s = //p' out)
printf 'x = normal(0, 1, (400, 3), chunks=(100, 3), seed=7)\ns = sum(x * 0.25)\n' >lit.tsr
capture out err tsr run lit.tsr
expect_eq "$s_set" "$(sed -n 's/^s = //p' out)" "a job run with --set against the same job written out"
capture out2 err2 mpi_tsr 2 run job.tsr --set lam=0.25 --set n=7
expect_eq "$(sed -n 's/^s = //p' out2)" "$s_set" "--set on 2 ranks"

need_numpy
"$PYNP" - <<'PY' || soft_fail "the results file does not hold lam = 0.25 and n = 7"
import h5py, sys
f = h5py.File("res.h5", "r")
sys.exit(not (f["lam"][()] == 0.25 and f["n"][()] == 7))
PY

# A GLM fit with a param as its penalty: the bits of the literal job.
cat >fit.tsr <<'EOF2'
lam = param(1.0)
X = normal(0, 1, (2000, 4), chunks=(500, 4), seed=1)
y = greater(X @ ones(4), normal(0, 2, 2000, chunks=500, seed=2))
coef, b = logistic_regression(X, y, lamduh=lam)
EOF2
sed 's/^lam = param(1.0)$/lam = 3.5/' fit.tsr >fit_lit.tsr
capture out err tsr run fit.tsr --set lam=3.5
capture out2 err2 tsr run fit_lit.tsr
[ "$RC" -eq 0 ] || soft_fail "the literal fit failed: $(cat err2)"
expect_eq "$(grep -E '^(coef|b) =' out)" "$(grep -E '^(coef|b) =' out2)" "a fit with --set lam=3.5 and with lam = 3.5 written"

misuse() { # EXPECTED ARGS...
  _want=$1
  shift
  capture out err tsr "$@"
  [ "$RC" -ne 0 ] || soft_fail "$*: exit 0"
  [ "$(grep -c '^tessera: error' err)" -eq 1 ] && grep -q -- "$_want" err ||
    soft_fail "$*: expected one error with '$_want': $(cat err)"
}
misuse 'job.tsr:2:5: --set n=2.5: n is an integer' run job.tsr --set n=2.5
misuse '--set lam=x: lam is a finite number' run job.tsr --set lam=x
misuse '--set flag=1: flag is True or False' run job.tsr --set flag=1
misuse '--set lamm=1: the job has no param() named lamm (its params: lam, n, tag, flag)' run job.tsr --set lamm=1
misuse "bad --set 'lam': use NAME=VALUE" run job.tsr --set lam
misuse '--set is for tessera run' eval --set a=1 '1 + 1'
printf 'x = 1 + param(2)\n' >nested.tsr
misuse 'param() must be the whole right-hand side of an assignment to one name' run nested.tsr
finish
