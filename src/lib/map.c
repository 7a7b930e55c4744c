/* Map builtins: the immutable, insertion-ordered Map (map_insert, map_get,
 * map_from_list ...), also behind the std module Map.
 *
 * The rows at the bottom are this family's part of the builtin table
 * (src/lib/builtins.h); the implementations are written above them. */
#include <geno.h>

#include "../vm/vmapi.h"
#include "collections.h"
#include "families.h"

/* map_get(map, key) -> Option[V] */
static bool lib_map_get(VM *vm, Value *args, int nargs, Value *out) {
  Value v;
  int found = vm_table_get(vm, args[0], args[1], &v);
  if (found <= 0) {
    *out = vm_none(vm);
    return found == 0;
  }
  return vm_some(vm, v, out);
}

/* map_insert(map, key, value) -> Map[K, V]: a new map. An existing key
 * keeps its position (and its original form: 1 stays 1 when 1.0 is
 * inserted); a new key goes last and is size-checked before the copy. */
static bool lib_map_insert(VM *vm, Value *args, int nargs, Value *out) {
  int found = vm_table_get(vm, args[0], args[1], NULL);
  if (found < 0 || (found == 0 && !vm_check_size(vm, "Map", vm_table_len(args[0]) + 1))) return false;
  return vm_table_copy(vm, args[0], T_MAP, out) && lib_charge_light(vm, vm_table_len(*out)) &&
         vm_table_set(vm, *out, args[1], args[2]);
}

/* map_from_list(pairs) / map_from_entries(entries) -> Map[K, V]: a later
 * duplicate key replaces the value at the first one's position. */
static bool lib_map_from_list(VM *vm, Value *args, int nargs, Value *out) {
  size_t n, len;
  vm_list_items(args[0], &n);
  if (!vm_table(vm, T_MAP, n, out)) return false;
  for (size_t i = 0; i < n; i++) {
    Value pair = vm_list_items(args[0], &len)[i];
    Value *kv = vm_tuple_items(pair, &len);
    if (!vm_table_set(vm, *out, kv[0], kv[1]) || !LIB_CHARGE(vm, i)) return false;
  }
  return true;
}

/* map_entries(map) -> List[(K, V)]: insertion order. */
static bool lib_map_entries(VM *vm, Value *args, int nargs, Value *out) {
  size_t n = vm_table_len(args[0]), pos = 0, i = 0, len;
  if (!vm_list(vm, n, out)) return false;
  Value k, v;
  while (vm_table_next(args[0], &pos, &k, &v)) {
    Value t;
    if (!vm_tuple(vm, 2, &t)) return false;
    Value *pair = vm_tuple_items(t, &len);
    pair[0] = k; /* k and v stay reachable through the rooted map */
    pair[1] = v;
    vm_list_items(*out, &len)[i] = t;
    if (!LIB_CHARGE(vm, i++)) return false;
  }
  return true;
}

/* map_merge(map1, map2) -> Map[K, V]: map1's keys in its order, then
 * map2's new keys in theirs; map2's values win. The merged size is checked
 * before the copy. */
static bool lib_map_merge(VM *vm, Value *args, int nargs, Value *out) {
  size_t total = vm_table_len(args[0]), pos = 0;
  Value k, v;
  if (!lib_count_new_keys(vm, args[0], args[1], &total)) return false;
  if (!vm_check_size(vm, "Map", total) || !vm_table_copy(vm, args[0], T_MAP, out)) return false;
  pos = 0;
  while (vm_table_next(args[1], &pos, &k, &v))
    if (!vm_table_set(vm, *out, k, v)) return false;
  return vm_charge(vm, total);
}

/* map_filter_map(map, predicate) -> Map[K, V]: predicate(k, v) once per
 * entry in insertion order; the kept entries keep their order. */
static bool lib_map_filter_map(VM *vm, Value *args, int nargs, Value *out) {
  if (!vm_table(vm, T_MAP, 0, out)) return false;
  size_t pos = 0, i = 0;
  Value kv[2], keep;
  while (vm_table_next(args[0], &pos, &kv[0], &kv[1])) {
    if (!vm_call(vm, args[1], kv, 2, &keep)) return false;
    if (keep.tag == T_BOOL && keep.as.b && !vm_table_set(vm, *out, kv[0], kv[1])) return false;
    if (!LIB_CHARGE(vm, i++)) return false;
  }
  return true;
}

/* map_map_values(map, transform) -> Map[K, U]: same keys and order. */
static bool lib_map_map_values(VM *vm, Value *args, int nargs, Value *out) {
  if (!vm_table(vm, T_MAP, vm_table_len(args[0]), out)) return false;
  size_t pos = 0, i = 0;
  Value k, v, r = v_unit();
  vm_push_root(vm, &r);
  bool ok = true;
  while (ok && vm_table_next(args[0], &pos, &k, &v)) {
    ok = vm_call(vm, args[1], &v, 1, &r) && vm_table_set(vm, *out, k, r) && LIB_CHARGE(vm, i++);
  }
  vm_pop_roots(vm, 1);
  return ok;
}

const BuiltinDef lib_map_builtins[] = {
    {"map_entries", "(map: Map[K, V]) -> List[(K, V)]", 0, NULL, 0, lib_map_entries, "$b_map_entries"},
    {"map_filter_map", "(map: Map[K, V], predicate: (K, V) -> Bool) -> Map[K, V]", 0, NULL, BF_HIGHER_ORDER, lib_map_filter_map, "$b_map_filter_map"},
    {"map_from_entries", "(entries: List[(K, V)]) -> Map[K, V]", 0, NULL, 0, lib_map_from_list, "$b_map_from_entries"},
    {"map_from_list", "(pairs: List[(K, V)]) -> Map[K, V]", 0, NULL, 0, lib_map_from_list, "$b_map_from_list"},
    {"map_get", "(map: Map[K, V], key: K) -> Option[V]", 0, NULL, 0, lib_map_get, "$b_map_get"},
    {"map_insert", "(map: Map[K, V], key: K, value: V) -> Map[K, V]", 0, NULL, 0, lib_map_insert, "$b_map_insert"},
    {"map_map_values", "(map: Map[K, V], transform: (V) -> U) -> Map[K, U]", 0, NULL, BF_HIGHER_ORDER, lib_map_map_values, "$b_map_map_values"},
    {"map_merge", "(map1: Map[K, V], map2: Map[K, V]) -> Map[K, V]", 0, NULL, 0, lib_map_merge, "$b_map_merge"},
};
const size_t lib_map_builtin_count = ARRAY_LEN(lib_map_builtins);
