/* Expressions (except calls, pipelines and constructors: call.c): literals,
 * names, operators, indexing, fields, `with`, `?`, throw/await, lambdas,
 * list comprehensions, match expressions and typed holes. Each sets
 * Expr->type. Messages and codes follow the reference checker. */
#include "checker.h"

static TypeCtx *TC(Checker *C) { return &C->tc; }
static Type *prim(Checker *C, TypeKind k) { return ty_prim(&C->tc, k); }

/* An undefined name is E301 and types as Error, which is compatible with
 * everything in assignments, returns and arguments. It is *not* accepted by
 * arithmetic, conditions or `length`, so `1 + zork` also gets an E300: the
 * reference behaves that way and its error set is the specification. */
static Type *check_identifier(Checker *C, Expr *e, Scope *s) {
  Type *t = chk_lookup(C, s, e->u.name);
  if (!t) {
    /* A builtin the target lacks: that error instead, typed like an
     * undefined name (so calling it is E305, as in the reference). */
    if (chk_target_reject_builtin(C, e->u.name, e->span)) return prim(C, TY_ERROR);
    chk_error(C, E_UNDEFINED_VAR, e->span, "Undefined variable: %s%s", e->u.name,
              chk_suggest_in_scope(C, s, e->u.name));
    return prim(C, TY_ERROR);
  }
  return t;
}

static const char *ctor_hint(Checker *C, const char *name) {
  int cap = (int)(C->ctor_to_type.count + C->module_ns.count + 1), n = 0;
  const char **cands = arena_array(C->A, (size_t)cap, sizeof(const char *));
  for (size_t i = 0; i < C->ctor_to_type.cap; i++)
    if (C->ctor_to_type.keys[i] && n < cap) cands[n++] = C->ctor_to_type.keys[i];
  for (size_t i = 0; i < C->module_ns.cap; i++)
    if (C->module_ns.keys[i] && n < cap) cands[n++] = C->module_ns.keys[i];
  return chk_suggest(C, name, cands, n);
}

const char *chk_ctor_hint(Checker *C, const char *name) { return ctor_hint(C, name); }

/* A bare capitalised name: a nullary constructor (a generic one gets a
 * fresh type variable per parameter, bound later by an annotation or a call
 * site) or an imported module's namespace. A constructor that has fields
 * is not a value on its own. */
static Type *check_type_identifier(Checker *C, Expr *e) {
  const char *tname = chk_pm_get(&C->ctor_to_type, e->u.name);
  if (tname) {
    AdtInfo *info = chk_adt(C, tname);
    AdtVariant *v = chk_variant(info, e->u.name);
    if (v && v->nfields == 0) {
      if (info->nparams) {
        Type **args = arena_array(C->A, (size_t)info->nparams, sizeof(Type *));
        for (int i = 0; i < info->nparams; i++) args[i] = chk_fresh_var(C, info->params[i]);
        return ty_adt(TC(C), tname, info->nparams, args);
      }
      return ty_adt(TC(C), tname, 0, NULL);
    }
  }
  if (chk_pm_has(&C->module_ns, e->u.name)) return ty_module(TC(C), e->u.name);
  chk_error(C, E_TYPE_MISMATCH, e->span, "Unknown constructor: %s%s", e->u.name, ctor_hint(C, e->u.name));
  return prim(C, TY_ERROR);
}

/* `[]` has a fresh element type; otherwise the first element fixes it, so
 * `[2.5, 1]` is a List[Float] but `[1, 2.5]` is an error (the reference's
 * rule, deliberately not symmetric). A `throw` element makes it Never. */
static Type *check_list(Checker *C, Expr *e, Scope *s) {
  int n = e->u.list.n;
  if (n == 0) return ty_unary(TC(C), TY_LIST, chk_fresh_var(C, "elem"));
  Type **ts = arena_array(C->A, (size_t)n, sizeof(Type *));
  bool never = false;
  for (int i = 0; i < n; i++) {
    ts[i] = chk_expr(C, e->u.list.items[i], s);
    never |= ts[i]->kind == TY_NEVER;
  }
  if (never) return prim(C, TY_NEVER);
  for (int i = 1; i < n; i++)
    if (!chk_compatible(C, ts[0], ts[i]))
      chk_error(C, E_TYPE_MISMATCH, e->u.list.items[i]->span, "List element type mismatch: expected %s, got %s",
                chk_tstr(C, ts[0]), chk_tstr(C, ts[i]));
  return ty_unary(TC(C), TY_LIST, ts[0]);
}

