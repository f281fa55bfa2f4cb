#!/usr/bin/env bash
# bench/io_bench.sh [GB] - read and write bandwidth of a large HDF5 dataset on
# this machine's disk: tessera (one process, `save` and `load`) against h5py
# + NumPy (bench/io_peer.py, one process), on the same file, in one run.
#
#   write: a ROWS x COLS float64 dataset /x of the value 1.5, HDF5 chunks of
#          CROWS x COLS (128 MiB), written chunk by chunk and synced to disk:
#          tessera `save("ts.h5", "x", full((ROWS, COLS), 1.5, chunks=(CROWS, COLS)))`
#          (temporary file, fsync, rename included), h5py `d[i:i+CROWS] = np.full(...)`
#          then fsync.
#   read:  the file h5py wrote, summed: tessera `sum(load("py.h5", "x"))`, h5py
#          one chunk of rows at a time into NumPy, `.sum()`. The file's pages are
#          dropped from the page cache before every read (posix_fadvise
#          DONTNEED), so reads come from the disk; both sums must be 1.5 * size.
#
# GB (default 4) sets the size (COLS = 16384, ROWS a multiple of 1024); the
# files go to $WORKDIR (default: a new directory under /tmp), which needs
# 2 x GB free, and are removed at the end. Each measurement runs RUNS times
# (default 2), tessera first in even runs and the peer first in odd ones (on
# a VM the second writer or reader of a run can find the disk busier or its
# host's cache warmer); the table shows the best. tessera's times are the wall clock of
# the whole command (process and MPI start included); the peer's are inside
# the Python process (interpreter start and imports excluded).
#
# Environment: TESSERA, RUNS, WORKDIR, RECORD=1 (append to bench/RESULTS.md),
# NOTE (free text for the record). Exit: 0 ok, 3 a tool is missing or too
# little disk, 4 a run failed or a sum is wrong.
set -euo pipefail
# shellcheck source=bench/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

GB=${1:-4}
RUNS=${RUNS:-2}
case "$GB$RUNS" in *[!0-9]*) die "usage: $0 [GB]   (a positive integer; RUNS too)" ;; esac
require python3
require awk
python3 -c 'import h5py, numpy' 2>/dev/null || die "python3 cannot import h5py and numpy (pip install h5py numpy)"
find_tessera
mpi_root_env

COLS=16384
CROWS=1024
ROWS=$((GB * 1024 * 1024 * 1024 / 8 / COLS / CROWS * CROWS))
[ "$ROWS" -ge "$CROWS" ] || die "GB=$GB is too small"
BYTES=$((ROWS * COLS * 8))
SIZE_GB=$(awk -v b="$BYTES" 'BEGIN {printf "%.3f", b / 1e9}')
WORK=${WORKDIR:-$(mktemp -d "${TMPDIR:-/tmp}/io_bench.XXXXXX")}
mkdir -p "$WORK"
trap 'rm -f "$WORK"/py.h5 "$WORK"/ts.h5 "$WORK"/w.tsr "$WORK"/tw "$WORK"/pw "$WORK"/tr "$WORK"/pr; rmdir "$WORK" 2>/dev/null || true' EXIT
FREE_KB=$(df -Pk "$WORK" | awk 'NR == 2 {print $4}')
[ "$FREE_KB" -gt $((BYTES / 1024 * 2 + 1048576)) ] ||
  die "$WORK has $((FREE_KB / 1048576)) GiB free; $((BYTES * 2 / 1073741824 + 1)) GiB are needed"
PEER="python3 $BENCH_DIR/io_peer.py"
EXPECT=$(awk -v n="$((ROWS * COLS))" 'BEGIN {printf "%.17g", n * 1.5}')

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.4f\n", b - a}'; }
best() { sort -g | head -1; }
check_sum() { # WHO VALUE
  awk -v v="$2" -v e="$EXPECT" 'BEGIN {exit !(v + 0 == e + 0)}' || {
    echo "io_bench.sh: $1 summed $2, expected $EXPECT" >&2
    exit 4
  }
}

echo "# io_bench: $ROWS x $COLS float64 = $SIZE_GB GB, HDF5 chunks $CROWS x $COLS, in $WORK" >&2
echo "# tessera: $TESSERA ($("$TESSERA" --version)); $("$TESSERA" info | grep '^hdf5')" >&2
LOAD0=$(cut -d' ' -f1-3 /proc/loadavg)

