/* Lexer: Geno source text -> tokens (spec section 2; see lexer.h). */
#include "lexer.h"

#include <stdio.h>
#include <utf8proc.h>

#include "../base/utf8.h"

static const char *const tok_names[TOK__COUNT] = {
#define TOK_NAME(k, s) s,
    TOKEN_LIST(TOK_NAME)
#undef TOK_NAME
};

const char *tok_name(TokKind k) {
  return (unsigned)k < TOK__COUNT ? tok_names[k] : "token";
}

/* Keyword spellings in TokKind order (TOK_AND .. TOK_WITH). */
static const char *const keywords[] = {
    "and",   "assert", "async",    "await",   "break",  "catch",   "continue",
    "do",    "else",   "end",      "ensures", "example", "export", "false",
    "fn",    "for",    "func",     "if",      "impl",   "import",  "in",
    "let",   "match",  "not",      "or",      "ref",    "requires", "return",
    "test",  "then",   "throw",    "trait",   "true",   "try",     "type",
    "var",   "where",  "while",    "with",
};
_Static_assert(ARRAY_LEN(keywords) == TOK_LAST_KEYWORD - TOK_FIRST_KEYWORD + 1,
               "ORDER TOK: keyword table out of step with TOKEN_LIST");

/* Keyword lookup runs on every identifier, so it is a perfect hash rather
 * than a search: the first two characters, the third (the second again for
 * two-letter words), and the length pick one of 128 slots, and no two
 * keywords share a slot (a clash would be a duplicate designated
 * initializer below, which -Werror=override-init rejects). A slot holds
 * the keyword's index + 1; one comparison then confirms the word. Every
 * keyword needs its slot here: the golden tests use them all. */
