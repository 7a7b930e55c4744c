/* Path builtins: pure POSIX path-string operations (no filesystem access),
 * also behind the std module Path.
 *
 * The rows at the bottom are this family's part of the builtin table
 * (src/lib/builtins.h); the implementations are written above them. */
#include <geno.h>

#include "families.h"

const BuiltinDef lib_path_builtins[] = {
    {"path_extension", "(path: String) -> String", 0, NULL, 0, NULL},
    {"path_filename", "(path: String) -> String", 0, NULL, 0, NULL},
    {"path_is_absolute", "(path: String) -> Bool", 0, NULL, 0, NULL},
    {"path_join", "(base: String, child: String) -> String", 0, NULL, 0, NULL},
    {"path_parent", "(path: String) -> String", 0, NULL, 0, NULL},
};
const size_t lib_path_builtin_count = ARRAY_LEN(lib_path_builtins);
