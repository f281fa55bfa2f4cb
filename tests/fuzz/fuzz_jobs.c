/*
 * fuzz_jobs.c - a mutation fuzzer of the job language: lexer, parser and
 * interpreter (src/lang/, src/eval/), run by tests/fuzz/parse_fuzz.sh.
 *
 * Every input takes the path of `tessera run` up to, not including, the first
 * computation: tsr_job_params() parses the text, interprets it into the lazy
 * graph and frees everything. An error status is an expected outcome; the
 * findings are crashes, sanitizer reports, stack overflows (the stack is
 * held to 8 MiB), hangs (an input running longer than --timeout seconds) and
 * errors without a message or with TSR_ERR_INTERNAL.
 *
 * Inputs are numbered. The first ones are generated extremes, the same in
 * every run (1 MB lines, 10^5-term expressions, 10^4-deep nesting, binary
 * bytes, huge shapes and slices; --list names them); then come --count
 * corpus files, each changed by 1 to 8 mutations (byte flips, insertions,
 * deletions, duplicated ranges, splices of two files, truncation, words of
 * the language, huge numbers such as 10**30 or -9223372036854775808, deep
 * nesting, long lines, repeated statements). Input K depends only on the
 * seed, K and the corpus (sorted by name), so that one input can be written
 * to a file or run alone:
 *
 *   fuzz_jobs [--seed S] [--count N] [--from K] [--timeout SEC] [--mem-limit MB]
 *             [--verbose] CORPUS...                   inputs K (default 0) and on
 *   fuzz_jobs --seed S --only K [--verbose] CORPUS...    input K alone
 *   fuzz_jobs --seed S --dump K [--out FILE] CORPUS...   input K to FILE
 *                                                        (default fuzz-S-K.tsr)
 *   fuzz_jobs --replay FILE...                           files as they are
 *   fuzz_jobs --list                                     the extremes
 *
 * --mem-limit (default 4096 MB; 0: none) bounds the address space beyond
 * what is mapped at the start (and room for a job's threads), so that the
 * allocation for a huge shape fails as it would on a small machine
 * (AddressSanitizer builds get max_allocation_size_mb instead, see
 * __asan_default_options). --verbose prints every input's outcome.
 *
 * Exit status: 0 when every input returned (with or without an error), 1 on
 * a finding, 2 on bad usage; a crash or sanitizer report ends the program
 * by its signal after "fuzz_jobs: FAILED: seed S, input K: ..." on stderr.
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "eval/ops.h"
#include "job/sweep.h"
#include "tessera.h"
#include "util/error.h"

/* Inputs are cut to this size (the extremes stay below it). */
#define MAX_INPUT ((size_t)3 << 20)

/* ---- the input being run, for the crash and hang messages -------------- */

static volatile sig_atomic_t in_input; /* an input is being run */
static volatile sig_atomic_t crashed;  /* a crash was reported */
static volatile sig_atomic_t cur_index = -1;
static const char *cur_file; /* a replayed file */
static unsigned long long cur_seed;
static unsigned cur_timeout;

/* Async-signal-safe output: text and unsigned numbers with write(2). */
static void put_str(const char *s) {
  size_t n = strlen(s);
  while (n > 0) {
    ssize_t k = write(STDERR_FILENO, s, n);
    if (k <= 0) return;
    s += k;
    n -= (size_t)k;
  }
}

static void put_num(unsigned long long v) {
  char d[24];
  int n = 0;
  do d[n++] = (char)('0' + v % 10);
  while ((v /= 10) > 0);
  char s[24];
  for (int i = 0; i < n; i++) s[i] = d[n - 1 - i];
  s[n] = '\0';
  put_str(s);
}

/* "fuzz_jobs: FAILED: seed S, input K: " or "fuzz_jobs: FAILED: FILE: " */
static void put_input(void) {
  put_str("fuzz_jobs: FAILED: ");
  if (cur_index >= 0) {
    put_str("seed ");
    put_num(cur_seed);
    put_str(", input ");
    put_num((unsigned long long)cur_index);
  } else {
    put_str(cur_file ? cur_file : "?");
  }
  put_str(": ");
}

static void put_failed(const char *what) {
  put_input();
  put_str(what);
  put_str("\n");
}

static const char *signal_name(int sig) {
  switch (sig) {
  case SIGSEGV:
    return "SIGSEGV (a bad memory access or a stack overflow)";
  case SIGBUS:
    return "SIGBUS";
  case SIGFPE:
    return "SIGFPE";
  case SIGILL:
    return "SIGILL";
  case SIGABRT:
    return "SIGABRT (an abort, or a sanitizer report with abort_on_error=1)";
  default:
    return "a signal";
  }
}

enum { NSIGS = 5 };
static const int crash_sigs[NSIGS] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
static struct sigaction old_actions[NSIGS];

/* Names the input, then lets the handler that was there before (a
 * sanitizer's or MPI's, which prints its report) or the default action end
 * the program. */
static void on_crash(int sig, siginfo_t *info, void *uctx) {
  if (!crashed) {
    crashed = 1;
    put_failed(signal_name(sig));
    alarm(cur_timeout); /* a handler chained to may hang on a broken heap */
  }
  for (int i = 0; i < NSIGS; i++) {
    if (crash_sigs[i] != sig) continue;
    struct sigaction *old = &old_actions[i];
    if ((old->sa_flags & SA_SIGINFO) && old->sa_sigaction) {
      sigaction(sig, old, NULL);
      old->sa_sigaction(sig, info, uctx);
      return;
    }
    if (old->sa_handler != SIG_DFL && old->sa_handler != SIG_IGN) {
      sigaction(sig, old, NULL);
      old->sa_handler(sig);
      return;
    }
  }
  signal(sig, SIG_DFL);
  raise(sig);
}

