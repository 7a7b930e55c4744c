/* Type compatibility, substitutions and variance.
 *
 * Three relations, as in the reference checker:
 * - chk_compatible: call sites; a type variable on either side matches
 *   anything;
 * - chk_strictly_compatible: declarations, returns, assignments; type
 *   variables only match themselves, except that a polymorphic value may be
 *   instantiated at a monomorphic annotation (`let f: (Int) -> String =
 *   to_string`);
 * - chk_compatible_subst: generic calls; binds type variables in a
 *   substitution so that `append([1], "x")` fails on the second argument.
 * All three accept Int where Float is expected (covariantly inside lists,
 * options, tuples, function results ...) but keep mutable containers
 * (Array, Vec, Set, MutableMap) and invariant ADT parameters invariant. */
#include <stdio.h>

#include "checker.h"

/* ---- substitutions ------------------------------------------------------------ */

Type *chk_subst_get(const Subst *s, const char *name) {
  for (int i = 0; i < s->n; i++)
    if (s->names[i] == name) return s->types[i];
  return NULL;
}

void chk_subst_set(Checker *C, Subst *s, const char *name, Type *t) {
  for (int i = 0; i < s->n; i++)
    if (s->names[i] == name) {
      s->types[i] = t;
      return;
    }
  if (s->n == s->cap) {
    /* Most substitutions bind one or two names (T; T and E; K and V).
     * Both arrays share one block. */
    int nc = s->cap ? s->cap * 2 : 2;
    void *blk = arena_array(C->A, (size_t)nc, sizeof *s->names + sizeof *s->types);
    const char **names = blk;
    Type **types = (Type **)(names + nc);
    if (s->n) {
      memcpy(names, s->names, (size_t)s->n * sizeof *names);
      memcpy(types, s->types, (size_t)s->n * sizeof *types);
    }
    s->names = names;
    s->types = types;
    s->cap = nc;
  }
  s->names[s->n] = name;
  s->types[s->n] = t;
  s->n++;
}

static Subst subst_copy(Checker *C, const Subst *s) {
  Subst c = {0};
  if (s->n) {
    c.cap = s->n;
    c.names = arena_array(C->A, (size_t)c.cap, sizeof *c.names + sizeof *c.types);
    c.types = (Type **)(c.names + c.cap);
    memcpy(c.names, s->names, (size_t)s->n * sizeof *c.names);
    memcpy(c.types, s->types, (size_t)s->n * sizeof *c.types);
    c.n = s->n;
  }
  return c;
}

/* Names already being replaced on the current path (cycle guard). */
typedef struct Seen {
  const char *name;
  const struct Seen *next;
} Seen;

/* Substitution chains (T -> List[U], U -> ...) add recursion depth beyond
 * the type depth; past this many levels the result is cut to Error. */
#define CHK_MAX_SUBST_DEPTH 1000

static Type *apply_rec(Checker *C, Type *t, const Subst *s, const Seen *seen, int depth) {
  if (!ty_has_var(t)) return t;
  if (depth > CHK_MAX_SUBST_DEPTH) {
    C->tc.too_deep = true;
    return ty_prim(&C->tc, TY_ERROR);
  }
  if (t->kind == TY_VAR) {
    Type *r = chk_subst_get(s, t->name);
    if (!r) return t;
    for (const Seen *x = seen; x; x = x->next)
      if (x->name == t->name) return t;
    Seen next = {t->name, seen};
    return apply_rec(C, r, s, &next, depth + 1);
  }
  Type *buf[16];
  Type **args = t->n <= 16 ? buf : arena_array(C->A, (size_t)t->n, sizeof(Type *));
  bool changed = false;
  for (int i = 0; i < t->n; i++) {
    args[i] = apply_rec(C, t->args[i], s, seen, depth + 1);
    changed |= args[i] != t->args[i];
  }
  Type *ret = t->ret ? apply_rec(C, t->ret, s, seen, depth + 1) : NULL;
  changed |= ret != t->ret;
  return changed ? ty_rebuild(&C->tc, t, args, ret) : t;
}

Type *chk_apply(Checker *C, Type *t, const Subst *s) {
  if (!s || s->n == 0) return t;
  return apply_rec(C, t, s, NULL, 0);
}

