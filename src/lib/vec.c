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

/* vec_from_list, vec_get, vec_set, vec_length and vec_to_list are the
 * Array twins' implementations (lib_seq_*, array.c), on rows marked
 * BF_VEC. */

const BuiltinDef lib_vec_builtins[] = {
    {"vec_from_list", "(list: List[T]) -> Vec[T]", 0, NULL, BF_VEC, lib_seq_copy, "$b_vec_from_list"},
    {"vec_get", "(vec: Vec[T], index: Int) -> T", 0, NULL, BF_VEC, lib_seq_get, "$b_vec_get"},
    {"vec_length", "(vec: Vec[T]) -> Int", 0, NULL, BF_VEC, lib_seq_length, "$b_vec_length"},
    {"vec_new", "() -> Vec[T]", 0, NULL, 0, lib_vec_new, "$b_vec_new"},
    {"vec_pop", "(vec: Vec[T]) -> Option[T]", 0, NULL, BF_MUTATES, lib_vec_pop, "$b_vec_pop"},
    {"vec_push", "(vec: Vec[T], item: T) -> Unit", 0, NULL, BF_MUTATES, lib_vec_push, "$b_vec_push"},
    {"vec_set", "(vec: Vec[T], index: Int, value: T) -> Unit", 0, NULL, BF_MUTATES | BF_VEC, lib_seq_set, "$b_vec_set"},
    {"vec_to_list", "(vec: Vec[T]) -> List[T]", 0, NULL, BF_VEC, lib_seq_to_list, "$b_vec_to_list"},
};
const size_t lib_vec_builtin_count = ARRAY_LEN(lib_vec_builtins);
