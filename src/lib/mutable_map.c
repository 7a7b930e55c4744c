/* MutableMap builtins: the insertion-ordered mutable map with reference
 * semantics.
 *
 * The rows at the bottom are this family's part of the builtin table
 * (src/lib/builtins.h); the implementations are written above them. */
#include <geno.h>

#include "families.h"

const BuiltinDef lib_mutable_map_builtins[] = {
    {"mutable_map_contains", "(map: MutableMap[K, V], key: K) -> Bool", 0, NULL, 0, NULL},
    {"mutable_map_delete", "(map: MutableMap[K, V], key: K) -> Unit", 0, NULL, BF_MUTATES, NULL},
    {"mutable_map_get", "(map: MutableMap[K, V], key: K) -> Option[V]", 0, NULL, 0, NULL},
    {"mutable_map_keys", "(map: MutableMap[K, V]) -> List[K]", 0, NULL, 0, NULL},
    {"mutable_map_new", "() -> MutableMap[K, V]", 0, NULL, 0, NULL},
    {"mutable_map_set", "(map: MutableMap[K, V], key: K, value: V) -> Unit", 0, NULL, BF_MUTATES, NULL},
    {"mutable_map_size", "(map: MutableMap[K, V]) -> Int", 0, NULL, 0, NULL},
};
const size_t lib_mutable_map_builtin_count = ARRAY_LEN(lib_mutable_map_builtins);
