/* Map builtins: the immutable, insertion-ordered Map (map_insert, map_get,
 * map_from_list ...), also behind the std module Map.
 *
 * The rows at the bottom are this family's part of the builtin table
 * (src/lib/builtins.h); the implementations are written above them. */
#include <geno.h>

#include "families.h"

const BuiltinDef lib_map_builtins[] = {
    {"map_entries", "(map: Map[K, V]) -> List[(K, V)]", 0, NULL, 0, NULL},
    {"map_filter_map", "(map: Map[K, V], predicate: (K, V) -> Bool) -> Map[K, V]", 0, NULL, BF_HIGHER_ORDER, NULL},
    {"map_from_entries", "(entries: List[(K, V)]) -> Map[K, V]", 0, NULL, 0, NULL},
    {"map_from_list", "(pairs: List[(K, V)]) -> Map[K, V]", 0, NULL, 0, NULL},
    {"map_get", "(map: Map[K, V], key: K) -> Option[V]", 0, NULL, 0, NULL},
    {"map_insert", "(map: Map[K, V], key: K, value: V) -> Map[K, V]", 0, NULL, 0, NULL},
    {"map_map_values", "(map: Map[K, V], transform: (V) -> U) -> Map[K, U]", 0, NULL, BF_HIGHER_ORDER, NULL},
    {"map_merge", "(map1: Map[K, V], map2: Map[K, V]) -> Map[K, V]", 0, NULL, 0, NULL},
};
const size_t lib_map_builtin_count = ARRAY_LEN(lib_map_builtins);
