/* Effect inference. A function's effects are what its body does: the
 * effects of the functions it calls (builtins: print -> io, fs_* -> fs,
 * ...; user functions: their declared or inferred set; trait methods: the
 * implementation chosen by the first argument; any called function value:
 * its type's effects), `throw` (masked by an enclosing try), and every
 * `var` declaration and assignment (mutation). Creating a lambda adds
 * nothing; calling it does.
 *
 * Signatures are refined to a fixpoint before bodies are checked against
 * their `with` annotations (E310). As in the reference, inference re-walks
 * expressions with the same environment rules as checking, so types are
 * recomputed with chk_expr where it needs them. */
#include "checker.h"



EffectSet chk_effects_of_decl(Checker *C, FuncDecl *f) {
  EffectSet e = 0;
  for (int i = 0; i < f->neffects; i++) e |= ty_effect_bit(&C->tc, f->effects[i]);
  return e;
}

static EffectSet stmt_effects(Checker *C, Stmt *st, Scope *s);

EffectSet chk_infer_block_effects(Checker *C, Block b, Scope *s) {
  EffectSet e = 0;
  for (int i = 0; i < b.n; i++) e |= stmt_effects(C, b.items[i], s);
  return e;
}

/* A trait method call has the effects of the implementation its first
 * argument selects (the dispatch binding itself carries none). */
static EffectSet trait_dispatch_effects(Checker *C, Expr *call, Scope *s) {
  Expr *callee = call->u.call.callee;
  TraitList *tl = chk_pm_get(&C->trait_methods, callee->u.name);
  if (!tl || call->u.call.nargs == 0) return 0;
  Type *first = chk_expr(C, call->u.call.args[0].value, s);
  if (first->kind != TY_ADT) return 0;
  const char *tname = first->name;
  const char *parent = chk_pm_get(&C->ctor_to_type, tname);
  if (parent) tname = parent;
  EffectSet e = 0;
  for (int i = 0; i < tl->n; i++) {
    Impl *impl = chk_find_impl(C, tl->traits[i], tname);
    Type *mt = impl ? chk_pm_get(&impl->methods, callee->u.name) : NULL;
    if (mt) e |= mt->effects;
  }
  return e;
}

static EffectSet arms_effects(Checker *C, Expr *scrutinee, MatchArm *arms, int n, Scope *s) {
  EffectSet e = chk_infer_expr_effects(C, scrutinee, s);
  Type *st = chk_expr(C, scrutinee, s);
  for (int i = 0; i < n; i++) {
    Scope *as = chk_scope_new(C, s);
    chk_bind_pattern_effect_env(C, arms[i].pat, st, as);
    if (arms[i].guard) e |= chk_infer_expr_effects(C, arms[i].guard, as);
    if (arms[i].value) e |= chk_infer_expr_effects(C, arms[i].value, as);
    e |= chk_infer_block_effects(C, arms[i].body, as);
  }
  return e;
}

/* Effects of evaluating e. A call contributes its callee's function-type
 * effects, which needs the callee's type: it is re-checked here (so an
 * undefined callee inside a lambda is reported again, as E301, exactly as
 * the reference does). */
