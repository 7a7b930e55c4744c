/* Output builtin (capability print): print, the only way a program writes
 * text.
 *
 * The rows at the bottom are this family's part of the builtin table
 * (src/lib/builtins.h); the implementations are written above them. */
#include <geno.h>

#include "families.h"

const BuiltinDef lib_io_builtins[] = {
    {"print", "(value: T) -> Unit", GENO_CAP_PRINT, "io", 0, NULL},
};
const size_t lib_io_builtin_count = ARRAY_LEN(lib_io_builtins);
