/* The builtin registry: joins the family tables (families.h) into one
 * BuiltinTable sorted by name (lib_builtin_table).
 *
 * The index is built once per process, on first use, under pthread_once,
 * so concurrent first calls from several host threads are safe and later
 * calls take no lock. After that it is read-only. */
#include <pthread.h>
#include <string.h>

#include "families.h"

static BuiltinDef index_rows[LIB_BUILTIN_COUNT]; /* sorted by name */
static uint32_t int_params[LIB_BUILTIN_COUNT];   /* by index: BuiltinTable.int_params */
static BuiltinTable table;
static pthread_once_t index_once = PTHREAD_ONCE_INIT;

static int cmp_row(const void *a, const void *b) {
  return strcmp(((const BuiltinDef *)a)->name, ((const BuiltinDef *)b)->name);
}

/* Bit i set when parameter i of `sig` is declared exactly `Int`. */
static uint32_t sig_int_params(const char *sig) {
  uint32_t mask = 0;
  if (!sig || sig[0] != '(') return 0;
  int depth = 0, param = 0;
  const char *type = NULL; /* start of the current parameter's type */
  for (const char *p = sig + 1; *p; p++) {
    char c = *p;
    if (c == '(' || c == '[') depth++;
    else if (depth > 0 && (c == ')' || c == ']')) depth--;
    else if (depth == 0 && c == ':' && !type) {
      type = p + 1;
      while (*type == ' ') type++;
    } else if (depth == 0 && (c == ',' || c == ')')) {
      if (type && p - type == 3 && memcmp(type, "Int", 3) == 0 && param < 32) mask |= (uint32_t)1 << param;
      if (c == ')') break;
      param++;
      type = NULL;
    }
  }
  return mask;
}

static void build_index(void) {
  size_t n = 0;
#define LIB_COPY_FAMILY(f)                                         \
  for (size_t i = 0; i < lib_##f##_builtin_count; i++) {          \
    GENO_ASSERT(n < LIB_BUILTIN_COUNT);                            \
    index_rows[n++] = lib_##f##_builtins[i];                       \
  }
  LIB_FAMILIES(LIB_COPY_FAMILY)
#undef LIB_COPY_FAMILY
  qsort(index_rows, n, sizeof index_rows[0], cmp_row);
  /* A name defined by two families is a table bug, not a runtime condition. */
  for (size_t i = 1; i < n; i++) GENO_ASSERT(strcmp(index_rows[i - 1].name, index_rows[i].name) != 0);
  for (size_t i = 0; i < n; i++) int_params[i] = sig_int_params(index_rows[i].sig);
  table = (BuiltinTable){index_rows, n, int_params};
}

const BuiltinTable *lib_builtin_table(void) {
  pthread_once(&index_once, build_index);
  return &table;
}

const BuiltinDef *lib_builtins(size_t *count) {
  const BuiltinTable *t = lib_builtin_table();
  if (count) *count = t->count;
  return t->rows;
}

const BuiltinDef *lib_builtin_find(const char *name) { return chk_builtin_find(lib_builtin_table(), name); }
