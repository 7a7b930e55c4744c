/* Declarations: ADTs, aliases, traits, impls and function signatures, and
 * the order of the passes over one module (the reference's check_program):
 *   1. imports; app-mode detection; the exported type surface;
 *      aliases and ADTs (+ variance); traits; function signatures
 *      (a duplicate is E309, the first one is kept); impl blocks; names
 *      called from test blocks (exempt from the example requirement);
 *   2. every function body and impl method, without effect validation;
 *   3. only if 2 found nothing: effects to a fixpoint, then every body
 *      again with effect validation (so E310 appears only on otherwise
 *      clean programs);
 *   4. test blocks. */
#include "checker.h"

AdtInfo *chk_adt(Checker *C, const char *name) { return chk_pm_get(&C->type_defs, name); }

Impl *chk_find_impl(Checker *C, const char *trait, const char *type) {
  ImplTable *t = chk_pm_get(&C->impl_index, trait);
  return t ? chk_pm_get(&t->by_type, type) : NULL;
}

const ParamList *chk_trait_method_params(Checker *C, const char *trait, const char *method) {
  Decl *d = chk_pm_get(&C->trait_defs, trait);
  if (!d) return NULL;
  for (int i = 0; i < d->u.trait.n; i++) {
    TraitMethod *m = &d->u.trait.methods[i];
    if (m->name != method) continue;
    ParamList *pl = arena_alloc(C->A, sizeof *pl);
    pl->n = m->nparams;
    pl->names = arena_array(C->A, (size_t)(m->nparams ? m->nparams : 1), sizeof(const char *));
    for (int k = 0; k < m->nparams; k++) pl->names[k] = m->params[k].name;
    return pl;
  }
  return NULL;
}

/* ---- ADTs and aliases ------------------------------------------------------------ */

static ParamList decl_params(Decl *d) {
  ParamList pl = {d->u.adt.nparams, d->u.adt.params};
  return pl;
}

AdtInfo *chk_build_adt(Checker *C, Decl *d) {
  AdtInfo *info = arena_alloc(C->A, sizeof *info);
  info->name = d->u.adt.name;
  info->nparams = d->u.adt.nparams;
  info->params = d->u.adt.params;
  info->variants = arena_array(C->A, (size_t)(d->u.adt.n ? d->u.adt.n : 1), sizeof(AdtVariant));
  ParamList tp = decl_params(d);
  for (int i = 0; i < d->u.adt.n; i++) {
    Variant *v = &d->u.adt.variants[i];
    AdtVariant av;
    av.name = v->name;
    av.nfields = v->nfields;
    av.fnames = arena_array(C->A, (size_t)(v->nfields ? v->nfields : 1), sizeof(const char *));
    av.ftypes = arena_array(C->A, (size_t)(v->nfields ? v->nfields : 1), sizeof(Type *));
    for (int k = 0; k < v->nfields; k++) {
      av.fnames[k] = v->fields[k].name;
      av.ftypes[k] = chk_resolve_type(C, v->fields[k].type, &tp);
    }
    /* A repeated variant name keeps its first position and its last fields
     * (the reference builds a dict). */
    intptr_t at = (intptr_t)chk_pm_get(&info->vindex, v->name);
    if (at) {
      info->variants[at - 1] = av;
    } else {
      info->variants[info->nvariants++] = av;
      chk_pm_put(C->A, &info->vindex, v->name, (void *)(intptr_t)info->nvariants);
    }
  }
  return info;
}

/* Install an ADT: replaces a type of the same name (and its constructors). */
void chk_install_adt(Checker *C, AdtInfo *info, Span sp, bool report_dup_ctors) {
  AdtInfo *old = chk_adt(C, info->name);
  if (old)
    for (int i = 0; i < old->nvariants; i++) chk_pm_del(&C->ctor_to_type, old->variants[i].name);
  chk_pm_put(C->A, &C->type_defs, info->name, info);
  for (int i = 0; i < info->nvariants; i++) {
    const char *ctor = info->variants[i].name;
    const char *existing = chk_pm_get(&C->ctor_to_type, ctor);
    if (report_dup_ctors && existing && existing != info->name)
      chk_error(C, E_DUPLICATE, sp, "Constructor '%s' is already defined by type '%s'", ctor, existing);
    chk_pm_put(C->A, &C->ctor_to_type, ctor, (void *)info->name);
  }
}