static Type *check_tuple(Checker *C, Expr *e, Scope *s) {
  int n = e->u.list.n;
  if (n == 0) return prim(C, TY_UNIT);
  Type **ts = arena_array(C->A, (size_t)n, sizeof(Type *));
  bool never = false;
  for (int i = 0; i < n; i++) {
    ts[i] = chk_expr(C, e->u.list.items[i], s);
    never |= ts[i]->kind == TY_NEVER;
  }
  if (never) return prim(C, TY_NEVER);
  return ty_new(TC(C), TY_TUPLE, n, ts);
}

static bool orderable(Type *l, Type *r) {
  if (l->kind == TY_ERROR || r->kind == TY_ERROR) return true;
  if (ty_is_numeric(l) && ty_is_numeric(r)) return true;
  return l->kind == TY_STRING && r->kind == TY_STRING;
}

/* Operators. Int with Float is Float; `**` on two Ints is Int even though a
 * negative exponent yields a Float at run time (the reference's typing);
 * `==` needs compatibility in either direction; ordering is numbers or
 * strings only. Errors are located at the left operand, like the
 * reference's. */
static Type *check_binary(Checker *C, Expr *e, Scope *s) {
  Type *l = chk_expr(C, e->u.bin.l, s);
  Type *r = chk_expr(C, e->u.bin.r, s);
  BinOp op = e->u.bin.op;
  const char *ops = ast_binop_text(op);
  switch (op) {
  case OP_BAND: case OP_BXOR: case OP_SHL: case OP_SHR:
    if (l->kind != TY_INT)
      chk_error(C, E_TYPE_MISMATCH, e->span, "Left operand of '%s' must be Int, got %s", ops, chk_tstr(C, l));
    if (r->kind != TY_INT)
      chk_error(C, E_TYPE_MISMATCH, e->span, "Right operand of '%s' must be Int, got %s", ops, chk_tstr(C, r));
    return prim(C, TY_INT);
  case OP_POW:
    if (l->kind == TY_INT && r->kind == TY_INT) return prim(C, TY_INT);
    if (ty_is_numeric(l) && ty_is_numeric(r)) return prim(C, TY_FLOAT);
    chk_error(C, E_TYPE_MISMATCH, e->span,
              "Cannot apply '**' to %s and %s: both operands must be numeric (Int or Float)", chk_tstr(C, l),
              chk_tstr(C, r));
    return prim(C, TY_ERROR);
  case OP_ADD: case OP_SUB: case OP_MUL: case OP_DIV: case OP_MOD:
    if (op == OP_ADD && l->kind == TY_STRING && r->kind == TY_STRING) return prim(C, TY_STRING);
    if (l->kind == TY_INT && r->kind == TY_INT) return prim(C, TY_INT);
    if (ty_is_numeric(l) && ty_is_numeric(r)) return prim(C, TY_FLOAT);
    chk_error(C, E_TYPE_MISMATCH, e->span,
              "Cannot apply '%s' to %s and %s: both operands must be numeric (Int or Float)%s", ops, chk_tstr(C, l),
              chk_tstr(C, r), op == OP_ADD ? " or both String for concatenation" : "");
    return prim(C, TY_ERROR);
  case OP_EQ: case OP_NEQ:
    if (!(chk_compatible(C, l, r) || chk_compatible(C, r, l)))
      chk_error(C, E_TYPE_MISMATCH, e->span, "Cannot compare %s with %s", chk_tstr(C, l), chk_tstr(C, r));
    return prim(C, TY_BOOL);
  case OP_LT: case OP_GT: case OP_LTE: case OP_GTE:
    if (!orderable(l, r))
      chk_error(C, E_TYPE_MISMATCH, e->span,
                "Cannot apply '%s' to %s and %s: operands must both be numeric (Int or Float) or both String", ops,
                chk_tstr(C, l), chk_tstr(C, r));
    return prim(C, TY_BOOL);
  case OP_AND: case OP_OR:
    if (l->kind != TY_BOOL)
      chk_error(C, E_TYPE_MISMATCH, e->span, "Left operand of '%s' must be Bool, got %s", ops, chk_tstr(C, l));
    if (r->kind != TY_BOOL)
      chk_error(C, E_TYPE_MISMATCH, e->span, "Right operand of '%s' must be Bool, got %s", ops, chk_tstr(C, r));
    return prim(C, TY_BOOL);
  }
  return prim(C, TY_ERROR);
}

