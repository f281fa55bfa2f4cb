#!/bin/sh
# results_file.sh - `tessera run JOB -o OUT.h5` (DESIGN.md): small top-level
# values become datasets holding exactly what was printed, with provenance
# attributes; the file is complete on 2 ranks; it appears under its name only
# when complete (no temporaries left, nothing after a failed or interrupted
# run, an older file untouched; SIGTERM inside one huge CPU chunk ends the
# run within a second with status 130). Files are read with tests/h5read, an
# independent reader on the HDF5 C API.
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"

[ -x "$H5READ" ] || fail "h5read is needed (make check builds it): $H5READ"

cat >job.tsr <<'EOF'
# small values of every kind; big is too large to be written
n = 7
s = sum(arange(10))
third = s / 135
v = arange(5) * 0.5
m = arange(4.0)[:, None] * 10 + arange(3)
k = arange(4)[:, None] * 10 + arange(3)
f = arange(5, dtype="float32") / 3
r = normal(shape=(3, 4), chunks=2, seed=1)
big = normal(shape=(1100, 1000))
e = ones((0, 3))
sum(v)
EOF

capture out err tsr --backend=cpu --seed=42 run job.tsr -o out.h5
[ "$RC" -eq 0 ] || fail "run -o failed ($RC): $(cat err)"
[ -f out.h5 ] || fail "no out.h5 after a successful run"

# ---- datasets: exactly the small names ------------------------------------------------

"$H5READ" out.h5 --list | sort >names.txt
printf '%s\n' e f k m n r s third v | sort >want_names.txt
cmp -s names.txt want_names.txt || fail "datasets are '$(tr '\n' ' ' <names.txt)', expected '$(tr '\n' ' ' <want_names.txt)'"

# header NAME: the shape and dtype lines.
header() { "$H5READ" out.h5 "$1" | sed -n '1,2p' | tr '\n' ' '; }
vals() { "$H5READ" out.h5 "$1" | sed '1,2d'; }
expect_eq "$(header n)" "shape: () dtype: int64 " "n's header (a Python int: NumPy's np.asarray(7) is int64)"
expect_eq "$(header s)" "shape: () dtype: int64 " "s's header"
expect_eq "$(header v)" "shape: (5,) dtype: float64 " "v's header"
expect_eq "$(header m)" "shape: (4, 3) dtype: float64 " "m's header"
expect_eq "$(header k)" "shape: (4, 3) dtype: int64 " "k's header (NumPy's arange of ints)"
expect_eq "$(header f)" "shape: (5,) dtype: float32 " "f's header"
expect_eq "$(header r)" "shape: (3, 4) dtype: float64 " "r's header"
expect_eq "$(header e)" "shape: (0, 3) dtype: float64 " "e's header"

# Scalars: the printed %.17g text, exactly.
for name in n s third; do
  expect_eq "$(vals $name)" "$(value_of $name out)" "dataset $name against the printed value"
done
expect_eq "$(vals third)" 0.33333333333333331 "third = 45 / 135"
# Arrays: independent values, and the printed (NumPy-style, 8 digits) text.
expect_eq "$(vals v | tr '\n' ' ')" "0 0.5 1 1.5 2 " "v's values"
expect_eq "$(vals m | tr '\n' ' ')" "0 1 2 10 11 12 20 21 22 30 31 32 " "m's values"
expect_eq "$(vals f | tr '\n' ' ')" "0 0.3333333432674408 0.66666668653488159 1 1.3333333730697632 " "f's float32 values"
[ -z "$(vals e)" ] || fail "the empty array has values"
# printed_tokens NAME: the numbers printed for NAME (one or more lines).
printed_tokens() {
  awk -v n="$1" '$0 ~ "^" n " = " { on = 1; sub("^" n " = ", ""); print; next }
                 on && /^[a-z_][a-z_0-9]* = / { exit }
                 on { print }' out | tr -d '[]' | tr -s ' \n' '\n\n' | sed '/^$/d'
}
# as_printed: h5read values as NumPy prints them (%.8g, "." for whole numbers).
as_printed() {
  awk '{ t = sprintf("%.8g", $0); if (t !~ /[.e]/) t = t "."; print t }'
}
for name in v m f r; do
  vals $name | as_printed >a.txt
  printed_tokens $name >b.txt
  cmp -s a.txt b.txt || fail "dataset $name does not hold the printed values:
