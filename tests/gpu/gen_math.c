/*
 * gen_math.c - the GPU walking kernels' own uniforms, division, square root
 * and sin/cos (src/gpu/gpu_prog.cuh: gen_u01, gen_div, gen_sqrt,
 * gen_sin_or_cos2pi) give the bits of u01, of the IEEE operations and of the
 * general path on the operands the walk gives them: 10^9 random samples of
 * each by default (usage: gen_math [N]), plus the edges. Skips (77, loudly)
 * without a GPU; scripts/gpu-check.sh runs it on GPU nodes.
 */
#include <stdio.h>
#include <stdlib.h>

#include "gpu/gpu_selftest.h"

int main(int argc, char **argv) {
  long long n = argc > 1 ? atoll(argv[1]) : 1000000000LL;
  uint64_t counts[TSR_GEN_CHECKS];
  int st = tsr_gpu_gen_math_check(n, 20261126u, counts);
  if (st == 1) {
    fprintf(stderr, "SKIP: no GPU visible (this test runs on GPU nodes: scripts/gpu-check.sh)\n");
    return 77;
  }
  if (st != 0) return 1;
  const char *what[TSR_GEN_CHECKS] = {"u01 of Philox words", "division f / (2 + f)",
                                      "sqrt(-2 log u)", "sin or cos of 2 pi u", "normal values"};
  int failed = 0;
  for (int c = 0; c < TSR_GEN_CHECKS; c++) {
    printf("%-22s %lld samples, %llu differ\n", what[c], n, (unsigned long long)counts[c]);
    failed |= counts[c] != 0;
  }
  return failed;
}
