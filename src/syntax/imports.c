/* The imports of a source found without lexing it into tokens (see
 * lex_imports in lexer.h).
 *
 * A host asks for the imports of every file before it checks or runs the
 * program, so this is on the path of every `geno check` and `geno run`:
 * it walks the bytes once, understanding only what decides where tokens
 * start (blanks, comments, string and f-string literals, numbers, names),
 * and skips the rest of the lexer's work (token records, columns, decoded
 * values, interning).
 *
 * It must agree with the lexer exactly: same verdict (lexically valid or
 * not) and the same `import` keywords. Every rule below is the lexer's
 * (lexer.c), restated for a verdict instead of a message:
 * - the lexer reports invalid UTF-8 and any NUL byte wherever they are
 *   (in code, a comment or a literal), so both are checked first and the
 *   walk can ignore them;
 * - the parser normalises line ends before lexing (CR LF and a lone CR
 *   become LF; copy_source in parser.c). The walk reads the text as it is
 *   and treats a CR as a line end wherever a line end matters: it ends a
 *   `//` comment, and is an error in a "..." literal, in an f-string's text
 *   or after a backslash. Elsewhere (blanks, block comments, triple-quoted
 *   strings, f-string interpolations) one line end or two makes no
 *   difference to the verdict;
 * - two-character operators are made of characters that are operators
 *   alone (except `!=`), and none has a `/` or `"` second, so stepping
 *   over operators one byte at a time finds the same token starts. */
#include "lexer.h"

#include "../base/utf8.h"

/* What a byte can start, outside literals and comments. */
enum {
  S_BAD = 0, /* no token starts with it: a lexical error */
  S_BLANK,   /* ' ', '\t', '\r', '\n' */
  S_NAME,    /* ASCII letter or '_' */
  S_F,       /* 'f': an f-string when a '"' follows, else a name */
  S_DIGIT,
  S_OP,      /* a one-character operator or delimiter */
  S_SLASH,   /* '/': a comment or an operator */
  S_QUOTE,   /* '"' */
  S_BANG,    /* '!': only in `!=` */
};

static const uint8_t start_class[256] = {
    [' '] = S_BLANK, ['\t'] = S_BLANK, ['\r'] = S_BLANK, ['\n'] = S_BLANK,
    ['_'] = S_NAME,
#define L(c) [c] = S_NAME, [c - 'a' + 'A'] = S_NAME
    L('a'), L('b'), L('c'), L('d'), L('e'), L('g'), L('h'), L('i'), L('j'), L('k'), L('l'), L('m'),
    L('n'), L('o'), L('p'), L('q'), L('r'), L('s'), L('t'), L('u'), L('v'), L('w'), L('x'), L('y'), L('z'),
#undef L
    ['f'] = S_F, ['F'] = S_NAME,
    ['0'] = S_DIGIT, ['1'] = S_DIGIT, ['2'] = S_DIGIT, ['3'] = S_DIGIT, ['4'] = S_DIGIT,
    ['5'] = S_DIGIT, ['6'] = S_DIGIT, ['7'] = S_DIGIT, ['8'] = S_DIGIT, ['9'] = S_DIGIT,
    ['+'] = S_OP, ['-'] = S_OP, ['*'] = S_OP, ['%'] = S_OP, ['<'] = S_OP, ['>'] = S_OP,
    ['='] = S_OP, ['|'] = S_OP, ['&'] = S_OP, ['^'] = S_OP, ['~'] = S_OP, ['('] = S_OP,
    [')'] = S_OP, ['['] = S_OP, [']'] = S_OP, ['{'] = S_OP, ['}'] = S_OP, [','] = S_OP,
    [':'] = S_OP, [';'] = S_OP, ['.'] = S_OP, ['?'] = S_OP, ['@'] = S_OP,
    ['/'] = S_SLASH, ['"'] = S_QUOTE, ['!'] = S_BANG,
};

/* Bytes that continue a name: ASCII letters, digits, '_'. */
static const uint8_t name_byte[256] = {
    ['_'] = 1,
    ['0'] = 1, ['1'] = 1, ['2'] = 1, ['3'] = 1, ['4'] = 1, ['5'] = 1, ['6'] = 1, ['7'] = 1, ['8'] = 1, ['9'] = 1,
#define L(c) [c] = 1, [c - 'a' + 'A'] = 1
    L('a'), L('b'), L('c'), L('d'), L('e'), L('f'), L('g'), L('h'), L('i'), L('j'), L('k'), L('l'), L('m'),
    L('n'), L('o'), L('p'), L('q'), L('r'), L('s'), L('t'), L('u'), L('v'), L('w'), L('x'), L('y'), L('z'),
#undef L
};

/* Bytes that stop the plain run inside a "..." literal. */
static const uint8_t string_stop[256] = {['"'] = 1, ['\\'] = 1, ['\n'] = 1, ['\r'] = 1};

typedef const unsigned char *Pos;

static bool is_digit(unsigned c) { return c - '0' < 10; }
static bool is_alpha(unsigned c) { return (c | 0x20) - 'a' < 26; }

/* After a backslash at p: past a valid escape (\n \t \r \\ \"), or NULL. */
static Pos escape_end(Pos p, Pos end) {
  if (p + 1 >= end) return NULL;
  switch (p[1]) {
  case 'n': case 't': case 'r': case '\\': case '"': return p + 2;
  default: return NULL;
  }
}

/* From just after `//`: the line end that ends the comment (or end). */
static Pos line_comment_end(Pos p, Pos end) {
  Pos nl = memchr(p, '\n', (size_t)(end - p));
  if (!nl) nl = end;
  Pos cr = memchr(p, '\r', (size_t)(nl - p));
  return cr ? cr : nl;
}

