/* Internal state of the typechecker, shared by the files of src/check.
 *
 * The checker follows the reference implementation's structure closely,
 * because programs are judged by the set of diagnostic codes it reports:
 * - one Checker per module check (imports are summarised into it);
 * - scopes are chains of small binding arrays over one global table;
 * - generic calls bind named type variables in a per-call substitution
 *   (compat.c), not by global unification;
 * - errors are appended and checking continues, except errors found while
 *   resolving a type annotation (resolve.c): those are fatal and replace
 *   everything reported so far (chk_fatal long-jumps to the module entry;
 *   everything in flight is arena-owned, so nothing leaks).
 * Not thread-shared: a Checker lives on one call's stack. */
#ifndef GENO_CHECK_CHECKER_H
#define GENO_CHECK_CHECKER_H

#include <setjmp.h>

#include "../syntax/ast.h"
#include "builtin_table.h"
#include "check.h"
#include "types.h"

/* Work bound: expression and statement visits per module check. Effect
 * inference re-checks callees, so nested immediately-invoked lambdas cost
 * exponential time in their depth; real programs (the self-hosted checker,
 * 5,000 lines) take well under a million visits. */
#define CHK_MAX_STEPS 20000000L

/* Memory bound for one module check (types, scopes, substitutions), on top
 * of the front end's arena limit. The self-hosted checker (8,000 lines
 * with its modules) needs about 3 MiB; the largest accepted program (8 MiB
 * of source) scaled alike stays well under this. */
#define CHK_MAX_BYTES ((size_t)256 << 20)

/* Past this many steps the checker stops re-checking lambda bodies it has
 * already typed within the current function (effect inference re-checks
 * callees, which costs time exponential in the nesting of immediately
 * invoked lambdas). Ordinary programs never get here, so their error
 * reports stay exactly the reference's. */
#define CHK_MEMO_AFTER_STEPS 1000000L

/* Recursion bound for the checker's own walks over expressions and
 * statements. The parser bounds nesting at 50 levels, but a walk adds
 * frames per level (calls, lambdas, effect inference), so this is a
 * generous backstop rather than the primary limit. */
#define CHK_MAX_DEPTH 400

/* Argument-position prefixes cached per checker (positions beyond are
 * formatted each time). */
#define CHK_PREFIX_CACHE 16

/* ---- maps keyed by interned names ---------------------------------------- */

typedef struct PtrMap {
  const void **keys; /* open addressing; NULL = empty */
  void **vals;
  size_t cap;        /* power of two, or 0 */
  size_t count;
} PtrMap;

void *chk_pm_get(const PtrMap *m, const void *key);
bool chk_pm_has(const PtrMap *m, const void *key);
void chk_pm_put(Arena *a, PtrMap *m, const void *key, void *val);
void chk_pm_del(PtrMap *m, const void *key);
/* Iterate: for (size_t i = 0; i < m.cap; i++) if (m.keys[i]) ... */

/* ---- declarations ----------------------------------------------------------- */

typedef struct ParamList {
  int n;
  const char **names;
} ParamList;

typedef struct AdtVariant {
  const char *name;
  int nfields;
  const char **fnames;
  Type **ftypes;
} AdtVariant;

typedef struct AdtInfo {
  const char *name;
  int nparams;
  const char **params;
  int nvariants;
  AdtVariant *variants;
  uint64_t invariant; /* bit i: type parameter i is invariant (compat.c) */
  PtrMap vindex;      /* variant name -> (intptr_t) index + 1 */
} AdtInfo;

typedef struct AliasInfo {
  int nparams;
  const char **params;
  TypeExpr *target;
} AliasInfo;

typedef struct ModuleNs {
  const char *module; /* the module's real name */
  PtrMap symbols;     /* name -> Type* (functions and constructors) */
  PtrMap params;      /* name -> ParamList* */
  PtrMap defaults;    /* name -> (intptr_t) number of defaulted params */
} ModuleNs;

typedef struct Impl {
  const char *trait;
  const char *type;
  PtrMap methods; /* name -> Type* (a TY_FUNC) */
} Impl;

