#!/usr/bin/env python3
"""ufuncs.py - every elementwise function of `tessera info` against NumPy on
special values (+-0, +-inf, NaN, subnormals, huge and tiny numbers, halves,
values at the edges of each function's domain), run by tests/exec/ufuncs.sh.

    ufuncs.py gen INFO            writes sv.h5 (the inputs) and job.tsr
    ufuncs.py check INFO OUT.h5 [--extra-ulp N]   compares each result with NumPy float64

The names come from the `elementwise` lines of `tessera info` (INFO), so a
function added to kernel/ew_table.h is tested here without an edit; its
arity is read from its doc ("name(x1, x2)" is binary). Each unary function
runs on X, each binary one on every pair of S x S, plus the operators //
and %, clip and round (COMPOSED), and a few Python-number cases of // and %.

Equality is bitwise (NaN equals NaN, -0.0 is not +0.0), except for the
functions in ULP below: on a machine with AVX-512, NumPy computes them with
its own SIMD loops (SVML), not with C's libm that tessera's CPU backend and
CUDA's libdevice use; the two differ by up to the stated number of units in
the last place (measured on 40,000 random inputs: the largest difference
seen, plus one). Even for those, a NaN, an infinity or a zero must be the
same value exactly, and a finite result must be finite on both sides.
"""
import sys

import numpy as np

# A backend whose library is neither glibc nor NumPy's (CUDA's libdevice: at most
# 2 ULP from the correctly rounded result for these) adds this many (check --extra-ulp).
EXTRA_ULP = 0
ULP = {
    "exp": 2, "log": 3, "sin": 4, "cos": 4, "tanh": 4, "power": 2,
    "log1p": 3, "expm1": 3, "log2": 3, "log10": 4, "exp2": 2, "tan": 4,
    "arcsin": 3, "arccos": 3, "arctan": 3, "sinh": 4, "cosh": 3,
    "arcsinh": 3, "arccosh": 2, "arctanh": 3, "cbrt": 5, "arctan2": 3,
}
# Known differences, kept for bitwise compatibility with earlier results:
# tessera's minimum and maximum give x1 for a tie of +0 and -0, NumPy's x2
# (and so does clip, which is maximum then minimum).
ZERO_SIGN = ("minimum", "maximum", "c_clip", "c_clip_method", "c_clip_low", "c_clip_arrays")
# NumPy's name where tessera's differs (none at present besides these)
# NumPy 1.x names of functions NumPy 2 added aliases for
NP_NAME = {"abs": "absolute", "bitwise_invert": "invert", "bitwise_left_shift": "left_shift",
           "bitwise_right_shift": "right_shift"}

S = [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 0.5, -0.5, 1.5, -2.5, 3.0, -7.0,
     1e-310, -5e-324, 1e308, -1.7976931348623157e308, 2.0 ** -1022, 0.1, 710.0,
     1e-20, np.pi, -np.pi / 2, 2.0 ** 53 + 2]
X = S + [0.9999999999999999, -0.9999999999999999, 1.0000000000000002, 2.5, 3.5, -0.49999999999999994,
         4503599627370495.5, -4503599627370496.5, 1e16, 45.0, 180.0, 1e-8, -1e-8, 20.0, -20.0,
         -745.2, 1023.9, -1074.5, 1e5]


def functions(info):
    """(name, arity) of every elementwise line of `tessera info`."""
    out = []
    for line in open(info):
        parts = line.split()
        if len(parts) >= 3 and line.startswith("  ") and parts[1] == "elementwise":
            doc = line.split("elementwise", 1)[1].strip()
            for arity, args in ((1, "(x)"), (2, "(x1, x2)")):  # others: COMPOSED below
                if doc.startswith(parts[0] + args):
                    out.append((parts[0], arity))
    if len(out) < 40:
        sys.exit("ufuncs.py: only %d elementwise functions in %s" % (len(out), info))
    return out


def pairs():
    a = np.array(S, dtype=np.float64)
    return np.repeat(a, len(S)), np.tile(a, len(S))


