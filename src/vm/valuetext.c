/* The one value renderer, over ValueTextOps (see valuetext.h). */
#include "valuetext.h"

#include <math.h>
#include <stdio.h>
#include <utf8proc.h>

#include "../base/utf8.h"

/* ---- text ---------------------------------------------------------------- */

/* Rendering is one recursive walk writing into a Buf. It stops early once
 * the text passes byte_cap (4 bytes per code point of the limit): a
 * program printing a huge value fails fast instead of building gigabytes
 * of text first. Mutable containers can contain themselves, so the ones on
 * the current path are remembered and a repeat prints as "...", like
 * Python's repr of a self-containing list. */
typedef struct RCtx {
  const ValueTextOps *ops;
  void *ctx;
  Buf *out;
  RenderMode mode;
  size_t start;      /* out->len when rendering began */
  size_t byte_cap;   /* stop once the text grows past this many bytes */
  bool over;         /* the cap was hit, or the walk failed */
  size_t cp;         /* code points written so far */
  size_t max_cp;     /* the limit in code points */
  size_t over_at;    /* code points after the token that passed max_cp (0: none) */
  int in_tok;        /* > 0 while writing the pieces of one token */
  const void *path[64]; /* mutable containers being rendered (cycle check) */
  int npath;
  size_t reserved;   /* bytes held through ops->room */
  bool failed;       /* an error was raised */
} RCtx;

static bool render(RCtx *c, const void *v, bool top, int depth);

/* The limit is checked after each token, where the reference's writer
 * checks after each append: a scalar, a whole quoted string, a bracket, a
 * separator, "field: ". The first token that passes the limit stops the
 * walk, and the size after it is the N of the error message. */
static void tok_end(RCtx *c) {
  if (!c->over && c->cp > c->max_cp) {
    c->over_at = c->cp;
    c->over = true;
  }
}

static void put(RCtx *c, const char *s, size_t n) {
  if (c->over) return;
  if (c->ops->room && !c->ops->room(c->ctx, &c->reserved, c->out->len - c->start, n)) {
    c->over = c->failed = true;
    return;
  }
  buf_append(c->out, s, n);
  for (size_t i = 0; i < n; i++) c->cp += ((unsigned char)s[i] & 0xC0) != 0x80;
  if (c->in_tok) return; /* a token's pieces: checked at its end (it is bounded by the value's own size) */
  tok_end(c);
  if (c->out->len - c->start > c->byte_cap) c->over = true;
}

static void tok_begin(RCtx *c) { c->in_tok++; }

static void tok_close(RCtx *c) {
  c->in_tok--;
  if (c->in_tok) return;
  tok_end(c);
  if (c->out->len - c->start > c->byte_cap) c->over = true;
}

static void puts_(RCtx *c, const char *s) { put(c, s, strlen(s)); }

static void put_sink(void *ud, const char *s, size_t n) { put(ud, s, n); }

/* Python's str.isprintable for one code point. */
static bool py_printable(int32_t cp) {
  if (cp == ' ') return true;
  utf8proc_category_t cat = utf8proc_category(cp);
  switch (cat) {
    case UTF8PROC_CATEGORY_CC:
    case UTF8PROC_CATEGORY_CF:
    case UTF8PROC_CATEGORY_CS:
    case UTF8PROC_CATEGORY_CO:
    case UTF8PROC_CATEGORY_CN:
    case UTF8PROC_CATEGORY_ZL:
    case UTF8PROC_CATEGORY_ZP:
    case UTF8PROC_CATEGORY_ZS: return false;
    default: return true;
  }
}

