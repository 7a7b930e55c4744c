/* Option and Result builtins (is_some, unwrap, option_map, result_map ...),
 * also behind the std modules Option and Result.
 *
 * The rows at the bottom are this family's part of the builtin table
 * (src/lib/builtins.h); the implementations are written above them. */
#include <geno.h>

#include "../vm/vmapi.h"
#include "families.h"

/* The payload of Some(value) / Ok(value) / Err(error): field 0. */
static Value payload(Value v) { return vm_ctor_field(v, 0); }

/* is_some(option) / option_is_some(option) -> Bool */
static bool lib_is_some(VM *vm, Value *args, int nargs, Value *out) {
  *out = v_bool(vm_is_ctor(args[0], "Some"));
  return true;
}

/* is_none(option) / option_is_none(option) -> Bool */
static bool lib_is_none(VM *vm, Value *args, int nargs, Value *out) {
  *out = v_bool(vm_is_ctor(args[0], "None"));
  return true;
}

/* unwrap(option) -> T: None is an error. */
static bool lib_unwrap(VM *vm, Value *args, int nargs, Value *out) {
  if (!vm_is_ctor(args[0], "Some")) return vm_error(vm, E_RUNTIME, "unwrap called on None");
  *out = payload(args[0]);
  return true;
}

/* unwrap_or(option, default) / option_unwrap_or -> T: default was
 * evaluated already (arguments are eager). */
static bool lib_unwrap_or(VM *vm, Value *args, int nargs, Value *out) {
  *out = vm_is_ctor(args[0], "Some") ? payload(args[0]) : args[1];
  return true;
}

/* option_map(option, f) -> Option[U]: Some(f(v)), else None. */
static bool lib_option_map(VM *vm, Value *args, int nargs, Value *out) {
  if (!vm_is_ctor(args[0], "Some")) {
    *out = vm_none(vm);
    return true;
  }
  Value v = payload(args[0]);
  return vm_call(vm, args[1], &v, 1, out) && vm_some(vm, *out, out);
}

/* option_and_then(option, f) -> Option[U]: f(v), else None. */
static bool lib_option_and_then(VM *vm, Value *args, int nargs, Value *out) {
  if (!vm_is_ctor(args[0], "Some")) {
    *out = vm_none(vm);
    return true;
  }
  Value v = payload(args[0]);
  return vm_call(vm, args[1], &v, 1, out);
}

/* option_flatten(option) -> Option[T]: Some(Some(x)) -> Some(x), else
 * None. */
static bool lib_option_flatten(VM *vm, Value *args, int nargs, Value *out) {
  Value inner = vm_is_ctor(args[0], "Some") ? payload(args[0]) : v_unit();
  *out = vm_is_ctor(inner, "Some") || vm_is_ctor(inner, "None") ? inner : vm_none(vm);
  return true;
}

/* option_to_result(option, err) -> Result[T, E]: Ok(v) or Err(err). */
static bool lib_option_to_result(VM *vm, Value *args, int nargs, Value *out) {
  if (vm_is_ctor(args[0], "Some")) return vm_ok(vm, payload(args[0]), out);
  return vm_err(vm, args[1], out);
}

/* result_is_ok(result) -> Bool */
static bool lib_result_is_ok(VM *vm, Value *args, int nargs, Value *out) {
  *out = v_bool(vm_is_ctor(args[0], "Ok"));
  return true;
}

/* result_is_err(result) -> Bool */
static bool lib_result_is_err(VM *vm, Value *args, int nargs, Value *out) {
  *out = v_bool(vm_is_ctor(args[0], "Err"));
  return true;
}

/* result_unwrap_or(result, default) -> T */
static bool lib_result_unwrap_or(VM *vm, Value *args, int nargs, Value *out) {
  *out = vm_is_ctor(args[0], "Ok") ? payload(args[0]) : args[1];
  return true;
}

/* result_to_option(result) -> Option[T]: Ok(v) -> Some(v), Err -> None. */
static bool lib_result_to_option(VM *vm, Value *args, int nargs, Value *out) {
  if (vm_is_ctor(args[0], "Ok")) return vm_some(vm, payload(args[0]), out);
  *out = vm_none(vm);
  return true;
}

