/* Lexer: source text -> tokens, on demand (the parser pulls one token at
 * a time, so a 10 MB input never exists as 10 MB of tokens).
 *
 * A module is lexed twice: lex_scan() first walks the whole text without
 * storing anything and reports the first lexical error, if any (the
 * reference reports exactly one lexer error and then no parse errors, so a
 * lexer error must be known before parsing starts); then the parser pulls
 * tokens with lex_next() knowing none will fail. */
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

/* Prepare to lex src[0..len) starting at (line, col). arena/names may be
 * NULL for lex_scan. */
void lex_init(Lexer *lx, const char *src, size_t len, const char *file,
              int32_t line, int32_t col, Arena *arena, Interner *names);
/* Walk all of the input; true if it is lexically valid, else false with the
 * first error in lx->err_* (also appended to diags when non-NULL). */
bool lex_scan(Lexer *lx, DiagList *diags);
/* Produce the next token (EOF at the end, repeatedly). Must only be called
 * on input that lex_scan accepted; on an unexpected error it yields EOF. */
void lex_next(Lexer *lx, Token *out);

#endif
