#!/bin/sh
# worker_errors.sh - a failure inside a worker thread reaches the report with
# its message: a backend op made to fail (TESSERA_FAULT, a testing knob read
# once in job setup; the tsr_be_* wrappers raise it) in every kind of
# parallel loop there is (the fused reduction's chunk loop, --no-fuse
# materializations, TSQR's local QR and tree, the root SVD, matmul's block
# products) ends the run non-zero with "injected fault in cpu op OP"
# after the rank, never an empty "tessera: error: rank N:"; no rank hangs.
# A malformed value of the knob is one usage error.
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"

TIMEOUT=120
cat >la.tsr <<'EOF2'
x = normal(0, 1, (600, 20), chunks=(100, 20), seed=3)
u, s, vt = svd(x)
q, r = qr(x)
p = sum(normal(0, 1, (60, 50), chunks=(20, 25), seed=1) @ normal(0, 1, (50, 40), chunks=(25, 20), seed=2))
EOF2

# expect_fault OP RANKS ARGS...: the run fails with OP's injected message.
expect_fault() {
  _op=$1 _np=$2
  shift 2
  TESSERA_FAULT=$_op
  export TESSERA_FAULT
  capture out err mpi_run "$_np" "$TESSERA" --quiet --backend=cpu "$@"
  unset TESSERA_FAULT
  [ "$RC" -ne 0 ] || soft_fail "TESSERA_FAULT=$_op on $_np rank(s): exit 0: $(cat out)"
  grep -q "^tessera: error: .*injected fault in cpu op $_op (TESSERA_FAULT)" err ||
    soft_fail "TESSERA_FAULT=$_op on $_np rank(s), $*: the message did not reach the report: $(cat err)"
  if grep -q '^tessera: error: rank [0-9]*: *$' err; then
    soft_fail "TESSERA_FAULT=$_op: an empty error report: $(cat err)"
  fi
}

for np in 1 2; do
  expect_fault reduce_chunks "$np" eval 'sum(normal(0, 1, (400, 300), chunks=(100, 100)))'
  expect_fault reduce_box "$np" --no-fuse eval 'sum(normal(0, 1, (400, 300), chunks=(100, 100)) + 1)'
  expect_fault eval_box "$np" --no-fuse eval 'sum(normal(0, 1, (400, 300), chunks=(100, 100)) + 1)'
  expect_fault qr "$np" run la.tsr
  expect_fault svd "$np" run la.tsr
  expect_fault gemm "$np" run la.tsr
done

# Without the knob the same job runs; with a bad value it is refused at once.
capture out err mpi_run 2 "$TESSERA" --quiet --backend=cpu run la.tsr
[ "$RC" -eq 0 ] || soft_fail "the job without TESSERA_FAULT failed ($RC): $(cat err)"
export TESSERA_FAULT=frobnicate
capture out err tsr --backend=cpu eval '1 + 1'
unset TESSERA_FAULT
[ "$RC" -ne 0 ] || soft_fail "TESSERA_FAULT=frobnicate was accepted"
grep -q '^tessera: error: TESSERA_FAULT=frobnicate: expected one of' err ||
  soft_fail "TESSERA_FAULT=frobnicate: not one clear error: $(cat err)"
finish