typedef struct ImplTable {
  PtrMap by_type; /* type name -> Impl* (one trait's implementations) */
} ImplTable;

typedef struct TraitList {
  int n, cap;
  const char **traits; /* traits declaring a method of this name, in order */
} TraitList;

/* Return types of a block lambda's `return` statements (the lambda's type
 * is inferred from them, not checked against the enclosing function). */
typedef struct ReturnCollector {
  Type **items;
  int n, cap;
} ReturnCollector;

/* ---- scopes ------------------------------------------------------------------ */

typedef struct Binding {
  const char *name;
  Type *type;
  bool mut;
} Binding;

/* Small on purpose: a function check makes thousands of scopes, many of
 * which never bind a name (if and loop bodies, match arms). */
typedef struct Scope {
  struct Scope *parent; /* NULL for the global scope's children's root */
  int n, cap;
  uint64_t names;       /* one bit per bound name (chk_name_bit): a lookup
                           passes a scope whose bit is clear */
  Binding *b;           /* b[0..n), in binding order (one arena block) */
  PtrMap *index;        /* name -> (intptr_t) slot + 1, once n > CHK_SCOPE_INDEX_AT */
} Scope;

/* A scope with more bindings than this gets a hash index: a function body
 * with thousands of `let`s would otherwise make binding and lookup
 * quadratic. Small scopes (the usual case) stay a short array. */
#define CHK_SCOPE_INDEX_AT 32

/* Names the checker compares against, interned once per program. */
typedef struct ChkNames {
  const char *main_, *init, *update, *render, *result, *self_type, *option, *result_type, *some,
      *none, *ok, *err, *range, *length, *num, *tuple, *start, *end, *list, *value, *error;
  const char *t, *e; /* Option/Result type parameter names */
} ChkNames;

typedef struct Checker {
  Program *prog;
  Module *mod;
  Module **avail;    /* modules this one may import (all but itself) */
  int navail;
  const PtrMap *modules_by_name; /* name -> the first module of that name (all but the entry) */
  ChkStats *stats;    /* costs, or NULL (ChkOptions.stats) */
  PtrMap typed_exprs; /* Expr* set: given a type by this check (check.c keeps their types) */
  Arena *A;
  Interner *I;
  TypeCtx tc;
  ChkNames n;
  DiagList errors;   /* this module's errors, in discovery order */
  jmp_buf *fatal;    /* chk_fatal jumps here */
  long steps;        /* work done, against CHK_MAX_STEPS */
  size_t start_bytes; /* arena size when this check began (CHK_MAX_BYTES) */
  int depth;         /* recursion depth, against CHK_MAX_DEPTH */

  /* global environment */
  Scope *global_scope; /* sentinel: its bindings live in `globals` */
  PtrMap globals;      /* name -> Type* */
  PtrMap user_defined; /* names of user (or imported) functions: set */
  PtrMap param_names;  /* function name -> ParamList* (user; builtins via table) */
  PtrMap default_counts; /* function name -> (intptr_t) count */
  PtrMap builtin_cache;  /* builtin name -> Type* (its parsed signature) */
  PtrMap builtin_rows;   /* name -> BuiltinDef* or &C->not_builtin (lookup cache) */
  char not_builtin;      /* sentinel address for builtin_rows */
  PtrMap type_cache;     /* TypeExpr* -> TypeCacheEntry* (resolve.c) */
  unsigned type_cache_gen; /* entries of older generations are cleared */
  EffectSet eff_mutation, eff_throw;
  const char *prefixes[3][CHK_PREFIX_CACHE]; /* "__arg%d_", "__pipe%d_", "__ctor_arg%d_" */
  const char *builtin_type_names[16]; /* Int, Float, ... interned (resolve.c) */

  PtrMap type_defs;    /* type name -> AdtInfo* */
  PtrMap ctor_to_type; /* constructor name -> type name */
  PtrMap aliases;      /* alias name -> AliasInfo* */
  PtrMap surface_builtins; /* built-in type names an export may mention: set (imports.c) */
  PtrMap module_ns;    /* namespace (alias or module name) -> ModuleNs* */
  PtrMap trait_defs;   /* trait name -> Decl* */
  PtrMap trait_methods; /* method name -> TraitList* */
  PtrMap impl_index;   /* trait name -> ImplTable* */
  PtrMap tested_by_block; /* names called directly in test blocks: set */

  /* annotation resolution */
  PtrMap resolving_aliases; /* set, for recursive alias detection */
  PtrMap *declared_types;   /* stack of frames: name -> ParamList* */
  int ndeclared, declared_cap;
  int self_depth;           /* >0 while resolving trait signatures */

  /* the function being checked */
  Type *current_return;     /* NULL outside functions */
  bool in_async, in_main;
  struct ReturnCollector *lambda_returns; /* collecting block-lambda returns, or NULL */
  int loop_depth;
  bool app_mode;
  long fresh_counter;
  bool too_deep_reported;  /* the CHK_MAX_TYPE_DEPTH error was given */
  PtrMap lambda_memo;       /* Expr* -> Type*, see CHK_MEMO_AFTER_STEPS */
  unsigned long globals_gen; /* bumped by every chk_bind_global */
  /* Pass 3 reuse of the fixpoint's last inference per function
   * (effects.c, chk_remembered_effects). */
  PtrMap eff_memo;           /* FuncDecl* -> EffMemo* */
  bool eff_memo_ok;          /* the fixpoint converged ... */
  unsigned long eff_memo_gen; /* ... when globals_gen was this */
  PtrMap body_memo;          /* FuncDecl* -> EffMemo*: pass 2's body check */
  /* The fixpoint's bookkeeping for inferring by union (effects.c) */
  const PtrMap *eff_fn_names; /* names of its functions, while it runs */
  bool eff_shadowed;          /* this inference met a call of such a name bound locally */
  unsigned long eff_stamp;    /* counts the fixpoint's changes */
  PtrMap eff_changed_at;      /* name -> (uintptr_t) stamp of its last change */
  PtrMap callee_only;        /* FuncDecl* set: changed names only as direct callees */
  ChkTarget target;         /* target-aware checking (target.c), or NONE */
  const BuiltinTable *builtins; /* handed down by chk_program's caller */
} Checker;

