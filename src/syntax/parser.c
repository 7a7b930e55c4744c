/* Parser core: token access, errors and recovery, declarations, type
 * annotations and patterns. Statements are in parse_stmt.c, expressions in
 * parse_expr.c.
 *
 * Error handling follows the reference parser, because programs are judged
 * by the codes it gives:
 * - a failed expectation raises E201 "Expected X, got Y"; other syntax errors
 *   raise E202; nesting-depth, default-parameter-order and f-string interior
 *   errors are E200;
 * - a raised error unwinds (longjmp; everything is arena-owned) to the
 *   declaration loop, which skips to the next `func`, `type`, `import`,
 *   `trait`, `impl` or `test` token -- including the `func` of an
 *   `end func` -- and resumes there;
 * - an error at the same location as the previous one is dropped. */
#include <stdarg.h>
#include <stdio.h>

#include "parser_internal.h"

/* ---- token access -------------------------------------------------------- */

static void fill(Parser *P, int k) {
  while (P->nla <= k) {
    Token *t = &P->la[(P->head + P->nla) & (PARSE_RING - 1)];
    const Token *last = &P->la[(P->head + P->nla - 1) & (PARSE_RING - 1)];
    if (P->nla > 0 && last->kind == TOK_EOF) *t = *last;
    else lex_next(&P->lx, t);
    P->nla++;
  }
}

const Token *p_pulled(Parser *P, int k) {
  fill(P, k);
  return &P->la[(P->head + k) & (PARSE_RING - 1)];
}



bool p_match(Parser *P, TokKind k) {
  if (!p_check(P, k)) return false;
  p_advance(P);
  return true;
}

const Token *p_expect(Parser *P, TokKind k, const char *msg) {
  if (p_check(P, k)) return p_advance(P);
  if (msg) p_raise(P, E_PARSE_EXPECTED, p_cur_span(P), "%s", msg);
  p_raise(P, E_PARSE_EXPECTED, p_cur_span(P), "Expected %s, got %s", tok_name(k),
          tok_name(p_kind(P)));
}

/* ---- errors ------------------------------------------------------------------ */

static bool same_place(Span a, Span b) { return a.line == b.line && a.col == b.col; }

static void record_v(Parser *P, int code, Span at, const char *fmt, va_list ap, bool raising) {
  if (P->is_sub) {
    /* Like the reference, errors recorded without raising inside an
     * interpolation are dropped; a raised one is passed to the parent. */
    if (raising && !P->sub_msg[0]) {
      P->sub_code = code;
      P->sub_span = at;
      vsnprintf(P->sub_msg, sizeof P->sub_msg, fmt, ap);
    }
    return;
  }
  if (P->any_error && same_place(P->last_err, at)) return;
  at.file = P->file;
  diag_vadd(P->diags, code, &at, fmt, ap);
  P->any_error = true;
  P->last_err = at;
  if (++P->nerrors >= PARSE_MAX_ERRORS) P->gave_up = true;
}

void p_record(Parser *P, int code, Span at, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  record_v(P, code, at, fmt, ap, false);
  va_end(ap);
}

void p_raise(Parser *P, int code, Span at, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  record_v(P, code, at, fmt, ap, true);
  va_end(ap);
  longjmp(*P->on_error, 1);
}

void p_error(Parser *P, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  record_v(P, E_PARSE_INVALID, p_cur_span(P), fmt, ap, true);
  va_end(ap);
  longjmp(*P->on_error, 1);
}

void p_enter(Parser *P, const char *what) {
  if (++P->depth > PARSE_MAX_DEPTH)
    p_raise(P, E_PARSE_UNEXPECTED, p_cur_span(P), "%s nesting too deep (>%d)", what, PARSE_MAX_DEPTH);
}

void p_leave(Parser *P) { P->depth--; }

void *p_new(Parser *P, size_t size) { return arena_alloc(P->arena, size); }

Expr *p_expr(Parser *P, ExprKind k, Span at) {
  P->nodes++;
  Expr *e = p_new(P, sizeof *e);
  e->kind = k;
  at.file = P->file;
  e->span = at;
  return e;
}

Stmt *p_stmt(Parser *P, StmtKind k, Span at) {
  P->nodes++;
  Stmt *s = p_new(P, sizeof *s);
  s->kind = k;
  at.file = P->file;
  s->span = at;
  return s;
}

