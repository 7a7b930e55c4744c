/* The bytecode compiler: AST (optionally typed) to an Image.
 *
 * compile.c      driver: modules, scopes of names, ADTs, traits, functions,
 *                examples, tests; emission, registers, locals, upvalues
 * compile_expr.c expressions and calls
 * compile_stmt.c statements, patterns and match
 *
 * Registers: a function's parameters occupy R[0..nparams); locals get the
 * next free register when declared and keep it until their block ends;
 * temporaries live above the locals and are released after each
 * statement. No name is looked up at run time: locals are registers,
 * captured variables upvalue slots, top-level functions and builtins
 * indexes baked into CALLG/CALLB.
 *
 * Captured variables: a `let` (or parameter, loop or pattern variable)
 * captured by a lambda is copied into the closure, since it cannot change.
 * A `var` that some nested lambda mentions is "boxed": its register holds
 * a cell shared with the closures, so assignments are seen both ways; a
 * fresh cell is made each time the declaration runs, which gives each loop
 * iteration its own variable.
 *
 * Types: the checker has run (src/check/types.h): Int-to-Float promotion
 * points are marked on statements (CHK_AUX_PROMOTE_FLOAT) and match
 * expressions carry their static type.
 *
 * Steps: every AST statement and expression visited adds one to the
 * function's pending weight; branch instructions carry it (opcodes.h). */
#ifndef GENO_VM_COMPILE_H
#define GENO_VM_COMPILE_H

#include <setjmp.h>

#include "../check/builtin_table.h"
#include "../syntax/ast.h"
#include "chunk.h"
#include "vm.h"

/* Compile `prog` (parsed, and checked if a checker ran) for `vm`.
 * Problems the compiler itself finds (a function too large, ...) go to
 * diags; returns NULL when there are any. */
Image *cg_compile(VM *vm, Program *prog, DiagList *diags);

/* ---- internals shared by compile*.c ------------------------------------- */

/* Depth of an assignment target like a.b[i].c: the containers along the
 * path live in registers while the path is rebuilt. Real programs use a
 * handful; deeper targets are a compile error, never a silent truncation. */
#define CG_MAX_PATH 64
/* Names one `let (a, b, ...) = t` may bind: GETTUPLE packs the index and
 * the expected size into one 16-bit operand, a byte each. */
#define CG_MAX_DESTRUCT 255

/* A pointer-keyed hash map (interned names -> int). */
typedef struct CgMap {
  const void **keys;
  int *vals;
  size_t cap; /* power of two or 0 */
  size_t count;
} CgMap;

void cgm_free(CgMap *m);
bool cgm_put(CgMap *m, const void *key, int val);
/* -1 when absent */
int cgm_get(const CgMap *m, const void *key);

/* What a name means in a module's scope. */
typedef enum ScopeKind { SK_NONE, SK_FUNC, SK_BUILTIN } ScopeKind;

typedef struct ModScope {
  Module *mod;
  bool has_exports;   /* some declaration is `export`ed */
  CgMap funcs;     /* name -> global function index (own and imported) */
  CgMap modules;   /* module name or alias -> module index */
} ModScope;

typedef struct Local {
  const char *name;
  uint16_t reg;
  bool is_cell;  /* boxed `var` */
  bool is_var;
  int depth;
} Local;

typedef struct JumpList {
  int *at; /* instruction indexes to patch */
  int n, cap;
} JumpList;

typedef struct LoopCtx {
  struct LoopCtx *outer;
  JumpList breaks;
  JumpList conts;   /* patched to cont_target when known */
  int cont_target;  /* -1 until known */
  int depth;        /* scope depth of the loop statement */
} LoopCtx;

typedef struct UpvalName {
  const char *name;
  bool is_cell;
} UpvalName;

struct Cg;

typedef struct FuncState {
  struct Cg *cg;
  struct FuncState *parent;
  ModScope *scope;
  Proto *p;
  int capcode, capk, capprotos, capup, caphandlers;
  int *kindex;         /* constant dedup index (see cg_const) */
  size_t kcap;
  UpvalName *upnames;
  Local *locals;
  int nlocals, caplocals;
  int depth;           /* block nesting */
  int *enter_free;     /* freereg when each open block was entered */
  int capenter;
  int freereg;
  int maxreg;
  int pending;         /* step weight not yet placed on an instruction */
  LoopCtx *loop;
  CgMap captured;     /* names mentioned in nested lambdas (boxing) */
  bool in_lambda;
  int result_reg;      /* `result` for ensures, or -1 */
  JumpList to_epilogue;/* returns that go through ensures */
  Span span;           /* position recorded for emitted instructions */
  bool hide_locals;    /* compiling a default value: only globals visible */
  const struct Expr *discard; /* the expression of the statement being compiled, whose value is unused */
} FuncState;