/* ---- errors (check.c) -------------------------------------------------------- */

void chk_error(Checker *C, int code, Span sp, const char *fmt, ...) GENO_PRINTF(4, 5);
/* A fatal error: replaces every error recorded so far and ends the check. */
GENO_NORETURN void chk_fatal(Checker *C, int code, Span sp, const char *fmt, ...) GENO_PRINTF(4, 5);
/* Render a type into a per-checker scratch string (valid until the arena
 * is freed; used for messages). */
const char *chk_tstr(Checker *C, const Type *t);
/* " Did you mean 'x'?" for the closest candidate within edit distance 2,
 * or "". */
const char *chk_suggest(Checker *C, const char *name, const char *const *cands, int n);
/* The limits' slow paths (check.c): fatal when a bound is passed. */
void chk_step_check(Checker *C, Span sp);
void chk_enter_check(Checker *C, Span sp);
/* Count one unit of work; fatal past CHK_MAX_STEPS (and, looked at every
 * 1024 steps, past CHK_MAX_BYTES). Inline: every node visit counts one. */
static inline void chk_step(Checker *C, Span sp) {
  if (GENO_UNLIKELY(++C->steps > CHK_MAX_STEPS || (C->steps & 1023) == 0)) chk_step_check(C, sp);
}
/* One level of recursion; fatal past CHK_MAX_DEPTH. */
static inline void chk_enter(Checker *C, Span sp) {
  if (GENO_UNLIKELY(++C->depth > CHK_MAX_DEPTH)) chk_enter_check(C, sp);
}
static inline void chk_leave(Checker *C) { C->depth--; }

/* ---- environment (env.c) ----------------------------------------------------- */

Scope *chk_scope_new(Checker *C, Scope *parent);
void chk_bind(Checker *C, Scope *s, const char *name, Type *t, bool mutable_);
/* Look a name up through s and its parents, then the global table (which
 * falls back to the builtin table). NULL if unbound. */
