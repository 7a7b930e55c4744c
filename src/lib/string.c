/* String builtins: the core text operations (split, join, trim, replace ...)
 * and the string_* functions behind the std module String.
 *
 * Strings are sequences of code points, as in the reference (a Python
 * str): lengths, indices and padding count code points. Searching works on
 * the UTF-8 bytes, which is equivalent because a UTF-8 match of a whole
 * needle always starts and ends on code-point boundaries; only the
 * reported index is converted back to code points.
 *
 * Every builtin that builds a String computes the result's length first
 * and fails before doing the work when it would pass the collection limit,
 * with the reference's message ("replace: String size exceeds limit ...").
 *
 * The rows at the bottom are this family's part of the builtin table
 * (src/lib/builtins.h); the implementations are written above them. */
#include <geno.h>
#include <utf8proc.h>

#include "case_tables.h"
#include "families.h"
#include "text.h"

/* sort_strings refuses longer lists, as the reference does. */
#define SORT_STRINGS_MAX 100000

/* ---- helpers ----------------------------------------------------------------- */

/* First byte offset >= from where needle occurs in hay, or -1. */
static ptrdiff_t find_bytes(const char *hay, size_t hn, const char *nd, size_t nn, size_t from) {
  if (from > hn || nn > hn - from) return -1;
  if (nn == 0) return (ptrdiff_t)from;
  const char *p = memmem(hay + from, hn - from, nd, nn);
  return p ? p - hay : -1;
}

/* Non-overlapping occurrences of a non-empty needle, left to right
 * (Python str.count). */
static size_t count_bytes(VM *vm, const char *hay, size_t hn, const char *nd, size_t nn) {
  size_t c = 0, at = 0;
  ptrdiff_t p;
  while ((p = find_bytes(hay, hn, nd, nn, at)) >= 0) {
    c++;
    at = (size_t)p + nn;
  }
  return c;
}

/* An Int argument clamped into int64_t (a big Int saturates, which is
 * the same for every use here: indices, counts, widths). */
static int64_t int_sat(Value v) {
  int64_t i;
  if (vm_int_get(v, &i)) return i;
  mpz_t z;
  mpz_init(z);
  vm_int_to_mpz(v, z);
  int s = mpz_sgn(z);
  mpz_clear(z);
  return s < 0 ? INT64_MIN : INT64_MAX;
}

/* The Python slice text[start:stop] after the reference's clamping
 * (start = max(0, start), stop = min(len, stop)); a negative stop still
 * counts from the end, as in Python. */
static bool substring_impl(VM *vm, Value *args, Value *out) {
  size_t n;
  const char *s = lib_str(args[0], &n);
  int64_t len = (int64_t)vm_str_len(args[0]);
  int64_t start = int_sat(args[1]), stop = int_sat(args[2]);
  if (start < 0) start = 0;
  if (stop > len) stop = len;
  if (stop < 0) stop = stop + len < 0 ? 0 : stop + len;
  if (start >= stop) return vm_string(vm, "", 0, out);
  size_t a, b;
  if (!vm_str_seek(vm, args[0], (size_t)start, &a) || !vm_str_seek(vm, args[0], (size_t)stop, &b)) return false;
  return vm_string(vm, s + a, b - a, out);
}

/* str.split(delimiter): fn names the builtin for the error messages. */
static bool split_impl(VM *vm, const char *fn, Value *args, Value *out) {
  size_t n, dn;
  const char *s = lib_str(args[0], &n);
  const char *d = lib_str(args[1], &dn);
  if (dn == 0) return vm_error(vm, E_RUNTIME, "%s: delimiter cannot be empty", fn);
  if (!vm_charge(vm, n)) return false;
  size_t parts = count_bytes(vm, s, n, d, dn) + 1;
  if (!lib_check_count(vm, "List", parts) || !vm_list(vm, parts, out)) return false;
  size_t at = 0, len;
  for (size_t k = 0; k < parts; k++) {
    ptrdiff_t p = k + 1 < parts ? find_bytes(s, n, d, dn, at) : (ptrdiff_t)n;
    Value piece;
    s = lib_str(args[0], &n);
    if (!vm_string(vm, s + at, (size_t)p - at, &piece)) return false;
    vm_list_items(*out, &len)[k] = piece;
    at = (size_t)p + dn;
  }
  return true;
}