#define KW_SLOT(c0, c1, c2, n) (((c0) + 4 * (c1) + 14 * (c2) + (n)) & 127)
#define KW_MIN_LEN 2 /* "do", "fn", "if", "in", "or" */
#define KW_MAX_LEN 8 /* "continue", "requires" */
static const uint8_t keyword_slots[128] = {
    [KW_SLOT('a', 'n', 'd', 3)] = TOK_AND - TOK_FIRST_KEYWORD + 1,
    [KW_SLOT('a', 's', 's', 6)] = TOK_ASSERT - TOK_FIRST_KEYWORD + 1,
    [KW_SLOT('a', 's', 'y', 5)] = TOK_ASYNC - TOK_FIRST_KEYWORD + 1,
    [KW_SLOT('a', 'w', 'a', 5)] = TOK_AWAIT - TOK_FIRST_KEYWORD + 1,
    [KW_SLOT('b', 'r', 'e', 5)] = TOK_BREAK - TOK_FIRST_KEYWORD + 1,
    [KW_SLOT('c', 'a', 't', 5)] = TOK_CATCH - TOK_FIRST_KEYWORD + 1,
    [KW_SLOT('c', 'o', 'n', 8)] = TOK_CONTINUE - TOK_FIRST_KEYWORD + 1,
    [KW_SLOT('d', 'o', 'o', 2)] = TOK_DO - TOK_FIRST_KEYWORD + 1,
    [KW_SLOT('e', 'l', 's', 4)] = TOK_ELSE - TOK_FIRST_KEYWORD + 1,
    [KW_SLOT('e', 'n', 'd', 3)] = TOK_END - TOK_FIRST_KEYWORD + 1,
    [KW_SLOT('e', 'n', 's', 7)] = TOK_ENSURES - TOK_FIRST_KEYWORD + 1,
    [KW_SLOT('e', 'x', 'a', 7)] = TOK_EXAMPLE - TOK_FIRST_KEYWORD + 1,
    [KW_SLOT('e', 'x', 'p', 6)] = TOK_EXPORT - TOK_FIRST_KEYWORD + 1,
    [KW_SLOT('f', 'a', 'l', 5)] = TOK_FALSE - TOK_FIRST_KEYWORD + 1,
    [KW_SLOT('f', 'n', 'n', 2)] = TOK_FN - TOK_FIRST_KEYWORD + 1,
    [KW_SLOT('f', 'o', 'r', 3)] = TOK_FOR - TOK_FIRST_KEYWORD + 1,
    [KW_SLOT('f', 'u', 'n', 4)] = TOK_FUNC - TOK_FIRST_KEYWORD + 1,
    [KW_SLOT('i', 'f', 'f', 2)] = TOK_IF - TOK_FIRST_KEYWORD + 1,
    [KW_SLOT('i', 'm', 'p', 4)] = TOK_IMPL - TOK_FIRST_KEYWORD + 1,
    [KW_SLOT('i', 'm', 'p', 6)] = TOK_IMPORT - TOK_FIRST_KEYWORD + 1,
    [KW_SLOT('i', 'n', 'n', 2)] = TOK_IN - TOK_FIRST_KEYWORD + 1,
    [KW_SLOT('l', 'e', 't', 3)] = TOK_LET - TOK_FIRST_KEYWORD + 1,
    [KW_SLOT('m', 'a', 't', 5)] = TOK_MATCH - TOK_FIRST_KEYWORD + 1,
    [KW_SLOT('n', 'o', 't', 3)] = TOK_NOT - TOK_FIRST_KEYWORD + 1,
    [KW_SLOT('o', 'r', 'r', 2)] = TOK_OR - TOK_FIRST_KEYWORD + 1,
    [KW_SLOT('r', 'e', 'f', 3)] = TOK_REF - TOK_FIRST_KEYWORD + 1,
    [KW_SLOT('r', 'e', 'q', 8)] = TOK_REQUIRES - TOK_FIRST_KEYWORD + 1,
    [KW_SLOT('r', 'e', 't', 6)] = TOK_RETURN - TOK_FIRST_KEYWORD + 1,
    [KW_SLOT('t', 'e', 's', 4)] = TOK_TEST - TOK_FIRST_KEYWORD + 1,
    [KW_SLOT('t', 'h', 'e', 4)] = TOK_THEN - TOK_FIRST_KEYWORD + 1,
    [KW_SLOT('t', 'h', 'r', 5)] = TOK_THROW - TOK_FIRST_KEYWORD + 1,
    [KW_SLOT('t', 'r', 'a', 5)] = TOK_TRAIT - TOK_FIRST_KEYWORD + 1,
    [KW_SLOT('t', 'r', 'u', 4)] = TOK_TRUE - TOK_FIRST_KEYWORD + 1,
    [KW_SLOT('t', 'r', 'y', 3)] = TOK_TRY - TOK_FIRST_KEYWORD + 1,
    [KW_SLOT('t', 'y', 'p', 4)] = TOK_TYPE - TOK_FIRST_KEYWORD + 1,
    [KW_SLOT('v', 'a', 'r', 3)] = TOK_VAR - TOK_FIRST_KEYWORD + 1,
    [KW_SLOT('w', 'h', 'e', 5)] = TOK_WHERE - TOK_FIRST_KEYWORD + 1,
    [KW_SLOT('w', 'h', 'i', 5)] = TOK_WHILE - TOK_FIRST_KEYWORD + 1,
    [KW_SLOT('w', 'i', 't', 4)] = TOK_WITH - TOK_FIRST_KEYWORD + 1,
};

static TokKind keyword_kind(const char *s, size_t n) {
  if (n < KW_MIN_LEN || n > KW_MAX_LEN) return TOK_EOF;
  const unsigned char *u = (const unsigned char *)s;
  int k = keyword_slots[KW_SLOT(u[0], u[1], u[n > 2 ? 2 : 1], (unsigned)n)];
  if (!k) return TOK_EOF;
  const char *w = keywords[k - 1];
  for (size_t i = 0; i < n; i++)
    if (w[i] != s[i]) return TOK_EOF; /* also stops at w's NUL: s has none */
  return w[n] == '\0' ? (TokKind)(TOK_FIRST_KEYWORD + k - 1) : TOK_EOF;
}

void lex_init(Lexer *lx, const char *src, size_t len, const char *file,
              int32_t line, int32_t col, Arena *arena, Interner *names) {
  memset(lx, 0, sizeof *lx);
  lx->src = src;
  lx->len = len;
  lx->file = file;
  lx->line = line;
  lx->col = col;
  lx->arena = arena;
  lx->names = names;
  lx->prev = TOK_EOF;
}

