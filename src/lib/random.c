/* Random builtins (capability random): random_int, random_float and their
 * math_random_* aliases from the std module Math.
 *
 * The rows at the bottom are this family's part of the builtin table
 * (src/lib/builtins.h); the implementations are written above them. */
#include <geno.h>

#include "families.h"

const BuiltinDef lib_random_builtins[] = {
    {"math_random_float", "() -> Float", GENO_CAP_RANDOM, "random", 0, NULL},
    {"math_random_int", "(lo: Int, hi: Int) -> Int", GENO_CAP_RANDOM, "random", 0, NULL},
    {"random_float", "() -> Float", GENO_CAP_RANDOM, "random", 0, NULL},
    {"random_int", "(min: Int, max: Int) -> Int", GENO_CAP_RANDOM, "random", 0, NULL},
};
const size_t lib_random_builtin_count = ARRAY_LEN(lib_random_builtins);
