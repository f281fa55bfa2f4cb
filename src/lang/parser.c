/*
 * parser.c - tokens -> ast_program, by recursive descent (see ast.h).
 *
 * Grammar (a Python subset; one function per rule below):
 *   program   := (statement (NEWLINE | ';'))*
 *   statement := exprlist ['=' exprlist]
 *   exprlist  := expr (',' expr)* [',']          -- a bare tuple
 *   expr      := or [('<' | '>' | '<=' | '>=' | '==' | '!=') or]  -- no chains
 *   or        := xor ('|' xor)*
 *   xor       := and ('^' and)*
 *   and       := shift ('&' shift)*
 *   shift     := sum (('<<' | '>>') sum)*
 *   sum       := term (('+' | '-') term)*
 *   term      := factor (('*' | '/' | '//' | '%' | '@') factor)*
 *   factor    := ('+' | '-' | '~') factor | power
 *   power     := postfix ['**' factor]           -- so -x**2 == -(x**2)
 *   postfix   := atom ('(' args ')' | '[' subscripts ']' | '.' NAME)*
 *   atom      := number | string | NAME | True | False | None | '(' ... ')'
 *                | '[' ... ']'                  -- a list: the same tuple
 *   import    := 'import' NAME ('.' NAME)* ['as' NAME]   -- accepted, ignored
 *
 * Memory: every node is recorded in the parser as it is made, so an error
 * anywhere only has to return; the entry points then free all recorded nodes
 * at once instead of every rule unwinding its partial trees.
 *
 * Python constructs outside the language (keywords, chained comparisons, +=, ...)
 * still tokenize, so that they are reported by name rather than as a vague
 * "unexpected" token.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lang/ast.h"
#include "lang/modules.h"
#include "util/error.h"
#include "util/strmap.h"
#include "lang/lexer.h"

/* Bounds recursion (each '(' or unary sign costs a level) so that hostile
 * input like 100000 '(' gets an error instead of a stack overflow. */
enum { MAX_DEPTH = 200 };

typedef struct parser {
  const tsr_source *src;
  tsr_token_list tokens;
  int pos;
  ast_node **nodes; /* every node made so far, freed together on error */
  int nnodes, cap;
  int depth;
} parser;

#define SYNTAX(p, t, ...) \
  tsr_source_error((p)->src, (t)->line, (t)->col, TSR_ERR_SYNTAX, __VA_ARGS__)

static const char *const keywords[] = {
    "and",    "as",   "assert", "async",  "await",    "break", "class", "continue", "def",
    "del",    "elif", "else",   "except", "finally",  "for",   "from",  "global",   "if",
    "import", "in",   "is",     "lambda", "nonlocal", "not",   "or",    "pass",     "raise",
    "return", "try",  "while",  "with",   "yield",    NULL};
static const char *const comparisons[] = {"<", ">", "<=", ">=", "==", "!=", NULL};

static int parse_expr(parser *p, ast_node **out);
static int parse_factor(parser *p, ast_node **out);

/* ---- tokens ------------------------------------------------------------ */

static const tsr_token *peek(const parser *p) { return &p->tokens.toks[p->pos]; }

static const tsr_token *next(parser *p) {
  const tsr_token *t = peek(p);
  if (t->kind != TSR_TOK_EOF) p->pos++;
  return t;
}

static int is_op(const tsr_token *t, const char *op) {
  return t->kind == TSR_TOK_OP && strcmp(t->op, op) == 0;
}

static int in_list(const char *s, int len, const char *const *list) {
  for (; *list; list++)
    if ((int)strlen(*list) == len && strncmp(*list, s, (size_t)len) == 0) return 1;
  return 0;
}

static int is_name(const tsr_token *t, const char *name) {
  return t->kind == TSR_TOK_NAME && (int)strlen(name) == t->len &&
         strncmp(t->text, name, (size_t)t->len) == 0;
}

static int is_keyword(const tsr_token *t) {
  return t->kind == TSR_TOK_NAME && in_list(t->text, t->len, keywords);
}

static int is_reserved(const tsr_token *t) {
  return is_keyword(t) || is_name(t, "True") || is_name(t, "False") || is_name(t, "None");
}