static Span here(Parser *P) { return p_cur_span(P); }

/* ---- type annotations -------------------------------------------------------- */

static TypeExpr *new_type(Parser *P, TypeExprKind k, Span at) {
  TypeExpr *t = p_new(P, sizeof *t);
  t->kind = k;
  at.file = P->file;
  t->span = at;
  return t;
}

/* effects = "with" effect_name ("," effect_name)* ; effect_name = IDENT | "throw"
 * (the `with` has been consumed) */
void parse_effect_list(Parser *P, const char ***names, Span **spans, int *count) {
  const char **ns = NULL;
  Span *ss = NULL;
  int n = 0, cap = 0, scap = 0, sn = 0;
  for (;;) {
    TokKind k = p_kind(P);
    if (k != TOK_IDENT && k != TOK_THROW)
      p_error(P, n == 0 ? "Expected effect name after 'with'" : "Expected effect name after ','");
    Span sp = here(P);
    Token t = *p_advance(P);
    P_PUSH(P, ns, n, cap, t.text);
    P_PUSH(P, ss, sn, scap, sp);
    if (!p_match(P, TOK_COMMA)) break;
  }
  *names = ns;
  *spans = ss;
  *count = n;
}

/* type       = simple_type | func_type | tuple_type ;
 * simple_type = TYPE_IDENT type_args? ;   type_args = "[" types "]" ;
 * func_type  = "(" types? ")" "->" type effects? ;
 * tuple_type = "(" types ")"   -- desugared to Tuple[...]; `()` alone is the
 *                                 (unknown) type Tuple, as in the reference */
static TypeExpr *parse_type_inner(Parser *P) {
  Span at = here(P);
  if (p_check(P, TOK_LPAREN)) {
    p_advance(P);
    TypeExpr **items = NULL;
    int n = 0, cap = 0;
    if (!p_check(P, TOK_RPAREN)) {
      P_PUSH(P, items, n, cap, parse_type(P));
      while (p_match(P, TOK_COMMA)) P_PUSH(P, items, n, cap, parse_type(P));
    }
    p_expect(P, TOK_RPAREN, NULL);
    if (p_match(P, TOK_ARROW)) {
      TypeExpr *t = new_type(P, TE_FUNC, at);
      t->args = items;
      t->nargs = n;
      t->ret = parse_type(P);
      if (p_match(P, TOK_WITH)) parse_effect_list(P, &t->effects, &t->effect_spans, &t->neffects);
      return t;
    }
    TypeExpr *t = new_type(P, TE_NAME, at);
    t->name = P->n_tuple;
    t->is_tuple = true;
    t->args = items;
    t->nargs = n;
    return t;
  }
  if (p_check(P, TOK_TYPE_IDENT)) {
    TypeExpr *t = new_type(P, TE_NAME, at);
    t->name = p_advance(P)->text;
    if (p_match(P, TOK_LBRACKET)) {
      int cap = 0;
      P_PUSH(P, t->args, t->nargs, cap, parse_type(P));
      while (p_match(P, TOK_COMMA)) P_PUSH(P, t->args, t->nargs, cap, parse_type(P));
      p_expect(P, TOK_RBRACKET, NULL);
    }
    return t;
  }
  p_error(P,
          "Expected type annotation (e.g., Int, String, List[T], or a user-defined type), got %s",
          tok_name(p_kind(P)));
}

TypeExpr *parse_type(Parser *P) {
  p_enter(P, "Type annotation");
  TypeExpr *t = parse_type_inner(P);
  p_leave(P);
  return t;
}

/* ---- patterns ------------------------------------------------------------------- */

static Pattern *new_pat(Parser *P, PatternKind k, Span at) {
  Pattern *p = p_new(P, sizeof *p);
  p->kind = k;
  at.file = P->file;
  p->span = at;
  return p;
}

/* pattern_elem = "..." IDENT? | pattern */
static Pattern *parse_pattern_elem(Parser *P) {
  Span at = here(P);
  if (p_check(P, TOK_DOT) && p_peek_kind(P, 1) == TOK_DOT && p_peek_kind(P, 2) == TOK_DOT) {
    p_advance(P);
    p_advance(P);
    p_advance(P);
    Pattern *p = new_pat(P, PAT_REST, at);
    if (p_check(P, TOK_IDENT)) p->name = p_advance(P)->text;
    return p;
  }
  return parse_pattern(P);
}

