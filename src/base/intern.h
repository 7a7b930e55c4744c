/* String interning: one canonical copy per distinct name, so names compare
 * by pointer. Used for identifiers, type names, field names and builtin
 * names. The table and its strings live in an arena owned by the caller.
 *
 * Each name can carry a small tag (0 unless set): the lexer tags the
 * keywords, so that one lookup both interns an identifier and tells
 * whether it is a keyword. */
#ifndef GENO_BASE_INTERN_H
#define GENO_BASE_INTERN_H

#include "arena.h"

/* A name's tag is the byte after its NUL (the arena copy is
 * [text][NUL][tag]), so the slot stays 16 bytes and reading the tag
 * touches memory the comparison has just read. */
typedef struct InternSlot {
  const char *str; /* NULL = empty */
  uint32_t hash;
  uint32_t len;    /* names are far below 4 GiB (the front end's arena) */
} InternSlot;

typedef struct Interner {
  Arena *arena;       /* strings and the slot array are allocated here */
  InternSlot *slots;  /* open addressing, linear probing */
  size_t cap;         /* power of two */
  size_t count;
  bool keyword_tags;  /* the lexer's keyword tags are set (lexer.c) */
} Interner;

void intern_init(Interner *in, Arena *arena);
/* Canonical NUL-terminated copy of s[0..n); equal strings give equal
 * pointers for the lifetime of the arena. */
const char *intern(Interner *in, const char *s, size_t n);
const char *intern_cstr(Interner *in, const char *s);
/* The tag of an interned name of n bytes (0 unless set). */
static inline uint8_t intern_tag(const char *name, size_t n) { return (uint8_t)name[n + 1]; }
/* Intern s[0..n) and set its tag. */
void intern_set_tag(Interner *in, const char *s, size_t n, uint8_t tag);
/* Hash of s[0..n) (FNV-1a; the VM's string hashes use it). */
uint32_t hash_bytes(const char *s, size_t n);

#endif