Type *chk_lookup(Checker *C, Scope *s, const char *name);
bool chk_is_mutable(Checker *C, Scope *s, const char *name);
/* Is `name` bound in s or a parent below the global scope? */
bool chk_bound_locally(Checker *C, Scope *s, const char *name);
/* The builtin's function type, or NULL if `name` is not a builtin. */
Type *chk_builtin_type(Checker *C, const char *name);
/* Parameter names for calls by name (user functions, trait methods and
 * builtins alike); NULL if unknown. */
const ParamList *chk_param_names(Checker *C, const char *name);
/* Is `name` (as seen from s) still the builtin of that name? */
bool chk_resolves_to_builtin(Checker *C, Scope *s, const char *name);
void chk_bind_global(Checker *C, const char *name, Type *t);
/* " Did you mean ...?" over every name visible from s. */
const char *chk_suggest_in_scope(Checker *C, Scope *s, const char *name);

/* ---- annotations (resolve.c) ------------------------------------------------- */

/* Resolve an annotation; type_params are the names of the enclosing
 * generic declaration's parameters (may be NULL). Fatal on unknown types,
 * wrong type-argument counts, recursive aliases and `Self` misuse. */
Type *chk_resolve_type(Checker *C, TypeExpr *te, const ParamList *type_params);
/* Intern the built-in type names (once per checker, before any resolve). */
void chk_resolve_init(Checker *C);
void chk_push_declared(Checker *C, Decl **type_decls, int n);
void chk_pop_declared(Checker *C);
/* Resolved annotations are cached per (annotation, type parameters), and
 * the cache is dropped where the reference drops its own: around a
 * non-empty frame of declared types, around `Self` scopes, after an
 * import. Which annotations are resolved afresh decides how often an
 * error in one (an unhashable key) is reported, so this follows the
 * reference exactly. */
void chk_type_cache_clear(Checker *C);
/* Enter / leave a scope where `Self` is allowed (trait signatures). */
void chk_self_enter(Checker *C);
void chk_self_leave(Checker *C);
/* Convert a builtin signature's type (type variables are T, U, ..., Num). */
Type *chk_sig_type(Checker *C, TypeExpr *te);
/* Map/MutableMap/Set key hashability (records E300, never fatal). */
void chk_validate_keyed(Checker *C, Type *t, Span sp);
bool chk_is_hashable(Checker *C, Type *t);

/* ---- compatibility and substitution (compat.c) ------------------------------- */

typedef struct Subst {
  int n, cap;
  const char **names;
  Type **types;
} Subst;

Type *chk_subst_get(const Subst *s, const char *name);
void chk_subst_set(Checker *C, Subst *s, const char *name, Type *t);
Type *chk_apply(Checker *C, Type *t, const Subst *s);
/* Replace every type variable X by prefix+X. */
Type *chk_freshen(Checker *C, Type *t, const char *prefix);
Type *chk_fresh_var(Checker *C, const char *hint);
/* Call-site compatibility: type variables act as wildcards. */
bool chk_compatible(Checker *C, Type *expected, Type *actual);
/* Declarations, returns, assignments: no wildcards (but a polymorphic value
 * may instantiate to a monomorphic annotation). */
bool chk_strictly_compatible(Checker *C, Type *expected, Type *actual);
/* Compatibility binding type variables of `expected` (and of `actual`) in s. */
bool chk_compatible_subst(Checker *C, Type *expected, Type *actual, Subst *s);
/* Substitute type parameters by name (no chains), as pattern checking does. */
Type *chk_substitute(Checker *C, Type *t, int n, const char *const *names, Type *const *types);
/* Recompute invariant type parameters of the given ADTs to a fixpoint. */
void chk_refresh_variance(Checker *C, AdtInfo **infos, int n);

/* ---- declarations and passes (decls.c, imports.c) ------------------------------ */

