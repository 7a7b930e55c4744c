/* Calls: arity, named arguments (and the rule that calls with 3 or more
 * parameters or arguments name every argument), generic builtins through
 * substitutions, the special builtins `range` and `length`, trait-method
 * dispatch on the first argument; pipelines; constructor calls. */
#include <stdio.h>

#include "checker.h"


static Type *prim(Checker *C, TypeKind k) { return ty_prim(&C->tc, k); }

/* "__arg3_" and friends: the prefixes that keep an argument's own type
 * variables apart from the callee's (built once per checker and index). */
static const char *arg_prefix(Checker *C, const char *fmt, int i) {
  int kind = fmt[2] == 'a' ? 0 : fmt[2] == 'p' ? 1 : 2; /* __arg, __pipe, __ctor_arg */
  if (i >= 0 && i < CHK_PREFIX_CACHE && C->prefixes[kind][i]) return C->prefixes[kind][i];
  char buf[48];
  snprintf(buf, sizeof buf, fmt, i);
  const char *p = arena_strdup(C->A, buf);
  if (i >= 0 && i < CHK_PREFIX_CACHE) C->prefixes[kind][i] = p;
  return p;
}

static int param_index(const ParamList *pl, const char *name) {
  for (int i = 0; pl && i < pl->n; i++)
    if (pl->names[i] == name) return i;
  return -1;
}

/* Names used by `range` and `length`, whose calls bypass the general path. */
static void validate_special_named(Checker *C, Arg *args, int nargs, const char *const *names, int nnames, Span sp) {
  bool used[4] = {false, false, false, false};
  int pos = 0;
  for (int i = 0; i < nargs; i++) {
    if (args[i].name) {
      int at = -1;
      for (int k = 0; k < nnames; k++)
        if (names[k] == args[i].name) at = k;
      if (at < 0) {
        chk_error(C, E_TYPE_MISMATCH, sp, "Unknown parameter name: %s", args[i].name);
        continue;
      }
      if (used[at]) {
        chk_error(C, E_TYPE_MISMATCH, sp, "Duplicate argument for parameter: %s", args[i].name);
        continue;
      }
      used[at] = true;
    } else {
      while (pos < nnames && used[pos]) pos++;
      if (pos >= nnames) {
        chk_error(C, E_TYPE_MISMATCH, sp, "Too many positional arguments");
        continue;
      }
      used[pos++] = true;
    }
  }
}

/* Reorder arguments by parameter name: out[i] is the argument for
 * parameter i or NULL. Reports unknown and duplicate names. */
static void reorder_args(Checker *C, Arg *args, int nargs, const ParamList *pl, Arg **out, Span sp) {
  for (int i = 0; i < pl->n; i++) out[i] = NULL;
  bool *used = arena_array(C->A, (size_t)(pl->n ? pl->n : 1), sizeof(bool));
  int pos = 0;
  for (int i = 0; i < nargs; i++) {
    if (args[i].name) {
      int at = param_index(pl, args[i].name);
      if (at < 0) {
        chk_error(C, E_TYPE_MISMATCH, sp, "Unknown parameter name: %s", args[i].name);
        continue;
      }
      if (used[at]) {
        chk_error(C, E_TYPE_MISMATCH, sp, "Duplicate argument for parameter: %s", args[i].name);
        continue;
      }
      out[at] = &args[i];
      used[at] = true;
    } else {
      while (pos < pl->n && used[pos]) pos++;
      if (pos < pl->n) {
        out[pos] = &args[i];
        used[pos++] = true;
      }
    }
  }
}

/* Best-effort reordering for choosing a trait implementation: false when
 * the arguments cannot fit the parameter names at all. */
static bool try_reorder(Checker *C, Arg *args, int nargs, const ParamList *pl, Arg **out) {
  for (int i = 0; i < pl->n; i++) out[i] = NULL;
  bool *used = arena_array(C->A, (size_t)(pl->n ? pl->n : 1), sizeof(bool));
  int pos = 0;
  for (int i = 0; i < nargs; i++) {
    if (args[i].name) {
      int at = param_index(pl, args[i].name);
      if (at < 0 || used[at]) return false;
      out[at] = &args[i];
      used[at] = true;
    } else {
      while (pos < pl->n && used[pos]) pos++;
      if (pos >= pl->n) return false;
      out[pos] = &args[i];
      used[pos++] = true;
    }
  }
  return true;
}

