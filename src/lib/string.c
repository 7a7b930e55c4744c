/* String builtins: the core text operations (split, join, trim, replace ...)
 * and the string_* functions behind the std module String.
 *
 * The rows at the bottom are this family's part of the builtin table
 * (src/lib/builtins.h); the implementations are written above them. */
#include <geno.h>

#include "families.h"

const BuiltinDef lib_string_builtins[] = {
    {"contains_substring", "(text: String, substring: String) -> Bool", 0, NULL, 0, NULL},
    {"ends_with", "(text: String, suffix: String) -> Bool", 0, NULL, 0, NULL},
    {"format", "(template: String, values: List[String]) -> String", 0, NULL, 0, NULL},
    {"is_numeric_string", "(text: String) -> Bool", 0, NULL, 0, NULL},
    {"join", "(parts: List[String], separator: String) -> String", 0, NULL, 0, NULL},
    {"repeat_string", "(text: String, count: Int) -> String", 0, NULL, 0, NULL},
    {"replace", "(text: String, old: String, new: String) -> String", 0, NULL, 0, NULL},
    {"sort_strings", "(items: List[String]) -> List[String]", 0, NULL, 0, NULL},
    {"split", "(text: String, delimiter: String) -> List[String]", 0, NULL, 0, NULL},
    {"split_once", "(text: String, delimiter: String) -> Option[(String, String)]", 0, NULL, 0, NULL},
    {"starts_with", "(text: String, prefix: String) -> Bool", 0, NULL, 0, NULL},
    {"string_char_at", "(text: String, index: Int) -> String", 0, NULL, 0, NULL},
    {"string_contains", "(text: String, substring: String) -> Bool", 0, NULL, 0, NULL},
    {"string_ends_with", "(text: String, suffix: String) -> Bool", 0, NULL, 0, NULL},
    {"string_index_of", "(text: String, substring: String) -> Int", 0, NULL, 0, NULL},
    {"string_join", "(parts: List[String], separator: String) -> String", 0, NULL, 0, NULL},
    {"string_last_index_of", "(text: String, substring: String) -> Int", 0, NULL, 0, NULL},
    {"string_pad_left", "(text: String, width: Int, fill_char: String) -> String", 0, NULL, 0, NULL},
    {"string_pad_right", "(text: String, width: Int, fill_char: String) -> String", 0, NULL, 0, NULL},
    {"string_repeat", "(text: String, count: Int) -> String", 0, NULL, 0, NULL},
    {"string_replace", "(text: String, old: String, new: String) -> String", 0, NULL, 0, NULL},
    {"string_split", "(text: String, delimiter: String) -> List[String]", 0, NULL, 0, NULL},
    {"string_split_once", "(text: String, delimiter: String) -> Option[(String, String)]", 0, NULL, 0, NULL},
    {"string_starts_with", "(text: String, prefix: String) -> Bool", 0, NULL, 0, NULL},
    {"string_substring", "(text: String, start: Int, stop: Int) -> String", 0, NULL, 0, NULL},
    {"string_to_lower", "(text: String) -> String", 0, NULL, 0, NULL},
    {"string_to_upper", "(text: String) -> String", 0, NULL, 0, NULL},
    {"string_trim", "(text: String) -> String", 0, NULL, 0, NULL},
    {"string_trim_end", "(text: String) -> String", 0, NULL, 0, NULL},
    {"string_trim_start", "(text: String) -> String", 0, NULL, 0, NULL},
    {"substring", "(text: String, start: Int, stop: Int) -> String", 0, NULL, 0, NULL},
    {"to_chars", "(text: String) -> List[String]", 0, NULL, 0, NULL},
    {"to_lower", "(text: String) -> String", 0, NULL, 0, NULL},
    {"to_upper", "(text: String) -> String", 0, NULL, 0, NULL},
    {"trim", "(text: String) -> String", 0, NULL, 0, NULL},
};
const size_t lib_string_builtin_count = ARRAY_LEN(lib_string_builtins);
