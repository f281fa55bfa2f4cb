/*
 * ops_random.h - NumPy's continuous distributions as transforms of one
 * Philox-keyed array, and the discrete generators and those drawing several
 * variates per element (ops_random.c). Their table lines are in ops.c.
 */
#ifndef TSR_OPS_RANDOM_H
#define TSR_OPS_RANDOM_H

#include "eval/builtin.h"

/* def->code of tsr_b_distribution. */
enum {
  TSR_DIST_STANDARD_NORMAL,
  TSR_DIST_LOGNORMAL,
  TSR_DIST_STANDARD_EXPONENTIAL,
  TSR_DIST_EXPONENTIAL,
  TSR_DIST_LAPLACE,
  TSR_DIST_LOGISTIC,
  TSR_DIST_GUMBEL,
  TSR_DIST_RAYLEIGH,
  TSR_DIST_WEIBULL,
  TSR_DIST_PARETO
};

/* def->code of tsr_b_generator: the discrete generators and those that
 * draw several variates per element (kernel/rngdist.h). */
enum {
  TSR_GEN_INTEGERS,
  TSR_GEN_RANDINT,
  TSR_GEN_POISSON,
  TSR_GEN_BINOMIAL,
  TSR_GEN_GEOMETRIC,
  TSR_GEN_GAMMA,
  TSR_GEN_STANDARD_GAMMA,
  TSR_GEN_BETA,
  TSR_GEN_CHISQUARE,
  TSR_GEN_STANDARD_T,
  TSR_GEN_CHOICE
};

int tsr_b_generator(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a,
                    tsr_value *out);

int tsr_b_distribution(tsr_ctx *c, const ast_node *call, const tsr_op_def *def, tsr_args *a,
                       tsr_value *out);

#endif
