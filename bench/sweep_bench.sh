#!/usr/bin/env bash
# sweep_bench.sh - W5 (TARGETS.md): a parameter sweep, the W4 problem (L2-
# regularized logistic regression, no intercept, X N x P float64 N(0, 1),
# y ~ Bernoulli(sigmoid(X b*))) fitted once for each of NLAM values of
# lambda = lamduh = 1/C of scikit-learn: np.logspace(LOGLAM) with NLAM points,
# printed with %.17g (the same doubles for every system); every peer measured
# in the same run on the same machine and data (bench/sweep_peers.py).
#
# 1. data: one tessera job (1 rank) writes X (seed 1) and y (b* = 0.3 x
#    normal seed 2, uniforms seed 3) to w5.h5 exactly as glm_bench.sh does.
#    B, the block rows, is the largest power of two r with 256 <= r,
#    r <= N/8 and r <= 2^24/P (at least 256): 65536 for 10^6 x 100.
# 2. tessera: fit.tsr has `lam = param(1.0)` and one fit, lbfgs, l2,
#    lamduh=lam, fit_intercept=False, tol=1e-8, max_iter=100, of X and y
#    loaded with chunks of B rows and persisted (inside the call, so that y is
#    not a per-trial result written to the journal and the table); for each K
#    of RANKS, `tessera --backend=BACKEND sweep fit.tsr -o w5-K.h5 --grid
#    lam=<the NLAM values> -q` (under mpirun -np K --bind-to none when K > 1:
#    K groups of one rank, one GPU each). "total s" is the wall clock of that
#    whole command (date +%s.%N): process and MPI start-up, every trial's load
#    of X from w5.h5 and its persist, the fits, the journal and the table.
#    "sum of trial s" adds up the table's trials/seconds (each trial's own
#    time: the first trial of a group loads and holds X and y, the later ones
#    take them over, trials/reused_bytes; then the fit), "sum of fit s" the
#    fits' own seconds (X already held; the attribute `seconds` of coef in
#    each trial's journal file). The sweep runs with --batch BATCH (default
#    auto: 16 trials at a time on one group): the lambdas of a batch are one
#    lambda path, each pass over X serving all of them; a trial's seconds
#    are an equal share of its path plus its own work. BATCH=1 is one fit
#    per pass, as before lambda paths.
# 3. peers (sweep_peers.py; see its header), each a loop over the NLAM values
#    in the same order, timed as a whole after one untimed warm-up fit, the
#    data already in memory (on the GPU for PyTorch): scikit-learn
#    LogisticRegression(C=1/lam, fit_intercept=False, tol=1e-8) with lbfgs
#    (max_iter=1000) and newton-cholesky (max_iter=100) on all host cores;
#    PyTorch Newton by hand on the GPU (as glm_peers.py's, with the penalty
#    lam; only with BACKEND=cuda). A peer that fails is a FAIL row, one that
#    is not installed a "skipped" row.
# 4. accuracy: for every lambda max|b - b_ref| / max|b_ref|, b_ref
#    scikit-learn's newton-cholesky fit of that lambda (tighter than lbfgs at
#    tol=1e-8; the lbfgs row shows its own distance); the worst over the
#    lambdas is "rel. diff", with the lambda where it occurs. The W5 target
#    also asks that every trial equal the single fit of its lambda: SINGLE
#    (default 3) lambdas, evenly spaced from the first to the last, are run
#    alone (`tessera run fit.tsr --set lam=V`, 1 rank) and compared bit for bit
#    with their trial of every sweep.
#
# Columns: "s / fit" = total s / NLAM; "converged" fits out of NLAM; "peer s /
# tessera s" (> 1: tessera faster): on a tessera row the fastest peer of the
# same kind (host peers for --backend=cpu, the GPU peer for cuda) over the row,
# on a peer row the row over tessera's fastest sweep. Then the target line,
# and the head of a record for bench/RESULTS.md (RECORD=1 appends it with the
# table; NOTE="..." adds a line).
#
# usage: bench/sweep_bench.sh [--quick] [--cpu]
#   --quick  N=100000 (unless N is set)
#   --cpu    tessera --backend=cpu and no GPU peer, even where GPUs are
# Environment: N (default 1000000), P (100), NLAM (64), LOGLAM (the exponents
# of np.logspace, default "-3 3": 1e-3 ... 1e3, TARGETS.md's W5), RANKS (default 1; e.g.
# "1 2"), BATCH (tessera sweep --batch, default auto), SINGLE (default 3; 0: no
# single fits), HOST_LAMS (the scikit-learn loops time only that many of the
# lambdas, evenly spaced, scaled to NLAM; the reference is then the PyTorch
# Newton loop; default all), BACKEND (default cuda where
# a GPU is visible, else cpu), TESSERA, PYTHON (default: the first of python3,
# /usr/bin/python3 that imports h5py and numpy).
# Exit status: 0, 2 usage, 3 a tool missing, 4 a tessera run failed (a sweep
# with a failed trial included) or a single fit differs from its trial.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/common.sh
. "$here/common.sh"
usage="usage: bench/sweep_bench.sh [--quick] [--cpu]"
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
NLAM=${NLAM:-64}
LOGLAM=${LOGLAM:--3 3}
RANKS=${RANKS:-1}
BATCH=${BATCH:-auto}
SINGLE=${SINGLE:-3}
[[ $NLAM =~ ^[1-9][0-9]*$ ]] || die "NLAM=$NLAM is not a positive integer"
[[ $SINGLE =~ ^[0-9]+$ ]] || die "SINGLE=$SINGLE is not an integer"
read -r lo hi rest <<<"$LOGLAM"
if [ -z "${hi:-}" ] || [ -n "${rest:-}" ]; then die "LOGLAM=\"$LOGLAM\" is not two exponents"; fi
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
work=$(mktemp -d "${TMPDIR:-/tmp}/sweep_bench.XXXXXX") || die "cannot make a work directory"
trap 'rm -rf "$work"' EXIT
# The lambdas, one a line, then as the --grid list.
"$PYTHON" -c 'import sys, numpy as np
for v in np.logspace(float(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3])): print("%.17g" % v)' \
  "$lo" "$hi" "$NLAM" >"$work/lams.txt" || die "$PYTHON could not compute the lambdas (LOGLAM=\"$LOGLAM\")"
