#!/bin/sh
# sweep_warm.sh - tessera sweep --warm-start: each lambda path runs from the
# largest lamduh down, each fit from the coefficients before it. For lbfgs,
# newton, gradient_descent (l2) and proximal_grad (l1): the path's first fit
# is the bits of `tessera run --set`; every other fit meets its solver's
# convergence test at its own lamduh (numpy's gradient of the objective, or
# the l1 optimality conditions) and is within the distance that test allows
# of `run --set`'s coefficients (and 1e-6); the table records warm_start, the
# batch and each trial's fit record (fits/coef/...), whose iterations and
# passes over X sum to fewer than a cold sweep's. The table is the same on 1
# rank, on 2 groups (auto batch: 16 whatever the groups; --batch 3) and on one
# group of 2 ranks. --resume of a cold sweep's journal with --warm-start is
# refused; --help names the option.
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"

TIMEOUT=120
need_numpy
loud() { ${TIMEOUT:+timeout -k 5 "$TIMEOUT"} "$TESSERA" "$@"; }

cat >w.tsr <<'EOF2'
lam = param(1.0)
solver = param("lbfgs")
reg = param("l2")
X = normal(shape=(3000, 5), chunks=(700, 5), seed=3)
y = greater(X[:, 0] - 0.7 * X[:, 2] + 0.8 * normal(shape=(3000,), chunks=700, seed=4), 0.0)
coef, intercept = logistic_regression(X, y, lamduh=lam, solver=solver, regularizer=reg, max_iter=2000)
EOF2

# check_warm SWEEP COLD PREFIX REG LAMS WHAT: the warm sweep against the runs
# PREFIX-i.h5 and the cold sweep COLD (see the top of the file).
check_warm() {
  "$PYNP" - "$@" <<'PY' || soft_fail "$6: --warm-start (above)"
import h5py, numpy as np, sys
wpath, cpath, prefix, reg, lams, what = sys.argv[1:7]
lams = [float(v) for v in lams.split(",")]
w, c = h5py.File(wpath, "r"), h5py.File(cpath, "r")
bad = []
if w.attrs["warm_start"] != 1 or w.attrs["warm_start_batch"] != 16 or c.attrs["warm_start"] != 0:
    bad.append("root attributes %s" % {k: v for k, v in w.attrs.items() if k.startswith("warm")})
first = int(np.argmax(lams))  # the path's cold start
if w["fits/coef/warm_start"][:].tolist() != [float(i != first) for i in range(len(lams))]:
    bad.append("fits/coef/warm_start %s" % w["fits/coef/warm_start"][:])
tol = 1e-8  # the job's (logistic_regression's default)
for i, lam in enumerate(lams):
    r = h5py.File("%s-%d.h5" % (prefix, i), "r")
    X, y = r["X"][()], r["y"][()]
    X1 = np.hstack([X, np.ones((len(y), 1))])
    b_run = np.append(r["coef"][()], r["intercept"][()])
    b = np.append(w["results/coef"][i], w["results/intercept"][i])
    diff = np.abs(b - b_run).max()
    if i == first:
        if not np.array_equal(b, b_run) or w["fits/coef/n_iter"][i] != r["coef"].attrs["n_iter"]:
            bad.append("trial %d, the path's cold start: not the bits of run --set" % i)
        continue
    if w["fits/coef/converged"][i] != 1:
        bad.append("trial %d: not converged" % i)
    g0 = X1.T @ (0.5 - y)  # the data's gradient at beta = 0
    g = X1.T @ (1 / (1 + np.exp(-(X1 @ b))) - y)
    if reg == "l2":
        # The solver stopped at |grad F|_inf <= tol * max(1, |grad F(0)|_inf);
        # so did run --set. F is mu-strongly convex (mu: the smallest
        # eigenvalue of its Hessian, halved for the segment between them), so
        # each is within sqrt(q) |grad F|_inf / mu of the optimum.
        g[:-1] += lam * b[:-1]
        scale = max(1.0, np.abs(g0).max())
        p = 1 / (1 + np.exp(-(X1 @ b_run)))
        H = X1.T @ (X1 * (p * (1 - p))[:, None]) + lam * np.diag([1.0] * 5 + [0.0])
        mu = 0.5 * np.linalg.eigvalsh(H)[0]
        bound = 2 * np.sqrt(len(b)) * tol * scale / mu
        res, lim = np.abs(g).max(), tol * scale * (1 + 1e-6) + 1e-9
        if not res <= lim:
            bad.append("trial %d: |grad F|_inf %g over tol * scale %g" % (i, np.abs(g).max(), tol * scale))
    else:
        # proximal_grad stops when its gradient map |y - z|_inf / s is at most
        # tol * max(1, the map at 0) = tol * max(1, |g0_j| - lam, |g0_int|);
        # the optimality conditions at z then hold to about twice that.
        scale = max(1.0, np.maximum(np.abs(g0[:-1]) - lam, 0).max(), abs(g0[-1]))
        kkt = np.where(b[:-1] != 0, np.abs(g[:-1] + lam * np.sign(b[:-1])),
                       np.maximum(np.abs(g[:-1]) - lam, 0))
        res = max(kkt.max(), abs(g[-1]))
        bound = 1e-6
        lim = 4 * tol * scale
        if not res <= lim:
            bad.append("trial %d: l1 optimality residual %g over 4 tol * scale %g" % (i, res, 4 * tol * scale))
    if not diff <= min(bound, 1e-6):
        bad.append("trial %d: max |warm - run --set| %g over %g" % (i, diff, min(bound, 1e-6)))
    print("trial %d: lam %g, max diff %.3g (bound %.3g), optimality %.3g (bound %.3g), "
          "n_iter %d (cold %d)" % (i, lam, diff, bound, res, lim, w["fits/coef/n_iter"][i],
                                   c["fits/coef/n_iter"][i]))
for key in ("n_iter", "passes"):
    sw, sc = w["fits/coef/" + key][:].sum(), c["fits/coef/" + key][:].sum()
    print("%s: %d warm, %d cold" % (key, sw, sc))
    if not sw < sc:
        bad.append("%s: %d warm, not fewer than %d cold" % (key, sw, sc))
print("\n".join(bad)) if bad else None
sys.exit(bool(bad))
PY
}