# The functions of integers (and bool) only: int64 operands, shifts by 0 to
# 40 (exact in the doubles tessera computes in), 63, 64, 70 and -1.
INTEGER_ONLY = {"bitwise_and", "bitwise_or", "bitwise_xor", "invert", "bitwise_not",
                "bitwise_invert", "left_shift", "right_shift", "bitwise_left_shift",
                "bitwise_right_shift"}
IX = [0, 1, -1, 2, -2, 7, -7, 255, -256, 300, -300, 12345, -98765, 2**40 + 3, -(2**40) - 5]


def int_pairs(shift):
    a = np.array(IX, dtype=np.int64)
    b = np.array(list(range(0, 41, 3)) + [63, 64, 70, -1] if shift else IX, dtype=np.int64)
    if shift:
        a = a[np.abs(a) < 2**12]
    return np.repeat(a, len(b)), np.tile(b, len(a))


def operands(name, arity):
    """The inputs of function name: floats, or integers for INTEGER_ONLY."""
    if name not in INTEGER_ONLY:
        return (np.array(X, dtype=np.float64),) if arity == 1 else pairs()
    if arity == 1:
        return (np.array(IX, dtype=np.int64),)
    return int_pairs("shift" in name)


# The elementwise builtins that are not rows of the table (clip, round, around):
# job text and NumPy's value (a function of X).
COMPOSED = {"c_clip": ("clip(x, -1.5, 2.5)", lambda x: np.clip(x, -1.5, 2.5)),
            "c_clip_method": ("x.clip(None, 0.5)", lambda x: np.clip(x, None, 0.5)),
            "c_clip_low": ("clip(x, a_min=1e-300, a_max=None)", lambda x: np.clip(x, 1e-300, None)),
            # array bounds (with NaN: NumPy 1.x reads a NaN *number* as no bound, a deprecated rule)
            "c_clip_arrays": ("clip(bx, by, 1.0)", lambda x: np.clip(pairs()[0], pairs()[1], 1.0)),
            "c_round": ("round(x)", np.round),
            "c_round_method": ("x.round(2)", lambda x: x.round(2)),
            "c_round_neg": ("around(x, -1)", lambda x: np.around(x, -1)),
            "c_round_5": ("round(x * 1.2345, decimals=5)", lambda x: np.round(x * 1.2345, 5)),
            "c_round_30": ("round(x, 30)", lambda x: np.round(x, 30)),
            "c_round_m12": ("x.round(-12)", lambda x: x.round(-12))}
OPERATORS = {"op_floordiv": ("bx // by", "floor_divide"), "op_mod": ("bx % by", "remainder"),
             "op_mix": ("-bx // 3 % by * 2", None)}
# numbers: the interpreter keeps Python's int // and % and NumPy's float ones
NUMBERS = ["7 // -2", "-7 % 3", "7 % -3", "-7 // 2", "7.5 // 2", "-7.5 % 2", "2 + 7 % 4 * 3",
           "7 // 2 ** 2", "-3 // 2", "5.0 % -0.0", "1e300 // 1e-300",
           "arange(10)[-7 % 3]", "arange(10)[7 // -2]"]  # an index must be an int


def gen(info):
    import h5py
    bx, by = pairs()
    with h5py.File("sv.h5", "w") as f:
        f["x"] = np.array(X, dtype=np.float64)
        f["bx"], f["by"] = bx, by
        f["ix"] = np.array(IX, dtype=np.int64)
        f["ibx"], f["iby"] = int_pairs(False)
        f["sbx"], f["sby"] = int_pairs(True)
    lines = ['x = load("sv.h5", "/x", chunks=7)', 'bx = load("sv.h5", "/bx", chunks=50)',
             'by = load("sv.h5", "/by", chunks=50)', 'ix = load("sv.h5", "/ix", chunks=4)',
             'ibx = load("sv.h5", "/ibx", chunks=40)', 'iby = load("sv.h5", "/iby", chunks=40)',
             'sbx = load("sv.h5", "/sbx", chunks=30)', 'sby = load("sv.h5", "/sby", chunks=30)']
    for name, arity in functions(info):
        if name in INTEGER_ONLY:
            args = "ix" if arity == 1 else ("sbx, sby" if "shift" in name else "ibx, iby")
        else:
            args = "x" if arity == 1 else "bx, by"
        lines.append("f_%s = %s(%s)" % (name, name, args))
    for key, (text, _) in list(OPERATORS.items()) + list(COMPOSED.items()):
        lines.append("%s = %s" % (key, text))
    for i, text in enumerate(NUMBERS):
        lines.append("n%d = %s" % (i, text))
    open("job.tsr", "w").write("\n".join(lines) + "\n")


