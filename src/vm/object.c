/* Heap object constructors: strings, lists, tuples, constructor values,
 * arrays, closures, cells and Ints (see object.h). */
#include "object.h"
#include "vmapi.h"

#include "../base/intern.h"
#include "../base/utf8.h"

static const char *const tag_names[T__COUNT] = {
    /* ORDER TAG */
    "Unit", "Bool", "Int", "Float", "Missing", "Int", "String", "List", "Tuple", "Map",
    "Constructor", "Array", "Vec", "Set", "MutableMap", "Function", "Builtin", "Async",
    "Cell", "ListBuffer", "StringBuffer",
};

const char *vm_tag_name(int tag) { return tag >= 0 && tag < T__COUNT ? tag_names[tag] : "?"; }

/* ---- strings -------------------------------------------------------------- */

/* Strings are valid UTF-8 by construction (the lexer and every builtin
 * produce only valid text), so counting non-continuation bytes counts code
 * points. */
static size_t count_code_points(const char *s, size_t n) {
  size_t cp = 0;
  for (size_t i = 0; i < n; i++) cp += ((unsigned char)s[i] & 0xC0) != 0x80;
  return cp;
}

/* A String header; its bytes are written by the caller. */
static ObjString *string_alloc(VM *vm, size_t inline_bytes, bool perm) {
  size_t size = sizeof(ObjString) + inline_bytes + 1;
  Obj *o = perm ? gc_alloc_perm(vm, T_STRING, size) : gc_new(vm, T_STRING, size);
  if (!o) return NULL;
  ObjString *s = (ObjString *)o;
  s->hash = 0;
  s->buf = NULL;
  s->data = s->inl;
  return s;
}

/* Short strings (< STR_INLINE_MAX bytes) live inline in their header: one
 * allocation, one cache line for most identifiers and words. Longer ones get
 * a separate growable buffer, which obj_string_concat can extend in place. */
static bool string_make(VM *vm, const char *src, size_t n, size_t cplen, bool perm, Value *out) {
  /* Constants (literals in the source) are not held to the limit: the
   * source size limits them already. */
  if (!perm && cplen > vm->max_collection && !vm_check_collection(vm, "String", cplen)) return false;
  if (n > UINT32_MAX) return vm_raise_oom(vm);
  ObjString *s;
  if (n < STR_INLINE_MAX || perm) {
    s = string_alloc(vm, n, perm);
    if (!s) return false;
    if (n) memcpy(s->inl, src, n);
    s->inl[n] = '\0';
  } else {
    /* Long strings get a buffer with room to grow (see value.h). Allocate
     * the buffer first and keep it alive through the header allocation by
     * parking it in *out, which the caller roots. */
    size_t cap = n + n / 2 + 16;
    ObjStrBuf *b = (ObjStrBuf *)gc_alloc(vm, T_STRBUF, sizeof(ObjStrBuf) + cap);
    if (!b) return false;
    b->used = n;
    b->cap = cap;
    memcpy(b->data, src, n);
    Value keep = v_obj((Obj *)b);
    gc_push_root(vm, &keep);
    s = string_alloc(vm, 0, false);
    gc_pop_roots(vm, 1);
    if (!s) return false;
    s->buf = b;
    s->data = b->data;
  }
  s->blen = n;
  s->cplen = cplen;
  *out = v_obj((Obj *)s);
  return true;
}

bool obj_string(VM *vm, const char *s, size_t n, Value *out) {
  return string_make(vm, s, n, count_code_points(s, n), false, out);
}

bool obj_string_cp(VM *vm, const char *s, size_t n, size_t cplen, Value *out) {
  return string_make(vm, s, n, cplen, false, out);
}

bool obj_string_perm(VM *vm, const char *s, size_t n, Value *out) {
  return string_make(vm, s, n, count_code_points(s, n), true, out);
}

/* a + b. Three cases: extend a's buffer in place when a is the longest
 * string using it (s = s + piece in a loop is then amortised O(1) per
 * byte, like a string builder); build a short result inline; or start a
 * fresh buffer with room to double, so the next append can extend it. */
