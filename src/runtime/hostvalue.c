/* geno_value construction, inspection and release (include/geno.h). */
#include "hostvalue.h"

#include <errno.h>
#include <stdio.h>

#include "../base/buf.h"
#include "../base/common.h"
#include "../base/utf8.h"

geno_value *rt_hv_alloc(geno_value_kind kind, size_t count) {
  geno_value *v = calloc(1, sizeof *v);
  if (!v) return NULL;
  v->kind = kind;
  if (count) {
    v->items = calloc(count, sizeof *v->items);
    if (!v->items) {
      free(v);
      return NULL;
    }
  }
  v->count = count;
  v->depth = 1;
  return v;
}

bool rt_hv_set_depth(geno_value *v) {
  unsigned d = 0;
  for (size_t i = 0; i < v->count; i++) {
    if (v->items && v->items[i] && v->items[i]->depth > d) d = v->items[i]->depth;
    if (v->keys && v->keys[i] && v->keys[i]->depth > d) d = v->keys[i]->depth;
  }
  v->depth = d + 1;
  return v->depth <= GENO_VALUE_MAX_DEPTH;
}

static char *xstrdup(const char *s) {
  size_t n = strlen(s);
  char *p = malloc(n + 1);
  if (p) memcpy(p, s, n + 1);
  return p;
}

void rt_hv_free(geno_value *v) {
  if (!v) return;
  for (size_t i = 0; i < v->count; i++) {
    if (v->items) rt_hv_free(v->items[i]);
    if (v->keys) rt_hv_free(v->keys[i]);
    if (v->field_names) free(v->field_names[i]);
  }
  free(v->items);
  free(v->keys);
  free(v->field_names);
  free(v->text);
  free(v->name);
  rt_link_release(v->link);
  free(v);
}

void geno_value_free(geno_value *v) {
  /* a value inside another, or lent by the library, belongs to its owner:
   * freeing it here would free it twice */
  if (v && !v->owned) rt_hv_free(v);
}

void rt_hv_lend(geno_value *v) {
  if (!v) return;
  v->owned = true;
  for (size_t i = 0; i < v->count; i++) {
    if (v->items) rt_hv_lend(v->items[i]);
    if (v->keys) rt_hv_lend(v->keys[i]);
  }
}

geno_value_kind geno_value_type(const geno_value *v) { return v ? v->kind : GENO_UNIT; }
bool geno_value_bool(const geno_value *v) { return v && v->kind == GENO_BOOL && v->b; }

bool geno_value_int(const geno_value *v, int64_t *out) {
  if (!v || !out || v->kind != GENO_INT) return false;
  errno = 0;
  char *end;
  long long x = strtoll(v->text, &end, 10);
  if (errno || *end) return false;
  *out = x;
  return true;
}

const char *geno_value_int_text(const geno_value *v) {
  return v && v->kind == GENO_INT ? v->text : NULL;
}

double geno_value_float(const geno_value *v) { return v && v->kind == GENO_FLOAT ? v->f : 0.0; }

const char *geno_value_string(const geno_value *v, size_t *len) {
  if (!v || v->kind != GENO_STRING) {
    if (len) *len = 0;
    return NULL;
  }
  if (len) *len = v->len;
  return v->text;
}

size_t geno_value_count(const geno_value *v) { return v ? v->count : 0; }

const geno_value *geno_value_item(const geno_value *v, size_t i) {
  return v && v->items && i < v->count ? v->items[i] : NULL;
}

const geno_value *geno_value_key(const geno_value *v, size_t i) {
  return v && v->keys && i < v->count ? v->keys[i] : NULL;
}

const char *geno_value_name(const geno_value *v) { return v ? v->name : NULL; }

const char *geno_value_field_name(const geno_value *v, size_t i) {
  return v && v->field_names && i < v->count ? v->field_names[i] : NULL;
}

const char *geno_value_container(const geno_value *v) { return v ? v->container : NULL; }

geno_value *geno_value_new_unit(void) { return rt_hv_alloc(GENO_UNIT, 0); }

geno_value *geno_value_new_bool(bool b) {
  geno_value *v = rt_hv_alloc(GENO_BOOL, 0);
  if (v) v->b = b;
  return v;
}

geno_value *geno_value_new_int(int64_t i) {
  char tmp[32];
  snprintf(tmp, sizeof tmp, "%lld", (long long)i);
  return geno_value_new_int_text(tmp);
}

geno_value *geno_value_new_int_text(const char *digits) {
  if (!digits) return NULL;
  const char *p = digits + (*digits == '-');
  if (!*p) return NULL;
  for (const char *q = p; *q; q++)
    if (*q < '0' || *q > '9') return NULL;
  geno_value *v = rt_hv_alloc(GENO_INT, 0);
  if (!v) return NULL;
  v->text = xstrdup(digits);
  if (!v->text) {
    free(v);
    return NULL;
  }
  return v;
}

