/* Expression parsing (spec section 7), by precedence climbing.
 *
 * Precedence, loosest first: |> ; or ; and ; not ; comparisons (non-
 * associative) ; ^ ; & ; << >> ; + - ; * / % ; ** (right) ; prefix - ~ ;
 * postfix call/index/field/? and a trailing `with (...)`.
 * The nesting counter is raised where the reference raises it (each full
 * expression, each operand of an infix operator, each prefix operator), so
 * depth errors appear at the same programs. */
#include <stdio.h>

#include "parser_internal.h"

static Span here(Parser *P) { return p_cur_span(P); }

static int infix_prec(TokKind k, BinOp *op) {
  switch (k) {
  case TOK_EQ: *op = OP_EQ; return 1;
  case TOK_NEQ: *op = OP_NEQ; return 1;
  case TOK_LT: *op = OP_LT; return 1;
  case TOK_GT: *op = OP_GT; return 1;
  case TOK_LTE: *op = OP_LTE; return 1;
  case TOK_GTE: *op = OP_GTE; return 1;
  case TOK_CARET: *op = OP_BXOR; return 2;
  case TOK_AMPERSAND: *op = OP_BAND; return 3;
  case TOK_LSHIFT: *op = OP_SHL; return 4;
  case TOK_RSHIFT: *op = OP_SHR; return 4;
  case TOK_PLUS: *op = OP_ADD; return 5;
  case TOK_MINUS: *op = OP_SUB; return 5;
  case TOK_STAR: *op = OP_MUL; return 6;
  case TOK_SLASH: *op = OP_DIV; return 6;
  case TOK_PERCENT: *op = OP_MOD; return 6;
  case TOK_DOUBLESTAR: *op = OP_POW; return 7;
  default: return 0;
  }
}

static Expr *binary(Parser *P, BinOp op, Expr *l, Expr *r) {
  Expr *e = p_expr(P, EX_BINARY, l->span);
  e->u.bin.op = op;
  e->u.bin.l = l;
  e->u.bin.r = r;
  return e;
}

static Expr *parse_unary(Parser *P);

static Expr *parse_infix(Parser *P, int min_prec);

static Expr *parse_nested_infix(Parser *P, int min_prec) {
  p_enter(P, "Expression");
  Expr *e = parse_infix(P, min_prec);
  p_leave(P);
  return e;
}

/* cmp_expr = bxor_expr (cmp_op bxor_expr)?  ... down to  exp_expr */
static Expr *parse_infix(Parser *P, int min_prec) {
  Expr *left = parse_unary(P);
  for (;;) {
    BinOp op;
    int prec = infix_prec(p_kind(P), &op);
    if (prec == 0 || prec < min_prec) return left;
    p_advance(P);
    if (prec == 1) {
      Expr *right = parse_nested_infix(P, prec + 1);
      BinOp op2;
      if (infix_prec(p_kind(P), &op2) == 1)
        p_error(P, "Comparison chaining is not supported; write 'a < b and b < c' instead");
      return binary(P, op, left, right);
    }
    Expr *right = parse_nested_infix(P, op == OP_POW ? prec : prec + 1);
    left = binary(P, op, left, right);
  }
}

/* not_expr = "not" not_expr | cmp_expr */
static Expr *parse_not(Parser *P) {
  if (!p_check(P, TOK_NOT)) return parse_infix(P, 1);
  p_advance(P);
  p_enter(P, "Expression");
  Span at = here(P);
  Expr *e = p_expr(P, EX_UNARY, at);
  e->u.un.op = OP_NOT;
  e->u.un.e = parse_not(P);
  p_leave(P);
  return e;
}

/* or_expr = and_expr ("or" and_expr)* ; and_expr = not_expr ("and" not_expr)* */
static Expr *parse_logical(Parser *P, int min_prec) {
  Expr *left = parse_not(P);
  for (;;) {
    TokKind k = p_kind(P);
    int prec = k == TOK_OR ? 1 : k == TOK_AND ? 2 : 0;
    if (prec == 0 || prec < min_prec) return left;
    p_advance(P);
    Expr *right = parse_logical(P, prec + 1);
    left = binary(P, k == TOK_OR ? OP_OR : OP_AND, left, right);
  }
}

