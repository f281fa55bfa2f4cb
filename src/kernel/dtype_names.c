/*
 * dtype_names.c - the element types' names and NumPy's promotion rules
 * (host side of kernel/dtype.h).
 */
#include <string.h>

#include "kernel/dtype.h"
#include "kernel/dtype_names.h"

static const char *const names[TSR_NDTYPES] = {
    [TSR_F64] = "float64", [TSR_F32] = "float32", [TSR_BOOL] = "bool", [TSR_I8] = "int8",
    [TSR_I16] = "int16",   [TSR_I32] = "int32",   [TSR_I64] = "int64", [TSR_U8] = "uint8",
    [TSR_U16] = "uint16",  [TSR_U32] = "uint32",  [TSR_U64] = "uint64"};

const char *tsr_dtype_str(int dt) { return dt >= 0 && dt < TSR_NDTYPES ? names[dt] : "?"; }

/* NumPy's spellings: the names, their one-character codes and sizes, and
 * Python's types as NumPy reads them (float, int, bool). */
static const struct {
  const char *s;
  tsr_dtype dt;
} aliases[] = {
    {"f8", TSR_F64},       {"double", TSR_F64}, {"float", TSR_F64},    {"d", TSR_F64},
    {"float_", TSR_F64},   {"f4", TSR_F32},     {"single", TSR_F32},   {"f", TSR_F32},
    {"bool_", TSR_BOOL},   {"?", TSR_BOOL},     {"b1", TSR_BOOL},      {"i1", TSR_I8},
    {"byte", TSR_I8},      {"i2", TSR_I16},     {"short", TSR_I16},    {"i4", TSR_I32},
    {"intc", TSR_I32},     {"i8", TSR_I64},     {"int", TSR_I64},      {"int_", TSR_I64},
    {"intp", TSR_I64},     {"long", TSR_I64},   {"longlong", TSR_I64}, {"u1", TSR_U8},
    {"ubyte", TSR_U8},     {"u2", TSR_U16},     {"ushort", TSR_U16},   {"u4", TSR_U32},
    {"uintc", TSR_U32},    {"u8", TSR_U64},     {"uint", TSR_U64},     {"uintp", TSR_U64},
    {"ulonglong", TSR_U64}};

int tsr_dtype_parse(const char *s, tsr_dtype *dt) {
  if (!strncmp(s, "np.", 3))
    s += 3;
  else if (!strncmp(s, "numpy.", 6))
    s += 6;
  for (int d = 0; d < TSR_NDTYPES; d++)
    if (!strcmp(s, names[d])) {
      *dt = (tsr_dtype)d;
      return 1;
    }
  for (size_t k = 0; k < sizeof aliases / sizeof aliases[0]; k++)
    if (!strcmp(s, aliases[k].s)) {
      *dt = aliases[k].dt;
      return 1;
    }
  return 0;
}

static tsr_dtype signed_of_bits(int bits) {
  return bits <= 8 ? TSR_I8 : bits <= 16 ? TSR_I16 : bits <= 32 ? TSR_I32 : TSR_I64;
}

tsr_dtype tsr_dtype_promote(tsr_dtype a, tsr_dtype b) {
  if (a == b) return a;
  if (a == TSR_BOOL) return b;
  if (b == TSR_BOOL) return a;
  if (tsr_dtype_is_float(a) || tsr_dtype_is_float(b)) {
    if (a == TSR_F64 || b == TSR_F64) return TSR_F64;
    tsr_dtype i = a == TSR_F32 ? b : a; /* float32 with an integer type */
    return i == TSR_F32 || tsr_dtype_bits(i) <= 16 ? TSR_F32 : TSR_F64;
  }
  int ua = tsr_dtype_is_unsigned(a), ub = tsr_dtype_is_unsigned(b);
  int ba = tsr_dtype_bits(a), bb = tsr_dtype_bits(b);
  if (ua == ub) return ba >= bb ? a : b;
  tsr_dtype s = ua ? b : a, u = ua ? a : b;
  if (tsr_dtype_bits(s) > tsr_dtype_bits(u)) return s;
  if (tsr_dtype_bits(u) == 64) return TSR_F64; /* int64 with uint64 */
  return signed_of_bits(2 * tsr_dtype_bits(u));
}

tsr_dtype tsr_dtype_promote_weak(tsr_dtype a, tsr_scalar_kind k) {
  switch (k) {
  case TSR_SCALAR_BOOL:
    return a;
  case TSR_SCALAR_INT:
    return a == TSR_BOOL ? TSR_I64 : a;
  case TSR_SCALAR_FLOAT:
    return tsr_dtype_is_float(a) ? a : TSR_F64;
  }
  return a;
}

tsr_dtype tsr_dtype_float_of(tsr_dtype a) {
  if (tsr_dtype_is_float(a)) return a;
  return a == TSR_BOOL || tsr_dtype_bits(a) <= 16 ? TSR_F32 : TSR_F64;
}

tsr_dtype tsr_dtype_sum_of(tsr_dtype a) {
  if (a == TSR_BOOL || tsr_dtype_is_signed_int(a)) return TSR_I64;
  if (tsr_dtype_is_unsigned(a)) return TSR_U64;
  return a;
}

int tsr_dtype_fits(tsr_dtype a, double v) {
  if (tsr_dtype_is_float(a)) return 1;
  if (a == TSR_BOOL) return v == 0 || v == 1;
  return v >= tsr_dtype_min(a) && v <= tsr_dtype_max(a);
}
