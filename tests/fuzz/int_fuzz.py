#!/usr/bin/env python3
"""int_fuzz.py - differential fuzzer for tessera's bool and integer dtypes against NumPy: EXACT.

Every case is one line `rK = EXPR` of a job file. EXPR is a random expression over
int8/16/32/64, uint8/16/32/64 and bool arrays (leaves: astype(arange * k % m - c + zeros(shape),
"int16") with irregular chunks, full(shape, 7, dtype=...), comparisons), the operators
+ - * // % ** & | ^ ~ << >> < <= > >= == != and unary -, the functions where, minimum, maximum,
abs, negative, square, sign, floor_divide, remainder, fmod, bitwise_*, invert, left_shift,
right_shift, logical_*, equal..., isin, clip, the reductions sum prod min max any all argmax
argmin count_nonzero nansum nanprod nanmin nanmax ptp (axis None / int / negative / a tuple of
two, keepdims), median quantile percentile (q a number or a list; a q of integers only keeps
the dtype), cumsum, cumprod, nancumsum, nancumprod, diff and sort, Python
int, bool and float scalars (NEP 50 weak promotion), slices with steps and negative bounds,
broadcasting, ragged chunks, chunks of 1 and empty arrays.

The oracle is NumPy with NEP 50 promotion (NumPy 1.24's np._set_promotion_state("weak"), as
scripts/numpy_compat.py): the NumPy side evaluates the very text of the job (the language is a
Python subset) with tessera's functions mapped onto NumPy's. Value, shape and dtype must be
equal exactly, and the results of the 4 modes (fused / --no-fuse, 1 / 3 ranks) bitwise equal.

Domain (documented tessera limits and NumPy's undefined cases are left out): tessera holds
values as doubles, so every intermediate value, and every unwrapped result of + - * ** << sum
prod cumsum cumprod (before wrapping to the dtype), stays within +-2^53; no negative integer
powers; no Python int outside the array's range in arithmetic; floats only from Python float
scalars (dyadic values, exact); no astype of a float outside the integer type (C's conversion:
undefined, NumPy's result depends on the platform). Shifts by >= bits and integer division by 0 are allowed
(NumPy: 0 / -1 and 0).

    int_fuzz.py gen --seed S --cases N [--only K,...]       writes job.tsr
    int_fuzz.py check --seed S --cases N [--only K,...] MODE=FILE.h5 ...
    int_fuzz.py isolate --seed S --cases N --mode MODE -- CMD...
        (a job that failed in MODE: bisects to the failing case(s), reruns without them)

Case K of seed S depends on S and K only. Known tessera bugs are left out of generation at the
`# BUG:` comments in Gen.ok() (none at present).
"""

import argparse
import ast
import builtins
import os
import random
import signal
import subprocess
import sys
import warnings

import numpy as np

if hasattr(np, "_set_promotion_state"):
    np._set_promotion_state("weak")

