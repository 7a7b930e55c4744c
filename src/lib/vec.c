/* Vec builtins: the growable vector with reference semantics.
 *
 * The rows at the bottom are this family's part of the builtin table
 * (src/lib/builtins.h); the implementations are written above them. */
#include <geno.h>

#include <string.h>

#include "../vm/vmapi.h"
#include "collections.h"
#include "families.h"

/* vec_new() -> Vec[T]: empty. */
static bool lib_vec_new(VM *vm, Value *args, int nargs, Value *out) {
  (void)args;
  (void)nargs;
  return vm_array(vm, T_VEC, 0, out);
}

/* vec_from_list(list) -> Vec[T]: a copy. */
static bool lib_vec_from_list(VM *vm, Value *args, int nargs, Value *out) {
  (void)nargs;
  size_t n, len;
  vm_list_items(args[0], &n);
  if (!vm_array(vm, T_VEC, n, out)) return false;
  if (n) memcpy(vm_array_items(*out, &len), vm_list_items(args[0], &len), n * sizeof(Value));
  return lib_charge_light(vm, n);
}

/* vec_push(vec, item) -> Unit: appends in place; one past the size limit
 * ends the run (E504 "Vec size exceeds limit"). */
static bool lib_vec_push(VM *vm, Value *args, int nargs, Value *out) {
  (void)nargs;
  (void)out;
  return vm_array_push(vm, args[0], args[1]);
}

/* vec_pop(vec) -> Option[T]: removes the last element; None when empty. */
static bool lib_vec_pop(VM *vm, Value *args, int nargs, Value *out) {
  (void)nargs;
  Value x;
  if (!vm_array_pop(args[0], &x)) {
    *out = vm_none(vm);
    return true;
  }
  return vm_some(vm, x, out);
}

/* vec_get(vec, index) -> T */
static bool lib_vec_get(VM *vm, Value *args, int nargs, Value *out) {
  (void)nargs;
  Value *slot = lib_array_slot(vm, "vec_get", args[0], args[1]);
  if (!slot) return false;
  *out = *slot;
  return true;
}

/* vec_set(vec, index, value) -> Unit: in place. */
static bool lib_vec_set(VM *vm, Value *args, int nargs, Value *out) {
  (void)nargs;
  (void)out;
  Value *slot = lib_array_slot(vm, "vec_set", args[0], args[1]);
  if (!slot) return false;
  *slot = args[2];
  return true;
}

/* vec_length(vec) -> Int */
static bool lib_vec_length(VM *vm, Value *args, int nargs, Value *out) {
  (void)vm;
  (void)nargs;
  size_t n;
  vm_array_items(args[0], &n);
  *out = v_int((int64_t)n);
  return true;
}

/* vec_to_list(vec) -> List[T]: a snapshot. */
static bool lib_vec_to_list(VM *vm, Value *args, int nargs, Value *out) {
  (void)nargs;
  size_t n;
  vm_array_items(args[0], &n);
  return lib_list_from(vm, args[0], 0, n, out);
}

const BuiltinDef lib_vec_builtins[] = {
    {"vec_from_list", "(list: List[T]) -> Vec[T]", 0, NULL, 0, lib_vec_from_list, "$b_vec_from_list"},
    {"vec_get", "(vec: Vec[T], index: Int) -> T", 0, NULL, 0, lib_vec_get, "$b_vec_get"},
    {"vec_length", "(vec: Vec[T]) -> Int", 0, NULL, 0, lib_vec_length, "$b_vec_length"},
    {"vec_new", "() -> Vec[T]", 0, NULL, 0, lib_vec_new, "$b_vec_new"},
    {"vec_pop", "(vec: Vec[T]) -> Option[T]", 0, NULL, BF_MUTATES, lib_vec_pop, "$b_vec_pop"},
    {"vec_push", "(vec: Vec[T], item: T) -> Unit", 0, NULL, BF_MUTATES, lib_vec_push, "$b_vec_push"},
    {"vec_set", "(vec: Vec[T], index: Int, value: T) -> Unit", 0, NULL, BF_MUTATES, lib_vec_set, "$b_vec_set"},
    {"vec_to_list", "(vec: Vec[T]) -> List[T]", 0, NULL, 0, lib_vec_to_list, "$b_vec_to_list"},
};
const size_t lib_vec_builtin_count = ARRAY_LEN(lib_vec_builtins);