/* Trait method call `m(x, ...)`: dispatch on the first argument's type.
 * Returns NULL when no implementation applies (the general path then
 * checks the call against the trait's `Self` signature). */
static Type *trait_dispatch(Checker *C, Expr *e, Scope *s, TraitList *tl) {
  const char *method = e->u.call.callee->u.name;
  Arg *args = e->u.call.args;
  int nargs = e->u.call.nargs;
  bool has_named = false;
  for (int i = 0; i < nargs; i++) has_named |= args[i].name != NULL;
  for (int t = 0; t < tl->n; t++) {
    const char *trait = tl->traits[t];
    const ParamList *tpn = chk_trait_method_params(C, trait, method);
    ParamList empty = {0, NULL};
    if (!tpn) tpn = &empty;
    int nordered = has_named ? tpn->n : nargs;
    Arg **ordered = arena_array(C->A, (size_t)(nordered ? nordered : 1), sizeof(Arg *));
    if (has_named) {
      if (!try_reorder(C, args, nargs, tpn, ordered)) continue;
    } else {
      for (int i = 0; i < nargs; i++) ordered[i] = &args[i];
    }
    if (nordered == 0 || !ordered[0]) continue;
    Type *first = chk_expr(C, ordered[0]->value, s);
    if (first->kind != TY_ADT) continue;
    const char *tname = first->name;
    const char *parent = chk_pm_get(&C->ctor_to_type, tname);
    if (parent) tname = parent;
    Impl *impl = chk_find_impl(C, trait, tname);
    Type *ft = impl ? chk_pm_get(&impl->methods, method) : NULL;
    if (!ft) continue;
    int positional = 0;
    for (int i = 0; i < nargs; i++) positional += args[i].name == NULL;
    if (ft->n >= 3 && positional > 0)
      chk_error(C, E_TYPE_MISMATCH, e->span,
                "Function '%s' has %d parameters; use named arguments for clarity (e.g., param_name: value)", method,
                ft->n);
    if (nargs != ft->n)
      chk_error(C, E_WRONG_ARITY, e->span, "'%s' expects %d argument(s), but %d were provided", method, ft->n, nargs);
    for (int i = 0; i < ft->n; i++) {
      Arg *a = i < nordered ? ordered[i] : NULL;
      if (!a) {
        chk_error(C, E_WRONG_ARITY, e->span, "Missing argument for parameter '%s'",
                  i < tpn->n ? tpn->names[i] : "?");
        continue;
      }
      Type *at = chk_expr(C, a->value, s);
      if (!chk_compatible(C, ft->args[i], at))
        chk_error(C, E_TYPE_MISMATCH, a->value->span, "Argument %d type mismatch: expected %s, got %s", i + 1,
                  chk_tstr(C, ft->args[i]), chk_tstr(C, at));
    }
    return ft->ret;
  }
  return NULL;
}

/* Check one argument against its parameter type. The message names it
 * "Argument 'b'" when it was passed by name (`name` set), else
 * "Argument 2" (from i); it is only formatted on an error. */
static void check_arg(Checker *C, Expr *value, Type *expected, int i, bool use_subs, Subst *subs, const char *name,
                      bool *never, Scope *s) {
  Type *at = chk_expr(C, value, s);
  *never |= at->kind == TY_NEVER;
  /* The argument's own variables are renamed ("__arg2_T") so that they
   * cannot meet the callee's in the substitution. Without one, variables
   * are wildcards whatever their names, so the renamed copy is only made
   * for the message. */
  if (ty_has_var(at) && use_subs) at = chk_freshen(C, at, arg_prefix(C, "__arg%d_", i));
  bool ok = use_subs ? chk_compatible_subst(C, expected, at, subs) : chk_compatible(C, expected, at);
  if (ok) return;
  if (ty_has_var(at) && !use_subs) at = chk_freshen(C, at, arg_prefix(C, "__arg%d_", i));
  Type *shown = use_subs ? chk_apply(C, expected, subs) : expected;
  if (name)
    chk_error(C, E_TYPE_MISMATCH, value->span, "Argument '%s' type mismatch: expected %s, got %s", name,
              chk_tstr(C, shown), chk_tstr(C, at));
  else
    chk_error(C, E_TYPE_MISMATCH, value->span, "Argument %d type mismatch: expected %s, got %s", i + 1,
              chk_tstr(C, shown), chk_tstr(C, at));
}

