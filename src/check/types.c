/* Type construction, equality, effect sets and rendering (types.h). */
#include "types.h"

/* The effects a `with` clause may name, in sorted order so that bit order
 * is name order. */
static const char *const valid_effects[] = {"clock",   "env",    "fs",     "http",  "io",    "mutation",
                                            "process", "random", "regex",  "stdin", "throw"};

void chk_types_init(TypeCtx *tc, Arena *arena, Interner *names) {
  memset(tc, 0, sizeof *tc);
  tc->arena = arena;
  tc->names = names;
  static const TypeKind prims[] = {TY_INT, TY_FLOAT, TY_BOOL, TY_STRING, TY_UNIT, TY_ERROR, TY_NEVER};
  for (size_t i = 0; i < ARRAY_LEN(prims); i++) {
    Type *t = arena_alloc(arena, sizeof *t);
    t->kind = (uint8_t)prims[i];
    t->depth = 1;
    t->flags = prims[i] == TY_ERROR ? TF_HAS_ERROR : 0;
    tc->prim[prims[i]] = t;
  }
  for (size_t i = 0; i < ARRAY_LEN(valid_effects); i++)
    tc->effect_names[tc->neffects++] = intern_cstr(names, valid_effects[i]);
}

Type *ty_prim(TypeCtx *tc, TypeKind k) { return tc->prim[k]; }

/* Fill in flags and depth from the children; a type deeper than the bound
 * becomes Error (and the checker reports it once). The flags let the hot
 * paths skip whole subtrees: substitution and freshening only descend
 * into types that contain a variable. */
static Type *finish(TypeCtx *tc, Type *t) {
  int depth = 0;
  uint8_t flags = 0;
  for (int i = 0; i < t->n; i++) {
    if (t->args[i]->depth > depth) depth = t->args[i]->depth;
    flags |= t->args[i]->flags;
  }
  if (t->ret) {
    if (t->ret->depth > depth) depth = t->ret->depth;
    flags |= t->ret->flags;
  }
  if (t->kind == TY_VAR) flags |= TF_HAS_VAR;
  if (t->kind == TY_MAP || t->kind == TY_MUTABLE_MAP || t->kind == TY_SET) flags |= TF_HAS_KEYED;
  if (depth + 1 > CHK_MAX_TYPE_DEPTH) {
    tc->too_deep = true;
    return tc->prim[TY_ERROR];
  }
  t->depth = (uint16_t)(depth + 1);
  t->flags = flags;
  return t;
}

/* A type and its argument array are one allocation (types are never
 * changed once built, so the array never grows). */
static Type *alloc_type(TypeCtx *tc, TypeKind k, int n, Type **args) {
  Type *t;
  if (n > 0) {
    /* sizeof(Type) is a multiple of the pointer alignment */
    t = arena_alloc(tc->arena, sizeof *t + (size_t)n * sizeof(Type *));
    t->args = (Type **)(t + 1);
    memcpy(t->args, args, (size_t)n * sizeof(Type *));
  } else {
    t = arena_alloc(tc->arena, sizeof *t);
  }
  t->kind = (uint8_t)k;
  t->n = n;
  return t;
}

Type *ty_new(TypeCtx *tc, TypeKind k, int n, Type **args) {
  if (k <= TY_UNIT || k == TY_ERROR || k == TY_NEVER) return tc->prim[k];
  return finish(tc, alloc_type(tc, k, n, args));
}

Type *ty_unary(TypeCtx *tc, TypeKind k, Type *a) { return ty_new(tc, k, 1, &a); }

Type *ty_binary(TypeCtx *tc, TypeKind k, Type *a, Type *b) {
  Type *args[2] = {a, b};
  return ty_new(tc, k, 2, args);
}

Type *ty_func(TypeCtx *tc, int n, Type **params, Type *ret, EffectSet effects) {
  Type *t = alloc_type(tc, TY_FUNC, n, params);
  t->ret = ret;
  t->effects = effects;
  return finish(tc, t);
}

Type *ty_adt(TypeCtx *tc, const char *name, int n, Type **args) {
  Type *t = alloc_type(tc, TY_ADT, n, args);
  t->name = name;
  return finish(tc, t);
}

Type *ty_var(TypeCtx *tc, const char *name) {
  uintptr_t h = (uintptr_t)name;
  Type **slot = &tc->var_cache[((h >> 4) ^ (h >> 12)) & (ARRAY_LEN(tc->var_cache) - 1)];
  if (*slot && (*slot)->name == name) return *slot;
  Type *t = alloc_type(tc, TY_VAR, 0, NULL);
  t->name = name;
  return *slot = finish(tc, t);
}

Type *ty_module(TypeCtx *tc, const char *name) {
  Type *t = alloc_type(tc, TY_MODULE, 0, NULL);
  t->name = name;
  return finish(tc, t);
}

Type *ty_rebuild(TypeCtx *tc, const Type *old, Type **args, Type *ret) {
  Type *t = alloc_type(tc, (TypeKind)old->kind, old->n, args);
  t->name = old->name;
  t->ret = ret;
  t->effects = old->effects;
  return finish(tc, t);
}

