/* Statements, patterns, return-path analysis, and whole functions: the
 * example requirement, effect annotations, parameters and defaults,
 * requires/ensures/example clauses, and test blocks. */
#include "checker.h"


static Type *prim(Checker *C, TypeKind k) { return ty_prim(&C->tc, k); }

static void mark_promotion(Stmt *st, Type *expected) {
  if (expected && expected->kind == TY_FLOAT) st->aux |= CHK_AUX_PROMOTE_FLOAT;
}

/* ---- let / var / destructuring / assignment --------------------------------------- */

/* `let`/`var`: an annotation wins (and marks Int -> Float promotion);
 * without one the value's type is used, and a type still holding a type
 * variable or Error is E300 "Cannot infer a concrete type" -- unless this
 * statement already reported an error, to avoid a cascade. Shadowing in the
 * same scope is allowed. */
static void check_let(Checker *C, Stmt *st, Scope *s) {
  bool is_var = st->u.let.is_var;
  const char *kw = is_var ? "var" : "let";
  int before = diag_error_count(&C->errors);
  Type *actual = chk_expr(C, st->u.let.value, s);
  if (st->u.let.type) {
    Type *declared = chk_resolve_type(C, st->u.let.type, NULL);
    mark_promotion(st, declared);
    if (!chk_strictly_compatible(C, declared, actual))
      chk_error(C, E_TYPE_MISMATCH, st->span, "Type mismatch in '%s %s': declared type %s, but the value has type %s", kw,
                st->u.let.name, chk_tstr(C, declared), chk_tstr(C, actual));
    chk_bind(C, s, st->u.let.name, declared, is_var);
    return;
  }
  if (diag_error_count(&C->errors) == before && (ty_has_error(actual) || ty_has_var(actual)))
    chk_error(C, E_TYPE_MISMATCH, st->span,
              "Cannot infer a concrete type for '%s %s' from %s; add an explicit type annotation", kw, st->u.let.name,
              chk_tstr(C, actual));
  chk_bind(C, s, st->u.let.name, actual, is_var);
}

static void check_destructure(Checker *C, Stmt *st, Scope *s) {
  Type *declared = chk_resolve_type(C, st->u.destr.type, NULL);
  Type *actual = chk_expr(C, st->u.destr.value, s);
  if (!chk_strictly_compatible(C, declared, actual))
    chk_error(C, E_TYPE_MISMATCH, st->span,
              "Type mismatch in tuple destructuring: declared type %s, but the value has type %s", chk_tstr(C, declared),
              chk_tstr(C, actual));
  if (declared->kind != TY_TUPLE) {
    chk_error(C, E_TYPE_MISMATCH, st->span, "Tuple destructuring requires a tuple type, got %s", chk_tstr(C, declared));
    return;
  }
  if (declared->n != st->u.destr.n) {
    chk_error(C, E_TYPE_MISMATCH, st->span, "Tuple has %d elements, but destructuring has %d names", declared->n,
              st->u.destr.n);
    return;
  }
  for (int i = 0; i < st->u.destr.n; i++) chk_bind(C, s, st->u.destr.names[i], declared->args[i], st->u.destr.is_var);
}

/* `x = e`: the target must exist (E301; the value is then not checked) and
 * be a `var` (E306). */
static void check_assign(Checker *C, Stmt *st, Scope *s) {
  const char *name = st->u.assign.name;
  Type *vt = chk_lookup(C, s, name);
  if (!vt) {
    chk_error(C, E_UNDEFINED_VAR, st->span, "Undefined variable: %s%s", name, chk_suggest_in_scope(C, s, name));
    return;
  }
  if (!chk_is_mutable(C, s, name)) {
    chk_error(C, E_IMMUTABLE_ASSIGN, st->span, "Cannot assign to immutable variable: %s (only `var` variables can be assigned: use `var %s = ...` for a value that changes)", name, name);
    return;
  }
  Type *t = chk_expr(C, st->u.assign.value, s);
  mark_promotion(st, vt);
  if (!chk_strictly_compatible(C, vt, t))
    chk_error(C, E_TYPE_MISMATCH, st->span, "Type mismatch in assignment: expected %s, got %s", chk_tstr(C, vt),
              chk_tstr(C, t));
}

static const char *root_name(Expr *e) {
  for (int guard = 0; guard < 10000; guard++) {
    if (e->kind == EX_IDENT) return e->u.name;
    if (e->kind == EX_FIELD) e = e->u.field.target;
    else if (e->kind == EX_INDEX) e = e->u.index.target;
    else return NULL;
  }
  return NULL;
}

/* Index and field assignment need the *root* variable of the target chain
 * to be a `var`, even for reference types such as Array (mutating builtins
 * like array_set work on `let` bindings all the same). */
