/* Standard-input builtin (capability stdin): stdin_read_all, a host callback.
 *
 * The rows at the bottom are this family's part of the builtin table
 * (src/lib/builtins.h); the implementations are written above them. */
#include <geno.h>

#include "families.h"

const BuiltinDef lib_stdin_builtins[] = {
    {"stdin_read_all", "() -> Result[String, String]", GENO_CAP_STDIN, "stdin", BF_CALLBACK, NULL, NULL},
};
const size_t lib_stdin_builtin_count = ARRAY_LEN(lib_stdin_builtins);
