#!/bin/sh
# sweep_batch.sh - tessera sweep --batch: trials whose GLM fits differ only in
# lamduh are solved together as a lambda path (one pass over X per round for
# every lambda), and every trial's coefficients, intercept and fit record
# (n_iter, converged, objective, passes) stay the bits of `tessera run --set`
# for each solver that batches (lbfgs, newton, gradient_descent,
# proximal_grad with l1), with a batch that does not divide the trials, on 1
# rank, on 2 groups and on one group of 2 ranks; trials whose data differ
# (another seed) are not put on one path and still match; a lambda whose
# solver fails inside a path (a singular Hessian) is that trial's recorded
# failure with the single run's message while the others finish; a trial's
# seconds include its share of the path (at least its fit's); --batch 1
# solves no path; a bad --batch is a usage error.
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"

TIMEOUT=240
need_numpy
# Without --quiet: the sweep says which trials made a lambda path.
loud() { ${TIMEOUT:+timeout -k 5 "$TIMEOUT"} "$TESSERA" "$@"; }
mpi_loud() {
  _np=$1
  shift
  mpi_run "$_np" "$TESSERA" "$@"
}

# same_fits SWEEP.h5 PREFIX N: trial i against PREFIX-i.h5, bit for bit.
same_fits() {
  "$PYNP" - "$1" "$2" "$3" <<'PY' || soft_fail "$4: trials differ from tessera run --set (above)"
import h5py, numpy as np, sys
t = h5py.File(sys.argv[1], "r")
bad = []
st = [s.decode() for s in t["trials/status"][:]]
for i in range(int(sys.argv[3])):
    if st[i] != "ok": bad.append("trial %d: %s" % (i, st[i])); continue
    r = h5py.File("%s-%d.h5" % (sys.argv[2], i), "r")
    fit = lambda key: t["fits/coef/" + key][i]  # the trial's fit record
    for name in ("coef", "intercept"):
        if not np.array_equal(r[name][()], t["results/" + name][i]):
            bad.append("trial %d %s: %r against %r" % (i, name, t["results/" + name][i], r[name][()]))
    # a trial's seconds: its own work plus its share of the path (its fit's seconds)
    if not t["trials/seconds"][i] >= fit("seconds") > 0:
        bad.append("trial %d: %r s, its fit %r s" % (i, t["trials/seconds"][i], fit("seconds")))
    for key in ("n_iter", "converged", "objective", "passes", "warm_start"):
        if r["coef"].attrs[key] != fit(key):
            bad.append("trial %d %s: %r against %r" % (i, key, fit(key), r["coef"].attrs[key]))
print("\n".join(bad)) if bad else None
sys.exit(bool(bad))
PY
}

LAMS="0.001 0.05 0.7 3 40"
for solver in lbfgs newton gradient_descent proximal_grad; do
  reg=l2
  [ $solver = proximal_grad ] && reg=l1
  cat >$solver.tsr <<EOF2
lam = param(1.0)
X = normal(shape=(3000, 5), chunks=(700, 5), seed=3)
y = greater(X[:, 0] - 0.7 * X[:, 2] + 0.8 * normal(shape=(3000,), chunks=700, seed=4), 0.0)
coef, intercept = logistic_regression(X, y, lamduh=lam, solver="$solver", regularizer="$reg", max_iter=400)
EOF2
  i=0
  for lam in $LAMS; do
    capture rout rerr tsr run $solver.tsr --set lam=$lam -o $solver-$i.h5
    [ "$RC" -eq 0 ] || fail "$solver: run --set lam=$lam: exit $RC: $(cat rerr)"
    i=$((i + 1))
  done
  capture out err loud sweep $solver.tsr -o $solver-b.h5 --grid lam=0.001,0.05,0.7,3,40 --batch 3
  [ "$RC" -eq 0 ] || fail "$solver: batched sweep: exit $RC: $(cat err)"
  grep -q 'trials 0 to 2: 1 lambda path' err && grep -q 'trials 3 to 4: 1 lambda path' err ||
    soft_fail "$solver: no lambda paths of 3 and 2 trials: $(cat err)"
  same_fits $solver-b.h5 $solver 5 "$solver, 1 rank, --batch 3"
done

