/*
 * glm.h - the one definition of each GLM family on one sample, shared by the
 * CPU backend and the CUDA kernels of the data pass (backend.h: glm_pass),
 * so that both compute the same IEEE operations.
 *
 * A family is its canonical link: with eta = x.beta + b, the sample's loss
 * (the negative log-likelihood up to terms without beta), the residual
 * r = mu(eta) - y (d loss / d eta) and the weight w = mu'(eta) (d^2 loss /
 * d eta^2). The loss, gradient X^T r and Hessian X^T W X of a block are sums
 * of these.
 */
#ifndef TSR_KERNEL_GLM_H
#define TSR_KERNEL_GLM_H

#include <math.h>

#ifdef __CUDACC__
#define TSR_GLM_HD __host__ __device__
#else
#define TSR_GLM_HD
#endif

/* Families (the table in linalg/glm_family.c names them). */
typedef enum tsr_glm_family {
  TSR_GLM_LOGISTIC, /* y in {0, 1}: loss log(1 + e^eta) - y eta, mu = 1 / (1 + e^-eta) */
  TSR_GLM_NORMAL,   /* y real: loss (eta - y)^2 / 2, mu = eta */
  TSR_GLM_POISSON,  /* y >= 0: loss e^eta - y eta, mu = e^eta */
  TSR_GLM_NFAMILIES
} tsr_glm_family;

/* The mean mu(eta) (the inverse link), without overflow for the logistic. */
static inline TSR_GLM_HD double tsr_glm_mean(int family, double eta) {
  if (family == TSR_GLM_LOGISTIC) {
    if (eta >= 0) return 1.0 / (1.0 + exp(-eta));
    double e = exp(eta);
    return e / (1.0 + e);
  }
  return family == TSR_GLM_POISSON ? exp(eta) : eta;
}

/* One sample's loss given eta and its mean mu. */
static inline TSR_GLM_HD double tsr_glm_loss(int family, double eta, double mu, double y) {
  if (family == TSR_GLM_LOGISTIC) /* softplus(eta) - y eta, stable for large |eta| */
    return (eta > 0 ? eta + log1p(exp(-eta)) : log1p(exp(eta))) - y * eta;
  if (family == TSR_GLM_POISSON) return mu - y * eta;
  double d = eta - y;
  return 0.5 * d * d;
}

/* The mean and the loss together, with the logistic family's exp(-|eta|)
 * computed once: the same values, bit for bit, as tsr_glm_mean and
 * tsr_glm_loss (exp(-eta) for eta >= 0 and exp(eta) below are that one
 * value), for one exp a sample instead of two. */
static inline TSR_GLM_HD void tsr_glm_mean_loss(int family, double eta, double y, double *mu,
                                                double *loss) {
  if (family != TSR_GLM_LOGISTIC) {
    *mu = tsr_glm_mean(family, eta);
    *loss = tsr_glm_loss(family, eta, *mu, y);
    return;
  }
  double e = exp(-fabs(eta));
  *mu = eta >= 0 ? 1.0 / (1.0 + e) : e / (1.0 + e);
  *loss = (eta > 0 ? eta + log1p(e) : log1p(e)) - y * eta;
}

/* The weight mu'(eta) of the Hessian. */
static inline TSR_GLM_HD double tsr_glm_weight(int family, double mu) {
  if (family == TSR_GLM_LOGISTIC) return mu * (1.0 - mu);
  return family == TSR_GLM_POISSON ? mu : 1.0;
}

/* Whether y is a valid response of the family (0 or 1; finite and >= 0;
 * finite). */
static inline TSR_GLM_HD int tsr_glm_y_ok(int family, double y) {
  if (family == TSR_GLM_LOGISTIC) return y == 0.0 || y == 1.0;
  if (family == TSR_GLM_POISSON) return y >= 0.0 && y <= 1.7976931348623157e308;
  return y - y == 0.0; /* finite */
}

#endif
