/*
 * ops.c - the operation table (see ops.h). Each line names an op, its
 * parameters and its builtin; operators are the ops whose line names a
 * symbol, so `x + y` and `add(x, y)` are one builtin (Lua's table-driven
 * operators). The builtins live by family in ops_array.c, ops_io.c and
 * ops_linalg.c.
 */
#include "eval/ops.h"

#include <string.h>

#include "eval/ops_array.h"
#include "eval/ops_create.h"
#include "eval/ops_random.h"
#include "eval/ops_stats.h"
#include "eval/ops_logic.h"
#include "eval/ops_scan.h"
#include "eval/ops_einsum.h"
#include "eval/ops_join.h"
#include "eval/ops_lstsq.h"
#include "eval/ops_norm.h"
#include "eval/ops_shape.h"
#include "eval/ops_quantile.h"
#include "eval/ops_io.h"
#include "eval/ops_linalg.h"
#include "eval/ops_glm.h"
#include "eval/ops_hist.h"
#include "eval/ops_mask.h"
#include "eval/ops_param.h"

/* One line per operation, as readers and tests/cli/cli_basics.sh expect. */
/* clang-format off */
#define GEN2(nm, code, p0, p1, doc)                                                     \
  {nm, OPK_GENERATOR, code, {p0, p1, "shape", "chunks", "seed", "dtype", "size", NULL}, \
   3, 0, 0, tsr_b_random2, doc, NULL, SEC_KIND}
#define GLM_FIT(nm, family, what)                                                              \
  {nm, OPK_ARRAY, family,                                                                      \
   {"X", "y", "solver", "regularizer", "lamduh", "l1_ratio", "fit_intercept", "max_iter", "tol", NULL}, \
   2, 2, 0, tsr_b_glm_fit,                                                                     \
   "coef, intercept = " nm "(X, y, solver=\"newton\", regularizer=\"l2\", lamduh=1.0, l1_ratio=0.5, " \
   "fit_intercept=True, max_iter=100, tol=1e-8): GLM fit (" what ")", NULL, SEC_MODEL}
#define DIST2(nm, code, p0, p1, doc) \
  {nm, OPK_GENERATOR, code, {p0, p1, "shape", "chunks", "seed", "dtype", "size", NULL}, 3, 0, 0, tsr_b_distribution, doc, NULL, SEC_KIND}
#define DIST1(nm, code, p0, req, doc) \
  {nm, OPK_GENERATOR, code, {p0, "shape", "chunks", "seed", "dtype", "size", NULL}, 2, req, 0, tsr_b_distribution, doc, NULL, SEC_KIND}
#define DIST0(nm, code, doc) \
  {nm, OPK_GENERATOR, code, {"shape", "chunks", "seed", "dtype", "size", NULL}, 1, 0, 0, tsr_b_distribution, doc, NULL, SEC_KIND}
#define P(p0, p1) p0, p1
#define P1(p0) p0
#define RGEN(nm, code, params, extra, npos, req, doc) \
  {nm, OPK_GENERATOR, code, {params, "shape", "chunks", "seed", "dtype", "size", extra, NULL}, npos, req, 0, tsr_b_generator, doc, NULL, SEC_KIND}
#define UNARY(nm, code, doc) {nm, OPK_ELEMENTWISE, code, {"x", NULL}, 1, 1, 0, tsr_b_unary, doc, NULL, SEC_KIND}
#define BINARY(nm, code, doc) BINOP(nm, code, NULL, doc)
#define BINOP(nm, code, sym, doc) \
  {nm, OPK_ELEMENTWISE, code, {"x1", "x2", NULL}, 2, 2, 0, tsr_b_binary, doc, sym, SEC_KIND}
/* The elementwise lines come from kernel/ew_table.h, in its order. */
#define EW_OP_U(id, nm, expr, doc) UNARY(nm, EW_##id, doc),
#define EW_OP_I(id, nm, expr)
#define EW_OP_J(id, nm, expr)
#define EW_OP_B(id, nm, sym, expr, doc) BINOP(nm, EW_##id, sym, doc),
#define EW_OP_A(nm, id, arity, doc) EW_ALIAS##arity(nm, EW_##id, doc),
#define EW_ALIAS1 UNARY
#define EW_ALIAS2 BINARY
/* The reduction lines come from kernel/red_table.h, in its order: ddof= only
 * for the rows that take it; methods (x.prod()) where NumPy's arrays have them. */
/* dtype= where NumPy's function has it (sums, means, products, moments) */
#define RED_HAS_DTYPE(monoid) \
  ((monoid) == RM_ADD || (monoid) == RM_MEAN || (monoid) == RM_MUL || (monoid) == RM_MOMENTS)
#define RED_OP(id, nm, monoid, flags, rd, doc) \
  {nm, OPK_REDUCTION, RED_##id, {"a", "axis", "keepdims", \
   ((flags) & RF_DDOF) ? "ddof" : RED_HAS_DTYPE(monoid) ? "dtype" : NULL, \
   ((flags) & RF_DDOF) && RED_HAS_DTYPE(monoid) ? "dtype" : NULL, NULL}, \
   2, 1, !((flags) & RF_NOMETHOD), tsr_b_reduce, doc, NULL, SEC_KIND},