Type *chk_substitute(Checker *C, Type *t, int n, const char *const *names, Type *const *types) {
  if (!ty_has_var(t) || n == 0) return t;
  if (t->kind == TY_VAR) {
    for (int i = 0; i < n; i++)
      if (names[i] == t->name) return types[i];
    return t;
  }
  Type *buf[16];
  Type **args = t->n <= 16 ? buf : arena_array(C->A, (size_t)t->n, sizeof(Type *));
  bool changed = false;
  for (int i = 0; i < t->n; i++) {
    args[i] = chk_substitute(C, t->args[i], n, names, types);
    changed |= args[i] != t->args[i];
  }
  Type *ret = t->ret ? chk_substitute(C, t->ret, n, names, types) : NULL;
  changed |= ret != t->ret;
  return changed ? ty_rebuild(&C->tc, t, args, ret) : t;
}

static const char *prefixed(Checker *C, const char *prefix, const char *name) {
  size_t lp = strlen(prefix), ln = strlen(name);
  char stackbuf[128];
  char *tmp = lp + ln < sizeof stackbuf ? stackbuf : arena_alloc(C->A, lp + ln + 1);
  memcpy(tmp, prefix, lp);
  memcpy(tmp + lp, name, ln);
  return intern(C->I, tmp, lp + ln);
}

Type *chk_freshen(Checker *C, Type *t, const char *prefix) {
  if (!ty_has_var(t)) return t;
  if (t->kind == TY_VAR) return ty_var(&C->tc, prefixed(C, prefix, t->name));
  Type *buf[16];
  Type **args = t->n <= 16 ? buf : arena_array(C->A, (size_t)t->n, sizeof(Type *));
  for (int i = 0; i < t->n; i++) args[i] = chk_freshen(C, t->args[i], prefix);
  Type *ret = t->ret ? chk_freshen(C, t->ret, prefix) : NULL;
  return ty_rebuild(&C->tc, t, args, ret);
}

Type *chk_fresh_var(Checker *C, const char *hint) {
  /* "__fresh_<hint>_<n>", formatted by hand: this is a hot path */
  char name[128];
  size_t lh = strlen(hint);
  if (lh > 64) lh = 64;
  memcpy(name, "__fresh_", 8);
  memcpy(name + 8, hint, lh);
  size_t len = 8 + lh;
  name[len++] = '_';
  char digits[24];
  int nd = 0;
  unsigned long v = (unsigned long)++C->fresh_counter;
  do {
    digits[nd++] = (char)('0' + v % 10);
    v /= 10;
  } while (v);
  while (nd) name[len++] = digits[--nd];
  return ty_var(&C->tc, intern(C->I, name, len));
}

/* ---- structural compatibility ------------------------------------------------------- */

static uint64_t adt_invariant(Checker *C, const char *name) {
  AdtInfo *info = chk_adt(C, name);
  return info ? info->invariant : 0;
}

static bool is_inv(uint64_t inv, int i) { return i < 64 && (inv >> i) & 1; }

static bool structural(Checker *C, Type *e, Type *a, bool wild);

/* How the arguments of each built-in type constructor vary, read by both
 * compatibility relations and by the variance inference below: List,
 * Option, Async, Result, Map and tuples are covariant in every argument
 * (Int may stand for Float inside them); Array, Vec, Set and MutableMap
 * can be changed in place, so theirs are invariant. Functions and ADTs
 * have rules of their own (0 here). */
enum { ARGS_NONE, ARGS_COVARIANT, ARGS_INVARIANT };
static const unsigned char builtin_args[TY_KIND_COUNT] = {
    [TY_LIST] = ARGS_COVARIANT,  [TY_OPTION] = ARGS_COVARIANT, [TY_ASYNC] = ARGS_COVARIANT,
    [TY_RESULT] = ARGS_COVARIANT, [TY_MAP] = ARGS_COVARIANT,   [TY_TUPLE] = ARGS_COVARIANT,
    [TY_ARRAY] = ARGS_INVARIANT, [TY_VEC] = ARGS_INVARIANT,    [TY_SET] = ARGS_INVARIANT,
    [TY_MUTABLE_MAP] = ARGS_INVARIANT,
};

