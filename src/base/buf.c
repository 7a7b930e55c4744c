/* Growable byte buffer (see buf.h). */
#include "buf.h"

#include <stdio.h>
#include <string.h>

#include "utf8.h"

void buf_free(Buf *b) {
  free(b->data);
  b->data = NULL;
  b->len = b->cap = 0;
  b->failed = false;
}

void buf_clear(Buf *b) {
  b->len = 0;
  if (b->data) b->data[0] = '\0';
}

bool buf_reserve(Buf *b, size_t n) {
  if (b->failed) return false;
  if (n > SIZE_MAX / 4 - b->len) {
    b->failed = true;
    return false;
  }
  size_t need = b->len + n + 1;
  if (need <= b->cap) return true;
  size_t cap = b->cap ? b->cap : 64;
  while (cap < need) cap *= 2;
  char *p = realloc(b->data, cap);
  if (!p) {
    b->failed = true;
    return false;
  }
  b->data = p;
  b->cap = cap;
  return true;
}

void buf_append(Buf *b, const char *s, size_t n) {
  if (!buf_reserve(b, n)) return;
  if (n) memcpy(b->data + b->len, s, n);
  b->len += n;
  b->data[b->len] = '\0';
}

void buf_puts(Buf *b, const char *s) { buf_append(b, s, strlen(s)); }

void buf_putc(Buf *b, char c) { buf_append(b, &c, 1); }

void buf_vprintf(Buf *b, const char *fmt, va_list ap) {
  va_list ap2;
  va_copy(ap2, ap);
  int n = vsnprintf(NULL, 0, fmt, ap2);
  va_end(ap2);
  if (n < 0) {
    b->failed = true;
    return;
  }
  if (!buf_reserve(b, (size_t)n)) return;
  vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
  b->len += (size_t)n;
}

void buf_printf(Buf *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  buf_vprintf(b, fmt, ap);
  va_end(ap);
}

char *buf_take(Buf *b) {
  if (!b->data && !b->failed) buf_reserve(b, 0);
  char *p = b->data;
  if (p) p[b->len] = '\0';
  b->data = NULL;
  b->len = b->cap = 0;
  return p;
}

void str_quote(const char *s, size_t n, bool ascii, StrSink sink, void *ud) {
  static const char hex[] = "0123456789abcdef";
  sink(ud, "\"", 1);
  size_t run = 0; /* start of the pending run of plain bytes */
  for (size_t i = 0; i < n;) {
    size_t at = i;
    unsigned char c = (unsigned char)s[i];
    int32_t cp = c;
    if (c < 0x80 || !ascii) {
      i++;
    } else {
      int k = utf8_decode((const unsigned char *)s + i, n - i, &cp);
      i += k > 0 ? (size_t)k : 1;
    }
    const char *esc = NULL;
    char tmp[13];
    switch (cp) {
      case '"': esc = "\\\""; break;
      case '\\': esc = "\\\\"; break;
      case '\n': esc = "\\n"; break;
      case '\r': esc = "\\r"; break;
      case '\t': esc = "\\t"; break;
      case '\b': esc = "\\b"; break;
      case '\f': esc = "\\f"; break;
      default:
        if (cp < 0x20 || (ascii && cp >= 0x7F)) {
          int32_t units[2] = {cp, -1};
          if (cp >= 0x10000) {
            units[0] = 0xD800 + ((cp - 0x10000) >> 10);
            units[1] = 0xDC00 + ((cp - 0x10000) & 0x3FF);
          }
          char *o = tmp;
          for (int u = 0; u < 2 && units[u] >= 0; u++) {
            *o++ = '\\';
            *o++ = 'u';
            for (int shift = 12; shift >= 0; shift -= 4) *o++ = hex[(units[u] >> shift) & 15];
          }
          *o = '\0';
          esc = tmp;
        }
    }
    if (esc) {
      if (at > run) sink(ud, s + run, at - run);
      sink(ud, esc, strlen(esc));
      run = i;
    }
  }
  if (n > run) sink(ud, s + run, n - run);
  sink(ud, "\"", 1);
}

static void buf_sink(void *ud, const char *s, size_t n) { buf_append(ud, s, n); }

void buf_json_string(Buf *b, const char *s, size_t n) { str_quote(s, n, false, buf_sink, b); }
