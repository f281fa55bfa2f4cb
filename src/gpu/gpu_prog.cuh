/*
 * gpu_prog.cuh - a fused program as the CUDA backend's kernels see it, and
 * what every kernel of gpu_eval.cu (materializing boxes) and gpu_reduce.cu
 * (reducing them) shares: the program's device form (dprog, passed by value
 * as a kernel argument: it lives in the constant bank, read uniformly by
 * every thread), the element evaluation (random values, leaves, the register
 * program, chain programs in one register), box coordinates, and the host
 * functions of gpu_prog.cu that upload a program. Internal to src/gpu/.
 *
 * A program is interpreted per element: the instruction loop is the same for
 * all threads, so it costs no divergence, and generation (Philox + log +
 * sincos) dominates. Random values use cuRAND's curand_Philox4x32_10 and
 * tessera's own log and sincos (rngmath.h), so they have the bits of the CPU
 * backend.
 */
#ifndef TSR_GPU_PROG_CUH
#define TSR_GPU_PROG_CUH

#include <cuda_runtime.h>
#include <pthread.h>
#include <curand_philox4x32_x.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern "C" {
#include "kernel/rngmath.h"
#include "kernel/rngdist.h"
#include "util/signals.h"
#include "kernel/dtype.h"
#include "kernel/ew_scalar.h"
#include "kernel/stats_merge.h"
#include "util/trace.h"
}
#include "gpu/gpu_check.h"
#include "gpu/gpu_device.h"

#define MAX_LEAVES 8
#define MAX_INSTR 32
#define MAX_REGS 40
#define MAX_TABLES 2 /* CHUNKS leaves per program: a --no-fuse operation reads at most two arrays */
#define THREADS 256
#define LEAF_RESIDENT (LEAF_HELD + 1) /* a DATA leaf already in device memory */
/* The calling host thread's own stream: kernels and copies of one thread run
 * in order, those of different threads side by side (what nvcc's
 * --default-stream per-thread also makes of stream 0, e.g. in the
 * cudaMemcpy of gpu_memory.cu's download). */
#define STREAM cudaStreamPerThread

/* ---- the program as the device sees it ----------------------------------- */

/* The table of materialized input chunks a CHUNKS leaf reads (--no-fuse).
 * Up to INLINE_CHUNKS (the usual one or few) travel in the program itself;
 * a box that reads more (a strided subscript over many small chunks) has its
 * table in device memory at big, from the pool: n starts and n extents of
 * TSR_MAXDIM values each, then n data pointers (gpu_prog.cu, table_chunks). */
#define INLINE_CHUNKS 8
struct dchunks {
  int n;
  long long start[INLINE_CHUNKS][TSR_MAXDIM], extent[INLINE_CHUNKS][TSR_MAXDIM];
  const double *data[INLINE_CHUNKS];
  const long long *big;
};

struct dleaf {
  int kind, rng, cast, base_ndim;
  uint32_t k0, k1, stream;
  int table; /* CHUNKS: its table in dprog::tab */
  double a, b;
  long long e_const, e_coef[TSR_MAXDIM];
  int axis_of[TSR_MAXDIM];
  long long off[TSR_MAXDIM], step[TSR_MAXDIM];
  const double *data;
};

struct dinstr {
  int kind, op, cast, dst, x, y;
};

/* The chunk tables travel inside the program, by value: each operation of
 * --no-fuse used to allocate a device copy from the pool and upload it with
 * a synchronous cudaMemcpy (a stream synchronize and a pool lock per
 * operation, and a pool slot per worker that pushed W1 on 64 threads past
 * the pool's 256 slots, into cudaFree/cudaMalloc, which synchronize the
 * device). Expected: that upload's ~10-20 us gone from every operation with
 * array inputs. Only a table longer than INLINE_CHUNKS still goes to the
 * pool (and its operation waits in prog_release before giving it back). */
