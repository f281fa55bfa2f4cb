#!/bin/sh
# persist.sh - persist(x) / x.persist(): the array is computed once and its
# chunks are held in backend memory (device memory with the CUDA backend;
# under scripts/gpu-check.sh this test runs on the GPU) on their owners.
# Checked here:
# - every result that reads a persisted array has the same bits as the same
#   expression on the array recomputed: whole-chunk reads (read in place),
#   slices, transposes, broadcasts and rechunks (pieces moved between
#   ranks), axis reductions, products, qr and svd of a persisted input;
# - the same digits on 1, 2, 3 and 4 ranks, and with --no-fuse (where
#   persist recomputes where it is read);
# - the summary reports what is held, and persisting twice holds once;
# - an array that does not fit --mem-limit is refused before any work,
#   with its name, its size and the limit.
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"

TIMEOUT=240

# Each case twice: on the persisted array and on the array recomputed.
cat >cases.txt <<'EOF'
total|sum(P * 2 + 1)
spread|std(P, ddof=1)
corner|P[:3, :4]
slab|sum(P[::3, 5:17] ** 2)
back|sum(P[::-7, ::-2])
tr|sum((P.T + 1)[::5, :] * arange(30000))
bcast|sum(P * P[0])
cols|sum(sum(P, axis=0) * arange(37))
rows|sum(max(P, axis=1) * arange(30000))
re|sum(rechunk(P, (71, 11)) * arange(37))
mm|sum((P.T @ P) * arange(37))
uv|sum(svd(P)[0][::101] * 3)
sv|svd(P)[1]
qq|sum(abs(qr(P)[1]))
EOF
{
  echo 'X = normal(3, 2, shape=(30000, 37), chunks=(4000, 37), seed=11)'
  echo 'P = persist(X)'
  echo 'Q = X.persist()'
  while IFS='|' read -r name expr; do
    echo "${name}_p = $expr"
    echo "${name}_x = $(echo "$expr" | sed 's/P/X/g')"
  done <cases.txt
  echo 'twice = sum(Q) - sum(P)'
} >job.tsr

# The printed value of NAME in an output file: from "NAME = " to the next
# binding.
value_of() { # file, name
  awk -v n="$2" '/^[A-Za-z_][A-Za-z0-9_]* = ?/ {f = ($1 == n)} f {print}' "$1"
}

# Values of NAME_p and NAME_x must print the same.
check_pairs() { # output file, what
  while IFS='|' read -r name expr; do
    p=$(value_of "$1" "${name}_p" | sed 's/^[^=]*= *//')
    x=$(value_of "$1" "${name}_x" | sed 's/^[^=]*= *//')
    [ -n "$p" ] || soft_fail "$2: no value for ${name}_p"
    [ "$p" = "$x" ] || soft_fail "$2: $expr on the persisted array gives
$p
and on the recomputed array
$x"
  done <cases.txt
}

capture out1 err1 "$TESSERA" run job.tsr
[ "$RC" -eq 0 ] || fail "the job failed on 1 rank ($RC): $(cat err1)"
check_pairs out1 "1 rank"
grep -q '^twice = 0$' out1 || soft_fail "persist(X) and X.persist() differ: $(grep twice out1)"
# X is 30000 x 37 float64 = 8.88 MB, held once however often it is
# persisted, beside U and Q of the persisted and of the recomputed array
# (4 x 8.88 MB) and the two 37 x 37 products: 44.4 MB.
grep -q 'held 44.4 MB' err1 || soft_fail "the summary does not report what is held: $(cat err1)"
for np in 2 3 4; do
  capture out$np err$np mpi_tsr "$np" run job.tsr
  [ "$RC" -eq 0 ] || fail "the job failed on $np ranks ($RC): $(cat err$np)"
  cmp -s out1 "out$np" || soft_fail "$np ranks print other digits than 1 rank:
$(diff out1 "out$np" | head -20)"
done
capture outnf errnf tsr --no-fuse run job.tsr
[ "$RC" -eq 0 ] || fail "the job failed with --no-fuse ($RC): $(cat errnf)"
check_pairs outnf "--no-fuse"

# Held bytes are counted against --mem-limit before any work: 4 chunks of
# 500 x 2000 float64 (8 MB each) on one rank do not fit 24 MB.
cat >big.tsr <<'EOF'
y = normal(0, 1, shape=(2000, 2000), chunks=(500, 2000))
big = persist(y)
m = mean(big)
EOF
capture bo be "$TESSERA" --quiet --mem-limit=24M run big.tsr
[ "$RC" -ne 0 ] || soft_fail "a persist over --mem-limit was not refused"
grep -q 'error: cannot hold persist(y) (2000 x 2000 float64): 32.0 MB on a rank of 1, over the 24.0 MB limit of' be ||
  soft_fail "no clear error for a persist over --mem-limit: $(cat be)"
[ "$(grep -c 'error' be)" -eq 1 ] || soft_fail "more than one error line: $(cat be)"
# On 2 ranks each holds 2 of the 4 chunks (16 MB): it fits.
capture bo2 be2 mpi_tsr 2 --mem-limit=24M run big.tsr
[ "$RC" -eq 0 ] || soft_fail "2 ranks could not hold 16 MB each under 24M: $(cat be2)"

finish
