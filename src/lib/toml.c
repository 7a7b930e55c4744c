/* TOML builtin: toml_parse into the built-in JsonValue ADT.
 *
 * The rows at the bottom are this family's part of the builtin table
 * (src/lib/builtins.h); the implementations are written above them. */
#include <geno.h>

#include "families.h"

const BuiltinDef lib_toml_builtins[] = {
    {"toml_parse", "(text: String) -> Result[JsonValue, String]", 0, NULL, 0, NULL},
};
const size_t lib_toml_builtin_count = ARRAY_LEN(lib_toml_builtins);