/* pipeline stage: primary ("." IDENT)* ("(" (arg | "_") ("," (arg | "_"))* ")")? */
static Stage parse_stage(Parser *P) {
  Stage st;
  memset(&st, 0, sizeof st);
  st.span = here(P);
  st.span.file = P->file;
  Expr *fn = parse_primary(P);
  while (p_check(P, TOK_DOT)) {
    p_advance(P);
    Span ns = here(P);
    const char *name = p_expect(P, TOK_IDENT, NULL)->text;
    Expr *f = p_expr(P, EX_FIELD, fn->span);
    f->u.field.target = fn;
    f->u.field.name = name;
    f->u.field.name_span = ns;
    fn = f;
  }
  st.fn = fn;
  if (p_check(P, TOK_LPAREN)) {
    p_advance(P);
    st.has_parens = true;
    int cap = 0;
    if (!p_check(P, TOK_RPAREN)) {
      for (;;) {
        Expr *a;
        if (p_check(P, TOK_UNDERSCORE)) {
          a = p_expr(P, EX_PLACEHOLDER, here(P));
          p_advance(P);
        } else {
          a = parse_expression(P);
        }
        P_PUSH(P, st.args, st.nargs, cap, a);
        if (!p_match(P, TOK_COMMA)) break;
      }
    }
    p_expect(P, TOK_RPAREN, NULL);
  }
  return st;
}

/* expr = or_expr ("|>" stage)* */
static Expr *parse_pipeline(Parser *P) {
  Expr *left = parse_logical(P, 1);
  if (!p_check(P, TOK_PIPE)) return left;
  Expr *e = p_expr(P, EX_PIPELINE, left->span);
  e->u.pipe.init = left;
  int cap = 0;
  while (p_match(P, TOK_PIPE)) {
    Stage st = parse_stage(P);
    P_PUSH(P, e->u.pipe.stages, e->u.pipe.n, cap, st);
  }
  return e;
}

Expr *parse_expression(Parser *P) {
  p_enter(P, "Expression");
  Expr *e = parse_pipeline(P);
  p_leave(P);
  return e;
}

/* unary_expr = ("-" | "~") unary_expr | postfix_expr ; the node is located
 * at its operand, as in the reference. */
static Expr *parse_postfix(Parser *P);
static Expr *parse_unary(Parser *P) {
  TokKind k = p_kind(P);
  if (k != TOK_MINUS && k != TOK_TILDE) return parse_postfix(P);
  p_advance(P);
  p_enter(P, "Expression");
  Expr *e = p_expr(P, EX_UNARY, here(P));
  e->u.un.op = k == TOK_MINUS ? OP_NEG : OP_BNOT;
  e->u.un.e = parse_unary(P);
  p_leave(P);
  return e;
}

/* args = arg ("," arg)* ; arg = (IDENT ":")? expr  -- the "(" is consumed */
static Arg *parse_args(Parser *P, int *count) {
  /* Most calls have a few arguments: they are gathered in `small` and
   * copied once at their final size (growing in the arena leaves every
   * smaller copy behind); a longer list moves to the arena and grows. */
  Arg small[8];
  Arg *big = NULL;
  int n = 0, cap = 0;
  if (!p_check(P, TOK_RPAREN)) {
    for (;;) {
      Arg a;
      memset(&a, 0, sizeof a);
      if (p_check(P, TOK_IDENT) && p_peek_kind(P, 1) == TOK_COLON) {
        a.name_span = here(P);
        a.name = p_advance(P)->text;
        p_advance(P);
      }
      a.value = parse_expression(P);
      if (big) {
        P_PUSH(P, big, n, cap, a);
      } else if (n < (int)ARRAY_LEN(small)) {
        small[n++] = a;
      } else {
        cap = 2 * n;
        big = arena_grow(P->arena, small, (size_t)n, (size_t)cap, sizeof *big);
        big[n++] = a;
      }
      if (!p_match(P, TOK_COMMA)) break;
    }
  }
  p_expect(P, TOK_RPAREN, NULL);
  *count = n;
  if (big || n == 0) return big;
  return arena_grow(P->arena, small, (size_t)n, (size_t)n, sizeof *small);
}