def reference(name, arity):
    fn = getattr(np, NP_NAME.get(name, name))
    with np.errstate(all="ignore"):
        return np.asarray(fn(*operands(name, arity)))


def mismatches(name, got, want):
    """Indexes where got and want differ beyond the function's tolerance."""
    want = np.asarray(want, dtype=np.float64)
    same = (got.view(np.int64) == want.view(np.int64)) | (np.isnan(got) & np.isnan(want))
    if name in ZERO_SIGN:
        same |= (got == 0) & (want == 0)
    ulp = ULP.get(name)
    if ulp is not None or EXTRA_ULP:  # the cuda pass: every function gets EXTRA_ULP
        ulp = (ulp or 0) + EXTRA_ULP
    if ulp is None:
        return np.nonzero(~same)[0]
    special = ~np.isfinite(want) | (want == 0) | ~np.isfinite(got) | (got == 0)
    with np.errstate(all="ignore"):
        close = np.abs(got - want) <= ulp * np.spacing(np.abs(want))
    return np.nonzero(~same & (special | ~close))[0]


def show(v):
    return "%r (%s)" % (float(v), float(v).hex())


def check(info, path):
    import h5py
    bad = 0
    bx, by = pairs()
    x = np.array(X, dtype=np.float64)
    with h5py.File(path, "r") as f:
        cases = [(n, a, reference(n, a)) for n, a in functions(info)]
        for key, (_, np_name) in OPERATORS.items():
            if np_name:
                with np.errstate(all="ignore"):
                    cases.append((key, 2, getattr(np, np_name)(bx, by)))
        with np.errstate(all="ignore"):
            cases.append(("op_mix", 2, np.remainder(np.floor_divide(-bx, 3.0), by) * 2))
        with np.errstate(all="ignore"):
            for key, (_, fn) in COMPOSED.items():
                want = fn(x)
                cases.append((key, 1 if want.shape == x.shape else 2, want))
        for name, arity, want in cases:
            key = name if name.startswith(("op_", "c_")) else "f_" + name
            if key not in f:
                print("FAIL %s: no result %s" % (name, key))
                bad += 1
                continue
            got = np.asarray(f[key][()], dtype=np.float64)
            if got.shape != want.shape or f[key].dtype != want.dtype:
                print("FAIL %s: shape %s dtype %s, NumPy %s %s" % (name, got.shape, f[key].dtype,
                                                                  want.shape, want.dtype))
                bad += 1
                continue
            ops = (operands(name, arity) if not name.startswith(("op_", "c_"))
                   else (x,) if arity == 1 else (bx, by))
            for i in mismatches(name, got, want)[:5]:
                args = show(ops[0][i]) if arity == 1 else "%s, %s" % (show(ops[0][i]), show(ops[1][i]))
                print("FAIL %s(%s): tessera %s, NumPy %s" % (name, args, show(got[i]), show(want[i])))
                bad += 1
        for i, text in enumerate(NUMBERS):
            with np.errstate(all="ignore"):  # Python refuses % 0.0; NumPy's is NaN
                want = float(eval(text, {"arange": np.arange}) if "-0.0" not in text
                             else np.remainder(5.0, -0.0))
            got = float(f["n%d" % i][()])
            if got != want and not (want != want and got != got):
                print("FAIL %s: tessera %r, Python %r" % (text, got, want))
                bad += 1
    print("# %d functions, %d failures" % (len(cases), bad))
    return bad == 0


if __name__ == "__main__":
    if sys.argv[1] == "gen":
        gen(sys.argv[2])
    else:
        if len(sys.argv) > 5 and sys.argv[4] == "--extra-ulp":
            EXTRA_ULP = int(sys.argv[5])
        sys.exit(0 if check(sys.argv[2], sys.argv[3]) else 1)
