/* Insertion-ordered hash tables for Map, MutableMap and Set (object.h).
 *
 * Layout (after CPython's dict): entries[] in insertion order, index[] an
 * open-addressing array of entry positions + 1. Deleting marks the entry's
 * key T_MISSING; the next resize squeezes such holes out, so iteration
 * order is always insertion order of the live keys. */
#include "table.h"

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

/* Long probe chains are added to the step count without a limit check
 * (lookups cannot fail); the next checking instruction or vm_charge call
 * sees the total and enforces steps and the deadline. */
void tbl_charge_probes(VM *vm, size_t probes) {
  uint64_t total = vm->work_carry + probes;
  vm->steps += total / VM_WORK_PER_STEP;
  vm->work_carry = total % VM_WORK_PER_STEP;
}

bool tbl_charge_miss(VM *vm) {
  uint64_t total = vm->work_carry + TBL_MISS_WORK;
  vm->steps += total / VM_WORK_PER_STEP;
  vm->work_carry = total % VM_WORK_PER_STEP;
  return vm->steps < vm->step_check || vm_step_slow(vm);
}

HEntry *tbl_find(VM *vm, HTable *t, Value key) { return tbl_lookup(vm, t, key); }

/* Tables of up to this many entries are searched linearly (no index). */
#define TBL_LINEAR_MAX 8

bool tbl_set(VM *vm, Value map, Value key, Value val) {
  HEntry *e = tbl_lookup(vm, &AS_MAP(map)->t, key);
  if (e) {
    e->val = val;
    return true;
  }
  if (vm->err.active) return false;
  return tbl_add(vm, map, key, val);
}

bool tbl_add(VM *vm, Value map, Value key, Value val) {
  HTable *t = &AS_MAP(map)->t;
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
  uint32_t h = tbl_key_hash(key);
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

bool tbl_delete(VM *vm, HTable *t, Value key) {
  HEntry *e = tbl_find(vm, t, key);
  if (!e) return !vm->err.active;
  e->key = v_missing();
  e->val = v_unit();
  t->live--;
  if (t->live == 0) {
    t->nentries = 0;
    if (t->icap) memset(t->index, 0, t->icap * sizeof(HIndex));
  }
  return true;
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