static int starts_expr(const tsr_token *t) {
  if (t->kind == TSR_TOK_OP)
    return is_op(t, "(") || is_op(t, "[") || is_op(t, "{") || is_op(t, "-") || is_op(t, "+") ||
           is_op(t, "~");
  return t->kind != TSR_TOK_NEWLINE && t->kind != TSR_TOK_EOF;
}

/* ---- errors ------------------------------------------------------------ */

/* Names the Python feature a token belongs to; TSR_OK when it is none. */
static int report_unsupported(parser *p, const tsr_token *t) {
  if (is_keyword(t))
    return SYNTAX(p, t, "'%.*s' is not supported in the job language", t->len, t->text);
  if (t->kind != TSR_TOK_OP) return TSR_OK;
  int len = (int)strlen(t->op);
  if (in_list(t->op, len, comparisons))
    return SYNTAX(p, t, "chained comparison: write (a %s b) & (b %s c) as NumPy needs for arrays",
                  t->op, t->op);
  if (len >= 2 && t->op[len - 1] == '=')
    return SYNTAX(p, t, "augmented assignment '%s' is not supported", t->op);
  if (is_op(t, "{")) return SYNTAX(p, t, "dict and set literals are not supported");
  return TSR_OK;
}

static int unexpected(parser *p, const tsr_token *t) {
  enum { SHOW = 40 }; /* long strings are cut in the message */
  TSR_CHECK(report_unsupported(p, t));
  int len = t->len < SHOW ? t->len : SHOW;
  /* the last NEWLINE is followed by EOF: the input ended, not just a line */
  if (t->kind == TSR_TOK_EOF || (t->kind == TSR_TOK_NEWLINE && t[1].kind == TSR_TOK_EOF))
    return SYNTAX(p, t, "unexpected end of input");
  switch (t->kind) {
  case TSR_TOK_NEWLINE:
    return SYNTAX(p, t, "unexpected end of line");
  case TSR_TOK_STRING:
    return SYNTAX(p, t, "unexpected string %.*s", len, t->text);
  case TSR_TOK_INT:
  case TSR_TOK_FLOAT:
    return SYNTAX(p, t, "unexpected number '%.*s'", len, t->text);
  case TSR_TOK_NAME:
    return SYNTAX(p, t, "unexpected name '%.*s'", len, t->text);
  default:
    return SYNTAX(p, t, "unexpected '%s'", t->op);
  }
}

static int expect_close(parser *p, const tsr_token *open, const char *closer) {
  const tsr_token *t = peek(p);
  if (is_op(t, closer)) {
    next(p);
    return TSR_OK;
  }
  TSR_CHECK(report_unsupported(p, t));
  return SYNTAX(p, t, "expected '%s' to close '%s' opened at %d:%d", closer, open->op, open->line,
                open->col);
}

/* ---- nodes ------------------------------------------------------------- */

static void node_free_shallow(ast_node *n) {
  free(n->str);
  free(n->items);
  for (int i = 0; i < n->nkw; i++) free(n->kwnames[i]);
  free(n->kwnames);
  free(n->kwvalues);
  free(n);
}

static int new_node(parser *p, ast_kind kind, const tsr_token *at, ast_node **out) {
  if (p->nnodes == p->cap) { /* grown first, so a new node is never lost */
    int cap = p->cap ? 2 * p->cap : 64;
    ast_node **nodes = realloc(p->nodes, (size_t)cap * sizeof *nodes);
    if (!nodes) return TSR_ERROR(TSR_ERR_MEMORY, "out of memory in the parser");
    p->nodes = nodes;
    p->cap = cap;
  }
  TSR_CALLOC(*out, 1, sizeof **out);
  (*out)->kind = kind;
  (*out)->line = at->line;
  (*out)->col = at->col;
  p->nodes[p->nnodes++] = *out;
  return TSR_OK;
}

/* Frees a node that was folded into something else (a tuple turned into
 * assignment targets) and forgets it, so error cleanup cannot free it twice.
 * The node is recorded once, among the last ones made (only its items
 * follow it): the search stops there instead of walking the whole job. */
