/* Lookup in a BuiltinTable (builtin_table.h). */
#include "builtin_table.h"

#include <string.h>

const BuiltinDef *chk_builtin_find(const BuiltinTable *t, const char *name) {
  if (!t || !name) return NULL;
  size_t lo = 0, hi = t->count;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    int c = strcmp(name, t->rows[mid].name);
    if (c == 0) return &t->rows[mid];
    if (c < 0) hi = mid;
    else lo = mid + 1;
  }
  return NULL;
}
