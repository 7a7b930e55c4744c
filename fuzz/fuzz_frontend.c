/* libFuzzer target for the front end: lexer and parser through the
 * internal parse_module API, then the same bytes through the public
 * geno_parse and geno_source_imports.
 *
 * Besides crashes, leaks and sanitizer reports, it checks properties every
 * input must have (a failed check is __builtin_trap, which libFuzzer
 * records as a crash with its input):
 * - every diagnostic is a front-end code (E100-E103, E200-E202) with a
 *   message, and a location inside the input's lines;
 * - a module without diagnostics parsed cleanly, and one with diagnostics
 *   did not;
 * - no tree is deeper than PARSE_MAX_TREE_DEPTH (walked here recursively,
 *   the way later phases will, so a node kind that depth.c forgets to
 *   visit shows up as a trap);
 * - the internal and the public entry points agree on the diagnostics;
 * - geno_source_imports (a byte scan that lists the imports of a source
 *   with syntax errors too) fails exactly on a lexical error: on a source
 *   that parses it lists the module's imports in order, after a lexical
 *   error (E100-E103) it returns -1, and it never fails on a source that
 *   parses; and it answers exactly what the lexer's tokens give (the
 *   type name after each `import` keyword, -1 on a lexical error), which
 *   token_imports below computes the slow way. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <geno.h>

#include "syntax/lexer.h"
#include "syntax/parser.h"

/* Arena bound for one input: far above what -max_len=65536 can need, so
 * hitting it is a finding (it would show as an E200 "ran out of memory"). */
#define FUZZ_ARENA_LIMIT ((size_t)512 << 20)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(cond)                                                            \
  do {                                                                         \
    if (!(cond)) __builtin_trap();                                             \
  } while (0)

/* ---- recursive depth walk (the oracle for depth.c) --------------------- */

static void walk_expr(const Expr *e, int depth);
static void walk_stmt(const Stmt *s, int depth);

static void walk_block(Block b, int depth) {
  for (int i = 0; i < b.n; i++) walk_stmt(b.items[i], depth);
}

static void walk_params(const Param *ps, int n, int depth) {
  for (int i = 0; i < n; i++)
    if (ps[i].def) walk_expr(ps[i].def, depth);
}

static void walk_arms(const MatchArm *arms, int n, int depth) {
  for (int i = 0; i < n; i++) {
    CHECK(arms[i].pat);
    if (arms[i].guard) walk_expr(arms[i].guard, depth);
    if (arms[i].value) walk_expr(arms[i].value, depth);
    walk_block(arms[i].body, depth);
  }
}

static void walk_expr(const Expr *e, int depth) {
  CHECK(e);
  CHECK(depth <= PARSE_MAX_TREE_DEPTH);
  CHECK(e->span.line >= 1);
  int d = depth + 1;
  switch (e->kind) {
  case EX_INT: case EX_FLOAT: case EX_STRING: case EX_BOOL: case EX_IDENT:
  case EX_TYPE_IDENT: case EX_PLACEHOLDER:
    break;
  case EX_FSTRING:
    for (int i = 0; i < e->u.fstr.n; i++)
      if (e->u.fstr.pieces[i].expr) walk_expr(e->u.fstr.pieces[i].expr, d);
      else CHECK(e->u.fstr.pieces[i].text);
    break;
  case EX_LIST: case EX_TUPLE:
    for (int i = 0; i < e->u.list.n; i++) walk_expr(e->u.list.items[i], d);
    break;
  case EX_LIST_COMP:
    walk_expr(e->u.comp.elem, d);
    walk_expr(e->u.comp.iter, d);
    if (e->u.comp.cond) walk_expr(e->u.comp.cond, d);
    break;
  case EX_THROW: case EX_AWAIT: case EX_PROPAGATE:
    walk_expr(e->u.operand, d);
    break;
  case EX_BINARY:
    walk_expr(e->u.bin.l, d);
    walk_expr(e->u.bin.r, d);
    break;
  case EX_UNARY:
    walk_expr(e->u.un.e, d);
    break;
  case EX_CALL:
    walk_expr(e->u.call.callee, d);
    for (int i = 0; i < e->u.call.nargs; i++) walk_expr(e->u.call.args[i].value, d);
    break;
  case EX_CTOR:
    for (int i = 0; i < e->u.ctor.nargs; i++) walk_expr(e->u.ctor.args[i].value, d);
    break;
  case EX_INDEX:
    walk_expr(e->u.index.target, d);
    walk_expr(e->u.index.index, d);
    break;
  case EX_FIELD:
    walk_expr(e->u.field.target, d);
    CHECK(e->u.field.name);
    break;
  case EX_WITH:
    walk_expr(e->u.with.target, d);
    for (int i = 0; i < e->u.with.n; i++) walk_expr(e->u.with.inits[i].value, d);
    break;
  case EX_PIPELINE:
    walk_expr(e->u.pipe.init, d);
    for (int i = 0; i < e->u.pipe.n; i++) {
      walk_expr(e->u.pipe.stages[i].fn, d);
      for (int j = 0; j < e->u.pipe.stages[i].nargs; j++) walk_expr(e->u.pipe.stages[i].args[j], d);
    }
    break;
  case EX_LAMBDA:
    walk_params(e->u.lambda.params, e->u.lambda.nparams, d);
    if (e->u.lambda.is_block) walk_block(e->u.lambda.block, d);
    else walk_expr(e->u.lambda.body, d);
    break;
  case EX_MATCH:
    walk_expr(e->u.match.scrutinee, d);
    CHECK(e->u.match.n > 0);
    walk_arms(e->u.match.arms, e->u.match.n, d);
    break;
  case EX_HOLE:
    CHECK(e->u.hole.type);
    if (e->u.hole.where) walk_expr(e->u.hole.where, d);
    break;
  default:
    CHECK(!"unknown expression kind");
  }
}

