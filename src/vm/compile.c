/* Bytecode compiler driver: module scopes, ADTs, traits, functions,
 * examples and tests; instruction emission, registers, locals and name
 * resolution (see compile.h). */
#include "compile.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "../base/intern.h"
#include "../check/adts.h"
#include "gc.h"
#include "object.h"

/* ---- pointer map ------------------------------------------------------------ */

/* Names are interned by the front end, so every map in the compiler is keyed
 * by pointer identity: a linear-probing table with no string compares. */
static size_t ptr_hash(const void *p) {
  uintptr_t x = (uintptr_t)p;
  x ^= x >> 17;
  x *= 0xed5ad4bbu;
  x ^= x >> 11;
  return (size_t)x;
}

void cgm_free(CgMap *m) {
  free(m->keys);
  free(m->vals);
  memset(m, 0, sizeof *m);
}

int cgm_get(const CgMap *m, const void *key) {
  if (!m->cap) return -1;
  size_t mask = m->cap - 1, i = ptr_hash(key) & mask;
  while (m->keys[i]) {
    if (m->keys[i] == key) return m->vals[i];
    i = (i + 1) & mask;
  }
  return -1;
}

bool cgm_put(CgMap *m, const void *key, int val) {
  if ((m->count + 1) * 2 > m->cap) {
    size_t cap = m->cap ? m->cap * 2 : 16;
    const void **keys = calloc(cap, sizeof *keys);
    int *vals = calloc(cap, sizeof *vals);
    if (!keys || !vals) {
      free(keys);
      free(vals);
      return false;
    }
    for (size_t i = 0; i < m->cap; i++) {
      if (!m->keys[i]) continue;
      size_t j = ptr_hash(m->keys[i]) & (cap - 1);
      while (keys[j]) j = (j + 1) & (cap - 1);
      keys[j] = m->keys[i];
      vals[j] = m->vals[i];
    }
    free(m->keys);
    free(m->vals);
    m->keys = keys;
    m->vals = vals;
    m->cap = cap;
  }
  size_t mask = m->cap - 1, i = ptr_hash(key) & mask;
  while (m->keys[i] && m->keys[i] != key) i = (i + 1) & mask;
  if (!m->keys[i]) m->count++;
  m->keys[i] = key;
  m->vals[i] = val;
  return true;
}

/* The compiler's own inserts: a failed growth is a host out-of-memory,
 * reported as a diagnostic through cg_oom. */
static void cg_put(Cg *cg, CgMap *m, const void *key, int val) {
  if (!cgm_put(m, key, val)) cg_oom(cg);
}

/* First binding wins: a module's own function shadows an imported one of
 * the same name, and the first declaration of a duplicate is the one used. */
static void cgm_put_new(Cg *cg, CgMap *m, const void *key, int val) {
  if (cgm_get(m, key) < 0) cg_put(cg, m, key, val);
}

/* ---- growable arrays --------------------------------------------------------- */

/* Doubling growth; a failed realloc is a host out-of-memory (cg_oom longjmps). */
#define GROW(cg, ptr, count, cap)                                               \
  do {                                                                          \
    if ((count) >= (cap)) {                                                     \
      int ncap_ = (cap) ? (cap) * 2 : 8;                                        \
      void *np_ = realloc((ptr), (size_t)ncap_ * sizeof(*(ptr)));               \
      if (!np_) cg_oom(cg);                                                     \
      (ptr) = np_;                                                              \
      (cap) = ncap_;                                                            \
    }                                                                           \
  } while (0)

void cg_error(Cg *cg, const Span *sp, int code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  diag_vadd(cg->diags, code, sp, fmt, ap);
  va_end(ap);
  cg->failed = true;
}

/* ---- emission ------------------------------------------------------------------ */

static int emit_raw(FuncState *fs, Insn in) {
  Proto *p = fs->p;
  int cap = fs->capcode;
  if ((int)p->ncode >= cap) {
    int ncap = cap ? cap * 2 : 64;
    /* Store each grown array before checking the other, so the proto never
     * holds a pointer realloc has already freed when cg_oom unwinds. */
    Insn *code = realloc(p->code, (size_t)ncap * sizeof(Insn));
    if (!code) cg_oom(fs->cg);
    p->code = code;
    LineInfo *lines = realloc(p->lines, (size_t)ncap * sizeof(LineInfo));
    if (!lines) cg_oom(fs->cg);
    p->lines = lines;
    fs->capcode = ncap;
  }
  p->code[p->ncode] = in;
  p->lines[p->ncode].line = fs->span.line;
  p->lines[p->ncode].col = fs->span.col;
  return (int)p->ncode++;
}

static Insn mk(OpCode op, int a, int b, int c) {
  Insn in;
  memset(&in, 0, sizeof in);
  in.op = (uint8_t)op;
  in.a = (uint16_t)a;
  in.b = (uint16_t)b;
  in.c = (uint16_t)c;
  return in;
}

/* Move pending weight onto the instruction about to be emitted; weight
 * over 255 goes to STEP instructions first. */
static int take_weight(FuncState *fs) {
  while (fs->pending > 255) {
    Insn s = mk(BC_STEP, 0, 0, 0);
    s.w = 255;
    emit_raw(fs, s);
    fs->pending -= 255;
  }
  int w = fs->pending;
  fs->pending = 0;
  return w;
}

/* The pending weight goes onto an instruction whose table row says it
 * charges steps (those that can jump, call or return: see take_weight), so
 * straight-line code runs without touching the step counter. */
static Insn weighed(FuncState *fs, Insn in) {
  if (vm_op_checks[in.op]) in.w = (uint8_t)take_weight(fs);
  return in;
}

int cg_emit(FuncState *fs, OpCode op, int a, int b, int c) { return emit_raw(fs, weighed(fs, mk(op, a, b, c))); }

int cg_emit_bx(FuncState *fs, OpCode op, int a, int32_t bx) {
  Insn in = mk(op, a, 0, 0);
  in.sbx = bx;
  return emit_raw(fs, weighed(fs, in));
}