static bool structural_inv(Checker *C, Type *e, Type *a, bool wild) {
  return structural(C, e, a, wild) && structural(C, a, e, wild);
}

/* One of the two compatibility relations (structural, with or without
 * wildcards; compat_subst), as the argument walk both share sees it. */
typedef struct Relation {
  bool (*one)(Checker *C, Type *e, Type *a, void *ctx);  /* e accepts a */
  bool (*both)(Checker *C, Type *e, Type *a, void *ctx); /* an invariant position */
  void *ctx;
} Relation;

/* The arguments of a built-in type constructor (builtin_args) or of an
 * ADT (its inferred variance), each related one way, or both ways at an
 * invariant position: the one place where variance is applied. */
static bool args_related(Checker *C, Type *e, Type *a, const Relation *r) {
  if (e->n != a->n || (e->kind == TY_ADT && e->name != a->name)) return false;
  bool all_inv = e->kind != TY_ADT && builtin_args[e->kind] == ARGS_INVARIANT;
  uint64_t inv = e->kind == TY_ADT && e->n ? adt_invariant(C, e->name) : 0; /* no lookup without parameters */
  for (int i = 0; i < e->n; i++) {
    bool invariant = all_inv || is_inv(inv, i);
    if (!(invariant ? r->both : r->one)(C, e->args[i], a->args[i], r->ctx)) return false;
  }
  return true;
}

static bool rel_structural(Checker *C, Type *e, Type *a, void *wild) { return structural(C, e, a, *(bool *)wild); }
static bool rel_structural_inv(Checker *C, Type *e, Type *a, void *wild) {
  return structural_inv(C, e, a, *(bool *)wild);
}

/* The core relation. Int is accepted for Float at any covariant position;
 * function types are contravariant in parameters, covariant in result, and
 * an actual function may have fewer effects than expected, not more. */
static bool structural(Checker *C, Type *e, Type *a, bool wild) {
  if (e->kind == TY_ERROR || a->kind == TY_ERROR) return true;
  if (a->kind == TY_NEVER) return true;
  if (e->kind == TY_VAR || a->kind == TY_VAR) return wild ? true : chk_type_equal(e, a);
  if (e->kind != a->kind) return e->kind == TY_FLOAT && a->kind == TY_INT;
  if (builtin_args[e->kind] || e->kind == TY_ADT)
    return args_related(C, e, a, &(Relation){rel_structural, rel_structural_inv, &wild});
  switch ((TypeKind)e->kind) {
  case TY_FUNC: {
    if (e->n != a->n) return false;
    bool ok = true;
    for (int i = 0; i < e->n; i++) ok = structural(C, a->args[i], e->args[i], wild) && ok;
    ok = structural(C, e->ret, a->ret, wild) && ok;
    return ok && (a->effects & ~e->effects) == 0;
  }
  case TY_INT: case TY_FLOAT: case TY_BOOL: case TY_STRING: case TY_UNIT:
    return true;
  default:
    return false;
  }
}

bool chk_compatible(Checker *C, Type *expected, Type *actual) { return structural(C, expected, actual, true); }

bool chk_strictly_compatible(Checker *C, Type *expected, Type *actual) {
  if (structural(C, expected, actual, false)) return true;
  if (ty_has_var(actual) && !ty_has_var(expected)) {
    /* The reference freshens the actual's variables ("__actual_" + name)
     * before binding them. The renaming is one-to-one and `expected` has
     * no variables, so the only name the relation can tell apart is `Num`
     * (var_accepts and the numeric widening test it by name): without a
     * `Num` inside, the renamed copy gives the same answer. The
     * substitution is local, so no renamed name escapes. */
    Subst s = {0};
    Type *a = ty_occurs(C->n.num, actual) ? chk_freshen(C, actual, "__actual_") : actual;
    return chk_compatible_subst(C, expected, a, &s);
  }
  return false;
}

/* ---- compatibility with substitution ----------------------------------------------- */

static bool var_accepts(Checker *C, Type *var, Type *actual) {
  if (var->name == C->n.num)
    return actual->kind == TY_INT || actual->kind == TY_FLOAT || actual->kind == TY_VAR;
  return true;
}