GRID=$(paste -sd, "$work/lams.txt")
mapfile -t LAMS <"$work/lams.txt"
lam_lo=$(awk '{printf "%.3g", $1}' <<<"${LAMS[0]}")
lam_hi=$(awk '{printf "%.3g", $1}' <<<"${LAMS[NLAM - 1]}")
echo "sweep_bench.sh: $(machine_line); commit $(commit_line); tessera: $TESSERA ($(binary_line))"
echo "sweep_bench.sh: N=$N P=$P, block rows B=$B, $NLAM lambdas $lam_lo ... $lam_hi (np.logspace($lo, $hi, $NLAM)), backend $BACKEND, RANKS=\"$RANKS\", SINGLE=$SINGLE, python $PYTHON"

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
save("w5.h5", "X", X)
save("w5.h5", "y", y)
EOF
cat >"$work/fit.tsr" <<EOF
lam = param(1.0)
coef, intercept = logistic_regression(load("w5.h5", "X", chunks=($B, $P)).persist(), load("w5.h5", "y", chunks=$B).persist(), solver="lbfgs", regularizer="l2", lamduh=lam, fit_intercept=False, tol=1e-8, max_iter=100)
EOF

echo "== tessera: the data (gen.tsr, 1 rank)" >&2
tess 1 -q run gen.tsr >/dev/null || { echo "sweep_bench.sh: tessera failed to write the data" >&2; exit 4; }