/* Instructions whose jump offset (or other wide operand) does not fit
 * beside their operands: "+X" in their format. They are followed by an
 * EXTRA word holding it (sbx), which cg_patch targets. */
static bool has_extra(OpCode op) { return strstr(vm_op_formats[op], "+X") != NULL; }

int cg_emit_jump(FuncState *fs, OpCode op, int a, int b, int c) {
  Insn in = weighed(fs, mk(op, a, b, c));
  if (has_extra(op)) {
    emit_raw(fs, in);
    Insn x = mk(BC_EXTRA, 0, 0, 0);
    return emit_raw(fs, x);
  }
  in.sbx = 0;
  in.a = (uint16_t)a;
  return emit_raw(fs, in);
}

/* Offsets are relative to the instruction after the one patched. */
void cg_patch(FuncState *fs, int at, int target) { fs->p->code[at].sbx = target - (at + 1); }

int cg_here(FuncState *fs) { return (int)fs->p->ncode; }

/* A jump target must not inherit weight owed by the code before it (the
 * other path would skip the charge), so pending weight is emitted as a
 * STEP before a label. */
void cg_flush(FuncState *fs) {
  if (fs->pending > 0) {
    int w = take_weight(fs);
    if (w > 0) {
      Insn s = mk(BC_STEP, 0, 0, 0);
      s.w = (uint8_t)w;
      emit_raw(fs, s);
    }
  }
}

void cg_patch_here(FuncState *fs, int at) {
  cg_flush(fs);
  cg_patch(fs, at, cg_here(fs));
}

void cg_jl_add(FuncState *fs, JumpList *jl, int at) {
  GROW(fs->cg, jl->at, jl->n, jl->cap);
  jl->at[jl->n++] = at;
}

void cg_jl_patch_here(FuncState *fs, JumpList *jl) {
  cg_flush(fs);
  int here = cg_here(fs);
  for (int i = 0; i < jl->n; i++) cg_patch(fs, jl->at[i], here);
  jl->n = 0;
}

void cg_jl_free(JumpList *jl) {
  free(jl->at);
  memset(jl, 0, sizeof *jl);
}

/* ---- registers, scopes, locals --------------------------------------------------- */

/* Registers are a stack above the active locals: expression temporaries are
 * reserved here and released by resetting freereg (cg_nactive) after each
 * statement. A function needing more than VM_MAX_REGS is a compile error,
 * not a crash: the operands are 16-bit. */
int cg_reserve(FuncState *fs, int n) {
  int r = fs->freereg;
  fs->freereg += n;
  if (fs->freereg > fs->maxreg) fs->maxreg = fs->freereg;
  if (fs->freereg > VM_MAX_REGS) {
    if (!fs->cg->failed)
      cg_error(fs->cg, &fs->p->span, E_RESOURCE, "Function '%s' is too large: it needs more than %d registers",
               fs->p->name ? fs->p->name : "anonymous", VM_MAX_REGS);
    fs->freereg = 0;
    return 0;
  }
  return r;
}

/* The first register not held by a live local or parameter. */
int cg_nactive(FuncState *fs) {
  int base = fs->p->nparams;
  if (fs->nlocals > 0 && fs->locals[fs->nlocals - 1].reg + 1 > base) return fs->locals[fs->nlocals - 1].reg + 1;
  return base;
}

void cg_enter(FuncState *fs) {
  GROW(fs->cg, fs->enter_free, fs->depth, fs->capenter);
  fs->enter_free[fs->depth++] = fs->freereg;
}

/* Leaving a block drops its locals; their registers become temporaries
 * again. Temporaries that were in flight when the block was entered stay
 * reserved: a block inside an expression (a match arm inside a call's
 * arguments) must not hand out the registers of the arguments already
 * evaluated. */
void cg_leave(FuncState *fs) {
  while (fs->nlocals > 0 && fs->locals[fs->nlocals - 1].depth >= fs->depth) fs->nlocals--;
  int entered = fs->enter_free[--fs->depth];
  int active = cg_nactive(fs);
  fs->freereg = entered > active ? entered : active;
}

Local *cg_add_local(FuncState *fs, const char *name, int reg, bool is_var) {
  GROW(fs->cg, fs->locals, fs->nlocals, fs->caplocals);
  Local *l = &fs->locals[fs->nlocals++];
  l->name = name;
  l->reg = (uint16_t)reg;
  l->is_var = is_var;
  l->depth = fs->depth;
  /* A `var` some nested lambda mentions lives in a cell. */
  l->is_cell = is_var && name && cgm_get(&fs->captured, name) >= 0;
  if (reg + 1 > fs->freereg) fs->freereg = reg + 1;
  if (fs->freereg > fs->maxreg) fs->maxreg = fs->freereg;
  return l;
}

/* Constants are deduplicated by (tag, payload bits) through a small
 * open-addressing index, so a function with many literals compiles in
 * linear time. */
static size_t const_hash(Value v) {
  uint64_t x = (uint64_t)v.as.i * 0x9e3779b97f4a7c15ULL ^ (uint64_t)v.tag;
  return (size_t)(x ^ (x >> 29));
}

static int const_slot_find(FuncState *fs, Value v) {
  size_t mask = fs->kcap - 1, i = const_hash(v) & mask;
  for (;;) {
    int k = fs->kindex[i];
    if (k < 0) return -1 - (int)i;
    Value c = fs->p->k[k];
    if (c.tag == v.tag && c.as.i == v.as.i) return k;
    i = (i + 1) & mask;
  }
}

