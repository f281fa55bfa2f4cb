/*
 * lexer.c - job text -> token array (see lexer.h).
 *
 * The whole text is tokenized before parsing; lexical errors (bad numbers,
 * unterminated strings, stray characters) are reported here through
 * tsr_source_error() with the position of the offending character, so the
 * parser only deals with grammar. Line continuation is resolved here too:
 * while a bracket is open, or after a backslash at line end, a newline is
 * plain whitespace.
 */
#include "lang/lexer.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"

typedef struct lexer {
  const tsr_source *src;
  const char *p;         /* next character */
  int line, col;         /* position of *p */
  int depth;             /* open brackets: newlines inside are whitespace */
  int end_line, end_col; /* just past the last token, where NEWLINE and EOF
                            go so that "unexpected end of line" points right
                            after the code rather than at a comment's end */
  tsr_token_list *out;
} lexer;

/* Longest first, so that "**=" is not read as "**" then "=". Operators the
 * language rejects are still tokens: the parser can then say "operator '%'
 * is not supported" instead of a vaguer "unexpected character". */
static const char *const multi_ops[] = {"...", "**=", "//=", ">>=", "<<=", "**", "//", "<<",
                                        ">>",  "<=",  ">=",  "==",  "!=",  "+=", "-=", "*=",
                                        "/=",  "%=",  "@=",  "&=",  "|=",  "^="};
static const char single_ops[] = "+-*/@%&|^~<>=()[]{},:;.";

static void advance(lexer *lx) {
  if (*lx->p == '\n') {
    lx->line++;
    lx->col = 1;
  } else {
    lx->col++;
  }
  lx->p++;
}

static void advance_n(lexer *lx, int n) {
  while (n-- > 0) advance(lx);
}

#define LEX_ERROR(lx, line, col, ...) \
  tsr_source_error((lx)->src, (line), (col), TSR_ERR_SYNTAX, __VA_ARGS__)

/* Appends a token starting at the current position; the caller fills in the
 * value and then advances past its characters. */
static int push_token(lexer *lx, tsr_token_kind kind, tsr_token **tok) {
  tsr_token_list *l = lx->out;
  if (l->n == l->cap) {
    int cap = l->cap ? 2 * l->cap : 64;
    tsr_token *t = realloc(l->toks, (size_t)cap * sizeof *t);
    if (!t) return TSR_ERROR(TSR_ERR_MEMORY, "out of memory in the lexer");
    l->toks = t;
    l->cap = cap;
  }
  *tok = &l->toks[l->n++];
  memset(*tok, 0, sizeof **tok);
  (*tok)->kind = kind;
  (*tok)->line = lx->line;
  (*tok)->col = lx->col;
  (*tok)->text = lx->p;
  return TSR_OK;
}

static void mark_end(lexer *lx) {
  lx->end_line = lx->line;
  lx->end_col = lx->col;
}

static int is_name_start(int c) { return isalpha(c) || c == '_'; }
static int is_name_char(int c) { return isalnum(c) || c == '_'; }

/* ---- numbers ---------------------------------------------------------- */

/* Digits with single '_' separators strictly between digits (Python's rule);
 * a misplaced '_' is left unread and then rejected as part of the number. */
static const char *scan_digits(const char *q) {
  const char *start = q;
  for (;;) {
    if (isdigit((unsigned char)*q))
      q++;
    else if (*q == '_' && q > start && isdigit((unsigned char)q[-1]) &&
             isdigit((unsigned char)q[1]))
      q++;
    else
      return q;
  }
}

/* Scans one number; returns its length and sets *is_int and *bad. */
static int scan_number(const char *s, int *is_int, int *bad) {
  const char *q = scan_digits(s);
  *is_int = 1;
  *bad = 0;
  if (*q == '.') {
    *is_int = 0;
    q = scan_digits(q + 1);
  }
  if (*q == 'e' || *q == 'E') {
    *is_int = 0;
    q++;
    if (*q == '+' || *q == '-') q++;
    const char *digits = q;
    q = scan_digits(q);
    if (q == digits) *bad = 1;
  }
  /* "1abc", "0x1f", "1_": report the whole word, not just its digits */
  while (is_name_char((unsigned char)*q)) {
    q++;
    *bad = 1;
  }
  return (int)(q - s);
}

static int has_leading_zero(const char *s, int len) {
  if (s[0] != '0') return 0;
  for (int i = 1; i < len; i++)
    if (s[i] != '0' && s[i] != '_') return 1;
  return 0;
}

