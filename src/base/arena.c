/* Arena allocator (see arena.h). */
#include "arena.h"

#include <stdio.h>
#include <sys/mman.h>

void base_panic(const char *file, int line, const char *msg) {
  fprintf(stderr, "geno: internal error at %s:%d: %s\n", file, line, msg);
  abort();
}

void arena_init(Arena *a, size_t limit_bytes) {
  a->head = NULL;
  a->total = 0;
  a->limit = limit_bytes;
  a->oom = NULL;
}

void arena_free(Arena *a) {
  ArenaBlock *b = a->head;
  while (b) {
    ArenaBlock *next = b->next;
    free(b);
    b = next;
  }
  a->head = NULL;
  a->total = 0;
}

/* A block after an arena's first will be filled (the arena is growing
 * through a large input): its pages are mapped in one call instead of one
 * fault each, which in a page-accounted container costs as much as the
 * front end's own work on those bytes. Only the whole pages inside the
 * block are touched; failure (an older kernel) changes nothing. */
static void prefault(void *p, size_t bytes) {
#ifdef MADV_POPULATE_WRITE
  const uintptr_t page = 4096;
  uintptr_t lo = ((uintptr_t)p + page - 1) & ~(page - 1), hi = ((uintptr_t)p + bytes) & ~(page - 1);
  if (hi > lo) (void)madvise((void *)lo, hi - lo, MADV_POPULATE_WRITE);
#else
  (void)p;
  (void)bytes;
#endif
}

GENO_NORETURN static void arena_exhausted(Arena *a) {
  if (a->oom) longjmp(*a->oom, 1);
  base_panic(__FILE__, __LINE__, "out of memory in arena");
}

void *arena_alloc_slow(Arena *a, size_t n) {
  const size_t align = ARENA_ALIGN;
  if (n > SIZE_MAX / 2) arena_exhausted(a);
  size_t rounded = (n + align - 1) & ~(align - 1);
  if (rounded == 0) rounded = align;
  ArenaBlock *b = a->head;
  if (!b || b->size - b->used < rounded) {
    size_t payload = rounded > ARENA_BLOCK_BYTES ? rounded : ARENA_BLOCK_BYTES;
    size_t bytes = sizeof(ArenaBlock) + payload;
    if (a->limit && a->total + bytes > a->limit) arena_exhausted(a);
    b = malloc(bytes);
    if (!b) arena_exhausted(a);
    if (a->head) prefault(b, bytes);
    b->size = payload;
    b->used = 0;
    b->next = a->head;
    a->head = b;
    a->total += bytes;
  }
  void *p = (char *)b->data + b->used;
  b->used += rounded;
  memset(p, 0, rounded);
  return p;
}

void *arena_array(Arena *a, size_t count, size_t size) {
  if (size && count > SIZE_MAX / size) arena_exhausted(a);
  return arena_alloc(a, count * size);
}

char *arena_strndup(Arena *a, const char *s, size_t n) {
  char *p = arena_alloc(a, n + 1);
  if (n) memcpy(p, s, n);
  p[n] = '\0';
  return p;
}

char *arena_strdup(Arena *a, const char *s) { return arena_strndup(a, s, strlen(s)); }

void *arena_grow(Arena *a, void *old, size_t count, size_t new_cap, size_t size) {
  void *p = arena_array(a, new_cap, size);
  if (count) memcpy(p, old, count * size);
  return p;
}
