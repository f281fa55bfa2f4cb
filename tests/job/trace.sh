#!/bin/sh
# trace.sh - `--trace FILE`, the summary table and the progress line:
#   - `tessera eval --trace t.json` on 2 ranks writes one valid Chrome
#     trace-event JSON file (tests/trace_check.py): one process row per rank
#     with its name, a thread row for every thread used, complete events with
#     ph/ts/dur/pid/tid, and chunk events that add up to the chunk count
#     (each rank its owner-computes share), communication on every rank;
#   - --no-fuse traces every materialized operation; `run -o` traces the
#     results file's write with its size in bytes;
#   - the summary table on stderr: a row per rank and a total whose chunk
#     count is the grid's; --quiet prints nothing on stderr;
#   - a trace file that cannot be created is an error before any work, and a
#     failed run leaves no trace file (nor a temporary) behind;
#   - progress: full lines every TESSERA_PROGRESS_INTERVAL seconds when
#     stderr is not a terminal, rewritten in place (\r) on a terminal (under
#     script(1)), nothing with --quiet;
#   - where a GPU is visible, the CUDA backend's kernel launches appear as
#     device spans (CUDA events) that add up to the chunk count.
# The CPU backend is named explicitly, so that these checks mean the same on
# GPU nodes.
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"

need_python || skip "python3 is needed to check the trace's JSON"
CHECK="python3 $srcdir/tests/trace_check.py"
: "${TIMEOUT:=120}"

# ---- 2 ranks, fused: a row per rank, chunk totals ----------------------------------------

EXPR='sum((normal(10, 1, shape=(3000, 3000), chunks=(500, 750), seed=3) + 1)[::2, ::2])'
# 6 x 4 = 24 chunks of the sliced array (1500 x 1500 in chunks of 250 x 375).
capture out err mpi_run 2 "$TESSERA" --backend=cpu eval --trace t.json "$EXPR"
[ "$RC" -eq 0 ] || fail "eval --trace on 2 ranks failed ($RC): $(cat err)"
[ -f t.json ] || fail "no trace file t.json"
ls t.json.tmp.* >/dev/null 2>&1 && fail "a temporary trace file was left: $(ls t.json.tmp.*)"
$CHECK t.json --ranks 2 --chunks 24 --cat chunk --cat comm --cat phase >check.out ||
  fail "trace of eval on 2 ranks: $(cat check.out)"
note "$(cat check.out)"
# Owner-computes: chunk k on rank k mod 2, so 12 chunk tasks each.
grep -q '^rank 0 .* 12 chunk tasks' check.out || soft_fail "rank 0 did not trace 12 chunk tasks: $(cat check.out)"
grep -q '^rank 1 .* 12 chunk tasks' check.out || soft_fail "rank 1 did not trace 12 chunk tasks: $(cat check.out)"
# The value is the same as without tracing.
v_traced=$(cat out)
v_plain=$(mpi_tsr 2 --backend=cpu eval "$EXPR")
expect_eq "$v_traced" "$v_plain" "value with --trace"

# The summary table: phases, a header, a row per rank, the total.
grep -q '^tessera: phases (rank 0): parse ' err || soft_fail "no phases line in the summary: $(cat err)"
grep -q '^tessera: *rank *chunks *compute_s *comm_s *io_s *logical_GB *GB/s *comm_MB *io_MB *peak_MB' err ||
  soft_fail "no table header in the summary: $(cat err)"
for r in 0 1; do
  grep -q "^tessera: *$r  *12 " err || soft_fail "no summary row for rank $r with 12 chunks: $(cat err)"
done
grep -q '^tessera: *all  *24 ' err || soft_fail "no 'all' row with 24 chunks: $(cat err)"

# ---- --no-fuse and run -o: materializations, results file I/O --------------------------

cat >job.tsr <<'EOF'
x = normal(10, 1, shape=(2000, 1000), chunks=(500, 250), seed=5)
total = sum(sqrt(abs(x)) * 2)
EOF
capture out err mpi_run 2 "$TESSERA" --backend=cpu --no-fuse run job.tsr -o job.h5 --trace=nofuse.json
[ "$RC" -eq 0 ] || fail "run --no-fuse --trace failed ($RC): $(cat err)"
size=$(wc -c <job.h5 | tr -d ' ')
$CHECK nofuse.json --ranks 2 --chunks 16 --cat materialize --cat chunk --cat io --io-bytes "$size" >check.out ||
  fail "trace of run --no-fuse -o: $(cat check.out)"
grep -q '"name":"sqrt"' nofuse.json || soft_fail "no sqrt materialization span in the --no-fuse trace"
grep -q '"name":"normal"' nofuse.json || soft_fail "no normal materialization span in the --no-fuse trace"