/* sep.join(parts) */
static bool join_impl(VM *vm, const char *fn, Value *args, Value *out) {
  size_t count, sn;
  Value *items = vm_list_items(args[0], &count);
  const char *sep = lib_str(args[1], &sn);
  size_t total = count > 1 ? vm_str_len(args[1]) * (count - 1) : 0;
  for (size_t i = 0; i < count; i++) total += vm_str_len(items[i]);
  if (!lib_check_result(vm, fn, total)) return false;
  Buf b = BUF_INIT;
  for (size_t i = 0; i < count; i++) {
    size_t pn;
    const char *p = lib_str(items[i], &pn);
    if (i > 0) buf_append(&b, sep, sn);
    buf_append(&b, p, pn);
  }
  if (!vm_charge(vm, b.len + count)) {
    buf_free(&b);
    return false;
  }
  return lib_string_from_buf(vm, &b, out);
}

/* str.replace(old, new): all non-overlapping occurrences, left to right;
 * an empty `old` inserts `new` at every code-point boundary. */
static bool replace_impl(VM *vm, const char *fn, Value *args, Value *out) {
  size_t n, on, nn;
  const char *s = lib_str(args[0], &n);
  const char *old = lib_str(args[1], &on);
  const char *nw = lib_str(args[2], &nn);
  size_t len = vm_str_len(args[0]), oldlen = vm_str_len(args[1]), newlen = vm_str_len(args[2]);
  if (!vm_charge(vm, n)) return false;
  /* Result length in code points, computed in unsigned 128-bit-safe steps:
   * every term is bounded by the operands' sizes, so overflow is checked. */
  size_t limit = vm_max_size(vm), size;
  if (on == 0) {
    size_t slots = len + 1;
    if (newlen && slots > (SIZE_MAX - len) / newlen) size = SIZE_MAX;
    else size = len + slots * newlen;
  } else {
    size_t c = count_bytes(vm, s, n, old, on);
    if (newlen >= oldlen) {
      size_t grow = newlen - oldlen;
      size = grow && c > (SIZE_MAX - len) / grow ? SIZE_MAX : len + c * grow;
    } else {
      size = len - c * (oldlen - newlen);
    }
  }
  if (size > limit) return vm_limit_error(vm, E_RESOURCE, "%s: String size exceeds limit (%zu > %zu)", fn, size, limit);
  Buf b = BUF_INIT;
  if (on == 0) {
    size_t i = 0;
    buf_append(&b, nw, nn);
    while (i < n) {
      size_t j = i;
      lib_utf8_next(s, n, &j);
      buf_append(&b, s + i, j - i);
      buf_append(&b, nw, nn);
      i = j;
    }
  } else {
    size_t at = 0;
    ptrdiff_t p;
    while ((p = find_bytes(s, n, old, on, at)) >= 0) {
      buf_append(&b, s + at, (size_t)p - at);
      buf_append(&b, nw, nn);
      at = (size_t)p + on;
    }
    buf_append(&b, s + at, n - at);
  }
  if (!vm_charge(vm, b.len)) {
    buf_free(&b);
    return false;
  }
  return lib_string_from_buf(vm, &b, out);
}

/* str.strip / lstrip / rstrip with Python's Unicode whitespace. */
static bool trim_impl(VM *vm, Value *args, bool start, bool end, Value *out) {
  size_t n;
  const char *s = lib_str(args[0], &n);
  size_t a = 0, b = n;
  if (start) {
    while (a < n) {
      size_t j = a;
      if (!lib_is_space(lib_utf8_next(s, n, &j))) break;
      a = j;
    }
  }
  if (end) {
    while (b > a) {
      size_t p = lib_utf8_prev(s, b), j = p;
      if (!lib_is_space(lib_utf8_next(s, n, &j))) break;
      b = p;
    }
  }
  if (a == 0 && b == n) {
    *out = args[0];
    return true;
  }
  return vm_string(vm, s + a, b - a, out);
}

static bool in_ranges(const CaseRange *r, size_t n, int32_t c) {
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (c < r[mid].lo) hi = mid;
    else if (c > r[mid].hi) lo = mid + 1;
    else return true;
  }
  return false;
}

static bool is_cased(int32_t c) { return in_ranges(cased_ranges, ARRAY_LEN(cased_ranges), c); }
static bool is_case_ignorable(int32_t c) {
  return in_ranges(case_ignorable_ranges, ARRAY_LEN(case_ignorable_ranges), c);
}

