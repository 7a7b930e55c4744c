/* Structural equality, hashing and ordering of values (see equal.h). */
#include "equal.h"

#include <math.h>

#include "../base/intern.h"
#include "object.h"
#include "vmapi.h"

/* ---- numbers -------------------------------------------------------------- */

/* Exact comparison of two numbers (Int, BigInt, Float): -1, 0, 1, or 2 when
 * unordered (NaN involved). */
int vm_num_cmp(Value a, Value b) {
  if (a.tag == T_INT && b.tag == T_INT) return (a.as.i > b.as.i) - (a.as.i < b.as.i);
  if (a.tag == T_FLOAT && b.tag == T_FLOAT) {
    if (isnan(a.as.f) || isnan(b.as.f)) return 2;
    return (a.as.f > b.as.f) - (a.as.f < b.as.f);
  }
  if (a.tag == T_FLOAT || b.tag == T_FLOAT) {
    bool flip = a.tag != T_FLOAT; /* f is the Float, i the Int */
    Value f = flip ? b : a, i = flip ? a : b;
    double d = f.as.f;
    if (isnan(d)) return 2;
    int r;
    if (i.tag == T_INT && i.as.i > -(INT64_C(1) << 53) && i.as.i < (INT64_C(1) << 53)) {
      double x = (double)i.as.i;
      r = (d > x) - (d < x);
    } else if (isinf(d)) {
      r = d > 0 ? 1 : -1;
    } else {
      mpz_t z;
      mpz_init(z);
      obj_int_to_mpz(i, z);
      int c = mpz_cmp_d(z, d); /* sign of z - d */
      mpz_clear(z);
      r = (c < 0) - (c > 0);
    }
    return flip ? -r : r;
  }
  /* Ints, at least one big. */
  mpz_t x, y;
  mpz_init(x);
  mpz_init(y);
  obj_int_to_mpz(a, x);
  obj_int_to_mpz(b, y);
  int c = mpz_cmp(x, y);
  mpz_clear(x);
  mpz_clear(y);
  return (c > 0) - (c < 0);
}

/* Examples compare Floats approximately (math.isclose with rel 1e-9 and
 * abs 1e-12 in the reference), so `example 0.1 + 0.2 -> 0.3` holds. */
static bool isclose(double a, double b) {
  if (a == b) return true;
  if (isinf(a) || isinf(b) || isnan(a) || isnan(b)) return false;
  double diff = fabs(a - b);
  double rel = 1e-9 * fmax(fabs(a), fabs(b));
  return diff <= rel || diff <= 1e-12;
}

static double num_to_double(Value v) {
  if (v.tag == T_FLOAT) return v.as.f;
  if (v.tag == T_INT) return (double)v.as.i;
  return mpz_get_d(AS_BIG(v)->z);
}

/* ---- equality ------------------------------------------------------------- */

/* Equality walks both values in step, and every walk is bounded by the
 * run's limits: each node compared is charged (one step for `==`, like the
 * reference, which charges each recursive comparison; KEY_NODE_WORK work
 * units for key equality inside hash tables, whose probes the reference
 * does not count as steps) and the deadline is polled as in the dispatch
 * loop, so both can fail with E503/E501; values nested past
 * VM_MAX_VALUE_DEPTH fail with E502 rather than answer.
 *
 * Values built by sharing (`t = Node(t, t)` eighty times) have far more
 * paths than nodes, so the walk never follows a path twice: the same
 * object on both sides is equal at once, and once a walk has visited
 * more than EQ_MEMO_AFTER nodes it remembers every pair of objects found
 * equal (a hash set of pointer pairs) and answers a pair it meets again
 * from there. Comparing two independently built isomorphic DAGs therefore
 * costs their size, not their number of paths. (A pair found unequal ends
 * the whole comparison, so only equal pairs need remembering.)
 *
 * Mutable containers may be cyclic, so pairs already being compared on the
 * current path count as equal (the usual coinductive rule). */