LIMIT = 2.0 ** 53
MAX_ELEMS = 120
INTS = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
DTS = INTS + ["bool"]
# Fixed edge cases: the first cases of every run (wrapping, INT_MIN, shifts by >= bits, division
# by 0, bool arithmetic, mixed signedness, Python scalars, empty arrays and reductions).
EDGE = [
    'astype(full(3, 4294967297), "int32")',
    'astype(full(2, 70000, dtype="int64"), "uint16")',
    'full(4, -128, dtype="int8") // -1',
    'abs(full(2, -128, dtype="int8"))',
    'negative(full(2, -32768, dtype="int16"))',
    'full(3, True) // full(3, True)',
    'full(3, True) % full(3, True)',
    'full(3, True) ** full(3, False)',
    'full(3, True) + full(3, True)',
    'full(3, True) * 3',
    'full(3, 7, dtype="int64") >> 70',
    'full(3, -7, dtype="int64") >> 70',
    'full(3, 7, dtype="int64") << 64',
    'left_shift(full(3, 1, dtype="uint8"), 9)',
    'right_shift(full(3, -100, dtype="int8"), astype(arange(3) * 4, "int8"))',
    'left_shift(full(4, 3, dtype="int16"), astype(arange(4) * 6 - 3, "int16"))',
    'full(3, -7) % 0',
    'full(3, -7) // 0',
    'fmod(full(3, -7), 0)',
    'fmod(astype(arange(6) - 3, "int8"), 4)',
    'remainder(astype(arange(6) - 3, "int8"), -4)',
    'floor_divide(astype(arange(6) - 3, "int32"), -4)',
    'full(3, -7, dtype="int8") // 2.0',
    'full(3, -7, dtype="int8") % -2.5',
    'full(3, 7, dtype="int8") * 0.5',
    'full(3, 7, dtype="uint8") - 10',
    '3 - full(3, 7, dtype="uint8")',
    'sign(astype(arange(5) - 2, "uint8"))',
    'sign(astype(arange(5) - 2, "int8"))',
    'sum(full((0, 3), 7, dtype="int8"), axis=0)',
    'prod(full((0,), 3, dtype="uint8"))',
    'argmax(full((3, 0), 1), axis=0)',
    'cumsum(full((0, 4), True), axis=1)',
    'diff(arange(5, chunks=2) > 2)',
    'diff(full(0, 3, dtype="int16"))',
    'count_nonzero(full((2, 3), 0), axis=-1, keepdims=True)',
    'isin(astype(arange(6), "uint8"), (1, 3))',
    'clip(astype(arange(6), "uint8"), 2, 4)',
    'where(arange(4) > 1, True, 3)',
    'maximum(full(3, True), 2)',
    'full(3, 5, dtype="uint64") + full(3, -1, dtype="int64")',
    'full(3, 5, dtype="uint64") // full(3, -2, dtype="int64")',
    'invert(full(3, 5, dtype="uint32"))',
    '~full(3, True)',
    '~full(3, -1, dtype="int64")',
    'full(3, 200, dtype="uint8") + full(3, 100, dtype="uint8")',
    'square(full(2, 200, dtype="uint8"))',
    'full(2, 3, dtype="int8") ** 5',
    'full(2, 2, dtype="int64") ** 52',
    'cumprod(full(10, 3, dtype="int8"), dtype="int8")',
    'cumsum(full(10, 100, dtype="uint8"), dtype="uint8")',
    'min(full((2, 3), 5, dtype="uint16"), axis=1, keepdims=True)',
    'argmin(astype(arange(6) % 3, "int8"))',
    '(arange(10, chunks=3) * 3 % 7)[::-3]',
    'astype(arange(6, chunks=4), "int16")[-1:-7:-2]',
    'any(full((2, 0), 1), axis=1)',
    'all(full((2, 0), 0), axis=1)',
    'full(3, 9007199254740991) - 1',
    'full(3, -9007199254740991, dtype="int64") + 1',
    'astype(arange(5) - 2, "uint32") & 65535',
    'astype(arange(4), "int8") < 1000',
    '-1 == astype(arange(3), "uint8")',
    'astype(arange(4), "uint32") >= -1',
    'full(3, 1, dtype="uint8") + True',
    'full(3, 100, dtype="int8") + 27 + 1',
    'sum(astype(arange(40, chunks=7), "int8"), axis=0)',
    'sum(astype(arange(6), "uint8")) - 10',
    'max(astype(arange(6), "uint64"))',
    'astype(full((2, 3), True), "int8").sum(axis=-1)',
    'full((), 7, dtype="int8") * full(3, 2, dtype="int16")',
    'full((), 200, dtype="uint8") + 100',
    'isin(astype(arange(6) - 1, "uint8"), (-1, 255, 300))',
    'isin(astype(arange(6) - 3, "int8"), -3)',
    'argmax(astype(arange(24, chunks=5) * 7 % 5, "int16")[1:] > -1, keepdims=True)',
    'argmin(astype(arange(12, chunks=5) * 7 % 5, "uint32") + zeros((2, 3, 12), dtype="int64", chunks=(1, 2, 4)), axis=-1, keepdims=True)',
    'cumsum(astype(arange(5, chunks=2) - 2, "int8") + zeros((3, 2, 5), dtype="int8", chunks=(2, 1, 3)))',
    'cumprod(astype(arange(5, chunks=2) - 2, "int16") + zeros((3, 5), dtype="int16", chunks=(2, 3)), axis=0)',
    '(astype(arange(6) - 3, "int32")).astype(bool)',
    'where(arange(6) > 2, 0.5, astype(arange(6), "uint8"))',
    'where(arange(6) > 2, astype(arange(6), "int8"), True)',
    'sum(arange(6, chunks=4) > 2, keepdims=True)',
    'full(3, 5, dtype="uint64") + 0.5',
    'full(3, -7, dtype="int64") // 2.5',
    'full(3, 5, dtype="uint64") < full(3, -1, dtype="int64")',
    'full(3, 5, dtype="uint64") == full(3, 5, dtype="int64")',
    'maximum(full(3, 5, dtype="uint64"), full(3, -1, dtype="int64"))',
    'astype(arange(6), "uint8") * -0.0',
    'prod(astype(arange(1, 7), "int8"), axis=0, keepdims=True)',
    'count_nonzero(astype(arange(6, chunks=1) % 3, "uint16"))',
    'diff(astype(arange(6, chunks=4) * 3 % 7, "uint8"), n=3)',
    'diff(astype(arange(6, chunks=4) * 3 % 7, "uint8") > 2, n=2)',
    'astype(arange(6), "int16")[::-1][1::2]',
    '(astype(arange(8, chunks=3), "uint16") + zeros((2, 8), dtype="uint16"))[-1, ::-3]',
    'logical_xor(astype(arange(5) - 2, "int8"), 0.5)',
    'logical_and(astype(arange(5) - 2, "uint8"), True)',
    'bitwise_xor(full(3, True), 1)',
    'full(3, True) & 3',
    'full(3, True) << 2',
    'full(3, True) - 1',
    'abs(full(3, True))',
    'square(full(3, True))',
    'maximum(full(3, True), full(3, False))',
    'full(3, 7, dtype="int8") // True',
    'full(3, 7, dtype="uint8") ** full(3, 2, dtype="int8")',
    'minimum(full(3, 7, dtype="uint8"), -1.5)',
]
CMPS = ("<", "<=", ">", ">=", "==", "!=", "equal", "not_equal", "less", "less_equal", "greater",
        "greater_equal")
WIDE = [-1, 256, -129, 1000, -1000, 70000, -40000, 2 ** 31, 2 ** 32, -2 ** 31 - 1, 2 ** 40, -2 ** 45]
MODES = ("fused-1", "nofuse-1", "fused-3", "nofuse-3")

# =============================================================================
# The NumPy side: tessera's functions on NumPy
# =============================================================================


def _dt(d):
    return None if d is None else np.dtype(d)


def _arange(*a, chunks=None, dtype=None):
    return np.arange(*a, dtype=_dt(dtype))


def _full(shape, v, chunks=None, dtype=None):
    return np.full(shape, v, dtype=_dt(dtype))


def _zeros(shape, chunks=None, dtype=None):
    return np.zeros(shape, dtype=_dt(dtype) or np.float64)


def _ones(shape, chunks=None, dtype=None):
    return np.ones(shape, dtype=_dt(dtype) or np.float64)


def _red(f):
    def g(a, axis=None, keepdims=False):
        r = f(np.asarray(a), axis=axis, keepdims=keepdims)
        return np.asarray(r) if np.ndim(r) == 0 else r
    return g


def _q(f, a, q, axis, keepdims):
    r = f(np.asarray(a), list(q) if isinstance(q, tuple) else q, axis=axis, keepdims=keepdims)
    return np.asarray(r)


def _cnt(a, axis=None, keepdims=False):
    return np.asarray(np.count_nonzero(np.asarray(a), axis=axis, keepdims=keepdims), dtype=np.int64)


