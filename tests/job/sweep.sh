#!/bin/sh
# sweep.sh - tessera sweep: a grid of GLM fits where every trial's
# coefficients are the bits of `tessera run --set` with the same values; the
# table (trials/params, status, error, seconds, attempts, results stacked) is
# the same whether 1, 3 or 2x2 ranks ran it (groups of --ranks-per-trial), and
# so are --random draws; a trial whose parameter makes the job fail is
# recorded with its message while the others finish (exit 3); errors no
# setting can cure stop the sweep before any trial (exit 1, no journal);
# data held by a trial that no param changes is taken over by the group's
# next trial (trials/reused_bytes); --trial-timeout and --max-retries; SIGINT ends with 130 and --resume
# finishes; kill -9 of one rank mid-sweep leaves a journal that merges (no torn
# record, and the killed rank's finished trials salvaged from its pending
# file), then --resume finishes every trial with the finished ones not run
# again and only those running at the kill started twice; --shard I/N runs plus --merge give
# the unsharded table; an existing output needs --overwrite or --resume; the
# trials that finish together are one records file of the journal.
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"

TIMEOUT=120
need_numpy

cat >glm.tsr <<'EOF2'
lam = param(1.0)
seed = param(0)
X = normal(shape=(3000, 6), chunks=(700, 6), seed=seed)
y = greater(X[:, 0] - 0.7 * X[:, 2] + 0.3 * normal(shape=(3000,), chunks=700, seed=seed + 100), 0.0)
coef, intercept = logistic_regression(X, y, lamduh=lam)
norm2 = sum(coef * coef)
EOF2
GRID="--grid lam=0.01,0.3,2 --grid seed=0..1"

# ---- one rank: the table, and each trial against tessera run --set ---------------------

capture out err tsr sweep glm.tsr -o one.h5 $GRID --minimize norm2
[ "$RC" -eq 0 ] || fail "grid sweep: exit $RC: $(cat err)"
grep -q '^best trials:' out || soft_fail "no table of the best trials: $(cat out)"
[ -f one.h5.trials/manifest ] || soft_fail "no journal beside the output"
i=0
for lam in 0.01 0.3 2; do
  for seed in 0 1; do
    capture rout rerr tsr run glm.tsr --set lam=$lam --set seed=$seed -o run$i.h5
    [ "$RC" -eq 0 ] || fail "run --set lam=$lam seed=$seed: exit $RC: $(cat rerr)"
    i=$((i + 1))
  done
done
"$PYNP" - <<'PY' || soft_fail "the table does not match the single runs (above)"
import h5py, numpy as np, sys
t = h5py.File("one.h5", "r")
bad = []
lam, seed = t["trials/params/lam"][:], t["trials/params/seed"][:]
if not (lam.tolist() == [0.01, 0.01, 0.3, 0.3, 2, 2] and seed.tolist() == [0, 1] * 3):
    bad.append("params %s %s" % (lam, seed))
if seed.dtype != np.int64 or lam.dtype != np.float64:
    bad.append("param types %s %s" % (seed.dtype, lam.dtype))
if [s.decode() for s in t["trials/status"][:]] != ["ok"] * 6: bad.append("status")
if t["trials/attempts"][:].tolist() != [1] * 6: bad.append("attempts")
if not (t["trials/seconds"][:] > 0).all(): bad.append("seconds")
if t["results/coef"].shape != (6, 6): bad.append("coef shape %s" % (t["results/coef"].shape,))
for i in range(6):
    r = h5py.File("run%d.h5" % i, "r")
    for name in ("coef", "intercept", "norm2"):
        if not np.array_equal(r[name][()], t["results/" + name][i]):
            bad.append("trial %d %s: %s against run --set %s" % (i, name, t["results/" + name][i], r[name][()]))
    for key in ("n_iter", "objective"):
        pass
if t.attrs["trials_ok"] != 6: bad.append("trials_ok attribute")
print("\n".join(bad))
sys.exit(bool(bad))
PY

