/* The hash-table lookup (table.c) as an inline function, for the VM's
 * MMGETO / MMSET instructions: a lookup is a few loads and compares, and
 * a call per lookup was a large part of a map-heavy loop. Everything
 * else about tables is in table.c; tbl_find there is this function. */
#ifndef GENO_VM_TABLE_H
#define GENO_VM_TABLE_H

#include "equal.h"
#include "object.h"

/* Work for a probe sequence longer than this is charged: normal tables
 * probe one or two slots, and only keys crafted to collide make chains
 * long enough to matter. */
#define TBL_FREE_PROBES 8
/* Work units for comparing a key that hashes like the one looked up but
 * differs: rare by chance, and what keys crafted to collide are made of
 * (a quarter of a step, beside the nodes compared past the free ones). */
#define TBL_MISS_WORK 64

/* Adds TBL_MISS_WORK to the step count and checks the limits: false with
 * an error raised (table.c). */
bool tbl_charge_miss(VM *vm);

/* Adds a long probe chain's work to the step count (table.c). */
void tbl_charge_probes(VM *vm, size_t probes);

static inline void tbl_charge(VM *vm, size_t probes) {
  if (GENO_UNLIKELY(probes > TBL_FREE_PROBES)) tbl_charge_probes(vm, probes);
}

/* The hash of a key, with the common String case inline. */
static inline uint32_t tbl_key_hash(Value key) {
  if (key.tag == T_STRING) {
    uint32_t h = AS_STR(key)->hash;
    return h ? h : obj_string_hash(AS_STR(key));
  }
  return vm_hash(key);
}

/* The entry holding key, or NULL; charges long probe chains and the key
 * comparisons. NULL with vm->err.active when comparing keys failed (a
 * limit, or keys nested too deeply to compare): callers check that
 * before treating NULL as "absent".
 *
 * The last lookup's entry (t->hint) is tried first when it holds this
 * very key: the same object (or the same small value), which the
 * uniqueness of keys makes the entry a full lookup would return. Checking
 * it costs one entry load and saves hashing (a cache miss on the key's
 * string) and probing, for the common `match get(m, k) ... set(m, k, v)`
 * update. The probes of that lookup are charged again, so step counts do
 * not depend on the hint. */
static inline GENO_ALWAYS_INLINE HEntry *tbl_lookup(VM *vm, HTable *t, Value key) {
  if (t->live == 0) return NULL;
  if (t->hint && t->hint <= t->nentries) {
    HEntry *e = &t->entries[t->hint - 1];
    if (e->key.tag == key.tag && e->key.as.i == key.as.i) {
      tbl_charge(vm, t->hint_probes);
      return e;
    }
  }
  uint32_t h = tbl_key_hash(key);
  if (t->icap == 0) {
    for (size_t i = 0; i < t->nentries; i++) {
      HEntry *e = &t->entries[i];
      if (e->key.tag != T_MISSING && e->hash == h) {
        int r = vm_key_equal(vm, e->key, key);
        if (r < 0 || (r == 0 && !tbl_charge_miss(vm))) return NULL;
        if (!r) continue;
        t->hint = (uint32_t)i + 1;
        t->hint_probes = 0; /* the linear search charges nothing */
        return e;
      }
    }
    return NULL;
  }
  size_t mask = t->icap - 1, slot = h & mask, probes = 0;
  for (;; probes++) {
    HIndex ix = t->index[slot];
    if (!ix.pos) {
      tbl_charge(vm, probes);
      return NULL;
    }
    if (ix.hash == h) {
      HEntry *e = &t->entries[ix.pos - 1];
      /* the same object (or the same small value) is equal at once */
      int r = e->key.tag == key.tag && e->key.as.i == key.as.i;
      if (!r && e->key.tag != T_MISSING && ((r = vm_key_equal(vm, e->key, key)) < 0 || (r == 0 && !tbl_charge_miss(vm))))
        return NULL;
      if (r) {
        tbl_charge(vm, probes);
        t->hint = ix.pos;
        t->hint_probes = (uint32_t)probes;
        return e;
      }
    }
    slot = (slot + 1) & mask;
  }
}

#endif
