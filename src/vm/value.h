/* Runtime values of the Geno VM: the tagged Value, the heap object layouts
 * and inline accessors.
 *
 * Invariants:
 * - A Value is 16 bytes: a tag and a payload. Unit, Bool, small Int (int64)
 *   and Float live inline; every tag >= T_BIGINT holds a pointer to a heap
 *   object whose header kind equals the tag.
 * - An Int is T_INT whenever it fits in int64_t; T_BIGINT (a GMP integer) is
 *   used only for values outside that range. Every operation normalises its
 *   result, so equal integers always have the same representation.
 * - Int and Float are distinct at run time even where the static type says
 *   Float: the reference promotes Int to Float only at a few places (see
 *   docs/ARCHITECTURE.md, "Numbers"), so printing follows the run-time tag.
 * - List, Tuple, Map, String and constructor values are immutable once they
 *   are visible to a Geno program; builders may fill them first. Array, Vec,
 *   Set and MutableMap are shared mutable references.
 * - Every heap object is owned by the GC (gc.h); C code that keeps a Value
 *   across an allocation must root it (vm_push_root in vmapi.h). */
#ifndef GENO_VM_VALUE_H
#define GENO_VM_VALUE_H

#include <gmp.h>

#include "../base/common.h"

/* Value tags. ORDER TAG: obj_kind_names in object.c follows this order. */
typedef enum ValueTag {
  T_UNIT = 0, /* () ; also the empty tuple */
  T_BOOL,
  T_INT,      /* small Int: fits in int64_t */
  T_FLOAT,
  T_MISSING,  /* internal: an argument left to its default; never user-visible */
  /* heap objects from here on */
  T_BIGINT,   /* Int outside int64_t */
  T_STRING,
  T_LIST,
  T_TUPLE,
  T_MAP,      /* immutable, insertion ordered */
  T_CTOR,     /* constructor value: Some(3), Point(x: 1, y: 2), Red */
  T_ARRAY,
  T_VEC,
  T_SET,
  T_MMAP,     /* MutableMap */
  T_FUNC,     /* closure or top-level function value */
  T_BUILTIN,  /* builtin function value */
  T_ASYNC,    /* deferred call of an async function */
  T_CELL,     /* internal: a captured `var`, shared by closures */
  T_LISTBUF,  /* internal: element storage shared by List values */
  T_STRBUF,   /* internal: byte storage shared by String values */
  T__COUNT
} ValueTag;

#define T_FIRST_OBJ T_BIGINT

typedef struct Obj Obj;

typedef struct Value {
  uint64_t tag; /* ValueTag; a full word, so writing a Value never leaves a
                   partial store that a following 8-byte load cannot forward */
  union {
    bool b;
    int64_t i;
    double f;
    Obj *o;
  } as;
} Value;

/* Header of every heap object. */
struct Obj {
  Obj *next;       /* all objects, for the sweep */
  uint8_t kind;    /* ValueTag */
  uint8_t marked;  /* GC mark of the current cycle */
  uint8_t perm;    /* owned by the compiled image: never swept */
  uint32_t size;   /* bytes charged to the heap for this object: 32 bits
                      keep the header at 16 bytes; no object is near 4 GB
                      (big element storage is a separate aux block) */
};

/* ---- object layouts ------------------------------------------------------ */

typedef struct ObjBigInt {
  Obj hdr;
  mpz_t z; /* never fits in int64_t (see the invariant above) */
} ObjBigInt;

/* Bytes of a String live either inline (after the header) or in a shared
 * ObjStrBuf that later concatenations may extend in place: `s = s + t`
 * appends to s's buffer when s ends where the buffer's used part ends, so
 * building a string in a loop is linear, not quadratic. A String never
 * sees bytes past its own length, so sharing is invisible. */
typedef struct ObjStrBuf {
  Obj hdr;
  size_t used; /* bytes claimed by some String */
  size_t cap;
  char data[];
} ObjStrBuf;

