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

/* Names are short (most under 16 bytes) and hashed on every identifier
 * token, so the table's hash reads whole words instead of bytes: the first
 * and last 8 (or 4) bytes of the name, overlapping when it is short, every
 * 8 bytes between them when it is long, mixed by multiplication. memcpy
 * is the portable unaligned load; nothing outside s[0..n) is read. */
static inline uint64_t load64(const char *p) {
  uint64_t v;
  memcpy(&v, p, 8);
  return v;
}

static inline uint32_t load32(const char *p) {
  uint32_t v;
  memcpy(&v, p, 4);
  return v;
}

#define MIX1 0x9E3779B97F4A7C15ull
#define MIX2 0xC2B2AE3D27D4EB4Full

static inline uint32_t name_hash(const char *s, size_t n) {
  uint64_t a, b;
  if (n >= 8) {
    a = load64(s);
    b = load64(s + n - 8);
    for (size_t i = 8; i + 8 < n; i += 8) a = (a ^ load64(s + i)) * MIX1;
  } else if (n >= 4) {
    a = load32(s);
    b = load32(s + n - 4);
  } else if (n > 0) {
    a = (unsigned char)s[0] | (uint64_t)(unsigned char)s[n / 2] << 8 | (uint64_t)(unsigned char)s[n - 1] << 16;
    b = 0;
  } else {
    a = b = 0;
  }
  uint64_t h = (a ^ MIX2) * MIX1 ^ (b + n) * MIX2;
  h ^= h >> 32;
  h *= MIX1;
  return (uint32_t)(h >> 32);
}

/* s[0..n) == t[0..n), inline for short names (the usual case). */
static inline bool same_bytes(const char *s, const char *t, size_t n) {
  if (n >= 8) {
    if (load64(s + n - 8) != load64(t + n - 8)) return false;
    for (size_t i = 0; i + 8 < n; i += 8) /* no call: lookups stay leaf code */
      if (load64(s + i) != load64(t + i)) return false;
    return true;
  }
  if (n >= 4) return load32(s) == load32(t) && load32(s + n - 4) == load32(t + n - 4);
  for (size_t i = 0; i < n; i++)
    if (s[i] != t[i]) return false;
  return true;
}

void intern_init(Interner *in, Arena *arena) {
  in->arena = arena;
  in->cap = 256;
  in->count = 0;
  in->keyword_tags = false;
  in->slots = arena_array(arena, in->cap, sizeof(InternSlot));
}

static void intern_rehash(Interner *in) {
  size_t cap = in->cap * 2;
  InternSlot *slots = arena_array(in->arena, cap, sizeof(InternSlot));
  for (size_t i = 0; i < in->cap; i++) {
    if (!in->slots[i].str) continue;
    size_t j = in->slots[i].hash & (cap - 1);
    while (slots[j].str) j = (j + 1) & (cap - 1);
    slots[j] = in->slots[i];
  }
  in->slots = slots;
  in->cap = cap;
}

/* A new name into the empty slot its probe ended at (out of line: the
 * lookup of a known name, the common case, stays small). */
static GENO_NOINLINE const char *insert(Interner *in, InternSlot *slot, const char *s, size_t n, uint32_t h) {
  GENO_ASSERT(n < UINT32_MAX);
  char *copy = arena_alloc(in->arena, n + 2); /* zeroed: the NUL, tag 0 */
  memcpy(copy, s, n);
  slot->str = copy;
  slot->len = (uint32_t)n;
  slot->hash = h;
  if (++in->count * 2 > in->cap) intern_rehash(in);
  return copy;
}

const char *intern(Interner *in, const char *s, size_t n) {
  uint32_t h = name_hash(s, n);
  size_t mask = in->cap - 1, i = h & mask;
  InternSlot *slot;
  while ((slot = &in->slots[i])->str) {
    if (slot->hash == h && slot->len == n && same_bytes(slot->str, s, n)) return slot->str;
    i = (i + 1) & mask;
  }
  return insert(in, slot, s, n, h);
}

void intern_set_tag(Interner *in, const char *s, size_t n, uint8_t tag) {
  char *name = (char *)intern(in, s, n);
  name[n + 1] = (char)tag;
}

const char *intern_cstr(Interner *in, const char *s) { return intern(in, s, strlen(s)); }
