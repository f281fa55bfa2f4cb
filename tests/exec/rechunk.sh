#!/bin/sh
# rechunk.sh - rechunk(x, chunks) and elementwise operations between arrays
# on different chunk grids (the common refinement of both grids, Dask's
# unify_chunks). Pieces of a rechunked array are computed by the owners of
# the source chunks and moved to the owners of the new chunks, so on 2-4
# ranks data really travels between ranks. Checked:
#   - elementwise results are bitwise the unrechunked computation (random,
#     loaded and nested rechunks, slices of rechunked arrays, broadcasting,
#     a rechunk of pieces of a rechunked or of a persisted array: its source
#     program compiles the inner source while it runs, once a use after free);
#   - reductions over rechunked data are within 1e-12 of the unrechunked
#     ones (only the chunk order of the partials differs) and bitwise the
#     same on 1, 2, 3 and 4 ranks, fused or not, through the backend's
#     exchange or through host copies (TESSERA_HOST_EXCHANGE);
#   - the chunks of a rechunked array and of a unified result; "auto"
#     chunks that follow the previous chunks (Dask's rule: whole planes of
#     an image stack, a small chunked dataset in one chunk);
#   - a rechunk that turns row blocks into column blocks of a 512 MB array
#     keeps every rank's memory far below the array's size.
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"

TIMEOUT=180
[ -x "$H5TOOL" ] || fail "h5tool is needed (make check builds it): $H5TOOL"
"$H5TOOL" write in.h5 /x f8 400,250 chunks=70,33 seed=9

cat >job.tsr <<'EOF'
x = normal(shape=(300, 200), chunks=(64, 50), seed=7)
y = uniform(shape=(300, 200), chunks=(100, 200), seed=8)
a = rechunk(x, (100, 30)) * 3 - y
a_ref = x * 3 - y
b = x.rechunk((7, 200))[::3, ::-2] + 1
b_ref = x[::3, ::-2] + 1
c = rechunk(rechunk(x, 10) + 1, (300, 7)) * y[:1, :]
c_ref = (x + 1) * y[:1, :]
d = rechunk(x - mean(x), (77, 13)) * 2
d_ref = (x - mean(x)) * 2
l = rechunk(load("in.h5", "x"), (128, 250))[::-1, 3:] / 2
l_ref = load("in.h5", "x")[::-1, 3:] / 2
n = rechunk(x[:, :60] + rechunk(y, 40)[:, :60], (300, 7))
n_ref = x[:, :60] + y[:, :60]
h = rechunk(persist(x)[:, -1], 7) - 1
h_ref = x[:, -1] - 1
s = sum(rechunk(x, (100, 30)))
s_ref = sum(x)
m = mean(rechunk(x, (33, 200)), axis=1)
m_ref = mean(x, axis=1)
v = var(rechunk(load("in.h5", "x", chunks=(100, 100)), (37, 250))[::2])
v_ref = var(load("in.h5", "x", chunks=(100, 100))[::2])
ch = rechunk(x, (100, 30)).chunks
un = (ones(10, chunks=4) + rechunk(ones(10, chunks=2), 5)).chunks
au = rechunk(ones((64, 1000, 1000), chunks=(1, 1000, 1000)), "auto").chunks
la = load("in.h5", "x").chunks
EOF

dump() { for d in $("$H5READ" "$1" --list | sort); do echo "== $d"; "$H5READ" "$1" "$d"; done; }

# run NAME NP [OPTIONS...]: the job on NP ranks, results in NAME.h5 / NAME.txt.
run() {
  _name=$1 _np=$2
  shift 2
  if [ "$_np" = 1 ]; then
    capture "$_name.out" "$_name.err" tsr "$@" run job.tsr -o "$_name.h5"
  else
    capture "$_name.out" "$_name.err" mpi_tsr "$_np" "$@" run job.tsr -o "$_name.h5"
  fi
  [ "$RC" -eq 0 ] || fail "$_name failed ($RC): $(cat "$_name.err")"
  dump "$_name.h5" >"$_name.txt"
}

run r1 1
vals() { "$H5READ" r1.h5 "$1" | sed '1,2d'; }
for n in a b c d l n h; do
  vals $n >got.txt
  vals ${n}_ref >ref.txt
  [ -s got.txt ] || soft_fail "no values for $n"
  cmp -s got.txt ref.txt || soft_fail "$n differs from ${n}_ref: $(diff got.txt ref.txt | head -3)"
done
for n in s v; do
  expect_close "$(vals $n)" "$(vals ${n}_ref)" 1e-12 "$n against ${n}_ref"
