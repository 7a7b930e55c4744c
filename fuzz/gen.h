/* Types and signatures for the program generator (fuzz_gen.c): a small
 * model of Geno's types, parsed from the builtin table's signature strings
 * (so every builtin, present and future, can be called), unification of a
 * signature's result with a wanted type, and printing in Geno syntax. */
#ifndef GENO_FUZZ_GEN_H
#define GENO_FUZZ_GEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Parameters of a signature, arguments of a type. */
#define GEN_MAX_ARGS 6

typedef enum TyKind {
  TY_INT, TY_FLOAT, TY_STRING, TY_BOOL, TY_UNIT,
  TY_LIST, TY_OPTION, TY_RESULT, TY_MAP, TY_SET, TY_ARRAY, TY_VEC, TY_MMAP,
  TY_TUPLE, TY_FN, TY_ADT, TY_VAR,
} TyKind;

typedef struct Ty {
  TyKind k;
  const char *name; /* TY_ADT: type name; TY_VAR: variable ("T", "Num") */
  int n;            /* arguments (TY_FN: parameters) */
  const struct Ty *a[GEN_MAX_ARGS];
  const struct Ty *ret; /* TY_FN */
} Ty;

/* A callable: builtin or constructor. */
typedef struct Sig {
  const char *name;
  int np, nrequired;
  const char *pname[GEN_MAX_ARGS];
  const Ty *pt[GEN_MAX_ARGS];
  const Ty *ret;
  bool effect;         /* has an effect (not allowed in pure code) */
  bool ctor;           /* constructor: positional arguments only */
  bool needs_context;  /* a result type variable no argument determines
                          (None, vec_new(), Ok(x)): the checker infers it
                          only from an annotation */
  unsigned hash_vars;  /* bit i: variable letter 'A'+i must be hashable */
} Sig;

/* Types: scratch ones live until gt_reset (one program); ty_perm ones
 * (signatures) forever. NULL when the scratch pool is full. */
void gt_reset(void);
const Ty *gt_new(TyKind k, const char *name, int n, const Ty *const *args, const Ty *ret);
const Ty *gt_simple(TyKind k);
bool gt_equal(const Ty *a, const Ty *b);
bool gt_hashable(const Ty *t);
bool gt_has_fn(const Ty *t);
/* Geno syntax into buf (NUL-terminated, truncated at cap). */
void gt_print(const Ty *t, char *buf, size_t cap);

/* Parses "(name: T, name?: U) -> R" into *s; false if unsupported. */
bool gt_sig_parse(Sig *s, const char *name, const char *text);

/* Variable bindings while instantiating a signature. */
typedef struct Binds {
  int n;
  const char *name[12];
  const Ty *t[12];
} Binds;

const Ty *gt_binds_get(const Binds *b, const char *name);
/* Match pattern `p` (with variables) against concrete `c`, extending b. */
bool gt_unify(const Ty *p, const Ty *c, Binds *b, unsigned hash_vars);
/* Pattern with every bound variable replaced; unbound ones are left. */
const Ty *gt_subst(const Ty *p, const Binds *b);
/* Does `t` still contain a variable? */
bool gt_has_var(const Ty *t);

#endif