static void discard_node(parser *p, ast_node *n) {
  for (int i = p->nnodes - 1; i >= 0; i--)
    if (p->nodes[i] == n) {
      p->nodes[i] = NULL;
      break;
    }
  node_free_shallow(n);
}

/* Arrays grow to the next power of two, so their capacity need not be kept:
 * a count of 0 or a power of two means the array is full. */
static int is_full(int n) { return (n & (n - 1)) == 0; }

static int push_node(ast_node ***arr, int *n, ast_node *item) {
  if (is_full(*n)) {
    ast_node **a = realloc(*arr, (size_t)(*n ? 2 * *n : 1) * sizeof *a);
    if (!a) return TSR_ERROR(TSR_ERR_MEMORY, "out of memory in the parser");
    *arr = a;
  }
  (*arr)[(*n)++] = item;
  return TSR_OK;
}

static int push_kwarg(ast_node *call, char *name, ast_node *value) {
  if (is_full(call->nkw)) {
    size_t cap = (size_t)(call->nkw ? 2 * call->nkw : 1);
    char **names = realloc(call->kwnames, cap * sizeof *names);
    if (names) call->kwnames = names;
    ast_node **values = names ? realloc(call->kwvalues, cap * sizeof *values) : NULL;
    if (values) call->kwvalues = values;
    if (!values) return TSR_ERROR(TSR_ERR_MEMORY, "out of memory in the parser");
  }
  call->kwnames[call->nkw] = name;
  call->kwvalues[call->nkw++] = value;
  return TSR_OK;
}

static int dup_text(const char *s, int len, char **out) {
  TSR_MALLOC(*out, (size_t)len + 1);
  memcpy(*out, s, (size_t)len);
  (*out)[len] = '\0';
  return TSR_OK;
}

/* ---- atoms ------------------------------------------------------------- */

static int parse_number(parser *p, ast_node **out) {
  const tsr_token *t = next(p);
  TSR_CHECK(new_node(p, AST_NUM, t, out));
  (*out)->num = t->num;
  (*out)->is_int = t->kind == TSR_TOK_INT;
  (*out)->ival = t->ival;
  return TSR_OK;
}

static int parse_string(parser *p, ast_node **out) {
  const tsr_token *t = next(p);
  TSR_CHECK(new_node(p, AST_STR, t, out));
  return dup_text(t->str, (int)strlen(t->str), &(*out)->str);
}

static int parse_name(parser *p, ast_node **out) {
  const tsr_token *t = peek(p);
  TSR_CHECK(report_unsupported(p, t));
  next(p);
  if (is_name(t, "True") || is_name(t, "False")) {
    TSR_CHECK(new_node(p, AST_BOOL, t, out));
    (*out)->ival = is_name(t, "True");
    return TSR_OK;
  }
  if (is_name(t, "None")) return new_node(p, AST_NONE, t, out);
  TSR_CHECK(new_node(p, AST_NAME, t, out));
  return dup_text(t->text, t->len, &(*out)->str);
}

/* The items of a tuple after its first, up to and including closer; a
 * trailing comma is allowed. */
static int parse_items(parser *p, const tsr_token *open, const char *closer, ast_node *tuple) {
  while (is_op(peek(p), ",")) {
    next(p);
    if (is_op(peek(p), closer)) break;
    ast_node *item;
    TSR_CHECK(parse_expr(p, &item));
    TSR_CHECK(push_node(&tuple->items, &tuple->nitems, item));
  }
  return expect_close(p, open, closer);
}

/* "()" is the empty tuple, "(x)" is x itself, "(x,)" and "(x, y)" tuples. */
static int parse_paren(parser *p, ast_node **out) {
  const tsr_token *open = next(p);
  if (is_op(peek(p), ")")) {
    next(p);
    return new_node(p, AST_TUPLE, open, out);
  }
  ast_node *first, *tuple;
  TSR_CHECK(parse_expr(p, &first));
  if (!is_op(peek(p), ",")) {
    *out = first;
    return expect_close(p, open, ")");
  }
  TSR_CHECK(new_node(p, AST_TUPLE, open, &tuple));
  TSR_CHECK(push_node(&tuple->items, &tuple->nitems, first));
  *out = tuple;
  return parse_items(p, open, ")", tuple);
}

