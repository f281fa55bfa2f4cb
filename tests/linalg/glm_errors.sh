#!/bin/sh
# glm_errors.sh - a GLM's bad data found by several ranks is one error: y
# not 0/1 for a logistic fit and negative counts for a Poisson one, present
# in every rank's rows, give exactly one `tessera: error:` line on 1, 2 and
# 3 ranks, the same text for every rank count, naming the first offending
# row of all (held by rank 1 of 2 and rank 2 of 3), with exit status 1 and
# no hang; so is a singular Hessian, which the replicated small algebra of
# every rank finds.
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"

TIMEOUT=60

# rows 0..1149 are valid, every row from 1150 on (blocks 11..29 of 100 rows:
# every rank's) is not
cat >logistic.tsr <<'EOF2'
X = normal(shape=(3000, 4), chunks=(100, 4), seed=1)
y = greater(X[:, 0], 0.0) + 2.0 * greater(arange(3000, chunks=100), 1149.5)
coef, intercept = logistic_regression(X, y)
EOF2
cat >poisson.tsr <<'EOF2'
X = normal(shape=(3000, 4), chunks=(100, 4), seed=2)
y = exp(0.3 * X[:, 1]) - 10.0 * greater(arange(3000, chunks=100), 1149.5)
coef, intercept = poisson_regression(X, y)
EOF2

cat >singular.tsr <<'EOF2'
X = ones((3000, 4), chunks=(100, 4))
y = normal(shape=(3000,), chunks=100, seed=3)
coef, intercept = linear_regression(X, y, solver="newton", regularizer="none")
EOF2

one_error() { # JOB EXPECTED: the same one error on 1, 2 and 3 ranks
  for np in 1 2 3; do
    capture out "err$np" mpi_tsr "$np" run "$1"
    [ "$RC" -eq 1 ] || soft_fail "$1 on $np rank(s): exit $RC, expected 1: $(cat "err$np")"
    lines=$(grep '^tessera: error:' "err$np" || true)
    n=$(printf '%s' "$lines" | grep -c . || true)
    [ "$n" -eq 1 ] || soft_fail "$1 on $np rank(s): $n error lines, expected one: $(cat "err$np")"
    [ "$lines" = "tessera: error: $2" ] ||
      soft_fail "$1 on $np rank(s): got '$lines', expected 'tessera: error: $2'"
  done
}
one_error logistic.tsr \
  'logistic_regression at 3:19: y[1150] is not a valid response: logistic family needs y 0 or 1'
one_error poisson.tsr \
  'poisson_regression at 3:19: y[1150] is not a valid response: poisson family needs y finite and >= 0'
one_error singular.tsr \
  'linear_regression at 3:19: the Hessian is singular at iteration 1 (linearly dependent columns of X, or data a hyperplane separates): add a penalty (regularizer="l2")'
finish
