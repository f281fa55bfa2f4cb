#!/bin/sh
# output_target.sh - what `-o FILE` and save() targets may be, checked before
# any work by rank 0 and agreed by every rank (src/job/target.c):
#   - an existing results file needs --overwrite, as save() does (1 and 2
#     ranks: every rank exits non-zero, the message is printed once, the file
#     keeps its bytes and no temporary is left);
#   - the job file itself is never a target, even with --overwrite;
#   - a file the job loads is never a target (compared by device and inode, so
#     a hard link counts), even with --overwrite (1 and 2 ranks);
#   - /dev/null (a node with its device number) discards: the job runs and the
#     node stays; a FIFO is refused and stays a FIFO, for -o and save();
#   - a directory is refused before any work (nothing printed); an empty -o
#     or --output= is a usage error (exit 2) before any work;
#   - a full file system (a 64 KiB tmpfs; mounting needs root) and a file-size
#     limit (ulimit -f) are named in the message and leave no temporary; a
#     stale NAME.tmp-PID of a dead process is removed (and said), a live
#     process's one is kept.
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"

TIMEOUT=60

sum_of() { md5sum "$1" | cut -d' ' -f1; }
no_temps() { # WHAT DIR: no *.tmp-* left in DIR
  _left=$(ls -A "$2" | grep '\.tmp-' || true)
  [ -z "$_left" ] || soft_fail "$1: left $_left"
}
# refused WHAT NP PATTERN FILE ARGS...: tessera ARGS on NP ranks must exit
# non-zero with PATTERN printed once on stderr, FILE keeping its bytes.
refused() {
  _what=$1 _np=$2 _pat=$3 _file=$4
  shift 4
  _sum=$(sum_of "$_file")
  if [ "$_np" = 1 ]; then capture out err tsr "$@"; else capture out err mpi_tsr "$_np" "$@"; fi
  [ "$RC" -ne 0 ] || soft_fail "$_what: exit status 0 (file replaced?)"
  [ "$RC" -ne 124 ] && [ "$RC" -ne 137 ] || soft_fail "$_what: timed out on $_np rank(s)"
  _n=$(grep -c -F -- "$_pat" err || true)
  [ "$_n" -eq 1 ] || soft_fail "$_what: '$_pat' printed $_n times on $_np rank(s): $(cat err)"
  [ "$(sum_of "$_file")" = "$_sum" ] || soft_fail "$_what: $_file changed on $_np rank(s)"
  [ ! -s out ] || soft_fail "$_what: computed before refusing: $(cat out)"
  no_temps "$_what" .
}

cat >job.tsr <<'EOF'
s = sum(arange(10))
EOF
cat >mk.tsr <<'EOF'
x = arange(100, chunks=30) * 1.5
EOF
cat >ld.tsr <<'EOF'
y = load("data.h5", "x")
m = sum(y)
EOF
cat >ldsave.tsr <<'EOF'
y = load("data.h5", "x")
save("alias.h5", "y2", y * 2)
EOF
tsr run mk.tsr -o exist.h5 >/dev/null || fail "cannot make exist.h5"
tsr run mk.tsr -o data.h5 >/dev/null || fail "cannot make data.h5"
ln data.h5 alias.h5

# ---- an existing results file -------------------------------------------------
for np in 1 2; do
  refused "run -o onto an existing file without --overwrite" "$np" \
    "results file 'exist.h5' exists: run with --overwrite to replace it" exist.h5 \
    run job.tsr -o exist.h5
done
capture out err tsr run job.tsr -o exist.h5 --overwrite
[ "$RC" -eq 0 ] || soft_fail "run -o exist.h5 --overwrite failed ($RC): $(cat err)"

# ---- the job file -----------------------------------------------------------------
cp job.tsr self.tsr
refused "run -o onto the job file itself" 1 "'./self.tsr' is the job file" self.tsr \
  run self.tsr -o ./self.tsr --overwrite
cat >selfsave.tsr <<'EOF'
save("selfsave.tsr", "x", arange(10))
EOF
refused "save() onto the job file itself" 1 "'selfsave.tsr' is the job file" selfsave.tsr \
  run selfsave.tsr --overwrite

# ---- a file the job loads ---------------------------------------------------------
for np in 1 2; do
  refused "run -o onto a load() source of the job" "$np" \
    "'data.h5' is loaded by this job" data.h5 run ld.tsr -o data.h5 --overwrite
done
refused "run -o onto a hard link of a load() source" 1 \
  "'alias.h5' is loaded by this job (load(\"data.h5\"" data.h5 run ld.tsr -o alias.h5 --overwrite
refused "save() onto a hard link of a load() source" 2 \
  "'alias.h5' is loaded by this job" data.h5 run ldsave.tsr --overwrite

