/* Heap allocator and mark-and-sweep garbage collector (see gc.h). */
#include "gc.h"

#include <stdio.h>

static void free_object(VM *vm, Obj *o);

/* ---- allocation ------------------------------------------------------------ */

static bool over_limit(const VM *vm, size_t extra) {
  return vm->heap_limit && vm->bytes + extra > vm->heap_limit;
}

/* Make room for `size` more bytes: collect when the heap has grown past
 * next_gc, or would pass the limit. A collection the limit forces (next_gc
 * is capped at the limit once the heap passes half of it) that leaves the
 * heap within 1/16 of the limit counts as exhausted, so a program living at
 * the limit fails promptly instead of collecting again after every little
 * garbage it frees: each such collection marks the whole heap, and without
 * this a builtin filling the budget while freeing a few percent per pass
 * converged on the limit in a dozen or more full passes. */
static bool make_room(VM *vm, size_t size) {
#ifdef GENO_GC_STRESS
  if (!vm->gc_running) gc_collect(vm);
#endif
  if ((vm->alloc_since_poll += size) > VM_ALLOC_POLL_BYTES && !vm_alloc_poll(vm)) return false;
  bool forced = over_limit(vm, size) || (vm->heap_limit && vm->next_gc >= vm->heap_limit && vm->bytes + size > vm->next_gc);
  if (forced) {
    gc_collect(vm);
    if (vm->bytes + size > vm->heap_limit - vm->heap_limit / 16) return vm_raise_oom_need(vm, size);
  } else if (vm->bytes + size > vm->next_gc) {
    gc_collect(vm);
  }
  return true;
}

/* ---- small-object pools ----------------------------------------------------
 * Objects of up to POOL_MAX_SIZE bytes come from per-size-class free lists
 * carved out of POOL_CHUNK_BYTES chunks: allocation and freeing are a list
 * push/pop, and a freed block is reused next, while it is still in cache.
 * Chunks go back to the system when the VM is freed. Sanitizer builds use
 * malloc/free for every object so use-after-free stays detectable. */
#if defined(__has_feature)
#if __has_feature(address_sanitizer) /* clang's spelling of __SANITIZE_ADDRESS__ */
#define GC_ASAN 1
#endif
#endif
#if !defined(__SANITIZE_ADDRESS__) && !defined(GC_ASAN) && !defined(GENO_GC_STRESS)
#define GC_USE_POOLS 1
#endif

#ifdef GC_USE_POOLS
static size_t size_class(size_t size) { return (size + POOL_GRAIN - 1) / POOL_GRAIN; }

static void *pool_alloc(VM *vm, size_t cls) {
  PoolBlock *b = vm->pool_free[cls];
  if (b) {
    vm->pool_free[cls] = b->next;
    return b;
  }
  size_t bsize = cls * POOL_GRAIN;
  if (vm->pool_left < bsize) {
    PoolChunk *c = malloc(sizeof(PoolChunk) + POOL_CHUNK_BYTES);
    if (!c) return NULL;
    c->next = vm->pool_chunks;
    vm->pool_chunks = c;
    vm->pool_cursor = (char *)(c + 1);
    vm->pool_left = POOL_CHUNK_BYTES;
  }
  void *p = vm->pool_cursor;
  vm->pool_cursor += bsize;
  vm->pool_left -= bsize;
  return p;
}
#endif

static void *block_alloc(VM *vm, size_t size) {
#ifdef GC_USE_POOLS
  size_t cls = size_class(size);
  if (cls < POOL_CLASSES) return pool_alloc(vm, cls);
#endif
  return malloc(size);
}

static void block_free(VM *vm, void *p, size_t size) {
#ifdef GC_USE_POOLS
  size_t cls = size_class(size);
  if (cls < POOL_CLASSES) {
    PoolBlock *b = p;
    b->next = vm->pool_free[cls];
    vm->pool_free[cls] = b;
    return;
  }
#else
#endif
  free(p);
}

static void *raw_alloc(VM *vm, size_t size) {
  if (!make_room(vm, size)) return NULL;
  void *p = block_alloc(vm, size);
  if (!p) {
    gc_collect(vm);
    p = block_alloc(vm, size);
    if (!p) {
      vm_raise_oom_need(vm, size);
      return NULL;
    }
  }
  vm->bytes += size;
  return p;
}

Obj *gc_alloc(VM *vm, ValueTag kind, size_t size) {
  /* Obj.size is 32 bits; only a host configured with a huge collection
   * limit could ask for more in one object, and that is out of memory. */
  if (size > UINT32_MAX) {
    vm_raise_oom_need(vm, size);
    return NULL;
  }
  Obj *o = raw_alloc(vm, size);
  if (!o) return NULL;
  o->kind = (uint8_t)kind;
  o->marked = 0;
  o->perm = 0;
  o->size = (uint32_t)size;
  o->next = vm->objects;
  vm->objects = o;
  return o;
}