static Type *check_unary(Checker *C, Expr *e, Scope *s) {
  Type *t = chk_expr(C, e->u.un.e, s);
  switch (e->u.un.op) {
  case OP_NEG:
    if (ty_is_numeric(t)) return t->kind == TY_INT ? prim(C, TY_INT) : prim(C, TY_FLOAT);
    chk_error(C, E_TYPE_MISMATCH, e->span, "Cannot negate type %s: the '-' operator requires Int or Float",
              chk_tstr(C, t));
    return prim(C, TY_ERROR);
  case OP_NOT:
    if (t->kind != TY_BOOL) chk_error(C, E_TYPE_MISMATCH, e->span, "'not' requires Bool, got %s", chk_tstr(C, t));
    return prim(C, TY_BOOL);
  case OP_BNOT:
    if (t->kind != TY_INT) chk_error(C, E_TYPE_MISMATCH, e->span, "'~' requires Int, got %s", chk_tstr(C, t));
    return prim(C, TY_INT);
  }
  return prim(C, TY_ERROR);
}

/* Indexing reads List, Array, String and Map; Vec, MutableMap and tuples
 * are not indexable (they are read with vec_get / mutable_map_get /
 * destructuring), though `v[i] = x` assignment is allowed (stmt.c). */
static Type *check_index(Checker *C, Expr *e, Scope *s) {
  Type *t = chk_expr(C, e->u.index.target, s);
  Type *i = chk_expr(C, e->u.index.index, s);
  switch (t->kind) {
  case TY_LIST: case TY_ARRAY:
    if (i->kind != TY_INT)
      chk_error(C, E_TYPE_MISMATCH, e->span, "%s index must be Int, got %s", t->kind == TY_LIST ? "List" : "Array",
                chk_tstr(C, i));
    return t->args[0];
  case TY_STRING:
    if (i->kind != TY_INT) chk_error(C, E_TYPE_MISMATCH, e->span, "String index must be Int, got %s", chk_tstr(C, i));
    return prim(C, TY_STRING);
  case TY_MAP:
    if (!chk_compatible(C, t->args[0], i))
      chk_error(C, E_TYPE_MISMATCH, e->span, "Map key type mismatch: expected %s, got %s", chk_tstr(C, t->args[0]),
                chk_tstr(C, i));
    return t->args[1];
  default:
    chk_error(C, E_TYPE_MISMATCH, e->span, "Cannot index into %s", chk_tstr(C, t));
    return prim(C, TY_ERROR);
  }
}

/* Field `name` of every variant of the ADT `t`: fills types[] (one per
 * variant that has it, with variant names) and counts variants lacking it. */
typedef struct FieldLookup {
  int nfound, nmissing;
  const char **found_variants;
  Type **found_types;
  const char **missing;
} FieldLookup;

static FieldLookup lookup_field(Checker *C, Type *t, const char *name) {
  FieldLookup fl = {0, 0, NULL, NULL, NULL};
  AdtInfo *info = chk_adt(C, t->name);
  if (!info) return fl;
  fl.found_variants = arena_array(C->A, (size_t)(info->nvariants + 1), sizeof(const char *));
  fl.found_types = arena_array(C->A, (size_t)(info->nvariants + 1), sizeof(Type *));
  fl.missing = arena_array(C->A, (size_t)(info->nvariants + 1), sizeof(const char *));
  int np = info->nparams < t->n ? info->nparams : t->n;
  Subst sub = {0};
  for (int i = 0; i < np; i++) chk_subst_set(C, &sub, info->params[i], t->args[i]);
  for (int v = 0; v < info->nvariants; v++) {
    AdtVariant *var = &info->variants[v];
    int at = -1;
    for (int f = 0; f < var->nfields && at < 0; f++)
      if (var->fnames[f] == name) at = f;
    if (at >= 0) {
      fl.found_variants[fl.nfound] = var->name;
      fl.found_types[fl.nfound++] = chk_apply(C, var->ftypes[at], &sub);
    } else {
      fl.missing[fl.nmissing++] = var->name;
    }
  }
  return fl;
}

