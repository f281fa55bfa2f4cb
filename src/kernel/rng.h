/*
 * rng.h - the random numbers of tessera, one definition for every backend.
 *
 * Element e (row-major global linear index) of a random array with 64-bit key
 * and 32-bit stream takes its bits from Philox4x32-10 with
 *   key = (key mod 2^32, key div 2^32),
 *   counter = (p mod 2^32, p div 2^32, stream, 0),  p = e div 2.
 * The four output words (x0, x1, x2, x3) give two uniforms in (0,1]:
 *   u1 = ((((x1 << 32) | x0) >> 11) + 1) * 2^-53,
 *   u2 = ((((x3 << 32) | x2) >> 11) + 1) * 2^-53.
 * uniform/random: u1 for even e, u2 for odd e.
 * normal (Box-Muller): r = sqrt(-2 log u1); r cos(2 pi u2) for even e,
 *   r sin(2 pi u2) for odd e.
 * log and sincos are tessera's own (rngmath.h), written with explicit fma, so
 * that the CPU and GPU backends produce the same bits.
 */
#ifndef TSR_RNG_H
#define TSR_RNG_H

#include <stddef.h>
#include <stdint.h>

/* Philox4x32-10 of one counter (Random123's philox4x32 on the CPU). */
void tsr_philox4x32_10(const uint32_t ctr[4], const uint32_t key[2], uint32_t out[4]);

/* Value of element e, one at a time (reference path; slow). */
double tsr_rng_uniform_at(uint64_t key, uint32_t stream, uint64_t e);
double tsr_rng_normal_at(uint64_t key, uint32_t stream, uint64_t e);

/* out[i] = value of element e0 + i*de for i in [0, n): the same bits as the
 * _at functions, computed fast (vectorizable loops; one Philox call per pair
 * of elements when de == 1). de may be 0 or negative; every e must be >= 0. */
void tsr_rng_fill_uniform(uint64_t key, uint32_t stream, uint64_t e0, int64_t de, size_t n,
                          double *out);
void tsr_rng_fill_normal(uint64_t key, uint32_t stream, uint64_t e0, int64_t de, size_t n,
                         double *out);

#endif