int cg_const(FuncState *fs, Value v) {
  Proto *p = fs->p;
  if ((p->nk + 1) * 2 > fs->kcap) {
    size_t cap = fs->kcap ? fs->kcap * 2 : 16;
    int *idx = malloc(cap * sizeof(int));
    if (!idx) cg_oom(fs->cg);
    for (size_t i = 0; i < cap; i++) idx[i] = -1;
    free(fs->kindex);
    fs->kindex = idx;
    fs->kcap = cap;
    for (uint32_t k = 0; k < p->nk; k++) {
      int s = const_slot_find(fs, p->k[k]);
      if (s < 0) fs->kindex[-1 - s] = (int)k;
    }
  }
  int s = const_slot_find(fs, v);
  if (s >= 0) return s;
  int cap = fs->capk;
  GROW(fs->cg, p->k, (int)p->nk, cap);
  fs->capk = cap;
  p->k[p->nk] = v;
  fs->kindex[-1 - s] = (int)p->nk;
  return (int)p->nk++;
}

int cg_name(Cg *cg, const char *name) {
  int i = cgm_get(&cg->names, name);
  if (i >= 0) return i;
  Image *img = cg->img;
  const char **names = realloc(img->names, (size_t)(img->nnames + 1) * sizeof *names);
  if (!names) cg_oom(cg);
  img->names = names;
  names[img->nnames] = name;
  cg_put(cg, &cg->names, name, img->nnames);
  return img->nnames++;
}

/* ---- name resolution --------------------------------------------------------------- */

static int add_upval(FuncState *fs, const char *name, bool from_local, int index, bool is_cell) {
  Proto *p = fs->p;
  for (uint32_t i = 0; i < p->nupvals; i++)
    if (fs->upnames[i].name == name) return (int)i;
  int cap = fs->capup;
  GROW(fs->cg, p->upvals, (int)p->nupvals, cap);
  if (cap != fs->capup) {
    UpvalName *un = realloc(fs->upnames, (size_t)cap * sizeof *un);
    if (!un) cg_oom(fs->cg);
    fs->upnames = un;
  }
  fs->capup = cap;
  p->upvals[p->nupvals].from_local = from_local;
  p->upvals[p->nupvals].is_cell = is_cell;
  p->upvals[p->nupvals].index = (uint16_t)index;
  fs->upnames[p->nupvals].name = name;
  fs->upnames[p->nupvals].is_cell = is_cell;
  return (int)p->nupvals++;
}

/* Lexical resolution at compile time: innermost local, then this function's
 * upvalues, then (recursively) the enclosing function, adding an upvalue at
 * each level on the way back. Nothing here survives to run time; the VM
 * only sees register and upvalue indexes. hide_locals makes default
 * parameter expressions see only the global scope, like the reference. */
VarRef cg_resolve(FuncState *fs, const char *name) {
  VarRef r = {VAR_NONE, 0, false, false};
  if (fs->hide_locals) return r;
  for (int i = fs->nlocals - 1; i >= 0; i--) {
    Local *l = &fs->locals[i];
    if (l->name == name) {
      r.kind = VAR_LOCAL;
      r.index = l->reg;
      r.is_cell = l->is_cell;
      r.is_var = l->is_var;
      return r;
    }
  }
  for (uint32_t i = 0; i < fs->p->nupvals; i++) {
    if (fs->upnames[i].name == name) {
      r.kind = VAR_UPVAL;
      r.index = (int)i;
      r.is_cell = fs->upnames[i].is_cell;
      r.is_var = fs->upnames[i].is_cell;
      return r;
    }
  }
  if (!fs->parent) return r;
  VarRef up = cg_resolve(fs->parent, name);
  if (up.kind == VAR_NONE) return r;
  r.kind = VAR_UPVAL;
  r.index = add_upval(fs, name, up.kind == VAR_LOCAL, up.index, up.is_cell);
  r.is_cell = up.is_cell;
  r.is_var = up.is_var;
  return r;
}

int cg_find_func(FuncState *fs, const char *name) { return cgm_get(&fs->scope->funcs, name); }

/* Builtins are addressed by their row index in the VM's builtin table. */
static int builtin_index(const VM *vm, const char *name) {
  const BuiltinDef *d = chk_builtin_find(vm->builtin_table, name);
  return d ? (int)(d - vm->builtins) : -1;
}

int cg_find_builtin(FuncState *fs, const char *name) { return builtin_index(fs->cg->vm, name); }

const BuiltinDef *cg_builtin(FuncState *fs, int b) {
  const VM *vm = fs->cg->vm;
  return b >= 0 && (size_t)b < vm->nbuiltins ? &vm->builtins[b] : NULL;
}

bool cg_builtin_is(FuncState *fs, int b, const char *name) {
  const BuiltinDef *d = cg_builtin(fs, b);
  return d && strcmp(d->name, name) == 0;
}

/* A module with no `export` shows everything; otherwise only what it
 * exports. */
static bool module_visible(const ModScope *s, const FuncDecl *f) { return !s->has_exports || f->exported; }

/* `Mod.f(...)`: returns false when `Mod` is not an imported module (then the
 * caller treats the expression as a field access); *fidx stays -1 when the
 * module has no visible function of that name. */
bool cg_find_qualified(FuncState *fs, const char *mod, const char *name, int *fidx, int *bidx) {
  *fidx = *bidx = -1;
  int mi = cgm_get(&fs->scope->modules, mod);
  if (mi < 0) return false;
  Cg *cg = fs->cg;
  Module *m = cg->prog->modules[mi];
  for (int i = 0; i < cg->img->nfuncs; i++)
    if (cg->fscope[i]->mod == m && cg->fdecls[i]->name == name && module_visible(cg->fscope[i], cg->fdecls[i])) {
      *fidx = i;
      return true;
    }
  return true;
}

const CtorInfo *cg_find_ctor(Cg *cg, const char *name) {
  int i = cgm_get(&cg->ctors, name);
  return i >= 0 ? cg->img->ctors[i] : NULL;
}

/* ---- captures (which `var`s need cells) --------------------------------------------- */

/* Before a function is compiled, one walk over its body collects every name
 * mentioned inside a nested lambda. A `var` with such a name is boxed in a
 * cell (NEWCELL) so that closures and the frame share it; everything else
 * stays a plain register. Over-approximating (any name, any lambda) only
 * costs a cell, never correctness. */