/* Lengths are 32-bit (a string over 4 GB is refused as out of memory):
 * with the 16-byte header that makes a short string 16 bytes smaller, so
 * more of a program's words share a cache line. */
typedef struct ObjString {
  Obj hdr;
  uint32_t blen;    /* bytes */
  uint32_t cplen;   /* code points */
  uint32_t hash;    /* 0 = not computed yet */
  const char *data; /* blen bytes of UTF-8; NOT NUL-terminated in general */
  ObjStrBuf *buf;   /* shared storage, or NULL when the bytes are inline */
  char inl[];       /* inline bytes when buf == NULL */
} ObjString;

/* A List keeps its elements either inline (a list made at once: a
 * literal, map's result...) or in storage it shares with other Lists:
 * - `append(xs, x)` moves the elements to an ObjListBuf with room to
 *   spare, and extends that buffer in place when xs ends where the
 *   buffer's used part ends, so appending in a loop is amortised O(1)
 *   instead of a copy per element.
 * - A contiguous sub-list (the rest of `[h, ...t]`, tail, list_drop,
 *   slice, list_take, take_while, list_chunk) is a view: `items` points
 *   into the storage of the list it came from, so walking a list by its
 *   rest pattern is linear, not quadratic. The storage is then that
 *   list's ObjListBuf, or the list itself when its elements are inline
 *   (never another view: a view of a view reads the same storage).
 * Lists are immutable, so sharing is invisible: a List never sees past its
 * own len, and nothing writes to elements a List can see.
 * Memory: a view is charged only its header (the elements are charged
 * once, to their storage), and the storage stays alive (and charged) while
 * any view of it lives. So that a small view cannot pin a much larger
 * storage, obj_list_slice copies instead of sharing when the sub-list is
 * shorter than half of the storage's used elements: a view never keeps
 * alive more than about twice its own elements (four times in bytes,
 * counting a buffer's spare room). */
typedef struct ObjListBuf {
  Obj hdr;
  size_t used;
  size_t cap;
  Value items[];
} ObjListBuf;

typedef struct ObjList {
  Obj hdr;
  size_t len;
  Obj *store;   /* shared storage: a T_LISTBUF, or the T_LIST whose inline
                   elements this view reads; NULL when the elements are
                   this list's own inline ones */
  Value *items; /* the first element: inside store, or inl */
  Value inl[];
} ObjList;

typedef struct ObjTuple {
  Obj hdr;
  uint32_t n;
  Value items[];
} ObjTuple;

/* Static description of one constructor (owned by the compiled image). */
typedef struct CtorInfo {
  const char *name;         /* interned */
  const char *type_name;    /* the ADT it belongs to (interned) */
  int type_id;              /* index of that ADT in the image */
  int id;                   /* index of this constructor in the image */
  int nfields;
  const char **field_names; /* interned, declaration order */
  Value nullary;            /* the shared value of a field-less constructor */
} CtorInfo;

typedef struct ObjCtor {
  Obj hdr;
  const CtorInfo *info;
  Value fields[];
} ObjCtor;

/* Insertion-ordered hash table shared by Map, MutableMap and Set.
 * entries[] keeps insertion order; a deleted entry has key tag T_MISSING
 * and is skipped (and squeezed out when the table grows). index[] maps
 * hash slots to entry positions + 1 (0 = empty). */
typedef struct HEntry {
  Value key;
  Value val;
  uint32_t hash;
} HEntry;

/* One index slot: position + 1 of the entry (0 = empty) and a copy of its
 * hash, so a probe that misses never has to touch entries[]. */
typedef struct HIndex {
  uint32_t pos;
  uint32_t hash;
} HIndex;

typedef struct HTable {
  HEntry *entries;
  HIndex *index;
  size_t nentries; /* used entries, deleted ones included */
  size_t live;     /* entries not deleted */
  size_t ecap;
  size_t icap;     /* power of two, or 0 */
  /* Position + 1 of the entry the last lookup found or added (0 = none)
   * and the probes that lookup took: `get` then `set` of the same key (a
   * counter update) finds it again without hashing (table.c). */
  uint32_t hint;
  uint32_t hint_probes;
} HTable;