EffectSet chk_infer_expr_effects(Checker *C, Expr *e, Scope *s) {
  if (!e) return 0;
  chk_step(C, e->span);
  chk_enter(C, e->span);
  EffectSet eff = 0;
  switch (e->kind) {
  case EX_CALL: {
    for (int i = 0; i < e->u.call.nargs; i++) eff |= chk_infer_expr_effects(C, e->u.call.args[i].value, s);
    Expr *callee = e->u.call.callee;
    eff |= chk_infer_expr_effects(C, callee, s);
    Type *ct = chk_expr(C, callee, s);
    if (ct->kind == TY_FUNC) eff |= ct->effects;
    if (callee->kind == EX_IDENT) {
      eff |= trait_dispatch_effects(C, e, s);
      /* (for infer_by_union: did a function's name mean a local here?) */
      if (C->eff_fn_names && chk_pm_has(C->eff_fn_names, callee->u.name) && chk_bound_locally(C, s, callee->u.name))
        C->eff_shadowed = true;
    }
    break;
  }
  case EX_THROW:
    eff |= C->eff_throw | chk_infer_expr_effects(C, e->u.operand, s);
    break;
  case EX_BINARY:
    eff |= chk_infer_expr_effects(C, e->u.bin.l, s) | chk_infer_expr_effects(C, e->u.bin.r, s);
    break;
  case EX_UNARY:
    eff |= chk_infer_expr_effects(C, e->u.un.e, s);
    break;
  case EX_MATCH:
    eff |= arms_effects(C, e->u.match.scrutinee, e->u.match.arms, e->u.match.n, s);
    break;
  case EX_PIPELINE:
    eff |= chk_infer_expr_effects(C, e->u.pipe.init, s);
    for (int i = 0; i < e->u.pipe.n; i++) {
      Stage *st = &e->u.pipe.stages[i];
      eff |= chk_infer_expr_effects(C, st->fn, s);
      Type *ct = chk_expr(C, st->fn, s);
      if (ct->kind == TY_FUNC) eff |= ct->effects;
      for (int k = 0; k < st->nargs; k++) eff |= chk_infer_expr_effects(C, st->args[k], s);
    }
    break;
  case EX_CTOR:
    for (int i = 0; i < e->u.ctor.nargs; i++) eff |= chk_infer_expr_effects(C, e->u.ctor.args[i].value, s);
    break;
  case EX_FIELD:
    eff |= chk_infer_expr_effects(C, e->u.field.target, s);
    break;
  case EX_INDEX:
    eff |= chk_infer_expr_effects(C, e->u.index.target, s) | chk_infer_expr_effects(C, e->u.index.index, s);
    break;
  case EX_LIST: case EX_TUPLE:
    for (int i = 0; i < e->u.list.n; i++) eff |= chk_infer_expr_effects(C, e->u.list.items[i], s);
    break;
  case EX_LIST_COMP: {
    eff |= chk_infer_expr_effects(C, e->u.comp.iter, s);
    Scope *cs = chk_scope_new(C, s);
    chk_bind(C, cs, e->u.comp.var, chk_resolve_type(C, e->u.comp.var_type, NULL), false);
    eff |= chk_infer_expr_effects(C, e->u.comp.elem, cs);
    if (e->u.comp.cond) eff |= chk_infer_expr_effects(C, e->u.comp.cond, cs);
    break;
  }
  case EX_FSTRING:
    for (int i = 0; i < e->u.fstr.n; i++)
      if (e->u.fstr.pieces[i].expr) eff |= chk_infer_expr_effects(C, e->u.fstr.pieces[i].expr, s);
    break;
  case EX_AWAIT: case EX_PROPAGATE:
    eff |= chk_infer_expr_effects(C, e->u.operand, s);
    break;
  case EX_WITH:
    for (int i = 0; i < e->u.with.n; i++) eff |= chk_infer_expr_effects(C, e->u.with.inits[i].value, s);
    eff |= chk_infer_expr_effects(C, e->u.with.target, s);
    break;
  default:
    /* literals, names, lambdas (their effects happen when called), holes */
    break;
  }
  chk_leave(C);
  return eff;
}

/* Effects of a statement; bindings are made in s as checking would, so
 * later statements see the same types. Every `var` and every assignment is
 * `mutation` (even of locals); `try` masks `throw` from its body. */