typedef struct CapWalk {
  Cg *cg;
  CgMap *names;
} CapWalk;

static void cap_expr(CapWalk *w, Expr *e, bool in_lambda);
static void cap_block(CapWalk *w, Block *b, bool in_lambda);

static void cap_name(CapWalk *w, const char *name, bool in_lambda) {
  if (in_lambda && name) cg_put(w->cg, w->names, name, 1);
}

static void cap_arms(CapWalk *w, MatchArm *arms, int n, bool in_lambda) {
  for (int i = 0; i < n; i++) {
    cap_expr(w, arms[i].guard, in_lambda);
    cap_expr(w, arms[i].value, in_lambda);
    cap_block(w, &arms[i].body, in_lambda);
  }
}

static void cap_expr(CapWalk *w, Expr *e, bool in_lambda) {
  if (!e) return;
  switch (e->kind) {
    case EX_IDENT: cap_name(w, e->u.name, in_lambda); break;
    case EX_FSTRING:
      for (int i = 0; i < e->u.fstr.n; i++) cap_expr(w, e->u.fstr.pieces[i].expr, in_lambda);
      break;
    case EX_LIST:
    case EX_TUPLE:
      for (int i = 0; i < e->u.list.n; i++) cap_expr(w, e->u.list.items[i], in_lambda);
      break;
    case EX_LIST_COMP:
      cap_expr(w, e->u.comp.elem, in_lambda);
      cap_expr(w, e->u.comp.iter, in_lambda);
      cap_expr(w, e->u.comp.cond, in_lambda);
      break;
    case EX_THROW:
    case EX_AWAIT:
    case EX_PROPAGATE: cap_expr(w, e->u.operand, in_lambda); break;
    case EX_BINARY:
      cap_expr(w, e->u.bin.l, in_lambda);
      cap_expr(w, e->u.bin.r, in_lambda);
      break;
    case EX_UNARY: cap_expr(w, e->u.un.e, in_lambda); break;
    case EX_CALL:
      cap_expr(w, e->u.call.callee, in_lambda);
      for (int i = 0; i < e->u.call.nargs; i++) cap_expr(w, e->u.call.args[i].value, in_lambda);
      break;
    case EX_CTOR:
      for (int i = 0; i < e->u.ctor.nargs; i++) cap_expr(w, e->u.ctor.args[i].value, in_lambda);
      break;
    case EX_INDEX:
      cap_expr(w, e->u.index.target, in_lambda);
      cap_expr(w, e->u.index.index, in_lambda);
      break;
    case EX_FIELD: cap_expr(w, e->u.field.target, in_lambda); break;
    case EX_WITH:
      cap_expr(w, e->u.with.target, in_lambda);
      for (int i = 0; i < e->u.with.n; i++) cap_expr(w, e->u.with.inits[i].value, in_lambda);
      break;
    case EX_PIPELINE:
      cap_expr(w, e->u.pipe.init, in_lambda);
      for (int i = 0; i < e->u.pipe.n; i++) {
        cap_expr(w, e->u.pipe.stages[i].fn, in_lambda);
        for (int j = 0; j < e->u.pipe.stages[i].nargs; j++) cap_expr(w, e->u.pipe.stages[i].args[j], in_lambda);
      }
      break;
    case EX_LAMBDA:
      for (int i = 0; i < e->u.lambda.nparams; i++) cap_expr(w, e->u.lambda.params[i].def, true);
      cap_expr(w, e->u.lambda.body, true);
      cap_block(w, &e->u.lambda.block, true);
      break;
    case EX_MATCH:
      cap_expr(w, e->u.match.scrutinee, in_lambda);
      cap_arms(w, e->u.match.arms, e->u.match.n, in_lambda);
      break;
    case EX_HOLE: cap_expr(w, e->u.hole.where, in_lambda); break;
    default: break;
  }
}

/* The variable an assignment target chain starts from. */
static const char *root_name(Expr *e) {
  while (e) {
    if (e->kind == EX_IDENT) return e->u.name;
    if (e->kind == EX_FIELD) e = e->u.field.target;
    else if (e->kind == EX_INDEX) e = e->u.index.target;
    else return NULL;
  }
  return NULL;
}

/* Assignments inside a lambda also count: `xs[i] = v` or `p.f = v` in a
 * closure writes the captured variable itself. */
static void cap_stmt(CapWalk *w, Stmt *s, bool in_lambda) {
  switch (s->kind) {
    case ST_LET: cap_expr(w, s->u.let.value, in_lambda); break;
    case ST_DESTRUCT: cap_expr(w, s->u.destr.value, in_lambda); break;
    case ST_ASSIGN:
      cap_name(w, s->u.assign.name, in_lambda);
      cap_expr(w, s->u.assign.value, in_lambda);
      break;
    case ST_INDEX_ASSIGN:
      cap_name(w, root_name(s->u.index_assign.target), in_lambda);
      cap_expr(w, s->u.index_assign.target, in_lambda);
      cap_expr(w, s->u.index_assign.index, in_lambda);
      cap_expr(w, s->u.index_assign.value, in_lambda);
      break;
    case ST_FIELD_ASSIGN:
      cap_name(w, root_name(s->u.field_assign.target), in_lambda);
      cap_expr(w, s->u.field_assign.target, in_lambda);
      cap_expr(w, s->u.field_assign.value, in_lambda);
      break;
    case ST_IF:
      cap_expr(w, s->u.if_.cond, in_lambda);
      cap_block(w, &s->u.if_.then_b, in_lambda);
      cap_block(w, &s->u.if_.else_b, in_lambda);
      break;
    case ST_WHILE:
      cap_expr(w, s->u.while_.cond, in_lambda);
      cap_block(w, &s->u.while_.body, in_lambda);
      break;
    case ST_FOR:
      cap_expr(w, s->u.for_.iter, in_lambda);
      cap_block(w, &s->u.for_.body, in_lambda);
      break;
    case ST_MATCH:
      cap_expr(w, s->u.match.scrutinee, in_lambda);
      cap_arms(w, s->u.match.arms, s->u.match.n, in_lambda);
      break;
    case ST_RETURN: cap_expr(w, s->u.ret.value, in_lambda); break;
    case ST_TRY:
      cap_block(w, &s->u.try_.body, in_lambda);
      cap_block(w, &s->u.try_.handler, in_lambda);
      break;
    case ST_EXPR:
    case ST_ASSERT: cap_expr(w, s->u.expr, in_lambda); break;
    default: break;
  }
}

