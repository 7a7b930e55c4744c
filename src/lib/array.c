/* Array builtins: the mutable, fixed-size Array with reference semantics.
 *
 * The rows at the bottom are this family's part of the builtin table
 * (src/lib/builtins.h); the implementations are written above them. */
#include <geno.h>

#include <string.h>

#include "../vm/vmapi.h"
#include "collections.h"
#include "families.h"

/* array_new(size, default) -> Array[T]: every slot holds default. A
 * negative size is an ordinary error; one past the limit ends the run
 * (E504), checked before anything is allocated. */
static bool lib_array_new(VM *vm, Value *args, int nargs, Value *out) {
  (void)nargs;
  int64_t size;
  if (!vm_int_get(args[0], &size)) {
    /* A big Int: its text goes into either message. */
    Buf b = BUF_INIT;
    bool text = vm_int_text(vm, args[0], &b);
    if (text && lib_int_sat(args[0]) < 0)
      vm_error(vm, E_RUNTIME, "array_new size must be non-negative, got %s", b.data);
    else if (text)
      vm_limit_error(vm, E_RESOURCE, "Array size exceeds limit (%s > %zu)", b.data, vm_max_size(vm));
    buf_free(&b);
    return false;
  }
  if (size < 0) return vm_error(vm, E_RUNTIME, "array_new size must be non-negative, got %lld", (long long)size);
  if (!vm_check_size(vm, "Array", (size_t)size) || !vm_array(vm, T_ARRAY, (size_t)size, out)) return false;
  size_t n;
  Value *items = vm_array_items(*out, &n);
  for (size_t i = 0; i < n; i++) items[i] = args[1];
  return lib_charge_light(vm, n);
}

/* A new Array or Vec (kind) holding the elements of a List, Array or Vec. */
static bool copy_to_array(VM *vm, ValueTag kind, Value from, Value *out) {
  size_t n, len;
  Value *src = from.tag == T_LIST ? vm_list_items(from, &n) : vm_array_items(from, &n);
  if (!vm_array(vm, kind, n, out)) return false;
  src = from.tag == T_LIST ? vm_list_items(from, &n) : vm_array_items(from, &n);
  if (n) memcpy(vm_array_items(*out, &len), src, n * sizeof(Value));
  return lib_charge_light(vm, n);
}

/* array_from_list(list) -> Array[T]: a copy. */
static bool lib_array_from_list(VM *vm, Value *args, int nargs, Value *out) {
  (void)nargs;
  return copy_to_array(vm, T_ARRAY, args[0], out);
}

/* array_copy(array) -> Array[T]: shallow and independent of the original. */
static bool lib_array_copy(VM *vm, Value *args, int nargs, Value *out) {
  (void)nargs;
  return copy_to_array(vm, T_ARRAY, args[0], out);
}

/* array_get(array, index) -> T: bounds errors are E499 "array_get index
 * I out of bounds (length N)", unlike a[i]'s E401. */
static bool lib_array_get(VM *vm, Value *args, int nargs, Value *out) {
  (void)nargs;
  Value *slot = lib_array_slot(vm, "array_get", args[0], args[1]);
  if (!slot) return false;
  *out = *slot;
  return true;
}

/* array_set(array, index, value) -> Unit: in place; every alias sees it. */
static bool lib_array_set(VM *vm, Value *args, int nargs, Value *out) {
  (void)nargs;
  (void)out;
  Value *slot = lib_array_slot(vm, "array_set", args[0], args[1]);
  if (!slot) return false;
  *slot = args[2];
  return true;
}

/* array_length(array) -> Int */
static bool lib_array_length(VM *vm, Value *args, int nargs, Value *out) {
  (void)vm;
  (void)nargs;
  size_t n;
  vm_array_items(args[0], &n);
  *out = v_int((int64_t)n);
  return true;
}

/* array_to_list(array) -> List[T]: a snapshot. */
static bool lib_array_to_list(VM *vm, Value *args, int nargs, Value *out) {
  (void)nargs;
  size_t n;
  vm_array_items(args[0], &n);
  return lib_list_from(vm, args[0], 0, n, out);
}

/* array_fill(array, value) -> Unit: every slot, in place. */
static bool lib_array_fill(VM *vm, Value *args, int nargs, Value *out) {
  (void)nargs;
  (void)out;
  size_t n;
  Value *items = vm_array_items(args[0], &n);
  for (size_t i = 0; i < n; i++) items[i] = args[1];
  return lib_charge_light(vm, n);
}

const BuiltinDef lib_array_builtins[] = {
    {"array_copy", "(array: Array[T]) -> Array[T]", 0, NULL, 0, lib_array_copy, "$b_array_copy"},
    {"array_fill", "(array: Array[T], value: T) -> Unit", 0, NULL, BF_MUTATES, lib_array_fill, "$b_array_fill"},
    {"array_from_list", "(list: List[T]) -> Array[T]", 0, NULL, 0, lib_array_from_list, "$b_array_from_list"},
    {"array_get", "(array: Array[T], index: Int) -> T", 0, NULL, 0, lib_array_get, "$b_array_get"},
    {"array_length", "(array: Array[T]) -> Int", 0, NULL, 0, lib_array_length, "$b_array_length"},
    {"array_new", "(size: Int, default: T) -> Array[T]", 0, NULL, 0, lib_array_new, "$b_array_new"},
    {"array_set", "(array: Array[T], index: Int, value: T) -> Unit", 0, NULL, BF_MUTATES, lib_array_set, "$b_array_set"},
    {"array_to_list", "(array: Array[T]) -> List[T]", 0, NULL, 0, lib_array_to_list, "$b_array_to_list"},
};
const size_t lib_array_builtin_count = ARRAY_LEN(lib_array_builtins);
