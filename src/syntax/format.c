/* The formatter behind `geno fmt`: the reference formatter's canonical
 * layout (four spaces per open block; `end`, `else` and `catch` lines at
 * the level of the line that opened their block; match arms inside their
 * match; type variants one level under their `type`; every other line,
 * continuation lines included, at the level of the block it is in; no
 * trailing spaces; one newline at the end), computed from the real lexer's
 * tokens instead of from the text of each line.
 *
 * Why tokens: the reference decides from a line's first word, so a `for`
 * of a comprehension that starts a line, a `match` after `return`, a block
 * lambda (`fn (...) do ... end fn`) or `end` inside a string could shift
 * every line after it, and it re-indents lines inside a multi-line string
 * (which changes the string). Here a keyword opens a block exactly when
 * the parser's grammar says it does:
 *   func (not a trait's method signature), if (not one continuing an
 *   `else if` chain), while, for (not in a comprehension, not `impl T for
 *   U`), match, try, trait, impl, test, and fn followed by `(...) do`;
 * each `end` closes the innermost block. Lines that begin inside a
 * multi-line string are kept byte for byte.
 *
 * Meaning: Geno's layout matters in one place only, the `else if` rule of
 * the parser (parse_stmt.c): an `if` on a line after `else` continues the
 * chain when it is not indented past the `else`. A chained `if` line is
 * put at the `else`'s level and a nested one inside the `else` body, so
 * the rule reads the same program after formatting. Only programs that
 * parse are formatted (the caller checks), so the pairing below always
 * meets well-formed blocks. */
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "lexer.h"

/* One entry of the structure stack: a block (the keyword that opened it)
 * or a bracket. */
typedef struct Open {
  TokKind kind;
  bool bracket;
} Open;

typedef struct LineInfo {
  int depth;       /* blocks open before the line's first token */
  int first;       /* index of the first token starting on the line, -1 */
  bool verbatim;   /* starts inside a multi-line token */
  int indent;      /* the level chosen */
} LineInfo;

/* Normalise line ends (CR LF and lone CR become LF) into a NUL-terminated
 * copy, as the parser does. */
static char *normalise(const char *src, size_t len, size_t *out_len) {
  char *s = malloc(len + 1);
  if (!s) return NULL;
  size_t n = 0;
  for (size_t i = 0; i < len; i++) {
    if (src[i] == '\r') {
      s[n++] = '\n';
      if (i + 1 < len && src[i + 1] == '\n') i++;
    } else {
      s[n++] = src[i];
    }
  }
  s[n] = '\0';
  *out_len = n;
  return s;
}

/* Whether the `fn` at tokens[i] starts a block lambda: its parameter list
 * is followed by `do`. */
static bool fn_opens_block(const Token *t, int n, int i) {
  int j = i + 1;
  if (j >= n || t[j].kind != TOK_LPAREN) return false;
  int depth = 0;
  for (; j < n; j++) {
    if (t[j].kind == TOK_LPAREN || t[j].kind == TOK_LBRACKET || t[j].kind == TOK_LBRACE) depth++;
    else if (t[j].kind == TOK_RPAREN || t[j].kind == TOK_RBRACKET || t[j].kind == TOK_RBRACE) {
      if (--depth == 0) return j + 1 < n && t[j + 1].kind == TOK_DO;
    }
  }
  return false;
}

static bool is_open_bracket(TokKind k) { return k == TOK_LPAREN || k == TOK_LBRACKET || k == TOK_LBRACE; }
static bool is_close_bracket(TokKind k) { return k == TOK_RPAREN || k == TOK_RBRACKET || k == TOK_RBRACE; }

static int blocks_open(const Open *st, int sp) {
  int n = 0;
  for (int i = 0; i < sp; i++) n += !st[i].bracket;
  return n;
}

static const Open *innermost_block(const Open *st, int sp) {
  for (int i = sp - 1; i >= 0; i--)
    if (!st[i].bracket) return &st[i];
  return NULL;
}

