#!/bin/sh
# hdf5_save.sh - save(file, dataset, array) in job files, on 1 to 4 ranks:
#   - save then load gives back bitwise the same values, and every rank count
#     writes the same values;
#   - the HDF5 chunks follow the tessera chunks, gzip levels are honoured,
#     several saves (and groups) go into one file, float32 stays float32;
#   - a file that exists is an error before any work unless --overwrite, and
#     then it is replaced only by a successful run; unwritable paths, saving
#     onto the results file and duplicate datasets are clear errors that
#     leave no file behind;
#   - `tessera inspect` lists what a run wrote: datasets with shape, dtype,
#     chunks, compression, and the provenance attributes.
# Files are read back with tests/h5tool and tests/h5read (the HDF5 C API).
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"

TIMEOUT=120
[ -x "$H5TOOL" ] || fail "h5tool is needed (make check builds it): $H5TOOL"

run_in() { # DIR NP ARGS...: tessera --quiet ARGS on NP ranks inside DIR
  _dir=$1 _np=$2
  shift 2
  (
    cd "$_dir"
    if [ "$_np" = 1 ]; then capture out err tsr "$@"; else capture out err mpi_tsr "$_np" "$@"; fi
    echo "$RC" >rc
  )
  RC=$(cat "$_dir/rc")
}
dump() { for d in $("$H5READ" "$1" --list); do echo "== $d"; "$H5TOOL" slab "$1" "$d"; done; }

cat >save.tsr <<'EOF'
x = normal(shape=(700, 513), chunks=(100, 128), seed=3)[::2, 1:]
save("a.h5", "x", x)
save("a.h5", "/g/h/y", uniform(-1, 1, shape=(50, 40, 30), chunks=(20, 40, 7), seed=4))
save("a.h5", "z", arange(1000, chunks=300, dtype="float32") / 7, compression="gzip")
save("a.h5", "w", x * 2, compression="gzip", level=9)
save("a.h5", "e", zeros((0, 5)))
save("a.h5", "c", x - mean(x))
mx = mean(x)
n = x.shape
EOF
cat >back.tsr <<'EOF'
save("b.h5", "x", load("a.h5", "x", chunks=(77, 200)))
save("b.h5", "y", load("a.h5", "g/h/y", chunks=(13, 1, 30)))
save("b.h5", "z", load("a.h5", "z"))
save("b.h5", "w", load("a.h5", "w", chunks=-1))
EOF

for np in 1 2 3 4; do
  mkdir "r$np"
  run_in "r$np" "$np" run ../save.tsr
  [ "$RC" -eq 0 ] || fail "save on $np rank(s) failed ($RC): $(cat "r$np/err")"
  mv "r$np/out" "r$np/save.out"
  run_in "r$np" "$np" run ../back.tsr
  [ "$RC" -eq 0 ] || fail "load + save on $np rank(s) failed ($RC): $(cat "r$np/err")"
  expect_eq "$(ls "r$np" | grep -c tmp || true)" 0 "temporary files left on $np rank(s)"
done

# ---- save then load: the same bits ----------------------------------------------

for np in 1 2 3 4; do
  for d in x y z w; do
    src=$d
    [ $d = y ] && src=g/h/y
    "$H5TOOL" slab "r$np/a.h5" "$src" >a.txt
    "$H5TOOL" slab "r$np/b.h5" "$d" >b.txt
    [ -s a.txt ] || soft_fail "$np rank(s): no values in $src"
    cmp -s a.txt b.txt || soft_fail "$np rank(s): '$d' saved, loaded and saved again differs"
  done
done
dump r1/a.h5 >a1.txt
for np in 2 3 4; do
  dump "r$np/a.h5" >an.txt
  cmp -s a1.txt an.txt || soft_fail "the values saved on $np ranks differ from 1 rank"
