/*
 * ops.h - the operation table: every function, method and operator of the
 * job language is declared once here, with its parameters, its kind and the
 * id of its kernel. The interpreter binds arguments from it, `tessera info`
 * lists it, and the kernel ids are what the backends implement.
 */
#ifndef TSR_OPS_H
#define TSR_OPS_H

#include "eval/builtin.h"

extern const tsr_op_def tsr_ops[];
extern const int tsr_nops;

const tsr_op_def *tsr_op_find(const char *name, int as_method);

/* The op that implements an operator ("+", "-", "*", "/", "**", "@", ".T"),
 * or NULL. */
const tsr_op_def *tsr_op_operator(const char *symbol);

#endif