cat >"$WORK/w.tsr" <<EOF
save("ts.h5", "x", full(($ROWS, $COLS), 1.5, chunks=($CROWS, $COLS)))
EOF
: >"$WORK/tw" && : >"$WORK/pw" && : >"$WORK/tr" && : >"$WORK/pr"
peer_write() {
  sync
  $PEER write "$WORK/py.h5" "$ROWS" "$COLS" "$CROWS" | awk '{print $2}' >>"$WORK/pw"
}
tessera_write() {
  sync
  local t0
  t0=$(now)
  (cd "$WORK" && "$TESSERA" --quiet --backend=cpu run w.tsr) || { echo "io_bench.sh: tessera save failed" >&2; exit 4; }
  elapsed "$t0" "$(now)" >>"$WORK/tw"
}
peer_read() {
  local t s
  $PEER evict "$WORK/py.h5" "$WORK/ts.h5"
  read -r _ t _ s < <($PEER read "$WORK/py.h5")
  echo "$t" >>"$WORK/pr"
  check_sum h5py "$s"
}
tessera_read() {
  local t0 s
  $PEER evict "$WORK/py.h5" "$WORK/ts.h5"
  t0=$(now)
  s=$("$TESSERA" --quiet --backend=cpu eval "sum(load(\"$WORK/py.h5\", \"x\"))") || { echo "io_bench.sh: tessera load failed" >&2; exit 4; }
  elapsed "$t0" "$(now)" >>"$WORK/tr"
  check_sum tessera "$s"
}
for ((i = 1; i <= RUNS; i++)); do
  rm -f "$WORK/py.h5" "$WORK/ts.h5"
  if ((i % 2)); then peer_write; tessera_write; else tessera_write; peer_write; fi
  echo "write run $i: h5py $(tail -1 "$WORK/pw") s, tessera $(tail -1 "$WORK/tw") s ($( ((i % 2)) && echo h5py || echo tessera) first)" >&2
  if ((i % 2)); then peer_read; tessera_read; else tessera_read; peer_read; fi
  echo "read run $i: h5py $(tail -1 "$WORK/pr") s, tessera $(tail -1 "$WORK/tr") s ($( ((i % 2)) && echo h5py || echo tessera) first)" >&2
done
TW=$(best <"$WORK/tw") PW=$(best <"$WORK/pw") TR=$(best <"$WORK/tr") PR=$(best <"$WORK/pr")
# The peer reads the file tessera wrote too (same values, the same layout).
$PEER evict "$WORK/ts.h5"
read -r _ _ _ s < <($PEER read "$WORK/ts.h5")
check_sum "h5py reading tessera's file" "$s"
LOAD1=$(cut -d' ' -f1-3 /proc/loadavg)

gbs() { awk -v b="$BYTES" -v t="$1" 'BEGIN {printf "%.3f", b / 1e9 / t}'; }
TABLE=$(
  echo "| operation | tessera s | tessera GB/s | h5py s | h5py GB/s | h5py s / tessera s |"
  echo "|---|---|---|---|---|---|"
  echo "| write $SIZE_GB GB (+ fsync) | $TW | $(gbs "$TW") | $PW | $(gbs "$PW") | $(ratio "$PW" "$TW") |"
  echo "| read $SIZE_GB GB from disk + sum | $TR | $(gbs "$TR") | $PR | $(gbs "$PR") | $(ratio "$PR" "$TR") |"
)
echo
echo "I/O, $ROWS x $COLS float64 ($SIZE_GB GB), one process each, best of $RUNS"
echo "$TABLE"
echo "ratio > 1: tessera is faster. tessera's time includes process and MPI start-up."

if [ "${RECORD:-0}" = 1 ]; then
  RESULTS="$BENCH_DIR/RESULTS.md"
  [ -f "$RESULTS" ] || die "$RESULTS is missing"
  {
    record_head "HDF5 I/O, $SIZE_GB GB — bench/io_bench.sh" \
      "disk: $(df -Ph "$WORK" | awk 'NR == 2 {print $1 ", " $2 " (" $4 " free)"}'); load average before/after: $LOAD0 / $LOAD1" \
      "$("$TESSERA" info | grep '^hdf5')"
    echo "- command: \`bench/io_bench.sh $GB\` (RUNS=$RUNS, WORKDIR=$WORK); peer: h5py $(python3 -c 'import h5py; print(h5py.__version__)') numpy $(python3 -c 'import numpy; print(numpy.__version__)') (bench/io_peer.py), one process each"
    echo "- figures (best of $RUNS; reads after dropping the file from the page cache):"
    echo
    echo "$TABLE"
    if [ -n "${NOTE:-}" ]; then echo; echo "- note: $NOTE"; fi
  } >>"$RESULTS"
  echo "appended to $RESULTS" >&2
fi