done
# --no-fuse materializes each chunk operation by operation: the same file.
mkdir nf
run_in nf 3 --no-fuse run ../save.tsr
[ "$RC" -eq 0 ] || fail "save with --no-fuse on 3 ranks failed ($RC): $(cat nf/err)"
dump nf/a.h5 >anf.txt
cmp -s a1.txt anf.txt || soft_fail "the values saved with --no-fuse differ from the fused ones"
# The values themselves: w = 2 x, z = arange / 7 rounded to float32.
"$H5TOOL" slab r1/a.h5 x 0,0 1,1 350,512 affine=2,0 >x2.txt
"$H5TOOL" slab r1/a.h5 w >w.txt
cmp -s x2.txt w.txt || soft_fail "w is not 2 * x"
# c = x - mean(x): the reduction is computed before the chunks are written.
mx=$(value_of mx r1/save.out)
case $mx in -*) negmx=${mx#-} ;; *) negmx=-$mx ;; esac
"$H5TOOL" slab r1/a.h5 x 0,0 1,1 350,512 affine=1,"$negmx" >xc.txt
"$H5TOOL" slab r1/a.h5 c >c.txt
cmp -s xc.txt c.txt || soft_fail "c is not x - mean(x) (mean printed as $mx)"
"$H5TOOL" slab r1/a.h5 z 0 1 3 | tr '\n' ' ' >z.txt
expect_eq "$(cat z.txt)" "0 0.1428571492433548 0.28571429848670959 " "z = arange / 7 as float32 (float32(1/7), float32(2/7))"

# ---- layout: HDF5 chunks follow the tessera chunks ----------------------------------

# x: normal chunks (100, 128) sliced [::2, 1:] -> chunks ((50,)*7, (127, 128, 128, 128, 1))
expect_eq "$("$H5TOOL" layout r1/a.h5 x)" "f8 chunks=50,128" "layout of x"
expect_eq "$("$H5TOOL" layout r1/a.h5 g/h/y)" "f8 chunks=20,40,7" "layout of /g/h/y"
expect_eq "$("$H5TOOL" layout r1/a.h5 z)" "f4 chunks=300 gzip=4" "layout of z (float32, gzip default level)"
expect_eq "$("$H5TOOL" layout r1/a.h5 w)" "f8 chunks=50,128 gzip=9" "layout of w (gzip level 9)"
expect_eq "$("$H5TOOL" layout r1/a.h5 e)" "f8 contiguous" "layout of an empty array"
expect_eq "$("$H5TOOL" layout r1/b.h5 x)" "f8 chunks=77,200" "layout of the reloaded x"
expect_eq "$("$H5READ" r1/a.h5 e | head -1)" "shape: (0, 5)" "shape of the empty array"
expect_eq "$("$H5READ" r1/a.h5 --list | sort | tr '\n' ' ')" "c e g/h/y w x z " "datasets of a.h5"

# ---- tessera inspect -----------------------------------------------------------------

capture ins.out ins.err tsr inspect r2/a.h5
[ "$RC" -eq 0 ] || fail "inspect failed ($RC): $(cat ins.err)"
grep -q '^  /x  shape (350, 512)  float64  chunks (50, 128)  no compression$' ins.out ||
  soft_fail "inspect: no line for /x: $(cat ins.out)"
grep -q '^  /w  shape (350, 512)  float64  chunks (50, 128)  gzip level 9$' ins.out ||
  soft_fail "inspect: no line for /w"
grep -q '^  /z  shape (1000,)  float32  chunks (300,)  gzip level 4$' ins.out ||
  soft_fail "inspect: no line for /z"
grep -q '^  /g/h/y  shape (50, 40, 30)  float64  chunks (20, 40, 7)  no compression$' ins.out ||
  soft_fail "inspect: no line for /g/h/y"
grep -q '^  /e  shape (0, 5)  float64  contiguous  no compression$' ins.out ||
  soft_fail "inspect: no line for /e"
grep -q '^  ranks = 2$' ins.out || soft_fail "inspect: no 'ranks = 2' attribute"
grep -q '^  tessera_version = ' ins.out || soft_fail "inspect: no tessera_version attribute"
grep -q '^      | save("a.h5", "w", x \* 2, compression="gzip", level=9)$' ins.out ||
  soft_fail "inspect: the job text is not shown: $(cat ins.out)"
expect_eq "$("$H5READ" r2/a.h5 --attr job)" "$(cat save.tsr)" "the job attribute of a saved file"
capture ins2.out ins2.err mpi_tsr 2 inspect r2/a.h5
[ "$RC" -eq 0 ] || soft_fail "inspect on 2 ranks failed: $(cat ins2.err)"
cmp -s ins.out ins2.out || soft_fail "inspect on 2 ranks prints something else than on 1"
capture o e tsr inspect --help
[ "$RC" -eq 0 ] && grep -q 'usage: tessera inspect FILE' o || soft_fail "inspect --help: $(cat o e)"
for bad in nofile.h5 save.tsr; do
  capture o e mpi_tsr 2 inspect "$bad"
  [ "$RC" -ne 0 ] || soft_fail "inspect $bad exited 0"
  expect_eq "$(grep -c "^tessera: error: .*'$bad'" e)" 1 "error lines of inspect $bad"
done

# ---- existing files, --overwrite, unwritable paths ---------------------------------------

mkdir ow
printf 'x = arange(10, chunks=3)\nsave("old.h5", "x", x * 2)\n' >ow/j.tsr
printf 'keep me\n' >ow/old.h5
# The check comes before any work: a heavy first line would time out.
printf 'a = sum(normal(shape=(100000, 100000), seed=1))\nsave("old.h5", "x", arange(3))\n' >ow/heavy.tsr
for np in 1 3; do
  run_in ow "$np" run heavy.tsr
  [ "$RC" -ne 0 ] && [ "$RC" -ne 124 ] && [ "$RC" -ne 137 ] || soft_fail "save onto an existing file on $np rank(s): status $RC"
  expect_eq "$(grep -c "^tessera: error: heavy.tsr:2:1: 'old.h5' exists: run with --overwrite" ow/err)" 1 \
    "error lines for an existing file on $np rank(s)"
  expect_eq "$(cat ow/old.h5)" "keep me" "the existing file after a refused save"
done
run_in ow 2 --overwrite run j.tsr
[ "$RC" -eq 0 ] || soft_fail "--overwrite failed: $(cat ow/err)"
expect_eq "$("$H5TOOL" slab ow/old.h5 x | tr '\n' ' ')" "0 2 4 6 8 10 12 14 16 18 " "the replaced file"
expect_eq "$(ls ow | tr '\n' ' ')" "err heavy.tsr j.tsr old.h5 out rc " "files after --overwrite"

mkdir bad
printf 'x\n' >bad/afile
# bad_save WHAT SAVE_LINE PATTERN [OPTIONS]: a job fails with one error line.
bad_save() {
  printf 'x = arange(10, chunks=3)\n%s\n' "$2" >bad/j.tsr
  run_in bad 2 ${4:-} run j.tsr
  [ "$RC" -ne 0 ] || soft_fail "$1: exit status 0"
  _n=$(grep -c '^tessera: error:' bad/err || true)
  [ "$_n" = 1 ] || soft_fail "$1: $_n error lines: $(cat bad/err)"
  grep '^tessera: error:' bad/err | grep -Eq -- "$3" || soft_fail "$1: error does not match /$3/: $(cat bad/err)"
  expect_eq "$(ls bad | tr '\n' ' ')" "afile err j.tsr out rc " "files left by: $1"
}
bad_save "a missing directory" 'save("nodir/x.h5", "x", x)' "j.tsr:2:1: cannot save to 'nodir/x.h5': No such file or directory"
bad_save "a path under a file" 'save("afile/x.h5", "x", x)' "j.tsr:2:1: cannot save to 'afile/x.h5': Not a directory"
bad_save "the results file" 'save("r.h5", "x", x)' "'r.h5' is also the results file" "-o r.h5"
bad_save "a dataset saved twice" 'save("d.h5", "x", x); save("d.h5", "/x", x + 1)' "j.tsr:2:[0-9]+: dataset '/x' of 'd.h5' is already saved"
bad_save "a dataset inside another" 'save("d.h5", "g", x); save("d.h5", "g/y", x)' "datasets '/g/y' and '/g' of 'd.h5' \\(line 2\\): one would be a group"
bad_save "a number" 'save("d.h5", "x", 3)' "save writes arrays, got int"
bad_save "a 0-d array" 'save("d.h5", "x", sum(x, keepdims=False))' "save writes arrays of 1 to"
bad_save "another compression" 'save("d.h5", "x", x, compression="lzf")' 'compression must be "gzip" or None'
bad_save "a gzip level out of range" 'save("d.h5", "x", x, compression="gzip", level=10)' "gzip level must be 0 to 9"
bad_save "a bad dataset name" 'save("d.h5", "a//b", x)' "'a//b' is not a dataset name"
capture o e tsr eval 'save("e.h5", "x", arange(3))'
[ "$RC" -ne 0 ] && grep -q "save() writes files only in job files" e || soft_fail "save in eval: $(cat e)"
[ ! -e e.h5 ] || soft_fail "save in eval wrote e.h5"

finish
