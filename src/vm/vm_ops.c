/* The slow paths of the dispatch loop's value operations: arithmetic with
 * big Ints and mixed Int/Float, comparison, indexing, fields, text. The
 * loop handles small-Int and Float fast paths inline (vm_exec.c).
 *
 * Semantics are the reference's: `/` and `%` on Ints truncate toward zero
 * (the remainder takes the dividend's sign); any division by zero, Int or
 * Float, is E400; Int ** negative Int is a Float; shifts are arithmetic;
 * every Int result is checked against max_integer_bits. */
#include <math.h>
#include <stdio.h>

#include "equal.h"
#include "object.h"
#include "render.h"

static const char *op_text(int op) {
  switch (op) {
    case BC_ADD: return "+";
    case BC_SUB: return "-";
    case BC_MUL: return "*";
    case BC_DIV: return "/";
    case BC_MOD: return "%";
    case BC_POW: return "**";
    case BC_BAND: return "&";
    case BC_BXOR: return "^";
    case BC_SHL: return "<<";
    case BC_SHR: return ">>";
    default: return "?";
  }
}

static const char *type_name(Value v) { return vm_tag_name(v.tag); }

/* E400 names both operands as the program wrote them (quoted strings,
 * Floats in repr form), e.g. "cannot compute 7 / 0"; rendering is capped
 * because an operand may be huge. */
static bool div_zero(VM *vm, int op, Value a, Value b) {
  Buf x = BUF_INIT, y = BUF_INIT;
  bool ok = vm_render(vm, a, RENDER_QUOTED, &x, 1000, LIMIT_STRING, NULL) &&
            vm_render(vm, b, RENDER_QUOTED, &y, 1000, LIMIT_STRING, NULL);
  if (ok)
    vm_raise(vm, E_DIV_ZERO, NULL, "Division by zero: cannot compute %s %s %s", x.data ? x.data : "", op_text(op),
             y.data ? y.data : "");
  buf_free(&x);
  buf_free(&y);
  return false;
}

/* The Python type name the reference's messages use for a value. */
static const char *py_type(Value v) {
  switch ((ValueTag)v.tag) {
    case T_INT:
    case T_BIGINT: return "int";
    case T_FLOAT: return "float";
    case T_BOOL: return "bool";
    case T_STRING: return "str";
    case T_UNIT: return "NoneType";
    case T_LIST: return "list";
    case T_TUPLE: return "tuple";
    case T_MAP: return "dict";
    default: return vm_tag_name(v.tag);
  }
}

/* Operands of the wrong types. A well-typed program reaches this only
 * through the one hole the language has: Int ** negative Int is statically
 * an Int but a Float at run time, so `(2 ** -1) & 1` gets here. The text is
 * the one the reference shows (Python's), since a program can catch it. */
static bool bad_operands(VM *vm, int op, Value a, Value b) {
  return vm_raise(vm, E_RT_TYPE, NULL, "unsupported operand type(s) for %s: '%s' and '%s'", op_text(op), py_type(a),
                  py_type(b));
}

/* Python's float(int) of a GMP integer: correctly rounded (through the
 * decimal text and strtod; mpz_get_d would truncate); too large is an
 * error. */
static bool mpz_to_double(VM *vm, const mpz_t z, double *out) {
  char *s = mpz_get_str(NULL, 10, z);
  if (!s) return vm_raise_oom(vm);
  double d = strtod(s, NULL);
  void (*freefn)(void *, size_t);
  mp_get_memory_functions(NULL, NULL, &freefn);
  freefn(s, strlen(s) + 1);
  if (isinf(d)) return vm_raise(vm, E_RUNTIME, NULL, "int too large to convert to float");
  *out = d;
  return true;
}

static bool int_to_double(VM *vm, Value v, double *out) {
  if (v.tag == T_INT) {
    *out = (double)v.as.i;
    return true;
  }
  return mpz_to_double(vm, AS_BIG(v)->z, out);
}

