/* A generic pre-order walk over every expression of a block or function
 * (bodies, clauses, lambda bodies, match arms, pipeline stages), with
 * optional hooks for statements and match arms. Used where a pass only
 * needs to see the tree, not types: the names a function refers to
 * (effects.c), the target rules (target.c). Depth is bounded like every
 * other walk. */
#include "checker.h"

typedef ChkWalk Walker;

static void walk_expr(const Walker *w, Expr *e, int depth);
static void walk_block(const Walker *w, Block b, int depth);

static void walk_arms(const Walker *w, MatchArm *arms, int n, int depth) {
  for (int i = 0; i < n; i++) {
    if (w->arm) w->arm(w->ud, &arms[i]);
    walk_expr(w, arms[i].guard, depth);
    walk_expr(w, arms[i].value, depth);
    walk_block(w, arms[i].body, depth);
  }
}

static void walk_expr(const Walker *w, Expr *e, int depth) {
  if (!e || depth > CHK_MAX_DEPTH) return;
  if (w->expr) w->expr(w->ud, e);
  depth++;
  switch (e->kind) {
  case EX_FSTRING:
    for (int i = 0; i < e->u.fstr.n; i++) walk_expr(w, e->u.fstr.pieces[i].expr, depth);
    break;
  case EX_LIST: case EX_TUPLE:
    for (int i = 0; i < e->u.list.n; i++) walk_expr(w, e->u.list.items[i], depth);
    break;
  case EX_LIST_COMP:
    walk_expr(w, e->u.comp.elem, depth);
    walk_expr(w, e->u.comp.iter, depth);
    walk_expr(w, e->u.comp.cond, depth);
    break;
  case EX_THROW: case EX_AWAIT: case EX_PROPAGATE:
    walk_expr(w, e->u.operand, depth);
    break;
  case EX_BINARY:
    walk_expr(w, e->u.bin.l, depth);
    walk_expr(w, e->u.bin.r, depth);
    break;
  case EX_UNARY:
    walk_expr(w, e->u.un.e, depth);
    break;
  case EX_CALL:
    walk_expr(w, e->u.call.callee, depth);
    for (int i = 0; i < e->u.call.nargs; i++) walk_expr(w, e->u.call.args[i].value, depth);
    break;
  case EX_CTOR:
    for (int i = 0; i < e->u.ctor.nargs; i++) walk_expr(w, e->u.ctor.args[i].value, depth);
    break;
  case EX_INDEX:
    walk_expr(w, e->u.index.target, depth);
    walk_expr(w, e->u.index.index, depth);
    break;
  case EX_FIELD:
    walk_expr(w, e->u.field.target, depth);
    break;
  case EX_WITH:
    walk_expr(w, e->u.with.target, depth);
    for (int i = 0; i < e->u.with.n; i++) walk_expr(w, e->u.with.inits[i].value, depth);
    break;
  case EX_PIPELINE:
    walk_expr(w, e->u.pipe.init, depth);
    for (int i = 0; i < e->u.pipe.n; i++) {
      walk_expr(w, e->u.pipe.stages[i].fn, depth);
      for (int k = 0; k < e->u.pipe.stages[i].nargs; k++) walk_expr(w, e->u.pipe.stages[i].args[k], depth);
    }
    break;
  case EX_LAMBDA:
    if (w->lambda_depth) ++*w->lambda_depth;
    for (int i = 0; i < e->u.lambda.nparams; i++) walk_expr(w, e->u.lambda.params[i].def, depth);
    walk_expr(w, e->u.lambda.body, depth);
    walk_block(w, e->u.lambda.block, depth);
    if (w->lambda_depth) --*w->lambda_depth;
    break;
  case EX_MATCH:
    walk_expr(w, e->u.match.scrutinee, depth);
    walk_arms(w, e->u.match.arms, e->u.match.n, depth);
    break;
  case EX_HOLE:
    walk_expr(w, e->u.hole.where, depth);
    break;
  default:
    break;
  }
}

static void walk_block(const Walker *w, Block b, int depth) {
  if (depth > CHK_MAX_DEPTH) return;
  for (int i = 0; i < b.n; i++) {
    Stmt *st = b.items[i];
    int d = depth + 1;
    if (w->stmt) w->stmt(w->ud, st);
    switch (st->kind) {
    case ST_LET: walk_expr(w, st->u.let.value, d); break;
    case ST_DESTRUCT: walk_expr(w, st->u.destr.value, d); break;
    case ST_ASSIGN: walk_expr(w, st->u.assign.value, d); break;
    case ST_INDEX_ASSIGN:
      walk_expr(w, st->u.index_assign.target, d);
      walk_expr(w, st->u.index_assign.index, d);
      walk_expr(w, st->u.index_assign.value, d);
      break;
    case ST_FIELD_ASSIGN:
      walk_expr(w, st->u.field_assign.target, d);
      walk_expr(w, st->u.field_assign.value, d);
      break;
    case ST_IF:
      walk_expr(w, st->u.if_.cond, d);
      walk_block(w, st->u.if_.then_b, d);
      walk_block(w, st->u.if_.else_b, d);
      break;
    case ST_WHILE:
      walk_expr(w, st->u.while_.cond, d);
      walk_block(w, st->u.while_.body, d);
      break;
    case ST_FOR:
      walk_expr(w, st->u.for_.iter, d);
      walk_block(w, st->u.for_.body, d);
      break;
    case ST_MATCH:
      walk_expr(w, st->u.match.scrutinee, d);
      walk_arms(w, st->u.match.arms, st->u.match.n, d);
      break;
    case ST_RETURN: walk_expr(w, st->u.ret.value, d); break;
    case ST_TRY:
      walk_block(w, st->u.try_.body, d);
      walk_block(w, st->u.try_.handler, d);
      break;
    case ST_EXPR: case ST_ASSERT: walk_expr(w, st->u.expr, d); break;
    default: break;
    }
  }
}

void chk_walk(const ChkWalk *walk, FuncDecl *f) {
  const Walker *w = walk;
  for (int i = 0; i < f->nparams; i++) walk_expr(w, f->params[i].def, 0);
  for (int i = 0; i < f->nrequires; i++) walk_expr(w, f->requires[i].cond, 0);
  for (int i = 0; i < f->nensures; i++) walk_expr(w, f->ensures[i].cond, 0);
  for (int i = 0; i < f->nexamples && !w->skip_examples; i++) {
    walk_expr(w, f->examples[i].input, 0);
    walk_expr(w, f->examples[i].output, 0);
  }
  walk_block(w, f->body, 0);
}

void chk_walk_block(const ChkWalk *walk, Block b) { walk_block(walk, b, 0); }

void chk_walk_function(FuncDecl *f, void (*fn)(void *ud, Expr *e), void *ud) {
  ChkWalk w = {.expr = fn, .ud = ud};
  chk_walk(&w, f);
}