const tsr_op_def tsr_ops[] = {
    GEN2("normal", RNG_NORMAL, "loc", "scale", "normal(loc=0, scale=1, shape, chunks=\"auto\", seed=, dtype=): mean loc, standard deviation scale >= 0"),
    GEN2("uniform", RNG_UNIFORM, "low", "high", "uniform(low=0, high=1, shape, chunks=\"auto\", seed=, dtype=): low + (high - low) * u, u uniform on (0, 1]"),
    {"random", OPK_GENERATOR, RNG_UNIFORM, {"shape", "chunks", "seed", "dtype", "size", NULL}, 1, 0, 0,
     tsr_b_random, "random(shape, chunks=\"auto\", seed=, dtype=): uniform on (0, 1]", NULL, SEC_KIND},
    {"rand", OPK_GENERATOR, RNG_UNIFORM, {"d0", "d1", "d2", "d3", "chunks", "seed", "dtype", NULL}, 4, 0, 0,
     tsr_b_rand_dims, "rand(d0, d1, ..., chunks=, seed=, dtype=): NumPy's legacy random(shape=(d0, d1, ...)), uniform on (0, 1]", NULL, SEC_KIND},
    {"randn", OPK_GENERATOR, RNG_NORMAL, {"d0", "d1", "d2", "d3", "chunks", "seed", "dtype", NULL}, 4, 0, 0,
     tsr_b_rand_dims, "randn(d0, d1, ..., chunks=, seed=, dtype=): NumPy's legacy normal(0, 1, shape=(d0, d1, ...))", NULL, SEC_KIND},
    DIST0("standard_normal", TSR_DIST_STANDARD_NORMAL, "standard_normal(shape, chunks=, seed=, dtype=): normal(0, 1)"),
    DIST2("lognormal", TSR_DIST_LOGNORMAL, "mean", "sigma", "lognormal(mean=0, sigma=1, shape, ...): exp(normal(mean, sigma))"),
    DIST0("standard_exponential", TSR_DIST_STANDARD_EXPONENTIAL, "standard_exponential(shape, ...): -log(u), u uniform on (0, 1]"),
    DIST1("exponential", TSR_DIST_EXPONENTIAL, "scale", 0, "exponential(scale=1, shape, ...): -scale * log(u)"),
    DIST2("laplace", TSR_DIST_LAPLACE, "loc", "scale", "laplace(loc=0, scale=1, shape, ...): inverse distribution function of u"),
    DIST2("logistic", TSR_DIST_LOGISTIC, "loc", "scale", "logistic(loc=0, scale=1, shape, ...): loc + scale * log(u / (1 - u))"),
    DIST2("gumbel", TSR_DIST_GUMBEL, "loc", "scale", "gumbel(loc=0, scale=1, shape, ...): loc - scale * log(-log(u))"),
    DIST1("rayleigh", TSR_DIST_RAYLEIGH, "scale", 0, "rayleigh(scale=1, shape, ...): scale * sqrt(-2 log(u))"),
    DIST1("weibull", TSR_DIST_WEIBULL, "a", 1, "weibull(a, shape, ...): (-log(u)) ** (1 / a), a > 0"),
    DIST1("pareto", TSR_DIST_PARETO, "a", 1, "pareto(a, shape, ...): Lomax (Pareto II): u ** (-1 / a) - 1, a > 0"),
    RGEN("integers", TSR_GEN_INTEGERS, P("low", "high"), "endpoint", 3, 1,
         "integers(low, high=None, shape, chunks=, seed=, dtype=int64, endpoint=False): uniform integers on [low, high) (high=None: [0, low))"),
    RGEN("randint", TSR_GEN_RANDINT, P("low", "high"), NULL, 3, 1,
         "randint(low, high=None, shape, ...): integers(low, high), int64"),
    RGEN("poisson", TSR_GEN_POISSON, P1("lam"), NULL, 2, 0, "poisson(lam=1, shape, ...): Poisson counts, int64 (inversion; PTRS for lam >= 10)"),
    RGEN("binomial", TSR_GEN_BINOMIAL, P("n", "p"), NULL, 3, 2, "binomial(n, p, shape, ...): binomial counts, int64 (inversion; BTRS for n min(p, 1-p) >= 10)"),
    RGEN("geometric", TSR_GEN_GEOMETRIC, P1("p"), NULL, 2, 1, "geometric(p, shape, ...): trials to the first success, int64: ceil(log(u) / log1p(-p))"),
    {"gamma", OPK_GENERATOR, TSR_GEN_GAMMA, {"shape", "scale", "size", "chunks", "seed", "dtype", NULL}, 3, 1, 0, tsr_b_generator,
     "gamma(shape, scale=1, size, chunks=, seed=, dtype=): Marsaglia-Tsang; the array's shape is size=", NULL, SEC_KIND},
    {"standard_gamma", OPK_GENERATOR, TSR_GEN_STANDARD_GAMMA, {"shape", "size", "chunks", "seed", "dtype", NULL}, 2, 1, 0, tsr_b_generator,
     "standard_gamma(shape, size, ...): gamma(shape, 1)", NULL, SEC_KIND},
    RGEN("beta", TSR_GEN_BETA, P("a", "b"), NULL, 3, 2, "beta(a, b, shape, ...): G1 / (G1 + G2), G1, G2 gamma(a), gamma(b)"),
    RGEN("chisquare", TSR_GEN_CHISQUARE, P1("df"), NULL, 2, 1, "chisquare(df, shape, ...): 2 gamma(df / 2)"),
    RGEN("standard_t", TSR_GEN_STANDARD_T, P1("df"), NULL, 2, 1, "standard_t(df, shape, ...): Student's t, z / sqrt(chisquare(df) / df)"),
    {"choice", OPK_GENERATOR, TSR_GEN_CHOICE, {"a", "size", "replace", "p", "chunks", "seed", "dtype", "shape", NULL}, 4, 1, 0, tsr_b_generator,
     "choice(a, size, replace=True, p=None, chunks=, seed=, dtype=): entries of a (an int n: range(n); or a tuple/list of at most 64 numbers), weights p", NULL, SEC_KIND},
    {"zeros", OPK_GENERATOR, 0, {"shape", "chunks", "dtype", NULL}, 1, 1, 0, tsr_b_fill, "zeros(shape, chunks=, dtype=): 0", NULL, SEC_KIND},
    {"ones", OPK_GENERATOR, 0, {"shape", "chunks", "dtype", NULL}, 1, 1, 0, tsr_b_fill, "ones(shape, chunks=, dtype=): 1", NULL, SEC_KIND},
    {"full", OPK_GENERATOR, 0, {"shape", "fill_value", "chunks", "dtype", NULL}, 2, 2, 0, tsr_b_fill,
     "full(shape, fill_value, chunks=, dtype=): fill_value (of its type unless dtype= is given)", NULL, SEC_KIND},
    {"arange", OPK_GENERATOR, 0, {"start", "stop", "step", "chunks", "dtype", NULL}, 3, 1, 0, tsr_b_arange,
     "arange([start,] stop[, step], chunks=, dtype=): start + step * i up to stop (excluded); int64 for integer arguments", NULL, SEC_KIND},
    {"empty", OPK_GENERATOR, 0, {"shape", "chunks", "dtype", NULL}, 1, 1, 0, tsr_b_fill, "empty(shape, chunks=, dtype=): zeros (NumPy leaves them unset)", NULL, SEC_KIND},
    {"zeros_like", OPK_GENERATOR, 0, {"a", "dtype", "chunks", NULL}, 2, 1, 0, tsr_b_like, "zeros_like(a, dtype=None, chunks=None): zeros of a's shape, chunks and dtype", NULL, SEC_KIND},
    {"ones_like", OPK_GENERATOR, 1, {"a", "dtype", "chunks", NULL}, 2, 1, 0, tsr_b_like, "ones_like(a, dtype=None, chunks=None): ones of a's shape, chunks and dtype", NULL, SEC_KIND},
    {"empty_like", OPK_GENERATOR, 0, {"a", "dtype", "chunks", NULL}, 2, 1, 0, tsr_b_like, "empty_like(a, dtype=None, chunks=None): zeros_like(a)", NULL, SEC_KIND},
    {"full_like", OPK_GENERATOR, 2, {"a", "fill_value", "dtype", "chunks", NULL}, 3, 2, 0, tsr_b_like, "full_like(a, fill_value, dtype=None, chunks=None): fill_value in a's shape, chunks and dtype", NULL, SEC_KIND},
    {"eye", OPK_GENERATOR, 0, {"N", "M", "k", "chunks", "dtype", NULL}, 3, 1, 0, tsr_b_eye, "eye(N, M=None, k=0, chunks=, dtype=): ones on the k-th diagonal", NULL, SEC_KIND},
    {"identity", OPK_GENERATOR, 1, {"n", "chunks", "dtype", NULL}, 1, 1, 0, tsr_b_eye, "identity(n, chunks=, dtype=): eye(n)", NULL, SEC_KIND},
    {"tri", OPK_GENERATOR, 2, {"N", "M", "k", "chunks", "dtype", NULL}, 3, 1, 0, tsr_b_eye, "tri(N, M=None, k=0, chunks=, dtype=): ones at and below the k-th diagonal", NULL, SEC_KIND},
    {"linspace", OPK_GENERATOR, 0, {"start", "stop", "num", "endpoint", "chunks", "dtype", NULL}, 4, 2, 0, tsr_b_linspace,
     "linspace(start, stop, num=50, endpoint=True, chunks=, dtype=): num evenly spaced values, NumPy's bits", NULL, SEC_KIND},
    {"meshgrid", OPK_ARRAY, 0, {"x1", "x2", "indexing", NULL}, 2, 1, 0, tsr_b_meshgrid,
     "xx, yy = meshgrid(x1, x2, indexing=\"xy\"): coordinate matrices of two 1-d arrays (\"ij\": matrix indexing)", NULL, SEC_CREATION},
    TSR_EW_TABLE(EW_OP_U, EW_OP_I, EW_OP_B, EW_OP_J) TSR_EW_ALIASES(EW_OP_A)
    {"clip", OPK_ELEMENTWISE, 0, {"a", "a_min", "a_max", NULL}, 3, 1, 1, tsr_b_clip,
     "clip(a, a_min, a_max), x.clip(a_min, a_max): minimum(maximum(a, a_min), a_max); a bound None is left out", NULL, SEC_KIND},
    {"round", OPK_ELEMENTWISE, 0, {"a", "decimals", NULL}, 2, 1, 1, tsr_b_round,
     "round(a, decimals=0), x.round(decimals=0): NumPy's, halves to even: rint(a * 10**decimals) / 10**decimals", NULL, SEC_KIND},
    {"around", OPK_ELEMENTWISE, 0, {"a", "decimals", NULL}, 2, 1, 0, tsr_b_round,
     "around(a, decimals=0): round(a, decimals)", NULL, SEC_KIND},
    {"where", OPK_ELEMENTWISE, 0, {"condition", "x", "y", NULL}, 3, 1, 0, tsr_b_where,
     "where(condition, x, y): x where condition is true, else y (broadcast; x's and y's types promoted); where(condition): nonzero(condition)", NULL, SEC_KIND},
    {"isclose", OPK_ELEMENTWISE, 0, {"a", "b", "rtol", "atol", "equal_nan", NULL}, 5, 2, 0, tsr_b_isclose,
     "isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False): |a - b| <= atol + rtol * |b| (bool)", NULL, SEC_KIND},
    {"allclose", OPK_REDUCTION, 1, {"a", "b", "rtol", "atol", "equal_nan", NULL}, 5, 2, 0, tsr_b_isclose,
     "allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False): every element isclose (a 0-d bool)", NULL, SEC_KIND},
    {"digitize", OPK_ELEMENTWISE, 0, {"x", "bins", "right", NULL}, 3, 2, 0, tsr_b_digitize,
     "digitize(x, bins, right=False): the index of the bin of each x (bins at most 256 monotonic numbers, a list or a 1-d array), int64; fused", NULL, SEC_ELEMENTWISE},
    {"searchsorted", OPK_ELEMENTWISE, 1, {"a", "v", "side", NULL}, 3, 2, 0, tsr_b_digitize,
     "searchsorted(a, v, side=\"left\"): where each v would go in a (at most 256 sorted numbers, a list or a 1-d array), int64; fused", NULL, SEC_ELEMENTWISE},
    {"isin", OPK_ELEMENTWISE, 0, {"element", "test_elements", "invert", NULL}, 3, 2, 0, tsr_b_isin,
     "isin(element, test_elements, invert=False): element equal to one of test_elements, a number, a list of numbers or an array of at most 256 distinct values (bool)", NULL, SEC_KIND},
    {"nan_to_num", OPK_ELEMENTWISE, 0, {"x", "copy", "nan", "posinf", "neginf", NULL}, 2, 1, 0, tsr_b_nan_to_num,
     "nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None): NaN and +-inf replaced (default: 0 and the largest finite values)", NULL, SEC_KIND},
    TSR_RED_TABLE(RED_OP)
    {"nansum", OPK_REDUCTION, RED_SUM, {"a", "axis", "keepdims", NULL}, 2, 1, 0, tsr_b_nanreduce, "nansum(a, axis=None, keepdims=False): sum with NaN as 0", NULL, SEC_KIND},
    {"nanmean", OPK_REDUCTION, RED_MEAN, {"a", "axis", "keepdims", NULL}, 2, 1, 0, tsr_b_nanreduce, "nanmean(a, axis=None, keepdims=False): mean of the elements that are not NaN", NULL, SEC_KIND},
    {"nanmin", OPK_REDUCTION, RED_MIN, {"a", "axis", "keepdims", NULL}, 2, 1, 0, tsr_b_nanreduce, "nanmin(a, axis=None, keepdims=False): minimum ignoring NaN (NaN for an all-NaN slice)", NULL, SEC_KIND},
    {"nanmax", OPK_REDUCTION, RED_MAX, {"a", "axis", "keepdims", NULL}, 2, 1, 0, tsr_b_nanreduce, "nanmax(a, axis=None, keepdims=False): maximum ignoring NaN (NaN for an all-NaN slice)", NULL, SEC_KIND},
    {"nanvar", OPK_REDUCTION, RED_VAR, {"a", "axis", "keepdims", "ddof", NULL}, 2, 1, 0, tsr_b_nanreduce, "nanvar(a, axis=None, keepdims=False, ddof=0): variance of the elements that are not NaN", NULL, SEC_KIND},
    {"nanstd", OPK_REDUCTION, RED_STD, {"a", "axis", "keepdims", "ddof", NULL}, 2, 1, 0, tsr_b_nanreduce, "nanstd(a, axis=None, keepdims=False, ddof=0): sqrt(nanvar)", NULL, SEC_KIND},
    {"median", OPK_REDUCTION, QUANT_MEDIAN, {"a", "axis", "keepdims", NULL}, 2, 1, 0, tsr_b_quantile,
     "median(a, axis=None, keepdims=False): the middle value along axis (the mean of the two middle ones for even lengths); NaN in a slice gives NaN; float64", NULL, SEC_KIND},
    {"quantile", OPK_REDUCTION, QUANT_QUANTILE, {"a", "q", "axis", "keepdims", NULL}, 3, 2, 0, tsr_b_quantile,
     "quantile(a, q, axis=None, keepdims=False): exact q-th quantiles along axis (q in [0, 1], a number or a list: a leading axis of len(q)), NumPy's method='linear'; float64", NULL, SEC_KIND},
    {"percentile", OPK_REDUCTION, QUANT_PERCENTILE, {"a", "q", "axis", "keepdims", NULL}, 3, 2, 0, tsr_b_quantile,
     "percentile(a, q, axis=None, keepdims=False): quantile(a, q / 100, ...) (q in [0, 100])", NULL, SEC_KIND},
    {"nanmedian", OPK_REDUCTION, QUANT_NANMEDIAN, {"a", "axis", "keepdims", NULL}, 2, 1, 0, tsr_b_quantile,
     "nanmedian(a, axis=None, keepdims=False): median ignoring NaN (NaN for an all-NaN slice)", NULL, SEC_KIND},
    {"nanquantile", OPK_REDUCTION, QUANT_NANQUANTILE, {"a", "q", "axis", "keepdims", NULL}, 3, 2, 0, tsr_b_quantile,
     "nanquantile(a, q, axis=None, keepdims=False): quantile ignoring NaN (NaN for an all-NaN slice)", NULL, SEC_KIND},
    {"nanpercentile", OPK_REDUCTION, QUANT_NANPERCENTILE, {"a", "q", "axis", "keepdims", NULL}, 3, 2, 0, tsr_b_quantile,
     "nanpercentile(a, q, axis=None, keepdims=False): percentile ignoring NaN (NaN for an all-NaN slice)", NULL, SEC_KIND},
    {"sort", OPK_ARRAY, 0, {"a", "axis", NULL}, 2, 1, 0, tsr_b_sort,
     "sort(a, axis=-1): sorted ascending along axis (None: flattened), NaN last; a's dtype", NULL, SEC_SCAN},
    {"argsort", OPK_ARRAY, 1, {"a", "axis", "kind", NULL}, 3, 1, 1, tsr_b_sort,
     "argsort(a, axis=-1, kind=None), x.argsort(axis): the indices that sort a along axis (None: flattened), int64; NaN last; equal values keep their order (every kind= is the stable sort)", NULL, SEC_SCAN},
    {"partition", OPK_ARRAY, 2, {"a", "kth", "axis", "kind", NULL}, 4, 2, 1, tsr_b_sort,
     "partition(a, kth, axis=-1): a with the element at each kth in its sorted place, smaller ones before and larger after; here a whole sort (NumPy leaves the order within the parts unspecified)", NULL, SEC_SCAN},
    {"argpartition", OPK_ARRAY, 3, {"a", "kth", "axis", "kind", NULL}, 4, 2, 1, tsr_b_sort,
     "argpartition(a, kth, axis=-1): the indices that partition a (here: argsort's)", NULL, SEC_SCAN},
    {"argtopk", OPK_ARRAY, JOIN_ARGTOPK, {"a", "k", "axis", NULL}, 3, 2, 1, tsr_b_join,
     "argtopk(a, k, axis=-1), x.argtopk(k, axis): the indices of the k largest along axis, largest first (k < 0: of the |k| smallest, smallest first), as dask's, int64; NaN counts largest", NULL, SEC_SCAN},
    {"topk", OPK_ARRAY, JOIN_TOPK, {"a", "k", "axis", NULL}, 3, 2, 1, tsr_b_join,
     "topk(a, k, axis=-1), x.topk(k, axis): the k largest along axis, largest first (k < 0: the |k| smallest, smallest first), as dask; NaN counts largest", NULL, SEC_SCAN},
    {"nonzero", OPK_ARRAY, 0, {"a", NULL}, 1, 1, 1, tsr_b_nonzero,
     "nonzero(a), a.nonzero(): a tuple of the indices (int64) of a's nonzero elements along each axis, C order; their length is computed while the job is read", NULL, SEC_ARRAY},
    {"flatnonzero", OPK_ARRAY, 1, {"a", NULL}, 1, 1, 0, tsr_b_nonzero,
     "flatnonzero(a): the indices (int64) of the nonzero elements of a raveled", NULL, SEC_ARRAY},
    {"argwhere", OPK_ARRAY, 2, {"a", NULL}, 1, 1, 0, tsr_b_nonzero,
     "argwhere(a): the indices of a's nonzero elements as rows (N, a.ndim), int64", NULL, SEC_ARRAY},
    {"compress", OPK_ARRAY, 0, {"condition", "a", "axis", NULL}, 3, 2, 0, tsr_b_compress,
     "compress(condition, a, axis=None): the slices of a along axis (None: raveled) where the 1-d condition is true (beyond its length: false)", NULL, SEC_ARRAY},
    {"extract", OPK_ARRAY, 1, {"condition", "arr", NULL}, 2, 2, 0, tsr_b_compress,
     "extract(condition, arr): the elements of arr raveled where condition (of arr's size) is true", NULL, SEC_ARRAY},
    {"unique", OPK_ARRAY, 0, {"ar", "return_index", "return_inverse", "return_counts", "axis", NULL}, 5, 1, 0, tsr_b_unique,
     "unique(ar, return_index=False, return_inverse=False, return_counts=False): the sorted distinct values of ar raveled (one NaN), and the index of each one's first occurrence and their counts (int64) as NumPy's; no return_inverse or axis=, as dask's", NULL, SEC_ARRAY},
    {"union1d", OPK_ARRAY, 1, {"ar1", "ar2", NULL}, 2, 2, 0, tsr_b_unique,
     "union1d(ar1, ar2): the sorted distinct values of both, raveled", NULL, SEC_ARRAY},
    {"setdiff1d", OPK_ARRAY, 3, {"ar1", "ar2", NULL}, 2, 2, 0, tsr_b_unique,
     "setdiff1d(ar1, ar2): the sorted distinct values of ar1 not in ar2 (NaN is in no set, as NumPy's)", NULL, SEC_ARRAY},
    {"setxor1d", OPK_ARRAY, 4, {"ar1", "ar2", NULL}, 2, 2, 0, tsr_b_unique,
     "setxor1d(ar1, ar2): the sorted distinct values in exactly one of them", NULL, SEC_ARRAY},
    {"intersect1d", OPK_ARRAY, 2, {"ar1", "ar2", "assume_unique", NULL}, 3, 2, 0, tsr_b_unique,
     "intersect1d(ar1, ar2, assume_unique=False): the sorted distinct values in both, raveled", NULL, SEC_ARRAY},
    {"histogram", OPK_ARRAY, 0, {"a", "bins", "range", "weights", "density", NULL}, 5, 1, 0, tsr_b_histogram,
     "hist, bin_edges = histogram(a, bins=10, range=None, weights=None, density=None): NumPy's counts (int64; the weights' dtype with weights=) in bins equal over range=(lo, hi) (None: the data's min and max, computed while the job is read) or between explicit edges; each chunk binned on its owner, the chunks' counts added in order", NULL, SEC_REDUCTION},
    {"histogram_bin_edges", OPK_ARRAY, 1, {"a", "bins", "range", "weights", NULL}, 4, 1, 0, tsr_b_histogram,
     "histogram_bin_edges(a, bins=10, range=None, weights=None): the edges histogram would use (NumPy's; the data's min and max without range=)", NULL, SEC_REDUCTION},
    {"histogram2d", OPK_ARRAY, 2, {"x", "y", "bins", "range", "weights", "density", NULL}, 6, 2, 0, tsr_b_histogram,
     "H, xedges, yedges = histogram2d(x, y, bins=10, range=None, weights=None, density=None): the 2-d histogram of the pairs (x, y), float64, as NumPy; range=((xlo, xhi), (ylo, yhi)) or the data's extremes", NULL, SEC_REDUCTION},
    {"histogramdd", OPK_ARRAY, 3, {"sample", "bins", "range", "weights", "density", NULL}, 5, 1, 0, tsr_b_histogram,
     "H, edges = histogramdd(sample, bins=10, range=None, weights=None, density=None): the histogram of the rows of an (N, D) sample (or of D 1-d arrays), D <= 4, float64, as NumPy", NULL, SEC_REDUCTION},
    {"bincount", OPK_ARRAY, 0, {"x", "weights", "minlength", NULL}, 3, 1, 0, tsr_b_bincount,
     "bincount(x, weights=None, minlength=0): the count (int64; float64 sums of weights) of each value of a 1-d array of non-negative integers, NumPy's length (the largest value + 1, computed while the job is read, or minlength=: then a larger value is an error when computed)", NULL, SEC_REDUCTION},
    {"ptp", OPK_REDUCTION, 0, {"a", "axis", "keepdims", NULL}, 2, 1, 0, tsr_b_ptp, "ptp(a, axis=None, keepdims=False): max - min (peak to peak)", NULL, SEC_KIND},
    {"average", OPK_REDUCTION, 0, {"a", "axis", "weights", "keepdims", NULL}, 3, 1, 0, tsr_b_average,
     "average(a, axis=None, weights=None, keepdims=False): mean, or sum(a * weights) / sum(weights) along axis (weights of a's shape or 1-d along axis)", NULL, SEC_KIND},
    {"cumsum", OPK_ARRAY, SCAN_CUMSUM, {"a", "axis", "dtype", NULL}, 3, 1, 1, tsr_b_scan,
     "cumsum(a, axis=None, dtype=None), x.cumsum(axis=None): running sum along axis (None: flattened in C order); bool and integers give int64 (uint64)", NULL, SEC_SCAN},
    {"cumprod", OPK_ARRAY, SCAN_CUMPROD, {"a", "axis", "dtype", NULL}, 3, 1, 1, tsr_b_scan,
     "cumprod(a, axis=None, dtype=None), x.cumprod(axis=None): running product along axis (None: flattened)", NULL, SEC_SCAN},
    {"nancumsum", OPK_ARRAY, SCAN_NANCUMSUM, {"a", "axis", "dtype", NULL}, 3, 1, 0, tsr_b_scan,
     "nancumsum(a, axis=None, dtype=None): cumsum with NaN as 0", NULL, SEC_SCAN},
    {"nancumprod", OPK_ARRAY, SCAN_NANCUMPROD, {"a", "axis", "dtype", NULL}, 3, 1, 0, tsr_b_scan,
     "nancumprod(a, axis=None, dtype=None): cumprod with NaN as 1", NULL, SEC_SCAN},
    {"diff", OPK_ARRAY, 0, {"a", "n", "axis", NULL}, 3, 1, 0, tsr_b_diff,
     "diff(a, n=1, axis=-1): a[1:] - a[:-1] along axis, n times (bool: !=)", NULL, SEC_SCAN},
#define SCALAR_TYPE(nm, dt) \
  {nm, OPK_ARRAY, dt, {"x", NULL}, 1, 1, 0, tsr_b_scalar_type, nm "(x): x converted to " nm " (a number: a 0-d array of that type)", NULL, SEC_KIND}
    SCALAR_TYPE("float64", TSR_F64), SCALAR_TYPE("float32", TSR_F32), SCALAR_TYPE("bool_", TSR_BOOL),
    SCALAR_TYPE("int8", TSR_I8), SCALAR_TYPE("int16", TSR_I16), SCALAR_TYPE("int32", TSR_I32),
    SCALAR_TYPE("int64", TSR_I64), SCALAR_TYPE("uint8", TSR_U8), SCALAR_TYPE("uint16", TSR_U16),
    SCALAR_TYPE("uint32", TSR_U32), SCALAR_TYPE("uint64", TSR_U64),
    {"astype", OPK_ARRAY, 0, {"a", "dtype", NULL}, 2, 2, 1, tsr_b_astype, "astype(a, dtype), x.astype(dtype): a converted to dtype (a itself for its own dtype)", NULL, SEC_KIND},
    {"rechunk", OPK_ARRAY, 0, {"x", "chunks", NULL}, 2, 2, 1, tsr_b_rechunk,
     "rechunk(x, chunks), x.rechunk(chunks): the same values on another chunk grid", NULL, SEC_KIND},
    {"persist", OPK_ARRAY, 0, {"x", NULL}, 1, 1, 1, tsr_b_persist,
     "persist(x), x.persist(): x computed once, its chunks kept in backend memory (GPU memory) for later statements", NULL, SEC_KIND},
    {"compute", OPK_ARRAY, 0, {"x", NULL}, 1, 1, 1, tsr_b_compute,
     "x.compute(), compute(x): x itself, as Dask's; a job computes every value when it is needed", NULL, SEC_JOB},
    {"load", OPK_GENERATOR, 0, {"file", "dataset", "chunks", "dtype", NULL}, 2, 2, 0, tsr_b_load,
     "load(file, dataset, chunks=\"auto\", dtype=): an HDF5 dataset, read chunk by chunk", NULL, SEC_HDF5},
    {"save", OPK_ARRAY, 0, {"file", "dataset", "array", "compression", "level", NULL}, 3, 3, 0,
     tsr_b_save, "save(file, dataset, array, compression=None, level=4): write array to HDF5 (a job statement)", NULL, SEC_HDF5},
    {"array", OPK_ARRAY, 0, {"object", "dtype", NULL}, 2, 1, 0, tsr_b_array,
     "array(object, dtype=None): nested lists of numbers (at most 2^20) as an array of one chunk, NumPy's type (bool, int64, float64) unless dtype is given; an array as itself", NULL, SEC_CREATION},
    {"asarray", OPK_ARRAY, 0, {"a", "dtype", NULL}, 2, 1, 0, tsr_b_array,
     "asarray(a, dtype=None): array(a, dtype)", NULL, SEC_CREATION},
    {"from_array", OPK_ARRAY, 1, {"x", "chunks", "dtype", NULL}, 3, 1, 0, tsr_b_array,
     "from_array(x, chunks=None, dtype=None): dask's name: array(x) on the given chunks (one chunk when not given)", NULL, SEC_CREATION},
    {"diag", OPK_ARRAY, 0, {"v", "k", NULL}, 2, 1, 0, tsr_b_diag,
     "diag(v, k=0): a 1-d v on the k-th diagonal of a square of zeros, or the k-th diagonal of a 2-d v (diagonal(v, k))", NULL, SEC_ARRAY},
    {"tril", OPK_ARRAY, 0, {"m", "k", NULL}, 2, 1, 0, tsr_b_tril,
     "tril(m, k=0): m with the elements above the k-th diagonal of its last two axes zero (1-d m: its N x N)", NULL, SEC_ARRAY},
    {"triu", OPK_ARRAY, 1, {"m", "k", NULL}, 2, 1, 0, tsr_b_tril,
     "triu(m, k=0): m with the elements below the k-th diagonal of its last two axes zero (1-d m: its N x N)", NULL, SEC_ARRAY},
    {"flip", OPK_ARRAY, SHAPE_FLIP, {"m", "axis", NULL}, 2, 1, 0, tsr_b_shape,
     "flip(m, axis=None): m with the order of its elements reversed along axis (an int, a tuple; None: every axis); a view", NULL, SEC_ARRAY},
    {"fliplr", OPK_ARRAY, SHAPE_FLIPLR, {"m", NULL}, 1, 1, 0, tsr_b_shape,
     "fliplr(m): flip(m, axis=1), m at least 2-d", NULL, SEC_ARRAY},
    {"flipud", OPK_ARRAY, SHAPE_FLIPUD, {"m", NULL}, 1, 1, 0, tsr_b_shape,
     "flipud(m): flip(m, axis=0), m at least 1-d", NULL, SEC_ARRAY},
    {"expand_dims", OPK_ARRAY, SHAPE_EXPAND_DIMS, {"a", "axis", NULL}, 2, 2, 0, tsr_b_shape,
     "expand_dims(a, axis): a with a new axis of length 1 at each position of axis (an int or a tuple, positions in the result)", NULL, SEC_ARRAY},
    {"squeeze", OPK_ARRAY, SHAPE_SQUEEZE, {"a", "axis", NULL}, 2, 1, 1, tsr_b_shape,
     "squeeze(a, axis=None), x.squeeze(axis=None): a without its axes of length 1 (or the named ones, which must have length 1)", NULL, SEC_ARRAY},
    {"atleast_1d", OPK_ARRAY, SHAPE_ATLEAST_1D, {"x", NULL}, 1, 1, 0, tsr_b_shape,
     "atleast_1d(x): x as an array of at least 1 dimension (0-d: shape (1,))", NULL, SEC_ARRAY},
    {"atleast_2d", OPK_ARRAY, SHAPE_ATLEAST_2D, {"x", NULL}, 1, 1, 0, tsr_b_shape,
     "atleast_2d(x): at least 2 dimensions (0-d: (1, 1); (N,): (1, N))", NULL, SEC_ARRAY},
    {"atleast_3d", OPK_ARRAY, SHAPE_ATLEAST_3D, {"x", NULL}, 1, 1, 0, tsr_b_shape,
     "atleast_3d(x): at least 3 dimensions (0-d: (1, 1, 1); (N,): (1, N, 1); (M, N): (M, N, 1))", NULL, SEC_ARRAY},
    {"reshape", OPK_ARRAY, JOIN_RESHAPE, {"a", "shape", "d1", "d2", "d3", "order", NULL}, 5, 2, 1, tsr_b_join,
     "reshape(a, shape, order=\"C\"), x.reshape(shape) or x.reshape(d0, d1, ...): a's elements in C order as shape (one entry may be -1); dask's chunks (the input rechunked where dask's rule needs it)", NULL, SEC_ARRAY},
    {"ravel", OPK_ARRAY, JOIN_RAVEL, {"a", NULL}, 1, 1, 1, tsr_b_join,
     "ravel(a), x.ravel(): a flattened to 1-d in C order (reshape(a, -1))", NULL, SEC_ARRAY},
    {"flatten", OPK_ARRAY, JOIN_RAVEL, {"a", NULL}, 1, 1, 1, tsr_b_join,
     "x.flatten(), flatten(a): ravel(a)", NULL, SEC_ARRAY},
    {"concatenate", OPK_ARRAY, JOIN_CONCATENATE, {"arrays", "axis", NULL}, 2, 1, 0, tsr_b_join,
     "concatenate(arrays, axis=0): the arrays (a list or tuple) joined along axis (None: each flattened); chunks: each input's along axis", NULL, SEC_ARRAY},
    {"stack", OPK_ARRAY, JOIN_STACK, {"arrays", "axis", NULL}, 2, 1, 0, tsr_b_join,
     "stack(arrays, axis=0): arrays of one shape joined along a new axis at position axis", NULL, SEC_ARRAY},
    {"hstack", OPK_ARRAY, JOIN_HSTACK, {"tup", NULL}, 1, 1, 0, tsr_b_join,
     "hstack(tup): concatenate along axis 1 (along 0 for 1-d arrays)", NULL, SEC_ARRAY},
    {"vstack", OPK_ARRAY, JOIN_VSTACK, {"tup", NULL}, 1, 1, 0, tsr_b_join,
     "vstack(tup): concatenate along axis 0 after atleast_2d", NULL, SEC_ARRAY},
    {"dstack", OPK_ARRAY, JOIN_DSTACK, {"tup", NULL}, 1, 1, 0, tsr_b_join,
     "dstack(tup): concatenate along axis 2 after atleast_3d", NULL, SEC_ARRAY},
    {"column_stack", OPK_ARRAY, JOIN_COLUMN_STACK, {"tup", NULL}, 1, 1, 0, tsr_b_join,
     "column_stack(tup): 1-d arrays as columns (N, 1), 2-d as they are, joined along axis 1", NULL, SEC_ARRAY},
    {"block", OPK_ARRAY, JOIN_BLOCK, {"arrays", NULL}, 1, 1, 0, tsr_b_join,
     "block(arrays): nested lists of arrays joined, the innermost lists along the last axis, the next along the one before, ...", NULL, SEC_ARRAY},
    {"append", OPK_ARRAY, JOIN_APPEND, {"arr", "values", "axis", NULL}, 3, 2, 0, tsr_b_join,
     "append(arr, values, axis=None): concatenate((arr, values), axis) (None: both flattened)", NULL, SEC_ARRAY},
    {"roll", OPK_ARRAY, JOIN_ROLL, {"a", "shift", "axis", NULL}, 3, 2, 0, tsr_b_join,
     "roll(a, shift, axis=None): elements shifted along axis (ints or tuples), those past the end coming back at the start (None: flattened, then shaped back)", NULL, SEC_ARRAY},
    {"rot90", OPK_ARRAY, JOIN_ROT90, {"m", "k", "axes", NULL}, 3, 1, 0, tsr_b_join,
     "rot90(m, k=1, axes=(0, 1)): m rotated by 90 degrees k times in the plane of axes (flips and a transpose: a view)", NULL, SEC_ARRAY},
    {"tile", OPK_ARRAY, JOIN_TILE, {"A", "reps", NULL}, 2, 2, 0, tsr_b_join,
     "tile(A, reps): A repeated reps times along each axis (an int or a tuple; A gets leading axes of 1 where reps is longer)", NULL, SEC_ARRAY},
    {"pad", OPK_ARRAY, JOIN_PAD, {"array", "pad_width", "mode", "constant_values", NULL}, 4, 2, 0, tsr_b_join,
     "pad(array, pad_width, mode=\"constant\", constant_values=0): array widened by pad_width ((before, after) per axis) with a constant, the edge values, or a reflect, symmetric or wrap of the array", NULL, SEC_ARRAY},
    {"repeat", OPK_ARRAY, JOIN_REPEAT, {"a", "repeats", "axis", NULL}, 3, 2, 1, tsr_b_join,
     "repeat(a, repeats, axis=None), x.repeat(repeats, axis): each element repeated `repeats` (an int) times along axis (None: 1-d a only, as dask)", NULL, SEC_ARRAY},
    {"broadcast_arrays", OPK_ARRAY, JOIN_BROADCAST_ARRAYS, {"a", "b", "c", "d", "e", "f", NULL}, 6, 1, 0, tsr_b_join,
     "broadcast_arrays(a, b, ...): a tuple of the arrays (up to 6) broadcast to one shape, as views on dask's common chunks", NULL, SEC_ARRAY},
    {"fftshift", OPK_ARRAY, JOIN_FFTSHIFT, {"x", "axes", NULL}, 2, 1, 0, tsr_b_join,
     "fftshift(x, axes=None): x rolled by n // 2 along each of axes (None: all), the zero frequency to the centre (also fft.fftshift)", NULL, SEC_ARRAY},
    {"ifftshift", OPK_ARRAY, JOIN_IFFTSHIFT, {"x", "axes", NULL}, 2, 1, 0, tsr_b_join,
     "ifftshift(x, axes=None): fftshift undone (rolled by -(n // 2))", NULL, SEC_ARRAY},
    {"fftfreq", OPK_GENERATOR, 0, {"n", "d", "chunks", NULL}, 2, 1, 0, tsr_b_fftfreq,
     "fftfreq(n, d=1.0, chunks=\"auto\"): NumPy's sample frequencies of an n-point FFT, 0, 1, ..., -(n // 2), ..., -1 times 1 / (n d), float64 (also fft.fftfreq)", NULL, SEC_CREATION},
    {"rfftfreq", OPK_GENERATOR, 1, {"n", "d", "chunks", NULL}, 2, 1, 0, tsr_b_fftfreq,
     "rfftfreq(n, d=1.0, chunks=\"auto\"): the n // 2 + 1 non-negative frequencies of a real FFT, float64", NULL, SEC_CREATION},
    {"broadcast_to", OPK_ARRAY, JOIN_BROADCAST_TO, {"array", "shape", NULL}, 2, 2, 0, tsr_b_join,
     "broadcast_to(array, shape): array broadcast to shape (a view that fuses into its readers; dask's chunks)", NULL, SEC_ARRAY},
    {"take", OPK_ARRAY, JOIN_TAKE, {"a", "indices", "axis", NULL}, 3, 2, 1, tsr_b_join,
     "take(a, indices, axis=None), x.take(indices, axis): the elements at indices (an int or a list of ints) along axis (None: flattened); also x[[i, j, ...]] on one axis", NULL, SEC_ARRAY},
    {"transpose", OPK_ARRAY, LA_TRANSPOSE, {"x", "axes", NULL}, 2, 1, 1, tsr_b_transpose,
     "transpose(x, axes=None), x.transpose(axes), x.T: x's axes in the order axes (a tuple; None: reversed); a view", ".T", SEC_LINALG},
    {"diagonal", OPK_ARRAY, 0, {"a", "offset", "axis1", "axis2", NULL}, 4, 1, 1, tsr_b_diagonal,
     "diagonal(a, offset=0, axis1=0, axis2=1), x.diagonal(...): a[i, i + offset] over axis1 and axis2, as the last axis after the others; a view", NULL, SEC_ARRAY},
    {"trace", OPK_ARRAY, 1, {"a", "offset", "axis1", "axis2", "dtype", NULL}, 5, 1, 1, tsr_b_diagonal,
     "trace(a, offset=0, axis1=0, axis2=1, dtype=None), x.trace(...): the sum of diagonal(a, offset, axis1, axis2) along its last axis (sum's types)", NULL, SEC_ARRAY},
    {"swapaxes", OPK_ARRAY, LA_TRANSPOSE, {"a", "axis1", "axis2", NULL}, 3, 3, 1, tsr_b_swapaxes,
     "swapaxes(a, axis1, axis2), x.swapaxes(axis1, axis2): a with the two axes interchanged; a view", NULL, SEC_ARRAY},
    {"moveaxis", OPK_ARRAY, LA_TRANSPOSE, {"a", "source", "destination", NULL}, 3, 3, 0, tsr_b_moveaxis,
     "moveaxis(a, source, destination): a with the axes source (an int or a tuple) moved to the positions destination, the others in their order; a view", NULL, SEC_ARRAY},
    {"matmul", OPK_ARRAY, LA_MATMUL, {"x1", "x2", NULL}, 2, 2, 0, tsr_b_matmul,
     "matmul(x1, x2), x1 @ x2: matrix product of 1-d/2-d arrays (GEMM per block)", "@", SEC_LINALG},
    {"dot", OPK_ARRAY, LA_MATMUL, {"x1", "x2", NULL}, 2, 2, 1, tsr_b_matmul,
     "dot(x1, x2), x1.dot(x2): as matmul for 1-d/2-d arrays", NULL, SEC_LINALG},
    {"outer", OPK_ARRAY, 0, {"a", "b", NULL}, 2, 2, 0, tsr_b_products,
     "outer(a, b): a.ravel()[:, None] * b.ravel()[None, :] (fused)", NULL, SEC_LINALG},
    {"inner", OPK_ARRAY, 1, {"a", "b", NULL}, 2, 2, 0, tsr_b_products,
     "inner(a, b): sum(a * b) for 1-d arrays; a product over the last axes for 2-d ones (a @ b.T)", NULL, SEC_LINALG},
    {"vdot", OPK_ARRAY, 2, {"a", "b", NULL}, 2, 2, 0, tsr_b_products,
     "vdot(a, b): sum(ravel(a) * ravel(b))", NULL, SEC_LINALG},
    {"norm", OPK_REDUCTION, 0, {"x", "ord", "axis", "keepdims", NULL}, 4, 1, 0, tsr_b_norm,
     "norm(x, ord=None, axis=None, keepdims=False), linalg.norm(...): NumPy's vector (1, 2, inf, -inf, 0, p) and matrix (\"fro\", \"nuc\", 1, -1, 2, -2, inf, -inf) norms", NULL, SEC_LINALG},
    {"einsum", OPK_ARRAY, 0, {"subscripts", "a", "b", "c", NULL}, 4, 2, 0, tsr_b_einsum,
     "einsum(subscripts, a, b=None, c=None): NumPy's Einstein summation (\"ij,jk->ik\"; up to 3 operands and 4 distinct subscripts, no \"...\"); a matrix product is matmul, the rest one fused product and sum", NULL, SEC_LINALG},
    {"tensordot", OPK_ARRAY, 0, {"a", "b", "axes", NULL}, 3, 2, 0, tsr_b_tensordot,
     "tensordot(a, b, axes=2): the sum of products over a's last axes and b's first (axes an int) or the listed pairs (a pair of axis lists)", NULL, SEC_LINALG},
    {"kron", OPK_ARRAY, 0, {"a", "b", NULL}, 2, 2, 0, tsr_b_kron,
     "kron(a, b): the Kronecker product of 1-d or 2-d arrays (blocks a[i, j] * b)", NULL, SEC_LINALG},
    {"lstsq", OPK_ARRAY, LSQ_LSTSQ, {"a", "b", "rcond", NULL}, 3, 2, 0, tsr_b_lstsq,
     "x, residuals, rank, s = lstsq(a, b, rcond=None): the least-squares solution of a x = b through the SVD of a (TSQR), singular values below rcond * max(s) left out (None: eps * max(M, N)); residuals always the column sums of squares", NULL, SEC_LINALG},
    {"solve", OPK_ARRAY, LSQ_SOLVE, {"a", "b", NULL}, 2, 2, 0, tsr_b_lstsq,
     "solve(a, b): x with a x = b for a square a, through its SVD (a singular a gives the least-squares solution, not an error)", NULL, SEC_LINALG},
    {"inv", OPK_ARRAY, LSQ_INV, {"a", NULL}, 1, 1, 0, tsr_b_lstsq,
     "inv(a): the inverse of a square a, V diag(1 / s) U^T from its SVD", NULL, SEC_LINALG},
    {"pinv", OPK_ARRAY, LSQ_PINV, {"a", "rcond", NULL}, 2, 1, 0, tsr_b_lstsq,
     "pinv(a, rcond=1e-15): the pseudo-inverse, singular values below rcond * max(s) left out", NULL, SEC_LINALG},
    {"svd_compressed", OPK_ARRAY, 0, {"a", "k", "iterator", "n_power_iter", "n_oversamples", "seed", NULL}, 6, 2, 0, tsr_b_svd_compressed,
     "u, s, v = svd_compressed(a, k, iterator=\"power\", n_power_iter=0, n_oversamples=10, seed=None): dask's randomized SVD of rank k (Philox-keyed sampling, TSQR, dask's sign flip)", NULL, SEC_LINALG},
    {"cholesky", OPK_ARRAY, 0, {"a", "upper", NULL}, 2, 1, 0, tsr_b_cholesky,
     "cholesky(a, upper=False): NumPy's Cholesky factor L (L L^T = a, a's lower triangle read; upper=True: L^T) of a square matrix up to 8192 x 8192, by the backend (LAPACK, cuSOLVER)", NULL, SEC_LINALG},
    {"cov", OPK_ARRAY, 0, {"m", "y", "rowvar", "bias", "ddof", NULL}, 5, 1, 0, tsr_b_cov,
     "cov(m, y=None, rowvar=True, bias=False, ddof=None): NumPy's covariance matrix of the rows (rowvar=False: columns) of m (and y): the centred rows' products, times 1 / (N - ddof)", NULL, SEC_LINALG},
    {"corrcoef", OPK_ARRAY, 1, {"x", "y", "rowvar", NULL}, 3, 1, 0, tsr_b_cov,
     "corrcoef(x, y=None, rowvar=True): NumPy's correlation coefficients: cov over the products of its diagonal's square roots, clipped to [-1, 1]", NULL, SEC_LINALG},
    {"lu", OPK_ARRAY, 0, {"a", NULL}, 1, 1, 0, tsr_b_lu,
     "p, l, u = lu(a): the LU factorization with partial pivoting of a square matrix up to 8192 x 8192 (a = p @ l @ u, l unit lower, u upper), as scipy's and dask's, by the backend (LAPACK getrf, cuSOLVER)", NULL, SEC_LINALG},
    {"det", OPK_ARRAY, 0, {"a", NULL}, 1, 1, 0, tsr_b_det,
     "det(a): the determinant of a square matrix up to 8192 x 8192, NumPy's sign * exp(logabsdet) of the LU factors", NULL, SEC_LINALG},
    {"slogdet", OPK_ARRAY, 1, {"a", NULL}, 1, 1, 0, tsr_b_det,
     "sign, logabsdet = slogdet(a): NumPy's sign and log of the absolute determinant (0 and -inf for a singular matrix)", NULL, SEC_LINALG},
    {"solve_triangular", OPK_ARRAY, 0, {"a", "b", "lower", NULL}, 3, 2, 0, tsr_b_solve_triangular,
     "solve_triangular(a, b, lower=False): x with a x = b for a triangular a up to 8192 x 8192 (its triangle read), by the backend (BLAS trsm, cuBLAS)", NULL, SEC_LINALG},
    {"qr", OPK_ARRAY, LA_QR_Q, {"x", NULL}, 1, 1, 0, tsr_b_qr,
     "q, r = qr(x): thin QR of a 2-d array with one column of chunks (TSQR)", NULL, SEC_LINALG},
    {"svd", OPK_ARRAY, LA_SVD_U, {"x", "k", NULL}, 1, 1, 0, tsr_b_svd,
     "u, s, vt = svd(x, k=None): thin SVD (top k) of a 2-d array with one column of chunks", NULL, SEC_LINALG},
    {"param", OPK_ARRAY, 0, {"default", NULL}, 1, 1, 0, tsr_b_param,
     "name = param(default): a job parameter: default, or VALUE from `tessera run --set name=VALUE` or a sweep's trial", NULL, SEC_JOB},
    GLM_FIT("logistic_regression", TSR_GLM_LOGISTIC, "y in {0, 1}"),
    GLM_FIT("linear_regression", TSR_GLM_NORMAL, "least squares"),
    GLM_FIT("poisson_regression", TSR_GLM_POISSON, "counts, log link"),
    {"predict", OPK_ARRAY, 0, {"X", "coef", "intercept", "family", NULL}, 3, 2, 0, tsr_b_glm_predict,
     "predict(X, coef, intercept=None, family=\"logistic\"): 0/1 labels (logistic), X @ coef + intercept (normal), exp of it (poisson)", NULL, SEC_MODEL},
    {"predict_proba", OPK_ARRAY, 1, {"X", "coef", "intercept", "family", NULL}, 3, 2, 0, tsr_b_glm_predict,
     "predict_proba(X, coef, intercept=None): 1 / (1 + exp(-(X @ coef + intercept))), the logistic family's probabilities", NULL, SEC_MODEL},
};
/* clang-format on */
const int tsr_nops = (int)(sizeof tsr_ops / sizeof tsr_ops[0]);

const tsr_op_def *tsr_op_find(const char *name, int as_method) {
  for (int i = 0; i < tsr_nops; i++)
    if (!strcmp(tsr_ops[i].name, name) && (!as_method || tsr_ops[i].is_method)) return &tsr_ops[i];
  return NULL;
}

const tsr_op_def *tsr_op_operator(const char *symbol) {
  for (int i = 0; i < tsr_nops; i++)
    if (tsr_ops[i].symbol && !strcmp(tsr_ops[i].symbol, symbol)) return &tsr_ops[i];
  return NULL;
}
