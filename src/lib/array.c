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

/* ---- the Array/Vec twins ----------------------------------------------------
 * One implementation per pair, shared by the rows of both families (vec.c
 * names these in its rows): each reads its own row (vm_builtin_self) for
 * the name its messages give and, through BF_VEC, the kind it builds. */

/* array_from_list(list) -> Array[T], array_copy(array) -> Array[T],
 * vec_from_list(list) -> Vec[T]: a new Array or Vec holding the elements
 * of a List, Array or Vec (shallow, independent of the original). */
bool lib_seq_copy(VM *vm, Value *args, int nargs, Value *out) {
  (void)nargs;
  ValueTag kind = vm_builtin_self(vm)->flags & BF_VEC ? T_VEC : T_ARRAY;
  size_t n, len;
  Value from = args[0];
  Value *src = from.tag == T_LIST ? vm_list_items(from, &n) : vm_array_items(from, &n);
  if (!vm_array(vm, kind, n, out)) return false;
  src = from.tag == T_LIST ? vm_list_items(from, &n) : vm_array_items(from, &n);
  if (n) memcpy(vm_array_items(*out, &len), src, n * sizeof(Value));
  return lib_charge_light(vm, n);
}

/* array_get(array, index) -> T, vec_get(vec, index) -> T: bounds errors
 * are E499 "array_get index I out of bounds (length N)" (the row's own
 * name), unlike a[i]'s E401. */
bool lib_seq_get(VM *vm, Value *args, int nargs, Value *out) {
  (void)nargs;
  Value *slot = lib_array_slot(vm, vm_builtin_self(vm)->name, args[0], args[1]);
  if (!slot) return false;
  *out = *slot;
  return true;
}

/* array_set(array, index, value) -> Unit, vec_set: in place; every alias
 * sees it. */
bool lib_seq_set(VM *vm, Value *args, int nargs, Value *out) {
  (void)nargs;
  (void)out;
  Value *slot = lib_array_slot(vm, vm_builtin_self(vm)->name, args[0], args[1]);
  if (!slot) return false;
  *slot = args[2];
  return true;
}

/* array_length(array) -> Int, vec_length(vec) -> Int */
bool lib_seq_length(VM *vm, Value *args, int nargs, Value *out) {
  (void)vm;
  (void)nargs;
  size_t n;
  vm_array_items(args[0], &n);
  *out = v_int((int64_t)n);
  return true;
}

/* array_to_list(array) -> List[T], vec_to_list(vec) -> List[T]: a
 * snapshot. */
bool lib_seq_to_list(VM *vm, Value *args, int nargs, Value *out) {
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
    {"array_copy", "(array: Array[T]) -> Array[T]", 0, NULL, 0, lib_seq_copy, "$b_array_copy"},
    {"array_fill", "(array: Array[T], value: T) -> Unit", 0, NULL, BF_MUTATES, lib_array_fill, "$b_array_fill"},
    {"array_from_list", "(list: List[T]) -> Array[T]", 0, NULL, 0, lib_seq_copy, "$b_array_from_list"},
    {"array_get", "(array: Array[T], index: Int) -> T", 0, NULL, 0, lib_seq_get, "$b_array_get"},
    {"array_length", "(array: Array[T]) -> Int", 0, NULL, 0, lib_seq_length, "$b_array_length"},
    {"array_new", "(size: Int, default: T) -> Array[T]", 0, NULL, 0, lib_array_new, "$b_array_new"},
    {"array_set", "(array: Array[T], index: Int, value: T) -> Unit", 0, NULL, BF_MUTATES, lib_seq_set, "$b_array_set"},
    {"array_to_list", "(array: Array[T]) -> List[T]", 0, NULL, 0, lib_seq_to_list, "$b_array_to_list"},
};
const size_t lib_array_builtin_count = ARRAY_LEN(lib_array_builtins);