/* Make s hold t's bindings (in s's own arrays). */
static void subst_assign(Checker *C, Subst *s, const Subst *t) {
  if (t->n > s->cap) {
    void *blk = arena_array(C->A, (size_t)t->n, sizeof *s->names + sizeof *s->types);
    s->names = blk;
    s->types = (Type **)(s->names + t->n);
    s->cap = t->n;
  }
  if (t->n) {
    memcpy(s->names, t->names, (size_t)t->n * sizeof *s->names);
    memcpy(s->types, t->types, (size_t)t->n * sizeof *s->types);
  }
  s->n = t->n;
}

/* subst_inv's short cut for an unbound variable v (not Num) against a
 * type t without variables. Whichever side v is on, the trial binds v to
 * t (Any binds nothing; Never binds in one direction and is then accepted
 * in the other) and then compares t with t: the same call, so the same
 * answer and the same depth. */
static bool inv_bind_var(Checker *C, Type *v, Type *t, Subst *s) {
  if (t->kind == TY_ERROR) return true;
  chk_subst_set(C, s, v->name, t);
  if (t->kind == TY_NEVER) return true;
  if (chk_compatible_subst(C, t, t, s)) return true;
  s->n--; /* the binding was appended: v had none */
  return false;
}

static bool unbound_var(Checker *C, Type *t, const Subst *s) {
  return t->kind == TY_VAR && t->name != C->n.num && !chk_subst_get(s, t->name);
}

/* An invariant position: both directions must hold, on a trial copy of
 * the bindings that is kept only if both do. Generic builtins over
 * MutableMap and Array come here for every argument, so the common cases
 * take a short cut with exactly the trial's answer and bindings:
 * - neither side has a variable: nothing can bind, and the relation is
 *   the structural one (structural() does not count depth, so this is
 *   only taken where the trial could not reach CHK_MAX_DEPTH either);
 * - one side is an unbound variable and the other has none
 *   (inv_bind_var). */
static bool subst_inv(Checker *C, Type *e, Type *a, Subst *s) {
  if (!ty_has_var(a)) {
    if (!ty_has_var(e)) {
      int deepest = e->depth > a->depth ? e->depth : a->depth;
      if (C->depth + deepest + 1 < CHK_MAX_DEPTH) return structural(C, e, a, false) && structural(C, a, e, false);
    } else if (unbound_var(C, e, s)) {
      return inv_bind_var(C, e, a, s);
    }
  } else if (!ty_has_var(e) && unbound_var(C, a, s)) {
    return inv_bind_var(C, a, e, s);
  }
  const char *names[8];
  Type *types[8];
  Subst trial = {s->n, 8, names, types};
  if (s->n > 8) {
    trial = subst_copy(C, s);
  } else if (s->n) {
    memcpy(names, s->names, (size_t)s->n * sizeof *names);
    memcpy(types, s->types, (size_t)s->n * sizeof *types);
  }
  if (!chk_compatible_subst(C, e, a, &trial)) return false;
  if (!chk_compatible_subst(C, a, e, &trial)) return false;
  subst_assign(C, s, &trial);
  return true;
}

static bool compat_subst(Checker *C, Type *e, Type *a, Subst *s);
static bool rel_subst(Checker *C, Type *e, Type *a, void *s) { return chk_compatible_subst(C, e, a, s); }
static bool rel_subst_inv(Checker *C, Type *e, Type *a, void *s) { return subst_inv(C, e, a, s); }

/* The recursion is bounded by the types' depth, except through chains of
 * bound variables; chk_enter turns a runaway chain into a diagnostic. */
bool chk_compatible_subst(Checker *C, Type *e, Type *a, Subst *s) {
  chk_enter(C, (Span){0});
  bool ok = compat_subst(C, e, a, s);
  chk_leave(C);
  return ok;
}

/* With substitution: a variable on the expected side binds to the actual
 * type (after an occurs check; `Num` only to Int, Float or a variable); a
 * variable on the actual side (a polymorphic argument such as `to_string`,
 * freshened by the caller) binds to the expected type. Invariant positions
 * try both directions on a copy and keep the bindings only on success. */