#define KEY_NODE_WORK 16
/* The first nodes of each key comparison are free, so a lookup of a
 * small compound key (a tuple) costs what it did; what an attack makes
 * many of, comparisons of keys that hash alike but differ, is charged by
 * the table itself (TBL_MISS_WORK in table.h). */
#define KEY_FREE_NODES 32
#define EQ_MEMO_AFTER 64
/* The memo stops growing here (4 MiB); a comparison past it is still
 * correct and charged, only no longer shortened by new entries. */
#define EQ_MEMO_MAX ((size_t)1 << 18)

typedef struct PairSet {
  const Obj **slots; /* 2 pointers per slot, NULL = empty */
  size_t cap, n;     /* cap: slots, a power of two */
} PairSet;

typedef struct EqCtx {
  VM *vm;
  bool approx;
  bool key;      /* key equality: charged as work, not steps */
  bool failed;
  size_t nodes;  /* nodes compared (key equality: the first KEY_FREE_NODES are free) */
  size_t visited;
  PairSet memo;
  const Obj *seen_a[64]; /* mutable containers on the current path */
  const Obj *seen_b[64];
  int nseen;
} EqCtx;

static size_t pair_slot(const PairSet *m, const Obj *a, const Obj *b) {
  uint64_t h = (uint64_t)(uintptr_t)a * 0x9e3779b97f4a7c15ULL ^ (uint64_t)(uintptr_t)b * 0xc2b2ae3d27d4eb4fULL;
  h ^= h >> 29;
  return (size_t)h & (m->cap - 1);
}

static bool pair_known(const PairSet *m, const Obj *a, const Obj *b) {
  if (!m->n) return false;
  for (size_t i = pair_slot(m, a, b);; i = (i + 1) & (m->cap - 1)) {
    const Obj **s = &m->slots[2 * i];
    if (!s[0]) return false;
    if (s[0] == a && s[1] == b) return true;
  }
}

/* Remembers (a, b) as equal; silently does nothing when full or out of
 * memory (the memo only saves work). */
static void pair_add(PairSet *m, const Obj *a, const Obj *b) {
  if (m->n >= EQ_MEMO_MAX) return;
  if ((m->n + 1) * 2 > m->cap) {
    size_t cap = m->cap ? m->cap * 2 : 256;
    const Obj **slots = calloc(cap * 2, sizeof *slots);
    if (!slots) return;
    PairSet grown = {slots, cap, 0};
    for (size_t i = 0; i < m->cap; i++)
      if (m->slots[2 * i]) {
        size_t j = pair_slot(&grown, m->slots[2 * i], m->slots[2 * i + 1]);
        while (slots[2 * j]) j = (j + 1) & (cap - 1);
        slots[2 * j] = m->slots[2 * i];
        slots[2 * j + 1] = m->slots[2 * i + 1];
      }
    grown.n = m->n;
    free(m->slots);
    *m = grown;
  }
  size_t i = pair_slot(m, a, b);
  while (m->slots[2 * i]) {
    if (m->slots[2 * i] == a && m->slots[2 * i + 1] == b) return;
    i = (i + 1) & (m->cap - 1);
  }
  m->slots[2 * i] = a;
  m->slots[2 * i + 1] = b;
  m->n++;
}

static bool eq(EqCtx *c, Value a, Value b, int depth);

/* Charges `units` nodes of work: a step each for `==`, KEY_NODE_WORK work
 * units each for key equality; polls the deadline and the step limit. */
static bool charge(EqCtx *c, size_t units) {
  VM *vm = c->vm;
  if (c->key) {
    if ((c->nodes += units) <= KEY_FREE_NODES) return true;
    uint64_t total = vm->work_carry + (uint64_t)units * KEY_NODE_WORK;
    vm->steps += total / VM_WORK_PER_STEP;
    vm->work_carry = total % VM_WORK_PER_STEP;
  } else {
    vm->steps += units;
  }
  if (vm->steps >= vm->step_check && !vm_step_slow(vm)) {
    c->failed = true;
    return false;
  }
  return true;
}