/* pattern = "_" | IDENT | TYPE_IDENT ("(" patterns? ")")? | literal
 *         | "[" pattern_elems? "]" */
static Pattern *parse_pattern_inner(Parser *P) {
  Span at = here(P);
  TokKind k = p_kind(P);
  if (k == TOK_UNDERSCORE) {
    p_advance(P);
    return new_pat(P, PAT_WILDCARD, at);
  }
  if (k == TOK_LBRACKET) {
    p_advance(P);
    Pattern *p = new_pat(P, PAT_LIST, at);
    int cap = 0, rests = 0;
    if (!p_check(P, TOK_RBRACKET)) {
      P_PUSH(P, p->items, p->n, cap, parse_pattern_elem(P));
      while (p_match(P, TOK_COMMA)) P_PUSH(P, p->items, p->n, cap, parse_pattern_elem(P));
    }
    p_expect(P, TOK_RBRACKET, NULL);
    for (int i = 0; i < p->n; i++) rests += p->items[i]->kind == PAT_REST;
    if (rests > 1) p_error(P, "List pattern may contain at most one rest ('...') element");
    return p;
  }
  if (k == TOK_TYPE_IDENT) {
    Pattern *p = new_pat(P, PAT_CTOR, at);
    p->name = p_advance(P)->text;
    if (p_match(P, TOK_LPAREN)) {
      p->has_parens = true;
      int cap = 0;
      if (!p_check(P, TOK_RPAREN)) {
        P_PUSH(P, p->items, p->n, cap, parse_pattern(P));
        while (p_match(P, TOK_COMMA)) P_PUSH(P, p->items, p->n, cap, parse_pattern(P));
      }
      p_expect(P, TOK_RPAREN, NULL);
    }
    return p;
  }
  if (k == TOK_IDENT) {
    Pattern *p = new_pat(P, PAT_VAR, at);
    p->name = p_advance(P)->text;
    return p;
  }
  if (k == TOK_INT) {
    Token t = *p_advance(P);
    Pattern *p = new_pat(P, PAT_INT, at);
    p->digits = t.text;
    p->len = t.len;
    return p;
  }
  if (k == TOK_FLOAT) {
    Pattern *p = new_pat(P, PAT_FLOAT, at);
    p->fval = p_advance(P)->fval;
    return p;
  }
  if (k == TOK_STRING) {
    Token t = *p_advance(P);
    Pattern *p = new_pat(P, PAT_STRING, at);
    p->str = t.text;
    p->len = t.len;
    return p;
  }
  if (k == TOK_TRUE || k == TOK_FALSE) {
    Pattern *p = new_pat(P, PAT_BOOL, at);
    p->bval = p_advance(P)->kind == TOK_TRUE;
    return p;
  }
  p_error(P,
          "Expected match pattern (e.g., a literal, variable name, constructor, or '_' wildcard), got %s",
          tok_name(k));
}

Pattern *parse_pattern(Parser *P) {
  p_enter(P, "Pattern");
  Pattern *p = parse_pattern_inner(P);
  p_leave(P);
  return p;
}

/* ---- declarations ------------------------------------------------------------ */

/* param = IDENT ":" type ("=" expr)? */
static Param parse_param(Parser *P) {
  Param prm;
  memset(&prm, 0, sizeof prm);
  prm.span = here(P);
  prm.name = p_expect(P, TOK_IDENT, "Expected parameter name")->text;
  p_expect(P, TOK_COLON, NULL);
  prm.type = parse_type(P);
  if (p_match(P, TOK_ASSIGN)) prm.def = parse_expression(P);
  return prm;
}

/* params = param ("," param)* ; required parameters must come first (E200,
 * recorded without stopping, as the reference does). */
