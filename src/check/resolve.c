/* Type annotations -> types: built-in types, tuples, functions, aliases
 * (also generic), user ADTs, `Self` in trait signatures; and the builtin
 * table's signature types.
 *
 * Every error found here is fatal (chk_fatal): the reference raises from
 * its resolver, which ends the whole check and leaves that one error. */
#include "checker.h"

static bool in_params(const ParamList *pl, const char *name) {
  if (!pl) return false;
  for (int i = 0; i < pl->n; i++)
    if (pl->names[i] == name) return true;
  return false;
}

void chk_push_declared(Checker *C, Decl **decls, int n) {
  if (C->ndeclared == C->declared_cap) {
    int nc = C->declared_cap ? C->declared_cap * 2 : 4;
    C->declared_types = arena_grow(C->A, C->declared_types, (size_t)C->ndeclared, (size_t)nc, sizeof(PtrMap));
    C->declared_cap = nc;
  }
  PtrMap *frame = &C->declared_types[C->ndeclared++];
  memset(frame, 0, sizeof *frame);
  if (n > 0) chk_type_cache_clear(C);
  for (int i = 0; i < n; i++) {
    ParamList *pl = arena_alloc(C->A, sizeof *pl);
    pl->n = decls[i]->u.adt.nparams;
    pl->names = decls[i]->u.adt.params;
    chk_pm_put(C->A, frame, decls[i]->u.adt.name, pl);
  }
}

void chk_pop_declared(Checker *C) {
  if (C->ndeclared > 0 && C->declared_types[--C->ndeclared].count > 0) chk_type_cache_clear(C);
}

void chk_self_enter(Checker *C) {
  C->self_depth++;
  chk_type_cache_clear(C);
}

void chk_self_leave(Checker *C) {
  C->self_depth--;
  chk_type_cache_clear(C);
}

/* Type parameters of a known user type, or NULL (-1 count) if unknown. */
static bool declared_params(Checker *C, const char *name, int *n) {
  for (int i = C->ndeclared - 1; i >= 0; i--) {
    ParamList *pl = chk_pm_get(&C->declared_types[i], name);
    if (pl) {
      *n = pl->n;
      return true;
    }
  }
  AdtInfo *info = chk_adt(C, name);
  if (info) {
    *n = info->nparams;
    return true;
  }
  return false;
}

static GENO_NORETURN void arity_error(Checker *C, const char *what, const char *name, int expected, int actual, Span sp) {
  if (actual == 0)
    chk_fatal(C, E_WRONG_ARITY, sp, "%s '%s' expects %d type parameter(s) but none were provided", what, name, expected);
  chk_fatal(C, E_WRONG_ARITY, sp, "%s '%s' expects %d type parameter(s) but got %d", what, name, expected, actual);
}

typedef struct BuiltinTypeName {
  const char *name;
  TypeKind kind;
  int arity; /* 0: simple type */
} BuiltinTypeName;

static const BuiltinTypeName builtin_types[] = {
    {"Int", TY_INT, 0},        {"Float", TY_FLOAT, 0},      {"Bool", TY_BOOL, 0},     {"String", TY_STRING, 0},
    {"Unit", TY_UNIT, 0},      {"List", TY_LIST, 1},        {"Array", TY_ARRAY, 1},   {"Option", TY_OPTION, 1},
    {"Result", TY_RESULT, 2},  {"Map", TY_MAP, 2},          {"MutableMap", TY_MUTABLE_MAP, 2},
    {"Vec", TY_VEC, 1},        {"Set", TY_SET, 1},          {"Async", TY_ASYNC, 1},
};

void chk_resolve_init(Checker *C) {
  _Static_assert(ARRAY_LEN(builtin_types) <= ARRAY_LEN(C->builtin_type_names), "builtin_type_names too small");
  for (size_t i = 0; i < ARRAY_LEN(builtin_types); i++)
    C->builtin_type_names[i] = intern_cstr(C->I, builtin_types[i].name);
}

/* Annotation names are interned, so the table is searched by pointer
 * (chk_resolve_init interned its names). */
static const BuiltinTypeName *builtin_type(Checker *C, const char *name) {
  for (size_t i = 0; i < ARRAY_LEN(builtin_types); i++)
    if (C->builtin_type_names[i] == name) return &builtin_types[i];
  return NULL;
}

/* Names for the "Unknown type" suggestion. */
static const char *unknown_type_hint(Checker *C, const char *name) {
  int cap = (int)(ARRAY_LEN(builtin_types) + C->type_defs.count + C->aliases.count + 16), n = 0;
  for (int i = 0; i < C->ndeclared; i++) cap += (int)C->declared_types[i].count;
  const char **cands = arena_array(C->A, (size_t)cap, sizeof(const char *));
  for (size_t i = 0; i < ARRAY_LEN(builtin_types); i++) cands[n++] = builtin_types[i].name;
  for (size_t i = 0; i < C->type_defs.cap; i++)
    if (C->type_defs.keys[i] && n < cap) cands[n++] = C->type_defs.keys[i];
  for (size_t i = 0; i < C->aliases.cap; i++)
    if (C->aliases.keys[i] && n < cap) cands[n++] = C->aliases.keys[i];
  for (int f = 0; f < C->ndeclared; f++)
    for (size_t i = 0; i < C->declared_types[f].cap; i++)
      if (C->declared_types[f].keys[i] && n < cap) cands[n++] = C->declared_types[f].keys[i];
  return chk_suggest(C, name, cands, n);
}

