/*
 * test_parser.c - unit tests of the job-language lexer and parser
 * (src/lexer.c, src/parser.c) and of source-located errors (src/source.c).
 *
 * Tree shapes are checked through a small s-expression printer, so that a
 * test reads like the precedence rule it states: "-x**2" -> "(u- (** x 2))".
 * Run under valgrind with CK_FORK=no to check that every tree, and every
 * partial tree of a failed parse, is freed.
 */
#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lang/ast.h"
#include "lang/modules.h"
#include "util/error.h"

/* ---- s-expression printer --------------------------------------------- */

typedef struct sbuf {
  char s[4096];
  size_t n;
} sbuf;

static void put(sbuf *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int k = vsnprintf(b->s + b->n, sizeof b->s - b->n, fmt, ap);
  va_end(ap);
  if (k > 0) b->n += (size_t)k;
  if (b->n >= sizeof b->s) b->n = sizeof b->s - 1;
}

static void sexpr(sbuf *b, const ast_node *n);

static void sexpr_list(sbuf *b, ast_node *const *items, int count) {
  for (int i = 0; i < count; i++) {
    put(b, " ");
    sexpr(b, items[i]);
  }
}

static void sexpr_num(sbuf *b, const ast_node *n) {
  if (n->is_int) {
    put(b, "%lld", n->ival);
    return;
  }
  char tmp[64];
  snprintf(tmp, sizeof tmp, "%g", n->num);
  put(b, strpbrk(tmp, ".en") ? "%s" : "%s.", tmp); /* floats keep a mark */
}

static void sexpr_slice_part(sbuf *b, const ast_node *n) {
  put(b, " ");
  if (n)
    sexpr(b, n);
  else
    put(b, "_");
}

static void sexpr(sbuf *b, const ast_node *n) {
  switch (n->kind) {
  case AST_NUM:
    sexpr_num(b, n);
    break;
  case AST_STR:
    put(b, "\"%s\"", n->str);
    break;
  case AST_NAME:
    put(b, "%s", n->str);
    break;
  case AST_NONE:
    put(b, "None");
    break;
  case AST_ELLIPSIS:
    put(b, "...");
    break;
  case AST_BOOL:
    put(b, n->ival ? "True" : "False");
    break;
  case AST_TUPLE:
    put(b, "(tuple");
    sexpr_list(b, n->items, n->nitems);
    put(b, ")");
    break;
  case AST_UNARY:
    put(b, "(u%c ", n->op);
    sexpr(b, n->left);
    put(b, ")");
    break;
  case AST_BINOP:
    if (n->op == AST_OP_POW)
      put(b, "(** ");
    else if (n->op == AST_OP_FLOORDIV)
      put(b, "(// ");
    else
      put(b, "(%c ", n->op);
    sexpr(b, n->left);
    put(b, " ");
    sexpr(b, n->right);
    put(b, ")");
    break;
  case AST_CALL:
    put(b, "(call ");
    sexpr(b, n->callee);
    sexpr_list(b, n->items, n->nitems);
    for (int i = 0; i < n->nkw; i++) {
      put(b, " %s=", n->kwnames[i]);
      sexpr(b, n->kwvalues[i]);
    }
    put(b, ")");
    break;
  case AST_ATTR:
    put(b, "(. ");
    sexpr(b, n->left);
    put(b, " %s)", n->str);
    break;
  case AST_INDEX:
    put(b, "([] ");
    sexpr(b, n->left);
    sexpr_list(b, n->items, n->nitems);
    put(b, ")");
    break;
  case AST_SLICE:
    put(b, "(:");
    sexpr_slice_part(b, n->start);
    sexpr_slice_part(b, n->stop);
    sexpr_slice_part(b, n->step);
    put(b, ")");
    break;
  }
}

static void sexpr_stmt(sbuf *b, const ast_stmt *st) {
  if (st->ntargets == 0) {
    sexpr(b, st->value);
    return;
  }
  put(b, "(=");
  sexpr_list(b, st->targets, st->ntargets);
  put(b, " ");
  sexpr(b, st->value);
  put(b, ")");
}

/* ---- helpers ------------------------------------------------------------ */

static tsr_source src_of(const char *text) {
  tsr_source s = {"job.tsr", text};
  return s;
}

/* Parses a program that must parse; returns its statements joined by "; ". */
static const char *prog_sexpr(const char *text) {
  static sbuf b;
  tsr_source src = src_of(text);
  ast_program prog;
  tsr_error_clear();
  int st = tsr_parse_program(&src, &prog);
  ck_assert_msg(st == TSR_OK, "parse of '%s' failed: %s", text, tsr_error_message());
  b.n = 0;
  b.s[0] = '\0';
  for (int i = 0; i < prog.nstmts; i++) {
    if (i) put(&b, "; ");
    sexpr_stmt(&b, &prog.stmts[i]);
  }
  tsr_ast_program_free(&prog);
  return b.s;
}

/* Parses one expression that must parse; returns its s-expression. */
static const char *expr_sexpr(const char *text) {
  static sbuf b;
  tsr_source src = src_of(text);
  ast_node *node;
  tsr_error_clear();
  int st = tsr_parse_expression(&src, &node);
  ck_assert_msg(st == TSR_OK, "parse of '%s' failed: %s", text, tsr_error_message());
  b.n = 0;
  b.s[0] = '\0';
  sexpr(&b, node);
  tsr_ast_free(node);
  return b.s;
}

#define ck_expr(text, expected) ck_assert_str_eq(expr_sexpr(text), expected)
#define ck_prog(text, expected) ck_assert_str_eq(prog_sexpr(text), expected)

