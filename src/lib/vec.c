/* Vec builtins: the growable vector with reference semantics.
 *
 * The rows at the bottom are this family's part of the builtin table
 * (src/lib/builtins.h); the implementations are written above them. */
#include <geno.h>

#include "families.h"

const BuiltinDef lib_vec_builtins[] = {
    {"vec_from_list", "(list: List[T]) -> Vec[T]", 0, NULL, 0, NULL},
    {"vec_get", "(vec: Vec[T], index: Int) -> T", 0, NULL, 0, NULL},
    {"vec_length", "(vec: Vec[T]) -> Int", 0, NULL, 0, NULL},
    {"vec_new", "() -> Vec[T]", 0, NULL, 0, NULL},
    {"vec_pop", "(vec: Vec[T]) -> Option[T]", 0, NULL, BF_MUTATES, NULL},
    {"vec_push", "(vec: Vec[T], item: T) -> Unit", 0, NULL, BF_MUTATES, NULL},
    {"vec_set", "(vec: Vec[T], index: Int, value: T) -> Unit", 0, NULL, BF_MUTATES, NULL},
    {"vec_to_list", "(vec: Vec[T]) -> List[T]", 0, NULL, 0, NULL},
};
const size_t lib_vec_builtin_count = ARRAY_LEN(lib_vec_builtins);