/* From just after the opening delimiter: past the first `*` `/`, or NULL
 * (unterminated). */
static Pos block_comment_end(Pos p, Pos end) {
  for (;;) {
    Pos star = memchr(p, '*', (size_t)(end - p));
    if (!star || star + 1 >= end) return NULL;
    if (star[1] == '/') return star + 2;
    p = star + 1;
  }
}

/* From the opening quote: past the literal, or NULL on a lexical error. */
static Pos string_end(Pos p, Pos end) {
  if (p + 2 < end && p[1] == '"' && p[2] == '"') {
    /* """...""": raw up to the first three quotes */
    for (p += 3;;) {
      Pos q = memchr(p, '"', (size_t)(end - p));
      if (!q || q + 2 >= end) return NULL;
      if (q[1] == '"' && q[2] == '"') return q + 3;
      p = q + 1;
    }
  }
  for (p++;;) {
    while (p < end && !string_stop[*p]) p++;
    if (p >= end) return NULL;
    if (*p == '"') return p + 1;
    if (*p != '\\') return NULL; /* a line end */
    if (!(p = escape_end(p, end))) return NULL;
  }
}

/* From the `f` of f"...": past the literal, or NULL on a lexical error. */
static Pos fstring_end(Pos p, Pos end) {
  if (p + 3 < end && p[2] == '"' && p[3] == '"') return NULL; /* f"""...""" */
  for (p += 2;;) {
    /* text: escapes as in "...", no line end, `{` opens an interpolation */
    for (;;) {
      if (p >= end) return NULL;
      unsigned c = *p;
      if (c == '"') return p + 1;
      if (c == '{') break;
      if (c == '\n' || c == '\r') return NULL;
      if (c == '\\') {
        if (!(p = escape_end(p, end))) return NULL;
      } else {
        p++;
      }
    }
    /* interpolation: raw up to `}`, no `{` or `"` (line ends allowed) */
    for (p++;; p++) {
      if (p >= end) return NULL;
      if (*p == '}') break;
      if (*p == '{' || *p == '"') return NULL;
    }
    p++;
  }
}

typedef void (*FoundFn)(void *ud, const char *name, size_t n);

/* The walk over code (lex_imports). With `guarded`, the text's last byte
 * continues no name (true of almost every file: it ends with a line end),
 * so a run of name bytes or digits that starts inside the text stops
 * inside it and those loops skip the bounds check. Always inlined into
 * its two callers below, which get a copy each. */
static inline GENO_ALWAYS_INLINE bool walk(Pos p, Pos end, bool guarded, FoundFn found, void *ud) {
  bool after_import = false; /* the previous token is the keyword `import` */
  while (p < end) {
    switch (start_class[*p]) {
    case S_NAME:
    name: {
      Pos s = p++;
      if (guarded) {
        while (name_byte[*p]) p++;
      } else {
        while (p < end && name_byte[*p]) p++;
      }
      size_t n = (size_t)(p - s);
      /* the token after `import` names a module when it is a type name */
      if (after_import && *s >= 'A' && *s <= 'Z') found(ud, (const char *)s, n);
      after_import = n == 6 && memcmp(s, "import", 6) == 0;
      continue;
    }
    case S_BLANK:
      do p++;
      while (p < end && start_class[*p] == S_BLANK);
      continue;
    case S_OP:
      p++;
      break;
    case S_SLASH:
      if (p + 1 < end && p[1] == '/') {
        p = line_comment_end(p + 2, end);
        continue;
      }
      if (p + 1 < end && p[1] == '*') {
        if (!(p = block_comment_end(p + 2, end))) return false;
        continue;
      }
      p++;
      break;
    case S_BANG:
      if (p + 1 >= end || p[1] != '=') return false;
      p += 2;
      break;
    case S_QUOTE:
      if (!(p = string_end(p, end))) return false;
      break;
    case S_F: /* f"..." or a name */
      if (!(p + 1 < end && p[1] == '"')) goto name;
      if (!(p = fstring_end(p, end))) return false;
      break;
    case S_DIGIT: {
      Pos s = p;
      if (guarded) {
        while (is_digit(*p)) p++;
      } else {
        while (p < end && is_digit(*p)) p++;
      }
      size_t int_digits = (size_t)(p - s), frac_digits = 0;
      bool is_float = false;
      if (p + 1 < end && *p == '.' && is_digit(p[1])) {
        is_float = true;
        Pos f = ++p;
        if (guarded) {
          while (is_digit(*p)) p++;
        } else {
          while (p < end && is_digit(*p)) p++;
        }
        frac_digits = (size_t)(p - f);
      }
      /* a letter may touch a number only right after `import` (the
       * parser reports that one) */
      if (p < end && (is_alpha(*p) || *p == '_') && !after_import) return false;
      if (is_float ? int_digits > LEX_MAX_FLOAT_DIGITS || frac_digits > LEX_MAX_FLOAT_DIGITS
                   : int_digits > LEX_MAX_INT_DIGITS)
        return false;
      break;
    }
    default:
      return false;
    }
    after_import = false;
  }
  return true;
}

bool lex_imports(const char *src, size_t len, FoundFn found, void *ud) {
  if (!utf8_valid(src, len, NULL) || memchr(src, '\0', len)) return false;
  Pos p = (Pos)src, end = p + len;
  if (len > 0 && !name_byte[end[-1]]) return walk(p, end, true, found, ud);
  return walk(p, end, false, found, ud);
}