bool obj_string_concat(VM *vm, Value a, Value b, Value *out) {
  ObjString *x = AS_STR(a), *y = AS_STR(b);
  if (y->blen == 0) {
    *out = a;
    return true;
  }
  if (x->blen == 0) {
    *out = b;
    return true;
  }
  size_t n = (size_t)x->blen + y->blen, cp = (size_t)x->cplen + y->cplen;
  if (cp > vm->max_collection && !vm_check_collection(vm, "String", cp)) return false;
  if (n > UINT32_MAX) return vm_raise_oom(vm);
  if (x->buf && x->blen == x->buf->used && x->buf->used + y->blen <= x->buf->cap) {
    /* x ends where its buffer's claimed part ends: extend in place. */
    ObjString *s = string_alloc(vm, 0, false);
    if (!s) return false;
    /* The collector never moves or changes objects, so the check made
     * before the allocation still holds. */
    ObjStrBuf *buf = x->buf;
    memcpy(buf->data + buf->used, y->data, y->blen);
    buf->used += y->blen;
    s->buf = buf;
    s->data = buf->data;
    s->blen = n;
    s->cplen = cp;
    *out = v_obj((Obj *)s);
    return true;
  }
  if (n < STR_INLINE_MAX) {
    ObjString *s = string_alloc(vm, n, false);
    if (!s) return false;
    x = AS_STR(a);
    y = AS_STR(b);
    memcpy(s->inl, x->data, x->blen);
    memcpy(s->inl + x->blen, y->data, y->blen);
    s->inl[n] = '\0';
    s->blen = n;
    s->cplen = cp;
    *out = v_obj((Obj *)s);
    return true;
  }
  size_t cap = n * 2 + 16;
  ObjStrBuf *buf = (ObjStrBuf *)gc_alloc(vm, T_STRBUF, sizeof(ObjStrBuf) + cap);
  if (!buf) return false;
  x = AS_STR(a);
  y = AS_STR(b);
  memcpy(buf->data, x->data, x->blen);
  memcpy(buf->data + x->blen, y->data, y->blen);
  buf->used = n;
  buf->cap = cap;
  Value keep = v_obj((Obj *)buf);
  gc_push_root(vm, &keep);
  ObjString *s = string_alloc(vm, 0, false);
  gc_pop_roots(vm, 1);
  if (!s) return false;
  s->buf = buf;
  s->data = buf->data;
  s->blen = n;
  s->cplen = cp;
  *out = v_obj((Obj *)s);
  return true;
}

/* Computed on first use and cached (0 means "not yet", so a real hash of 0
 * is stored as 1). */
uint32_t obj_string_hash(ObjString *s) {
  if (s->hash == 0) {
    uint32_t h = hash_bytes(s->data, s->blen);
    s->hash = h ? h : 1;
  }
  return s->hash;
}

/* Byte offset of code point idx by a walk from the start; for loops use
 * obj_string_seek, which resumes from the VM's cursor. */
size_t obj_string_offset(const ObjString *s, size_t idx) {
  if (str_is_ascii(s)) return idx;
  size_t cp = 0, i = 0;
  while (i < s->blen && cp < idx) {
    i++;
    while (i < s->blen && ((unsigned char)s->data[i] & 0xC0) == 0x80) i++;
    cp++;
  }
  return i;
}

bool obj_string_seek(VM *vm, const ObjString *s, size_t idx, size_t *off) {
  if (str_is_ascii(s)) {
    *off = idx;
    return true;
  }
  /* Walk from the nearest known position: the start, the end, or where
   * the previous lookup in this string ended (UTF-8 can be walked both
   * ways). Sequential access either way is then O(1) per lookup; the
   * code points walked are charged as work, so random access into a long
   * non-ASCII string cannot run unbounded between deadline polls. Walks
   * of up to 64 code points are free, so short strings cost what the
   * reference charges. */
  size_t cp = 0, i = 0;
  if (s->cplen - idx < idx) {
    cp = s->cplen;
    i = s->blen;
  }
  if (vm->scur_str == s) {
    size_t dc = vm->scur_cp > idx ? vm->scur_cp - idx : idx - vm->scur_cp;
    size_t best = cp > idx ? cp - idx : idx - cp;
    if (dc < best) {
      cp = vm->scur_cp;
      i = vm->scur_off;
    }
  }
  size_t walked = cp > idx ? cp - idx : idx - cp;
  while (cp < idx) {
    i++;
    while (i < s->blen && ((unsigned char)s->data[i] & 0xC0) == 0x80) i++;
    cp++;
  }
  while (cp > idx) {
    i--;
    while (i > 0 && ((unsigned char)s->data[i] & 0xC0) == 0x80) i--;
    cp--;
  }
  vm->scur_str = s;
  vm->scur_cp = cp;
  vm->scur_off = i;
  *off = i;
  return walked <= 64 || vm_charge(vm, walked);
}

