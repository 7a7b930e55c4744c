/* String interning: one canonical copy per distinct name, so names compare
 * by pointer. Used for identifiers, type names, field names and builtin
 * names. The table and its strings live in an arena owned by the caller. */
#ifndef GENO_BASE_INTERN_H
#define GENO_BASE_INTERN_H

#include "arena.h"

typedef struct Interner {
  Arena *arena;       /* strings and the slot array are allocated here */
  const char **slots; /* open-addressing table; NULL = empty */
  uint32_t *hashes;
  size_t cap;         /* power of two */
  size_t count;
} Interner;

void intern_init(Interner *in, Arena *arena);
/* Canonical NUL-terminated copy of s[0..n); equal strings give equal
 * pointers for the lifetime of the arena. */
const char *intern(Interner *in, const char *s, size_t n);
const char *intern_cstr(Interner *in, const char *s);
uint32_t hash_bytes(const char *s, size_t n);

#endif