def _where(c, a, b):
    """NEP 50 for where's Python scalars (NumPy 1.24's where makes them arrays first: int64;
    tessera and NumPy 2 take the other operand's type where the scalar's kind allows)."""
    ops = [x for x in (a, b) if not isinstance(x, (bool, int, float))]
    if len(ops) == 2:
        return np.where(c, a, b)
    nums = [x for x in (a, b) if isinstance(x, (bool, int, float))]
    dt = np.result_type(*(ops + nums))
    for x in nums:  # NumPy 2 and tessera refuse a Python int outside the result's type
        if type(x) is int and dt.kind in "iu" and not np.iinfo(dt).min <= x <= np.iinfo(dt).max:
            raise OverflowError("Python integer %d out of bounds for %s" % (x, dt))
    return np.where(c, a, b).astype(dt)


NS = {
    "arange": _arange, "full": _full, "zeros": _zeros, "ones": _ones,
    "astype": lambda a, d: np.asarray(a).astype(d),
    "rechunk": lambda a, c: a,
    "persist": lambda a: a,
    "sum": _red(np.sum), "prod": _red(np.prod), "min": _red(np.min), "max": _red(np.max),
    "any": _red(np.any), "all": _red(np.all), "argmax": _red(np.argmax), "argmin": _red(np.argmin),
    "count_nonzero": _cnt,
    "cumsum": lambda a, axis=None, dtype=None: np.cumsum(a, axis=axis, dtype=_dt(dtype)),
    "cumprod": lambda a, axis=None, dtype=None: np.cumprod(a, axis=axis, dtype=_dt(dtype)),
    "diff": lambda a, n=1, axis=-1: np.diff(a, n=n, axis=axis),
    "nansum": _red(np.nansum), "nanprod": _red(np.nanprod), "nanmin": _red(np.nanmin),
    "nanmax": _red(np.nanmax), "ptp": _red(np.ptp),
    "nancumsum": lambda a, axis=None, dtype=None: np.nancumsum(a, axis=axis, dtype=_dt(dtype)),
    "nancumprod": lambda a, axis=None, dtype=None: np.nancumprod(a, axis=axis, dtype=_dt(dtype)),
    "sort": lambda a, axis=-1: np.sort(a, axis=axis),
    "median": _red(np.median),
    "quantile": lambda a, q, axis=None, keepdims=False: _q(np.quantile, a, q, axis, keepdims),
    "percentile": lambda a, q, axis=None, keepdims=False: _q(np.percentile, a, q, axis, keepdims),
    "isin": lambda x, t: np.isin(x, list(t) if isinstance(t, (tuple, list)) else [t]),
    "clip": lambda a, lo, hi: np.clip(a, lo, hi),
    "where": _where, "abs": np.abs,
}
def _cmp(f):
    """A comparison with a Python int outside the other operand's integer type compares the
    values (tessera and NumPy 2; NumPy 1.24 raises OverflowError): done in float64 (exact here)."""
    def g(x, y):
        for a, b in ((x, y), (y, x)):
            if isinstance(b, int) and not isinstance(b, bool):
                dt = np.asarray(a).dtype
                if dt.kind in "iu" and not np.iinfo(dt).min <= b <= np.iinfo(dt).max:
                    if a is x:
                        return f(np.asarray(x, dtype=np.float64), float(y))
                    return f(float(x), np.asarray(y, dtype=np.float64))
        return f(x, y)
    return g


for _f in ("minimum maximum negative square sign floor_divide remainder fmod bitwise_and bitwise_or "
           "bitwise_xor invert left_shift right_shift logical_and logical_or logical_xor logical_not "
           "equal not_equal less less_equal greater greater_equal").split():
    NS[_f] = getattr(np, _f)
for _f in INTS:
    NS[_f] = _f  # dtype names: astype(int8)
for _f in ("equal", "not_equal", "less", "less_equal", "greater", "greater_equal"):
    NS[_f] = _cmp(getattr(np, _f))


class _Pow(ast.NodeTransformer):
    """x ** y -> power(x, y): ndarray.__pow__ of NumPy 1.24 takes a fast path for a scalar
    exponent (x ** np.int16(2) is square(x): uint8 for a uint8 x, bool for a bool x) that
    promotion never sees; np.power promotes as NEP 50 (and as tessera)."""

    def visit_BinOp(self, node):
        self.generic_visit(node)
        if isinstance(node.op, ast.Pow):
            return ast.copy_location(ast.Call(func=ast.Name(id="_power", ctx=ast.Load()),
                                              args=[node.left, node.right], keywords=[]), node)
        return node

    def visit_Compare(self, node):
        self.generic_visit(node)
        if len(node.ops) != 1:
            return node
        name = {ast.Lt: "less", ast.LtE: "less_equal", ast.Gt: "greater", ast.GtE: "greater_equal",
                ast.Eq: "equal", ast.NotEq: "not_equal"}[type(node.ops[0])]
        return ast.copy_location(ast.Call(func=ast.Name(id=name, ctx=ast.Load()),
                                          args=[node.left, node.comparators[0]], keywords=[]), node)


def np_eval(text):
    tree = ast.fix_missing_locations(_Pow().visit(ast.parse(text, mode="eval")))
    ns = dict(NS)
    ns["_power"] = np.power
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        # real builtins (NumPy's methods import lazily), shadowed by tessera's names
        ns["__builtins__"] = builtins
        return np.asarray(eval(compile(tree, "<case>", "eval"), ns))


# =============================================================================
# The generator
# =============================================================================


class Node:
    __slots__ = ("text", "v")

    def __init__(self, text, v):
        self.text, self.v = text, v

    @property
    def dt(self):
        return str(self.v.dtype)

    @property
    def shape(self):
        return self.v.shape


class Reject(Exception):
    pass


def nelem(shape):
    n = 1
    for s in shape:
        n *= s
    return n


def info(dt):
    return np.iinfo(dt) if dt in INTS else None