done
vals m >got.txt
vals m_ref >ref.txt
paste got.txt ref.txt | while read -r g r; do is_close "$g" "$r" 1e-12 || echo "$g $r"; done >bad.txt
[ ! -s bad.txt ] || soft_fail "mean(rechunk(x), axis=1) differs from mean(x, axis=1): $(head -2 bad.txt)"
expect_eq "$(value_of ch r1.out)" "((100, 100, 100), (30, 30, 30, 30, 30, 30, 20))" "chunks of rechunk(x, (100, 30))"
expect_eq "$(value_of un r1.out)" "((4, 1, 3, 2),)" "chunks of a unified result"
expect_eq "$(value_of au r1.out)" "((16, 16, 16, 16), (1000,), (1000,))" \
  "chunks of rechunk(x, \"auto\") of a stack of planes (whole planes, as Dask)"
expect_eq "$(value_of la r1.out)" "((400,), (250,))" "auto chunks of a small chunked dataset"
# The loaded slice against the file itself.
"$H5TOOL" slab in.h5 /x 399,3 -1,1 400,247 affine=0.5,0 >lref.txt
vals l >lgot.txt
cmp -s lgot.txt lref.txt || soft_fail "rechunk(load(...))[::-1, 3:] / 2 differs from the file's values"

# ---- the same bits on 2, 3, 4 ranks, without fusion, through host copies ---------------

for np in 2 3 4; do
  run "r$np" "$np"
  cmp -s r1.txt "r$np.txt" || soft_fail "results on $np ranks differ from 1 rank: $(diff r1.txt "r$np.txt" | head -3)"
done
run nf3 3 --no-fuse
cmp -s r1.txt nf3.txt || soft_fail "--no-fuse on 3 ranks differs from fused: $(diff r1.txt nf3.txt | head -3)"
TESSERA_HOST_EXCHANGE=1
export TESSERA_HOST_EXCHANGE
run hx3 3
unset TESSERA_HOST_EXCHANGE
cmp -s r1.txt hx3.txt || soft_fail "host-copy exchange on 3 ranks differs: $(diff r1.txt hx3.txt | head -3)"

# ---- bounded memory --------------------------------------------------------------------

# 8000 x 8000 float64 (512 MB) from row blocks to column blocks: every new
# chunk takes a piece from every old one. Peak RSS per rank, beyond what the
# same launch holds for a 2 MB rechunk, must stay far below 512 MB (it holds a
# wave of chunks of 16 MB and their pieces).
BIG='sum(rechunk(normal(shape=(8000, 8000), chunks=(250, 8000), seed=5), (8000, 250)))'
REF='sum(normal(shape=(8000, 8000), chunks=(8000, 250), seed=5))'
capture big.out big.err env OMP_NUM_THREADS=1 /usr/bin/time -f 'rss_kb %M' "$MPIEXEC" $(mpi_flags 2) \
  "$TESSERA" --quiet eval "$BIG"
[ "$RC" -eq 0 ] || fail "the 512 MB rechunk failed ($RC): $(cat big.err)"
capture ref.out ref.err mpi_tsr 2 eval "$REF"
expect_eq "$(cat big.out)" "$(cat ref.out)" "sum over the rechunked 512 MB array (same chunks as the reference)"
rss=$(sed -n 's/^rss_kb //p' big.err)
# The same launch on a 2 MB rechunk: what the runtime itself holds (on the
# GPU backend the CUDA context and, on 2 GPUs, NCCL's host buffers: ~0.5 GB).
capture small.out small.err env OMP_NUM_THREADS=1 /usr/bin/time -f 'rss_kb %M' "$MPIEXEC" $(mpi_flags 2) \
  "$TESSERA" --quiet eval 'sum(rechunk(normal(shape=(8000, 32), chunks=(250, 32), seed=5), (8000, 1)))'
base=$(sed -n 's/^rss_kb //p' small.err)
note "the 512 MB rechunk on 2 ranks: peak RSS of the largest process $((rss / 1024)) MB, $((base / 1024)) MB for a 2 MB one"
# AddressSanitizer keeps freed memory in quarantine: no bound can be checked there.
if [ -n "${ASAN_OPTIONS:-}" ] || grep -q 'fsanitize=address' "$(dirname "$TESSERA")/config.log" 2>/dev/null; then
  note "a sanitizer build: the memory bound is not checked"
elif [ -z "$base" ] || [ "$RC" -ne 0 ]; then
  soft_fail "the 2 MB rechunk failed ($RC): $(cat small.err)"
else
  [ $((rss - base)) -lt 200000 ] ||
    soft_fail "peak RSS $((rss / 1024)) MB for a rechunk of a 512 MB array ($((base / 1024)) MB for a 2 MB one)"
fi

finish