void chk_collect_alias(Checker *C, Decl *d) {
  AliasInfo *al = arena_alloc(C->A, sizeof *al);
  al->nparams = d->u.alias.nparams;
  al->params = d->u.alias.params;
  al->target = d->u.alias.target;
  chk_pm_put(C->A, &C->aliases, d->u.alias.name, al);
}

void chk_validate_alias(Checker *C, Decl *d) {
  ParamList tp = {d->u.alias.nparams, d->u.alias.params};
  chk_resolve_type(C, d->u.alias.target, &tp);
}

/* ---- functions ---------------------------------------------------------------------- */

/* The signature type of a function declaration (parameters, return type,
 * declared effects; Async[R] for async functions). */
Type *chk_signature(Checker *C, FuncDecl *f, int *ndefaults) {
  Type *buf[16];
  Type **ps = f->nparams <= 16 ? buf : arena_array(C->A, (size_t)f->nparams, sizeof(Type *));
  int nd = 0;
  for (int i = 0; i < f->nparams; i++) {
    ps[i] = chk_resolve_type(C, f->params[i].type, NULL);
    if (f->params[i].def) nd++;
  }
  Type *ret = chk_resolve_type(C, f->ret, NULL);
  for (int i = 0; i < f->nparams; i++) chk_validate_keyed(C, ps[i], f->span);
  chk_validate_keyed(C, ret, f->span);
  if (f->is_async) ret = ty_unary(&C->tc, TY_ASYNC, ret);
  if (ndefaults) *ndefaults = nd;
  return ty_func(&C->tc, f->nparams, ps, ret, chk_effects_of_decl(C, f));
}

ParamList *chk_func_params(Checker *C, FuncDecl *f) {
  ParamList *pl = arena_alloc(C->A, sizeof *pl);
  pl->n = f->nparams;
  pl->names = arena_array(C->A, (size_t)(f->nparams ? f->nparams : 1), sizeof(const char *));
  for (int i = 0; i < f->nparams; i++) pl->names[i] = f->params[i].name;
  return pl;
}

void chk_register_function(Checker *C, const char *name, Type *t, ParamList *params, int ndefaults) {
  chk_bind_global(C, name, t);
  chk_pm_put(C->A, &C->user_defined, name, (void *)1);
  chk_pm_put(C->A, &C->param_names, name, params);
  if (ndefaults > 0) chk_pm_put(C->A, &C->default_counts, name, (void *)(intptr_t)ndefaults);
}

/* ---- traits and impls ----------------------------------------------------------------- */

static void collect_trait(Checker *C, Decl *d) {
  const char *name = d->u.trait.name;
  if (chk_pm_has(&C->trait_defs, name)) {
    chk_error(C, E_DUPLICATE, d->span, "Duplicate trait definition: '%s'", name);
    return;
  }
  chk_pm_put(C->A, &C->trait_defs, name, d);
  chk_self_enter(C);
  for (int i = 0; i < d->u.trait.n; i++) {
    TraitMethod *m = &d->u.trait.methods[i];
    for (int k = 0; k < m->nparams; k++) chk_resolve_type(C, m->params[k].type, NULL);
    chk_resolve_type(C, m->ret, NULL);
  }
  chk_self_leave(C);
  for (int i = 0; i < d->u.trait.n; i++) {
    TraitMethod *m = &d->u.trait.methods[i];
    TraitList *tl = chk_pm_get(&C->trait_methods, m->name);
    if (!tl) {
      tl = arena_alloc(C->A, sizeof *tl);
      chk_pm_put(C->A, &C->trait_methods, m->name, tl);
    }
    if (tl->n == tl->cap) {
      int nc = tl->cap ? tl->cap * 2 : 2;
      tl->traits = arena_grow(C->A, tl->traits, (size_t)tl->n, (size_t)nc, sizeof(const char *));
      tl->cap = nc;
    }
    tl->traits[tl->n++] = name;
  }
}