static bool eq_seq(EqCtx *c, const Value *x, const Value *y, size_t n, int depth) {
  for (size_t i = 0; i < n; i++)
    if (!eq(c, x[i], y[i], depth + 1)) return false;
  return true;
}

/* Sets in an example check (c->approx): equal when their elements pair up
 * one to one with every pair approximately equal, as in the reference
 * (a perfect matching of a bipartite graph, found by augmenting paths), so
 * {0.1 + 0.2} matches {0.3}. Hash lookups cannot find such pairs, so each
 * element is compared with every element of the other set: n * n charged
 * comparisons, and candidate lists as long as the matches found. */
typedef struct Cands {
  size_t *at; /* indexes into the right-hand set's elements */
  size_t n, cap;
} Cands;

/* Looks for an augmenting path from left element `root` (Kuhn's algorithm,
 * with an explicit stack: a path can be as long as the set). match_r[j] is
 * the left element paired with right element j, or SIZE_MAX; stamp marks
 * the right elements this search has visited. */
static bool augment(size_t root, const Cands *cand, size_t *match_r, size_t *stamp, size_t mark, size_t *stk_l,
                    size_t *stk_pos, size_t *via) {
  size_t top = 0;
  stk_l[0] = root;
  stk_pos[0] = 0;
  for (;;) {
    size_t l = stk_l[top];
    if (stk_pos[top] == cand[l].n) {
      if (top == 0) return false;
      top--;
      continue;
    }
    size_t r = cand[l].at[stk_pos[top]++];
    if (stamp[r] == mark) continue;
    stamp[r] = mark;
    via[top] = r;
    if (match_r[r] == SIZE_MAX) {
      for (size_t k = 0; k <= top; k++) match_r[via[k]] = stk_l[k];
      return true;
    }
    top++;
    stk_l[top] = match_r[r];
    stk_pos[top] = 0;
  }
}

static bool eq_sets_approx(EqCtx *c, ObjMap *x, ObjMap *y, int depth) {
  size_t n = x->t.live, pos = 0, i = 0;
  HEntry *e;
  Value *left = malloc((n ? n : 1) * sizeof *left), *right = malloc((n ? n : 1) * sizeof *right);
  Cands *cand = calloc(n ? n : 1, sizeof *cand);
  size_t *work = malloc((n ? n : 1) * 5 * sizeof *work);
  bool ok = left && right && cand && work;
  if (ok) {
    while (tbl_next(&x->t, &pos, &e)) left[i++] = e->key;
    pos = i = 0;
    while (tbl_next(&y->t, &pos, &e)) right[i++] = e->key;
  }
  for (size_t l = 0; ok && l < n; l++) {
    for (size_t r = 0; r < n; r++) {
      int saved = c->nseen;
      bool same = eq(c, left[l], right[r], depth + 1);
      c->nseen = saved;
      if (c->failed) {
        ok = false;
        break;
      }
      if (!same) continue;
      Cands *k = &cand[l];
      if (k->n == k->cap) {
        size_t cap = k->cap ? k->cap * 2 : 4;
        size_t *at = realloc(k->at, cap * sizeof *at);
        if (!at) {
          ok = false;
          break;
        }
        k->at = at;
        k->cap = cap;
      }
      k->at[k->n++] = r;
    }
    if (ok && cand[l].n == 0) break; /* an element with no partner: unequal */
  }
  bool matched = ok && !c->failed;
  if (matched) {
    size_t *match_r = work, *stamp = work + n, *stk_l = work + 2 * n, *stk_pos = work + 3 * n, *via = work + 4 * n;
    for (size_t r = 0; r < n; r++) {
      match_r[r] = SIZE_MAX;
      stamp[r] = SIZE_MAX;
    }
    for (size_t l = 0; matched && l < n; l++) {
      if (cand[l].n == 0 || !charge(c, 1)) matched = false;
      else matched = augment(l, cand, match_r, stamp, l, stk_l, stk_pos, via);
    }
  }
  if (!left || !right || !cand || !work || (!ok && !c->failed)) {
    if (!c->failed) vm_raise_oom(c->vm);
    c->failed = true;
    matched = false;
  }
  for (size_t l = 0; cand && l < n; l++) free(cand[l].at);
  free(left);
  free(right);
  free(cand);
  free(work);
  return matched;
}