/* Constants of the compiled program. They are bounded by the size of the
 * source, not by what the program does, so the heap limit (a limit on the
 * program's data) does not apply; only a host out of memory fails here. */
Obj *gc_alloc_perm(VM *vm, ValueTag kind, size_t size) {
  if (size > UINT32_MAX) return NULL;
  Obj *o = malloc(size);
  if (!o) return NULL;
  vm->bytes += size;
  o->kind = (uint8_t)kind;
  o->marked = 0;
  o->perm = 1;
  o->size = (uint32_t)size;
  o->next = vm->perm;
  vm->perm = o;
  return o;
}

void *gc_realloc_aux(VM *vm, void *ptr, size_t old_bytes, size_t new_bytes) {
  if (new_bytes > old_bytes && !make_room(vm, new_bytes - old_bytes)) return NULL;
  void *p = realloc(ptr, new_bytes ? new_bytes : 1);
  if (!p) {
    vm_raise_oom_need(vm, new_bytes > old_bytes ? new_bytes - old_bytes : 0);
    return NULL;
  }
  vm->bytes = vm->bytes - old_bytes + new_bytes;
  return p;
}

void gc_free_aux(VM *vm, void *ptr, size_t bytes) {
  if (!ptr) return;
  free(ptr);
  vm->bytes -= bytes < vm->bytes ? bytes : vm->bytes;
}

bool gc_reserve(VM *vm, size_t bytes) {
  if (!make_room(vm, bytes)) return false;
  vm->bytes += bytes;
  return true;
}

void gc_charge(VM *vm, ptrdiff_t bytes) {
  if (bytes < 0 && (size_t)-bytes > vm->bytes) vm->bytes = 0;
  else vm->bytes = (size_t)((ptrdiff_t)vm->bytes + bytes);
}

/* ---- marking --------------------------------------------------------------- */

/* Push a marked object for scanning. If the mark stack cannot grow (the
 * host is out of memory), the object stays marked but unscanned and
 * gc_collect rescans the heap for such objects afterwards, so marking
 * still completes. */
static void gray_push(VM *vm, Obj *o) {
  if (vm->ngray == vm->graycap) {
    size_t cap = vm->graycap ? vm->graycap * 2 : 256;
    Obj **g = realloc(vm->gray, cap * sizeof *g);
    if (!g) {
      vm->gray_overflow = true;
      return;
    }
    vm->gray = g;
    vm->graycap = cap;
  }
  vm->gray[vm->ngray++] = o;
}

static inline void mark_obj(VM *vm, Obj *o) {
  if (!o || o->marked || o->perm) return;
  o->marked = 1;
  gray_push(vm, o);
}

static inline void mark_value(VM *vm, Value v) {
  if (IS_OBJ(v)) mark_obj(vm, v.as.o);
}

static void mark_values(VM *vm, const Value *vs, size_t n) {
  for (size_t i = 0; i < n; i++) mark_value(vm, vs[i]);
}

static void blacken(VM *vm, Obj *o) {
  switch ((ValueTag)o->kind) {
    case T_STRING: mark_obj(vm, (Obj *)((ObjString *)o)->buf); break;
    case T_LIST: {
      ObjList *l = (ObjList *)o;
      if (l->store) mark_obj(vm, l->store); /* a view keeps its storage alive */
      else mark_values(vm, l->inl, l->len);
      break;
    }
    case T_LISTBUF: {
      ObjListBuf *b = (ObjListBuf *)o;
      mark_values(vm, b->items, b->used);
      break;
    }
    case T_TUPLE: {
      ObjTuple *t = (ObjTuple *)o;
      mark_values(vm, t->items, t->n);
      break;
    }
    case T_CTOR: {
      ObjCtor *c = (ObjCtor *)o;
      mark_values(vm, c->fields, (size_t)c->info->nfields);
      break;
    }
    case T_MAP:
    case T_MMAP:
    case T_SET: {
      HTable *t = &((ObjMap *)o)->t;
      for (size_t i = 0; i < t->nentries; i++) {
        if (t->entries[i].key.tag == T_MISSING) continue;
        mark_value(vm, t->entries[i].key);
        mark_value(vm, t->entries[i].val);
      }
      break;
    }
    case T_ARRAY:
    case T_VEC: {
      ObjArray *a = (ObjArray *)o;
      mark_values(vm, a->items, a->len);
      break;
    }
    case T_FUNC: {
      ObjFunc *f = (ObjFunc *)o;
      mark_values(vm, f->up, f->nup);
      break;
    }
    case T_ASYNC: {
      ObjAsync *a = (ObjAsync *)o;
      mark_value(vm, a->fn);
      mark_values(vm, a->args, a->nargs);
      break;
    }
    case T_CELL: mark_value(vm, ((ObjCell *)o)->v); break;
    default: break; /* BIGINT, STRBUF, BUILTIN: no references */
  }
}

