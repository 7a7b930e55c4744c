/* Shared helpers for the text-family builtins (string.c, convert.c,
 * json.c, csv.c, toml.c, path.c): code-point decoding of VM strings,
 * Python's notion of whitespace, and the reference's size-limit errors.
 *
 * VM strings are UTF-8, except that a lone surrogate (U+D800..U+DFFF,
 * from from_char_code or a JSON \ud800 escape) is stored in the same
 * three-byte form as any other BMP code point. The decoder here accepts
 * that form; every String a builtin sees was built by the VM, so it never
 * has to reject malformed input. */
#ifndef GENO_LIB_TEXT_H
#define GENO_LIB_TEXT_H

#include "../vm/vmapi.h"

/* Decode the code point at s[*i] (i < n) and advance *i past it. */
static inline int32_t lib_utf8_next(const char *s, size_t n, size_t *i) {
  const unsigned char *p = (const unsigned char *)s + *i;
  size_t left = n - *i;
  int32_t c = p[0];
  if (c < 0x80 || left < 2) {
    *i += 1;
    return c;
  }
  if (c < 0xE0 || left < 3) {
    *i += 2;
    return ((c & 0x1F) << 6) | (p[1] & 0x3F);
  }
  if (c < 0xF0 || left < 4) {
    *i += 3;
    return ((c & 0x0F) << 12) | ((p[1] & 0x3F) << 6) | (p[2] & 0x3F);
  }
  *i += 4;
  return ((c & 0x07) << 18) | ((p[1] & 0x3F) << 12) | ((p[2] & 0x3F) << 6) | (p[3] & 0x3F);
}

/* Byte offset of the code point that ends at byte `end` (end > 0). */
static inline size_t lib_utf8_prev(const char *s, size_t end) {
  size_t i = end - 1;
  while (i > 0 && ((unsigned char)s[i] & 0xC0) == 0x80) i--;
  return i;
}

/* Encode any code point 0..0x10FFFF, surrogates included; returns bytes. */
int lib_utf8_put(int32_t cp, char out[4]);
/* Append a code point to b. */
void lib_buf_cp(Buf *b, int32_t cp);
/* Code points in s[0..n). */
size_t lib_cp_count(const char *s, size_t n);
/* Python's str.isspace for one code point. */
bool lib_is_space(int32_t cp);
/* Python's str.isalpha for one code point (letters: L* categories). */
bool lib_is_alpha(int32_t cp);
/* Python's str.isdecimal digit value (0..9) of cp, or -1. */
int lib_decimal_value(int32_t cp);

/* Python's repr() of a str appended to b ('it', "it's", '\n', '\x01'). */
void lib_py_repr(Buf *b, const char *s, size_t n);

/* The bytes of a String argument. */
static inline const char *lib_str(Value v, size_t *n) { return vm_str_bytes(v, n); }

/* "<fn>: String size exceeds limit (n > limit)" when n code points are
 * over the collection limit: an uncatchable limit error (E504), like every
 * limit in geno-c (docs/compatibility.md, "Limits"). */
bool lib_check_result(VM *vm, const char *fn, size_t n);
/* "<Kind> size exceeds limit (n > limit)" (E504), the reference's
 * pre-check and post-check message without a function prefix. */
bool lib_check_count(VM *vm, const char *kind, size_t n);
/* A new String from a finished Buf (freed here); false after raising
 * on allocation failure. */
bool lib_string_from_buf(VM *vm, Buf *b, Value *out);

/* float_to_int (implemented in math.c with floor/ceil/round, listed in
 * convert.c's rows). */
bool lib_float_to_int(VM *vm, Value *args, int nargs, Value *out);

#endif