/* Unicode's Final_Sigma condition for the Σ at bytes [at, next): a cased
 * letter before it and none after it, skipping case-ignorable marks. */
static bool final_sigma(const char *s, size_t n, size_t at, size_t next) {
  size_t i = at;
  bool before = false;
  while (i > 0) {
    i = lib_utf8_prev(s, i);
    size_t j = i;
    int32_t c = lib_utf8_next(s, n, &j);
    if (!is_case_ignorable(c)) {
      before = is_cased(c);
      break;
    }
  }
  if (!before) return false;
  for (size_t j = next; j < n;) {
    int32_t c = lib_utf8_next(s, n, &j);
    if (!is_case_ignorable(c)) return !is_cased(c);
  }
  return true;
}

/* str.upper / str.lower: full case mapping, so the length may change
 * ("ß" -> "SS", "İ" -> "i̇"). */
static bool case_impl(VM *vm, Value *args, bool upper, Value *out) {
  size_t n;
  const char *s = lib_str(args[0], &n);
  if (!vm_charge(vm, n)) return false;
  Buf b = BUF_INIT;
  size_t cps = 0;
  for (size_t i = 0; i < n;) {
    size_t at = i;
    int32_t c = lib_utf8_next(s, n, &i);
    if (upper) {
      const CaseSpecial *sp = NULL;
      if (c >= 0xDF) {
        size_t lo = 0, hi = ARRAY_LEN(upper_special);
        while (lo < hi) {
          size_t mid = (lo + hi) / 2;
          if (c < upper_special[mid].cp) hi = mid;
          else if (c > upper_special[mid].cp) lo = mid + 1;
          else {
            sp = &upper_special[mid];
            break;
          }
        }
      }
      if (sp) {
        for (int k = 0; k < 3 && sp->to[k]; k++, cps++) lib_buf_cp(&b, sp->to[k]);
        continue;
      }
      lib_buf_cp(&b, c < 0x80 ? (c >= 'a' && c <= 'z' ? c - 32 : c) : utf8proc_toupper(c));
    } else if (c == 0x130) { /* İ lowercases to i + COMBINING DOT ABOVE */
      lib_buf_cp(&b, 'i');
      lib_buf_cp(&b, 0x307);
      cps++;
    } else if (c == 0x3A3) {
      lib_buf_cp(&b, final_sigma(s, n, at, i) ? 0x3C2 : 0x3C3);
    } else {
      lib_buf_cp(&b, c < 0x80 ? (c >= 'A' && c <= 'Z' ? c + 32 : c) : utf8proc_tolower(c));
    }
    cps++;
  }
  if (!lib_check_count(vm, "String", cps)) {
    buf_free(&b);
    return false;
  }
  return lib_string_from_buf(vm, &b, out);
}

static bool starts_impl(Value *args, Value *out) {
  size_t n, pn;
  const char *s = lib_str(args[0], &n);
  const char *p = lib_str(args[1], &pn);
  *out = v_bool(pn <= n && memcmp(s, p, pn) == 0);
  return true;
}

static bool ends_impl(Value *args, Value *out) {
  size_t n, pn;
  const char *s = lib_str(args[0], &n);
  const char *p = lib_str(args[1], &pn);
  *out = v_bool(pn <= n && memcmp(s + n - pn, p, pn) == 0);
  return true;
}

static bool contains_impl(VM *vm, Value *args, Value *out) {
  size_t n, pn;
  const char *s = lib_str(args[0], &n);
  const char *p = lib_str(args[1], &pn);
  if (!vm_charge(vm, n)) return false;
  *out = v_bool(find_bytes(s, n, p, pn, 0) >= 0);
  return true;
}

/* str.split(delimiter, 1) as Some((before, after)), or None. */
static bool split_once_impl(VM *vm, const char *fn, Value *args, Value *out) {
  size_t n, dn, len;
  const char *s = lib_str(args[0], &n);
  const char *d = lib_str(args[1], &dn);
  if (dn == 0) return vm_error(vm, E_RUNTIME, "%s: delimiter cannot be empty", fn);
  if (!vm_charge(vm, n)) return false;
  ptrdiff_t p = find_bytes(s, n, d, dn, 0);
  if (p < 0) {
    *out = vm_none(vm);
    return true;
  }
  if (!vm_tuple(vm, 2, out)) return false;
  Value piece;
  s = lib_str(args[0], &n);
  if (!vm_string(vm, s, (size_t)p, &piece)) return false;
  vm_tuple_items(*out, &len)[0] = piece;
  s = lib_str(args[0], &n);
  if (!vm_string(vm, s + p + dn, n - (size_t)p - dn, &piece)) return false;
  vm_tuple_items(*out, &len)[1] = piece;
  return vm_some(vm, *out, out);
}