/* A list is the tuple of its items ("shape=[100, 100]" as NumPy users write
 * it): the language has no mutable sequences, so no separate value kind.
 * "[x]" is a one-item tuple, "[]" the empty one. */
static int parse_list(parser *p, ast_node **out) {
  const tsr_token *open = next(p);
  TSR_CHECK(new_node(p, AST_TUPLE, open, out));
  if (is_op(peek(p), "]")) {
    next(p);
    return TSR_OK;
  }
  ast_node *first;
  TSR_CHECK(parse_expr(p, &first));
  TSR_CHECK(push_node(&(*out)->items, &(*out)->nitems, first));
  return parse_items(p, open, "]", *out);
}

static int parse_atom(parser *p, ast_node **out) {
  const tsr_token *t = peek(p);
  switch (t->kind) {
  case TSR_TOK_INT:
  case TSR_TOK_FLOAT:
    return parse_number(p, out);
  case TSR_TOK_STRING:
    return parse_string(p, out);
  case TSR_TOK_NAME:
    return parse_name(p, out);
  default:
    break;
  }
  if (is_op(t, "(")) return parse_paren(p, out);
  if (is_op(t, "[")) return parse_list(p, out);
  return unexpected(p, t);
}

/* ---- calls, attributes, subscripts ------------------------------------- */

/* seen: the call's keyword names so far (a map, so that n keywords cost
 * O(n) and not a scan each). */
static int parse_kwarg(parser *p, ast_node *call, tsr_strmap *seen) {
  const tsr_token *name = next(p);
  next(p); /* '=' */
  if (is_reserved(name))
    return SYNTAX(p, name, "'%.*s' cannot be a keyword argument name", name->len, name->text);
  if (tsr_strmap_get(seen, name->text, (size_t)name->len) >= 0)
    return SYNTAX(p, name, "keyword argument repeated: '%.*s'", name->len, name->text);
  ast_node *value;
  char *s;
  TSR_CHECK(parse_expr(p, &value));
  TSR_CHECK(dup_text(name->text, name->len, &s));
  int st = push_kwarg(call, s, value);
  if (st != TSR_OK) free(s);
  TSR_CHECK(st);
  return tsr_strmap_put(seen, s, (size_t)name->len, call->nkw - 1);
}

static int parse_arg(parser *p, ast_node *call, tsr_strmap *seen) {
  const tsr_token *t = peek(p);
  if (t->kind == TSR_TOK_NAME && is_op(t + 1, "=")) return parse_kwarg(p, call, seen);
  if (call->nkw > 0) return SYNTAX(p, t, "positional argument follows keyword argument");
  ast_node *arg;
  TSR_CHECK(parse_expr(p, &arg));
  if (is_op(peek(p), "=")) return SYNTAX(p, t, "keyword argument name must be a plain name");
  return push_node(&call->items, &call->nitems, arg);
}

static int parse_args(parser *p, ast_node *call, tsr_strmap *seen) {
  while (!is_op(peek(p), ")")) {
    TSR_CHECK(parse_arg(p, call, seen));
    if (!is_op(peek(p), ",")) break;
    next(p);
  }
  return TSR_OK;
}

/* *node is the callee on entry and the call on return. */
static int parse_call(parser *p, const tsr_token *start, ast_node **node) {
  const tsr_token *open = next(p);
  /* the interpreter relies on callees being functions or methods */
  if ((*node)->kind != AST_NAME && (*node)->kind != AST_ATTR)
    return SYNTAX(p, open, "only functions and methods can be called");
  ast_node *call;
  TSR_CHECK(new_node(p, AST_CALL, start, &call));
  call->callee = *node;
  *node = call;
  tsr_strmap seen = {0};
  int st = parse_args(p, call, &seen);
  tsr_strmap_free(&seen);
  TSR_CHECK(st);
  return expect_close(p, open, ")");
}

static int ends_slice_part(const tsr_token *t) {
  return is_op(t, ":") || is_op(t, ",") || is_op(t, "]");
}

