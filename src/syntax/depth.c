/* Tree-depth bound: after a module is parsed, measure how deeply its
 * statement and expression nodes nest and reject declarations deeper than
 * PARSE_MAX_TREE_DEPTH (see parser.h).
 *
 * Why a separate pass: the recursion of the parser is bounded by
 * PARSE_MAX_DEPTH, but several constructs are read in loops and still
 * nest in the tree -- left-associative operator chains (`a + b + c ...`),
 * postfix chains (`x.f.g`, `f()()`, `x??`) and else-if chains. Measuring
 * the finished tree covers all of them, and any construct added later,
 * with one rule; it costs one visit per node.
 *
 * The walk uses an explicit stack (in the program's arena), never the C
 * stack, since its input is exactly the tree that may be too deep.
 * Patterns and type annotations are not visited: they are only ever built
 * by recursion, so PARSE_MAX_DEPTH already bounds them. */
#include "parser_internal.h"

typedef enum { W_EXPR, W_STMT } WalkKind;

typedef struct WalkItem {
  void *node;
  WalkKind kind;
  int depth;
} WalkItem;

typedef struct Walk {
  Arena *arena;
  WalkItem *items;
  int n, cap;
} Walk;

static void push(Walk *w, void *node, WalkKind kind, int depth) {
  if (!node) return;
  if (w->n == w->cap) {
    int nc = w->cap ? w->cap * 2 : 64;
    w->items = arena_grow(w->arena, w->items, (size_t)w->n, (size_t)nc, sizeof *w->items);
    w->cap = nc;
  }
  w->items[w->n].node = node;
  w->items[w->n].kind = kind;
  w->items[w->n].depth = depth;
  w->n++;
}

static void push_block(Walk *w, Block b, int depth) {
  for (int i = 0; i < b.n; i++) push(w, b.items[i], W_STMT, depth);
}

static void push_params(Walk *w, const Param *ps, int n, int depth) {
  for (int i = 0; i < n; i++) push(w, ps[i].def, W_EXPR, depth);
}

static void push_arms(Walk *w, const MatchArm *arms, int n, int depth) {
  for (int i = 0; i < n; i++) {
    push(w, arms[i].guard, W_EXPR, depth);
    push(w, arms[i].value, W_EXPR, depth);
    push_block(w, arms[i].body, depth);
  }
}

/* Push the children of an expression at depth d. */
static void expr_children(Walk *w, Expr *e, int d) {
  switch (e->kind) {
  case EX_INT: case EX_FLOAT: case EX_STRING: case EX_BOOL: case EX_IDENT:
  case EX_TYPE_IDENT: case EX_PLACEHOLDER:
    break;
  case EX_FSTRING:
    for (int i = 0; i < e->u.fstr.n; i++) push(w, e->u.fstr.pieces[i].expr, W_EXPR, d);
    break;
  case EX_LIST: case EX_TUPLE:
    for (int i = 0; i < e->u.list.n; i++) push(w, e->u.list.items[i], W_EXPR, d);
    break;
  case EX_LIST_COMP:
    push(w, e->u.comp.elem, W_EXPR, d);
    push(w, e->u.comp.iter, W_EXPR, d);
    push(w, e->u.comp.cond, W_EXPR, d);
    break;
  case EX_THROW: case EX_AWAIT: case EX_PROPAGATE:
    push(w, e->u.operand, W_EXPR, d);
    break;
  case EX_BINARY:
    push(w, e->u.bin.l, W_EXPR, d);
    push(w, e->u.bin.r, W_EXPR, d);
    break;
  case EX_UNARY:
    push(w, e->u.un.e, W_EXPR, d);
    break;
  case EX_CALL:
    push(w, e->u.call.callee, W_EXPR, d);
    for (int i = 0; i < e->u.call.nargs; i++) push(w, e->u.call.args[i].value, W_EXPR, d);
    break;
  case EX_CTOR:
    for (int i = 0; i < e->u.ctor.nargs; i++) push(w, e->u.ctor.args[i].value, W_EXPR, d);
    break;
  case EX_INDEX:
    push(w, e->u.index.target, W_EXPR, d);
    push(w, e->u.index.index, W_EXPR, d);
    break;
  case EX_FIELD:
    push(w, e->u.field.target, W_EXPR, d);
    break;
  case EX_WITH:
    push(w, e->u.with.target, W_EXPR, d);
    for (int i = 0; i < e->u.with.n; i++) push(w, e->u.with.inits[i].value, W_EXPR, d);
    break;
  case EX_PIPELINE:
    push(w, e->u.pipe.init, W_EXPR, d);
    for (int i = 0; i < e->u.pipe.n; i++) {
      push(w, e->u.pipe.stages[i].fn, W_EXPR, d);
      for (int j = 0; j < e->u.pipe.stages[i].nargs; j++) push(w, e->u.pipe.stages[i].args[j], W_EXPR, d);
    }
    break;
  case EX_LAMBDA:
    push_params(w, e->u.lambda.params, e->u.lambda.nparams, d);
    push(w, e->u.lambda.body, W_EXPR, d);
    push_block(w, e->u.lambda.block, d);
    break;
  case EX_MATCH:
    push(w, e->u.match.scrutinee, W_EXPR, d);
    push_arms(w, e->u.match.arms, e->u.match.n, d);
    break;
  case EX_HOLE:
    push(w, e->u.hole.where, W_EXPR, d);
    break;
  }
}

