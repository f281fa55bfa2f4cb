"""Corpus of scripts/numpy_compat.py: the inputs and the cases.

Every text is valid for tessera and, with tessera's keywords chunks= and
seed= dropped (numpy_compat.py's proxy does that), for NumPy.  Inputs have
several chunks with ragged edges; cases name them.  A case whose NumPy
spelling differs (x.compute(), x.persist(), x.rechunk()) gives np_expr.
"""

# name, expression: deterministic inputs (identical on both sides)
INPUTS = [
    # (7, 9) float64, chunks (3, 4): 0..62
    ("A", "np.arange(0, 7, dtype='float64', chunks=3)[:, None] * 9"
          " + np.arange(0, 9, dtype='float64', chunks=4)"),
    ("Z", "A / 31 - 1"),                      # [-1, 1]
    ("U", "A / 63 * 0.9 + 0.05"),             # (0, 1)
    ("G", "A + 1"),                           # >= 1
    ("V", "np.linspace(-3, 3, 23, chunks=5)"),  # 1-d, ragged
    ("W", "np.linspace(0.5, 2, 9, chunks=4)"),  # weights along axis 1
    ("A3", "np.arange(0, 4, dtype='float64', chunks=3)[:, None, None] * 30"
           " + np.arange(0, 5, dtype='float64', chunks=2)[None, :, None] * 6"
           " + np.arange(0, 6, dtype='float64', chunks=4)"),
    ("F", "A.astype('float32')"),
    ("FV", "V.astype('float32')"),
    # NaN in the first 20 elements (rows 0 and 1 entirely)
    ("N", "np.sqrt(A - 20)"),
    # NaN, -inf, finite, 0-ish, +inf
    ("S", "np.exp(np.linspace(-800, 800, 23, chunks=5))"
          " - np.exp(np.linspace(800, -800, 23, chunks=5))"
          " + np.sqrt(np.linspace(-1, 5, 23, chunks=5))"),
    ("E", "np.zeros((0,), chunks=1)"),
    ("E2", "np.ones((0, 3), chunks=2)"),
    # integer inputs (int64 in NumPy)
    ("I", "np.arange(0, 23, chunks=5)"),
    ("J", "np.arange(1, 10, chunks=4)"),
    ("I2", "np.arange(0, 7, chunks=3)[:, None] * 9 + np.arange(0, 9, chunks=4) - 30"),
    # booleans
    ("B", "A > 30"),
    ("B2", "np.sin(A) > 0"),
]


LOAD_DTYPES = ["float64", "float32", "int8", "int16", "int32", "int64",
               "uint8", "uint16", "uint32", "uint64", "bool"]


def write_data(path):
    """The HDF5 file the load cases read (needs h5py)."""
    import h5py
    import numpy as np
    a = np.arange(63).reshape(7, 9)
    with h5py.File(path, "w") as f:
        for d in LOAD_DTYPES:
            if d == "bool":
                v = a % 3 == 0
            elif d.startswith("int"):
                v = (a - 30).astype(d)
            else:
                v = a.astype(d)
            f.create_dataset(d, data=v, chunks=(4, 4))


class Case:
    def __init__(self, category, expr, np_expr=None, nout=1, check="value",
                 pred=None, check_dtype=True):
        self.category = category
        self.expr = expr
        self.np_expr = np_expr
        self.nout = nout
        self.check = check
        self.pred = pred
        self.check_dtype = check_dtype
        self.id = None


