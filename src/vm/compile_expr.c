/* Expression compilation: literals, variables, operators, calls,
 * pipelines, constructors, lambdas, comprehensions (see compile.h). */
#include <limits.h>
#include <math.h>
#include <stdio.h>

#include "../base/intern.h"
#include "../check/types.h"
#include "compile.h"
#include "object.h"

/* An argument about to be placed in a call's slot: an expression, or a
 * register already holding the value (a pipeline's piped value). */
typedef struct CallArg {
  const char *name; /* named argument, or NULL */
  Expr *value;      /* NULL when reg is used */
  int reg;
} CallArg;

/* Register conventions: every cg_expr takes a destination register, or -1
 * for "anywhere" (then a fresh temporary, or a local's own register when
 * the expression is just that local, which saves a MOVE). */
static int target(FuncState *fs, int dst) { return dst >= 0 ? dst : cg_reserve(fs, 1); }

/* Instructions emitted next are attributed to e's source position (for errors). */
static void at(FuncState *fs, const Expr *e) { fs->span = e->span; }

/* Bit length of the Int written as decimal digits (Python's
 * int.bit_length of the literal's magnitude). */
static size_t digits_bits(const char *digits, size_t len) {
  if (len <= 18) {
    uint64_t x = 0;
    for (size_t i = 0; i < len; i++) x = x * 10 + (uint64_t)(digits[i] - '0');
    return x ? 64 - (size_t)__builtin_clzll(x) : 0;
  }
  char *tmp = malloc(len + 1);
  if (!tmp) return SIZE_MAX;
  memcpy(tmp, digits, len);
  tmp[len] = '\0';
  mpz_t z;
  mpz_init_set_str(z, tmp, 10);
  free(tmp);
  size_t bits = mpz_sgn(z) ? mpz_sizeinbase(z, 2) : 0;
  mpz_clear(z);
  return bits;
}

/* A literal larger than max_integer_bits is an error when evaluated (the
 * reference checks every Int it makes, literals included), so such a
 * literal is never folded into an instruction: load_int_text loads it
 * and checks it with CHKBITS. */
static bool lit_too_big(const FuncState *fs, const char *digits, size_t len) {
  return digits_bits(digits, len) > fs->cg->vm->max_int_bits;
}

/* Small Int literal that fits an instruction's 16-bit immediate. */
static bool small_int_lit(const FuncState *fs, const Expr *e, int *v) {
  if (!e || e->kind != EX_INT || e->u.int_lit.len > 5) return false;
  if (lit_too_big(fs, e->u.int_lit.digits, e->u.int_lit.len)) return false;
  long x = 0;
  for (size_t i = 0; i < e->u.int_lit.len; i++) x = x * 10 + (e->u.int_lit.digits[i] - '0');
  if (x > 32767) return false;
  *v = (int)x;
  return true;
}

/* ---- literals --------------------------------------------------------------- */

static void load_int_value(FuncState *fs, const char *digits, size_t len, bool neg, int d);

/* Int literals are kept as digit text by the parser. Up to 9 digits fit the
 * LOADI immediate; longer ones become a constant, a big Int when they do
 * not fit 64 bits. */
static void load_int_text(FuncState *fs, const char *digits, size_t len, bool neg, int d) {
  if (lit_too_big(fs, digits, len)) {
    /* Load the magnitude and check it, as the reference evaluates the
     * literal before any minus in front of it. */
    load_int_value(fs, digits, len, false, d);
    cg_emit(fs, BC_CHKBITS, d, 0, 0);
    if (neg) cg_emit(fs, BC_NEG, d, d, 0);
    return;
  }
  load_int_value(fs, digits, len, neg, d);
}

static void load_int_value(FuncState *fs, const char *digits, size_t len, bool neg, int d) {
  if (len <= 9) {
    long x = 0;
    for (size_t i = 0; i < len; i++) x = x * 10 + (digits[i] - '0');
    cg_emit_bx(fs, BC_LOADI, d, (int32_t)(neg ? -x : x));
    return;
  }
  Value v;
  char *tmp = malloc(len + 2);
  if (!tmp) cg_oom(fs->cg);
  size_t k = 0;
  if (neg) tmp[k++] = '-';
  memcpy(tmp + k, digits, len);
  k += len;
  /* obj_int_from_text does not take a sign: negate through mpz. */
  mpz_t z;
  tmp[k] = '\0';
  mpz_init_set_str(z, tmp, 10);
  free(tmp);
  if (mpz_fits_slong_p(z)) {
    v = v_int((int64_t)mpz_get_si(z));
  } else {
    size_t limbs = mpz_size(z) * sizeof(mp_limb_t);
    ObjBigInt *b = (ObjBigInt *)gc_alloc_perm(fs->cg->vm, T_BIGINT, sizeof(ObjBigInt) + limbs);
    if (!b) cg_oom(fs->cg);
    mpz_init_set(b->z, z);
    v = v_obj((Obj *)b);
  }
  mpz_clear(z);
  cg_emit_bx(fs, BC_LOADK, d, cg_const(fs, v));
}

/* String literals are permanent objects shared by every evaluation of the
 * literal: strings are immutable, so sharing is unobservable. */
static int load_string(FuncState *fs, const char *s, size_t n, int d) {
  Value v;
  if (!obj_string_perm(fs->cg->vm, s, n, &v)) cg_oom(fs->cg);
  cg_emit_bx(fs, BC_LOADK, d, cg_const(fs, v));
  return d;
}

/* ---- variables ---------------------------------------------------------------- */

static int undefined(FuncState *fs, const char *name, int dst) {
  int d = target(fs, dst);
  cg_emit_bx(fs, BC_UNDEF, d, cg_name(fs->cg, name));
  return d;
}

/* A name is, in order: a local, a captured variable, a top-level function
 * of this module's scope, a builtin. Anything else compiles to UNDEF,
 * which raises only if executed (the checker normally rejects it first). */
