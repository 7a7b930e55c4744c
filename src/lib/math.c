/* Math builtins: arithmetic helpers (add, max, clamp, floor ...) and the
 * math_* functions behind the std module Math (except the random ones,
 * which live in random.c).
 *
 * Numbers follow the reference's Python semantics: Int is unbounded, an
 * Int meeting a Float is converted to Float ("int too large to convert to
 * float" past the double range), comparisons between Int and Float are
 * exact, and the kind of the winning operand is kept (max(3, 2.5) is the
 * Int 3). floor/ceil/round return Ints within the JavaScript safe range.
 *
 * The rows at the bottom are this family's part of the builtin table
 * (src/lib/builtins.h); the implementations are written above them. */
#include <geno.h>
#include <math.h>

#include "families.h"
#include "text.h"

/* Results of floor, ceil, round and float_to_int must lie within
 * ±(2^53 - 1), the integers a JavaScript number holds exactly (the
 * reference keeps its JS backend and interpreter in agreement). */
#define JS_SAFE_MAX 9007199254740991LL

/* Three-way comparison of two numbers with Python's exact Int/Float
 * rules: -1, 0, 1, or 2 when unordered (a NaN is involved). */
static int num_cmp(Value a, Value b) {
  if (a.tag == T_FLOAT && b.tag == T_FLOAT) {
    if (isnan(a.as.f) || isnan(b.as.f)) return 2;
    return (a.as.f > b.as.f) - (a.as.f < b.as.f);
  }
  if (a.tag == T_INT && b.tag == T_INT) return (a.as.i > b.as.i) - (a.as.i < b.as.i);
  if (a.tag == T_FLOAT || b.tag == T_FLOAT) {
    bool flip = a.tag == T_FLOAT;
    Value iv = flip ? b : a;
    double d = flip ? a.as.f : b.as.f;
    if (isnan(d)) return 2;
    mpz_t z;
    mpz_init(z);
    vm_int_to_mpz(iv, z);
    int c = mpz_cmp_d(z, d); /* exact, infinities included */
    mpz_clear(z);
    c = (c > 0) - (c < 0);
    return flip ? -c : c;
  }
  mpz_t x, y;
  mpz_inits(x, y, NULL);
  vm_int_to_mpz(a, x);
  vm_int_to_mpz(b, y);
  int c = mpz_cmp(x, y);
  mpz_clears(x, y, NULL);
  return (c > 0) - (c < 0);
}

static int int_sign(Value v) {
  if (v.tag == T_INT) return (v.as.i > 0) - (v.as.i < 0);
  mpz_t z;
  mpz_init(z);
  vm_int_to_mpz(v, z);
  int s = mpz_sgn(z);
  mpz_clear(z);
  return s;
}

/* Sign of any number (NaN counts as 0, which no caller distinguishes). */
static int num_sign(Value v) {
  if (v.tag == T_FLOAT) return (v.as.f > 0) - (v.as.f < 0);
  return int_sign(v);
}

typedef enum { OP_ADD, OP_SUB, OP_MUL } ArithOp;

/* a op b with Python's rules: exact for two Ints, else as doubles. */
static bool arith(VM *vm, ArithOp op, Value a, Value b, Value *out) {
  if (a.tag == T_INT && b.tag == T_INT) {
    int64_t r;
    bool ovf = op == OP_ADD   ? __builtin_add_overflow(a.as.i, b.as.i, &r)
               : op == OP_SUB ? __builtin_sub_overflow(a.as.i, b.as.i, &r)
                              : __builtin_mul_overflow(a.as.i, b.as.i, &r);
    if (!ovf) {
      *out = v_int(r);
      return true;
    }
  }
  if (a.tag != T_FLOAT && b.tag != T_FLOAT) {
    mpz_t x, y;
    mpz_inits(x, y, NULL);
    vm_int_to_mpz(a, x);
    vm_int_to_mpz(b, y);
    if (op == OP_ADD) mpz_add(x, x, y);
    else if (op == OP_SUB) mpz_sub(x, x, y);
    else mpz_mul(x, x, y);
    bool ok = vm_int_from_mpz(vm, x, out);
    mpz_clears(x, y, NULL);
    return ok;
  }
  double x, y;
  if (!vm_num_to_double(vm, a, &x) || !vm_num_to_double(vm, b, &y)) return false;
  *out = v_float(op == OP_ADD ? x + y : op == OP_SUB ? x - y : x * y);
  return true;
}

static bool lib_add(VM *vm, Value *args, int nargs, Value *out) {
  return arith(vm, OP_ADD, args[0], args[1], out);
}