/* Parses a program that must fail; returns the error message. */
static const char *parse_error(const char *text) {
  tsr_source src = src_of(text);
  ast_program prog;
  tsr_error_clear();
  int st = tsr_parse_program(&src, &prog);
  ck_assert_msg(st == TSR_ERR_SYNTAX, "'%s' parsed (status %d)", text, st);
  ck_assert_int_eq(tsr_error_code(), TSR_ERR_SYNTAX);
  ck_assert_ptr_null(prog.stmts);
  return tsr_error_message();
}

/* One program whose single parse must parse, and its first node. */
static ast_program parse_ok(const char *text) {
  tsr_source src = src_of(text);
  ast_program prog;
  tsr_error_clear();
  ck_assert_msg(tsr_parse_program(&src, &prog) == TSR_OK, "%s", tsr_error_message());
  return prog;
}

/* ---- precedence and associativity ---------------------------------------- */

START_TEST(mul_binds_tighter_than_add) {
  ck_expr("1 + 2 * 3", "(+ 1 (* 2 3))");
  ck_expr("1 * 2 + 3", "(+ (* 1 2) 3)");
  ck_expr("a - b / c", "(- a (/ b c))");
  ck_expr("a + b @ c", "(+ a (@ b c))");
}
END_TEST

START_TEST(parentheses_override_precedence) {
  ck_expr("(1 + 2) * 3", "(* (+ 1 2) 3)");
  ck_expr("((a))", "a");
}
END_TEST

START_TEST(additive_and_multiplicative_ops_are_left_associative) {
  ck_expr("a - b - c", "(- (- a b) c)");
  ck_expr("a / b * c @ d", "(@ (* (/ a b) c) d)");
  ck_expr("a + b - c + d", "(+ (- (+ a b) c) d)");
}
END_TEST

/* Python's levels: // and % with * and /, below the unary sign and **. */
START_TEST(floor_division_and_modulo_are_multiplicative) {
  ck_expr("a + b // c", "(+ a (// b c))");
  ck_expr("a % b * c // d", "(// (* (% a b) c) d)");
  ck_expr("-a // b ** 2 % c", "(% (// (u- a) (** b 2)) c)");
  ck_expr("a - b % c", "(- a (% b c))");
}
END_TEST

START_TEST(power_is_right_associative) { ck_expr("a ** b ** c", "(** a (** b c))"); }
END_TEST

START_TEST(power_binds_tighter_than_unary_minus_on_its_left) {
  ck_expr("-x ** 2", "(u- (** x 2))");
  ck_expr("-2**2", "(u- (** 2 2))");
  ck_expr("2 * -x ** 2", "(* 2 (u- (** x 2)))");
}
END_TEST

START_TEST(power_accepts_a_signed_exponent) {
  ck_expr("2 ** -1", "(** 2 (u- 1))");
  ck_expr("2 ** -x ** 2", "(** 2 (u- (** x 2)))");
  ck_expr("2 ** +1", "(** 2 (u+ 1))");
}
END_TEST

START_TEST(unary_signs_nest_and_bind_tighter_than_mul) {
  ck_expr("--x", "(u- (u- x))");
  ck_expr("-+x", "(u- (u+ x))");
  ck_expr("-a * b", "(* (u- a) b)");
  ck_expr("a * -b", "(* a (u- b))");
  ck_expr("a - -b", "(- a (u- b))");
}
END_TEST

START_TEST(postfix_binds_tighter_than_power_and_unary) {
  ck_expr("-x.T ** 2", "(u- (** (. x T) 2))");
  ck_expr("x[0] ** f(y)", "(** ([] x 0) (call f y))");
}
END_TEST

/* ---- literals --------------------------------------------------------------
 */

static ast_node *parse_one(const char *text) {
  tsr_source src = src_of(text);
  ast_node *node;
  tsr_error_clear();
  ck_assert_msg(tsr_parse_expression(&src, &node) == TSR_OK, "%s", tsr_error_message());
  return node;
}

static void check_int(const char *text, long long value) {
  ast_node *n = parse_one(text);
  ck_assert_int_eq(n->kind, AST_NUM);
  ck_assert_int_eq(n->is_int, 1);
  ck_assert_int_eq(n->ival, value);
  ck_assert_double_eq(n->num, (double)value);
  tsr_ast_free(n);
}

static void check_float(const char *text, double value) {
  ast_node *n = parse_one(text);
  ck_assert_int_eq(n->kind, AST_NUM);
  ck_assert_int_eq(n->is_int, 0);
  ck_assert_double_eq_tol(n->num, value, 1e-15 * (value < 0 ? -value : value));
  tsr_ast_free(n);
}

static void check_string(const char *text, const char *value) {
  ast_node *n = parse_one(text);
  ck_assert_int_eq(n->kind, AST_STR);
  ck_assert_str_eq(n->str, value);
  tsr_ast_free(n);
}

START_TEST(integers_have_exact_values_and_allow_underscores) {
  check_int("0", 0);
  check_int("42", 42);
  check_int("1_000", 1000);
  check_int("1_000_000", 1000000);
  check_int("00", 0);
  check_int("9223372036854775807", 9223372036854775807LL);
}
END_TEST

START_TEST(floats_accept_all_python_forms) {
  check_float("1.", 1.0);
  check_float(".5", 0.5);
  check_float("1e6", 1e6);
  check_float("2.5E-3", 2.5e-3);
  check_float("1.5e+2", 150.0);
  check_float("1_000.25", 1000.25);
  check_float("0.1", 0.1);
  check_float("1.e3", 1000.0);
  check_float("007.5", 7.5);
}
END_TEST