static int ident(FuncState *fs, Expr *e, int dst) {
  const char *name = e->u.name;
  VarRef v = cg_resolve(fs, name);
  at(fs, e);
  if (v.kind == VAR_LOCAL) {
    if (v.is_cell) {
      int d = target(fs, dst);
      cg_emit(fs, BC_GETCELL, d, v.index, 0);
      return d;
    }
    if (dst < 0) return v.index;
    if (dst != v.index) cg_emit(fs, BC_MOVE, dst, v.index, 0);
    return dst;
  }
  if (v.kind == VAR_UPVAL) {
    int d = target(fs, dst);
    cg_emit(fs, v.is_cell ? BC_GETUPVC : BC_GETUPV, d, v.index, 0);
    return d;
  }
  int f = cg_find_func(fs, name);
  if (f >= 0) {
    int d = target(fs, dst);
    cg_emit_bx(fs, BC_GETFN, d, f);
    return d;
  }
  int b = cg_find_builtin(fs, name);
  if (b >= 0) {
    int d = target(fs, dst);
    cg_emit_bx(fs, BC_GETBUILTIN, d, b);
    return d;
  }
  return undefined(fs, name, dst);
}

/* ---- operators ------------------------------------------------------------------- */

static OpCode arith_op(BinOp op) {
  switch (op) {
    case OP_ADD: return BC_ADD;
    case OP_SUB: return BC_SUB;
    case OP_MUL: return BC_MUL;
    case OP_DIV: return BC_DIV;
    case OP_MOD: return BC_MOD;
    case OP_POW: return BC_POW;
    case OP_BAND: return BC_BAND;
    case OP_BXOR: return BC_BXOR;
    case OP_SHL: return BC_SHL;
    case OP_SHR: return BC_SHR;
    default: return BC__COUNT;
  }
}

static bool is_compare(BinOp op) { return op >= OP_EQ && op <= OP_GTE; }

/* Constant-table index of a numeric literal (Int of up to 18 digits, or
 * Float) for the K-operand instructions, or -1. */
static int literal_const(FuncState *fs, const Expr *e) {
  if (!e) return -1;
  int k = -1;
  if (e->kind == EX_INT && e->u.int_lit.len <= 18 && !lit_too_big(fs, e->u.int_lit.digits, e->u.int_lit.len)) {
    int64_t x = 0;
    for (size_t i = 0; i < e->u.int_lit.len; i++) x = x * 10 + (e->u.int_lit.digits[i] - '0');
    k = cg_const(fs, v_int(x));
  } else if (e->kind == EX_FLOAT) {
    k = cg_const(fs, v_float(e->u.float_val));
  }
  return k >= 0 && k < 65536 ? k : -1;
}

static OpCode k_variant(BinOp op) {
  switch (op) {
    case OP_ADD: return BC_ADDK;
    case OP_SUB: return BC_SUBK;
    case OP_MUL: return BC_MULK;
    case OP_DIV: return BC_DIVK;
    case OP_MOD: return BC_MODK;
    default: return BC__COUNT;
  }
}

/* `and`/`or` short-circuit into the destination register. Arithmetic with a
 * small literal on the right uses ADDI or a K-operand form; other operators
 * evaluate both sides left to right into temporaries. `>` and `>=` swap the
 * operands of LT/LE, which is safe because both are already evaluated.
 * Steps: each literal folded into an instruction still counts as the
 * expression it was, so steps_used matches the reference. */
static int binary(FuncState *fs, Expr *e, int dst) {
  BinOp op = e->u.bin.op;
  Expr *l = e->u.bin.l, *r = e->u.bin.r;
  if (op == OP_AND || op == OP_OR) {
    int d = target(fs, dst);
    cg_expr(fs, l, d);
    at(fs, e);
    int j = cg_emit_jump(fs, op == OP_AND ? BC_JMPIFNOT : BC_JMPIF, d, 0, 0);
    int save = fs->freereg;
    cg_expr(fs, r, d);
    fs->freereg = save;
    cg_patch_here(fs, j);
    return d;
  }
  int save = fs->freereg;
  int imm;
  /* x - 0 is not x + (-0) for Floats (-0.0 - 0 is -0.0, -0.0 + 0 is 0.0),
   * so subtracting a zero literal keeps the real SUB. */
  if ((op == OP_ADD || op == OP_SUB) && small_int_lit(fs, r, &imm) && !(op == OP_SUB && imm == 0)) {
    int ra = cg_expr(fs, l, -1);
    fs->pending++; /* the literal */
    fs->freereg = save;
    int d = target(fs, dst);
    at(fs, e);
    cg_emit(fs, BC_ADDI, d, ra, (uint16_t)(int16_t)(op == OP_ADD ? imm : -imm));
    return d;
  }
  if (k_variant(op) != BC__COUNT && (r->kind == EX_INT || r->kind == EX_FLOAT)) {
    int ra = cg_expr(fs, l, -1);
    int k = literal_const(fs, r);
    if (k >= 0) {
      fs->pending++; /* the literal */
      fs->freereg = save;
      int d = target(fs, dst);
      at(fs, e);
      cg_emit(fs, k_variant(op), d, ra, k);
      return d;
    }
    int rb = cg_expr(fs, r, -1);
    fs->freereg = save;
    int d = target(fs, dst);
    at(fs, e);
    cg_emit(fs, arith_op(op), d, ra, rb);
    return d;
  }
  int ra = cg_expr(fs, l, -1);
  int rb = cg_expr(fs, r, -1);
  fs->freereg = save;
  int d = target(fs, dst);
  at(fs, e);
  if (is_compare(op)) {
    switch (op) {
      case OP_EQ: fs->pending++; cg_emit(fs, BC_EQ, d, ra, rb); break;
      case OP_NEQ: fs->pending++; cg_emit(fs, BC_NE, d, ra, rb); break;
      case OP_LT: cg_emit(fs, BC_LT, d, ra, rb); break;
      case OP_LTE: cg_emit(fs, BC_LE, d, ra, rb); break;
      case OP_GT: cg_emit(fs, BC_LT, d, rb, ra); break;
      case OP_GTE: cg_emit(fs, BC_LE, d, rb, ra); break;
      default: break;
    }
    return d;
  }
  cg_emit(fs, arith_op(op), d, ra, rb);
  return d;
}