static void on_alarm(int sig) {
  (void)sig;
  if (crashed) {
    put_str("fuzz_jobs: stuck after the crash reported above\n");
    _exit(4);
  }
  if (!in_input) return;
  put_input();
  put_str("a hang: no result after ");
  put_num(cur_timeout);
  put_str(" s\n");
  _exit(3);
}

static void exiting(void) {
  if (in_input && !crashed) put_failed("the program exited in the middle of the input");
}

/* Sanitizer settings unless ASAN_OPTIONS / UBSAN_OPTIONS say otherwise: a
 * report aborts (so that on_crash names the input), and an allocation the
 * size of a huge shape returns NULL, as it does under --mem-limit without
 * sanitizers, instead of being a report (leaks are not checked: see
 * scripts/test.sh on Open MPI). */
const char *__asan_default_options(void);
const char *__asan_default_options(void) {
  return "abort_on_error=1:detect_leaks=0:allocator_may_return_null=1:"
         "max_allocation_size_mb=4096";
}
const char *__ubsan_default_options(void);
const char *__ubsan_default_options(void) {
  return "halt_on_error=1:abort_on_error=1:print_stacktrace=1";
}

#ifndef __SANITIZE_ADDRESS__
/* The address space mapped now (MPI and, in a CUDA build, the CUDA
 * libraries: gigabytes on a GPU node), which the bound comes on top of. */
static rlim_t address_space_now(void) {
  unsigned long pages = 0;
  FILE *f = fopen("/proc/self/statm", "r");
  if (f) {
    if (fscanf(f, "%lu", &pages) != 1) pages = 0;
    fclose(f);
  }
  return (rlim_t)pages * (rlim_t)sysconf(_SC_PAGESIZE);
}

/* What the worker threads of a job map before they allocate anything: a
 * stack (8 MiB) and a malloc arena (64 MiB) each, one per core. */
static rlim_t thread_headroom(void) {
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  return (rlim_t)(cores > 0 ? cores : 1) * ((rlim_t)72 << 20);
}
#endif

static void install_handlers(unsigned long long mem_mb) {
  /* The handlers run on their own stack, so that a stack overflow is
   * reported too (unless a sanitizer has set up one already). */
  stack_t cur;
  if (sigaltstack(NULL, &cur) == 0 && (cur.ss_flags & SS_DISABLE)) {
    static char alt[1 << 18];
    stack_t ss = {.ss_sp = alt, .ss_size = sizeof alt, .ss_flags = 0};
    sigaltstack(&ss, NULL);
  }
  for (int i = 0; i < NSIGS; i++) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_crash;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    sigaction(crash_sigs[i], &sa, &old_actions[i]);
  }
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_alarm;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGALRM, &sa, NULL);
  atexit(exiting);
  /* An unbounded recursion must show up as an overflow of the usual 8 MiB
   * stack, not as gigabytes of memory under `ulimit -s unlimited`. */
  struct rlimit rl;
  if (getrlimit(RLIMIT_STACK, &rl) == 0 &&
      (rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > ((rlim_t)8 << 20))) {
    rl.rlim_cur = (rlim_t)8 << 20;
    setrlimit(RLIMIT_STACK, &rl);
  }
#ifndef __SANITIZE_ADDRESS__ /* whose shadow memory needs terabytes of address space */
  /* Allocations the size of a huge shape fail (tessera reports "out of
   * memory") instead of taking the machine's memory. */
  if (mem_mb && getrlimit(RLIMIT_AS, &rl) == 0) {
    rlim_t want = address_space_now() + ((rlim_t)mem_mb << 20) + thread_headroom();
    if (rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > want) {
      rl.rlim_cur = want;
      setrlimit(RLIMIT_AS, &rl);
    }
  }
#else
  (void)mem_mb;
#endif
}

/* ---- a PRNG (splitmix64): input K's stream depends on the seed and K ---- */

typedef struct rng {
  uint64_t s;
} rng;