/* Converts the literal (underscores dropped) into tok's value. */
static int number_value(lexer *lx, tsr_token *tok, int is_int) {
  char *buf = malloc((size_t)tok->len + 1);
  if (!buf) return TSR_ERROR(TSR_ERR_MEMORY, "out of memory in the lexer");
  int n = 0;
  for (int i = 0; i < tok->len; i++)
    if (tok->text[i] != '_') buf[n++] = tok->text[i];
  buf[n] = '\0';
  errno = 0;
  if (is_int) {
    tok->ival = strtoll(buf, NULL, 10);
    tok->num = (double)tok->ival;
  } else {
    tok->num = strtod(buf, NULL); /* overflow gives inf, as in Python */
  }
  int overflow = is_int && errno == ERANGE;
  free(buf);
  if (overflow)
    return LEX_ERROR(lx, tok->line, tok->col, "integer '%.*s' is too large", tok->len, tok->text);
  return TSR_OK;
}

static int lex_number(lexer *lx) {
  int is_int, bad;
  int len = scan_number(lx->p, &is_int, &bad);
  if (bad) return LEX_ERROR(lx, lx->line, lx->col, "invalid number '%.*s'", len, lx->p);
  if (is_int && has_leading_zero(lx->p, len))
    return LEX_ERROR(lx, lx->line, lx->col, "invalid number '%.*s': leading zeros are not allowed",
                     len, lx->p);
  tsr_token *tok;
  TSR_CHECK(push_token(lx, is_int ? TSR_TOK_INT : TSR_TOK_FLOAT, &tok));
  tok->len = len;
  TSR_CHECK(number_value(lx, tok, is_int));
  advance_n(lx, len);
  return TSR_OK;
}

/* ---- strings ---------------------------------------------------------- */

typedef struct strbuf {
  char *s;
  size_t n, cap;
} strbuf;

static int strbuf_put(strbuf *b, char c) {
  if (b->n + 1 >= b->cap) {
    size_t cap = b->cap ? 2 * b->cap : 32;
    char *s = realloc(b->s, cap);
    if (!s) return TSR_ERROR(TSR_ERR_MEMORY, "out of memory in the lexer");
    b->s = s;
    b->cap = cap;
  }
  b->s[b->n++] = c;
  b->s[b->n] = '\0';
  return TSR_OK;
}

/* Resolves the escape at lx->p (a backslash) into b and moves past it. */
static int lex_escape(lexer *lx, strbuf *b) {
  const char *p = lx->p;
  char c;
  switch (p[1]) {
  case 'n':
    c = '\n';
    break;
  case 't':
    c = '\t';
    break;
  case 'r':
    c = '\r';
    break;
  case '\\':
  case '\'':
  case '"':
    c = p[1];
    break;
  case '\n':
    advance_n(lx, 2);
    return TSR_OK; /* continued string */
  default:
    if (p[1] == '\r' && p[2] == '\n') { /* continued, CRLF line ends */
      advance_n(lx, 3);
      return TSR_OK;
    }
    return LEX_ERROR(lx, lx->line, lx->col, "unknown escape '\\%c' in string",
                     isprint((unsigned char)p[1]) ? p[1] : '?');
  }
  TSR_CHECK(strbuf_put(b, c));
  advance_n(lx, 2);
  return TSR_OK;
}

static int lex_string_body(lexer *lx, tsr_token *tok, strbuf *b) {
  const char quote = *lx->p;
  advance(lx);
  TSR_CHECK(strbuf_put(b, '\0')); /* an empty string still gets storage */
  b->n = 0;
  while (*lx->p != quote) {
    char c = *lx->p;
    if (c == '\n' || c == '\0' || (c == '\\' && lx->p[1] == '\0'))
      return LEX_ERROR(lx, tok->line, tok->col, "unterminated string");
    if (c == '\\') {
      TSR_CHECK(lex_escape(lx, b));
    } else {
      TSR_CHECK(strbuf_put(b, c));
      advance(lx);
    }
  }
  advance(lx);
  return TSR_OK;
}

static int lex_string(lexer *lx) {
  const char quote = *lx->p;
  if (lx->p[1] == quote && lx->p[2] == quote)
    return LEX_ERROR(lx, lx->line, lx->col, "triple-quoted strings are not supported");
  tsr_token *tok;
  TSR_CHECK(push_token(lx, TSR_TOK_STRING, &tok));
  strbuf b = {0};
  /* tok may move when the list grows, but not while this string is read */
  int st = lex_string_body(lx, tok, &b);
  tok->str = b.s; /* owned by the list from here, even on error */
  tok->len = (int)(lx->p - tok->text);
  return st;
}

/* ---- names, operators, whitespace ------------------------------------- */

static int lex_name(lexer *lx) {
  tsr_token *tok;
  TSR_CHECK(push_token(lx, TSR_TOK_NAME, &tok));
  while (is_name_char((unsigned char)*lx->p)) advance(lx);
  tok->len = (int)(lx->p - tok->text);
  return TSR_OK;
}