/* Maps and Sets are equal when they have the same keys (and, for Maps,
 * equal values per key) regardless of insertion order. */
static bool eq_tables(EqCtx *c, ObjMap *x, ObjMap *y, int depth) {
  if (x->t.live != y->t.live) return false;
  if (c->approx && x->hdr.kind == T_SET) return eq_sets_approx(c, x, y, depth);
  size_t pos = 0;
  HEntry *e;
  while (tbl_next(&x->t, &pos, &e)) {
    HEntry *f = tbl_find(c->vm, &y->t, e->key);
    if (!f) {
      if (c->vm->err.active) c->failed = true;
      return false;
    }
    if (x->hdr.kind != T_SET && !eq(c, e->val, f->val, depth + 1)) return false;
  }
  return true;
}

/* The composite kinds: compared element by element, with the memo. */
static bool eq_composite(EqCtx *c, Value a, Value b, int depth) {
  const Obj *oa = a.as.o, *ob = b.as.o;
  if (oa == ob && !c->approx) return true;
  bool memo = ++c->visited > EQ_MEMO_AFTER;
  if (memo && pair_known(&c->memo, oa, ob)) return true;
  bool r;
  switch ((ValueTag)a.tag) {
    case T_LIST: {
      ObjList *x = AS_LIST(a), *y = AS_LIST(b);
      r = x->len == y->len && eq_seq(c, list_items(x), list_items(y), x->len, depth);
      break;
    }
    case T_TUPLE: {
      ObjTuple *x = AS_TUPLE(a), *y = AS_TUPLE(b);
      r = x->n == y->n && eq_seq(c, x->items, y->items, x->n, depth);
      break;
    }
    case T_CTOR: {
      ObjCtor *x = AS_CTOR(a), *y = AS_CTOR(b);
      r = (x->info == y->info || strcmp(x->info->name, y->info->name) == 0) &&
          x->info->nfields == y->info->nfields && eq_seq(c, x->fields, y->fields, (size_t)x->info->nfields, depth);
      break;
    }
    default: {
      /* A pair already on the path compares equal (cycles). */
      for (int i = 0; i < c->nseen; i++)
        if (c->seen_a[i] == oa && c->seen_b[i] == ob) return true;
      bool pushed = c->nseen < 64;
      if (pushed) {
        c->seen_a[c->nseen] = oa;
        c->seen_b[c->nseen] = ob;
        c->nseen++;
      }
      if (a.tag == T_ARRAY || a.tag == T_VEC) {
        ObjArray *x = AS_ARRAY(a), *y = AS_ARRAY(b);
        r = x->len == y->len && eq_seq(c, x->items, y->items, x->len, depth);
      } else {
        r = eq_tables(c, AS_MAP(a), AS_MAP(b), depth);
      }
      if (pushed) c->nseen--;
      break;
    }
  }
  if (r && memo) pair_add(&c->memo, oa, ob);
  return r;
}

static bool eq(EqCtx *c, Value a, Value b, int depth) {
  if (c->failed || !charge(c, 1)) return false;
  if (depth > VM_MAX_VALUE_DEPTH || vm_c_stack_low(c->vm)) {
    vm_raise_fatal(c->vm, E_RECURSION, NULL, "Value nested too deeply to compare (more than %d levels)",
                   depth > VM_MAX_VALUE_DEPTH ? VM_MAX_VALUE_DEPTH : depth - 1);
    c->failed = true;
    return false;
  }
  if (IS_NUM(a) && IS_NUM(b)) {
    if (c->approx) return isclose(num_to_double(a), num_to_double(b));
    return vm_num_cmp(a, b) == 0;
  }
  if (a.tag != b.tag) return false;
  switch ((ValueTag)a.tag) {
    case T_UNIT: return true;
    case T_BOOL: return a.as.b == b.as.b;
    case T_STRING: {
      ObjString *x = AS_STR(a), *y = AS_STR(b);
      if (x == y) return true;
      if (x->blen != y->blen) return false;
      /* long strings cost what memcmp does */
      if (x->blen > 4096 && !charge(c, x->blen / 4096)) return false;
      return memcmp(x->data, y->data, x->blen) == 0;
    }
    case T_LIST:
    case T_TUPLE:
    case T_CTOR:
    case T_ARRAY:
    case T_VEC:
    case T_MAP:
    case T_MMAP:
    case T_SET: return eq_composite(c, a, b, depth);
    default: return a.as.o == b.as.o;
  }
}