static const char *join_names(Checker *C, const char **names, int n) {
  Buf b = BUF_INIT;
  for (int i = 0; i < n; i++) buf_printf(&b, "%s%s", i ? ", " : "", names[i]);
  const char *s = b.data ? arena_strdup(C->A, b.data) : "";
  buf_free(&b);
  return s;
}

/* The field's type when every variant agrees, else an error and NULL. */
static Type *consistent_field(Checker *C, Type *t, const char *name, FieldLookup *fl, Span sp) {
  Type *first = fl->found_types[0];
  bool mismatch = false;
  for (int i = 1; i < fl->nfound; i++) mismatch |= !chk_type_equal(fl->found_types[i], first);
  if (!mismatch) return first;
  Buf b = BUF_INIT;
  buf_printf(&b, "%s: %s", fl->found_variants[0], chk_tstr(C, first));
  for (int i = 1; i < fl->nfound; i++)
    if (!chk_type_equal(fl->found_types[i], first))
      buf_printf(&b, ", %s: %s", fl->found_variants[i], chk_tstr(C, fl->found_types[i]));
  chk_error(C, E_TYPE_MISMATCH, sp,
            "Field '%s' has inconsistent types across variants of '%s' (%s); use pattern matching to access "
            "variant-specific fields",
            name, t->name, b.data ? b.data : "");
  buf_free(&b);
  return NULL;
}

/* Shared by field access and field assignment (stmt.c): the field's type
 * or NULL after reporting. `verb` is "access" or "update". */
Type *chk_field_type(Checker *C, Type *t, const char *name, Span sp, const char *verb, bool *reported) {
  *reported = false;
  FieldLookup fl = lookup_field(C, t, name);
  if (fl.nmissing && fl.nfound + fl.nmissing > 1) {
    chk_error(C, E_UNKNOWN_FIELD, sp,
              "Field '%s' does not exist on all variants of '%s' (missing on: %s); use pattern matching to %s "
              "variant-specific fields",
              name, t->name, join_names(C, fl.missing, fl.nmissing), verb);
    *reported = true;
    return NULL;
  }
  if (fl.nfound) {
    Type *ft = consistent_field(C, t, name, &fl, sp);
    if (!ft) *reported = true;
    return ft;
  }
  return NULL;
}

/* `e.f`: a module member, or a field every variant of the ADT has with one
 * type (otherwise pattern matching is required). Option and Result have no
 * fields in this sense. */
static Type *check_field(Checker *C, Expr *e, Scope *s) {
  Type *t = chk_expr(C, e->u.field.target, s);
  const char *name = e->u.field.name;
  if (t->kind == TY_MODULE) {
    const char *ns = e->u.field.target->kind == EX_IDENT ? e->u.field.target->u.name : t->name;
    ModuleNs *mns = chk_pm_get(&C->module_ns, ns);
    if (mns) {
      Type *sym = chk_pm_get(&mns->symbols, name);
      if (sym) return sym;
    }
    chk_error(C, E_UNKNOWN_FIELD, e->span, "Module '%s' has no exported symbol '%s'", ns, name);
    return prim(C, TY_ERROR);
  }
  if (t->kind == TY_ADT) {
    FieldLookup fl = lookup_field(C, t, name);
    if (fl.nmissing && fl.nfound + fl.nmissing > 1) {
      chk_error(C, E_UNKNOWN_FIELD, e->span,
                "Field '%s' does not exist on all variants of '%s' (missing on: %s); use pattern matching to access "
                "variant-specific fields",
                name, t->name, join_names(C, fl.missing, fl.nmissing));
      return prim(C, TY_ERROR);
    }
    if (fl.nfound) {
      Type *ft = consistent_field(C, t, name, &fl, e->span);
      if (ft) return ft;
    }
  }
  chk_error(C, E_UNKNOWN_FIELD, e->span, "Unknown field '%s' on type %s", name, chk_tstr(C, t));
  return prim(C, TY_ERROR);
}

/* `e?` unwraps an Option in a function returning Option, or a Result in a
 * function returning a Result with a compatible error type. */
