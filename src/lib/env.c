/* Environment builtins (capability env): env_get, env_get_or, cli_args.
 *
 * The rows at the bottom are this family's part of the builtin table
 * (src/lib/builtins.h); the implementations are written above them. */
#include <geno.h>

#include "families.h"

const BuiltinDef lib_env_builtins[] = {
    {"cli_args", "() -> List[String]", GENO_CAP_ENV, "env", 0, NULL},
    {"env_get", "(name: String) -> Option[String]", GENO_CAP_ENV, "env", 0, NULL},
    {"env_get_or", "(name: String, default: String) -> String", GENO_CAP_ENV, "env", 0, NULL},
};
const size_t lib_env_builtin_count = ARRAY_LEN(lib_env_builtins);
