/* Lexer: source text -> tokens, on demand (the parser pulls one token at
 * a time, so a 10 MB input never exists as 10 MB of tokens).
 *
 * The reference reports exactly one lexer error and then no parse errors.
 * A small module is lexed once: the parser pulls tokens with lex_next()
 * (after lex_start) and parses optimistically; lex_finish() then lexes
 * whatever the parser left and tells whether a lexical error came up, in
 * which case parse_module discards the parse (its diagnostics and
 * declarations) and reports only that error. A large module is lexed
 * twice, so that a parse of input that turns out to be invalid can never
 * cost much: lex_scan() first walks the whole text without storing
 * anything and reports the first lexical error, if any, then the parser
 * pulls tokens knowing none will fail. */
#ifndef GENO_SYNTAX_LEXER_H
#define GENO_SYNTAX_LEXER_H

#include "../base/arena.h"
#include "../base/diag.h"
#include "../base/intern.h"
#include "token.h"

/* Limits on literals, as in the reference lexer. */
#define LEX_MAX_INT_DIGITS 1000   /* digits of an integer literal */
#define LEX_MAX_FLOAT_DIGITS 1000 /* digits on each side of the '.' */

typedef struct Lexer {
  const char *src;  /* borrowed source text */
  size_t len;       /* bytes */
  size_t pos;       /* byte offset of the next character */
  int32_t line, col;
  const char *file; /* file name for spans (borrowed) */
  Arena *arena;     /* decoded strings and f-string parts (NULL in scan mode) */
  Interner *names;  /* identifier interning (NULL in scan mode) */
  TokKind prev;     /* kind of the previous token (number-after-import rule) */
  /* first error found by lex_scan */
  bool failed;
  int err_code;
  int32_t err_line, err_col;
  char err_msg[160];
} Lexer;

/* Prepare to lex src[0..len) starting at (line, col). src[len] must be a
 * NUL (the loops that run on every byte stop there instead of checking
 * the length; a NUL inside the text is still an error). arena/names may
 * be NULL for lex_scan. */
void lex_init(Lexer *lx, const char *src, size_t len, const char *file,
              int32_t line, int32_t col, Arena *arena, Interner *names);
/* Walk all of the input; true if it is lexically valid, else false with the
 * first error in lx->err_* (also appended to diags when non-NULL). */
bool lex_scan(Lexer *lx, DiagList *diags);
/* Sources up to this size are lexed in one pass (parse_module): at most
 * 256 KB of input is parsed in vain when it turns out to have a lexical
 * error. */
#define LEX_ONE_PASS_MAX_SOURCE (256 * 1024)
/* One-pass lexing: lex_start checks what must be reported before any
 * token (invalid UTF-8: false, reported to diags as lex_scan does); then
 * lex_next as usual; lex_finish lexes the rest of the input in scan mode
 * and returns false with the first lexical error (reported to diags) if
 * there was one, including one lex_next met (it yielded EOF there). */
bool lex_start(Lexer *lx, DiagList *diags);
bool lex_finish(Lexer *lx, DiagList *diags);
/* Produce the next token (EOF at the end, repeatedly). On a lexical error
 * it yields EOF (the error stays in lx for lex_finish). */
void lex_next(Lexer *lx, Token *out);

/* The module names of the `import` declarations in src[0..len) -- each
 * type-name token right after an `import` keyword, in order -- passed to
 * found(ud, name, length) (name points into src). src's line ends may be
 * LF, CR LF or lone CRs, as parse_module accepts them. Returns false
 * exactly when the lexer would report a lexical error (E100-E103) in the
 * text; found may have been called before such an error was seen. One
 * pass over the bytes, without tokens (imports.c). */
bool lex_imports(const char *src, size_t len, void (*found)(void *ud, const char *name, size_t n), void *ud);

#endif
