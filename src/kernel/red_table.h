/*
 * red_table.h - the one table of reductions (as ew_table.h is for the
 * elementwise functions; dask's reduction(chunk, combine, aggregate) and
 * CuPy's create_reduction_func as rows). Each row is one reduction:
 *
 *   R(ID, name, monoid, flags, result dtype, doc)
 *
 * monoid: how one element enters a partial and how two ordered partials
 * merge (kernel/stats_merge.h, shared by the CPU and the CUDA code):
 *   RM_ADD      a = sum of x               (finish: a)
 *   RM_MEAN     a = sum of x               (finish: a / n)
 *   RM_MIN/MAX  a = the extreme, NaN wins  (finish: a)
 *   RM_MOMENTS  (n, mean, M2), Chan et al. (finish: M2 / (n - ddof), sqrt)
 *   RM_MUL      a = product of x           (empty: 1)
 *   RM_OR/AND   a = any/all x != 0, 0 or 1 (empty: 0 / 1)
 *   RM_COUNT    a = count of x != 0
 *   RM_ARGMAX/ARGMIN  (a, b) = (extreme, its index), the smaller index on
 *               ties and NaN first as NumPy's: the merge picks by a total
 *               order, so any grouping of the partials gives the same bits
 * flags:
 *   RF_DDOF     takes ddof= (only these rows accept it)
 *   RF_NOEMPTY  an empty reduction is an error (no identity)
 *   RF_SKIPNAN  NaN elements are left out (nanprod, nanargmax)
 *   RF_INDEX    the partial carries an element index in b: the backends
 *               give it within the chunk (flat C order for a full
 *               reduction, along the axis otherwise), exec/combine.c makes
 *               it global; a slice left with no element (all NaN) is an
 *               error at compute time
 *   RF_VAR/STD  the finish: variance, standard deviation
 *   RF_NOMETHOD no x.name() method (NumPy's arrays have none)
 * result dtype: RD_SAME (the input's), RD_SUM (NumPy's sum/prod type:
 * int64 for bool and signed integers, uint64 for unsigned ones), RD_FLOAT
 * (NumPy's mean type: float64 for bool and integers, a float's own),
 * RD_BOOL, RD_I64.
 *
 * From these rows come the tsr_red_kind enum (kernel/ids.h: RED_ID), the
 * names (graph/array.c), the operation table's lines and so `tessera
 * info` (eval/ops.c), the flags and monoids both backends switch on, and
 * the CUDA dispatch (gpu/gpu_reduce.cu: one kernel per row, no default).
 * Rows never move: new rows go at the end.
 */
#ifndef TSR_RED_TABLE_H
#define TSR_RED_TABLE_H

enum {
  RM_ADD,
  RM_MEAN,
  RM_MIN,
  RM_MAX,
  RM_MOMENTS,
  RM_MUL,
  RM_OR,
  RM_AND,
  RM_COUNT,
  RM_ARGMAX,
  RM_ARGMIN
};

#define RF_DDOF 1
#define RF_NOEMPTY 2
#define RF_SKIPNAN 4
#define RF_INDEX 8
#define RF_VAR 16
#define RF_STD 32
#define RF_NOMETHOD 64

enum { RD_SAME, RD_SUM, RD_FLOAT, RD_BOOL, RD_I64 };

/* clang-format off */
#define TSR_RED_TABLE(R)                                                                           \
  R(SUM, "sum", RM_ADD, 0, RD_SUM,                                                                \
    "sum(a, axis=None, keepdims=False, dtype=None): sum (0 for none); dtype= converts the "       \
    "elements and the result")                                                                    \
  R(MEAN, "mean", RM_MEAN, 0, RD_FLOAT,                                                           \
    "mean(a, axis=None, keepdims=False, dtype=None): sum / n (NaN when n = 0)")                   \
  R(MIN, "min", RM_MIN, RF_NOEMPTY, RD_SAME,                                                      \
    "min(a, axis=None, keepdims=False): minimum (NaN if any element is NaN)")                     \
  R(MAX, "max", RM_MAX, RF_NOEMPTY, RD_SAME,                                                      \
    "max(a, axis=None, keepdims=False): maximum (NaN if any element is NaN)")                     \
  R(VAR, "var", RM_MOMENTS, RF_DDOF | RF_VAR, RD_FLOAT,                                           \
    "var(a, axis=None, keepdims=False, ddof=0, dtype=None): sum((x - mean)**2) / (n - ddof) "     \
    "(as NumPy: / max(n - ddof, 0), inf or NaN there)")                                                                   \
  R(STD, "std", RM_MOMENTS, RF_DDOF | RF_STD, RD_FLOAT,                                           \
    "std(a, axis=None, keepdims=False, ddof=0, dtype=None): sqrt(var)")                           \
  R(PROD, "prod", RM_MUL, 0, RD_SUM,                                                               \
    "prod(a, axis=None, keepdims=False, dtype=None): product (1 for none); int64/uint64 for "     \
    "integers")                                                                                   \
  R(NANPROD, "nanprod", RM_MUL, RF_SKIPNAN | RF_NOMETHOD, RD_SUM,                                  \
    "nanprod(a, axis=None, keepdims=False, dtype=None): product with NaN as 1")                   \
  R(ANY, "any", RM_OR, 0, RD_BOOL,                                                                 \
    "any(a, axis=None, keepdims=False): True where some element is nonzero (NaN counts)")          \
  R(ALL, "all", RM_AND, 0, RD_BOOL,                                                                \
    "all(a, axis=None, keepdims=False): True where every element is nonzero (True for none)")      \
  R(ARGMAX, "argmax", RM_ARGMAX, RF_INDEX | RF_NOEMPTY, RD_I64,                                    \
    "argmax(a, axis=None, keepdims=False): index of the first maximum (of the first NaN); "        \
    "axis=None: into the flattened array")                                                         \
  R(ARGMIN, "argmin", RM_ARGMIN, RF_INDEX | RF_NOEMPTY, RD_I64,                                    \
    "argmin(a, axis=None, keepdims=False): index of the first minimum (of the first NaN)")         \
  R(NANARGMAX, "nanargmax", RM_ARGMAX, RF_INDEX | RF_NOEMPTY | RF_SKIPNAN | RF_NOMETHOD, RD_I64,   \
    "nanargmax(a, axis=None, keepdims=False): argmax ignoring NaN; an all-NaN slice is an "        \
    "error when computed")                                                                         \
  R(NANARGMIN, "nanargmin", RM_ARGMIN, RF_INDEX | RF_NOEMPTY | RF_SKIPNAN | RF_NOMETHOD, RD_I64,   \
    "nanargmin(a, axis=None, keepdims=False): argmin ignoring NaN; an all-NaN slice is an "        \
    "error when computed")                                                                         \
  R(COUNT_NONZERO, "count_nonzero", RM_COUNT, RF_NOMETHOD, RD_I64,                                 \
    "count_nonzero(a, axis=None, keepdims=False): number of nonzero elements (NaN counts)")
/* clang-format on */

#endif