static bool root_immutable(Checker *C, Scope *s, Expr *target, const char **root) {
  *root = root_name(target);
  return *root && chk_lookup(C, s, *root) && !chk_is_mutable(C, s, *root);
}

static void check_index_assign(Checker *C, Stmt *st, Scope *s) {
  Type *t = chk_expr(C, st->u.index_assign.target, s);
  Type *it = chk_expr(C, st->u.index_assign.index, s);
  Type *vt = chk_expr(C, st->u.index_assign.value, s);
  const char *root;
  if (root_immutable(C, s, st->u.index_assign.target, &root)) {
    chk_error(C, E_IMMUTABLE_ASSIGN, st->span, "Cannot assign index on immutable variable: %s (only `var` variables can be changed: use `var %s = ...`)", root, root);
    return;
  }
  if (t->kind == TY_ARRAY || t->kind == TY_VEC) {
    if (it->kind != TY_INT)
      chk_error(C, E_TYPE_MISMATCH, st->span, "%s index must be Int, got %s", t->kind == TY_ARRAY ? "Array" : "Vec",
                chk_tstr(C, it));
    if (!chk_strictly_compatible(C, t->args[0], vt))
      chk_error(C, E_TYPE_MISMATCH, st->span, "Type mismatch: expected %s, got %s", chk_tstr(C, t->args[0]),
                chk_tstr(C, vt));
  } else if (t->kind == TY_MUTABLE_MAP) {
    if (!chk_strictly_compatible(C, t->args[0], it))
      chk_error(C, E_TYPE_MISMATCH, st->span, "Map key type mismatch: expected %s, got %s", chk_tstr(C, t->args[0]),
                chk_tstr(C, it));
    if (!chk_strictly_compatible(C, t->args[1], vt))
      chk_error(C, E_TYPE_MISMATCH, st->span, "Map value type mismatch: expected %s, got %s", chk_tstr(C, t->args[1]),
                chk_tstr(C, vt));
  } else {
    chk_error(C, E_TYPE_MISMATCH, st->span, "Cannot use index assignment on %s (only Array, Vec, MutableMap)",
              chk_tstr(C, t));
  }
}

static void check_field_assign(Checker *C, Stmt *st, Scope *s) {
  const char *field = st->u.field_assign.name;
  Type *t = chk_expr(C, st->u.field_assign.target, s);
  if (t->kind != TY_ADT) {
    chk_error(C, E_TYPE_MISMATCH, st->span, "Cannot assign field '%s' on type %s", field, chk_tstr(C, t));
    return;
  }
  const char *root;
  if (root_immutable(C, s, st->u.field_assign.target, &root)) {
    chk_error(C, E_IMMUTABLE_ASSIGN, st->span, "Cannot assign field on immutable variable: %s (only `var` variables can be changed: use `var %s = ...`)", root, root);
    return;
  }
  Type *vt = chk_expr(C, st->u.field_assign.value, s);
  bool reported;
  Type *ft = chk_field_type(C, t, field, st->span, "update", &reported);
  if (reported) return;
  if (!ft) {
    chk_error(C, E_UNKNOWN_FIELD, st->span, "No field '%s' on type %s", field, t->name);
    return;
  }
  if (!chk_strictly_compatible(C, ft, vt))
    chk_error(C, E_TYPE_MISMATCH, st->span, "Type mismatch: field '%s' expects %s, got %s", field, chk_tstr(C, ft),
              chk_tstr(C, vt));
}

/* ---- control flow ------------------------------------------------------------------- */

static void check_match(Checker *C, Stmt *st, Scope *s) {
  Type *scrut = chk_expr(C, st->u.match.scrutinee, s);
  for (int i = 0; i < st->u.match.n; i++) {
    MatchArm *arm = &st->u.match.arms[i];
    Scope *as = chk_scope_new(C, s);
    chk_pattern(C, arm->pat, scrut, as);
    if (arm->guard) {
      Type *g = chk_expr(C, arm->guard, as);
      if (g->kind != TY_BOOL) chk_error(C, E_TYPE_MISMATCH, arm->span, "Match guard must be Bool, got %s", chk_tstr(C, g));
    }
    chk_block(C, arm->body, as);
  }
  chk_exhaustive(C, scrut, st->u.match.arms, st->u.match.n, st->span);
}

/* `return` outside a function (e.g. in a test block) is E300. Inside a
 * block lambda the type is collected, not checked, and no promotion is
 * marked (the reference promotes only the enclosing function's returns). */