file: $(tr '\n' ' ' <a.txt)
printed: $(tr '\n' ' ' <b.txt)"
done

# ---- provenance ------------------------------------------------------------------------

attr() { "$H5READ" out.h5 --attr "$1" || fail "no attribute '$1'"; }
expect_eq "$(attr job)" "$(cat job.tsr)" "attribute job (the job text)"
expect_eq "tessera $(attr tessera_version)" "$("$TESSERA" --version)" "attribute tessera_version"
expect_eq "$(attr ranks)" 1 "attribute ranks"
expect_eq "$(attr backend)" cpu "attribute backend"
expect_eq "$(attr seed)" 42 "attribute seed"
attr date | grep -Eq '^20[0-9][0-9]-[01][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-6][0-9]' ||
  fail "attribute date is '$(attr date)', not ISO 8601"
today=$(date -u +%Y-%m-%d)
yesterday=$(date -u -d yesterday +%Y-%m-%d 2>/dev/null || echo "$today")
case $(attr date) in "$today"* | "$yesterday"*) ;; *) fail "attribute date $(attr date) is not today ($today)" ;; esac
for t in time_total_s time_compute_s time_parse_s; do
  awk -v x="$(attr $t)" 'BEGIN { exit !(x ~ /^[0-9.e+-]+$/ && x >= 0 && x < 600) }' ||
    fail "attribute $t is '$(attr $t)'"
done
awk -v t="$(attr time_total_s)" -v c="$(attr time_compute_s)" 'BEGIN { exit !(t + 0 >= c + 0) }' ||
  fail "time_total_s < time_compute_s"

# Only the results file is left: no temporaries.
expect_eq "$(ls | grep -c -e '\.tmp' -e '^out\.h5.')" 0 "temporary files left ($(ls))"

# ---- 2 ranks: the same complete file -----------------------------------------------------

dump() { for d in $("$H5READ" "$1" --list); do echo "== $d"; "$H5READ" "$1" "$d"; done; }
dump out.h5 >one.txt
mkdir two
capture out2 err2 mpi_tsr 2 --backend=cpu --seed=42 run job.tsr -o two/out.h5
[ "$RC" -eq 0 ] || fail "run -o on 2 ranks failed ($RC): $(cat err2)"
dump two/out.h5 >two.txt
cmp -s one.txt two.txt || fail "the 2-rank results file differs from the 1-rank one:
$(diff one.txt two.txt | head)"
expect_eq "$("$H5READ" two/out.h5 --attr ranks)" 2 "attribute ranks on 2 ranks"
expect_eq "$("$H5READ" two/out.h5 --attr job)" "$(cat job.tsr)" "attribute job on 2 ranks"
expect_eq "$(ls two)" out.h5 "files left by the 2-rank run"
cmp -s out out2 || fail "printed output differs on 2 ranks"

# ---- failures leave no file --------------------------------------------------------------

# no_file DIR WHAT: DIR holds no file at all.
no_file() { [ -z "$(ls -A "$1")" ] || fail "$2 left files: $(ls -A "$1")"; }
printf 'a = sum(arange(3)\n' >bad_syntax.tsr
printf 'a = arange(3)\nb = sum(a + arange(4))\n' >bad_shape.tsr
printf 'a = sum(arange(3))\nb = a[0]\n' >bad_type.tsr
printf 'a = sum(normal(shape=(4000, 4000), chunks=2000))\n' >bad_mem.tsr
for job in bad_syntax bad_shape bad_type; do
  for np in 1 2; do
    mkdir -p "f_$job$np"
    if [ $np = 1 ]; then
      TIMEOUT=60 capture o e tsr run $job.tsr -o "f_$job$np/r.h5"
    else
      TIMEOUT=60 capture o e mpi_tsr 2 run $job.tsr -o "f_$job$np/r.h5"
    fi
    [ "$RC" -ne 0 ] || fail "$job on $np rank(s) exited 0"
    no_file "f_$job$np" "$job on $np rank(s)"
  done
