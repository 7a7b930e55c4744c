/* String interning (see intern.h). */
#include "intern.h"

uint32_t hash_bytes(const char *s, size_t n) {
  uint32_t h = 2166136261u; /* FNV-1a */
  for (size_t i = 0; i < n; i++) {
    h ^= (unsigned char)s[i];
    h *= 16777619u;
  }
  return h;
}

void intern_init(Interner *in, Arena *arena) {
  in->arena = arena;
  in->cap = 256;
  in->count = 0;
  in->slots = arena_array(arena, in->cap, sizeof(char *));
  in->hashes = arena_array(arena, in->cap, sizeof(uint32_t));
}

static void intern_rehash(Interner *in) {
  size_t cap = in->cap * 2;
  const char **slots = arena_array(in->arena, cap, sizeof(char *));
  uint32_t *hashes = arena_array(in->arena, cap, sizeof(uint32_t));
  for (size_t i = 0; i < in->cap; i++) {
    if (!in->slots[i]) continue;
    size_t j = in->hashes[i] & (cap - 1);
    while (slots[j]) j = (j + 1) & (cap - 1);
    slots[j] = in->slots[i];
    hashes[j] = in->hashes[i];
  }
  in->slots = slots;
  in->hashes = hashes;
  in->cap = cap;
}

const char *intern(Interner *in, const char *s, size_t n) {
  uint32_t h = hash_bytes(s, n);
  size_t i = h & (in->cap - 1);
  while (in->slots[i]) {
    if (in->hashes[i] == h && strncmp(in->slots[i], s, n) == 0 && in->slots[i][n] == '\0')
      return in->slots[i];
    i = (i + 1) & (in->cap - 1);
  }
  const char *copy = arena_strndup(in->arena, s, n);
  in->slots[i] = copy;
  in->hashes[i] = h;
  if (++in->count * 2 > in->cap) intern_rehash(in);
  return copy;
}

const char *intern_cstr(Interner *in, const char *s) { return intern(in, s, strlen(s)); }
