#!/bin/sh
# cli_basics.sh - the command line works as documented: help and version on
# the program and on each command, `info` lists the operation table, `eval`
# prints scalars with %.17g and small arrays NumPy-style, `run` prints
# "name = value" lines for a job file or a job on standard input, alone (an
# MPI singleton) and under mpirun.
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"

# ---- help and version ---------------------------------------------------------

for h in --help -h; do
  capture out err "$TESSERA" $h
  expect_eq "$RC" 0 "tessera $h exit status"
  grep -q '^usage: tessera' out || fail "tessera $h: no usage line on stdout"
  for cmd in run eval info; do
    grep -q "^  $cmd" out || fail "tessera $h does not describe the command '$cmd'"
  done
  for opt in --output --backend --mem-limit --no-fuse --threads --seed --quiet --version; do
    grep -q -- "$opt" out || fail "tessera $h does not describe $opt"
  done
  [ ! -s err ] || fail "tessera $h wrote to stderr: $(cat err)"
done

for v in --version -V; do
  capture out err "$TESSERA" $v
  expect_eq "$RC" 0 "tessera $v exit status"
  grep -Eq '^tessera [0-9]+\.[0-9]+\.[0-9]+' out || fail "tessera $v printed '$(cat out)'"
  expect_eq "$(wc -l <out | tr -d ' ')" 1 "lines printed by tessera $v"
done
# The version is the one configure knows (tessera.h / configure.ac).
if grep -q 'AC_INIT' "$srcdir/configure.ac" 2>/dev/null; then
  want=$(sed -n 's/^AC_INIT(\[[^]]*\], *\[\([^]]*\)\].*/\1/p' "$srcdir/configure.ac" | head -n 1)
  if [ -n "$want" ]; then
    expect_eq "$("$TESSERA" --version)" "tessera $want" "version against configure.ac"
  fi
fi

for cmd in run eval info; do
  for h in --help -h; do
    capture out err "$TESSERA" $cmd $h
    expect_eq "$RC" 0 "tessera $cmd $h exit status"
    grep -q "^usage: tessera $cmd" out || fail "tessera $cmd $h: no 'usage: tessera $cmd' line: $(cat out)"
    [ ! -s err ] || fail "tessera $cmd $h wrote to stderr: $(cat err)"
  done
done
# Options may come before the command too.
capture out err "$TESSERA" --help eval
grep -q '^usage: tessera eval' out || fail "tessera --help eval: no eval usage"

# No command: usage on stderr, non-zero exit.
capture out err "$TESSERA"
[ "$RC" -ne 0 ] || fail "tessera without a command exited 0"
grep -q '^usage: tessera' err || fail "tessera without a command: no usage on stderr"
[ ! -s out ] || fail "tessera without a command wrote to stdout"

# ---- info -----------------------------------------------------------------------

capture out err tsr info
expect_eq "$RC" 0 "tessera info exit status"
grep -q '^tessera [0-9]' out || fail "info: no version line"
grep -Eq '^ranks: 1( |$)' out || fail "info: no 'ranks: 1' line alone"
grep -q '^backend cpu' out || fail "info: the cpu backend is not listed"
grep -q '^backend cuda' out || fail "info: the cuda backend (built or not) is not listed"
# Every operation the language documents ...
for op in normal uniform random zeros ones full arange abs sqrt exp log sin cos tanh \
  negative minimum maximum add subtract multiply divide power sum mean min max var std astype; do
  grep -Eq "^  $op +(generator|elementwise|reduction|array) " out || fail "info does not list the operation '$op'"
done
# ... and every entry of the table in src/eval/ops.c, however it is declared.
table_ops=$(sed -n -e 's/^ *\(GEN2\|UNARY\|BINARY\|REDUCE\)("\([a-z_0-9]*\)".*/\2/p' \
  -e 's/.*[( ]\(UNARY\|BINARY\|REDUCE\|GEN2\)("\([a-z_0-9]*\)".*/\2/p' \
  -e 's/^ *{"\([a-z_0-9]*\)", OPK_.*/\1/p' "$srcdir/src/eval/ops.c" | sort -u)
[ -n "$table_ops" ] || fail "could not read the operation table of src/eval/ops.c"
for op in $table_ops; do
  grep -Eq "^  $op " out || fail "info does not list '$op' of the ops table"