static bool to_double(VM *vm, Value v, double *out) {
  if (v.tag == T_FLOAT) {
    *out = v.as.f;
    return true;
  }
  return int_to_double(vm, v, out);
}

/* Float arithmetic with Python's rules: x / 0.0 and x % 0.0 are E400, not
 * inf/NaN; % truncates toward zero like the Int %, so the sign follows the
 * dividend; ** refuses a negative base with a fractional exponent (Python
 * would give a complex number) and an overflowing finite result. A Float
 * operand that is already inf/NaN propagates silently, as in Python. */
static bool float_op(VM *vm, int op, Value a, Value b, Value *out) {
  double x, y;
  if (!to_double(vm, a, &x) || !to_double(vm, b, &y)) {
    if (op == BC_POW) {
      vm_error_clear(vm);
      return vm_raise(vm, E_RUNTIME, NULL, "Exponentiation result too large");
    }
    return false;
  }
  double r;
  switch (op) {
    case BC_ADD: r = x + y; break;
    case BC_SUB: r = x - y; break;
    case BC_MUL: r = x * y; break;
    case BC_DIV:
      if (y == 0) return div_zero(vm, op, a, b);
      r = x / y;
      break;
    case BC_MOD: {
      if (y == 0) return div_zero(vm, op, a, b);
      double q = x / y;
      if (isinf(q)) return vm_raise(vm, E_RUNTIME, NULL, "cannot convert float infinity to integer");
      if (isnan(q)) return vm_raise(vm, E_RUNTIME, NULL, "cannot convert float NaN to integer");
      /* The reference computes a - b * int(trunc(a / b)) with Python
       * numbers: the truncated quotient is an exact integer, so with an
       * Int divisor the product is an exact integer too (a zero product is
       * +0, so -0.0 % 7 stays -0.0), rounded to Float only once. */
      double t = trunc(q);
      if (t == 0) t = 0.0;
      if (IS_INTLIKE(b)) {
        if (t == 0) {
          r = x - 0.0;
        } else {
          mpz_t p, tz;
          mpz_init(p);
          mpz_init_set_d(tz, t);
          obj_int_to_mpz(b, p);
          mpz_mul(p, p, tz);
          mpz_clear(tz);
          double pd;
          bool ok = mpz_to_double(vm, p, &pd);
          mpz_clear(p);
          if (!ok) return false;
          r = x - pd;
        }
      } else {
        r = x - y * t;
      }
      break;
    }
    case BC_POW:
      if (y == 0) {
        r = 1.0;
        break;
      }
      if (x == 0 && y < 0) return div_zero(vm, op, a, b);
      if (x < 0 && isfinite(x) && isfinite(y) && y != floor(y)) {
        /* Python computes a complex power here; it overflows (and the
         * reference reports "too large") when |x| ** y does. */
        if (isinf(pow(-x, y))) return vm_raise(vm, E_RUNTIME, NULL, "Exponentiation result too large");
        return vm_raise(vm, E_RUNTIME, NULL, "Exponentiation result is not a real number");
      }
      r = pow(x, y);
      if (isinf(r) && isfinite(x) && isfinite(y)) return vm_raise(vm, E_RUNTIME, NULL, "Exponentiation result too large");
      break;
    default: return bad_operands(vm, op, a, b);
  }
  *out = v_float(r);
  return true;
}

/* Int op Int through GMP (one operand big, or a small-Int overflow). */
/* Addition and subtraction grow by at most one bit, so checking the result
 * (obj_int_from_mpz) suffices; a product can be far larger than its
 * operands, so it is refused before GMP is asked to allocate it. The limit
 * errors are fatal (E504): a program cannot catch its way past them. */