now() { date +%s.%N; }
status=0 rows=() sweeps=() singles=()
# row KIND NAME WHERE S TRIAL_S FIT_S CONV DIFF (KIND tessera|host|gpu)
row() { rows+=("$1|$2|$3|$4|$5|$6|$7|$8"); }
for k in $RANKS; do
  where="$k rank$([ "$k" = 1 ] || echo s), $BACKEND, --batch $BATCH"
  echo "== tessera: sweep fit.tsr, $NLAM trials, on $where" >&2
  t0=$(now)
  tess "$k" sweep fit.tsr -o "w5-$k.h5" --grid "lam=$GRID" --batch "$BATCH" -q >"$work/out-$k.txt" 2>&1
  rc=$?
  t1=$(now)
  cat "$work/out-$k.txt" >&2
  if [ "$rc" = 0 ]; then
    sweeps+=("w5-$k.h5")
    row tessera "tessera sweep (lbfgs)" "$where" "$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.3f", b - a}')" - - - -
  else
    status=4
    # A sweep with failed trials (exit 3) still has a table: read it too.
    [ "$rc" = 3 ] && [ -f "$work/w5-$k.h5" ] && sweeps+=("w5-$k.h5")
    row tessera "tessera sweep (lbfgs)" "$where" "FAIL (exit $rc)" - - - -
  fi
done

if [ "$SINGLE" -gt 0 ] && [ ${#sweeps[@]} -gt 0 ]; then
  idx=$(awk -v s="$SINGLE" -v n="$NLAM" 'BEGIN {if (s > n) s = n; for (j = 0; j < s; j++) print (s == 1 ? 0 : int(j * (n - 1) / (s - 1) + 0.5))}' | sort -un)
  for i in $idx; do
    echo "== tessera: run fit.tsr --set lam=${LAMS[i]} (trial $i alone, 1 rank)" >&2
    if tess 1 -q run fit.tsr --set "lam=${LAMS[i]}" -o "single-$i.h5" >/dev/null; then
      singles+=(--single "$i=single-$i.h5")
    else
      status=4
      echo "sweep_bench.sh: the single fit of trial $i failed" >&2
    fi
  done
fi

echo "== peers: sweep_peers.py" >&2
nogpu=()
[ "$BACKEND" = cpu ] && nogpu=(--no-gpu)
hostlams=()
[ -n "${HOST_LAMS:-}" ] && hostlams=(--host-lams "$HOST_LAMS")
(cd "$work" && "$PYTHON" "$here/sweep_peers.py" w5.h5 lams.txt "${nogpu[@]}" "${hostlams[@]}" "${singles[@]}" "${sweeps[@]}") >"$work/peers.txt" ||
  echo "sweep_bench.sh: sweep_peers.py exited with status $?" >&2
cat "$work/peers.txt" >&2

label() {
  case $1 in
    sklearn-*) echo "scikit-learn ${1#sklearn-} loop" ;;
    torch-newton) echo "PyTorch Newton (by hand) loop" ;;
    *) echo "$1" ;;
  esac
}
while read -r tag name kind rest; do
  [ "$tag" = peer ] || continue
  where="host, $(nproc) cores"
  [ "$kind" = gpu ] && where="1 GPU"
  read -r t _ conv diff <<<"$rest"
  case $t in
    FAIL | skipped*) t=$rest conv=- diff=- ;;
  esac
  row "$kind" "$(label "$name")" "$where" "$t" - - "$conv" "$diff"
done <"$work/peers.txt"
# tessera's rows from its tables ("sweep w5-K.h5 OK TRIAL_S FIT_S ITERS PASSES CONV DIFF").
for i in "${!rows[@]}"; do
  IFS='|' read -r kind name where t _ <<<"${rows[$i]}"
  [ "$kind" = tessera ] || continue
  k=${where%% *}
  read -r ok ts fs _ _ conv diff <<<"$(awk -v f="w5-$k.h5" '$1 == "sweep" && $2 == f {$1 = $2 = ""; print}' "$work/peers.txt")"
  if [ "${ok:-FAIL}" = FAIL ]; then ts=- fs=- conv=- diff=-; fi
  [ "${ok:-}" != FAIL ] && [ -n "${ok:-}" ] && [ "$ok" != "$NLAM" ] && t="$t ($ok of $NLAM trials ok)"
  rows[i]="$kind|$name|$where|$t|${ts:--}|${fs:--}|${conv:--}|${diff:--}"