typedef struct Cg {
  VM *vm;
  Program *prog;
  Image *img;
  DiagList *diags;
  ModScope *scopes;    /* one per module */
  int nscopes;
  CgMap ctors;        /* name -> ctor id */
  CgMap types;        /* ADT name -> type id */
  CgMap traits;       /* method name -> trait method index */
  CgMap names;        /* N[] table */
  jmp_buf oom;         /* host out of memory: cg_oom jumps to cg_compile */
  FuncDecl **fdecls;   /* by global index */
  ModScope **fscope;   /* scope each function was declared in */
  bool failed;
} Cg;

/* emission: an instruction whose row in opcodes.h charges steps takes the
 * pending weight (vm_op_checks), the others carry none */
int cg_emit(FuncState *fs, OpCode op, int a, int b, int c);
int cg_emit_bx(FuncState *fs, OpCode op, int a, int32_t bx);
/* A jump-carrying instruction (+X format or sbx jump): returns the index
 * of the word holding the offset, for cg_patch. */
int cg_emit_jump(FuncState *fs, OpCode op, int a, int b, int c);
void cg_patch(FuncState *fs, int at, int target);
void cg_patch_here(FuncState *fs, int at);
void cg_jl_add(FuncState *fs, JumpList *jl, int at);
void cg_jl_patch_here(FuncState *fs, JumpList *jl);
void cg_jl_free(JumpList *jl);
/* Place pending weight before a label. */
void cg_flush(FuncState *fs);
int cg_here(FuncState *fs);

/* registers, scopes, locals */
int cg_reserve(FuncState *fs, int n);
int cg_nactive(FuncState *fs); /* first register above live locals */
void cg_enter(FuncState *fs);
void cg_leave(FuncState *fs);
Local *cg_add_local(FuncState *fs, const char *name, int reg, bool is_var);
int cg_const(FuncState *fs, Value v);
int cg_name(Cg *cg, const char *name);

/* name resolution */
typedef enum VarKind { VAR_NONE, VAR_LOCAL, VAR_UPVAL } VarKind;
typedef struct VarRef {
  VarKind kind;
  int index;     /* register or upvalue slot */
  bool is_cell;
  bool is_var;
} VarRef;
VarRef cg_resolve(FuncState *fs, const char *name);
/* Global function index visible as `name` in the current module, or -1. */
int cg_find_func(FuncState *fs, const char *name);
/* Builtin index for `name` (unqualified), or -1. */
int cg_find_builtin(FuncState *fs, const char *name);
/* Builtin b (an index into the builtin table) is the one named `name`. */
/* Row b of the builtin table (NULL when out of range). */
const BuiltinDef *cg_builtin(FuncState *fs, int b);
bool cg_builtin_is(FuncState *fs, int b, const char *name);
/* `Mod.name`: sets *fidx (function) or *bidx (builtin); false if Mod is
 * not a module visible here. */
bool cg_find_qualified(FuncState *fs, const char *mod, const char *name, int *fidx, int *bidx);
const CtorInfo *cg_find_ctor(Cg *cg, const char *name);
/* The checker's verdict that e is statically Float (match expressions
 * promote their arms' Int values then). */
bool cg_expr_is_float(const Expr *e);
void cg_error(Cg *cg, const Span *sp, int code, const char *fmt, ...) GENO_PRINTF(4, 5);
/* The host ran out of memory: abandon the compilation (cg_compile reports
 * it as a diagnostic; transient compiler buffers are not freed then). */
GENO_NORETURN void cg_oom(Cg *cg);

/* expressions (compile_expr.c): result in dst, or any register when
 * dst < 0 (possibly a local's own register, which must not be written). */
int cg_expr(FuncState *fs, Expr *e, int dst);
/* Jump to the returned list when cond is false (or true when `when`). */
void cg_cond_jump(FuncState *fs, Expr *e, bool when, JumpList *out);
/* A nested function (lambda / top-level): compile into a Proto. */
Proto *cg_function(Cg *cg, FuncState *parent, ModScope *scope, const char *name, Span span, Param *params,
                   int nparams, Block *body, Expr *expr_body, FuncDecl *decl);

/* statements (compile_stmt.c) */
void cg_block(FuncState *fs, Block *b);
void cg_stmt(FuncState *fs, Stmt *s);
/* match (statement or expression): arms compile bodies or values into dst */
void cg_match(FuncState *fs, Expr *scrutinee, MatchArm *arms, int narms, bool is_expr, int dst, Span span,
              bool promote);
/* The return sequence for the value in register r: Int-to-Float
 * promotion when `promote`, then ensures, then RET. */
void cg_return_reg(FuncState *fs, int r, bool promote);
/* Record the names nested lambdas mention (which `var`s need cells). */
void cg_collect_captures(FuncState *fs, Block *body, Expr *expr_body);

#endif