static Type *subst_self(Checker *C, Type *t, Type *repl) {
  if (t->kind == TY_ADT && t->name == C->n.self_type && t->n == 0) return repl;
  if (t->n == 0 && !t->ret) return t;
  Type *buf[16];
  Type **args = t->n <= 16 ? buf : arena_array(C->A, (size_t)t->n, sizeof(Type *));
  bool changed = false;
  for (int i = 0; i < t->n; i++) {
    args[i] = subst_self(C, t->args[i], repl);
    changed |= args[i] != t->args[i];
  }
  Type *ret = t->ret ? subst_self(C, t->ret, repl) : NULL;
  changed |= ret != t->ret;
  return changed ? ty_rebuild(&C->tc, t, args, ret) : t;
}

static Type *resolve_with_self(Checker *C, TypeExpr *te) {
  chk_self_enter(C);
  Type *t = chk_resolve_type(C, te, NULL);
  chk_self_leave(C);
  return t;
}

/* `impl Trait for Type`: the trait and the (user ADT) type must exist, a
 * second impl of the pair is E309, every trait method must be implemented
 * with matching parameter count and types (Self = the ADT). The first impl
 * of a trait binds each method name as a dispatch function typed with
 * Self; calls are resolved by the first argument (call.c). */
static void check_impl(Checker *C, Decl *d) {
  const char *trait = d->u.impl.trait, *type = d->u.impl.type;
  Decl *td = chk_pm_get(&C->trait_defs, trait);
  if (!td) {
    chk_error(C, E_TYPE_MISMATCH, d->span, "Unknown trait: '%s'", trait);
    return;
  }
  if (!chk_adt(C, type)) {
    const char *cands[64];
    int n = 0;
    for (size_t i = 0; i < C->type_defs.cap && n < 64; i++)
      if (C->type_defs.keys[i]) cands[n++] = C->type_defs.keys[i];
    chk_error(C, E_UNDEFINED_TYPE, d->span, "Unknown type: '%s'%s", type, chk_suggest(C, type, cands, n));
    return;
  }
  if (chk_find_impl(C, trait, type)) {
    chk_error(C, E_DUPLICATE, d->span, "Duplicate implementation of trait '%s' for type '%s'", trait, type);
    return;
  }
  Type *self_t = ty_adt(&C->tc, type, 0, NULL);
  for (int i = 0; i < td->u.trait.n; i++) {
    TraitMethod *sig = &td->u.trait.methods[i];
    FuncDecl *im = NULL;
    for (int k = 0; k < d->u.impl.n; k++)
      if (d->u.impl.methods[k]->name == sig->name) im = d->u.impl.methods[k];
    if (!im) {
      chk_error(C, E_TYPE_MISMATCH, d->span, "Missing implementation of method '%s' for trait '%s' on type '%s'",
                sig->name, trait, type);
      continue;
    }
    if (im->nparams != sig->nparams) {
      chk_error(C, E_TYPE_MISMATCH, im->span, "Method '%s' in impl '%s' for '%s' has %d parameters, expected %d",
                sig->name, trait, type, im->nparams, sig->nparams);
      continue;
    }
    Type *exp_ret = subst_self(C, resolve_with_self(C, sig->ret), self_t);
    Type *act_ret = chk_resolve_type(C, im->ret, NULL);
    if (!chk_strictly_compatible(C, exp_ret, act_ret))
      chk_error(C, E_TYPE_MISMATCH, im->span, "Method '%s' return type mismatch: expected %s, got %s", sig->name,
                chk_tstr(C, exp_ret), chk_tstr(C, act_ret));
    for (int k = 0; k < sig->nparams; k++) {
      Type *exp = subst_self(C, resolve_with_self(C, sig->params[k].type), self_t);
      Type *act = chk_resolve_type(C, im->params[k].type, NULL);
      if (!chk_strictly_compatible(C, exp, act))
        chk_error(C, E_TYPE_MISMATCH, im->params[k].span, "Method '%s' parameter %d type mismatch: expected %s, got %s",
                  sig->name, k + 1, chk_tstr(C, exp), chk_tstr(C, act));
    }
  }
  /* register */
  Impl *impl = arena_alloc(C->A, sizeof *impl);
  impl->trait = trait;
  impl->type = type;
  ImplTable *table = chk_pm_get(&C->impl_index, trait);
  if (!table) {
    table = arena_alloc(C->A, sizeof *table);
    chk_pm_put(C->A, &C->impl_index, trait, table);
  }
  chk_pm_put(C->A, &table->by_type, type, impl);
  for (int k = 0; k < d->u.impl.n; k++) {
    FuncDecl *m = d->u.impl.methods[k];
    Type *buf[16];
    Type **ps = m->nparams <= 16 ? buf : arena_array(C->A, (size_t)m->nparams, sizeof(Type *));
    for (int j = 0; j < m->nparams; j++) ps[j] = chk_resolve_type(C, m->params[j].type, NULL);
    Type *ret = chk_resolve_type(C, m->ret, NULL);
    chk_pm_put(C->A, &impl->methods, m->name, ty_func(&C->tc, m->nparams, ps, ret, chk_effects_of_decl(C, m)));
  }
  /* The first impl of a trait binds the dispatch names. */
  for (int i = 0; i < td->u.trait.n; i++) {
    TraitMethod *sig = &td->u.trait.methods[i];
    Type *buf[16];
    Type **ps = sig->nparams <= 16 ? buf : arena_array(C->A, (size_t)sig->nparams, sizeof(Type *));
    for (int k = 0; k < sig->nparams; k++) ps[k] = resolve_with_self(C, sig->params[k].type);
    Type *ret = resolve_with_self(C, sig->ret);
    if (!chk_pm_has(&C->user_defined, sig->name)) {
      chk_bind_global(C, sig->name, ty_func(&C->tc, sig->nparams, ps, ret, 0));
      chk_pm_put(C->A, &C->user_defined, sig->name, (void *)1);
      chk_pm_put(C->A, &C->param_names, sig->name, (void *)chk_trait_method_params(C, trait, sig->name));
    }
  }
}

