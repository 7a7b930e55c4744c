/* The builtin table's shape: every builtin function of Geno 0.4 is one
 * BuiltinDef row.
 *
 * The rows are written in src/lib (each family file ends with its rows)
 * and joined by src/lib/registry.c into one BuiltinTable sorted by name;
 * src/runtime hands that table down to the checker (chk_program) and the
 * VM (vm_new). The layers below src/lib never name it themselves, so this
 * header describes the table without depending on what implements it:
 * - the typechecker reads `sig` (parameter names and types, for arity,
 *   types and the named-argument rule) and `effect`;
 * - the capability gate reads `cap` (a granted capability is required at
 *   call time, else E412) and BF_CALLBACK (the host must supply the
 *   function, else E413);
 * - the VM calls `fn` (an opaque pointer type here: the checker never
 *   calls it; src/vm/vmapi.h gives its arguments' meaning), and lets it
 *   see its own row while it runs (vm_builtin_self), so rows that differ
 *   only in name or kind share one function: the name goes into its
 *   messages, the kind is a BF_ flag (BF_VEC). */
#ifndef GENO_CHECK_BUILTIN_TABLE_H
#define GENO_CHECK_BUILTIN_TABLE_H

#include "../base/common.h"

struct VM;
struct Value;

/* A builtin's implementation: args[0..nargs) are the evaluated arguments
 * (borrowed, GC-rooted by the VM for the duration of the call); the result
 * goes to *out. Returns false after raising a runtime error in vm. */
typedef bool (*BuiltinFn)(struct VM *vm, struct Value *args, int nargs, struct Value *out);

enum {
  BF_CALLBACK = 1 << 0,      /* implemented by a host callback (fs, http, ...) */
  BF_SPECIAL_TYPING = 1 << 1, /* the checker types calls to it in code, not from sig
                                 (length, range, print, to_string, ...) */
  BF_MUTATES = 1 << 2,       /* mutates its first argument in place (vec_push...) */
  BF_APP_STUB = 1 << 3,      /* app-mode graphics/input no-op */
  BF_HIGHER_ORDER = 1 << 4,  /* calls function arguments back (map, fold, sort...) */
  BF_VEC = 1 << 5,           /* the Vec row of an Array/Vec twin: the one
                                implementation both rows share reads it
                                from its own row (vm_builtin_self), as
                                QuickJS's builtins read their `magic` */
};

typedef struct BuiltinDef {
  const char *name;   /* "append" */
  /* Signature in Geno type syntax with parameter names:
   *   "(list: List[T], element: T) -> List[T]"
   * Type variables are single capital letters (T, U, K, V, A, B, E, F);
   * `Num` is Int or Float (mixed gives Float). A parameter written
   * `name?: T` is optional (range's step). */
  const char *sig;
  unsigned cap;       /* GENO_CAP_* bit (include/geno.h), 0 = always available */
  const char *effect; /* static effect for `with` checking ("io", "fs", ...) or NULL */
  unsigned flags;     /* BF_* */
  BuiltinFn fn;       /* NULL only while a family is being implemented */
  const char *js;     /* JavaScript prelude unit ("$b_append"), or NULL: not on the JS targets */
} BuiltinDef;

/* The whole table: immutable, static storage, shared by every run and
 * thread. */
typedef struct BuiltinTable {
  const BuiltinDef *rows; /* sorted by name (strcmp) */
  size_t count;
  /* By row index: bit i set when parameter i is declared exactly `Int`.
   * The VM checks those arguments before a call, since an Int-typed value
   * can be a Float at run time (`Int ** negative Int`). */
  const uint32_t *int_params;
} BuiltinTable;

/* The row named `name` (interned or not) in t, or NULL (also for a NULL
 * name or table). Binary search; thread-safe. */
const BuiltinDef *chk_builtin_find(const BuiltinTable *t, const char *name);

#endif