static Type *check_propagate(Checker *C, Expr *e, Scope *s) {
  Type *t = chk_expr(C, e->u.operand, s);
  Type *ret = C->current_return;
  if (!ret) {
    chk_error(C, E_TYPE_MISMATCH, e->span, "'?' operator used outside of a function");
    return prim(C, TY_ERROR);
  }
  if (t->kind == TY_OPTION) {
    if (ret->kind != TY_OPTION)
      chk_error(C, E_TYPE_MISMATCH, e->span,
                "'?' on %s requires enclosing function to return Option type, but it returns %s", chk_tstr(C, t),
                chk_tstr(C, ret));
    return t->args[0];
  }
  if (t->kind == TY_RESULT) {
    if (ret->kind != TY_RESULT)
      chk_error(C, E_TYPE_MISMATCH, e->span,
                "'?' on %s requires enclosing function to return Result type, but it returns %s", chk_tstr(C, t),
                chk_tstr(C, ret));
    else if (!chk_strictly_compatible(C, ret->args[1], t->args[1]))
      chk_error(C, E_TYPE_MISMATCH, e->span,
                "Error type mismatch in '?': function returns Result[_, %s] but '?' propagates %s",
                chk_tstr(C, ret->args[1]), chk_tstr(C, t->args[1]));
    return t->args[0];
  }
  chk_error(C, E_TYPE_MISMATCH, e->span, "'?' operator requires Option or Result type, got %s", chk_tstr(C, t));
  return prim(C, TY_ERROR);
}

/* `e with (f: v)` copies a single-variant ADT value with fields replaced;
 * an unknown field is E307 and its value is not checked. */
static Type *check_with(Checker *C, Expr *e, Scope *s) {
  Type *t = chk_expr(C, e->u.with.target, s);
  if (t->kind != TY_ADT) {
    chk_error(C, E_TYPE_MISMATCH, e->span, "'with' expression requires a user-defined type, got %s", chk_tstr(C, t));
    return prim(C, TY_ERROR);
  }
  AdtInfo *info = chk_adt(C, t->name);
  if (!info) {
    chk_error(C, E_TYPE_MISMATCH, e->span, "Unknown type '%s' in 'with' expression", t->name);
    return prim(C, TY_ERROR);
  }
  if (info->nvariants != 1) {
    chk_error(C, E_TYPE_MISMATCH, e->span, "'with' expression requires a single-variant type, but '%s' has %d variants",
              t->name, info->nvariants);
    return prim(C, TY_ERROR);
  }
  int np = info->nparams < t->n ? info->nparams : t->n;
  Subst sub = {0};
  for (int i = 0; i < np; i++) chk_subst_set(C, &sub, info->params[i], t->args[i]);
  AdtVariant *v = &info->variants[0];
  for (int i = 0; i < e->u.with.n; i++) {
    FieldInit *fi = &e->u.with.inits[i];
    int at = -1;
    for (int f = 0; f < v->nfields; f++)
      if (v->fnames[f] == fi->name) at = f;
    if (at < 0) {
      chk_error(C, E_UNKNOWN_FIELD, fi->value->span, "Unknown field '%s' on type %s", fi->name, chk_tstr(C, t));
      continue;
    }
    Type *vt = chk_expr(C, fi->value, s);
    Type *expected = chk_apply(C, v->ftypes[at], &sub);
    if (!chk_strictly_compatible(C, expected, vt))
      chk_error(C, E_TYPE_MISMATCH, fi->value->span, "Field '%s' expects %s, got %s", fi->name, chk_tstr(C, expected),
                chk_tstr(C, vt));
  }
  return t;
}

static Type *check_comprehension(Checker *C, Expr *e, Scope *s) {
  Type *it = chk_expr(C, e->u.comp.iter, s);
  Type *elem;
  if (it->kind != TY_LIST) {
    chk_error(C, E_TYPE_MISMATCH, e->u.comp.iter->span, "List comprehension requires List iterable, got %s",
              chk_tstr(C, it));
    elem = prim(C, TY_ERROR);
  } else {
    elem = it->args[0];
  }
  Scope *cs = chk_scope_new(C, s);
  Type *vt = chk_resolve_type(C, e->u.comp.var_type, NULL);
  if (!chk_strictly_compatible(C, vt, elem))
    chk_error(C, E_TYPE_MISMATCH, e->u.comp.iter->span, "Loop variable type mismatch: declared %s, iterable has %s",
              chk_tstr(C, vt), chk_tstr(C, elem));
  chk_bind(C, cs, e->u.comp.var, vt, false);
  if (e->u.comp.cond) {
    Type *ct = chk_expr(C, e->u.comp.cond, cs);
    if (ct->kind != TY_BOOL)
      chk_error(C, E_TYPE_MISMATCH, e->u.comp.cond->span, "Comprehension condition must be Bool, got %s",
                chk_tstr(C, ct));
  }
  return ty_unary(TC(C), TY_LIST, chk_expr(C, e->u.comp.elem, cs));
}