/* Names are interned, so comparing name pointers compares names. */
bool chk_type_equal(const Type *a, const Type *b) {
  if (a == b) return true;
  if (a->kind != b->kind || a->n != b->n || a->name != b->name || a->effects != b->effects) return false;
  for (int i = 0; i < a->n; i++)
    if (!chk_type_equal(a->args[i], b->args[i])) return false;
  if (a->kind == TY_FUNC) return chk_type_equal(a->ret, b->ret);
  return true;
}

bool ty_occurs(const char *name, const Type *t) {
  if (!ty_has_var(t)) return false;
  if (t->kind == TY_VAR) return t->name == name;
  for (int i = 0; i < t->n; i++)
    if (ty_occurs(name, t->args[i])) return true;
  return t->ret && ty_occurs(name, t->ret);
}

EffectSet ty_effect_bit(TypeCtx *tc, const char *name) {
  for (int i = 0; i < tc->neffects; i++)
    if (tc->effect_names[i] == name) return (EffectSet)1 << i;
  if (tc->neffects < 32) {
    tc->effect_names[tc->neffects] = name;
    return (EffectSet)1 << tc->neffects++;
  }
  return (EffectSet)1 << 31;
}

void ty_effects_str(const TypeCtx *tc, EffectSet e, Buf *b) {
  const char *names[32];
  int n = 0;
  for (int i = 0; i < tc->neffects; i++)
    if (e & ((EffectSet)1 << i)) names[n++] = tc->effect_names[i];
  /* insertion sort by name: at most 32 short strings */
  for (int i = 1; i < n; i++)
    for (int j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
      const char *x = names[j];
      names[j] = names[j - 1];
      names[j - 1] = x;
    }
  for (int i = 0; i < n; i++) {
    if (i) buf_puts(b, ", ");
    buf_puts(b, names[i]);
  }
}

/* Longest rendering of one type in a message, in bytes. Types are shared
 * graphs, so a program can build one whose text doubles with each line
 * (`let a2 = (a1, a1)` ...): written out in full, forty such lines would
 * be a terabyte. Past this many bytes the text ends with "...". */
#define TY_STR_MAX 2000

static void ty_str_rec(const TypeCtx *tc, const Type *t, Buf *b, size_t stop);

static void args_str(const TypeCtx *tc, const Type *t, Buf *b, size_t stop) {
  for (int i = 0; i < t->n && b->len < stop; i++) {
    if (i) buf_puts(b, ", ");
    ty_str_rec(tc, t->args[i], b, stop);
  }
}

void ty_str(const TypeCtx *tc, const Type *t, Buf *b) {
  size_t stop = b->len + TY_STR_MAX;
  ty_str_rec(tc, t, b, stop);
  if (b->len > stop && b->data) {
    /* the closing brackets written after the cut go too (all ASCII) */
    b->len = stop;
    b->data[stop] = '\0';
  }
  if (b->len >= stop) buf_puts(b, "...");
}

static void ty_str_rec(const TypeCtx *tc, const Type *t, Buf *b, size_t stop) {
  if (b->len >= stop) return; /* cut: ty_str adds the "..." */
  static const char *const prim_names[] = {
      [TY_INT] = "Int",     [TY_FLOAT] = "Float", [TY_BOOL] = "Bool",     [TY_STRING] = "String",
      [TY_UNIT] = "Unit",   [TY_LIST] = "List",   [TY_ARRAY] = "Array",   [TY_VEC] = "Vec",
      [TY_SET] = "Set",     [TY_OPTION] = "Option", [TY_ASYNC] = "Async", [TY_RESULT] = "Result",
      [TY_MAP] = "Map",     [TY_MUTABLE_MAP] = "MutableMap", [TY_ERROR] = "Any", [TY_NEVER] = "Never",
  };
  switch ((TypeKind)t->kind) {
  case TY_INT: case TY_FLOAT: case TY_BOOL: case TY_STRING: case TY_UNIT: case TY_ERROR: case TY_NEVER:
    buf_puts(b, prim_names[t->kind]);
    return;
  case TY_LIST: case TY_ARRAY: case TY_VEC: case TY_SET: case TY_OPTION: case TY_ASYNC:
  case TY_RESULT: case TY_MAP: case TY_MUTABLE_MAP:
    buf_puts(b, prim_names[t->kind]);
    buf_putc(b, '[');
    args_str(tc, t, b, stop);
    buf_putc(b, ']');
    return;
  case TY_TUPLE:
    buf_putc(b, '(');
    args_str(tc, t, b, stop);
    buf_putc(b, ')');
    return;
  case TY_FUNC:
    buf_putc(b, '(');
    args_str(tc, t, b, stop);
    buf_puts(b, ") -> ");
    ty_str_rec(tc, t->ret, b, stop);
    if (t->effects) {
      buf_puts(b, " with ");
      ty_effects_str(tc, t->effects, b);
    }
    return;
  case TY_ADT:
    buf_puts(b, t->name);
    if (t->n) {
      buf_putc(b, '[');
      args_str(tc, t, b, stop);
      buf_putc(b, ']');
    }
    return;
  case TY_VAR:
    buf_puts(b, t->name);
    return;
  case TY_MODULE:
    buf_printf(b, "Module(%s)", t->name);
    return;
  case TY_KIND_COUNT:
    break;
  }
  buf_puts(b, "?");
}
