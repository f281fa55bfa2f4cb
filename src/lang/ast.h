/*
 * ast.h - syntax tree of the job language (a Python-syntax subset).
 *
 * The lexer/parser (lexer.c, parser.c) turn job text into an ast_program;
 * the interpreter (interp.c) walks it to build the lazy array DAG. Every node
 * keeps the 1-based line and column of its first token so that later errors
 * (unknown names, shape mismatches) can point at the source with a caret.
 */
#ifndef TSR_AST_H
#define TSR_AST_H

typedef enum ast_kind {
  AST_NUM,     /* number literal: num (and ival/is_int for integers)         */
  AST_STR,     /* string literal: str (escapes resolved)                     */
  AST_NAME,    /* identifier: str                                            */
  AST_NONE,    /* None                                                       */
  AST_BOOL,    /* True/False: ival = 1/0                                     */
  AST_TUPLE,   /* (a, b, ...) or a bare "a, b": items/nitems                 */
  AST_UNARY,   /* op ('-', '+' or '~') applied to left                       */
  AST_BINOP,   /* left op right: '+','-','*','/','%','@', AST_OP_POW or      */
               /* AST_OP_FLOORDIV                                            */
  AST_CALL,    /* callee(items..., kwnames[i]=kwvalues[i]...)                */
  AST_ATTR,    /* left.str (a method reference or an attribute like .shape)  */
  AST_INDEX,   /* left[items...]: each item an expression, AST_SLICE,       */
               /* AST_NONE (newaxis) or AST_ELLIPSIS                         */
  AST_SLICE,   /* start:stop:step inside an index; NULL parts are omitted    */
  AST_ELLIPSIS /* ... inside an index: as many whole axes as the rest leaves */
} ast_kind;

/* operators of more than one character */
enum {
  AST_OP_POW = 'P',      /* ** */
  AST_OP_FLOORDIV = 'F', /* // */
  AST_OP_LE = 'l',       /* <= */
  AST_OP_GE = 'g',       /* >= */
  AST_OP_EQ = 'e',       /* == */
  AST_OP_NE = 'n',       /* != */
  AST_OP_LSHIFT = 'L',   /* << */
  AST_OP_RSHIFT = 'R'    /* >> */
};

typedef struct ast_node ast_node;
struct ast_node {
  ast_kind kind;
  int line, col;          /* 1-based position of the node's first token */
  double num;             /* AST_NUM value (also set for integers) */
  long long ival;         /* AST_NUM integer value when is_int; AST_BOOL */
  int is_int;             /* AST_NUM written without '.', 'e' or 'E' */
  char *str;              /* AST_STR text, AST_NAME identifier, AST_ATTR name */
  int op;                 /* AST_UNARY / AST_BINOP operator */
  ast_node *left, *right; /* operands; AST_ATTR/AST_INDEX object in left */
  ast_node *callee;       /* AST_CALL: the function (AST_NAME or AST_ATTR) */
  ast_node **items;       /* tuple elements, call positional args, subscripts */
  int nitems;
  char **kwnames;      /* AST_CALL keyword names ... */
  ast_node **kwvalues; /* ... and their values */
  int nkw;
  ast_node *start, *stop, *step; /* AST_SLICE parts (NULL when omitted) */
};

typedef struct ast_stmt {
  ast_node **targets; /* assignment targets (AST_NAME); NULL for an expression */
  int ntargets;       /* 0: expression statement; >1: tuple unpacking */
  ast_node *value;
  int line, col;
} ast_stmt;

/* Job text as the user wrote it, kept for error carets and provenance. */
typedef struct tsr_source {
  const char *name; /* file name, or "<eval>" */
  const char *text; /* whole text, NUL-terminated */
} tsr_source;

typedef struct ast_program {
  ast_stmt *stmts;
  int nstmts;
} ast_program;

/* Parses a whole job. On a syntax error returns TSR_ERR_SYNTAX with a message
 * made by tsr_source_error(). out is valid (and must be freed) only on TSR_OK. */
int tsr_parse_program(const tsr_source *src, ast_program *out);

/* Parses a single expression (the argument of `tessera eval`). */
int tsr_parse_expression(const tsr_source *src, ast_node **out);

void tsr_ast_free(ast_node *node);
void tsr_ast_program_free(ast_program *prog);

/* Records an error located in the source: the message reads
 *   "NAME:LINE:COL: <message>\n    <the source line>\n    <spaces>^"
 * (the first line alone when line <= 0). Returns code, like tsr_error_set. */
int tsr_source_error(const tsr_source *src, int line, int col, int code, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* Of the n candidates, the one closest to word by edit distance (NULL when
 * none is close enough to be a plausible misspelling). */
const char *tsr_nearest_name(const char *word, const char *const *candidates, int n);

#endif
