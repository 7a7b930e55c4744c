/* Constructors and basic operations of heap objects (object.c, table.c).
 * Every function that allocates returns false / NULL after raising an
 * error (E504 for size limits and memory); arguments that are Values must
 * be rooted by the caller (registers, pinned slots). */
#ifndef GENO_VM_OBJECT_H
#define GENO_VM_OBJECT_H

#include "gc.h"

/* Strings shorter than this many bytes are stored inline; longer ones in a
 * buffer that concatenation can extend in place. */
#define STR_INLINE_MAX 64

/* ---- strings ---- */
/* New String from valid UTF-8 bytes (copied). Checks the collection limit. */
bool obj_string(VM *vm, const char *s, size_t n, Value *out);
/* Same with the code-point count already known. */
bool obj_string_cp(VM *vm, const char *s, size_t n, size_t cplen, Value *out);
bool obj_string_perm(VM *vm, const char *s, size_t n, Value *out);
/* a ++ b (both Strings). */
bool obj_string_concat(VM *vm, Value a, Value b, Value *out);
uint32_t obj_string_hash(ObjString *s);
/* Byte offset of code point `idx` (0 <= idx <= cplen). */
size_t obj_string_offset(const ObjString *s, size_t idx);
static inline bool str_is_ascii(const ObjString *s) { return s->blen == s->cplen; }
/* Byte offset of code point idx (0 <= idx <= length) through the VM's
 * string cursor (see VM.scur_str); charges long walks as work, so it can
 * fail with E503/E501. */
bool obj_string_seek(VM *vm, const ObjString *s, size_t idx, size_t *off);
/* The one-code-point string at index idx. */
bool obj_string_char(VM *vm, Value s, size_t idx, Value *out);

/* ---- lists ---- */
/* New List of n elements, all (). */
bool obj_list(VM *vm, size_t n, Value *out);
/* *list = *list ++ [x] (amortised O(1), see value.h). *list must be rooted. */
bool obj_list_append(VM *vm, Value *list, Value x);
/* *out = elements [start, start + n) of *list (start + n <= its length),
 * sharing its storage when that pins no more than about twice the
 * elements (see value.h), else a copy. *list must be rooted. */
bool obj_list_slice(VM *vm, Value *list, size_t start, size_t n, Value *out);
/* New List holding items[0..n) (copied). items must be rooted. */
bool obj_list_from(VM *vm, const Value *items, size_t n, Value *out);

/* ---- tuples, constructors ---- */
bool obj_tuple(VM *vm, size_t n, Value *out); /* elements () */
bool obj_ctor(VM *vm, const CtorInfo *info, Value *out); /* fields () */
/* Index of field `name` (interned) in a constructor, or -1. */
int obj_ctor_field_index(const CtorInfo *info, const char *name);

/* ---- arrays, vecs ---- */
bool obj_array(VM *vm, ValueTag kind, size_t n, Value *out); /* elements () */
bool obj_array_push(VM *vm, Value arr, Value x);

/* ---- functions, cells ---- */
bool obj_func(VM *vm, struct Proto *p, uint32_t nup, bool perm, Value *out);
bool obj_cell(VM *vm, Value v, Value *out);
bool obj_async(VM *vm, Value fn, const Value *args, uint32_t nargs, Value *out);

/* ---- Ints ---- */
/* Normalise z into a Value (small if it fits); checks max_integer_bits. */
bool obj_int_from_mpz(VM *vm, const mpz_t z, Value *out);
/* Load an Int (small or big) into an initialised mpz. */
void obj_int_to_mpz(Value v, mpz_t z);
bool obj_int_from_text(VM *vm, const char *digits, size_t len, bool perm, Value *out);

/* ---- hash tables (table.c): Map, MutableMap, Set ---- */
bool obj_map(VM *vm, ValueTag kind, size_t cap, Value *out);
/* Find key; returns the entry or NULL. Charges the key comparisons; NULL
 * with vm->err.active when they failed (see tbl_lookup in table.h). */
HEntry *tbl_find(VM *vm, HTable *t, Value key);
/* Insert or update (an updated key keeps its position). `map` is the
 * owning object (rooted); key and val must be rooted. */
bool tbl_set(VM *vm, Value map, Value key, Value val);
/* The insertion half of tbl_set, for a key known to be absent (a lookup
 * just missed): size check, growth, a new last entry. */
bool tbl_add(VM *vm, Value map, Value key, Value val);
/* Remove a key (no-op when absent). False with an error raised when
 * comparing keys failed. */
bool tbl_delete(VM *vm, HTable *t, Value key);
/* Copy of a table object (same kind unless `kind` says otherwise). */
bool obj_map_copy(VM *vm, Value src, ValueTag kind, Value *out);
/* Iterate live entries: for (size_t i = 0; tbl_next(t, &i, &e);) */
bool tbl_next(const HTable *t, size_t *pos, HEntry **e);

#endif