/* A call `f(args)`, in the reference's order of checks:
 * 1. `range` (2 or 3 Ints, positional allowed) and `length` (List, String
 *    or Array) when the name still means the builtin;
 * 2. a trait method name: dispatch on the first argument's ADT;
 * 3. an unknown name: E302 (not E301);
 * 4. the callee's type must be a function (E305);
 * 5. arity with defaults (E304), then the named-argument rule: when the
 *    larger of the argument count and the required-parameter count is 3 or
 *    more, every argument must be named (one positional is enough for E300);
 * 6. arguments against parameters, binding the callee's type variables in a
 *    substitution so that later arguments and the result see them.
 * Arguments beyond the parameter list are not checked (the reference zips
 * them away), so their own errors do not appear. */
Type *chk_call(Checker *C, Expr *e, Scope *s) {
  Expr *callee = e->u.call.callee;
  Arg *args = e->u.call.args;
  int nargs = e->u.call.nargs;
  const char *ident = callee->kind == EX_IDENT ? callee->u.name : NULL;
  const char *builtin = ident && chk_resolves_to_builtin(C, s, ident) ? ident : NULL;

  if (builtin == C->n.range && (nargs == 2 || nargs == 3)) {
    bool named = false;
    for (int i = 0; i < nargs; i++) named |= args[i].name != NULL;
    const char *names[2] = {C->n.start, C->n.end};
    if (named) validate_special_named(C, args, nargs, names, 2, e->span);
    for (int i = 0; i < nargs; i++) {
      Type *t = chk_expr(C, args[i].value, s);
      if (t->kind != TY_INT)
        chk_error(C, E_TYPE_MISMATCH, args[i].value->span, "range expects Int arguments, got %s", chk_tstr(C, t));
    }
    return ty_unary(&C->tc, TY_LIST, prim(C, TY_INT));
  }
  if (builtin == C->n.length && nargs == 1) {
    const char *names[1] = {C->n.list};
    validate_special_named(C, args, nargs, names, 1, e->span);
    Type *t = chk_expr(C, args[0].value, s);
    if (t->kind != TY_LIST && t->kind != TY_STRING && t->kind != TY_ARRAY)
      chk_error(C, E_TYPE_MISMATCH, args[0].value->span,
                "Argument 1 type mismatch: expected List[T], String, or Array[T], got %s", chk_tstr(C, t));
    return prim(C, TY_INT);
  }

  if (ident && nargs > 0) {
    TraitList *tl = chk_pm_get(&C->trait_methods, ident);
    if (tl) {
      Type *r = trait_dispatch(C, e, s, tl);
      if (r) return r;
    }
  }

  if (ident && !chk_lookup(C, s, ident) && chk_target_has_builtin(C->target, ident)) {
    chk_error(C, E_UNDEFINED_FUNC, e->span, "Undefined function: %s%s", ident, chk_suggest_in_scope(C, s, ident));
    return prim(C, TY_ERROR);
  }

  Type *ft = chk_expr(C, callee, s);
  if (ft->kind != TY_FUNC) {
    chk_error(C, E_NOT_CALLABLE, e->span, "Cannot call non-function type: %s", chk_tstr(C, ft));
    return prim(C, TY_ERROR);
  }

  /* Parameter names and defaults: by name for identifiers (whatever the
   * local binding), from the module for `M.f`, none for other values. */
  const ParamList *pl = NULL;
  int ndefaults = 0;
  const char *desc_name = NULL;
  if (ident) {
    desc_name = ident;
    ndefaults = (int)(intptr_t)chk_pm_get(&C->default_counts, ident);
    pl = chk_param_names(C, ident);
  } else if (callee->kind == EX_FIELD &&
             (callee->u.field.target->kind == EX_IDENT || callee->u.field.target->kind == EX_TYPE_IDENT)) {
    ModuleNs *ns = chk_pm_get(&C->module_ns, callee->u.field.target->u.name);
    if (ns) {
      pl = chk_pm_get(&ns->params, callee->u.field.name);
      ndefaults = (int)(intptr_t)chk_pm_get(&ns->defaults, callee->u.field.name);
    }
  }
  int nparams = ft->n;
  int min_args = nparams - ndefaults, max_args = nparams;
  if (nargs < min_args || nargs > max_args) {
    char desc[160];
    if (desc_name) snprintf(desc, sizeof desc, "'%s'", desc_name);
    else snprintf(desc, sizeof desc, "function");
    if (min_args == max_args)
      chk_error(C, E_WRONG_ARITY, e->span, "%s expects %d argument(s), but %d were provided", desc, max_args, nargs);
    else
      chk_error(C, E_WRONG_ARITY, e->span, "%s expects %d to %d arguments, but %d were provided", desc, min_args,
                max_args, nargs);
  }

  int required = nargs > min_args ? nargs : min_args;
  int positional = 0;
  bool has_named = false;
  for (int i = 0; i < nargs; i++) {
    positional += args[i].name == NULL;
    has_named |= args[i].name != NULL;
  }
  if (required >= 3 && positional > 0) {
    /* the example names this function's own parameters when they are known */
    Buf ex = BUF_INIT;
    if (ident && pl && pl->n > 0) {
      buf_printf(&ex, "%s(", ident);
      for (int i = 0; i < pl->n && i < nparams; i++) buf_printf(&ex, "%s%s: ...", i ? ", " : "", pl->names[i]);
      buf_putc(&ex, ')');
    }
    chk_error(C, E_TYPE_MISMATCH, e->span, "Function '%s' has %d parameters; use named arguments for clarity (e.g., %s)",
              ident ? ident : "function", nparams, ex.data && !ex.failed ? ex.data : "param_name: value");
    buf_free(&ex);
  }
  bool have_names = pl && pl->n > 0;
  if (has_named && !have_names)
    chk_error(C, E_TYPE_MISMATCH, e->span,
              "Named arguments are only supported for direct function calls, not for lambda expressions or "
              "function values");

  bool use_subs = ty_has_var(ft->ret);
  for (int i = 0; i < nparams && !use_subs; i++) use_subs = ty_has_var(ft->args[i]);
  Subst subs = {0};
  bool never = false;

  if (has_named && have_names) {
    Arg **ordered = arena_array(C->A, (size_t)pl->n, sizeof(Arg *));
    reorder_args(C, args, nargs, pl, ordered, e->span);
    for (int i = 0; i < min_args && i < pl->n; i++)
      if (!ordered[i])
        chk_error(C, E_WRONG_ARITY, e->span, "Missing argument for parameter '%s'", pl->names[i]);
    int n = pl->n < nparams ? pl->n : nparams;
    for (int i = 0; i < n; i++) {
      if (!ordered[i]) continue;
      check_arg(C, ordered[i]->value, ft->args[i], i, use_subs, &subs, pl->names[i], &never, s);
    }
  } else {
    int n = nargs < nparams ? nargs : nparams;
    for (int i = 0; i < n; i++) {
      check_arg(C, args[i].value, ft->args[i], i, use_subs, &subs, NULL, &never, s);
    }
  }
  if (never) return prim(C, TY_NEVER);
  Type *ret = use_subs && subs.n ? chk_apply(C, ft->ret, &subs) : ft->ret;
  chk_validate_keyed(C, ret, e->span);
  return ret;
}

