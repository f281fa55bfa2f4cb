/*
 * ew_table.h - the one table of elementwise functions (NumPy's
 * generate_umath.py as an X-macro). Each row is one operation:
 *
 *   U(ID, name, expression of x, doc)              a unary function
 *   I(ID, name, expression of x)                   a unary op the optimizer uses, not
 *                                                  a function of the language
 *   B(ID, name, operator or NULL, expression of x and y, doc)   a binary function
 *   J(ID, name, expression of x and y)             a binary op the optimizer uses
 *
 * and TSR_EW_ALIASES gives more names for a row: A(name, ID, arity, doc).
 * From these rows come the tsr_ew_op enum (kernel/ids.h: EW_ID), the
 * scalar switches shared by the interpreter, the CPU loops and the CUDA
 * kernels (kernel/ew_scalar.h), the names of the DAG (graph/array.c), the
 * operation table's lines (eval/ops.c) and so `tessera info`, the docs'
 * lists and the fuzzer's. Adding a function is one row here, and its
 * scalar helper in ew_scalar.h when the expression is more than a call.
 *
 * The expressions run in double on the host and on the device (float32
 * arrays are rounded after each operation); they are C99 math functions
 * (glibc's libm, CUDA's libdevice) or helpers of ew_scalar.h that spell
 * out NumPy's own definition where NumPy differs from C. Rows never move:
 * new rows go at the end of their list, so existing ids keep their numbers.
 */
#ifndef TSR_EW_TABLE_H
#define TSR_EW_TABLE_H