/* THE root set. Everything reachable from here survives a collection;
 * every other object is freed. */
static void gc_mark_roots(VM *vm) {
  /* 1. The value stack: every register of every active frame, and the
   *    arguments vm_call has placed above the top frame (all below sp). */
  if (vm->stack) mark_values(vm, vm->stack, (size_t)(vm->sp - vm->stack));
  /* 2. The closures of active frames (their upvalues are live). */
  for (int i = 0; i < vm->nframes; i++) mark_obj(vm, (Obj *)vm->frames[i].fn);
  /* 3. C temporaries pinned by builtins and VM helpers. */
  for (int i = 0; i < vm->nroots; i++) mark_value(vm, *vm->roots[i]);
  /* 4. The value of an error in flight (a thrown constructor). */
  if (vm->err.active) mark_value(vm, vm->err.value);
  /* 5. Functions lent to the host, which may call them until the run ends. */
  mark_values(vm, vm->lent_fns, vm->nlent_fns);
  /* Image constants, cached function/builtin values and field-less
   * constructors are perm objects: never swept, so not marked here. */
}

/* ---- sweeping ---------------------------------------------------------------- */

static void free_object(VM *vm, Obj *o) {
  switch ((ValueTag)o->kind) {
    case T_BIGINT: mpz_clear(((ObjBigInt *)o)->z); break;
    case T_STRING:
      /* The string cursor must not outlive its string (the address may be
       * reused); while the string lives it stays valid across collections,
       * so what a lookup costs never depends on when the GC ran. */
      if (vm->scur_str == (const ObjString *)o) vm->scur_str = NULL;
      break;
    case T_MAP:
    case T_MMAP:
    case T_SET: {
      HTable *t = &((ObjMap *)o)->t;
      gc_free_aux(vm, t->entries, t->ecap * sizeof(HEntry));
      gc_free_aux(vm, t->index, t->icap * sizeof(HIndex));
      break;
    }
    case T_ARRAY:
    case T_VEC: {
      ObjArray *a = (ObjArray *)o;
      gc_free_aux(vm, a->items, a->cap * sizeof(Value));
      break;
    }
    default: break;
  }
  vm->bytes -= o->size < vm->bytes ? o->size : vm->bytes;
  if (o->perm) free(o); /* perm objects come from malloc, not the pools */
  else block_free(vm, o, o->size);
}

void gc_collect(VM *vm) {
  if (vm->gc_running) return;
  vm->gc_running = true;
  vm->collections++;
  vm->gray_overflow = false;
  gc_mark_roots(vm);
  while (vm->ngray > 0) blacken(vm, vm->gray[--vm->ngray]);
  while (vm->gray_overflow) {
    /* Rescan every marked object (blackening twice is harmless). */
    vm->gray_overflow = false;
    for (Obj *o = vm->objects; o; o = o->next) {
      if (!o->marked) continue;
      blacken(vm, o);
      while (vm->ngray > 0) blacken(vm, vm->gray[--vm->ngray]);
    }
  }
  Obj **link = &vm->objects;
  while (*link) {
    Obj *o = *link;
    if (o->marked) {
      o->marked = 0;
      link = &o->next;
    } else {
      *link = o->next;
      free_object(vm, o);
    }
  }
  size_t next = vm->bytes * 2;
  vm->next_gc = next > GC_MIN_THRESHOLD ? next : GC_MIN_THRESHOLD;
  if (vm->heap_limit && vm->next_gc > vm->heap_limit) vm->next_gc = vm->heap_limit;
  vm->gc_running = false;
}

void gc_free_all(VM *vm) {
  Obj *lists[2] = {vm->objects, vm->perm};
  for (int k = 0; k < 2; k++) {
    Obj *o = lists[k];
    while (o) {
      Obj *next = o->next;
      free_object(vm, o);
      o = next;
    }
  }
  vm->objects = vm->perm = NULL;
  while (vm->pool_chunks) {
    PoolChunk *c = vm->pool_chunks;
    vm->pool_chunks = c->next;
    free(c);
  }
  memset(vm->pool_free, 0, sizeof vm->pool_free);
  vm->pool_left = 0;
  free(vm->gray);
  vm->gray = NULL;
  vm->ngray = vm->graycap = 0;
}