static int equal_walk(VM *vm, Value a, Value b, bool approx, bool key) {
  EqCtx c;
  c.vm = vm;
  c.approx = approx;
  c.key = key;
  c.failed = false;
  c.nodes = 0;
  c.visited = 0;
  c.memo = (PairSet){NULL, 0, 0};
  c.nseen = 0;
  bool r = eq(&c, a, b, 0);
  free(c.memo.slots);
  if (c.failed) return -1;
  return r ? 1 : 0;
}

int vm_equal(VM *vm, Value a, Value b, bool approx) { return equal_walk(vm, a, b, approx, false); }

int vm_key_equal(VM *vm, Value a, Value b) {
  if (a.tag == T_INT && b.tag == T_INT) return a.as.i == b.as.i;
  if (a.tag == T_STRING && b.tag == T_STRING && AS_STR(a)->blen <= 4096) {
    ObjString *x = AS_STR(a), *y = AS_STR(b);
    return x == y || (x->blen == y->blen && memcmp(x->data, y->data, x->blen) == 0);
  }
  return equal_walk(vm, a, b, false, true);
}

/* ---- hashing ---------------------------------------------------------------- */

static uint32_t mix(uint32_t h, uint32_t x) {
  h ^= x + 0x9e3779b9u + (h << 6) + (h >> 2);
  return h;
}

static uint32_t hash_i64(int64_t i) {
  uint64_t x = (uint64_t)i;
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  x ^= x >> 33;
  return (uint32_t)x;
}

static uint32_t hash_mpz(const mpz_t z) {
  uint32_t h = (uint32_t)mpz_sgn(z) + 7u;
  size_t n = mpz_size(z);
  for (size_t i = 0; i < n; i++) {
    uint64_t limb = (uint64_t)mpz_getlimbn(z, i);
    h = mix(h, (uint32_t)limb);
    h = mix(h, (uint32_t)(limb >> 32));
  }
  return h;
}

/* A hash looks at a bounded part of a value, so hashing a huge list used
 * as a Map key or Set element costs O(1), not O(size): at most
 * HASH_MAX_DEPTH levels and HASH_BUDGET nodes, visited in a fixed order
 * (equal values have the same shape, so they visit the same nodes and
 * get the same hash). Lengths are always mixed in. Maps and Sets are the
 * exception to "same shape": equal Maps may differ in insertion order,
 * so a Map contributes its size and, when small, the order-independent
 * sum of its keys' stored hashes, never a budget-dependent walk.
 * Coarser hashes only mean more equality checks, which are charged. */
#define HASH_MAX_DEPTH 24
#define HASH_BUDGET 256
#define HASH_MAP_KEYS 256