# The journal: trials that finish together (8 quick ones, one batch) are
# one records file, not a file each; a job with no numeric result (a
# string param) records its trials all the same.
printf 's = param("a")\n' >str.tsr
capture out err tsr sweep str.tsr -o str.h5 --grid s=a,b,c,d,e,f,g,h
[ "$RC" -eq 0 ] || soft_fail "a sweep with no numeric result: exit $RC: $(cat err)"
[ "$(ls str.h5.trials | grep -c '^records-')" -eq 1 ] ||
  soft_fail "8 quick trials of one batch: not one records file: $(ls str.h5.trials | tr '\n' ' ')"

# Held data that no param changes goes from trial to trial within a group:
# with lam varying fastest, X and y (held in the fit's row blocks) are
# generated once per seed; the coefficients stay those of run --set.
capture out err tsr sweep glm.tsr -o reuse.h5 --grid seed=0..1 --grid lam=0.01,0.3,2
[ "$RC" -eq 0 ] || fail "lam-fastest sweep: exit $RC: $(cat err)"
"$PYNP" - <<'PY' || soft_fail "held data across trials (above)"
import h5py, numpy as np, sys
t = h5py.File("reuse.h5", "r")
r = t["trials/reused_bytes"][:]
want = 3000 * 7 * 8  # X's and y's row blocks
print("reused", r)
bad = r.tolist() != [0, want, want, 0, want, want]
order = [(lam, seed) for lam in (0.01, 0.3, 2) for seed in (0, 1)]
for i, (seed, lam) in enumerate((s, l) for s in (0, 1) for l in (0.01, 0.3, 2)):
    run = h5py.File("run%d.h5" % order.index((lam, seed)), "r")
    if not np.array_equal(run["coef"][:], t["results/coef"][i]):
        print("trial", i, "differs from run --set"); bad = True
sys.exit(bad)
PY

# ---- the groups do not change the table ---------------------------------------------------

capture out err mpi_tsr 3 sweep glm.tsr -o three.h5 $GRID
[ "$RC" -eq 0 ] || fail "3 groups: exit $RC: $(cat err)"
same_table one.h5 three.h5 "1 rank against 3 groups of 1"
capture out err mpi_tsr 4 sweep glm.tsr -o pairs.h5 $GRID --ranks-per-trial 2
[ "$RC" -eq 0 ] || fail "2 groups of 2 ranks: exit $RC: $(cat err)"
same_table one.h5 pairs.h5 "1 rank against 2 groups of 2 ranks"

# Random draws: keyed by the sweep seed and trial number, not by the groups.
RAND="--random lam=loguniform:0.001:10 --trials 5 --grid seed=0,1 --sweep-seed 11"
capture out err tsr sweep glm.tsr -o r1.h5 $RAND
[ "$RC" -eq 0 ] || fail "random sweep: exit $RC: $(cat err)"
capture out err mpi_tsr 2 sweep glm.tsr -o r2.h5 $RAND
[ "$RC" -eq 0 ] || fail "random sweep on 2 groups: exit $RC: $(cat err)"
same_table r1.h5 r2.h5 "random draws, 1 against 2 groups"
"$PYNP" - <<'PY' || soft_fail "random draws out of range, repeated, or not the grid's"
import h5py, numpy as np, sys
t = h5py.File("r1.h5", "r")
lam, seed = t["trials/params/lam"][:], t["trials/params/seed"][:]
ok = len(lam) == 10 and seed.tolist() == [0] * 5 + [1] * 5
ok = ok and (lam >= 0.001).all() and (lam <= 10).all() and len(set(lam.tolist())) == 10
sys.exit(not ok)
PY

# ---- a failing trial, and errors before any trial ----------------------------------------