static int parse_slice_part(parser *p, ast_node **out) {
  *out = NULL;
  return ends_slice_part(peek(p)) ? TSR_OK : parse_expr(p, out);
}

/* One subscript: an expression, start:stop:step with any part omitted, or
 * `...`. */
static int parse_subscript(parser *p, ast_node **out) {
  const tsr_token *t = peek(p);
  ast_node *first = NULL, *slice;
  if (is_op(t, "...")) { /* x[..., 0] */
    next(p);
    return new_node(p, AST_ELLIPSIS, t, out);
  }
  if (!is_op(t, ":")) {
    TSR_CHECK(parse_expr(p, &first));
    if (!is_op(peek(p), ":")) {
      *out = first;
      return TSR_OK;
    }
  }
  TSR_CHECK(new_node(p, AST_SLICE, t, &slice));
  slice->start = first;
  *out = slice;
  next(p); /* ':' */
  TSR_CHECK(parse_slice_part(p, &slice->stop));
  if (!is_op(peek(p), ":")) return TSR_OK;
  next(p);
  return parse_slice_part(p, &slice->step);
}

static int parse_index(parser *p, const tsr_token *start, ast_node **node) {
  const tsr_token *open = next(p);
  ast_node *index;
  TSR_CHECK(new_node(p, AST_INDEX, start, &index));
  index->left = *node;
  *node = index;
  if (is_op(peek(p), "]")) return SYNTAX(p, peek(p), "expected an index inside '[]'");
  for (;;) {
    ast_node *item;
    TSR_CHECK(parse_subscript(p, &item));
    TSR_CHECK(push_node(&index->items, &index->nitems, item));
    if (!is_op(peek(p), ",")) break;
    next(p);
    if (is_op(peek(p), "]")) break;
  }
  return expect_close(p, open, "]");
}

static int parse_attr(parser *p, const tsr_token *start, ast_node **node) {
  next(p); /* '.' */
  const tsr_token *name = peek(p);
  if (name->kind != TSR_TOK_NAME) return SYNTAX(p, name, "expected an attribute name after '.'");
  next(p);
  ast_node *attr;
  TSR_CHECK(new_node(p, AST_ATTR, start, &attr));
  attr->left = *node;
  *node = attr;
  return dup_text(name->text, name->len, &attr->str);
}

static int parse_postfix(parser *p, ast_node **out) {
  const tsr_token *start = peek(p);
  TSR_CHECK(parse_atom(p, out));
  /* Each link nests the tree one level (the interpreter and the free walk
   * recurse through it), so links count against the same depth bound. */
  for (int links = 0;; links++) {
    const tsr_token *t = peek(p);
    if (p->depth + links > MAX_DEPTH && (is_op(t, "(") || is_op(t, "[") || is_op(t, ".")))
      return SYNTAX(p, t,
                    "expression is nested too deeply (a chain of calls, subscripts and "
                    "attributes counts one level a link): split it with intermediate names");
    if (is_op(t, "("))
      TSR_CHECK(parse_call(p, start, out));
    else if (is_op(t, "["))
      TSR_CHECK(parse_index(p, start, out));
    else if (is_op(t, "."))
      TSR_CHECK(parse_attr(p, start, out));
    else
      return TSR_OK;
  }
}

/* ---- operators --------------------------------------------------------- */

static int make_binop(parser *p, const tsr_token *start, int op, ast_node *left, ast_node *right,
                      ast_node **out) {
  TSR_CHECK(new_node(p, AST_BINOP, start, out));
  (*out)->op = op;
  (*out)->left = left;
  (*out)->right = right;
  return TSR_OK;
}

static int parse_power(parser *p, ast_node **out) {
  const tsr_token *start = peek(p);
  ast_node *base, *exponent;
  TSR_CHECK(parse_postfix(p, &base));
  if (!is_op(peek(p), "**")) {
    *out = base;
    return TSR_OK;
  }
  next(p);
  /* a factor, not a power: right-associative, and 2**-1 is allowed */
  TSR_CHECK(parse_factor(p, &exponent));
  return make_binop(p, start, AST_OP_POW, base, exponent, out);
}