START_TEST(strings_resolve_escapes_with_either_quote) {
  check_string("'abc'", "abc");
  check_string("\"data.h5\"", "data.h5");
  check_string("''", "");
  check_string("'a\\\\b'", "a\\b");
  check_string("'a\\nb\\tc'", "a\nb\tc");
  check_string("'it\\'s'", "it's");
  check_string("\"say \\\"hi\\\"\"", "say \"hi\"");
  check_string("\"it's\"", "it's");
  check_string("'/X'", "/X");
}
END_TEST

START_TEST(true_false_none_are_literals) {
  ck_expr("(True, False, None)", "(tuple True False None)");
  ast_node *n = parse_one("True");
  ck_assert_int_eq(n->kind, AST_BOOL);
  ck_assert_int_eq(n->ival, 1);
  tsr_ast_free(n);
  n = parse_one("Nonesuch"); /* a name that merely starts like a keyword */
  ck_assert_int_eq(n->kind, AST_NAME);
  ck_assert_str_eq(n->str, "Nonesuch");
  tsr_ast_free(n);
}
END_TEST

/* ---- tuples and assignment --------------------------------------------------
 */

START_TEST(parenthesized_tuples_of_any_length) {
  ck_expr("()", "(tuple)");
  ck_expr("(a,)", "(tuple a)");
  ck_expr("(a, b)", "(tuple a b)");
  ck_expr("(a, b,)", "(tuple a b)");
  ck_expr("((1, 2), (3,))", "(tuple (tuple 1 2) (tuple 3))");
}
END_TEST

/* A list literal is the same tuple node: shape=[3, 4] means shape=(3, 4). */
START_TEST(list_literals_are_tuples) {
  ck_expr("[]", "(tuple)");
  ck_expr("[a]", "(tuple a)");
  ck_expr("[a, b]", "(tuple a b)");
  ck_expr("[a, b,]", "(tuple a b)");
  ck_expr("[[1, 2], (3,)]", "(tuple (tuple 1 2) (tuple 3))");
  ck_expr("f(shape=[10, 20], chunks=[5, [4, 6, 10]])",
          "(call f shape=(tuple 10 20) chunks=(tuple 5 (tuple 4 6 10)))");
  ck_expr("[1,\n 2]", "(tuple 1 2)");
  ck_prog("a, b = [b, a]", "(= a b (tuple b a))");
  ast_node *n = parse_one("  [a, b]");
  ck_assert_int_eq(n->col, 3);
  ck_assert_int_eq(n->items[1]->col, 7);
  tsr_ast_free(n);
}
END_TEST

START_TEST(bare_tuples_on_the_right_of_assignment) {
  ck_prog("x = 1, 2", "(= x (tuple 1 2))");
  ck_prog("x = 1,", "(= x (tuple 1))");
  ck_prog("a, b = b, a", "(= a b (tuple b a))");
  ck_expr("a, b", "(tuple a b)");
}
END_TEST

START_TEST(tuple_unpacking_with_and_without_parentheses) {
  ck_prog("u, s, vt = svd(y)", "(= u s vt (call svd y))");
  ck_prog("(a, b) = c", "(= a b c)");
  ck_prog("(a) = c", "(= a c)");
  ast_program prog = parse_ok("u, s, vt = svd(y)");
  ck_assert_int_eq(prog.stmts[0].ntargets, 3);
  ck_assert_int_eq(prog.stmts[0].targets[2]->kind, AST_NAME);
  ck_assert_str_eq(prog.stmts[0].targets[2]->str, "vt");
  ck_assert_int_eq(prog.stmts[0].targets[2]->col, 7);
  tsr_ast_program_free(&prog);
}
END_TEST

START_TEST(expression_statements_have_no_targets) {
  ast_program prog = parse_ok("save(\"svd.h5\", \"/U\", u)");
  ck_assert_int_eq(prog.nstmts, 1);
  ck_assert_int_eq(prog.stmts[0].ntargets, 0);
  ck_assert_ptr_null(prog.stmts[0].targets);
  ck_assert_int_eq(prog.stmts[0].value->kind, AST_CALL);
  tsr_ast_program_free(&prog);
}
END_TEST

/* ---- calls, attributes, indexing --------------------------------------------
 */

START_TEST(calls_take_positional_then_keyword_arguments) {
  ck_expr("f()", "(call f)");
  ck_expr("f(a, b, k=v)", "(call f a b k=v)");
  ck_expr("f(k=1, j=2,)", "(call f k=1 j=2)");
  ck_expr("normal(10, 1, shape=(500000, 500000), chunks=(10000, 10000), seed=0)",
          "(call normal 10 1 shape=(tuple 500000 500000) "
          "chunks=(tuple 10000 10000) seed=0)");
  ck_expr("f(g(x), k=h(y=1))", "(call f (call g x) k=(call h y=1))");
}
END_TEST

START_TEST(attributes_and_method_calls) {
  ck_expr("x.sum", "(. x sum)");
  ck_expr("x.sum(axis=0)", "(call (. x sum) axis=0)");
  ck_expr("x.T.shape", "(. (. x T) shape)");
}
END_TEST

/* np.sum(x) is an attribute call like any other: the prefix is resolved
 * by the interpreter (lang/modules.h), not the parser. */
START_TEST(module_prefixed_calls_parse_as_attribute_calls) {
  ck_expr("np.sum(x)", "(call (. np sum) x)");
  ck_expr("da.random.normal(0, 1, shape=[4])",
          "(call (. (. da random) normal) 0 1 shape=(tuple 4))");
  ck_expr("dask.array.random.random(3)", "(call (. (. (. dask array) random) random) 3)");
  ck_expr("x.compute()", "(call (. x compute))");
}
END_TEST