static uint32_t hash_rec(Value v, int depth, int *budget) {
  switch ((ValueTag)v.tag) {
    case T_UNIT: return 0x1234u;
    case T_BOOL: return v.as.b ? 0x5678u : 0x9abcu; /* never equal to an Int */
    case T_INT: return hash_i64(v.as.i);
    case T_FLOAT: {
      /* An integral Float equals the Int of the same value, so it must
       * hash like that Int: as an int64 inside that range (exact bounds:
       * -2^63 is representable, 2^63 is not an int64), as a big Int
       * outside it. */
      double d = v.as.f;
      if (d == floor(d) && d >= -9223372036854775808.0 && d < 9223372036854775808.0) return hash_i64((int64_t)d);
      if (d == floor(d) && !isinf(d)) {
        mpz_t z;
        mpz_init_set_d(z, d);
        uint32_t h = hash_mpz(z);
        mpz_clear(z);
        return h;
      }
      uint64_t bits;
      memcpy(&bits, &d, sizeof bits);
      return hash_i64((int64_t)bits);
    }
    case T_BIGINT: return hash_mpz(AS_BIG(v)->z);
    case T_STRING: return obj_string_hash(AS_STR(v));
    default: break;
  }
  uint32_t h = (uint32_t)v.tag * 0x01000193u;
  switch ((ValueTag)v.tag) {
    case T_LIST: {
      ObjList *l = AS_LIST(v);
      h = mix(h, (uint32_t)l->len);
      Value *it = list_items(l);
      for (size_t i = 0; i < l->len && depth < HASH_MAX_DEPTH && *budget > 0; i++, (*budget)--)
        h = mix(h, hash_rec(it[i], depth + 1, budget));
      return h;
    }
    case T_TUPLE: {
      ObjTuple *t = AS_TUPLE(v);
      h = mix(h, t->n);
      for (uint32_t i = 0; i < t->n && depth < HASH_MAX_DEPTH && *budget > 0; i++, (*budget)--)
        h = mix(h, hash_rec(t->items[i], depth + 1, budget));
      return h;
    }
    case T_CTOR: {
      ObjCtor *c = AS_CTOR(v);
      h = mix(h, hash_bytes(c->info->name, strlen(c->info->name)));
      for (int i = 0; i < c->info->nfields && depth < HASH_MAX_DEPTH && *budget > 0; i++, (*budget)--)
        h = mix(h, hash_rec(c->fields[i], depth + 1, budget));
      return h;
    }
    case T_MAP: {
      HTable *t = &AS_MAP(v)->t;
      h = mix(h, (uint32_t)t->live);
      if (t->live > HASH_MAP_KEYS) return h;
      uint32_t sum = 0;
      size_t pos = 0;
      HEntry *e;
      while (tbl_next(t, &pos, &e)) sum += e->hash;
      return mix(h, sum);
    }
    default: return (uint32_t)(uintptr_t)v.as.o; /* identity for mutable values */
  }
}

uint32_t vm_hash(Value v) {
  int budget = HASH_BUDGET;
  return hash_rec(v, 0, &budget);
}

/* ---- ordering ------------------------------------------------------------------ */

/* The total order used by sort_by keys, Set printing and comparisons of
 * mixed values: first by kind (this rank), then within a kind. Numbers of
 * all three representations share one rank and compare by value. */
static int rank(Value v) {
  switch ((ValueTag)v.tag) {
    case T_UNIT: return 0;
    case T_BOOL: return 1;
    case T_INT:
    case T_FLOAT:
    case T_BIGINT: return 2;
    case T_STRING: return 4;
    case T_TUPLE: return 5;
    case T_CTOR: return 6;
    case T_LIST: return 7;
    case T_ARRAY: return 8;
    case T_MMAP: return 9;
    case T_MAP: return 10;
    case T_SET: return 11;
    case T_VEC: return 12;
    default: return 99;
  }
}

/* Ordering is bounded like equality: the same object on both sides is
 * equal at once, pairs found equal are remembered once the walk is large
 * (so shared structure is compared once), and past the first ORD_FREE
 * nodes every node costs KEY_NODE_WORK work units, charged as it goes so
 * the step limit and the deadline interrupt a large comparison. */
#define ORD_FREE 64

typedef struct OrdCtx {
  VM *vm;
  bool failed;
  uint64_t work; /* nodes compared */
  PairSet memo;
} OrdCtx;

static int ord(OrdCtx *c, Value a, Value b, int depth);
static int ord_composite(OrdCtx *c, Value a, Value b, int depth);

static int ord_seq(OrdCtx *c, const Value *x, size_t nx, const Value *y, size_t ny, int depth) {
  size_t n = nx < ny ? nx : ny;
  for (size_t i = 0; i < n; i++) {
    int r = ord(c, x[i], y[i], depth + 1);
    if (r || c->failed) return r;
  }
  return (nx > ny) - (nx < ny);
}

