/* Set builtins: the mutable hash set with reference semantics.
 *
 * The rows at the bottom are this family's part of the builtin table
 * (src/lib/builtins.h); the implementations are written above them. */
#include <geno.h>

#include "families.h"

const BuiltinDef lib_set_builtins[] = {
    {"set_add", "(set: Set[T], item: T) -> Unit", 0, NULL, BF_MUTATES, NULL},
    {"set_contains", "(set: Set[T], item: T) -> Bool", 0, NULL, 0, NULL},
    {"set_from_list", "(list: List[T]) -> Set[T]", 0, NULL, 0, NULL},
    {"set_intersection", "(a: Set[T], b: Set[T]) -> Set[T]", 0, NULL, 0, NULL},
    {"set_new", "() -> Set[T]", 0, NULL, 0, NULL},
    {"set_remove", "(set: Set[T], item: T) -> Unit", 0, NULL, BF_MUTATES, NULL},
    {"set_size", "(set: Set[T]) -> Int", 0, NULL, 0, NULL},
    {"set_to_list", "(set: Set[T]) -> List[T]", 0, NULL, 0, NULL},
    {"set_union", "(a: Set[T], b: Set[T]) -> Set[T]", 0, NULL, 0, NULL},
};
const size_t lib_set_builtin_count = ARRAY_LEN(lib_set_builtins);