Param *parse_param_list(Parser *P, int *count) {
  Param *ps = NULL;
  int n = 0, cap = 0;
  if (!p_check(P, TOK_RPAREN)) {
    P_PUSH(P, ps, n, cap, parse_param(P));
    while (p_match(P, TOK_COMMA)) P_PUSH(P, ps, n, cap, parse_param(P));
  }
  bool seen_default = false;
  for (int i = 0; i < n; i++) {
    if (ps[i].def) seen_default = true;
    else if (seen_default)
      p_record(P, E_PARSE_UNEXPECTED, ps[i].span,
               "Required parameter '%s' cannot follow a parameter with a default value", ps[i].name);
  }
  *count = n;
  return ps;
}

/* func_def = "async"? "func" IDENT "(" params? ")" "->" type effects?
 *            spec_clause* statement* "end" "func" IDENT? */
static FuncDecl *parse_func(Parser *P, bool is_async, FuncDecl *into) {
  FuncDecl *f = into ? into : p_new(P, sizeof *f);
  f->is_async = is_async;
  f->span = here(P);
  f->span.file = P->file;
  p_expect(P, TOK_FUNC, NULL);
  f->name_span = here(P);
  f->name = p_expect(P, TOK_IDENT, "Expected function name")->text;
  p_expect(P, TOK_LPAREN, NULL);
  f->params = parse_param_list(P, &f->nparams);
  p_expect(P, TOK_RPAREN, NULL);
  p_expect(P, TOK_ARROW, NULL);
  f->ret = parse_type(P);
  if (p_match(P, TOK_WITH)) {
    f->has_effects = true;
    parse_effect_list(P, &f->effects, &f->effect_spans, &f->neffects);
  }
  /* spec_clause = "requires" expr | "ensures" expr | "example" exprs "->" expr */
  int rcap = 0, ecap = 0, xcap = 0;
  for (;;) {
    Span at = here(P);
    at.file = P->file;
    if (p_match(P, TOK_REQUIRES)) {
      SpecClause c = {at, parse_expression(P)};
      P_PUSH(P, f->requires, f->nrequires, rcap, c);
    } else if (p_match(P, TOK_ENSURES)) {
      SpecClause c = {at, parse_expression(P)};
      P_PUSH(P, f->ensures, f->nensures, ecap, c);
    } else if (p_match(P, TOK_EXAMPLE)) {
      Expr **ins = NULL;
      int n = 0, cap = 0;
      P_PUSH(P, ins, n, cap, parse_expression(P));
      while (p_match(P, TOK_COMMA)) P_PUSH(P, ins, n, cap, parse_expression(P));
      p_expect(P, TOK_ARROW, NULL);
      Example x;
      memset(&x, 0, sizeof x);
      x.span = at;
      x.output = parse_expression(P);
      if (n == 1) {
        x.input = ins[0];
      } else {
        x.input = p_expr(P, EX_TUPLE, at);
        x.input->u.list.items = ins;
        x.input->u.list.n = n;
        x.several = true;
      }
      P_PUSH(P, f->examples, f->nexamples, xcap, x);
    } else {
      break;
    }
  }
  f->body = parse_statement_list(P);
  f->end_span = here(P);
  p_expect(P, TOK_END, NULL);
  p_expect(P, TOK_FUNC, NULL);
  if (p_check(P, TOK_IDENT)) {
    const char *closing = p_advance(P)->text;
    if (closing != f->name)
      p_error(P, "Function closing name '%s' doesn't match '%s'", closing, f->name);
  }
  return f;
}

/* type_def = "type" TYPE_IDENT type_params? "=" variants
 * type_alias = "type" TYPE_IDENT type_params? "=" type
 * Alias or ADT is decided by the first tokens after "=" as the reference
 * does: "(" or "Name[" or "Name" not followed by "(" or "|" is an alias. */
