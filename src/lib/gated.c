/* Which builtin names a host callback may implement: exactly the
 * capability-gated ones (cap != 0 in the builtin table). */
#include <geno.h>

#include "builtins.h"

bool geno_callback_name_valid(const char *name) {
  const BuiltinDef *b = lib_builtin_find(name);
  return b && b->cap != 0;
}
