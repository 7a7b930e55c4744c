/* Insertion-ordered hash tables for Map, MutableMap and Set (object.h).
 *
 * Layout (after CPython's dict): entries[] in insertion order, index[] an
 * open-addressing array of entry positions + 1. Deleting marks the entry's
 * key T_MISSING; the next resize squeezes such holes out, so iteration
 * order is always insertion order of the live keys. */
#include "equal.h"
#include "object.h"
#include "vmapi.h"

/* The index stays at most 2/3 full. */
#define TBL_MIN_INDEX 8

static size_t index_cap_for(size_t n) {
  size_t cap = TBL_MIN_INDEX;
  while (cap * 2 < n * 3) cap *= 2;
  return cap;
}

bool obj_map(VM *vm, ValueTag kind, size_t cap, Value *out) {
  ObjMap *m = (ObjMap *)gc_new(vm, kind, sizeof(ObjMap));
  if (!m) return false;
  memset(&m->t, 0, sizeof m->t);
  Value map = v_obj((Obj *)m);
  if (cap) {
    gc_push_root(vm, &map);
    HEntry *e = gc_realloc_aux(vm, NULL, 0, cap * sizeof(HEntry));
    gc_pop_roots(vm, 1);
    if (!e) return false;
    m->t.entries = e;
    m->t.ecap = cap;
  }
  *out = map;
  return true;
}

/* Every change to index[] drops the lookup hint: probe counts may change,
 * and the hint must charge exactly what a full lookup would. */
static void index_put(HTable *t, size_t pos, uint32_t hash) {
  size_t mask = t->icap - 1, slot = hash & mask;
  t->hint = 0;
  while (t->index[slot].pos) slot = (slot + 1) & mask;
  t->index[slot].pos = (uint32_t)(pos + 1);
  t->index[slot].hash = hash;
}

static void reindex(HTable *t) {
  t->hint = 0;
  memset(t->index, 0, t->icap * sizeof(HIndex));
  for (size_t i = 0; i < t->nentries; i++)
    if (t->entries[i].key.tag != T_MISSING) index_put(t, i, t->entries[i].hash);
}

/* Drop deleted entries (keeps order). */
static void squeeze(HTable *t) {
  size_t j = 0;
  t->hint = 0; /* positions move */
  for (size_t i = 0; i < t->nentries; i++)
    if (t->entries[i].key.tag != T_MISSING) t->entries[j++] = t->entries[i];
  t->nentries = j;
}

/* The hash of a key, with the common String case inline. */
static inline uint32_t key_hash(Value key) {
  if (key.tag == T_STRING) {
    uint32_t h = AS_STR(key)->hash;
    return h ? h : obj_string_hash(AS_STR(key));
  }
  return vm_hash(key);
}

/* Work for a probe sequence longer than this is charged: normal tables
 * probe one or two slots, and only keys crafted to collide make chains
 * long enough to matter. */
#define TBL_FREE_PROBES 8

/* Long probe chains are added to the step count without a limit check
 * (this function cannot fail); the next checking instruction or
 * vm_charge call sees the total and enforces steps and the deadline. */
static void charge_probes(VM *vm, size_t probes) {
  if (!vm || probes <= TBL_FREE_PROBES) return;
  uint64_t total = vm->work_carry + probes;
  vm->steps += total / VM_WORK_PER_STEP;
  vm->work_carry = total % VM_WORK_PER_STEP;
}

/* The last lookup's entry, when it holds this very key: the same object
 * (or the same small value), which the uniqueness of keys makes the entry
 * a full lookup would return. Checking it costs one entry load and saves
 * hashing (a cache miss on the key's string) and probing, for the common
 * `match get(m, k) ... set(m, k, v)` update. The probes of that lookup are
 * charged again, so step counts do not depend on the hint. */
static inline HEntry *hinted(VM *vm, HTable *t, Value key) {
  if (!t->hint || t->hint > t->nentries) return NULL;
  HEntry *e = &t->entries[t->hint - 1];
  if (e->key.tag != key.tag || e->key.as.i != key.as.i) return NULL;
  charge_probes(vm, t->hint_probes);
  return e;
}