/* The header lines of a pasted NumPy/Dask script make no statement. */
START_TEST(accepted_imports_make_no_statement) {
  ck_prog("import numpy as np\nimport dask.array as da\nx = np.ones(3)",
          "(= x (call (. np ones) 3))");
  ck_prog("import numpy\nimport dask.array\ny = 1", "(= y 1)");
  ck_prog("import numpy as np; x = 1", "(= x 1)");
  ck_prog("x = 1\n  import   dask . array  as da  # later is fine too\ny = 2", "(= x 1); (= y 2)");
  ast_program prog = parse_ok("import numpy as np\n");
  ck_assert_int_eq(prog.nstmts, 0);
  tsr_ast_program_free(&prog);
}
END_TEST

START_TEST(module_table_matches_the_longest_prefix) {
  const char *rest = NULL;
  const tsr_module_prefix *m = tsr_module_match("np.random.normal", &rest);
  ck_assert_ptr_nonnull(m);
  ck_assert_str_eq(m->prefix, "np.random");
  ck_assert_int_eq(m->random, 1);
  ck_assert_str_eq(rest, "normal");
  m = tsr_module_match("dask.array.sum", &rest);
  ck_assert_str_eq(m->prefix, "dask.array");
  ck_assert_str_eq(rest, "sum");
  m = tsr_module_match("np.random", &rest); /* the function random under np. */
  ck_assert_str_eq(m->prefix, "np");
  ck_assert_str_eq(rest, "random");
  ck_assert_ptr_null(tsr_module_match("npx.sum", &rest));
  ck_assert_ptr_null(tsr_module_match("dask.compute", &rest));
  ck_assert_ptr_null(tsr_module_match("np", &rest));
  ck_assert_int_eq(tsr_module_import_ok("numpy", "np"), 1);
  ck_assert_int_eq(tsr_module_import_ok("dask.array", NULL), 1);
  ck_assert_int_eq(tsr_module_import_ok("numpy", "da"), 0);
  ck_assert_int_eq(tsr_module_import_ok("numpy.random", NULL), 0);
  ck_assert_int_eq(tsr_module_import_ok("os", NULL), 0);
}
END_TEST

START_TEST(slices_with_omitted_parts_and_negative_values) {
  ck_expr("x[1:2]", "([] x (: 1 2 _))");
  ck_expr("x[:]", "([] x (: _ _ _))");
  ck_expr("x[::]", "([] x (: _ _ _))");
  ck_expr("x[1:]", "([] x (: 1 _ _))");
  ck_expr("x[:-1]", "([] x (: _ (u- 1) _))");
  ck_expr("x[::-1]", "([] x (: _ _ (u- 1)))");
  ck_expr("x[-3::2]", "([] x (: (u- 3) _ 2))");
  ck_expr("x[a:b:c, ::2, None, -1]", "([] x (: a b c) (: _ _ 2) None (u- 1))");
  ck_expr("x[1, 2]", "([] x 1 2)");
  ck_expr("x[i,]", "([] x i)");
  ck_expr("x[..., 0]", "([] x ... 0)");
  ck_expr("x[1, ..., ::-1, None]", "([] x 1 ... (: _ _ (u- 1)) None)");
  ck_expr("x[n - 1:n + 1]", "([] x (: (- n 1) (+ n 1) _))");
}
END_TEST

START_TEST(postfix_chains_apply_left_to_right) {
  ck_expr("f(x)[::2].sum()", "(call (. ([] (call f x) (: _ _ 2)) sum))");
  ck_expr("(x + 1)[::2, ::2]", "([] (+ x 1) (: _ _ 2) (: _ _ 2))");
  ck_expr("x[0][1]", "([] ([] x 0) 1)");
  ck_expr("x.sum(axis=0).mean()", "(call (. (call (. x sum) axis=0) mean))");
}
END_TEST

START_TEST(design_examples_parse) {
  ck_prog("x = normal(10, 1, shape=(500000, 500000), chunks=(10000, 10000), "
          "seed=0)\n"
          "total = sum((x + 1)[::2, ::2])\n"
          "y = load(\"data.h5\", \"/X\", chunks=(5000, 1000))\n"
          "u, s, vt = svd(y)\n"
          "save(\"svd.h5\", \"/U\", u)\n",
          "(= x (call normal 10 1 shape=(tuple 500000 500000) "
          "chunks=(tuple 10000 10000) seed=0)); "
          "(= total (call sum ([] (+ x 1) (: _ _ 2) (: _ _ 2)))); "
          "(= y (call load \"data.h5\" \"/X\" chunks=(tuple 5000 1000))); "
          "(= u s vt (call svd y)); "
          "(call save \"svd.h5\" \"/U\" u)");
  ck_expr("mean((normal(10, 1, shape=(100000,100000), chunks=(10000,10000)) + "
          "1)[::2, ::2])",
          "(call mean ([] (+ (call normal 10 1 shape=(tuple 100000 100000) "
          "chunks=(tuple 10000 10000)) 1) (: _ _ 2) (: _ _ 2)))");
}
END_TEST

/* ---- lines, comments, continuation ------------------------------------------
 */

START_TEST(newlines_inside_brackets_continue_the_line) {
  ck_prog("x = f(1,\n      2,\n\n      k=3)\ny = x[1,\n 2]",
          "(= x (call f 1 2 k=3)); (= y ([] x 1 2))");
  ck_prog("t = (a +\n     b)", "(= t (+ a b))");
}
END_TEST

START_TEST(backslash_at_line_end_continues_the_line) {
  ck_prog("x = 1 + \\\n    2\ny = 3", "(= x (+ 1 2)); (= y 3)");
  ck_prog("x = 1 + \\\r\n    2", "(= x (+ 1 2))");
}
END_TEST