static void cap_block(CapWalk *w, Block *b, bool in_lambda) {
  if (!b) return;
  for (int i = 0; i < b->n; i++) cap_stmt(w, b->items[i], in_lambda);
}

void cg_collect_captures(FuncState *fs, Block *body, Expr *expr_body) {
  CapWalk w = {fs->cg, &fs->captured};
  cap_block(&w, body, false);
  cap_expr(&w, expr_body, false);
}

/* ---- functions -------------------------------------------------------------------- */

/* maxreg is already one past the highest register used; the extra slot is
 * deliberate slack (16 bytes a frame) so a register the accounting missed
 * still lies inside the frame the VM clears and the GC scans. */
static void finish_proto(FuncState *fs) {
  Proto *p = fs->p;
  p->nregs = (uint16_t)(fs->maxreg + 1);
}

static void fs_free(FuncState *fs) {
  free(fs->enter_free);
  free(fs->kindex);
  free(fs->locals);
  free(fs->upnames);
  cgm_free(&fs->captured);
  cg_jl_free(&fs->to_epilogue);
}

static void register_proto(Cg *cg, Proto *p) {
  Image *img = cg->img;
  Proto **all = realloc(img->all, (size_t)(img->nall + 1) * sizeof *all);
  if (!all) cg_oom(cg);
  img->all = all;
  all[img->nall++] = p;
}

static Proto *new_proto(Cg *cg, const char *name, Span span) {
  Proto *p = calloc(1, sizeof *p);
  if (!p) cg_oom(cg);
  p->name = name;
  p->file = span.file;
  p->span = span;
  register_proto(cg, p);
  return p;
}

static void fs_init(FuncState *fs, Cg *cg, FuncState *parent, ModScope *scope, Proto *p) {
  memset(fs, 0, sizeof *fs);
  fs->cg = cg;
  fs->parent = parent;
  fs->scope = scope;
  fs->p = p;
  fs->result_reg = -1;
  fs->in_lambda = parent != NULL;
  fs->span = p->span;
}

/* Compiles one function (top-level, impl method, lambda, test body). The
 * layout is: parameters in registers 0..n-1, then the hidden `result`
 * register when there are ensures clauses, then locals and temporaries.
 * Code: default-argument prologue, requires checks, body, and for ensures
 * an epilogue that every return jumps to (to_epilogue) with `result`
 * bound. */
Proto *cg_function(Cg *cg, FuncState *parent, ModScope *scope, const char *name, Span span, Param *params,
                   int nparams, Block *body, Expr *expr_body, FuncDecl *decl) {
  Proto *p = new_proto(cg, name, span);
  FuncState fs;
  fs_init(&fs, cg, parent, scope, p);
  p->nparams = (uint16_t)nparams;
  p->is_async = decl && decl->is_async;
  p->param_names = nparams ? calloc((size_t)nparams, sizeof(char *)) : NULL;
  if (nparams && !p->param_names) cg_oom(cg);
  cg_collect_captures(&fs, body, expr_body);
  for (int i = 0; i < nparams; i++) {
    p->param_names[i] = params[i].name;
    if (!params[i].def) p->nrequired = (uint16_t)(i + 1);
  }
  cg_reserve(&fs, nparams);
  for (int i = 0; i < nparams; i++) {
    cg_add_local(&fs, params[i].name, i, false);
  }
  if (decl && decl->nensures) {
    fs.result_reg = cg_reserve(&fs, 1);
    cg_add_local(&fs, NULL, fs.result_reg, false);
  }
  /* Defaults run in the global scope, after the explicit arguments. */
  for (int i = 0; i < nparams; i++) {
    if (!params[i].def) continue;
    fs.span = params[i].span;
    int j = cg_emit_jump(&fs, BC_TESTARG, i, 0, 0);
    fs.hide_locals = true;
    cg_expr(&fs, params[i].def, i);
    fs.hide_locals = false;
    fs.freereg = cg_nactive(&fs);
    cg_patch_here(&fs, j);
  }
  if (decl) {
    for (int i = 0; i < decl->nrequires; i++) {
      int r = cg_expr(&fs, decl->requires[i].cond, -1);
      fs.span = decl->requires[i].cond->span;
      cg_emit(&fs, BC_CHECKREQ, r, 0, 0);
      fs.freereg = cg_nactive(&fs);
    }
  }
  if (expr_body) {
    fs.pending++; /* the reference runs an expression body as a return statement */
    int r = cg_expr(&fs, expr_body, -1);
    fs.span = expr_body->span;
    cg_emit(&fs, BC_RET, r, 0, 0);
  } else {
    cg_block(&fs, body);
    fs.span = decl ? decl->end_span : span;
    if (fs.result_reg >= 0) {
      cg_emit(&fs, BC_LOADU, fs.result_reg, 0, 0);
    } else {
      cg_emit(&fs, BC_RETU, 0, 0, 0);
    }
  }
  if (fs.result_reg >= 0) {
    cg_jl_patch_here(&fs, &fs.to_epilogue);
    cg_enter(&fs);
    cg_add_local(&fs, intern_cstr(&cg->prog->names, "result"), fs.result_reg, false);
    for (int i = 0; i < decl->nensures; i++) {
      int r = cg_expr(&fs, decl->ensures[i].cond, -1);
      fs.span = decl->ensures[i].cond->span;
      cg_emit(&fs, BC_CHECKENS, r, fs.result_reg, 0);
      fs.freereg = cg_nactive(&fs);
    }
    cg_leave(&fs);
    cg_emit(&fs, BC_RET, fs.result_reg, 0, 0);
  }
  finish_proto(&fs);
  fs_free(&fs);
  return p;
}