cat >shape.tsr <<'EOF2'
n = param(10)
total = sum(ones(n, chunks=5))
EOF2
capture out err mpi_tsr 2 sweep shape.tsr -o shape.h5 --grid n=4,-1,7,12
[ "$RC" -eq 3 ] || soft_fail "a failing trial: exit $RC, expected 3: $(cat err)"
grep -q 'trial 1 failed' err || soft_fail "the failed trial is not reported: $(cat err)"
"$PYNP" - <<'PY' || soft_fail "the failing trial's record (above)"
import h5py, numpy as np, sys
t = h5py.File("shape.h5", "r")
st = [s.decode() for s in t["trials/status"][:]]
err = [s.decode() for s in t["trials/error"][:]]
tot = t["results/total"][:]
ok = st == ["ok", "failed", "ok", "ok"] and "negative dimension -1" in err[1] and err[0] == ""
ok = ok and np.isnan(tot[1]) and tot[[0, 2, 3]].tolist() == [4, 7, 12]
print(st, err, tot)
sys.exit(not ok)
PY

printf 'lam = param(1.0)\nx = = 2\n' >syntax.tsr
for case in "syntax.tsr --grid lam=1,2|unexpected '='" \
  "glm.tsr --grid alpha=1,2|no \`alpha = param" \
  "glm.tsr --grid lam=1 --random lam=uniform:1:2|lam is swept twice" \
  "glm.tsr --grid lam=1 --set lam=2|lam is swept" \
  "glm.tsr --grid lam=1..|LO..HI" \
  "glm.tsr --random lam=normal:0:1|loguniform:LO:HI" \
  "glm.tsr --random lam=loguniform:0:1|0 < LO"; do
  args=${case%%|*} want=${case#*|}
  rm -rf e.h5 e.h5.trials
  # shellcheck disable=SC2086
  capture out err tsr sweep $args -o e.h5
  [ "$RC" -eq 1 ] || [ "$RC" -eq 2 ] || soft_fail "sweep $args: exit $RC, expected 1 or 2"
  grep -qF -- "$want" err || soft_fail "sweep $args: no '$want' in: $(cat err)"
  [ ! -e e.h5.trials ] && [ ! -e e.h5 ] || soft_fail "sweep $args: left a journal or table"
done
capture out err mpi_tsr 3 sweep glm.tsr -o e.h5 --grid lam=1 --ranks-per-trial 2
[ "$RC" -eq 1 ] && grep -q '3 ranks do not split into groups' err ||
  soft_fail "3 ranks in groups of 2: exit $RC: $(cat err)"
capture out err tsr sweep glm.tsr -o one.h5 $GRID
[ "$RC" -eq 1 ] && grep -q "exists: --overwrite" err || soft_fail "an existing table: exit $RC: $(cat err)"
capture out err tsr sweep glm.tsr -o one.h5 $GRID --resume
[ "$RC" -eq 0 ] && ! grep -q 'trial .* ok in' err || soft_fail "--resume of a finished sweep ran trials: $(cat err)"
same_table one.h5 three.h5 "a finished sweep resumed"

# ---- time limit, retries, interrupt ---------------------------------------------------------------

cat >slow.tsr <<'EOF2'
s = param(0)
rows = param(1000)
m = mean(normal(shape=(rows, 4000), chunks=(500, 4000), seed=s))
EOF2
# The builds differ tenfold in speed (CI's sanitizer build): the trials are
# sized from this build's time for 8000 rows, so that a slow trial takes
# about 0.25 s and a small one well under the time limit.
t8=$("$TESSERA" eval --threads=1 --repeat=3 'mean(normal(shape=(8000, 4000), chunks=(500, 4000), seed=1))' 2>&1 |
  sed -n 's/^tessera: run 3 of 3: \([0-9.]*\) s$/\1/p')
[ -n "$t8" ] || fail "no timing from eval --repeat"
# (up to 4e6 rows, 1.6e10 elements: about 0.25 s on an H200 too, where 2e5
# rows took a few ms and every trial was done before the kill test's kill)
ROWS=$(awk -v t="$t8" 'BEGIN { r = int(8000 * 0.25 / (t > 0 ? t : 0.001)); print (r < 2000 ? 2000 : (r > 4000000 ? 4000000 : r)) }')
# Once more from a trial of that size: on a GPU, 8000 rows time the start-up
# more than the rows (an H200 ran 2.2e6 rows in a tenth of the 0.25 s).
tr=$("$TESSERA" eval --threads=1 --repeat=2 "mean(normal(shape=($ROWS, 4000), chunks=(500, 4000), seed=1))" 2>&1 |
  sed -n 's/^tessera: run 2 of 2: \([0-9.]*\) s$/\1/p')
ROWS=$(awk -v t="${tr:-1}" -v r="$ROWS" 'BEGIN { if (t < 0.2) r = int(r * 0.25 / (t > 0 ? t : 0.001)); print (r > 4000000 ? 4000000 : r) }')
LIMIT=$(awk -v t="$t8" 'BEGIN { printf "%.2f", 0.3 + 20 * t }')
note "8000 rows: $t8 s; slow trials of $ROWS rows; time limit $LIMIT s"
# The trial meant to time out is 1.6e12 elements (800000 chunks): hours on
# the CPU, tens of seconds on a GPU, where 1.6e10 took 0.23 s on an H200.
capture out err tsr sweep slow.tsr -o to.h5 --grid rows=1000,400000000 --trial-timeout "$LIMIT" --max-retries 1 --threads=1
[ "$RC" -eq 3 ] || soft_fail "--trial-timeout: exit $RC, expected 3: $(cat err)"
"$PYNP" - <<'PY' || soft_fail "--trial-timeout with --max-retries 1 (above)"
import h5py, sys
t = h5py.File("to.h5", "r")
st = [s.decode() for s in t["trials/status"][:]]
err = t["trials/error"][1].decode()
print(st, err, t["trials/attempts"][:])
sys.exit(not (st == ["ok", "failed"] and "timed out after" in err and
              t["trials/attempts"][:].tolist() == [1, 2]))
PY

SLOW="--grid s=0..23 --set rows=$ROWS --threads=1"
capture out err tsr sweep slow.tsr -o ref.h5 $SLOW
[ "$RC" -eq 0 ] || fail "the slow sweep: exit $RC: $(cat err)"

# recs DIR: records files in a journal (each the trials that finished together).
recs() { ls "$1" 2>/dev/null | grep -c '^records-.*\.h5$' || true; }
wait_recs() { # DIR N: until DIR has N records files (10 s at most)
  _k=0
  while [ "$(recs "$1")" -lt "$2" ] && [ $_k -lt 200 ]; do sleep 0.05; _k=$((_k + 1)); done
}

"$TESSERA" --quiet sweep slow.tsr -o int.h5 $SLOW >int.out 2>int.err &
pid=$!
BG_PIDS="$pid"
wait_recs int.h5.trials 2
kill -INT "$pid"
set +e
wait "$pid"
RC=$?
set -e
[ "$RC" -eq 130 ] || soft_fail "SIGINT: exit $RC, expected 130: $(cat int.err)"
[ ! -e int.h5 ] || soft_fail "an interrupted sweep wrote its table"
n=$(recs int.h5.trials)
[ "$n" -ge 2 ] || note "SIGINT came after $n records files"
capture out err tsr sweep slow.tsr -o int.h5 $SLOW --resume
[ "$RC" -eq 0 ] || soft_fail "--resume after SIGINT: exit $RC: $(cat err)"
same_table ref.h5 int.h5 "interrupted and resumed against straight through"

# kill -9 of one rank of two: mpirun ends the other (SIGTERM, which it
# catches: it records what it finished). No finished trial is lost: those
# the killed rank finished since its last records file are in its pending
# file, which the merge below salvages.
mpi_run 2 "$TESSERA" --quiet sweep slow.tsr -o k.h5 $SLOW >k.out 2>k.err &
BG_PIDS="$!"
wait_recs k.h5.trials 1
# Then the rank whose pending file holds a trial (finished since its last
# records file, in no records file yet) is the one killed.
victim=
_k=0
while [ -z "$victim" ] && [ $_k -lt 500 ]; do
  for f in $(find k.h5.trials -name 'pending-*.bin' -size +0c 2>/dev/null); do
    for p in $(pgrep -f "sweep slow.tsr -o k.h5"); do
      [ "$(ps -o comm= -p "$p")" = tessera ] && ls -l "/proc/$p/fd" 2>/dev/null | grep -q "${f##*/}" &&
        victim=$p
    done
  done
  [ -n "$victim" ] || sleep 0.01
  _k=$((_k + 1))
done
[ -n "$victim" ] || fail "no rank with a trial in its pending file to kill (the sweep ended first?)"
kill -KILL "$victim"
set +e
wait "$BG_PIDS"
set -e
# The trials the journal holds: a merge of it (the others "not run"); a
# kill leaves no torn record, so the merge reads every records file.
capture out err tsr sweep --merge k.h5.trials -o kpart.h5
[ "$RC" -eq 3 ] || soft_fail "--merge of the killed sweep's journal: exit $RC: $(cat err)"
! ls k.h5.trials | grep -q '^pending-' ||
  soft_fail "the merge left a pending file: $(ls k.h5.trials | tr '\n' ' ')"
before=$("$PYNP" -c 'import h5py; s = h5py.File("kpart.h5", "r")["trials/status"][:]
print(" ".join(str(t) for t in range(len(s)) if s[t] == b"ok"))')
n=$(echo "$before" | wc -w)
[ "$n" -lt 24 ] || fail "every trial finished before the kill: make the trials slower"
note "killed one rank after trials $before"
capture out err mpi_tsr 2 sweep slow.tsr -o k.h5 $SLOW --resume
[ "$RC" -eq 0 ] || soft_fail "--resume after kill -9: exit $RC: $(cat err)"
for t in $before; do
  grep -q "trial $t ok in" err && soft_fail "trial $t finished before the kill and ran again"
done
same_table ref.h5 k.h5 "killed and resumed against straight through"
# Attempts: 1 for every trial but those running when the kill came, at most
# one per group (two groups), each its group's last start in the killed run
# (run 1), which ran again: 2.
"$PYNP" - $before <<'PY' || soft_fail "attempts after kill -9 and --resume (above)"
import glob, h5py, sys
a = h5py.File("k.h5", "r")["trials/attempts"][:]
done = [int(x) for x in sys.argv[1:]]
last = []
for log in sorted(glob.glob("k.h5.trials/starts-000001-*.log")):
    started = [int(line.split()[0]) for line in open(log) if line.strip()]
    last += started[-1:]
twice = [t for t in range(len(a)) if a[t] != 1]
print(a, "last starts of the killed run:", last)
sys.exit(not (all(a[t] == 1 for t in done) and set(twice) <= set(last) and len(last) <= 2 and
              all(a[t] == 2 for t in twice)))
PY

# ---- shards, merged ---------------------------------------------------------------------

for i in 0 1 2; do
  capture out err tsr sweep glm.tsr -o sh.h5 $GRID --shard $i/3
  [ "$RC" -eq 0 ] || fail "--shard $i/3: exit $RC: $(cat err)"
done
[ ! -e sh.h5 ] || soft_fail "a shard wrote the table"
capture out err tsr sweep --merge sh.h5.trials -o merged.h5
[ "$RC" -eq 0 ] || fail "--merge: exit $RC: $(cat err)"
same_table one.h5 merged.h5 "3 shards merged against one sweep"
capture out err tsr sweep glm.tsr -o part.h5 $GRID --shard 1/2
capture out err tsr sweep --merge part.h5.trials -o partial.h5
[ "$RC" -eq 3 ] && grep -q '3 not run' err || soft_fail "merging half the shards: exit $RC: $(cat err)"

finish