START_TEST(comments_and_blank_lines_are_ignored) {
  ck_prog("# a job\n\nx = 1  # one\n   \n# done\n", "(= x 1)");
  ck_prog("x = f(1,  # first\n      2)  # second", "(= x (call f 1 2))");
  ck_prog("", "");
  ck_prog("# only a comment", "");
  ck_prog("x = '# not a comment'", "(= x \"# not a comment\")");
}
END_TEST

START_TEST(semicolons_separate_statements) {
  ck_prog("a = 1; b = 2;\nc = 3", "(= a 1); (= b 2); (= c 3)");
}
END_TEST

START_TEST(indentation_and_crlf_are_tolerated) {
  ck_prog("  x = 1\n\ty = 2\r\nz = 3\r\n", "(= x 1); (= y 2); (= z 3)");
}
END_TEST

START_TEST(final_line_needs_no_newline) { ck_prog("x = 1\ny", "(= x 1); y"); }
END_TEST

/* ---- positions -------------------------------------------------------------
 */

/* Works for ast_node and ast_stmt alike. */
#define ck_node_at(n, l, c)           \
  do {                                \
    ck_assert_int_eq((n)->line, (l)); \
    ck_assert_int_eq((n)->col, (c));  \
  } while (0)

START_TEST(nodes_record_line_and_column_of_their_first_token) {
  ast_program prog = parse_ok("x = 1\n\n  y = foo(a, k=b) + -c\n");
  ck_assert_int_eq(prog.nstmts, 2);
  ck_node_at(&prog.stmts[0], 1, 1);
  ck_node_at(prog.stmts[0].targets[0], 1, 1);
  ck_node_at(prog.stmts[0].value, 1, 5);
  const ast_stmt *st = &prog.stmts[1];
  ck_node_at(st, 3, 3);
  const ast_node *sum = st->value;
  ck_assert_int_eq(sum->kind, AST_BINOP);
  ck_node_at(sum, 3, 7);       /* starts where "foo" starts */
  ck_node_at(sum->left, 3, 7); /* the call */
  ck_node_at(sum->left->callee, 3, 7);
  ck_node_at(sum->left->items[0], 3, 11);
  ck_node_at(sum->left->kwvalues[0], 3, 16);
  ck_node_at(sum->right, 3, 21); /* unary minus */
  ck_node_at(sum->right->left, 3, 22);
  tsr_ast_program_free(&prog);
}
END_TEST

START_TEST(positions_of_slices_tuples_and_attributes) {
  ast_node *n = parse_one("(a, b)[1:, :2].T");
  ck_node_at(n, 1, 1);             /* attr */
  ck_node_at(n->left, 1, 1);       /* index */
  ck_node_at(n->left->left, 1, 1); /* tuple at its '(' */
  ck_node_at(n->left->left->items[1], 1, 5);
  ck_node_at(n->left->items[0], 1, 8);  /* slice at its start */
  ck_node_at(n->left->items[1], 1, 12); /* slice at its ':' */
  tsr_ast_free(n);
}
END_TEST

START_TEST(tabs_count_as_one_column_and_continued_lines_keep_lines) {
  ast_program prog = parse_ok("\tx = f(1,\n\t\t2)\n");
  ck_node_at(&prog.stmts[0], 1, 2);
  ck_node_at(prog.stmts[0].value->items[1], 2, 3);
  tsr_ast_program_free(&prog);
}
END_TEST

/* ---- syntax errors
 * ----------------------------------------------------------- */

typedef struct error_case {
  const char *text;
  int line, col;
  const char *message;
} error_case;

