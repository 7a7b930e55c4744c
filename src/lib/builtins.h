/* The builtin table of src/lib: the rows of every family joined into one
 * BuiltinTable (its shape: src/check/builtin_table.h).
 *
 * Each family file (src/lib/list.c, string.c, math.c, ...) ends with a
 * table of BuiltinDef rows, and registry.c joins the family tables into one
 * index sorted by name. src/runtime passes that table down to the checker
 * and the VM, which never reach up for it. */
#ifndef GENO_LIB_BUILTINS_H
#define GENO_LIB_BUILTINS_H

#include "../check/builtin_table.h"

/* The joined table (static storage, built once per process on first use
 * under pthread_once; thread-safe). */
const BuiltinTable *lib_builtin_table(void);
/* Lookup by name (interned or not); NULL if there is no such builtin. */
const BuiltinDef *lib_builtin_find(const char *name);
/* All builtins, sorted by name. */
const BuiltinDef *lib_builtins(size_t *count);

#endif
