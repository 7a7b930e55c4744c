/* Array builtins: the mutable, fixed-size Array with reference semantics.
 *
 * The rows at the bottom are this family's part of the builtin table
 * (src/lib/builtins.h); the implementations are written above them. */
#include <geno.h>

#include "families.h"

const BuiltinDef lib_array_builtins[] = {
    {"array_copy", "(array: Array[T]) -> Array[T]", 0, NULL, 0, NULL},
    {"array_fill", "(array: Array[T], value: T) -> Unit", 0, NULL, BF_MUTATES, NULL},
    {"array_from_list", "(list: List[T]) -> Array[T]", 0, NULL, 0, NULL},
    {"array_get", "(array: Array[T], index: Int) -> T", 0, NULL, 0, NULL},
    {"array_length", "(array: Array[T]) -> Int", 0, NULL, 0, NULL},
    {"array_new", "(size: Int, default: T) -> Array[T]", 0, NULL, 0, NULL},
    {"array_set", "(array: Array[T], index: Int, value: T) -> Unit", 0, NULL, BF_MUTATES, NULL},
    {"array_to_list", "(array: Array[T]) -> List[T]", 0, NULL, 0, NULL},
};
const size_t lib_array_builtin_count = ARRAY_LEN(lib_array_builtins);
