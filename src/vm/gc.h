/* The VM heap: one counting allocator and a precise mark-and-sweep
 * collector.
 *
 * Every heap object and every auxiliary buffer hanging off one (table
 * arrays, Array/Vec storage, GMP limbs are estimated) goes through
 * gc_alloc / gc_realloc_aux, which count bytes. When the count passes
 * next_gc the collector runs first; when live bytes after a collection
 * still exceed the heap limit, the allocation fails with E504 (never a
 * crash). Allocation functions return NULL after raising that error.
 *
 * Roots are listed in exactly one place, gc_mark_roots() in gc.c. C code
 * holding a Value across an allocation pins it with vm_push_root. A build
 * with -DGENO_GC_STRESS=1 collects before every allocation. */
#ifndef GENO_VM_GC_H
#define GENO_VM_GC_H

#include "vm.h"

/* First collection after this many bytes; later ones when the heap has
 * doubled since the last collection. Small enough that short programs stay
 * small, large enough that tiny loops do not collect constantly. */
#define GC_MIN_THRESHOLD ((size_t)4 << 20)

/* A new object of `size` bytes (header included), kind set, linked into
 * the heap. NULL after raising E504. */
Obj *gc_alloc(VM *vm, ValueTag kind, size_t size);
/* The same, but owned by the image: never swept (constants). */
Obj *gc_alloc_perm(VM *vm, ValueTag kind, size_t size);
/* Resize an auxiliary buffer owned by an object, charging the difference.
 * NULL (after raising E504) leaves *ptr unchanged. */
void *gc_realloc_aux(VM *vm, void *ptr, size_t old_bytes, size_t new_bytes);
void gc_free_aux(VM *vm, void *ptr, size_t bytes);
/* Charge (or refund, negative) bytes allocated outside gc (GMP limbs). */
void gc_charge(VM *vm, ptrdiff_t bytes);
/* Charge `bytes` the caller is about to allocate outside the heap (a
 * temporary C buffer whose size the program controls) BEFORE allocating
 * them: collects first if that makes room, else E504 and false. Give them
 * back with gc_charge(vm, -bytes) when the buffer is freed. */
bool gc_reserve(VM *vm, size_t bytes);

void gc_collect(VM *vm);
/* Free every object, perm ones included (VM teardown). */
void gc_free_all(VM *vm);

/* Pin a C local across allocations; pops must balance. */
static inline void gc_push_root(VM *vm, Value *slot) {
  GENO_ASSERT(vm->nroots < VM_MAX_ROOTS);
  vm->roots[vm->nroots++] = slot;
}

static inline void gc_pop_roots(VM *vm, int n) {
  GENO_ASSERT(n >= 0 && n <= vm->nroots);
  vm->nroots -= n;
}

/* gc_alloc's common case inline: a free pooled block and no collection
 * due. Everything else (and every allocation in sanitizer and stress
 * builds, which keep the pools empty) takes the full path. */
static inline Obj *gc_new(VM *vm, ValueTag kind, size_t size) {
  size_t cls = (size + POOL_GRAIN - 1) / POOL_GRAIN;
  PoolBlock *b;
  if (cls < POOL_CLASSES && (b = vm->pool_free[cls]) != NULL && vm->bytes + size <= vm->next_gc) {
    vm->pool_free[cls] = b->next;
    vm->bytes += size;
    Obj *o = (Obj *)b;
    o->kind = (uint8_t)kind;
    o->marked = 0;
    o->perm = 0;
    o->size = (uint32_t)size;
    o->next = vm->objects;
    vm->objects = o;
    return o;
  }
  return gc_alloc(vm, kind, size);
}

#endif