static const error_case error_cases[] = {
    {"x = (1 + )", 1, 10, "unexpected ')'"},
    {"x = f(a, b\ny = 2", 2, 1, "expected ')' to close '(' opened at 1:6"},
    {"x = (1, 2]", 1, 10, "expected ')' to close '(' opened at 1:5"},
    {"x = a[1, 2", 1, 11, "expected ']' to close '[' opened at 1:6"},
    {"x = 'abc\ny = 1", 1, 5, "unterminated string"},
    {"x = 1e", 1, 5, "invalid number '1e'"},
    {"x = 2.5e+", 1, 5, "invalid number '2.5e+'"},
    {"x = 1_", 1, 5, "invalid number '1_'"},
    {"x = 1__0", 1, 5, "invalid number '1__0'"},
    {"x = 0x1f", 1, 5, "invalid number '0x1f'"},
    {"x = 012", 1, 5, "invalid number '012': leading zeros are not allowed"},
    {"x = 99999999999999999999", 1, 5, "integer '99999999999999999999' is too large"},
    {"x = (1 +", 1, 9, "unexpected end of input"},
    {"x = 1 +\ny = 2", 1, 8, "unexpected end of line"},
    {"x = 1 +  # more\ny = 2", 1, 8, "unexpected end of line"},
    {"f(k=1, 2)", 1, 8, "positional argument follows keyword argument"},
    {"f(k=1, k=2)", 1, 8, "keyword argument repeated: 'k'"},
    {"f(1=2)", 1, 3, "keyword argument name must be a plain name"},
    {"f(None=2)", 1, 3, "'None' cannot be a keyword argument name"},
    {"1 = x", 1, 1, "cannot assign to literal"},
    {"x, 'a' = y", 1, 4, "cannot assign to literal"},
    {"f(x) = 3", 1, 1, "cannot assign to function call"},
    {"x.shape = 3", 1, 1, "cannot assign to attribute"},
    {"x[0] = 3", 1, 1, "cannot assign to subscript"},
    {"x + 1 = 3", 1, 1, "cannot assign to expression"},
    {"a, (b, c) = x", 1, 4, "nested tuple unpacking is not supported"},
    {"() = x", 1, 1, "cannot assign to ()"},
    {"a, = x", 1, 1, "unpacking into a one-element tuple is not supported"},
    {"a = b = 1", 1, 7, "chained assignment is not supported"},
    {"def f(x):", 1, 1, "'def' is not supported in the job language"},
    {"import os", 1, 8,
     "'import os' is not supported: a job accepts only import numpy as np, import numpy, import "
     "dask.array as da, import dask.array"},
    {"import numpy as npy", 1, 8,
     "'import numpy as npy' is not supported: a job accepts only import numpy as np, import numpy, "
     "import dask.array as da, import dask.array"},
    {"x = 1\nimport dask", 2, 8,
     "'import dask' is not supported: a job accepts only import numpy as np, import numpy, import "
     "dask.array as da, import dask.array"},
    {"import numpy.random as r", 1, 8,
     "'import numpy.random as r' is not supported: a job accepts only import numpy as np, import "
     "numpy, import dask.array as da, import dask.array"},
    {"import", 1, 7, "expected a module name after 'import'"},
    {"import numpy.", 1, 14, "expected a module name after '.'"},
    {"import numpy as", 1, 16, "expected a name after 'as'"},
    {"import numpy as np, os", 1, 19, "unexpected ','"},
    {"from numpy import sum", 1, 1, "'from' is not supported in the job language"},
    {"x = import", 1, 5, "'import' is not supported in the job language"},
    {"x = 1 if y else 2", 1, 7, "'if' is not supported in the job language"},
    {"x = lambda t: t", 1, 5, "'lambda' is not supported in the job language"},
    {"x = not y", 1, 5, "'not' is not supported in the job language"},
    {"y = a < b < c", 1, 11,
     "chained comparison: write (a < b) & (b < c) as NumPy needs for arrays"},
    {"f(a == b != c)", 1, 10,
     "chained comparison: write (a != b) & (b != c) as NumPy needs for arrays"},
    {"x = a & ", 1, 8, "unexpected end of input"},
    {"x = << 2", 1, 5, "unexpected '<<'"},
    {"x //= 2", 1, 3, "augmented assignment '//=' is not supported"},
    {"x += 1", 1, 3, "augmented assignment '+=' is not supported"},
    {"x = [1, 2)", 1, 10, "expected ']' to close '[' opened at 1:5"},
    {"x = [1 2]", 1, 8, "expected ']' to close '[' opened at 1:5"},
    {"x = {}", 1, 5, "dict and set literals are not supported"},
    {"x = 1 2", 1, 7, "unexpected number '2'"},
    {"x = a b", 1, 7, "unexpected name 'b'"},
    {"x = a 'b'", 1, 7, "unexpected string 'b'"},
    {"x = $y", 1, 5, "unexpected character '$'"},
    {"x = a ! b", 1, 7, "unexpected character '!'"},
    {"x = 'a\\qb'", 1, 7, "unknown escape '\\q' in string"},
    {"x = '''doc'''", 1, 5, "triple-quoted strings are not supported"},
    {"x = 1 \\ + 2", 1, 7, "unexpected character after line continuation character"},
    {"x = a[]", 1, 7, "expected an index inside '[]'"},
    {"x = a.(b)", 1, 7, "expected an attribute name after '.'"},
    {"x = f(x)(y)", 1, 9, "only functions and methods can be called"},
    {"x = 3(y)", 1, 6, "only functions and methods can be called"},
    {";", 1, 1, "unexpected ';'"},
    {"x = 1;; y = 2", 1, 7, "unexpected ';'"},
    {"x = ", 1, 4, "unexpected end of input"},
    {"x = )", 1, 5, "unexpected ')'"},
    {"x = a[1:2:3:4]", 1, 12, "expected ']' to close '[' opened at 1:6"},
    {"a = 1\nb = f(a,\n      c d)\n", 3, 9, "expected ')' to close '(' opened at 2:6"},
};

/* The first line of the message, and the caret under the right column. */
START_TEST(syntax_errors_report_message_and_caret) {
  const error_case *c = &error_cases[_i];
  const char *msg = parse_error(c->text);
  char first[256];
  snprintf(first, sizeof first, "job.tsr:%d:%d: %s", c->line, c->col, c->message);
  const char *nl = strchr(msg, '\n');
  ck_assert_msg(nl != NULL, "no source line in: %s", msg);
  ck_assert_msg(strncmp(msg, first, (size_t)(nl - msg)) == 0 && strlen(first) == (size_t)(nl - msg),
                "for '%s'\n  got: %s\n want: %s", c->text, msg, first);
  const char *caret = strrchr(msg, '\n') + 1;
  ck_assert_msg((int)strlen(caret) == 4 + c->col && caret[strlen(caret) - 1] == '^',
                "caret misplaced for '%s':\n%s", c->text, msg);
}
END_TEST

START_TEST(error_message_shows_source_line_and_caret) {
  ck_assert_str_eq(parse_error("x = (1 + )"), "job.tsr:1:10: unexpected ')'\n"
                                              "    x = (1 + )\n"
                                              "             ^");
  ck_assert_str_eq(parse_error("a = 1\nb = f(a,\n      c d)\n"),
                   "job.tsr:3:9: expected ')' to close '(' opened at 2:6\n"
                   "          c d)\n"
                   "            ^");
}
END_TEST

START_TEST(caret_line_copies_tabs_to_stay_aligned) {
  ck_assert_str_eq(parse_error("\tx = (1 + )"), "job.tsr:1:11: unexpected ')'\n"
                                                "    \tx = (1 + )\n"
                                                "    \t         ^");
}
END_TEST

START_TEST(unclosed_bracket_error_names_the_opener) {
  const char *msg = parse_error("x = sum(\ny + 1\nz = 2\n");
  ck_assert_msg(strstr(msg, "job.tsr:3:1: expected ')' to close '(' opened at 1:8") == msg, "%s",
                msg);
}
END_TEST