/* ---- pipelines ------------------------------------------------------------------------- */

/* `x |> f(a)`: the piped value fills every `_` placeholder, or is prepended
 * when there is none. Stage arguments are never named, so the named-argument
 * rule does not apply; a stage that fails keeps the previous value type or
 * takes the function's result type, as the reference does. */
Type *chk_pipeline(Checker *C, Expr *e, Scope *s) {
  Type *cur = chk_expr(C, e->u.pipe.init, s);
  for (int si = 0; si < e->u.pipe.n; si++) {
    Stage *st = &e->u.pipe.stages[si];
    Type *ft = chk_expr(C, st->fn, s);
    if (ft->kind != TY_FUNC) {
      chk_error(C, E_TYPE_MISMATCH, st->span, "Pipeline stage must be function, got %s", chk_tstr(C, ft));
      continue;
    }
    if (ft->n == 0) {
      chk_error(C, E_TYPE_MISMATCH, st->span, "Pipeline function must take at least one argument");
      continue;
    }
    bool use_subs = ty_has_var(ft->ret);
    for (int i = 0; i < ft->n && !use_subs; i++) use_subs = ty_has_var(ft->args[i]);
    Subst subs = {0};
    int nplace = 0;
    for (int i = 0; i < st->nargs; i++) nplace += st->args[i]->kind == EX_PLACEHOLDER;
    int expected_count = nplace ? st->nargs : st->nargs + 1;
    if (expected_count != ft->n) {
      chk_error(C, E_WRONG_ARITY, st->span, "Pipeline stage expects %d arguments, got %d", ft->n, expected_count);
      cur = ft->ret;
      continue;
    }
    for (int i = 0; i < (nplace ? st->nargs : 1); i++) {
      if (nplace && st->args[i]->kind != EX_PLACEHOLDER) continue;
      Type *exp = ft->args[i];
      if (use_subs) {
        if (!chk_compatible_subst(C, exp, cur, &subs))
          chk_error(C, E_TYPE_MISMATCH, st->span, "Pipeline type mismatch: function expects %s, got %s",
                    chk_tstr(C, chk_apply(C, exp, &subs)), chk_tstr(C, cur));
      } else if (!chk_compatible(C, exp, cur)) {
        chk_error(C, E_TYPE_MISMATCH, st->span, "Pipeline type mismatch: function expects %s, got %s",
                  chk_tstr(C, exp), chk_tstr(C, cur));
      }
    }
    for (int i = 0; i < st->nargs; i++) {
      if (st->args[i]->kind == EX_PLACEHOLDER) continue;
      int pi = nplace ? i : i + 1;
      Type *at = chk_expr(C, st->args[i], s);
      /* renamed as in check_arg: for the substitution, else for the message */
      if (ty_has_var(at) && use_subs) at = chk_freshen(C, at, arg_prefix(C, "__pipe%d_", pi));
      Type *exp = ft->args[pi];
      if (use_subs) {
        if (!chk_compatible_subst(C, exp, at, &subs))
          chk_error(C, E_TYPE_MISMATCH, st->span, "Pipeline argument type mismatch: expected %s, got %s",
                    chk_tstr(C, chk_apply(C, exp, &subs)), chk_tstr(C, at));
      } else if (!chk_compatible(C, exp, at)) {
        if (ty_has_var(at)) at = chk_freshen(C, at, arg_prefix(C, "__pipe%d_", pi));
        chk_error(C, E_TYPE_MISMATCH, st->span, "Pipeline argument type mismatch: expected %s, got %s",
                  chk_tstr(C, exp), chk_tstr(C, at));
      }
    }
    cur = use_subs && subs.n ? chk_apply(C, ft->ret, &subs) : ft->ret;
  }
  return cur;
}