/* Python repr of a str: single quotes unless the text has ' and no ". */
void fmt_quote_python(const char *data, size_t blen, StrSink sink, void *ud) {
  bool has_sq = memchr(data, '\'', blen) != NULL;
  bool has_dq = memchr(data, '"', blen) != NULL;
  char q = has_sq && !has_dq ? '"' : '\'';
  sink(ud, &q, 1);
  size_t i = 0;
  while (i < blen) {
    int32_t cp;
    int n = utf8_decode((const unsigned char *)data + i, blen - i, &cp);
    if (n <= 0) {
      n = 1;
      cp = (unsigned char)data[i];
    }
    char tmp[16];
    if (cp == q || cp == '\\') {
      tmp[0] = '\\';
      tmp[1] = (char)cp;
      sink(ud, tmp, 2);
    } else if (cp == '\n') sink(ud, "\\n", 2);
    else if (cp == '\r') sink(ud, "\\r", 2);
    else if (cp == '\t') sink(ud, "\\t", 2);
    else if (cp < 0x80 && (cp < 0x20 || cp == 0x7f)) {
      snprintf(tmp, sizeof tmp, "\\x%02x", cp);
      sink(ud, tmp, strlen(tmp));
    } else if (cp >= 0x80 && !py_printable(cp)) {
      if (cp <= 0xff) snprintf(tmp, sizeof tmp, "\\x%02x", cp);
      else if (cp <= 0xffff) snprintf(tmp, sizeof tmp, "\\u%04x", cp);
      else snprintf(tmp, sizeof tmp, "\\U%08x", cp);
      sink(ud, tmp, strlen(tmp));
    } else {
      sink(ud, data + i, (size_t)n);
    }
    i += (size_t)n;
  }
  sink(ud, &q, 1);
}

/* The children of v separated by ", " (with "key: " for maps); nested
 * strings are quoted (top = false). */
static bool render_children(RCtx *c, const void *v, bool pairs, bool sorted, int depth) {
  RvCursor cur = {0, NULL, sorted};
  const void *key = NULL, *val = NULL;
  bool failed = false, ok = true;
  for (size_t k = 0; !c->over && c->ops->next(c->ctx, v, &cur, &key, &val, &failed); k++) {
    if (k) put(c, ", ", 2);
    if (pairs) {
      if (!(ok = render(c, key, false, depth + 1))) break;
      put(c, ": ", 2);
    }
    if (!(ok = render(c, val, false, depth + 1))) break;
  }
  if (c->ops->end) c->ops->end(&cur);
  if (failed) c->over = c->failed = true;
  return ok && !failed;
}

static bool on_path(RCtx *c, const void *o) {
  for (int i = 0; i < c->npath; i++)
    if (c->path[i] == o) return true;
  return false;
}

/* "<word name>" as one token */
static void named(RCtx *c, const char *word, const char *name) {
  tok_begin(c);
  puts_(c, word);
  puts_(c, name);
  puts_(c, ">");
  tok_close(c);
}

/* The canonical text of a value (print, to_string, interpolation, `=>`
 * lines), or Python's repr in RENDER_REPR mode (used where the reference
 * shows a Python repr: messages about map keys, thrown values caught as
 * text). Floats always print in shortest round-trip form (fmt_float). */