class Gen:
    def __init__(self, seed, case):
        self.r = random.Random(seed * 1000003 + case)

    def chance(self, p):
        return self.r.random() < p

    # ---- validation -------------------------------------------------------------

    def ok(self, text, unwrapped=None):
        """The node of text if NumPy evaluates it inside the domain, else Reject."""
        try:
            v = np_eval(text)
        except Exception as exc:  # noqa: BLE001 - NumPy refuses: not in the domain
            raise Reject(str(exc))
        if v.dtype.kind not in "biuf":
            raise Reject("dtype %s" % v.dtype)
        if v.size:
            if v.dtype.kind == "f":
                if not np.all(np.isfinite(v)) or np.max(np.abs(v)) > LIMIT:
                    raise Reject("float out of range")
            elif v.dtype.kind in "iu":
                if np.max(np.abs(v.astype(np.float64))) > LIMIT:
                    raise Reject("beyond 2^53")
        if unwrapped is not None:
            with np.errstate(all="ignore"):
                u = np.asarray(unwrapped, dtype=np.float64)
            if u.size and not (np.all(np.isfinite(u)) and np.max(np.abs(u)) <= LIMIT):
                raise Reject("unwrapped beyond 2^53")
        return Node(text, v)

    # ---- shapes, chunks, numbers ------------------------------------------------

    def shape(self, nd=None):
        if nd is None:
            nd = self.r.choice([0, 1, 1, 1, 2, 2, 2, 3])
        while True:
            s = tuple(self.r.choice([0, 1, 1, 2, 3, 4, 5, 6, 7]) if self.chance(0.97) else 0
                      for _ in range(nd))
            if self.chance(0.93):
                s = tuple(x if x else self.r.randint(1, 6) for x in s)
            if nelem(s) <= MAX_ELEMS:
                return s

    def axis_chunks(self, n):
        x = self.r.random()
        if x < 0.35:
            return str(self.r.randint(1, n + 2))
        if x < 0.45:
            return "-1"
        if n == 0:
            return "(0,)"
        sizes, left = [], n
        while left > 0:
            c = min(left, self.r.randint(1, 3)) if self.chance(0.6) else self.r.randint(1, left)
            sizes.append(c)
            left -= c
        return "(" + ", ".join(map(str, sizes)) + ("," if len(sizes) == 1 else "") + ")"

    def chunks(self, shape):
        if not shape or self.chance(0.15):
            return ""
        if self.chance(0.2):
            return ", chunks=%d" % self.r.randint(1, 4)
        parts = [self.axis_chunks(n) for n in shape]
        return ", chunks=(" + ", ".join(parts) + ("," if len(parts) == 1 else "") + ")"

    def st(self, shape):
        return "(" + ", ".join(map(str, shape)) + ("," if len(shape) == 1 else "") + ")"

    def int_for(self, dt, small=False):
        """A Python int inside dt's range (bool: 0 or 1)."""
        if dt == "bool":
            return self.r.choice([0, 1])
        if dt[0] == "f":
            return self.r.randint(-9, 9)
        ii = info(dt)
        cands = [0, 1, 2, 3, 5, 7, -1, -2, -3, 100, -100, 127, -128, 255, 1000, -1000,
                 32767, -32768, 65535, 2 ** 31 - 1, -2 ** 31, 2 ** 32 - 1, 2 ** 40, -2 ** 40,
                 2 ** 52, -2 ** 52, 2 ** 53 - 1, -2 ** 53 + 1]
        if small:
            cands = cands[:10]
        cands = [c for c in cands if ii.min <= c <= ii.max]
        return self.r.choice(cands)

    def number(self, dt):
        x = self.r.random()
        if x < 0.12:
            return self.r.choice(["True", "False"])
        if x < 0.27:
            return self.r.choice(["0.5", "-1.5", "2.0", "0.25", "-3.0", "1.0", "-0.0"])
        return repr(self.int_for(dt, small=self.chance(0.6)))

    # ---- leaves -------------------------------------------------------------------

    def leaf(self, shape):
        dt = self.r.choice(DTS)
        x = self.r.random()
        kw = self.chunks(shape)
        if x < 0.15:
            fill = self.r.choice(["7", "-3", "0", "1", "True", "False", "100"])
            if dt == "bool":
                fill = self.r.choice(["True", "False", "0", "1"])
            elif dt[0] == "u" and fill.startswith("-"):
                fill = "3"
            elif self.chance(0.4):
                fill = repr(self.int_for(dt))  # up to the type's limits (2^40 for 64 bits)
            dkw = "" if (self.chance(0.2) and fill in ("7", "True")) else ', dtype="%s"' % dt
            return self.ok("full(%s, %s%s%s)" % (self.st(shape), fill, dkw, kw))
        if not shape:
            return self.ok("full((), %d, dtype=\"%s\")" % (self.int_for(dt, True), dt))
        n = shape[-1]
        k = self.r.choice([1, 3, 7, 37, 1001, 65537])
        m = self.r.choice([2, 5, 11, 256, 300, 70000, 2 ** 33])
        c = self.r.choice([0, 1, 3, m // 2, 128])
        ck = self.chunks((n,))
        t = "arange(%d%s) * %d %% %d - %d" % (n, ck, k, m, c)
        if len(shape) > 1:
            t += " + zeros(%s, dtype=\"int64\"%s)" % (self.st(shape), kw)
            if self.chance(0.7):
                sub = ["None"] * len(shape)
                sub[0] = ":"
                t += " + (arange(%d) * %d)[%s]" % (shape[0], self.r.choice([1, 5, 13, 300]), ", ".join(sub))
        if dt == "bool":
            return self.ok("(%s) %s %d" % (t, self.r.choice([">", "<", "==", "!="]), self.r.randint(-2, 5)))
        return self.ok('astype(%s, "%s")' % (t, dt))

    # ---- expressions -------------------------------------------------------------

    def gen(self, shape, depth):
        for _ in range(30):
            try:
                if depth <= 0 or self.chance(0.2):
                    return self.leaf(shape)
                g = self.r.choice([self.g_binop] * 5 + [self.g_func2] * 3 + [self.g_unary] * 3
                                  + [self.g_where, self.g_misc, self.g_slice, self.g_reduce,
                                     self.g_reduce, self.g_scan, self.g_rechunk, self.g_index, self.g_quantile,
                                     self.g_astype])
                n = g(shape, depth - 1)
                if n.shape != tuple(shape):
                    raise Reject("generator: shape %s for %s" % (n.shape, shape))
                return n
            except Reject:
                continue
        return self.leaf(shape)

    def bshape(self, shape):
        """A shape that broadcasts to shape."""
        s = list(shape)
        if s and self.chance(0.4):
            s = s[self.r.randint(0, len(s)):]
        return tuple(1 if (x and self.chance(0.2)) else x for x in s)

    def operands(self, shape, depth):
        a = self.gen(shape, depth)
        if self.chance(0.25):
            return a, None, self.number(a.dt)
        b = self.gen(self.bshape(shape), depth)
        if self.chance(0.5):
            a, b = b, a
        return a, b, None

    def g_binop(self, shape, depth):
        op = self.r.choice(["+", "-", "*", "//", "%", "**", "&", "|", "^", "<<", ">>",
                            "<", "<=", ">", ">=", "==", "!="])
        a, b, num = self.operands(shape, depth)
        if op == "**":
            # exponent: nonnegative and small
            if b is not None and b.dt != "bool":
                b = self.ok("(%s) %% 4" % b.text) if b.dt[0] == "u" else self.ok("abs(%s) %% 4" % b.text)
                if b.dt[0] == "i" and np.any(b.v < 0):
                    raise Reject("negative power")
            if num is not None:
                num = self.r.choice(["0", "1", "2", "3", "True"])
        if op in CMPS and num is not None and num.lstrip("-").isdigit() and self.chance(0.3):
            num = repr(self.r.choice(WIDE))  # maybe outside a's type: compares the values
        if op in ("<<", ">>") and num is not None:
            num = repr(self.r.randint(0, 70 if op == ">>" else 12))
            ii = info(a.dt)
            if ii is None or int(num) > ii.max:
                raise Reject("shift")
        if b is not None:
            text = "(%s) %s (%s)" % (a.text, op, b.text)
            bv = b.v
        else:
            if self.chance(0.3) and op not in ("**", "<<", ">>"):
                text = "%s %s (%s)" % (num, op, a.text)
            else:
                text = "(%s) %s %s" % (a.text, op, num)
            bv = eval(num)
        return self.ok(text, self.unwrapped(op, text, a, bv))

    def unwrapped(self, op, text, a, bv):
        """The result of op computed in float64 (None where wrapping can't exceed 2^53)."""
        if a is None or op not in ("+", "-", "*", "**", "<<"):
            return None
        # bounds of the magnitude (either operand order)
        av = np.abs(a.v.astype(np.float64))
        bb = np.asarray(bv, dtype=np.float64)
        with np.errstate(all="ignore"):
            if op in ("+", "-"):
                return av + np.abs(bb)
            if op == "*":
                return av * np.abs(bb)
            if op == "**":
                return av ** bb
            return np.where(bb < 64, av * 2.0 ** np.clip(bb, 0, 64), 0)

    def g_func2(self, shape, depth):
        f = self.r.choice(["minimum", "maximum", "floor_divide", "remainder", "fmod", "bitwise_and",
                           "bitwise_or", "bitwise_xor", "left_shift", "right_shift", "logical_and",
                           "logical_or", "logical_xor", "equal", "not_equal", "less", "less_equal",
                           "greater", "greater_equal"])
        a, b, num = self.operands(shape, depth)
        if f == "left_shift":
            a, b, num = self.gen(shape, depth), None, repr(self.r.randint(0, 12))
        if f in CMPS and num is not None and num.lstrip("-").isdigit() and self.chance(0.3):
            num = repr(self.r.choice(WIDE))  # maybe outside a's type: compares the values
        bt = b.text if b is not None else num
        un = None
        if f == "left_shift":
            un = a.v.astype(np.float64) * 2.0 ** int(num)
        return self.ok("%s(%s, %s)" % (f, a.text, bt), un)

    def g_unary(self, shape, depth):
        f = self.r.choice(["-", "~", "abs", "negative", "square", "sign", "invert", "logical_not"])
        a = self.gen(shape, depth)
        if f in ("-", "~"):
            return self.ok("%s(%s)" % (f, a.text), -a.v.astype(np.float64))
        un = a.v.astype(np.float64) ** 2 if f == "square" else None
        return self.ok("%s(%s)" % (f, a.text), un)

    def g_where(self, shape, depth):
        c = self.gen(self.bshape(shape), depth)
        ctext = c.text if (c.dt == "bool" or self.chance(0.3)) else "(%s) > 0" % c.text
        a = self.gen(shape, depth)
        if self.chance(0.3):
            b = self.number(a.dt)
        else:
            b = self.gen(self.bshape(shape), depth).text
        if self.chance(0.5):
            return self.ok("where(%s, %s, %s)" % (ctext, a.text, b))
        return self.ok("where(%s, %s, %s)" % (ctext, b, a.text))

    def g_misc(self, shape, depth):
        a = self.gen(shape, depth)
        if self.chance(0.5):
            vals = sorted({self.int_for(a.dt, True) for _ in range(self.r.randint(1, 4))})
            t = "(" + ", ".join(map(str, vals)) + ("," if len(vals) == 1 else "") + ")"
            if len(vals) == 1 and self.chance(0.5):
                t = str(vals[0])
            return self.ok("isin(%s, %s)" % (a.text, t))
        if a.dt == "bool":
            raise Reject("clip of bool")
        lo, hi = sorted([self.int_for(a.dt, True), self.int_for(a.dt, True)])
        return self.ok("clip(%s, %d, %d)" % (a.text, lo, hi))

    def g_astype(self, shape, depth):
        a = self.gen(shape, depth)
        dt = self.r.choice(DTS)
        form = self.r.choice(['astype(%s, "%s")', '(%s).astype("%s")', "(%s).astype(%s)"])
        if "bool" == dt and form.endswith("(%s)"):
            form = '(%s).astype("%s")'
        if a.dt[0] == "f" and dt in INTS and a.v.size:
            # a float outside the integer type: C's conversion, undefined (NumPy on x86 gives
            # 0 through int32 for astype(full(1, -2.0**32 - 1), "uint16"), tessera wraps)
            ii = info(dt)
            if np.min(a.v) < ii.min or np.max(a.v) > ii.max:
                raise Reject("float outside the integer type")
        return self.ok(form % (a.text, dt))

    def g_index(self, shape, depth):
        """An integer index (negative too) that drops an axis, the others sliced or whole."""
        if len(shape) >= 4:
            raise Reject("ndim")
        ax = self.r.randint(0, len(shape))
        L = self.r.randint(1, 5)
        src = list(shape)
        src.insert(ax, L)
        a = self.gen(tuple(src), depth)
        subs = [":"] * len(src)
        subs[ax] = str(self.r.randint(-L, L - 1))
        while subs and subs[-1] == ":" and self.chance(0.5):
            subs.pop()
        return self.ok("(%s)[%s]" % (a.text, ", ".join(subs)))

    def g_rechunk(self, shape, depth):
        a = self.gen(shape, depth)
        if self.chance(0.3):
            return self.ok("persist(%s)" % a.text)
        ck = self.chunks(shape)[len(", chunks="):] or "-1"
        return self.ok("rechunk(%s, %s)" % (a.text, ck))

    def g_slice(self, shape, depth):
        if not shape:
            raise Reject("0-d")
        src, subs = [], []
        for n in shape:
            for _ in range(40):
                L = self.r.randint(n, n + 6)
                step = self.r.choice([1, 1, 2, 3, -1, -2])
                lo = self.r.choice([None, self.r.randint(-L - 2, L + 2)])
                hi = self.r.choice([None, self.r.randint(-L - 2, L + 2)])
                if len(range(L)[slice(lo, hi, step)]) == n:
                    break
            else:
                L, lo, hi, step = n, None, None, 1
            src.append(L)
            s = "%s:%s" % ("" if lo is None else lo, "" if hi is None else hi)
            if step != 1 or self.chance(0.2):
                s += ":%d" % step
            subs.append(s)
        if nelem(src) > 4 * MAX_ELEMS:
            raise Reject("big")
        a = self.gen(tuple(src), depth)
        return self.ok("(%s)[%s]" % (a.text, ", ".join(subs)))

    def axis_text(self, ax, nd):
        return str(ax - nd if self.chance(0.4) else ax)

    def g_reduce(self, shape, depth):
        f = self.r.choice(["sum", "prod", "min", "max", "any", "all", "argmax", "argmin", "count_nonzero",
                           "nansum", "nanprod", "nanmin", "nanmax", "ptp", "ptp"])
        keep = self.chance(0.4)
        if not keep and len(shape) <= 2 and f not in ("argmax", "argmin") and self.chance(0.25):
            # a tuple of two axes (negative too)
            src = list(shape)
            p, q = sorted(self.r.sample(range(len(shape) + 2), 2))
            src.insert(p, self.r.choice([0, 1, 2, 3, 5]))
            src.insert(q, self.r.choice([1, 2, 3, 4]))
            src = tuple(src)
            if nelem(src) > 2 * MAX_ELEMS:
                raise Reject("big")
            a = self.gen(src, depth)
            axs = [self.axis_text(p, len(src)), self.axis_text(q, len(src))]
            self.r.shuffle(axs)
            text = "%s(%s, axis=(%s))" % (f, a.text, ", ".join(axs))
            return self.ok(text, self.red_unwrapped(f, a))
        if self.chance(0.3):
            # a full reduction: any operand shape
            if keep:
                if any(x != 1 for x in shape):
                    raise Reject("keepdims")
                src = self.shape(len(shape))
            else:
                if shape:
                    raise Reject("full")
                src = self.shape()
            a = self.gen(src, depth)
            kw = ", keepdims=True" if keep else ""
            text = "%s(%s%s)" % (f, a.text, kw)
            if keep and self.chance(0.5):
                text = "%s(%s, axis=None%s)" % (f, a.text, kw)
        else:
            ax, src = self.reduced_source(shape, keep, [0, 1, 2, 3, 5], [0, 1, 2, 3, 5])
            src = tuple(src)
            if nelem(src) > 2 * MAX_ELEMS or len(src) > 4:
                raise Reject("big")
            a = self.gen(src, depth)
            text = "%s(%s, axis=%s%s)" % (f, a.text, self.axis_text(ax, len(src)),
                                          ", keepdims=True" if keep else "")
            if self.chance(0.15) and f in ("sum", "prod", "min", "max", "any", "all", "argmax", "argmin"):
                text = "(%s).%s(axis=%s%s)" % (a.text, f, self.axis_text(ax, len(src)),
                                               ", keepdims=True" if keep else "")
        return self.ok(text, self.red_unwrapped(f, a))

    def reduced_source(self, shape, keep, kept_sizes, new_sizes):
        """The axis ax and the operand's shape of a reduction to shape: with keepdims one
        of shape's length-1 axes grown to a size of kept_sizes, else a new axis of a
        size of new_sizes inserted."""
        src = list(shape)
        if keep:
            ones = [i for i, x in enumerate(shape) if x == 1]
            if not ones:
                raise Reject("keepdims")
            ax = self.r.choice(ones)
            src[ax] = self.r.choice(kept_sizes)
        else:
            ax = self.r.randint(0, len(shape))
            src.insert(ax, self.r.choice(new_sizes))
        return ax, src

    def red_unwrapped(self, f, a):
        un = None
        av = a.v.astype(np.float64)
        with np.errstate(all="ignore"):
            if f in ("sum", "nansum"):
                un = np.sum(np.abs(av))
            elif f in ("prod", "nanprod"):
                un = np.prod(np.maximum(np.abs(av), 1))
            elif f == "ptp":
                un = 2 * np.max(np.abs(av), initial=0)
        return un

    def g_quantile(self, shape, depth):
        """median, quantile, percentile (exact: NumPy's bits on the same values); a q of
        integers only keeps the array's dtype."""
        f = self.r.choice(["median", "quantile", "quantile", "percentile"])
        q = None
        rshape = list(shape)
        if f != "median":
            vals = ["0", "1", "0.5", "0.25", "0.3", "1.0"] if f == "quantile" else ["0", "50", "100", "25", "12.5", "99"]
            if shape and 1 <= shape[0] <= 3 and self.chance(0.4):
                q = "[%s]" % ", ".join(self.r.choice(vals) for _ in range(shape[0]))
                rshape = rshape[1:]
            else:
                q = self.r.choice(vals)
        keep = self.chance(0.3)
        ax, src = self.reduced_source(rshape, keep, [1, 2, 3, 4, 5], [1, 2, 3, 4, 5, 6])
        if len(src) > 4:
            raise Reject("ndim")
        a = self.gen(tuple(src), depth)
        args = [a.text] + ([q] if q else []) + ["axis=%s" % self.axis_text(ax, len(src))]
        if keep:
            args.append("keepdims=True")
        return self.ok("%s(%s)" % (f, ", ".join(args)))

    def g_scan(self, shape, depth):
        f = self.r.choice(["cumsum", "cumprod", "diff", "nancumsum", "nancumprod", "sort", "sort"])
        if not shape:
            raise Reject("0-d")
        if f == "sort":
            if len(shape) == 1 and self.chance(0.3):
                src = self.shape(self.r.randint(1, 3))
                if nelem(src) != shape[0]:
                    src = shape
                return self.ok("sort(%s, axis=None)" % self.gen(src, depth).text)
            ax = self.r.randrange(len(shape))
            a = self.gen(shape, depth)
            if ax == len(shape) - 1 and self.chance(0.4):
                return self.ok("sort(%s)" % a.text)
            return self.ok("sort(%s, axis=%s)" % (a.text, self.axis_text(ax, len(shape))))
        if f == "diff":
            ax = self.r.randrange(len(shape))
            n = self.r.choice([1, 1, 2])
            src = list(shape)
            src[ax] += n
            a = self.gen(tuple(src), depth)
            args = "" if (ax == len(shape) - 1 and self.chance(0.5)) else ", axis=%s" % self.axis_text(ax, len(shape))
            if n != 1:
                args = ", n=%d" % n + args
            return self.ok("diff(%s%s)" % (a.text, args), np.diff(a.v.astype(np.float64), n=n, axis=ax))
        sdt = None
        if len(shape) == 1 and self.chance(0.3):
            src = self.shape(self.r.randint(1, 3))
            if nelem(src) != shape[0]:
                src = shape
            a = self.gen(src, depth)
            text = "%s(%s)" % (f, a.text)
            ax = None
        else:
            ax = self.r.randrange(len(shape))
            a = self.gen(shape, depth)
            text = "%s(%s, axis=%s)" % (f, a.text, self.axis_text(ax, len(shape)))
            if self.chance(0.2):
                sdt = self.r.choice(INTS)
                text = text[:-1] + ', dtype="%s")' % sdt
            elif self.chance(0.15) and f in ("cumsum", "cumprod"):
                text = "(%s).%s(axis=%s)" % (a.text, f, self.axis_text(ax, len(shape)))
        # the accumulation (in double in tessera) of the values converted to dtype= must stay exact
        av = np.abs((a.v.astype(sdt) if sdt else a.v).astype(np.float64))
        with np.errstate(all="ignore"):
            un = np.cumsum(av, axis=ax) if f.endswith("cumsum") else np.cumprod(np.maximum(av, 1), axis=ax)
        return self.ok(text, un)

    def case(self):
        depth = self.r.choice([1, 2, 2, 3, 3, 4, 5])
        return self.gen(self.shape(), depth).text


def case_text(seed, k):
    return EDGE[k] if k < len(EDGE) else Gen(seed, k).case()


def cases_of(seed, ncases, only):
    """Cases 0 to len(EDGE) - 1 are the fixed edge cases, then ncases random ones."""
    ks = only if only is not None else range(len(EDGE) + ncases)
    return [(k, case_text(seed, k)) for k in ks]


def job_text(cases):
    return "".join("r%d = %s\n" % (k, t) for k, t in cases)


def parse_only(s):
    if not s:
        return None
    return [int(x) for x in s.replace(",", " ").split()]


def cmd_gen(args):
    cases = cases_of(args.seed, args.cases, parse_only(args.only))
    with open(os.path.join(args.dir, "job.tsr"), "w") as f:
        f.write(job_text(cases))
    print("# seed %d: %d cases, job.tsr written" % (args.seed, len(cases)))


def repro_lines(args, k, text, mode):
    here = os.path.abspath(__file__)
    tessera = os.path.normpath(os.environ.get("TESSERA", "tessera"))
    script = os.path.join(os.path.dirname(here), "int_fuzz.sh")
    flags = " --no-fuse" if mode.startswith("nofuse") else ""
    pre = ""
    if mode.endswith("-3"):
        pre = "%s -np 3 --oversubscribe " % os.environ.get("MPIEXEC", "mpiexec")
    return [
        "reproduce: FUZZ_SEED=%d FUZZ_ONLY=%d TESSERA=%s sh %s" % (args.seed, k, tessera, script),
        "      or: %s%s --quiet%s eval '(%s)'" % (pre, tessera, flags, text),
        "   whole run: FUZZ_SEED=%d FUZZ_CASES=%d TESSERA=%s sh %s" % (args.seed, args.cases, tessera, script),
    ]


def fmt(v):
    v = np.asarray(v)
    flat = [repr(x.item()) for x in v.ravel()[:24]]
    more = " ... (%d in all)" % v.size if v.size > 24 else ""
    return "[" + ", ".join(flat) + "]" + more


def cmd_check(args):
    import h5py

    cases = cases_of(args.seed, args.cases, parse_only(args.only))
    results = {}
    for spec in args.results:
        mode, path = spec.split("=", 1)
        excl = set()
        if os.path.exists(path + ".excluded"):
            with open(path + ".excluded") as f:
                excl = {int(x) for x in f.read().split()}
        if not os.path.exists(path):
            print("# %s: no results file (the job failed)" % mode)
            continue
        vals = {}
        with h5py.File(path, "r") as f:
            for k, _ in cases:
                if "r%d" % k in f:
                    ds = f["r%d" % k]
                    vals[k] = np.asarray(ds[()])
        results[mode] = (vals, excl)
    nbad = nvalues = 0
    for k, text in cases:
        try:
            ref = np_eval(text)
        except Exception as exc:  # noqa: BLE001
            print("int_fuzz: case %d: NumPy side refuses: %s: %s" % (k, exc, text))
            nbad += 1
            continue
        for mode, (vals, excl) in results.items():
            if k in excl:
                continue
            probs = []
            got = vals.get(k)
            if got is None:
                probs.append("r%d is not in the results file" % k)
            else:
                if got.shape != ref.shape:
                    probs.append("shape %s, expected %s" % (got.shape, ref.shape))
                if got.dtype != ref.dtype:
                    probs.append("dtype %s, expected %s" % (got.dtype, ref.dtype))
                if got.shape == ref.shape and not np.array_equal(got, ref, equal_nan=ref.dtype.kind == "f"):
                    bad = np.argwhere(got != ref) if got.ndim else [()]
                    for ii in bad[:5]:
                        t = tuple(ii)
                        probs.append("at %s: got %r, expected %r" % (list(t), got[t].item(), ref[t].item()))
                    if len(bad) > 5:
                        probs.append("... %d of %d elements differ" % (len(bad), ref.size))
                nvalues += ref.size
            if probs:
                nbad += 1
                print("MISMATCH seed=%d case=%d mode=%s" % (args.seed, k, mode))
                print("  expr: r%d = %s" % (k, text))
                for p in probs:
                    print("  " + p)
                print("  numpy:   shape %s %s %s" % (ref.shape, ref.dtype, fmt(ref)))
                if got is not None:
                    print("  tessera: shape %s %s %s" % (got.shape, got.dtype, fmt(got)))
                for line in repro_lines(args, k, text, mode):
                    print("  " + line)
        base = None
        for mode in MODES:
            if mode in results and k in results[mode][0]:
                g = results[mode][0][k]
                if base is None:
                    base = (mode, g)
                elif g.shape != base[1].shape or g.dtype != base[1].dtype or g.tobytes() != base[1].tobytes():
                    nbad += 1
                    print("MISMATCH seed=%d case=%d: %s and %s results differ" % (args.seed, k, base[0], mode))
                    print("  expr: r%d = %s" % (k, text))
                    print("  %s: %s %s" % (base[0], base[1].dtype, fmt(base[1])))
                    print("  %s: %s %s" % (mode, g.dtype, fmt(g)))
                    for line in repro_lines(args, k, text, mode):
                        print("  " + line)
    print("# seed %d: %d cases, %d values compared in %d mode(s), %d problem(s)" % (
        args.seed, len(cases), nvalues, len(results), nbad))
    sys.exit(1 if nbad else 0)


def cmd_isolate(args):
    cmd = args.command
    if cmd and cmd[0] == "--":
        cmd = cmd[1:]
    cases = cases_of(args.seed, args.cases, parse_only(args.only))
    texts = dict(cases)

    def run(ks, out):
        job = os.path.join(args.dir, "isolate.tsr")
        with open(job, "w") as f:
            f.write(job_text([(k, texts[k]) for k in ks]))
        if os.path.exists(out):
            os.remove(out)
        p = subprocess.Popen(cmd + ["run", job, "-o", out], stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, start_new_session=True)
        try:
            _, err = p.communicate(timeout=args.timeout)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.communicate()
            return False, "timed out after %d s (a hang)" % args.timeout
        return p.returncode == 0, "exit %d: %s" % (p.returncode, err.decode(errors="replace")[-600:])

    def bisect(ks):
        if len(ks) == 1:
            return ks
        half = len(ks) // 2
        for part in (ks[:half], ks[half:]):
            if not run(part, os.path.join(args.dir, "isolate.h5"))[0]:
                return bisect(part)
        return ks

    left = [k for k, _ in cases]
    culprits = []
    out = os.path.abspath(args.mode + ".h5")
    while left and len(culprits) < 8:
        ok, why = run(left, out)
        if ok:
            break
        bad = bisect(left)
        _, why = run(bad, os.path.join(args.dir, "isolate.h5"))
        culprits += bad
        if len(bad) > 1:
            print("JOB FAILURE seed=%d cases %s mode=%s fail only together: %s" % (
                args.seed, ",".join(map(str, bad[:10])), args.mode, why.strip()))
            break
        k = bad[0]
        print("JOB FAILURE seed=%d case=%d mode=%s: %s" % (args.seed, k, args.mode, why.strip()))
        print("  expr: r%d = %s" % (k, texts[k]))
        for line in repro_lines(args, k, texts[k], args.mode):
            print("  " + line)
        left = [x for x in left if x not in bad]
    with open(out + ".excluded", "w") as f:
        f.write(" ".join(map(str, culprits)) + "\n")
    print("# %s: %d failing case(s) isolated" % (args.mode, len(culprits)))
    sys.exit(1 if culprits else 0)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    for name in ("gen", "check", "isolate"):
        p = sub.add_parser(name)
        p.add_argument("--seed", type=int, default=0)
        p.add_argument("--cases", type=int, default=600)
        p.add_argument("--only", default="")
        p.add_argument("--dir", default=".")
        if name == "check":
            p.add_argument("results", nargs="*", help="MODE=FILE.h5")
        if name == "isolate":
            p.add_argument("--mode", required=True)
            p.add_argument("--timeout", type=int, default=120)
            p.add_argument("command", nargs=argparse.REMAINDER)
    args = ap.parse_args()
    {"gen": cmd_gen, "check": cmd_check, "isolate": cmd_isolate}[args.cmd](args)


if __name__ == "__main__":
    main()
