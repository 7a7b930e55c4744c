/* Arena allocator: many small allocations freed together in one call.
 *
 * The front end (tokens, AST, interned names, types) lives in arenas. An
 * arena never returns NULL: when malloc fails or the arena's byte limit is
 * reached it long-jumps to the handler installed in `oom` (the phase entry
 * point turns that into a diagnostic), or panics when no handler is set.
 * Because every object reachable from the jump target is arena-owned, the
 * jump leaks nothing (see STYLE.md: "own everything in flight"). */
#ifndef GENO_BASE_ARENA_H
#define GENO_BASE_ARENA_H

#include <setjmp.h>

#include "common.h"

typedef struct ArenaBlock {
  struct ArenaBlock *next;
  size_t size; /* usable bytes in data[] */
  size_t used; /* bytes handed out from data[] */
  size_t mapped; /* 0: from malloc; else the bytes of its own mapping */
  max_align_t data[];
} ArenaBlock;

typedef struct Arena {
  ArenaBlock *head; /* newest block first */
  size_t total;     /* bytes obtained from malloc so far */
  size_t limit;     /* 0 = unlimited; else total may not exceed it */
  jmp_buf *oom;     /* where to jump on exhaustion; NULL = panic */
  /* Optional: called with the size of each new block before it is
   * allocated; false refuses it (exhaustion). Lets an owner charge the
   * arena to a budget (a builtin's parse tree to the run's memory). */
  bool (*charge)(void *ctx, size_t bytes);
  void *charge_ctx;
} Arena;

/* Default block payload: large enough that a typical module's AST takes a
 * handful of mallocs, small enough not to matter for tiny programs. */
#define ARENA_BLOCK_BYTES (64 * 1024)

void arena_init(Arena *a, size_t limit_bytes);
/* Release every block; the arena may be reused after arena_init. */
void arena_free(Arena *a);
/* Release every block but the newest (kept for reuse: an arena refilled
 * for a similar job, such as the checker's per-module scratch arena, then
 * maps no fresh pages); every pointer handed out before becomes invalid.
 * `total` counts only the kept block afterwards. */
void arena_reset(Arena *a);
/* Bytes handed out from a's blocks (what `total` counts, less the unused
 * ends of blocks): for measuring, O(number of blocks). */
size_t arena_used(const Arena *a);
/* The general case of arena_alloc (a new block, limits, n = 0). */
void *arena_alloc_slow(Arena *a, size_t n);
/* Alignment of every allocation: 8 bytes, enough for every type stored in
 * an arena (pointers, 64-bit integers, doubles, jmp_buf; nothing wider such
 * as long double or max_align_t, whose 16 bytes would cost the front end
 * ~18% more memory in rounding). */
#define ARENA_ALIGN ((size_t)8)
/* n rounded up to the alignment every allocation gets */
#define ARENA_ROUND(n) (((n) + ARENA_ALIGN - 1) & ~(ARENA_ALIGN - 1))
/* n bytes, aligned to ARENA_ALIGN, zero-filled. Inline because the front end
 * makes an allocation every few tokens: with n a constant (sizeof) the
 * common case is a bump of `used` and a few stores. It declares no locals:
 * it is inlined into functions that call setjmp, where a local would draw
 * -Wclobbered. */
static inline void *arena_alloc(Arena *a, size_t n) {
  if (GENO_LIKELY(a->head && n - 1 < ARENA_BLOCK_BYTES && a->head->size - a->head->used >= ARENA_ROUND(n))) {
    a->head->used += ARENA_ROUND(n);
    return memset((char *)a->head->data + a->head->used - ARENA_ROUND(n), 0, ARENA_ROUND(n));
  }
  return arena_alloc_slow(a, n);
}
/* Overflow-checked count * size. */
void *arena_array(Arena *a, size_t count, size_t size);
/* NUL-terminated copy of s[0..n). */
char *arena_strndup(Arena *a, const char *s, size_t n);
char *arena_strdup(Arena *a, const char *s);
/* Grow an arena array: returns a new array of new_cap elements holding the
 * first `count` elements of `old` (old's memory is not reused). */
void *arena_grow(Arena *a, void *old, size_t count, size_t new_cap, size_t size);

#endif
