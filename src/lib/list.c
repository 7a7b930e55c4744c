/* List builtins: the core list operations (head, map, fold, sort, range ...)
 * and the list_* functions behind the std module List.
 *
 * The rows at the bottom are this family's part of the builtin table
 * (src/lib/builtins.h); the implementations are written above them. */
#include <geno.h>

#include "../vm/vmapi.h"
#include "families.h"

/* length(list) -> Int: elements of a List or Array, code points of a
 * String (the checker admits exactly those three). */
static bool lib_length(VM *vm, Value *args, int nargs, Value *out) {
  (void)nargs;
  size_t n;
  switch (args[0].tag) {
    case T_LIST: vm_list_items(args[0], &n); break;
    case T_ARRAY: vm_array_items(args[0], &n); break;
    case T_STRING: n = vm_str_len(args[0]); break;
    default: return vm_error(vm, E_RUNTIME, "length expects list, string, or array, got %s", vm_tag_name(args[0].tag));
  }
  *out = v_int((int64_t)n);
  return true;
}

/* range(start, end[, step]) -> List[Int]: end-exclusive; a step of 0 is
 * an error; empty when the step points away from end. The size is checked
 * before anything is allocated. */
static bool lib_range(VM *vm, Value *args, int nargs, Value *out) {
  int64_t start, end, step = 1;
  if (!vm_int_get(args[0], &start) || !vm_int_get(args[1], &end) ||
      (nargs > 2 && args[2].tag != T_MISSING && !vm_int_get(args[2], &step)))
    return vm_error(vm, E_RUNTIME, "range: bounds must be Ints within 64 bits");
  if (step == 0) return vm_error(vm, E_RUNTIME, "range step cannot be zero");
  uint64_t count = 0;
  if (step > 0 && start < end) count = ((uint64_t)end - (uint64_t)start - 1) / (uint64_t)step + 1;
  if (step < 0 && start > end) count = ((uint64_t)start - (uint64_t)end - 1) / (0 - (uint64_t)step) + 1;
  if (!vm_check_size(vm, "List", (size_t)count) || !vm_charge(vm, (size_t)count)) return false;
  if (!vm_list(vm, (size_t)count, out)) return false;
  size_t n;
  Value *items = vm_list_items(*out, &n);
  int64_t x = start;
  for (size_t i = 0; i < n; i++, x += step) items[i] = v_int(x);
  return true;
}

/* append(list, element) -> List[T]: a new list; appending to the newest
 * list built on a buffer reuses it (amortised O(1), see value.h). */
static bool lib_append(VM *vm, Value *args, int nargs, Value *out) {
  (void)nargs;
  *out = args[0];
  return vm_list_push(vm, out, args[1]);
}

/* map(list, transform) -> List[U]: transform once per element, left to
 * right. */
static bool lib_map(VM *vm, Value *args, int nargs, Value *out) {
  (void)nargs;
  size_t n, len;
  vm_list_items(args[0], &n);
  if (!vm_list(vm, n, out)) return false;
  for (size_t i = 0; i < n; i++) {
    Value x = vm_list_items(args[0], &len)[i];
    Value r;
    if (!vm_call(vm, args[1], &x, 1, &r)) return false;
    vm_list_items(*out, &len)[i] = r;
    if ((i & 1023) == 1023 && !vm_charge(vm, 1024)) return false;
  }
  return true;
}

/* filter(list, predicate) -> List[T]: the elements for which predicate
 * holds, in order. */
static bool lib_filter(VM *vm, Value *args, int nargs, Value *out) {
  (void)nargs;
  size_t n, len;
  vm_list_items(args[0], &n);
  if (!vm_list(vm, 0, out)) return false;
  for (size_t i = 0; i < n; i++) {
    Value x = vm_list_items(args[0], &len)[i];
    Value keep;
    if (!vm_call(vm, args[1], &x, 1, &keep)) return false;
    if (keep.tag == T_BOOL && keep.as.b && !vm_list_push(vm, out, x)) return false;
    if ((i & 1023) == 1023 && !vm_charge(vm, 1024)) return false;
  }
  return true;
}

/* fold(list, initial, reducer) -> U: reducer(acc, x) left to right. Like
 * the reference, a String or List accumulator is held to the size limit
 * after every step. */
static bool lib_fold(VM *vm, Value *args, int nargs, Value *out) {
  (void)nargs;
  size_t n, len;
  vm_list_items(args[0], &n);
  *out = args[1];
  for (size_t i = 0; i < n; i++) {
    Value call_args[2] = {*out, vm_list_items(args[0], &len)[i]};
    if (!vm_call(vm, args[2], call_args, 2, out)) return false;
    if (out->tag == T_STRING && !vm_check_size(vm, "String", vm_str_len(*out))) return false;
    if (out->tag == T_LIST) {
      vm_list_items(*out, &len);
      if (!vm_check_size(vm, "List", len)) return false;
    }
    if ((i & 1023) == 1023 && !vm_charge(vm, 1024)) return false;
  }
  return true;
}