/* An example's thunk: evaluates (input, expected) in the module scope. */
/* The returned (input, expected) tuple is compared by run.c with structural
 * equality, so an example fails only when the values differ. */
static Proto *example_thunk(Cg *cg, ModScope *scope, Example *ex) {
  Proto *p = new_proto(cg, "example", ex->span);
  FuncState fs;
  fs_init(&fs, cg, NULL, scope, p);
  int base = cg_reserve(&fs, 3);
  cg_expr(&fs, ex->input, base + 1);
  fs.freereg = base + 3;
  cg_expr(&fs, ex->output, base + 2);
  fs.span = ex->span;
  cg_emit(&fs, BC_NEWTUPLE, base, base + 1, 2);
  cg_emit(&fs, BC_RET, base, 0, 0);
  finish_proto(&fs);
  fs_free(&fs);
  return p;
}

/* ---- ADTs -------------------------------------------------------------------------- */

static int add_type(Cg *cg, const char *name) {
  Image *img = cg->img;
  int existing = cgm_get(&cg->types, name);
  if (existing >= 0) return existing;
  const char **tn = realloc(img->type_names, (size_t)(img->ntypes + 1) * sizeof *tn);
  if (!tn) cg_oom(cg);
  img->type_names = tn;
  tn[img->ntypes] = name;
  cg_put(cg, &cg->types, name, img->ntypes);
  return img->ntypes++;
}

/* Nullary constructors are one permanent object each (outside the program's
 * heap limit), so `None` or `Red` allocates nothing at run time. */
static CtorInfo *add_ctor(Cg *cg, const char *name, int type_id, int nfields, const char **fields) {
  Image *img = cg->img;
  CtorInfo **cs = realloc(img->ctors, (size_t)(img->nctors + 1) * sizeof *cs);
  if (!cs) cg_oom(cg);
  img->ctors = cs;
  CtorInfo *ci = calloc(1, sizeof *ci);
  if (!ci) cg_oom(cg);
  ci->name = name;
  ci->type_name = img->type_names[type_id];
  ci->type_id = type_id;
  ci->id = img->nctors;
  ci->nfields = nfields;
  ci->field_names = nfields ? calloc((size_t)nfields, sizeof(char *)) : NULL;
  if (nfields && !ci->field_names) cg_oom(cg);
  for (int i = 0; i < nfields; i++) ci->field_names[i] = fields[i];
  ci->nullary = v_unit();
  if (nfields == 0) {
    ObjCtor *o = (ObjCtor *)gc_alloc_perm(cg->vm, T_CTOR, sizeof(ObjCtor));
    if (o) {
      o->info = ci;
      ci->nullary = v_obj((Obj *)o);
    }
  }
  cs[img->nctors++] = ci;
  cg_put(cg, &cg->ctors, name, ci->id);
  return ci;
}

/* The ADTs the language defines itself; builtins construct and match them
 * by the ids fixed by this order. */
static void builtin_adts(Cg *cg) {
  Interner *in = &cg->prog->names;
  size_t nadts;
  const ChkAdt *adts = chk_adts(&nadts);
  for (size_t i = 0; i < nadts; i++) {
    int t = add_type(cg, intern_cstr(in, adts[i].name));
    for (int v = 0; v < adts[i].nvariants; v++) {
      const ChkAdtVariant *lv = &adts[i].variants[v];
      const char *fields[CHK_ADT_MAX_FIELDS];
      for (int f = 0; f < lv->nfields; f++) fields[f] = intern_cstr(in, lv->fields[f].name);
      add_ctor(cg, intern_cstr(in, lv->name), t, lv->nfields, fields);
    }
  }
}

/* Imported modules first (the highest index is the deepest import), so a
 * constructor name declared twice resolves like the reference: the entry
 * module's declaration is registered last. */
static void user_types(Cg *cg) {
  Program *prog = cg->prog;
  for (int mi = prog->nmodules - 1; mi >= 0; mi--) {
    Module *m = prog->modules[mi];
    for (int i = 0; i < m->ndecls; i++) {
      Decl *d = m->decls[i];
      if (d->kind == D_ADT) {
        int t = add_type(cg, d->u.adt.name);
        for (int v = 0; v < d->u.adt.n; v++) {
          Variant *var = &d->u.adt.variants[v];
          const char *small[16];
          const char **fields = small;
          int nf = var->nfields;
          if (nf > 16) {
            fields = arena_alloc(&prog->arena, (size_t)nf * sizeof *fields);
            if (!fields) cg_oom(cg);
          }
          for (int f = 0; f < nf; f++) fields[f] = var->fields[f].name;
          add_ctor(cg, var->name, t, nf, fields);
        }
      }
    }
  }
}

/* ---- scopes ------------------------------------------------------------------------ */

static int module_index(Program *prog, const char *name) {
  for (int i = 1; i < prog->nmodules; i++)
    if (prog->modules[i]->name == name) return i;
  return -1;
}

/* Each module gets its own function scope: its own functions, then the
 * visible functions of modules it imports without an alias. Aliased imports
 * are reachable only as `Alias.f`. */