done
mkdir f_mem
capture o e tsr --no-fuse --mem-limit=10M run bad_mem.tsr -o f_mem/r.h5
[ "$RC" -ne 0 ] || fail "--no-fuse with 256 MB chunks under --mem-limit=10M exited 0"
no_file f_mem "a run over the memory limit"
# A failed run leaves an older file under the name untouched.
cp out.h5 keep.h5
capture o e tsr run bad_shape.tsr -o out.h5
[ "$RC" -ne 0 ] || fail "bad_shape.tsr exited 0"
cmp -s out.h5 keep.h5 || fail "a failed run changed the existing out.h5"
# A directory that does not exist: an error, nothing created.
capture o e tsr run job.tsr -o nodir/out.h5
[ "$RC" -ne 0 ] || fail "-o into a missing directory exited 0"
expect_eq "$(grep -c '^tessera: error:' e)" 1 "error lines for -o into a missing directory"
[ ! -e nodir ] || fail "-o into a missing directory created it"

# ---- interrupts ----------------------------------------------------------------------------

# A job of 10^13 normals (400000 chunks) runs for hours on any node, so
# no signal can come too late, however fast the machine (a job sized in
# minutes was finished before the signal on a 32-core GPU node); SIGINT must
# end it within a second with status 130, leaving nothing (signal_test:
# tests/lib.sh).
printf 'x = sum(normal(shape=(10**7, 10**6), chunks=(5000, 5000)))\n' >long.tsr
# On the CPU backend (tests/gpu/gpu_signals.sh is the GPU's version).
signal_test "run (fused), 1 rank" INT 2 130 1 int_f1 "$TESSERA" --backend=cpu --quiet run long.tsr -o int_f1/r.h5
signal_test "run --no-fuse, 1 rank" INT 2 130 1 int_n1 "$TESSERA" --backend=cpu --quiet --no-fuse run long.tsr -o int_n1/r.h5
OMP_NUM_THREADS=${OMP_NUM_THREADS:-1}
export OMP_NUM_THREADS
# Ctrl-C or SIGTERM to mpirun: Open MPI sends its ranks SIGCONT, and SIGTERM
# only a second later; the ranks take the launcher's SIGCONT as the end and
# are gone at once (mpirun mostly returns with them, sometimes after its own
# second). Its status is Open MPI's own (1: orterun's abort path sets it
# before any rank exits).
for sig in INT TERM; do
  mpirun_signal_test "run (fused), mpirun -np 2, SIG$sig to mpirun" "$sig" 1 "int_m$sig" \
    --backend=cpu --quiet run long.tsr -o "int_m$sig/r.h5"
done
# The signal to the ranks themselves (a terminal's Ctrl-C reaches the whole
# process group, srun passes it on): every rank is gone within a second and
# mpirun reports their status, 130 for SIGINT and 143 for SIGTERM.
for sig_status in INT:130 TERM:143; do
  sig=${sig_status%:*}
  ranks_signal_test "ranks of mpirun -np 2, SIG$sig" "$sig" "${sig_status#*:}" 1 "int_r$sig" \
    --backend=cpu --quiet run long.tsr -o "int_r$sig/r.h5"
done
# A rank killed with SIGKILL: mpirun ends the job within 5 s, nothing left.
kill_rank_test int_k2 --backend=cpu --quiet run long.tsr -o int_k2/r.h5

# SIGTERM inside one chunk of 10^18 elements (a batch system's time limit):
# the CPU backend looks at the flag between row segments, not only between
# chunks, so the job ends within a second with status 143 (128 + SIGTERM).
# (The signal comes after 3 s: on a 16-core GPU node the start-up before
# tessera's handlers took over a second.)
printf 'x = sum(ones((10**9, 10**9), chunks=10**9))\n' >huge.tsr
signal_test "one huge chunk, SIGTERM" TERM 3 143 1 int_huge "$TESSERA" --backend=cpu --quiet run huge.tsr -o int_huge/r.h5

finish