static void check_return(Checker *C, Stmt *st, Scope *s) {
  if (!C->current_return) {
    chk_error(C, E_TYPE_MISMATCH, st->span, "Return outside of function");
    return;
  }
  Type *t = chk_expr(C, st->u.ret.value, s);
  if (C->lambda_returns) {
    ReturnCollector *rc = C->lambda_returns;
    if (rc->n == rc->cap) {
      int nc = rc->cap ? rc->cap * 2 : 4;
      rc->items = arena_grow(C->A, rc->items, (size_t)rc->n, (size_t)nc, sizeof(Type *));
      rc->cap = nc;
    }
    rc->items[rc->n++] = t;
    return;
  }
  mark_promotion(st, C->current_return);
  if (!chk_strictly_compatible(C, C->current_return, t))
    chk_error(C, E_TYPE_MISMATCH, st->span, "Return type mismatch: expected %s, got %s", chk_tstr(C, C->current_return),
              chk_tstr(C, t));
}

/* `try ... catch e: T`: T is String (catches every runtime error and
 * thrown value, as text) or an ADT (catches thrown values of that type). */
static void check_try(Checker *C, Stmt *st, Scope *s) {
  chk_block(C, st->u.try_.body, chk_scope_new(C, s));
  Type *declared = chk_resolve_type(C, st->u.try_.type, NULL);
  if (declared->kind != TY_STRING && declared->kind != TY_ADT)
    chk_error(C, E_TYPE_MISMATCH, st->u.try_.catch_span, "Catch variable must be String or a user-defined type, got %s",
              chk_tstr(C, declared));
  Scope *cs = chk_scope_new(C, s);
  chk_bind(C, cs, st->u.try_.var, declared, false);
  chk_block(C, st->u.try_.handler, cs);
}

void chk_stmt(Checker *C, Stmt *st, Scope *s) {
  chk_step(C, st->span);
  chk_enter(C, st->span);
  switch (st->kind) {
  case ST_LET: check_let(C, st, s); break;
  case ST_DESTRUCT: check_destructure(C, st, s); break;
  case ST_ASSIGN: check_assign(C, st, s); break;
  case ST_INDEX_ASSIGN: check_index_assign(C, st, s); break;
  case ST_FIELD_ASSIGN: check_field_assign(C, st, s); break;
  case ST_IF: {
    Type *c = chk_expr(C, st->u.if_.cond, s);
    if (c->kind != TY_BOOL) chk_error(C, E_TYPE_MISMATCH, st->span, "If condition must be Bool, got %s", chk_tstr(C, c));
    chk_block(C, st->u.if_.then_b, chk_scope_new(C, s));
    chk_block(C, st->u.if_.else_b, chk_scope_new(C, s));
    break;
  }
  case ST_WHILE: {
    Type *c = chk_expr(C, st->u.while_.cond, s);
    if (c->kind != TY_BOOL) chk_error(C, E_TYPE_MISMATCH, st->span, "While condition must be Bool, got %s", chk_tstr(C, c));
    C->loop_depth++;
    chk_block(C, st->u.while_.body, chk_scope_new(C, s));
    C->loop_depth--;
    break;
  }
  case ST_FOR: {
    Type *it = chk_expr(C, st->u.for_.iter, s);
    Type *elem;
    if (it->kind != TY_LIST && it->kind != TY_ARRAY) {
      chk_error(C, E_TYPE_MISMATCH, st->span, "For loop requires List or Array, got %s", chk_tstr(C, it));
      elem = prim(C, TY_ERROR);
    } else {
      elem = it->args[0];
    }
    Type *declared = chk_resolve_type(C, st->u.for_.var_type, NULL);
    if (!chk_strictly_compatible(C, declared, elem))
      chk_error(C, E_TYPE_MISMATCH, st->span, "For variable type %s doesn't match list element type %s",
                chk_tstr(C, declared), chk_tstr(C, elem));
    Scope *bs = chk_scope_new(C, s);
    chk_bind(C, bs, st->u.for_.var, declared, false);
    C->loop_depth++;
    chk_block(C, st->u.for_.body, bs);
    C->loop_depth--;
    break;
  }
  case ST_MATCH: check_match(C, st, s); break;
  case ST_RETURN: check_return(C, st, s); break;
  case ST_BREAK:
    if (C->loop_depth == 0) chk_error(C, E_TYPE_MISMATCH, st->span, "'break' outside of loop");
    break;
  case ST_CONTINUE:
    if (C->loop_depth == 0) chk_error(C, E_TYPE_MISMATCH, st->span, "'continue' outside of loop");
    break;
  case ST_TRY: check_try(C, st, s); break;
  case ST_EXPR: chk_expr(C, st->u.expr, s); break;
  case ST_ASSERT: {
    Type *t = chk_expr(C, st->u.expr, s);
    if (t->kind != TY_BOOL && t->kind != TY_VAR)
      chk_error(C, E_TYPE_MISMATCH, st->span, "Assert expression must be Bool, got %s", chk_tstr(C, t));
    break;
  }
  }
  chk_leave(C);
}

