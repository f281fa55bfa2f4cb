#!/usr/bin/env bash
# glm_bench.sh - W4 (TARGETS.md): L2-regularized logistic regression,
# lamduh = 1 (scikit-learn C = 1), no intercept, X N x P float64 N(0, 1),
# y ~ Bernoulli(sigmoid(X b*)); fit time only, X already resident; every
# tessera solver next to its peers measured in the same run on the same
# machine (bench/glm_peers.py).
#
# 1. data: one tessera job (1 rank) writes X (seed 1) and y (b* = 0.3 x
#    normal seed 2, uniforms seed 3) to w4.h5, so every system fits the same
#    numbers. B, the fit's block rows, is the largest power of two r with
#    256 <= r, r <= N/8 and r <= 2^24/P (at least 256): 65536 for 10^6 x 100.
# 2. tessera: for each K of RANKS, `tessera --backend=BACKEND run fit.tsr`
#    (under mpirun -np K when K > 1): X and y loaded with chunks of B rows and
#    persisted, a warm-up fit (newton, max_iter=1), then one fit per solver of
#    SOLVERS (tol=1e-8; max_iter 100 for newton and lbfgs, 2000 for the
#    others). Seconds, iterations, convergence and passes over X are tessera's
#    own fit line on stderr ("... 11 iterations, converged, objective ...,
#    12 passes over X, 0.952114 s"; microseconds). The coefficients come
#    from its results file.
# 3. peers (glm_peers.py; see its header): scikit-learn newton-cholesky and
#    lbfgs on all host cores, PyTorch on the GPU (a Newton by hand and
#    torch.optim.LBFGS; not with --cpu), dask_glm newton and lbfgs on NumPy
#    arrays; each a warm-up, then the best of RUNS. A peer that fails is a
#    FAIL row, one that is not installed a "skipped" row.
#
# Columns: "ms / pass" = s / passes; "GB/s" = passes x N x P x 8 bytes / s,
# all ranks together; "rel. diff" = max|b - b_ref| / max|b_ref| against the
# reference (scikit-learn newton-cholesky; tessera's newton without
# scikit-learn); "peer s / tessera s" (> 1: tessera faster): on a tessera row
# the fastest peer of the same kind (host peers for --backend=cpu, GPU peers
# for cuda) over the row, on a peer row the row over tessera's fastest
# converged fit. Then the W4 target line, and the head of a record for
# bench/RESULTS.md (RECORD=1 appends it with the table; NOTE="..." adds a line).
#
# usage: bench/glm_bench.sh [--quick] [--cpu]
#   --quick  N=100000 (unless N is set)
#   --cpu    tessera --backend=cpu and no GPU peers, even where GPUs are
# Environment: N (default 1000000), P (100), RANKS (default 1; e.g. "1 2"),
# SOLVERS (default "newton lbfgs gradient_descent proximal_grad admm"; admm
# takes about 400 passes per 100 iterations: 43 s at N=10^5 on 2 cores),
# RUNS (peers' timed runs, default 3), HOST_PEERS (0: no scikit-learn or
# dask_glm rows, which take minutes at 10^7 rows), BACKEND (default cuda where a GPU is
# visible, else cpu), TESSERA, PYTHON (default: the first of python3,
# /usr/bin/python3 that imports h5py and numpy).
# Exit status: 0, 2 usage, 3 a tool missing, 4 a tessera run failed.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/common.sh
. "$here/common.sh"
usage="usage: bench/glm_bench.sh [--quick] [--cpu]"
quick=0 cpu=0
for a in "$@"; do
  case $a in
    --quick) quick=1 ;;
    --cpu) cpu=1 ;;
    -h | --help) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "$usage" >&2; exit 2 ;;
  esac
done
if [ $quick = 1 ]; then N=${N:-100000}; else N=${N:-1000000}; fi
P=${P:-100}
RANKS=${RANKS:-1}
SOLVERS=${SOLVERS:-newton lbfgs gradient_descent proximal_grad admm}
RUNS=${RUNS:-3}
ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
if [ $cpu = 1 ]; then
  BACKEND=cpu
elif [ -z "${BACKEND:-}" ]; then
  if [ "${ngpu:-0}" -ge 1 ]; then BACKEND=cuda; else BACKEND=cpu; fi
fi
require awk
find_tessera
mpi_root_env
export NCCL_NVLS_ENABLE=0
for k in $RANKS; do [ "$k" = 1 ] || require mpirun "RANKS=\"$RANKS\""; done
if [ -z "${PYTHON:-}" ]; then
  for c in python3 /usr/bin/python3; do
    if "$c" -c 'import h5py, numpy' 2>/dev/null; then PYTHON=$c; break; fi
  done
  [ -n "${PYTHON:-}" ] || die "no python3 that imports h5py and numpy (set PYTHON)"
fi
PYTHON=$(command -v "$PYTHON") || die "PYTHON=$PYTHON not found"