static bool big_op(VM *vm, int op, Value a, Value b, Value *out) {
  mpz_t x, y, r;
  mpz_init(x);
  mpz_init(y);
  mpz_init(r);
  obj_int_to_mpz(a, x);
  obj_int_to_mpz(b, y);
  bool ok = true;
  switch (op) {
    case BC_ADD: mpz_add(r, x, y); break;
    case BC_SUB: mpz_sub(r, x, y); break;
    case BC_MUL: {
      /* Refuse before computing a product that would be too large. */
      size_t bits = mpz_sizeinbase(x, 2) + mpz_sizeinbase(y, 2);
      if (mpz_sgn(x) && mpz_sgn(y) && bits > (size_t)vm->max_int_bits + 1)
        ok = vm_raise_fatal(vm, E_RESOURCE, NULL, "Integer exceeds maximum size (%zu bits)", bits - 1);
      else mpz_mul(r, x, y);
      break;
    }
    case BC_DIV:
      if (mpz_sgn(y) == 0) ok = div_zero(vm, op, a, b);
      else mpz_tdiv_q(r, x, y);
      break;
    case BC_MOD:
      if (mpz_sgn(y) == 0) ok = div_zero(vm, op, a, b);
      else mpz_tdiv_r(r, x, y);
      break;
    case BC_BAND: mpz_and(r, x, y); break;
    case BC_BXOR: mpz_xor(r, x, y); break;
    default: ok = bad_operands(vm, op, a, b);
  }
  if (ok) ok = obj_int_from_mpz(vm, r, out);
  mpz_clear(x);
  mpz_clear(y);
  mpz_clear(r);
  return ok;
}

/* Int ** Int. Bases 0, 1 and -1 are answered directly (any exponent, even
 * a big one); otherwise the result's size is estimated as bits(base) * exp
 * and refused before computing when it exceeds max_integer_bits, so
 * `10 ** 10000000000` fails fast instead of exhausting memory. */
static bool int_pow(VM *vm, Value a, Value b, Value *out) {
  bool neg_exp = b.tag == T_INT ? b.as.i < 0 : mpz_sgn(AS_BIG(b)->z) < 0;
  if (neg_exp) {
    /* Int ** negative Int is a Float (0 ** -1 divides by zero). */
    bool zero = a.tag == T_INT && a.as.i == 0;
    if (zero) return div_zero(vm, BC_POW, a, b);
    return float_op(vm, BC_POW, a, b, out);
  }
  mpz_t x;
  mpz_init(x);
  obj_int_to_mpz(a, x);
  bool ok;
  if (mpz_cmp_si(x, 0) == 0 || mpz_cmp_si(x, 1) == 0) {
    bool bzero = b.tag == T_INT && b.as.i == 0;
    *out = v_int(bzero ? 1 : mpz_get_si(x));
    ok = true;
  } else if (mpz_cmp_si(x, -1) == 0) {
    bool odd = b.tag == T_INT ? (b.as.i & 1) : mpz_odd_p(AS_BIG(b)->z);
    *out = v_int(odd ? -1 : 1);
    ok = true;
  } else if (b.tag != T_INT) {
    ok = vm_raise_fatal(vm, E_RESOURCE, NULL, "Exponentiation result too large (estimated more than %u bits)",
                        vm->max_int_bits);
  } else {
    uint64_t e = (uint64_t)b.as.i;
    uint64_t bits = (uint64_t)mpz_sizeinbase(x, 2);
    if (e > 0 && bits * e / e != bits) {
      ok = vm_raise_fatal(vm, E_RESOURCE, NULL, "Exponentiation result too large (estimated more than %u bits)",
                          vm->max_int_bits);
    } else if (e > 0 && bits * e > vm->max_int_bits) {
      ok = vm_raise_fatal(vm, E_RESOURCE, NULL, "Exponentiation result too large (estimated %llu bits)",
                          (unsigned long long)(bits * e));
    } else {
      mpz_t r;
      mpz_init(r);
      mpz_pow_ui(r, x, (unsigned long)e);
      ok = obj_int_from_mpz(vm, r, out);
      mpz_clear(r);
    }
  }
  mpz_clear(x);
  return ok;
}