/* The parser keeps a call's keyword names in a map: a repeat is found
 * however many names come between, at the repeat, and names that share a
 * prefix (k4, k42) are distinct. */
START_TEST(repeated_keyword_is_found_among_many) {
  enum { N = 100 };
  char text[N * 12 + 32];
  size_t n = (size_t)snprintf(text, sizeof text, "f(k0=1");
  for (int i = 1; i < N; i++) n += (size_t)snprintf(text + n, sizeof text - n, ", k%d=1", i);
  snprintf(text + n, sizeof text - n, ")");
  ast_program prog = parse_ok(text);
  ck_assert_int_eq(prog.stmts[0].value->nkw, N);
  ck_assert_str_eq(prog.stmts[0].value->kwnames[N - 1], "k99");
  tsr_ast_program_free(&prog);
  snprintf(text + n, sizeof text - n, ", k42=2)");
  char first[96];
  snprintf(first, sizeof first, "job.tsr:1:%zu: keyword argument repeated: 'k42'\n", n + 3);
  const char *msg = parse_error(text);
  ck_assert_msg(strncmp(msg, first, strlen(first)) == 0, "%s", msg);
}
END_TEST

START_TEST(deep_nesting_is_an_error_not_a_crash) {
  enum { N = 100000 };
  char *text = malloc(2 * N + 8);
  memset(text, '(', N);
  strcpy(text + N, "1");
  memset(text + N + 1, ')', N);
  text[2 * N + 1] = '\0';
  const char *msg = parse_error(text);
  ck_assert_ptr_nonnull(strstr(msg, "expression is nested too deeply"));
  memset(text, '-', N);
  text[N] = 'x';
  text[N + 1] = '\0';
  msg = parse_error(text);
  ck_assert_ptr_nonnull(strstr(msg, "expression is nested too deeply"));
  free(text);
}
END_TEST

START_TEST(long_left_chains_parse_and_free) {
  enum { N = 200000 };
  char *text = malloc(4 * N + 8);
  size_t n = 0;
  text[n++] = 'a';
  for (int i = 0; i < N; i++) {
    memcpy(text + n, " + a", 4);
    n += 4;
  }
  text[n] = '\0';
  ast_node *node = parse_one(text);
  ck_assert_int_eq(node->kind, AST_BINOP);
  tsr_ast_free(node);
  free(text);
}
END_TEST

/* ---- single expressions
 * ------------------------------------------------------ */

START_TEST(parse_expression_accepts_one_expression_only) {
  ck_expr("mean(x)\n", "(call mean x)");
  tsr_source src = src_of("x = 1");
  ast_node *node = (ast_node *)&src; /* must be reset */
  tsr_error_clear();
  ck_assert_int_eq(tsr_parse_expression(&src, &node), TSR_ERR_SYNTAX);
  ck_assert_ptr_null(node);
  ck_assert_str_eq(tsr_error_message(), "job.tsr:1:3: unexpected '='\n"
                                        "    x = 1\n"
                                        "      ^");
  src = src_of("");
  tsr_error_clear();
  ck_assert_int_eq(tsr_parse_expression(&src, &node), TSR_ERR_SYNTAX);
  ck_assert_ptr_nonnull(strstr(tsr_error_message(), "1:1: unexpected end of input"));
  src = src_of("a\nb");
  tsr_error_clear();
  ck_assert_int_eq(tsr_parse_expression(&src, &node), TSR_ERR_SYNTAX);
  ck_assert_ptr_nonnull(strstr(tsr_error_message(), "2:1: unexpected name 'b'"));
}
END_TEST

/* ---- tsr_source_error
 * ----------------------------------------------------------- */

START_TEST(source_error_without_line_has_only_the_first_line) {
  tsr_source src = src_of("x = 1\n");
  tsr_error_clear();
  ck_assert_int_eq(tsr_source_error(&src, 0, 0, TSR_ERR_NAME, "no job %d", 7), TSR_ERR_NAME);
  ck_assert_str_eq(tsr_error_message(), "job.tsr: no job 7");
  ck_assert_int_eq(tsr_error_code(), TSR_ERR_NAME);
}
END_TEST

START_TEST(source_error_formats_like_a_compiler) {
  tsr_source src = {"<eval>", "x = 1\ny = sum(q)\n"};
  tsr_error_clear();
  tsr_source_error(&src, 2, 9, TSR_ERR_NAME, "unknown name '%s'", "q");
  ck_assert_str_eq(tsr_error_message(), "<eval>:2:9: unknown name 'q'\n"
                                        "    y = sum(q)\n"
                                        "            ^");
}
END_TEST

START_TEST(source_error_windows_long_lines_around_the_column) {
  char line[1001];
  memset(line, 'a', 1000);
  line[1000] = '\0';
  line[700] = 'Z';
  tsr_source src = src_of(line);
  tsr_error_clear();
  tsr_source_error(&src, 1, 701, TSR_ERR_SYNTAX, "here");
  const char *msg = tsr_error_message();
  const char *shown = strchr(msg, '\n') + 1;
  const char *caret = strchr(shown, '\n') + 1;
  ck_assert_int_eq(caret[strlen(caret) - 1], '^');
  ck_assert_int_eq(shown[strlen(caret) - 1], 'Z'); /* caret sits under the Z */
  ck_assert_ptr_nonnull(strstr(shown, "...a"));
}
END_TEST

/* ---- nearest name
 * -------------------------------------------------------------- */