/* ---- names called from test blocks ------------------------------------------------- */

/* Functions called by plain name anywhere inside a test block are exempt
 * from the example requirement (not transitively, not through values). */
static void tested_expr(Checker *C, Expr *e, int depth);

static void tested_block(Checker *C, Block b, int depth);

static void tested_arms(Checker *C, MatchArm *arms, int n, int depth) {
  for (int i = 0; i < n; i++) {
    if (arms[i].guard) tested_expr(C, arms[i].guard, depth);
    if (arms[i].value) tested_expr(C, arms[i].value, depth);
    tested_block(C, arms[i].body, depth);
  }
}

static void tested_expr(Checker *C, Expr *e, int depth) {
  if (!e || depth > CHK_MAX_DEPTH) return;
  depth++;
  switch (e->kind) {
  case EX_CALL:
    if (e->u.call.callee->kind == EX_IDENT) chk_pm_put(C->A, &C->tested_by_block, e->u.call.callee->u.name, (void *)1);
    tested_expr(C, e->u.call.callee, depth);
    for (int i = 0; i < e->u.call.nargs; i++) tested_expr(C, e->u.call.args[i].value, depth);
    break;
  case EX_FSTRING:
    for (int i = 0; i < e->u.fstr.n; i++) tested_expr(C, e->u.fstr.pieces[i].expr, depth);
    break;
  case EX_LIST: case EX_TUPLE:
    for (int i = 0; i < e->u.list.n; i++) tested_expr(C, e->u.list.items[i], depth);
    break;
  case EX_LIST_COMP:
    tested_expr(C, e->u.comp.elem, depth);
    tested_expr(C, e->u.comp.iter, depth);
    tested_expr(C, e->u.comp.cond, depth);
    break;
  case EX_THROW: case EX_AWAIT: case EX_PROPAGATE:
    tested_expr(C, e->u.operand, depth);
    break;
  case EX_BINARY:
    tested_expr(C, e->u.bin.l, depth);
    tested_expr(C, e->u.bin.r, depth);
    break;
  case EX_UNARY:
    tested_expr(C, e->u.un.e, depth);
    break;
  case EX_CTOR:
    for (int i = 0; i < e->u.ctor.nargs; i++) tested_expr(C, e->u.ctor.args[i].value, depth);
    break;
  case EX_INDEX:
    tested_expr(C, e->u.index.target, depth);
    tested_expr(C, e->u.index.index, depth);
    break;
  case EX_FIELD:
    tested_expr(C, e->u.field.target, depth);
    break;
  case EX_WITH:
    tested_expr(C, e->u.with.target, depth);
    for (int i = 0; i < e->u.with.n; i++) tested_expr(C, e->u.with.inits[i].value, depth);
    break;
  case EX_PIPELINE:
    tested_expr(C, e->u.pipe.init, depth);
    for (int i = 0; i < e->u.pipe.n; i++) {
      tested_expr(C, e->u.pipe.stages[i].fn, depth);
      for (int k = 0; k < e->u.pipe.stages[i].nargs; k++) tested_expr(C, e->u.pipe.stages[i].args[k], depth);
    }
    break;
  case EX_LAMBDA:
    tested_expr(C, e->u.lambda.body, depth);
    tested_block(C, e->u.lambda.block, depth);
    for (int i = 0; i < e->u.lambda.nparams; i++) tested_expr(C, e->u.lambda.params[i].def, depth);
    break;
  case EX_MATCH:
    tested_expr(C, e->u.match.scrutinee, depth);
    tested_arms(C, e->u.match.arms, e->u.match.n, depth);
    break;
  case EX_HOLE:
    tested_expr(C, e->u.hole.where, depth);
    break;
  default:
    break;
  }
}