geno_value *geno_value_new_float(double f) {
  geno_value *v = rt_hv_alloc(GENO_FLOAT, 0);
  if (v) v->f = f;
  return v;
}

geno_value *geno_value_new_string(const char *s, size_t len) {
  if (!s && len) return NULL;
  /* NUL is a character like any other (from_char_code(0), a file or a
   * process output holding one); the length says where the text ends */
  if (!utf8_valid(s ? s : "", len, NULL)) return NULL;
  geno_value *v = rt_hv_alloc(GENO_STRING, 0);
  if (!v) return NULL;
  v->text = malloc(len + 1);
  if (!v->text) {
    free(v);
    return NULL;
  }
  if (len) memcpy(v->text, s, len);
  v->text[len] = '\0';
  v->len = len;
  return v;
}

/* The items are taken (freed on failure), except one that already has an
 * owner: a value inside another, lent by the library, or given twice in
 * this call. That one is refused (the call fails) and left to its owner,
 * so a repeated or borrowed item is an error, never a double free. */
static geno_value *new_seq(geno_value_kind kind, geno_value **items, size_t count) {
  geno_value *v = rt_hv_alloc(kind, count);
  bool ok = v != NULL;
  for (size_t i = 0; i < count; i++) {
    geno_value *x = items ? items[i] : NULL;
    if (!x || x->owned) {
      ok = false;
      continue;
    }
    x->owned = true;
    if (v) v->items[i] = x;
    else rt_hv_free(x);
  }
  /* a value no deeper than GENO_VALUE_MAX_DEPTH: every recursive walk of
   * it (free, copy, conversion) stays bounded */
  if (!ok || !rt_hv_set_depth(v)) {
    rt_hv_free(v);
    return NULL;
  }
  if (kind == GENO_LIST) v->container = "List";
  return v;
}

geno_value *geno_value_new_list(geno_value **items, size_t count) { return new_seq(GENO_LIST, items, count); }
geno_value *geno_value_new_tuple(geno_value **items, size_t count) { return new_seq(GENO_TUPLE, items, count); }

geno_value *geno_value_new_ctor(const char *name, const char *const *field_names, geno_value **fields,
                                size_t count) {
  geno_value *v = new_seq(GENO_CTOR, fields, count);
  if (!v) return NULL;
  bool ok = name && *name >= 'A' && *name <= 'Z';
  v->name = name ? xstrdup(name) : NULL;
  if (count) {
    v->field_names = calloc(count, sizeof(char *));
    if (!v->field_names || !field_names) ok = false;
    for (size_t i = 0; ok && i < count; i++) {
      if (!field_names[i]) ok = false;
      else if (!(v->field_names[i] = xstrdup(field_names[i]))) ok = false;
    }
  }
  if (!ok || !v->name) {
    geno_value_free(v);
    return NULL;
  }
  return v;
}

static geno_value *wrap1(const char *ctor, const char *field, geno_value *x) {
  const char *names[1] = {field};
  geno_value *items[1] = {x};
  return geno_value_new_ctor(ctor, names, items, 1);
}

geno_value *geno_value_new_some(geno_value *v) { return wrap1("Some", "value", v); }
geno_value *geno_value_new_none(void) { return geno_value_new_ctor("None", NULL, NULL, 0); }
geno_value *geno_value_new_ok(geno_value *v) { return wrap1("Ok", "value", v); }
geno_value *geno_value_new_err(geno_value *v) { return wrap1("Err", "error", v); }

geno_value *geno_value_copy(const geno_value *v) {
  if (!v) return NULL;
  geno_value *c = rt_hv_alloc(v->kind, v->count);
  if (!c) return NULL;
  c->container = v->container;
  c->b = v->b;
  c->f = v->f;
  c->i = v->i;
  c->len = v->len;
  bool ok = true;
  if (v->text) {
    c->text = malloc(v->len + strlen(v->text) + 1);
    if (c->text) memcpy(c->text, v->text, (v->kind == GENO_STRING ? v->len : strlen(v->text)) + 1);
    else ok = false;
  }
  if (v->name && !(c->name = xstrdup(v->name))) ok = false;
  if (v->link) {
    rt_link_retain(v->link);
    c->link = v->link;
    c->handle = v->handle;
  }
  if (v->keys && !(c->keys = calloc(v->count ? v->count : 1, sizeof *c->keys))) ok = false;
  if (v->field_names && !(c->field_names = calloc(v->count ? v->count : 1, sizeof(char *)))) ok = false;
  for (size_t i = 0; ok && i < v->count; i++) {
    if (v->items && !(c->items[i] = geno_value_copy(v->items[i]))) ok = false;
    if (ok && v->keys && !(c->keys[i] = geno_value_copy(v->keys[i]))) ok = false;
    if (ok && v->field_names && !(c->field_names[i] = xstrdup(v->field_names[i]))) ok = false;
  }
  if (!ok) {
    geno_value_free(c);
    return NULL;
  }
  c->depth = v->depth;
  return c;
}

