/* The builtin table: every builtin function of Geno 0.4 described once.
 *
 * Each family file (src/lib/list.c, string.c, math.c, ...) ends with a
 * table of BuiltinDef rows, and registry.c joins the family tables into one
 * sorted index. Every consumer reads the same rows:
 * - the typechecker: `sig` (parameter names and types, for arity, types and
 *   the named-argument rule) and `effect`;
 * - the capability gate: `cap` (a granted capability is required at call
 *   time, else E412) and BF_CALLBACK (the host must supply the function,
 *   else E413);
 * - the VM: `fn`;
 * - the JavaScript back end (src/js): `js`, the name of the prelude unit
 *   that implements the builtin (the .js files of src/js/prelude), or NULL when the
 *   JavaScript targets lack it. Which targets the checker offers a
 *   builtin on is src/check/target_names.c's table; a builtin offered on
 *   node-cli or browser must have a `js` name (tests/unit/test_js.c).
 *
 * This header is the only thing the checker includes from src/lib: it does
 * not depend on the VM's value representation (fn is an opaque pointer type
 * here and is defined in src/vm/value.h's terms by the VM). */
#ifndef GENO_LIB_BUILTINS_H
#define GENO_LIB_BUILTINS_H

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

/* Lookup by name (interned or not); NULL if there is no such builtin. */
const BuiltinDef *lib_builtin_find(const char *name);
/* All builtins, sorted by name. */
const BuiltinDef *lib_builtins(size_t *count);
/* By the index of lib_builtins: bit i set when parameter i is declared
 * exactly `Int`. The VM checks those arguments before a call, since an
 * Int-typed value can be a Float at run time (`Int ** negative Int`). */
const uint32_t *lib_builtin_int_params(void);

#endif