/* with_expr = "with" "(" IDENT ":" expr ("," IDENT ":" expr)* ")" */
static Expr *parse_with(Parser *P, Expr *target) {
  Expr *e = p_expr(P, EX_WITH, target->span);
  e->u.with.target = target;
  p_expect(P, TOK_WITH, NULL);
  p_expect(P, TOK_LPAREN, NULL);
  int cap = 0;
  if (!p_check(P, TOK_RPAREN)) {
    do {
      FieldInit fi;
      fi.span = here(P);
      fi.name = p_expect(P, TOK_IDENT, NULL)->text;
      p_expect(P, TOK_COLON, NULL);
      fi.value = parse_expression(P);
      P_PUSH(P, e->u.with.inits, e->u.with.n, cap, fi);
    } while (p_match(P, TOK_COMMA));
  }
  p_expect(P, TOK_RPAREN, NULL);
  return e;
}

/* postfix_expr = primary_expr (call | index | field | "?")* with_expr? */
static Expr *parse_postfix(Parser *P) {
  Expr *e = parse_primary(P);
  for (;;) {
    TokKind k = p_kind(P);
    if (k == TOK_LPAREN) {
      p_advance(P);
      Expr *c = p_expr(P, EX_CALL, e->span);
      c->u.call.callee = e;
      c->u.call.args = parse_args(P, &c->u.call.nargs);
      e = c;
    } else if (k == TOK_LBRACKET) {
      p_advance(P);
      Expr *c = p_expr(P, EX_INDEX, e->span);
      c->u.index.target = e;
      c->u.index.index = parse_expression(P);
      p_expect(P, TOK_RBRACKET, NULL);
      e = c;
    } else if (k == TOK_DOT) {
      p_advance(P);
      Expr *c = p_expr(P, EX_FIELD, e->span);
      c->u.field.target = e;
      c->u.field.name_span = here(P);
      c->u.field.name = p_expect(P, TOK_IDENT, NULL)->text;
      e = c;
    } else if (k == TOK_QUESTION) {
      p_advance(P);
      Expr *c = p_expr(P, EX_PROPAGATE, e->span);
      c->u.operand = e;
      e = c;
    } else {
      break;
    }
  }
  if (p_check(P, TOK_WITH) && p_peek_kind(P, 1) == TOK_LPAREN) return parse_with(P, e);
  return e;
}

/* ---- f-strings ------------------------------------------------------------------- */

static bool blank(const char *s, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r' && s[i] != '\n') return false;
  return true;
}

/* Parse one interpolation's source as a single expression, reporting any
 * error inside it at its true position with code E200. */
static Expr *parse_interpolation(Parser *P, const FStringPart *part) {
  Span at = {P->file, part->line, part->col, part->line, part->col + 1};
  if (blank(part->text, part->len)) p_raise(P, E_PARSE_UNEXPECTED, at, "Empty expression in f-string");
  Lexer scan;
  lex_init(&scan, part->text, part->len, P->file, part->line, part->col, NULL, NULL);
  if (!lex_scan(&scan, NULL)) {
    Span es = {P->file, scan.err_line, scan.err_col, scan.err_line, scan.err_col + 1};
    p_raise(P, E_PARSE_UNEXPECTED, es, "Invalid expression in f-string: %s", scan.err_msg);
  }
  /* One sub-parser per parser, reused: interpolations do not nest (no
   * string literal can appear inside one). */
  if (!P->sub) P->sub = p_new(P, sizeof *P->sub);
  Parser *S = P->sub;
  memset(S, 0, sizeof *S);
  S->prog = P->prog;
  S->arena = P->arena;
  S->names = P->names;
  S->diags = P->diags;
  S->file = P->file;
  S->is_sub = true;
  S->n_when = P->n_when;
  S->n_as = P->n_as;
  S->n_untested = P->n_untested;
  S->n_tuple = P->n_tuple;
  S->n_none = P->n_none;
  lex_init(&S->lx, part->text, part->len, P->file, part->line, part->col, P->arena, P->names);
  jmp_buf jb;
  S->on_error = &jb;
  Expr *e = NULL;
  if (setjmp(jb) == 0) {
    e = parse_expression(S);
    if (!p_check(S, TOK_EOF)) {
      const Token *t = p_cur(S);
      Span ts = p_span(t);
      p_raise(S, E_PARSE_UNEXPECTED, ts, "Unexpected token in f-string expression: %s", tok_name(t->kind));
    }
    P->nodes += S->nodes; /* part of the enclosing declaration's tree */
    return e;
  }
  p_raise(P, E_PARSE_UNEXPECTED, S->sub_span, "%s", S->sub_msg);
}

