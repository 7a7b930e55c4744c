/* Set builtins: the mutable hash set with reference semantics.
 *
 * The rows at the bottom are this family's part of the builtin table
 * (src/lib/builtins.h); the implementations are written above them. */
#include <geno.h>

#include "../vm/vmapi.h"
#include "collections.h"
#include "families.h"

/* set_new() -> Set[T]: empty. */
static bool lib_set_new(VM *vm, Value *args, int nargs, Value *out) {
  return vm_table(vm, T_SET, 0, out);
}

/* set_from_list(list) -> Set[T]: duplicates (by `==`, so 1 and 1.0) keep
 * their first occurrence. */
static bool lib_set_from_list(VM *vm, Value *args, int nargs, Value *out) {
  size_t n, len;
  vm_list_items(args[0], &n);
  if (!vm_table(vm, T_SET, n, out)) return false;
  for (size_t i = 0; i < n; i++)
    if (!vm_table_set(vm, *out, vm_list_items(args[0], &len)[i], v_unit()) || !LIB_CHARGE(vm, i)) return false;
  return true;
}

/* set_add(set, item) -> Unit: in place; a new item is size-checked. */
static bool lib_set_add(VM *vm, Value *args, int nargs, Value *out) {
  return vm_table_set(vm, args[0], args[1], v_unit());
}

/* set_remove(set, item) -> Unit: a missing item is ignored. */
static bool lib_set_remove(VM *vm, Value *args, int nargs, Value *out) {
  return vm_table_delete(vm, args[0], args[1]);
}

/* set_contains(set, item) -> Bool */
static bool lib_set_contains(VM *vm, Value *args, int nargs, Value *out) {
  int found = vm_table_get(vm, args[0], args[1], NULL);
  *out = v_bool(found > 0);
  return found >= 0;
}

/* set_size(set) -> Int */
static bool lib_set_size(VM *vm, Value *args, int nargs, Value *out) {
  *out = v_int((int64_t)vm_table_len(args[0]));
  return true;
}

/* set_to_list(set) -> List[T]: sorted by the ordering key, as Sets are
 * displayed (their hash order is never visible). */
static bool lib_set_to_list(VM *vm, Value *args, int nargs, Value *out) {
  size_t n = vm_table_len(args[0]), len, pos = 0, i = 0;
  if (!vm_list(vm, n, out)) return false;
  Value *items = vm_list_items(*out, &len), k;
  while (vm_table_next(args[0], &pos, &k, NULL)) items[i++] = k;
  return lib_charge_light(vm, n) && vm_values_sort(vm, items, n);
}

/* set_union(a, b) -> Set[T]: a new set; its size is checked before it is
 * built. An element of both keeps a's version (1 stays 1 next to 1.0). */
static bool lib_set_union(VM *vm, Value *args, int nargs, Value *out) {
  size_t total = vm_table_len(args[0]), pos = 0;
  Value k;
  if (!lib_count_new_keys(vm, args[0], args[1], &total)) return false;
  if (!vm_check_size(vm, "Set", total) || !vm_table_copy(vm, args[0], T_SET, out)) return false;
  pos = 0;
  while (vm_table_next(args[1], &pos, &k, NULL))
    if (!vm_table_set(vm, *out, k, v_unit())) return false;
  return vm_charge(vm, total);
}

/* set_intersection(a, b) -> Set[T]: a new set. Like CPython, it walks the
 * smaller set (b on a tie) and keeps the walked set's version of each
 * element, which shows when 1 meets 1.0. */
static bool lib_set_intersection(VM *vm, Value *args, int nargs, Value *out) {
  bool walk_a = vm_table_len(args[1]) > vm_table_len(args[0]);
  Value walked = walk_a ? args[0] : args[1], other = walk_a ? args[1] : args[0], k;
  if (!vm_table(vm, T_SET, 0, out)) return false;
  size_t pos = 0, i = 0;
  while (vm_table_next(walked, &pos, &k, NULL)) {
    int found = vm_table_get(vm, other, k, NULL);
    if (found < 0 || (found > 0 && !vm_table_set(vm, *out, k, v_unit()))) return false;
    if (!LIB_CHARGE(vm, i++)) return false;
  }
  return true;
}

const BuiltinDef lib_set_builtins[] = {
    {"set_add", "(set: Set[T], item: T) -> Unit", 0, NULL, BF_MUTATES, lib_set_add, "$b_set_add"},
    {"set_contains", "(set: Set[T], item: T) -> Bool", 0, NULL, 0, lib_set_contains, "$b_set_contains"},
    {"set_from_list", "(list: List[T]) -> Set[T]", 0, NULL, 0, lib_set_from_list, "$b_set_from_list"},
    {"set_intersection", "(a: Set[T], b: Set[T]) -> Set[T]", 0, NULL, 0, lib_set_intersection, "$b_set_intersection"},
    {"set_new", "() -> Set[T]", 0, NULL, 0, lib_set_new, "$b_set_new"},
    {"set_remove", "(set: Set[T], item: T) -> Unit", 0, NULL, BF_MUTATES, lib_set_remove, "$b_set_remove"},
    {"set_size", "(set: Set[T]) -> Int", 0, NULL, 0, lib_set_size, "$b_set_size"},
    {"set_to_list", "(set: Set[T]) -> List[T]", 0, NULL, 0, lib_set_to_list, "$b_set_to_list"},
    {"set_union", "(a: Set[T], b: Set[T]) -> Set[T]", 0, NULL, 0, lib_set_union, "$b_set_union"},
};
const size_t lib_set_builtin_count = ARRAY_LEN(lib_set_builtins);
