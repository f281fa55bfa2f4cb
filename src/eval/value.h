/*
 * value.h - run-time values of the job language: numbers, strings, tuples,
 * None, booleans and lazy arrays. Values are small structs; whatever they
 * point to lives in the interpreter's arena until the job ends.
 */
#ifndef TSR_VALUE_H
#define TSR_VALUE_H

#include <stdio.h>

#include "graph/array.h"

typedef enum tsr_value_kind {
  V_NONE,
  V_BOOL,
  V_INT,
  V_FLOAT,
  V_STR,
  V_TUPLE,
  V_ARRAY
} tsr_value_kind;

typedef struct tsr_value tsr_value;
struct tsr_value {
  tsr_value_kind kind;
  long long i;      /* BOOL, INT */
  double f;         /* FLOAT */
  const char *s;    /* STR */
  tsr_value *items; /* TUPLE */
  int nitems;
  tsr_node *arr; /* ARRAY */
};

const char *tsr_value_type_name(const tsr_value *v);
static inline int tsr_value_is_number(const tsr_value *v) {
  return v->kind == V_INT || v->kind == V_FLOAT || v->kind == V_BOOL;
}
/* An array's dtype; a Python number's NumPy default type (bool, int64,
 * float64), the `like` of tsr_as_array for a value on its own. */
static inline tsr_dtype tsr_value_dtype(const tsr_value *v) {
  return v->kind == V_ARRAY  ? v->arr->dtype
         : v->kind == V_BOOL ? TSR_BOOL
         : v->kind == V_INT  ? TSR_I64
                             : TSR_F64;
}
static inline double tsr_value_number(const tsr_value *v) {
  return v->kind == V_FLOAT ? v->f : (double)v->i;
}

/* Prints a value the way NumPy/Python would: scalars with %.17g, arrays with
 * nested brackets (computed arrays only). */
void tsr_value_print(FILE *out, const tsr_value *v);
void tsr_array_print(FILE *out, const tsr_node *n);

#endif
