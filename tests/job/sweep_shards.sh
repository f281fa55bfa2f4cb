#!/bin/sh
# sweep_shards.sh - shards of one sweep started at the same moment on a new
# journal (a SLURM job array: --resume --shard I/N, N separate processes):
# every shard creates or joins the journal without disturbing the others
# (none removes another's temporary files while it writes them), exits 0,
# and --merge gives every trial exactly once, ok, with the value its param
# gives in closed form. Eight shards start at once, three times over, each
# time on a fresh journal, so that the race is run more than once. A shard
# of another sweep (another grid) on the same journal is still refused.
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"

TIMEOUT=120
need_numpy

cat >job.tsr <<'EOF2'
a = param(0)
s = sum(arange(10, chunks=5) * a)
q = a * a + 1
EOF2
GRID="--grid a=0..23"
N=8

for round in 1 2 3; do
  rm -rf out.h5 out.h5.trials
  pids=""
  i=0
  while [ "$i" -lt "$N" ]; do
    tsr sweep job.tsr -o out.h5 $GRID --resume --shard "$i/$N" >"sh$i.out" 2>"sh$i.err" &
    pids="$pids $!"
    i=$((i + 1))
  done
  BG_PIDS="$BG_PIDS $pids"
  i=0
  for p in $pids; do
    set +e
    wait "$p"
    rc=$?
    set -e
    [ "$rc" -eq 0 ] || soft_fail "round $round: shard $i/$N started with the others: exit $rc: $(cat "sh$i.err")"
    i=$((i + 1))
  done
  [ ! -e out.h5 ] || soft_fail "round $round: a shard wrote the table"
  leftover=$(ls out.h5.trials | grep -e '\.tmp-' || true)
  [ -z "$leftover" ] || soft_fail "round $round: temporaries left in the journal: $leftover"
  capture out err tsr sweep --merge out.h5.trials -o out.h5
  [ "$RC" -eq 0 ] || { soft_fail "round $round: --merge: exit $RC: $(cat err)"; continue; }
  "$PYNP" - <<'PY' || soft_fail "round $round: the merged table is not every trial once, ok, with its value (above)"
import h5py, sys
t = h5py.File("out.h5", "r")
a = t["trials/params/a"][:].tolist()
st = [x.decode() for x in t["trials/status"][:]]
s, q = t["results/s"][:].tolist(), t["results/q"][:].tolist()
bad = []
if sorted(a) != list(range(24)) or len(set(a)) != 24: bad.append("trials %s" % a)
if st != ["ok"] * 24: bad.append("status %s" % st)
bad += ["trial a=%d: s=%r q=%r" % (x, si, qi) for x, si, qi in zip(a, s, q)
        if si != 45 * x or qi != x * x + 1]
print("\n".join(bad)) if bad else None
sys.exit(bool(bad))
PY
done

# another grid on the journal these shards made: refused, as before
capture out err tsr sweep job.tsr -o out.h5 --grid a=0..5 --resume --shard 0/$N
[ "$RC" -eq 1 ] && grep -q "is of another sweep" err ||
  soft_fail "a shard of another grid joined the journal: exit $RC: $(cat err)"
finish
