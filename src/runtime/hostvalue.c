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

/* ---- text and JSON of host values (the VM's renderer, valuetext.h) ------- */

#include "../vm/valuetext.h"

/* Nesting the renderer allows (geno_values are built no deeper than
 * GENO_VALUE_MAX_DEPTH, so this is a backstop). */
#define HV_MAX_DEPTH 10000

static RvKind hv_kind(const void *node) {
  const geno_value *v = node;
  if (!v) return RVK_UNIT;
  const char *c = v->container;
  switch (v->kind) {
    case GENO_UNIT: return RVK_UNIT;
    case GENO_BOOL: return RVK_BOOL;
    case GENO_INT: return RVK_INT;
    case GENO_FLOAT: return RVK_FLOAT;
    case GENO_STRING: return RVK_STRING;
    case GENO_LIST: return c && strcmp(c, "Array") == 0 ? RVK_ARRAY : c && strcmp(c, "Vec") == 0 ? RVK_VEC : RVK_LIST;
    case GENO_TUPLE: return RVK_TUPLE;
    case GENO_MAP: return c && strcmp(c, "MutableMap") == 0 ? RVK_MMAP : RVK_MAP;
    case GENO_SET: return RVK_SET;
    case GENO_CTOR: return RVK_CTOR;
    case GENO_FUNCTION: return RVK_FUNC;
    default: return RVK_OTHER;
  }
}

static bool hv_bool(const void *node) { return ((const geno_value *)node)->b; }
static double hv_number(const void *node) { return ((const geno_value *)node)->f; }

static const char *hv_string(const void *node, size_t *len) {
  const geno_value *v = node;
  *len = v->text ? v->len : 0;
  return v->text ? v->text : "";
}

static const char *hv_name(const void *node) {
  const geno_value *v = node;
  if (v->name) return v->name;
  return v->kind == GENO_FUNCTION ? "anonymous" : v->kind == GENO_OTHER ? "<value>" : "?";
}

static const char *hv_field_name(const void *node, size_t i) {
  const geno_value *v = node;
  return v->field_names && v->field_names[i] ? v->field_names[i] : "?";
}

static bool hv_int_text(void *ctx, const void *node, Buf *out) {
  (void)ctx;
  const geno_value *v = node;
  buf_puts(out, v->text ? v->text : "0");
  return true;
}

/* Items in order (a Set's as the library built it: sorted); a map's
 * keys beside its values. */
static bool hv_next(void *ctx, const void *node, RvCursor *cur, const void **key, const void **val, bool *failed) {
  (void)ctx;
  (void)failed;
  const geno_value *v = node;
  if (!v->items || cur->pos >= v->count) return false;
  *key = v->keys ? v->keys[cur->pos] : NULL;
  *val = v->items[cur->pos++];
  return true;
}

static bool hv_too_deep(void *ctx, int depth, const char *what) {
  (void)ctx;
  (void)depth;
  (void)what;
  return false;
}

static const ValueTextOps host_value_ops = {
    hv_kind, hv_bool, hv_number, hv_string, hv_name, hv_field_name, hv_int_text, hv_next, NULL, NULL, NULL,
    NULL,    NULL,    hv_too_deep, NULL,    HV_MAX_DEPTH,
};

char *geno_value_to_string(const geno_value *v) {
  if (!v) return NULL;
  Buf b = BUF_INIT;
  RvTextEnd end;
  rv_text(&host_value_ops, NULL, v, RENDER_RAW, &b, SIZE_MAX / 8, &end);
  if (b.failed || end.failed) {
    buf_free(&b);
    return NULL;
  }
  return buf_take(&b);
}

char *geno_value_to_json(const geno_value *v) {
  if (!v) return NULL;
  Buf b = BUF_INIT;
  if (!rv_json(&host_value_ops, NULL, v, &b) || b.failed) {
    buf_free(&b);
    return NULL;
  }
  return buf_take(&b);
}