const BuiltinDef lib_list_builtins[] = {
    {"all", "(list: List[T], predicate: (T) -> Bool) -> Bool", 0, NULL, BF_HIGHER_ORDER, NULL},
    {"append", "(list: List[T], element: T) -> List[T]", 0, NULL, 0, lib_append},
    {"concat", "(list1: List[T], list2: List[T]) -> List[T]", 0, NULL, 0, NULL},
    {"contains", "(list: List[T], element: T) -> Bool", 0, NULL, 0, NULL},
    {"enumerate", "(list: List[T]) -> List[(Int, T)]", 0, NULL, 0, NULL},
    {"filter", "(list: List[T], predicate: (T) -> Bool) -> List[T]", 0, NULL, BF_HIGHER_ORDER, lib_filter},
    {"flat_map", "(list: List[T], fn: (T) -> List[U]) -> List[U]", 0, NULL, BF_HIGHER_ORDER, NULL},
    {"fold", "(list: List[T], initial: U, reducer: (U, T) -> U) -> U", 0, NULL, BF_HIGHER_ORDER, lib_fold},
    {"head", "(list: List[T]) -> T", 0, NULL, 0, NULL},
    {"is_permutation", "(list1: List[T], list2: List[T]) -> Bool", 0, NULL, 0, NULL},
    {"is_sorted", "(list: List[Int]) -> Bool", 0, NULL, 0, NULL},
    {"length", "(list: List[T]) -> Int", 0, NULL, BF_SPECIAL_TYPING, lib_length},
    {"list_all", "(list: List[T], predicate: (T) -> Bool) -> Bool", 0, NULL, BF_HIGHER_ORDER, NULL},
    {"list_any", "(list: List[T], predicate: (T) -> Bool) -> Bool", 0, NULL, BF_HIGHER_ORDER, NULL},
    {"list_chunk", "(list: List[T], size: Int) -> List[List[T]]", 0, NULL, 0, NULL},
    {"list_drop", "(list: List[T], count: Int) -> List[T]", 0, NULL, 0, NULL},
    {"list_enumerate", "(list: List[T]) -> List[(Int, T)]", 0, NULL, 0, NULL},
    {"list_filter", "(list: List[T], predicate: (T) -> Bool) -> List[T]", 0, NULL, BF_HIGHER_ORDER, NULL},
    {"list_find", "(list: List[T], predicate: (T) -> Bool) -> Option[T]", 0, NULL, BF_HIGHER_ORDER, NULL},
    {"list_find_index", "(list: List[T], predicate: (T) -> Bool) -> Option[Int]", 0, NULL, BF_HIGHER_ORDER, NULL},
    {"list_flatten", "(lists: List[List[T]]) -> List[T]", 0, NULL, 0, NULL},
    {"list_fold_right", "(list: List[T], init: U, f: (T, U) -> U) -> U", 0, NULL, BF_HIGHER_ORDER, NULL},
    {"list_group_by", "(list: List[T], key_fn: (T) -> K) -> List[(K, List[T])]", 0, NULL, BF_HIGHER_ORDER, NULL},
    {"list_intersperse", "(list: List[T], separator: T) -> List[T]", 0, NULL, 0, NULL},
    {"list_length", "(list: List[T]) -> Int", 0, NULL, 0, NULL},
    {"list_map", "(list: List[T], transform: (T) -> U) -> List[U]", 0, NULL, BF_HIGHER_ORDER, NULL},
    {"list_take", "(list: List[T], count: Int) -> List[T]", 0, NULL, 0, NULL},
    {"list_zip", "(list1: List[T], list2: List[U]) -> List[(T, U)]", 0, NULL, 0, NULL},
    {"map", "(list: List[T], transform: (T) -> U) -> List[U]", 0, NULL, BF_HIGHER_ORDER, lib_map},
    {"range", "(start: Int, end: Int, step?: Int) -> List[Int]", 0, NULL, BF_SPECIAL_TYPING, lib_range},
    {"reverse", "(list: List[T]) -> List[T]", 0, NULL, 0, NULL},
    {"set_at", "(list: List[T], index: Int, value: T) -> List[T]", 0, NULL, 0, NULL},
    {"slice", "(list: List[T], start: Int, stop: Int) -> List[T]", 0, NULL, 0, NULL},
    {"sort", "(list: List[T], comparator: (T, T) -> Int) -> List[T]", 0, NULL, BF_HIGHER_ORDER, NULL},
    {"sort_by", "(list: List[T], key_fn: (T) -> U) -> List[T]", 0, NULL, BF_HIGHER_ORDER, NULL},
    {"tail", "(list: List[T]) -> List[T]", 0, NULL, 0, NULL},
    {"take_while", "(list: List[T], predicate: (T) -> Bool) -> List[T]", 0, NULL, BF_HIGHER_ORDER, NULL},
    {"zip", "(list1: List[A], list2: List[B]) -> List[(A, B)]", 0, NULL, 0, NULL},
};
const size_t lib_list_builtin_count = ARRAY_LEN(lib_list_builtins);
