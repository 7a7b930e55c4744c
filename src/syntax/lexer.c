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

/* With an interner, keywords are found by the lookup that interns every
 * identifier anyway: each keyword's name carries its TokKind as its tag
 * (set once per table), every other name tag 0. */
static void tag_keywords(Interner *names) {
  for (size_t i = 0; i < ARRAY_LEN(keywords); i++)
    intern_set_tag(names, keywords[i], strlen(keywords[i]), (uint8_t)(TOK_FIRST_KEYWORD + i));
  names->keyword_tags = true;
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
  GENO_ASSERT(src[len] == '\0');
  if (names && !names->keyword_tags) tag_keywords(names);
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

/* Byte classes for the loops that run on every byte (identifiers and
 * blanks): one table load instead of a chain of range tests. */
enum {
  CL_IDENT = 1, /* ASCII letter, digit or '_': continues a name */
  CL_BLANK = 2, /* ' ', '\t', '\r' */
  CL_START = 4, /* ASCII letter or '_': starts a name (or f"...") */
  CL_DIGIT = 8, /* starts a number */
};
#define CL_D (CL_IDENT | CL_DIGIT)
#define CL_L (CL_IDENT | CL_START)
static const uint8_t byte_class[256] = {
    [' '] = CL_BLANK, ['\t'] = CL_BLANK, ['\r'] = CL_BLANK, ['_'] = CL_L,
    ['0'] = CL_D, ['1'] = CL_D, ['2'] = CL_D, ['3'] = CL_D, ['4'] = CL_D,
    ['5'] = CL_D, ['6'] = CL_D, ['7'] = CL_D, ['8'] = CL_D, ['9'] = CL_D,
#define L(c) [c] = CL_L, [c - 'a' + 'A'] = CL_L
    L('a'), L('b'), L('c'), L('d'), L('e'), L('f'), L('g'), L('h'), L('i'), L('j'), L('k'), L('l'), L('m'),
    L('n'), L('o'), L('p'), L('q'), L('r'), L('s'), L('t'), L('u'), L('v'), L('w'), L('x'), L('y'), L('z'),
#undef L
};

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

static GENO_NOINLINE bool lex_string(Lexer *lx, Token *t) {
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
static GENO_NOINLINE bool lex_fstring(Lexer *lx, Token *t) {
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

static GENO_NOINLINE bool lex_number(Lexer *lx, Token *t) {
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

/* Skip a block comment starting at the current position. False when it is
 * unterminated or holds a NUL. */
static GENO_NOINLINE bool block_comment(Lexer *lx) {
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
      return true;
    }
    advance(lx);
  }
}

/* Skip whitespace and comments. False on an unterminated block comment.
 * The text ends with a NUL (lex_init), which stops every loop here. */
static bool skip_trivia(Lexer *lx) {
  const unsigned char *s = (const unsigned char *)lx->src;
  size_t p = lx->pos;
  int32_t col = lx->col;
  for (;;) {
    unsigned c = s[p];
    if (byte_class[c] & CL_BLANK) {
      /* Runs of indentation are the commonest bytes of a source: one
       * column each, no line change. */
      size_t q = p + 1;
      while (byte_class[s[q]] & CL_BLANK) q++;
      col += (int32_t)(q - p);
      p = q;
      continue;
    }
    if (c == '\n') {
      p++;
      lx->line++;
      col = 1;
      continue;
    }
    if (c == '/' && s[p + 1] == '/') {
      /* To the end of the line; columns count code points (the end of
       * input may follow, and an error there needs its column). */
      while (s[p] != '\n' && s[p] != '\0') {
        col += (s[p] & 0xC0) != 0x80;
        p++;
      }
      if (s[p] == '\0' && p < lx->len) { /* a NUL inside the text */
        lx->pos = p;
        lx->col = col;
        return fail(lx, E_LEX_UNEXPECTED_CHAR, lx->line, lx->col, "Unexpected character: '\\x00'");
      }
      continue;
    }
    if (c == '/' && s[p + 1] == '*') {
      lx->pos = p;
      lx->col = col;
      if (!block_comment(lx)) return false;
      p = lx->pos;
      col = lx->col;
      continue;
    }
    lx->pos = p;
    lx->col = col;
    return true;
  }
}

/* One-character operators and delimiters (TOK_EOF: none). */
static const uint8_t single_op[256] = {
    ['+'] = TOK_PLUS,     ['-'] = TOK_MINUS,    ['*'] = TOK_STAR,     ['/'] = TOK_SLASH,
    ['%'] = TOK_PERCENT,  ['<'] = TOK_LT,       ['>'] = TOK_GT,       ['='] = TOK_ASSIGN,
    ['|'] = TOK_BAR,      ['&'] = TOK_AMPERSAND, ['^'] = TOK_CARET,   ['~'] = TOK_TILDE,
    ['('] = TOK_LPAREN,   [')'] = TOK_RPAREN,   ['['] = TOK_LBRACKET, [']'] = TOK_RBRACKET,
    ['{'] = TOK_LBRACE,   ['}'] = TOK_RBRACE,   [','] = TOK_COMMA,    [':'] = TOK_COLON,
    [';'] = TOK_SEMICOLON, ['.'] = TOK_DOT,     ['?'] = TOK_QUESTION, ['@'] = TOK_AT,
};
_Static_assert(TOK__COUNT <= 256, "single_op holds token kinds in bytes");

/* The character at the current position starts no token. */
static GENO_NOINLINE bool bad_char(Lexer *lx) {
  int c = (unsigned char)lx->src[lx->pos];
  char desc[48];
  describe_char(lx, desc, sizeof desc);
  int32_t cp;
  if (c >= 0x80 && !utf8_decode((const unsigned char *)lx->src + lx->pos, lx->len - lx->pos, &cp))
    return fail(lx, E_LEX_UNEXPECTED_CHAR, lx->line, lx->col,
                "Invalid UTF-8: unexpected byte 0x%02x (source must be UTF-8)", c);
  return fail(lx, E_LEX_UNEXPECTED_CHAR, lx->line, lx->col, "Unexpected character: %s", desc);
}

/* Lex one token; false on a lexical error (recorded in lx). Sets the
 * fields every token has, and those of its kind: fval for FLOAT, parts and
 * nparts for FSTRING (the others keep what they held). */
static inline GENO_ALWAYS_INLINE bool lex_token(Lexer *lx, Token *t) {
  if (!skip_trivia(lx)) return false;
  const char *src = lx->src;
  size_t pos = lx->pos;
  unsigned c = (unsigned char)src[pos];
  t->line = lx->line;
  t->col = lx->col;
  t->text = NULL;
  t->len = 0;
  unsigned cl = byte_class[c];
  if (cl & CL_START && !(c == 'f' && src[pos + 1] == '"')) {
    /* ASCII letters, digits and '_' only: one column each, no newline. */
    size_t end = pos + 1;
    while (byte_class[(unsigned char)src[end]] & CL_IDENT) end++;
    size_t n = end - pos;
    lx->pos = end;
    lx->col += (int32_t)n;
    const char *s = src + pos;
    TokKind k;
    if (lx->names) {
      t->text = intern(lx->names, s, n);
      k = (TokKind)intern_tag(t->text, n); /* a keyword's kind, else TOK_EOF */
    } else {
      k = keyword_kind(s, n);
    }
    if (k == TOK_EOF) k = n == 1 && c == '_' ? TOK_UNDERSCORE : c - 'A' < 26 ? TOK_TYPE_IDENT : TOK_IDENT;
    t->kind = k;
    t->len = n;
  } else if (cl & (CL_START | CL_DIGIT) || c == '"') {
    bool ok = c == '"' ? lex_string(lx, t) : cl & CL_DIGIT ? lex_number(lx, t) : lex_fstring(lx, t);
    if (!ok) return false;
  } else {
    TokKind k = (TokKind)single_op[c];
    int width = 1;
    if (GENO_LIKELY(k != TOK_EOF)) {
      unsigned d = (unsigned char)src[pos + 1]; /* c is no NUL: pos < len */
      switch (c) {
      case '-': if (d == '>') k = TOK_ARROW, width = 2; break;
      case '|': if (d == '>') k = TOK_PIPE, width = 2; break;
      case '=': if (d == '=') k = TOK_EQ, width = 2; break;
      case '*': if (d == '*') k = TOK_DOUBLESTAR, width = 2; break;
      case '<': if (d == '<') k = TOK_LSHIFT, width = 2; else if (d == '=') k = TOK_LTE, width = 2; break;
      case '>': if (d == '>') k = TOK_RSHIFT, width = 2; else if (d == '=') k = TOK_GTE, width = 2; break;
      default: break;
      }
    } else if (c == '!' && src[pos + 1] == '=') {
      k = TOK_NEQ;
      width = 2;
    } else if (c == 0 && pos >= lx->len) {
      width = 0; /* TOK_EOF */
    } else {
      return bad_char(lx);
    }
    lx->pos = pos + (size_t)width; /* ASCII, no newline: one column each */
    lx->col += width;
    t->kind = k;
  }
  t->end_line = lx->line;
  t->end_col = lx->col;
  lx->prev = t->kind;
  return true;
}

/* Invalid UTF-8 anywhere (also inside strings and comments) is reported
 * at its position before anything else. */
static bool check_utf8(Lexer *lx) {
  size_t bad;
  if (utf8_valid(lx->src, lx->len, &bad)) return true;
  Lexer at = *lx;
  while (at.pos < bad) advance(&at);
  fail(lx, E_LEX_UNEXPECTED_CHAR, at.line, at.col, "Invalid UTF-8: unexpected byte 0x%02x (source must be UTF-8)",
       (unsigned char)lx->src[bad]);
  return false;
}

static bool report(Lexer *lx, DiagList *diags) {
  if (lx->failed && diags) {
    Span sp = {lx->file, lx->err_line, lx->err_col, lx->err_line, lx->err_col + 1};
    diag_add(diags, lx->err_code, &sp, "%s", lx->err_msg);
  }
  return !lx->failed;
}

bool lex_scan(Lexer *lx, DiagList *diags) {
  if (check_utf8(lx)) {
    Token t;
    do lex_next(lx, &t); /* EOF after an error */
    while (t.kind != TOK_EOF);
  }
  return report(lx, diags);
}

bool lex_start(Lexer *lx, DiagList *diags) { return check_utf8(lx) || report(lx, diags); }

bool lex_finish(Lexer *lx, DiagList *diags) {
  /* the rest needs no names or string values */
  lx->arena = NULL;
  lx->names = NULL;
  Token t;
  while (!lx->failed) {
    lex_next(lx, &t);
    if (t.kind == TOK_EOF) break;
  }
  return report(lx, diags);
}

void lex_next(Lexer *lx, Token *out) {
  if (lx->failed || !lex_token(lx, out)) {
    memset(out, 0, sizeof *out);
    out->kind = TOK_EOF;
    out->line = out->end_line = lx->line;
    out->col = out->end_col = lx->col;
  }
}
