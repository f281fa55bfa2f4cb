#!/bin/sh
# --mem-limit on the CUDA backend (the reliability issue's memory point;
# user-guide.md, "What happens when things go wrong"): W1's 2 TB stream, the
# same job with every intermediate materialized (--no-fuse) and a rechunk
# each run under --mem-limit=2G with the device memory the summary reports
# (what the rank allocated: the pool's blocks and the launch scratch and NCCL
# buffers outside it; not cudaMemGetInfo, which counts the other tests on the
# GPU too) below 2 GB; an array that cannot be held under the limit is
# refused before any work with its size and the limit in the message; a held
# array of 10000 chunks is held. Skips (exit 77, loudly) where no GPU is
# visible; scripts/gpu-check.sh runs it on GPU nodes.
. "${srcdir:-.}/tests/lib.sh"

if ! "$TESSERA" info | grep -q '^backend cuda: [0-9]* GPU'; then
  echo "SKIP: no GPU visible to tessera (this test runs on GPU nodes: scripts/gpu-check.sh)" >&2
  skip "no GPU"
fi

LIMIT_MB=2000 # --mem-limit=2G is 2e9 bytes; the summary counts MB of 1e6
# peak_of WHAT ARGS...: runs tessera with the summary (its value to
# peak.out) and checks that the peak device memory stays under the limit.
# Not in a subshell: soft_fail counts in this shell.
peak_of() {
  _what=$1
  shift
  "$TESSERA" --backend=cuda --mem-limit=2G "$@" >peak.out 2>peak.err ||
    fail "$_what: exit status $? under --mem-limit=2G: $(tail -3 peak.err)"
  _peak=$(sed -n 's/.*peak device memory \([0-9]*\) MB.*/\1/p' peak.err | head -1)
  [ -n "$_peak" ] || fail "$_what: no peak device memory in the summary: $(tail -3 peak.err)"
  note "$_what: peak device memory $_peak MB (limit $LIMIT_MB MB)"
  [ "$_peak" -le "$LIMIT_MB" ] || soft_fail "$_what: peak device memory $_peak MB over --mem-limit=2G"
}

W1='sum((normal(10, 1, shape=(500000, 500000), chunks=(10000, 10000)) + 1)[::2, ::2])'
peak_of "W1 (2 TB), fused" eval "$W1"
expect_eq "$(cat peak.out)" "$(tsr --backend=cuda eval "$W1")" "W1 under --mem-limit=2G and without it"
W2NF='sum((normal(10, 1, shape=(40000, 40000), chunks=(5000, 5000)) + 1)[::2, ::2])'
peak_of "12.8 GB, --no-fuse (chunks of 200 MB)" --no-fuse eval "$W2NF"
expect_close "$(cat peak.out)" "$(tsr --backend=cuda eval "$W2NF")" 1e-12
# Repeated runs give back what each run held: three --no-fuse runs under
# the same limit (an 80 GB card once refused the second of W2's runs).
peak_of "12.8 GB, --no-fuse, --repeat=3" --no-fuse --repeat=3 eval "$W2NF"
# W2 itself (80 GB, 800 MB chunks) without a limit, once and three times:
# the repeats' peak stays below one run's plus one chunk per worker.
W2='mean((normal(10, 1, shape=(100000, 100000), chunks=(10000, 10000)) + 1)[::2, ::2])'
peak_plain() {
  "$TESSERA" --backend=cuda --no-fuse "$@" eval "$W2" >w2.out 2>w2.err ||
    fail "W2 --no-fuse $*: exit status $?: $(tail -3 w2.err)"
  sed -n 's/.*peak device memory \([0-9]*\) MB.*/\1/p' w2.err | head -1
}
one=$(peak_plain --repeat=1)
three=$(peak_plain --repeat=3)
workers=$(sed -n 's/^tessera: 1 rank x \([0-9]*\) thread.*/\1/p' w2.err | head -1)
note "W2 --no-fuse: peak device memory $one MB in one run, $three MB in three ($workers workers)"
[ -n "$one" ] && [ -n "$three" ] && [ -n "$workers" ] || fail "W2 --no-fuse: no summary: $(tail -3 w2.err)"
[ "$three" -le $((one + 800 * workers)) ] ||
  soft_fail "W2 --no-fuse --repeat=3: peak device memory $three MB, over one run's $one MB + one 800 MB chunk per worker"
RC='sum(rechunk(normal(shape=(40000, 40000), chunks=(40000, 500), seed=2), (500, 40000)) * arange(40000))'
peak_of "rechunk of 12.8 GB (columns to rows)" eval "$RC"
cpu=$(tsr --backend=cpu eval "$RC" 2>cpu.err) || fail "the rechunk on the CPU backend: exit status $?: $(tail -3 cpu.err)"
expect_close "$(cat peak.out)" "$cpu" 1e-12

# A held array of many small chunks: 10000 device blocks at once (the
# pool's table grows with them; a fixed one of 4096 refused the 4097th as
# out of GPU memory, far below the limit).
MANY='sum(persist(normal(0, 1, (1000000, 4), chunks=(100, 4), seed=5)) ** 2)'
many=$("$TESSERA" --backend=cuda --quiet eval "$MANY" 2>many.err) ||
  fail "a persisted array of 10000 chunks on the GPU: $(tail -3 many.err)"
expect_close "$many" "$(tsr --backend=cpu eval "$MANY")" 1e-12

# Held arrays count against the limit: refused before any work, sizes named.
printf 'x = persist(normal(shape=(40000, 40000), chunks=(5000, 5000)))\ns = sum(x)\n' >hold.tsr
capture out err "$TESSERA" --backend=cuda --mem-limit=2G --quiet run hold.tsr
[ "$RC" -ne 0 ] || fail "holding 12.8 GB under --mem-limit=2G exited 0"
grep -q 'cannot hold .*12.80 GB.*2.00 GB limit' err || fail "the refusal names no sizes: $(cat err)"
expect_eq "$(grep -c '^tessera: error:' err)" 1 "error lines for an array that cannot be held"

finish