static void build_scopes(Cg *cg) {
  Program *prog = cg->prog;
  Image *img = cg->img;
  cg->nscopes = prog->nmodules;
  cg->scopes = calloc((size_t)prog->nmodules, sizeof(ModScope));
  int total = 0;
  for (int mi = 0; mi < prog->nmodules; mi++)
    for (int i = 0; i < prog->modules[mi]->ndecls; i++) total += prog->modules[mi]->decls[i]->kind == D_FUNC;
  cg->fdecls = calloc((size_t)(total ? total : 1), sizeof(FuncDecl *));
  cg->fscope = calloc((size_t)(total ? total : 1), sizeof(ModScope *));
  img->funcs = calloc((size_t)(total ? total : 1), sizeof(Proto *));
  if (!cg->scopes || !cg->fdecls || !cg->fscope || !img->funcs) cg_oom(cg);
  for (int mi = 0; mi < prog->nmodules; mi++) {
    ModScope *s = &cg->scopes[mi];
    s->mod = prog->modules[mi];
    for (int i = 0; i < s->mod->ndecls; i++) s->has_exports |= s->mod->decls[i]->exported;
    for (int i = 0; i < s->mod->ndecls; i++) {
      Decl *d = s->mod->decls[i];
      if (d->kind != D_FUNC) continue;
      int idx = img->nfuncs++;
      cg->fdecls[idx] = &d->u.func;
      cg->fscope[idx] = s;
      cgm_put_new(cg, &s->funcs, d->u.func.name, idx);
    }
  }
  for (int mi = 0; mi < prog->nmodules; mi++) {
    ModScope *s = &cg->scopes[mi];
    for (int i = 0; i < s->mod->ndecls; i++) {
      Decl *d = s->mod->decls[i];
      if (d->kind != D_IMPORT) continue;
      const char *name = d->u.import.module, *alias = d->u.import.alias;
      int j = module_index(prog, name);
      if (j < 0) continue;
      cg_put(cg, &s->modules, alias ? alias : name, j);
      if (alias) continue;
      for (int f = 0; f < img->nfuncs; f++)
        if (cg->fscope[f]->mod == prog->modules[j] && module_visible(cg->fscope[f], cg->fdecls[f]))
          cgm_put_new(cg, &s->funcs, cg->fdecls[f]->name, f);
    }
  }
}

/* ---- traits -------------------------------------------------------------------------- */

/* Trait methods are dispatched by name: one table per method name, indexed
 * by type id, so a call compiles to TCALL with that table's index. */
static int trait_method(Cg *cg, const char *name) {
  int i = cgm_get(&cg->traits, name);
  if (i >= 0) return i;
  Image *img = cg->img;
  TraitTable *t = realloc(img->traits, (size_t)(img->ntraits + 1) * sizeof *t);
  if (!t) cg_oom(cg);
  img->traits = t;
  t[img->ntraits].name = name;
  t[img->ntraits].impl = calloc((size_t)(img->ntypes ? img->ntypes : 1), sizeof(Proto *));
  if (!t[img->ntraits].impl) cg_oom(cg);
  t[img->ntraits].fallback = -1;
  t[img->ntraits].fallback_builtin = -1;
  t[img->ntraits].param_names = NULL;
  t[img->ntraits].nparams = 0;
  cg_put(cg, &cg->traits, name, img->ntraits);
  return img->ntraits++;
}

static void add_example(Cg *cg, bool impl, Proto *fn, Proto *thunk, Span span, const char *qualified) {
  Image *img = cg->img;
  ExampleCase **arr = impl ? &img->impl_examples : &img->examples;
  int *n = impl ? &img->nimpl_examples : &img->nexamples;
  ExampleCase *e = realloc(*arr, (size_t)(*n + 1) * sizeof *e);
  if (!e) cg_oom(cg);
  *arr = e;
  e[*n].fn = fn;
  e[*n].thunk = thunk;
  e[*n].span = span;
  e[*n].qualified = qualified;
  (*n)++;
}

/* Only the entry module's impl examples are verified (qualified names like
 * Type.Trait.method identify them in E409 messages). */
static void compile_impls(Cg *cg) {
  Program *prog = cg->prog;
  /* Method names first, so calls anywhere can dispatch. */
  for (int mi = 0; mi < prog->nmodules; mi++) {
    Module *m = prog->modules[mi];
    for (int i = 0; i < m->ndecls; i++) {
      Decl *d = m->decls[i];
      if (d->kind == D_TRAIT)
        for (int k = 0; k < d->u.trait.n; k++) trait_method(cg, d->u.trait.methods[k].name);
      if (d->kind == D_IMPL)
        for (int k = 0; k < d->u.impl.n; k++) trait_method(cg, d->u.impl.methods[k]->name);
    }
  }
  for (int mi = 0; mi < prog->nmodules; mi++) {
    Module *m = prog->modules[mi];
    for (int i = 0; i < m->ndecls; i++) {
      Decl *d = m->decls[i];
      if (d->kind != D_IMPL) continue;
      int type_id = cgm_get(&cg->types, d->u.impl.type);
      for (int k = 0; k < d->u.impl.n; k++) {
        FuncDecl *f = d->u.impl.methods[k];
        Proto *p = cg_function(cg, NULL, &cg->scopes[mi], f->name, f->span, f->params, f->nparams, &f->body,
                               NULL, f);
        TraitTable *tm = &cg->img->traits[trait_method(cg, f->name)];
        if (type_id >= 0 && !tm->impl[type_id]) tm->impl[type_id] = p;
        if (!tm->param_names) {
          tm->param_names = p->param_names;
          tm->nparams = f->nparams;
        }
        if (mi != 0) continue;
        size_t qlen = strlen(d->u.impl.type) + strlen(d->u.impl.trait) + strlen(f->name) + 3;
        char *q = arena_alloc(&prog->arena, qlen);
        if (!q) cg_oom(cg);
        snprintf(q, qlen, "%s.%s.%s", d->u.impl.type, d->u.impl.trait, f->name);
        for (int e = 0; e < f->nexamples; e++)
          add_example(cg, true, p, example_thunk(cg, &cg->scopes[mi], &f->examples[e]), f->examples[e].span,
                      q);
      }
    }
  }
  /* A trait call whose first argument is not a constructor falls back to
   * the function or builtin of that name (as the reference does). */
  for (int t = 0; t < cg->img->ntraits; t++) {
    TraitTable *tm = &cg->img->traits[t];
    tm->fallback = cgm_get(&cg->scopes[0].funcs, tm->name);
    if (tm->fallback < 0) tm->fallback_builtin = builtin_index(cg->vm, tm->name);
  }
}