static Decl *parse_type_decl(Parser *P, Decl *d) {
  p_expect(P, TOK_TYPE, NULL);
  const char *name = p_expect(P, TOK_TYPE_IDENT, "Expected type name")->text;
  const char **params = NULL;
  int np = 0, pcap = 0;
  if (p_match(P, TOK_LBRACKET)) {
    P_PUSH(P, params, np, pcap, p_expect(P, TOK_TYPE_IDENT, NULL)->text);
    while (p_match(P, TOK_COMMA)) P_PUSH(P, params, np, pcap, p_expect(P, TOK_TYPE_IDENT, NULL)->text);
    p_expect(P, TOK_RBRACKET, NULL);
  }
  p_expect(P, TOK_ASSIGN, NULL);
  TokKind k1 = p_peek_kind(P, 1);
  bool alias = p_check(P, TOK_LPAREN) ||
               (p_check(P, TOK_TYPE_IDENT) && (k1 == TOK_LBRACKET || (k1 != TOK_LPAREN && k1 != TOK_BAR)));
  if (alias) {
    d->kind = D_ALIAS;
    d->u.alias.name = name;
    d->u.alias.params = params;
    d->u.alias.nparams = np;
    d->u.alias.target = parse_type(P);
    return d;
  }
  d->kind = D_ADT;
  d->u.adt.name = name;
  d->u.adt.params = params;
  d->u.adt.nparams = np;
  int vcap = 0;
  do {
    /* variant = TYPE_IDENT ("(" IDENT ":" type ("," IDENT ":" type)* ")")? */
    Variant v;
    memset(&v, 0, sizeof v);
    v.span = here(P);
    v.span.file = P->file;
    v.name = p_expect(P, TOK_TYPE_IDENT, "Expected variant name")->text;
    if (p_match(P, TOK_LPAREN)) {
      v.has_parens = true;
      int fcap = 0;
      if (!p_check(P, TOK_RPAREN)) {
        do {
          FieldDecl fd;
          fd.span = here(P);
          fd.span.file = P->file;
          fd.name = p_expect(P, TOK_IDENT, NULL)->text;
          p_expect(P, TOK_COLON, NULL);
          fd.type = parse_type(P);
          P_PUSH(P, v.fields, v.nfields, fcap, fd);
        } while (p_match(P, TOK_COMMA));
      }
      p_expect(P, TOK_RPAREN, NULL);
    }
    P_PUSH(P, d->u.adt.variants, d->u.adt.n, vcap, v);
  } while (p_match(P, TOK_BAR));
  return d;
}

/* trait_def = "trait" TYPE_IDENT trait_method* "end" "trait"
 * trait_method = "func" IDENT "(" params ")" "->" type   (no effects, body or
 * spec clauses: a `with` there fails as "Expected 'func', got 'with'") */
static void parse_trait(Parser *P, Decl *d) {
  p_expect(P, TOK_TRAIT, NULL);
  d->u.trait.name = p_expect(P, TOK_TYPE_IDENT, "Expected trait name (PascalCase)")->text;
  int cap = 0;
  while (!p_check(P, TOK_END) && !p_check(P, TOK_EOF)) {
    TraitMethod m;
    memset(&m, 0, sizeof m);
    m.span = here(P);
    m.span.file = P->file;
    p_expect(P, TOK_FUNC, NULL);
    m.name = p_expect(P, TOK_IDENT, "Expected method name")->text;
    p_expect(P, TOK_LPAREN, NULL);
    m.params = parse_param_list(P, &m.nparams);
    p_expect(P, TOK_RPAREN, NULL);
    p_expect(P, TOK_ARROW, NULL);
    m.ret = parse_type(P);
    P_PUSH(P, d->u.trait.methods, d->u.trait.n, cap, m);
  }
  p_expect(P, TOK_END, NULL);
  p_expect(P, TOK_TRAIT, NULL);
}

/* impl_def = "impl" TYPE_IDENT "for" TYPE_IDENT func_def* "end" "impl" */
static void parse_impl(Parser *P, Decl *d) {
  p_expect(P, TOK_IMPL, NULL);
  d->u.impl.trait_span = here(P);
  d->u.impl.trait = p_expect(P, TOK_TYPE_IDENT, "Expected trait name (PascalCase)")->text;
  p_expect(P, TOK_FOR, NULL);
  d->u.impl.type_span = here(P);
  d->u.impl.type = p_expect(P, TOK_TYPE_IDENT, "Expected type name (PascalCase)")->text;
  int cap = 0;
  while (!p_check(P, TOK_END) && !p_check(P, TOK_EOF)) P_PUSH(P, d->u.impl.methods, d->u.impl.n, cap, parse_func(P, false, NULL));
  p_expect(P, TOK_END, NULL);
  p_expect(P, TOK_IMPL, NULL);
}