static int parse_signed(parser *p, ast_node **out) {
  const tsr_token *t = peek(p);
  if (!is_op(t, "-") && !is_op(t, "+") && !is_op(t, "~")) return parse_power(p, out);
  next(p);
  ast_node *operand;
  TSR_CHECK(parse_factor(p, &operand));
  TSR_CHECK(new_node(p, AST_UNARY, t, out));
  (*out)->op = t->op[0];
  (*out)->left = operand;
  return TSR_OK;
}

/* Every recursive path goes through here, so the depth bound lives here. */
static int parse_factor(parser *p, ast_node **out) {
  if (++p->depth > MAX_DEPTH) return SYNTAX(p, peek(p), "expression is nested too deeply");
  int st = parse_signed(p, out);
  p->depth--;
  return st;
}

/* Python's binary operator levels, loosest first; each operator's AST code
 * (ast.h: single characters stand for themselves). */
static const struct {
  const char *sym;
  int code;
} levels[][6] = {{{"<", '<'},
                  {">", '>'},
                  {"<=", AST_OP_LE},
                  {">=", AST_OP_GE},
                  {"==", AST_OP_EQ},
                  {"!=", AST_OP_NE}},
                 {{"|", '|'}},
                 {{"^", '^'}},
                 {{"&", '&'}},
                 {{"<<", AST_OP_LSHIFT}, {">>", AST_OP_RSHIFT}},
                 {{"+", '+'}, {"-", '-'}},
                 {{"*", '*'}, {"/", '/'}, {"//", AST_OP_FLOORDIV}, {"%", '%'}, {"@", '@'}}};
enum { NLEVELS = sizeof levels / sizeof levels[0], COMPARISONS = 0 };

/* The AST code of a binary operator of a level, or 0. */
static int level_op(const tsr_token *t, int level) {
  if (t->kind != TSR_TOK_OP) return 0;
  for (int i = 0; i < 6 && levels[level][i].sym; i++)
    if (is_op(t, levels[level][i].sym)) return levels[level][i].code;
  return 0;
}

static int parse_level(parser *p, int level, ast_node **out);

static int parse_operand(parser *p, int level, ast_node **out) {
  return level + 1 < NLEVELS ? parse_level(p, level + 1, out) : parse_factor(p, out);
}

/* Left-associative levels (levels[] above); a comparison does not chain:
 * a < b < c is an error (Python's meaning, (a < b) and (b < c), has no
 * array form). */
static int parse_level(parser *p, int level, ast_node **out) {
  const tsr_token *start = peek(p);
  ast_node *left, *right;
  TSR_CHECK(parse_operand(p, level, &left));
  for (;;) {
    int op = level_op(peek(p), level);
    if (!op) {
      *out = left;
      return TSR_OK;
    }
    next(p);
    TSR_CHECK(parse_operand(p, level, &right));
    TSR_CHECK(make_binop(p, start, op, left, right, &left));
    if (level == COMPARISONS && level_op(peek(p), level)) return report_unsupported(p, peek(p));
  }
}

static int parse_expr(parser *p, ast_node **out) { return parse_level(p, 0, out); }

/* "a, b" without parentheses (assignment sides, statement values). */
static int parse_exprlist(parser *p, ast_node **out) {
  const tsr_token *start = peek(p);
  ast_node *first, *tuple;
  TSR_CHECK(parse_expr(p, &first));
  if (!is_op(peek(p), ",")) {
    *out = first;
    return TSR_OK;
  }
  TSR_CHECK(new_node(p, AST_TUPLE, start, &tuple));
  TSR_CHECK(push_node(&tuple->items, &tuple->nitems, first));
  *out = tuple;
  while (is_op(peek(p), ",")) {
    next(p);
    if (!starts_expr(peek(p))) break; /* trailing comma: "x = 1," */
    ast_node *item;
    TSR_CHECK(parse_expr(p, &item));
    TSR_CHECK(push_node(&tuple->items, &tuple->nitems, item));
  }
  return TSR_OK;
}

/* ---- statements -------------------------------------------------------- */