static int str_cmp(ObjString *x, ObjString *y) {
  size_t n = x->blen < y->blen ? x->blen : y->blen;
  int r = memcmp(x->data, y->data, n); /* UTF-8 byte order = code point order */
  if (r) return r < 0 ? -1 : 1;
  return (x->blen > y->blen) - (x->blen < y->blen);
}

/* Entries of a table sorted by key order, for comparing Maps and Sets:
 * records of `stride` Values (the key, then the value for Maps), sorted
 * with a bottom-up merge sort (O(n log n): a Set of a million elements
 * compared by order must not be quadratic). Keys in one table are
 * distinct, so stability does not matter here. */
static Value *sorted_keys(OrdCtx *c, HTable *t, bool with_values, size_t *n) {
  size_t stride = with_values ? 2 : 1, m = t->live, cnt = m * stride;
  Value *arr = malloc((cnt ? cnt : 1) * sizeof(Value));
  Value *tmp = malloc((cnt ? cnt : 1) * sizeof(Value));
  if (!arr || !tmp) {
    free(arr);
    free(tmp);
    vm_raise_oom(c->vm);
    c->failed = true;
    return NULL;
  }
  size_t pos = 0, k = 0;
  HEntry *e;
  while (tbl_next(t, &pos, &e)) {
    arr[k++] = e->key;
    if (with_values) arr[k++] = e->val;
  }
  Value *src = arr, *dst = tmp;
  for (size_t width = 1; width < m; width *= 2) {
    for (size_t lo = 0; lo < m; lo += 2 * width) {
      size_t mid = lo + width < m ? lo + width : m;
      size_t hi = lo + 2 * width < m ? lo + 2 * width : m;
      size_t i = lo, j = mid, o = lo;
      while (i < mid && j < hi) {
        int r = ord(c, src[j * stride], src[i * stride], 0);
        if (c->failed) {
          free(arr);
          free(tmp);
          return NULL;
        }
        size_t from = r < 0 ? j++ : i++;
        memcpy(&dst[o++ * stride], &src[from * stride], stride * sizeof(Value));
      }
      if (i < mid) {
        memcpy(&dst[o * stride], &src[i * stride], (mid - i) * stride * sizeof(Value));
        o += mid - i;
      }
      if (j < hi) memcpy(&dst[o * stride], &src[j * stride], (hi - j) * stride * sizeof(Value));
    }
    Value *sw = src;
    src = dst;
    dst = sw;
  }
  if (src != arr) memcpy(arr, src, cnt * sizeof(Value));
  free(tmp);
  *n = cnt;
  return arr;
}

static int ord(OrdCtx *c, Value a, Value b, int depth) {
  if (c->failed) return 0;
  if (++c->work > ORD_FREE && (c->work & (ORD_FREE - 1)) == 0 && !vm_charge(c->vm, ORD_FREE * KEY_NODE_WORK)) {
    c->failed = true;
    return 0;
  }
  if (depth > VM_MAX_VALUE_DEPTH || vm_c_stack_low(c->vm)) {
    vm_raise_fatal(c->vm, E_RECURSION, NULL, "Value nested too deeply to compare (more than %d levels)",
                   depth > VM_MAX_VALUE_DEPTH ? VM_MAX_VALUE_DEPTH : depth - 1);
    c->failed = true;
    return 0;
  }
  int ra = rank(a), rb = rank(b);
  if (ra != rb) return ra < rb ? -1 : 1;
  if (a.tag >= T_FIRST_OBJ && a.tag == b.tag && a.tag != T_STRING && a.tag != T_BIGINT) {
    if (a.as.o == b.as.o) return 0;
    if (c->work > EQ_MEMO_AFTER && pair_known(&c->memo, a.as.o, b.as.o)) return 0;
    int r = ord_composite(c, a, b, depth);
    if (r == 0 && !c->failed && c->work > EQ_MEMO_AFTER) pair_add(&c->memo, a.as.o, b.as.o);
    return r;
  }
  return ord_composite(c, a, b, depth);
}

