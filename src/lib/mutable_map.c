/* MutableMap builtins: the insertion-ordered mutable map with reference
 * semantics.
 *
 * The rows at the bottom are this family's part of the builtin table
 * (src/lib/builtins.h); the implementations are written above them. */
#include <geno.h>

#include "../vm/vmapi.h"
#include "collections.h"
#include "families.h"

/* mutable_map_new() -> MutableMap[K, V]: empty. */
static bool lib_mutable_map_new(VM *vm, Value *args, int nargs, Value *out) {
  return vm_table(vm, T_MMAP, 0, out);
}

/* mutable_map_set(map, key, value) -> Unit: in place; an updated key
 * keeps its position, a new one goes last and is size-checked. */
static bool lib_mutable_map_set(VM *vm, Value *args, int nargs, Value *out) {
  return vm_table_set(vm, args[0], args[1], args[2]);
}

/* mutable_map_get(map, key) -> Option[V] */
static bool lib_mutable_map_get(VM *vm, Value *args, int nargs, Value *out) {
  Value v;
  int found = vm_table_get(vm, args[0], args[1], &v);
  if (found <= 0) {
    *out = vm_none(vm);
    return found == 0;
  }
  return vm_some(vm, v, out);
}

/* mutable_map_contains(map, key) -> Bool */
static bool lib_mutable_map_contains(VM *vm, Value *args, int nargs, Value *out) {
  int found = vm_table_get(vm, args[0], args[1], NULL);
  *out = v_bool(found > 0);
  return found >= 0;
}

/* mutable_map_delete(map, key) -> Unit: a missing key is ignored; a key
 * deleted and set again goes last. */
static bool lib_mutable_map_delete(VM *vm, Value *args, int nargs, Value *out) {
  return vm_table_delete(vm, args[0], args[1]);
}

/* mutable_map_size(map) -> Int */
static bool lib_mutable_map_size(VM *vm, Value *args, int nargs, Value *out) {
  *out = v_int((int64_t)vm_table_len(args[0]));
  return true;
}

/* mutable_map_keys(map) -> List[K]: insertion order. */
static bool lib_mutable_map_keys(VM *vm, Value *args, int nargs, Value *out) {
  size_t n = vm_table_len(args[0]), len, pos = 0, i = 0;
  if (!vm_list(vm, n, out)) return false;
  Value *items = vm_list_items(*out, &len), k;
  while (vm_table_next(args[0], &pos, &k, NULL)) items[i++] = k;
  return lib_charge_light(vm, n);
}

const BuiltinDef lib_mutable_map_builtins[] = {
    {"mutable_map_contains", "(map: MutableMap[K, V], key: K) -> Bool", 0, NULL, 0, lib_mutable_map_contains, "$b_mutable_map_contains"},
    {"mutable_map_delete", "(map: MutableMap[K, V], key: K) -> Unit", 0, NULL, BF_MUTATES, lib_mutable_map_delete, "$b_mutable_map_delete"},
    {"mutable_map_get", "(map: MutableMap[K, V], key: K) -> Option[V]", 0, NULL, 0, lib_mutable_map_get, "$b_mutable_map_get"},
    {"mutable_map_keys", "(map: MutableMap[K, V]) -> List[K]", 0, NULL, 0, lib_mutable_map_keys, "$b_mutable_map_keys"},
    {"mutable_map_new", "() -> MutableMap[K, V]", 0, NULL, 0, lib_mutable_map_new, "$b_mutable_map_new"},
    {"mutable_map_set", "(map: MutableMap[K, V], key: K, value: V) -> Unit", 0, NULL, BF_MUTATES, lib_mutable_map_set, "$b_mutable_map_set"},
    {"mutable_map_size", "(map: MutableMap[K, V]) -> Int", 0, NULL, 0, lib_mutable_map_size, "$b_mutable_map_size"},
};
const size_t lib_mutable_map_builtin_count = ARRAY_LEN(lib_mutable_map_builtins);
