/* The builtin families: one file per family under src/lib/, each ending
 * with its rows of the builtin table (`lib_<family>_builtins`). This X-macro
 * list is the one place that names them all; registry.c joins them. */
#ifndef GENO_LIB_FAMILIES_H
#define GENO_LIB_FAMILIES_H

#include "builtins.h"

#define LIB_FAMILIES(X)                                                                  \
  X(list) X(string) X(math) X(map) X(set) X(array) X(vec) X(mutable_map) X(option)       \
  X(convert) X(json) X(csv) X(toml) X(regex) X(clock) X(random) X(fs) X(http) X(process) \
  X(env) X(stdin) X(io) X(path) X(app)

#define LIB_DECLARE_FAMILY(f)                  \
  extern const BuiltinDef lib_##f##_builtins[]; \
  extern const size_t lib_##f##_builtin_count;
LIB_FAMILIES(LIB_DECLARE_FAMILY)
#undef LIB_DECLARE_FAMILY

/* Number of builtins in Geno 0.4 (the reference's manifest); registry.c
 * checks the joined table against it. */
#define LIB_BUILTIN_COUNT 231

#endif