/* An alias resolves transparently: its target is resolved with the alias's
 * own parameters as type variables, then those are replaced by the
 * (resolved) arguments. A name met again while it is being resolved is a
 * recursive alias (fatal), e.g. `type T = List[T]`. */
static Type *resolve_alias(Checker *C, TypeExpr *te, AliasInfo *al, const ParamList *tp) {
  if (chk_pm_has(&C->resolving_aliases, te->name)) chk_fatal(C, E_TYPE_MISMATCH, te->span, "Recursive type alias '%s'", te->name);
  chk_pm_put(C->A, &C->resolving_aliases, te->name, (void *)1);
  Type *resolved;
  if (al->nparams) {
    if (te->nargs == 0)
      chk_fatal(C, E_WRONG_ARITY, te->span, "Type alias '%s' expects %d type parameter(s) but none were provided",
                te->name, al->nparams);
    if (te->nargs != al->nparams)
      chk_fatal(C, E_WRONG_ARITY, te->span, "Type alias '%s' expects %d type parameter(s) but got %d", te->name,
                al->nparams, te->nargs);
    ParamList sub;
    int base = tp ? tp->n : 0;
    sub.n = base + al->nparams;
    sub.names = arena_array(C->A, (size_t)sub.n, sizeof(const char *));
    for (int i = 0; i < base; i++) sub.names[i] = tp->names[i];
    for (int i = 0; i < al->nparams; i++) sub.names[base + i] = al->params[i];
    resolved = chk_resolve_type(C, al->target, &sub);
    Subst s = {0};
    for (int i = 0; i < al->nparams; i++) chk_subst_set(C, &s, al->params[i], chk_resolve_type(C, te->args[i], tp));
    resolved = chk_apply(C, resolved, &s);
  } else {
    resolved = chk_resolve_type(C, al->target, tp);
  }
  chk_validate_keyed(C, resolved, te->span);
  chk_pm_del(&C->resolving_aliases, te->name);
  return resolved;
}

static Type *resolve_uncached(Checker *C, TypeExpr *te, const ParamList *tp);

/* One cached resolution: the type parameters in scope (by name) and the
 * result. An annotation resolved under several parameter lists (an alias
 * target) has a chain of entries. Entries of an older generation than
 * C->type_cache_gen were cleared. */
typedef struct TypeCacheEntry {
  int n;
  unsigned gen;
  const char *const *names;
  Type *type;
  struct TypeCacheEntry *next;
} TypeCacheEntry;

/* Clearing starts a new generation rather than wiping the table: the
 * cache is cleared often (every trait and impl signature), and the keys
 * are the program's annotations, so the table stays as large as they are. */
void chk_type_cache_clear(Checker *C) { C->type_cache_gen++; }

static TypeCacheEntry *cache_head(Checker *C, TypeExpr *te) {
  TypeCacheEntry *e = chk_pm_get(&C->type_cache, te);
  return e && e->gen == C->type_cache_gen ? e : NULL;
}

Type *chk_resolve_type(Checker *C, TypeExpr *te, const ParamList *tp) {
  int n = tp ? tp->n : 0;
  for (TypeCacheEntry *e = cache_head(C, te); e; e = e->next) {
    if (e->n != n) continue;
    int i = 0;
    while (i < n && e->names[i] == tp->names[i]) i++;
    if (i == n) return e->type;
  }
  Type *t = resolve_uncached(C, te, tp);
  TypeCacheEntry *e = arena_alloc(C->A, sizeof *e);
  e->n = n;
  e->names = n ? tp->names : NULL;
  e->type = t;
  e->next = cache_head(C, te); /* the resolution may have cleared the cache */
  e->gen = C->type_cache_gen;
  chk_pm_put(C->A, &C->type_cache, te, e);
  return t;
}

/* The reference's order of lookups: the enclosing declaration's type
 * parameters, `Self` (trait signatures only), built-in types (with their
 * type-argument counts), tuples, aliases, user ADTs; anything else is E303.
 * Map and Set keys must be hashable (E300, not fatal). */
