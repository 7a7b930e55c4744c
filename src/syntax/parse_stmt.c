/* Statement parsing (spec section 6). Geno has no statement separators:
 * a statement list runs until `end`, `else`, `|`, `catch` or end of file,
 * and the only layout rules are bare `return` and `else if` (below). */
#include "parser_internal.h"

static Span here(Parser *P) { return p_cur_span(P); }

static bool at_block_end(Parser *P) {
  TokKind k = p_kind(P);
  return k == TOK_END || k == TOK_ELSE || k == TOK_BAR || k == TOK_CATCH || k == TOK_EOF;
}

Block parse_statement_list(Parser *P) {
  Block b = {NULL, 0};
  int cap = 0;
  while (!at_block_end(P)) P_PUSH(P, b.items, b.n, cap, parse_statement(P));
  return b;
}

/* An optional string label after `end if|while|for|match` (ignored). */
static void skip_label(Parser *P) {
  if (p_check(P, TOK_STRING)) p_advance(P);
}

/* let_stmt = "let" (IDENT | tuple_destruct) (":" type)? "=" expr   (same for var)
 * tuple_destruct = "(" IDENT ("," IDENT)* ")" ":" type   -- annotation required */
static Stmt *parse_let(Parser *P, bool is_var) {
  Span at = here(P);
  p_advance(P);
  if (p_check(P, TOK_LPAREN)) {
    Stmt *s = p_stmt(P, ST_DESTRUCT, at);
    s->u.destr.is_var = is_var;
    p_advance(P);
    int cap = 0, scap = 0, sn = 0;
    do {
      Span ns = here(P);
      ns.file = P->file;
      const char *name = p_expect(P, TOK_IDENT, "Expected variable name")->text;
      P_PUSH(P, s->u.destr.names, s->u.destr.n, cap, name);
      P_PUSH(P, s->u.destr.spans, sn, scap, ns);
    } while (p_match(P, TOK_COMMA));
    p_expect(P, TOK_RPAREN, NULL);
    p_expect(P, TOK_COLON, NULL);
    s->u.destr.type = parse_type(P);
    p_expect(P, TOK_ASSIGN, NULL);
    s->u.destr.value = parse_expression(P);
    return s;
  }
  Stmt *s = p_stmt(P, ST_LET, at);
  s->u.let.is_var = is_var;
  s->u.let.name_span = here(P);
  s->u.let.name_span.file = P->file;
  s->u.let.name = p_expect(P, TOK_IDENT, NULL)->text;
  if (p_match(P, TOK_COLON)) s->u.let.type = parse_type(P);
  p_expect(P, TOK_ASSIGN, NULL);
  s->u.let.value = parse_expression(P);
  return s;
}

/* if_stmt = "if" expr "then" statement* ("else" statement*)? "end" "if"
 * `else if` continues the chain (sharing the one `end if`) when the `if` is
 * on the `else` line or not indented past the `else`; a more-indented `if`
 * on a later line is an ordinary nested statement.
 *
 * The chain is read in a loop, not by recursion, so its length costs no C
 * stack here. In the tree each link is an ST_IF nested in the previous
 * link's else branch; the tree-depth bound (depth.c) limits its length. */
static Stmt *parse_if(Parser *P) {
  Stmt *first = NULL, *last = NULL;
  for (;;) {
    Stmt *s = p_stmt(P, ST_IF, here(P));
    p_expect(P, TOK_IF, NULL);
    s->u.if_.cond = parse_expression(P);
    p_expect(P, TOK_THEN, NULL);
    s->u.if_.then_b = parse_statement_list(P);
    if (last) {
      last->u.if_.else_if = true;
      last->u.if_.else_b.items = p_new(P, sizeof(Stmt *));
      last->u.if_.else_b.items[0] = s;
      last->u.if_.else_b.n = 1;
    } else {
      first = s;
    }
    last = s;
    if (!p_check(P, TOK_ELSE)) break;
    Token e = *p_advance(P);
    const Token *c = p_cur(P);
    bool else_if = c->kind == TOK_IF && (c->line == e.line || c->col <= e.col);
    if (!else_if) {
      s->u.if_.else_b = parse_statement_list(P);
      break;
    }
  }
  p_expect(P, TOK_END, NULL);
  p_expect(P, TOK_IF, NULL);
  skip_label(P);
  return first;
}