bool fmt_source(const char *src, size_t len, Buf *out) {
  size_t n;
  char *text = normalise(src, len, &n);
  if (!text) return false;
  /* the lines */
  int nlines = 1;
  for (size_t i = 0; i < n; i++) nlines += text[i] == '\n';
  LineInfo *lines = calloc((size_t)nlines + 1, sizeof *lines);
  /* the tokens (the caller checked that the text lexes and parses) */
  Arena arena;
  arena_init(&arena, 0);
  Interner names;
  intern_init(&names, &arena);
  Lexer lx;
  lex_init(&lx, text, n, "<fmt>", 1, 1, &arena, &names);
  Token *toks = NULL;
  int ntoks = 0, cap = 0;
  bool ok = lines != NULL && lex_start(&lx, NULL);
  while (ok) {
    if (ntoks == cap) {
      cap = cap ? cap * 2 : 256;
      Token *g = realloc(toks, (size_t)cap * sizeof *g);
      if (!g) {
        ok = false;
        break;
      }
      toks = g;
    }
    lex_next(&lx, &toks[ntoks]);
    if (toks[ntoks].kind == TOK_EOF) break;
    ntoks++;
  }
  if (ok) ok = lex_finish(&lx, NULL);
  Open *st = ok ? malloc(((size_t)ntoks + 1) * sizeof *st) : NULL;
  if (ok && !st) ok = false;
  if (ok) {
    for (int l = 0; l <= nlines; l++) lines[l].first = -1;
    int sp = 0;
    for (int i = 0; i < ntoks; i++) {
      const Token *t = &toks[i];
      int L = t->line - 1;
      if (L >= 0 && L < nlines && lines[L].first < 0) {
        lines[L].first = i;
        lines[L].depth = blocks_open(st, sp);
        /* how this line sits relative to the blocks open before it */
        int d = lines[L].depth;
        const Open *in = innermost_block(st, sp);
        if (t->kind == TOK_END || t->kind == TOK_ELSE || t->kind == TOK_CATCH) d--;
        else if (t->kind == TOK_IF && i > 0 && toks[i - 1].kind == TOK_ELSE && toks[i - 1].line != t->line &&
                 t->col <= toks[i - 1].col)
          d--; /* an `else if` chain link on its own line: at the `else`'s level */
        else if (t->kind == TOK_BAR && !(in && in->kind == TOK_MATCH)) d++; /* a type's variant */
        lines[L].indent = d < 0 ? 0 : d;
      }
      for (int l = t->line; l < t->end_line && l < nlines; l++) lines[l].verbatim = true;
      /* the structure */
      TokKind k = t->kind;
      bool opens = false;
      if (is_open_bracket(k)) {
        st[sp].kind = k;
        st[sp++].bracket = true;
        continue;
      }
      if (is_close_bracket(k)) {
        while (sp > 0 && !st[sp - 1].bracket) sp--; /* unreachable in a program that parses */
        if (sp > 0) sp--;
        continue;
      }
      const Open *in = innermost_block(st, sp);
      bool in_brackets = sp > 0 && st[sp - 1].bracket;
      switch (k) {
        case TOK_FUNC: opens = !(in && in->kind == TOK_TRAIT && !in_brackets); break;
        case TOK_IF:
          opens = !(i > 0 && toks[i - 1].kind == TOK_ELSE &&
                    (toks[i - 1].line == t->line || t->col <= toks[i - 1].col));
          break;
        case TOK_FOR: opens = !in_brackets && !(i >= 2 && toks[i - 2].kind == TOK_IMPL); break;
        case TOK_WHILE:
        case TOK_MATCH:
        case TOK_TRY:
        case TOK_TRAIT:
        case TOK_IMPL:
        case TOK_TEST: opens = true; break;
        case TOK_FN: opens = fn_opens_block(toks, ntoks, i); break;
        case TOK_END:
          /* `end KW`: close the innermost block (brackets cannot be open
           * across it in a program that parses) */
          while (sp > 0 && st[sp - 1].bracket) sp--;
          if (sp > 0) sp--;
          i++; /* the keyword after `end` opens nothing */
          break;
        default: break;
      }
      if (opens) {
        st[sp].kind = k;
        st[sp++].bracket = false;
      }
    }
    /* lines without a token of their own (blank, comments): the level of
     * the next line that has one, as the blocks stand there (a comment
     * just before `end` or `else` belongs to the body it ends) */
    int next_depth = 0;
    for (int l = nlines - 1; l >= 0; l--) {
      if (lines[l].first >= 0) next_depth = lines[l].depth;
      else lines[l].indent = next_depth;
    }
  }
  if (ok) {
    /* emit */
    size_t start = 0;
    size_t blank_run = 0;
    for (int l = 0; l < nlines; l++) {
      size_t end = start;
      while (end < n && text[end] != '\n') end++;
      const char *line = text + start;
      size_t ll = end - start;
      if (lines[l].verbatim) {
        for (; blank_run; blank_run--) buf_putc(out, '\n');
        buf_append(out, line, ll);
        buf_putc(out, '\n');
      } else {
        size_t a = 0, b = ll;
        while (a < b && (line[a] == ' ' || line[a] == '\t')) a++;
        while (b > a && (line[b - 1] == ' ' || line[b - 1] == '\t')) b--;
        if (a == b) {
          blank_run++; /* held back: trailing blank lines are dropped */
        } else {
          for (; blank_run; blank_run--) buf_putc(out, '\n');
          for (int d = 0; d < lines[l].indent; d++) buf_puts(out, "    ");
          buf_append(out, line + a, b - a);
          buf_putc(out, '\n');
        }
      }
      start = end + 1;
    }
    if (out->len == 0) buf_putc(out, '\n');
    ok = out->data != NULL;
  }
  free(st);
  free(toks);
  free(lines);
  arena_free(&arena);
  free(text);
  return ok;
}