static Expr *parse_fstring(Parser *P) {
  Span at = here(P);
  Token t = *p_advance(P);
  Expr *e = p_expr(P, EX_FSTRING, at);
  int cap = 0;
  for (int i = 0; i < t.nparts; i++) {
    FStrPiece pc;
    memset(&pc, 0, sizeof pc);
    if (t.parts[i].is_expr) {
      pc.expr = parse_interpolation(P, &t.parts[i]);
    } else {
      pc.text = t.parts[i].text;
      pc.len = t.parts[i].len;
    }
    P_PUSH(P, e->u.fstr.pieces, e->u.fstr.n, cap, pc);
  }
  return e;
}

/* ---- primary expressions ---------------------------------------------------- */

/* list_lit = "[" exprs? "]" ;
 * list_comp = "[" expr "for" IDENT ":" type "in" expr ("if" expr)? "]" */
static Expr *parse_list(Parser *P) {
  Span at = here(P);
  p_advance(P);
  if (p_match(P, TOK_RBRACKET)) return p_expr(P, EX_LIST, at);
  Expr *first = parse_expression(P);
  if (p_match(P, TOK_FOR)) {
    Expr *e = p_expr(P, EX_LIST_COMP, at);
    e->u.comp.elem = first;
    e->u.comp.var_span = here(P);
    e->u.comp.var_span.file = P->file;
    e->u.comp.var = p_expect(P, TOK_IDENT, "Expected variable name")->text;
    p_expect(P, TOK_COLON, NULL);
    e->u.comp.var_type = parse_type(P);
    p_expect(P, TOK_IN, NULL);
    e->u.comp.iter = parse_expression(P);
    if (p_match(P, TOK_IF)) e->u.comp.cond = parse_expression(P);
    p_expect(P, TOK_RBRACKET, NULL);
    return e;
  }
  Expr *e = p_expr(P, EX_LIST, at);
  int cap = 0;
  P_PUSH(P, e->u.list.items, e->u.list.n, cap, first);
  while (p_match(P, TOK_COMMA)) P_PUSH(P, e->u.list.items, e->u.list.n, cap, parse_expression(P));
  p_expect(P, TOK_RBRACKET, NULL);
  return e;
}

/* lambda = "fn" "(" params? ")" "->" expr | "fn" "(" params? ")" "do" statement* "end" "fn" */
static Expr *parse_lambda(Parser *P) {
  Expr *e = p_expr(P, EX_LAMBDA, here(P));
  p_advance(P);
  p_expect(P, TOK_LPAREN, NULL);
  e->u.lambda.params = parse_param_list(P, &e->u.lambda.nparams);
  p_expect(P, TOK_RPAREN, NULL);
  if (p_match(P, TOK_DO)) {
    e->u.lambda.is_block = true;
    e->u.lambda.block = parse_statement_list(P);
    p_expect(P, TOK_END, NULL);
    p_expect(P, TOK_FN, NULL);
    return e;
  }
  p_expect(P, TOK_ARROW, "Expected '->' or 'do' after lambda parameter list");
  e->u.lambda.body = parse_expression(P);
  return e;
}

