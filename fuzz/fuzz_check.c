/* libFuzzer target for the typechecker: the front end, then chk_program on
 * every input that parses.
 *
 * Besides crashes, leaks and sanitizer reports, it checks properties every
 * input must have (a failed check is __builtin_trap):
 * - the checker's verdict agrees with its diagnostics, every diagnostic is a
 *   checker code (E300-E312) or E204 (circular import) with a message;
 * - on success, every expression the compiler will compile carries a type
 *   (the contract in src/check/types.h), i.e. all but pipeline
 *   placeholders and the `where` of typed holes (never evaluated).
 * A third of the inputs (chosen by length, so a reproducer keeps its
 * target) are checked for one of the four execution targets as well. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <geno.h>

#include "check/check.h"
#include "check/types.h"
#include "lib/builtins.h"
#include "runtime/frontend.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(cond)                                                            \
  do {                                                                         \
    if (!(cond)) __builtin_trap();                                             \
  } while (0)

static void typed_expr(const Expr *e);
static void typed_block(Block b);

static void typed_arms(const MatchArm *arms, int n) {
  for (int i = 0; i < n; i++) {
    if (arms[i].guard) typed_expr(arms[i].guard);
    if (arms[i].value) typed_expr(arms[i].value);
    typed_block(arms[i].body);
  }
}

static void typed_expr(const Expr *e) {
  if (!e) return;
  if (e->kind == EX_PLACEHOLDER) return;
  CHECK(e->type != NULL);
  CHECK(e->type != NULL);
  switch (e->kind) {
  case EX_FSTRING:
    for (int i = 0; i < e->u.fstr.n; i++) typed_expr(e->u.fstr.pieces[i].expr);
    break;
  case EX_LIST: case EX_TUPLE:
    for (int i = 0; i < e->u.list.n; i++) typed_expr(e->u.list.items[i]);
    break;
  case EX_LIST_COMP:
    typed_expr(e->u.comp.elem);
    typed_expr(e->u.comp.iter);
    typed_expr(e->u.comp.cond);
    break;
  case EX_THROW: case EX_AWAIT: case EX_PROPAGATE:
    typed_expr(e->u.operand);
    break;
  case EX_BINARY:
    typed_expr(e->u.bin.l);
    typed_expr(e->u.bin.r);
    break;
  case EX_UNARY:
    typed_expr(e->u.un.e);
    break;
  case EX_CALL:
    typed_expr(e->u.call.callee);
    for (int i = 0; i < e->u.call.nargs; i++) typed_expr(e->u.call.args[i].value);
    break;
  case EX_CTOR:
    for (int i = 0; i < e->u.ctor.nargs; i++) typed_expr(e->u.ctor.args[i].value);
    break;
  case EX_INDEX:
    typed_expr(e->u.index.target);
    typed_expr(e->u.index.index);
    break;
  case EX_FIELD:
    typed_expr(e->u.field.target);
    break;
  case EX_WITH:
    typed_expr(e->u.with.target);
    for (int i = 0; i < e->u.with.n; i++) typed_expr(e->u.with.inits[i].value);
    break;
  case EX_PIPELINE:
    typed_expr(e->u.pipe.init);
    for (int i = 0; i < e->u.pipe.n; i++) {
      typed_expr(e->u.pipe.stages[i].fn);
      for (int k = 0; k < e->u.pipe.stages[i].nargs; k++) typed_expr(e->u.pipe.stages[i].args[k]);
    }
    break;
  case EX_LAMBDA:
    typed_expr(e->u.lambda.body);
    typed_block(e->u.lambda.block);
    break;
  case EX_MATCH:
    typed_expr(e->u.match.scrutinee);
    typed_arms(e->u.match.arms, e->u.match.n);
    break;
  default:
    break;
  }
}

static void typed_block(Block b) {
  for (int i = 0; i < b.n; i++) {
    const Stmt *st = b.items[i];
    switch (st->kind) {
    case ST_LET: typed_expr(st->u.let.value); break;
    case ST_DESTRUCT: typed_expr(st->u.destr.value); break;
    case ST_ASSIGN: typed_expr(st->u.assign.value); break;
    case ST_INDEX_ASSIGN:
      typed_expr(st->u.index_assign.target);
      typed_expr(st->u.index_assign.index);
      typed_expr(st->u.index_assign.value);
      break;
    case ST_FIELD_ASSIGN:
      typed_expr(st->u.field_assign.target);
      typed_expr(st->u.field_assign.value);
      break;
    case ST_IF:
      typed_expr(st->u.if_.cond);
      typed_block(st->u.if_.then_b);
      typed_block(st->u.if_.else_b);
      break;
    case ST_WHILE:
      typed_expr(st->u.while_.cond);
      typed_block(st->u.while_.body);
      break;
    case ST_FOR:
      typed_expr(st->u.for_.iter);
      typed_block(st->u.for_.body);
      break;
    case ST_MATCH:
      typed_expr(st->u.match.scrutinee);
      typed_arms(st->u.match.arms, st->u.match.n);
      break;
    case ST_RETURN: typed_expr(st->u.ret.value); break;
    case ST_TRY:
      typed_block(st->u.try_.body);
      typed_block(st->u.try_.handler);
      break;
    case ST_EXPR: case ST_ASSERT: typed_expr(st->u.expr); break;
    default: break;
    }
  }
}

static void typed_function(const FuncDecl *f) {
  for (int i = 0; i < f->nparams; i++) typed_expr(f->params[i].def);
  for (int i = 0; i < f->nrequires; i++) typed_expr(f->requires[i].cond);
  for (int i = 0; i < f->nensures; i++) typed_expr(f->ensures[i].cond);
  for (int i = 0; i < f->nexamples; i++) {
    typed_expr(f->examples[i].input);
    typed_expr(f->examples[i].output);
  }
  typed_block(f->body);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  geno_config cfg;
  geno_config_init(&cfg);
  FrontEnd fe;
  rt_frontend_run(&fe, (const char *)data, size, "fuzz.geno", &cfg, true);
  if (fe.ok) {
    ChkOptions opts;
    chk_options_init(&opts);
    if (size % 3 == 0) opts.target = (ChkTarget)(1 + (size / 3) % (CHK_TARGET__COUNT - 1));
    bool ok = chk_program(&fe.prog, lib_builtin_table(), &fe.diags, &opts);
    CHECK(ok == (diag_error_count(&fe.diags) == 0));
    for (int i = 0; i < fe.diags.count; i++) {
      const Diag *d = &fe.diags.items[i];
      CHECK((d->code >= E_TYPE_MISMATCH && d->code <= E_EFFECT_MISMATCH) || d->code == E_PROJECT);
      CHECK(d->message && d->message[0]);
    }
    if (ok) {
      for (int m = 0; m < fe.prog.nmodules; m++) {
        Module *mod = fe.prog.modules[m];
        for (int i = 0; i < mod->ndecls; i++) {
          Decl *d = mod->decls[i];
          if (d->kind == D_FUNC) typed_function(&d->u.func);
          else if (d->kind == D_IMPL)
            for (int k = 0; k < d->u.impl.n; k++) typed_function(d->u.impl.methods[k]);
          else if (d->kind == D_TEST) typed_block(d->u.test.body);
        }
      }
    }
  }
  rt_frontend_free(&fe);
  return 0;
}