/* Run every pass over C->mod (see decls.c). */
void chk_module_passes(Checker *C);
AdtInfo *chk_adt(Checker *C, const char *name);
/* Build an ADT's info from its declaration (field types resolved). */
AdtInfo *chk_build_adt(Checker *C, Decl *d);
/* Install it, replacing a type of the same name; a constructor already
 * owned by another type is E309 when report_dup_ctors. */
void chk_install_adt(Checker *C, AdtInfo *info, Span sp, bool report_dup_ctors);
void chk_collect_alias(Checker *C, Decl *d);
/* Resolve an alias's target once (errors surface even if it is unused). */
void chk_validate_alias(Checker *C, Decl *d);
/* A function's signature type; *ndefaults gets its defaulted parameters. */
Type *chk_signature(Checker *C, FuncDecl *f, int *ndefaults);
ParamList *chk_func_params(Checker *C, FuncDecl *f);
/* Bind a function globally with its parameter names (user-defined). */
void chk_register_function(Checker *C, const char *name, Type *t, ParamList *params, int ndefaults);
void chk_resolve_imports(Checker *C);
bool chk_module_has_exports(Module *m);
/* Exported signatures may only mention exported types (fatal otherwise). */
void chk_validate_export_surface(Checker *C, Module *m, bool has_exports);
Impl *chk_find_impl(Checker *C, const char *trait, const char *type);
const ParamList *chk_trait_method_params(Checker *C, const char *trait, const char *method);

/* ---- expressions (expr.c, call.c) --------------------------------------------- */

Type *chk_expr(Checker *C, Expr *e, Scope *s);
/* Forget memoised lambda types (a new function body, new signatures). */
void chk_memo_reset(Checker *C);
Type *chk_call(Checker *C, Expr *e, Scope *s);
Type *chk_pipeline(Checker *C, Expr *e, Scope *s);
Type *chk_ctor_call(Checker *C, Expr *e, Scope *s);
Type *chk_lambda(Checker *C, Expr *e, Scope *s);
Type *chk_match_expr(Checker *C, Expr *e, Scope *s);
/* " Did you mean ...?" among constructors and module names. */
const char *chk_ctor_hint(Checker *C, const char *name);
/* The type of field `name` on ADT t when every variant has it with one
 * type; NULL otherwise (*reported tells whether an error was given).
 * `verb` completes "use pattern matching to ... variant-specific fields". */
Type *chk_field_type(Checker *C, Type *t, const char *name, Span sp, const char *verb, bool *reported);

/* ---- statements (stmt.c) ------------------------------------------------------ */

void chk_stmt(Checker *C, Stmt *st, Scope *s);
void chk_block(Checker *C, Block b, Scope *s);
void chk_pattern(Checker *C, Pattern *p, Type *expected, Scope *s);
/* The constructors behind a scrutinee type (user ADT, Option, Result) and
 * the substitution of its type parameters; NULL if it has none. */
AdtInfo *chk_pattern_adt(Checker *C, Type *t, const char **tname, Subst *sub);
AdtVariant *chk_variant(AdtInfo *info, const char *name);
bool chk_definitely_returns(Block b);
/* Check a function. With recheck false only the effect validation runs
 * (pass 3 for a function whose pass-2 check cannot change). */
void chk_function(Checker *C, FuncDecl *f, bool update_signature, bool validate_effects, bool recheck);
void chk_test_block(Checker *C, Decl *d);

/* ---- effects (effects.c) ------------------------------------------------------ */

EffectSet chk_effects_of_decl(Checker *C, FuncDecl *f); /* declared `with` set */
EffectSet chk_infer_block_effects(Checker *C, Block b, Scope *s);
EffectSet chk_infer_expr_effects(Checker *C, Expr *e, Scope *s);
EffectSet chk_infer_function_effects(Checker *C, FuncDecl *f);
/* Iterate function effects to a fixpoint. Returns the set of functions
 * (FuncDecl*) whose check in pass 3 can differ from pass 2: those that
 * mention a name whose function type gained effects. */