for case in lbfgs:l2:0.5,2,8,30,100 newton:l2:0.5,2,8,30,100 gradient_descent:l2:0.5,2,8,30,100 \
  proximal_grad:l1:5,20,60,150,400; do
  solver=${case%%:*} rest=${case#*:}
  reg=${rest%%:*} lams=${rest#*:}
  i=0
  for lam in $(echo "$lams" | tr , ' '); do
    capture rout rerr tsr run w.tsr --set lam=$lam --set solver=$solver --set reg=$reg -o $solver-$i.h5
    [ "$RC" -eq 0 ] || fail "$solver: run --set lam=$lam: exit $RC: $(cat rerr)"
    i=$((i + 1))
  done
  SET="--set solver=$solver --set reg=$reg --grid lam=$lams"
  capture out err loud sweep w.tsr -o $solver-w.h5 $SET --warm-start
  [ "$RC" -eq 0 ] || fail "$solver: --warm-start: exit $RC: $(cat err)"
  grep -q 'trials 0 to 4: 1 lambda path (warm starts)' err || soft_fail "$solver: no warm path: $(cat err)"
  capture out err tsr sweep w.tsr -o $solver-c.h5 $SET
  [ "$RC" -eq 0 ] || fail "$solver: cold sweep: exit $RC: $(cat err)"
  note "$solver:"
  check_warm $solver-w.h5 $solver-c.h5 $solver $reg $lams "$solver"
done

# The groups do not change a warm table: the batches are the same runs of
# the trial list (auto: 16 on any number of groups; --batch 3: two paths).
SET="--set solver=lbfgs --grid lam=0.5,2,8,30,100 --warm-start"
capture out err mpi_tsr 2 sweep w.tsr -o groups.h5 $SET
[ "$RC" -eq 0 ] || fail "2 groups: exit $RC: $(cat err)"
same_table lbfgs-w.h5 groups.h5 "auto batch, 1 rank against 2 groups"
capture out err mpi_tsr 2 sweep w.tsr -o pair.h5 $SET --ranks-per-trial 2
[ "$RC" -eq 0 ] || fail "one group of 2 ranks: exit $RC: $(cat err)"
same_table lbfgs-w.h5 pair.h5 "1 rank against one group of 2 ranks"
capture out err tsr sweep w.tsr -o b3.h5 $SET --batch 3
[ "$RC" -eq 0 ] || fail "--batch 3: exit $RC: $(cat err)"
capture out err mpi_tsr 2 sweep w.tsr -o b3g.h5 $SET --batch 3
[ "$RC" -eq 0 ] || fail "--batch 3 on 2 groups: exit $RC: $(cat err)"
same_table b3.h5 b3g.h5 "--batch 3, 1 rank against 2 groups"
"$PYNP" - <<'PY' || soft_fail "--batch 3: not two warm paths (above)"
import h5py, sys
t = h5py.File("b3.h5", "r")
ws = t["fits/coef/warm_start"][:].tolist()
print(ws, t.attrs["warm_start_batch"])
sys.exit(not (ws == [1, 1, 0, 1, 0] and t.attrs["warm_start_batch"] == 3))
PY

capture out err tsr sweep w.tsr -o lbfgs-c.h5 --set solver=lbfgs --set reg=l2 \
  --grid lam=0.5,2,8,30,100 --warm-start --resume
[ "$RC" -eq 1 ] && grep -q 'another sweep (its job, trials or --warm-start differ)' err ||
  soft_fail "--warm-start --resume of a cold journal: exit $RC: $(cat err)"
capture out err "$TESSERA" sweep --help
grep -q -- '--warm-start' out || soft_fail "sweep --help does not name --warm-start"
finish