void chk_block(Checker *C, Block b, Scope *s) {
  for (int i = 0; i < b.n; i++) chk_stmt(C, b.items[i], s);
}

/* ---- patterns ------------------------------------------------------------------------- */

/* The ADT behind a scrutinee type: user ADTs, Option and Result. Fills the
 * parameter substitution. NULL when the type has no constructors. */
AdtInfo *chk_pattern_adt(Checker *C, Type *t, const char **tname, Subst *sub) {
  AdtInfo *info = NULL;
  if (t->kind == TY_ADT) {
    *tname = t->name;
    info = chk_adt(C, t->name);
    if (info)
      for (int i = 0; i < info->nparams && i < t->n; i++) chk_subst_set(C, sub, info->params[i], t->args[i]);
  } else if (t->kind == TY_OPTION) {
    *tname = C->n.option;
    info = chk_adt(C, C->n.option);
    if (info && info->nparams) chk_subst_set(C, sub, C->n.t, t->args[0]);
  } else if (t->kind == TY_RESULT) {
    *tname = C->n.result_type;
    info = chk_adt(C, C->n.result_type);
    if (info && info->nparams) {
      chk_subst_set(C, sub, C->n.t, t->args[0]);
      chk_subst_set(C, sub, C->n.e, t->args[1]);
    }
  }
  return info;
}

AdtVariant *chk_variant(AdtInfo *info, const char *name) {
  if (!info) return NULL;
  intptr_t at = (intptr_t)chk_pm_get(&info->vindex, name);
  return at ? &info->variants[at - 1] : NULL;
}

/* Check a pattern against the scrutinee type and bind its variables
 * (immutable). Sub-patterns of a constructor see its field types with the
 * scrutinee's type arguments substituted. */
void chk_pattern(Checker *C, Pattern *p, Type *expected, Scope *s) {
  chk_enter(C, p->span);
  switch (p->kind) {
  case PAT_WILDCARD:
    break;
  case PAT_VAR:
    chk_bind(C, s, p->name, expected, false);
    break;
  case PAT_INT: case PAT_FLOAT: case PAT_STRING: case PAT_BOOL: {
    TypeKind k = p->kind == PAT_INT ? TY_INT : p->kind == PAT_FLOAT ? TY_FLOAT : p->kind == PAT_STRING ? TY_STRING : TY_BOOL;
    Type *lt = prim(C, k);
    if (!chk_strictly_compatible(C, expected, lt))
      chk_error(C, E_PATTERN_MISMATCH, p->span, "Pattern type mismatch: expected %s, got %s", chk_tstr(C, expected),
                chk_tstr(C, lt));
    break;
  }
  case PAT_CTOR: {
    const char *tname = NULL;
    Subst sub = {0};
    AdtInfo *info = chk_pattern_adt(C, expected, &tname, &sub);
    if (!info) {
      chk_error(C, E_PATTERN_MISMATCH, p->span, "Constructor pattern %s is not valid for type %s", p->name,
                chk_tstr(C, expected));
      break;
    }
    AdtVariant *v = chk_variant(info, p->name);
    if (!v) {
      chk_error(C, E_PATTERN_MISMATCH, p->span, "Constructor %s does not belong to type %s", p->name, tname);
      break;
    }
    if (p->n != v->nfields)
      chk_error(C, E_PATTERN_MISMATCH, p->span, "Constructor %s expects %d fields, got %d", p->name, v->nfields, p->n);
    int n = p->n < v->nfields ? p->n : v->nfields;
    for (int i = 0; i < n; i++)
      chk_pattern(C, p->items[i], chk_substitute(C, v->ftypes[i], sub.n, sub.names, sub.types), s);
    break;
  }
  case PAT_LIST:
    if (expected->kind == TY_LIST) {
      for (int i = 0; i < p->n; i++) {
        Pattern *el = p->items[i];
        if (el->kind == PAT_REST) {
          if (el->name) chk_bind(C, s, el->name, expected, false);
        } else {
          chk_pattern(C, el, expected->args[0], s);
        }
      }
    } else {
      chk_error(C, E_PATTERN_MISMATCH, p->span, "List pattern used with non-list type: %s", chk_tstr(C, expected));
    }
    break;
  case PAT_REST:
    if (p->name) chk_bind(C, s, p->name, expected, false);
    break;
  }
  chk_leave(C);
}

/* ---- return paths ---------------------------------------------------------------------- */

