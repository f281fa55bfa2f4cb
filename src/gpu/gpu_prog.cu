/*
 * gpu_prog.cu - the host side of the CUDA backend's programs (gpu_prog.cuh):
 * a tsr_prog turned into its device form, with its data leaves uploaded or
 * read in place and the chunk tables of --no-fuse's operations in the
 * program itself (long ones in device memory).
 */
#include <limits.h>

#include "gpu/gpu_prog.cuh"

/* Whether a program is a chain (see eval_chain). */
static int is_chain(const tsr_prog *p) {
  if (p->ninstr == 0 || p->code[0].kind != I_LEAF) return 0;
  for (int i = 1; i < p->ninstr; i++) {
    const tsr_instr *c = &p->code[i], *prev = &p->code[i - 1];
    if (c->kind == I_LEAF) return 0;
    if (c->kind == I_UNARY && c->x != prev->dst) return 0;
    if (c->kind == I_BINARY) {
      int left = c->x == prev->dst && p->reg_const[c->y];
      int right = c->y == prev->dst && p->reg_const[c->x];
      if (!left && !right) return 0;
    }
  }
  return p->result == p->code[p->ninstr - 1].dst;
}

/* Whether a program that is not a chain is a dag (dprog.dag): one leaf,
 * read by the first instruction, and no other leaf instruction. */
static int is_dag(const tsr_prog *p) {
  if (p->nleaves != 1 || p->ninstr < 2 || p->code[0].kind != I_LEAF) return 0;
  for (int i = 1; i < p->ninstr; i++)
    if (p->code[i].kind == I_LEAF) return 0;
  return 1;
}

int tsr_gpu_no_walk;

/* Whether a chain program can run as GEN (gpu_prog.cuh): its leaf is leaf
 * 0, random, and nothing is cast (float32, integers). */
static int is_gen(const tsr_prog *p, int dag) {
  if (tsr_gpu_no_walk || p->ndim < 1 || p->code[0].x != 0 || p->leaves[0].kind != LEAF_RANDOM ||
      p->leaves[0].cast)
    return 0;
  for (int i = 0; i < p->ninstr && !dag; i++) /* dag_rest casts; the gen steps do not */
    if (p->code[i].cast) return 0;
  switch ((tsr_random_kind)p->leaves[0].rng) {
  case RNG_NORMAL:
  case RNG_UNIFORM:
    return 1;
  case RNG_GAMMA: /* a Philox sequence per element: the general path */
  case RNG_BETA:
  case RNG_STUDENT_T:
  case RNG_POISSON:
  case RNG_BINOMIAL:
  case RNG_INTEGERS:
    return 0;
  }
  return 0;
}

/* Whether w * x is exact for every value x a random leaf gives before its
 * a and b (normals: 0 or 1e-23 <= |x| < 9; uniforms: 2^-53 <= x <= 1): w a
 * power of two that keeps those products normal. */
static int scales_exactly(double w) {
  int ex;
  double m = frexp(w, &ex);
  return (m == 0.5 || m == -0.5) && ex > -512 && ex < 512;
}

/* A GEN program's two steps v -> fma(v, m, a) (gen_value). First the
 * leaf's a + w x (normal: w = b; uniform: w = b - a, as random_of_words
 * computes them): one step fma(x, w, a) where w x is exact (the one
 * rounding is then the sum's), else two, fma(x, w, -0) (the product, also
 * when it is +0 or -0) and fma(v, 1, a) (the sum). Then, while steps are
 * left, the chain's operations v + c, c + v, v - c, c - v, v * c or c * v
 * with a constant c: m = +-1 and a = +-c for the additions and
 * subtractions (v * m is exact, so the one rounding is the sum's: x - y is
 * x + (-y) in IEEE arithmetic), m = c and a = -0 for products. The rest of
 * the chain runs as it is (GEN_REST). */
static void gen_steps_of(const tsr_prog *p, dprog *d) {
  int n = 0;
  for (int k = 0; k < 2; k++) d->gen_m[k] = 1.0, d->gen_a[k] = -0.0; /* fma(v, 1, -0) = v */
  const tsr_leaf *l = &p->leaves[0];
  double w = l->rng == RNG_UNIFORM ? l->b - l->a : l->b;
  if (scales_exactly(w)) {
    d->gen_m[n] = w, d->gen_a[n++] = l->a;
  } else {
    d->gen_m[n] = w, d->gen_a[n++] = -0.0;
    d->gen_m[n] = 1.0, d->gen_a[n++] = l->a;
  }
  d->gen_ops = 0;
  for (int i = 1; i < p->ninstr && n < 2 && !d->dag; i++) {
    const tsr_instr *c = &p->code[i];
    if (c->kind != I_BINARY) break;
    int left = c->x != p->code[i - 1].dst;
    double k = p->reg_value[left ? c->x : c->y], m, a;
    if (c->op == EW_ADD)
      m = 1.0, a = k;
    else if (c->op == EW_SUB)
      m = left ? -1.0 : 1.0, a = left ? k : -k;
    else if (c->op == EW_MUL)
      m = k, a = -0.0;
    else
      break;
    d->gen_m[n] = m;
    d->gen_a[n++] = a;
    d->gen_ops++;
  }
  if (1 + d->gen_ops < p->ninstr) d->chain = GEN_REST;
}