/* `throw` takes a String or an ADT value and has type Never, which fits
 * wherever a value is expected (and counts as a return, stmt.c). */
static Type *check_throw(Checker *C, Expr *e, Scope *s) {
  Type *t = chk_expr(C, e->u.operand, s);
  if (t->kind != TY_STRING && t->kind != TY_ADT)
    chk_error(C, E_TYPE_MISMATCH, e->u.operand->span, "throw requires String or user-defined type, got %s",
              chk_tstr(C, t));
  return prim(C, TY_NEVER);
}

/* `await` is allowed in async functions and in main; a type variable or
 * Error operand passes through to avoid a second error. */
static Type *check_await(Checker *C, Expr *e, Scope *s) {
  if (!C->in_async && !C->in_main)
    chk_error(C, E_TYPE_MISMATCH, e->span, "'await' can only be used inside an async function or main");
  Type *t = chk_expr(C, e->u.operand, s);
  if (t->kind == TY_ASYNC) return t->args[0];
  if (t->kind == TY_VAR || t->kind == TY_ERROR) return t;
  chk_error(C, E_TYPE_MISMATCH, e->span, "'await' expects an Async[T] value, got %s", chk_tstr(C, t));
  return prim(C, TY_ERROR);
}

/* Lambdas: parameters are annotated, the result type is inferred (for a
 * block lambda, from its `return`s, which must agree and cover every path),
 * and the effects of the body become the function type's effects. The
 * enclosing loop depth is not reset, as in the reference. */
Type *chk_lambda(Checker *C, Expr *e, Scope *s) {
  Scope *ls = chk_scope_new(C, s);
  int np = e->u.lambda.nparams;
  Type **ps = arena_array(C->A, (size_t)(np ? np : 1), sizeof(Type *));
  for (int i = 0; i < np; i++) {
    ps[i] = chk_resolve_type(C, e->u.lambda.params[i].type, NULL);
    chk_bind(C, ls, e->u.lambda.params[i].name, ps[i], false);
  }
  if (e->u.lambda.is_block) {
    Type *old_ret = C->current_return;
    ReturnCollector *old_rc = C->lambda_returns;
    ReturnCollector rc = {NULL, 0, 0};
    C->current_return = prim(C, TY_UNIT);
    C->lambda_returns = &rc;
    chk_block(C, e->u.lambda.block, ls);
    C->lambda_returns = old_rc;
    C->current_return = old_ret;
    Type *ret;
    if (rc.n == 0) {
      ret = prim(C, TY_UNIT);
    } else {
      ret = rc.items[0];
      for (int i = 1; i < rc.n; i++) {
        Type *rt = rc.items[i];
        if (ret->kind == TY_NEVER) {
          ret = rt;
          continue;
        }
        if (rt->kind == TY_NEVER) continue;
        if (!chk_strictly_compatible(C, ret, rt))
          chk_error(C, E_TYPE_MISMATCH, e->span, "Inconsistent return types in block lambda: %s vs %s", chk_tstr(C, ret),
                    chk_tstr(C, rt));
      }
      if (!chk_definitely_returns(e->u.lambda.block))
        chk_error(C, E_TYPE_MISMATCH, e->span, "Block lambda may not return a value on all paths");
    }
    EffectSet eff = chk_infer_block_effects(C, e->u.lambda.block, ls);
    return ty_func(TC(C), np, ps, ret, eff);
  }
  Type *body = chk_expr(C, e->u.lambda.body, ls);
  EffectSet eff = chk_infer_expr_effects(C, e->u.lambda.body, ls);
  return ty_func(TC(C), np, ps, body, eff);
}

/* A match expression's type: arms are merged in either direction (so an
 * Int arm and a Float arm give Float whatever their order); Never arms are
 * skipped. Exhaustiveness is checked as for the statement form. */