static void walk_stmt(const Stmt *s, int depth) {
  CHECK(s);
  CHECK(depth <= PARSE_MAX_TREE_DEPTH);
  int d = depth + 1;
  switch (s->kind) {
  case ST_LET: walk_expr(s->u.let.value, d); break;
  case ST_DESTRUCT:
    CHECK(s->u.destr.n > 0 && s->u.destr.type);
    walk_expr(s->u.destr.value, d);
    break;
  case ST_ASSIGN: walk_expr(s->u.assign.value, d); break;
  case ST_INDEX_ASSIGN:
    walk_expr(s->u.index_assign.target, d);
    walk_expr(s->u.index_assign.index, d);
    walk_expr(s->u.index_assign.value, d);
    break;
  case ST_FIELD_ASSIGN:
    walk_expr(s->u.field_assign.target, d);
    walk_expr(s->u.field_assign.value, d);
    break;
  case ST_IF:
    walk_expr(s->u.if_.cond, d);
    walk_block(s->u.if_.then_b, d);
    walk_block(s->u.if_.else_b, d);
    if (s->u.if_.else_if) CHECK(s->u.if_.else_b.n == 1 && s->u.if_.else_b.items[0]->kind == ST_IF);
    break;
  case ST_WHILE:
    walk_expr(s->u.while_.cond, d);
    walk_block(s->u.while_.body, d);
    break;
  case ST_FOR:
    CHECK(s->u.for_.var_type);
    walk_expr(s->u.for_.iter, d);
    walk_block(s->u.for_.body, d);
    break;
  case ST_MATCH:
    walk_expr(s->u.match.scrutinee, d);
    CHECK(s->u.match.n > 0);
    walk_arms(s->u.match.arms, s->u.match.n, d);
    break;
  case ST_RETURN: walk_expr(s->u.ret.value, d); break;
  case ST_TRY:
    CHECK(s->u.try_.type);
    walk_block(s->u.try_.body, d);
    walk_block(s->u.try_.handler, d);
    break;
  case ST_EXPR: case ST_ASSERT: walk_expr(s->u.expr, d); break;
  case ST_BREAK: case ST_CONTINUE: break;
  default:
    CHECK(!"unknown statement kind");
  }
}

static void walk_func(const FuncDecl *f) {
  CHECK(f->name && f->ret);
  walk_params(f->params, f->nparams, 1);
  for (int i = 0; i < f->nrequires; i++) walk_expr(f->requires[i].cond, 1);
  for (int i = 0; i < f->nensures; i++) walk_expr(f->ensures[i].cond, 1);
  for (int i = 0; i < f->nexamples; i++) {
    walk_expr(f->examples[i].input, 1);
    walk_expr(f->examples[i].output, 1);
  }
  walk_block(f->body, 1);
}

static void walk_module(const Module *m) {
  for (int i = 0; i < m->ndecls; i++) {
    const Decl *d = m->decls[i];
    CHECK(d);
    if (d->kind == D_FUNC) walk_func(&d->u.func);
    else if (d->kind == D_IMPL)
      for (int k = 0; k < d->u.impl.n; k++) walk_func(d->u.impl.methods[k]);
    else if (d->kind == D_TEST) walk_block(d->u.test.body, 1);
  }
}

/* ---- the oracle for geno_source_imports ------------------------------------ */

/* What geno_source_imports must answer, found the slow way: the real
 * lexer over the text with its line ends normalised as parse_module does,
 * collecting each type-name token that follows an `import` keyword. -1
 * on a lexical error. names[] gets up to max of them (malloc'd). */