static bool compat_subst(Checker *C, Type *e, Type *a, Subst *s) {
  /* Numeric generics widen to Float whatever the argument order. */
  if (e->kind == TY_VAR && e->name == C->n.num) {
    Type *bound = chk_subst_get(s, e->name);
    if (bound && ty_is_numeric(bound) && ty_is_numeric(a)) {
      if (a->kind == TY_FLOAT) chk_subst_set(C, s, e->name, ty_prim(&C->tc, TY_FLOAT));
      return true;
    }
  }
  e = chk_apply(C, e, s);
  a = chk_apply(C, a, s);
  if (e->kind == TY_ERROR || a->kind == TY_ERROR) return true;
  if (a->kind == TY_NEVER) return true;
  if (e->kind == TY_VAR) {
    Type *bound = chk_subst_get(s, e->name);
    if (bound) return chk_compatible_subst(C, bound, a, s);
    if (!var_accepts(C, e, a)) return false;
    if (ty_occurs(e->name, a)) return false;
    chk_subst_set(C, s, e->name, a);
    return true;
  }
  if (a->kind == TY_VAR) {
    Type *bound = chk_subst_get(s, a->name);
    if (bound) return chk_compatible_subst(C, e, bound, s);
    if (ty_occurs(a->name, e)) return false;
    chk_subst_set(C, s, a->name, e);
    return true;
  }
  if (e->kind != a->kind) return e->kind == TY_FLOAT && a->kind == TY_INT;
  if (builtin_args[e->kind] || e->kind == TY_ADT)
    return args_related(C, e, a, &(Relation){rel_subst, rel_subst_inv, s});
  switch ((TypeKind)e->kind) {
  case TY_FUNC: {
    if (e->n != a->n) return false;
    /* Parameters stop at the first failure, but the result type is
     * compared (and may bind variables) either way, as in the reference:
     * later arguments and the call's type see those bindings. */
    bool params_ok = true;
    for (int i = 0; i < e->n && params_ok; i++) params_ok = chk_compatible_subst(C, a->args[i], e->args[i], s);
    bool ret_ok = chk_compatible_subst(C, e->ret, a->ret, s);
    return params_ok && ret_ok && (a->effects & ~e->effects) == 0;
  }
  case TY_INT: case TY_FLOAT: case TY_BOOL: case TY_STRING: case TY_UNIT:
    return true;
  default:
    return false;
  }
}

/* ---- variance -------------------------------------------------------------------- */

static bool noncovariant(Checker *C, Type *t, const char *param) {
  if (builtin_args[t->kind]) {
    bool inv = builtin_args[t->kind] == ARGS_INVARIANT;
    for (int i = 0; i < t->n; i++)
      if (inv ? ty_occurs(param, t->args[i]) : noncovariant(C, t->args[i], param)) return true;
    return false;
  }
  switch ((TypeKind)t->kind) {
  case TY_VAR:
    return false;
  case TY_FUNC:
    for (int i = 0; i < t->n; i++)
      if (ty_occurs(param, t->args[i])) return true;
    return noncovariant(C, t->ret, param);
  case TY_ADT: {
    AdtInfo *info = chk_adt(C, t->name);
    for (int i = 0; i < t->n; i++) {
      bool hit = !info || is_inv(info->invariant, i) ? ty_occurs(param, t->args[i])
                                                     : noncovariant(C, t->args[i], param);
      if (hit) return true;
    }
    return false;
  }
  default:
    return false;
  }
}

/* A type parameter is invariant when some field stores it directly (fields
 * are assignable), inside a mutable container, or in a function parameter;
 * otherwise Int may stand for Float in it (Box[Float] <- Box[Int] is still
 * rejected because Box's field holds the parameter directly). */
static uint64_t compute_invariant(Checker *C, AdtInfo *info) {
  uint64_t inv = 0;
  for (int p = 0; p < info->nparams && p < 64; p++) {
    const char *param = info->params[p];
    bool hit = false;
    for (int v = 0; v < info->nvariants && !hit; v++)
      for (int f = 0; f < info->variants[v].nfields && !hit; f++) {
        Type *ft = info->variants[v].ftypes[f];
        hit = (ft->kind == TY_VAR && ft->name == param) || noncovariant(C, ft, param);
      }
    if (hit) inv |= (uint64_t)1 << p;
  }
  return inv;
}

