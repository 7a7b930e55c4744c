/* Conversion builtins: to_string, parse_int, parse_float, float/int
 * conversion and character codes.
 *
 * The rows at the bottom are this family's part of the builtin table
 * (src/lib/builtins.h); the implementations are written above them. */
#include <geno.h>

#include "families.h"

const BuiltinDef lib_convert_builtins[] = {
    {"char_code", "(text: String) -> Int", 0, NULL, 0, NULL},
    {"float_to_int", "(value: Float) -> Int", 0, NULL, 0, NULL},
    {"from_char_code", "(code: Int) -> String", 0, NULL, 0, NULL},
    {"int_to_float", "(value: Int) -> Float", 0, NULL, 0, NULL},
    {"parse_float", "(text: String) -> Option[Float]", 0, NULL, 0, NULL},
    {"parse_int", "(text: String) -> Option[Int]", 0, NULL, 0, NULL},
    {"to_string", "(value: T) -> String", 0, NULL, 0, NULL},
};
const size_t lib_convert_builtin_count = ARRAY_LEN(lib_convert_builtins);