static EffectSet stmt_effects(Checker *C, Stmt *st, Scope *s) {
  chk_step(C, st->span);
  chk_enter(C, st->span);
  EffectSet e = 0;
  switch (st->kind) {
  case ST_EXPR: case ST_ASSERT:
    e |= chk_infer_expr_effects(C, st->u.expr, s);
    break;
  case ST_LET: {
    if (st->u.let.is_var) e |= C->eff_mutation;
    e |= chk_infer_expr_effects(C, st->u.let.value, s);
    Type *t = st->u.let.type ? chk_resolve_type(C, st->u.let.type, NULL) : chk_expr(C, st->u.let.value, s);
    chk_bind(C, s, st->u.let.name, t, st->u.let.is_var);
    break;
  }
  case ST_ASSIGN:
    e |= C->eff_mutation | chk_infer_expr_effects(C, st->u.assign.value, s);
    break;
  case ST_INDEX_ASSIGN:
    e |= C->eff_mutation | chk_infer_expr_effects(C, st->u.index_assign.value, s);
    break;
  case ST_FIELD_ASSIGN:
    e |= C->eff_mutation | chk_infer_expr_effects(C, st->u.field_assign.value, s);
    break;
  case ST_RETURN:
    e |= chk_infer_expr_effects(C, st->u.ret.value, s);
    break;
  case ST_IF:
    e |= chk_infer_expr_effects(C, st->u.if_.cond, s);
    e |= chk_infer_block_effects(C, st->u.if_.then_b, chk_scope_new(C, s));
    if (st->u.if_.else_b.n) e |= chk_infer_block_effects(C, st->u.if_.else_b, chk_scope_new(C, s));
    break;
  case ST_WHILE:
    e |= chk_infer_expr_effects(C, st->u.while_.cond, s);
    e |= chk_infer_block_effects(C, st->u.while_.body, chk_scope_new(C, s));
    break;
  case ST_FOR: {
    e |= chk_infer_expr_effects(C, st->u.for_.iter, s);
    Scope *bs = chk_scope_new(C, s);
    chk_bind(C, bs, st->u.for_.var, chk_resolve_type(C, st->u.for_.var_type, NULL), false);
    e |= chk_infer_block_effects(C, st->u.for_.body, bs);
    break;
  }
  case ST_TRY: {
    EffectSet body = chk_infer_block_effects(C, st->u.try_.body, chk_scope_new(C, s));
    e |= body & ~C->eff_throw;
    Scope *cs = chk_scope_new(C, s);
    chk_bind(C, cs, st->u.try_.var, chk_resolve_type(C, st->u.try_.type, NULL), false);
    e |= chk_infer_block_effects(C, st->u.try_.handler, cs);
    break;
  }
  case ST_MATCH:
    e |= arms_effects(C, st->u.match.scrutinee, st->u.match.arms, st->u.match.n, s);
    break;
  case ST_DESTRUCT: {
    e |= chk_infer_expr_effects(C, st->u.destr.value, s);
    Type *t = chk_resolve_type(C, st->u.destr.type, NULL);
    if (t->kind == TY_TUPLE)
      for (int i = 0; i < st->u.destr.n && i < t->n; i++)
        chk_bind(C, s, st->u.destr.names[i], t->args[i], st->u.destr.is_var);
    break;
  }
  default:
    break;
  }
  chk_leave(C);
  return e;
}

void chk_bind_pattern_effect_env(Checker *C, Pattern *p, Type *expected, Scope *s) {
  chk_enter(C, p->span);
  switch (p->kind) {
  case PAT_VAR:
    chk_bind(C, s, p->name, expected, false);
    break;
  case PAT_REST:
    if (p->name) chk_bind(C, s, p->name, expected, false);
    break;
  case PAT_LIST:
    if (expected->kind == TY_LIST)
      for (int i = 0; i < p->n; i++) {
        Pattern *el = p->items[i];
        if (el->kind == PAT_REST) {
          if (el->name) chk_bind(C, s, el->name, expected, false);
        } else {
          chk_bind_pattern_effect_env(C, el, expected->args[0], s);
        }
      }
    break;
  case PAT_CTOR: {
    const char *tname = NULL;
    Subst sub = {0};
    AdtInfo *info = chk_pattern_adt(C, expected, &tname, &sub);
    AdtVariant *v = chk_variant(info, p->name);
    if (!v) break;
    int n = p->n < v->nfields ? p->n : v->nfields;
    for (int i = 0; i < n; i++)
      chk_bind_pattern_effect_env(C, p->items[i], chk_substitute(C, v->ftypes[i], sub.n, sub.names, sub.types), s);
    break;
  }
  default:
    break;
  }
  chk_leave(C);
}

/* The environment of a function for inference: its parameters. */
static Scope *effect_env(Checker *C, FuncDecl *f) {
  Scope *s = chk_scope_new(C, C->global_scope);
  for (int i = 0; i < f->nparams; i++) chk_bind(C, s, f->params[i].name, chk_resolve_type(C, f->params[i].type, NULL), false);
  return s;
}

EffectSet chk_infer_function_effects(Checker *C, FuncDecl *f) {
  chk_memo_reset(C);
  Scope *env = effect_env(C, f);
  EffectSet e = 0;
  for (int i = 0; i < f->nrequires; i++) e |= chk_infer_expr_effects(C, f->requires[i].cond, env);
  Scope *es = chk_scope_new(C, env);
  chk_bind(C, es, C->n.result, chk_resolve_type(C, f->ret, NULL), false);
  for (int i = 0; i < f->nensures; i++) e |= chk_infer_expr_effects(C, f->ensures[i].cond, es);
  e |= chk_infer_block_effects(C, f->body, env);
  return e;
}