/* text * count; the reference words its limit error differently from the
 * other builtins ("result would exceed collection size limit"). */
static bool repeat_impl(VM *vm, const char *fn, Value *args, Value *out) {
  size_t n;
  lib_str(args[0], &n);
  size_t len = vm_str_len(args[0]), limit = vm_max_size(vm);
  mpz_t count, total;
  mpz_inits(count, total, NULL);
  vm_int_to_mpz(args[1], count);
  mpz_mul_ui(total, count, len);
  bool neg = mpz_sgn(count) < 0, over = mpz_cmp_ui(total, limit) > 0;
  char *text = over ? mpz_get_str(NULL, 10, total) : NULL;
  size_t times = !neg && !over && len ? mpz_get_ui(count) : 0;
  mpz_clears(count, total, NULL);
  if (neg) return vm_error(vm, E_RUNTIME, "%s: count must be non-negative", fn);
  if (over) {
    vm_limit_error(vm, E_RESOURCE, "%s: result would exceed collection size limit (%s > %zu)", fn,
             text ? text : "?", limit);
    free(text);
    return false;
  }
  if (!vm_charge(vm, n * times)) return false;
  Buf b = BUF_INIT;
  const char *s = lib_str(args[0], &n);
  if (times && buf_reserve(&b, n * times))
    for (size_t i = 0; i < times; i++) buf_append(&b, s, n);
  return lib_string_from_buf(vm, &b, out);
}

/* str.rjust / str.ljust with a one-code-point fill. */
static bool pad_impl(VM *vm, const char *fn, Value *args, bool left, Value *out) {
  size_t n, fn_bytes;
  const char *s = lib_str(args[0], &n);
  const char *fill = lib_str(args[2], &fn_bytes);
  if (vm_str_len(args[2]) != 1)
    return vm_error(vm, E_RUNTIME, "%s: fill_char must be a single character", fn);
  size_t len = vm_str_len(args[0]), limit = vm_max_size(vm);
  int64_t width = int_sat(args[1]);
  if (width > 0 && (uint64_t)width > limit) {
    Buf t = BUF_INIT;
    if (vm_int_text(vm, args[1], &t))
      vm_limit_error(vm, E_RESOURCE, "%s: String size exceeds limit (%s > %zu)", fn, t.data ? t.data : "?", limit);
    buf_free(&t);
    return false;
  }
  if (!lib_check_result(vm, fn, len)) return false;
  if (width <= (int64_t)len) {
    *out = args[0];
    return true;
  }
  size_t pad = (size_t)width - len;
  if (!vm_charge(vm, pad * fn_bytes + n)) return false;
  Buf b = BUF_INIT;
  if (!left) buf_append(&b, s, n);
  for (size_t i = 0; i < pad && !b.failed; i++) buf_append(&b, fill, fn_bytes);
  if (left) buf_append(&b, s, n);
  return lib_string_from_buf(vm, &b, out);
}

/* ---- core builtins ------------------------------------------------------------ */

static bool lib_split(VM *vm, Value *args, int nargs, Value *out) {
  return split_impl(vm, "split", args, out);
}

static bool lib_string_split(VM *vm, Value *args, int nargs, Value *out) {
  return split_impl(vm, "string_split", args, out);
}

static bool lib_join(VM *vm, Value *args, int nargs, Value *out) {
  return join_impl(vm, "join", args, out);
}

static bool lib_string_join(VM *vm, Value *args, int nargs, Value *out) {
  return join_impl(vm, "string_join", args, out);
}

static bool lib_replace(VM *vm, Value *args, int nargs, Value *out) {
  return replace_impl(vm, "replace", args, out);
}

static bool lib_string_replace(VM *vm, Value *args, int nargs, Value *out) {
  return replace_impl(vm, "string_replace", args, out);
}

static bool lib_trim(VM *vm, Value *args, int nargs, Value *out) {
  return trim_impl(vm, args, true, true, out);
}

static bool lib_trim_start(VM *vm, Value *args, int nargs, Value *out) {
  return trim_impl(vm, args, true, false, out);
}

