/* Regex builtins (capability regex): regex_match, regex_find_all,
 * regex_replace over the restricted, backtracking-safe pattern subset.
 *
 * The rows at the bottom are this family's part of the builtin table
 * (src/lib/builtins.h); the implementations are written above them. */
#include <geno.h>

#include "families.h"

const BuiltinDef lib_regex_builtins[] = {
    {"regex_find_all", "(pattern: String, text: String) -> List[String]", GENO_CAP_REGEX, "regex", 0, NULL},
    {"regex_match", "(pattern: String, text: String) -> Option[String]", GENO_CAP_REGEX, "regex", 0, NULL},
    {"regex_replace", "(pattern: String, replacement: String, text: String) -> String", GENO_CAP_REGEX, "regex", 0, NULL},
};
const size_t lib_regex_builtin_count = ARRAY_LEN(lib_regex_builtins);
