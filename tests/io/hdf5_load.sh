#!/bin/sh
# hdf5_load.sh - load(file, dataset, chunks=) reads HDF5 datasets written by
# an independent writer (tests/h5tool, the HDF5 C API) in layouts unlike
# tessera's chunks (odd HDF5 chunks, gzip + shuffle, contiguous; float64,
# float32 and integer types; 1 to 3 dimensions), on 1 to 4 ranks:
#   - saved again, every value is bitwise what the file holds;
#   - the direct path (pread of the bytes HDF5 would return unchanged):
#     whole, edge and half chunks of a file tessera saved, row blocks of a
#     contiguous float64 dataset, each read by pread (counted in the trace)
#     and bitwise what HDF5 reads, on 1 and 3 ranks and with --no-fuse;
#     what must stay with HDF5 (a userblock, big-endian float64, column
#     blocks, regions across HDF5 chunks) makes no pread and reads the
#     same values;
#   - slices with steps (negative ones too) equal direct hyperslab reads
#     (h5tool's H5Dread), and request only the selected elements;
#   - reductions equal long-double references within 1e-12, and are the
#     same bits on every rank count;
#   - bad input (missing file or dataset, unreadable type, a file that is
#     not HDF5, a scalar, chunks= that do not fit) is one "tessera: error:"
#     line naming the file and the dataset, before any work, on every rank
#     count, without a hang.
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"

TIMEOUT=120
[ -x "$H5TOOL" ] || fail "h5tool is needed (make check builds it): $H5TOOL"

"$H5TOOL" write in.h5 /x f8 1000,300 chunks=70,33 seed=1
"$H5TOOL" write in.h5 /g/f f4 5000 chunks=64 gzip=5 shuffle seed=2 append
"$H5TOOL" write in.h5 /i i4 300,200 contiguous seed=3 append
"$H5TOOL" write in.h5 /u u1 20,30,40 chunks=7,11,13 seed=4 append
"$H5TOOL" write in.h5 /l i8 777 seed=5 append

# same FILE_A DSET_A FILE_B DSET_B WHAT [SLAB...]: h5tool reads both equal.
same() {
  "$H5TOOL" slab "$1" "$2" >a.txt || { soft_fail "$5: cannot read $2 of $1"; return 0; }
  shift 4
  _what=$1
  shift
  "$H5TOOL" slab "$@" >b.txt || { soft_fail "$_what: cannot read the reference"; return 0; }
  [ -s a.txt ] || soft_fail "$_what: no values"
  cmp -s a.txt b.txt || soft_fail "$_what: values differ from the file's ($(wc -l <a.txt) vs $(wc -l <b.txt) values; first difference: $(diff a.txt b.txt | sed -n 2p)) "
}

cat >io.tsr <<'EOF'
x = load("in.h5", "/x", chunks=(128, 100))
save("rt.h5", "x", x)
save("rt.h5", "f", load("in.h5", "g/f", chunks=1000))
save("rt.h5", "i", load("in.h5", "i", chunks=(64, -1)))
save("rt.h5", "u", load("in.h5", "u", chunks=(9, 10, 40)))
save("rt.h5", "l", load("in.h5", "l"))
save("rt.h5", "s1", x[3:900:7, ::-4])
save("rt.h5", "s2", load("in.h5", "u", chunks=(3, 7, 11))[2:, 5, ::3])
save("rt.h5", "s3", load("in.h5", "g/f", dtype="float64", chunks=333)[::-10])
save("rt.h5", "s4", x[::3, 1::2] * 2 + 1)
save("rt.h5", "s5", load("in.h5", "i", chunks=(7, 9))[::-2, 3:150:5])
s = x[5:, ::3]
total = sum(s)
avg = mean(s)
lo = min(s)
hi = max(s)
v = var(s)
colsum = sum(x, axis=0)
f32 = load("in.h5", "g/f").dtype
isum = sum(load("in.h5", "i", chunks=50))
EOF

# run_in DIR NP ARGS...: tessera --quiet ARGS on NP ranks inside DIR; RC, DIR/out, DIR/err.
run_in() {
  _dir=$1 _np=$2
  shift 2
  (
    cd "$_dir"
    if [ "$_np" = 1 ]; then capture out err tsr "$@"; else capture out err mpi_tsr "$_np" "$@"; fi
    echo "$RC" >rc
  )
  RC=$(cat "$_dir/rc")
}

for np in 1 2 3 4; do
  mkdir "r$np"
  ln -s ../in.h5 "r$np/in.h5"
  run_in "r$np" "$np" run ../io.tsr -o res.h5
  [ "$RC" -eq 0 ] || fail "the load job on $np rank(s) failed ($RC): $(cat "r$np/err")"