/* "(" ")" = Unit ; "(" expr ")" = grouping ; "(" expr "," (expr ("," expr)* ","?)? ")" = tuple */
static Expr *parse_paren(Parser *P) {
  Span at = here(P);
  p_advance(P);
  if (p_match(P, TOK_RPAREN)) return p_expr(P, EX_TUPLE, at);
  Expr *first = parse_expression(P);
  if (!p_match(P, TOK_COMMA)) {
    p_expect(P, TOK_RPAREN, NULL);
    return first;
  }
  Expr *e = p_expr(P, EX_TUPLE, at);
  int cap = 0;
  P_PUSH(P, e->u.list.items, e->u.list.n, cap, first);
  if (!p_check(P, TOK_RPAREN)) {
    P_PUSH(P, e->u.list.items, e->u.list.n, cap, parse_expression(P));
    while (p_match(P, TOK_COMMA)) {
      if (p_check(P, TOK_RPAREN)) break;
      P_PUSH(P, e->u.list.items, e->u.list.n, cap, parse_expression(P));
    }
  }
  p_expect(P, TOK_RPAREN, NULL);
  return e;
}

Expr *parse_primary(Parser *P) {
  Span at = here(P);
  TokKind k = p_kind(P);
  switch (k) {
  case TOK_IDENT: {
    Expr *e = p_expr(P, EX_IDENT, at);
    e->u.name = p_advance(P)->text;
    return e;
  }
  case TOK_TYPE_IDENT: {
    const char *name = p_advance(P)->text;
    if (p_match(P, TOK_LPAREN)) {
      /* Constructor call. Named arguments (`Point(x: 1, y: 2)`) are accepted
       * as the spec shows; the reference parser rejects them. */
      Expr *e = p_expr(P, EX_CTOR, at);
      e->u.ctor.name = name;
      e->u.ctor.has_parens = true;
      e->u.ctor.args = parse_args(P, &e->u.ctor.nargs);
      return e;
    }
    if (name == P->n_none) {
      Expr *e = p_expr(P, EX_CTOR, at);
      e->u.ctor.name = name;
      return e;
    }
    Expr *e = p_expr(P, EX_TYPE_IDENT, at);
    e->u.name = name;
    return e;
  }
  case TOK_INT: {
    Token t = *p_advance(P);
    Expr *e = p_expr(P, EX_INT, at);
    e->u.int_lit.digits = t.text;
    e->u.int_lit.len = t.len;
    return e;
  }
  case TOK_FLOAT: {
    Expr *e = p_expr(P, EX_FLOAT, at);
    e->u.float_val = p_advance(P)->fval;
    return e;
  }
  case TOK_STRING: {
    Token t = *p_advance(P);
    Expr *e = p_expr(P, EX_STRING, at);
    e->u.str.s = t.text;
    e->u.str.len = t.len;
    return e;
  }
  case TOK_FSTRING:
    return parse_fstring(P);
  case TOK_TRUE:
  case TOK_FALSE: {
    p_advance(P);
    Expr *e = p_expr(P, EX_BOOL, at);
    e->u.bool_val = k == TOK_TRUE;
    return e;
  }
  case TOK_THROW:
  case TOK_AWAIT: {
    p_advance(P);
    Expr *e = p_expr(P, k == TOK_THROW ? EX_THROW : EX_AWAIT, at);
    e->u.operand = parse_expression(P);
    return e;
  }
  case TOK_LBRACKET:
    return parse_list(P);
  case TOK_FN:
    return parse_lambda(P);
  case TOK_QUESTION: {
    /* typed_hole = "?" IDENT ":" type ("where" expr)? */
    p_advance(P);
    Expr *e = p_expr(P, EX_HOLE, at);
    e->u.hole.name = p_expect(P, TOK_IDENT, NULL)->text;
    p_expect(P, TOK_COLON, NULL);
    e->u.hole.type = parse_type(P);
    if (p_match(P, TOK_WHERE)) e->u.hole.where = parse_expression(P);
    return e;
  }
  case TOK_MATCH: {
    /* match_expr = "match" expr "with" ("|" pattern ("when" expr)? "->" expr)+ "end" "match" */
    p_advance(P);
    Expr *e = p_expr(P, EX_MATCH, at);
    e->u.match.scrutinee = parse_expression(P);
    p_expect(P, TOK_WITH, NULL);
    e->u.match.arms = parse_match_arms(P, true, &e->u.match.n);
    p_expect(P, TOK_END, NULL);
    p_expect(P, TOK_MATCH, NULL);
    return e;
  }
  case TOK_LPAREN:
    return parse_paren(P);
  default:
    p_error(P, "Expected expression (e.g., a value, variable, or function call), got %s", tok_name(k));
  }
}