PtrMap chk_stabilize_effects(Checker *C);
/* Pass 3 for a body chk_stabilize_effects marked: when every name in it
 * that gained effects is the callee of a direct call outside any lambda
 * (where a callee's effects change nothing the check sees), its check
 * would repeat pass 2's exactly; this counts that check's work as done
 * and returns true, or returns false when the body must be checked. */
bool chk_replay_body_check(Checker *C, FuncDecl *f);
/* Pass 2: record the work of f's body check for chk_replay_body_check
 * (call with the counters taken before the check). */
void chk_record_body_check(Checker *C, FuncDecl *f, long steps0, long fresh0, int errs0, int dropped0);
/* The effects the fixpoint last inferred for f, when inferring them again
 * now would give the same answer and record nothing (see effects.c); the
 * work that inference would count (steps, fresh variables) is counted as
 * if it had run. False when f must be inferred again. */
bool chk_remembered_effects(Checker *C, FuncDecl *f, EffectSet *out);
void chk_bind_pattern_effect_env(Checker *C, Pattern *p, Type *expected, Scope *s);

/* ---- walks (walk.c) ------------------------------------------------------------ */

/* Call fn on every expression of f (defaults, requires/ensures, examples,
 * body), pre-order. */
void chk_walk_function(FuncDecl *f, void (*fn)(void *ud, Expr *e), void *ud);

/* The general form: hooks for expressions, statements and match arms
 * (each may be NULL), called before the node's parts are visited. */
typedef struct ChkWalk {
  void (*expr)(void *ud, Expr *e);
  void (*stmt)(void *ud, Stmt *st);
  void (*arm)(void *ud, MatchArm *arm);
  void *ud;
  bool skip_examples; /* leave out example clauses */
  int *lambda_depth;  /* if set: raised while inside a lambda's parameters or body */
} ChkWalk;
void chk_walk(const ChkWalk *w, FuncDecl *f);
void chk_walk_block(const ChkWalk *w, Block b);

/* ---- exhaustiveness (exhaust.c) ----------------------------------------------- */

void chk_exhaustive(Checker *C, Type *scrutinee, MatchArm *arms, int n, Span sp);

/* ---- targets (target.c, target_names.c) --------------------------------------- */

/* Does target t provide the builtin `name`? (Always, for CHK_TARGET_NONE
 * and for names that are not builtins.) */
bool chk_target_has_builtin(ChkTarget t, const char *name);
/* Append the targets other than t that provide builtin `name`,
 * alphabetically, comma-separated. */
void chk_target_alternatives(ChkTarget t, const char *name, Buf *out);
/* When `name` is a builtin the checker's target lacks: record the E300
 * saying so at sp and return true. */
bool chk_target_reject_builtin(Checker *C, const char *name, Span sp);
/* The browser target's entry lifecycle (init/update/render without main). */
void chk_target_browser_lifecycle(Checker *C);
/* Backend validation of a program that checked clean for target t: appends
 * at most one E300 (the first name or construct the backend cannot emit)
 * and returns false if it did. */
bool chk_target_validate(Program *prog, const BuiltinTable *builtins, ChkTarget t, DiagList *diags);

/* Where a reserved runtime name is refused (target_names.c): as a global
 * (function, type, constructor, trait, alias) in a single-module program
 * (GLOBAL) or in one of several modules (PROJECT, Python only; JavaScript
 * refuses its GLOBAL set in both), as a local binding or parameter
 * (LOCAL), as a referenced name (DIRECT), and as a module name (MODULE). */
enum {
  RN_PY_GLOBAL = 1 << 0,
  RN_PY_PROJECT = 1 << 1,
  RN_PY_LOCAL = 1 << 2,
  RN_PY_DIRECT = 1 << 3,
  RN_PY_MODULE = 1 << 4,
  RN_JS_GLOBAL = 1 << 5,
  RN_JS_LOCAL = 1 << 6,
  RN_JS_DIRECT = 1 << 7,
  RN_JS_MODULE = 1 << 8,
};
unsigned chk_reserved_flags(const char *name);
bool chk_python_keyword(const char *name);
bool chk_js_keyword(const char *name);
/* The lookup tables are sorted (for the unit test). */
bool chk_target_tables_sorted(void);

#endif