/* ---- host side ------------------------------------------------------------ */

/* Every call below queues its copies and kernels on the calling host thread's
 * own stream (STREAM), so the OpenMP workers of a rank keep several streams
 * busy at once, and a thread's operations run in the order it queued them. */

/* A table of more than INLINE_CHUNKS chunks, in pool memory (its layout:
 * gpu_prog.cuh, dchunks), copied from pageable memory as upload_data does. */
static int upload_table(const tsr_chunkset *cs, int nd, dchunks *t) {
  size_t n = (size_t)cs->n, words = n * (2 * TSR_MAXDIM + 1);
  long long *h = (long long *)calloc(words, sizeof *h);
  if (!h) return TSR_ERROR(TSR_ERR_MEMORY, "out of memory for a table of %zu chunks", n);
  for (size_t c = 0; c < n; c++) {
    for (int b = 0; b < nd; b++) {
      h[c * TSR_MAXDIM + b] = cs->start[c][b];
      h[(n + c) * TSR_MAXDIM + b] = cs->extent[c][b];
    }
    memcpy(&h[2 * n * TSR_MAXDIM + c], &cs->data[c], sizeof(double *));
  }
  double *dev = NULL;
  int st = tsr_gpu_alloc(sizeof *h * words, &dev);
  if (st == TSR_OK) {
    t->big = (const long long *)dev; /* released by prog_release, also when the copy fails */
    st = CUDA_STATUS(cudaMemcpyAsync(dev, h, sizeof *h * words, cudaMemcpyHostToDevice, STREAM));
  }
  free(h);
  return st;
}

/* The table of the chunks a --no-fuse leaf reads goes into the program (the
 * chunks are in device memory already: backend memory from gpu_alloc), or
 * into device memory when it is longer than the program holds. */
static int table_chunks(const tsr_leaf *l, dprog *d, int *ntab, dleaf *x) {
  if (*ntab == MAX_TABLES)
    return TSR_ERROR(TSR_ERR_BACKEND, "an operation reads more than %d arrays of chunks",
                     MAX_TABLES);
  if (l->chunks && l->chunks->n > INT_MAX)
    return TSR_ERROR(TSR_ERR_BACKEND, "an operation reads %lld chunks of one array",
                     (long long)l->chunks->n);
  dchunks *t = &d->tab[*ntab];
  t->n = l->chunks ? (int)l->chunks->n : 0; /* none filled: an empty box */
  x->table = (*ntab)++;
  if (t->n > INLINE_CHUNKS) return upload_table(l->chunks, l->base_ndim, t);
  for (int c = 0; c < t->n; c++) {
    for (int b = 0; b < l->base_ndim; b++) {
      t->start[c][b] = l->chunks->start[c][b];
      t->extent[c][b] = l->chunks->extent[c][b];
    }
    t->data[c] = l->chunks->data[c];
  }
  return TSR_OK;
}

/* A DATA leaf's host values, copied into pool memory on this thread's stream.
 * From pageable memory cudaMemcpyAsync returns once the driver has staged
 * the values (waiting for the stream if it must), so the caller may free its
 * buffer. The pool replaces a cudaMalloc/cudaFree per call, which
 * synchronize the whole device: per chunk of a staged load, and per --no-fuse
 * operation that reads a replicated array. */
static int upload_data(const tsr_leaf *l, dleaf *x) {
  int64_t n = 1;
  for (int b = 0; b < l->base_ndim; b++) n *= l->base_shape[b];
  double *dev;
  TSR_CHECK(tsr_gpu_alloc(sizeof(double) * (size_t)(n + 1), &dev));
  x->data = dev; /* released by prog_release, also when the copy fails */
  CUDA_CHECK(
      cudaMemcpyAsync(dev, l->data, sizeof(double) * (size_t)n, cudaMemcpyHostToDevice, STREAM));
  return TSR_OK;
}