void chk_refresh_variance(Checker *C, AdtInfo **infos, int n) {
  /* Monotone in practice; the bound only guards against a pathological
   * oscillation (each round can only flip one of 64 bits per type). */
  for (int round = 0; round < 64 * 4 + 4; round++) {
    bool changed = false;
    for (int i = 0; i < n; i++) {
      uint64_t inv = compute_invariant(C, infos[i]);
      if (inv != infos[i]->invariant) {
        infos[i]->invariant = inv;
        changed = true;
      }
    }
    if (!changed) return;
  }
}

/* ---- hashability ------------------------------------------------------------------- */

typedef struct SeenName {
  const char *name;
  const struct SeenName *next;
} SeenName;

/* `ok` holds the tuple, Option and Result nodes already found hashable in
 * this question: a type is a shared graph, and `(a, a)` nested forty deep
 * has 2^40 paths but forty nodes. (A node found hashable while a
 * recursive ADT was assumed hashable is only reused within the same
 * question, whose answer is false anyway if that assumption fails.) */
static bool hashable(Checker *C, Type *t, const SeenName *seen, PtrMap *ok) {
  switch ((TypeKind)t->kind) {
  case TY_ERROR: case TY_NEVER: case TY_VAR:
  case TY_INT: case TY_FLOAT: case TY_BOOL: case TY_STRING: case TY_UNIT:
    return true;
  case TY_TUPLE: case TY_OPTION: case TY_RESULT:
    if (chk_pm_get(ok, t)) return true;
    for (int i = 0; i < t->n; i++)
      if (!hashable(C, t->args[i], seen, ok)) return false;
    chk_pm_put(C->A, ok, t, t);
    return true;
  case TY_ADT: {
    AdtInfo *info = chk_adt(C, t->name);
    if (!info) return true;
    for (const SeenName *x = seen; x; x = x->next)
      if (x->name == t->name) return true;
    SeenName next = {t->name, seen};
    int np = info->nparams < t->n ? info->nparams : t->n;
    for (int v = 0; v < info->nvariants; v++)
      for (int f = 0; f < info->variants[v].nfields; f++) {
        Subst s = {0};
        for (int i = 0; i < np; i++) chk_subst_set(C, &s, info->params[i], t->args[i]);
        Type *ft = chk_apply(C, info->variants[v].ftypes[f], &s);
        if (!hashable(C, ft, &next, ok)) return false;
      }
    return true;
  }
  default:
    return false;
  }
}

bool chk_is_hashable(Checker *C, Type *t) {
  PtrMap ok;
  memset(&ok, 0, sizeof ok);
  return hashable(C, t, NULL, &ok);
}

static void validate_key(Checker *C, const char *coll, const char *role, Type *key, Span sp) {
  if (!chk_is_hashable(C, key))
    chk_error(C, E_TYPE_MISMATCH, sp, "%s %s type must be hashable, got %s", coll, role, chk_tstr(C, key));
}

/* Each type object once per validation: types are shared graphs, and a
 * map keyed by the previous line's map (`let a2 = map_from_list([(a1,
 * a1)])` ...) reaches the same node by 2^n paths, which took seconds and
 * a gigabyte at forty lines and repeated the same error at each path. */
static void validate_keyed_once(Checker *C, Type *t, Span sp, PtrMap *seen) {
  if (!(t->flags & TF_HAS_KEYED) || chk_pm_get(seen, t)) return;
  chk_pm_put(C->A, seen, t, t);
  chk_step(C, sp);
  if (t->kind == TY_MAP) validate_key(C, "Map", "key", t->args[0], sp);
  else if (t->kind == TY_MUTABLE_MAP) validate_key(C, "MutableMap", "key", t->args[0], sp);
  else if (t->kind == TY_SET) validate_key(C, "Set", "element", t->args[0], sp);
  for (int i = 0; i < t->n; i++) validate_keyed_once(C, t->args[i], sp, seen);
  if (t->ret) validate_keyed_once(C, t->ret, sp, seen);
}

void chk_validate_keyed(Checker *C, Type *t, Span sp) {
  if (!(t->flags & TF_HAS_KEYED)) return;
  PtrMap seen;
  memset(&seen, 0, sizeof seen);
  validate_keyed_once(C, t, sp, &seen);
}