/* clang-format off */
#define TSR_EW_TABLE(U, I, B, J)                                                                   \
  U(NEG, "negative", -x, "negative(x)")                                                          \
  U(ABS, "abs", fabs(x), "abs(x)")                                                               \
  U(SQRT, "sqrt", sqrt(x), "sqrt(x)")                                                            \
  U(EXP, "exp", exp(x), "exp(x)")                                                                \
  U(LOG, "log", log(x), "log(x)")                                                                \
  U(SIN, "sin", sin(x), "sin(x)")                                                                \
  U(COS, "cos", cos(x), "cos(x)")                                                                \
  U(TANH, "tanh", tanh(x), "tanh(x)")                                                            \
  I(COPY, "copy", x)                                                                             \
  B(ADD, "add", "+", x + y, "add(x1, x2), x1 + x2")                                              \
  B(SUB, "subtract", "-", x - y, "subtract(x1, x2), x1 - x2")                                    \
  B(MUL, "multiply", "*", x * y, "multiply(x1, x2), x1 * x2")                                    \
  B(DIV, "divide", "/", x / y, "divide(x1, x2), x1 / x2")                                        \
  B(POW, "power", "**", tsr_ew_pow(x, y), "power(x1, x2), x1 ** x2")                                    \
  B(MIN, "minimum", NULL, tsr_ew_nan_min(x, y), "minimum(x1, x2): NaN-propagating")              \
  B(MAX, "maximum", NULL, tsr_ew_nan_max(x, y), "maximum(x1, x2): NaN-propagating")              \
  B(GREATER, "greater", ">", x > y ? 1.0 : 0.0, "greater(x1, x2), x1 > x2: bool (False for NaN)") \
  U(LOG1P, "log1p", log1p(x), "log1p(x): log(1 + x), exact near 0")                              \
  U(EXPM1, "expm1", expm1(x), "expm1(x): exp(x) - 1, exact near 0")                              \
  U(LOG2, "log2", log2(x), "log2(x)")                                                            \
  U(LOG10, "log10", log10(x), "log10(x)")                                                        \
  U(EXP2, "exp2", exp2(x), "exp2(x): 2 ** x")                                                    \
  U(TAN, "tan", tan(x), "tan(x)")                                                                \
  U(ARCSIN, "arcsin", asin(x), "arcsin(x)")                                                      \
  U(ARCCOS, "arccos", acos(x), "arccos(x)")                                                      \
  U(ARCTAN, "arctan", atan(x), "arctan(x)")                                                      \
  U(SINH, "sinh", sinh(x), "sinh(x)")                                                            \
  U(COSH, "cosh", cosh(x), "cosh(x)")                                                            \
  U(ARCSINH, "arcsinh", asinh(x), "arcsinh(x)")                                                  \
  U(ARCCOSH, "arccosh", acosh(x), "arccosh(x)")                                                  \
  U(ARCTANH, "arctanh", atanh(x), "arctanh(x)")                                                  \
  U(FLOOR, "floor", floor(x), "floor(x)")                                                        \
  U(CEIL, "ceil", ceil(x), "ceil(x)")                                                            \
  U(TRUNC, "trunc", trunc(x), "trunc(x): rounded toward 0")                                      \
  U(RINT, "rint", rint(x), "rint(x): rounded to the nearest integer, halves to even")            \
  U(SIGN, "sign", tsr_ew_sign(x), "sign(x): -1.0, 0.0 (for +-0) or 1.0; NaN for NaN")            \
  U(SQUARE, "square", x * x, "square(x): x * x")                                                 \
  U(RECIPROCAL, "reciprocal", 1.0 / x, "reciprocal(x): 1 / x")                                   \
  U(CBRT, "cbrt", cbrt(x), "cbrt(x): cube root")                                                 \
  U(DEG2RAD, "deg2rad", x * (TSR_EW_PI / 180.0), "deg2rad(x), radians(x): x * (pi / 180)")       \
  U(RAD2DEG, "rad2deg", x * (180.0 / TSR_EW_PI), "rad2deg(x), degrees(x): x * (180 / pi)")       \
  B(ARCTAN2, "arctan2", NULL, atan2(x, y), "arctan2(x1, x2): the angle of the point (x2, x1)")    \
  B(HYPOT, "hypot", NULL, tsr_ew_hypot(x, y), "hypot(x1, x2): sqrt(x1**2 + x2**2) without overflow")    \
  B(FMOD, "fmod", NULL, fmod(x, y), "fmod(x1, x2): C's remainder, the sign of x1")               \
  B(FMIN, "fmin", NULL, tsr_ew_fmin(x, y), "fmin(x1, x2): minimum ignoring a NaN")               \
  B(FMAX, "fmax", NULL, tsr_ew_fmax(x, y), "fmax(x1, x2): maximum ignoring a NaN")               \
  B(COPYSIGN, "copysign", NULL, copysign(x, y), "copysign(x1, x2): |x1| with the sign of x2")    \
  B(LOGADDEXP, "logaddexp", NULL, tsr_ew_logaddexp(x, y), "logaddexp(x1, x2): log(exp(x1) + exp(x2))") \
  B(LOGADDEXP2, "logaddexp2", NULL, tsr_ew_logaddexp2(x, y),                                     \
    "logaddexp2(x1, x2): log2(2**x1 + 2**x2)")                                                   \
  B(REMAINDER, "remainder", "%", tsr_ew_remainder(x, y),                                         \
    "remainder(x1, x2), mod(x1, x2), x1 % x2: Python's modulo, the sign of x2")                  \
  B(FLOOR_DIVIDE, "floor_divide", "//", tsr_ew_floor_divide(x, y),                               \
    "floor_divide(x1, x2), x1 // x2: floor(x1 / x2) as Python's divmod")                         \
  B(NEXTAFTER, "nextafter", NULL, nextafter(x, y), "nextafter(x1, x2): the next double after x1 toward x2") \
  B(HEAVISIDE, "heaviside", NULL, tsr_ew_heaviside(x, y),                                        \
    "heaviside(x1, x2): 0.0 where x1 < 0, x2 where x1 == 0, 1.0 where x1 > 0")                  \
  I(NOTNAN, "notnan", x == x ? 1.0 : 0.0)                                                        \
  I(NANZERO, "nanzero", x == x ? x : 0.0)                                                        \
  B(GREATER_EQUAL, "greater_equal", ">=", x >= y ? 1.0 : 0.0,                                     \
    "greater_equal(x1, x2), x1 >= x2: bool")                                                      \
  B(LESS, "less", "<", x < y ? 1.0 : 0.0, "less(x1, x2), x1 < x2: bool")                          \
  B(LESS_EQUAL, "less_equal", "<=", x <= y ? 1.0 : 0.0, "less_equal(x1, x2), x1 <= x2: bool")     \
  B(EQUAL, "equal", "==", x == y ? 1.0 : 0.0, "equal(x1, x2), x1 == x2: bool")                    \
  B(NOT_EQUAL, "not_equal", "!=", x != y ? 1.0 : 0.0,                                             \
    "not_equal(x1, x2), x1 != x2: bool (True for NaN)")                                           \
  U(ISNAN, "isnan", x != x ? 1.0 : 0.0, "isnan(x): bool")                                         \
  U(ISINF, "isinf", isinf(x) ? 1.0 : 0.0, "isinf(x): bool, True for +-inf")                       \
  U(ISFINITE, "isfinite", isfinite(x) ? 1.0 : 0.0, "isfinite(x): bool, False for NaN and +-inf")  \
  U(SIGNBIT, "signbit", signbit(x) ? 1.0 : 0.0, "signbit(x): bool, True where the sign bit is set (-0.0 too)") \
  U(LOGICAL_NOT, "logical_not", x == 0 ? 1.0 : 0.0, "logical_not(x): bool, x == 0")               \
  B(LOGICAL_AND, "logical_and", NULL, x != 0 && y != 0 ? 1.0 : 0.0, "logical_and(x1, x2): bool")  \
  B(LOGICAL_OR, "logical_or", NULL, x != 0 || y != 0 ? 1.0 : 0.0, "logical_or(x1, x2): bool")     \
  B(LOGICAL_XOR, "logical_xor", NULL, (x != 0) != (y != 0) ? 1.0 : 0.0, "logical_xor(x1, x2): bool") \
  B(BITWISE_AND, "bitwise_and", "&", tsr_ew_bits(x, y, '&'), "bitwise_and(x1, x2), x1 & x2: integers and bool") \
  B(BITWISE_OR, "bitwise_or", "|", tsr_ew_bits(x, y, '|'), "bitwise_or(x1, x2), x1 | x2: integers and bool") \
  B(BITWISE_XOR, "bitwise_xor", "^", tsr_ew_bits(x, y, '^'), "bitwise_xor(x1, x2), x1 ^ x2: integers and bool") \
  U(INVERT, "invert", tsr_ew_bits(x, 0.0, '~'), "invert(x), ~x: bitwise NOT of integers, NOT of bool") \
  B(LEFT_SHIFT, "left_shift", "<<", tsr_ew_bits(x, y, '<'), "left_shift(x1, x2), x1 << x2: integers") \
  B(RIGHT_SHIFT, "right_shift", ">>", tsr_ew_bits(x, y, '>'), "right_shift(x1, x2), x1 >> x2: integers, arithmetic for signed") \
  J(WHERE_PICK, "where_pick", y != 0 ? x : tsr_ew_hole())                                       \
  J(WHERE_FILL, "where_fill", tsr_ew_is_hole(x) ? y : x)

/* More names of a row (NumPy's aliases): A(name, ID, arity, doc). */
#define TSR_EW_ALIASES(A)                                                                        \
  A("absolute", ABS, 1, "absolute(x): abs(x)")                                                   \
  A("fabs", ABS, 1, "fabs(x): abs(x)")                                                           \
  A("degrees", RAD2DEG, 1, "degrees(x): rad2deg(x)")                                             \
  A("radians", DEG2RAD, 1, "radians(x): deg2rad(x)")                                             \
  A("true_divide", DIV, 2, "true_divide(x1, x2): divide(x1, x2)")                                \
  A("mod", REMAINDER, 2, "mod(x1, x2): remainder(x1, x2)")                                      \
  A("bitwise_not", INVERT, 1, "bitwise_not(x): invert(x)")                                       \
  A("bitwise_invert", INVERT, 1, "bitwise_invert(x): invert(x)")                                 \
  A("bitwise_left_shift", LEFT_SHIFT, 2, "bitwise_left_shift(x1, x2): left_shift(x1, x2)")       \
  A("bitwise_right_shift", RIGHT_SHIFT, 2, "bitwise_right_shift(x1, x2): right_shift(x1, x2)")
/* clang-format on */

#endif