def cases():
    out = []

    def c(cat, expr, **kw):
        out.append(Case(cat, expr, **kw))

    # ------------------------------------------------------------ creation
    k = "creation"
    for e in [
        "np.arange(10, chunks=3)",
        "np.arange(2, 20, 3, chunks=4)",
        "np.arange(10, 0, -2, chunks=2)",
        "np.arange(0.5, 5.0, 0.5, chunks=3)",
        "np.arange(0, 10, dtype='float32', chunks=3)",
        "np.arange(0, 10, dtype='float64', chunks=3)",
        "np.arange(0, 10, dtype='int32', chunks=3)",
        "np.arange(0, 10, dtype='uint8', chunks=3)",
        "np.arange(-5, 5, dtype='int8', chunks=3)",
        "np.arange(0, 10, dtype='int16', chunks=3)",
        "np.arange(0, 10, dtype='uint16', chunks=4)",
        "np.arange(0, 10, dtype='uint32', chunks=4)",
        "np.arange(0, 10, dtype='uint64', chunks=4)",
        "np.arange(0, 10, dtype='int64', chunks=4)",
        "np.linspace(0, 1, 11, chunks=4)",
        "np.linspace(0, 1, 10, endpoint=False, chunks=3)",
        "np.linspace(-5, 5, 7, dtype='float32', chunks=3)",
        "np.linspace(0, 10, 6, dtype='int64', chunks=4)",
        "np.zeros((4, 5), chunks=(3, 2))",
        "np.ones((4, 5), chunks=2)",
        "np.ones(5, dtype='int64', chunks=2)",
        "np.zeros(5, dtype=bool, chunks=2)",
        "np.ones((2, 3), dtype='float32', chunks=2)",
        "np.full((3, 4), 7.5, chunks=2)",
        "np.full((3, 4), 7, chunks=2)",
        "np.full((3, 4), True, chunks=2)",
        "np.full((3, 4), 2.5, dtype='float32', chunks=2)",
        "np.eye(5, chunks=2)",
        "np.eye(4, 6, k=1, chunks=3)",
        "np.eye(5, k=-2, chunks=2)",
        "np.eye(3, dtype='int64', chunks=2)",
        "np.identity(4, chunks=3)",
        "np.tri(4, chunks=2)",
        "np.tri(4, 5, k=1, chunks=3)",
        "np.zeros_like(A)",
        "np.ones_like(A)",
        "np.full_like(A, 3.5)",
        "np.ones_like(A, dtype='float32')",
        "np.zeros_like(I2)",
        "np.full_like(I2, 2)",
        "np.ones_like(B)",
        "np.full_like(A, 7, dtype='int32')",
        "np.zeros((0,), chunks=1)",
        "np.arange(0, chunks=1)",
        "np.zeros(5)", "np.ones((3, 3))", "np.arange(12)",
        "np.array([1.0, 2.0, 3.0])", "np.asarray([[1, 2], [3, 4]])", "np.array([True, False])",
        "np.linspace(0, 1, 0, chunks=1)",
    ]:
        c(k, e)
    c(k, "np.empty((3, 4), chunks=2)", check="meta")
    c(k, "np.empty_like(A)", check="meta")
    c(k, "np.empty((3, 4), dtype='int32', chunks=2)", check="meta")
    c(k, "np.meshgrid(np.arange(0., 4., chunks=3), np.arange(0., 3., chunks=2))", nout=2)
    c(k, "np.meshgrid(np.arange(0., 4., chunks=3), np.arange(0., 3., chunks=2), indexing='ij')",
      nout=2)
    c(k, "np.meshgrid(np.linspace(0, 1, 5, chunks=2), np.linspace(-1, 1, 3, chunks=2), indexing='xy')",
      nout=2)

    # ------------------------------------------------------------ dtypes
    k = "dtype"
    for e in [
        "I", "J", "I2",
        "A.astype('int32')", "A.astype('uint8')", "(A - 30).astype('int8')",
        "(A * 100).astype('int16')", "A.astype('uint16')", "A.astype('uint32')",
        "A.astype('uint64')", "A.astype('int64')", "A.astype(bool)",
        "Z.astype(bool)", "A.astype('float32')", "F.astype('float64')",
        "A.astype(np.int32)", "A.astype(np.float32)", "(V * 2.7).astype('int64')",
        "I.astype('float64')", "I.astype('float32')", "I.astype('int8')",
        "B.astype('float64')", "B.astype('int64')",
        "np.sum(A > 30)", "(A > 30).sum()", "B.sum(axis=0)",
        "np.mean(I)", "I2.mean(axis=1)",
        "I + 1", "I * 2.5", "I / 2", "I // 2", "I * I", "I - J[0]",
        "F + 1", "F * 2.0", "F + A", "F + F", "F + I2",
        "I.astype('int32') + 1", "I.astype('int32') * 1.5",
        "I.astype('int8') + I.astype('int16')",
        "I.astype('uint8') + I.astype('int8')",
        "I.astype('uint8') + 1", "I.astype('int32') + I",
        "I.astype('float32') + I.astype('int32')",
        "I.sum()", "I.astype('int32').sum()", "I.astype('uint8').sum()",
        "I.max()", "I2.min(axis=0)", "F.sum()", "F.mean()", "F.sum(axis=0)",
        "FV.std()", "B + B2", "B * 2", "B + 1.5", "B + 1",
        # NEP 50: Python scalars are weak, NumPy scalars and arrays are not
        "I.astype('int8') * 2", "I.astype('uint8') * 2.5", "I.astype('int16') + 1.0",
        "I.astype('float32') + 1.0", "I.astype('uint32') + I.astype('int32')",
        "I.astype('uint64') + I", "F + np.float64(1)", "I.astype('int8') + np.int64(1)",
        "F * np.float32(2)", "FV / 3", "FV // 1", "I.astype('uint16') // 3",
        # integer wraparound, division by zero, bool reductions, dtype=
        "I.astype('uint8') - 5", "I.astype('int8') * 100", "I2 // 0", "I2 % 0",
        "I / J[0]", "np.sum(B)", "B.mean()", "np.mean(B, axis=0)", "np.max(B)",
        "np.min(B, axis=1)", "A.sum(dtype='float32')", "np.mean(F, dtype='float64')",
        "np.sum(I2, axis=0, dtype='int32')", "np.var(F, axis=0)", "np.abs(I.astype('int8') - 10)",
    ]:
        c(k, e)

    # ------------------------------------------------------------ operators
    k = "operators"
    for e in [
        "A < 30", "A <= 30", "A > 30", "A >= 30", "A == 30", "A != 30",
        "V < 0", "A < A[0]", "A > A.mean(axis=0)",
        "S > 0", "S == S", "I2 < 0", "I == 5",
        "B & B2", "B | B2", "B ^ B2", "~B",
        "I2 & 5", "I2 | 5", "I2 ^ 5", "~I2", "I2 << 2", "I2 >> 1",
        "I2 // 7", "I2 % 7", "I2 // -4", "I2 % -4",
        "A // 7", "A % 7", "-A % 7", "V // 0.7", "V % 0.7", "V % -0.7",
        "-I2", "A ** 2", "I2 ** 2", "2 ** V", "A / 0.0", "-A / 0.0",
        "V @ V", "A @ W", "+A", "-V", "1 - A", "2.5 / G",
    ]:
        c(k, e)

    # ------------------------------------------------------------ elementwise
    k = "elementwise"
    for f, x in [
        ("sqrt", "G"), ("exp", "Z"), ("log", "G"), ("sin", "A"), ("cos", "A"),
        ("tanh", "Z"), ("abs", "V"), ("absolute", "V"), ("fabs", "V"),
        ("negative", "V"), ("log1p", "U"), ("expm1", "Z"), ("log2", "G"),
        ("log10", "G"), ("exp2", "Z"), ("tan", "Z"), ("arcsin", "Z"),
        ("arccos", "Z"), ("arctan", "A"), ("sinh", "Z"), ("cosh", "Z"),
        ("arcsinh", "V"), ("arccosh", "G"), ("arctanh", "U"), ("floor", "V"),
        ("ceil", "V"), ("trunc", "V"), ("rint", "V * 2"), ("sign", "V"),
        ("square", "V"), ("reciprocal", "G"), ("cbrt", "V"), ("deg2rad", "A"),
        ("rad2deg", "Z"), ("degrees", "Z"), ("radians", "A"),
        ("sin", "F"), ("exp", "FV"), ("sqrt", "F"), ("log", "F + 1"),
    ]:
        c(k, "np.%s(%s)" % (f, x))
    for e in [
        "np.round(V, 2)", "np.around(V, 1)", "np.round(A * 10.5, -1)", "np.round(V)",
        "V.round(1)", "np.round(V * 2.5)",
        "np.arctan2(V, V[::-1])", "np.hypot(V, V[::-1])", "np.fmod(V, 0.7)",
        "np.fmod(A, -4)", "np.mod(V, 0.7)", "np.remainder(V, -0.7)",
        "np.floor_divide(V, 0.7)", "np.fmin(S, V)", "np.fmax(S, V)",
        "np.minimum(S, V)", "np.maximum(S, V)", "np.copysign(A, Z)",
        "np.logaddexp(Z, A / 10)", "np.logaddexp2(Z, A / 10)", "np.nextafter(V, 0)",
        "np.heaviside(V, 0.5)", "np.power(G, 0.5)", "np.add(A, Z)",
        "np.subtract(A, 1)", "np.multiply(A, W)", "np.divide(A, G)",
        "np.true_divide(A, 4)", "np.power(V, 2)",
        "np.clip(A, 10, 50)", "A.clip(10, 50)", "np.clip(A, None, 20)",
        "np.clip(V, -1, None)", "np.clip(I2, -5, 5)", "I2.clip(0, 10)",
        "np.sign(I2)", "np.square(I2)", "np.abs(I2)", "np.negative(I2)",
        "np.floor_divide(I2, 4)", "np.mod(I2, 4)", "np.fmod(I2, 4)",
        "np.minimum(I2, 3)", "np.maximum(I2, J[2])", "np.sqrt(I)", "np.exp(I / 10)",
        "np.floor(I)", "np.sin(I)",
    ]:
        c(k, e)

    # ------------------------------------------------------------ logical / where
    k = "logical"
    for e in [
        "np.logical_and(B, B2)", "np.logical_or(B, B2)", "np.logical_not(B)",
        "np.logical_xor(B, B2)", "np.logical_and(A, Z)", "np.logical_not(A)",
        "np.equal(A, 30)", "np.not_equal(A, 30)", "np.less(A, 30)",
        "np.less_equal(A, 30)", "np.greater(A, 30)", "np.greater_equal(A, 30)",
        "np.greater(V, V[::-1])", "np.equal(I2, 0)",
        "np.where(A > 30, A, -A)", "np.where(B, 1.0, 0.0)", "np.where(V > 0, V, 0)",
        "np.where(B, I2, 0)", "np.where(S > 0, S, np.nan)",
        "np.isclose(A, A + 1e-10)", "np.isclose(V, 0)", "np.allclose(A, A + 1e-10)",
        "np.allclose(A, A + 1)",
        "np.isin(I, [1, 3, 5])", "np.isin(A, [0, 10, 62])",
        "np.any(B)", "np.all(B)", "B.any()",
        "np.flatnonzero(V > 0)", "V[V > 0]", "A[A > 50]", "np.count_nonzero(B)",
        "np.argwhere(V > 1)",
        "np.array_equal(A, A)", "np.extract(V > 1, V)",
    ]:
        c(k, e)
    c(k, "np.where(V > 0)", nout=1, np_expr="np.where(V > 0)[0]")

    # ------------------------------------------------------------ NaN / inf
    k = "nan_inf"
    for e in [
        "S", "np.isnan(S)", "np.isinf(S)", "np.isfinite(S)", "np.signbit(V)",
        "np.signbit(S)", "np.nan_to_num(S)", "np.nan_to_num(S, nan=-1.0, posinf=99.0, neginf=-99.0)",
        "np.sin(S)", "np.exp(S)", "np.log(V)", "np.sqrt(S)", "S + 1", "S * 0",
        "np.maximum(S, 0)", "np.fmax(S, 0)", "np.minimum(S, 0)", "np.fmin(S, 0)",
        "np.sum(S)", "np.max(S)", "np.min(S)", "np.nanmax(S)", "np.nanmin(S)",
        "np.nansum(S)", "np.isnan(N).sum()", "np.sign(S)", "np.abs(S)", "np.floor(S)",
        "np.clip(S, -1, 1)", "np.round(S, 1)", "1 / S", "S // 2", "S % 3",
        "np.arctan(S)", "np.tanh(S)", "np.cumsum(S)", "np.isnan(np.nan)",
        "np.isinf(A / 0.0)", "np.nan_to_num(N)",
    ]:
        c(k, e)

    # ------------------------------------------------------------ reductions
    k = "reductions"
    for f in ["sum", "mean", "min", "max", "var", "std"]:
        for a in ["", ", axis=0", ", axis=1", ", axis=-1", ", axis=(0, 1)",
                  ", axis=0, keepdims=True", ", keepdims=True"]:
            c(k, "np.%s(A%s)" % (f, a))
        c(k, "A.%s(axis=-2)" % f)
        c(k, "np.%s(A3, axis=(0, 2))" % f)
    for e in [
        "np.var(A, axis=0, ddof=1)", "np.std(A3, axis=-1, ddof=1)", "A.std(ddof=1)",
        "np.sum(A3, axis=1, keepdims=True)", "np.max(A3, axis=(1, 2), keepdims=True)",
        "np.mean(A3, axis=-1)", "np.sum(V)", "V.max()", "V.min()", "(A * 2).mean()",
        "np.prod(G / 30)", "np.prod(G / 30, axis=0)", "np.prod(G / 30, axis=1, keepdims=True)",
        "(G / 30).prod(axis=-1)", "np.prod(J)", "np.prod(V)",
        "np.any(A)", "np.all(A)", "np.all(G)", "np.any(B, axis=0)", "np.all(B, axis=1)",
        "B.any(axis=1)", "B.all(axis=-1, keepdims=True)", "np.any(B, axis=(0, 1))",
        "np.argmax(A)", "np.argmin(A)", "np.argmax(V)", "np.argmin(V)",
        "np.argmax(A, axis=0)", "np.argmin(A, axis=1)", "np.argmax(Z * Z, axis=-1)",
        "A.argmax(axis=1)", "V.argmin()", "np.argmax(np.sin(A), axis=0)",
        "np.count_nonzero(A)", "np.count_nonzero(np.floor(Z), axis=0)",
        "np.count_nonzero(B, axis=1)",
        "np.nansum(N)", "np.nansum(N, axis=0)", "np.nanprod(N / 5, axis=1)",
        "np.nanprod(N / 5)", "np.nanmean(N)", "np.nanmean(N, axis=0)",
        "np.nanmean(N[2:], axis=1)", "np.nanvar(N)", "np.nanvar(N, axis=0)",
        "np.nanstd(N)", "np.nanstd(N, axis=0, ddof=1)",
        "np.nanmin(N)", "np.nanmax(N)", "np.nanmin(N, axis=0)", "np.nanmax(N[2:], axis=1)",
        "np.nanargmin(N[3:])", "np.nanargmax(N[3:])", "np.nanargmin(N[3:], axis=0)",
        "np.nanargmax(N[2:], axis=1)",
        "np.ptp(A)", "np.ptp(A, axis=0)", "np.ptp(V)",
        "np.average(A)", "np.average(A, axis=1, weights=W)", "np.average(A, weights=G)",
        "np.average(A, axis=0)",
        "np.median(A)", "np.median(A, axis=0)", "np.median(V)", "np.median(A, axis=1)",
        "np.percentile(A, 30)", "np.percentile(V, 90)", "np.percentile(A, 25, axis=0)",
        "np.percentile(A, [10, 90])",
        "np.quantile(V, 0.25)", "np.quantile(A, 0.5, axis=1)", "np.quantile(A, [0.1, 0.5, 0.9])",
        "I.sum()", "I2.max(axis=0)", "I2.mean(axis=1)", "I2.sum(axis=1, keepdims=True)",
        "np.var(I)", "np.std(I2, axis=0)",
        "np.sum(E)", "np.prod(E)", "E2.sum(axis=0)", "E2.sum(axis=1)", "np.mean(E2, axis=0)",
        "np.max(E2, axis=1)",
        "F.max(axis=1)", "F.var()", "np.mean(F, axis=0)",
    ]:
        c(k, e)

    # ------------------------------------------------------------ scans
    k = "scans"
    for e in [
        "np.cumsum(A)", "np.cumsum(A, axis=0)", "np.cumsum(A, axis=1)", "np.cumsum(V)",
        "np.cumsum(A, axis=-1)", "A.cumsum(axis=1)", "np.cumsum(I)", "np.cumsum(B, axis=0)",
        "np.cumprod(G / 40, axis=1)", "np.cumprod(V)", "np.cumprod(J)",
        "np.cumprod(G / 60, axis=0)",
        "np.nancumsum(N, axis=0)", "np.nancumsum(N)", "np.nancumprod(N / 5, axis=1)",
        "np.diff(V)", "np.diff(A, axis=0)", "np.diff(A, n=2, axis=1)", "np.diff(A)",
        "np.diff(A, axis=-2)", "np.diff(I)", "np.diff(V, n=3)",
        "np.cumsum(F, axis=0)", "np.cumsum(E)",
    ]:
        c(k, e)

    # ------------------------------------------------------------ shape / indexing
    k = "shape"
    for e in [
        "A.T", "np.transpose(A)", "V.T", "np.transpose(A3)", "np.transpose(A3, (1, 0, 2))",
        "A.reshape(9, 7)", "A.reshape(-1)", "A.reshape((3, 21))", "np.reshape(V[:20], (4, 5))",
        "A.ravel()", "A.flatten()", "np.ravel(A3)",
        "np.concatenate([A, A], axis=0)", "np.concatenate([A, G], axis=1)",
        "np.concatenate([V, V])", "np.concatenate([E, V])",
        "np.stack([V, V])", "np.stack([A, A], axis=-1)", "np.vstack([A, A])", "np.hstack([V, V])",
        "np.column_stack([V, V])",
        "np.expand_dims(V, 0)", "np.squeeze(A[:, :1])", "A[None]", "A[:, None, :]",
        "A[::2, 1::3]", "A[-1]", "A[2, 3]", "A[:, -1]", "A[:, ::-1]", "V[::-2]",
        "A3[1:, :, ::2]", "A3[..., 0]", "A[..., 1:3]",
        "np.flip(A, axis=0)", "np.fliplr(A)", "np.flipud(A)", "np.roll(V, 3)",
        "np.roll(A, -2, axis=1)", "np.tile(V, 2)", "np.repeat(V, 2)",
        "np.broadcast_to(V, (3, 23))", "np.swapaxes(A, 0, 1)", "np.moveaxis(A3, 0, -1)",
        "np.atleast_2d(V)", "A[[0, 2]]", "V[[1, 3, 5]]", "np.take(V, [1, 3])",
        "np.triu(A)", "np.tril(A, k=-1)", "np.diag(A)", "np.diagonal(A)",
        "np.pad(V, 2)", "np.split(V[:20], 4)[1]", "np.array_split(V, 3)[2]",
        "A.ndim", "A.size", "A3.ndim", "len(V)",
    ]:
        c(k, e)
    c(k, "A.shape", nout=2)
    c(k, "A3.shape", nout=3)

    # ------------------------------------------------------------ sort / set / search
    k = "sort_set"
    for e in [
        "np.sort(V[::-1])", "np.sort(A, axis=0)", "np.sort(-A, axis=1)", "np.sort(np.sin(A))",
        "np.argsort(V[::-1])", "np.argsort(np.sin(V))", "np.unique(np.floor(A / 10))",
        "np.unique(I2 % 5)", "np.unique(np.round(V))", "np.searchsorted(V, 0.5)",
        "np.searchsorted(V, [0, 1])", "np.sort(I2 % 5, axis=1)", "np.max(np.sort(V))",
        "np.union1d(I[:5], J)", "np.intersect1d(I, J)", "np.setdiff1d(I[:10], J)",
        "np.bincount(J)", "np.histogram(V, bins=4)[0]", "np.digitize(V, [-1, 0, 1])",
    ]:
        c(k, e)

    # ------------------------------------------------------------ linear algebra
    k = "linalg"
    for e in [
        "A @ A.T", "A.T @ A", "np.matmul(A, W)", "np.dot(V, V)", "A.dot(W)",
        "np.dot(A, A.T)", "V @ V", "F @ F.T", "(A / 10) @ np.eye(9, chunks=4)",
        "np.linalg.norm(V)", "np.linalg.norm(A)", "np.linalg.norm(A, axis=0)",
        "np.linalg.norm(A, axis=1)", "np.linalg.norm(V, ord=1)", "np.linalg.norm(V, ord=np.inf)",
        "np.outer(V, V[:5])", "np.inner(V, V)", "np.trace(A @ A.T)", "np.vdot(V, V)",
        "np.linalg.inv(A.T @ A + 100 * np.eye(9, chunks=4))",
        "np.linalg.det(A[:3, :3] + np.eye(3, chunks=2))",
        "np.linalg.solve(A.T @ A + 100 * np.eye(9, chunks=4), W)",
        "np.linalg.svd(A, compute_uv=False)", "np.tensordot(A, A, axes=([0], [0]))",
        "np.einsum('ij,ij->i', A, A)", "np.cross(V[:3], V[3:6])", "np.kron(V[:3], V[:2])",
    ]:
        c(k, e)

    # ------------------------------------------------------------ random
    k = "random"
    rnd = [
        ("np.random.standard_normal(size=(40, 30), chunks=(16, 16))",
         "np.all(np.isfinite(v)) & (abs(v.mean()) < 0.3)"),
        ("np.random.normal(5, 2, size=(1000,), chunks=300)", "abs(v.mean() - 5) < 0.5"),
        ("np.random.uniform(-1, 3, size=(1000,), chunks=300)", "(v >= -1) & (v <= 3)"),
        ("np.random.random(size=(100,), chunks=30)", "(v >= 0) & (v <= 1)"),
        ("np.random.random((10, 10), chunks=3)", "(v >= 0) & (v <= 1)"),
        ("np.random.rand(3, 4)", "(v >= 0) & (v <= 1)"),
        ("np.random.randn(100)", "np.isfinite(v)"),
        ("np.random.exponential(2.0, size=(1000,), chunks=300)", "v >= 0"),
        ("np.random.standard_exponential(size=(100,), chunks=30)", "v >= 0"),
        ("np.random.poisson(3.0, size=(1000,), chunks=300)", "(v >= 0) & (v == np.floor(v))"),
        ("np.random.binomial(10, 0.3, size=(1000,), chunks=300)",
         "(v >= 0) & (v <= 10) & (v == np.floor(v))"),
        ("np.random.gamma(2.0, 1.5, size=(1000,), chunks=300)", "v > 0"),
        ("np.random.beta(2, 3, size=(1000,), chunks=300)", "(v >= 0) & (v <= 1)"),
        ("np.random.chisquare(3, size=(1000,), chunks=300)", "v >= 0"),
        ("np.random.lognormal(0, 1, size=(1000,), chunks=300)", "v > 0"),
        ("np.random.choice(10, size=(50,), chunks=20)", "(v >= 0) & (v <= 9) & (v == np.floor(v))"),
        ("np.random.geometric(0.3, size=(1000,), chunks=300)", "(v >= 1) & (v == np.floor(v))"),
        ("np.random.laplace(0, 1, size=(1000,), chunks=300)", "np.isfinite(v)"),
        ("np.random.logistic(0, 1, size=(1000,), chunks=300)", "np.isfinite(v)"),
        ("np.random.standard_t(5, size=(1000,), chunks=300)", "np.isfinite(v)"),
        ("np.random.weibull(1.5, size=(1000,), chunks=300)", "v >= 0"),
        ("np.random.pareto(3.0, size=(1000,), chunks=300)", "v >= 0"),
        ("np.random.gumbel(0, 1, size=(1000,), chunks=300)", "np.isfinite(v)"),
        ("np.random.rayleigh(1, size=(1000,), chunks=300)", "v >= 0"),
        ("np.random.randint(0, 10, size=(50,), chunks=20)",
         "(v >= 0) & (v <= 9) & (v == np.floor(v))"),
        ("np.random.randint(5, size=(7, 9), chunks=(3, 4))",
         "(v >= 0) & (v <= 4) & (v == np.floor(v))"),
        ("np.random.default_rng(42).integers(0, 10, size=50)", "(v >= 0) & (v <= 9)"),
        ("np.random.default_rng(42).standard_normal(50)", "np.isfinite(v)"),
        ("np.random.default_rng(42).random((5, 4))", "(v >= 0) & (v <= 1)"),
        ("np.random.standard_normal(size=(4, 5), chunks=2).mean(axis=0)", "np.isfinite(v)"),
    ]
    for e, p in rnd:
        c(k, e, check="meta", pred=p)

    # ------------------------------------------------------------ prefixes and methods
    k = "prefix"
    for e, n in [
        ("numpy.sum(A)", None), ("da.sum(A)", None), ("dask.array.mean(A, axis=0)", None),
        ("da.exp(Z)", None), ("numpy.linspace(0, 1, 5, chunks=2)", None),
        ("da.ones((3, 4), chunks=2)", None),
        ("A.compute()", "A"), ("A.persist()", "A"), ("np.sum(A.persist(), axis=0)", "np.sum(A, axis=0)"),
        ("A.rechunk(5)", "A"), ("A.rechunk((2, -1)).sum(axis=1)", "A.sum(axis=1)"),
        ("A.sum().compute()", "A.sum()"), ("(A + 1).persist().mean()", "(A + 1).mean()"),
        ("da.where(A > 30, A, 0)", None), ("numpy.cumsum(V)", None),
    ]:
        c(k, e, np_expr=n)
    for e, p in [
        ("da.random.normal(0, 1, size=(10,), chunks=5)", "np.isfinite(v)"),
        ("numpy.random.uniform(0, 1, size=(10,), chunks=5)", "(v >= 0) & (v <= 1)"),
        ("dask.array.random.random((10,), chunks=5)", "(v >= 0) & (v <= 1)"),
        ("da.random.randint(0, 5, size=(10,), chunks=5)", "(v >= 0) & (v <= 4)"),
    ]:
        c(k, e, check="meta", pred=p)

    # ------------------------------------------------------------ load (HDF5)
    # numpy_compat.py writes {DATA} (an HDF5 file, one (7, 9) dataset per
    # dtype: the values of A, I2 for signed types) before the run; NumPy's
    # side reads it with h5py through the same call.
    k = "load"
    for ds in LOAD_DTYPES:
        c(k, "load('{DATA}', '%s', chunks=(3, 4))" % ds)
    for e in [
        "load('{DATA}', 'float64', chunks=(3, 4), dtype='float32')",
        "load('{DATA}', 'int32', chunks=4, dtype='float64')",
        "load('{DATA}', 'int64', chunks=(3, 4)).sum(axis=0)",
        "load('{DATA}', 'uint8', chunks=(3, 4)) + 1",
        "load('{DATA}', 'float32', chunks=(3, 4)).mean(axis=1)",
        "load('{DATA}', 'int16', chunks=(3, 4)).astype('float64') / 2",
    ]:
        c(k, e)

    for i, cs in enumerate(out):
        cs.id = "c%04d" % (i + 1)
    return out