static bool render(RCtx *c, const void *v, bool top, int depth) {
  const ValueTextOps *ops = c->ops;
  if (c->over) return true;
  if (ops->visit && !ops->visit(c->ctx)) {
    c->over = c->failed = true;
    return false;
  }
  if (depth > ops->max_depth || (ops->stack_low && ops->stack_low(c->ctx))) {
    c->over = c->failed = true;
    return ops->too_deep(c->ctx, depth, "render");
  }
  bool repr = c->mode == RENDER_REPR;
  char tmp[64];
  RvKind kind = ops->kind(v);
  switch (kind) {
    case RVK_UNIT: puts_(c, "()"); return true;
    case RVK_BOOL: puts_(c, ops->boolean(v) ? (repr ? "True" : "true") : (repr ? "False" : "false")); return true;
    case RVK_INT: {
      /* room for a small Int's digits; a big one's are bounded by the
       * representation (FMT_MAX_INT_DIGITS in the VM) */
      if (ops->room && !ops->room(c->ctx, &c->reserved, c->out->len - c->start, 24)) {
        c->over = c->failed = true;
        return false;
      }
      size_t before = c->out->len;
      if (!ops->int_text(c->ctx, v, c->out)) {
        c->over = c->failed = true;
        return false;
      }
      c->cp += c->out->len - before; /* digits and a sign: ASCII */
      tok_end(c);
      if (c->out->len - c->start > c->byte_cap) c->over = true;
      return true;
    }
    case RVK_FLOAT:
      fmt_float(ops->number(v), tmp, sizeof tmp);
      puts_(c, tmp);
      return true;
    case RVK_STRING: {
      size_t len;
      const char *s = ops->string(v, &len);
      tok_begin(c);
      if (top && c->mode == RENDER_RAW) put(c, s, len);
      else if (repr) fmt_quote_python(s, len, put_sink, c);
      else str_quote(s, len, false, put_sink, c); /* the one escaper */
      tok_close(c);
      return true;
    }
    case RVK_LIST:
    case RVK_TUPLE: {
      put(c, kind == RVK_LIST ? "[" : "(", 1);
      RvCursor cur = {0, NULL, false};
      const void *key, *val;
      bool failed = false;
      size_t n = 0;
      bool ok = true;
      for (; !c->over && ops->next(c->ctx, v, &cur, &key, &val, &failed); n++) {
        if (n) put(c, ", ", 2);
        if (!(ok = render(c, val, false, depth + 1))) break;
      }
      if (ops->end) ops->end(&cur);
      if (failed) c->over = c->failed = true;
      if (!ok || failed) return false;
      if (kind == RVK_TUPLE && n == 1) put(c, ",", 1);
      put(c, kind == RVK_LIST ? "]" : ")", 1);
      return true;
    }
    case RVK_CTOR: {
      puts_(c, ops->name(v));
      RvCursor cur = {0, NULL, false};
      const void *key, *val;
      bool failed = false, ok = true;
      size_t i = 0;
      for (; !c->over && ops->next(c->ctx, v, &cur, &key, &val, &failed); i++) {
        put(c, i ? ", " : "(", i ? 2 : 1);
        tok_begin(c); /* "name: " is one token */
        puts_(c, ops->field_name(v, i));
        put(c, ": ", 2);
        tok_close(c);
        if (!(ok = render(c, val, false, depth + 1))) break;
      }
      if (ops->end) ops->end(&cur);
      if (failed) c->over = c->failed = true;
      if (!ok || failed) return false;
      if (i) put(c, ")", 1);
      return true;
    }
    case RVK_MAP: {
      put(c, "{", 1);
      if (!render_children(c, v, true, false, depth)) return false;
      put(c, "}", 1);
      return true;
    }
    case RVK_ARRAY:
    case RVK_VEC:
    case RVK_SET:
    case RVK_MMAP: {
      const char *open = kind == RVK_ARRAY ? "Array([" : kind == RVK_VEC ? "Vec([" : kind == RVK_SET ? "Set({" : "MutableMap({";
      const char *close = kind == RVK_ARRAY || kind == RVK_VEC ? "])" : "})";
      const void *id = ops->identity ? ops->identity(v) : NULL;
      if (id && on_path(c, id)) {
        tok_begin(c);
        puts_(c, open);
        puts_(c, "...");
        puts_(c, close);
        tok_close(c);
        return true;
      }
      bool pushed = id && c->npath < 64;
      if (pushed) c->path[c->npath++] = id;
      puts_(c, open);
      bool ok = render_children(c, v, kind == RVK_MMAP, kind == RVK_SET, depth);
      puts_(c, close);
      if (pushed) c->npath--;
      return ok;
    }
    case RVK_FUNC: named(c, "<function ", ops->name(v)); return true;
    case RVK_BUILTIN: named(c, "<builtin ", ops->name(v)); return true;
    case RVK_ASYNC: named(c, "<async ", ops->name(v)); return true;
    case RVK_OTHER: puts_(c, ops->name(v)); return true;
  }
  puts_(c, "<?>");
  return true;
}

void rv_text(const ValueTextOps *ops, void *ctx, const void *node, RenderMode mode, Buf *out, size_t max_cp,
             RvTextEnd *end) {
  RCtx c;
  c.ops = ops;
  c.ctx = ctx;
  c.out = out;
  c.mode = mode;
  c.start = out->len;
  /* A code point is at most 4 bytes: past 4*max_cp bytes the limit is
   * certainly exceeded, so rendering can stop there. */
  c.byte_cap = max_cp > SIZE_MAX / 4 - 8 ? SIZE_MAX / 2 : max_cp * 4 + 8;
  c.over = false;
  c.cp = 0;
  c.max_cp = max_cp;
  c.over_at = 0;
  c.in_tok = 0;
  c.npath = 0;
  c.reserved = 0;
  c.failed = false;
  bool ok = render(&c, node, true, 0);
  if (ops->release) ops->release(ctx, c.reserved);
  end->failed = !ok || c.failed;
  end->over = c.over && !end->failed;
  end->over_at = c.over_at;
}

/* ---- JSON ------------------------------------------------------------------ */