/* Does the statement return on every path? `return` and a `throw`
 * statement do; `if` needs both branches (no else: no); `match` every arm;
 * `try` both the body and the handler. Loops never count, even
 * `while true`, as in the reference. */
static bool stmt_returns(Stmt *st, int depth) {
  if (depth > CHK_MAX_DEPTH) return false;
  switch (st->kind) {
  case ST_RETURN:
    return true;
  case ST_EXPR:
    return st->u.expr->kind == EX_THROW;
  case ST_IF: {
    bool t = false, e = false;
    for (int i = 0; i < st->u.if_.then_b.n && !t; i++) t = stmt_returns(st->u.if_.then_b.items[i], depth + 1);
    for (int i = 0; i < st->u.if_.else_b.n && !e; i++) e = stmt_returns(st->u.if_.else_b.items[i], depth + 1);
    return t && e;
  }
  case ST_MATCH:
    if (st->u.match.n == 0) return false;
    for (int a = 0; a < st->u.match.n; a++) {
      bool r = false;
      Block b = st->u.match.arms[a].body;
      for (int i = 0; i < b.n && !r; i++) r = stmt_returns(b.items[i], depth + 1);
      if (!r) return false;
    }
    return true;
  case ST_TRY: {
    bool t = false, c = false;
    for (int i = 0; i < st->u.try_.body.n && !t; i++) t = stmt_returns(st->u.try_.body.items[i], depth + 1);
    for (int i = 0; i < st->u.try_.handler.n && !c; i++) c = stmt_returns(st->u.try_.handler.items[i], depth + 1);
    return t && c;
  }
  default:
    return false;
  }
}

bool chk_definitely_returns(Block b) {
  for (int i = 0; i < b.n; i++)
    if (stmt_returns(b.items[i], 0)) return true;
  return false;
}

/* ---- `result` in functions with ensures ------------------------------------------------ */

typedef struct ResultWalk {
  Checker *C;
  const char *result;
} ResultWalk;

static void collision(ResultWalk *w, const char *kind, Span sp) {
  chk_error(w->C, E_TYPE_MISMATCH, sp,
            "`result` is reserved in functions with ensures clauses; rename this %s so `ensures result` "
            "unambiguously refers to the return value",
            kind);
}

static void rw_expr(ResultWalk *w, Expr *e, int depth);
static void rw_block(ResultWalk *w, Block b, int depth);

static void rw_pattern(ResultWalk *w, Pattern *p, int depth) {
  if (!p || depth > CHK_MAX_DEPTH) return;
  if (p->kind == PAT_VAR && p->name == w->result) collision(w, "pattern binding", p->span);
  if (p->kind == PAT_REST && p->name == w->result) collision(w, "rest pattern binding", p->span);
  if (p->kind == PAT_CTOR || p->kind == PAT_LIST)
    for (int i = 0; i < p->n; i++) rw_pattern(w, p->items[i], depth + 1);
}

static void rw_arms(ResultWalk *w, MatchArm *arms, int n, int depth) {
  for (int i = 0; i < n; i++) {
    rw_pattern(w, arms[i].pat, depth);
    rw_expr(w, arms[i].guard, depth);
    rw_expr(w, arms[i].value, depth);
    rw_block(w, arms[i].body, depth);
  }
}

