/* Tokens of Geno 0.4 (spec section 2), produced by the lexer.
 *
 * ORDER TOK: the X-macro below is the single list of token kinds; the enum
 * and the display names used in diagnostics ("Expected ')', got 'end'") are
 * generated from it. Keywords are listed together so the lexer can look them
 * up by text. */
#ifndef GENO_SYNTAX_TOKEN_H
#define GENO_SYNTAX_TOKEN_H

#include "../base/common.h"

/* X(kind, display name used in parse errors) */
#define TOKEN_LIST(X)                       \
  X(EOF, "end of file")                     \
  X(INT, "integer")                         \
  X(FLOAT, "float")                         \
  X(STRING, "string")                       \
  X(FSTRING, "f-string")                    \
  X(IDENT, "identifier")                    \
  X(TYPE_IDENT, "type name")                \
  /* keywords: KEYWORD_LIST order */        \
  X(AND, "'and'")                           \
  X(ASSERT, "'assert'")                     \
  X(ASYNC, "'async'")                       \
  X(AWAIT, "'await'")                       \
  X(BREAK, "'break'")                       \
  X(CATCH, "'catch'")                       \
  X(CONTINUE, "'continue'")                 \
  X(DO, "'do'")                             \
  X(ELSE, "'else'")                         \
  X(END, "'end'")                           \
  X(ENSURES, "'ensures'")                   \
  X(EXAMPLE, "'example'")                   \
  X(EXPORT, "'export'")                     \
  X(FALSE, "'false'")                       \
  X(FN, "'fn'")                             \
  X(FOR, "'for'")                           \
  X(FUNC, "'func'")                         \
  X(IF, "'if'")                             \
  X(IMPL, "'impl'")                         \
  X(IMPORT, "'import'")                     \
  X(IN, "'in'")                             \
  X(LET, "'let'")                           \
  X(MATCH, "'match'")                       \
  X(NOT, "'not'")                           \
  X(OR, "'or'")                             \
  X(REF, "'ref'")                           \
  X(REQUIRES, "'requires'")                 \
  X(RETURN, "'return'")                     \
  X(TEST, "'test'")                         \
  X(THEN, "'then'")                         \
  X(THROW, "'throw'")                       \
  X(TRAIT, "'trait'")                       \
  X(TRUE, "'true'")                         \
  X(TRY, "'try'")                           \
  X(TYPE, "'type'")                         \
  X(VAR, "'var'")                           \
  X(WHERE, "'where'")                       \
  X(WHILE, "'while'")                       \
  X(WITH, "'with'")                         \
  /* operators and delimiters */            \
  X(PLUS, "'+'")                            \
  X(MINUS, "'-'")                           \
  X(STAR, "'*'")                            \
  X(SLASH, "'/'")                           \
  X(PERCENT, "'%'")                         \
  X(EQ, "'=='")                             \
  X(NEQ, "'!='")                            \
  X(LT, "'<'")                              \
  X(GT, "'>'")                              \
  X(LTE, "'<='")                            \
  X(GTE, "'>='")                            \
  X(ASSIGN, "'='")                          \
  X(ARROW, "'->'")                          \
  X(PIPE, "'|>'")                           \
  X(BAR, "'|'")                             \
  X(DOUBLESTAR, "'**'")                     \
  X(AMPERSAND, "'&'")                       \
  X(CARET, "'^'")                           \
  X(TILDE, "'~'")                           \
  X(LSHIFT, "'<<'")                         \
  X(RSHIFT, "'>>'")                         \
  X(LPAREN, "'('")                          \
  X(RPAREN, "')'")                          \
  X(LBRACKET, "'['")                        \
  X(RBRACKET, "']'")                        \
  X(LBRACE, "'{'")                          \
  X(RBRACE, "'}'")                          \
  X(COMMA, "','")                           \
  X(COLON, "':'")                           \
  X(SEMICOLON, "';'")                       \
  X(DOT, "'.'")                             \
  X(UNDERSCORE, "'_'")                      \
  X(QUESTION, "'?'")                        \
  X(AT, "'@'")

typedef enum TokKind {
#define TOK_ENUM(k, s) TOK_##k,
  TOKEN_LIST(TOK_ENUM)
#undef TOK_ENUM
  TOK__COUNT
} TokKind;

#define TOK_FIRST_KEYWORD TOK_AND
#define TOK_LAST_KEYWORD TOK_WITH

/* One interpolation of an f-string: its raw source text (escapes are not
 * processed inside `{}`) and where that text starts in the file. */
typedef struct FStringPart {
  bool is_expr;
  const char *text; /* decoded text part, or raw expression source */
  size_t len;
  int32_t line, col; /* start of an expression part */
} FStringPart;

typedef struct Token {
  TokKind kind;
  int32_t line, col;         /* start, 1-based, columns in code points */
  int32_t end_line, end_col; /* one past the last character */
  const char *text;          /* IDENT/TYPE_IDENT/keyword: interned name;
                                STRING: decoded value; INT: decimal digits */
  size_t len;                /* bytes in text */
  double fval;               /* FLOAT value (correctly rounded) */
  FStringPart *parts;        /* FSTRING parts */
  int nparts;
} Token;

/* Display name of a token kind for parse errors: "'end'", "identifier". */
const char *tok_name(TokKind k);

#endif