# ---- /dev/null, FIFOs -------------------------------------------------------------
cat >savenull.tsr <<'EOF'
save("null", "x", arange(1000, chunks=300))
t = 1
EOF
if mknod null c 1 3 2>/dev/null; then # the device number of /dev/null
  capture out err tsr run job.tsr -o null
  { [ "$RC" -eq 0 ] && grep -q 's = 45' out; } ||
    soft_fail "run -o onto a /dev/null node: not discarded ($RC): $(cat err)"
  [ -c null ] || soft_fail "run -o onto a /dev/null node: renamed a file over the device"
  no_temps "run -o onto a /dev/null node" .
  capture out err tsr run savenull.tsr --overwrite
  [ "$RC" -eq 0 ] || soft_fail "save() onto a /dev/null node: not discarded ($RC): $(cat err)"
  [ -c null ] || soft_fail "save() onto a /dev/null node: renamed a file over the device"
  no_temps "save() onto a /dev/null node" .
  if [ -c null ]; then # the node stayed: /dev/null itself is safe to try
    capture out err tsr run job.tsr -o /dev/null --overwrite
    [ "$RC" -eq 0 ] && [ -c /dev/null ] || soft_fail "run -o /dev/null: $RC, $(ls -l /dev/null)"
  fi
else
  note "run -o onto a /dev/null node: skipped (mknod needs root)"
fi
mkfifo fifo
refused "run -o onto a FIFO renamed a file over it" 1 "'fifo': it is a FIFO" job.tsr \
  run job.tsr -o fifo --overwrite
[ -p fifo ] || soft_fail "run -o onto a FIFO renamed a file over it: no longer a FIFO"
sed 's/"null"/"fifo"/' savenull.tsr >savefifo.tsr
refused "save() onto a FIFO" 1 "cannot save to 'fifo': it is a FIFO" job.tsr \
  run savefifo.tsr --overwrite
[ -p fifo ] || soft_fail "save() onto a FIFO: no longer a FIFO"

# ---- a directory, an empty name: before any work ----------------------------------
mkdir outdir
refused "run -o onto a directory (before any work)" 1 "'outdir': it is a directory" job.tsr \
  run job.tsr -o outdir
for arg in "-o=" "--output="; do
  if [ "$arg" = "-o=" ]; then set -- -o ""; else set -- --output=; fi
  capture out err tsr run job.tsr "$@"
  { [ "$RC" -eq 2 ] && [ ! -s out ] && grep -q "needs a file name" err; } ||
    soft_fail "empty $arg is a usage error before any work: $RC, out '$(cat out)', $(cat err)"
done

# ---- full disk, file-size limit, stale temporaries --------------------------------
cat >big.tsr <<'EOF'
x = arange(200000) * 0.5
EOF
mkdir full
trap 'umount "$TMP/full" 2>/dev/null || true; cleanup' EXIT
if mount -t tmpfs -o size=64k tmpfs full 2>/dev/null; then
  capture out err tsr run big.tsr -o full/r.h5
  { [ "$RC" -eq 1 ] && grep -q "No space left on device" err; } ||
    soft_fail "a full file system is named in the message: $RC, $(cat err)"
  [ ! -e full/r.h5 ] || soft_fail "a full file system left full/r.h5"
  no_temps "a full file system" full
  sed 's#^x = #save("full/s.h5", "x", #; s#$#)#' big.tsr >savebig.tsr
  capture out err tsr run savebig.tsr
  { [ "$RC" -eq 1 ] && grep -q "No space left on device" err; } ||
    soft_fail "a full file system under save() is named in the message: $RC, $(cat err)"
  [ ! -e full/s.h5 ] || soft_fail "a full file system left full/s.h5"
  no_temps "a full file system under save()" full
  umount full
else
  note "a full file system: skipped (mounting a 64 KiB tmpfs needs root)"
fi
# limited WHAT ARGS...: tessera ARGS under a file-size limit of 8 blocks (far
# less than the 1.6 MB of big.tsr's results) must fail with "File too
# large", leaving neither limited.h5 nor a temporary.
limited() {
  _what=$1
  shift
  set +e
  (
    ulimit -f 8
    "$TESSERA" --quiet "$@" >out 2>err
  )
  RC=$?
  set -e
  { [ "$RC" -eq 1 ] && grep -q "File too large" err; } ||
    soft_fail "$_what fails cleanly: exit status $RC, $(cat err)"
  [ ! -e limited.h5 ] || soft_fail "$_what left limited.h5"
  no_temps "$_what" .
}
limited "a file-size limit (SIGXFSZ)" run big.tsr -o limited.h5
sed 's#^x = #save("limited.h5", "x", #; s#$#)#' big.tsr >savelimit.tsr
limited "a file-size limit (SIGXFSZ) under save()" run savelimit.tsr

dead=$(sh -c 'echo $$') # a process that has ended
touch "st.h5.tmp-$dead" "st.h5.tmp-$$"
capture out err tsr run job.tsr -o st.h5
[ "$RC" -eq 0 ] || soft_fail "stale temporary: the run failed ($RC): $(cat err)"
grep -q -F "tessera: removed stale temporary st.h5.tmp-$dead" err ||
  soft_fail "stale temporary st.h5.tmp-$dead of a dead process not removed (or not said): $(cat err)"
[ ! -e "st.h5.tmp-$dead" ] || soft_fail "stale temporary st.h5.tmp-$dead of a dead process kept"
[ -e "st.h5.tmp-$$" ] || soft_fail "the temporary of a live process (this shell) was removed"
rm -f "st.h5.tmp-$$"

finish
