/* The outline of a module (outline.h): its declarations as JSON. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "outline.h"

/* The source split at LF, with the offset of each line's start found
 * once, so that looking a line up costs O(1) and an outline is linear in
 * the module (a scan from the top per lookup made 30,000 declarations
 * take 46 s). Without memory for the index, lookups scan (slow, right). */
typedef struct {
  const char *src;
  size_t len;
  size_t *starts; /* starts[l - 1]: offset of line l; NULL: no index */
  int nlines;
} Lines;

static void lines_init(Lines *L, const char *src, size_t len) {
  L->src = src, L->len = len, L->starts = NULL, L->nlines = 0;
  size_t count = 1;
  for (const char *p = src, *end = src + len; p < end && (p = memchr(p, '\n', (size_t)(end - p))); p++) count++;
  if (count > (size_t)INT32_MAX) return;
  L->starts = malloc(count * sizeof *L->starts);
  if (!L->starts) return;
  L->starts[0] = 0;
  int k = 1;
  for (size_t i = 0; i < len; i++)
    if (src[i] == '\n') L->starts[k++] = i + 1;
  L->nlines = k;
}

/* The text of line `line` (1-based) without its line end, through *n;
 * NULL past the end. */
static const char *line_text(const Lines *L, int line, size_t *n) {
  const char *src = L->src, *end = src + L->len, *p = src;
  if (line < 1) return NULL;
  if (L->starts) {
    if (line > L->nlines) return NULL;
    p = src + L->starts[line - 1];
  } else {
    for (int l = 1; l < line && p < end; l++) {
      const char *nl = memchr(p, '\n', (size_t)(end - p));
      if (!nl) return NULL;
      p = nl + 1;
    }
  }
  if (p >= end && line > 1) return NULL;
  const char *e = memchr(p, '\n', (size_t)(end - p));
  *n = (size_t)((e ? e : end) - p);
  while (*n && (p[*n - 1] == ' ' || p[*n - 1] == '\t' || p[*n - 1] == '\r')) (*n)--;
  return p;
}

static const char *skip_ws(const char *s, size_t *n) {
  while (*n && (*s == ' ' || *s == '\t')) s++, (*n)--;
  return s;
}

/* The `///` lines right above line `line` (skipping `@` decorator lines),
 * joined with LF, each without its `///` and one following space. */
static void doc_comment(Buf *out, const Lines *L, int line) {
  int first = line;
  for (int l = line - 1; l >= 1; l--) {
    size_t n;
    const char *t = line_text(L, l, &n);
    if (!t) break;
    t = skip_ws(t, &n);
    if (n >= 3 && memcmp(t, "///", 3) == 0) first = l;
    else if (n >= 1 && t[0] == '@' && first == line) continue;
    else break;
  }
  bool any = false;
  for (int l = first; l < line; l++) {
    size_t n;
    const char *t = skip_ws(line_text(L, l, &n), &n);
    if (n < 3 || memcmp(t, "///", 3) != 0) continue;
    t += 3, n -= 3;
    if (n && *t == ' ') t++, n--;
    if (any) buf_putc(out, '\n');
    buf_append(out, t, n);
    any = true;
  }
}

static void put_line(Buf *j, const char *key, const Lines *L, int line) {
  size_t n = 0;
  const char *t = line_text(L, line, &n);
  if (t) t = skip_ws(t, &n);
  buf_printf(j, ", \"%s\": ", key);
  buf_json_string(j, t ? t : "", t ? n : 0);
}

static void put_name(Buf *j, const char *name) {
  buf_puts(j, ", \"name\": ");
  buf_json_string(j, name ? name : "", name ? strlen(name) : 0);
}

void outline_json(const Module *m, const char *src, size_t len, Buf *j) {
  Lines lines;
  lines_init(&lines, src, len);
  const Lines *L = &lines;
  buf_puts(j, "{\"definitions\": [");
  for (int i = 0; i < m->ndecls; i++) {
    const Decl *d = m->decls[i];
    static const char *const kinds[] = {"func", "type", "alias", "trait", "impl", "import", "test"};
    buf_puts(j, i ? ", {\"kind\": " : "{\"kind\": ");
    buf_json_string(j, kinds[d->kind], strlen(kinds[d->kind]));
    int line = d->span.line;
    switch (d->kind) {
      case D_FUNC: put_name(j, d->u.func.name); line = d->u.func.span.line; break;
      case D_ADT: put_name(j, d->u.adt.name); break;
      case D_ALIAS: put_name(j, d->u.alias.name); break;
      case D_TRAIT: put_name(j, d->u.trait.name); break;
      case D_IMPL: put_name(j, d->u.impl.trait); break;
      case D_IMPORT: put_name(j, d->u.import.module); break;
      case D_TEST: {
        buf_puts(j, ", \"name\": ");
        buf_json_string(j, d->u.test.name, d->u.test.name_len);
        break;
      }
    }
    buf_printf(j, ", \"line\": %d, \"exported\": %s", line, d->exported || (d->kind == D_FUNC && d->u.func.exported) ? "true" : "false");
    put_line(j, "signature", L, line);
    Buf doc = BUF_INIT;
    doc_comment(&doc, L, d->span.line < line ? d->span.line : line);
    buf_puts(j, ", \"doc\": ");
    buf_json_string(j, doc.data ? doc.data : "", doc.len);
    buf_free(&doc);
    buf_puts(j, ", \"examples\": [");
    if (d->kind == D_FUNC) {
      for (int e = 0; e < d->u.func.nexamples; e++) {
        size_t n = 0;
        const char *t = line_text(L, d->u.func.examples[e].span.line, &n);
        if (t) t = skip_ws(t, &n);
        if (t && n >= 8 && memcmp(t, "example ", 8) == 0) t += 8, n -= 8;
        if (e) buf_puts(j, ", ");
        buf_json_string(j, t ? t : "", t ? n : 0);
      }
    }
    buf_puts(j, "]");
    if (d->kind == D_FUNC && d->u.func.untested) {
      buf_puts(j, ", \"untested\": ");
      buf_json_string(j, d->u.func.untested, strlen(d->u.func.untested));
    }
    buf_puts(j, "}");
  }
  buf_puts(j, "]}");
  free(lines.starts);
}
