/* Clock and DateTime builtins (capability clock): clock_*, datetime_* and
 * sleep_ms (a host callback).
 *
 * The rows at the bottom are this family's part of the builtin table
 * (src/lib/builtins.h); the implementations are written above them. */
#include <geno.h>

#include "families.h"

const BuiltinDef lib_clock_builtins[] = {
    {"clock_elapsed", "(start: Float, end_time: Float) -> Float", GENO_CAP_CLOCK, "clock", 0, NULL},
    {"clock_format", "(timestamp: Float, fmt: String) -> String", GENO_CAP_CLOCK, "clock", 0, NULL},
    {"clock_now", "() -> Int", GENO_CAP_CLOCK, "clock", 0, NULL},
    {"clock_parse", "(text: String, fmt: String) -> Option[Float]", GENO_CAP_CLOCK, "clock", 0, NULL},
    {"datetime_elapsed", "(start: Int, end_time: Int) -> Int", GENO_CAP_CLOCK, "clock", 0, NULL},
    {"datetime_format", "(timestamp: Int, fmt: String) -> String", GENO_CAP_CLOCK, "clock", 0, NULL},
    {"datetime_now", "() -> Int", GENO_CAP_CLOCK, "clock", 0, NULL},
    {"datetime_parse", "(text: String, fmt: String) -> Option[Int]", GENO_CAP_CLOCK, "clock", 0, NULL},
    {"sleep_ms", "(ms: Int) -> Unit", GENO_CAP_CLOCK, "clock", BF_CALLBACK, NULL},
};
const size_t lib_clock_builtin_count = ARRAY_LEN(lib_clock_builtins);