static bool lib_subtract(VM *vm, Value *args, int nargs, Value *out) {
  return arith(vm, OP_SUB, args[0], args[1], out);
}

static bool lib_multiply(VM *vm, Value *args, int nargs, Value *out) {
  return arith(vm, OP_MUL, args[0], args[1], out);
}

static bool lib_square(VM *vm, Value *args, int nargs, Value *out) {
  return arith(vm, OP_MUL, args[0], args[0], out);
}

/* divide(a, b): Int / Int truncates toward zero; anything with a Float is
 * float division. A zero divisor (0 or ±0.0) is E400. */
static bool lib_divide(VM *vm, Value *args, int nargs, Value *out) {
  Value a = args[0], b = args[1];
  if (num_sign(b) == 0 && !(b.tag == T_FLOAT && isnan(b.as.f)))
    return vm_error(vm, E_DIV_ZERO, "Division by zero");
  if (a.tag != T_FLOAT && b.tag != T_FLOAT) {
    if (a.tag == T_INT && b.tag == T_INT && !(a.as.i == INT64_MIN && b.as.i == -1)) {
      *out = v_int(a.as.i / b.as.i);
      return true;
    }
    mpz_t x, y;
    mpz_inits(x, y, NULL);
    vm_int_to_mpz(a, x);
    vm_int_to_mpz(b, y);
    mpz_tdiv_q(x, x, y);
    bool ok = vm_int_from_mpz(vm, x, out);
    mpz_clears(x, y, NULL);
    return ok;
  }
  double x, y;
  if (!vm_num_to_double(vm, a, &x) || !vm_num_to_double(vm, b, &y)) return false;
  *out = v_float(x / y);
  return true;
}

static bool abs_impl(VM *vm, Value v, Value *out) {
  if (v.tag == T_FLOAT) {
    *out = v_float(fabs(v.as.f));
    return true;
  }
  if (v.tag == T_INT && v.as.i != INT64_MIN) {
    *out = v_int(v.as.i < 0 ? -v.as.i : v.as.i);
    return true;
  }
  mpz_t z;
  mpz_init(z);
  vm_int_to_mpz(v, z);
  mpz_abs(z, z);
  bool ok = vm_int_from_mpz(vm, z, out);
  mpz_clear(z);
  return ok;
}

static bool lib_abs(VM *vm, Value *args, int nargs, Value *out) {
  return abs_impl(vm, args[0], out);
}

static bool lib_is_positive(VM *vm, Value *args, int nargs, Value *out) {
  *out = v_bool(num_sign(args[0]) > 0);
  return true;
}

/* bit_or(a, b): two's-complement OR on unbounded Ints. */
static bool lib_bit_or(VM *vm, Value *args, int nargs, Value *out) {
  if (args[0].tag == T_INT && args[1].tag == T_INT) {
    *out = v_int(args[0].as.i | args[1].as.i);
    return true;
  }
  mpz_t x, y;
  mpz_inits(x, y, NULL);
  vm_int_to_mpz(args[0], x);
  vm_int_to_mpz(args[1], y);
  mpz_ior(x, x, y);
  bool ok = vm_int_from_mpz(vm, x, out);
  mpz_clears(x, y, NULL);
  return ok;
}

/* ---- comparisons: the kind of the chosen operand is kept ---------------------- */

/* max(a, b) = a if a >= b else b */
static bool lib_max(VM *vm, Value *args, int nargs, Value *out) {
  int c = num_cmp(args[0], args[1]);
  *out = c == 0 || c == 1 ? args[0] : args[1];
  return true;
}

/* Python's min(a, b) and max(a, b): the first argument unless the second
 * is strictly smaller (greater). */
static Value py_min(Value a, Value b) { return num_cmp(b, a) == -1 ? b : a; }
static Value py_max(Value a, Value b) { return num_cmp(b, a) == 1 ? b : a; }

static bool lib_math_min(VM *vm, Value *args, int nargs, Value *out) {
  *out = py_min(args[0], args[1]);
  return true;
}

static bool lib_math_max(VM *vm, Value *args, int nargs, Value *out) {
  *out = py_max(args[0], args[1]);
  return true;
}

/* clamp(value, lo, hi) = max(lo, min(hi, value)): lo wins when lo > hi. */
static bool lib_clamp(VM *vm, Value *args, int nargs, Value *out) {
  *out = py_max(args[1], py_min(args[2], args[0]));
  return true;
}

