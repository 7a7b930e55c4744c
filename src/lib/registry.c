/* The builtin registry: joins the family tables (families.h) into one
 * index sorted by name, for lib_builtin_find and lib_builtins.
 *
 * The index is built once per process, on first use, under pthread_once,
 * so concurrent first calls from several host threads are safe and later
 * calls take no lock. After that it is read-only. */
#include <pthread.h>

#include "families.h"

static BuiltinDef index_rows[LIB_BUILTIN_COUNT]; /* sorted by name */
static size_t index_count;
static pthread_once_t index_once = PTHREAD_ONCE_INIT;

static int cmp_row(const void *a, const void *b) {
  return strcmp(((const BuiltinDef *)a)->name, ((const BuiltinDef *)b)->name);
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
  index_count = n;
}

const BuiltinDef *lib_builtins(size_t *count) {
  pthread_once(&index_once, build_index);
  if (count) *count = index_count;
  return index_rows;
}

const BuiltinDef *lib_builtin_find(const char *name) {
  if (!name) return NULL;
  size_t n;
  const BuiltinDef *rows = lib_builtins(&n);
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    int c = strcmp(name, rows[mid].name);
    if (c == 0) return &rows[mid];
    if (c < 0) hi = mid;
    else lo = mid + 1;
  }
  return NULL;
}