Type *chk_match_expr(Checker *C, Expr *e, Scope *s) {
  Type *st = chk_expr(C, e->u.match.scrutinee, s);
  Type *result = NULL;
  for (int i = 0; i < e->u.match.n; i++) {
    MatchArm *arm = &e->u.match.arms[i];
    Scope *as = chk_scope_new(C, s);
    chk_pattern(C, arm->pat, st, as);
    if (arm->guard) {
      Type *g = chk_expr(C, arm->guard, as);
      if (g->kind != TY_BOOL) chk_error(C, E_TYPE_MISMATCH, arm->span, "Match guard must be Bool, got %s", chk_tstr(C, g));
    }
    if (!arm->value) {
      /* statement-bodied arms cannot come from the parser here */
      chk_error(C, E_TYPE_MISMATCH, arm->span, "Match expression arm body must be exactly one expression");
      continue;
    }
    Type *at = chk_expr(C, arm->value, as);
    if (!result || result->kind == TY_NEVER) {
      result = at;
    } else if (at->kind == TY_NEVER) {
      continue;
    } else if (chk_strictly_compatible(C, result, at)) {
      /* keep result */
    } else if (chk_strictly_compatible(C, at, result)) {
      result = at;
    } else {
      chk_error(C, E_TYPE_MISMATCH, arm->span, "Match arm type mismatch: expected %s, got %s", chk_tstr(C, result),
                chk_tstr(C, at));
    }
  }
  chk_exhaustive(C, st, e->u.match.arms, e->u.match.n, e->span);
  return result ? result : prim(C, TY_ERROR);
}

static Type *expr_inner(Checker *C, Expr *e, Scope *s) {
  switch (e->kind) {
  case EX_INT: return prim(C, TY_INT);
  case EX_FLOAT: return prim(C, TY_FLOAT);
  case EX_STRING: return prim(C, TY_STRING);
  case EX_BOOL: return prim(C, TY_BOOL);
  case EX_FSTRING:
    for (int i = 0; i < e->u.fstr.n; i++)
      if (e->u.fstr.pieces[i].expr) chk_expr(C, e->u.fstr.pieces[i].expr, s);
    return prim(C, TY_STRING);
  case EX_IDENT: return check_identifier(C, e, s);
  case EX_TYPE_IDENT: return check_type_identifier(C, e);
  case EX_LIST: return check_list(C, e, s);
  case EX_TUPLE: return check_tuple(C, e, s);
  case EX_LIST_COMP: return check_comprehension(C, e, s);
  case EX_THROW: return check_throw(C, e, s);
  case EX_AWAIT: return check_await(C, e, s);
  case EX_BINARY: return check_binary(C, e, s);
  case EX_UNARY: return check_unary(C, e, s);
  case EX_CALL: return chk_call(C, e, s);
  case EX_CTOR: return chk_ctor_call(C, e, s);
  case EX_INDEX: return check_index(C, e, s);
  case EX_FIELD: return check_field(C, e, s);
  case EX_PROPAGATE: return check_propagate(C, e, s);
  case EX_WITH: return check_with(C, e, s);
  case EX_PIPELINE: return chk_pipeline(C, e, s);
  case EX_PLACEHOLDER: return prim(C, TY_ERROR);
  case EX_LAMBDA: return chk_lambda(C, e, s);
  case EX_MATCH: return chk_match_expr(C, e, s);
  case EX_HOLE: return chk_resolve_type(C, e->u.hole.type, NULL);
  }
  return prim(C, TY_ERROR);
}

void chk_memo_reset(Checker *C) {
  if (C->lambda_memo.count) memset(&C->lambda_memo, 0, sizeof C->lambda_memo);
}

/* Every expression goes through here: the step budget, the recursion
 * bound, and Expr->type for the compiler. */
Type *chk_expr(Checker *C, Expr *e, Scope *s) {
  chk_step(C, e->span);
  bool memo = e->kind == EX_LAMBDA && C->steps > CHK_MEMO_AFTER_STEPS;
  if (memo) {
    Type *t = chk_pm_get(&C->lambda_memo, e);
    if (t) return t;
  }
  chk_enter(C, e->span);
  Type *t = expr_inner(C, e, s);
  if (memo) chk_pm_put(C->A, &C->lambda_memo, e, t);
  if (C->tc.too_deep && !C->too_deep_reported) {
    C->too_deep_reported = true;
    chk_error(C, E_TYPE_MISMATCH, e->span,
              "The type of this expression nests more than %d levels deep; add a type annotation to a binding on the "
              "way",
              CHK_MAX_TYPE_DEPTH);
  }
  if (e->type != t) {
    e->type = t;
    chk_pm_put(C->A, &C->typed_exprs, e, (void *)1);
  }
  chk_leave(C);
  return t;
}