/* Push the children of a statement at depth d. */
static void stmt_children(Walk *w, Stmt *s, int d) {
  switch (s->kind) {
  case ST_LET: push(w, s->u.let.value, W_EXPR, d); break;
  case ST_DESTRUCT: push(w, s->u.destr.value, W_EXPR, d); break;
  case ST_ASSIGN: push(w, s->u.assign.value, W_EXPR, d); break;
  case ST_INDEX_ASSIGN:
    push(w, s->u.index_assign.target, W_EXPR, d);
    push(w, s->u.index_assign.index, W_EXPR, d);
    push(w, s->u.index_assign.value, W_EXPR, d);
    break;
  case ST_FIELD_ASSIGN:
    push(w, s->u.field_assign.target, W_EXPR, d);
    push(w, s->u.field_assign.value, W_EXPR, d);
    break;
  case ST_IF:
    push(w, s->u.if_.cond, W_EXPR, d);
    push_block(w, s->u.if_.then_b, d);
    push_block(w, s->u.if_.else_b, d);
    break;
  case ST_WHILE:
    push(w, s->u.while_.cond, W_EXPR, d);
    push_block(w, s->u.while_.body, d);
    break;
  case ST_FOR:
    push(w, s->u.for_.iter, W_EXPR, d);
    push_block(w, s->u.for_.body, d);
    break;
  case ST_MATCH:
    push(w, s->u.match.scrutinee, W_EXPR, d);
    push_arms(w, s->u.match.arms, s->u.match.n, d);
    break;
  case ST_RETURN: push(w, s->u.ret.value, W_EXPR, d); break;
  case ST_TRY:
    push_block(w, s->u.try_.body, d);
    push_block(w, s->u.try_.handler, d);
    break;
  case ST_EXPR: case ST_ASSERT: push(w, s->u.expr, W_EXPR, d); break;
  case ST_BREAK: case ST_CONTINUE: break;
  }
}

static void push_func(Walk *w, FuncDecl *f) {
  push_params(w, f->params, f->nparams, 1);
  for (int i = 0; i < f->nrequires; i++) push(w, f->requires[i].cond, W_EXPR, 1);
  for (int i = 0; i < f->nensures; i++) push(w, f->ensures[i].cond, W_EXPR, 1);
  for (int i = 0; i < f->nexamples; i++) {
    push(w, f->examples[i].input, W_EXPR, 1);
    push(w, f->examples[i].output, W_EXPR, 1);
  }
  push_block(w, f->body, 1);
}

/* Nodes are pushed in source order; reversing the ones just pushed makes
 * them pop in source order, so the node reported is the first too-deep one
 * in the text (for `a + b + ...`, the start of the chain). */
static void reverse(Walk *w, int first) {
  for (int i = first, j = w->n - 1; i < j; i++, j--) {
    WalkItem t = w->items[i];
    w->items[i] = w->items[j];
    w->items[j] = t;
  }
}

/* The first node of d deeper than PARSE_MAX_TREE_DEPTH, or NULL. */
static const Span *too_deep(Walk *w, Decl *d) {
  w->n = 0;
  if (d->kind == D_FUNC) push_func(w, &d->u.func);
  else if (d->kind == D_IMPL)
    for (int i = 0; i < d->u.impl.n; i++) push_func(w, d->u.impl.methods[i]);
  else if (d->kind == D_TEST) push_block(w, d->u.test.body, 1);
  reverse(w, 0);
  while (w->n > 0) {
    WalkItem it = w->items[--w->n];
    int first = w->n;
    if (it.kind == W_EXPR) {
      Expr *e = it.node;
      if (it.depth > PARSE_MAX_TREE_DEPTH) return &e->span;
      expr_children(w, e, it.depth + 1);
    } else {
      Stmt *s = it.node;
      if (it.depth > PARSE_MAX_TREE_DEPTH) return &s->span;
      stmt_children(w, s, it.depth + 1);
    }
    reverse(w, first);
  }
  return NULL;
}

void parse_check_depth(Module *m, Arena *arena, DiagList *diags) {
  Walk w = {arena, NULL, 0, 0};
  int kept = 0;
  for (int i = 0; i < m->ndecls; i++) {
    /* No path through the tree passes a node twice, so a declaration of
     * at most PARSE_MAX_TREE_DEPTH nodes is never too deep. */
    const Span *at = m->decls[i]->nnodes > PARSE_MAX_TREE_DEPTH ? too_deep(&w, m->decls[i]) : NULL;
    if (!at) {
      m->decls[kept++] = m->decls[i];
      continue;
    }
    /* Reported, and the declaration dropped, so that no tree reachable
     * from a module is deeper than the bound later phases rely on. */
    Span sp = *at;
    sp.file = m->file;
    diag_add(diags, E_PARSE_UNEXPECTED, &sp,
             "Code nested too deeply (more than %d levels): split this long chain of "
             "operators, calls or else-ifs, or move part of it into a helper function",
             PARSE_MAX_TREE_DEPTH);
    m->parsed_ok = false;
  }
  m->ndecls = kept;
}