/* -literal is folded into the constant (so -9223372036854775808 is a valid
 * Int literal) but still counts the literal's step. */
static int unary(FuncState *fs, Expr *e, int dst) {
  Expr *x = e->u.un.e;
  if (e->u.un.op == OP_NEG && x->kind == EX_INT) {
    fs->pending++;
    int d = target(fs, dst);
    at(fs, e);
    load_int_text(fs, x->u.int_lit.digits, x->u.int_lit.len, true, d);
    return d;
  }
  if (e->u.un.op == OP_NEG && x->kind == EX_FLOAT) {
    fs->pending++;
    int d = target(fs, dst);
    at(fs, e);
    cg_emit_bx(fs, BC_LOADK, d, cg_const(fs, v_float(-x->u.float_val)));
    return d;
  }
  int save = fs->freereg;
  int r = cg_expr(fs, x, -1);
  fs->freereg = save;
  int d = target(fs, dst);
  at(fs, e);
  OpCode op = e->u.un.op == OP_NEG ? BC_NEG : e->u.un.op == OP_BNOT ? BC_BNOT : BC_NOT;
  cg_emit(fs, op, d, r, 0);
  return d;
}

/* ---- conditions -------------------------------------------------------------------- */

/* A comparison used as a condition compiles to one compare-and-branch
 * instruction instead of producing a Bool and testing it. A literal on
 * either side becomes an immediate (16-bit) or a constant operand; when it
 * is on the left the comparison is mirrored (5 < x is x > 5). `!=` is `==`
 * with the jump sense inverted. */
static void cmp_jump(FuncState *fs, Expr *e, bool when, JumpList *out) {
  BinOp op = e->u.bin.op;
  Expr *l = e->u.bin.l, *r = e->u.bin.r;
  if (op == OP_EQ || op == OP_NEQ) fs->pending++; /* the equality test is a step */
  int save = fs->freereg;
  int imm;
  bool flip = false;
  Expr *var = l;
  bool use_imm = small_int_lit(fs, r, &imm);
  if (!use_imm && small_int_lit(fs, l, &imm)) {
    use_imm = true;
    flip = true;
    var = r;
  }
  if (use_imm) {
    int rv = cg_expr(fs, var, -1);
    fs->pending++; /* the literal */
    fs->freereg = save;
    at(fs, e);
    OpCode jop;
    bool k = when;
    switch (op) {
      case OP_LT: jop = flip ? BC_JGTI : BC_JLTI; break;
      case OP_LTE: jop = flip ? BC_JGEI : BC_JLEI; break;
      case OP_GT: jop = flip ? BC_JLTI : BC_JGTI; break;
      case OP_GTE: jop = flip ? BC_JLEI : BC_JGEI; break;
      case OP_EQ: jop = BC_JEQI; break;
      default: jop = BC_JEQI; k = !when; break; /* NEQ */
    }
    cg_jl_add(fs, out, cg_emit_jump(fs, jop, rv, (uint16_t)(int16_t)imm, k));
    return;
  }
  Expr *kexpr = (r->kind == EX_INT || r->kind == EX_FLOAT) ? r : (l->kind == EX_INT || l->kind == EX_FLOAT) ? l : NULL;
  if (kexpr) {
    bool kflip = kexpr == l;
    int rv = cg_expr(fs, kflip ? r : l, -1);
    int k = literal_const(fs, kexpr);
    if (k >= 0) {
      fs->pending++; /* the literal */
      fs->freereg = save;
      at(fs, e);
      OpCode jop;
      bool kk = when;
      switch (op) {
        case OP_LT: jop = kflip ? BC_JGTK : BC_JLTK; break;
        case OP_LTE: jop = kflip ? BC_JGEK : BC_JLEK; break;
        case OP_GT: jop = kflip ? BC_JLTK : BC_JGTK; break;
        case OP_GTE: jop = kflip ? BC_JLEK : BC_JGEK; break;
        case OP_EQ: jop = BC_JEQK; break;
        default: jop = BC_JEQK; kk = !when; break;
      }
      cg_jl_add(fs, out, cg_emit_jump(fs, jop, rv, k, kk));
      return;
    }
    /* a literal too large for the table: compare through registers */
    int rk = cg_expr(fs, kexpr, -1);
    fs->freereg = save;
    at(fs, e);
    int ra = kflip ? rk : rv, rb = kflip ? rv : rk;
    switch (op) {
      case OP_LT: cg_jl_add(fs, out, cg_emit_jump(fs, BC_JLT, ra, rb, when)); break;
      case OP_LTE: cg_jl_add(fs, out, cg_emit_jump(fs, BC_JLE, ra, rb, when)); break;
      case OP_GT: cg_jl_add(fs, out, cg_emit_jump(fs, BC_JLT, rb, ra, when)); break;
      case OP_GTE: cg_jl_add(fs, out, cg_emit_jump(fs, BC_JLE, rb, ra, when)); break;
      case OP_EQ: cg_jl_add(fs, out, cg_emit_jump(fs, BC_JEQ, ra, rb, when)); break;
      default: cg_jl_add(fs, out, cg_emit_jump(fs, BC_JEQ, ra, rb, !when)); break;
    }
    return;
  }
  int ra = cg_expr(fs, l, -1);
  int rb = cg_expr(fs, r, -1);
  fs->freereg = save;
  at(fs, e);
  switch (op) {
    case OP_LT: cg_jl_add(fs, out, cg_emit_jump(fs, BC_JLT, ra, rb, when)); break;
    case OP_LTE: cg_jl_add(fs, out, cg_emit_jump(fs, BC_JLE, ra, rb, when)); break;
    case OP_GT: cg_jl_add(fs, out, cg_emit_jump(fs, BC_JLT, rb, ra, when)); break;
    case OP_GTE: cg_jl_add(fs, out, cg_emit_jump(fs, BC_JLE, rb, ra, when)); break;
    case OP_EQ: cg_jl_add(fs, out, cg_emit_jump(fs, BC_JEQ, ra, rb, when)); break;
    default: cg_jl_add(fs, out, cg_emit_jump(fs, BC_JEQ, ra, rb, !when)); break;
  }
}