/* ---- reusing the fixpoint's inference in pass 3 ----------------------------------- */

/* Pass 3 infers every function's effects once more (to validate them
 * against its `with` clause). For a function whose body is not checked
 * again in pass 3, that inference repeats the fixpoint's last one for it
 * exactly, so its result is remembered instead, when all of this holds:
 * - the fixpoint converged, and no global has been rebound since (the
 *   fixpoint re-infers a function after any name it mentions changes, so
 *   its last inference saw the final types of everything it mentions);
 * - that inference recorded no diagnostic: it ran outside the function's
 *   context (no return type, not async), which only matters through
 *   errors (`?` and `await` are errors there);
 * - no lambda memo (CHK_MEMO_AFTER_STEPS) took part in it, nor would in the
 *   repeat, and no type-depth error is pending.
 * The repeat would also have set Expr->type on the expressions it
 * re-checks: the remembered run set the same types there (up to the
 * numbering of fresh variables), and nothing has checked them since.
 * The steps and fresh-variable numbers it would have used are consumed,
 * so everything after it (names in later messages) stays the same. */
typedef struct EffMemo {
  bool valid;
  bool shadowed;       /* a call of a fixpoint function's name meant a local */
  EffectSet effects;   /* the inferred set */
  long steps;          /* chk_step calls it made */
  long fresh;          /* fresh variables it created */
  unsigned long stamp; /* C->eff_stamp when it ran */
} EffMemo;

/* f's memo in `map` (made on first use), marked valid when the work since
 * errs0/dropped0 recorded no diagnostic and stayed within the budgets. */
static EffMemo *memo_record(Checker *C, PtrMap *map, FuncDecl *f, int errs0, int dropped0) {
  EffMemo *m = chk_pm_get(map, f);
  if (!m) {
    m = arena_alloc(C->A, sizeof *m);
    chk_pm_put(C->A, map, f, m);
  }
  m->valid = C->errors.count == errs0 && C->errors.dropped == dropped0 && C->steps <= CHK_MEMO_AFTER_STEPS &&
             !C->tc.too_deep;
  return m;
}

static EffectSet infer_remembered(Checker *C, FuncDecl *f) {
  long steps0 = C->steps, fresh0 = C->fresh_counter;
  int errs0 = C->errors.count, dropped0 = C->errors.dropped;
  C->eff_shadowed = false;
  EffectSet e = chk_infer_function_effects(C, f);
  EffMemo *m = memo_record(C, &C->eff_memo, f, errs0, dropped0);
  m->shadowed = C->eff_shadowed;
  m->effects = e;
  m->steps = C->steps - steps0;
  m->fresh = C->fresh_counter - fresh0;
  m->stamp = C->eff_stamp;
  return e;
}

bool chk_remembered_effects(Checker *C, FuncDecl *f, EffectSet *out) {
  if (!C->eff_memo_ok || C->eff_memo_gen != C->globals_gen || C->tc.too_deep) return false;
  EffMemo *m = chk_pm_get(&C->eff_memo, f);
  if (!m || !m->valid || C->steps + m->steps > CHK_MEMO_AFTER_STEPS) return false;
  C->steps += m->steps;
  C->fresh_counter += m->fresh;
  *out = m->effects;
  return true;
}

/* ---- replaying pass 2's body check in pass 3 ---------------------------------------- */

/* A body pass 3 would check again because a name it mentions gained
 * effects (chk_stabilize_effects), where every such mention is the callee
 * of a direct call outside lambdas: a call reads its callee's parameter
 * and result types, never its effects (chk_call, trait dispatch), and
 * only lambdas fold their calls' effects into a type. So that check
 * decides everything as pass 2's did and records the same nothing;
 * Expr->type ends the same except for those callees' own function types
 * (their effects), which the compiler does not read. As for remembered
 * effects, the conditions are: no global rebound since the fixpoint,
 * pass 2's check recorded no diagnostic, no lambda memo in either run, no
 * pending type-depth error. */
void chk_record_body_check(Checker *C, FuncDecl *f, long steps0, long fresh0, int errs0, int dropped0) {
  EffMemo *m = memo_record(C, &C->body_memo, f, errs0, dropped0);
  m->steps = C->steps - steps0;
  m->fresh = C->fresh_counter - fresh0;
}