/* test_block = "test" STRING (statement | "assert" expr)* "end" "test" */
static void parse_test(Parser *P, Decl *d) {
  p_expect(P, TOK_TEST, NULL);
  Token name = *p_expect(P, TOK_STRING, "Expected test name string");
  d->u.test.name = name.text;
  d->u.test.name_len = name.len;
  int cap = 0;
  while (!p_check(P, TOK_END) && !p_check(P, TOK_EOF)) {
    Stmt *s;
    if (p_check(P, TOK_ASSERT)) {
      s = p_stmt(P, ST_ASSERT, here(P));
      p_advance(P);
      s->u.expr = parse_expression(P);
    } else {
      s = parse_statement(P);
    }
    P_PUSH(P, d->u.test.body.items, d->u.test.body.n, cap, s);
  }
  p_expect(P, TOK_END, "Expected 'end' to close test block");
  p_expect(P, TOK_TEST, "Expected 'test' after 'end'");
}

/* annotation = "@" "untested" "(" STRING ")"  (the only annotation) */
static const char *parse_untested(Parser *P) {
  p_expect(P, TOK_AT, NULL);
  Token name = *p_expect(P, TOK_IDENT, "Expected annotation name after '@'");
  if (name.text != P->n_untested) p_error(P, "Unknown annotation '@%s', expected '@untested'", name.text);
  p_expect(P, TOK_LPAREN, "Expected '(' after '@untested'");
  Token reason = *p_expect(P, TOK_STRING, "Expected reason string in @untested()");
  if (reason.len == 0) p_error(P, "@untested reason string must not be empty");
  p_expect(P, TOK_RPAREN, "Expected ')' after reason string");
  return reason.text;
}

/* definition = [annotation] ["export" [annotation]]
 *              ( ["async"] func_def | type_def | import | trait | impl | test ) */
static Decl *parse_definition(Parser *P) {
  Decl *d = p_new(P, sizeof *d);
  const char *untested = NULL;
  if (p_check(P, TOK_AT)) untested = parse_untested(P);
  bool exported = false;
  if (p_check(P, TOK_EXPORT)) {
    if (untested) p_error(P, "@untested must come after 'export', not before");
    p_advance(P);
    exported = true;
    if (p_check(P, TOK_AT)) untested = parse_untested(P);
  }
  d->span = here(P);
  d->span.file = P->file;
  d->exported = exported;
  TokKind k = p_kind(P);
  if (k == TOK_ASYNC || k == TOK_FUNC) {
    bool is_async = p_match(P, TOK_ASYNC);
    d->kind = D_FUNC;
    parse_func(P, is_async, &d->u.func);
    d->u.func.untested = untested;
    d->u.func.exported = exported;
    return d;
  }
  if (k == TOK_TYPE || k == TOK_IMPORT || k == TOK_TRAIT || k == TOK_IMPL || k == TOK_TEST) {
    if (untested) p_error(P, "@untested annotation is only valid on functions");
  }
  switch (k) {
  case TOK_TYPE:
    return parse_type_decl(P, d);
  case TOK_IMPORT:
    if (exported) p_error(P, "'export' cannot be used with 'import'");
    /* import_stmt = "import" TYPE_IDENT ("as" TYPE_IDENT)? */
    p_advance(P);
    d->kind = D_IMPORT;
    d->u.import.module_span = here(P);
    d->u.import.module = p_expect(P, TOK_TYPE_IDENT, "Expected module name (PascalCase)")->text;
    if (p_check(P, TOK_IDENT) && p_cur(P)->text == P->n_as) {
      p_advance(P);
      d->u.import.alias = p_expect(P, TOK_TYPE_IDENT, "Expected alias name (PascalCase) after 'as'")->text;
    }
    return d;
  case TOK_TRAIT:
    if (exported) p_error(P, "'export' on traits is not yet supported");
    d->kind = D_TRAIT;
    parse_trait(P, d);
    return d;
  case TOK_IMPL:
    if (exported) p_error(P, "'export' cannot be used with 'impl'");
    d->kind = D_IMPL;
    parse_impl(P, d);
    return d;
  case TOK_TEST:
    if (exported) p_error(P, "'export' cannot be used with 'test'");
    d->kind = D_TEST;
    parse_test(P, d);
    return d;
  default:
    p_error(P, "Expected 'func', 'type', 'trait', 'impl', 'test', 'export', or 'import', got %s",
            tok_name(k));
  }
}