/* ---- driver ------------------------------------------------------------------------- */

/* Modules whose functions the reference binds into its global table:
 * those imported without an alias, transitively from the entry. Returns a
 * malloc'd flag per module. */
static bool *reachable_unaliased(Cg *cg, Program *prog) {
  bool *seen = calloc((size_t)prog->nmodules + 1, sizeof(bool));
  if (!seen) cg_oom(cg);
  int *stack = calloc((size_t)prog->nmodules + 1, sizeof(int));
  if (!stack) {
    free(seen);
    cg_oom(cg);
  }
  int top = 0;
  stack[top++] = 0;
  seen[0] = true;
  while (top > 0) {
    Module *m = prog->modules[stack[--top]];
    for (int i = 0; i < m->ndecls; i++) {
      Decl *d = m->decls[i];
      if (d->kind != D_IMPORT || d->u.import.alias) continue;
      int j = module_index(prog, d->u.import.module);
      if (j > 0 && !seen[j]) {
        seen[j] = true;
        stack[top++] = j;
      }
    }
  }
  free(stack);
  return seen;
}

/* Order matters: types before functions (constructor ids are needed by
 * patterns), scopes before bodies (calls to later functions resolve),
 * impls before functions (trait calls need their tables). */
static void compile_program(Cg *cg) {
  Program *prog = cg->prog;
  Image *img = cg->img;
  builtin_adts(cg);
  user_types(cg);
  build_scopes(cg);
  compile_impls(cg);
  for (int i = 0; i < img->nfuncs; i++) {
    FuncDecl *f = cg->fdecls[i];
    img->funcs[i] = cg_function(cg, NULL, cg->fscope[i], f->name, f->span, f->params, f->nparams, &f->body,
                                NULL, f);
  }
  Module *entry = prog->nmodules ? prog->modules[0] : NULL;
  /* Examples: imported modules' functions first, then the entry's. */
  bool *reachable = reachable_unaliased(cg, prog);
  for (int pass = 0; pass < 2; pass++) {
    for (int i = 0; i < img->nfuncs; i++) {
      ModScope *s = cg->fscope[i];
      int mi = (int)(s - cg->scopes);
      if ((pass == 0) == (mi == 0)) continue;
      if (mi != 0 && (!reachable[mi] || !module_visible(s, cg->fdecls[i]))) continue;
      FuncDecl *f = cg->fdecls[i];
      for (int e = 0; e < f->nexamples; e++)
        add_example(cg, false, img->funcs[i], example_thunk(cg, s, &f->examples[e]), f->examples[e].span,
                    f->name);
    }
  }
  free(reachable);
  bool has_init = false, has_update = false, has_render = false;
  for (int i = 0; entry && i < entry->ndecls; i++) {
    Decl *d = entry->decls[i];
    if (d->kind == D_FUNC) {
      const char *n = d->u.func.name;
      int idx = cgm_get(&cg->scopes[0].funcs, n);
      if (strcmp(n, "main") == 0 && idx >= 0 && !img->main) img->main = img->funcs[idx];
      has_init |= strcmp(n, "init") == 0;
      has_update |= strcmp(n, "update") == 0;
      has_render |= strcmp(n, "render") == 0;
    } else if (d->kind == D_TEST) {
      Proto *p = cg_function(cg, NULL, &cg->scopes[0], "test", d->span, NULL, 0, &d->u.test.body, NULL, NULL);
      TestCase *t = realloc(img->tests, (size_t)(img->ntests + 1) * sizeof *t);
      if (!t) cg_oom(cg);
      img->tests = t;
      t[img->ntests].name = d->u.test.name;
      t[img->ntests].name_len = d->u.test.name_len;
      t[img->ntests].body = p;
      t[img->ntests].span = d->span;
      img->ntests++;
    }
  }
  img->app_mode = !img->main && has_init && has_update && has_render;
}

Image *cg_compile(VM *vm, Program *prog, DiagList *diags) {
  /* The state lives on the heap so that it is well defined after a
   * longjmp from cg_oom. */
  Cg *cg = calloc(1, sizeof *cg);
  if (!cg) return NULL;
  cg->vm = vm;
  cg->prog = prog;
  cg->diags = diags;
  cg->img = calloc(1, sizeof(Image));
  if (!cg->img) {
    free(cg);
    return NULL;
  }
  vm->img = cg->img;
  if (setjmp(cg->oom)) {
    diag_add(diags, E_RESOURCE, NULL, "Out of memory while compiling the program");
    cg->failed = true;
  } else {
    compile_program(cg);
  }
  for (int i = 0; i < cg->nscopes; i++) {
    cgm_free(&cg->scopes[i].funcs);
    cgm_free(&cg->scopes[i].modules);
  }
  free(cg->scopes);
  free(cg->fdecls);
  free(cg->fscope);
  cgm_free(&cg->ctors);
  cgm_free(&cg->types);
  cgm_free(&cg->traits);
  cgm_free(&cg->names);
  Image *img = cg->img;
  bool failed = cg->failed;
  free(cg);
  if (failed) {
    vm->img = NULL;
    img_free(img);
    return NULL;
  }
  return img;
}

void img_free(Image *img) {
  if (!img) return;
  for (int i = 0; i < img->nall; i++) {
    Proto *p = img->all[i];
    free(p->code);
    free(p->lines);
    free(p->k);
    free(p->protos);
    free(p->upvals);
    free(p->handlers);
    free((void *)p->param_names);
    free(p);
  }
  free(img->all);
  free(img->funcs);
  for (int i = 0; i < img->nctors; i++) {
    free((void *)img->ctors[i]->field_names);
    free(img->ctors[i]);
  }
  free(img->ctors);
  free(img->type_names);
  for (int i = 0; i < img->ntraits; i++) free(img->traits[i].impl);
  free(img->traits);
  free(img->names);
  free(img->examples);
  free(img->impl_examples);
  free(img->tests);
  free(img);
}

void cg_oom(Cg *cg) { longjmp(cg->oom, 1); }