/* result_map(result, f) -> Result[U, E]: Ok(f(v)); an Err unchanged. */
static bool lib_result_map(VM *vm, Value *args, int nargs, Value *out) {
  if (!vm_is_ctor(args[0], "Ok")) {
    *out = args[0];
    return true;
  }
  Value v = payload(args[0]);
  return vm_call(vm, args[1], &v, 1, out) && vm_ok(vm, *out, out);
}

/* result_map_err(result, f) -> Result[T, F]: Err(f(e)); an Ok unchanged. */
static bool lib_result_map_err(VM *vm, Value *args, int nargs, Value *out) {
  if (!vm_is_ctor(args[0], "Err")) {
    *out = args[0];
    return true;
  }
  Value e = payload(args[0]);
  return vm_call(vm, args[1], &e, 1, out) && vm_err(vm, *out, out);
}

/* result_and_then(result, f) -> Result[U, E]: f(v); an Err unchanged. */
static bool lib_result_and_then(VM *vm, Value *args, int nargs, Value *out) {
  if (!vm_is_ctor(args[0], "Ok")) {
    *out = args[0];
    return true;
  }
  Value v = payload(args[0]);
  return vm_call(vm, args[1], &v, 1, out);
}

const BuiltinDef lib_option_builtins[] = {
    {"is_none", "(option: Option[T]) -> Bool", 0, NULL, 0, lib_is_none, "$b_is_none"},
    {"is_some", "(option: Option[T]) -> Bool", 0, NULL, 0, lib_is_some, "$b_is_some"},
    {"option_and_then", "(option: Option[T], f: (T) -> Option[U]) -> Option[U]", 0, NULL, BF_HIGHER_ORDER, lib_option_and_then, "$b_option_and_then"},
    {"option_flatten", "(option: Option[Option[T]]) -> Option[T]", 0, NULL, 0, lib_option_flatten, "$b_option_flatten"},
    {"option_is_none", "(option: Option[T]) -> Bool", 0, NULL, 0, lib_is_none, "$b_option_is_none"},
    {"option_is_some", "(option: Option[T]) -> Bool", 0, NULL, 0, lib_is_some, "$b_option_is_some"},
    {"option_map", "(option: Option[T], f: (T) -> U) -> Option[U]", 0, NULL, BF_HIGHER_ORDER, lib_option_map, "$b_option_map"},
    {"option_to_result", "(option: Option[T], err: E) -> Result[T, E]", 0, NULL, 0, lib_option_to_result, "$b_option_to_result"},
    {"option_unwrap_or", "(option: Option[T], default: T) -> T", 0, NULL, 0, lib_unwrap_or, "$b_option_unwrap_or"},
    {"result_and_then", "(result: Result[T, E], f: (T) -> Result[U, E]) -> Result[U, E]", 0, NULL, BF_HIGHER_ORDER, lib_result_and_then, "$b_result_and_then"},
    {"result_is_err", "(result: Result[T, E]) -> Bool", 0, NULL, 0, lib_result_is_err, "$b_result_is_err"},
    {"result_is_ok", "(result: Result[T, E]) -> Bool", 0, NULL, 0, lib_result_is_ok, "$b_result_is_ok"},
    {"result_map", "(result: Result[T, E], f: (T) -> U) -> Result[U, E]", 0, NULL, BF_HIGHER_ORDER, lib_result_map, "$b_result_map"},
    {"result_map_err", "(result: Result[T, E], f: (E) -> F) -> Result[T, F]", 0, NULL, BF_HIGHER_ORDER, lib_result_map_err, "$b_result_map_err"},
    {"result_to_option", "(result: Result[T, E]) -> Option[T]", 0, NULL, 0, lib_result_to_option, "$b_result_to_option"},
    {"result_unwrap_or", "(result: Result[T, E], default: T) -> T", 0, NULL, 0, lib_result_unwrap_or, "$b_result_unwrap_or"},
    {"unwrap", "(option: Option[T]) -> T", 0, NULL, 0, lib_unwrap, "$b_unwrap"},
    {"unwrap_or", "(option: Option[T], default: T) -> T", 0, NULL, 0, lib_unwrap_or, "$b_unwrap_or"},
};
const size_t lib_option_builtin_count = ARRAY_LEN(lib_option_builtins);
