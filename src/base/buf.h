/* Growable byte buffer for building text (messages, JSON, rendered values).
 *
 * Allocation failure never crashes: the buffer becomes `failed`, later
 * appends are ignored, and the owner checks `failed` once at the end. The
 * contents are always NUL-terminated when data != NULL. */
#ifndef GENO_BASE_BUF_H
#define GENO_BASE_BUF_H

#include <stdarg.h>

#include "common.h"

typedef struct Buf {
  char *data;  /* malloc'd, NUL-terminated; NULL while empty */
  size_t len;  /* bytes used, excluding the NUL */
  size_t cap;  /* bytes allocated */
  bool failed; /* an allocation failed; contents are truncated */
} Buf;

#define BUF_INIT {NULL, 0, 0, false}

void buf_free(Buf *b);
void buf_clear(Buf *b);
/* Make room for n more bytes; false (and failed set) on failure. */
bool buf_reserve(Buf *b, size_t n);
void buf_append(Buf *b, const char *s, size_t n);
void buf_puts(Buf *b, const char *s);
void buf_putc(Buf *b, char c);
void buf_printf(Buf *b, const char *fmt, ...) GENO_PRINTF(2, 3);
void buf_vprintf(Buf *b, const char *fmt, va_list ap);
/* Take ownership of the contents (never NULL unless allocation failed);
 * the buffer is left empty. */
char *buf_take(Buf *b);
/* The one string escaper of geno-c, behind JSON output, the canonical text
 * of values (`"a\nb"` inside a list) and json_stringify: s[0..n) written
 * as a double-quoted literal with \" \\ \n \r \t \b \f, other C0
 * controls as \u00xx, everything else as is; with `ascii` (Python's
 * ensure_ascii), also DEL and every non-ASCII code point as \uxxxx (a
 * surrogate pair above U+FFFF; s must then be valid UTF-8). The pieces go
 * to sink(ud, bytes, len) in order. */
typedef void (*StrSink)(void *ud, const char *s, size_t n);
void str_quote(const char *s, size_t n, bool ascii, StrSink sink, void *ud);
/* str_quote into a Buf, without ascii: a JSON string literal. */
void buf_json_string(Buf *b, const char *s, size_t n);

#endif