/* while_stmt = "while" expr "do" statement* "end" "while" */
static Stmt *parse_while(Parser *P) {
  Stmt *s = p_stmt(P, ST_WHILE, here(P));
  p_expect(P, TOK_WHILE, NULL);
  s->u.while_.cond = parse_expression(P);
  p_expect(P, TOK_DO, NULL);
  s->u.while_.body = parse_statement_list(P);
  p_expect(P, TOK_END, NULL);
  p_expect(P, TOK_WHILE, NULL);
  skip_label(P);
  return s;
}

/* for_stmt = "for" IDENT ":" type "in" expr "do" statement* "end" "for" */
static Stmt *parse_for(Parser *P) {
  Stmt *s = p_stmt(P, ST_FOR, here(P));
  p_expect(P, TOK_FOR, NULL);
  s->u.for_.var_span = here(P);
  s->u.for_.var_span.file = P->file;
  s->u.for_.var = p_expect(P, TOK_IDENT, NULL)->text;
  p_expect(P, TOK_COLON, NULL);
  s->u.for_.var_type = parse_type(P);
  p_expect(P, TOK_IN, NULL);
  s->u.for_.iter = parse_expression(P);
  p_expect(P, TOK_DO, NULL);
  s->u.for_.body = parse_statement_list(P);
  p_expect(P, TOK_END, NULL);
  p_expect(P, TOK_FOR, NULL);
  skip_label(P);
  return s;
}

/* try_stmt = "try" statement* "catch" IDENT ":" type statement* "end" "try" */
static Stmt *parse_try(Parser *P) {
  Stmt *s = p_stmt(P, ST_TRY, here(P));
  p_expect(P, TOK_TRY, NULL);
  s->u.try_.body = parse_statement_list(P);
  s->u.try_.catch_span = here(P);
  s->u.try_.catch_span.file = P->file;
  p_expect(P, TOK_CATCH, NULL);
  s->u.try_.var_span = here(P);
  s->u.try_.var_span.file = P->file;
  s->u.try_.var = p_expect(P, TOK_IDENT, NULL)->text;
  p_expect(P, TOK_COLON, NULL);
  s->u.try_.type = parse_type(P);
  s->u.try_.handler = parse_statement_list(P);
  p_expect(P, TOK_END, NULL);
  p_expect(P, TOK_TRY, NULL);
  return s;
}

/* match_arm = "|" pattern ("when" expr)? "->" (statement+ | expr)
 * Statement arms need at least one statement; expression arms (in a match
 * expression) hold exactly one expression. */
MatchArm *parse_match_arms(Parser *P, bool expression_arms, int *count) {
  MatchArm *arms = NULL;
  int n = 0, cap = 0;
  while (p_match(P, TOK_BAR)) {
    MatchArm a;
    memset(&a, 0, sizeof a);
    a.span = here(P);
    a.span.file = P->file;
    a.pat = parse_pattern(P);
    if (p_check(P, TOK_IDENT) && p_cur(P)->text == P->n_when) {
      p_advance(P);
      a.guard = parse_expression(P);
    }
    p_expect(P, TOK_ARROW, NULL);
    if (expression_arms) {
      a.value = parse_expression(P);
    } else {
      a.body = parse_statement_list(P);
      if (a.body.n == 0) p_error(P, "Match arm body must contain at least one statement");
    }
    P_PUSH(P, arms, n, cap, a);
  }
  if (n == 0) p_error(P, "Match must have at least one arm (each arm starts with '|')");
  *count = n;
  return arms;
}