/* Jump to `out` when e evaluates to `when`; fall through otherwise. `not`
 * flips the sense, `and`/`or` become jump chains, so `if a and b < c`
 * produces no Bool values at all. */
void cg_cond_jump(FuncState *fs, Expr *e, bool when, JumpList *out) {
  if (e->kind == EX_UNARY && e->u.un.op == OP_NOT) {
    fs->pending++;
    cg_cond_jump(fs, e->u.un.e, !when, out);
    return;
  }
  if (e->kind == EX_BOOL) {
    fs->pending++;
    if (e->u.bool_val == when) {
      at(fs, e);
      cg_jl_add(fs, out, cg_emit_jump(fs, BC_JMP, 0, 0, 0));
    }
    return;
  }
  if (e->kind == EX_BINARY && (e->u.bin.op == OP_AND || e->u.bin.op == OP_OR)) {
    fs->pending++;
    bool is_and = e->u.bin.op == OP_AND;
    if (is_and != when) {
      /* and/false, or/true: either operand decides */
      cg_cond_jump(fs, e->u.bin.l, when, out);
      cg_cond_jump(fs, e->u.bin.r, when, out);
    } else {
      JumpList skip = {0};
      cg_cond_jump(fs, e->u.bin.l, !when, &skip);
      cg_cond_jump(fs, e->u.bin.r, when, out);
      cg_jl_patch_here(fs, &skip);
      cg_jl_free(&skip);
    }
    return;
  }
  if (e->kind == EX_BINARY && is_compare(e->u.bin.op)) {
    fs->pending++;
    cmp_jump(fs, e, when, out);
    return;
  }
  int save = fs->freereg;
  int r = cg_expr(fs, e, -1);
  fs->freereg = save;
  at(fs, e);
  cg_jl_add(fs, out, cg_emit_jump(fs, when ? BC_JMPIF : BC_JMPIFNOT, r, 0, 0));
}

/* ---- calls ----------------------------------------------------------------------------- */

/* How a call is compiled: CALL on a value in a register, CALLG to a known
 * top-level function, CALLB to a builtin row, TCALL through a trait table,
 * or UNDEF when the name means nothing. */
typedef enum CalleeKind { CK_VALUE, CK_FUNC, CK_BUILTIN, CK_TRAIT, CK_UNDEF } CalleeKind;

/* Parameter names of builtin b from its signature text, interned; with
 * names NULL only counts them. Returns the count (at most max when
 * storing). */
static int builtin_params(FuncState *fs, int b, const char **names, bool *optional, int max) {
  if (!names) max = INT_MAX;
  const char *sig = cg_builtin(fs, b)->sig;
  const char *s = sig ? strchr(sig, '(') : NULL;
  if (!s) return 0;
  s++;
  int count = 0, depth = 0;
  const char *start = s;
  bool in_name = true;
  for (; *s && count < max; s++) {
    char ch = *s;
    if (ch == '[' || ch == '(') depth++;
    else if ((ch == ']' || ch == ')') && depth > 0) depth--;
    else if (ch == ')' && depth == 0) break;
    if (in_name && (ch == ':' || ch == '?')) {
      const char *a = start;
      while (*a == ' ') a++;
      if (names) {
        names[count] = intern(&fs->cg->prog->names, a, (size_t)(s - a));
        optional[count] = ch == '?';
      }
      count++;
      in_name = false;
    }
    if (ch == ',' && depth == 0) {
      start = s + 1;
      in_name = true;
    }
  }
  return count;
}

/* Call layout: R[base] is the function register (and receives the result),
 * R[base+1..] the arguments in parameter order. Named arguments are
 * evaluated in source order, each directly into its parameter's slot, so
 * side effects happen as written while the callee sees them reordered.
 * Slots no argument fills get LOADMISS and the callee's TESTARG evaluates
 * their defaults. A name bound locally shadows functions, traits and
 * builtins of the same name (it is called as a value). */