done

# ---- round trips and slices against the file ------------------------------------

R=r1/rt.h5
same $R x in.h5 /x "float64 2-d, chunks (70, 33) in the file, (128, 100) in tessera" in.h5 /x
same $R f in.h5 /g/f "float32 1-d, gzip + shuffle" in.h5 /g/f
same $R i in.h5 /i "int32 2-d, contiguous" in.h5 /i
same $R u in.h5 /u "uint8 3-d, chunks (7, 11, 13)" in.h5 /u
same $R l in.h5 /l "int64 1-d, contiguous" in.h5 /l
expect_eq "$("$H5TOOL" layout $R f | cut -d' ' -f1)" f4 "a float32 dataset loads as float32"
expect_eq "$("$H5TOOL" layout $R i | cut -d' ' -f1)" i4 "an int32 dataset loads as int32 (NumPy keeps the type)"
same $R s1 in.h5 /x "x[3:900:7, ::-4]" in.h5 /x 3,299 7,-4 129,75
same $R s2 in.h5 /u "u[2:, 5, ::3]" in.h5 /u 2,5,0 1,1,3 18,1,14
same $R s3 in.h5 /g/f "f[::-10] as float64" in.h5 /g/f 4999 -10 500
same $R s4 in.h5 /x "x[::3, 1::2] * 2 + 1" in.h5 /x 0,1 3,2 334,150 affine=2,1
same $R s5 in.h5 /i "i[::-2, 3:150:5]" in.h5 /i 299,3 -2,5 150,30

# ---- reductions ------------------------------------------------------------------

set -- $("$H5TOOL" stats in.h5 /x 5,0 1,3 995,100)
expect_close "$(value_of total r1/out)" "$1" 1e-12 "sum(x[5:, ::3])"
expect_close "$(value_of avg r1/out)" "$2" 1e-12 "mean(x[5:, ::3])"
expect_eq "$(value_of lo r1/out)" "$3" "min(x[5:, ::3])"
expect_eq "$(value_of hi r1/out)" "$4" "max(x[5:, ::3])"
expect_close "$(value_of v r1/out)" "$5" 1e-12 "var(x[5:, ::3])"
set -- $("$H5TOOL" stats in.h5 /i)
expect_close "$(value_of isum r1/out)" "$1" 1e-12 "sum of the int32 dataset"
expect_eq "$(value_of f32 r1/out)" "'float32'" "dtype of a float32 dataset"
"$H5READ" r1/res.h5 colsum | sed '1,2d' >col.txt
"$H5TOOL" colstats in.h5 /x >colref.txt
paste col.txt colref.txt | while read -r a b; do
  is_close "$a" "$b" 1e-12 || { echo "$a $b"; break; }
done >colbad.txt
[ ! -s colbad.txt ] || soft_fail "sum(x, axis=0) differs from the reference: $(cat colbad.txt)"
[ "$(wc -l <col.txt)" = 300 ] || soft_fail "sum(x, axis=0) has $(wc -l <col.txt) values, not 300"

# ---- the same bits on every rank count ----------------------------------------------

dump() { for d in $("$H5READ" "$1" --list); do echo "== $d"; "$H5TOOL" slab "$1" "$d"; done; }
dump r1/rt.h5 >rt1.txt
dump r1/res.h5 >res1.txt
for np in 2 3 4; do
  dump "r$np/rt.h5" >rt.txt
  cmp -s rt1.txt rt.txt || soft_fail "saved values on $np ranks differ from 1 rank"
  dump "r$np/res.h5" >res.txt
  cmp -s res1.txt res.txt || soft_fail "results on $np ranks differ from 1 rank: $(diff res1.txt res.txt | head -3)"
  cmp -s r1/out "r$np/out" || soft_fail "printed output on $np ranks differs from 1 rank"
done

# ---- the direct path: pread where HDF5 would return the file's bytes unchanged --------

