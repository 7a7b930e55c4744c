/* UTF-8 helpers (see utf8.h). */
#include "utf8.h"

int utf8_decode(const unsigned char *s, size_t n, int32_t *cp) {
  if (n == 0) return 0;
  unsigned c = s[0];
  if (c < 0x80) {
    *cp = (int32_t)c;
    return 1;
  }
  int len;
  int32_t v;
  int32_t min;
  if ((c & 0xE0) == 0xC0) { len = 2; v = c & 0x1F; min = 0x80; }
  else if ((c & 0xF0) == 0xE0) { len = 3; v = c & 0x0F; min = 0x800; }
  else if ((c & 0xF8) == 0xF0) { len = 4; v = c & 0x07; min = 0x10000; }
  else return 0;
  if ((size_t)len > n) return 0;
  for (int i = 1; i < len; i++) {
    if ((s[i] & 0xC0) != 0x80) return 0;
    v = (v << 6) | (s[i] & 0x3F);
  }
  if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)) return 0;
  *cp = v;
  return len;
}

int utf8_encode(int32_t cp, char out[4]) {
  if (cp < 0) return 0;
  if (cp < 0x80) { out[0] = (char)cp; return 1; }
  if (cp < 0x800) {
    out[0] = (char)(0xC0 | (cp >> 6));
    out[1] = (char)(0x80 | (cp & 0x3F));
    return 2;
  }
  if (cp >= 0xD800 && cp <= 0xDFFF) return 0;
  if (cp < 0x10000) {
    out[0] = (char)(0xE0 | (cp >> 12));
    out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
    out[2] = (char)(0x80 | (cp & 0x3F));
    return 3;
  }
  if (cp <= 0x10FFFF) {
    out[0] = (char)(0xF0 | (cp >> 18));
    out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    out[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
  }
  return 0;
}

bool utf8_valid(const char *s, size_t n, size_t *bad_offset) {
  const unsigned char *p = (const unsigned char *)s;
  size_t i = 0;
  while (i < n) {
    /* Source text is mostly ASCII: test 32 bytes at a time, then eight
     * (memcpy is the portable unaligned load; compilers turn it into one
     * move). */
    while (i + 32 <= n) {
      uint64_t w[4];
      memcpy(w, p + i, 32);
      if ((w[0] | w[1] | w[2] | w[3]) & 0x8080808080808080ULL) break;
      i += 32;
    }
    while (i + 8 <= n) {
      uint64_t w;
      memcpy(&w, p + i, 8);
      if (w & 0x8080808080808080ULL) break;
      i += 8;
    }
    if (i >= n) break;
    if (p[i] < 0x80) { i++; continue; }
    int32_t cp;
    int k = utf8_decode(p + i, n - i, &cp);
    if (!k) {
      if (bad_offset) *bad_offset = i;
      return false;
    }
    i += (size_t)k;
  }
  return true;
}

size_t utf8_length(const char *s, size_t n) {
  size_t count = 0;
  for (size_t i = 0; i < n; i++)
    if (((unsigned char)s[i] & 0xC0) != 0x80) count++;
  return count;
}

size_t utf8_offset(const char *s, size_t n, size_t idx) {
  size_t count = 0;
  for (size_t i = 0; i < n; i++) {
    if (((unsigned char)s[i] & 0xC0) != 0x80) {
      if (count == idx) return i;
      count++;
    }
  }
  return n;
}

char *utf8_sanitize(const char *s, size_t n, size_t *out_len) {
  /* at most 3 output bytes per input byte (one U+FFFD each) */
  if (n > (SIZE_MAX - 1) / 3) return NULL;
  char *out = malloc(n * 3 + 1);
  if (!out) return NULL;
  size_t o = 0;
  for (size_t i = 0; i < n;) {
    int32_t cp;
    int k = utf8_decode((const unsigned char *)s + i, n - i, &cp);
    if (k > 0) {
      memcpy(out + o, s + i, (size_t)k);
      o += (size_t)k;
      i += (size_t)k;
    } else {
      memcpy(out + o, "\xEF\xBF\xBD", 3);
      o += 3;
      i++;
    }
  }
  out[o] = '\0';
  if (out_len) *out_len = o;
  return out;
}