/* match_stmt = "match" expr "with" match_arm+ "end" "match" */
static Stmt *parse_match_stmt(Parser *P) {
  Stmt *s = p_stmt(P, ST_MATCH, here(P));
  p_expect(P, TOK_MATCH, NULL);
  s->u.match.scrutinee = parse_expression(P);
  p_expect(P, TOK_WITH, NULL);
  s->u.match.arms = parse_match_arms(P, false, &s->u.match.n);
  p_expect(P, TOK_END, NULL);
  p_expect(P, TOK_MATCH, NULL);
  skip_label(P);
  return s;
}

/* return_stmt = "return" expr?
 * The expression is taken only when the next token is on the same line and
 * does not end the block; otherwise `return` returns (). */
static Stmt *parse_return(Parser *P) {
  Span at = here(P);
  Stmt *s = p_stmt(P, ST_RETURN, at);
  p_advance(P);
  if (at_block_end(P) || p_cur(P)->line > at.line) {
    s->u.ret.bare = true;
    s->u.ret.value = p_expr(P, EX_TUPLE, at);
  } else {
    s->u.ret.value = parse_expression(P);
  }
  return s;
}

/* assignment forms: IDENT "=" expr | expr "[" expr "]" "=" expr
 *                 | expr "." IDENT "=" expr  (statement starts with IDENT) */
static Stmt *parse_compound_assign_or_expr(Parser *P) {
  Span at = here(P);
  Expr *e = parse_expression(P);
  if (p_match(P, TOK_ASSIGN)) {
    Expr *value = parse_expression(P);
    if (e->kind == EX_INDEX) {
      Stmt *s = p_stmt(P, ST_INDEX_ASSIGN, at);
      s->u.index_assign.target = e->u.index.target;
      s->u.index_assign.index = e->u.index.index;
      s->u.index_assign.value = value;
      return s;
    }
    if (e->kind == EX_FIELD) {
      Stmt *s = p_stmt(P, ST_FIELD_ASSIGN, at);
      s->u.field_assign.target = e->u.field.target;
      s->u.field_assign.name = e->u.field.name;
      s->u.field_assign.name_span = e->u.field.name_span;
      s->u.field_assign.value = value;
      return s;
    }
    p_error(P, "Invalid assignment target: only variables, fields (x.field), and indices (x[i]) can be assigned to");
  }
  Stmt *s = p_stmt(P, ST_EXPR, at);
  s->u.expr = e;
  return s;
}

Stmt *parse_statement(Parser *P) {
  TokKind k = p_kind(P);
  switch (k) {
  case TOK_LET:
    return parse_let(P, false);
  case TOK_VAR:
    return parse_let(P, true);
  case TOK_IF:
  case TOK_WHILE:
  case TOK_FOR:
  case TOK_MATCH:
  case TOK_TRY: {
    p_enter(P, "Statement");
    Stmt *s = k == TOK_IF      ? parse_if(P)
              : k == TOK_WHILE ? parse_while(P)
              : k == TOK_FOR   ? parse_for(P)
              : k == TOK_TRY   ? parse_try(P)
                               : parse_match_stmt(P);
    p_leave(P);
    return s;
  }
  case TOK_RETURN:
    return parse_return(P);
  case TOK_BREAK:
  case TOK_CONTINUE: {
    Stmt *s = p_stmt(P, k == TOK_BREAK ? ST_BREAK : ST_CONTINUE, here(P));
    p_advance(P);
    return s;
  }
  case TOK_IDENT: {
    TokKind k1 = p_peek_kind(P, 1);
    if (k1 == TOK_ASSIGN) {
      Stmt *s = p_stmt(P, ST_ASSIGN, here(P));
      s->u.assign.name = p_advance(P)->text;
      p_advance(P);
      s->u.assign.value = parse_expression(P);
      return s;
    }
    if (k1 == TOK_LBRACKET || k1 == TOK_DOT) return parse_compound_assign_or_expr(P);
    break;
  }
  default:
    break;
  }
  Stmt *s = p_stmt(P, ST_EXPR, here(P));
  s->u.expr = parse_expression(P);
  return s;
}
