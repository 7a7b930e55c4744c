/* The dispatch loop: computed goto over the instructions of opcodes.h.
 *
 * The loop keeps the current frame's registers (R), constants (K) and
 * instruction pointer (ip) in locals; SAVE() writes ip back to the frame
 * before anything that can raise an error or call out (the error's
 * location and the unwinder read it). Small-Int and Float arithmetic,
 * comparisons and list indexing run inline; everything else goes to
 * vm_ops.c. Step weight is charged only by instructions that can jump
 * (see opcodes.h), so straight-line code pays nothing for the limits. */
#include <math.h>

#include "../check/builtin_table.h"
#include "equal.h"
#include "object.h"
#include "render.h"
#include "table.h"
#include "vmapi.h"

/* Int -> Float for PROMOTE. A big Int goes through the arithmetic slow path
 * (x * 1.0) so that the overflow rule for huge values ("int too large to
 * convert to float") lives in one place, vm_arith. */
static bool promote(VM *vm, Value *v) {
  if (v->tag == T_INT) {
    *v = v_float((double)v->as.i);
  } else if (v->tag == T_BIGINT) {
    Value a = *v, one = v_float(1.0), r;
    if (!vm_arith(vm, BC_MUL, a, one, &r)) return false;
    *v = r;
  }
  return true;
}

/* Raised when no arm of a match fits. The message quotes the value the way
 * the reference does; rendering is capped so a huge value cannot turn the
 * error message itself into an out-of-memory. */
static bool no_match(VM *vm, Value v, bool is_expr) {
  Buf t = BUF_INIT;
  if (vm_render(vm, v, RENDER_QUOTED, &t, 100000, LIMIT_STRING, NULL))
    vm_raise(vm, E_NO_MATCH, NULL, "No matching pattern in match %s for value %s", is_expr ? "expression" : "statement",
             t.data ? t.data : "");
  buf_free(&t);
  return false;
}

/* Postconditions are fatal (uncatchable), like preconditions: a broken
 * contract is a bug in the program, not a recoverable condition. */
static bool ensures_failed(VM *vm, const char *fname, Value result) {
  Buf t = BUF_INIT;
  if (vm_render(vm, result, RENDER_QUOTED, &t, 100000, LIMIT_STRING, NULL))
    vm_raise_fatal(vm, E_POSTCONDITION, NULL,
                   "Postcondition failed for %s: ensures clause evaluated to false (result was %s)",
                   fname ? fname : "function", t.data ? t.data : "");
  buf_free(&t);
  return false;
}

/* throw of a String is a runtime error whose code is recovered from the
 * message (a rethrown "E400: ..." keeps E400); throw of a constructor value
 * carries the value itself so `catch e: T` can match it. */
static bool throw_value(VM *vm, Value v) {
  if (v.tag == T_STRING) {
    ObjString *s = AS_STR(v);
    char *m = malloc(s->blen + 1);
    if (!m) return vm_raise_oom(vm);
    memcpy(m, s->data, s->blen);
    m[s->blen] = '\0';
    vm_raise(vm, vm_code_for_message(m), NULL, "%s", m);
    free(m);
    return false;
  }
  if (v.tag == T_CTOR) return vm_raise_throw(vm, v, NULL);
  return vm_raise(vm, E_RT_TYPE, NULL, "Cannot throw a value of type %s", vm_tag_name(v.tag));
}

static bool prop_error(VM *vm, Value v) {
  if (v.tag == T_CTOR)
    return vm_raise(vm, E_RT_TYPE, NULL, "'?' requires Option or Result value, got %s(...)", AS_CTOR(v)->info->name);
  return vm_raise(vm, E_RT_TYPE, NULL, "'?' requires Option or Result value, got %s", vm_tag_name(v.tag));
}

/* for-in over a List uses three consecutive registers: the list, the next
 * index (a small Int the loop updates in place) and the loop variable. */
static bool for_prep(VM *vm, Value *r) {
  if (r[0].tag == T_ARRAY) {
    /* Iterate over a snapshot: array_set inside the loop does not change
     * what the loop sees. */
    Value l;
    if (!obj_list_from(vm, AS_ARRAY(r[0])->items, AS_ARRAY(r[0])->len, &l)) return false;
    r[0] = l;
  } else if (r[0].tag != T_LIST) {
    return vm_raise(vm, E_RT_TYPE, NULL, "Cannot iterate over %s", vm_tag_name(r[0].tag));
  }
  r[1] = v_int(0);
  return true;
}

/* A trait method called on a value with no impl. Non-constructor values
 * reach here only when there is no fallback function or builtin of the same
 * name, which is what the reference reports as an undefined name. */
static bool trait_error(VM *vm, const TraitTable *tm, Value first) {
  if (first.tag == T_CTOR)
    return vm_raise(vm, E_RT_UNDEFINED_VAR, NULL, "No trait implementation of '%s' for type '%s'", tm->name,
                    AS_CTOR(first)->info->type_name);
  return vm_raise(vm, E_RT_UNDEFINED_VAR, NULL, "Undefined variable: %s", tm->name);
}