static int op_length(const char *p) {
  for (size_t i = 0; i < sizeof multi_ops / sizeof *multi_ops; i++) {
    size_t n = strlen(multi_ops[i]);
    if (strncmp(p, multi_ops[i], n) == 0) return (int)n;
  }
  return *p && strchr(single_ops, *p) ? 1 : 0;
}

static int bad_character(lexer *lx) {
  const unsigned char *p = (const unsigned char *)lx->p;
  if (*p >= 0x80) { /* show the whole UTF-8 character, e.g. a stray '×' */
    int n = 1;
    while (n < 4 && (p[n] & 0xC0) == 0x80) n++;
    return LEX_ERROR(lx, lx->line, lx->col, "unexpected character '%.*s'", n, lx->p);
  }
  if (!isprint(*p)) return LEX_ERROR(lx, lx->line, lx->col, "unexpected character '\\x%02x'", *p);
  return LEX_ERROR(lx, lx->line, lx->col, "unexpected character '%c'", *p);
}

static int lex_op(lexer *lx) {
  int len = op_length(lx->p);
  if (len == 0) return bad_character(lx);
  tsr_token *tok;
  TSR_CHECK(push_token(lx, TSR_TOK_OP, &tok));
  memcpy(tok->op, lx->p, (size_t)len);
  tok->len = len;
  if (len == 1 && strchr("([{", *lx->p)) lx->depth++;
  if (len == 1 && strchr(")]}", *lx->p) && lx->depth > 0) lx->depth--;
  advance_n(lx, len);
  return TSR_OK;
}

/* A backslash continues the line when only blanks follow it. */
static int skip_continuation(lexer *lx) {
  const char *q = lx->p + 1;
  while (*q == ' ' || *q == '\t' || *q == '\r') q++;
  if (*q != '\n' && *q != '\0')
    return LEX_ERROR(lx, lx->line, lx->col,
                     "unexpected character after line continuation character");
  advance_n(lx, (int)(q - lx->p) + (*q == '\n'));
  return TSR_OK;
}

static int last_is_newline(const lexer *lx) {
  return lx->out->n == 0 || lx->out->toks[lx->out->n - 1].kind == TSR_TOK_NEWLINE;
}

/* Ends a logical line, once, placed right after the line's last token. */
static int emit_newline(lexer *lx) {
  if (last_is_newline(lx)) return TSR_OK;
  tsr_token *tok;
  TSR_CHECK(push_token(lx, TSR_TOK_NEWLINE, &tok));
  tok->line = lx->end_line;
  tok->col = lx->end_col;
  return TSR_OK;
}

static int lex_newline(lexer *lx) {
  if (lx->depth == 0) TSR_CHECK(emit_newline(lx));
  advance(lx);
  return TSR_OK;
}

static void skip_comment(lexer *lx) {
  while (*lx->p && *lx->p != '\n') advance(lx);
}

/* Dispatches on the next character; whitespace and comments yield nothing. */
static int lex_one(lexer *lx) {
  unsigned char c = (unsigned char)*lx->p;
  if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
    advance(lx);
    return TSR_OK;
  }
  if (c == '#') {
    skip_comment(lx);
    return TSR_OK;
  }
  if (c == '\n') return lex_newline(lx);
  if (c == '\\') return skip_continuation(lx);
  int st;
  if (isdigit(c) || (c == '.' && isdigit((unsigned char)lx->p[1])))
    st = lex_number(lx);
  else if (is_name_start(c))
    st = lex_name(lx);
  else if (c == '\'' || c == '"')
    st = lex_string(lx);
  else
    st = lex_op(lx);
  if (st == TSR_OK) mark_end(lx);
  return st;
}

static int lex_all(lexer *lx) {
  while (*lx->p) TSR_CHECK(lex_one(lx));
  TSR_CHECK(emit_newline(lx));
  tsr_token *tok;
  TSR_CHECK(push_token(lx, TSR_TOK_EOF, &tok));
  tok->line = lx->end_line;
  tok->col = lx->end_col;
  return TSR_OK;
}

int tsr_lex(const tsr_source *src, tsr_token_list *out) {
  memset(out, 0, sizeof *out);
  lexer lx = {.src = src,
              .p = src->text ? src->text : "",
              .line = 1,
              .col = 1,
              .end_line = 1,
              .end_col = 1,
              .out = out};
  int st = lex_all(&lx);
  if (st != TSR_OK) tsr_token_list_free(out);
  return st;
}

void tsr_token_list_free(tsr_token_list *list) {
  for (int i = 0; i < list->n; i++) free(list->toks[i].str);
  free(list->toks);
  memset(list, 0, sizeof *list);
}
