/*
 * lexer.h - tokens of the job language (private to lexer.c and parser.c).
 *
 * The lexer turns the whole job text into a token array up front, so that the
 * recursive-descent parser can look ahead freely. Newlines inside (), [] and
 * {} and backslash-continued line ends produce no token: the parser only ever
 * sees NEWLINE where a statement may end.
 */
#ifndef TSR_LEXER_H
#define TSR_LEXER_H

#include "lang/ast.h"

typedef enum tsr_token_kind {
  TSR_TOK_NAME,    /* identifier or keyword (True, def, ...): text/len */
  TSR_TOK_INT,     /* integer literal: ival (and num) */
  TSR_TOK_FLOAT,   /* float literal: num */
  TSR_TOK_STRING,  /* string literal: str holds the value, escapes resolved */
  TSR_TOK_OP,      /* operator or punctuation: op, e.g. "**", "(", "+=" */
  TSR_TOK_NEWLINE, /* end of a logical line */
  TSR_TOK_EOF
} tsr_token_kind;

typedef struct tsr_token {
  tsr_token_kind kind;
  int line, col;    /* 1-based position of the first character */
  const char *text; /* the token's characters in the source ... */
  int len;          /* ... and how many (0 for NEWLINE and EOF) */
  char op[4];       /* TSR_TOK_OP: NUL-terminated operator */
  long long ival;
  double num;
  char *str; /* TSR_TOK_STRING value (owned by the token list) */
} tsr_token;

typedef struct tsr_token_list {
  tsr_token *toks; /* always ends with one TSR_TOK_EOF */
  int n, cap;
} tsr_token_list;

/* Tokenizes src->text. On TSR_OK the list ends with NEWLINE, EOF (NEWLINE
 * omitted for input without tokens) and must be freed; on a lexical error
 * returns TSR_ERR_SYNTAX (message via tsr_source_error) and frees the list. */
int tsr_lex(const tsr_source *src, tsr_token_list *out);

void tsr_token_list_free(tsr_token_list *list);

#endif