static int target_error(parser *p, const ast_node *t) {
  const char *what = "expression";
  switch (t->kind) {
  case AST_NUM:
  case AST_STR:
  case AST_NONE:
  case AST_BOOL:
    what = "literal";
    break;
  case AST_CALL:
    what = "function call";
    break;
  case AST_ATTR:
    what = "attribute";
    break;
  case AST_INDEX:
    what = "subscript";
    break;
  case AST_TUPLE:
    return tsr_source_error(p->src, t->line, t->col, TSR_ERR_SYNTAX,
                            "nested tuple unpacking is not supported");
  default:
    break;
  }
  return tsr_source_error(p->src, t->line, t->col, TSR_ERR_SYNTAX, "cannot assign to %s", what);
}

static int set_targets(parser *p, ast_stmt *st, ast_node *lhs) {
  if (lhs->kind == AST_NAME) {
    TSR_MALLOC(st->targets, sizeof *st->targets);
    st->targets[0] = lhs;
    st->ntargets = 1;
    return TSR_OK;
  }
  if (lhs->kind != AST_TUPLE) return target_error(p, lhs);
  if (lhs->nitems == 0) return SYNTAX(p, lhs, "cannot assign to ()");
  /* ntargets == 1 means plain assignment, so "a, = x" has no representation */
  if (lhs->nitems == 1)
    return SYNTAX(p, lhs, "unpacking into a one-element tuple is not supported");
  for (int i = 0; i < lhs->nitems; i++)
    if (lhs->items[i]->kind != AST_NAME) return target_error(p, lhs->items[i]);
  st->targets = lhs->items;
  st->ntargets = lhs->nitems;
  lhs->items = NULL;
  lhs->nitems = 0;
  discard_node(p, lhs);
  return TSR_OK;
}

static int end_statement(parser *p) {
  const tsr_token *t = peek(p);
  if (t->kind == TSR_TOK_NEWLINE || t->kind == TSR_TOK_EOF) return TSR_OK;
  if (is_op(t, ";")) {
    next(p);
    return TSR_OK;
  }
  return unexpected(p, t);
}

/* The module name after 'import' ("dask.array") into buf. */
static int parse_module_name(parser *p, char *buf, size_t n) {
  size_t used = 0;
  for (;;) {
    const tsr_token *t = peek(p);
    if (t->kind != TSR_TOK_NAME || is_reserved(t))
      return SYNTAX(p, t, "expected a module name after '%s'", used ? "." : "import");
    next(p);
    int k = snprintf(buf + used, n - used, "%s%.*s", used ? "." : "", t->len, t->text);
    used = k > 0 && (size_t)k < n - used ? used + (size_t)k : n - 1;
    if (!is_op(peek(p), ".")) return TSR_OK;
    next(p);
  }
}

/* "import numpy as np" and the like, so that a pasted script header works:
 * the prefixes resolve without it (modules.h), so an accepted import makes
 * no statement. Any other import is an error at its module name. */
static int parse_import(parser *p) {
  next(p); /* 'import' */
  const tsr_token *at = peek(p), *alias = NULL;
  char module[128], name[64];
  TSR_CHECK(parse_module_name(p, module, sizeof module));
  if (is_name(peek(p), "as")) {
    next(p);
    alias = peek(p);
    if (alias->kind != TSR_TOK_NAME || is_reserved(alias))
      return SYNTAX(p, alias, "expected a name after 'as'");
    next(p);
    snprintf(name, sizeof name, "%.*s", alias->len, alias->text);
  }
  if (!tsr_module_import_ok(module, alias ? name : NULL)) {
    char accepted[256];
    tsr_module_imports(accepted, sizeof accepted);
    return SYNTAX(p, at, "'import %s%s%s' is not supported: a job accepts only %s", module,
                  alias ? " as " : "", alias ? name : "", accepted);
  }
  return end_statement(p);
}

