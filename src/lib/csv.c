/* CSV builtins: csv_parse and csv_parse_with_headers (excel dialect).
 *
 * The rows at the bottom are this family's part of the builtin table
 * (src/lib/builtins.h); the implementations are written above them. */
#include <geno.h>

#include "families.h"

const BuiltinDef lib_csv_builtins[] = {
    {"csv_parse", "(text: String) -> List[List[String]]", 0, NULL, 0, NULL},
    {"csv_parse_with_headers", "(text: String) -> List[Map[String, String]]", 0, NULL, 0, NULL},
};
const size_t lib_csv_builtin_count = ARRAY_LEN(lib_csv_builtins);