done
# A single fit that is not bitwise its trial fails the run.
ndiffer=$(awk '$1 == "single" && $5 != "equal"' "$work/peers.txt" | wc -l)
nequal=$(awk '$1 == "single" && $5 == "equal"' "$work/peers.txt" | wc -l)
[ "$ndiffer" = 0 ] || status=4

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
IFS='|' read -r ours_t _ ours_where <<<"$(fastest '$1 == "tessera"')"

TABLE=$(
  echo "| system | where | total s ($NLAM fits) | s / fit | sum of trial s | sum of fit s | converged | rel. diff (worst @ lambda) | peer s / tessera s |"
  echo "|---|---|---|---|---|---|---|---|---|"
  for r in "${rows[@]}"; do
    IFS='|' read -r kind name where t ts fs conv diff <<<"$r"
    per=- ratio=-
    isnum "$t" && per=$(calc %.4g "$t / $NLAM")
    if [ "$kind" = tessera ]; then
      isnum "$t" && isnum "${peer_t:-}" && ratio=$(calc %.3g "$peer_t / $t")
      if isnum "$t"; then
        isnum "$ts" && ts=$(calc %.3f "$ts")
        isnum "$fs" && fs=$(calc %.3f "$fs")
      else
        ts=- fs=-
      fi
    else
      isnum "$t" && t=$(calc %.3f "$t")
      isnum "$t" && isnum "${ours_t:-}" && ratio=$(calc %.3g "$t / $ours_t")
    fi
    echo "| $name | $where | $t | $per | $ts | $fs | $conv | $diff | $ratio |"
  done
)
sk=$(printf '%s\n' "${rows[@]}" | awk -F'|' '$2 == "scikit-learn lbfgs loop" {print $4}')
SUMMARY=$(
  echo "- lambdas: $NLAM values np.logspace($lo, $hi, $NLAM) = $lam_lo ... $lam_hi (%.17g); rel. diff against: $(sed -n 's/^reference //p' "$work/peers.txt"); peers: $(sed -n 's/^info //p' "$work/peers.txt")"
  echo "- tessera: total s = wall clock of the whole sweep command (start-up, X and y loaded and held once per group, the fits, journal and table); sum of trial s = the table's trials/seconds; sum of fit s = the fits' own seconds (X held)"
  if [ "$SINGLE" -gt 0 ]; then
    echo "- single fits (\`tessera run --set lam=V\`, 1 rank) bitwise equal to their trial: $nequal of $((nequal + ndiffer)) comparisons$(
      awk '$1 == "single" && $5 != "equal" {printf "; %s trial %s (lam %s) %s %s", $2, $3, $4, $5, $6}' "$work/peers.txt")"
  fi
  echo "- peer s / tessera s: tessera rows over the fastest $peer_kind peer (${peer_name:-none}, ${peer_t:--} s), peer rows over tessera's fastest sweep (${ours_where:--}, ${ours_t:--} s)"
  if [ "$BACKEND" = cpu ]; then
    echo "- target (TARGETS.md W5) is for GPUs; here, CPU backend: scikit-learn lbfgs loop / tessera's fastest sweep = $(
      if isnum "${sk:-}" && isnum "${ours_t:-}"; then calc %.2fx "$sk / $ours_t"; else echo -; fi) (${ours_t:--} s vs ${sk:--} s)"
  else
    echo "- target (TARGETS.md W5): <= 0.4 s on 1 H200, <= 0.22 s on 2 H200s (64 lambdas), every trial equal to its single fit: fastest tessera sweep ${ours_t:--} s on ${ours_where:--}"
  fi
)
echo
echo "$TABLE"
echo
echo "$SUMMARY"

flags=$([ $quick = 1 ] && echo " --quick")$([ $cpu = 1 ] && echo " --cpu")
HEAD=$(
  record_head "W5 sweep of $NLAM lambdas, logistic $N x $P (chunks $B x $P), $BACKEND — bench/sweep_bench.sh" \
    "load average before/after: $LOAD0 / $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)"
  echo "- command: \`N=$N P=$P NLAM=$NLAM LOGLAM=\"$LOGLAM\" RANKS=\"$RANKS\" BATCH=$BATCH SINGLE=$SINGLE bench/sweep_bench.sh$flags\`"
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