static int peekc(const Lexer *lx, size_t off) {
  size_t p = lx->pos + off;
  return p < lx->len ? (unsigned char)lx->src[p] : -1;
}

/* Consume one byte, keeping line/column in code points. */
static void advance(Lexer *lx) {
  if (lx->pos >= lx->len) return;
  unsigned char c = (unsigned char)lx->src[lx->pos++];
  if (c == '\n') {
    lx->line++;
    lx->col = 1;
  } else if ((c & 0xC0) != 0x80) {
    lx->col++;
  }
}

/* Consume one whole UTF-8 code point. */
static void advance_cp(Lexer *lx) {
  advance(lx);
  while (lx->pos < lx->len && ((unsigned char)lx->src[lx->pos] & 0xC0) == 0x80) advance(lx);
}

static bool fail(Lexer *lx, int code, int32_t line, int32_t col, const char *fmt, ...)
    GENO_PRINTF(5, 6);
static bool fail(Lexer *lx, int code, int32_t line, int32_t col, const char *fmt, ...) {
  if (lx->failed) return false;
  lx->failed = true;
  lx->err_code = code;
  lx->err_line = line;
  lx->err_col = col;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(lx->err_msg, sizeof lx->err_msg, fmt, ap);
  va_end(ap);
  return false;
}

/* Whether a code point shows as itself in a message: Python's
 * str.isprintable (the reference quotes characters with repr()), i.e. not
 * in a control, format, surrogate, private-use, unassigned or separator
 * category, except the ASCII space. Invisible characters such as U+00A0
 * or a byte-order mark are then written as escapes a user can see. */
static bool printable_cp(int32_t cp) {
  if (cp == ' ') return true;
  switch (utf8proc_category(cp)) {
  case UTF8PROC_CATEGORY_CC: case UTF8PROC_CATEGORY_CF: case UTF8PROC_CATEGORY_CS:
  case UTF8PROC_CATEGORY_CO: case UTF8PROC_CATEGORY_CN: case UTF8PROC_CATEGORY_ZS:
  case UTF8PROC_CATEGORY_ZL: case UTF8PROC_CATEGORY_ZP:
    return false;
  default:
    return true;
  }
}

/* Python-repr-like rendering of the character at the current position for
 * "Unexpected character: 'x'" messages. */
static void describe_char(const Lexer *lx, char *out, size_t outlen) {
  unsigned char c = (unsigned char)lx->src[lx->pos];
  int32_t cp = c;
  int k = 1;
  if (c >= 0x80) {
    k = utf8_decode((const unsigned char *)lx->src + lx->pos, lx->len - lx->pos, &cp);
    if (!k) {
      snprintf(out, outlen, "byte 0x%02x (invalid UTF-8)", c);
      return;
    }
  }
  if (cp == '\t') snprintf(out, outlen, "'\\t'");
  else if (cp == '\n') snprintf(out, outlen, "'\\n'");
  else if (cp == '\r') snprintf(out, outlen, "'\\r'");
  else if (cp == '\'') snprintf(out, outlen, "\"'\"");
  else if (cp == '\\') snprintf(out, outlen, "'\\\\'");
  else if (printable_cp(cp)) snprintf(out, outlen, "'%.*s'", k, lx->src + lx->pos);
  else if (cp < 0x100) snprintf(out, outlen, "'\\x%02x'", (unsigned)cp);
  else if (cp < 0x10000) snprintf(out, outlen, "'\\u%04x'", (unsigned)cp);
  else snprintf(out, outlen, "'\\U%08x'", (unsigned)cp);
}