typedef struct ObjMap {
  Obj hdr; /* kind T_MAP, T_MMAP or T_SET (then val is Unit) */
  HTable t;
} ObjMap;

typedef struct ObjArray {
  Obj hdr; /* kind T_ARRAY or T_VEC */
  size_t len;
  size_t cap;
  Value *items;
} ObjArray;

struct Proto;

typedef struct ObjFunc {
  Obj hdr;
  struct Proto *proto;
  uint32_t nup;
  Value up[]; /* captured values; a captured `var` is a T_CELL */
} ObjFunc;

struct BuiltinDef;

typedef struct ObjBuiltin {
  Obj hdr;
  const struct BuiltinDef *def;
} ObjBuiltin;

typedef struct ObjAsync {
  Obj hdr;
  Value fn; /* the async function (T_FUNC) */
  uint32_t nargs;
  Value args[];
} ObjAsync;

typedef struct ObjCell {
  Obj hdr;
  Value v;
} ObjCell;

/* ---- inline constructors and tests --------------------------------------- */

/* Unit comes in two forms that differ only at the host boundary, where
 * the reference's values are Python's None and (): v_unit() is the Unit
 * that no `()` wrote (a function that ends without a return, a builtin's
 * result), written `null` in RunResult JSON; v_unit_written() is a `()`
 * in the source or a bare `return`, written {"_tuple": []} and given to
 * hosts as an empty GENO_TUPLE. Everywhere else (equality, hashing,
 * printing, matching) the two are the same value. */
static inline Value v_unit(void) {
  Value v;
  v.tag = T_UNIT;
  v.as.i = 0;
  return v;
}

static inline Value v_unit_written(void) {
  Value v;
  v.tag = T_UNIT;
  v.as.i = 1;
  return v;
}
static inline Value v_missing(void) {
  Value v;
  v.tag = T_MISSING;
  v.as.i = 0;
  return v;
}
static inline Value v_bool(bool b) {
  Value v;
  v.tag = T_BOOL;
  v.as.i = 0;
  v.as.b = b;
  return v;
}
static inline Value v_int(int64_t i) {
  Value v;
  v.tag = T_INT;
  v.as.i = i;
  return v;
}
static inline Value v_float(double f) {
  Value v;
  v.tag = T_FLOAT;
  v.as.f = f;
  return v;
}
static inline Value v_obj(Obj *o) {
  Value v;
  v.tag = o->kind;
  v.as.o = o;
  return v;
}

#define IS_OBJ(v) ((v).tag >= T_FIRST_OBJ)
#define IS_INTLIKE(v) ((v).tag == T_INT || (v).tag == T_BIGINT)
#define IS_NUM(v) ((v).tag == T_INT || (v).tag == T_FLOAT || (v).tag == T_BIGINT)

#define AS_BIG(v) ((ObjBigInt *)(v).as.o)
#define AS_STR(v) ((ObjString *)(v).as.o)
#define AS_LIST(v) ((ObjList *)(v).as.o)
#define AS_TUPLE(v) ((ObjTuple *)(v).as.o)
#define AS_CTOR(v) ((ObjCtor *)(v).as.o)
#define AS_MAP(v) ((ObjMap *)(v).as.o)
#define AS_ARRAY(v) ((ObjArray *)(v).as.o)
#define AS_FUNC(v) ((ObjFunc *)(v).as.o)
#define AS_BUILTIN(v) ((ObjBuiltin *)(v).as.o)
#define AS_ASYNC(v) ((ObjAsync *)(v).as.o)
#define AS_CELL(v) ((ObjCell *)(v).as.o)

/* Elements of a List (valid until the next allocation only if the caller
 * does not root the list). */
static inline Value *list_items(const ObjList *l) { return l->items; }

/* Human name of a tag ("List", "Int") for error messages. */
const char *vm_tag_name(int tag);

#endif