static void rw_expr(ResultWalk *w, Expr *e, int depth) {
  if (!e || depth > CHK_MAX_DEPTH) return;
  depth++;
  switch (e->kind) {
  case EX_FSTRING:
    for (int i = 0; i < e->u.fstr.n; i++) rw_expr(w, e->u.fstr.pieces[i].expr, depth);
    break;
  case EX_LIST: case EX_TUPLE:
    for (int i = 0; i < e->u.list.n; i++) rw_expr(w, e->u.list.items[i], depth);
    break;
  case EX_LIST_COMP:
    if (e->u.comp.var == w->result) collision(w, "list comprehension variable", e->span);
    rw_expr(w, e->u.comp.iter, depth);
    rw_expr(w, e->u.comp.cond, depth);
    rw_expr(w, e->u.comp.elem, depth);
    break;
  case EX_THROW: case EX_AWAIT: case EX_PROPAGATE:
    rw_expr(w, e->u.operand, depth);
    break;
  case EX_BINARY:
    rw_expr(w, e->u.bin.l, depth);
    rw_expr(w, e->u.bin.r, depth);
    break;
  case EX_UNARY:
    rw_expr(w, e->u.un.e, depth);
    break;
  case EX_CALL:
    rw_expr(w, e->u.call.callee, depth);
    for (int i = 0; i < e->u.call.nargs; i++) rw_expr(w, e->u.call.args[i].value, depth);
    break;
  case EX_CTOR:
    for (int i = 0; i < e->u.ctor.nargs; i++) rw_expr(w, e->u.ctor.args[i].value, depth);
    break;
  case EX_INDEX:
    rw_expr(w, e->u.index.target, depth);
    rw_expr(w, e->u.index.index, depth);
    break;
  case EX_FIELD:
    rw_expr(w, e->u.field.target, depth);
    break;
  case EX_WITH:
    rw_expr(w, e->u.with.target, depth);
    for (int i = 0; i < e->u.with.n; i++) rw_expr(w, e->u.with.inits[i].value, depth);
    break;
  case EX_PIPELINE:
    rw_expr(w, e->u.pipe.init, depth);
    for (int i = 0; i < e->u.pipe.n; i++) {
      rw_expr(w, e->u.pipe.stages[i].fn, depth);
      for (int k = 0; k < e->u.pipe.stages[i].nargs; k++) rw_expr(w, e->u.pipe.stages[i].args[k], depth);
    }
    break;
  case EX_LAMBDA:
    for (int i = 0; i < e->u.lambda.nparams; i++)
      if (e->u.lambda.params[i].name == w->result) collision(w, "lambda parameter", e->u.lambda.params[i].span);
    rw_expr(w, e->u.lambda.body, depth);
    rw_block(w, e->u.lambda.block, depth);
    break;
  case EX_MATCH:
    rw_expr(w, e->u.match.scrutinee, depth);
    rw_arms(w, e->u.match.arms, e->u.match.n, depth);
    break;
  case EX_HOLE:
    rw_expr(w, e->u.hole.where, depth);
    break;
  default:
    break;
  }
}

static void rw_block(ResultWalk *w, Block b, int depth) {
  if (depth > CHK_MAX_DEPTH) return;
  for (int i = 0; i < b.n; i++) {
    Stmt *st = b.items[i];
    switch (st->kind) {
    case ST_LET:
      if (st->u.let.name == w->result) collision(w, "binding", st->span);
      rw_expr(w, st->u.let.value, depth + 1);
      break;
    case ST_DESTRUCT:
      for (int k = 0; k < st->u.destr.n; k++)
        if (st->u.destr.names[k] == w->result) {
          collision(w, "destructured binding", st->span);
          break;
        }
      rw_expr(w, st->u.destr.value, depth + 1);
      break;
    case ST_ASSIGN: rw_expr(w, st->u.assign.value, depth + 1); break;
    case ST_INDEX_ASSIGN:
      rw_expr(w, st->u.index_assign.target, depth + 1);
      rw_expr(w, st->u.index_assign.index, depth + 1);
      rw_expr(w, st->u.index_assign.value, depth + 1);
      break;
    case ST_FIELD_ASSIGN:
      rw_expr(w, st->u.field_assign.target, depth + 1);
      rw_expr(w, st->u.field_assign.value, depth + 1);
      break;
    case ST_IF:
      rw_expr(w, st->u.if_.cond, depth + 1);
      rw_block(w, st->u.if_.then_b, depth + 1);
      rw_block(w, st->u.if_.else_b, depth + 1);
      break;
    case ST_WHILE:
      rw_expr(w, st->u.while_.cond, depth + 1);
      rw_block(w, st->u.while_.body, depth + 1);
      break;
    case ST_FOR:
      if (st->u.for_.var == w->result) collision(w, "loop variable", st->span);
      rw_expr(w, st->u.for_.iter, depth + 1);
      rw_block(w, st->u.for_.body, depth + 1);
      break;
    case ST_MATCH:
      rw_expr(w, st->u.match.scrutinee, depth + 1);
      rw_arms(w, st->u.match.arms, st->u.match.n, depth + 1);
      break;
    case ST_RETURN: rw_expr(w, st->u.ret.value, depth + 1); break;
    case ST_TRY:
      rw_block(w, st->u.try_.body, depth + 1);
      if (st->u.try_.var == w->result) collision(w, "catch binding", st->u.try_.catch_span);
      rw_block(w, st->u.try_.handler, depth + 1);
      break;
    case ST_EXPR: case ST_ASSERT: rw_expr(w, st->u.expr, depth + 1); break;
    default: break;
    }
  }
}

/* ---- functions -------------------------------------------------------------------------- */

static bool is_valid_effect(Checker *C, const char *name) {
  for (int i = 0; i < 11; i++)
    if (C->tc.effect_names[i] == name) return true;
  return false;
}

/* requires/ensures are Bool (ensures sees `result`); examples are checked
 * in the global scope (they cannot mention parameters): 0 parameters take
 * `()`, 1 takes its argument (or `()` when it has a default), more take a
 * tuple of between required and total arguments, or a single value when
 * only one parameter is required. Outputs may be Int for a Float result. */
