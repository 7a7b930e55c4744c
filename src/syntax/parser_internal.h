/* Parser state shared by parser.c (declarations, types, patterns),
 * parse_stmt.c and parse_expr.c. Not used outside src/syntax. */
#ifndef GENO_SYNTAX_PARSER_INTERNAL_H
#define GENO_SYNTAX_PARSER_INTERNAL_H

#include <setjmp.h>

#include "lexer.h"
#include "parser.h"

#define PARSE_LOOKAHEAD 3 /* the grammar needs at most 3 tokens (`...`) */
#define PARSE_RING 4      /* PARSE_LOOKAHEAD + 1, a power of two */

/* After this many errors in one module the parser stops: the diagnostic
 * list keeps no more than 1000 entries anyway (DIAG_DEFAULT_LIMIT), and
 * each failed declaration leaves its partial nodes in the arena, so an
 * error storm (10 MB of `func func func ...`) would otherwise cost time
 * and memory for diagnostics nobody sees. */
#define PARSE_MAX_ERRORS 1000

typedef struct Parser {
  Program *prog;
  Arena *arena;
  Interner *names;
  DiagList *diags;
  const char *file;
  Lexer lx;
  /* Lookahead: a ring of tokens lexed but not consumed, the current one
   * at la[head]; nla of them are filled. A token p_advance consumed stays
   * in its slot until the next p_advance (the ring has one slot more
   * than the grammar's lookahead), so p_advance returns it in place. */
  Token la[PARSE_RING];
  int head, nla;
  int decl_cap;              /* capacity of the module's decls array */
  int depth;                 /* nesting depth, bounded by PARSE_MAX_DEPTH */
  int nodes;                 /* Expr and Stmt nodes made so far (f-string
                                interpolations' included) */
  int decl_nodes;            /* nodes when the current declaration began */
  jmp_buf *on_error;         /* a raised parse error jumps here */
  bool any_error;
  int nerrors;               /* errors recorded, bounded by PARSE_MAX_ERRORS */
  bool gave_up;              /* PARSE_MAX_ERRORS reached: stop parsing */
  Span last_err;             /* for dropping duplicate errors at one place */
  /* An f-string sub-parser does not record errors itself: it leaves the
   * error here for the enclosing parser to re-raise. */
  bool is_sub;
  struct Parser *sub;        /* the sub-parser of interpolations, reused */
  int sub_code;
  Span sub_span;
  char sub_msg[256];
  /* names used by the parser itself */
  const char *n_when, *n_as, *n_untested, *n_tuple, *n_none;
} Parser;

/* token access: inline, as the parser asks for the current token's kind
 * several times per token */
const Token *p_pulled(Parser *P, int k); /* token k ahead, lexing it first if needed */
static inline const Token *p_peek(Parser *P, int k) {
  return k < P->nla ? &P->la[(P->head + k) & (PARSE_RING - 1)] : p_pulled(P, k);
}
static inline const Token *p_cur(Parser *P) { return P->nla ? &P->la[P->head] : p_pulled(P, 0); }
static inline TokKind p_kind(Parser *P) { return p_cur(P)->kind; }
static inline TokKind p_peek_kind(Parser *P, int k) { return p_peek(P, k)->kind; }
static inline bool p_check(Parser *P, TokKind k) { return p_kind(P) == k; }
/* Consume the current token (not the end of input, which stays current)
 * and return it: valid until the next p_advance, p_match or p_expect.
 * Inline: it runs once per token. */
static inline const Token *p_advance(Parser *P) {
  const Token *t = p_cur(P);
  if (t->kind != TOK_EOF) {
    P->head = (P->head + 1) & (PARSE_RING - 1);
    /* The parser always looks at the next token: lex it now, into the
     * slot after t's (t's own slot is not reused before the next call). */
    if (--P->nla == 0) {
      lex_next(&P->lx, &P->la[P->head]);
      P->nla = 1;
    }
  }
  return t;
}
bool p_match(Parser *P, TokKind k);
/* Consume a token of kind k (returned as p_advance does) or raise E201
 * "Expected X, got Y" (or msg). */
const Token *p_expect(Parser *P, TokKind k, const char *msg);
/* A token's span (file NULL); every token has its end set (lexer.c). */
static inline Span p_span(const Token *t) {
  Span s = {NULL, t->line, t->col, t->end_line, t->end_col};
  return s;
}
static inline Span p_cur_span(Parser *P) {
  Span s = p_span(p_cur(P));
  s.file = P->file;
  return s;
}

/* errors */
GENO_NORETURN void p_raise(Parser *P, int code, Span at, const char *fmt, ...) GENO_PRINTF(4, 5);
/* Raise E202 at the current token. */
GENO_NORETURN void p_error(Parser *P, const char *fmt, ...) GENO_PRINTF(2, 3);
/* Record without raising (parsing continues). */
void p_record(Parser *P, int code, Span at, const char *fmt, ...) GENO_PRINTF(4, 5);
void p_enter(Parser *P, const char *what); /* depth++ with the limit check */
void p_leave(Parser *P);

/* growable arena arrays */
#define P_PUSH(P, arr, n, cap, item)                                             \
  do {                                                                         \
    if ((n) == (cap)) {                                                        \
      int nc_ = (cap) ? (cap) * 2 : 4;                                         \
      (arr) = arena_grow((P)->arena, (arr), (size_t)(n), (size_t)nc_, sizeof *(arr)); \
      (cap) = nc_;                                                             \
    }                                                                          \
    (arr)[(n)++] = (item);                                                     \
  } while (0)

void *p_new(Parser *P, size_t size);
Expr *p_expr(Parser *P, ExprKind k, Span at);
Stmt *p_stmt(Parser *P, StmtKind k, Span at);

/* parse functions */
Expr *parse_expression(Parser *P);
Expr *parse_primary(Parser *P);
Block parse_statement_list(Parser *P);
Stmt *parse_statement(Parser *P);
TypeExpr *parse_type(Parser *P);
Pattern *parse_pattern(Parser *P);
Param *parse_param_list(Parser *P, int *count);
void parse_effect_list(Parser *P, const char ***names, Span **spans, int *count);
MatchArm *parse_match_arms(Parser *P, bool expression_arms, int *count);

/* depth.c: report and drop declarations nested deeper than
 * PARSE_MAX_TREE_DEPTH (allocates its work stack from arena). Only
 * declarations of more than PARSE_MAX_TREE_DEPTH nodes (Decl.nnodes) are
 * walked: a node's depth counts distinct nodes, so it cannot exceed how
 * many there are. */
void parse_check_depth(Module *m, Arena *arena, DiagList *diags);

#endif