LOAD0=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)
B=256
while [ $((B * 2)) -le $((N / 8)) ] && [ $((B * 2)) -le $((16777216 / P)) ]; do B=$((B * 2)); done
work=$(mktemp -d "${TMPDIR:-/tmp}/glm_bench.XXXXXX") || die "cannot make a work directory"
trap 'rm -rf "$work"' EXIT
echo "glm_bench.sh: $(machine_line); commit $(commit_line); tessera: $TESSERA ($(binary_line))"
echo "glm_bench.sh: N=$N P=$P, block rows B=$B, backend $BACKEND, RANKS=\"$RANKS\", SOLVERS=\"$SOLVERS\", RUNS=$RUNS, python $PYTHON"

# tess K ARGS...: tessera on K ranks (mpirun when K > 1), in the work directory.
tess() {
  local k=$1
  shift
  if [ "$k" = 1 ]; then
    (cd "$work" && "$TESSERA" --backend="$BACKEND" "$@")
  else
    (cd "$work" && mpirun -np "$k" --bind-to none "$TESSERA" --backend="$BACKEND" "$@")
  fi
}

cat >"$work/gen.tsr" <<EOF
X = normal(0, 1, ($N, $P), chunks=($B, $P), seed=1)
bstar = normal(0, 1, $P, seed=2) * 0.3
y = greater(1 / (1 + exp(-(X @ bstar))), uniform(0, 1, $N, chunks=$B, seed=3))
save("w4.h5", "X", X)
save("w4.h5", "y", y)
EOF
# The warm-up fit is line 3: its stderr line is not a row.
{
  echo "X = load(\"w4.h5\", \"X\", chunks=($B, $P)).persist()"
  echo "y = load(\"w4.h5\", \"y\", chunks=$B).persist()"
  echo 'c0, b0 = logistic_regression(X, y, solver="newton", fit_intercept=False, max_iter=1)'
  for s in $SOLVERS; do
    m=2000
    case $s in newton | lbfgs) m=100 ;; esac
    echo "c_$s, b_$s = logistic_regression(X, y, solver=\"$s\", regularizer=\"l2\", lamduh=1.0, fit_intercept=False, tol=1e-8, max_iter=$m)"
  done
} >"$work/fit.tsr"

echo "== tessera: the data (gen.tsr, 1 rank)" >&2
tess 1 -q run gen.tsr >/dev/null || { echo "glm_bench.sh: tessera failed to write the data" >&2; exit 4; }

status=0 rows=() fits=()
# row KIND NAME WHERE S ITERS PASSES CONV [DIFF] (KIND tessera|host|gpu)
row() { rows+=("$1|$2|$3|$4|$5|$6|$7|${8:--}"); }
for k in $RANKS; do
  where="$k rank$([ "$k" = 1 ] || echo s), $BACKEND"
  echo "== tessera: fit.tsr on $where" >&2
  tess "$k" run fit.tsr -o "fit-$k.h5" >/dev/null 2>"$work/log-$k.txt"
  rc=$?
  cat "$work/log-$k.txt" >&2
  if [ "$rc" = 0 ]; then fits+=("fit-$k.h5"); else status=4; fi
  for s in $SOLVERS; do
    line=$(sed -nE -e '/ at 3:/d' -e "s/^tessera: logistic_regression at .* solver $s, regularizer [^:]*: ([0-9]+) iterations, (not )?converged, objective [^,]*, ([0-9]+) passes over X, ([0-9.]+) s$/\\1 x\\2 \\3 \\4/p" \
      "$work/log-$k.txt" | head -1)
    if [ "$rc" = 0 ] && [ -n "$line" ]; then
      read -r it conv passes t <<<"$line"
      [ "$conv" = x ] && conv=yes || conv=no
      row tessera "tessera $s" "$where" "$t" "$it" "$passes" "$conv"
    else
      row tessera "tessera $s" "$where" "FAIL (exit $rc)" - - -
    fi
  done
done

echo "== peers: glm_peers.py" >&2
nogpu=()
[ "$BACKEND" = cpu ] && nogpu=(--no-gpu)
[ "${HOST_PEERS:-1}" = 0 ] && nogpu+=(--no-host)
(cd "$work" && "$PYTHON" "$here/glm_peers.py" w4.h5 "$RUNS" "${nogpu[@]}" "${fits[@]}") >"$work/peers.txt" ||
  echo "glm_bench.sh: glm_peers.py exited with status $?" >&2
cat "$work/peers.txt" >&2