static int call_common(FuncState *fs, Span sp, Expr *callee, CallArg *args, int nargs, int dst, bool discard) {
  Cg *cg = fs->cg;
  CalleeKind kind = CK_VALUE;
  int idx = -1;
  const char *undef_name = NULL;
  if (callee->kind == EX_IDENT) {
    const char *name = callee->u.name;
    VarRef v = cg_resolve(fs, name);
    if (v.kind == VAR_NONE) {
      if ((idx = cgm_get(&cg->traits, name)) >= 0) kind = CK_TRAIT;
      else if ((idx = cg_find_func(fs, name)) >= 0) kind = CK_FUNC;
      else if ((idx = cg_find_builtin(fs, name)) >= 0) kind = CK_BUILTIN;
      else {
        kind = CK_UNDEF;
        undef_name = name;
      }
    }
  } else if (callee->kind == EX_FIELD && callee->u.field.target->kind == EX_TYPE_IDENT) {
    int f, b;
    if (cg_find_qualified(fs, callee->u.field.target->u.name, callee->u.field.name, &f, &b)) {
      if (f >= 0) {
        kind = CK_FUNC;
        idx = f;
      } else if (b >= 0) {
        kind = CK_BUILTIN;
        idx = b;
      } else {
        kind = CK_UNDEF;
        undef_name = callee->u.field.name;
      }
      fs->pending++; /* the module name */
    }
  }
  /* Parameter names, for named arguments. Small calls use the stack; a
   * call with more arguments or parameters than that takes its scratch
   * arrays from the program's arena (freed with the program, so a cg_oom
   * unwind leaks nothing). */
  enum { SMALL_CALL = 64 };
  int np = -1;
  if (kind == CK_FUNC) np = cg->fdecls[idx]->nparams;
  else if (kind == CK_BUILTIN) np = builtin_params(fs, idx, NULL, NULL, 0);
  else if (kind == CK_TRAIT) np = cg->img->traits[idx].nparams;
  int room = (np > nargs ? np : nargs) + 1;
  const char *pnames_s[SMALL_CALL];
  bool popt_s[SMALL_CALL], used_s[SMALL_CALL], filled_s[SMALL_CALL];
  int slot_s[SMALL_CALL];
  const char **pnames = pnames_s;
  bool *popt = popt_s, *used = used_s, *filled = filled_s;
  int *slot = slot_s;
  if (room > SMALL_CALL) {
    Arena *ar = &cg->prog->arena;
    pnames = arena_alloc(ar, (size_t)room * sizeof *pnames);
    popt = arena_alloc(ar, (size_t)room * sizeof *popt);
    used = arena_alloc(ar, (size_t)room * sizeof *used);
    filled = arena_alloc(ar, (size_t)room * sizeof *filled);
    slot = arena_alloc(ar, (size_t)room * sizeof *slot);
    if (!pnames || !popt || !used || !filled || !slot) cg_oom(cg);
  }
  memset(used, 0, (size_t)room * sizeof *used);
  memset(filled, 0, (size_t)room * sizeof *filled);
  if (kind == CK_FUNC) {
    FuncDecl *f = cg->fdecls[idx];
    for (int i = 0; i < np; i++) {
      pnames[i] = f->params[i].name;
      popt[i] = f->params[i].def != NULL;
    }
  } else if (kind == CK_BUILTIN) {
    builtin_params(fs, idx, pnames, popt, np);
  } else if (kind == CK_TRAIT) {
    TraitTable *tm = &cg->img->traits[idx];
    for (int i = 0; i < np; i++) {
      pnames[i] = tm->param_names[i];
      popt[i] = false;
    }
  }
  bool named = false;
  for (int i = 0; i < nargs; i++) named |= args[i].name != NULL;
  /* slot[i] = the parameter position argument i fills: a named argument
   * goes to its parameter, a positional one (or an unknown name, which the
   * checker has already reported) to the first free position. */
  int nslots = nargs;
  if (named && np >= 0) {
    int pos = 0, hi = 0;
    for (int i = 0; i < nargs; i++) {
      int s = -1;
      if (args[i].name)
        for (int k = 0; k < np; k++)
          if (pnames[k] == args[i].name) s = k;
      if (s < 0 || used[s]) {
        while (pos < room - 1 && used[pos]) pos++;
        s = pos;
      }
      used[s] = true;
      slot[i] = s;
      if (s + 1 > hi) hi = s + 1;
    }
    nslots = hi;
  } else {
    for (int i = 0; i < nargs; i++) slot[i] = i;
  }
  if (kind == CK_FUNC && nslots < np) nslots = np;
  int save = fs->freereg;
  if (discard && kind == CK_BUILTIN && nargs == 3 && nslots == 3 && cg_builtin_is(fs, idx, "mutable_map_set")) {
    /* A statement `mutable_map_set(m, k, v)`: MMSET reads the arguments
     * where they are, with no moves into a call frame and no result.
     * Arguments are still evaluated in source order, and those that are
     * locals are read at the MMSET instead of as they come: the same
     * values, since nothing inside an expression assigns a local kept in
     * a register (a lambda's assignments go through cells, which are read
     * into temporaries). The weights are those of the CALLB path. */
    int reg[3];
    fs->pending++; /* the callee name */
    for (int i = 0; i < 3; i++) reg[slot[i]] = args[i].value ? cg_expr(fs, args[i].value, -1) : args[i].reg;
    fs->span = sp;
    fs->pending++; /* a builtin call is one more step */
    cg_emit(fs, BC_MMSET, reg[0], reg[1], reg[2]);
    fs->freereg = save;
    return target(fs, dst); /* unused: the statement discards it */
  }
  int base = cg_reserve(fs, 1);
  if (kind == CK_VALUE) cg_expr(fs, callee, base);
  else if (kind != CK_TRAIT) fs->pending++; /* the callee name (trait dispatch skips it) */
  if (!named) {
    for (int i = 0; i < nargs; i++) {
      fs->freereg = base + 1 + i;
      int want = base + 1 + i;
      int r = args[i].value ? cg_expr(fs, args[i].value, -1) : args[i].reg;
      if (r != want) {
        fs->freereg = want;
        cg_reserve(fs, 1);
        at(fs, args[i].value ? args[i].value : callee);
        cg_emit(fs, BC_MOVE, want, r, 0);
      }
      fs->freereg = want + 1;
      filled[i] = true;
    }
  } else {
    cg_reserve(fs, nslots);
    int top = fs->freereg;
    for (int i = 0; i < nargs; i++) {
      int want = base + 1 + slot[i];
      if (args[i].value) cg_expr(fs, args[i].value, want);
      else cg_emit(fs, BC_MOVE, want, args[i].reg, 0);
      fs->freereg = top;
      filled[slot[i]] = true;
    }
  }
  fs->freereg = base + 1 + nslots;
  if (fs->freereg > fs->maxreg) fs->maxreg = fs->freereg;
  fs->span = sp;
  for (int i = 0; i < nslots; i++)
    if (!filled[i]) cg_emit(fs, BC_LOADMISS, base + 1 + i, 0, 0);
  switch (kind) {
    case CK_VALUE: cg_emit(fs, BC_CALL, base, nslots, 0); break;
    case CK_FUNC: cg_emit(fs, BC_CALLG, base, nslots, idx); break;
    case CK_TRAIT: cg_emit(fs, BC_TCALL, base, nslots, idx); break;
    case CK_BUILTIN:
      fs->pending++; /* a builtin call is one more step */
      cg_emit(fs, BC_CALLB, base, nslots, idx);
      break;
    case CK_UNDEF: cg_emit_bx(fs, BC_UNDEF, base, cg_name(cg, undef_name)); break;
  }
  fs->freereg = save;
  if (dst >= 0) {
    if (dst != base) cg_emit(fs, BC_MOVE, dst, base, 0);
    return dst;
  }
  int d = cg_reserve(fs, 1);
  if (d != base) cg_emit(fs, BC_MOVE, d, base, 0);
  return d;
}