static int parse_statement(parser *p, ast_stmt *st) {
  const tsr_token *first = peek(p);
  st->line = first->line;
  st->col = first->col;
  ast_node *lhs;
  TSR_CHECK(parse_exprlist(p, &lhs));
  if (!is_op(peek(p), "=")) {
    st->value = lhs;
    return end_statement(p);
  }
  next(p);
  TSR_CHECK(set_targets(p, st, lhs));
  TSR_CHECK(parse_exprlist(p, &st->value));
  if (is_op(peek(p), "=")) return SYNTAX(p, peek(p), "chained assignment is not supported");
  return end_statement(p);
}

static int parse_statements(parser *p, ast_program *prog) {
  for (;;) {
    while (peek(p)->kind == TSR_TOK_NEWLINE) next(p);
    if (peek(p)->kind == TSR_TOK_EOF) return TSR_OK;
    if (is_name(peek(p), "import")) {
      TSR_CHECK(parse_import(p));
      continue;
    }
    if (is_full(prog->nstmts)) {
      size_t cap = (size_t)(prog->nstmts ? 2 * prog->nstmts : 1);
      ast_stmt *s = realloc(prog->stmts, cap * sizeof *s);
      if (!s) return TSR_ERROR(TSR_ERR_MEMORY, "out of memory in the parser");
      prog->stmts = s;
    }
    ast_stmt *st = &prog->stmts[prog->nstmts++];
    memset(st, 0, sizeof *st);
    TSR_CHECK(parse_statement(p, st));
  }
}

/* ---- entry points ------------------------------------------------------ */

static int parser_open(parser *p, const tsr_source *src) {
  memset(p, 0, sizeof *p);
  p->src = src;
  return tsr_lex(src, &p->tokens);
}

/* On failure the recorded nodes are garbage to free; on success they belong
 * to the returned tree and only the record goes. */
static void parser_close(parser *p, int failed) {
  if (failed)
    for (int i = 0; i < p->nnodes; i++)
      if (p->nodes[i]) node_free_shallow(p->nodes[i]);
  free(p->nodes);
  tsr_token_list_free(&p->tokens);
}

int tsr_parse_program(const tsr_source *src, ast_program *out) {
  parser p;
  memset(out, 0, sizeof *out);
  TSR_CHECK(parser_open(&p, src));
  int st = parse_statements(&p, out);
  if (st != TSR_OK) {
    for (int i = 0; i < out->nstmts; i++) free(out->stmts[i].targets);
    free(out->stmts);
    memset(out, 0, sizeof *out);
  }
  parser_close(&p, st != TSR_OK);
  return st;
}

static int parse_whole_expression(parser *p, ast_node **out) {
  TSR_CHECK(parse_exprlist(p, out));
  while (peek(p)->kind == TSR_TOK_NEWLINE) next(p);
  return peek(p)->kind == TSR_TOK_EOF ? TSR_OK : unexpected(p, peek(p));
}

int tsr_parse_expression(const tsr_source *src, ast_node **out) {
  parser p;
  *out = NULL;
  TSR_CHECK(parser_open(&p, src));
  int st = parse_whole_expression(&p, out);
  if (st != TSR_OK) *out = NULL;
  parser_close(&p, st != TSR_OK);
  return st;
}

/* ---- freeing ----------------------------------------------------------- */

void tsr_ast_free(ast_node *node) {
  /* loops down the left spine: "a + b + c + ..." nests to the left, and a
   * long chain must not cost one stack frame per term */
  while (node) {
    tsr_ast_free(node->right);
    tsr_ast_free(node->callee);
    tsr_ast_free(node->start);
    tsr_ast_free(node->stop);
    tsr_ast_free(node->step);
    for (int i = 0; i < node->nitems; i++) tsr_ast_free(node->items[i]);
    for (int i = 0; i < node->nkw; i++) tsr_ast_free(node->kwvalues[i]);
    ast_node *left = node->left;
    node_free_shallow(node);
    node = left;
  }
}

void tsr_ast_program_free(ast_program *prog) {
  if (!prog) return;
  for (int i = 0; i < prog->nstmts; i++) {
    ast_stmt *st = &prog->stmts[i];
    for (int j = 0; j < st->ntargets; j++) tsr_ast_free(st->targets[j]);
    free(st->targets);
    tsr_ast_free(st->value);
  }
  free(prog->stmts);
  prog->stmts = NULL;
  prog->nstmts = 0;
}