/* chain: 0, a program of registers (eval_element); CHAIN, a chain
 * (eval_chain); GEN, a chain from a random leaf 0 with no float32 rounding,
 * which the full reductions walk with its element index kept per thread and
 * Philox's round keys precomputed (rk: round i's key words 2i, 2i + 1), and
 * GEN_REST, one such whose chain goes on after the two steps (gen_rest). */
enum { CHAIN = 1, GEN = 2, GEN_REST = 3 };
/* dag: a chain-like program whose one leaf (leaf 0, the first
 * instruction) is read by more than one operation, as x in
 * where(x > 10, x + 1, 0): it runs wherever a chain does, the operations
 * after the leaf through a register file (dag_rest) instead of one value. */
struct dprog {
  int ndim, nleaves, ninstr, result, chain, dag;
  uint32_t rk[20];
  /* GEN: the leaf's a + b x and then the chain's first operations that are
   * an addition, subtraction or multiplication by a constant, as two steps
   * v -> fma(v, gen_m, gen_a) (gen_value); unused steps are fma(v, 1, -0),
   * which is v; gen_ops: the chain's operations they took */
  double gen_m[2], gen_a[2];
  int gen_ops;
  dleaf leaf[MAX_LEAVES];
  dinstr code[MAX_INSTR];
  int reg_const[MAX_REGS];
  double reg_value[MAX_REGS];
  dchunks tab[MAX_TABLES];
};

struct dbox {
  long long start[TSR_MAXDIM], extent[TSR_MAXDIM];
};

/* Kernel arguments live in the constant bank: at most 4 KB of them (32 KB
 * only from CUDA 12.1 on Volta and later). The program, tables included,
 * must leave room for the other arguments of every kernel (at most a box,
 * two ints, a count and a pointer: 88 bytes). */
static_assert(sizeof(dprog) + 96 <= 4096,
              "the device program outgrew the 4 KB of kernel arguments");

/* ---- device code --------------------------------------------------------- */

__device__ static inline double u01(unsigned lo, unsigned hi) {
  unsigned long long v = ((((unsigned long long)hi << 32) | lo) >> 11) + 1;
  return (double)v * 0x1p-53;
}

/* Element e of random leaf l from its Philox words w (rng.h). */
__device__ static inline double random_of_words(const dleaf &l, long long e, uint4 w) {
  if (l.rng == RNG_UNIFORM) {
    double u = (e & 1) ? u01(w.z, w.w) : u01(w.x, w.y);
    return l.a + (l.b - l.a) * u;
  }
  double r = sqrt(-2.0 * tsr_log(u01(w.x, w.y)));
  return l.a + l.b * (r * tsr_sin_or_cos2pi(u01(w.z, w.w), (uint64_t)e & 1));
}

/* Whether random leaf l is normal or uniform (rng.h), else one of the
 * kinds of kernel/rngdist.h. */
__device__ static inline bool random_is_pair(const dleaf &l) {
  switch ((tsr_random_kind)l.rng) {
  case RNG_NORMAL:
  case RNG_UNIFORM:
    return true;
  case RNG_GAMMA:
  case RNG_BETA:
  case RNG_STUDENT_T:
  case RNG_POISSON:
  case RNG_BINOMIAL:
  case RNG_INTEGERS:
    return false;
  }
  return false;
}

/* Element e of a random leaf of one of rngdist.h's kinds: a call, not
 * inlined, so that its loops and registers stay out of the kernels that
 * only ever see normal and uniform leaves. */
__device__ __noinline__ static double random_dist_value(const dleaf &l, long long e) {
  return tsr_rng_dist_at(l.rng, l.a, l.b, ((uint64_t)l.k1 << 32) | l.k0, l.stream, (uint64_t)e);
}