static int call_expr(FuncState *fs, Expr *e, int dst) {
  int n = e->u.call.nargs;
  CallArg stack_args[16];
  CallArg *args = n <= 16 ? stack_args : calloc((size_t)n, sizeof(CallArg));
  if (!args) cg_oom(fs->cg);
  for (int i = 0; i < n; i++) {
    args[i].name = e->u.call.args[i].name;
    args[i].value = e->u.call.args[i].value;
    args[i].reg = -1;
  }
  bool discard = fs->discard == e; /* this call is a statement of its own */
  fs->discard = NULL;
  int r = call_common(fs, e->span, e->u.call.callee, args, n, dst, discard);
  if (args != stack_args) free(args);
  return r;
}

/* `x |> f(a, _, b)`: the piped value fills the `_` slot, or goes first when
 * the stage has no placeholder. Each stage is an ordinary call whose
 * argument is the previous stage's result register (CallArg.reg). */
static int pipeline(FuncState *fs, Expr *e, int dst) {
  int save = fs->freereg;
  int cur = cg_expr(fs, e->u.pipe.init, -1);
  for (int s = 0; s < e->u.pipe.n; s++) {
    Stage *st = &e->u.pipe.stages[s];
    bool placeholder = false;
    for (int i = 0; i < st->nargs; i++) placeholder |= st->args[i]->kind == EX_PLACEHOLDER;
    int n = st->nargs + (placeholder ? 0 : 1);
    CallArg small[16];
    CallArg *args = small;
    if (n > 16) {
      args = arena_alloc(&fs->cg->prog->arena, (size_t)n * sizeof *args);
      if (!args) cg_oom(fs->cg);
    }
    int k = 0;
    if (!placeholder) args[k++] = (CallArg){NULL, NULL, cur};
    for (int i = 0; i < st->nargs; i++) {
      if (st->args[i]->kind == EX_PLACEHOLDER) {
        args[k++] = (CallArg){NULL, NULL, cur};
      } else {
        args[k++] = (CallArg){NULL, st->args[i], -1};
      }
    }
    cur = call_common(fs, st->span, st->fn, args, k, -1, false);
  }
  fs->freereg = save;
  int d = target(fs, dst);
  if (d != cur) cg_emit(fs, BC_MOVE, d, cur, 0);
  return d;
}

/* ---- data ---------------------------------------------------------------------------- */

/* Evaluate exprs into n consecutive fresh registers; returns the first. */
static int seq_regs(FuncState *fs, Expr **items, int n) {
  int base = fs->freereg;
  for (int i = 0; i < n; i++) {
    fs->freereg = base + i;
    int r = cg_expr(fs, items[i], -1);
    if (r != base + i) {
      fs->freereg = base + i;
      cg_reserve(fs, 1);
      cg_emit(fs, BC_MOVE, base + i, r, 0);
    }
    fs->freereg = base + i + 1;
  }
  if (fs->freereg > fs->maxreg) fs->maxreg = fs->freereg;
  return base;
}

/* List literals longer than this are built by appending, so a literal of
 * any size needs a fixed number of registers. */
#define LIST_LITERAL_REGS 64

static int list_lit(FuncState *fs, Expr *e, int dst) {
  int n = e->u.list.n;
  int save = fs->freereg;
  if (n <= LIST_LITERAL_REGS) {
    int base = seq_regs(fs, e->u.list.items, n);
    fs->freereg = save;
    int d = target(fs, dst);
    at(fs, e);
    cg_emit(fs, BC_NEWLIST, d, base, n);
    return d;
  }
  int d = target(fs, dst);
  at(fs, e);
  cg_emit(fs, BC_NEWLIST, d, 0, 0);
  int keep = fs->freereg;
  for (int i = 0; i < n; i++) {
    int r = cg_expr(fs, e->u.list.items[i], -1);
    at(fs, e);
    cg_emit(fs, BC_APPEND, d, r, 0);
    fs->freereg = keep;
  }
  return d;
}

/* The empty tuple `()` is Unit (written: see v_unit_written). */
static int tuple_lit(FuncState *fs, Expr *e, int dst) {
  int n = e->u.list.n;
  if (n == 0) {
    int d = target(fs, dst);
    at(fs, e);
    cg_emit(fs, BC_LOADU, d, 1, 0);
    return d;
  }
  int save = fs->freereg;
  int base = seq_regs(fs, e->u.list.items, n);
  fs->freereg = save;
  int d = target(fs, dst);
  at(fs, e);
  cg_emit(fs, BC_NEWTUPLE, d, base, n);
  return d;
}

/* Fields are evaluated in source order into consecutive registers and
 * NEWCTOR copies them; a missing trailing field (only in an unchecked
 * program) is Unit rather than garbage. */
static int ctor_expr(FuncState *fs, Expr *e, int dst) {
  const CtorInfo *ci = cg_find_ctor(fs->cg, e->u.ctor.name);
  if (!ci) return undefined(fs, e->u.ctor.name, dst);
  if (ci->nfields == 0) {
    /* Evaluate stray arguments anyway (an unchecked program). */
    int save = fs->freereg;
    for (int i = 0; i < e->u.ctor.nargs; i++) cg_expr(fs, e->u.ctor.args[i].value, -1);
    fs->freereg = save;
    int d = target(fs, dst);
    at(fs, e);
    cg_emit_bx(fs, BC_LOADCTOR, d, ci->id);
    return d;
  }
  int save = fs->freereg;
  int base = fs->freereg;
  int n = e->u.ctor.nargs;
  for (int i = 0; i < ci->nfields; i++) {
    fs->freereg = base + i;
    if (i < n) {
      int r = cg_expr(fs, e->u.ctor.args[i].value, -1);
      if (r != base + i) {
        fs->freereg = base + i;
        cg_reserve(fs, 1);
        cg_emit(fs, BC_MOVE, base + i, r, 0);
      }
    } else {
      cg_reserve(fs, 1);
      cg_emit(fs, BC_LOADU, base + i, 0, 0);
    }
    fs->freereg = base + i + 1;
  }
  if (fs->freereg > fs->maxreg) fs->maxreg = fs->freereg;
  fs->freereg = save;
  int d = target(fs, dst);
  at(fs, e);
  cg_emit(fs, BC_NEWCTOR, d, base, ci->id);
  return d;
}