/* Shifts are arithmetic on unbounded Ints (x >> n rounds toward minus
 * infinity, like Python). A shift count larger than max_integer_bits is
 * refused even for >> where the result would be 0 or -1, matching the
 * reference's message; << checks the result size before GMP builds it. */
static bool shift(VM *vm, int op, Value a, Value b, Value *out) {
  /* The shift count is checked before the operand types, as in the
   * reference ((2 ** -1) << -1 reports the negative count). */
  if (!IS_INTLIKE(b)) return bad_operands(vm, op, a, b);
  bool neg = b.tag == T_INT ? b.as.i < 0 : mpz_sgn(AS_BIG(b)->z) < 0;
  if (neg) return vm_raise(vm, E_RUNTIME, NULL, "Negative shift count");
  if (b.tag != T_INT || (uint64_t)b.as.i > vm->max_int_bits) {
    Buf t = BUF_INIT;
    fmt_int(vm, b, &t);
    vm_raise_fatal(vm, E_RESOURCE, NULL, "%s shift amount too large (%s bits)", op == BC_SHL ? "Left" : "Right",
                   t.data ? t.data : "?");
    buf_free(&t);
    return false;
  }
  if (!IS_INTLIKE(a)) return bad_operands(vm, op, a, b);
  int64_t n = b.as.i;
  if (a.tag == T_INT) {
    int64_t x = a.as.i;
    if (op == BC_SHR) {
      *out = v_int(n >= 63 ? (x < 0 ? -1 : 0) : x >> n);
      return true;
    }
    if (x == 0) {
      *out = v_int(0);
      return true;
    }
    if (n < 62) {
      int64_t lim = INT64_C(1) << (62 - n);
      if (x < lim && x > -lim) {
        int64_t r = (int64_t)((uint64_t)x << n);
        if (r <= vm->small_int_max && r >= -vm->small_int_max) {
          *out = v_int(r);
          return true;
        }
      }
    }
  }
  mpz_t x, r;
  mpz_init(x);
  mpz_init(r);
  obj_int_to_mpz(a, x);
  bool ok = true;
  if (op == BC_SHL) {
    size_t bits = mpz_sgn(x) ? mpz_sizeinbase(x, 2) + (size_t)n : 0;
    if (bits > vm->max_int_bits) ok = vm_raise_fatal(vm, E_RESOURCE, NULL, "Integer exceeds maximum size (%zu bits)", bits);
    else mpz_mul_2exp(r, x, (mp_bitcnt_t)n);
  } else {
    mpz_fdiv_q_2exp(r, x, (mp_bitcnt_t)n);
  }
  if (ok) ok = obj_int_from_mpz(vm, r, out);
  mpz_clear(x);
  mpz_clear(r);
  return ok;
}

/* The one entry for binary arithmetic slow paths: Int x Int (small, then
 * big), then mixed/Float, then String + String and List + List (the only
 * non-numeric `+` the language has). Int % -1 is 0 without dividing
 * (INT64_MIN % -1 traps in C). */
