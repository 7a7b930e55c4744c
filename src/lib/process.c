/* Process builtins (capability process): exec and spawn, host callbacks.
 *
 * The rows at the bottom are this family's part of the builtin table
 * (src/lib/builtins.h); the implementations are written above them. */
#include <geno.h>

#include "families.h"

const BuiltinDef lib_process_builtins[] = {
    {"exec", "(command: String) -> Result[ProcessResult, String]", GENO_CAP_PROCESS, "process", BF_CALLBACK, NULL, NULL},
    {"exec_with_input", "(command: String, stdin: String) -> Result[ProcessResult, String]", GENO_CAP_PROCESS, "process", BF_CALLBACK, NULL, NULL},
    {"spawn", "(program: String, args: List[String]) -> Result[ProcessResult, String]", GENO_CAP_PROCESS, "process", BF_CALLBACK, NULL, NULL},
    {"spawn_with_input", "(program: String, args: List[String], stdin: String) -> Result[ProcessResult, String]", GENO_CAP_PROCESS, "process", BF_CALLBACK, NULL, NULL},
};
const size_t lib_process_builtin_count = ARRAY_LEN(lib_process_builtins);