START_TEST(nearest_name_suggests_plausible_misspellings) {
  const char *names[] = {"sum", "mean", "normal", "uniform", "svd", "save", "load"};
  int n = (int)(sizeof names / sizeof *names);
  ck_assert_str_eq(tsr_nearest_name("nromal", names, n), "normal"); /* swap */
  ck_assert_str_eq(tsr_nearest_name("normall", names, n), "normal");
  ck_assert_str_eq(tsr_nearest_name("men", names, n), "mean");
  ck_assert_str_eq(tsr_nearest_name("unifrom", names, n), "uniform");
  ck_assert_str_eq(tsr_nearest_name("sum", names, n), "sum");
}
END_TEST

START_TEST(nearest_name_rejects_distant_words) {
  const char *names[] = {"sum", "mean", "normal"};
  ck_assert_ptr_null(tsr_nearest_name("xyz", names, 3));
  ck_assert_ptr_null(tsr_nearest_name("nrmla", names, 3)); /* 2 edits, limit 1 */
  ck_assert_ptr_null(tsr_nearest_name("foo", names, 0));
}
END_TEST

START_TEST(nearest_name_threshold_grows_with_length_and_ties_go_first) {
  const char *names[] = {"cholesky", "sav", "sa"};
  /* len 9 allows 3 edits */
  ck_assert_str_eq(tsr_nearest_name("cholezkyy", names, 3), "cholesky");
  /* "sa" and "sav" are both one edit from "saw": the first listed wins */
  const char *tied[] = {"sav", "sa"};
  ck_assert_str_eq(tsr_nearest_name("saw", tied, 2), "sav");
  const char *tied2[] = {"sa", "sav"};
  ck_assert_str_eq(tsr_nearest_name("saw", tied2, 2), "sa");
}
END_TEST

/* ---- suite
 * ---------------------------------------------------------------------- */

static Suite *parser_suite(void) {
  Suite *s = suite_create("parser");
  TCase *t = tcase_create("grammar");
  tcase_add_test(t, mul_binds_tighter_than_add);
  tcase_add_test(t, parentheses_override_precedence);
  tcase_add_test(t, additive_and_multiplicative_ops_are_left_associative);
  tcase_add_test(t, floor_division_and_modulo_are_multiplicative);
  tcase_add_test(t, power_is_right_associative);
  tcase_add_test(t, power_binds_tighter_than_unary_minus_on_its_left);
  tcase_add_test(t, power_accepts_a_signed_exponent);
  tcase_add_test(t, unary_signs_nest_and_bind_tighter_than_mul);
  tcase_add_test(t, postfix_binds_tighter_than_power_and_unary);
  tcase_add_test(t, integers_have_exact_values_and_allow_underscores);
  tcase_add_test(t, floats_accept_all_python_forms);
  tcase_add_test(t, strings_resolve_escapes_with_either_quote);
  tcase_add_test(t, true_false_none_are_literals);
  tcase_add_test(t, parenthesized_tuples_of_any_length);
  tcase_add_test(t, list_literals_are_tuples);
  tcase_add_test(t, bare_tuples_on_the_right_of_assignment);
  tcase_add_test(t, tuple_unpacking_with_and_without_parentheses);
  tcase_add_test(t, expression_statements_have_no_targets);
  tcase_add_test(t, calls_take_positional_then_keyword_arguments);
  tcase_add_test(t, attributes_and_method_calls);
  tcase_add_test(t, module_prefixed_calls_parse_as_attribute_calls);
  tcase_add_test(t, accepted_imports_make_no_statement);
  tcase_add_test(t, module_table_matches_the_longest_prefix);
  tcase_add_test(t, slices_with_omitted_parts_and_negative_values);
  tcase_add_test(t, postfix_chains_apply_left_to_right);
  tcase_add_test(t, design_examples_parse);
  tcase_add_test(t, newlines_inside_brackets_continue_the_line);
  tcase_add_test(t, backslash_at_line_end_continues_the_line);
  tcase_add_test(t, comments_and_blank_lines_are_ignored);
  tcase_add_test(t, semicolons_separate_statements);
  tcase_add_test(t, indentation_and_crlf_are_tolerated);
  tcase_add_test(t, final_line_needs_no_newline);
  tcase_add_test(t, nodes_record_line_and_column_of_their_first_token);
  tcase_add_test(t, positions_of_slices_tuples_and_attributes);
  tcase_add_test(t, tabs_count_as_one_column_and_continued_lines_keep_lines);
  tcase_add_test(t, parse_expression_accepts_one_expression_only);
  tcase_add_test(t, long_left_chains_parse_and_free);
  suite_add_tcase(s, t);

  TCase *e = tcase_create("errors");
  tcase_add_loop_test(e, syntax_errors_report_message_and_caret, 0,
                      (int)(sizeof error_cases / sizeof *error_cases));
  tcase_add_test(e, error_message_shows_source_line_and_caret);
  tcase_add_test(e, caret_line_copies_tabs_to_stay_aligned);
  tcase_add_test(e, unclosed_bracket_error_names_the_opener);
  tcase_add_test(e, repeated_keyword_is_found_among_many);
  tcase_add_test(e, deep_nesting_is_an_error_not_a_crash);
  tcase_add_test(e, source_error_without_line_has_only_the_first_line);
  tcase_add_test(e, source_error_formats_like_a_compiler);
  tcase_add_test(e, source_error_windows_long_lines_around_the_column);
  suite_add_tcase(s, e);

  TCase *n = tcase_create("nearest_name");
  tcase_add_test(n, nearest_name_suggests_plausible_misspellings);
  tcase_add_test(n, nearest_name_rejects_distant_words);
  tcase_add_test(n, nearest_name_threshold_grows_with_length_and_ties_go_first);
  suite_add_tcase(s, n);
  return s;
}

int main(void) {
  SRunner *runner = srunner_create(parser_suite());
  srunner_run_all(runner, CK_NORMAL);
  int failed = srunner_ntests_failed(runner);
  srunner_free(runner);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
