/* Names of the capability-gated builtins that a host callback may implement.
 * Provisional home until the builtin table (src/lib/registry.c) carries the
 * capability of every builtin; then this reads the table. */
#include <geno.h>

#include "../base/common.h"

static const char *const gated[] = {
    "print", "clock_now", "clock_format", "clock_parse", "clock_elapsed", "datetime_now",
    "datetime_format", "datetime_parse", "datetime_elapsed", "sleep_ms", "random_int", "random_float",
    "math_random_int", "math_random_float", "fs_read_text", "fs_write_text", "fs_list_dir",
    "fs_exists", "fs_metadata", "fs_symlink_metadata", "fs_canonicalize", "http_fetch", "http_post",
    "http_request", "http_listen", "http_route", "http_respond", "regex_match", "regex_find_all",
    "regex_replace", "env_get", "env_get_or", "cli_args", "exec", "exec_with_input", "spawn",
    "spawn_with_input", "stdin_read_all",
};

bool geno_callback_name_valid(const char *name) {
  if (!name) return false;
  for (size_t i = 0; i < ARRAY_LEN(gated); i++)
    if (strcmp(gated[i], name) == 0) return true;
  return false;
}