HEntry *tbl_find(VM *vm, HTable *t, Value key) {
  if (t->live == 0) return NULL;
  HEntry *he = hinted(vm, t, key);
  if (he) return he;
  uint32_t h = key_hash(key);
  if (t->icap == 0) {
    for (size_t i = 0; i < t->nentries; i++) {
      HEntry *e = &t->entries[i];
      if (e->key.tag != T_MISSING && e->hash == h && vm_key_equal(e->key, key)) {
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
      charge_probes(vm, probes);
      return NULL;
    }
    if (ix.hash == h) {
      HEntry *e = &t->entries[ix.pos - 1];
      /* the same object (or the same small value) is equal at once */
      if ((e->key.tag == key.tag && e->key.as.i == key.as.i) ||
          (e->key.tag != T_MISSING && vm_key_equal(e->key, key))) {
        charge_probes(vm, probes);
        t->hint = ix.pos;
        t->hint_probes = (uint32_t)probes;
        return e;
      }
    }
    slot = (slot + 1) & mask;
  }
}

/* Tables of up to this many entries are searched linearly (no index). */
#define TBL_LINEAR_MAX 8

bool tbl_set(VM *vm, Value map, Value key, Value val) {
  HTable *t = &AS_MAP(map)->t;
  HEntry *e = tbl_find(vm, t, key);
  if (e) {
    e->val = val;
    return true;
  }
  const char *kind = map.tag == T_SET ? "Set" : map.tag == T_MMAP ? "MutableMap" : "Map";
  if (t->live + 1 > vm->max_collection && !vm_check_collection(vm, kind, t->live + 1)) return false;
  if (t->nentries == t->ecap) {
    if (t->live < t->nentries / 2 && t->nentries >= 16) {
      squeeze(t);
      if (t->icap) reindex(t);
    } else {
      size_t cap = t->ecap < 4 ? 4 : t->ecap * 2;
      Value k = key, v = val;
      gc_push_root(vm, &k);
      gc_push_root(vm, &v);
      HEntry *ne = gc_realloc_aux(vm, t->entries, t->ecap * sizeof(HEntry), cap * sizeof(HEntry));
      gc_pop_roots(vm, 2);
      if (!ne) return false;
      t = &AS_MAP(map)->t;
      t->entries = ne;
      t->ecap = cap;
      key = k;
      val = v;
    }
  }
  uint32_t h = key_hash(key);
  HEntry *slot_e = &t->entries[t->nentries++];
  slot_e->key = key;
  slot_e->val = val;
  slot_e->hash = h;
  t->live++;
  if (t->icap || t->nentries > TBL_LINEAR_MAX) {
    size_t want = index_cap_for(t->nentries);
    if (t->icap < want) {
      HIndex *ix = gc_realloc_aux(vm, t->index, t->icap * sizeof(HIndex), want * sizeof(HIndex));
      if (!ix) return false;
      t = &AS_MAP(map)->t;
      t->index = ix;
      t->icap = want;
      reindex(t);
    } else {
      index_put(t, t->nentries - 1, h);
    }
  }
  return true;
}

void tbl_delete(VM *vm, HTable *t, Value key) {
  HEntry *e = tbl_find(vm, t, key);
  if (!e) return;
  e->key = v_missing();
  e->val = v_unit();
  t->live--;
  if (t->live == 0) {
    t->nentries = 0;
    if (t->icap) memset(t->index, 0, t->icap * sizeof(HIndex));
  }
}

bool obj_map_copy(VM *vm, Value src, ValueTag kind, Value *out) {
  Value s = src, m = v_unit();
  gc_push_root(vm, &s);
  gc_push_root(vm, &m);
  bool ok = obj_map(vm, kind, AS_MAP(s)->t.live, &m);
  if (ok) {
    HTable *from = &AS_MAP(s)->t;
    HTable *to = &AS_MAP(m)->t;
    size_t j = 0;
    for (size_t i = 0; i < from->nentries; i++)
      if (from->entries[i].key.tag != T_MISSING) to->entries[j++] = from->entries[i];
    to->nentries = to->live = j;
    if (j > TBL_LINEAR_MAX) {
      size_t want = index_cap_for(j);
      HIndex *ix = gc_realloc_aux(vm, NULL, 0, want * sizeof(HIndex));
      if (!ix) ok = false;
      else {
        to = &AS_MAP(m)->t;
        to->index = ix;
        to->icap = want;
        reindex(to);
      }
    }
  }
  gc_pop_roots(vm, 2);
  if (ok) *out = m;
  return ok;
}

bool tbl_next(const HTable *t, size_t *pos, HEntry **e) {
  while (*pos < t->nentries) {
    HEntry *x = &t->entries[(*pos)++];
    if (x->key.tag != T_MISSING) {
      *e = x;
      return true;
    }
  }
  return false;
}