bool vm_arith(VM *vm, int op, Value a, Value b, Value *out) {
  if (op == BC_SHL || op == BC_SHR) return shift(vm, op, a, b, out);
  if (IS_INTLIKE(a) && IS_INTLIKE(b)) {
    if (op == BC_POW) return int_pow(vm, a, b, out);
    if (a.tag == T_INT && b.tag == T_INT) {
      int64_t x = a.as.i, y = b.as.i, r;
      bool ovf = false;
      switch (op) {
        case BC_ADD: ovf = __builtin_add_overflow(x, y, &r); break;
        case BC_SUB: ovf = __builtin_sub_overflow(x, y, &r); break;
        case BC_MUL: ovf = __builtin_mul_overflow(x, y, &r); break;
        case BC_DIV:
          if (y == 0) return div_zero(vm, op, a, b);
          if (x == INT64_MIN && y == -1) ovf = true;
          else r = x / y;
          break;
        case BC_MOD:
          if (y == 0) return div_zero(vm, op, a, b);
          r = y == -1 ? 0 : x % y;
          break;
        case BC_BAND: r = x & y; break;
        case BC_BXOR: r = x ^ y; break;
        default: return bad_operands(vm, op, a, b);
      }
      if (!ovf && r <= vm->small_int_max && r >= -vm->small_int_max) {
        *out = v_int(r);
        return true;
      }
    }
    return big_op(vm, op, a, b, out);
  }
  if (IS_NUM(a) && IS_NUM(b)) {
    if (op == BC_BAND || op == BC_BXOR) return bad_operands(vm, op, a, b);
    return float_op(vm, op, a, b, out);
  }
  if (op == BC_ADD && a.tag == T_STRING && b.tag == T_STRING) return obj_string_concat(vm, a, b, out);
  if (op == BC_ADD && a.tag == T_LIST && b.tag == T_LIST) {
    ObjList *x = AS_LIST(a), *y = AS_LIST(b);
    size_t n = x->len + y->len;
    if (n > vm->max_collection) return vm_check_collection(vm, "List", n);
    Value r = a;
    gc_push_root(vm, &r);
    bool ok = true;
    for (size_t i = 0; ok && i < AS_LIST(b)->len; i++) ok = obj_list_append(vm, &r, list_items(AS_LIST(b))[i]);
    gc_pop_roots(vm, 1);
    if (ok) *out = r;
    return ok;
  }
  return bad_operands(vm, op, a, b);
}

/* Python truthiness, used only when a condition is not a Bool (not in
 * well-typed programs). */
bool vm_truthy(Value v) {
  switch ((ValueTag)v.tag) {
    case T_UNIT: return false;
    case T_BOOL: return v.as.b;
    case T_INT: return v.as.i != 0;
    case T_FLOAT: return v.as.f != 0;
    case T_STRING: return AS_STR(v)->blen != 0;
    case T_LIST: return AS_LIST(v)->len != 0;
    case T_TUPLE: return AS_TUPLE(v)->n != 0;
    case T_MAP:
    case T_MMAP:
    case T_SET: return AS_MAP(v)->t.live != 0;
    default: return true;
  }
}

bool vm_unary(VM *vm, int op, Value a, Value *out) {
  if (op == BC_NOT) {
    *out = v_bool(!vm_truthy(a));
    return true;
  }
  if (op == BC_NEG) {
    if (a.tag == T_INT && a.as.i != INT64_MIN) {
      *out = v_int(-a.as.i);
      return true;
    }
    if (a.tag == T_FLOAT) {
      *out = v_float(-a.as.f);
      return true;
    }
    if (IS_INTLIKE(a)) {
      mpz_t z;
      mpz_init(z);
      obj_int_to_mpz(a, z);
      mpz_neg(z, z);
      bool ok = obj_int_from_mpz(vm, z, out);
      mpz_clear(z);
      return ok;
    }
    return vm_raise(vm, E_RT_TYPE, NULL, "bad operand type for unary -: '%s'", py_type(a));
  }
  /* ~a = -a - 1 */
  if (a.tag == T_INT) {
    *out = v_int(~a.as.i);
    return true;
  }
  if (a.tag == T_BIGINT) {
    mpz_t z;
    mpz_init(z);
    mpz_com(z, AS_BIG(a)->z);
    bool ok = obj_int_from_mpz(vm, z, out);
    mpz_clear(z);
    return ok;
  }
  return vm_raise(vm, E_RT_TYPE, NULL, "bad operand type for unary ~: '%s'", py_type(a));
}

/* < and <= : numbers compare by value across Int/Float/big Int (NaN is
 * unordered: every comparison false), Strings by code point. Other types
 * are not ordered by these operators. */