label() {
  case $1 in
    sklearn-*) echo "scikit-learn ${1#sklearn-}" ;;
    torch-newton) echo "PyTorch Newton (by hand)" ;;
    torch-lbfgs) echo "PyTorch optim.LBFGS" ;;
    dask_glm-*) echo "dask_glm ${1#dask_glm-} (NumPy)" ;;
    *) echo "$1" ;;
  esac
}
while read -r tag name kind rest; do
  [ "$tag" = peer ] || continue
  where="host, $(nproc) cores"
  [ "$kind" = gpu ] && where="1 GPU"
  read -r t it conv diff <<<"$rest"
  case $t in
    FAIL | skipped*) t=${rest//|//} it=- conv=- diff=- ;;
  esac
  row "$kind" "$(label "$name")" "$where" "$t" "$it" - "$conv" "$diff"
done <"$work/peers.txt"
# tessera's coefficients against the reference ("diff fit-K.h5 SOLVER D").
for i in "${!rows[@]}"; do
  IFS='|' read -r kind name where t it passes conv _ <<<"${rows[$i]}"
  [ "$kind" = tessera ] || continue
  d=$(awk -v f="fit-${where%% *}.h5" -v s="${name#tessera }" '$1 == "diff" && $2 == f && $3 == s {print $4}' "$work/peers.txt")
  rows[i]="$kind|$name|$where|$t|$it|$passes|$conv|${d:--}"
done

isnum() { [[ $1 =~ ^[0-9]+(\.[0-9]+)?$ ]] && [[ $1 =~ [1-9] ]]; } # a time > 0
calc() { awk "BEGIN {printf \"$1\", $2}"; }                       # calc FORMAT EXPR
# fastest AWK-CONDITION: "seconds|name|where" of the fastest matching row with a time.
fastest() {
  printf '%s\n' "${rows[@]}" | awk -F'|' "$1"' && $4 ~ /^[0-9.]+$/ && $4 + 0 > 0 {print $4 "|" $2 "|" $3}' |
    sort -t'|' -g -k1,1 | head -1
}
peer_kind=host
[ "$BACKEND" = cuda ] && peer_kind=gpu
IFS='|' read -r peer_t peer_name _ <<<"$(fastest "\$1 == \"$peer_kind\"")"
# shellcheck disable=SC2016  # an awk program
IFS='|' read -r ours_t ours_name ours_where <<<"$(fastest '$1 == "tessera" && $7 == "yes"')"

TABLE=$(
  echo "| fit | where | s | iterations | passes over X | ms / pass | GB/s | converged | rel. diff | peer s / tessera s |"
  echo "|---|---|---|---|---|---|---|---|---|---|"
  for r in "${rows[@]}"; do
    IFS='|' read -r kind name where t it passes conv diff <<<"$r"
    ms=- gbs=- ratio=-
    if [ "$kind" = tessera ]; then
      if isnum "$t" && isnum "$passes"; then
        ms=$(calc %.2f "1000 * $t / $passes")
        gbs=$(calc %.1f "$passes * $N * $P * 8 / $t / 1e9")
      fi
      isnum "$t" && isnum "${peer_t:-}" && ratio=$(calc %.3g "$peer_t / $t")
    elif isnum "$t" && isnum "${ours_t:-}"; then
      ratio=$(calc %.3g "$t / $ours_t")
    fi
    echo "| $name | $where | $t | $it | $passes | $ms | $gbs | $conv | $diff | $ratio |"
  done
)
SUMMARY=$(
  echo "- rel. diff against: $(sed -n 's/^reference //p' "$work/peers.txt"); peers: $(sed -n 's/^info //p' "$work/peers.txt")"
  echo "- peer s / tessera s: tessera rows over the fastest $peer_kind peer (${peer_name:-none}, ${peer_t:--} s), peer rows over tessera's fastest converged fit (${ours_name:-none} on ${ours_where:--}, ${ours_t:--} s)"
  if [ "$BACKEND" = cpu ]; then
    sk=$(printf '%s\n' "${rows[@]}" | awk -F'|' '$2 == "scikit-learn lbfgs" {print $4}')
    echo "- target (TARGETS.md W4, CPU backend): >= 2x scikit-learn lbfgs on the same cores, converged to 1e-6: $(
      if isnum "${sk:-}" && isnum "${ours_t:-}"; then calc %.2fx "$sk / $ours_t"; else echo -; fi) (${ours_name:-none}, ${ours_t:--} s vs ${sk:--} s)"
  else
    echo "- target (TARGETS.md W4): <= 0.008 s on 1 H200 (newton or lbfgs), within 1e-6 of scikit-learn: fastest converged tessera fit ${ours_name:-none} on ${ours_where:--}: ${ours_t:--} s"
  fi
)
echo
echo "$TABLE"
echo
echo "$SUMMARY"

flags=$([ $quick = 1 ] && echo " --quick")$([ $cpu = 1 ] && echo " --cpu")
HEAD=$(
  record_head "W4 logistic regression $N x $P (chunks $B x $P), $BACKEND — bench/glm_bench.sh" \
    "load average before/after: $LOAD0 / $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)"
  echo "- command: \`N=$N P=$P RANKS=\"$RANKS\" SOLVERS=\"$SOLVERS\" RUNS=$RUNS bench/glm_bench.sh$flags\`"
)
echo
echo "for bench/RESULTS.md (the table goes after the command line; RECORD=1 appends it so):"
echo "$HEAD"
echo "$SUMMARY"
if [ "${RECORD:-0}" = 1 ]; then
  printf '%s\n\n%s\n\n%s\n' "$HEAD" "$TABLE" "$SUMMARY" >>"$BENCH_DIR/RESULTS.md"
  [ -z "${NOTE:-}" ] || echo "- note: $NOTE" >>"$BENCH_DIR/RESULTS.md"
  echo "appended to $BENCH_DIR/RESULTS.md" >&2
fi
exit "$status"