bool chk_replay_body_check(Checker *C, FuncDecl *f) {
  if (!chk_pm_has(&C->callee_only, f)) return false;
  if (!C->eff_memo_ok || C->eff_memo_gen != C->globals_gen || C->tc.too_deep) return false;
  EffMemo *m = chk_pm_get(&C->body_memo, f);
  if (!m || !m->valid || C->steps + m->steps > CHK_MEMO_AFTER_STEPS) return false;
  C->steps += m->steps;
  C->fresh_counter += m->fresh;
  return true;
}

/* One function taking part in the fixpoint. */
typedef struct EffFn {
  FuncDecl *f;
  Impl *impl;        /* NULL for a top-level function */
  PtrMap refs;       /* identifier names its body mentions: set */
  PtrMap value_refs; /* those of refs mentioned other than as a direct callee outside lambdas */
} EffFn;

/* ---- re-inferring by union within the fixpoint ----------------------------------- */

/* A function is inferred again when a name it mentions gained effects.
 * If every name that changed since its last inference is mentioned only
 * as the callee of direct calls outside lambdas, and each such call meant
 * the global function (no local of that name was called), and none is a
 * trait method (whose effects depend on the dispatch): then the new
 * inference follows the last one step for step, and differs only in what
 * those calls add, which is each callee's own function type's effects.
 * Effects only grow in the fixpoint, so the result is the last one united
 * with the callees' current effects. The steps and fresh variables of the
 * inference it stands for are counted, as for chk_remembered_effects. */
static bool infer_by_union(Checker *C, EffFn *ef, EffectSet *out) {
  EffMemo *m = chk_pm_get(&C->eff_memo, ef->f);
  if (!m || !m->valid || m->shadowed || C->tc.too_deep || C->steps + m->steps > CHK_MEMO_AFTER_STEPS) return false;
  EffectSet extra = 0;
  for (size_t i = 0; i < ef->refs.cap; i++) {
    const char *name = ef->refs.keys[i];
    if (!name || (uintptr_t)chk_pm_get(&C->eff_changed_at, name) <= m->stamp) continue;
    if (chk_pm_has(&ef->value_refs, name) || chk_pm_has(&C->trait_methods, name)) return false;
    Type *g = chk_pm_get(&C->globals, name);
    if (!g || g->kind != TY_FUNC) return false;
    extra |= g->effects;
  }
  C->steps += m->steps;
  C->fresh_counter += m->fresh;
  m->effects |= extra;
  m->stamp = C->eff_stamp;
  *out = m->effects;
  return true;
}

static EffectSet stable_effects(Checker *C, EffFn *ef, bool again) {
  EffectSet inferred;
  if (!again || !infer_by_union(C, ef, &inferred)) inferred = infer_remembered(C, ef->f);
  return ef->f->neffects ? chk_effects_of_decl(C, ef->f) : inferred;
}


typedef struct RefCollect {
  Checker *C;
  const PtrMap *fn_names; /* names of the functions taking part */
  EffFn *fn;
  const Expr *callee;     /* the callee of the call just visited */
  int lambda_depth;       /* maintained by the walk */
} RefCollect;

/* Only names that can change in the fixpoint (its functions' own names)
 * are worth keeping: every use of refs meets a set of those. The walk is
 * pre-order, so a call's callee is the next expression visited after it. */
static void collect_ref(void *ud, Expr *e) {
  RefCollect *rc = ud;
  const Expr *callee = rc->callee;
  rc->callee = e->kind == EX_CALL ? e->u.call.callee : NULL;
  if (e->kind == EX_IDENT && chk_pm_has(rc->fn_names, e->u.name)) {
    chk_pm_put(rc->C->A, &rc->fn->refs, e->u.name, (void *)1);
    if (e != callee || rc->lambda_depth > 0) chk_pm_put(rc->C->A, &rc->fn->value_refs, e->u.name, (void *)1);
  }
}

/* Do two sets share a key? Walks the smaller one (a function mentions few
 * names; a round may change many). */
static bool maps_intersect(const PtrMap *a, const PtrMap *b) {
  if (a->count > b->count) {
    const PtrMap *t = a;
    a = b;
    b = t;
  }
  for (size_t i = 0; i < a->cap; i++)
    if (a->keys[i] && chk_pm_has(b, a->keys[i])) return true;
  return false;
}

/* Iterate each function's effects to a fixpoint. A function's inferred
 * set only grows with its callees' sets, so the order of updates does not
 * change the fixpoint: after a first round over every function, only
 * functions that mention a name whose effects changed are inferred again. */