/* ---- text and JSON of host values (the same forms as the VM's) ---------- */

#include "../vm/render.h"

/* Values nested deeper than this are cut off as "..." (host values are
 * built by the library from bounded VM values, or by hosts). */
#define HV_MAX_DEPTH 10000

static void buf_sink(void *ud, const char *s, size_t n) { buf_append(ud, s, n); }

/* The canonical text of v (the VM's RENDER_RAW at the top, RENDER_QUOTED
 * inside), or with `repr` Python's repr as RENDER_REPR writes it (True,
 * 'quoted'): the str() a RunResult map key gets. */
static void hv_text(Buf *b, const geno_value *v, bool top, bool repr, int depth) {
  if (!v) {
    buf_puts(b, "()");
    return;
  }
  if (depth > HV_MAX_DEPTH) {
    buf_puts(b, "...");
    return;
  }
  char tmp[64];
  switch (v->kind) {
    case GENO_UNIT: buf_puts(b, "()"); return;
    case GENO_BOOL: buf_puts(b, v->b ? (repr ? "True" : "true") : (repr ? "False" : "false")); return;
    case GENO_INT: buf_puts(b, v->text ? v->text : "0"); return;
    case GENO_FLOAT:
      fmt_float(v->f, tmp, sizeof tmp);
      buf_puts(b, tmp);
      return;
    case GENO_STRING:
      if (top && !repr) buf_append(b, v->text ? v->text : "", v->len);
      else if (repr) fmt_quote_python(v->text ? v->text : "", v->len, buf_sink, b);
      else buf_json_string(b, v->text ? v->text : "", v->len); /* canonical quoting = JSON's */
      return;
    case GENO_LIST:
    case GENO_TUPLE:
    case GENO_SET: {
      const char *c = v->container;
      bool arr = c && (strcmp(c, "Array") == 0 || strcmp(c, "Vec") == 0);
      if (arr) buf_printf(b, "%s(", c);
      buf_puts(b, v->kind == GENO_TUPLE ? "(" : v->kind == GENO_SET ? "Set({" : "[");
      for (size_t i = 0; i < v->count; i++) {
        if (i) buf_puts(b, ", ");
        hv_text(b, v->items[i], false, repr, depth + 1);
      }
      if (v->kind == GENO_TUPLE && v->count == 1) buf_putc(b, ',');
      buf_puts(b, v->kind == GENO_TUPLE ? ")" : v->kind == GENO_SET ? "})" : "]");
      if (arr) buf_putc(b, ')');
      return;
    }
    case GENO_MAP: {
      bool mm = v->container && strcmp(v->container, "MutableMap") == 0;
      buf_puts(b, mm ? "MutableMap({" : "{");
      for (size_t i = 0; i < v->count; i++) {
        if (i) buf_puts(b, ", ");
        hv_text(b, v->keys ? v->keys[i] : NULL, false, repr, depth + 1);
        buf_puts(b, ": ");
        hv_text(b, v->items[i], false, repr, depth + 1);
      }
      buf_puts(b, mm ? "})" : "}");
      return;
    }
    case GENO_CTOR:
      buf_puts(b, v->name ? v->name : "?");
      if (!v->count) return;
      buf_putc(b, '(');
      for (size_t i = 0; i < v->count; i++) {
        if (i) buf_puts(b, ", ");
        buf_printf(b, "%s: ", v->field_names && v->field_names[i] ? v->field_names[i] : "?");
        hv_text(b, v->items[i], false, repr, depth + 1);
      }
      buf_putc(b, ')');
      return;
    case GENO_FUNCTION: buf_printf(b, "<function %s>", v->name ? v->name : "anonymous"); return;
    default: buf_puts(b, v->name ? v->name : "<value>"); return;
  }
}

char *geno_value_to_string(const geno_value *v) {
  if (!v) return NULL;
  Buf b = BUF_INIT;
  hv_text(&b, v, true, false, 0);
  if (b.failed) {
    buf_free(&b);
    return NULL;
  }
  return buf_take(&b);
}

static void hv_json(Buf *b, const geno_value *v, int depth);

/* qsort order of C strings: Set elements by their JSON text, as the VM's
 * encoder sorts them. */
