/* Shared helpers for the text-family builtins: encoding, Python character
 * classes and the reference's size-limit errors (see text.h). */
#include <utf8proc.h>

#include "text.h"

int lib_utf8_put(int32_t cp, char out[4]) {
  /* A String is valid UTF-8 throughout: a surrogate (or anything outside
   * Unicode) that reaches here becomes U+FFFD, never its raw encoding. */
  if ((cp >= 0xD800 && cp <= 0xDFFF) || cp < 0 || cp > 0x10FFFF) cp = 0xFFFD;
  if (cp < 0x80) {
    out[0] = (char)cp;
    return 1;
  }
  if (cp < 0x800) {
    out[0] = (char)(0xC0 | (cp >> 6));
    out[1] = (char)(0x80 | (cp & 0x3F));
    return 2;
  }
  if (cp < 0x10000) {
    out[0] = (char)(0xE0 | (cp >> 12));
    out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
    out[2] = (char)(0x80 | (cp & 0x3F));
    return 3;
  }
  out[0] = (char)(0xF0 | (cp >> 18));
  out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
  out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
  out[3] = (char)(0x80 | (cp & 0x3F));
  return 4;
}

void lib_buf_cp(Buf *b, int32_t cp) {
  char tmp[4];
  buf_append(b, tmp, (size_t)lib_utf8_put(cp, tmp));
}

size_t lib_cp_count(const char *s, size_t n) {
  size_t c = 0;
  for (size_t i = 0; i < n; i++) c += ((unsigned char)s[i] & 0xC0) != 0x80;
  return c;
}

bool lib_is_space(int32_t c) {
  if (c <= 0x20) return c == 0x20 || (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x1F);
  if (c < 0x85) return false;
  switch (c) {
    case 0x85: case 0xA0: case 0x1680: case 0x2028: case 0x2029: case 0x202F: case 0x205F: case 0x3000:
      return true;
    default: return c >= 0x2000 && c <= 0x200A;
  }
}

bool lib_is_alpha(int32_t c) {
  if (c < 0x80) return (c | 0x20) >= 'a' && (c | 0x20) <= 'z';
  switch (utf8proc_category(c)) {
    case UTF8PROC_CATEGORY_LU: case UTF8PROC_CATEGORY_LL: case UTF8PROC_CATEGORY_LT:
    case UTF8PROC_CATEGORY_LM: case UTF8PROC_CATEGORY_LO:
      return true;
    default: return false;
  }
}

/* Unicode keeps every decimal digit (category Nd) in runs of ten in value
 * order, 0 first, and such runs may touch; so the value is the distance
 * from the start of the run of Nd code points, modulo 10. */
int lib_decimal_value(int32_t c) {
  if (c < 0x80) return c >= '0' && c <= '9' ? c - '0' : -1;
  if (utf8proc_category(c) != UTF8PROC_CATEGORY_ND) return -1;
  int32_t first = c;
  while (first > 0 && utf8proc_category(first - 1) == UTF8PROC_CATEGORY_ND) first--;
  return (int)((c - first) % 10);
}

/* Python's repr() of a str: single quotes unless the text has a ' and no
 * ", backslash escapes for the quote, \\, \n, \r, \t, and \x / \u / \U
 * for characters Python does not print (controls, separators other than
 * the space, format, surrogate, private-use and unassigned code points). */
void lib_py_repr(Buf *b, const char *s, size_t n) {
  bool sq = memchr(s, '\'', n) != NULL, dq = memchr(s, '"', n) != NULL;
  char q = sq && !dq ? '"' : '\'';
  buf_putc(b, q);
  for (size_t i = 0; i < n;) {
    size_t at = i;
    int32_t c = lib_utf8_next(s, n, &i);
    if (c == q || c == '\\') {
      buf_putc(b, '\\');
      buf_putc(b, (char)c);
    } else if (c == '\n') {
      buf_puts(b, "\\n");
    } else if (c == '\r') {
      buf_puts(b, "\\r");
    } else if (c == '\t') {
      buf_puts(b, "\\t");
    } else if (c < 0x20 || c == 0x7F) {
      buf_printf(b, "\\x%02x", (unsigned)c);
    } else if (c < 0x7F) {
      buf_putc(b, (char)c);
    } else {
      utf8proc_category_t cat = utf8proc_category(c);
      bool printable = !(cat == UTF8PROC_CATEGORY_CC || cat == UTF8PROC_CATEGORY_CF || cat == UTF8PROC_CATEGORY_CS ||
                         cat == UTF8PROC_CATEGORY_CO || cat == UTF8PROC_CATEGORY_CN || cat == UTF8PROC_CATEGORY_ZL ||
                         cat == UTF8PROC_CATEGORY_ZP || cat == UTF8PROC_CATEGORY_ZS);
      if (printable) buf_append(b, s + at, i - at);
      else if (c <= 0xFF) buf_printf(b, "\\x%02x", (unsigned)c);
      else if (c <= 0xFFFF) buf_printf(b, "\\u%04x", (unsigned)c);
      else buf_printf(b, "\\U%08x", (unsigned)c);
    }
  }
  buf_putc(b, q);
}

bool lib_check_result(VM *vm, const char *fn, size_t n) {
  size_t limit = vm_max_size(vm);
  if (n <= limit) return true;
  return vm_limit_error(vm, E_RESOURCE, "%s: String size exceeds limit (%zu > %zu)", fn, n, limit);
}

bool lib_check_count(VM *vm, const char *kind, size_t n) {
  size_t limit = vm_max_size(vm);
  if (n <= limit) return true;
  return vm_limit_error(vm, E_RESOURCE, "%s size exceeds limit (%zu > %zu)", kind, n, limit);
}

bool lib_string_from_buf(VM *vm, Buf *b, Value *out) {
  if (b->failed) {
    buf_free(b);
    return vm_error(vm, E_RESOURCE, "out of memory building a string");
  }
  bool ok = vm_string(vm, b->data ? b->data : "", b->len, out);
  buf_free(b);
  return ok;
}