/* ---- constructors ----------------------------------------------------------------------- */

/* `Ctor(args)`: arguments bind the ADT's type parameters (a field typed by
 * a parameter); other fields are checked strictly (no wildcards). The
 * result is Option/Result for their constructors, else the ADT with the
 * bound arguments (fresh variables for unbound ones). */
Type *chk_ctor_call(Checker *C, Expr *e, Scope *s) {
  const char *cname = e->u.ctor.name;
  const char *tname = chk_pm_get(&C->ctor_to_type, cname);
  AdtInfo *info = tname ? chk_adt(C, tname) : NULL;
  AdtVariant *v = chk_variant(info, cname);
  if (!v) {
    chk_error(C, E_TYPE_MISMATCH, e->span, "Unknown constructor: %s%s", cname, chk_ctor_hint(C, cname));
    return prim(C, TY_ERROR);
  }
  int nargs = e->u.ctor.nargs;
  if (nargs != v->nfields)
    chk_error(C, E_WRONG_ARITY, e->span, "Constructor %s expects %d arguments, got %d", cname, v->nfields, nargs);
  /* Arguments written with field names (`P(y: 2, x: 1)`, which geno-c's
   * parser accepts) are matched to fields by name. */
  Expr **vals = arena_array(C->A, (size_t)(nargs ? nargs : 1), sizeof(Expr *));
  bool named = false;
  for (int i = 0; i < nargs; i++) {
    vals[i] = e->u.ctor.args[i].value;
    named |= e->u.ctor.args[i].name != NULL;
  }
  if (named && nargs == v->nfields) {
    Expr **byfield = arena_array(C->A, (size_t)(nargs ? nargs : 1), sizeof(Expr *));
    bool ok = true;
    int pos = 0;
    for (int i = 0; i < nargs && ok; i++) {
      const char *an = e->u.ctor.args[i].name;
      int at = -1;
      if (an) {
        for (int f = 0; f < v->nfields; f++)
          if (v->fnames[f] == an) at = f;
        if (at < 0) {
          chk_error(C, E_UNKNOWN_FIELD, e->u.ctor.args[i].name_span, "Constructor %s has no field '%s'", cname, an);
          ok = false;
          break;
        }
      } else {
        while (pos < nargs && byfield[pos]) pos++;
        at = pos;
      }
      if (at >= nargs || byfield[at]) {
        chk_error(C, E_TYPE_MISMATCH, e->u.ctor.args[i].value->span, "Duplicate argument for field '%s'",
                  v->fnames[at < nargs ? at : 0]);
        ok = false;
        break;
      }
      byfield[at] = e->u.ctor.args[i].value;
    }
    if (ok) vals = byfield;
  }
  Subst bind = {0};
  bool never = false;
  int n = nargs < v->nfields ? nargs : v->nfields;
  for (int i = 0; i < n; i++) {
    Type *at = chk_expr(C, vals[i], s);
    never |= at->kind == TY_NEVER;
    Type *ftype = v->ftypes[i];
    /* The argument's own variables are renamed ("__ctor_arg0_T") apart
     * from the type's parameters. Against a field type without variables
     * the strict relation cannot tell variables apart by name, except
     * `Num` (see chk_strictly_compatible), so there the renamed copy is
     * only made for the message. */
    bool rename_late = !ty_has_var(ftype) && !ty_occurs(C->n.num, at);
    if (ty_has_var(at) && !rename_late) at = chk_freshen(C, at, arg_prefix(C, "__ctor_arg%d_", i));
    if (ty_has_var(ftype)) {
      if (!chk_compatible_subst(C, ftype, at, &bind))
        chk_error(C, E_TYPE_MISMATCH, vals[i]->span, "Constructor argument %d type mismatch: expected %s, got %s", i + 1,
                  chk_tstr(C, chk_apply(C, ftype, &bind)), chk_tstr(C, at));
    } else if (!chk_strictly_compatible(C, ftype, at)) {
      if (ty_has_var(at) && rename_late) at = chk_freshen(C, at, arg_prefix(C, "__ctor_arg%d_", i));
      chk_error(C, E_TYPE_MISMATCH, vals[i]->span, "Constructor argument %d type mismatch: expected %s, got %s", i + 1,
                chk_tstr(C, ftype), chk_tstr(C, at));
    }
  }
  if (never) return prim(C, TY_NEVER);
  /* Parameters no argument bound get fresh variables (a later annotation
   * or call site can still bind them). */
  if (tname == C->n.option) {
    Type *b = chk_subst_get(&bind, C->n.t);
    return ty_unary(&C->tc, TY_OPTION, b ? b : chk_fresh_var(C, "T"));
  }
  if (tname == C->n.result_type) {
    Type *b1 = chk_subst_get(&bind, C->n.t), *b2 = chk_subst_get(&bind, C->n.e);
    if (!b1) b1 = chk_fresh_var(C, "T");
    if (!b2) b2 = chk_fresh_var(C, "E");
    return ty_binary(&C->tc, TY_RESULT, b1, b2);
  }
  if (info->nparams == 0) return ty_adt(&C->tc, tname, 0, NULL);
  Type **targs = arena_array(C->A, (size_t)info->nparams, sizeof(Type *));
  for (int i = 0; i < info->nparams; i++) {
    Type *b = chk_subst_get(&bind, info->params[i]);
    targs[i] = b ? b : chk_fresh_var(C, info->params[i]);
  }
  return ty_adt(&C->tc, tname, info->nparams, targs);
}
