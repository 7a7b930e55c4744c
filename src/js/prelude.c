/* The embedded JavaScript prelude and its tree shaking (see js.h).
 *
 * The prelude text (the .js files of src/js/prelude, joined at build time) is a list
 * of units, each starting at a line `//@ NAME NAME...` that lists what the
 * unit defines. A unit needs every unit whose name appears in it as a
 * `$identifier` token, so dependencies are never written twice. The index
 * of units is built once per process under pthread_once and is read-only
 * afterwards. */
#include <pthread.h>
#include <string.h>

#include "js.h"

extern const char js_prelude_text[];
extern const size_t js_prelude_len;

enum { MAX_UNITS = 512, MAX_NAMES = 1024 };

typedef struct Unit {
  size_t start, len; /* the body, after the `//@` line */
} Unit;

typedef struct Name {
  const char *s;
  size_t n;
  int unit;
} Name;

static Unit units[MAX_UNITS];
static int nunits;
static Name names[MAX_NAMES];
static int nnames;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static bool ident_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '$';
}

static void build(void) {
  const char *t = js_prelude_text;
  size_t len = js_prelude_len, i = 0;
  while (i < len) {
    size_t eol = i;
    while (eol < len && t[eol] != '\n') eol++;
    if (eol - i > 4 && memcmp(t + i, "//@ ", 4) == 0 && nunits < MAX_UNITS) {
      if (nunits > 0) units[nunits - 1].len = i - units[nunits - 1].start;
      int u = nunits++;
      units[u].start = eol + 1 < len ? eol + 1 : len;
      units[u].len = 0;
      for (size_t k = i + 4; k < eol;) {
        while (k < eol && t[k] == ' ') k++;
        size_t s = k;
        while (k < eol && t[k] != ' ') k++;
        if (k > s && nnames < MAX_NAMES) names[nnames++] = (Name){t + s, k - s, u};
      }
    } else if (eol - i >= 3 && memcmp(t + i, "// ", 3) == 0 && nunits == 0) {
      /* file header before the first unit */
    }
    i = eol + 1;
  }
  if (nunits > 0) units[nunits - 1].len = len - units[nunits - 1].start;
}

static int find_unit(const char *s, size_t n) {
  for (int i = 0; i < nnames; i++)
    if (names[i].n == n && memcmp(names[i].s, s, n) == 0) return names[i].unit;
  return -1;
}

bool js_prelude_has(const char *name) {
  pthread_once(&once, build);
  return find_unit(name, strlen(name)) >= 0;
}

size_t js_prelude_size(void) { return js_prelude_len; }

/* A body line that is only a comment is left out of the output, and the
 * others lose their indentation (no string in the prelude spans lines). A
 * `//@`-file may start a new file's header: lines before a unit's own
 * `//@` belong to the previous unit, so header comments are dropped the
 * same way. */
static void emit_unit(const Unit *u, Buf *out) {
  const char *t = js_prelude_text + u->start;
  size_t i = 0;
  while (i < u->len) {
    size_t eol = i;
    while (eol < u->len && t[eol] != '\n') eol++;
    size_t k = i;
    while (k < eol && t[k] == ' ') k++;
    bool comment = eol - k >= 2 && t[k] == '/' && t[k + 1] == '/';
    if (!comment && eol > k) {
      buf_append(out, t + k, eol - k);
      buf_putc(out, '\n');
    }
    i = eol + 1;
  }
}

void js_prelude_emit(const char *const *need, size_t n, Buf *out) {
  pthread_once(&once, build);
  bool keep[MAX_UNITS] = {false};
  int stack[MAX_UNITS], top = 0;
  for (size_t i = 0; i < n; i++) {
    int u = find_unit(need[i], strlen(need[i]));
    if (u >= 0 && !keep[u]) {
      keep[u] = true;
      stack[top++] = u;
    }
  }
  while (top > 0) {
    const Unit *u = &units[stack[--top]];
    const char *t = js_prelude_text + u->start;
    for (size_t i = 0; i < u->len; i++) {
      if (t[i] == '/' && i + 1 < u->len && t[i + 1] == '/') { /* a comment names no dependency */
        while (i < u->len && t[i] != '\n') i++;
        continue;
      }
      if (t[i] != '$' || (i > 0 && ident_char(t[i - 1]))) continue;
      size_t k = i + 1;
      while (k < u->len && ident_char(t[k]) && t[k] != '$') k++;
      int d = find_unit(t + i, k - i);
      if (d >= 0 && !keep[d]) {
        keep[d] = true;
        stack[top++] = d;
      }
      i = k - 1;
    }
  }
  for (int u = 0; u < nunits; u++)
    if (keep[u]) emit_unit(&units[u], out);
}