static Type *resolve_uncached(Checker *C, TypeExpr *te, const ParamList *tp) {
  TypeCtx *tc = &C->tc;
  chk_enter(C, te->span);
  Type *result = NULL;
  if (te->kind == TE_FUNC) {
    Type *buf[16];
    Type **ps = te->nargs <= 16 ? buf : arena_array(C->A, (size_t)te->nargs, sizeof(Type *));
    for (int i = 0; i < te->nargs; i++) ps[i] = chk_resolve_type(C, te->args[i], tp);
    Type *ret = chk_resolve_type(C, te->ret, tp);
    EffectSet eff = 0;
    for (int i = 0; i < te->neffects; i++) eff |= ty_effect_bit(tc, te->effects[i]);
    result = ty_func(tc, te->nargs, ps, ret, eff);
    chk_leave(C);
    return result;
  }
  const char *name = te->name;
  if (in_params(tp, name)) {
    if (te->nargs) chk_fatal(C, E_TYPE_MISMATCH, te->span, "Type parameter '%s' does not take type arguments", name);
    result = ty_var(tc, name);
  } else if (name == C->n.self_type) {
    if (C->self_depth == 0)
      chk_fatal(C, E_TYPE_MISMATCH, te->span, "Type 'Self' is only valid in trait method signatures");
    if (te->nargs) chk_fatal(C, E_TYPE_MISMATCH, te->span, "Type 'Self' does not take type parameters");
    result = ty_adt(tc, name, 0, NULL);
  } else if (te->is_tuple || name == C->n.tuple) {
    if (te->nargs == 0) goto user_types; /* `()` is not a type: Unknown type 'Tuple' */
    Type *buf[16];
    Type **es = te->nargs <= 16 ? buf : arena_array(C->A, (size_t)te->nargs, sizeof(Type *));
    for (int i = 0; i < te->nargs; i++) es[i] = chk_resolve_type(C, te->args[i], tp);
    result = ty_new(tc, TY_TUPLE, te->nargs, es);
  } else {
    const BuiltinTypeName *bt = builtin_type(C, name);
    if (bt && bt->arity == 0) {
      if (te->nargs) chk_fatal(C, E_TYPE_MISMATCH, te->span, "Type '%s' does not take type parameters", name);
      result = ty_prim(tc, bt->kind);
    } else if (bt) {
      if (te->nargs != bt->arity) arity_error(C, "Type", name, bt->arity, te->nargs, te->span);
      Type *a = chk_resolve_type(C, te->args[0], tp);
      if (bt->arity == 2) {
        Type *b = chk_resolve_type(C, te->args[1], tp);
        result = ty_binary(tc, bt->kind, a, b);
        if (bt->kind == TY_MAP || bt->kind == TY_MUTABLE_MAP) {
          if (!chk_is_hashable(C, a))
            chk_error(C, E_TYPE_MISMATCH, te->span, "%s key type must be hashable, got %s",
                      bt->kind == TY_MAP ? "Map" : "MutableMap", chk_tstr(C, a));
        }
      } else {
        result = ty_unary(tc, bt->kind, a);
        if (bt->kind == TY_SET && !chk_is_hashable(C, a))
          chk_error(C, E_TYPE_MISMATCH, te->span, "Set element type must be hashable, got %s", chk_tstr(C, a));
      }
    } else {
    user_types:;
      AliasInfo *al = chk_pm_get(&C->aliases, name);
      int nparams;
      if (al) {
        result = resolve_alias(C, te, al, tp);
      } else if (declared_params(C, name, &nparams)) {
        if (te->nargs != nparams) arity_error(C, "Type", name, nparams, te->nargs, te->span);
        Type *buf[16];
        Type **as = te->nargs <= 16 ? buf : arena_array(C->A, (size_t)te->nargs, sizeof(Type *));
        for (int i = 0; i < te->nargs; i++) as[i] = chk_resolve_type(C, te->args[i], tp);
        result = ty_adt(tc, name, te->nargs, as);
      } else {
        chk_fatal(C, E_UNDEFINED_TYPE, te->span, "Unknown type: '%s'%s", name, unknown_type_hint(C, name));
      }
    }
  }
  chk_leave(C);
  return result;
}

/* Builtin signature types: single capital letters and `Num` are type
 * variables; everything else is a built-in type or a built-in ADT. */
Type *chk_sig_type(Checker *C, TypeExpr *te) {
  TypeCtx *tc = &C->tc;
  if (te->kind == TE_FUNC) {
    Type *ps[8];
    int n = te->nargs < 8 ? te->nargs : 8;
    for (int i = 0; i < n; i++) ps[i] = chk_sig_type(C, te->args[i]);
    EffectSet eff = 0;
    for (int i = 0; i < te->neffects; i++) eff |= ty_effect_bit(tc, te->effects[i]);
    return ty_func(tc, n, ps, chk_sig_type(C, te->ret), eff);
  }
  const char *name = te->name;
  Type *as[8];
  int n = te->nargs < 8 ? te->nargs : 8;
  for (int i = 0; i < n; i++) as[i] = chk_sig_type(C, te->args[i]);
  if (te->is_tuple) return ty_new(tc, TY_TUPLE, n, as);
  if ((name[0] >= 'A' && name[0] <= 'Z' && name[1] == 0) || name == C->n.num) return ty_var(tc, name);
  const BuiltinTypeName *bt = builtin_type(C, name);
  if (bt) return bt->arity == 0 ? ty_prim(tc, bt->kind) : ty_new(tc, bt->kind, n, as);
  return ty_adt(tc, name, n, as);
}