static bool lib_trim_end(VM *vm, Value *args, int nargs, Value *out) {
  return trim_impl(vm, args, false, true, out);
}

static bool lib_to_upper(VM *vm, Value *args, int nargs, Value *out) {
  return case_impl(vm, args, true, out);
}

static bool lib_to_lower(VM *vm, Value *args, int nargs, Value *out) {
  return case_impl(vm, args, false, out);
}

static bool lib_starts_with(VM *vm, Value *args, int nargs, Value *out) {
  return starts_impl(args, out);
}

static bool lib_ends_with(VM *vm, Value *args, int nargs, Value *out) {
  return ends_impl(args, out);
}

static bool lib_contains_substring(VM *vm, Value *args, int nargs, Value *out) {
  return contains_impl(vm, args, out);
}

static bool lib_split_once(VM *vm, Value *args, int nargs, Value *out) {
  return split_once_impl(vm, "split_once", args, out);
}

static bool lib_string_split_once(VM *vm, Value *args, int nargs, Value *out) {
  return split_once_impl(vm, "string_split_once", args, out);
}

static bool lib_repeat_string(VM *vm, Value *args, int nargs, Value *out) {
  return repeat_impl(vm, "repeat_string", args, out);
}

static bool lib_string_repeat(VM *vm, Value *args, int nargs, Value *out) {
  return repeat_impl(vm, "string_repeat", args, out);
}

static bool lib_substring(VM *vm, Value *args, int nargs, Value *out) {
  return substring_impl(vm, args, out);
}

/* to_chars(text) -> List[String]: one String per code point. */
static bool lib_to_chars(VM *vm, Value *args, int nargs, Value *out) {
  size_t n, len, count = vm_str_len(args[0]);
  if (!vm_charge(vm, count) || !vm_list(vm, count, out)) return false;
  size_t at = 0;
  for (size_t k = 0; k < count; k++) {
    const char *s = lib_str(args[0], &n);
    size_t next = at;
    lib_utf8_next(s, n, &next);
    Value ch;
    if (!vm_string(vm, s + at, next - at, &ch)) return false;
    vm_list_items(*out, &len)[k] = ch;
    at = next;
  }
  return true;
}

static int cmp_strings(const void *a, const void *b) {
  size_t an, bn;
  const char *x = lib_str(*(const Value *)a, &an);
  const char *y = lib_str(*(const Value *)b, &bn);
  /* The same bytes (one String referenced many times) are equal at once:
   * 65,536 references to one 1 MB String took minutes of memcmp. Distinct
   * Strings are paid for by the memory budget, which bounds the whole
   * sort's comparing to that budget times log n. */
  if (x == y && an == bn) return 0;
  int c = memcmp(x, y, an < bn ? an : bn);
  return c ? c : (an > bn) - (an < bn);
}

/* sort_strings(items): ascending by code point. UTF-8 byte order is code
 * point order, and equal strings are interchangeable, so qsort's lack of
 * stability cannot show. */
static bool lib_sort_strings(VM *vm, Value *args, int nargs, Value *out) {
  size_t n, len;
  vm_list_items(args[0], &n);
  if (n > SORT_STRINGS_MAX)
    return vm_error(vm, E_RUNTIME, "sort_strings: list too large (max 100,000 elements)");
  if (!vm_charge(vm, n * 17) || !vm_list(vm, n, out)) return false;
  Value *dst = vm_list_items(*out, &len);
  if (n) memcpy(dst, vm_list_items(args[0], &len), n * sizeof(Value));
  qsort(dst, n, sizeof(Value), cmp_strings);
  return true;
}

/* format(template, values): fill each literal "{}" in order. */
static bool lib_format(VM *vm, Value *args, int nargs, Value *out) {
  size_t n, count;
  const char *t = lib_str(args[0], &n);
  Value *vals = vm_list_items(args[1], &count);
  if (!vm_charge(vm, n)) return false;
  size_t holes = count_bytes(vm, t, n, "{}", 2);
  if (holes != count) return vm_error(vm, E_RUNTIME, "format: expected %zu values, got %zu", holes, count);
  size_t total = vm_str_len(args[0]) - 2 * holes;
  for (size_t i = 0; i < count; i++) total += vm_str_len(vals[i]);
  if (!lib_check_result(vm, "format", total)) return false;
  Buf b = BUF_INIT;
  size_t at = 0;
  for (size_t i = 0; i < count; i++) {
    ptrdiff_t p = find_bytes(t, n, "{}", 2, at);
    size_t vn;
    const char *v = lib_str(vals[i], &vn);
    buf_append(&b, t + at, (size_t)p - at);
    buf_append(&b, v, vn);
    at = (size_t)p + 2;
  }
  buf_append(&b, t + at, n - at);
  if (!vm_charge(vm, b.len)) {
    buf_free(&b);
    return false;
  }
  return lib_string_from_buf(vm, &b, out);
}