static void tested_block(Checker *C, Block b, int depth) {
  if (depth > CHK_MAX_DEPTH) return;
  for (int i = 0; i < b.n; i++) {
    Stmt *st = b.items[i];
    switch (st->kind) {
    case ST_LET: tested_expr(C, st->u.let.value, depth + 1); break;
    case ST_DESTRUCT: tested_expr(C, st->u.destr.value, depth + 1); break;
    case ST_ASSIGN: tested_expr(C, st->u.assign.value, depth + 1); break;
    case ST_INDEX_ASSIGN:
      tested_expr(C, st->u.index_assign.target, depth + 1);
      tested_expr(C, st->u.index_assign.index, depth + 1);
      tested_expr(C, st->u.index_assign.value, depth + 1);
      break;
    case ST_FIELD_ASSIGN:
      tested_expr(C, st->u.field_assign.target, depth + 1);
      tested_expr(C, st->u.field_assign.value, depth + 1);
      break;
    case ST_IF:
      tested_expr(C, st->u.if_.cond, depth + 1);
      tested_block(C, st->u.if_.then_b, depth + 1);
      tested_block(C, st->u.if_.else_b, depth + 1);
      break;
    case ST_WHILE:
      tested_expr(C, st->u.while_.cond, depth + 1);
      tested_block(C, st->u.while_.body, depth + 1);
      break;
    case ST_FOR:
      tested_expr(C, st->u.for_.iter, depth + 1);
      tested_block(C, st->u.for_.body, depth + 1);
      break;
    case ST_MATCH:
      tested_expr(C, st->u.match.scrutinee, depth + 1);
      tested_arms(C, st->u.match.arms, st->u.match.n, depth + 1);
      break;
    case ST_RETURN: tested_expr(C, st->u.ret.value, depth + 1); break;
    case ST_TRY:
      tested_block(C, st->u.try_.body, depth + 1);
      tested_block(C, st->u.try_.handler, depth + 1);
      break;
    case ST_EXPR: case ST_ASSERT: tested_expr(C, st->u.expr, depth + 1); break;
    default: break;
    }
  }
}

/* ---- the passes ------------------------------------------------------------------------ */