bool vm_less(VM *vm, Value a, Value b, bool or_equal, bool *out) {
  if (IS_NUM(a) && IS_NUM(b)) {
    int c = vm_num_cmp(a, b);
    *out = c == 2 ? false : or_equal ? c <= 0 : c < 0;
    return true;
  }
  if (a.tag == T_STRING && b.tag == T_STRING) {
    int c;
    vm_order(vm, a, b, &c);
    *out = or_equal ? c <= 0 : c < 0;
    return true;
  }
  return vm_raise(vm, E_RT_TYPE, NULL, "Cannot compare %s with %s: operands must both be numbers or both Strings",
                  type_name(a), type_name(b));
}

/* ---- indexing and fields --------------------------------------------------------- */

/* Python-style index: negative counts from the end. A big-Int index is
 * simply out of bounds (E401 with its digits). */
static bool index_of(VM *vm, Value index, size_t len, const char *what, size_t *out) {
  if (index.tag != T_INT) {
    if (index.tag == T_BIGINT) {
      Buf t = BUF_INIT;
      fmt_int(vm, index, &t);
      vm_raise(vm, E_INDEX, NULL, "Index %s out of bounds for %s of length %zu", t.data ? t.data : "?", what, len);
      buf_free(&t);
      return false;
    }
    return vm_raise(vm, E_RT_TYPE, NULL, "%c%s index must be integer", what[0] - 32, what + 1);
  }
  int64_t i = index.as.i;
  if (i < 0) i += (int64_t)len;
  if (i < 0 || (uint64_t)i >= len)
    return vm_raise(vm, E_INDEX, NULL, "Index %lld out of bounds for %s of length %zu", (long long)i, what, len);
  *out = (size_t)i;
  return true;
}

static bool key_not_found(VM *vm, Value key) {
  Buf t = BUF_INIT;
  bool ok = vm_render(vm, key, key.tag == T_STRING ? RENDER_RAW : RENDER_REPR, &t, 10000, LIMIT_STRING, NULL);
  if (ok) vm_raise(vm, E_KEY, NULL, "Key not found: %s", t.data ? t.data : "");
  buf_free(&t);
  return false;
}

/* Reading by index: Lists, Arrays, Strings (by code point, an O(1) step
 * for ASCII strings) and Maps (by key; a missing key is an error). */
bool vm_index(VM *vm, Value t, Value index, Value *out) {
  size_t i;
  switch ((ValueTag)t.tag) {
    case T_LIST:
      if (!index_of(vm, index, AS_LIST(t)->len, "list", &i)) return false;
      *out = list_items(AS_LIST(t))[i];
      return true;
    case T_ARRAY:
      if (!index_of(vm, index, AS_ARRAY(t)->len, "array", &i)) return false;
      *out = AS_ARRAY(t)->items[i];
      return true;
    case T_STRING:
      if (!index_of(vm, index, AS_STR(t)->cplen, "string", &i)) return false;
      return obj_string_char(vm, t, i, out);
    case T_MAP: {
      HEntry *e = tbl_find(vm, &AS_MAP(t)->t, index);
      if (!e) return vm->err.active ? false : key_not_found(vm, index);
      *out = e->val;
      return true;
    }
    default: return vm_raise(vm, E_RT_TYPE, NULL, "Cannot index into %s", type_name(t));
  }
}

/* Writing by index. Array/Vec/MutableMap change in place (shared mutable
 * objects); a List or Map in the middle of a path gets an updated copy
 * written back to *target, so the update reaches only the variable the
 * assignment names (value semantics). Unlike reads, the mutable
 * containers take no negative index, as in the reference. */