static bool is_alpha(int c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
static bool is_digit(int c) { return c >= '0' && c <= '9'; }

/* Growable byte output for decoded string contents (arena-backed; unused in
 * scan mode). */
typedef struct StrOut {
  Arena *arena;
  char *data;
  size_t len, cap;
} StrOut;

static void so_put(StrOut *so, const char *s, size_t n) {
  if (!so->arena) return;
  if (so->len + n + 1 > so->cap) {
    size_t cap = so->cap ? so->cap * 2 : 32;
    while (cap < so->len + n + 1) cap *= 2;
    so->data = arena_grow(so->arena, so->data, so->len, cap, 1);
    so->cap = cap;
  }
  memcpy(so->data + so->len, s, n);
  so->len += n;
  so->data[so->len] = '\0';
}

static const char *so_finish(StrOut *so) {
  if (!so->arena) return NULL;
  if (!so->data) so_put(so, "", 0);
  return so->data;
}

/* After a backslash: decode one escape into so. Returns false on error. */
static bool lex_escape(Lexer *lx, StrOut *so) {
  advance(lx); /* the backslash */
  int e = peekc(lx, 0);
  const char *rep = NULL;
  switch (e) {
  case 'n': rep = "\n"; break;
  case 't': rep = "\t"; break;
  case 'r': rep = "\r"; break;
  case '\\': rep = "\\"; break;
  case '"': rep = "\""; break;
  default: break;
  }
  if (rep) {
    advance(lx);
    so_put(so, rep, 1);
    return true;
  }
  /* The reference reports the location just after the escaped character. */
  size_t start = lx->pos;
  if (e >= 0) advance_cp(lx);
  int n = (int)(lx->pos - start);
  if (e == '\n') return fail(lx, E_LEX_INVALID_ESCAPE, lx->line, lx->col, "Invalid escape sequence: backslash at end of line");
  return fail(lx, E_LEX_INVALID_ESCAPE, lx->line, lx->col, "Invalid escape sequence: \\%.*s", n,
              lx->src + start);
}

static bool lex_string(Lexer *lx, Token *t) {
  int32_t line = lx->line, col = lx->col;
  advance(lx); /* opening quote */
  StrOut so = {lx->arena, NULL, 0, 0};
  if (peekc(lx, 0) == '"' && peekc(lx, 1) == '"') {
    advance(lx);
    advance(lx);
    size_t start = lx->pos;
    for (;;) {
      int c = peekc(lx, 0);
      if (c < 0) return fail(lx, E_LEX_UNTERMINATED_STRING, line, col, "Unterminated multi-line string");
      if (c == 0) return fail(lx, E_LEX_UNEXPECTED_CHAR, lx->line, lx->col, "Unexpected character: '\\x00'");
      if (c == '"' && peekc(lx, 1) == '"' && peekc(lx, 2) == '"') break;
      advance(lx);
    }
    so_put(&so, lx->src + start, lx->pos - start);
    advance(lx);
    advance(lx);
    advance(lx);
  } else {
    for (;;) {
      int c = peekc(lx, 0);
      if (c < 0 || c == '\n') return fail(lx, E_LEX_UNTERMINATED_STRING, line, col, "Unterminated string literal");
      if (c == 0) return fail(lx, E_LEX_UNEXPECTED_CHAR, lx->line, lx->col, "Unexpected character: '\\x00'");
      if (c == '"') {
        advance(lx);
        break;
      }
      if (c == '\\') {
        if (!lex_escape(lx, &so)) return false;
        continue;
      }
      size_t start = lx->pos;
      while (lx->pos < lx->len) {
        int d = peekc(lx, 0);
        if (d == '"' || d == '\\' || d == '\n' || d == 0) break;
        advance(lx);
      }
      so_put(&so, lx->src + start, lx->pos - start);
    }
  }
  t->kind = TOK_STRING;
  t->text = so_finish(&so);
  t->len = so.len;
  return true;
}

/* f"...": text parts have escapes decoded; `{...}` parts keep their raw
 * source for the parser to lex and parse as one expression. */
static bool lex_fstring(Lexer *lx, Token *t) {
  int32_t line = lx->line, col = lx->col;
  if (peekc(lx, 1) == '"' && peekc(lx, 2) == '"' && peekc(lx, 3) == '"')
    return fail(lx, E_LEX_UNEXPECTED_CHAR, line, col, "Triple-quoted f-strings are not supported");
  advance(lx); /* f */
  /* The reference locates an f-string (token and errors) at its quote. */
  line = lx->line;
  col = lx->col;
  t->line = line;
  t->col = col;
  advance(lx); /* " */
  FStringPart *parts = NULL;
  int nparts = 0, cap = 0;
  StrOut text = {lx->arena, NULL, 0, 0};
  bool in_expr = false;
  size_t expr_start = 0;
  int32_t expr_line = 0, expr_col = 0;
#define PUSH_PART(is_e, s, n, l, c)                                              \
  do {                                                                         \
    if (lx->arena) {                                                           \
      if (nparts == cap) {                                                     \
        int nc = cap ? cap * 2 : 4;                                            \
        parts = arena_grow(lx->arena, parts, (size_t)nparts, (size_t)nc, sizeof *parts); \
        cap = nc;                                                              \
      }                                                                        \
      parts[nparts].is_expr = (is_e);                                          \
      parts[nparts].text = (s);                                                \
      parts[nparts].len = (n);                                                 \
      parts[nparts].line = (l);                                                \
      parts[nparts].col = (c);                                                 \
      nparts++;                                                                \
    }                                                                          \
  } while (0)
  for (;;) {
    int c = peekc(lx, 0);
    if (c < 0) {
      if (in_expr)
        return fail(lx, E_LEX_UNTERMINATED_STRING, expr_line, expr_col, "Unterminated f-string expression");
      return fail(lx, E_LEX_UNTERMINATED_STRING, line, col, "Unterminated f-string literal");
    }
    if (c == 0) return fail(lx, E_LEX_UNEXPECTED_CHAR, lx->line, lx->col, "Unexpected character: '\\x00'");
    if (c == '\n' && !in_expr) return fail(lx, E_LEX_UNTERMINATED_STRING, line, col, "Unterminated f-string literal");
    if (!in_expr) {
      if (c == '{') {
        if (text.len) PUSH_PART(false, so_finish(&text), text.len, 0, 0);
        text.data = NULL;
        text.len = text.cap = 0;
        advance(lx);
        in_expr = true;
        expr_start = lx->pos;
        expr_line = lx->line;
        expr_col = lx->col;
        continue;
      }
      if (c == '"') {
        advance(lx);
        break;
      }
      if (c == '\\') {
        if (!lex_escape(lx, &text)) return false;
        continue;
      }
      size_t start = lx->pos;
      advance_cp(lx);
      so_put(&text, lx->src + start, lx->pos - start);
      continue;
    }
    /* inside an interpolation */
    if (c == '}') {
      const char *raw = lx->arena ? arena_strndup(lx->arena, lx->src + expr_start, lx->pos - expr_start) : NULL;
      PUSH_PART(true, raw, lx->pos - expr_start, expr_line, expr_col);
      advance(lx);
      in_expr = false;
      continue;
    }
    if (c == '{')
      return fail(lx, E_LEX_UNEXPECTED_CHAR, lx->line, lx->col,
                  "Nested braces are not allowed in f-string expressions");
    if (c == '"')
      return fail(lx, E_LEX_UNEXPECTED_CHAR, lx->line, lx->col,
                  "String literals are not allowed inside f-string expressions");
    advance(lx);
  }
  if (text.len || nparts == 0) PUSH_PART(false, so_finish(&text), text.len, 0, 0);
#undef PUSH_PART
  t->kind = TOK_FSTRING;
  t->parts = parts;
  t->nparts = nparts;
  return true;
}

static bool lex_number(Lexer *lx, Token *t) {
  size_t start = lx->pos;
  int32_t col = lx->col;
  while (is_digit(peekc(lx, 0))) advance(lx);
  size_t int_digits = lx->pos - start;
  size_t frac_digits = 0;
  bool is_float = false;
  if (peekc(lx, 0) == '.' && is_digit(peekc(lx, 1))) {
    is_float = true;
    advance(lx);
    size_t fs = lx->pos;
    while (is_digit(peekc(lx, 0))) advance(lx);
    frac_digits = lx->pos - fs;
  }
  int next = peekc(lx, 0);
  if ((is_alpha(next) || next == '_') && lx->prev != TOK_IMPORT)
    return fail(lx, E_LEX_UNEXPECTED_CHAR, lx->line, col + (int32_t)(lx->pos - start),
                "Expected a separator between numeric literal and identifier");
  if (!is_float) {
    if (int_digits > LEX_MAX_INT_DIGITS)
      return fail(lx, E_LEX_UNEXPECTED_CHAR, lx->line, col, "Integer literal too long (max %d digits)",
                  LEX_MAX_INT_DIGITS);
    t->kind = TOK_INT;
  } else {
    if (int_digits > LEX_MAX_FLOAT_DIGITS || frac_digits > LEX_MAX_FLOAT_DIGITS)
      return fail(lx, E_LEX_UNEXPECTED_CHAR, lx->line, col,
                  "Float literal too long (max %d digits per part)", LEX_MAX_FLOAT_DIGITS);
    t->kind = TOK_FLOAT;
  }
  if (lx->arena) {
    t->text = arena_strndup(lx->arena, lx->src + start, lx->pos - start);
    t->len = lx->pos - start;
    if (is_float) t->fval = strtod(t->text, NULL);
  }
  return true;
}

/* Skip whitespace and comments. False on an unterminated block comment. */
static bool skip_trivia(Lexer *lx) {
  for (;;) {
    int c = peekc(lx, 0);
    if (c == ' ' || c == '\t' || c == '\r') {
      /* Runs of indentation are the commonest bytes of a source: one
       * column each, no line change. */
      size_t p = lx->pos + 1;
      while (p < lx->len && (lx->src[p] == ' ' || lx->src[p] == '\t' || lx->src[p] == '\r')) p++;
      lx->col += (int32_t)(p - lx->pos);
      lx->pos = p;
      continue;
    }
    if (c == '\n') {
      advance(lx);
      continue;
    }
    if (c == '/' && peekc(lx, 1) == '/') {
      /* To the end of the line; columns count code points (the end of
       * input may follow, and an error there needs its column). */
      size_t p = lx->pos;
      int32_t col = lx->col;
      while (p < lx->len && lx->src[p] != '\n' && lx->src[p] != '\0') {
        col += ((unsigned char)lx->src[p] & 0xC0) != 0x80;
        p++;
      }
      lx->pos = p;
      lx->col = col;
      if (p < lx->len && lx->src[p] == '\0')
        return fail(lx, E_LEX_UNEXPECTED_CHAR, lx->line, lx->col, "Unexpected character: '\\x00'");
      continue;
    }
    if (c == '/' && peekc(lx, 1) == '*') {
      int32_t line = lx->line, col = lx->col;
      advance(lx);
      advance(lx);
      for (;;) {
        if (lx->pos >= lx->len) return fail(lx, E_LEX_UNTERMINATED_COMMENT, line, col, "Unterminated block comment");
        if (lx->src[lx->pos] == '\0')
          return fail(lx, E_LEX_UNEXPECTED_CHAR, lx->line, lx->col, "Unexpected character: '\\x00'");
        if (lx->src[lx->pos] == '*' && peekc(lx, 1) == '/') {
          advance(lx);
          advance(lx);
          break;
        }
        advance(lx);
      }
      continue;
    }
    return true;
  }
}

/* Lex one token; false on a lexical error (recorded in lx). */
static bool lex_token(Lexer *lx, Token *t) {
  memset(t, 0, sizeof *t);
  if (!skip_trivia(lx)) return false;
  t->line = lx->line;
  t->col = lx->col;
  int c = peekc(lx, 0);
  bool ok = true;
  if (c < 0) {
    t->kind = TOK_EOF;
  } else if (c == 'f' && peekc(lx, 1) == '"') {
    ok = lex_fstring(lx, t);
  } else if (c == '"') {
    ok = lex_string(lx, t);
  } else if (is_digit(c)) {
    ok = lex_number(lx, t);
  } else if (is_alpha(c) || c == '_') {
    /* ASCII letters, digits and '_' only: one column each, no newline. */
    size_t start = lx->pos, end = start;
    while (end < lx->len && (is_alpha((unsigned char)lx->src[end]) || is_digit((unsigned char)lx->src[end]) ||
                             lx->src[end] == '_'))
      end++;
    size_t n = end - start;
    lx->pos = end;
    lx->col += (int32_t)n;
    const char *s = lx->src + start;
    TokKind kw = keyword_kind(s, n);
    if (kw != TOK_EOF) t->kind = kw;
    else if (n == 1 && s[0] == '_') t->kind = TOK_UNDERSCORE;
    else if (s[0] >= 'A' && s[0] <= 'Z') t->kind = TOK_TYPE_IDENT;
    else t->kind = TOK_IDENT;
    if (lx->names) t->text = intern(lx->names, s, n);
    t->len = n;
  } else {
    int d = peekc(lx, 1);
    TokKind k = TOK_EOF;
    int width = 2;
    if (c == '-' && d == '>') k = TOK_ARROW;
    else if (c == '|' && d == '>') k = TOK_PIPE;
    else if (c == '=' && d == '=') k = TOK_EQ;
    else if (c == '!' && d == '=') k = TOK_NEQ;
    else if (c == '*' && d == '*') k = TOK_DOUBLESTAR;
    else if (c == '<' && d == '<') k = TOK_LSHIFT;
    else if (c == '<' && d == '=') k = TOK_LTE;
    else if (c == '>' && d == '>') k = TOK_RSHIFT;
    else if (c == '>' && d == '=') k = TOK_GTE;
    else {
      width = 1;
      switch (c) {
      case '+': k = TOK_PLUS; break;
      case '-': k = TOK_MINUS; break;
      case '*': k = TOK_STAR; break;
      case '/': k = TOK_SLASH; break;
      case '%': k = TOK_PERCENT; break;
      case '<': k = TOK_LT; break;
      case '>': k = TOK_GT; break;
      case '=': k = TOK_ASSIGN; break;
      case '|': k = TOK_BAR; break;
      case '&': k = TOK_AMPERSAND; break;
      case '^': k = TOK_CARET; break;
      case '~': k = TOK_TILDE; break;
      case '(': k = TOK_LPAREN; break;
      case ')': k = TOK_RPAREN; break;
      case '[': k = TOK_LBRACKET; break;
      case ']': k = TOK_RBRACKET; break;
      case '{': k = TOK_LBRACE; break;
      case '}': k = TOK_RBRACE; break;
      case ',': k = TOK_COMMA; break;
      case ':': k = TOK_COLON; break;
      case ';': k = TOK_SEMICOLON; break;
      case '.': k = TOK_DOT; break;
      case '?': k = TOK_QUESTION; break;
      case '@': k = TOK_AT; break;
      default: break;
      }
    }
    if (k == TOK_EOF) {
      char desc[48];
      describe_char(lx, desc, sizeof desc);
      int32_t cp;
      if (c >= 0x80 && !utf8_decode((const unsigned char *)lx->src + lx->pos, lx->len - lx->pos, &cp))
        return fail(lx, E_LEX_UNEXPECTED_CHAR, lx->line, lx->col,
                    "Invalid UTF-8: unexpected byte 0x%02x (source must be UTF-8)", c);
      return fail(lx, E_LEX_UNEXPECTED_CHAR, lx->line, lx->col, "Unexpected character: %s", desc);
    }
    for (int i = 0; i < width; i++) advance(lx);
    t->kind = k;
  }
  if (!ok) return false;
  t->end_line = lx->line;
  t->end_col = lx->col;
  lx->prev = t->kind;
  return true;
}

bool lex_scan(Lexer *lx, DiagList *diags) {
  /* Invalid UTF-8 anywhere (also inside strings and comments) is reported
   * at its position before anything else. */
  size_t bad;
  if (!utf8_valid(lx->src, lx->len, &bad)) {
    Lexer at = *lx;
    while (at.pos < bad) advance(&at);
    fail(lx, E_LEX_UNEXPECTED_CHAR, at.line, at.col,
         "Invalid UTF-8: unexpected byte 0x%02x (source must be UTF-8)",
         (unsigned char)lx->src[bad]);
  } else {
    Token t;
    do {
      if (!lex_token(lx, &t)) break;
    } while (t.kind != TOK_EOF);
  }
  if (lx->failed && diags) {
    Span sp = {lx->file, lx->err_line, lx->err_col, lx->err_line, lx->err_col + 1};
    diag_add(diags, lx->err_code, &sp, "%s", lx->err_msg);
  }
  return !lx->failed;
}

void lex_next(Lexer *lx, Token *out) {
  if (lx->failed || !lex_token(lx, out)) {
    memset(out, 0, sizeof *out);
    out->kind = TOK_EOF;
    out->line = out->end_line = lx->line;
    out->col = out->end_col = lx->col;
  }
}
