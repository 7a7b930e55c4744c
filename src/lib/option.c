/* Option and Result builtins (is_some, unwrap, option_map, result_map ...),
 * also behind the std modules Option and Result.
 *
 * The rows at the bottom are this family's part of the builtin table
 * (src/lib/builtins.h); the implementations are written above them. */
#include <geno.h>

#include "families.h"

const BuiltinDef lib_option_builtins[] = {
    {"is_none", "(option: Option[T]) -> Bool", 0, NULL, 0, NULL},
    {"is_some", "(option: Option[T]) -> Bool", 0, NULL, 0, NULL},
    {"option_and_then", "(option: Option[T], f: (T) -> Option[U]) -> Option[U]", 0, NULL, BF_HIGHER_ORDER, NULL},
    {"option_flatten", "(option: Option[Option[T]]) -> Option[T]", 0, NULL, 0, NULL},
    {"option_is_none", "(option: Option[T]) -> Bool", 0, NULL, 0, NULL},
    {"option_is_some", "(option: Option[T]) -> Bool", 0, NULL, 0, NULL},
    {"option_map", "(option: Option[T], f: (T) -> U) -> Option[U]", 0, NULL, BF_HIGHER_ORDER, NULL},
    {"option_to_result", "(option: Option[T], err: E) -> Result[T, E]", 0, NULL, 0, NULL},
    {"option_unwrap_or", "(option: Option[T], default: T) -> T", 0, NULL, 0, NULL},
    {"result_and_then", "(result: Result[T, E], f: (T) -> Result[U, E]) -> Result[U, E]", 0, NULL, BF_HIGHER_ORDER, NULL},
    {"result_is_err", "(result: Result[T, E]) -> Bool", 0, NULL, 0, NULL},
    {"result_is_ok", "(result: Result[T, E]) -> Bool", 0, NULL, 0, NULL},
    {"result_map", "(result: Result[T, E], f: (T) -> U) -> Result[U, E]", 0, NULL, BF_HIGHER_ORDER, NULL},
    {"result_map_err", "(result: Result[T, E], f: (E) -> F) -> Result[T, F]", 0, NULL, BF_HIGHER_ORDER, NULL},
    {"result_to_option", "(result: Result[T, E]) -> Option[T]", 0, NULL, 0, NULL},
    {"result_unwrap_or", "(result: Result[T, E], default: T) -> T", 0, NULL, 0, NULL},
    {"unwrap", "(option: Option[T]) -> T", 0, NULL, 0, NULL},
    {"unwrap_or", "(option: Option[T], default: T) -> T", 0, NULL, 0, NULL},
};
const size_t lib_option_builtin_count = ARRAY_LEN(lib_option_builtins);
