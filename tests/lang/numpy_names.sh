#!/bin/sh
# numpy_names.sh - the names a NumPy or Dask user pastes (lang/modules.h):
# np./numpy./da./dask.array. prefixes (random generators under .random.),
# the import lines of a script header, list literals where tuples go, and
# x.compute(). Checked here:
# - a job written that way gives the same bits, value for value, as the same
#   job written without them (its results file dumped with h5read), on 1
#   rank and on 2;
# - `tessera eval` takes the prefixes, and a job's own variable named like
#   a prefix (da = ...) stays a variable;
# - the mistakes (an unknown np. function, a random generator without
#   .random., an import other than numpy/dask.array, lists on two axes)
#   are one error line each with line, column and caret, exit status 1;
# - `tessera info` lists the prefixes, the imports and compute.
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"

TIMEOUT=120

cat >plain.tsr <<'JOB'
x = normal(10, 1, shape=(400, 300), chunks=(100, 70), seed=3)
total = sum(x)
colmean = mean(x, axis=0)
rowmax = max(x, axis=1)
u = uniform(-1, 1, shape=(1000,), chunks=(128,), seed=5)
r = random((20, 3), chunks=(7, 2), seed=2)
z = sum(zeros((5, 6), chunks=(2, 3)) + ones((5, 6)))
f = full((4, 4), 2.5, chunks=(2, 2))
a = arange(0, 50, 3, chunks=(5,))
sq = sqrt(abs(u))
sd = std(x, ddof=1)
p = persist(x * 2)
ps = sum(p, axis=1)
c = pi * 2
g = x.astype(float32)[:5, :5]
re = sum(rechunk(x, ((100, 300), 300)) * 2)
mm = x[:3].T @ x[:3]
one = x[(1, 2)[0], 7]
JOB

cat >numpy.tsr <<'JOB'
import numpy as np
import dask.array as da
import numpy
import dask.array

x = da.random.normal(10, 1, size=[400, 300], chunks=[100, 70], seed=3)
total = np.sum(x).compute()
colmean = numpy.mean(x, axis=0)
rowmax = dask.array.max(x, axis=1).compute()
u = numpy.random.uniform(-1, 1, shape=[1000], chunks=[128,], seed=5)
r = dask.array.random.random([20, 3], chunks=[7, 2], seed=2)
z = da.sum(np.zeros([5, 6], chunks=[2, 3]) + da.ones([5, 6]))
f = np.full([4, 4], 2.5, chunks=[2, 2]).compute()
a = da.arange(0, 50, 3, chunks=[5])
sq = np.sqrt(np.abs(u))
sd = x.std(ddof=1).compute()
p = (x * 2).persist()
ps = da.sum(p, axis=1)
c = np.pi * 2
g = x.astype(np.float32)[:5, :5].compute()
re = (da.rechunk(x, [[100, 300], 300]) * 2).sum().compute()
mm = np.matmul(x[:3].T, x[:3])
one = x[[1, 2][0], 7]
JOB

dump() { for d in $("$H5READ" "$1" --list | sort); do echo "== $d"; "$H5READ" "$1" "$d"; done; }

tsr run plain.tsr -o plain.h5 >/dev/null 2>plain.err || fail "the plain job failed: $(cat plain.err)"
dump plain.h5 >plain.txt
[ "$(grep -c '^== ' plain.txt)" -ge 17 ] || fail "the plain job wrote too few values: $(grep '^== ' plain.txt)"
for np in 1 2; do
  rm -f numpy.h5
  if ! mpi_tsr "$np" run numpy.tsr -o numpy.h5 >numpy.out 2>numpy.err; then
    soft_fail "the numpy-style job on $np rank(s) failed: $(head -3 numpy.err)"
    continue
  fi
  dump numpy.h5 >numpy.txt
  cmp -s plain.txt numpy.txt ||
    soft_fail "numpy-style job on $np rank(s) differs from the plain one: $(diff plain.txt numpy.txt | head -8)"
done

# eval, and variables named like a prefix
v=$(tsr eval 'np.sum(da.random.normal(0, 1, shape=[100], chunks=[30], seed=1) * numpy.arange(100))' 2>&1) ||
  soft_fail "eval with prefixes failed: $v"
w=$(tsr eval 'sum(normal(0, 1, shape=(100,), chunks=(30,), seed=1) * arange(100))' 2>&1)
[ "$v" = "$w" ] || soft_fail "eval with prefixes: '$v', without: '$w'"
printf 'da = ones([4, 2])\ns = da.sum()\nnp = 3\nt = np.compute()\n' >shadow.tsr
out=$(tsr run shadow.tsr 2>&1) || soft_fail "variables named da/np: $out"
printf '%s\n' "$out" | grep -qx 's = 8' || soft_fail "da.sum() of the variable da: $out"
printf '%s\n' "$out" | grep -qx 't = 3' || soft_fail "np.compute() of the variable np: $out"

