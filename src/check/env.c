/* Names and scopes: pointer-keyed maps, local scopes over the global table,
 * builtins looked up lazily from the builtin table, "did you mean". */
#include <stdio.h>

#include "checker.h"
#include "sig.h"

/* ---- PtrMap --------------------------------------------------------------------- */

/* Keys are interned names (or AST/Type pointers): equal keys are equal
 * pointers, so the pointer value is the key. Fibonacci hashing: the
 * product's middle bits depend on every low bit of the pointer (which
 * allocation alignment leaves partly zero). */
static size_t ptr_hash(const void *p) {
  uint64_t x = (uint64_t)(uintptr_t)p;
  return (size_t)((x * 0x9E3779B97F4A7C15ull) >> 32);
}

static size_t find_slot(const PtrMap *m, const void *key) {
  size_t mask = m->cap - 1, i = ptr_hash(key) & mask;
  while (m->keys[i] && m->keys[i] != key) i = (i + 1) & mask;
  return i;
}

void *chk_pm_get(const PtrMap *m, const void *key) {
  if (!m->cap || !key) return NULL;
  size_t i = find_slot(m, key);
  return m->keys[i] ? m->vals[i] : NULL;
}

bool chk_pm_has(const PtrMap *m, const void *key) {
  if (!m->cap || !key) return false;
  return m->keys[find_slot(m, key)] != NULL;
}

/* Grow at 3/4 load; the old arrays stay in the arena (freed with it). */
void chk_pm_put(Arena *a, PtrMap *m, const void *key, void *val) {
  if (!key) return;
  if ((m->count + 1) * 4 >= m->cap * 3) {
    PtrMap n = {0};
    n.cap = m->cap ? m->cap * 2 : 16;
    n.keys = arena_array(a, n.cap, sizeof(void *));
    n.vals = arena_array(a, n.cap, sizeof(void *));
    for (size_t i = 0; i < m->cap; i++)
      if (m->keys[i]) {
        size_t j = find_slot(&n, m->keys[i]);
        n.keys[j] = m->keys[i];
        n.vals[j] = m->vals[i];
        n.count++;
      }
    *m = n;
  }
  size_t i = find_slot(m, key);
  if (!m->keys[i]) {
    m->keys[i] = key;
    m->count++;
  }
  m->vals[i] = val;
}

void chk_pm_del(PtrMap *m, const void *key) {
  if (!m->cap || !key) return;
  size_t i = find_slot(m, key);
  if (!m->keys[i]) return;
  /* backward-shift deletion keeps probe chains intact */
  size_t mask = m->cap - 1, j = i;
  m->keys[i] = NULL;
  m->count--;
  for (;;) {
    j = (j + 1) & mask;
    if (!m->keys[j]) break;
    size_t home = ptr_hash(m->keys[j]) & mask;
    bool movable = (i <= j) ? (home <= i || home > j) : (home <= i && home > j);
    if (movable) {
      m->keys[i] = m->keys[j];
      m->vals[i] = m->vals[j];
      m->keys[j] = NULL;
      i = j;
    }
  }
}

/* ---- scopes ------------------------------------------------------------------- */

Scope *chk_scope_new(Checker *C, Scope *parent) {
  Scope *s = arena_alloc(C->A, sizeof *s);
  s->parent = parent;
  return s;
}

/* A name's bit in Scope.names: interned names are distinct pointers, so
 * a few of their bits serve as a hash. */
static uint64_t name_bit(const char *name) {
  uintptr_t x = (uintptr_t)name;
  return (uint64_t)1 << ((x ^ (x >> 6)) & 63);
}

/* Slot of `name` (whose name_bit is bit) in s, or -1. */
static inline int scope_slot_bit(const Scope *s, const char *name, uint64_t bit) {
  if (!(s->names & bit)) return -1;
  if (s->index) return (int)(intptr_t)chk_pm_get(s->index, name) - 1;
  for (int i = s->n - 1; i >= 0; i--)
    if (s->b[i].name == name) return i;
  return -1;
}

static int scope_slot(const Scope *s, const char *name) { return scope_slot_bit(s, name, name_bit(name)); }

/* The innermost local binding of `name` visible from s, or NULL. */
static inline Binding *find_local(Checker *C, Scope *s, const char *name) {
  uint64_t bit = name_bit(name);
  for (; s && s != C->global_scope; s = s->parent) {
    int i = scope_slot_bit(s, name, bit);
    if (i >= 0) return &s->b[i];
  }
  return NULL;
}