/* ---- Float -> Int ------------------------------------------------------------- */

typedef enum { R_FLOOR, R_CEIL, R_ROUND, R_TRUNC } RoundMode;

/* Python's math.floor / math.ceil / int() and the reference's round
 * (floor(x) + (1 if x - floor(x) >= 0.5)), then the safe-range check with
 * the message prefix `what` ("floor result"). An Int argument is its own
 * floor. */
static bool to_int(VM *vm, Value v, RoundMode mode, const char *what, Value *out) {
  if (v.tag != T_FLOAT) {
    int64_t i;
    if (vm_int_get(v, &i) && i >= -JS_SAFE_MAX && i <= JS_SAFE_MAX) {
      *out = v;
      return true;
    }
    return vm_error(vm, E_RUNTIME, "%s exceeds JavaScript safe integer range", what);
  }
  double x = v.as.f;
  if (isnan(x)) return vm_error(vm, E_RUNTIME, "cannot convert float NaN to integer");
  if (isinf(x)) return vm_error(vm, E_RUNTIME, "cannot convert float infinity to integer");
  double r;
  switch (mode) {
    case R_FLOOR: r = floor(x); break;
    case R_CEIL: r = ceil(x); break;
    case R_TRUNC: r = trunc(x); break;
    default: r = floor(x); r += x - r >= 0.5 ? 1.0 : 0.0; break;
  }
  if (r < -(double)JS_SAFE_MAX || r > (double)JS_SAFE_MAX)
    return vm_error(vm, E_RUNTIME, "%s exceeds JavaScript safe integer range", what);
  *out = v_int((int64_t)r);
  return true;
}

#define ROUNDER(name, mode, what)                                  \
  static bool name(VM *vm, Value *args, int nargs, Value *out) {   \
    (void)nargs;                                                   \
    return to_int(vm, args[0], mode, what, out);                   \
  }
ROUNDER(lib_floor, R_FLOOR, "floor result")
ROUNDER(lib_ceil, R_CEIL, "ceil result")
ROUNDER(lib_round, R_ROUND, "round result")
ROUNDER(lib_math_floor, R_FLOOR, "math_floor result")
ROUNDER(lib_math_ceil, R_CEIL, "math_ceil result")
ROUNDER(lib_math_round, R_ROUND, "math_round result")
#undef ROUNDER

/* float_to_int: int(x), truncating toward zero; convert.c's row uses it. */
bool lib_float_to_int(VM *vm, Value *args, int nargs, Value *out) {
  return to_int(vm, args[0], R_TRUNC, "float_to_int result", out);
}

/* ---- Float functions ---------------------------------------------------------- */

static bool sqrt_impl(VM *vm, Value v, const char *neg_msg, Value *out) {
  if (num_sign(v) < 0) return vm_error(vm, E_RUNTIME, "%s", neg_msg);
  double x;
  if (!vm_num_to_double(vm, v, &x)) return false;
  *out = v_float(sqrt(x));
  return true;
}

static bool lib_sqrt(VM *vm, Value *args, int nargs, Value *out) {
  return sqrt_impl(vm, args[0], "sqrt of negative number", out);
}

static bool lib_math_sqrt(VM *vm, Value *args, int nargs, Value *out) {
  return sqrt_impl(vm, args[0], "math_sqrt: argument must be non-negative", out);
}

/* math_log(x): natural log. Like Python's math.log, an Int too large for
 * a double is still fine: log(m * 2^e) = log(m) + e * log(2). */
static bool lib_math_log(VM *vm, Value *args, int nargs, Value *out) {
  Value v = args[0];
  if (num_sign(v) <= 0 && !(v.tag == T_FLOAT && isnan(v.as.f)))
    return vm_error(vm, E_RUNTIME, "math_log: argument must be positive");
  if (v.tag == T_BIGINT) {
    mpz_t z;
    mpz_init(z);
    vm_int_to_mpz(v, z);
    size_t bits = mpz_sizeinbase(z, 2);
    if (bits >= 1024) {
      /* Too large for a double (or rounds up to 2^1024): the top 64 bits,
       * with a sticky bit for the rest, rounded once to a double. */
      mpz_t top;
      mpz_init(top);
      mpz_tdiv_q_2exp(top, z, bits - 64);
      uint64_t m = mpz_get_ui(top) | (mpz_scan1(z, 0) < bits - 64 ? 1u : 0u);
      mpz_clears(z, top, NULL);
      *out = v_float(log(ldexp((double)m, -64)) + (double)bits * log(2.0));
      return true;
    }
    mpz_clear(z);
  }
  double x;
  if (!vm_num_to_double(vm, v, &x)) return false;
  *out = v_float(log(x));
  return true;
}