# bad_job WHAT LINE COL MESSAGE TEXT: the job TEXT fails with exit status 1
# and one error line NAME:LINE:COL: starting with the text MESSAGE, then the source line
# and a caret under COL.
bad_job() {
  printf '%b\n' "$5" >bad.tsr
  set +e
  tsr run bad.tsr >out 2>err
  rc=$?
  set -e
  [ "$rc" -eq 1 ] || soft_fail "$1: exit status $rc, expected 1: $(cat err)"
  [ ! -s out ] || soft_fail "$1: wrote to stdout: $(cat out)"
  n=$(grep -c '^tessera: error:' err || true)
  [ "$n" = 1 ] || soft_fail "$1: $n error lines: $(cat err)"
  grep -qF "tessera: error: bad.tsr:$2:$3: $4" err ||
    soft_fail "$1: expected 'bad.tsr:$2:$3: $4', got: $(head -1 err)"
  caret=$(sed -n 3p err)
  [ "$caret" = "$(printf '%*s^' $(($3 + 3)) '')" ] || soft_fail "$1: caret misplaced: $(cat err)"
}
bad_job "unknown np. function" 1 5 "unknown function 'np.foo'" 'x = np.foo(ones(3))'
bad_job "misspelt da. function" 2 9 "unknown function 'da.summ'; did you mean 'da.sum'?" \
  'import dask.array as da\ny = 1 + da.summ(da.ones(3))'
bad_job "generator outside .random." 1 5 "unknown function 'np.normal'; did you mean 'np.random.normal'?" \
  'x = np.normal(0, 1, shape=[3])'
bad_job "reduction under .random." 1 5 "unknown function 'da.random.sum'; did you mean 'da.sum'?" \
  'x = da.random.sum(ones(3))'
bad_job "unknown np. name" 1 9 "unknown name 'np.foo'" 'x = 1 + np.foo'
bad_job "import os" 2 8 "'import os' is not supported: a job accepts only import numpy as np, import numpy, import dask.array as da, import dask.array" \
  'import numpy as np\nimport os'
bad_job "import under another name" 1 8 "'import numpy as npy' is not supported" 'import numpy as npy'
bad_job "from import" 1 1 "'from' is not supported" 'from numpy import sum'
bad_job "a list index on two axes" 1 26 "a list index on more than one axis (NumPy's fancy indexing) is not supported" \
  'x = ones((3, 3))[[1, 2], [0, 1]]'

# NumPy's legacy rand/randn: the shape as separate dimensions, the same bits as
# random(shape) and normal(0, 1, shape) on the same stream
expect_eq "$(tsr eval 'np.random.rand(3, 4).shape')" "(3, 4)" "np.random.rand(3, 4).shape"
expect_eq "$(tsr eval 'all(np.random.rand(50, 7, seed=3, chunks=(9, 4)) == random((50, 7), seed=3))')" \
  "True" "rand(d0, d1) against random((d0, d1))"
expect_eq "$(tsr eval 'all(np.random.randn(1000, seed=5) == normal(0, 1, 1000, seed=5))')" \
  "True" "randn(d0) against normal(0, 1, d0)"
expect_eq "$(tsr eval 'np.random.randn().ndim')" "0" "randn() is 0-d"
bad_job "a negative rand dimension" 1 23 "negative dimensions are not allowed" 'x = np.random.rand(2, -1)'

info=$("$TESSERA" info)
printf '%s\n' "$info" | grep -qF 'prefixes: np.NAME, numpy.NAME, da.NAME, dask.array.NAME, np.linalg.NAME, numpy.linalg.NAME, da.linalg.NAME, dask.array.linalg.NAME, linalg.NAME, np.fft.NAME, numpy.fft.NAME, da.fft.NAME, dask.array.fft.NAME, fft.NAME (every operation above but the random generators); np.random.NAME, numpy.random.NAME, da.random.NAME, dask.array.random.NAME (the random generators)' ||
  soft_fail "tessera info lists no prefixes: $(printf '%s\n' "$info" | tail -3)"
printf '%s\n' "$info" | grep -q '^imports: accepted and ignored: import numpy as np, import numpy, import dask.array as da, import dask.array$' ||
  soft_fail "tessera info lists no imports"
printf '%s\n' "$info" | grep -q '^  compute ' || soft_fail "tessera info lists no compute"

finish