static void check_specs(Checker *C, FuncDecl *f, Scope *local) {
  for (int i = 0; i < f->nrequires; i++) {
    Type *t = chk_expr(C, f->requires[i].cond, local);
    if (t->kind != TY_BOOL)
      chk_error(C, E_TYPE_MISMATCH, f->requires[i].cond->span, "Requires clause must be Bool, got %s", chk_tstr(C, t));
  }
  Scope *es = chk_scope_new(C, local);
  chk_bind(C, es, C->n.result, C->current_return, false);
  for (int i = 0; i < f->nensures; i++) {
    Type *t = chk_expr(C, f->ensures[i].cond, es);
    if (t->kind != TY_BOOL)
      chk_error(C, E_TYPE_MISMATCH, f->ensures[i].cond->span, "Ensures clause must be Bool, got %s", chk_tstr(C, t));
  }
  int total = f->nparams, required = 0;
  Type **pts = arena_array(C->A, (size_t)(total ? total : 1), sizeof(Type *));
  for (int i = 0; i < total; i++) {
    pts[i] = chk_resolve_type(C, f->params[i].type, NULL);
    required += f->params[i].def == NULL;
  }
  Type *ret = C->current_return;
  for (int x = 0; x < f->nexamples; x++) {
    Example *ex = &f->examples[x];
    Type *in = chk_expr(C, ex->input, C->global_scope);
    bool unit_in = in->kind == TY_UNIT;
    Span isp = ex->input->span;
    if (total == 0) {
      if (!unit_in) chk_error(C, E_WRONG_ARITY, isp, "Example expects 0 inputs, got %s", chk_tstr(C, in));
    } else if (total == 1) {
      if (required == 0 && unit_in) {
        /* the default supplies the argument */
      } else if (!chk_strictly_compatible(C, pts[0], in)) {
        chk_error(C, E_TYPE_MISMATCH, isp, "Example input type mismatch: expected %s, got %s", chk_tstr(C, pts[0]),
                  chk_tstr(C, in));
      }
    } else if (in->kind == TY_TUPLE) {
      int arity = in->n;
      if (arity < required || arity > total) {
        chk_error(C, E_WRONG_ARITY, isp, "Example expects %d..%d inputs, got %d", required, total, arity);
      } else {
        for (int i = 0; i < arity; i++)
          if (!chk_strictly_compatible(C, pts[i], in->args[i]))
            chk_error(C, E_TYPE_MISMATCH, isp, "Example input %d type mismatch: expected %s, got %s", i + 1,
                      chk_tstr(C, pts[i]), chk_tstr(C, in->args[i]));
      }
    } else if (required <= 1) {
      if (!chk_strictly_compatible(C, pts[0], in))
        chk_error(C, E_TYPE_MISMATCH, isp, "Example input type mismatch: expected %s, got %s", chk_tstr(C, pts[0]),
                  chk_tstr(C, in));
    } else {
      chk_error(C, E_TYPE_MISMATCH, isp,
                "Example input for a %d-parameter function (with %d required) must be a tuple, got %s", total, required,
                chk_tstr(C, in));
    }
    Type *out = chk_expr(C, ex->output, C->global_scope);
    if (!chk_strictly_compatible(C, ret, out))
      chk_error(C, E_TYPE_MISMATCH, ex->output->span, "Example output type mismatch: expected %s, got %s",
                chk_tstr(C, ret), chk_tstr(C, out));
  }
}

static void check_function_body(Checker *C, FuncDecl *f);
static void validate_function_effects(Checker *C, FuncDecl *f, bool update_signature, bool rechecked);

void chk_function(Checker *C, FuncDecl *f, bool update_signature, bool validate_effects, bool recheck) {
  chk_memo_reset(C);
  bool prev_async = C->in_async, prev_main = C->in_main;
  if (recheck && validate_effects && chk_replay_body_check(C, f)) recheck = false; /* pass 3: as pass 2 */
  if (recheck) {
    long steps0 = C->steps, fresh0 = C->fresh_counter;
    int errs0 = C->errors.count, dropped0 = C->errors.dropped;
    check_function_body(C, f);
    if (!validate_effects) chk_record_body_check(C, f, steps0, fresh0, errs0, dropped0);
  }
  /* Inference re-checks expressions, so it runs in the function's context
   * (return type, async, main) like the reference's. */
  C->current_return = chk_resolve_type(C, f->ret, NULL);
  C->in_async = f->is_async;
  C->in_main = f->name == C->n.main_;
  if (validate_effects) validate_function_effects(C, f, update_signature, recheck);
  C->current_return = NULL;
  C->in_async = prev_async;
  C->in_main = prev_main;
}