done
# Open MPI's start: on one node tessera picks the shared-memory transports
# and leaves hwloc's GPU plugins out (each started every GPU library: most
# of a start on GPU nodes); the user's own settings win and are named.
# (Not checked where the environment running the tests already chose.)
tessera_chooses=yes
[ -z "${OMPI_MCA_pml:-}${OMPI_MCA_btl:-}${HWLOC_COMPONENTS:-}" ] || tessera_chooses=no
if [ $tessera_chooses = yes ]; then
  grep -q '^mpi start: pml ob1, btl self,[a-z]* (one node); hwloc without its GPU plugins$' out ||
    fail "info: no 'mpi start' line with tessera's choices: $(grep '^mpi start' out)"
fi
capture out3 err3 env OMPI_MCA_btl=self,tcp HWLOC_COMPONENTS=-gl "$TESSERA" info
grep -q '^mpi start: pml default, btl self,tcp (yours); HWLOC_COMPONENTS=-gl (yours)$' out3 ||
  fail "info with the user's OMPI_MCA_btl and HWLOC_COMPONENTS: $(grep '^mpi start' out3)"
# Under mpirun, rank 0 alone prints, and knows the rank count.
capture out2 err2 mpi_tsr 2 info
expect_eq "$RC" 0 "tessera info on 2 ranks exit status"
expect_eq "$(grep -c '^tessera [0-9]' out2)" 1 "info version lines on 2 ranks"
grep -q '^ranks: 2' out2 || fail "info on 2 ranks: no 'ranks: 2' line: $(cat out2)"
if [ $tessera_chooses = yes ] && "$MPIEXEC" --version 2>&1 | grep -q 'Open MPI'; then
  grep -q '^mpi start: pml ob1, btl self,[a-z]* (one node); hwloc without its GPU plugins$' out2 ||
    fail "info on 2 ranks of one node: $(grep '^mpi start' out2)"
fi

# ---- eval --------------------------------------------------------------------------

# expect_eval EXPR EXPECTED: the whole stdout of `tessera eval EXPR`.
expect_eval() {
  capture out err tsr eval "$1"
  [ "$RC" -eq 0 ] || fail "eval '$1' failed ($RC): $(cat err)"
  expect_eq "$(cat out)" "$2" "eval '$1'"
  [ ! -s err ] || fail "eval '$1' with --quiet wrote to stderr: $(cat err)"
}

# Scalars: %.17g, the round-trip form (values checked with Python/C printf).
expect_eval '1 + 2' '3'
expect_eval '0.1 + 0.2' '0.30000000000000004'
expect_eval '2 ** 0.5' '1.4142135623730951'
expect_eval 'sum(arange(10)) / 7' '6.4285714285714288'
expect_eval 'mean(arange(3)) + 1e-17' '1'
expect_eval 'sum(ones((3, 5), chunks=2)) / 3' '5'
expect_eval 'min(arange(5) - 7.25)' '-7.25'
expect_eval -3.5 '-3.5'
expect_eval '1e300 * 10' '1.0000000000000001e+301'
expect_eval 'arange(12)[7]' '7'
# Small arrays: NumPy's layout.
expect_eval 'arange(5)' '[0 1 2 3 4]'
expect_eval 'arange(5.0)' '[0. 1. 2. 3. 4.]'
expect_eval 'arange(4) > 1' '[False False  True  True]'
expect_eval 'arange(3) - 1' '[-1  0  1]'
expect_eval 'arange(4)[:, None] * 10 + arange(3)' "[[ 0  1  2]
 [10 11 12]
 [20 21 22]
 [30 31 32]]"
expect_eval 'arange(4.0)[:, None] * 10 + arange(3)' "[[ 0.  1.  2.]
 [10. 11. 12.]
 [20. 21. 22.]
 [30. 31. 32.]]"
expect_eval 'ones((2, 3, 2))' "[[[1. 1.]
  [1. 1.]
  [1. 1.]]

 [[1. 1.]
  [1. 1.]
  [1. 1.]]]"
expect_eval 'arange(6, chunks=4)[::-2]' '[5 3 1]'
# More than 1000 elements: three at each edge around "...".
capture out err tsr eval 'arange(1001)'
expect_eq "$RC" 0 "eval arange(1001) exit status"
tr -s ' ' <out | grep -q '^\[ *0 1 2 \.\.\. 998 999 1000\]$' ||
  fail "eval arange(1001) is not summarized NumPy-style: $(cat out)"