/* The RunResult encoding of values (the reference's JSON form): Lists as
 * arrays, Maps as objects with str() keys, tuples as {"_tuple": [...]},
 * constructor values as {"_constructor": name, "fields": {...}}, Unit as
 * null (a written `()`, an empty tuple, as {"_tuple": []}), non-finite
 * Floats as strings, mutable containers tagged by kind. */
typedef struct JCtx {
  const ValueTextOps *ops;
  void *ctx;
  Buf *out;
  const void *path[64];
  int npath;
  size_t *reserved; /* bytes held through ops->room, shared by sub-walks */
} JCtx;

static bool json(JCtx *c, const void *v, int depth);

/* qsort order of C strings (Set elements by their JSON text). Equal texts
 * are identical strings, so the unstable sort cannot reorder anything
 * visibly. */
static int cmp_text(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Python's str() of a map key: raw text for Strings, repr otherwise. */
static bool json_key(JCtx *c, const void *k) {
  Buf tmp = BUF_INIT;
  RvTextEnd end;
  rv_text(c->ops, c->ctx, k, c->ops->kind(k) == RVK_STRING ? RENDER_RAW : RENDER_REPR, &tmp, SIZE_MAX / 8, &end);
  if (tmp.failed) c->out->failed = true; /* out of memory: the caller reports it */
  bool ok = !end.failed && !tmp.failed &&
            (!c->ops->room || c->ops->room(c->ctx, c->reserved, c->out->len, tmp.len * 6 + 8));
  if (ok) buf_json_string(c->out, tmp.data ? tmp.data : "", tmp.len);
  buf_free(&tmp);
  return ok;
}

/* [children] or {key: value, ...} */
static bool json_children(JCtx *c, const void *v, bool pairs, int depth) {
  buf_putc(c->out, pairs ? '{' : '[');
  RvCursor cur = {0, NULL, false};
  const void *key = NULL, *val = NULL;
  bool failed = false, ok = true;
  for (size_t k = 0; c->ops->next(c->ctx, v, &cur, &key, &val, &failed); k++) {
    if (k) buf_puts(c->out, ", ");
    if (pairs) {
      if (!(ok = json_key(c, key))) break;
      buf_puts(c->out, ": ");
    }
    if (!(ok = json(c, val, depth + 1))) break;
  }
  if (c->ops->end) c->ops->end(&cur);
  buf_putc(c->out, pairs ? '}' : ']');
  return ok && !failed;
}

/* The reference sorts set elements by the text of their JSON form. */
static bool json_set(JCtx *c, const void *v, int depth) {
  char **texts = NULL;
  size_t n = 0, cap = 0;
  RvCursor cur = {0, NULL, false};
  const void *key, *val;
  bool failed = false, ok = true;
  while (ok && c->ops->next(c->ctx, v, &cur, &key, &val, &failed)) {
    if (n == cap) {
      size_t ncap = cap ? cap * 2 : 16;
      char **grown = realloc(texts, ncap * sizeof *texts);
      if (!grown) {
        ok = false;
        break;
      }
      texts = grown;
      cap = ncap;
    }
    Buf one = BUF_INIT;
    JCtx sub = *c;
    sub.out = &one;
    ok = json(&sub, val, depth + 1) && !one.failed;
    texts[n++] = ok ? buf_take(&one) : NULL;
    buf_free(&one);
  }
  if (c->ops->end) c->ops->end(&cur);
  if (ok && !failed) {
    qsort(texts, n, sizeof *texts, cmp_text);
    buf_puts(c->out, "{\"_set\": [");
    for (size_t i = 0; i < n; i++) {
      if (i) buf_puts(c->out, ", ");
      buf_puts(c->out, texts[i]);
    }
    buf_puts(c->out, "]}");
  }
  for (size_t i = 0; i < n; i++) free(texts[i]);
  free(texts);
  if (!ok && !failed) c->out->failed = true; /* out of memory: the caller reports it */
  return ok && !failed;
}

/* {"_function": name} */
static void json_function(Buf *o, const char *name) {
  buf_puts(o, "{\"_function\": ");
  buf_json_string(o, name, strlen(name));
  buf_putc(o, '}');
}

static bool json(JCtx *c, const void *v, int depth) {
  const ValueTextOps *ops = c->ops;
  if (depth > ops->max_depth || (ops->stack_low && ops->stack_low(c->ctx))) return ops->too_deep(c->ctx, depth, "encode");
  RvKind kind = ops->kind(v);
  /* a String's escapes take at most 6 bytes per byte; a node's own
   * punctuation and scalars fit in 128 */
  size_t more = 128, len = 0;
  if (kind == RVK_STRING) (void)ops->string(v, &len);
  else if (kind == RVK_CTOR) len = strlen(ops->name(v));
  more += len * 6;
  if (ops->visit && !ops->visit(c->ctx)) return false;
  if (ops->room && !ops->room(c->ctx, c->reserved, c->out->len, more)) return false;
  Buf *o = c->out;
  char tmp[64];
  switch (kind) {
    case RVK_UNIT: buf_puts(o, "null"); return true;
    case RVK_BOOL: buf_puts(o, ops->boolean(v) ? "true" : "false"); return true;
    case RVK_INT: return ops->int_text(c->ctx, v, o);
    case RVK_FLOAT: {
      double f = ops->number(v);
      if (isnan(f)) buf_puts(o, "\"NaN\"");
      else if (isinf(f)) buf_puts(o, f > 0 ? "\"Infinity\"" : "\"-Infinity\"");
      else {
        fmt_float(f, tmp, sizeof tmp);
        buf_puts(o, tmp);
      }
      return true;
    }
    case RVK_STRING: {
      const char *s = ops->string(v, &len);
      buf_json_string(o, s, len);
      return true;
    }
    case RVK_LIST: return json_children(c, v, false, depth);
    case RVK_TUPLE:
      buf_puts(o, "{\"_tuple\": ");
      if (!json_children(c, v, false, depth)) return false;
      buf_putc(o, '}');
      return true;
    case RVK_MAP: return json_children(c, v, true, depth);
    case RVK_CTOR: {
      const char *name = ops->name(v);
      buf_puts(o, "{\"_constructor\": ");
      buf_json_string(o, name, strlen(name));
      buf_puts(o, ", \"fields\": {");
      RvCursor cur = {0, NULL, false};
      const void *key, *val;
      bool failed = false, ok = true;
      for (size_t i = 0; ops->next(c->ctx, v, &cur, &key, &val, &failed); i++) {
        const char *fname = ops->field_name(v, i);
        if (i) buf_puts(o, ", ");
        buf_json_string(o, fname, strlen(fname));
        buf_puts(o, ": ");
        if (!(ok = json(c, val, depth + 1))) break;
      }
      if (ops->end) ops->end(&cur);
      buf_puts(o, "}}");
      return ok && !failed;
    }
    case RVK_ARRAY:
    case RVK_VEC:
    case RVK_MMAP:
    case RVK_SET: {
      const void *id = ops->identity ? ops->identity(v) : NULL;
      for (int i = 0; id && i < c->npath; i++)
        if (c->path[i] == id) {
          buf_puts(o, "\"[Circular]\"");
          return true;
        }
      bool pushed = id && c->npath < 64;
      if (pushed) c->path[c->npath++] = id;
      bool ok;
      if (kind == RVK_SET) ok = json_set(c, v, depth);
      else {
        buf_puts(o, kind == RVK_ARRAY ? "{\"_array\": " : kind == RVK_VEC ? "{\"_vec\": " : "{\"_mutable_map\": ");
        ok = json_children(c, v, kind == RVK_MMAP, depth);
        buf_putc(o, '}');
      }
      if (pushed) c->npath--;
      return ok;
    }
    case RVK_FUNC:
    case RVK_BUILTIN: json_function(o, ops->name(v)); return true;
    case RVK_ASYNC:
    case RVK_OTHER: {
      Buf text = BUF_INIT;
      RvTextEnd end;
      rv_text(ops, c->ctx, v, RENDER_REPR, &text, SIZE_MAX / 8, &end);
      if (!end.failed) buf_json_string(o, text.data ? text.data : "", text.len);
      buf_free(&text);
      return !end.failed;
    }
  }
  buf_puts(o, "null");
  return true;
}

bool rv_json(const ValueTextOps *ops, void *ctx, const void *node, Buf *out) {
  JCtx c;
  size_t reserved = 0;
  c.ops = ops;
  c.ctx = ctx;
  c.out = out;
  c.npath = 0;
  c.reserved = &reserved;
  bool ok = json(&c, node, 0);
  if (ops->release) ops->release(ctx, reserved);
  return ok;
}
