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
  a->charge = NULL;
  a->charge_ctx = NULL;
}

/* Release b and the blocks after it. */
static void free_blocks(ArenaBlock *b) {
  while (b) {
    ArenaBlock *next = b->next;
    if (b->mapped) munmap(b, b->mapped);
    else free(b);
    b = next;
  }
}

void arena_free(Arena *a) {
  free_blocks(a->head);
  a->head = NULL;
  a->total = 0;
}

static size_t block_bytes(const ArenaBlock *b) { return b->mapped ? b->mapped : sizeof(ArenaBlock) + b->size; }

void arena_reset(Arena *a) {
  ArenaBlock *keep = a->head;
  if (!keep) return;
  free_blocks(keep->next);
  keep->next = NULL;
  keep->used = 0;
  a->total = block_bytes(keep);
}

size_t arena_used(const Arena *a) {
  size_t n = 0;
  for (const ArenaBlock *b = a->head; b; b = b->next) n += b->used;
  return n;
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
#endif
}

/* Once an arena holds this much it is filling with a large input (the
 * front end of a ~3,000-line program takes ~3 MB): its next blocks are
 * HUGE_BLOCK bytes, mapped on a 2 MiB boundary and marked for transparent
 * huge pages, so where the kernel offers them (THP "always" or "madvise")
 * it maps and zeroes each block in one fault instead of 512. Page handling
 * was about a third of `geno check` on such a program; this takes ~1.3 ms
 * off its ~6 ms (bench/README.md). A program under HUGE_AFTER never gets a
 * huge block; one just over it holds up to 2 MiB more than it uses. Where
 * the kernel has no huge pages the block is faulted in page by page as it
 * is used, as malloc'd memory would be. */
#define HUGE_AFTER ((size_t)256 << 10)
#define HUGE_BLOCK ((size_t)2 << 20)

/* A HUGE_BLOCK-sized block on a HUGE_BLOCK boundary (a larger mapping
 * trimmed at both ends), or NULL. */
static ArenaBlock *map_huge(void) {
  size_t span = 2 * HUGE_BLOCK;
  char *p = mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return NULL;
  char *aligned = (char *)(((uintptr_t)p + HUGE_BLOCK - 1) & ~(uintptr_t)(HUGE_BLOCK - 1));
  if (aligned > p) munmap(p, (size_t)(aligned - p));
  if (aligned + HUGE_BLOCK < p + span) munmap(aligned + HUGE_BLOCK, (size_t)(p + span - aligned - HUGE_BLOCK));
#ifdef MADV_HUGEPAGE
  (void)madvise(aligned, HUGE_BLOCK, MADV_HUGEPAGE);
#endif
  ArenaBlock *b = (ArenaBlock *)aligned;
  b->mapped = HUGE_BLOCK;
  return b;
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
    b = NULL;
    if (a->total >= HUGE_AFTER && bytes <= HUGE_BLOCK && !(a->limit && a->total + HUGE_BLOCK > a->limit)) {
      b = map_huge();
      if (b && a->charge && !a->charge(a->charge_ctx, HUGE_BLOCK)) {
        munmap(b, HUGE_BLOCK); /* reserved, never touched */
        arena_exhausted(a);
      }
      if (b) {
        bytes = HUGE_BLOCK;
        payload = bytes - sizeof(ArenaBlock);
      }
    }
    if (!b) {
      if (a->limit && a->total + bytes > a->limit) arena_exhausted(a);
      if (a->charge && !a->charge(a->charge_ctx, bytes)) arena_exhausted(a);
      b = malloc(bytes);
      if (!b) arena_exhausted(a);
      b->mapped = 0;
      if (a->head) prefault(b, bytes);
    }
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
