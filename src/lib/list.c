/* List builtins: the core list operations (head, map, fold, sort, range ...)
 * and the list_* functions behind the std module List.
 *
 * The rows at the bottom are this family's part of the builtin table
 * (src/lib/builtins.h); the implementations are written above them. */
#include <geno.h>

#include "families.h"

const BuiltinDef lib_list_builtins[] = {
    {"all", "(list: List[T], predicate: (T) -> Bool) -> Bool", 0, NULL, BF_HIGHER_ORDER, NULL},
    {"append", "(list: List[T], element: T) -> List[T]", 0, NULL, 0, NULL},
    {"concat", "(list1: List[T], list2: List[T]) -> List[T]", 0, NULL, 0, NULL},
    {"contains", "(list: List[T], element: T) -> Bool", 0, NULL, 0, NULL},
    {"enumerate", "(list: List[T]) -> List[(Int, T)]", 0, NULL, 0, NULL},
    {"filter", "(list: List[T], predicate: (T) -> Bool) -> List[T]", 0, NULL, BF_HIGHER_ORDER, NULL},
    {"flat_map", "(list: List[T], fn: (T) -> List[U]) -> List[U]", 0, NULL, BF_HIGHER_ORDER, NULL},
    {"fold", "(list: List[T], initial: U, reducer: (U, T) -> U) -> U", 0, NULL, BF_HIGHER_ORDER, NULL},
    {"head", "(list: List[T]) -> T", 0, NULL, 0, NULL},
    {"is_permutation", "(list1: List[T], list2: List[T]) -> Bool", 0, NULL, 0, NULL},
    {"is_sorted", "(list: List[Int]) -> Bool", 0, NULL, 0, NULL},
    {"length", "(list: List[T]) -> Int", 0, NULL, BF_SPECIAL_TYPING, NULL},
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
    {"map", "(list: List[T], transform: (T) -> U) -> List[U]", 0, NULL, BF_HIGHER_ORDER, NULL},
    {"range", "(start: Int, end: Int, step?: Int) -> List[Int]", 0, NULL, BF_SPECIAL_TYPING, NULL},
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