void chk_bind(Checker *C, Scope *s, const char *name, Type *t, bool mutable_) {
  if (s == C->global_scope) {
    chk_bind_global(C, name, t);
    return;
  }
  /* Rebinding in the same scope replaces (the reference's dict). */
  int at = scope_slot(s, name);
  if (at >= 0) {
    s->b[at].type = t;
    s->b[at].mut = mutable_;
    return;
  }
  if (s->n == s->cap) {
    int nc = s->cap ? s->cap * 2 : 4; /* most blocks bind a few names */
    s->b = arena_grow(C->A, s->b, (size_t)s->n, (size_t)nc, sizeof *s->b);
    s->cap = nc;
  }
  s->b[s->n] = (Binding){name, t, mutable_};
  s->n++;
  s->names |= name_bit(name);
  if (s->index) {
    chk_pm_put(C->A, s->index, name, (void *)(intptr_t)s->n);
  } else if (s->n > CHK_SCOPE_INDEX_AT) {
    s->index = arena_alloc(C->A, sizeof *s->index);
    for (int i = 0; i < s->n; i++) chk_pm_put(C->A, s->index, s->b[i].name, (void *)(intptr_t)(i + 1));
  }
}

void chk_bind_global(Checker *C, const char *name, Type *t) {
  chk_pm_put(C->A, &C->globals, name, t);
  C->globals_gen++;
}

/* The builtin table row for `name`, through a per-checker cache (names
 * are interned, so the cache is keyed by pointer). */
static const BuiltinDef *builtin_row(Checker *C, const char *name) {
  void *v = chk_pm_get(&C->builtin_rows, name);
  if (v) return v == &C->not_builtin ? NULL : v;
  const BuiltinDef *b = chk_builtin_find(C->builtins, name);
  /* A builtin the target lacks is not bound at all (its uses are
   * reported by chk_target_reject_builtin). */
  if (b && !chk_target_has_builtin(C->target, name)) b = NULL;
  chk_pm_put(C->A, &C->builtin_rows, name, b ? (void *)b : (void *)&C->not_builtin);
  return b;
}

/* A builtin's type is built from its table row on first use: the
 * signature text is parsed with the language's own type parser, optional
 * (`name?:`) parameters are left out (only `range` has one, and calls to
 * it are typed in code), and the row's effect becomes the function type's
 * effect. Its parameter names serve named arguments. */
Type *chk_builtin_type(Checker *C, const char *name) {
  Type *t = chk_pm_get(&C->builtin_cache, name);
  if (t) return t;
  const BuiltinDef *b = builtin_row(C, name);
  if (!b) return NULL;
  ChkSig sig;
  if (!chk_sig_parse(C->prog, b->sig, &sig)) return NULL; /* a table bug; the unit test guards */
  Type *params[CHK_SIG_MAX_PARAMS];
  int n = 0;
  for (int i = 0; i < sig.nparams; i++)
    if (!sig.optional[i]) params[n++] = chk_sig_type(C, sig.types[i]);
  EffectSet eff = b->effect ? ty_effect_bit(&C->tc, intern_cstr(C->I, b->effect)) : 0;
  t = ty_func(&C->tc, n, params, chk_sig_type(C, sig.ret), eff);
  chk_pm_put(C->A, &C->builtin_cache, name, t);
  /* Parameter names come from the same row (named arguments). */
  if (!chk_pm_has(&C->param_names, name)) {
    ParamList *pl = arena_alloc(C->A, sizeof *pl);
    pl->names = arena_array(C->A, (size_t)(n ? n : 1), sizeof(const char *));
    for (int i = 0; i < sig.nparams; i++)
      if (!sig.optional[i]) pl->names[pl->n++] = sig.names[i];
    chk_pm_put(C->A, &C->param_names, name, pl);
  }
  return t;
}

static Type *lookup_global(Checker *C, const char *name) {
  Type *t = chk_pm_get(&C->globals, name);
  if (t) return t;
  /* Builtins are bound lazily: a global binding of the same name (a user
   * function, a module namespace) shadows them, exactly as rebinding does
   * in the reference's environment. */
  return chk_builtin_type(C, name);
}

Type *chk_lookup(Checker *C, Scope *s, const char *name) {
  const Binding *b = find_local(C, s, name);
  return b ? b->type : lookup_global(C, name);
}