void chk_module_passes(Checker *C) {
  Module *m = C->mod;
  chk_resolve_imports(C);

  bool has_init = false, has_update = false, has_render = false, has_main = false;
  for (int i = 0; i < m->ndecls; i++) {
    Decl *d = m->decls[i];
    if (d->kind != D_FUNC) continue;
    const char *n = d->u.func.name;
    has_init |= n == C->n.init;
    has_update |= n == C->n.update;
    has_render |= n == C->n.render;
    has_main |= n == C->n.main_;
  }
  C->app_mode = has_init && has_update && has_render && !has_main;

  chk_validate_export_surface(C, m, chk_module_has_exports(m));

  /* aliases and ADTs, with every ADT of the module declared up front */
  Decl **adts = arena_array(C->A, (size_t)(m->ndecls ? m->ndecls : 1), sizeof(Decl *));
  int nadts = 0;
  for (int i = 0; i < m->ndecls; i++)
    if (m->decls[i]->kind == D_ADT) adts[nadts++] = m->decls[i];
  chk_push_declared(C, adts, nadts);
  for (int i = 0; i < m->ndecls; i++)
    if (m->decls[i]->kind == D_ALIAS) chk_collect_alias(C, m->decls[i]);
  AdtInfo **infos = arena_array(C->A, (size_t)(nadts ? nadts : 1), sizeof(AdtInfo *));
  int ninfos = 0;
  for (int i = 0; i < nadts; i++) {
    AdtInfo *info = chk_build_adt(C, adts[i]);
    chk_install_adt(C, info, adts[i]->span, true);
  }
  /* variance over the installed infos (a later same-named type wins) */
  for (int i = 0; i < nadts; i++) {
    AdtInfo *info = chk_adt(C, adts[i]->u.adt.name);
    bool dup = false;
    for (int k = 0; k < ninfos; k++) dup |= infos[k] == info;
    if (info && !dup) infos[ninfos++] = info;
  }
  chk_refresh_variance(C, infos, ninfos);
  for (int i = 0; i < m->ndecls; i++)
    if (m->decls[i]->kind == D_ALIAS) chk_validate_alias(C, m->decls[i]);
  chk_pop_declared(C);

  for (int i = 0; i < m->ndecls; i++)
    if (m->decls[i]->kind == D_TRAIT) collect_trait(C, m->decls[i]);

  PtrMap seen = {0};
  for (int i = 0; i < m->ndecls; i++) {
    Decl *d = m->decls[i];
    if (d->kind != D_FUNC) continue;
    FuncDecl *f = &d->u.func;
    if (chk_pm_has(&seen, f->name)) {
      chk_error(C, E_DUPLICATE, f->span, "Duplicate function definition: '%s'", f->name);
      continue;
    }
    chk_pm_put(C->A, &seen, f->name, (void *)1);
    int nd;
    Type *t = chk_signature(C, f, &nd);
    chk_register_function(C, f->name, t, chk_func_params(C, f), nd);
  }
  for (int i = 0; i < m->ndecls; i++)
    if (m->decls[i]->kind == D_IMPL) check_impl(C, m->decls[i]);
  chk_target_browser_lifecycle(C);

  for (int i = 0; i < m->ndecls; i++)
    if (m->decls[i]->kind == D_TEST) tested_block(C, m->decls[i]->u.test.body, 0);

  /* pass 2 */
  for (int i = 0; i < m->ndecls; i++)
    if (m->decls[i]->kind == D_FUNC) chk_function(C, &m->decls[i]->u.func, false, false, true);
  for (int i = 0; i < m->ndecls; i++)
    if (m->decls[i]->kind == D_IMPL)
      for (int k = 0; k < m->decls[i]->u.impl.n; k++) chk_function(C, m->decls[i]->u.impl.methods[k], false, false, true);

  /* pass 3 */
  if (diag_error_count(&C->errors) == 0) {
    /* A body is checked again only when a name it mentions gained effects
     * (only function types changed since pass 2); every body's effects are
     * validated. */
    PtrMap affected = chk_stabilize_effects(C);
    for (int i = 0; i < m->ndecls; i++)
      if (m->decls[i]->kind == D_FUNC) {
        FuncDecl *f = &m->decls[i]->u.func;
        chk_function(C, f, true, true, chk_pm_has(&affected, f));
      }
    for (int i = 0; i < m->ndecls; i++)
      if (m->decls[i]->kind == D_IMPL)
        for (int k = 0; k < m->decls[i]->u.impl.n; k++) {
          FuncDecl *f = m->decls[i]->u.impl.methods[k];
          chk_function(C, f, false, true, chk_pm_has(&affected, f));
        }
  }

  /* pass 4 */
  for (int i = 0; i < m->ndecls; i++)
    if (m->decls[i]->kind == D_TEST) chk_test_block(C, m->decls[i]);
}