# Without --quiet the value alone is on stdout; the timing line on stderr.
capture out err "$TESSERA" eval 'sum(arange(100))'
expect_eq "$RC" 0 "eval without --quiet exit status"
expect_eq "$(cat out)" 4950 "eval without --quiet stdout"
grep -q '^tessera: .*total' err || fail "eval without --quiet: no timing line on stderr: $(cat err)"
# Options anywhere on the line.
capture out err "$TESSERA" eval 'sum(arange(100))' --quiet
expect_eq "$(cat out)" 4950 "eval with --quiet after the expression"
[ ! -s err ] || fail "--quiet after the expression still printed: $(cat err)"

# ---- run --------------------------------------------------------------------------------

cat >job.tsr <<'EOF'
# a comment, then blank lines

n = 10
total = sum(arange(n))      # 45
half = total / 2
v = arange(3) + 1
m = ones((2, 2)) * 3
EOF
cat >want.txt <<'EOF'
n = 10
total = 45
half = 22.5
v = [1 2 3]
m = 
[[3. 3.]
 [3. 3.]]
EOF

capture out err tsr run job.tsr
expect_eq "$RC" 0 "run job.tsr exit status: $(cat err)"
cmp -s out want.txt || fail "run job.tsr printed:
$(cat out)
expected:
$(cat want.txt)"
[ ! -s err ] || fail "run --quiet wrote to stderr: $(cat err)"

# The job from standard input.
set +e
tsr run - <job.tsr >out 2>err
RC=$?
set -e
expect_eq "$RC" 0 "run - exit status: $(cat err)"
cmp -s out want.txt || fail "run - printed: $(cat out)"

# A singleton with Open MPI's own start (a helper daemon, not tessera's
# isolated start).
set +e
OMPI_MCA_ess_singleton_isolated=0 "$TESSERA" --quiet run job.tsr >out 2>err
RC=$?
set -e
expect_eq "$RC" 0 "singleton run (default MPI start) exit status: $(cat err)"
cmp -s out want.txt || fail "singleton run (default MPI start) printed: $(cat out)"

# An isolated singleton keeps Open MPI's session directory in a directory of
# its own under TMPDIR (isolated singletons are all job [0,1]: a shared one
# is removed under the feet of those starting while another ends), and
# leaves nothing behind, on success and on error.
mkdir sd
TMPDIR=$TMP/sd "$TESSERA" --quiet eval 'sum(normal(shape=(6000, 6000), chunks=1000))' >/dev/null 2>err &
pid=$!
BG_PIDS="$BG_PIDS $pid"
seen=""
while kill -0 "$pid" 2>/dev/null; do
  seen=$(find sd -mindepth 2 -maxdepth 2 -name 'ompi.*' 2>/dev/null | head -n 1)
  [ -z "$seen" ] || break
  sleep 0.02
done
set +e
wait "$pid"
RC=$?
set -e
expect_eq "$RC" 0 "singleton under TMPDIR=sd exit status: $(cat err)"
case $seen in
sd/tessera-mpi.*/ompi.*) ;;
*) fail "no Open MPI session directory under TMPDIR/tessera-mpi.*/ during the run (saw '$seen')" ;;
esac
set +e
TMPDIR=$TMP/sd "$TESSERA" --quiet eval 'sum(onez(3))' >/dev/null 2>&1
RC=$?
set -e
expect_eq "$RC" 1 "singleton error under TMPDIR=sd exit status"
left=$(find sd -mindepth 1 | head -n 3)
[ -z "$left" ] || fail "singletons left session files behind: $left"

# Under mpirun the values are printed once, by rank 0.
capture out err mpi_tsr 2 run job.tsr
expect_eq "$RC" 0 "run on 2 ranks exit status: $(cat err)"
cmp -s out want.txt || fail "run on 2 ranks printed:
$(cat out)"

# --seed takes "--seed N" and "--seed=N" alike.
a=$(tsr --seed 5 eval 'sum(normal(shape=100))')
b=$(tsr --seed=5 eval 'sum(normal(shape=100))')
expect_eq "$a" "$b" "--seed 5 vs --seed=5"

printf 'PASS: %s\n' "$TEST_NAME"