# One rank, threads: thread rows are named; the trace needs no mpirun.
capture out err env OMP_NUM_THREADS=2 "$TESSERA" --backend=cpu --quiet eval --trace one.json "$EXPR"
[ "$RC" -eq 0 ] || fail "eval --trace on one rank failed ($RC): $(cat err)"
[ ! -s err ] || soft_fail "--quiet printed on stderr: $(cat err)"
$CHECK one.json --ranks 1 --chunks 24 >check.out || fail "trace on one rank: $(cat check.out)"

# ---- errors ---------------------------------------------------------------------------------

capture out err mpi_tsr 2 eval --trace no/such/dir/t.json "$EXPR"
[ "$RC" -eq 1 ] || soft_fail "--trace into a missing directory: exit $RC, expected 1"
grep -q "cannot create trace file 'no/such/dir/t.json'" err || soft_fail "no 'cannot create trace file' message: $(cat err)"
[ -s out ] && soft_fail "--trace into a missing directory still computed: $(cat out)"
[ "$(grep -c 'tessera: error' err)" -eq 1 ] || soft_fail "the trace error was not reported once: $(cat err)"

# A run that fails after the trace file was probed leaves nothing behind.
capture out err mpi_tsr 2 --no-fuse --mem-limit=1M run job.tsr --trace failed.json
[ "$RC" -eq 1 ] || soft_fail "--no-fuse over --mem-limit: exit $RC, expected 1: $(cat err)"
ls failed.json* >/dev/null 2>&1 && soft_fail "a failed run left a trace file: $(ls failed.json*)"
capture out err "$TESSERA" eval --trace 'sum(arange(3))'
[ "$RC" -eq 2 ] || soft_fail "--trace without a file name: exit $RC, expected 2 (usage)"

# ---- progress -------------------------------------------------------------------------------

LONG='sum(normal(shape=(8000, 8000), chunks=(500, 500), seed=9))'
capture out err env TESSERA_PROGRESS_INTERVAL=0.1 OMP_NUM_THREADS=1 ${TIMEOUT:+timeout -k 5 "$TIMEOUT"} \
  "$TESSERA" --backend=cpu --progress eval "$LONG"
[ "$RC" -eq 0 ] || fail "eval --progress failed ($RC): $(cat err)"
n=$(grep -c '^tessera: sum over 256 chunks  *[0-9.]*% ([0-9.]* GB/s per rank, ETA [0-9]* s), rank 0: [0-9]*/256 chunks$' err || true)
[ "$n" -ge 1 ] || soft_fail "no full progress line in a log (stderr not a terminal): $(head -c 600 err)"
tr -d '\n' <err | grep -q "$(printf '\r')" && soft_fail "progress in a log used carriage returns"
note "$n progress line(s) in the log"
# --progress in a log: a line from the first chunk on, long before the 10 s interval.
capture out err env OMP_NUM_THREADS=1 "$TESSERA" --backend=cpu --progress eval 'sum(normal(shape=(4000, 4000), chunks=(500, 500), seed=9))'
[ "$RC" -eq 0 ] || fail "eval --progress (short) failed ($RC): $(cat err)"
grep -q '^tessera: sum over 64 chunks .*rank 0: 1/64 chunks$' err ||
  soft_fail "--progress in a log did not print the first chunk's line at once: $(head -c 600 err)"
capture out err env TESSERA_PROGRESS_INTERVAL=0.1 "$TESSERA" --progress --quiet eval "$LONG"
[ ! -s err ] || soft_fail "--progress --quiet printed on stderr: $(head -c 300 err)"

if command -v script >/dev/null 2>&1; then
  # On a terminal: the line is rewritten in place (\r ... ESC[K), then ends with a newline.
  capture out err env OMP_NUM_THREADS=1 ${TIMEOUT:+timeout -k 5 "$TIMEOUT"} \
    script -qec "'$TESSERA' --backend=cpu --progress eval '$LONG'" /dev/null
  [ "$RC" -eq 0 ] || soft_fail "eval --progress under script(1) failed ($RC): $(cat err)"
  if grep -q 'sum over 256 chunks' out; then
    grep -q "$(printf '\r')tessera: sum over 256 chunks" out || soft_fail "progress on a terminal is not rewritten in place"
  else
    note "no progress line on the terminal (the run took under a second)"
  fi
else
  note "no script(1): the terminal form of the progress line is not checked"
fi

# ---- the GPU backend: device spans from CUDA events ------------------------------------------

if "$TESSERA" info | grep -q '^backend cuda: [0-9]* GPU'; then
  capture out err env TESSERA_GPUS_SHARED=1 "$TESSERA" --backend=cuda --quiet eval --trace gpu.json "$EXPR"
  [ "$RC" -eq 0 ] || fail "eval --backend=cuda --trace failed ($RC): $(cat err)"
  $CHECK gpu.json --ranks 1 --chunks 24 --cat device --cat backend >check.out ||
    soft_fail "trace on the GPU: $(cat check.out)"
  grep -q '"name":"GPU stream of thread 0"' gpu.json || soft_fail "no GPU stream row in the GPU trace"
else
  note "no GPU visible: device spans not checked"
fi

finish
