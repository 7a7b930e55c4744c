/* Compiled code: instructions, function prototypes and the program image
 * the compiler produces and the VM runs.
 *
 * Ownership: an Image owns every Proto, CtorInfo and table in it (plain
 * malloc, freed by img_free). Constants are heap objects marked `perm`
 * (never swept, freed with the VM). Names are interned strings borrowed
 * from the front end's Program, which outlives the image. */
#ifndef GENO_VM_CHUNK_H
#define GENO_VM_CHUNK_H

#include <stdio.h>

#include "../base/diag.h"
#include "value.h"

typedef enum OpCode {
#define OPCODE(name, fmt, checks) BC_##name,
#include "opcodes.h"
#undef OPCODE
  BC__COUNT
} OpCode;

/* Name of an opcode ("ADD"), for the disassembler and tests. */
const char *vm_op_name(int op);
/* The table's other columns (opcodes.h), by opcode: the operand format
 * ("ABC+X") and whether the instruction charges its step weight and checks
 * the limits. The compiler places weight and EXTRA words by them. */
extern const char *const vm_op_formats[BC__COUNT];
extern const bool vm_op_checks[BC__COUNT];
struct Proto;
/* Print a function's code (and its nested lambdas'). */
void vm_disasm(const struct Proto *p, FILE *out);

typedef struct Insn {
  uint8_t op;
  uint8_t w; /* step weight (see opcodes.h) */
  uint16_t a;
  union {
    struct {
      uint16_t b, c;
    };
    int32_t sbx;
    uint32_t bx;
  };
} Insn;

_Static_assert(sizeof(Insn) == 8, "instructions are 8 bytes");

/* Register operands are 16 bits; a function needing more registers than
 * this is rejected by the compiler with a diagnostic. */
#define VM_MAX_REGS 65000

/* Source position of one instruction. */
typedef struct LineInfo {
  int32_t line, col;
} LineInfo;

/* A try/catch region: an error raised while ip is in [start, end) of this
 * function is caught here if it is catchable and matches. */
typedef struct Handler {
  uint32_t start, end, target; /* instruction indexes */
  uint16_t reg;                /* where the caught value goes */
  int32_t type_id;             /* catch e: T -> T's type id; -1 = String */
} Handler;

/* How a closure captures one variable of its parent. */
typedef struct UpvalDesc {
  bool from_local; /* parent register (true) or parent upvalue (false) */
  bool is_cell;    /* a captured `var` (shared cell) or a value copy */
  uint16_t index;
} UpvalDesc;

typedef struct Proto {
  const char *name;    /* "main", "anonymous" for lambdas */
  const char *file;
  Span span;           /* the definition (func keyword / lambda) */
  Insn *code;
  LineInfo *lines;     /* parallel to code */
  uint32_t ncode;
  Value *k;            /* constants (perm heap objects or inline values) */
  uint32_t nk;
  struct Proto **protos; /* nested lambdas */
  uint32_t nprotos;
  UpvalDesc *upvals;
  uint32_t nupvals;
  Handler *handlers;   /* innermost first */
  uint32_t nhandlers;
  uint16_t nparams;
  uint16_t nrequired;  /* parameters without a default */
  uint16_t nregs;
  bool is_async;
  const char **param_names;
  Obj *fn_value;       /* cached ObjFunc for top-level functions */
} Proto;

/* One trait method name and its implementations, by ADT. */
typedef struct TraitTable {
  const char *name;
  Proto **impl;      /* indexed by type id; NULL = no implementation */
  int fallback;      /* top-level function of the same name, or -1 */
  int fallback_builtin; /* else a builtin of that name, or -1 */
  const char **param_names; /* of the first implementation (named args) */
  int nparams;
} TraitTable;

/* An `example` clause to verify before main (or under geno test). */
typedef struct ExampleCase {
  Proto *fn;       /* the function under test */
  Proto *thunk;    /* computes (input, expected) */
  Span span;       /* the example clause */
  const char *qualified; /* name shown by geno test ("f", "Shape.Show.area") */
} ExampleCase;

typedef struct TestCase {
  const char *name;
  size_t name_len;
  Proto *body;
  Span span;
} TestCase;

typedef struct Image {
  Proto **funcs;       /* top-level functions, by global index */
  int nfuncs;
  Proto *main;         /* entry module's main, or NULL */
  bool app_mode;       /* init/update/render without main: nothing runs */
  CtorInfo **ctors;    /* by constructor id */
  int nctors;
  const char **type_names; /* by type id */
  int ntypes;
  TraitTable *traits;
  int ntraits;
  const char **names;  /* field and hole names referenced by N[x] */
  int nnames;
  ExampleCase *examples;     /* verified by geno run */
  int nexamples;
  ExampleCase *impl_examples; /* only under geno test */
  int nimpl_examples;
  TestCase *tests;
  int ntests;
  Proto **all;         /* every proto, for freeing */
  int nall;
} Image;

void img_free(Image *img);

/* Well-known constructor ids: the compiler registers the built-in ADTs
 * first, in this order. */
enum {
  CTOR_SOME = 0,
  CTOR_NONE,
  CTOR_OK,
  CTOR_ERR,
};

#endif
