/* UTF-8 helpers used by the lexer and string builtins. Case mapping and
 * other Unicode tables come from utf8proc (see src/lib/string.c). */
#ifndef GENO_BASE_UTF8_H
#define GENO_BASE_UTF8_H

#include "common.h"

/* Decode one code point from s[0..n). Returns the number of bytes used
 * (1..4) and stores the code point in *cp, or returns 0 for an invalid or
 * truncated sequence (overlongs, surrogates and > U+10FFFF are invalid). */
int utf8_decode(const unsigned char *s, size_t n, int32_t *cp);
/* Encode cp (0..0x10FFFF, not a surrogate) into out; returns bytes (1..4),
 * 0 if cp is not encodable. */
int utf8_encode(int32_t cp, char out[4]);
/* True if s[0..n) is valid UTF-8; on failure *bad_offset is the offset of
 * the first invalid byte. */
bool utf8_valid(const char *s, size_t n, size_t *bad_offset);
/* [m] A NUL-terminated copy of s[0..n) in which every invalid or
 * truncated sequence is replaced by U+FFFD; *out_len (if not NULL) gets its
 * length. NULL when out of memory. */
char *utf8_sanitize(const char *s, size_t n, size_t *out_len);
/* Number of code points in valid UTF-8 text. */
size_t utf8_length(const char *s, size_t n);
/* Byte offset of code point index `idx` (0 <= idx <= length) in valid text. */
size_t utf8_offset(const char *s, size_t n, size_t idx);

#endif