bool obj_string_char(VM *vm, Value sv, size_t idx, Value *out) {
  ObjString *s = AS_STR(sv);
  size_t off;
  if (!obj_string_seek(vm, s, idx, &off)) return false;
  size_t end = off + 1;
  while (end < s->blen && ((unsigned char)s->data[end] & 0xC0) == 0x80) end++;
  char tmp[8];
  size_t n = end - off;
  memcpy(tmp, s->data + off, n);
  return obj_string_cp(vm, tmp, n, 1, out);
}

/* ---- lists ------------------------------------------------------------------ */

static ObjListBuf *listbuf_alloc(VM *vm, size_t cap) {
  if (cap > (SIZE_MAX - sizeof(ObjListBuf)) / sizeof(Value)) {
    vm_raise_oom(vm);
    return NULL;
  }
  ObjListBuf *b = (ObjListBuf *)gc_alloc(vm, T_LISTBUF, sizeof(ObjListBuf) + cap * sizeof(Value));
  if (!b) return NULL;
  b->used = 0;
  b->cap = cap;
  return b;
}

/* A list of n Units with inline storage; the caller fills it before any
 * other allocation can expose it to the collector half-initialised. */
bool obj_list(VM *vm, size_t n, Value *out) {
  if (n > vm->max_collection && !vm_check_collection(vm, "List", n)) return false;
  if (n > (SIZE_MAX - sizeof(ObjList)) / sizeof(Value)) return vm_raise_oom(vm);
  ObjList *l = (ObjList *)gc_new(vm, T_LIST, sizeof(ObjList) + n * sizeof(Value));
  if (!l) return false;
  l->len = n;
  l->store = NULL;
  l->items = l->inl;
  for (size_t i = 0; i < n; i++) l->inl[i] = v_unit();
  *out = v_obj((Obj *)l);
  return true;
}

bool obj_list_from(VM *vm, const Value *items, size_t n, Value *out) {
  if (!obj_list(vm, n, out)) return false;
  if (n) memcpy(AS_LIST(*out)->items, items, n * sizeof(Value));
  return true;
}

/* append(xs, x) -> a new list; xs is unchanged (the language's value
 * semantics). When xs ends where its shared buffer's used part ends and
 * the buffer has room, x is written after it and the new list views one
 * more element: amortised O(1). Otherwise the elements move to a new buffer
 * of twice the size. Lists that share a buffer never see each other's
 * appends because each views only its own prefix (len). */
bool obj_list_append(VM *vm, Value *list, Value x) {
  ObjList *l = AS_LIST(*list);
  size_t n = l->len + 1;
  if (n > vm->max_collection && !vm_check_collection(vm, "List", n)) return false;
  Value keepx = x;
  gc_push_root(vm, &keepx);
  ObjList *nl = (ObjList *)gc_new(vm, T_LIST, sizeof(ObjList));
  if (!nl) {
    gc_pop_roots(vm, 1);
    return false;
  }
  nl->len = 0;
  nl->store = NULL;
  nl->items = nl->inl;
  Value result = v_obj((Obj *)nl);
  gc_push_root(vm, &result);
  l = AS_LIST(*list);
  ObjListBuf *b = l->store && l->store->kind == T_LISTBUF ? (ObjListBuf *)l->store : NULL;
  Value *first;
  if (b && l->items + l->len == b->items + b->used && b->used < b->cap) {
    b->items[b->used++] = keepx; /* l ends where the buffer's used part ends */
    first = l->items;
  } else {
    size_t cap = n < 4 ? 4 : n * 2;
    ObjListBuf *nb = listbuf_alloc(vm, cap);
    if (!nb) {
      gc_pop_roots(vm, 2);
      return false;
    }
    l = AS_LIST(*list);
    if (l->len) memcpy(nb->items, l->items, l->len * sizeof(Value));
    nb->items[l->len] = keepx;
    nb->used = n;
    b = nb;
    first = nb->items;
  }
  nl->store = (Obj *)b;
  nl->items = first;
  nl->len = n;
  gc_pop_roots(vm, 2);
  *list = result;
  return true;
}

/* Elements [start, start + n) of *list: a view sharing its storage, or a
 * copy when the view would pin a storage more than twice its size (see
 * value.h). A view costs one header, so a recursive walk by the rest
 * pattern is linear in time and memory. */