/* Everything but effects: examples, annotations, parameters, defaults,
 * clauses, body, return paths. */
static void check_function_body(Checker *C, FuncDecl *f) {
  const char *name = f->name;
  bool exempt = name == C->n.main_ || name == C->n.init || name == C->n.update || name == C->n.render;
  if (f->nexamples == 0 && !exempt && !C->app_mode && !f->is_async && !f->untested &&
      !chk_pm_has(&C->tested_by_block, name))
    chk_error(C, E_TYPE_MISMATCH, f->span, "Function '%s' must have at least one example clause", name);

  for (int i = 0; i < f->neffects; i++)
    if (!is_valid_effect(C, f->effects[i]))
      chk_error(C, E_EFFECT_UNKNOWN, f->span,
                "Unknown effect '%s'. Valid effects are: clock, env, fs, http, io, mutation, process, random, regex, "
                "stdin, throw",
                f->effects[i]);

  for (int i = 0; i < f->nparams; i++)
    for (int k = 0; k < i; k++)
      if (f->params[k].name == f->params[i].name) {
        chk_error(C, E_DUPLICATE, f->params[i].span, "Duplicate parameter name '%s'", f->params[i].name);
        break;
      }

  if (f->nensures) {
    ResultWalk w = {C, C->n.result};
    for (int i = 0; i < f->nparams; i++)
      if (f->params[i].name == C->n.result) collision(&w, "parameter", f->params[i].span);
    rw_block(&w, f->body, 0);
  }

  Scope *local = chk_scope_new(C, C->global_scope);
  for (int i = 0; i < f->nparams; i++)
    chk_bind(C, local, f->params[i].name, chk_resolve_type(C, f->params[i].type, NULL), false);
  for (int i = 0; i < f->nparams; i++) {
    Param *p = &f->params[i];
    if (!p->def) continue;
    Type *dt = chk_expr(C, p->def, C->global_scope);
    Type *et = chk_resolve_type(C, p->type, NULL);
    if (!chk_strictly_compatible(C, et, dt))
      chk_error(C, E_TYPE_MISMATCH, p->def->span, "Default value type mismatch for '%s': expected %s, got %s", p->name,
                chk_tstr(C, et), chk_tstr(C, dt));
  }

  C->current_return = chk_resolve_type(C, f->ret, NULL);
  bool prev_async = C->in_async, prev_main = C->in_main;
  C->in_async = f->is_async;
  C->in_main = name == C->n.main_;

  check_specs(C, f, local);
  chk_block(C, f->body, local);

  if (C->current_return->kind != TY_UNIT && !chk_definitely_returns(f->body))
    chk_error(C, E_TYPE_MISMATCH, f->span, "Function '%s' may not return a value on all paths", name);
  C->in_async = prev_async;
  C->in_main = prev_main;
}

/* The `with` annotation against the inferred effects (E310), and the
 * signature update for functions without one. A body that was not checked
 * again may reuse the fixpoint's inference (chk_remembered_effects); a
 * checked one must be inferred again, so that Expr->type ends as the
 * inference leaves it. */
static void validate_function_effects(Checker *C, FuncDecl *f, bool update_signature, bool rechecked) {
  const char *name = f->name;
  {
    EffectSet inferred;
    if (rechecked || !chk_remembered_effects(C, f, &inferred)) inferred = chk_infer_function_effects(C, f);
    EffectSet final_effects = inferred;
    if (f->neffects) {
      EffectSet declared = chk_effects_of_decl(C, f);
      EffectSet undeclared = inferred & ~declared;
      if (undeclared) {
        Buf a = BUF_INIT, b = BUF_INIT;
        ty_effects_str(&C->tc, undeclared, &a);
        ty_effects_str(&C->tc, declared, &b);
        chk_error(C, E_EFFECT_VIOLATION, f->span, "Function '%s' performs undeclared effects: %s. Declared effects: %s",
                  name, a.data ? a.data : "", b.data ? b.data : "(pure)");
        buf_free(&a);
        buf_free(&b);
      }
      final_effects = declared;
    }
    if (update_signature) {
      Type *existing = chk_lookup(C, C->global_scope, name);
      if (existing && existing->kind == TY_FUNC && existing->effects != final_effects)
        chk_bind_global(C, name, ty_func(&C->tc, existing->n, existing->args, existing->ret, final_effects));
    }
  }
}

void chk_test_block(Checker *C, Decl *d) {
  chk_memo_reset(C);
  Scope *s = chk_scope_new(C, C->global_scope);
  chk_block(C, d->u.test.body, s);
}