static int token_imports(const char *src, size_t size, char **names, int max) {
  char *text = malloc(size + 1);
  CHECK(text);
  size_t n = 0;
  for (size_t i = 0; i < size; i++) {
    if (src[i] != '\r') {
      text[n++] = src[i];
    } else {
      text[n++] = '\n';
      if (i + 1 < size && src[i + 1] == '\n') i++;
    }
  }
  text[n] = '\0';
  Lexer lx;
  lex_init(&lx, text, n, "<imports>", 1, 1, NULL, NULL);
  int count = 0;
  if (lex_start(&lx, NULL)) {
    bool after_import = false;
    for (;;) {
      Token t;
      lex_next(&lx, &t);
      if (t.kind == TOK_EOF) break;
      if (after_import && t.kind == TOK_TYPE_IDENT) {
        /* scan mode keeps no text: the name is the token's last t.len bytes */
        if (count < max) names[count] = strndup(text + lx.pos - t.len, t.len);
        count++;
      }
      after_import = t.kind == TOK_IMPORT;
    }
  }
  free(text);
  if (lx.failed) {
    for (int i = 0; i < count && i < max; i++) free(names[i]);
    return -1;
  }
  return count;
}

/* ---- the target ------------------------------------------------------------ */

static int count_lines(const uint8_t *data, size_t size) {
  int n = 1;
  for (size_t i = 0; i < size; i++)
    if (data[i] == '\n' || (data[i] == '\r' && !(i + 1 < size && data[i + 1] == '\n'))) n++;
  return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *src = (const char *)data;
  int lines = count_lines(data, size);

  /* Internal API. */
  Program prog;
  DiagList diags;
  ast_program_init(&prog, FUZZ_ARENA_LIMIT);
  diag_init(&diags);
  Module *m = parse_module(&prog, "Main", "fuzz.geno", src, size, &diags);
  CHECK(m);
  for (int i = 0; i < diags.count; i++) {
    const Diag *dg = &diags.items[i];
    CHECK(dg->message && dg->message[0]);
    CHECK((dg->code >= 100 && dg->code <= 103) || (dg->code >= 200 && dg->code <= 202));
    CHECK(dg->span.line >= 1 && dg->span.line <= lines && dg->span.col >= 1);
    /* Running out of arena on a 64 KiB input would be a memory blow-up. */
    CHECK(strstr(dg->message, "ran out of memory") == NULL);
  }
  CHECK((diags.count == 0) == m->parsed_ok);
  walk_module(m);
  bool lex_error = false;
  for (int i = 0; i < diags.count; i++) lex_error |= diags.items[i].code >= 100 && diags.items[i].code <= 103;
  /* The imports the parser saw, for geno_source_imports below. */
  enum { MAX_IMPORTS = 64 };
  char *imports[MAX_IMPORTS];
  int nimports = 0;
  for (int i = 0; i < m->ndecls && m->parsed_ok; i++)
    if (m->decls[i]->kind == D_IMPORT) {
      if (nimports < MAX_IMPORTS) imports[nimports] = strdup(m->decls[i]->u.import.module);
      nimports++;
    }
  int internal_count = diags.count;
  int first_code = diags.count ? diags.items[0].code : 0;
  diag_free(&diags);
  ast_program_free(&prog);

  /* Public API: the same diagnostics, and the imports query agrees. */
  geno_result *r = geno_parse(src, size, "fuzz.geno", NULL);
  CHECK(r);
  CHECK((int)geno_result_diagnostic_count(r) == internal_count);
  if (internal_count) CHECK(geno_result_diagnostic(r, 0)->code_number == first_code);
  char *json = geno_result_to_json(r);
  CHECK(json);
  geno_free(json);
  bool ok = geno_result_ok(r);
  geno_result_free(r);

  char **names = NULL;
  int n = geno_source_imports(src, size, &names);
  /* exactly what the lexer finds (geno_source_imports does not lex) */
  char *expected[MAX_IMPORTS];
  int nexpected = token_imports(src, size, expected, MAX_IMPORTS);
  CHECK(n == nexpected);
  for (int i = 0; i < n && i < MAX_IMPORTS; i++) {
    CHECK(strcmp(names[i], expected[i]) == 0);
    free(expected[i]);
  }
  if (ok) CHECK(n == nimports);
  if (n < 0) CHECK(!ok);
  if (lex_error) CHECK(n < 0);
  for (int i = 0; i < n; i++) CHECK(names[i] && names[i][0] >= 'A' && names[i][0] <= 'Z');
  for (int i = 0; ok && i < n && i < MAX_IMPORTS; i++) CHECK(imports[i] && strcmp(names[i], imports[i]) == 0);
  for (int i = 0; i < nimports && i < MAX_IMPORTS; i++) free(imports[i]);
  geno_strings_free(names, n > 0 ? (size_t)n : 0);
  return 0;
}