static int cmp_text(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* {"_set": [...]} with the elements ordered by their JSON text. */
static void hv_json_set(Buf *b, const geno_value *v, int depth) {
  char **texts = calloc(v->count ? v->count : 1, sizeof *texts);
  if (!texts) {
    b->failed = true;
    return;
  }
  size_t k = 0;
  for (; k < v->count; k++) {
    Buf one = BUF_INIT;
    hv_json(&one, v->items[k], depth + 1);
    if (one.failed) {
      buf_free(&one);
      b->failed = true;
      break;
    }
    texts[k] = buf_take(&one);
  }
  if (!b->failed) {
    qsort(texts, k, sizeof *texts, cmp_text);
    buf_puts(b, "{\"_set\": [");
    for (size_t i = 0; i < k; i++) {
      if (i) buf_puts(b, ", ");
      buf_puts(b, texts[i]);
    }
    buf_puts(b, "]}");
  }
  for (size_t i = 0; i < k; i++) free(texts[i]);
  free(texts);
}

static void hv_json(Buf *b, const geno_value *v, int depth) {
  if (!v || depth > HV_MAX_DEPTH) {
    buf_puts(b, "null");
    return;
  }
  char tmp[64];
  switch (v->kind) {
    case GENO_UNIT: buf_puts(b, "null"); return;
    case GENO_BOOL: buf_puts(b, v->b ? "true" : "false"); return;
    case GENO_INT: buf_puts(b, v->text ? v->text : "0"); return;
    case GENO_FLOAT:
      if (v->f != v->f) buf_puts(b, "\"NaN\"");
      else if (v->f > 1.7976931348623157e308) buf_puts(b, "\"Infinity\"");
      else if (v->f < -1.7976931348623157e308) buf_puts(b, "\"-Infinity\"");
      else {
        fmt_float(v->f, tmp, sizeof tmp);
        buf_puts(b, tmp);
      }
      return;
    case GENO_STRING: buf_json_string(b, v->text ? v->text : "", v->len); return;
    case GENO_SET: hv_json_set(b, v, depth); return;
    case GENO_LIST:
    case GENO_TUPLE: {
      const char *wrap = v->kind == GENO_TUPLE ? "_tuple" : NULL;
      if (v->container && strcmp(v->container, "Array") == 0) wrap = "_array";
      if (v->container && strcmp(v->container, "Vec") == 0) wrap = "_vec";
      if (wrap) buf_printf(b, "{\"%s\": ", wrap);
      buf_putc(b, '[');
      for (size_t i = 0; i < v->count; i++) {
        if (i) buf_puts(b, ", ");
        hv_json(b, v->items[i], depth + 1);
      }
      buf_putc(b, ']');
      if (wrap) buf_putc(b, '}');
      return;
    }
    case GENO_MAP: {
      bool mm = v->container && strcmp(v->container, "MutableMap") == 0;
      if (mm) buf_puts(b, "{\"_mutable_map\": ");
      buf_putc(b, '{');
      for (size_t i = 0; i < v->count; i++) {
        if (i) buf_puts(b, ", ");
        /* Python's str() of the key: a String as it is, anything else
         * as its repr (RENDER_REPR), as the VM's encoder writes keys */
        const geno_value *key = v->keys ? v->keys[i] : NULL;
        Buf k = BUF_INIT;
        hv_text(&k, key, true, !key || key->kind != GENO_STRING, depth + 1);
        buf_json_string(b, k.data ? k.data : "", k.len);
        buf_free(&k);
        buf_puts(b, ": ");
        hv_json(b, v->items[i], depth + 1);
      }
      buf_putc(b, '}');
      if (mm) buf_putc(b, '}');
      return;
    }
    case GENO_CTOR:
      buf_puts(b, "{\"_constructor\": ");
      buf_json_string(b, v->name ? v->name : "", strlen(v->name ? v->name : ""));
      buf_puts(b, ", \"fields\": {");
      for (size_t i = 0; i < v->count; i++) {
        const char *fname = v->field_names && v->field_names[i] ? v->field_names[i] : "";
        if (i) buf_puts(b, ", ");
        buf_json_string(b, fname, strlen(fname));
        buf_puts(b, ": ");
        hv_json(b, v->items[i], depth + 1);
      }
      buf_puts(b, "}}");
      return;
    case GENO_FUNCTION:
      buf_puts(b, "{\"_function\": ");
      buf_json_string(b, v->name ? v->name : "anonymous", strlen(v->name ? v->name : "anonymous"));
      buf_putc(b, '}');
      return;
    default: buf_json_string(b, v->name ? v->name : "", strlen(v->name ? v->name : "")); return;
  }
}

char *geno_value_to_json(const geno_value *v) {
  if (!v) return NULL;
  Buf b = BUF_INIT;
  hv_json(&b, v, 0);
  if (b.failed) {
    buf_free(&b);
    return NULL;
  }
  return buf_take(&b);
}