# More ranks: 2 groups (each its own paths), and 2 ranks in one group (a
# path's passes gathered over the ranks); auto batch.
capture out err mpi_tsr 2 sweep lbfgs.tsr -o groups.h5 --grid lam=0.001,0.05,0.7,3,40
[ "$RC" -eq 0 ] || fail "2 groups: exit $RC: $(cat err)"
same_fits groups.h5 lbfgs 5 "lbfgs, 2 groups"
capture out err mpi_loud 2 sweep proximal_grad.tsr -o pair.h5 --grid lam=0.001,0.05,0.7,3,40 \
  --ranks-per-trial 2 --batch 4
[ "$RC" -eq 0 ] || fail "one group of 2 ranks: exit $RC: $(cat err)"
grep -q 'lambda path' err || soft_fail "2 ranks: no lambda path: $(cat err)"
same_fits pair.h5 proximal_grad 5 "proximal_grad, a group of 2 ranks"
capture out err mpi_tsr 2 sweep newton.tsr -o npair.h5 --grid lam=0.001,0.05,0.7,3,40 \
  --ranks-per-trial 2 --batch 5
[ "$RC" -eq 0 ] || fail "newton, one group of 2 ranks: exit $RC: $(cat err)"
same_fits npair.h5 newton 5 "newton, a group of 2 ranks"

# Trials on other data: a path per seed, and a seed alone is solved alone.
cat >seeds.tsr <<'EOF2'
lam = param(1.0)
seed = param(0)
X = normal(shape=(2000, 4), chunks=(500, 4), seed=seed)
y = greater(X[:, 1] + normal(shape=(2000,), chunks=500, seed=seed + 50), 0.0)
coef, intercept = logistic_regression(X, y, lamduh=lam)
EOF2
i=0
for seed in 0 1; do
  for lam in 0.1 5; do
    capture rout rerr tsr run seeds.tsr --set lam=$lam --set seed=$seed -o seeds-$i.h5
    [ "$RC" -eq 0 ] || fail "seeds: run: exit $RC: $(cat rerr)"
    i=$((i + 1))
  done
done
capture out err loud sweep seeds.tsr -o seeds-b.h5 --grid seed=0,1 --grid lam=0.1,5 --batch 3
[ "$RC" -eq 0 ] || fail "seeds: exit $RC: $(cat err)"
grep -q 'trials 0 to 2: 1 lambda path,' err || soft_fail "seeds: not one path in 0..2: $(cat err)"
grep -q 'trials 3 to 3' err && soft_fail "seeds: a path of one trial: $(cat err)"
same_fits seeds-b.h5 seeds 4 "trials on two data sets"
capture out err loud sweep seeds.tsr -o seedsone.h5 --grid seed=0,1 --grid lam=0.1,5 --batch 1
[ "$RC" -eq 0 ] || fail "--batch 1: exit $RC: $(cat err)"
grep -q 'lambda path' err && soft_fail "--batch 1 solved a path: $(cat err)"
same_fits seedsone.h5 seeds 4 "--batch 1"

# A lambda whose solver fails on the path: the trial records the single
# run's error, the others finish.
cat >col.tsr <<'EOF2'
lam = param(1.0)
X = normal(shape=(2000, 1), chunks=(500, 1), seed=5) * ones((1, 3), chunks=(1, 3))
y = greater(X[:, 0] + 0.5 * normal(shape=(2000,), chunks=500, seed=6), 0.0)
coef, intercept = logistic_regression(X, y, lamduh=lam, solver="newton", regularizer="l2")
EOF2
capture out err mpi_tsr 2 sweep col.tsr -o col.h5 --grid lam=0.5,0,2 --ranks-per-trial 2
[ "$RC" -eq 3 ] || soft_fail "a failing lambda: exit $RC, expected 3: $(cat err)"
"$PYNP" - <<'PY' || soft_fail "the failing lambda's record (above)"
import h5py, sys
t = h5py.File("col.h5", "r")
st = [s.decode() for s in t["trials/status"][:]]
err = [s.decode() for s in t["trials/error"][:]]
print(st, err)
sys.exit(not (st == ["ok", "failed", "ok"] and "Hessian is singular at iteration 1" in err[1]))
PY

capture out err tsr sweep lbfgs.tsr -o bad.h5 --grid lam=1,2 --batch 0
[ "$RC" -eq 2 ] && grep -q "bad --batch '0'" err || soft_fail "--batch 0: exit $RC: $(cat err)"
finish
