#!/bin/sh
# h5py_numpy.sh - the whole round against NumPy: a job loads datasets that
# h5py wrote with its own chunking and compression, slices them with steps,
# reduces them, rechunks them and saves transformed copies; on 1 to 4 ranks
# every printed reduction matches NumPy within 1e-12 (max/min exactly) and
# every saved value is bitwise NumPy's (the operations are IEEE-exact, so
# NumPy computes the same bits), and h5py reads what tessera wrote. Float64
# loaded in chunks equal to h5py's (read directly, with pread) or from
# contiguous data in row blocks, and big-endian float64 (read by HDF5), are
# saved bitwise as NumPy has them.
# Needs python3 with numpy and h5py (need_numpy in lib.sh): skipped without them, failed in CI.
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"

TIMEOUT=180
need_numpy

"$PYNP" - <<'EOF'
import h5py, numpy as np
rng = np.random.default_rng(2024)
with h5py.File("in.h5", "w") as f:
    f.create_dataset("x", data=rng.standard_normal((1200, 500)), chunks=(100, 77),
                     compression="gzip", compression_opts=3)
    f.create_dataset("grp/y", data=rng.integers(-30000, 30000, (1200, 500), dtype=np.int16),
                     chunks=(300, 50), shuffle=True, compression="gzip")
    f.create_dataset("v", data=rng.uniform(0, 1, 10007).astype(np.float32))
    d = rng.standard_normal((1000, 60))
    f.create_dataset("d", data=d, chunks=(128, 60))
    f.create_dataset("dbe", data=d.astype(">f8"), chunks=(128, 60))
    f.create_dataset("dc", data=d[:, ::-1])
EOF

cat >job.tsr <<'EOF'
x = load("in.h5", "x", chunks=(256, 128))
y = load("in.h5", "grp/y", chunks=(100, 500))
z = (x[::3, 5::4] * 2 - y[::3, 5::4]) / 7
total = sum(z)
spread = std(z, ddof=1)
colmean = mean(x[::2], axis=0)
mx = max(rechunk(x, (1200, 10))[10:-10:5, ::-3])
vsum = sum(load("in.h5", "v", chunks=1000)[::-7])
save("out.h5", "/t/z", sqrt(abs(rechunk(z, (50, 31)))) + 1, compression="gzip")
save("out.h5", "x32", x.astype("float32"))
save("out.h5", "v64", load("in.h5", "v", dtype="float64")[1::2] * 3)
save("out.h5", "norm", (x - mean(x)) / std(x))
save("out.h5", "d", load("in.h5", "d", chunks=(128, 60)))
save("out.h5", "dbe", load("in.h5", "dbe", chunks=(128, 60)))
save("out.h5", "dc", load("in.h5", "dc", chunks=(100, -1)))
EOF

cat >check.py <<'EOF'
import sys, h5py, numpy as np
out, res = sys.argv[1], sys.argv[2]
f = h5py.File("in.h5", "r")
x, y, v = f["x"][...], f["grp/y"][...].astype(np.float64), f["v"][...]
z = (x[::3, 5::4] * 2 - y[::3, 5::4]) / 7
printed = {}
name = None
for line in open(out):
    if " = " in line:
        name, val = line.split(" = ", 1)
        printed[name] = val.strip()
r = h5py.File(res, "r")
bad = []
def close(name, got, want, tol=1e-12):
    if not (abs(got - want) <= tol * max(abs(got), abs(want))):
        bad.append(f"{name}: tessera {got!r}, numpy {want!r}")
close("total", float(printed["total"]), z.sum())
close("spread", float(printed["spread"]), z.std(ddof=1))
cm = r["colmean"][...]
ref = x[::2].mean(axis=0)
worst = np.max(np.abs(cm - ref) / np.maximum(np.abs(ref), 1e-300))
if worst > 1e-12: bad.append(f"colmean: relative difference {worst}")
mx = x[10:-10:5, ::-3].max()
if float(printed["mx"]) != mx: bad.append(f"mx: tessera {printed['mx']}, numpy {mx!r}")
close("vsum", float(printed["vsum"]), float(v[::-7].sum(dtype=np.float64)), 1e-6)
s = h5py.File("out.h5", "r")
checks = {"t/z": np.sqrt(np.abs(z)) + 1, "x32": x.astype(np.float32),
          "v64": v[1::2].astype(np.float64) * 3, "d": f["d"][...],
          "dbe": f["dbe"][...].astype(np.float64), "dc": f["dc"][...]}
for k, want in checks.items():
    got = s[k][...]
    if got.dtype != want.dtype or got.shape != want.shape or not np.array_equal(got, want):
        bad.append(f"{k}: {got.dtype}{got.shape} differs from numpy's {want.dtype}{want.shape}")
norm = s["norm"][...]
ref = (x - x.mean()) / x.std()
worst = np.max(np.abs(norm - ref)) / np.max(np.abs(ref))
if worst > 1e-12: bad.append(f"norm: relative difference {worst} to numpy")
if s["t/z"].chunks != (50, 31) or s["t/z"].compression != "gzip":
    bad.append(f"t/z: chunks {s['t/z'].chunks}, compression {s['t/z'].compression}")
print("\n".join(bad))
sys.exit(1 if bad else 0)
EOF

for np in 1 2 3 4; do
  mkdir "r$np"
  cp job.tsr check.py in.h5 "r$np/"
  (
    cd "r$np"
    if [ "$np" = 1 ]; then capture out err tsr run job.tsr -o res.h5; else capture out err mpi_tsr "$np" run job.tsr -o res.h5; fi
    echo "$RC" >rc
  )
  [ "$(cat "r$np/rc")" -eq 0 ] || fail "the job on $np rank(s) failed: $(cat "r$np/err")"
  (cd "r$np" && "$PYNP" check.py out res.h5 >check.txt 2>&1) ||
    soft_fail "$np rank(s): tessera differs from NumPy: $(cat "r$np/check.txt")"
done
for np in 2 3 4; do
  cmp -s r1/out "r$np/out" || soft_fail "printed values on $np ranks differ from 1 rank"
done

finish