"$H5TOOL" write direct.h5 /c f8 500,40 contiguous seed=6
"$H5TOOL" write direct.h5 /be f8be 300,40 chunks=50,40 seed=7 append
"$H5TOOL" write ub.h5 /x f8 300,40 chunks=50,40 seed=8 userblock=512
cp r1/rt.h5 saved.h5 # x: 1000 x 300 in HDF5 chunks of (128, 100), saved by tessera
cat >direct.tsr <<'EOF'
save("d.h5", "whole", load("saved.h5", "x", chunks=(128, 100)))
save("d.h5", "half", load("saved.h5", "x", chunks=(64, 100)))
save("d.h5", "rows", load("direct.h5", "c", chunks=(64, -1)))
EOF
cat >hdf5.tsr <<'EOF'
save("h.h5", "across", load("saved.h5", "x", chunks=(128, 300)))
save("h.h5", "cols", load("direct.h5", "c", chunks=(64, 16)))
save("h.h5", "be", load("direct.h5", "be", chunks=(50, 40)))
save("h.h5", "ub", load("ub.h5", "x", chunks=(50, 40)))
EOF
# preads TRACE: the direct reads a trace holds.
preads() { grep -o '"name":"pread"' "$1" | wc -l | tr -d ' '; }
# With parallel HDF5, several ranks read collectively through MPI-IO, which
# never goes direct; TESSERA_HDF5_INDEPENDENT=1 makes them read on their own.
modes="1 3"
if "$TESSERA" info | grep -q '^hdf5: parallel'; then modes="1 3-collective 3"; fi
for mode in $modes; do
  np=${mode%%-*}
  want=80 # 8 x 3 whole chunks (the last 104 rows of 128), 16 x 3 halves, 8 row blocks
  rm -f d.h5 h.h5
  if [ "$mode" = 3-collective ]; then
    want=0
    unset TESSERA_HDF5_INDEPENDENT
  elif [ "$np" = 3 ]; then
    TESSERA_HDF5_INDEPENDENT=1
    export TESSERA_HDF5_INDEPENDENT
  fi
  if [ "$np" = 1 ]; then capture out err tsr run direct.tsr --trace d.json; else capture out err mpi_tsr "$np" run direct.tsr --trace d.json; fi
  [ "$RC" -eq 0 ] || fail "direct loads on $np rank(s) failed ($RC): $(cat err)"
  expect_eq "$(preads d.json)" $want "direct reads on $np rank(s) ($mode)"
  same d.h5 whole in.h5 /x "direct: whole and edge chunks of a saved file ($np rank(s))" in.h5 /x
  same d.h5 half in.h5 /x "direct: half chunks of a saved file ($np rank(s))" in.h5 /x
  same d.h5 rows direct.h5 /c "direct: row blocks of contiguous float64 ($np rank(s))" direct.h5 /c
  if [ "$np" = 1 ]; then capture out err tsr run hdf5.tsr --trace h.json; else capture out err mpi_tsr "$np" run hdf5.tsr --trace h.json; fi
  [ "$RC" -eq 0 ] || fail "HDF5 loads on $np rank(s) failed ($RC): $(cat err)"
  expect_eq "$(preads h.json)" 0 "direct reads where HDF5 must read ($np rank(s))"
  same h.h5 across in.h5 /x "tessera chunks across HDF5 chunks ($np rank(s))" in.h5 /x
  same h.h5 cols direct.h5 /c "column blocks of contiguous float64 ($np rank(s))" direct.h5 /c
  same h.h5 be direct.h5 /be "big-endian float64 ($np rank(s))" direct.h5 /be
  same h.h5 ub ub.h5 /x "a file with a userblock ($np rank(s))" ub.h5 /x
done
unset TESSERA_HDF5_INDEPENDENT
# --no-fuse reads on its worker threads, the direct reads outside HDF5's lock
rm -f d.h5
capture out err tsr --no-fuse run direct.tsr
[ "$RC" -eq 0 ] || fail "direct loads with --no-fuse failed ($RC): $(cat err)"
same d.h5 whole in.h5 /x "--no-fuse direct: whole and edge chunks" in.h5 /x
same d.h5 half in.h5 /x "--no-fuse direct: half chunks" in.h5 /x
same d.h5 rows direct.h5 /c "--no-fuse direct: row blocks of contiguous float64" direct.h5 /c

# ---- slices are pushed into the hyperslab: x[::10] reads a tenth --------------------

# io_bytes MB: the io_MB column of rank 0's summary table (stderr).
io_mb() {
  awk '/io_MB/ { for (i = 1; i <= NF; i++) if ($i == "io_MB") c = i; next }
       c && $2 == "0" { print $c; exit }' "$1"
}
capture full.out full.err "$TESSERA" eval 'sum(load("in.h5", "x", chunks=(100, 100)))'
capture tenth.out tenth.err "$TESSERA" eval 'sum(load("in.h5", "x", chunks=(100, 100))[::10])'
full=$(io_mb full.err)
tenth=$(io_mb tenth.err)
if [ -z "$full" ] || [ -z "$tenth" ]; then
  soft_fail "no io_MB column in the summary table: $(cat full.err)"
