/* JSON builtins: json_parse, json_stringify(_pretty) and json_to_string over
 * the built-in JsonValue ADT.
 *
 * The rows at the bottom are this family's part of the builtin table
 * (src/lib/builtins.h); the implementations are written above them. */
#include <geno.h>

#include "families.h"

const BuiltinDef lib_json_builtins[] = {
    {"json_parse", "(text: String) -> Result[JsonValue, String]", 0, NULL, 0, NULL},
    {"json_stringify", "(value: JsonValue) -> String", 0, NULL, 0, NULL},
    {"json_stringify_pretty", "(value: JsonValue, indent: Int) -> String", 0, NULL, 0, NULL},
    {"json_to_string", "(value: T) -> String", 0, NULL, 0, NULL},
};
const size_t lib_json_builtin_count = ARRAY_LEN(lib_json_builtins);