static int ord_composite(OrdCtx *c, Value a, Value b, int depth) {
  switch ((ValueTag)a.tag) {
    case T_UNIT: return 0;
    case T_BOOL: return (a.as.b > b.as.b) - (a.as.b < b.as.b);
    case T_INT:
    case T_FLOAT:
    case T_BIGINT: {
      int r = vm_num_cmp(a, b);
      return r == 2 ? 0 : r;
    }
    case T_STRING: return str_cmp(AS_STR(a), AS_STR(b));
    case T_TUPLE: {
      ObjTuple *x = AS_TUPLE(a), *y = AS_TUPLE(b);
      return ord_seq(c, x->items, x->n, y->items, y->n, depth);
    }
    case T_CTOR: {
      ObjCtor *x = AS_CTOR(a), *y = AS_CTOR(b);
      int r = strcmp(x->info->name, y->info->name);
      if (r) return r < 0 ? -1 : 1;
      return ord_seq(c, x->fields, (size_t)x->info->nfields, y->fields, (size_t)y->info->nfields, depth);
    }
    case T_LIST: {
      ObjList *x = AS_LIST(a), *y = AS_LIST(b);
      return ord_seq(c, list_items(x), x->len, list_items(y), y->len, depth);
    }
    case T_ARRAY:
    case T_VEC: {
      ObjArray *x = AS_ARRAY(a), *y = AS_ARRAY(b);
      return ord_seq(c, x->items, x->len, y->items, y->len, depth);
    }
    case T_MAP:
    case T_MMAP:
    case T_SET: {
      bool wv = a.tag != T_SET;
      size_t nx = 0, ny = 0;
      Value *x = sorted_keys(c, &AS_MAP(a)->t, wv, &nx);
      if (!x) return 0;
      Value *y = sorted_keys(c, &AS_MAP(b)->t, wv, &ny);
      if (!y) {
        free(x);
        return 0;
      }
      int r = ord_seq(c, x, nx, y, ny, depth);
      free(x);
      free(y);
      return r;
    }
    default: {
      uintptr_t x = (uintptr_t)a.as.o, y = (uintptr_t)b.as.o;
      return (x > y) - (x < y);
    }
  }
}

/* Comparing two scalars is free; comparing big structures (long lists,
 * Sets) is charged as work while it runs (ord), so sorting a list of huge
 * values cannot run unbounded between limit checks. */
bool vm_order(VM *vm, Value a, Value b, int *cmp) {
  OrdCtx c = {vm, false, 0, {NULL, 0, 0}};
  *cmp = ord(&c, a, b, 0);
  free(c.memo.slots);
  return !c.failed;
}

/* Bottom-up merge sort: stable, O(n log n), one scratch array. */
bool vm_sort_values(VM *vm, Value *items, size_t n) {
  if (n < 2) return true;
  Value *tmp = malloc(n * sizeof(Value));
  if (!tmp) return vm_raise_oom(vm);
  Value *src = items, *dst = tmp;
  for (size_t width = 1; width < n; width *= 2) {
    for (size_t lo = 0; lo < n; lo += 2 * width) {
      size_t mid = lo + width < n ? lo + width : n;
      size_t hi = lo + 2 * width < n ? lo + 2 * width : n;
      size_t i = lo, j = mid, k = lo;
      while (i < mid && j < hi) {
        int r;
        if (!vm_order(vm, src[j], src[i], &r)) {
          free(tmp);
          return false;
        }
        dst[k++] = r < 0 ? src[j++] : src[i++];
      }
      while (i < mid) dst[k++] = src[i++];
      while (j < hi) dst[k++] = src[j++];
    }
    Value *t = src;
    src = dst;
    dst = t;
    /* Each pass moves n values: charged as work (the comparisons charge
     * themselves in vm_order when they are expensive). */
    if (!vm_charge(vm, n)) {
      free(tmp);
      return false;
    }
  }
  if (src != items) memcpy(items, src, n * sizeof(Value));
  free(tmp);
  return true;
}