bool vm_set_index(VM *vm, Value *target, Value index, Value v) {
  Value t = *target;
  switch ((ValueTag)t.tag) {
    case T_ARRAY:
    case T_VEC: {
      ObjArray *a = AS_ARRAY(t);
      const char *what = t.tag == T_ARRAY ? "array" : "vec";
      if (index.tag != T_INT)
        return vm_raise(vm, E_RT_TYPE, NULL, "%s index must be integer", t.tag == T_ARRAY ? "Array" : "Vec");
      if (index.as.i < 0 || (uint64_t)index.as.i >= a->len)
        return vm_raise(vm, E_INDEX, NULL, "Index %lld out of bounds for %s of length %zu", (long long)index.as.i,
                        what, a->len);
      a->items[index.as.i] = v;
      return true;
    }
    case T_MMAP: return tbl_set(vm, t, index, v);
    case T_LIST: {
      /* Only reached through a nested update (xs[0].f = v): the path gets
       * an updated copy, like every immutable value. */
      size_t i;
      if (!index_of(vm, index, AS_LIST(t)->len, "list", &i)) return false;
      Value copy;
      if (!obj_list_from(vm, list_items(AS_LIST(t)), AS_LIST(t)->len, &copy)) return false;
      list_items(AS_LIST(copy))[i] = v;
      *target = copy;
      return true;
    }
    case T_MAP: {
      Value copy;
      Value keep_i = index, keep_v = v;
      gc_push_root(vm, &keep_i);
      gc_push_root(vm, &keep_v);
      bool ok = obj_map_copy(vm, t, T_MAP, &copy);
      if (ok) {
        gc_push_root(vm, &copy);
        ok = tbl_set(vm, copy, keep_i, keep_v);
        gc_pop_roots(vm, 1);
      }
      gc_pop_roots(vm, 2);
      if (ok) *target = copy;
      return ok;
    }
    default: return vm_raise(vm, E_RT_TYPE, NULL, "Cannot use index assignment on %s", type_name(t));
  }
}

bool vm_get_field(VM *vm, Value t, const char *name, Value *out) {
  if (t.tag != T_CTOR) return vm_raise(vm, E_RT_TYPE, NULL, "Cannot access field on %s", type_name(t));
  ObjCtor *c = AS_CTOR(t);
  int i = obj_ctor_field_index(c->info, name);
  if (i < 0) return vm_raise(vm, E_RT_TYPE, NULL, "No field '%s' on %s", name, c->info->name);
  *out = c->fields[i];
  return true;
}

/* ---- text ------------------------------------------------------------------------------ */

/* Text of a value as interpolation and to_string produce it: top-level
 * strings raw, nested ones quoted. Capped at max_collection code points. */
bool vm_to_string_value(VM *vm, Value v, Value *out) {
  if (v.tag == T_STRING) {
    *out = v;
    return true;
  }
  Buf b = BUF_INIT;
  bool ok = vm_render(vm, v, RENDER_RAW, &b, vm->max_collection, LIMIT_STRING, "to_string") &&
            obj_string(vm, b.data ? b.data : "", b.len, out);
  buf_free(&b);
  return ok;
}

bool vm_concat(VM *vm, Value a, Value b, Value *out) {
  if (a.tag != T_STRING || b.tag != T_STRING) return bad_operands(vm, BC_ADD, a, b);
  return obj_string_concat(vm, a, b, out);
}

/* Sizes first (the code-point count is known from each part's cache), so
 * the limit is checked before anything is copied. */
bool vm_concat_n(VM *vm, const Value *parts, int n, Value *out) {
  size_t bytes = 0, cps = 0;
  for (int i = 0; i < n; i++) {
    if (parts[i].tag != T_STRING) return bad_operands(vm, BC_ADD, parts[i], parts[i]);
    bytes += AS_STR(parts[i])->blen;
    cps += AS_STR(parts[i])->cplen;
  }
  if (cps > vm->max_collection) return vm_check_collection(vm, "String", cps);
  char *tmp = malloc(bytes + 1);
  if (!tmp) return vm_raise_oom(vm);
  size_t k = 0;
  for (int i = 0; i < n; i++) {
    memcpy(tmp + k, AS_STR(parts[i])->data, AS_STR(parts[i])->blen);
    k += AS_STR(parts[i])->blen;
  }
  bool ok = obj_string_cp(vm, tmp, bytes, cps, out);
  free(tmp);
  return ok;
}