/* is_numeric_string(text): after stripping whitespace, ASCII -?[0-9]+. */
static bool lib_is_numeric_string(VM *vm, Value *args, int nargs, Value *out) {
  Value t;
  if (!trim_impl(vm, args, true, true, &t)) return false;
  size_t n;
  const char *s = lib_str(t, &n);
  size_t i = n && s[0] == '-';
  bool ok = i < n;
  for (; i < n && ok; i++) ok = s[i] >= '0' && s[i] <= '9';
  *out = v_bool(ok);
  return true;
}

/* ---- std String wrappers ---------------------------------------------------------- */

/* string_char_at(text, index): the code point there, "" when out of range. */
static bool lib_string_char_at(VM *vm, Value *args, int nargs, Value *out) {
  int64_t i = int_sat(args[1]);
  if (i < 0 || (uint64_t)i >= vm_str_len(args[0])) return vm_string(vm, "", 0, out);
  return vm_str_char(vm, args[0], (size_t)i, out);
}

/* string_index_of(text, substring): str.find in code points, -1 if absent. */
static bool lib_string_index_of(VM *vm, Value *args, int nargs, Value *out) {
  size_t n, pn;
  const char *s = lib_str(args[0], &n);
  const char *p = lib_str(args[1], &pn);
  if (!vm_charge(vm, n)) return false;
  ptrdiff_t at = find_bytes(s, n, p, pn, 0);
  *out = v_int(at < 0 ? -1 : (int64_t)lib_cp_count(s, (size_t)at));
  return true;
}

/* string_last_index_of(text, substring): str.rfind, overlaps allowed
 * ("aaa" / "aa" -> 1). The search runs forward over the reversed bytes so
 * it stays linear (memmem) for any needle. */
static bool lib_string_last_index_of(VM *vm, Value *args, int nargs, Value *out) {
  size_t n, pn;
  const char *s = lib_str(args[0], &n);
  const char *p = lib_str(args[1], &pn);
  if (!vm_charge(vm, n)) return false;
  ptrdiff_t at = -1;
  if (pn == 0) {
    at = (ptrdiff_t)n;
  } else if (pn == 1) {
    const char *q = memrchr(s, p[0], n);
    at = q ? q - s : -1;
  } else if (pn <= n) {
    char *rs = malloc(n), *rp = malloc(pn);
    if (!rs || !rp) {
      free(rs);
      free(rp);
      return vm_error(vm, E_RESOURCE, "out of memory in string_last_index_of");
    }
    for (size_t i = 0; i < n; i++) rs[i] = s[n - 1 - i];
    for (size_t i = 0; i < pn; i++) rp[i] = p[pn - 1 - i];
    const char *q = memmem(rs, n, rp, pn);
    if (q) at = (ptrdiff_t)(n - (size_t)(q - rs) - pn);
    free(rs);
    free(rp);
  }
  *out = v_int(at < 0 ? -1 : (int64_t)lib_cp_count(s, (size_t)at));
  return true;
}

static bool lib_string_pad_left(VM *vm, Value *args, int nargs, Value *out) {
  return pad_impl(vm, "string_pad_left", args, true, out);
}

static bool lib_string_pad_right(VM *vm, Value *args, int nargs, Value *out) {
  return pad_impl(vm, "string_pad_right", args, false, out);
}