bool vm_execute(VM *vm, int entry) {
  static const void *const disp[BC__COUNT] = {
#define OPCODE(name, fmt, checks) &&L_##name,
#include "opcodes.h"
#undef OPCODE
  };
  /* The entry frame was pushed by the caller (vm_call_value / run.c); this loop
   * runs until that frame returns or an error unwinds past it. */
  Frame *f = &vm->frames[vm->nframes - 1];
  Value *R = f->base;
  const Value *K = f->p->k;
  const Insn *ip = f->ip;
  const int64_t smax = vm->small_int_max;
  Insn i;
  Value ret;

#define DISPATCH()          \
  do {                      \
    i = *ip++;              \
    goto *disp[i.op];       \
  } while (0)
#define SAVE() (f->ip = ip)
#define TRY(x)                          \
  do {                                  \
    if (GENO_UNLIKELY(!(x))) goto error; \
  } while (0)
#define CHARGE()                                                      \
  do {                                                                \
    if (GENO_UNLIKELY((vm->steps += i.w) >= vm->step_check)) {         \
      SAVE();                                                         \
      if (!vm_step_slow(vm)) goto error;                              \
    }                                                                 \
  } while (0)
#define JUMPX() (ip += 1 + ip->sbx)
#define SKIPX() (ip++)
#define RELOAD()                         \
  do {                                   \
    f = &vm->frames[vm->nframes - 1];    \
    R = f->base;                         \
    K = f->p->k;                         \
    ip = f->ip;                          \
  } while (0)
/* A result fits inline when it is inside max_integer_bits; beyond that it
 * goes through vm_arith, which makes a big Int or raises E504. */
#define SMALL(x) ((x) <= smax && (x) >= -smax)
/* The common call: every parameter passed (none defaulted), not async,
 * within the depth limit and the stack. vm_enter handles the rest. */
#define FAST_ENTRY(np, nb, nargs)                                                     \
  ((nargs) == (np)->nparams && (np)->nrequired == (np)->nparams && !(np)->is_async && \
   vm->depth < vm->max_depth && (nb) + (np)->nregs + 16 <= vm->stack_end)
#define PUSH_FRAME(np, fnobj, nb)                                  \
  do {                                                             \
    for (int k_ = (np)->nparams; k_ < (np)->nregs; k_++) (nb)[k_] = v_unit(); \
    Frame *nf_ = &vm->frames[vm->nframes++];                       \
    nf_->p = (np);                                                 \
    nf_->fn = (fnobj);                                             \
    nf_->ip = (np)->code;                                          \
    nf_->base = (nb);                                              \
    nf_->top = (nb) + (np)->nregs > vm->sp ? (nb) + (np)->nregs : vm->sp; \
    nf_->entry = false;                                            \
    vm->sp = nf_->top;                                             \
    vm->depth++;                                                   \
    f = nf_;                                                       \
    R = (nb);                                                      \
    K = (np)->k;                                                   \
    ip = (np)->code;                                               \
  } while (0)

  DISPATCH();

  /* ---- loads and moves ---- */
L_MOVE:
  R[i.a] = R[i.b];
  DISPATCH();
L_LOADK:
  R[i.a] = K[i.bx];
  DISPATCH();
L_LOADI:
  R[i.a] = v_int(i.sbx);
  DISPATCH();
L_LOADU:
  R[i.a] = i.b ? v_unit_written() : v_unit();
  DISPATCH();
L_LOADB:
  R[i.a] = v_bool(i.b != 0);
  DISPATCH();
L_LOADMISS:
  R[i.a] = v_missing();
  DISPATCH();
L_LOADCTOR:
  R[i.a] = vm->img->ctors[i.bx]->nullary;
  DISPATCH();
L_GETFN:
  SAVE();
  TRY(vm_fn_value(vm, vm->img->funcs[i.bx], &R[i.a]));
  DISPATCH();
L_GETBUILTIN:
  SAVE();
  TRY(vm_builtin_value(vm, (int)i.bx, &R[i.a]));
  DISPATCH();
L_CLOSURE: {
  SAVE();
  Proto *cp = f->p->protos[i.bx];
  Value v;
  TRY(obj_func(vm, cp, cp->nupvals, false, &v));
  ObjFunc *nf = AS_FUNC(v);
  for (uint32_t k = 0; k < cp->nupvals; k++) {
    UpvalDesc d = cp->upvals[k];
    nf->up[k] = d.from_local ? R[d.index] : f->fn->up[d.index];
  }
  R[i.a] = v;
  DISPATCH();
}
L_GETUPV:
  R[i.a] = f->fn->up[i.b];
  DISPATCH();
/* A `var` that some nested lambda mentions lives in a Cell shared by every
 * closure and the defining frame (capture by reference: assignments are
 * seen both ways); `let` bindings cannot change and are copied into the
 * closure (GETUPV). */
L_GETUPVC:
  R[i.a] = AS_CELL(f->fn->up[i.b])->v;
  DISPATCH();
L_SETUPVC:
  AS_CELL(f->fn->up[i.b])->v = R[i.a];
  DISPATCH();
/* Boxes a local the first time it is defined, so closures made later share it. */
L_NEWCELL: {
  SAVE();
  Value c;
  TRY(obj_cell(vm, R[i.a], &c));
  R[i.a] = c;
  DISPATCH();
}
L_GETCELL:
  R[i.a] = AS_CELL(R[i.b])->v;
  DISPATCH();
L_SETCELL:
  AS_CELL(R[i.a])->v = R[i.b];
  DISPATCH();
/* Emitted by the compiler where the language converts Int to Float: a let,
 * var or assignment with a Float type, a return from a Float function, a
 * match-expression arm typed Float. Nowhere else. */
L_PROMOTE:
  if (R[i.a].tag == T_INT) R[i.a] = v_float((double)R[i.a].as.i);
  else if (R[i.a].tag == T_BIGINT) {
    SAVE();
    TRY(promote(vm, &R[i.a]));
  }
  DISPATCH();

  /* ---- arithmetic ---- */
/* Int and Float fast paths of + - * ; the slow path handles the rest. */
#define ARITH_BODY(OPC, SRC_C, INTOP, FLTOP)                                  \
  {                                                                          \
    Value b = R[i.b], c = SRC_C;                                             \
    if (b.tag == T_INT && c.tag == T_INT) {                                  \
      int64_t r;                                                             \
      if (!INTOP(b.as.i, c.as.i, &r) && SMALL(r)) {                          \
        R[i.a] = v_int(r);                                                   \
        DISPATCH();                                                          \
      }                                                                      \
    } else if (b.tag == T_FLOAT && c.tag == T_FLOAT) {                       \
      R[i.a] = v_float(b.as.f FLTOP c.as.f);                                 \
      DISPATCH();                                                            \
    }                                                                        \
    SAVE();                                                                  \
    TRY(vm_arith(vm, OPC, b, c, &R[i.a]));                                   \
    DISPATCH();                                                              \
  }
/* / and %: Int fast path unless the divisor is 0 or -1 (errors and the
 * one overflow go to the slow path); Float / inline. */
#define DIVMOD_BODY(OPC, SRC_C, COP)                                          \
  {                                                                          \
    Value b = R[i.b], c = SRC_C;                                             \
    if (b.tag == T_INT && c.tag == T_INT && c.as.i != 0 && c.as.i != -1) {   \
      R[i.a] = v_int(b.as.i COP c.as.i);                                     \
      DISPATCH();                                                            \
    }                                                                        \
    SAVE();                                                                  \
    TRY(vm_arith(vm, OPC, b, c, &R[i.a]));                                   \
    DISPATCH();                                                              \
  }
L_ADD:
  ARITH_BODY(BC_ADD, R[i.c], __builtin_add_overflow, +)
L_ADDK:
  ARITH_BODY(BC_ADD, K[i.c], __builtin_add_overflow, +)
L_SUB:
  ARITH_BODY(BC_SUB, R[i.c], __builtin_sub_overflow, -)
L_SUBK:
  ARITH_BODY(BC_SUB, K[i.c], __builtin_sub_overflow, -)
L_MUL:
  ARITH_BODY(BC_MUL, R[i.c], __builtin_mul_overflow, *)
L_MULK:
  ARITH_BODY(BC_MUL, K[i.c], __builtin_mul_overflow, *)
L_DIV: {
  Value b = R[i.b], c = R[i.c];
  if (b.tag == T_FLOAT && c.tag == T_FLOAT && c.as.f != 0) {
    R[i.a] = v_float(b.as.f / c.as.f);
    DISPATCH();
  }
}
  DIVMOD_BODY(BC_DIV, R[i.c], /)
L_DIVK:
  DIVMOD_BODY(BC_DIV, K[i.c], /)
L_MOD:
  DIVMOD_BODY(BC_MOD, R[i.c], %)
L_MODK:
  DIVMOD_BODY(BC_MOD, K[i.c], %)
/* x + small constant: the loop counter increment. The constant is a signed
 * 16-bit immediate in c. */
L_ADDI: {
  Value b = R[i.b];
  int64_t k = (int16_t)i.c;
  if (b.tag == T_INT) {
    int64_t r;
    if (!__builtin_add_overflow(b.as.i, k, &r) && SMALL(r)) {
      R[i.a] = v_int(r);
      DISPATCH();
    }
  } else if (b.tag == T_FLOAT) {
    R[i.a] = v_float(b.as.f + (double)k);
    DISPATCH();
  }
  SAVE();
  TRY(vm_arith(vm, BC_ADD, b, v_int(k), &R[i.a]));
  DISPATCH();
}
/* Powers, shifts and ~ have enough special cases (negative exponents give Float,
 * shift counts are bounded) that they always take the slow path. */
L_POW:
  SAVE();
  TRY(vm_arith(vm, BC_POW, R[i.b], R[i.c], &R[i.a]));
  DISPATCH();
L_BAND:
  if (R[i.b].tag == T_INT && R[i.c].tag == T_INT) {
    R[i.a] = v_int(R[i.b].as.i & R[i.c].as.i);
    DISPATCH();
  }
  SAVE();
  TRY(vm_arith(vm, BC_BAND, R[i.b], R[i.c], &R[i.a]));
  DISPATCH();
L_BXOR:
  if (R[i.b].tag == T_INT && R[i.c].tag == T_INT) {
    R[i.a] = v_int(R[i.b].as.i ^ R[i.c].as.i);
    DISPATCH();
  }
  SAVE();
  TRY(vm_arith(vm, BC_BXOR, R[i.b], R[i.c], &R[i.a]));
  DISPATCH();
L_SHL:
  SAVE();
  TRY(vm_arith(vm, BC_SHL, R[i.b], R[i.c], &R[i.a]));
  DISPATCH();
L_SHR:
  SAVE();
  TRY(vm_arith(vm, BC_SHR, R[i.b], R[i.c], &R[i.a]));
  DISPATCH();
L_NEG: {
  Value b = R[i.b];
  if (b.tag == T_INT && b.as.i != INT64_MIN && SMALL(-b.as.i)) {
    R[i.a] = v_int(-b.as.i);
    DISPATCH();
  }
  if (b.tag == T_FLOAT) {
    R[i.a] = v_float(-b.as.f);
    DISPATCH();
  }
  SAVE();
  TRY(vm_unary(vm, BC_NEG, b, &R[i.a]));
  DISPATCH();
}
L_BNOT:
  SAVE();
  TRY(vm_unary(vm, BC_BNOT, R[i.b], &R[i.a]));
  DISPATCH();
/* Conditions are Bool in checked programs; vm_truthy is a defensive
 * fallback (a checker gap must not crash the VM) with the reference's
 * truthiness. */
L_NOT:
  R[i.a] = v_bool(R[i.b].tag == T_BOOL ? !R[i.b].as.b : !vm_truthy(R[i.b]));
  DISPATCH();
/* Structural equality: only Int == Int is inline; 1 == 1.0 and containers go to
 * vm_equal, which returns -1 on an error (too deep a value). */
L_EQ:
L_NE: {
  Value b = R[i.b], c = R[i.c];
  bool r;
  if (b.tag == T_INT && c.tag == T_INT) r = b.as.i == c.as.i;
  else {
    SAVE();
    int e = vm_equal(vm, b, c, false);
    TRY(e >= 0);
    r = e == 1;
  }
  R[i.a] = v_bool(i.op == BC_EQ ? r : !r);
  DISPATCH();
}
L_LT:
L_LE: {
  Value b = R[i.b], c = R[i.c];
  bool r;
  bool le = i.op == BC_LE;
  if (b.tag == T_INT && c.tag == T_INT) r = le ? b.as.i <= c.as.i : b.as.i < c.as.i;
  else if (b.tag == T_FLOAT && c.tag == T_FLOAT) r = le ? b.as.f <= c.as.f : b.as.f < c.as.f;
  else {
    SAVE();
    TRY(vm_less(vm, b, c, le, &r));
  }
  R[i.a] = v_bool(r);
  DISPATCH();
}
/* Interpolation parts: a String part is used as is, anything else rendered. */
L_TOSTR: {
  Value v = R[i.b];
  if (v.tag == T_STRING) {
    R[i.a] = v;
    DISPATCH();
  }
  SAVE();
  TRY(vm_to_string_value(vm, v, &R[i.a]));
  DISPATCH();
}
/* One allocation for a whole interpolated string or a chain of ++. */
L_CONCATN:
  SAVE();
  TRY(vm_concat_n(vm, &R[i.b], i.c, &R[i.a]));
  DISPATCH();

  /* ---- control flow ---- */
/* Charges the pending step weight where no jump or call follows (for
 * example at the end of a function body that falls through to RETU). */
L_STEP:
  CHARGE();
  DISPATCH();
L_JMP:
  CHARGE();
  ip += i.sbx;
  DISPATCH();
L_JMPIF:
L_JMPIFNOT: {
  CHARGE();
  Value v = R[i.a];
  bool t = v.tag == T_BOOL ? v.as.b : vm_truthy(v);
  if (t == (i.op == BC_JMPIF)) ip += i.sbx;
  DISPATCH();
}
/* Compare-and-branch: the next instruction is an EXTRA carrying the jump
 * offset, so a taken branch jumps relative to it (JUMPX) and a failed one
 * skips it (SKIPX). c says on which outcome to jump. */
L_JLT:
L_JLE: {
  CHARGE();
  Value x = R[i.a], y = R[i.b];
  bool le = i.op == BC_JLE, r;
  if (x.tag == T_INT && y.tag == T_INT) r = le ? x.as.i <= y.as.i : x.as.i < y.as.i;
  else if (x.tag == T_FLOAT && y.tag == T_FLOAT) r = le ? x.as.f <= y.as.f : x.as.f < y.as.f;
  else {
    SAVE();
    TRY(vm_less(vm, x, y, le, &r));
  }
  if (r == (i.c != 0)) JUMPX();
  else SKIPX();
  DISPATCH();
}
L_JEQ: {
  CHARGE();
  Value x = R[i.a], y = R[i.b];
  bool r;
  if (x.tag == T_INT && y.tag == T_INT) r = x.as.i == y.as.i;
  else {
    SAVE();
    int e = vm_equal(vm, x, y, false);
    TRY(e >= 0);
    r = e == 1;
  }
  if (r == (i.c != 0)) JUMPX();
  else SKIPX();
  DISPATCH();
}
/* Compare with a 16-bit immediate in b (loop bounds like `i < 10`). */
L_JLTI:
L_JLEI:
L_JGTI:
L_JGEI:
L_JEQI: {
  CHARGE();
  Value x = R[i.a];
  int64_t k = (int16_t)i.b;
  bool r;
  if (x.tag == T_INT) {
    switch (i.op) {
      case BC_JLTI: r = x.as.i < k; break;
      case BC_JLEI: r = x.as.i <= k; break;
      case BC_JGTI: r = x.as.i > k; break;
      case BC_JGEI: r = x.as.i >= k; break;
      default: r = x.as.i == k; break;
    }
  } else {
    SAVE();
    Value kv = v_int(k);
    switch (i.op) {
      case BC_JLTI: TRY(vm_less(vm, x, kv, false, &r)); break;
      case BC_JLEI: TRY(vm_less(vm, x, kv, true, &r)); break;
      case BC_JGTI: TRY(vm_less(vm, kv, x, false, &r)); break;
      case BC_JGEI: TRY(vm_less(vm, kv, x, true, &r)); break;
      default: {
        int e = vm_equal(vm, x, kv, false);
        TRY(e >= 0);
        r = e == 1;
      }
    }
  }
  if (r == (i.c != 0)) JUMPX();
  else SKIPX();
  DISPATCH();
}
/* Compare with a constant (a larger Int or a Float literal). */
L_JLTK:
L_JLEK:
L_JGTK:
L_JGEK:
L_JEQK: {
  CHARGE();
  Value x = R[i.a], k = K[i.b];
  bool r;
  if (x.tag == T_INT && k.tag == T_INT) {
    switch (i.op) {
      case BC_JLTK: r = x.as.i < k.as.i; break;
      case BC_JLEK: r = x.as.i <= k.as.i; break;
      case BC_JGTK: r = x.as.i > k.as.i; break;
      case BC_JGEK: r = x.as.i >= k.as.i; break;
      default: r = x.as.i == k.as.i; break;
    }
  } else if (x.tag == T_FLOAT && k.tag == T_FLOAT) {
    switch (i.op) {
      case BC_JLTK: r = x.as.f < k.as.f; break;
      case BC_JLEK: r = x.as.f <= k.as.f; break;
      case BC_JGTK: r = x.as.f > k.as.f; break;
      case BC_JGEK: r = x.as.f >= k.as.f; break;
      default: r = x.as.f == k.as.f; break;
    }
  } else {
    SAVE();
    switch (i.op) {
      case BC_JLTK: TRY(vm_less(vm, x, k, false, &r)); break;
      case BC_JLEK: TRY(vm_less(vm, x, k, true, &r)); break;
      case BC_JGTK: TRY(vm_less(vm, k, x, false, &r)); break;
      case BC_JGEK: TRY(vm_less(vm, k, x, true, &r)); break;
      default: {
        int e = vm_equal(vm, x, k, false);
        TRY(e >= 0);
        r = e == 1;
      }
    }
  }
  if (r == (i.c != 0)) JUMPX();
  else SKIPX();
  DISPATCH();
}
L_FORPREP:
  SAVE();
  TRY(for_prep(vm, &R[i.a]));
  DISPATCH();
/* The list register is always a List here (FORPREP converted or rejected
 * anything else) and the index a small Int, so no tag checks are needed. */
L_FORITER: {
  CHARGE();
  ObjList *l = AS_LIST(R[i.a]);
  int64_t k = R[i.a + 1].as.i;
  if ((size_t)k < l->len) {
    R[i.a + 2] = l->items[k];
    R[i.a + 1].as.i = k + 1;
    SKIPX();
  } else {
    JUMPX();
  }
  DISPATCH();
}
/* Operand carrier for the instruction before it; never executed in normal flow. */
L_EXTRA:
  DISPATCH();

  /* ---- calls ---- */
/* Calls: the callee's registers start right after the function register,
 * so the arguments the caller evaluated into R[a+1..] are already the
 * callee's parameters (no copying). The result is written to R[a]. */
L_CALL: {
  CHARGE();
  SAVE();
  Value fnv = R[i.a];
  if (fnv.tag == T_FUNC) {
    const Proto *np = AS_FUNC(fnv)->proto;
    Value *nb = &R[i.a + 1];
    if (GENO_LIKELY(FAST_ENTRY(np, nb, i.b))) {
      PUSH_FRAME(np, AS_FUNC(fnv), nb);
      DISPATCH();
    }
    int r = vm_enter(vm, np, AS_FUNC(fnv), nb, i.b, false, false);
    TRY(r);
    if (r == 1) RELOAD();
    DISPATCH();
  }
  if (fnv.tag == T_BUILTIN) {
    TRY(vm_call_builtin(vm, (int)(AS_BUILTIN(fnv)->def - vm->builtins), &R[i.a + 1], i.b, &R[i.a]));
    DISPATCH();
  }
  vm_raise(vm, E_RT_NOT_CALLABLE, NULL, "Cannot call non-function: %s", vm_tag_name(fnv.tag));
  goto error;
}
/* A call to a top-level function known at compile time: no closure to look at. */
L_CALLG: {
  CHARGE();
  SAVE();
  const Proto *np = vm->img->funcs[i.c];
  Value *nb = &R[i.a + 1];
  if (GENO_LIKELY(FAST_ENTRY(np, nb, i.b))) {
    PUSH_FRAME(np, NULL, nb);
    DISPATCH();
  }
  int r = vm_enter(vm, np, NULL, nb, i.b, false, false);
  TRY(r);
  if (r == 1) RELOAD();
  DISPATCH();
}
L_CALLB: {
  CHARGE();
  SAVE();
  /* Ungated library builtins are called directly; the gate, host
   * callbacks and missing implementations go through vm_call_builtin. */
  const BuiltinDef *d = &vm->builtins[i.c];
  if (GENO_LIKELY(d->cap == 0 && d->fn && !(d->flags & BF_CALLBACK))) {
    if (vm->builtin_int_params[i.c] && !vm_builtin_int_args(vm, i.c, &R[i.a + 1], i.b))
      goto error;
    R[i.a] = v_unit();
#ifndef NDEBUG
    int roots = vm->nroots;
#endif
    const BuiltinDef *outer_self = vm->self;
    vm->self = d;
    bool ok = d->fn(vm, &R[i.a + 1], i.b, &R[i.a]);
    vm->self = outer_self;
#ifndef NDEBUG
    GENO_ASSERT(vm->nroots == roots);
#endif
    if (GENO_UNLIKELY(!ok)) {
      if (!vm->err.active) vm_raise(vm, E_RUNTIME, NULL, "%s failed", d->name);
      goto error;
    }
    DISPATCH();
  }
  TRY(vm_call_builtin(vm, i.c, &R[i.a + 1], i.b, &R[i.a]));
  DISPATCH();
}
/* CALLB of a builtin returning Option whose result only feeds a match on
 * Some/None (cg_match): R[a] becomes Some's payload, or MISSING for None
 * (no Geno value is MISSING, so the two cannot be confused), and TESTOPT
 * tests it. Builtins on the direct path build their Some with vm_some into
 * R[a], which opt_out turns into a plain store; anything else (a Some made
 * another way, or the gated/host path) is unwrapped here. The previous
 * opt_out is restored afterwards because a builtin may run Geno code that
 * does a CALLBO of its own. */
L_CALLBO: {
  CHARGE();
  SAVE();
  const BuiltinDef *d = &vm->builtins[i.c];
  Value *out = &R[i.a];
  Value *outer = vm->opt_out;
  bool ok;
  if (GENO_LIKELY(d->cap == 0 && d->fn && !(d->flags & BF_CALLBACK))) {
    if (vm->builtin_int_params[i.c] && !vm_builtin_int_args(vm, i.c, &R[i.a + 1], i.b))
      goto error;
    *out = v_unit();
    vm->opt_out = out;
#ifndef NDEBUG
    int roots = vm->nroots;
#endif
    const BuiltinDef *outer_self = vm->self;
    vm->self = d;
    ok = d->fn(vm, &R[i.a + 1], i.b, out);
    vm->self = outer_self;
#ifndef NDEBUG
    GENO_ASSERT(vm->nroots == roots);
#endif
    if (GENO_UNLIKELY(!ok) && !vm->err.active) vm_raise(vm, E_RUNTIME, NULL, "%s failed", d->name);
  } else {
    vm->opt_out = NULL;
    ok = vm_call_builtin(vm, i.c, &R[i.a + 1], i.b, out);
    vm->opt_out = out; /* nothing was unwrapped on this path */
  }
  bool unwrapped = vm->opt_out == NULL;
  vm->opt_out = outer;
  if (GENO_UNLIKELY(!ok)) goto error;
  if (!unwrapped) {
    Value v = *out;
    if (v.tag == T_CTOR && AS_CTOR(v)->info->id == CTOR_SOME) *out = AS_CTOR(v)->fields[0];
    else *out = v_missing(); /* None: the builtin's type admits nothing else */
  }
  DISPATCH();
}
/* The hash-table builtins a word count or a cache spends its time in,
 * done here instead of through the builtin call (their table rows are
 * ungated library code, which CALLB would call directly too): the same
 * table functions the builtins call, with the operands read in place. The
 * checker has made sure of the argument types. */
L_MMGETO: {
  CHARGE();
  SAVE();
  HEntry *e = tbl_lookup(vm, &AS_MAP(R[i.b])->t, R[i.c]);
  if (GENO_UNLIKELY(!e) && vm->err.active) goto error;
  R[i.a] = e ? e->val : v_missing();
  DISPATCH();
}
L_MMSET: {
  CHARGE();
  SAVE();
  HEntry *e = tbl_lookup(vm, &AS_MAP(R[i.a])->t, R[i.b]);
  if (GENO_LIKELY(e != NULL)) {
    e->val = R[i.c];
    DISPATCH();
  }
  if (GENO_UNLIKELY(vm->err.active) || GENO_UNLIKELY(!tbl_add(vm, R[i.a], R[i.b], R[i.c]))) {
    if (!vm->err.active) vm_raise(vm, E_RUNTIME, NULL, "mutable_map_set failed");
    goto error;
  }
  DISPATCH();
}
/* Trait method call: the implementation is chosen by the constructor type of
 * the first argument, through a per-trait table indexed by type id. */
L_TCALL: {
  CHARGE();
  SAVE();
  const TraitTable *tm = &vm->img->traits[i.c];
  Value first = i.b ? R[i.a + 1] : v_unit();
  const Proto *target = NULL;
  if (first.tag == T_CTOR) {
    int tid = AS_CTOR(first)->info->type_id;
    target = tid >= 0 && tid < vm->img->ntypes ? tm->impl[tid] : NULL;
    if (!target) {
      trait_error(vm, tm, first);
      goto error;
    }
  } else if (tm->fallback >= 0) {
    target = vm->img->funcs[tm->fallback];
  } else if (tm->fallback_builtin >= 0) {
    TRY(vm_call_builtin(vm, tm->fallback_builtin, &R[i.a + 1], i.b, &R[i.a]));
    DISPATCH();
  } else {
    trait_error(vm, tm, first);
    goto error;
  }
  int r = vm_enter(vm, target, NULL, &R[i.a + 1], i.b, false, false);
  TRY(r);
  if (r == 1) RELOAD();
  DISPATCH();
}
L_RET:
  CHARGE();
  ret = R[i.a];
  goto do_return;
L_RETU:
  CHARGE();
  ret = i.a ? v_unit_written() : v_unit();
/* The result goes to the slot just below the callee's base, which is the
 * caller's function register R[a] of the CALL. */
do_return : {
  f->base[-1] = ret;
  bool was_entry = f->entry;
  vm->nframes--;
  vm->depth--;
  if (was_entry) return true;
  RELOAD();
  vm->sp = f->top;
  DISPATCH();
}
/* Default parameters: a parameter not passed holds the MISSING marker; if it
 * was passed, skip the code that evaluates its default (evaluated at call
 * time, in the callee, like the reference). */
L_TESTARG:
  CHARGE();
  if (R[i.a].tag != T_MISSING) ip += i.sbx;
  DISPATCH();
/* await runs the task synchronously (see vm_await); async is sequential. */
L_AWAIT:
  CHARGE();
  SAVE();
  TRY(vm_await(vm, R[i.b], &R[i.a]));
  DISPATCH();

  /* ---- data ---- */
L_NEWLIST: {
  SAVE();
  Value t;
  TRY(obj_list_from(vm, &R[i.b], i.c, &t));
  R[i.a] = t;
  DISPATCH();
}
/* Constructors and tuples copy their fields from consecutive registers. */
L_NEWTUPLE: {
  SAVE();
  Value t;
  TRY(obj_tuple(vm, i.c, &t));
  memcpy(AS_TUPLE(t)->items, &R[i.b], (size_t)i.c * sizeof(Value));
  R[i.a] = t;
  DISPATCH();
}
L_NEWCTOR: {
  SAVE();
  const CtorInfo *info = vm->img->ctors[i.c];
  Value t;
  TRY(obj_ctor(vm, info, &t));
  if (info->nfields) memcpy(AS_CTOR(t)->fields, &R[i.b], (size_t)info->nfields * sizeof(Value));
  R[i.a] = t;
  DISPATCH();
}
L_APPEND:
  SAVE();
  TRY(obj_list_append(vm, &R[i.a], R[i.b]));
  DISPATCH();
/* Field names are interned by the compiler, so a pointer comparison finds
 * the field; records of other shapes and built-in fields go to vm_get_field. */
L_GETFIELD: {
  Value t = R[i.b];
  const char *name = vm->img->names[i.c];
  if (t.tag == T_CTOR) {
    ObjCtor *c = AS_CTOR(t);
    for (int k = 0; k < c->info->nfields; k++)
      if (c->info->field_names[k] == name) {
        R[i.a] = c->fields[k];
        DISPATCH();
      }
  }
  SAVE();
  TRY(vm_get_field(vm, t, name, &R[i.a]));
  DISPATCH();
}
/* `v with {f: x}` copies the constructor value; the SETFIELDs that follow
 * write into the fresh copy, so the original value is unchanged. The same
 * pair implements `p.x = e` on a variable (value semantics). */
L_WITHCOPY: {
  SAVE();
  Value src = R[i.b];
  if (src.tag != T_CTOR) {
    vm_raise(vm, E_RT_TYPE, NULL, "'with' requires a constructor value, got %s", vm_tag_name(src.tag));
    goto error;
  }
  const CtorInfo *info = AS_CTOR(src)->info;
  if (info->nfields == 0) {
    R[i.a] = src;
    DISPATCH();
  }
  Value t;
  TRY(obj_ctor(vm, info, &t));
  memcpy(AS_CTOR(t)->fields, AS_CTOR(R[i.b])->fields, (size_t)info->nfields * sizeof(Value));
  R[i.a] = t;
  DISPATCH();
}
L_SETFIELD: {
  Value t = R[i.a];
  const char *name = vm->img->names[i.c];
  int k = t.tag == T_CTOR ? obj_ctor_field_index(AS_CTOR(t)->info, name) : -1;
  if (k < 0) {
    SAVE();
    if (t.tag == T_CTOR) vm_raise(vm, E_RT_TYPE, NULL, "No field '%s' on %s", name, AS_CTOR(t)->info->name);
    else vm_raise(vm, E_RT_TYPE, NULL, "Cannot assign field on %s", vm_tag_name(t.tag));
    goto error;
  }
  AS_CTOR(t)->fields[k] = R[i.b];
  DISPATCH();
}
/* List indexing inline, negative indexes from the end; the rest in vm_index. */
L_INDEX: {
  Value t = R[i.b], x = R[i.c];
  if (t.tag == T_LIST && x.tag == T_INT) {
    ObjList *l = AS_LIST(t);
    int64_t k = x.as.i < 0 ? x.as.i + (int64_t)l->len : x.as.i;
    if (k >= 0 && (uint64_t)k < l->len) {
      R[i.a] = l->items[k];
      DISPATCH();
    }
  }
  SAVE();
  TRY(vm_index(vm, t, x, &R[i.a]));
  DISPATCH();
}
L_SETINDEX:
  SAVE();
  TRY(vm_set_index(vm, &R[i.a], R[i.b], R[i.c]));
  DISPATCH();
/* c packs the element index (low byte) and the expected tuple size. */
L_GETTUPLE: {
  Value t = R[i.b];
  int idx = i.c & 0xff, n = i.c >> 8;
  if (t.tag == T_TUPLE && (int)AS_TUPLE(t)->n == n) {
    R[i.a] = AS_TUPLE(t)->items[idx];
    DISPATCH();
  }
  SAVE();
  vm_raise(vm, E_RT_TYPE, NULL, "Expected %d-element tuple, got %s", n, vm_tag_name(t.tag));
  goto error;
}

  /* ---- patterns ---- */
/* Pattern instructions: the compiler has already checked the shape with a
 * TEST* instruction before it emits the unchecked GETFLDI / GETLI / GETLE
 * reads, so those need no tag checks. */
L_TESTCTOR: {
  CHARGE();
  Value v = R[i.a];
  if (v.tag == T_CTOR && AS_CTOR(v)->info->id == i.c) SKIPX();
  else JUMPX();
  DISPATCH();
}
/* The Option tests after CALLBO: MISSING stands for None, any other
 * value is the payload of Some. */
L_TESTOPT:
  CHARGE();
  if ((R[i.a].tag == T_MISSING) == (i.c == CTOR_SOME)) JUMPX();
  else SKIPX();
  DISPATCH();
L_GETFLDI:
  R[i.a] = AS_CTOR(R[i.b])->fields[i.c];
  DISPATCH();
L_TESTLIST: {
  CHARGE();
  Value v = R[i.a];
  bool ok = v.tag == T_LIST && (i.c ? AS_LIST(v)->len >= i.b : AS_LIST(v)->len == i.b);
  if (ok) SKIPX();
  else JUMPX();
  DISPATCH();
}
L_GETLI:
  R[i.a] = AS_LIST(R[i.b])->items[i.c];
  DISPATCH();
L_GETLE: {
  ObjList *l = AS_LIST(R[i.b]);
  R[i.a] = l->items[l->len - i.c];
  DISPATCH();
}
/* The rest of a list pattern `[a, ..rest, z]`: from c to len minus EXTRA's bx,
 * a view sharing the list's storage (obj_list_slice). */
L_LSLICE: {
  SAVE();
  Value whole = R[i.b], t;
  size_t from = i.c, to = AS_LIST(whole)->len - ip->bx;
  gc_push_root(vm, &whole);
  bool ok = obj_list_slice(vm, &whole, from, to > from ? to - from : 0, &t);
  gc_pop_roots(vm, 1);
  TRY(ok);
  R[i.a] = t;
  SKIPX();
  DISPATCH();
}
L_NOMATCH:
  SAVE();
  if (i.c) {
    /* a CALLBO result: rebuild the Option so the message shows it */
    Value v = R[i.a];
    if (v.tag == T_MISSING) v = vm_none(vm);
    else if (!vm_some(vm, v, &v)) goto error;
    R[i.a] = v;
  }
  no_match(vm, R[i.a], i.b != 0);
  goto error;

  /* ---- errors, contracts ---- */
L_THROW:
  SAVE();
  throw_value(vm, R[i.a]);
  goto error;
/* `e?`: Some(x)/Ok(x) unwraps and jumps on; None/Err(_) leaves the value in
 * R[a] and falls into the early-return code the compiler placed after it. */
L_PROP: {
  CHARGE();
  Value v = R[i.b];
  if (v.tag == T_CTOR) {
    int id = AS_CTOR(v)->info->id;
    if (id == CTOR_SOME || id == CTOR_OK) {
      R[i.a] = AS_CTOR(v)->fields[0];
      JUMPX();
      DISPATCH();
    }
    if (id == CTOR_NONE || id == CTOR_ERR) {
      R[i.a] = v;
      SKIPX();
      DISPATCH();
    }
  }
  SAVE();
  prop_error(vm, v);
  goto error;
}
L_HOLE:
  SAVE();
  vm_raise(vm, E_HOLE, NULL, "Encountered unfilled hole: ?%s", vm->img->names[i.bx]);
  goto error;
L_UNDEF:
  SAVE();
  vm_raise(vm, E_RT_UNDEFINED_VAR, NULL, "Undefined variable: %s", vm->img->names[i.bx]);
  goto error;
L_ASSERT:
  if (R[i.a].tag == T_BOOL ? R[i.a].as.b : vm_truthy(R[i.a])) DISPATCH();
  SAVE();
  vm_raise(vm, E_RUNTIME, NULL, "Assertion failed");
  goto error;
/* Contracts are fatal: try/catch cannot swallow a failed requires/ensures. */
L_CHECKREQ:
  if (R[i.a].tag == T_BOOL ? R[i.a].as.b : vm_truthy(R[i.a])) DISPATCH();
  SAVE();
  vm_raise_fatal(vm, E_PRECONDITION, NULL, "Precondition failed for %s: requires clause evaluated to false",
                 f->p->name ? f->p->name : "function");
  goto error;
L_CHECKENS:
  if (R[i.a].tag == T_BOOL ? R[i.a].as.b : vm_truthy(R[i.a])) DISPATCH();
  SAVE();
  ensures_failed(vm, f->p->name, R[i.b]);
  goto error;

/* Every failing instruction lands here with vm->err set. vm_unwind pops
 * frames down to the nearest try handler inside this activation (then the
 * loop continues in the catch block) or returns false to the caller. */
L_CHKBITS: {
  SAVE();
  Value v = R[i.a];
  mpz_t z;
  mpz_init(z);
  obj_int_to_mpz(v, z);
  bool ok = vm_check_bits_big(vm, z);
  mpz_clear(z);
  TRY(ok);
  DISPATCH();
}

error:
  if (vm_unwind(vm, entry)) {
    RELOAD();
    vm->sp = f->top;
    DISPATCH();
  }
  return false;

#undef DISPATCH
#undef SAVE
#undef TRY
#undef CHARGE
#undef JUMPX
#undef SKIPX
#undef RELOAD
#undef SMALL
#undef ARITH_BODY
#undef DIVMOD_BODY
#undef FAST_ENTRY
#undef PUSH_FRAME
}