PtrMap chk_stabilize_effects(Checker *C) {
  Module *m = C->mod;
  PtrMap affected_fns = {0};
  int n = 0;
  for (int i = 0; i < m->ndecls; i++)
    n += m->decls[i]->kind == D_FUNC ? 1 : m->decls[i]->kind == D_IMPL ? m->decls[i]->u.impl.n : 0;
  if (n == 0) return affected_fns;
  EffFn *fns = arena_array(C->A, (size_t)n, sizeof(EffFn));
  int k = 0;
  for (int i = 0; i < m->ndecls; i++) {
    Decl *d = m->decls[i];
    if (d->kind == D_FUNC) {
      fns[k].f = &d->u.func;
      fns[k++].impl = NULL;
    } else if (d->kind == D_IMPL) {
      Impl *impl = chk_find_impl(C, d->u.impl.trait, d->u.impl.type);
      for (int j = 0; j < d->u.impl.n; j++) {
        fns[k].f = d->u.impl.methods[j];
        fns[k++].impl = impl;
      }
    }
  }
  PtrMap fn_names = {0};
  for (int i = 0; i < n; i++) chk_pm_put(C->A, &fn_names, fns[i].f->name, (void *)1);
  for (int i = 0; i < n; i++) {
    memset(&fns[i].refs, 0, sizeof fns[i].refs);
    memset(&fns[i].value_refs, 0, sizeof fns[i].value_refs);
    RefCollect rc = {C, &fn_names, &fns[i], NULL, 0};
    ChkWalk w = {.expr = collect_ref, .ud = &rc, .lambda_depth = &rc.lambda_depth};
    chk_walk(&w, fns[i].f);
  }
  PtrMap changed = {0}, next = {0}, all_changed = {0};
  C->eff_fn_names = &fn_names;
  /* Each round that changes something adds an effect bit to some
   * function, so there are at most n * 32 rounds; the cap only guards
   * against an unforeseen oscillation. */
  long max_rounds = (long)n * 32 + 2;
  for (long round = 0; round < max_rounds; round++) {
    bool any = false;
    memset(&next, 0, sizeof next);
    for (int i = 0; i < n; i++) {
      EffFn *ef = &fns[i];
      if (round > 0 && !maps_intersect(&ef->refs, &changed)) continue;
      if (!ef->impl) {
        Type *existing = chk_lookup(C, C->global_scope, ef->f->name);
        if (!existing || existing->kind != TY_FUNC) continue;
        EffectSet fe = stable_effects(C, ef, round > 0);
        if (existing->effects != fe) {
          chk_bind_global(C, ef->f->name, ty_func(&C->tc, existing->n, existing->args, existing->ret, fe));
          chk_pm_put(C->A, &C->eff_changed_at, ef->f->name, (void *)(uintptr_t)++C->eff_stamp);
          chk_pm_put(C->A, &next, ef->f->name, (void *)1);
          chk_pm_put(C->A, &all_changed, ef->f->name, (void *)1);
          any = true;
        }
      } else {
        Type *existing = chk_pm_get(&ef->impl->methods, ef->f->name);
        if (!existing) continue;
        EffectSet fe = stable_effects(C, ef, round > 0);
        if (existing->effects != fe) {
          chk_pm_put(C->A, &ef->impl->methods, ef->f->name, ty_func(&C->tc, existing->n, existing->args, existing->ret, fe));
          chk_pm_put(C->A, &C->eff_changed_at, ef->f->name, (void *)(uintptr_t)++C->eff_stamp);
          chk_pm_put(C->A, &next, ef->f->name, (void *)1);
          chk_pm_put(C->A, &all_changed, ef->f->name, (void *)1);
          any = true;
        }
      }
    }
    if (!any) {
      C->eff_memo_ok = true;
      C->eff_memo_gen = C->globals_gen;
      break;
    }
    changed = next;
  }
  C->eff_fn_names = NULL;
  for (int i = 0; i < n; i++)
    if (maps_intersect(&fns[i].refs, &all_changed)) {
      chk_pm_put(C->A, &affected_fns, fns[i].f, (void *)1);
      if (!maps_intersect(&fns[i].value_refs, &all_changed)) chk_pm_put(C->A, &C->callee_only, fns[i].f, (void *)1);
    }
  return affected_fns;
}