/* Python's math.sin/cos reject infinities ("math domain error"). */
static bool trig(VM *vm, Value v, bool cosine, Value *out) {
  double x;
  if (!vm_num_to_double(vm, v, &x)) return false;
  if (isinf(x)) return vm_error(vm, E_RUNTIME, "math domain error");
  *out = v_float(cosine ? cos(x) : sin(x));
  return true;
}

static bool lib_math_sin(VM *vm, Value *args, int nargs, Value *out) {
  return trig(vm, args[0], false, out);
}

static bool lib_math_cos(VM *vm, Value *args, int nargs, Value *out) {
  return trig(vm, args[0], true, out);
}

static bool lib_math_pi(VM *vm, Value *args, int nargs, Value *out) {
  *out = v_float(3.141592653589793);
  return true;
}

static bool lib_math_e(VM *vm, Value *args, int nargs, Value *out) {
  *out = v_float(2.718281828459045);
  return true;
}

const BuiltinDef lib_math_builtins[] = {
    {"abs", "(value: Num) -> Num", 0, NULL, 0, lib_abs, "$b_abs"},
    {"add", "(a: Num, b: Num) -> Num", 0, NULL, 0, lib_add, "$b_add"},
    {"bit_or", "(a: Int, b: Int) -> Int", 0, NULL, 0, lib_bit_or, "$b_bit_or"},
    {"ceil", "(value: Float) -> Int", 0, NULL, 0, lib_ceil, "$b_ceil"},
    {"clamp", "(value: Num, min: Num, max: Num) -> Num", 0, NULL, 0, lib_clamp, "$b_clamp"},
    {"divide", "(a: Num, b: Num) -> Num", 0, NULL, 0, lib_divide, "$b_divide"},
    {"floor", "(value: Float) -> Int", 0, NULL, 0, lib_floor, "$b_floor"},
    {"is_positive", "(value: Int) -> Bool", 0, NULL, 0, lib_is_positive, "$b_is_positive"},
    {"math_abs", "(value: Num) -> Num", 0, NULL, 0, lib_abs, "$b_math_abs"},
    {"math_ceil", "(value: Float) -> Int", 0, NULL, 0, lib_math_ceil, "$b_math_ceil"},
    {"math_clamp", "(value: Num, lo: Num, hi: Num) -> Num", 0, NULL, 0, lib_clamp, "$b_math_clamp"},
    {"math_cos", "(value: Float) -> Float", 0, NULL, 0, lib_math_cos, "$b_math_cos"},
    {"math_e", "() -> Float", 0, NULL, 0, lib_math_e, "$b_math_e"},
    {"math_floor", "(value: Float) -> Int", 0, NULL, 0, lib_math_floor, "$b_math_floor"},
    {"math_log", "(value: Float) -> Float", 0, NULL, 0, lib_math_log, "$b_math_log"},
    {"math_max", "(a: Num, b: Num) -> Num", 0, NULL, 0, lib_math_max, "$b_math_max"},
    {"math_min", "(a: Num, b: Num) -> Num", 0, NULL, 0, lib_math_min, "$b_math_min"},
    {"math_pi", "() -> Float", 0, NULL, 0, lib_math_pi, "$b_math_pi"},
    {"math_round", "(value: Float) -> Int", 0, NULL, 0, lib_math_round, "$b_math_round"},
    {"math_sin", "(value: Float) -> Float", 0, NULL, 0, lib_math_sin, "$b_math_sin"},
    {"math_sqrt", "(value: Float) -> Float", 0, NULL, 0, lib_math_sqrt, "$b_math_sqrt"},
    {"max", "(a: Num, b: Num) -> Num", 0, NULL, 0, lib_max, "$b_max"},
    {"multiply", "(a: Num, b: Num) -> Num", 0, NULL, 0, lib_multiply, "$b_multiply"},
    {"round", "(value: Float) -> Int", 0, NULL, 0, lib_round, "$b_round"},
    {"sqrt", "(value: Float) -> Float", 0, NULL, 0, lib_sqrt, "$b_sqrt"},
    {"square", "(value: Num) -> Num", 0, NULL, 0, lib_square, "$b_square"},
    {"subtract", "(a: Num, b: Num) -> Num", 0, NULL, 0, lib_subtract, "$b_subtract"},
};
const size_t lib_math_builtin_count = ARRAY_LEN(lib_math_builtins);
