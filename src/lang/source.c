/*
 * source.c - errors that point into the job text, and "did you mean" help.
 *
 * The lexer, parser and interpreter all report user mistakes through
 * tsr_source_error(), so every such message has one shape: a compiler-style
 * "NAME:LINE:COL: message" line, the offending source line and a caret.
 * tsr_nearest_name() lets the interpreter suggest a known name for a typo.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lang/ast.h"
#include "util/error.h"

/* Lines longer than this are shown as a window around the column, so that
 * the caret survives the fixed-size error message buffer. */
enum { SHOW_MAX = 160, CARET_MAX = SHOW_MAX + 8 };

typedef struct shown_line {
  const char *text; /* first shown character */
  int len;          /* shown characters */
  int offset;       /* index of text within the whole line */
  int cut_left, cut_right;
} shown_line;

/* Finds the 1-based line in text; returns 0 when the text is shorter. */
static int find_line(const char *text, int line, const char **start, int *len) {
  const char *p = text;
  for (int i = 1; i < line; i++) {
    p = strchr(p, '\n');
    if (!p) return 0;
    p++;
  }
  const char *end = strchr(p, '\n');
  int n = end ? (int)(end - p) : (int)strlen(p);
  if (n > 0 && p[n - 1] == '\r') n--;
  *start = p;
  *len = n;
  return 1;
}

static shown_line window(const char *text, int len, int col) {
  shown_line w = {text, len, 0, 0, 0};
  if (len <= SHOW_MAX) return w;
  int from = col - 1 - SHOW_MAX / 2;
  if (from > len - SHOW_MAX) from = len - SHOW_MAX;
  if (from < 0) from = 0;
  w.text = text + from;
  w.len = SHOW_MAX;
  w.offset = from;
  w.cut_left = from > 0;
  w.cut_right = from + SHOW_MAX < len;
  return w;
}

/* Blanks up to the column, copying tabs so that the caret lines up with the
 * source line in a terminal even though a tab counts as one column. */
static void caret_line(const shown_line *w, int col, char *out) {
  int n = 0;
  if (w->cut_left) n += sprintf(out, "   "); /* under the "..." */
  int upto = col - 1 - w->offset;
  if (upto > w->len) upto = w->len;
  for (int i = 0; i < upto; i++) out[n++] = w->text[i] == '\t' ? '\t' : ' ';
  out[n++] = '^';
  out[n] = '\0';
}

static int report_with_line(const tsr_source *src, const char *name, int line, int col, int code,
                            const char *msg) {
  const char *text;
  int len;
  if (!src || !src->text || !find_line(src->text, line, &text, &len))
    return TSR_ERROR(code, "%s:%d:%d: %s", name, line, col, msg);
  if (col <= 0) return TSR_ERROR(code, "%s:%d: %s\n    %.*s", name, line, msg, len, text);
  shown_line w = window(text, len, col);
  char caret[CARET_MAX];
  caret_line(&w, col, caret);
  return TSR_ERROR(code, "%s:%d:%d: %s\n    %s%.*s%s\n    %s", name, line, col, msg,
                   w.cut_left ? "..." : "", w.len, w.text, w.cut_right ? "..." : "", caret);
}

int tsr_source_error(const tsr_source *src, int line, int col, int code, const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  const char *name = src && src->name ? src->name : "<input>";
  if (line <= 0) return TSR_ERROR(code, "%s: %s", name, msg);
  return report_with_line(src, name, line, col, code, msg);
}

/* ---- nearest name ----------------------------------------------------- */

static int min3(int a, int b, int c) {
  int m = a < b ? a : b;
  return m < c ? m : c;
}

/* Optimal-string-alignment distance: edits plus adjacent transpositions, the
 * commonest typo ("sum" vs "smu"). Three rolling rows keep it O(len) space;
 * returns -1 when out of memory. */
static int edit_distance(const char *a, const char *b) {
  int m = (int)strlen(a), n = (int)strlen(b);
  int *rows = malloc(3 * ((size_t)n + 1) * sizeof *rows);
  if (!rows) return -1;
  int *prev2 = rows, *prev = rows + n + 1, *cur = rows + 2 * (n + 1);
  for (int j = 0; j <= n; j++) prev[j] = j;
  for (int i = 1; i <= m; i++) {
    cur[0] = i;
    for (int j = 1; j <= n; j++) {
      int cost = a[i - 1] != b[j - 1];
      cur[j] = min3(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
          prev2[j - 2] + 1 < cur[j])
        cur[j] = prev2[j - 2] + 1;
    }
    int *t = prev2;
    prev2 = prev;
    prev = cur;
    cur = t;
  }
  int d = prev[n];
  free(rows);
  return d;
}

const char *tsr_nearest_name(const char *word, const char *const *candidates, int n) {
  if (!word) return NULL;
  int wlen = (int)strlen(word);
  if (wlen > 64) return NULL; /* no typo makes a name that long; the distance is quadratic */
  /* One edit in a name of one or two letters makes it another word, not a typo. */
  int limit = wlen <= 2 ? 0 : (wlen / 3 > 1 ? wlen / 3 : 1);
  const char *best = NULL;
  int best_d = limit + 1;
  for (int i = 0; i < n; i++) {
    if (!candidates[i]) continue;
    int clen = (int)strlen(candidates[i]);
    if (abs(clen - wlen) >= best_d) continue; /* cannot beat the best */
    int d = edit_distance(word, candidates[i]);
    if (d >= 0 && d < best_d) { /* strict: ties keep the first */
      best = candidates[i];
      best_d = d;
    }
  }
  return best;
}