bool obj_list_slice(VM *vm, Value *list, size_t start, size_t n, Value *out) {
  ObjList *l = AS_LIST(*list);
  GENO_ASSERT(start <= l->len && n <= l->len - start);
  if (n == l->len) {
    *out = *list; /* immutable: the whole list is itself */
    return true;
  }
  Obj *store = l->store ? l->store : (Obj *)l;
  size_t held = store->kind == T_LISTBUF ? ((ObjListBuf *)store)->used : ((ObjList *)store)->len;
  if (n == 0 || n < held / 2) {
    if (!obj_list(vm, n, out)) return false;
    l = AS_LIST(*list); /* fetched again after the allocation */
    if (n) memcpy(AS_LIST(*out)->items, l->items + start, n * sizeof(Value));
    return true;
  }
  ObjList *v = (ObjList *)gc_new(vm, T_LIST, sizeof(ObjList));
  if (!v) return false;
  l = AS_LIST(*list);
  v->len = n;
  v->store = l->store ? l->store : (Obj *)l;
  v->items = l->items + start;
  *out = v_obj((Obj *)v);
  return true;
}

/* ---- tuples, constructors -------------------------------------------------- */

bool obj_tuple(VM *vm, size_t n, Value *out) {
  if (n > vm->max_collection && !vm_check_collection(vm, "Tuple", n)) return false;
  ObjTuple *t = (ObjTuple *)gc_new(vm, T_TUPLE, sizeof(ObjTuple) + n * sizeof(Value));
  if (!t) return false;
  t->n = (uint32_t)n;
  for (size_t i = 0; i < n; i++) t->items[i] = v_unit();
  *out = v_obj((Obj *)t);
  return true;
}

bool obj_ctor(VM *vm, const CtorInfo *info, Value *out) {
  if (info->nfields == 0 && info->nullary.tag == T_CTOR) {
    *out = info->nullary;
    return true;
  }
  size_t n = (size_t)info->nfields;
  ObjCtor *c = (ObjCtor *)gc_new(vm, T_CTOR, sizeof(ObjCtor) + n * sizeof(Value));
  if (!c) return false;
  c->info = info;
  for (size_t i = 0; i < n; i++) c->fields[i] = v_unit();
  *out = v_obj((Obj *)c);
  return true;
}

int obj_ctor_field_index(const CtorInfo *info, const char *name) {
  for (int i = 0; i < info->nfields; i++)
    if (info->field_names[i] == name) return i;
  /* Names from different interners (host-built values) compare by text. */
  for (int i = 0; i < info->nfields; i++)
    if (strcmp(info->field_names[i], name) == 0) return i;
  return -1;
}

/* ---- arrays and vecs -------------------------------------------------------- */

/* Arrays and Vecs keep their elements in a separately allocated, growable
 * block (gc_realloc_aux counts it in the heap): they are mutable and shared
 * by reference, so growth must not move the object itself. */
bool obj_array(VM *vm, ValueTag kind, size_t n, Value *out) {
  if (n > vm->max_collection && !vm_check_collection(vm, kind == T_VEC ? "Vec" : "Array", n)) return false;
  ObjArray *a = (ObjArray *)gc_alloc(vm, kind, sizeof(ObjArray));
  if (!a) return false;
  a->len = 0;
  a->cap = 0;
  a->items = NULL;
  Value arr = v_obj((Obj *)a);
  if (n) {
    gc_push_root(vm, &arr);
    Value *items = gc_realloc_aux(vm, NULL, 0, n * sizeof(Value));
    gc_pop_roots(vm, 1);
    if (!items) return false;
    for (size_t i = 0; i < n; i++) items[i] = v_unit();
    a->items = items;
    a->cap = n;
    a->len = n;
  }
  *out = arr;
  return true;
}

bool obj_array_push(VM *vm, Value arr, Value x) {
  ObjArray *a = AS_ARRAY(arr);
  if (a->len + 1 > vm->max_collection &&
      !vm_check_collection(vm, a->hdr.kind == T_VEC ? "Vec" : "Array", a->len + 1))
    return false;
  if (a->len == a->cap) {
    size_t cap = a->cap < 8 ? 8 : a->cap * 2;
    Value keep = x;
    gc_push_root(vm, &keep);
    Value *items = gc_realloc_aux(vm, a->items, a->cap * sizeof(Value), cap * sizeof(Value));
    gc_pop_roots(vm, 1);
    if (!items) return false;
    a = AS_ARRAY(arr);
    a->items = items;
    a->cap = cap;
    x = keep;
  }
  a->items[a->len++] = x;
  return true;
}

/* ---- functions, cells, async ---------------------------------------------- */

/* Upvalues start as Unit so the collector can scan a closure at any time;
 * CLOSURE fills them right after. */