/* One leaf in its device form. */
static int leaf_upload(const tsr_leaf *l, dprog *d, int *ntab, dleaf *x) {
  x->kind = l->kind;
  x->base_ndim = l->base_ndim;
  for (int b = 0; b < TSR_MAXDIM; b++) {
    x->axis_of[b] = b < l->base_ndim ? l->axis_of[b] : -1;
    x->off[b] = l->off[b];
    x->step[b] = l->step[b];
  }
  x->rng = l->rng;
  x->cast = l->cast;
  x->k0 = (uint32_t)l->key;
  x->k1 = (uint32_t)(l->key >> 32);
  x->stream = l->stream;
  x->a = l->a;
  x->b = l->b;
  x->e_const = l->e_const;
  for (int k = 0; k < TSR_MAXDIM; k++) x->e_coef[k] = l->e_coef[k];
  if (l->kind == LEAF_CHUNKS) return table_chunks(l, d, ntab, x);
  if (l->kind == LEAF_DATA && l->resident) {
    x->data = l->data;
    x->kind = LEAF_RESIDENT; /* device data owned by the executor */
  } else if (l->kind == LEAF_DATA) {
    return upload_data(l, x);
  }
  return TSR_OK;
}

/* Whether p runs as GEN or GEN_REST (gpu_prog.cuh): a chain or a dag whose
 * leaf is a random one the walk generates. */
int tsr_gpu_prog_walks(const tsr_prog *p) {
  int dag = !is_chain(p) && is_dag(p);
  return (is_chain(p) || dag) && is_gen(p, dag);
}

/* Copies a program to its device form; DATA leaves are uploaded (given back
 * by prog_release). */
int tsr_gpu_prog_upload(const tsr_prog *p, dprog *d) {
  memset(d, 0, sizeof *d);
  /* The wrappers split larger programs (backend/be_split.c): not reached. */
  if (p->nleaves > MAX_LEAVES || p->ninstr > MAX_INSTR || p->nregs > MAX_REGS)
    return TSR_ERROR(TSR_ERR_INTERNAL,
                     "a program of %d leaves, %d operations and %d registers reached the GPU "
                     "unsplit (at most %d, %d and %d)",
                     p->nleaves, p->ninstr, p->nregs, MAX_LEAVES, MAX_INSTR, MAX_REGS);
  d->ndim = p->ndim;
  d->nleaves = p->nleaves;
  d->ninstr = p->ninstr;
  d->result = p->result;
  d->dag = !is_chain(p) && is_dag(p);
  d->chain = is_chain(p) || d->dag ? (is_gen(p, d->dag) ? GEN : CHAIN) : 0;
  for (int i = 0; i < 10 && p->nleaves > 0; i++) { /* Philox's round keys for GEN */
    d->rk[2 * i] = (uint32_t)p->leaves[0].key + (uint32_t)i * 0x9E3779B9u;
    d->rk[2 * i + 1] = (uint32_t)(p->leaves[0].key >> 32) + (uint32_t)i * 0xBB67AE85u;
  }
  int ntab = 0, st = TSR_OK;
  for (int i = 0; i < p->nleaves && st == TSR_OK; i++)
    st = leaf_upload(&p->leaves[i], d, &ntab, &d->leaf[i]);
  if (st != TSR_OK) {
    tsr_gpu_prog_release(d);
    return st;
  }
  for (int i = 0; i < p->ninstr; i++) {
    const tsr_instr *s = &p->code[i];
    d->code[i] = dinstr{(int)s->kind, s->op, s->cast, s->dst, s->x, s->y};
  }
  for (int r = 0; r < p->nregs; r++) {
    d->reg_const[r] = p->reg_const[r];
    d->reg_value[r] = p->reg_value[r];
  }
  if (d->chain == GEN) gen_steps_of(p, d);
  return TSR_OK;
}

void tsr_gpu_prog_limits(tsr_prog_limits *out) {
  *out = tsr_prog_limits{MAX_LEAVES, MAX_INSTR, MAX_REGS, MAX_TABLES};
}

/* Gives the uploaded DATA leaves back to the pool once the work this thread
 * queued is done (another thread may take a block as soon as it is back):
 * one wait, only when there are such leaves, and none in effect after a
 * reduction, which has waited for its partials already. */
int tsr_gpu_prog_release(dprog *d) {
  int any = 0;
  for (int i = 0; i < d->nleaves; i++) any |= d->leaf[i].kind == LEAF_DATA && d->leaf[i].data;
  for (int t = 0; t < MAX_TABLES; t++) any |= d->tab[t].big != NULL;
  if (!any) return TSR_OK;
  int st = CUDA_STATUS(cudaStreamSynchronize(STREAM));
  for (int i = 0; i < d->nleaves; i++)
    if (d->leaf[i].kind == LEAF_DATA && d->leaf[i].data) {
      tsr_gpu_release((double *)d->leaf[i].data);
      d->leaf[i].data = NULL;
    }
  for (int t = 0; t < MAX_TABLES; t++)
    if (d->tab[t].big) {
      tsr_gpu_release((double *)d->tab[t].big);
      d->tab[t].big = NULL;
    }
  return st;
}

dbox tsr_gpu_make_box(int ndim, const int64_t *start, const int64_t *extent) {
  dbox b;
  memset(&b, 0, sizeof b);
  for (int a = 0; a < ndim; a++) {
    b.start[a] = start[a];
    b.extent[a] = extent[a];
  }
  return b;
}
