/*
 * format.c - printing values for `tessera eval` and job output. Scalars use
 * %.17g (round-trip exact); arrays follow NumPy's layout: nested brackets,
 * one row per line, columns right-aligned, summarized with "..." beyond 1000
 * elements (3 items at each edge).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "eval/value.h"
#include "kernel/dtype.h"

#define EDGE 3
#define THRESHOLD 1000

const char *tsr_value_type_name(const tsr_value *v) {
  static const char *names[] = {"None", "bool", "int", "float", "str", "tuple", "array"};
  return names[v->kind];
}

/* integers and bools as NumPy prints them */
static int exact_text(double x, tsr_dtype dt, char *buf, size_t n) {
  if (dt == TSR_BOOL) {
    snprintf(buf, n, "%s", x != 0 ? "True" : "False");
    return 1;
  }
  if (tsr_dtype_is_int(dt)) {
    snprintf(buf, n, "%.0f", x);
    return 1;
  }
  return 0;
}

static void print_scalar(FILE *out, double x, tsr_dtype dt) {
  char buf[64];
  if (exact_text(x, dt, buf, sizeof buf))
    fputs(buf, out);
  else if (x == 0 && signbit(x))
    fputs("-0", out);
  else if (isnan(x))
    fputs("nan", out);
  else if (isinf(x))
    fputs(x > 0 ? "inf" : "-inf", out);
  else
    fprintf(out, "%.17g", x);
}

/* NumPy-like element text: 8 significant digits, a trailing '.' for whole numbers. */
static void element_text(double x, tsr_dtype dt, char *buf, size_t n) {
  if (exact_text(x, dt, buf, n)) {
  } else if (isnan(x)) {
    snprintf(buf, n, "nan");
  } else if (isinf(x)) {
    snprintf(buf, n, x > 0 ? "inf" : "-inf");
  } else {
    snprintf(buf, n, "%.8g", x);
    if (!strpbrk(buf, ".e")) strncat(buf, ".", n - strlen(buf) - 1);
  }
}

typedef struct layout {
  const tsr_node *n;
  int summarize;
  int width;
} layout;

static int shown(const layout *L, int axis, int64_t i) {
  int64_t len = L->n->grid.shape[axis];
  return !L->summarize || len <= 2 * EDGE || i < EDGE || i >= len - EDGE;
}

static void print_block(FILE *out, const layout *L, int axis, int64_t offset, int indent) {
  const tsr_node *n = L->n;
  int nd = n->grid.ndim;
  int64_t len = n->grid.shape[axis], stride = 1;
  for (int a = axis + 1; a < nd; a++) stride *= n->grid.shape[a];
  fputc('[', out);
  int first = 1;
  for (int64_t i = 0; i < len; i++) {
    if (!shown(L, axis, i)) {
      if (i == EDGE) {
        if (axis == nd - 1)
          fputs(" ...", out);
        else
          fprintf(out, "\n%*s...", indent + 1, "");
      }
      continue;
    }
    if (!first) {
      if (axis == nd - 1) {
        fputc(' ', out);
      } else {
        for (int k = axis; k < nd - 1; k++) fputc('\n', out);
        fprintf(out, "%*s", indent + 1, "");
      }
    }
    first = 0;
    if (axis == nd - 1) {
      char buf[64];
      element_text(n->value[offset + i], n->dtype, buf, sizeof buf);
      fprintf(out, "%*s", L->width, buf);
    } else {
      print_block(out, L, axis + 1, offset + i * stride, indent + 1);
    }
  }
  fputc(']', out);
}

void tsr_array_print(FILE *out, const tsr_node *n) {
  int nd = n->grid.ndim;
  int64_t size = tsr_node_size(n);
  if (nd == 0) {
    print_scalar(out, n->value[0], n->dtype);
    return;
  }
  layout L = {n, size > THRESHOLD, n->dtype == TSR_BOOL ? 5 : 1}; /* NumPy pads bools to False */
  for (int64_t e = 0; e < size; e++) {
    char buf[64];
    element_text(n->value[e], n->dtype, buf, sizeof buf);
    int w = (int)strlen(buf);
    if (w > L.width) L.width = w;
  }
  print_block(out, &L, 0, 0, 0);
}

void tsr_value_print(FILE *out, const tsr_value *v) {
  switch (v->kind) {
  case V_NONE:
    fputs("None", out);
    break;
  case V_BOOL:
    fputs(v->i ? "True" : "False", out);
    break;
  case V_INT:
    fprintf(out, "%lld", v->i);
    break;
  case V_FLOAT:
    print_scalar(out, v->f, TSR_F64);
    break;
  case V_STR:
    fprintf(out, "'%s'", v->s);
    break;
  case V_TUPLE:
    fputc('(', out);
    for (int i = 0; i < v->nitems; i++) {
      if (i) fputs(", ", out);
      tsr_value_print(out, &v->items[i]);
    }
    fputs(v->nitems == 1 ? ",)" : ")", out);
    break;
  case V_ARRAY:
    if (v->arr->value)
      tsr_array_print(out, v->arr);
    else
      fputs("<array not computed>", out);
    break;
  }
}