else
  note "read $full MB for x, $tenth MB for x[::10]"
  expect_close "$tenth" "$(awk -v f="$full" 'BEGIN { printf "%.6g", f / 10 }')" 0.02 "MB read for x[::10]"
fi

# ---- bad input -------------------------------------------------------------------------

"$H5TOOL" write bad.h5 /str str 4
"$H5TOOL" write bad.h5 /cmp cmp 3 append
"$H5TOOL" write bad.h5 /bool enum 5 append
"$H5TOOL" write bad.h5 /colors enum3 5 append
"$H5TOOL" write bad.h5 /scalar f8 "" append
"$H5TOOL" write bad.h5 /five f8 2,2,2,2,2 append
"$H5TOOL" write bad.h5 /grp/x f8 3 append
printf 'not an HDF5 file\n' >text.h5
mkdir adir.h5

# bad_load WHAT EXPR PATTERN: the job `a = 1; y = sum(EXPR)` fails on 1 and 3
# ranks with one error line matching PATTERN, before any work.
bad_load() {
  printf 'a = sum(normal(shape=(100000, 100000), seed=1))\ny = sum(%s)\n' "$2" >bad.tsr
  for np in 1 3; do
    if [ "$np" = 1 ]; then capture out err tsr run bad.tsr; else capture out err mpi_tsr "$np" run bad.tsr; fi
    if [ "$RC" -eq 0 ]; then
      soft_fail "$1 on $np rank(s): exit status 0"
      continue
    fi
    if [ "$RC" -eq 124 ] || [ "$RC" -eq 137 ]; then
      soft_fail "$1 on $np rank(s): killed after $TIMEOUT s (heavy work before the error, or a hang)"
      TIMEOUT=20
      continue
    fi
    _n=$(grep -c '^tessera: error:' err || true)
    [ "$_n" = 1 ] || soft_fail "$1 on $np rank(s): $_n error lines: $(cat err)"
    grep '^tessera: error:' err | grep -Eq -- "^tessera: error: bad.tsr:2:[0-9]+: $3" ||
      soft_fail "$1 on $np rank(s): error does not match /$3/: $(grep '^tessera: error:' err)"
    [ ! -s out ] || soft_fail "$1 on $np rank(s): printed $(cat out)"
  done
}

bad_load "missing file" 'load("nofile.h5", "x")' "cannot open 'nofile.h5': No such file"
bad_load "missing dataset" 'load("in.h5", "nox")' "no dataset '/nox' in 'in.h5'"
bad_load "missing group" 'load("in.h5", "/q/x")' "no dataset '/q/x' in 'in.h5' \\(no group '/q'\\)"
bad_load "string dataset" 'load("bad.h5", "str")' "dataset '/str' in 'bad.h5' has a string type"
bad_load "compound dataset" 'load("bad.h5", "cmp")' "dataset '/cmp' in 'bad.h5' has a compound type"
capture out err tsr eval 'load("bad.h5", "bool").dtype'
expect_eq "$(cat out)" "'bool'" "h5py's bool (an enum FALSE = 0, TRUE = 1) loads as bool"
capture out err tsr eval 'sum(load("bad.h5", "bool", chunks=2)) + 0'
expect_eq "$RC" 0 "sum of a bool dataset: $(cat err)"
bad_load "an enum dataset" 'load("bad.h5", "colors")' "dataset '/colors' in 'bad.h5' has an enum type"
bad_load "scalar dataset" 'load("bad.h5", "scalar")' "dataset '/scalar' in 'bad.h5' has 0 dimensions"
bad_load "5-d dataset" 'load("bad.h5", "five")' "dataset '/five' in 'bad.h5' has 5 dimensions"
bad_load "a group" 'load("bad.h5", "grp")' "'/grp' in 'bad.h5' is a group, not a dataset"
bad_load "not HDF5" 'load("text.h5", "x")' "'text.h5' is not an HDF5 file"
bad_load "a directory" 'load("adir.h5", "x")' "'adir.h5' is a directory"
bad_load "chunks= with too few entries" 'load("in.h5", "x", chunks=(10,))' \
  "chunks has 1 entries but dataset '/x' in 'in.h5' has 2 dimensions"
bad_load "chunks= that do not add up" 'load("in.h5", "x", chunks=((500, 400), 100))' \
  "chunks \\(500, 400\\) sum to 900 but axis 0 has length 1000 \\(dataset '/x' in 'in.h5'"
bad_load "a bad dtype" 'load("in.h5", "x", dtype="complex64")' "unsupported dtype 'complex64'"
bad_load "an empty dataset name" 'load("in.h5", "")' "'' is not a dataset name"

finish