bool obj_func(VM *vm, struct Proto *p, uint32_t nup, bool perm, Value *out) {
  size_t size = sizeof(ObjFunc) + nup * sizeof(Value);
  ObjFunc *f = (ObjFunc *)(perm ? gc_alloc_perm(vm, T_FUNC, size) : gc_new(vm, T_FUNC, size));
  if (!f) return false;
  f->proto = p;
  f->nup = nup;
  for (uint32_t i = 0; i < nup; i++) f->up[i] = v_unit();
  *out = v_obj((Obj *)f);
  return true;
}

bool obj_cell(VM *vm, Value v, Value *out) {
  Value keep = v;
  gc_push_root(vm, &keep);
  ObjCell *c = (ObjCell *)gc_new(vm, T_CELL, sizeof(ObjCell));
  gc_pop_roots(vm, 1);
  if (!c) return false;
  c->v = keep;
  *out = v_obj((Obj *)c);
  return true;
}

/* The deferred call of an async function: the function and a copy of its
 * arguments, run by await. */
bool obj_async(VM *vm, Value fn, const Value *args, uint32_t nargs, Value *out) {
  ObjAsync *a = (ObjAsync *)gc_alloc(vm, T_ASYNC, sizeof(ObjAsync) + nargs * sizeof(Value));
  if (!a) return false;
  a->fn = fn;
  a->nargs = nargs;
  for (uint32_t i = 0; i < nargs; i++) a->args[i] = args[i];
  *out = v_obj((Obj *)a);
  return true;
}

/* ---- Ints ----------------------------------------------------------------- */

/* The single place every Int result passes: values inside 64 bits (and
 * max_integer_bits) stay inline; anything larger is checked against
 * max_integer_bits (E504) and boxed. The limb bytes are counted as part of
 * the object so the heap limit sees big Ints too. */
bool obj_int_from_mpz(VM *vm, const mpz_t z, Value *out) {
  if (mpz_fits_slong_p(z) && sizeof(long) == 8) {
    int64_t i = (int64_t)mpz_get_si(z);
    if (i > vm->small_int_max || i < -vm->small_int_max) {
      if (!vm_check_bits_big(vm, z)) return false;
    }
    *out = v_int(i);
    return true;
  }
  if (!vm_check_bits_big(vm, z)) return false;
  size_t limbs = mpz_size(z) * sizeof(mp_limb_t);
  ObjBigInt *b = (ObjBigInt *)gc_alloc(vm, T_BIGINT, sizeof(ObjBigInt) + limbs);
  if (!b) return false;
  mpz_init_set(b->z, z);
  *out = v_obj((Obj *)b);
  return true;
}

void obj_int_to_mpz(Value v, mpz_t z) {
  if (v.tag == T_INT) mpz_set_si(z, (long)v.as.i);
  else mpz_set(z, AS_BIG(v)->z);
}

/* Int literal text -> value. perm literals (program constants) are not
 * held to max_integer_bits at compile time: the reference raises only when
 * such a value takes part in arithmetic. */
bool obj_int_from_text(VM *vm, const char *digits, size_t len, bool perm, Value *out) {
  if (len <= 18) {
    int64_t x = 0;
    for (size_t i = 0; i < len; i++) x = x * 10 + (digits[i] - '0');
    *out = v_int(x);
    if (x > vm->small_int_max) {
      mpz_t z;
      mpz_init_set_si(z, (long)x);
      bool ok = vm_check_bits_big(vm, z);
      mpz_clear(z);
      return ok;
    }
    return true;
  }
  char *tmp = malloc(len + 1);
  if (!tmp) return vm_raise_oom(vm);
  memcpy(tmp, digits, len);
  tmp[len] = '\0';
  mpz_t z;
  mpz_init_set_str(z, tmp, 10);
  free(tmp);
  bool ok;
  if (!perm) {
    ok = obj_int_from_mpz(vm, z, out);
  } else if (mpz_fits_slong_p(z)) {
    *out = v_int((int64_t)mpz_get_si(z));
    ok = true;
  } else {
    size_t limbs = mpz_size(z) * sizeof(mp_limb_t);
    ObjBigInt *b = (ObjBigInt *)gc_alloc_perm(vm, T_BIGINT, sizeof(ObjBigInt) + limbs);
    ok = b != NULL;
    if (b) {
      mpz_init_set(b->z, z);
      *out = v_obj((Obj *)b);
    }
  }
  mpz_clear(z);
  return ok;
}