static bool is_sync_token(TokKind k) {
  return k == TOK_FUNC || k == TOK_TYPE || k == TOK_IMPORT || k == TOK_TRAIT || k == TOK_IMPL ||
         k == TOK_TEST;
}

/* program = (definition | import_stmt)* */
static void parse_program(Parser *P, Module *m) {
  /* m->decls / m->ndecls / P->decl_cap live in memory, not in locals, so
   * their values survive the longjmp of an error. */
  jmp_buf jb;
  P->on_error = &jb;
  while (!p_check(P, TOK_EOF) && !P->gave_up) {
    if (setjmp(jb) == 0) {
      P->decl_nodes = P->nodes;
      Decl *d = parse_definition(P);
      d->nnodes = P->nodes - P->decl_nodes;
      P_PUSH(P, m->decls, m->ndecls, P->decl_cap, d);
    } else {
      /* Recovery: skip to the next definition keyword. The keyword of a
       * closer (`end func`, `end test` ...) starts nothing: skipping it
       * too spares the follow-on "Expected function name" the reference
       * reports past the end of the broken definition. */
      P->depth = 0;
      bool after_end = false;
      while (!p_check(P, TOK_EOF) && (!is_sync_token(p_kind(P)) || after_end) && !P->gave_up)
        after_end = p_advance(P)->kind == TOK_END;
    }
  }
}

void parser_init_names(Parser *P);
void parser_init_names(Parser *P) {
  P->n_when = intern_cstr(P->names, "when");
  P->n_as = intern_cstr(P->names, "as");
  P->n_untested = intern_cstr(P->names, "untested");
  P->n_tuple = intern_cstr(P->names, "Tuple");
  P->n_none = intern_cstr(P->names, "None");
}

/* The module's own copy of its source, with line ends normalised: CR LF
 * and a lone CR both become LF. The reference reads files in Python's
 * universal-newline mode, so this is what it sees for a file; it gives
 * the right line and column numbers for Windows and classic-Mac files,
 * and keeps CRs out of multi-line string values. *len is updated. */
static char *copy_source(Arena *A, const char *src, size_t *len) {
  size_t n = *len;
  if (!memchr(src, '\r', n)) return arena_strndup(A, src, n);
  char *out = arena_alloc(A, n + 1);
  size_t k = 0;
  for (size_t i = 0; i < n; i++) {
    if (src[i] != '\r') {
      out[k++] = src[i];
    } else {
      out[k++] = '\n';
      if (i + 1 < n && src[i + 1] == '\n') i++;
    }
  }
  out[k] = '\0';
  *len = k;
  return out;
}

/* The body of parse_module, out of line so that no local variable of the
 * function that calls setjmp changes after it (-Wclobbered); the module is
 * published through *out as soon as it exists. */
static void parse_module_body(Program *prog, const char *name, const char *file, const char *src,
                              size_t len, DiagList *diags, Module *volatile *out) {
  Arena *A = &prog->arena;
  Module *m = arena_alloc(A, sizeof *m);
  m->name = intern_cstr(&prog->names, name);
  m->file = arena_strdup(A, file);
  m->src = copy_source(A, src, &len);
  m->len = len;
  if (prog->nmodules == prog->cap) {
    int cap = prog->cap ? prog->cap * 2 : 4;
    prog->modules = arena_grow(A, prog->modules, (size_t)prog->nmodules, (size_t)cap, sizeof(Module *));
    prog->cap = cap;
  }
  prog->modules[prog->nmodules++] = m;
  *out = m;

  Parser *P = arena_alloc(A, sizeof *P);
  P->prog = prog;
  P->arena = A;
  P->names = &prog->names;
  P->diags = diags;
  P->file = m->file;
  parser_init_names(P);
  lex_init(&P->lx, m->src, len, m->file, 1, 1, A, &prog->names);
  if (len <= LEX_ONE_PASS_MAX_SOURCE) {
    /* One pass (lexer.h): parse while lexing; if the input turns out to
     * have a lexical error, undo the parse so that only that error is
     * reported, exactly as the two-pass way would. */
    if (!lex_start(&P->lx, diags)) return;
    Module before = *m;
    int ndiags = diags->count, ndropped = diags->dropped;
    parse_program(P, m);
    if (!lex_finish(&P->lx, NULL)) {
      diag_truncate(diags, ndiags, ndropped);
      *m = before;
      lex_finish(&P->lx, diags); /* reports the error it keeps */
      return;
    }
    m->parsed_ok = !P->any_error;
    parse_check_depth(m, A, diags);
    return;
  }
  Lexer scan;
  lex_init(&scan, m->src, len, m->file, 1, 1, NULL, NULL);
  if (!lex_scan(&scan, diags)) return;
  parse_program(P, m);
  m->parsed_ok = !P->any_error;
  parse_check_depth(m, A, diags);
}