const BuiltinDef lib_string_builtins[] = {
    {"contains_substring", "(text: String, substring: String) -> Bool", 0, NULL, 0, lib_contains_substring, "$b_contains_substring"},
    {"ends_with", "(text: String, suffix: String) -> Bool", 0, NULL, 0, lib_ends_with, "$b_ends_with"},
    {"format", "(template: String, values: List[String]) -> String", 0, NULL, 0, lib_format, "$b_format"},
    {"is_numeric_string", "(text: String) -> Bool", 0, NULL, 0, lib_is_numeric_string, "$b_is_numeric_string"},
    {"join", "(parts: List[String], separator: String) -> String", 0, NULL, 0, lib_join, "$b_join"},
    {"repeat_string", "(text: String, count: Int) -> String", 0, NULL, 0, lib_repeat_string, "$b_repeat_string"},
    {"replace", "(text: String, old: String, new: String) -> String", 0, NULL, 0, lib_replace, "$b_replace"},
    {"sort_strings", "(items: List[String]) -> List[String]", 0, NULL, 0, lib_sort_strings, "$b_sort_strings"},
    {"split", "(text: String, delimiter: String) -> List[String]", 0, NULL, 0, lib_split, "$b_split"},
    {"split_once", "(text: String, delimiter: String) -> Option[(String, String)]", 0, NULL, 0, lib_split_once, "$b_split_once"},
    {"starts_with", "(text: String, prefix: String) -> Bool", 0, NULL, 0, lib_starts_with, "$b_starts_with"},
    {"string_char_at", "(text: String, index: Int) -> String", 0, NULL, 0, lib_string_char_at, "$b_string_char_at"},
    {"string_contains", "(text: String, substring: String) -> Bool", 0, NULL, 0, lib_contains_substring, "$b_string_contains"},
    {"string_ends_with", "(text: String, suffix: String) -> Bool", 0, NULL, 0, lib_ends_with, "$b_string_ends_with"},
    {"string_index_of", "(text: String, substring: String) -> Int", 0, NULL, 0, lib_string_index_of, "$b_string_index_of"},
    {"string_join", "(parts: List[String], separator: String) -> String", 0, NULL, 0, lib_string_join, "$b_string_join"},
    {"string_last_index_of", "(text: String, substring: String) -> Int", 0, NULL, 0, lib_string_last_index_of, "$b_string_last_index_of"},
    {"string_pad_left", "(text: String, width: Int, fill_char: String) -> String", 0, NULL, 0, lib_string_pad_left, "$b_string_pad_left"},
    {"string_pad_right", "(text: String, width: Int, fill_char: String) -> String", 0, NULL, 0, lib_string_pad_right, "$b_string_pad_right"},
    {"string_repeat", "(text: String, count: Int) -> String", 0, NULL, 0, lib_string_repeat, "$b_string_repeat"},
    {"string_replace", "(text: String, old: String, new: String) -> String", 0, NULL, 0, lib_string_replace, "$b_string_replace"},
    {"string_split", "(text: String, delimiter: String) -> List[String]", 0, NULL, 0, lib_string_split, "$b_string_split"},
    {"string_split_once", "(text: String, delimiter: String) -> Option[(String, String)]", 0, NULL, 0, lib_string_split_once, "$b_string_split_once"},
    {"string_starts_with", "(text: String, prefix: String) -> Bool", 0, NULL, 0, lib_starts_with, "$b_string_starts_with"},
    {"string_substring", "(text: String, start: Int, stop: Int) -> String", 0, NULL, 0, lib_substring, "$b_string_substring"},
    {"string_to_lower", "(text: String) -> String", 0, NULL, 0, lib_to_lower, "$b_string_to_lower"},
    {"string_to_upper", "(text: String) -> String", 0, NULL, 0, lib_to_upper, "$b_string_to_upper"},
    {"string_trim", "(text: String) -> String", 0, NULL, 0, lib_trim, "$b_string_trim"},
    {"string_trim_end", "(text: String) -> String", 0, NULL, 0, lib_trim_end, "$b_string_trim_end"},
    {"string_trim_start", "(text: String) -> String", 0, NULL, 0, lib_trim_start, "$b_string_trim_start"},
    {"substring", "(text: String, start: Int, stop: Int) -> String", 0, NULL, 0, lib_substring, "$b_substring"},
    {"to_chars", "(text: String) -> List[String]", 0, NULL, 0, lib_to_chars, "$b_to_chars"},
    {"to_lower", "(text: String) -> String", 0, NULL, 0, lib_to_lower, "$b_to_lower"},
    {"to_upper", "(text: String) -> String", 0, NULL, 0, lib_to_upper, "$b_to_upper"},
    {"trim", "(text: String) -> String", 0, NULL, 0, lib_trim, "$b_trim"},
};
const size_t lib_string_builtin_count = ARRAY_LEN(lib_string_builtins);
