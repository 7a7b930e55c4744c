/* Conversion builtins: to_string, parse_int, parse_float, float/int
 * conversion and character codes.
 *
 * The rows at the bottom are this family's part of the builtin table
 * (src/lib/builtins.h); the implementations are written above them. */
#include <geno.h>

#include "../vm/vmapi.h"
#include <math.h>

#include "families.h"
#include "text.h"

/* to_string(value: T) -> String: the canonical rendering; a String comes
 * back unchanged, nested Strings are quoted. The result is a String, so
 * the collection limit applies to its length ("to_string: String size
 * exceeds limit"). */
static bool lib_to_string(VM *vm, Value *args, int nargs, Value *out) {
  if (args[0].tag == T_STRING) {
    *out = args[0];
    return true;
  }
  Buf b = BUF_INIT;
  bool ok = vm_render_text(vm, args[0], false, &b, vm_max_size(vm), "to_string") &&
            vm_string(vm, b.data ? b.data : "", b.len, out);
  buf_free(&b);
  return ok;
}

/* parse_int / parse_float refuse longer input with an error (not None),
 * as the reference does, so hostile text cannot cost unbounded parsing. */
#define PARSE_MAX_CHARS 1000

/* Stripped text of a String argument (Python's str.strip()). */
static const char *stripped(Value v, size_t *n) {
  size_t len;
  const char *s = lib_str(v, &len);
  size_t a = 0, b = len;
  while (a < len) {
    size_t j = a;
    if (!lib_is_space(lib_utf8_next(s, len, &j))) break;
    a = j;
  }
  while (b > a) {
    size_t p = lib_utf8_prev(s, b), j = p;
    if (!lib_is_space(lib_utf8_next(s, len, &j))) break;
    b = p;
  }
  *n = b - a;
  return s + a;
}

/* parse_int(text) -> Option[Int]: after stripping whitespace, ASCII
 * -?[0-9]+ within ±(2^53 - 1); anything else is None. */
static bool lib_parse_int(VM *vm, Value *args, int nargs, Value *out) {
  if (vm_str_len(args[0]) > PARSE_MAX_CHARS)
    return vm_error(vm, E_RUNTIME, "parse_int: input string too long (max 1000 characters)");
  size_t n;
  const char *s = stripped(args[0], &n);
  size_t i = n && s[0] == '-';
  bool neg = i == 1, ok = i < n;
  uint64_t v = 0;
  const uint64_t max = 9007199254740991ULL; /* 2^53 - 1 */
  for (; i < n && ok; i++) {
    if (s[i] < '0' || s[i] > '9') ok = false;
    else if (v <= max) v = v * 10 + (uint64_t)(s[i] - '0'); /* stays below 2^64 */
  }
  if (!ok || v > max) {
    *out = vm_none(vm);
    return true;
  }
  return vm_some(vm, v_int(neg ? -(int64_t)v : (int64_t)v), out);
}

/* parse_float(text) -> Option[Float]: after stripping, -?(D+.?D*|.D+)
 * where D is any Unicode decimal digit (Python's \d); no exponent, no
 * sign other than a leading minus, no inf/nan. Correctly rounded
 * (strtod); a result too large for a double is None. */
static bool lib_parse_float(VM *vm, Value *args, int nargs, Value *out) {
  if (vm_str_len(args[0]) > PARSE_MAX_CHARS)
    return vm_error(vm, E_RUNTIME, "parse_float: input string too long (max 1000 characters)");
  size_t n;
  const char *s = stripped(args[0], &n);
  char ascii[PARSE_MAX_CHARS + 2];
  size_t k = 0, i = 0, before = 0, after = 0;
  bool dot = false;
  if (i < n && s[i] == '-') ascii[k++] = s[i++];
  while (i < n) {
    int32_t c = lib_utf8_next(s, n, &i);
    int d = lib_decimal_value(c);
    if (d >= 0) {
      ascii[k++] = (char)('0' + d);
      if (dot) after++;
      else before++;
    } else if (c == '.' && !dot) {
      ascii[k++] = '.';
      dot = true;
    } else {
      before = after = 0; /* not a number */
      break;
    }
  }
  ascii[k] = 0;
  if (before + after == 0) {
    *out = vm_none(vm);
    return true;
  }
  double d = strtod(ascii, NULL);
  if (!isfinite(d)) {
    *out = vm_none(vm);
    return true;
  }
  return vm_some(vm, v_float(d), out);
}

/* int_to_float(value): Python float(int), correctly rounded. */
static bool lib_int_to_float(VM *vm, Value *args, int nargs, Value *out) {
  double d;
  if (!vm_num_to_double(vm, args[0], &d)) return false;
  *out = v_float(d);
  return true;
}

/* char_code(text): the first code point. */
static bool lib_char_code(VM *vm, Value *args, int nargs, Value *out) {
  size_t n, i = 0;
  const char *s = lib_str(args[0], &n);
  if (n == 0) return vm_error(vm, E_RUNTIME, "char_code: empty string");
  *out = v_int(lib_utf8_next(s, n, &i));
  return true;
}

/* from_char_code(code): Python chr(), except that a surrogate code point
 * (U+D800..U+DFFF) is an error: a String is valid UTF-8 and cannot hold
 * one (the reference makes a string its own output cannot encode). */
static bool lib_from_char_code(VM *vm, Value *args, int nargs, Value *out) {
  int64_t c;
  if (!vm_int_get(args[0], &c) || c < 0 || c > 0x10FFFF) {
    Buf t = BUF_INIT;
    if (!vm_int_text(vm, args[0], &t)) { /* a Float, or too many digits: that error stands */
      buf_free(&t);
      return false;
    }
    vm_error(vm, E_RUNTIME, "from_char_code: code point %s out of range", t.data ? t.data : "?");
    buf_free(&t);
    return false;
  }
  if (c >= 0xD800 && c <= 0xDFFF)
    return vm_error(vm, E_RUNTIME, "from_char_code: code point %lld is a surrogate, not a character",
                    (long long)c);
  char tmp[4];
  return vm_string(vm, tmp, (size_t)lib_utf8_put((int32_t)c, tmp), out);
}

const BuiltinDef lib_convert_builtins[] = {
    {"char_code", "(text: String) -> Int", 0, NULL, 0, lib_char_code, "$b_char_code"},
    {"float_to_int", "(value: Float) -> Int", 0, NULL, 0, lib_float_to_int, "$b_float_to_int"},
    {"from_char_code", "(code: Int) -> String", 0, NULL, 0, lib_from_char_code, "$b_from_char_code"},
    {"int_to_float", "(value: Int) -> Float", 0, NULL, 0, lib_int_to_float, "$b_int_to_float"},
    {"parse_float", "(text: String) -> Option[Float]", 0, NULL, 0, lib_parse_float, "$b_parse_float"},
    {"parse_int", "(text: String) -> Option[Int]", 0, NULL, 0, lib_parse_int, "$b_parse_int"},
    {"to_string", "(value: T) -> String", 0, NULL, 0, lib_to_string, "$b_to_string"},
};
const size_t lib_convert_builtin_count = ARRAY_LEN(lib_convert_builtins);