Module *parse_module(Program *prog, const char *name, const char *file, const char *src, size_t len,
                     DiagList *diags) {
  Arena *A = &prog->arena;
  jmp_buf oom;
  jmp_buf *saved_oom = A->oom;
  Module *volatile m = NULL; /* read after a longjmp */
  /* Everything allocates from the arena, the source copy first, so running
   * out of memory anywhere becomes a diagnostic. */
  A->oom = &oom;
  if (setjmp(oom) == 0) {
    parse_module_body(prog, name, file, src, len, diags, &m);
  } else {
    Span sp = {m ? m->file : NULL, 1, 1, 1, 1};
    diag_add(diags, E_PARSE_UNEXPECTED, m ? &sp : NULL,
             "Program too large: the parser ran out of memory (limit %zu bytes)", A->limit);
    if (m) {
      m->decls = NULL;
      m->ndecls = 0;
      m->parsed_ok = false;
    }
  }
  A->oom = saved_oom;
  return m;
}

TypeExpr *parse_type_text(Program *prog, const char *text, size_t len, DiagList *diags) {
  DiagList local;
  diag_init(&local);
  DiagList *d = diags ? diags : &local;
  Arena *A = &prog->arena;
  TypeExpr *volatile result = NULL;
  /* The lexer reads up to a NUL after the text: a signature's type is a
   * slice of a longer string, copied (to the stack when it is short). */
  char buf[256];
  if (len < sizeof buf) {
    memcpy(buf, text, len);
    buf[len] = '\0';
    text = buf;
  } else {
    text = arena_strndup(A, text, len);
  }
  Lexer scan;
  lex_init(&scan, text, len, "<type>", 1, 1, NULL, NULL);
  Parser parser; /* the checker parses every builtin signature used: no arena copy each time */
  if (lex_scan(&scan, d)) {
    memset(&parser, 0, sizeof parser);
    Parser *volatile P = &parser; /* live across the setjmp below */
    P->prog = prog;
    P->arena = A;
    P->names = &prog->names;
    P->diags = d;
    P->file = "<type>";
    P->n_tuple = intern(P->names, "Tuple", 5); /* the only name a type needs */
    lex_init(&P->lx, text, len, P->file, 1, 1, A, &prog->names);
    jmp_buf jb;
    P->on_error = &jb;
    if (setjmp(jb) == 0) {
      TypeExpr *t = parse_type(P);
      p_expect(P, TOK_EOF, NULL);
      result = t;
    }
  }
  diag_free(&local);
  return result;
}

/* ---- program ---------------------------------------------------------------- */

void ast_program_init(Program *p, size_t arena_limit) {
  memset(p, 0, sizeof *p);
  arena_init(&p->arena, arena_limit);
  intern_init(&p->names, &p->arena);
}

void ast_program_free(Program *p) {
  arena_free(&p->arena);
  memset(p, 0, sizeof *p);
}

static const char *const binop_text[] = {
    [OP_ADD] = "+",  [OP_SUB] = "-",  [OP_MUL] = "*",   [OP_DIV] = "/",   [OP_MOD] = "%",
    [OP_POW] = "**", [OP_EQ] = "==",  [OP_NEQ] = "!=",  [OP_LT] = "<",    [OP_GT] = ">",
    [OP_LTE] = "<=", [OP_GTE] = ">=", [OP_BAND] = "&",  [OP_BXOR] = "^",  [OP_SHL] = "<<",
    [OP_SHR] = ">>", [OP_AND] = "and", [OP_OR] = "or",
};

const char *ast_binop_text(BinOp op) { return binop_text[op]; }

const char *ast_unop_text(UnOp op) { return op == OP_NEG ? "-" : op == OP_BNOT ? "~" : "not"; }