bool chk_bound_locally(Checker *C, Scope *s, const char *name) { return find_local(C, s, name) != NULL; }

bool chk_is_mutable(Checker *C, Scope *s, const char *name) {
  const Binding *b = find_local(C, s, name);
  return b && b->mut;
}

const ParamList *chk_param_names(Checker *C, const char *name) {
  const ParamList *pl = chk_pm_get(&C->param_names, name);
  if (pl) return pl;
  if (chk_builtin_type(C, name)) return chk_pm_get(&C->param_names, name);
  return NULL;
}

/* True when `name` here still means the builtin: no user or imported
 * function of that name (those shadow builtins) and no local binding. Only
 * then do `range` and `length` get their special typing. */
bool chk_resolves_to_builtin(Checker *C, Scope *s, const char *name) {
  if (chk_pm_has(&C->user_defined, name) || !builtin_row(C, name)) return false;
  if (find_local(C, s, name)) return false;
  /* A non-function global of the same name (a module namespace) hides it. */
  Type *g = chk_pm_get(&C->globals, name);
  return !g || g == chk_builtin_type(C, name);
}

/* Past this many errors no suggestion is computed: a flood of undefined
 * names over a large program would otherwise cost errors x names. */
#define CHK_SUGGEST_MAX_ERRORS 200

/* ---- suggestions ---------------------------------------------------------------- */

/* Levenshtein distance, capped: returns max+1 as soon as it must exceed max. */
static int edit_distance(const char *a, const char *b, int max) {
  size_t la = strlen(a), lb = strlen(b);
  if (la > 64 || lb > 64) return max + 1;
  if ((la > lb ? la - lb : lb - la) > (size_t)max) return max + 1;
  int prev[65], cur[65];
  for (size_t j = 0; j <= lb; j++) prev[j] = (int)j;
  for (size_t i = 0; i < la; i++) {
    cur[0] = (int)i + 1;
    int best = cur[0];
    for (size_t j = 0; j < lb; j++) {
      int v = prev[j + 1] + 1;
      if (cur[j] + 1 < v) v = cur[j] + 1;
      int sub = prev[j] + (a[i] != b[j]);
      if (sub < v) v = sub;
      cur[j + 1] = v;
      if (v < best) best = v;
    }
    if (best > max) return max + 1;
    memcpy(prev, cur, (lb + 1) * sizeof(int));
  }
  return prev[lb];
}

typedef struct Suggest {
  const char *name;
  const char *best;
  int best_d;
} Suggest;

static void consider(Suggest *sg, const char *cand) {
  if (!cand || cand == sg->name) return;
  int d = edit_distance(sg->name, cand, 2);
  if (d == 0) return;
  /* Ties go to the alphabetically first name, so messages are stable
   * (the reference's choice depends on hash order). */
  if (d < sg->best_d || (d == sg->best_d && sg->best && strcmp(cand, sg->best) < 0)) {
    sg->best = cand;
    sg->best_d = d;
  }
}

static const char *suggest_result(Checker *C, Suggest *sg) {
  if (!sg->best || sg->best_d > 2) return "";
  Buf b = BUF_INIT;
  buf_printf(&b, " Did you mean '%s'?", sg->best);
  char *s = b.data ? arena_strdup(C->A, b.data) : "";
  buf_free(&b);
  return s;
}

const char *chk_suggest(Checker *C, const char *name, const char *const *cands, int n) {
  if (C->errors.count > CHK_SUGGEST_MAX_ERRORS) return "";
  Suggest sg = {name, NULL, 3};
  for (int i = 0; i < n; i++) consider(&sg, cands[i]);
  return suggest_result(C, &sg);
}

const char *chk_suggest_in_scope(Checker *C, Scope *s, const char *name) {
  if (C->errors.count > CHK_SUGGEST_MAX_ERRORS) return "";
  Suggest sg = {name, NULL, 3};
  for (; s && s != C->global_scope; s = s->parent)
    for (int i = 0; i < s->n; i++) consider(&sg, s->b[i].name);
  for (size_t i = 0; i < C->globals.cap; i++)
    if (C->globals.keys[i]) consider(&sg, C->globals.keys[i]);
  for (size_t i = 0; C->builtins && i < C->builtins->count; i++)
    if (chk_target_has_builtin(C->target, C->builtins->rows[i].name)) consider(&sg, C->builtins->rows[i].name);
  return suggest_result(C, &sg);
}