/* Interpolated strings: every piece lands in its own register (text pieces
 * as constants, expressions through TOSTR), then one CONCATN builds the
 * result with a single allocation. */
static int fstring(FuncState *fs, Expr *e, int dst) {
  int n = e->u.fstr.n;
  int save = fs->freereg;
  if (n == 0) {
    int d = target(fs, dst);
    at(fs, e);
    return load_string(fs, "", 0, d);
  }
  int base = fs->freereg;
  for (int i = 0; i < n; i++) {
    FStrPiece *pc = &e->u.fstr.pieces[i];
    fs->freereg = base + i;
    if (pc->expr) {
      int r = cg_expr(fs, pc->expr, -1);
      fs->freereg = base + i;
      cg_reserve(fs, 1);
      at(fs, pc->expr);
      cg_emit(fs, BC_TOSTR, base + i, r, 0);
    } else {
      cg_reserve(fs, 1);
      at(fs, e);
      load_string(fs, pc->text, pc->len, base + i);
    }
    fs->freereg = base + i + 1;
  }
  fs->freereg = save;
  int d = target(fs, dst);
  at(fs, e);
  if (n == 1 && !e->u.fstr.pieces[0].expr) cg_emit(fs, BC_MOVE, d, base, 0);
  else cg_emit(fs, BC_CONCATN, d, base, n);
  return d;
}

/* `Mod.f` without a call is the function value; anything else is a field
 * read by interned name. */
static int field_expr(FuncState *fs, Expr *e, int dst) {
  Expr *t = e->u.field.target;
  if (t->kind == EX_TYPE_IDENT) {
    int f, b;
    if (cg_find_qualified(fs, t->u.name, e->u.field.name, &f, &b)) {
      fs->pending++;
      int d = target(fs, dst);
      at(fs, e);
      if (f >= 0) cg_emit_bx(fs, BC_GETFN, d, f);
      else if (b >= 0) cg_emit_bx(fs, BC_GETBUILTIN, d, b);
      else cg_emit_bx(fs, BC_UNDEF, d, cg_name(fs->cg, e->u.field.name));
      return d;
    }
  }
  int save = fs->freereg;
  int r = cg_expr(fs, t, -1);
  fs->freereg = save;
  int d = target(fs, dst);
  at(fs, e);
  cg_emit(fs, BC_GETFIELD, d, r, cg_name(fs->cg, e->u.field.name));
  return d;
}

/* `t with {f: v}` copies t, then sets fields on the copy. When the
 * caller names a destination register (a local in `p = p with {...}`),
 * the copy is built in a temporary and moved last, so field values that
 * read the local still see its old value. */
static int with_expr(FuncState *fs, Expr *e, int dst) {
  int save = fs->freereg;
  int r = cg_expr(fs, e->u.with.target, -1);
  fs->freereg = save;
  int d = target(fs, dst);
  int t = dst < 0 ? d : cg_reserve(fs, 1); /* a local target is written last */
  at(fs, e);
  cg_emit(fs, BC_WITHCOPY, t, r, 0);
  for (int i = 0; i < e->u.with.n; i++) {
    int keep = fs->freereg;
    int v = cg_expr(fs, e->u.with.inits[i].value, -1);
    fs->span = e->u.with.inits[i].span;
    cg_emit(fs, BC_SETFIELD, t, v, cg_name(fs->cg, e->u.with.inits[i].name));
    fs->freereg = keep;
  }
  if (t != d) cg_emit(fs, BC_MOVE, d, t, 0);
  fs->freereg = dst >= 0 ? save : d + 1;
  return d;
}

/* A lambda is compiled as a child proto of the enclosing function;
 * CLOSURE captures its upvalues from the current frame at run time. */
static int lambda(FuncState *fs, Expr *e, int dst) {
  Proto *child = cg_function(fs->cg, fs, fs->scope, NULL, e->span, e->u.lambda.params, e->u.lambda.nparams,
                             e->u.lambda.is_block ? &e->u.lambda.block : NULL,
                             e->u.lambda.is_block ? NULL : e->u.lambda.body, NULL);
  Proto *p = fs->p;
  Proto **protos = realloc(p->protos, (size_t)(p->nprotos + 1) * sizeof *protos);
  if (!protos) cg_oom(fs->cg);
  p->protos = protos;
  protos[p->nprotos] = child;
  int d = target(fs, dst);
  at(fs, e);
  cg_emit_bx(fs, BC_CLOSURE, d, (int32_t)p->nprotos++);
  return d;
}

/* `[elem for x in iter if cond]` is a for loop appending to a fresh list.
 * The loop's three registers (list, index, element) are hidden locals so
 * the body's temporaries cannot overwrite them. */
