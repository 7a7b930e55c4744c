/* Math builtins: arithmetic helpers (add, max, clamp, floor ...) and the
 * math_* functions behind the std module Math (except the random ones,
 * which live in random.c).
 *
 * The rows at the bottom are this family's part of the builtin table
 * (src/lib/builtins.h); the implementations are written above them. */
#include <geno.h>

#include "families.h"

const BuiltinDef lib_math_builtins[] = {
    {"abs", "(value: Num) -> Num", 0, NULL, 0, NULL},
    {"add", "(a: Num, b: Num) -> Num", 0, NULL, 0, NULL},
    {"bit_or", "(a: Int, b: Int) -> Int", 0, NULL, 0, NULL},
    {"ceil", "(value: Float) -> Int", 0, NULL, 0, NULL},
    {"clamp", "(value: Num, min: Num, max: Num) -> Num", 0, NULL, 0, NULL},
    {"divide", "(a: Num, b: Num) -> Num", 0, NULL, 0, NULL},
    {"floor", "(value: Float) -> Int", 0, NULL, 0, NULL},
    {"is_positive", "(value: Int) -> Bool", 0, NULL, 0, NULL},
    {"math_abs", "(value: Num) -> Num", 0, NULL, 0, NULL},
    {"math_ceil", "(value: Float) -> Int", 0, NULL, 0, NULL},
    {"math_clamp", "(value: Num, lo: Num, hi: Num) -> Num", 0, NULL, 0, NULL},
    {"math_cos", "(value: Float) -> Float", 0, NULL, 0, NULL},
    {"math_e", "() -> Float", 0, NULL, 0, NULL},
    {"math_floor", "(value: Float) -> Int", 0, NULL, 0, NULL},
    {"math_log", "(value: Float) -> Float", 0, NULL, 0, NULL},
    {"math_max", "(a: Num, b: Num) -> Num", 0, NULL, 0, NULL},
    {"math_min", "(a: Num, b: Num) -> Num", 0, NULL, 0, NULL},
    {"math_pi", "() -> Float", 0, NULL, 0, NULL},
    {"math_round", "(value: Float) -> Int", 0, NULL, 0, NULL},
    {"math_sin", "(value: Float) -> Float", 0, NULL, 0, NULL},
    {"math_sqrt", "(value: Float) -> Float", 0, NULL, 0, NULL},
    {"max", "(a: Num, b: Num) -> Num", 0, NULL, 0, NULL},
    {"multiply", "(a: Num, b: Num) -> Num", 0, NULL, 0, NULL},
    {"round", "(value: Float) -> Int", 0, NULL, 0, NULL},
    {"sqrt", "(value: Float) -> Float", 0, NULL, 0, NULL},
    {"square", "(value: Num) -> Num", 0, NULL, 0, NULL},
    {"subtract", "(a: Num, b: Num) -> Num", 0, NULL, 0, NULL},
};
const size_t lib_math_builtin_count = ARRAY_LEN(lib_math_builtins);