__device__ static double random_value(const dleaf &l, long long e) {
  if (!random_is_pair(l)) return random_dist_value(l, e);
  unsigned long long p = (unsigned long long)e >> 1;
  uint4 c = make_uint4((unsigned)p, (unsigned)(p >> 32), l.stream, 0);
  return random_of_words(l, e, curand_Philox4x32_10(c, make_uint2(l.k0, l.k1)));
}

/* Entry c of a chunk table, inline or in device memory (the same branch for
 * every thread of a launch). */
__device__ static inline long long chunk_start(const dchunks &cs, int c, int b) {
  return cs.n <= INLINE_CHUNKS ? cs.start[c][b] : cs.big[(long long)c * TSR_MAXDIM + b];
}
__device__ static inline long long chunk_extent(const dchunks &cs, int c, int b) {
  return cs.n <= INLINE_CHUNKS ? cs.extent[c][b] : cs.big[((long long)cs.n + c) * TSR_MAXDIM + b];
}
__device__ static inline const double *chunk_data(const dchunks &cs, int c) {
  if (cs.n <= INLINE_CHUNKS) return cs.data[c];
  return ((const double *const *)(cs.big + 2LL * cs.n * TSR_MAXDIM))[c];
}

/* Value of a CHUNKS leaf: find the chunk of its table holding the element. */
__device__ static double chunk_value(const dprog &p, const dleaf &l, const long long *idx) {
  long long coord[TSR_MAXDIM];
  for (int b = 0; b < l.base_ndim; b++)
    coord[b] = l.off[b] + (l.axis_of[b] >= 0 ? l.step[b] * idx[l.axis_of[b]] : 0);
  const dchunks &cs = p.tab[l.table];
  for (int c = 0; c < cs.n; c++) {
    long long off = 0, stride = 1;
    bool inside = true;
    for (int b = l.base_ndim - 1; b >= 0; b--) {
      long long r = coord[b] - chunk_start(cs, c, b), e = chunk_extent(cs, c, b);
      inside = inside && r >= 0 && r < e;
      off += r * stride;
      stride *= e;
    }
    if (inside) return chunk_data(cs, c)[off];
  }
  return NAN; /* the executor guarantees coverage; make a bug visible */
}

__device__ static inline long long leaf_index(const dleaf &l, int ndim, const long long *idx) {
  long long e = l.e_const;
  for (int k = 0; k < ndim; k++) e += l.e_coef[k] * idx[k];
  return e;
}

__device__ static double leaf_value(const dprog &p, const dleaf &l, const long long *idx) {
  if (l.kind == LEAF_CHUNKS) return chunk_value(p, l, idx);
  if (l.kind == LEAF_RESIDENT) return l.data[leaf_index(l, p.ndim, idx)];
  long long e = l.e_const;
  for (int k = 0; k < p.ndim; k++) e += l.e_coef[k] * idx[k];
  double v;
  if (l.kind == LEAF_RANDOM)
    v = random_value(l, e);
  else if (l.kind == LEAF_ARANGE)
    v = l.a + l.b * (double)e;
  else
    v = l.data[e];
  return l.cast ? tsr_dtype_cast(v, l.cast) : v;
}

/* The elementwise table on the device: the rows that are one or two
 * instructions inline (each case calls the table with a constant id, which
 * folds to that row's expression: the same bits), every other row through
 * one call. Inlined whole, the table's switch (pow, arctan2, hypot, fmod,
 * ...) sat in every interpreted program's loop and took its registers:
 * the GEN_REST mean kernel of the where row used 64 registers and a
 * 400-byte stack, 152 bytes of it spills (ptxas -v, sm_90); 36 bytes with
 * this dispatch. The where row's time did not move (2.42x -> 2.46x W2 on
 * an H200): its cost is the interpretation, not the spills. The scan's
 * carry pass (gpu_scan.cu) uses it too: 118 registers inline, 64 here. */