static uint64_t rng_next(rng *r) {
  uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/* 0 <= result < n (n > 0) */
static size_t rnd(rng *r, size_t n) { return n ? (size_t)(rng_next(r) % n) : 0; }

/* Small values far more often than large ones: 1 to about max. */
static size_t rnd_log(rng *r, size_t max) {
  size_t bits = 1;
  while (((size_t)1 << bits) < max) bits++;
  size_t v = 1 + rnd(r, (size_t)1 << rnd(r, bits + 1));
  return v > max ? max : v;
}

static rng rng_for(unsigned long long seed, long index) {
  rng r = {seed * 0xD1B54A32D192ED03ull ^ ((uint64_t)index + 1) * 0x9E3779B97F4A7C15ull};
  rng_next(&r);
  return r;
}

/* ---- a growable byte buffer -------------------------------------------- */

typedef struct buf {
  char *p;
  size_t n, cap;
} buf;

static void die(const char *what) {
  fprintf(stderr, "fuzz_jobs: %s: %s\n", what, strerror(errno));
  exit(2);
}

static void buf_reserve(buf *b, size_t n) {
  if (n + 1 <= b->cap) return;
  size_t cap = b->cap ? b->cap : 256;
  while (cap < n + 1) cap *= 2;
  char *p = realloc(b->p, cap);
  if (!p) die("out of memory");
  b->p = p;
  b->cap = cap;
}

static void buf_insert(buf *b, size_t at, const char *s, size_t len) {
  if (at > b->n) at = b->n;
  buf_reserve(b, b->n + len);
  memmove(b->p + at + len, b->p + at, b->n - at);
  memcpy(b->p + at, s, len);
  b->n += len;
  b->p[b->n] = '\0';
}

static void buf_add(buf *b, const char *s) { buf_insert(b, b->n, s, strlen(s)); }

static void buf_addf(buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void buf_addf(buf *b, const char *fmt, ...) {
  char tmp[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(tmp, sizeof tmp, fmt, ap);
  va_end(ap);
  buf_add(b, tmp);
}

/* s repeated times times, inserted at at. */
static void buf_repeat(buf *b, size_t at, const char *s, size_t times) {
  size_t len = strlen(s);
  if (at > b->n) at = b->n;
  buf_reserve(b, b->n + len * times);
  memmove(b->p + at + len * times, b->p + at, b->n - at);
  for (size_t i = 0; i < times; i++) memcpy(b->p + at + i * len, s, len);
  b->n += len * times;
  b->p[b->n] = '\0';
}

static void buf_erase(buf *b, size_t at, size_t len) {
  if (at >= b->n) return;
  if (len > b->n - at) len = b->n - at;
  memmove(b->p + at, b->p + at + len, b->n - at - len);
  b->n -= len;
  b->p[b->n] = '\0';
}

static void buf_set(buf *b, const char *s, size_t len) {
  b->n = 0;
  buf_insert(b, 0, s, len);
}

/* ---- the dictionary ------------------------------------------------------ */

static const char *const words[] = {
    /* Python keywords (the parser names them), literals, constants */
    "and", "as", "assert", "break", "class", "def", "del", "elif", "else", "for", "from", "if",
    "import", "in", "is", "lambda", "not", "or", "pass", "return", "while", "with", "yield", "True",
    "False", "None", "pi", "e", "inf", "nan", "float64", "float32",
    /* attributes and names the corpus uses */
    ".shape", ".chunks", ".ndim", ".size", ".dtype", ".T", ".sum()", ".mean(axis=0)",
    ".astype(\"float32\")", ".rechunk(3)", ".persist()", ".dot(x)", "x", "y", "a", "q, r", "_",
    /* strings */
    "\"float32\"", "\"float64\"", "\"auto\"", "\"in.h5\"", "\"out.h5\"", "\"gzip\"", "\"x\"",
    "\"/g/h\"", "\"newton\"", "\"lbfgs\"", "\"admm\"", "\"l1\"", "\"l2\"", "\"elastic_net\"",
    "\"logistic\"", "\"normal\"", "\"poisson\"", "''", "'\\n'", "\"\\q\"", "\"", "'",
    /* operators and punctuation */
    "+", "-", "*", "/", "@", "**", "//", "%", "&", "|", "^", "~", "<<", ">>", "<", "<=", ">",
    ">=", "==", "!=", "=", "+=", "-=", "**=", "@=", "(", ")", "[", "]", "{", "}", ",", ":", ";",
    ".", "::", "::-1", ":-1", "[:, None]", "[None]", "[::-3, 5::7]", "[0]", "[-1]", "()", "(,)",
    "(1,)", "\\\n", "\n", "\r\n", "#", " ", "\t", "\\", "...", "1_000", "1e", "0x1f", "00", "1.",
    ".5",
    /* pieces of calls */
    "(3, 4)", "((2, 2), (3,))", "shape=(", "chunks=((1, 2), (3,))", "chunks=-1", "chunks=0",
    "axis=-1", "axis=(0, 1)", "keepdims=True", "ddof=5", "seed=-1", "dtype=\"int8\"", "k=0",
    "normal(shape=(", "ones((", "zeros(0)", "arange(", "x[", "](", ")(", ")["};

/* clang-format off */
static const char *const huge_numbers[] = {
    "10**30", "1e308", "-9223372036854775808", "99999999999999999999",
    "9223372036854775807", "-9223372036854775807", "2**63", "2**62", "-2**63",
    "3037000500", "4294967296", "2147483648", "4611686018427387904", "-4611686018427387905",
    "1e309", "-1e308", "1e-320", "1e18", "0", "-0", "-1", "0.0", "-0.0", "nan", "inf", "-inf",
    "1_000_000_000_000", "10**18", "10**19", "9007199254740993",
    "(10**18, 10**18)", "(2**31, 2**31)"};
/* clang-format on */

/* A random word: one of the dictionary's, or an op name or parameter of
 * the operation table (so the dictionary follows the language). */
static void add_word(rng *r, buf *t) {
  size_t nw = sizeof words / sizeof *words;
  size_t k = rnd(r, nw + 2 * (size_t)tsr_nops);
  if (k < nw) {
    buf_add(t, words[k]);
    return;
  }
  const tsr_op_def *d = &tsr_ops[(k - nw) / 2];
  if ((k - nw) % 2 == 0) {
    buf_add(t, d->name);
    if (rnd(r, 2)) buf_add(t, "(");
    return;
  }
  int np = 0;
  while (d->params[np]) np++;
  buf_add(t, d->params[rnd(r, (size_t)np)]);
  buf_add(t, "=");
}

/* ---- mutations ------------------------------------------------------------ */

typedef struct corpus {
  char **names;
  buf *files;
  int n;
} corpus;

/* Somewhere in b: anywhere, or at a line start, or around a token boundary. */
static size_t pick_pos(rng *r, const buf *b) {
  size_t at = rnd(r, b->n + 1);
  switch (rnd(r, 3)) {
  case 0: /* the start of a line */
    while (at > 0 && b->p[at - 1] != '\n') at--;
    break;
  case 1: /* after the next punctuation */
    while (at < b->n && !strchr("()[],=:+-*/ \n", b->p[at])) at++;
    if (at < b->n) at++;
    break;
  default:
    break;
  }
  return at;
}

static int is_digit(char c) { return c >= '0' && c <= '9'; }
static int is_name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || is_digit(c);
}

/* Picks one of the runs of bytes that make a number (number != 0) or a
 * name: its start and length; returns 0 when there is none. */
static int find_run(rng *r, const buf *b, int number, size_t *start, size_t *len) {
  size_t count = 0;
  for (size_t i = 0; i < b->n; i++) {
    int begins = number ? is_digit(b->p[i]) && (i == 0 || !is_name_char(b->p[i - 1]))
                        : is_name_char(b->p[i]) && !is_digit(b->p[i]) &&
                              (i == 0 || !is_name_char(b->p[i - 1]));
    count += (size_t)begins;
  }
  if (count == 0) return 0;
  size_t want = rnd(r, count);
  for (size_t i = 0; i < b->n; i++) {
    int begins = number ? is_digit(b->p[i]) && (i == 0 || !is_name_char(b->p[i - 1]))
                        : is_name_char(b->p[i]) && !is_digit(b->p[i]) &&
                              (i == 0 || !is_name_char(b->p[i - 1]));
    if (!begins || want-- > 0) continue;
    size_t j = i;
    if (number)
      while (j < b->n && (is_name_char(b->p[j]) || b->p[j] == '.')) j++;
    else
      while (j < b->n && is_name_char(b->p[j])) j++;
    *start = i;
    *len = j - i;
    return 1;
  }
  return 0;
}

static const char *const openers[] = {"(",   "[",    "abs(", "x[",   "-", "+",   "~",    "2**",
                                      "(1,", "sum(", "f(a=", "x.T[", "{", "(((", "((1)+"};
static const char *const closers[] = {")", "]", ")", "]", "",  "",    "", "",
                                      ")", ")", ")", "]", "}", ")))", ")"};
static const char *const long_units[] = {"1+",  "x+", "a",  "#",      " ",      "9",      "\"",
                                         "(1)", ",",  ".T", "[0]",    "\\\n",   "\n",     "x,",
                                         "1*",  "-",  ";",  "((",     "))",     "\xff",   "é",
                                         "e",   "0",  "_",  "None, ", ".sum()", "[::-1]", "a=1, "};

/* One mutation of b; *what receives its name. Those that keep the text a
 * job more often than not (numbers, names, lines) weigh more, so that many
 * inputs get past the parser into the interpreter. */
static void mutate(rng *r, buf *b, const corpus *c, const char **what) {
  /* by case: flip, bytes, delete, duplicate, splice, truncate, word, number,
   * rename, nesting, long line, repeat line, swap, statement */
  static const int weights[] = {1, 1, 1, 1, 1, 1, 2, 3, 2, 1, 1, 1, 1, 3};
  enum { NKINDS = (int)(sizeof weights / sizeof *weights) };
  int total = 0, pick = 0;
  for (int i = 0; i < NKINDS; i++) total += weights[i];
  int x = (int)rnd(r, (size_t)total);
  while (x >= weights[pick]) x -= weights[pick++];
  size_t at = pick_pos(r, b);
  switch (pick) {
  case 0: /* flip a bit */
    *what = "bit flip";
    if (b->n) b->p[rnd(r, b->n)] ^= (char)(1 << rnd(r, 8));
    break;
  case 1: { /* random bytes: the language's characters, or any */
    *what = "random bytes";
    static const char chars[] = "()[]{},:;.=+-*/@%#\\\"'\n\t 0123456789eE_xX.";
    size_t n = rnd_log(r, 32);
    for (size_t i = 0; i < n; i++) {
      char ch = rnd(r, 3) ? chars[rnd(r, sizeof chars - 1)] : (char)(1 + rnd(r, 255));
      buf_insert(b, at, &ch, 1);
    }
    break;
  }
  case 2: /* delete a range */
    *what = "delete";
    buf_erase(b, at, rnd_log(r, b->n / 2 + 1));
    break;
  case 3: { /* duplicate a range elsewhere */
    *what = "duplicate";
    if (!b->n) break;
    size_t from = rnd(r, b->n), len = rnd_log(r, b->n - from);
    char *copy = malloc(len);
    if (!copy) die("out of memory");
    memcpy(copy, b->p + from, len);
    size_t times = rnd(r, 8) ? 1 : rnd_log(r, 1000);
    for (size_t i = 0; i < times && b->n + len <= MAX_INPUT; i++) buf_insert(b, at, copy, len);
    free(copy);
    break;
  }
  case 4: { /* splice: the head of this input, the tail of another file */
    *what = "splice";
    const buf *o = &c->files[rnd(r, (size_t)c->n)];
    size_t from = rnd(r, o->n + 1);
    b->n = at;
    b->p[b->n] = '\0';
    buf_insert(b, b->n, o->p + from, o->n - from);
    break;
  }
  case 5: /* truncate */
    *what = "truncate";
    b->n = rnd(r, b->n + 1);
    b->p[b->n] = '\0';
    break;
  case 6: { /* a word of the language, spaced or not */
    *what = "word";
    buf t = {0};
    if (rnd(r, 2)) buf_add(&t, " ");
    add_word(r, &t);
    if (rnd(r, 2)) buf_add(&t, " ");
    buf_insert(b, at, t.p, t.n);
    free(t.p);
    break;
  }
  case 7: { /* a number becomes a huge (or odd) one */
    *what = "huge number";
    size_t s = 0, len = 0;
    const char *h = huge_numbers[rnd(r, sizeof huge_numbers / sizeof *huge_numbers)];
    if (find_run(r, b, 1, &s, &len)) {
      buf_erase(b, s, len);
      buf_insert(b, s, h, strlen(h));
    } else {
      buf_insert(b, at, h, strlen(h));
    }
    break;
  }
  case 8: { /* a name becomes another word */
    *what = "rename";
    size_t s = 0, len = 0;
    if (!find_run(r, b, 0, &s, &len)) break;
    buf t = {0};
    add_word(r, &t);
    buf_erase(b, s, len);
    buf_insert(b, s, t.p, t.n);
    free(t.p);
    break;
  }
  case 9: { /* deep nesting, closed (later) or not */
    *what = "deep nesting";
    size_t k = rnd(r, 4) ? rnd_log(r, 300) : 1000 + rnd(r, 9000);
    size_t which = rnd(r, sizeof openers / sizeof *openers);
    size_t end = at + rnd(r, b->n - (at < b->n ? at : b->n) + 1);
    if (rnd(r, 3)) buf_repeat(b, end, closers[which], k);
    buf_repeat(b, at, openers[which], k);
    break;
  }
  case 10: { /* a long line of one unit */
    *what = "long line";
    const char *u = long_units[rnd(r, sizeof long_units / sizeof *long_units)];
    size_t bytes = rnd(r, 4) ? rnd_log(r, 4096) : rnd_log(r, (size_t)1 << 20);
    buf_repeat(b, at, u, bytes / strlen(u) + 1);
    break;
  }
  case 11: { /* a line repeated */
    *what = "repeat line";
    size_t s = at;
    while (s > 0 && b->p[s - 1] != '\n') s--;
    size_t e = s;
    while (e < b->n && b->p[e] != '\n') e++;
    if (e < b->n) e++;
    size_t len = e - s, times = rnd_log(r, 2000);
    if (!len || len * times > MAX_INPUT) break;
    char *line = malloc(len + 1);
    if (!line) die("out of memory");
    memcpy(line, b->p + s, len);
    line[len] = '\0';
    buf_repeat(b, s, line, times);
    free(line);
    break;
  }
  case 12: { /* swap two bytes far apart (brackets, quotes move) */
    *what = "swap";
    if (b->n < 2) break;
    size_t i = rnd(r, b->n), j = rnd(r, b->n);
    char t = b->p[i];
    b->p[i] = b->p[j];
    b->p[j] = t;
    break;
  }
  default: { /* a statement of another file inserted here */
    *what = "insert line";
    const buf *o = &c->files[rnd(r, (size_t)c->n)];
    if (!o->n) break;
    size_t s = rnd(r, o->n);
    while (s > 0 && o->p[s - 1] != '\n') s--;
    size_t e = s;
    while (e < o->n && o->p[e] != '\n') e++;
    buf_insert(b, at, "\n", 1);
    buf_insert(b, at, o->p + s, e - s);
    break;
  }
  }
  if (b->n > MAX_INPUT) {
    b->n = MAX_INPUT;
    b->p[b->n] = '\0';
  }
}

/* ---- generated extremes --------------------------------------------------- */

/* t = unit * times, with head before and tail after. */
static void gen_repeat(buf *b, const char *head, const char *unit, size_t times, const char *tail) {
  buf_add(b, head);
  buf_repeat(b, b->n, unit, times);
  buf_add(b, tail);
}

enum { MB = 1 << 20, TERMS = 100000, DEEP = 10000, CHAIN = TERMS, MANY = 100000 };

static void gen_extreme(int k, rng *r, buf *b) {
  b->n = 0;
  buf_reserve(b, 0);
  b->p[0] = '\0';
  switch (k) {
  case 0:
    gen_repeat(b, "#", "x", MB, "\nx = 1\n");
    break;
  case 1: /* a 1 MB name, used, then a misspelling of it (the suggestion's edit
           * distance is quadratic: names over 64 characters get none, a found
           * bug, fixed) */
    gen_repeat(b, "", "a", MB, " = 1\n");
    gen_repeat(b, "y = ", "a", MB, " + 1\n");
    gen_repeat(b, "z = b", "a", MB - 1, "\n");
    break;
  case 2:
    gen_repeat(b, "x = \"", "s", MB, "\"\ny = load(x, x)\n");
    break;
  case 3:
    gen_repeat(b, "x = ", "7", MB, "\n");
    break;
  case 4:
    gen_repeat(b, "x = 0.", "3", MB, "e-5\n");
    break;
  case 5: /* a 1 MB line of terms */
    gen_repeat(b, "x = 1", "+1", MB / 2, "\n");
    break;
  case 6:
    gen_repeat(b, "s = 1", "+1", TERMS - 1, "\n");
    break;
  case 7:
    gen_repeat(b, "s = 2.5", "*1.0-0.5+2/3", TERMS / 4, "\n");
    break;
  case 8: /* a graph with 10^5 nodes in a row */
    gen_repeat(b, "x = ones(3)\ny = x", "+x", TERMS - 1, "\nz = sum(y)\n");
    break;
  case 9:
    gen_repeat(b, "x = normal(shape=(4, 5), chunks=2, seed=1)\ny = x * (2", " - 1 / 3 * 2",
               TERMS / 4, ")\n");
    break;
  /* Postfix chains of 10^5 links: the parser counts each link as a nesting
   * level (they overflowed the stack in the interpreter and the tree's free
   * walk before: a found bug, fixed). */
  case 10:
    gen_repeat(b, "x = ones((2, 3))\ny = x", ".T", CHAIN, "\n");
    break;
  case 11:
    gen_repeat(b, "x = arange(10)\ny = x", "[::-1]", CHAIN, "\n");
    break;
  case 12:
    gen_repeat(b, "x = ones(5)\ny = x", ".sum()", CHAIN, "\n");
    break;
  case 13:
    gen_repeat(b, "t = (1", ", 1", TERMS - 1, ")\nu = t[99999]\n");
    break;
  case 14:
    gen_repeat(b, "s = sum(1", ", 1", TERMS - 1, ")\n");
    break;
  /* Keyword arguments, statements and unpacked names are MANY: each took
   * time quadratic in their number (10^5 took 15 to 35 s: a found bug,
   * fixed). Names are now found through a hash map (keywords of a call in
   * the parser, variables in the interpreter), so each of these takes time
   * linear in MANY: well under a second at 10^5. */
  case 15:
    buf_add(b, "x = ones(3");
    for (int i = 0; i < MANY; i++) buf_addf(b, ", k%d=1", i);
    buf_add(b, ")\n");
    break;
  case 16: /* statements, each naming a new variable */
    buf_add(b, "a0 = 1\n");
    for (int i = 1; i < MANY; i++) buf_addf(b, "a%d = a%d + 1\n", i, i - 1);
    break;
  case 17:
    buf_add(b, "a0");
    for (int i = 1; i < MANY; i++) buf_addf(b, ", a%d", i);
    gen_repeat(b, " = (1", ", 1", MANY - 1, ")\n");
    break;
  case 18:
    gen_repeat(b, "x = ", "(", DEEP, "1");
    gen_repeat(b, "", ")", DEEP, "\n");
    break;
  case 19:
    gen_repeat(b, "x = ", "-", DEEP, "1\n");
    break;
  case 20:
    gen_repeat(b, "x = ", "abs(", DEEP, "1");
    gen_repeat(b, "", ")", DEEP, "\n");
    break;
  case 21:
    gen_repeat(b, "x = arange(3)\ny = ", "x[", DEEP, "0");
    gen_repeat(b, "", "]", DEEP, "\n");
    break;
  case 22:
    gen_repeat(b, "x = 2", "**2", DEEP, "\n");
    break;
  case 23:
    gen_repeat(b, "x = ", "(", DEEP, "\n");
    break;
  case 24:
    gen_repeat(b, "x = ", "[", DEEP, "\n");
    break;
  case 25:
    gen_repeat(b, "x = ones(", "(", DEEP, "3,");
    gen_repeat(b, "", ")", DEEP, ")\n");
    break;
  case 26: /* binary bytes, NULs dropped (they end the text) */
    for (int i = 0; i < 65536; i++) {
      char ch = (char)(1 + rnd(r, 255));
      buf_insert(b, b->n, &ch, 1);
    }
    break;
  case 27: /* every byte value once, a line each */
    for (int v = 1; v < 256; v++) {
      char line[3] = {(char)v, '\n', 0};
      buf_add(b, line);
    }
    break;
  case 28:
    buf_add(b, "\xef\xbb\xbfx = 1\ny = 2 \xc3\x97 3\nz = \"\xff\xfe\"\n\xc3");
    break;
  /* Huge numbers: each statement but the last one of an input is valid, so
   * that all of them are interpreted. */
  case 29:
    buf_add(b,
            "a = ones((10**9, 10**9), chunks=(10**8, 10**8))\nb = a.T[::-1, 3]\nc = sum(b)\n"
            "d = full((2**62,), 1e308, chunks=2**61)\ne = ones(10**18, chunks=10**17)[10**18-1:]\n"
            "f = zeros((3, 0, 9223372036854775807))\ng = ones(0, chunks=9223372036854775807)\n"
            "h = ones((10**18, 10**18))\n");
    break;
  case 30:
    buf_add(b, "x = arange(10)\na = x[-9223372036854775807-1:]\nb = x[::-9223372036854775807-1]\n"
               "c = x[9223372036854775807:-9223372036854775807-1:-1]\n"
               "d = ones((5, 5))[-9223372036854775807-1:, ::-(9223372036854775807)]\n"
               "e = ones(5)[9223372036854775807::9223372036854775807]\n"
               "f = ones((10**9, 10**9), chunks=(10**8, 10**8))"
               "[-9223372036854775807:9223372036854775807:4611686018427387904, "
               "9223372036854775807::-1]\n"
               "g = x[-9223372036854775807-1]\n");
    break;
  case 31:
    buf_add(b, "a = arange(0, 1e308, 1e-308)\nb = arange(-9223372036854775807, "
               "9223372036854775807)\n");
    break;
  case 32:
    buf_add(b, "a = normal(shape=(99999999999999999999, 2))\n");
    break;
  case 33: /* (9 None in one subscript overflowed a stack array: a found bug, fixed) */
    buf_add(b, "a = ones((1, 1, 1, 1))[0, None, 0, None, 0, None, 0, None]\n"
               "b = ones(3)[None, None, None, None, None, None, None, None, None]\n");
    gen_repeat(b, "c = ones((3", ", 3", 39, "))\n");
    break;
  case 34:
    buf_add(b, "x = zeros((4611686018427387904, 4), chunks=(3037000500, 1))\n"
               "y = rechunk(x, (3037000500, 3037000500))\n");
    break;
  case 35:
    buf_add(b, "x = ones((2**31, 2**31), chunks=2**27)\ny = x @ x.T\nz = x.T @ y[:, :1]\n"
               "q, r = qr(rechunk(x, (2**27, 2**31)))\n"
               "u, s, vt = svd(rechunk(x, (2**27, 2**31)), k=9223372036854775807)\n");
    break;
  case 36:
    buf_add(b, "a = var(ones(3), ddof=9223372036854775807)\n"
               "b = std(ones((3, 4)), axis=-2, ddof=-9223372036854775807-1)\n"
               "c = ones(3) ** 9223372036854775807\nd = ones((3, 3)) * 1e308 * 1e308 - inf\n"
               "e = normal(shape=(2, 2), seed=4294967295)[-1:, ::-1] / 1e-320\n"
               "f = svd(ones((10, 3)), k=-9223372036854775807-1)\n");
    break;
  default:
    break;
  }
}

enum { NEXTREMES = 37 };

static const char *const extreme_names[NEXTREMES] = {
    "a 1 MB comment line",
    "a 1 MB name, then an unknown name of 0.5 MB",
    "a 1 MB string literal used as a file name",
    "a 1 MB integer literal",
    "a 1 MB float literal",
    "a 1 MB line: x = 1+1+... (5*10^5 terms)",
    "a 10^5-term integer sum",
    "a 10^5-term float expression",
    "a 10^5-term array sum (10^5 graph nodes in a row)",
    "an array times a 10^5-term scalar expression",
    "500 transposes in a row (x.T.T...)",
    "500 slices in a row (x[::-1][::-1]...)",
    "500 method calls in a row (x.sum().sum()...)",
    "a 10^5-element tuple",
    "a call with 10^5 arguments",
    "a call with 10^5 keyword arguments",
    "10^5 statements, each a new variable",
    "10^5 names unpacked from a 10^5-element tuple",
    "10^4-deep parentheses",
    "10^4 unary minus signs",
    "10^4-deep calls abs(abs(...))",
    "10^4-deep subscripts x[x[...]]",
    "a 10^4-term power tower 2**2**...",
    "10^4 unclosed parentheses",
    "10^4 unclosed brackets",
    "a 10^4-deep tuple in a shape",
    "64 KB of random bytes",
    "every byte value",
    "a BOM and invalid UTF-8",
    "shapes and chunks of up to 2^63-1",
    "slice bounds and steps of -2^63 and 2^63-1",
    "arange over 1e308 and over the int64 range",
    "a shape of 99999999999999999999",
    "8 subscripts, 8 None, 40 dimensions",
    "a shape of 2^62 and chunks of 3037000500",
    "linear algebra on 2^31 x 2^31, k of 2^63-1",
    "ddof, powers, seeds and k of 2^63-1 and -2^63",
};

/* ---- the inputs ------------------------------------------------------------ */

/* Input index: an extreme, or a corpus file with mutations; *what names it. */
static void make_input(unsigned long long seed, long index, const corpus *c, buf *b, char *what,
                       size_t n) {
  rng r = rng_for(seed, index);
  if (index < NEXTREMES) {
    gen_extreme((int)index, &r, b);
    snprintf(what, n, "generated: %s", extreme_names[index]);
    return;
  }
  int f = (int)rnd(&r, (size_t)c->n);
  buf_set(b, c->files[f].p, c->files[f].n);
  int k = snprintf(what, n, "%s +", c->names[f]);
  int nmut = rnd(&r, 4) ? 1 + (int)rnd(&r, 2) : 1 + (int)rnd(&r, 8);
  for (int m = 0; m < nmut; m++) {
    const char *w = "";
    mutate(&r, b, c, &w);
    if (k > 0 && (size_t)k < n) k += snprintf(what + k, n - (size_t)k, " %s", w);
  }
}

static int read_file(const char *path, buf *b) {
  FILE *f = fopen(path, "rb");
  if (!f) return -1;
  char tmp[65536];
  size_t k;
  b->n = 0;
  buf_reserve(b, 0);
  b->p[0] = '\0';
  while ((k = fread(tmp, 1, sizeof tmp, f)) > 0) buf_insert(b, b->n, tmp, k);
  int bad = ferror(f);
  fclose(f);
  return bad ? -1 : 0;
}

static int by_name(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* ---- running ------------------------------------------------------------- */

typedef struct tally {
  long ran, errors[TSR_ERR_TRIALS + 1], findings;
} tally;

static const char *status_names[TSR_ERR_TRIALS + 1] = {
    "ok", "syntax",  "name", "type",        "shape", "value",    "index", "memory",
    "io", "backend", "comm", "interrupted", "usage", "internal", "trials"};

/* Runs one input; returns 1 on a finding (reported), else 0. */
static int run_input(long index, const char *text, const char *what, int verbose, tally *t) {
  tsr_options opt;
  tsr_options_default(&opt);
  opt.quiet = 1;
  /* The front end is the same for every backend, and the CUDA runtime
   * reserves far more address space than the --mem-limit bound leaves
   * (cuInit fails with "out of memory" under it on a GPU node). */
  opt.backend = TSR_BACKEND_CPU;
  char params[4096];
  cur_index = (sig_atomic_t)index;
  tsr_error_clear();
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  in_input = 1;
  alarm(cur_timeout);
  int st = tsr_job_params(&opt, "<fuzz>", text, params, sizeof params);
  alarm(0);
  in_input = 0;
  clock_gettime(CLOCK_MONOTONIC, &t1);
  double s = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
  t->ran++;
  const char *msg = tsr_error_message();
  if (st < 0 || st > TSR_ERR_TRIALS) st = TSR_ERR_TRIALS + 1;
  if (st <= TSR_ERR_TRIALS) t->errors[st]++;
  const char *problem = NULL;
  if (st > TSR_ERR_TRIALS)
    problem = "a status that is no tsr_status";
  else if (st == TSR_ERR_INTERNAL)
    problem = "an internal error (a broken invariant)";
  else if (st != TSR_OK && (!msg || !msg[0]))
    problem = "an error without a message";
  if (verbose) {
    char first[200];
    size_t len = msg ? strcspn(msg, "\n") : 0;
    snprintf(first, sizeof first, "%.*s", (int)(len < 160 ? len : 160), msg ? msg : "");
    char num[32] = "replayed";
    if (index >= 0) snprintf(num, sizeof num, "input %ld", index);
    fprintf(stderr, "fuzz_jobs: %s (%s): %s in %.3f s%s%s\n", num, what,
            st <= TSR_ERR_TRIALS ? status_names[st] : "?", s, st ? ": " : "", st ? first : "");
  }
  if (!problem) return 0;
  if (index >= 0)
    fprintf(stderr, "fuzz_jobs: FAILED: seed %llu, input %ld (%s): %s (status %d): %s\n", cur_seed,
            index, what, problem, st, msg ? msg : "");
  else
    fprintf(stderr, "fuzz_jobs: FAILED: %s: %s (status %d): %s\n", what, problem, st,
            msg ? msg : "");
  t->findings++;
  return 1;
}

static void usage(void) {
  fprintf(stderr,
          "usage: fuzz_jobs [--seed S] [--count N] [--from K] [--timeout SEC] [--mem-limit MB]\n"
          "                 [--verbose] CORPUS...\n"
          "       fuzz_jobs [--seed S] --only K [--verbose] CORPUS...\n"
          "       fuzz_jobs [--seed S] --dump K [--out FILE] CORPUS...\n"
          "       fuzz_jobs [--timeout SEC] --replay FILE...\n"
          "       fuzz_jobs --list\n");
  exit(2);
}

static int parse_num(const char *s, unsigned long long *v) {
  char *end;
  errno = 0;
  *v = strtoull(s, &end, 10);
  return errno || end == s || *end || s[0] == '-';
}

int main(int argc, char **argv) {
  unsigned long long seed = 1, count = 1000, from = 0, only = 0, dump = 0, timeout = 30,
                     mem_mb = 4096, v;
  int have_only = 0, have_dump = 0, replay = 0, verbose = 0, nfiles = 0;
  const char *out = NULL;
  char **files = calloc((size_t)argc + 1, sizeof *files);
  if (!files) die("out of memory");
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    int has_value = !strcmp(a, "--seed") || !strcmp(a, "--count") || !strcmp(a, "--only") ||
                    !strcmp(a, "--dump") || !strcmp(a, "--timeout") || !strcmp(a, "--out") ||
                    !strcmp(a, "--mem-limit") || !strcmp(a, "--from");
    if (has_value && i + 1 >= argc) usage();
    if (!strcmp(a, "--out")) {
      out = argv[++i];
    } else if (has_value) {
      if (parse_num(argv[++i], &v)) usage();
      if (!strcmp(a, "--seed")) seed = v;
      if (!strcmp(a, "--count")) count = v;
      if (!strcmp(a, "--from")) from = v;
      if (!strcmp(a, "--only")) only = v, have_only = 1;
      if (!strcmp(a, "--dump")) dump = v, have_dump = 1;
      if (!strcmp(a, "--timeout")) timeout = v;
      if (!strcmp(a, "--mem-limit")) mem_mb = v;
    } else if (!strcmp(a, "--replay")) {
      replay = 1;
    } else if (!strcmp(a, "--verbose")) {
      verbose = 1;
    } else if (!strcmp(a, "--list")) {
      for (int k = 0; k < NEXTREMES; k++) printf("%d: %s\n", k, extreme_names[k]);
      return 0;
    } else if (a[0] == '-' && a[1]) {
      usage();
    } else {
      files[nfiles++] = argv[i];
    }
  }
  if (!nfiles || timeout == 0 || timeout > 3600 || count > 100000000ull) usage();
  cur_seed = seed;
  cur_timeout = (unsigned)timeout;

  corpus c = {files, calloc((size_t)nfiles, sizeof(buf)), nfiles};
  if (!c.files) die("out of memory");
  if (!replay) qsort(files, (size_t)nfiles, sizeof *files, by_name);
  for (int i = 0; i < nfiles; i++)
    if (read_file(files[i], &c.files[i]) != 0) die(files[i]);

  buf b = {0};
  char what[512];
  if (have_dump) {
    make_input(seed, (long)dump, &c, &b, what, sizeof what);
    char name[64];
    snprintf(name, sizeof name, "fuzz-%llu-%llu.tsr", seed, dump);
    if (!out) out = name;
    FILE *f = fopen(out, "wb");
    if (!f || fwrite(b.p, 1, b.n, f) != b.n || fclose(f) != 0) die(out);
    printf("fuzz_jobs: seed %llu, input %llu (%s): %zu bytes written to %s\n", seed, dump, what,
           b.n, out);
    return 0;
  }

  if (tsr_init(&argc, &argv) != 0) {
    fprintf(stderr, "fuzz_jobs: cannot start MPI: %s\n", tsr_error_message());
    return 2;
  }
  install_handlers(mem_mb);
  tally t;
  memset(&t, 0, sizeof t);
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  if (replay) {
    for (int i = 0; i < nfiles; i++) {
      cur_file = files[i];
      run_input(-1, c.files[i].p, files[i], 1, &t);
    }
  } else if (have_only) {
    make_input(seed, (long)only, &c, &b, what, sizeof what);
    run_input((long)only, b.p, what, 1, &t);
  } else {
    long total = NEXTREMES + (long)count;
    fprintf(stderr,
            "fuzz_jobs: seed %llu: inputs %llu..%ld (0..%d generated, then %llu mutated from %d "
            "corpus files)\n",
            seed, from, total - 1, NEXTREMES - 1, count, nfiles);
    for (long k = (long)from; k < total; k++) {
      make_input(seed, k, &c, &b, what, sizeof what);
      run_input(k, b.p, what, verbose, &t);
    }
  }
  clock_gettime(CLOCK_MONOTONIC, &t1);
  double s = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
  if (replay)
    fprintf(stderr, "fuzz_jobs: %ld files in %.1f s:", t.ran, s);
  else
    fprintf(stderr, "fuzz_jobs: seed %llu: %ld inputs in %.1f s:", seed, t.ran, s);
  for (int k = 0; k <= TSR_ERR_TRIALS; k++)
    if (t.errors[k]) fprintf(stderr, " %s %ld", status_names[k], t.errors[k]);
  fprintf(stderr, "; %ld finding%s\n", t.findings, t.findings == 1 ? "" : "s");
  tsr_finalize();
  for (int i = 0; i < nfiles; i++) free(c.files[i].p);
  free(c.files);
  free(files);
  free(b.p);
  return t.findings ? 1 : 0;
}