static int comprehension(FuncState *fs, Expr *e, int dst) {
  int save = fs->freereg;
  int d = target(fs, dst);
  int base = cg_reserve(fs, 3);
  cg_expr(fs, e->u.comp.iter, base);
  at(fs, e);
  cg_emit(fs, BC_FORPREP, base, 0, 0);
  cg_emit(fs, BC_NEWLIST, d, 0, 0);
  cg_flush(fs);
  int top = cg_here(fs);
  int exit = cg_emit_jump(fs, BC_FORITER, base, 0, 0);
  cg_enter(fs);
  fs->freereg = base + 2;
  cg_add_local(fs, NULL, base, false);
  cg_add_local(fs, NULL, base + 1, false);
  cg_add_local(fs, e->u.comp.var, base + 2, false);
  if (e->u.comp.cond) {
    JumpList skip = {0};
    cg_cond_jump(fs, e->u.comp.cond, false, &skip);
    for (int i = 0; i < skip.n; i++) cg_patch(fs, skip.at[i], top);
    cg_jl_free(&skip);
  }
  int v = cg_expr(fs, e->u.comp.elem, -1);
  at(fs, e);
  cg_emit(fs, BC_APPEND, d, v, 0);
  cg_leave(fs);
  int back = cg_emit_jump(fs, BC_JMP, 0, 0, 0);
  cg_patch(fs, back, top);
  cg_patch_here(fs, exit);
  fs->freereg = dst >= 0 ? save : d + 1;
  return d;
}

/* `e?`: PROP jumps past the early return when e is Some/Ok (leaving the
 * payload in d); otherwise the None/Err value in d is returned from the
 * function (through the ensures epilogue when there is one). */
static int propagate(FuncState *fs, Expr *e, int dst) {
  int save = fs->freereg;
  int r = cg_expr(fs, e->u.operand, -1);
  fs->freereg = save;
  int d = target(fs, dst);
  at(fs, e);
  int j = cg_emit_jump(fs, BC_PROP, d, r, 0);
  cg_return_reg(fs, d, false);
  cg_patch_here(fs, j);
  return d;
}

/* ---- the dispatcher ----------------------------------------------------------------- */

/* Every expression node visited is one step of pending weight (the
 * reference counts each evaluated expression). */
int cg_expr(FuncState *fs, Expr *e, int dst) {
  fs->pending++;
  switch (e->kind) {
    case EX_INT: {
      int d = target(fs, dst);
      at(fs, e);
      load_int_text(fs, e->u.int_lit.digits, e->u.int_lit.len, false, d);
      return d;
    }
    case EX_FLOAT: {
      int d = target(fs, dst);
      at(fs, e);
      cg_emit_bx(fs, BC_LOADK, d, cg_const(fs, v_float(e->u.float_val)));
      return d;
    }
    case EX_STRING: {
      int d = target(fs, dst);
      at(fs, e);
      return load_string(fs, e->u.str.s, e->u.str.len, d);
    }
    case EX_BOOL: {
      int d = target(fs, dst);
      at(fs, e);
      cg_emit(fs, BC_LOADB, d, e->u.bool_val, 0);
      return d;
    }
    case EX_FSTRING: return fstring(fs, e, dst);
    case EX_IDENT: return ident(fs, e, dst);
    case EX_TYPE_IDENT: {
      const CtorInfo *ci = cg_find_ctor(fs->cg, e->u.name);
      if (!ci) return undefined(fs, e->u.name, dst);
      int d = target(fs, dst);
      at(fs, e);
      if (ci->nfields == 0) cg_emit_bx(fs, BC_LOADCTOR, d, ci->id);
      else cg_emit_bx(fs, BC_UNDEF, d, cg_name(fs->cg, e->u.name));
      return d;
    }
    case EX_LIST: return list_lit(fs, e, dst);
    case EX_TUPLE: return tuple_lit(fs, e, dst);
    case EX_LIST_COMP: return comprehension(fs, e, dst);
    /* `throw` is an expression of any type; the LOADU only gives the
     * destination register a defined value for the (unreachable) fall-through. */
    case EX_THROW: {
      int save = fs->freereg;
      int r = cg_expr(fs, e->u.operand, -1);
      fs->freereg = save;
      at(fs, e);
      cg_emit(fs, BC_THROW, r, 0, 0);
      int d = target(fs, dst);
      cg_emit(fs, BC_LOADU, d, 0, 0);
      return d;
    }
    case EX_AWAIT: {
      int save = fs->freereg;
      int r = cg_expr(fs, e->u.operand, -1);
      fs->freereg = save;
      int d = target(fs, dst);
      at(fs, e);
      cg_emit(fs, BC_AWAIT, d, r, 0);
      return d;
    }
    case EX_BINARY: return binary(fs, e, dst);
    case EX_UNARY: return unary(fs, e, dst);
    case EX_CALL: return call_expr(fs, e, dst);
    case EX_CTOR: return ctor_expr(fs, e, dst);
    case EX_INDEX: {
      int save = fs->freereg;
      int rt = cg_expr(fs, e->u.index.target, -1);
      int ri = cg_expr(fs, e->u.index.index, -1);
      fs->freereg = save;
      int d = target(fs, dst);
      at(fs, e);
      cg_emit(fs, BC_INDEX, d, rt, ri);
      return d;
    }
    case EX_FIELD: return field_expr(fs, e, dst);
    case EX_PROPAGATE: return propagate(fs, e, dst);
    case EX_WITH: return with_expr(fs, e, dst);
    case EX_PIPELINE: return pipeline(fs, e, dst);
    case EX_PLACEHOLDER: {
      int d = target(fs, dst);
      cg_emit(fs, BC_LOADU, d, 0, 0);
      return d;
    }
    case EX_LAMBDA: return lambda(fs, e, dst);
    case EX_MATCH: {
      int save = fs->freereg;
      int d = target(fs, dst);
      bool promote = cg_expr_is_float(e);
      cg_match(fs, e->u.match.scrutinee, e->u.match.arms, e->u.match.n, true, d, e->span, promote);
      fs->freereg = dst >= 0 ? save : d + 1;
      return d;
    }
    case EX_HOLE: {
      int d = target(fs, dst);
      at(fs, e);
      cg_emit_bx(fs, BC_HOLE, d, cg_name(fs->cg, e->u.hole.name));
      return d;
    }
  }
  return target(fs, dst);
}

/* ---- static types ---------------------------------------------------------------------- */

/* True when the checker typed e as Float; unchecked programs carry no types
 * and never promote. */
bool cg_expr_is_float(const Expr *e) {
  if (!e || !e->type) return false;
  return e->type->kind == TY_FLOAT;
}
