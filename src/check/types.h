/* Static types of the typechecker, and the contract with the compiler.
 *
 * Contract (for src/vm's compiler, after chk_program returned true):
 * - Every expression the checker visited has `Expr->type` set to its static
 *   type (a `Type *` from this header), as resolved as it will get (the
 *   checker binds type variables per call, in a substitution, so a stored
 *   type holds no inference links); never NULL for a checked expression. After
 *   a successful check that is every expression of every module (std
 *   modules included) except pipeline placeholders (`_`) and the `where`
 *   of a typed hole, which is never evaluated (fuzz/fuzz_check.c checks
 *   this property).
 * - `kind == TY_FLOAT` means "statically Float", TY_INT "statically Int";
 *   TY_VAR (an unbound generic type variable, e.g. the element type of an
 *   empty list literal passed to a generic builtin), TY_ERROR (the error-
 *   recovery type the reference calls Any) and TY_NEVER (a throw) mean the
 *   static type says nothing about the value's representation.
 * - Int-to-Float promotion points (language facts 4.2) are marked on the
 *   statements: `Stmt->aux & CHK_AUX_PROMOTE_FLOAT` is set on a let/var,
 *   an assignment or a return whose value must be converted to Float when
 *   it evaluates to an Int. A match *expression* promotes its arms' values
 *   when its own type (Expr->type) is TY_FLOAT.
 * - Types live in the Program's arena and stay valid until
 *   ast_program_free. They are immutable once built; equal types are not
 *   necessarily the same pointer (compare with chk_type_equal).
 *
 * The type language mirrors the reference checker: type variables are named
 * (builtin signatures use T, U, K, V, A, B, E, F and the numeric `Num`), and
 * generic calls bind them in a per-call substitution (see compat.c) rather
 * than by global unification, because the reference's error set depends on
 * exactly that behaviour. */
#ifndef GENO_CHECK_TYPES_H
#define GENO_CHECK_TYPES_H

#include "../base/arena.h"
#include "../base/buf.h"
#include "../base/intern.h"

typedef enum TypeKind {
  TY_INT,
  TY_FLOAT,
  TY_BOOL,
  TY_STRING,
  TY_UNIT,
  /* one type argument (args[0]) */
  TY_LIST,
  TY_ARRAY,
  TY_VEC,
  TY_SET,
  TY_OPTION,
  TY_ASYNC,
  /* two type arguments: Result[ok, err], Map/MutableMap[key, value] */
  TY_RESULT,
  TY_MAP,
  TY_MUTABLE_MAP,
  TY_TUPLE,  /* args[0..n): elements (n >= 1; the empty tuple is TY_UNIT) */
  TY_FUNC,   /* args[0..n): parameters, ret, effects */
  TY_ADT,    /* user or built-in algebraic type: name[args] (also `Self`) */
  TY_VAR,    /* type variable `name` */
  TY_ERROR,  /* error recovery ("Any"): compatible with everything */
  TY_NEVER,  /* the type of `throw`: assignable to everything */
  TY_MODULE, /* an imported module's namespace (name) */
  TY_KIND_COUNT
} TypeKind;

/* A set of effects: one bit per effect name (effects.c numbers the eleven
 * valid names first, then any unknown names a program writes). */
typedef uint32_t EffectSet;

enum {
  TF_HAS_VAR = 1 << 0, /* a TY_VAR occurs somewhere inside */
  TF_HAS_ERROR = 1 << 1, /* a TY_ERROR occurs somewhere inside */
  TF_HAS_KEYED = 1 << 2, /* a Map, MutableMap or Set occurs somewhere inside */
};

typedef struct Type {
  uint8_t kind;       /* TypeKind */
  uint8_t flags;      /* TF_* summary of the whole tree */
  uint16_t depth;     /* 1 + the deepest child; bounded by CHK_MAX_TYPE_DEPTH */
  int32_t n;          /* number of args */
  const char *name;   /* TY_ADT, TY_VAR, TY_MODULE: interned name */
  struct Type **args; /* see TypeKind */
  struct Type *ret;   /* TY_FUNC */
  EffectSet effects;  /* TY_FUNC */
} Type;

/* Types nest at most this deep. Inference can build ever deeper types
 * (`let b = [a]` repeated), and every type walk is recursive, so the bound
 * keeps the C stack small; the reference (Python) would hit its own
 * recursion limit long before. */
#define CHK_MAX_TYPE_DEPTH 200

/* Stmt->aux bit: convert an Int value to Float here (see the contract). */
#define CHK_AUX_PROMOTE_FLOAT 1

/* The factory: where types are allocated, plus shared singletons. */
typedef struct TypeCtx {
  Arena *arena;
  Interner *names;
  Type *prim[TY_KIND_COUNT]; /* Int, Float, Bool, String, Unit, Error, Never */
  bool too_deep;             /* a type was cut off at CHK_MAX_TYPE_DEPTH */
  /* effect names: bit i <-> effect_names[i] (interned) */
  const char *effect_names[32];
  int neffects;
  /* Type variables by name, direct-mapped (ty_var): types are never
   * changed once built, so one Type serves every use of a name. */
  Type *var_cache[256];
} TypeCtx;

void chk_types_init(TypeCtx *tc, Arena *arena, Interner *names);

Type *ty_prim(TypeCtx *tc, TypeKind k); /* Int, Float, Bool, String, Unit, Error, Never */
Type *ty_new(TypeCtx *tc, TypeKind k, int n, Type **args); /* copies args */
Type *ty_unary(TypeCtx *tc, TypeKind k, Type *a);          /* List[a], Option[a], ... */
Type *ty_binary(TypeCtx *tc, TypeKind k, Type *a, Type *b); /* Result, Map, MutableMap */
Type *ty_func(TypeCtx *tc, int n, Type **params, Type *ret, EffectSet effects);
Type *ty_adt(TypeCtx *tc, const char *name, int n, Type **args);
Type *ty_var(TypeCtx *tc, const char *name);
Type *ty_module(TypeCtx *tc, const char *name);

/* A copy of t with its children replaced (same kind, name, effects). */
Type *ty_rebuild(TypeCtx *tc, const Type *t, Type **args, Type *ret);

static inline bool ty_has_var(const Type *t) { return (t->flags & TF_HAS_VAR) != 0; }
static inline bool ty_has_error(const Type *t) { return (t->flags & TF_HAS_ERROR) != 0; }
static inline bool ty_is_numeric(const Type *t) { return t->kind == TY_INT || t->kind == TY_FLOAT; }

/* Structural equality, effects included (the reference's dataclass ==). */
bool chk_type_equal(const Type *a, const Type *b);
/* Does the type variable `name` occur in t? */
bool ty_occurs(const char *name, const Type *t);

/* Effect names <-> bits. Unknown names get bits of their own (up to 32
 * names in all; later ones share the last bit). */
EffectSet ty_effect_bit(TypeCtx *tc, const char *interned_name);
/* Append "a, b, c" (sorted by name) to b. */
void ty_effects_str(const TypeCtx *tc, EffectSet e, Buf *b);

/* The reference's rendering: Int, List[Int], (Int, String), (Int) -> Bool
 * with io, Map[K, V], Any, Never, Module(M). */
void ty_str(const TypeCtx *tc, const Type *t, Buf *b);

#endif