__device__ __noinline__ static double ew_unary_call(int op, double x) {
  return tsr_ew_unary(op, x);
}
__device__ __noinline__ static double ew_binary_call(int op, double x, double y) {
  return tsr_ew_binary(op, x, y);
}
#define EW_FAST_U(id) \
  case EW_##id:       \
    return tsr_ew_unary(EW_##id, x);
#define EW_FAST_B(id) \
  case EW_##id:       \
    return tsr_ew_binary(EW_##id, x, y);
/* clang-format off */
__device__ static inline double ew_unary_dev(int op, double x) {
  switch (op) {
    EW_FAST_U(NEG) EW_FAST_U(ABS) EW_FAST_U(COPY) EW_FAST_U(SQUARE)
    EW_FAST_U(NOTNAN) EW_FAST_U(NANZERO) EW_FAST_U(ISNAN) EW_FAST_U(LOGICAL_NOT)
  default:
    return ew_unary_call(op, x);
  }
}
__device__ static inline double ew_binary_dev(int op, double x, double y) {
  switch (op) {
    EW_FAST_B(ADD) EW_FAST_B(SUB) EW_FAST_B(MUL) EW_FAST_B(MIN) EW_FAST_B(MAX)
    EW_FAST_B(GREATER) EW_FAST_B(GREATER_EQUAL) EW_FAST_B(LESS) EW_FAST_B(LESS_EQUAL)
    EW_FAST_B(EQUAL) EW_FAST_B(NOT_EQUAL) EW_FAST_B(WHERE_PICK) EW_FAST_B(WHERE_FILL)
  default:
    return ew_binary_call(op, x, y);
  }
}
/* clang-format on */
#undef EW_FAST_U
#undef EW_FAST_B

/* An operation (unary or binary) of a program on the register file r. */
__device__ static inline double instr_value(const dprog &p, const dinstr &ins, const double *r) {
  double x = p.reg_const[ins.x] ? p.reg_value[ins.x] : r[ins.x];
  if (ins.kind == I_UNARY) return ew_unary_dev(ins.op, x);
  return ew_binary_dev(ins.op, x, p.reg_const[ins.y] ? p.reg_value[ins.y] : r[ins.y]);
}

__device__ static double eval_element(const dprog &p, const long long *idx) {
  double r[MAX_REGS];
  for (int i = 0; i < p.ninstr; i++) {
    const dinstr &ins = p.code[i];
    double v = ins.kind == I_LEAF ? leaf_value(p, p.leaf[ins.x], idx) : instr_value(p, ins, r);
    r[ins.dst] = ins.cast ? tsr_dtype_cast(v, ins.cast) : v;
  }
  return r[p.result];
}

/* n / d for n >= 0, d > 0. 64-bit division is a long software sequence on
 * GPUs; where both operands fit in 32 bits (every chunk of W1) the quotient
 * is the same from a 32-bit division, several times cheaper. */
__device__ static inline long long quot(long long n, long long d) {
  if ((((unsigned long long)n | (unsigned long long)d) >> 32) == 0)
    return (long long)((unsigned)n / (unsigned)d);
  return n / d;
}

/* Coordinates of element i of a box (row-major). Expected from quot: most
 * of the index cost per thread of the materializing kernels, which divide
 * once per pair of elements. */
__device__ static void box_coords(const dbox &b, int ndim, long long i, long long *idx) {
  for (int a = ndim - 1; a >= 0; a--) {
    long long e = b.extent[a], q = quot(i, e);
    idx[a] = b.start[a] + (i - q * e);
    i = q;
  }
}

/* Moves idx `steps` elements forward in a box (row-major). Divides only
 * when a row boundary is crossed: 64-bit division is slow on GPUs. */
__device__ static void box_next(const dbox &b, int ndim, long long *idx, long long steps) {
  int a = ndim - 1;
  if (a < 0) return;
  idx[a] += steps;
  for (; a > 0; a--) {
    long long pos = idx[a] - b.start[a];
    if (pos < b.extent[a]) return;
    long long carry = pos / b.extent[a];
    idx[a] = b.start[a] + (pos - carry * b.extent[a]);
    idx[a - 1] += carry;
  }
}

/* A "chain" program (a leaf, then one operation after another on the previous
 * result, any other operand a constant) runs with its value in one register
 * instead of the register file in local memory: W1/W2 are chains. */
__device__ static double chain_rest(const dprog &p, double v);

__device__ static double eval_chain(const dprog &p, const long long *idx) {
  return chain_rest(p, leaf_value(p, p.leaf[p.code[0].x], idx));
}

template <bool CHAIN>
__device__ static inline double element(const dprog &p, const long long *idx) {
  return CHAIN ? eval_chain(p, idx) : eval_element(p, idx);
}

/* Both elements of a Philox pair (e even) at once: one counter, one log,
 * one sincos. Same arithmetic as random_value, so the same bits. */
__device__ static void random_pair(const dleaf &l, long long e, double *v0, double *v1) {
  if (!random_is_pair(l)) {
    *v0 = random_value(l, e);
    *v1 = random_value(l, e + 1);
    if (l.cast) {
      *v0 = tsr_dtype_cast(*v0, l.cast);
      *v1 = tsr_dtype_cast(*v1, l.cast);
    }
    return;
  }
  unsigned long long p = (unsigned long long)e >> 1;
  uint4 c = make_uint4((unsigned)p, (unsigned)(p >> 32), l.stream, 0);
  uint4 w = curand_Philox4x32_10(c, make_uint2(l.k0, l.k1));
  double u1 = u01(w.x, w.y), u2 = u01(w.z, w.w);
  if (l.rng == RNG_UNIFORM) {
    *v0 = l.a + (l.b - l.a) * u1;
    *v1 = l.a + (l.b - l.a) * u2;
  } else {
    double r = sqrt(-2.0 * tsr_log(u1)), s, c2;
    tsr_sincos2pi(u2, &s, &c2);
    *v0 = l.a + l.b * (r * c2);
    *v1 = l.a + l.b * (r * s);
  }
  if (l.cast) {
    *v0 = tsr_dtype_cast(*v0, l.cast);
    *v1 = tsr_dtype_cast(*v1, l.cast);
  }
}

/* Operation i of a chain program on v, the previous operation's result;
 * its other operand, if any, is a constant. */
__device__ static inline double chain_op(const dprog &p, int i, double v) {
  const dinstr &ins = p.code[i];
  if (ins.kind == I_UNARY) return ew_unary_dev(ins.op, v);
  if (ins.x == p.code[i - 1].dst) return ew_binary_dev(ins.op, v, p.reg_value[ins.y]);
  return ew_binary_dev(ins.op, p.reg_value[ins.x], v);
}

/* The operations after the leaf of a dag program (dprog.dag) on its
 * value: eval_element's, with the leaf's register given. */
__device__ static double dag_rest(const dprog &p, double v) {
  double r[MAX_REGS];
  r[p.code[0].dst] = v;
  for (int i = 1; i < p.ninstr; i++) {
    const dinstr &ins = p.code[i];
    double w = instr_value(p, ins, r);
    r[ins.dst] = ins.cast ? tsr_dtype_cast(w, ins.cast) : w;
  }
  return r[p.result];
}

/* The operations after the leaf of a chain program, on a leaf value. */
__device__ static double chain_rest(const dprog &p, double v) {
  if (p.dag) return dag_rest(p, v);
  for (int i = 1; i < p.ninstr; i++) {
    v = chain_op(p, i, v);
    if (p.code[i].cast) v = tsr_dtype_cast(v, p.code[i].cast);
  }
  return v;
}

/* The pair of a thread as one 16-byte store where out + i is aligned (i is
 * even; buffers from the pool are): two 8-byte stores 16 bytes apart fill
 * each 32-byte sector in two halves, which Nsight Compute showed costing
 * read-modify-write traffic, 3.34 GB of DRAM traffic to write an 0.8 GB
 * chunk of normals (H100, W2 --no-fuse). Expected: the generation and `+ 1`
 * kernels of --no-fuse 1.8 and 2.1 ms per 10000^2 chunk toward 1.0 and 0.7. */
__device__ static inline void store_pair(double *at, double v0, double v1) {
  if (((uintptr_t)at & 15) == 0)
    *reinterpret_cast<double2 *>(at) = make_double2(v0, v1);
  else
    at[0] = v0, at[1] = v1;
}

/* ---- GEN programs: a random leaf and its chain, for the full reductions ---- */

/* Philox4x32-10 with the round keys read from the program: curand's rounds
 * (curand_Philox4x32_10), the same bits, without adding the Weyl constants
 * to the key in every round of every element. */
__device__ static inline uint4 philox_rk(uint4 c, const uint32_t *rk) {
#pragma unroll
  for (int i = 0; i < 10; i++) {
    unsigned hi0 = __umulhi(0xD2511F53u, c.x), lo0 = 0xD2511F53u * c.x;
    unsigned hi1 = __umulhi(0xCD9E8D57u, c.z), lo1 = 0xCD9E8D57u * c.z;
    c = make_uint4(hi1 ^ c.y ^ rk[2 * i], lo1, hi0 ^ c.w ^ rk[2 * i + 1], lo0);
  }
  return c;
}

/* Leaf 0's Philox words at counter q (the pair e / 2 of element e). */
__device__ static inline uint4 gen_words(const dprog &p, unsigned long long q) {
  return philox_rk(make_uint4((unsigned)q, (unsigned)(q >> 32), p.leaf[0].stream, 0), p.rk);
}

/* n / d and sqrt(x), correctly rounded, as CUDA's own division and square
 * root compute them when their operands are ordinary (the hardware's
 * reciprocal or reciprocal-root estimate, low word included, then the same
 * Newton steps: with a low word of 0, 68 quotients in 2e9 were 1 ulp off), but
 * without the test and branch to the slow path that division and sqrt take
 * for operands near the ends of the exponent range, zeros, infinities and
 * NaN. Only for the walk's operands, where that path is never needed: log's
 * f / (2 + f) with f in [-0.30, 0.42] (f = 0 gives +0, as IEEE does), and
 * the root of -2 log u in [0, 74] for u in (0, 1], whose zero (u = 1) is
 * selected as it is. The branch-free walk is one basic block, which the
 * compiler can schedule as one; checked against __ddiv_rn and __dsqrt_rn
 * on those domains (tests/gpu/gen_math.c) and, element by element, against
 * the general kernels (tests/gpu/gpu_backend.sh, TESSERA_GPU_NO_WALK). */
__device__ static inline double gen_div(double n, double d) {
  double y;
  asm("rcp.approx.ftz.f64 %0, %1;" : "=d"(y) : "d"(d));
  y = __hiloint2double(__double2hiint(y), 1); /* CUDA's own estimate has low word 1 */
  double e = fma(-d, y, 1.0);
  e = fma(e, e, e);
  y = fma(y, e, y);
  e = fma(-d, y, 1.0);
  y = fma(y, e, y);
  double q = n * y;
  return fma(y, fma(-d, q, n), q);
}
__device__ static inline double gen_sqrt(double x) {
  double y;
  asm("rsqrt.approx.ftz.f64 %0, %1;" : "=d"(y) : "d"(x));
  /* the low word CUDA's own estimate has */
  y = __hiloint2double(__double2hiint(y), __double2hiint(x) + (int)0xfcb00000u);
  double e = fma(x, -(y * y), 1.0);
  y = fma(fma(e, 0.375, 0.5), y * e, y);
  double s = x * y;
  double v = fma(fma(s, -s, x), y * 0.5, s);
  /* x where x is 0 (u = 1), as a select the compiler cannot turn into a
   * branch around the steps above: written as ?:, it did, and the two
   * regions a pair then needed kept the two elements' work from
   * interleaving across them (the pair loop 338 -> 327 instructions; W1
   * 0.557 -> 0.521 s on an H200 with gen_u01 and the walk's counter,
   * bench/RESULTS.md 2026-11-26 19:50) */
  asm("{\n\t.reg .pred z;\n\tsetp.eq.f64 z, %1, 0d0000000000000000;\n\tselp.f64 %0, %1, %2, z;\n\t}"
      : "=d"(v)
      : "d"(x), "d"(v));
  return v;
}

/* The polynomial coefficients of gen_sin_or_cos2pi, in each block's shared
 * memory: row 1 sin's (P6 ... P0), row 0 cos's after a 0 (0, Q5 ... Q0:
 * fma(r2, 0, Q5) is Q5, so seven entries take either through the same six
 * fused multiply-adds). */
struct gen_table {
  double poly[2][8];
};
/* Every thread of the block calls it, before any returns. */
__device__ static inline void gen_table_fill(gen_table *t) {
  int i = threadIdx.x;
  if (i < 7) t->poly[1][i] = tsr_rng_coef_dev[TSR_RC_SIN_P6 + i];
  if (i == 7) t->poly[0][0] = 0.0;
  if (i >= 8 && i < 14) t->poly[0][i - 7] = tsr_rng_coef_dev[TSR_RC_COS_Q5 + (i - 8)];
  __syncthreads();
}

/* tsr_sin_or_cos2pi, the same operations on the same values, with only the
 * polynomial that the quarter needs: which one differs from element to
 * element, so each thread reads its coefficients from the table instead of
 * evaluating both (W1: 9 fewer instructions an element, 2026-11-26). */
__device__ static inline double gen_sin_or_cos2pi(const gen_table &t, double u, uint64_t want_sin) {
  double r, r2;
  uint64_t q = tsr_quarter_reduce(u, &r, &r2);
  uint64_t s = tsr_quarter_uses_sin(q, want_sin);
  const double *c = t.poly[s];
  double p = fma(r2, c[0], c[1]);
#pragma unroll
  for (int k = 2; k < 7; k++) p = fma(r2, p, c[k]);
  double vs = tsr_sin2pi_tail(r, r2, p), vc = tsr_cos2pi_tail(r, r2, p);
  return tsr_quarter_sign(s ? vs : vc, q, want_sin);
}

/* u01(lo, hi) by one fused multiply-add instead of a 64-bit integer to
 * double conversion (16 a clock per SM, a quarter of the float64 rate; W1
 * 0.532 -> 0.521 s on an H200 though the loop has 4 more instructions):
 * with x = hi:lo, a = 2^52 + (x >> 12) (its bits: 0x433 above x's top 52)
 * and b = bit 11 of x, u01 is ((x >> 11) + 1) 2^-53 = a 2^-52 + c with
 * c = (b + 1) 2^-53 - 1 = -(1 - 2^-53) or -(1 - 2^-52): the bits
 * 0xbfefffff:ffffffff less b. Both terms and the sum are exact (the sum is
 * a multiple of 2^-53 in (0, 1]), so the one rounding changes nothing:
 * u01's bits (tests/gpu/gen_math.c). */
__device__ static inline double gen_u01(unsigned lo, unsigned hi) {
  double a = __hiloint2double((int)(0x43300000u | (hi >> 12)), (int)((hi << 20) | (lo >> 12)));
  double c = __hiloint2double((int)0xbfefffffu, (int)~((lo >> 11) & 1u));
  return fma(a, 0x1p-52, c);
}

/* Leaf 0's value at element e (odd: e & 1) from its Philox words w before
 * its a and b, which the steps apply (gen_value): a standard normal
 * r * sin-or-cos as random_of_words computes it, or the uniform u. */
template <bool NORMAL>
__device__ static inline double gen_raw(const gen_table &t, uint64_t odd, uint4 w) {
  if (!NORMAL) return odd ? gen_u01(w.z, w.w) : gen_u01(w.x, w.y);
  double k, f = tsr_log_reduce(gen_u01(w.x, w.y), &k);
  double r = gen_sqrt(-2.0 * tsr_log_finish(f, k, gen_div(f, 2.0 + f)));
  return r * gen_sin_or_cos2pi(t, gen_u01(w.z, w.w), odd);
}

/* The leaf's value and the chain's first operations as the program's two
 * fused multiply-adds, each exactly the operation(s) it stands for (see
 * gen_steps_of in gpu_prog.cu); the rest of the chain, if any, follows
 * (gen_rest). GEN programs round nothing to float32. */
template <bool NORMAL>
__device__ static inline double gen_value(const dprog &p, const gen_table &t, uint64_t odd,
                                          uint4 w) {
  double v = gen_raw<NORMAL>(t, odd, w);
  v = fma(v, p.gen_m[0], p.gen_a[0]);
  return fma(v, p.gen_m[1], p.gen_a[1]);
}
__device__ static inline double gen_rest(const dprog &p, double v) {
  if (p.dag) return dag_rest(p, v);
  for (int i = 1 + p.gen_ops; i < p.ninstr; i++) v = chain_op(p, i, v);
  return v;
}

/* A thread's walk over a box for GEN programs: its row o (row-major over
 * the axes before the last), position j on the last axis (extent E) and
 * the leaf's element index e; the row's index is recomputed only when the
 * walk crosses into another row (every E / THREADS steps or less often). */
struct gen_walk {
  long long o, j, E, e;
};

/* Leaf 0's element index at position j of row o: the sum of leaf_index,
 * the same 64-bit terms. */
__device__ static long long gen_index(const dprog &p, const dbox &b, long long o, long long j) {
  const dleaf &l = p.leaf[0];
  int last = p.ndim - 1;
  long long e = l.e_const + l.e_coef[last] * (b.start[last] + j);
  for (int a = last - 1; a >= 0; a--) {
    long long x = b.extent[a], q = quot(o, x);
    e += l.e_coef[a] * (b.start[a] + (o - q * x));
    o = q;
  }
  return e;
}

/* The walk at element i of the box (ndim >= 1). */
__device__ static inline void gen_start(const dprog &p, const dbox &b, long long i, gen_walk *w) {
  w->E = b.extent[p.ndim - 1];
  w->o = quot(i, w->E);
  w->j = i - w->o * w->E;
  w->e = gen_index(p, b, w->o, w->j);
}

/* Forward by `steps` elements of the box. */
__device__ static inline void gen_next(const dprog &p, const dbox &b, long long steps,
                                       gen_walk *w) {
  w->j += steps;
  w->e += p.leaf[0].e_coef[p.ndim - 1] * steps;
  if (w->j >= w->E) { /* into a later row */
    long long rows = quot(w->j, w->E);
    w->j -= rows * w->E;
    w->o += rows;
    w->e = gen_index(p, b, w->o, w->j);
  }
}

/* ---- the host side of programs (gpu_prog.cu) ---- */

/* Copies a program to its device form (resident DATA leaves read where they
 * are, other DATA leaves are uploaded from the pool, CHUNKS tables travel in
 * the program); tsr_gpu_prog_release gives the uploads back (after waiting
 * for this thread's stream). */
int tsr_gpu_prog_upload(const tsr_prog *p, dprog *d);
int tsr_gpu_prog_release(dprog *d);
dbox tsr_gpu_make_box(int ndim, const int64_t *start, const int64_t *extent);
/* Whether tsr_gpu_prog_upload would make p a GEN or GEN_REST program,
 * without uploading it. */
int tsr_gpu_prog_walks(const tsr_prog *p);

#endif
