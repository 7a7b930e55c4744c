/* Sandbox wire format: frame building, bounded decoding of values and
 * results, JSON syntax validation (see wire.h). */
#include "wire.h"

#include <errno.h>
#include <unistd.h>

#include "../base/utf8.h"
#include "../runtime/hostvalue.h"
#include "../runtime/result.h"

/* ------------------------------------------------------------------------ */
/* Building                                                                 */
/* ------------------------------------------------------------------------ */

static void put_le(Buf *b, uint64_t v, int bytes) {
  char tmp[8];
  for (int i = 0; i < bytes; i++) tmp[i] = (char)(v >> (8 * i));
  buf_append(b, tmp, (size_t)bytes);
}

void sbx_put_u8(Buf *b, uint8_t v) { put_le(b, v, 1); }
void sbx_put_u32(Buf *b, uint32_t v) { put_le(b, v, 4); }
void sbx_put_i32(Buf *b, int32_t v) { put_le(b, (uint32_t)v, 4); }
void sbx_put_u64(Buf *b, uint64_t v) { put_le(b, v, 8); }

void sbx_put_f64(Buf *b, double v) {
  uint64_t bits;
  memcpy(&bits, &v, sizeof bits);
  put_le(b, bits, 8);
}

void sbx_put_bytes(Buf *b, const char *s, size_t n) {
  if (n > UINT32_MAX) {
    b->failed = true;
    return;
  }
  sbx_put_u32(b, (uint32_t)n);
  if (n) buf_append(b, s, n);
}

void sbx_put_opt_str(Buf *b, const char *s) {
  sbx_put_u8(b, s != NULL);
  if (s) sbx_put_bytes(b, s, strlen(s));
}

void sbx_frame_begin(Buf *b, SbxMsgType type) {
  buf_clear(b);
  b->failed = false;
  sbx_put_u32(b, (uint32_t)type);
  sbx_put_u32(b, 0);
}

bool sbx_frame_end(Buf *b) {
  if (b->failed || b->len < SBX_FRAME_HEADER) return false;
  size_t body = b->len - SBX_FRAME_HEADER;
  if (body > SBX_MAX_FRAME) return false;
  for (int i = 0; i < 4; i++) b->data[4 + i] = (char)(body >> (8 * i));
  return true;
}

/* Container names travel as small codes and map back to the static
 * strings geno_value uses, so no pointer or free text crosses. */
static const char *const container_names[] = {"List", "Array", "Vec", "Map", "MutableMap"};

static uint8_t container_code(const char *name) {
  for (uint8_t i = 0; i < ARRAY_LEN(container_names); i++)
    if (name && strcmp(name, container_names[i]) == 0) return (uint8_t)(i + 1);
  return 0; /* none */
}

static bool put_value(Buf *b, const geno_value *v, int depth) {
  if (depth > SBX_MAX_VALUE_DEPTH) return false;
  if (!v) { /* a hole in a container never happens; encode Unit defensively */
    sbx_put_u8(b, GENO_UNIT);
    return true;
  }
  sbx_put_u8(b, (uint8_t)v->kind);
  switch (v->kind) {
  case GENO_UNIT: return true;
  case GENO_BOOL: sbx_put_u8(b, v->b); return true;
  case GENO_INT: sbx_put_bytes(b, v->text ? v->text : "0", v->text ? strlen(v->text) : 1); return true;
  case GENO_FLOAT: sbx_put_f64(b, v->f); return true;
  case GENO_STRING: sbx_put_bytes(b, v->text ? v->text : "", v->text ? v->len : 0); return true;
  case GENO_FUNCTION:
    /* the name, then whether the function can be called back and its
     * handle (a function lent to a callback, see hostcall.c) */
    sbx_put_opt_str(b, v->name);
    sbx_put_u8(b, v->link != NULL);
    if (v->link) sbx_put_u32(b, v->handle);
    return true;
  case GENO_OTHER: sbx_put_opt_str(b, v->name); return true;
  case GENO_LIST:
  case GENO_MAP:
    sbx_put_u8(b, container_code(v->container));
    break;
  case GENO_CTOR:
    sbx_put_opt_str(b, v->name);
    break;
  case GENO_TUPLE:
  case GENO_SET:
    break;
  }
  if (v->count > UINT32_MAX) return false;
  sbx_put_u32(b, (uint32_t)v->count);
  for (size_t i = 0; i < v->count; i++) {
    if (v->kind == GENO_MAP && !put_value(b, v->keys ? v->keys[i] : NULL, depth + 1)) return false;
    if (v->kind == GENO_CTOR)
      sbx_put_opt_str(b, v->field_names ? v->field_names[i] : NULL);
    if (!put_value(b, v->items ? v->items[i] : NULL, depth + 1)) return false;
  }
  return true;
}

bool sbx_put_value(Buf *b, const geno_value *v) { return put_value(b, v, 1); }

void sbx_put_result(Buf *b, const geno_result *r) {
  sbx_put_u8(b, r->ok);
  sbx_put_u64(b, r->steps);
  sbx_put_f64(b, r->timing.total_ms);
  sbx_put_f64(b, r->timing.lex_ms);
  sbx_put_f64(b, r->timing.parse_ms);
  sbx_put_f64(b, r->timing.typecheck_ms);
  sbx_put_f64(b, r->timing.run_ms);
  const char *json = r->value_json ? r->value_json : "null";
  sbx_put_bytes(b, json, strlen(json));
  sbx_put_opt_str(b, r->value_text);
  /* The value goes last but one and may be dropped: remember where it
   * starts so a too-deep value can be cut back to "absent". */
  size_t mark = b->len;
  sbx_put_u8(b, r->value != NULL);
  if (r->value && !sbx_put_value(b, r->value)) {
    if (!b->failed) {
      b->len = mark;
      sbx_put_u8(b, 0);
    }
  }
  sbx_put_bytes(b, r->output ? r->output : "", r->output ? r->output_len : 0);
  sbx_put_u32(b, (uint32_t)(r->ndiags < SBX_MAX_DIAGNOSTICS ? r->ndiags : SBX_MAX_DIAGNOSTICS));
  for (size_t i = 0; i < r->ndiags && i < SBX_MAX_DIAGNOSTICS; i++) {
    const geno_diagnostic *d = &r->diags[i];
    sbx_put_u32(b, (uint32_t)d->code_number);
    sbx_put_u8(b, d->severity && strcmp(d->severity, "warning") == 0);
    sbx_put_bytes(b, d->message ? d->message : "", d->message ? strlen(d->message) : 0);
    sbx_put_opt_str(b, d->filename);
    sbx_put_i32(b, d->line);
    sbx_put_i32(b, d->column);
    sbx_put_i32(b, d->end_line);
    sbx_put_i32(b, d->end_column);
  }
  size_t ntrace = r->ntrace < SBX_MAX_TRACE ? r->ntrace : SBX_MAX_TRACE;
  sbx_put_u32(b, (uint32_t)ntrace);
  for (size_t i = 0; i < ntrace; i++) {
    const char *name = r->trace[i].name ? r->trace[i].name : "";
    sbx_put_bytes(b, name, strlen(name));
    sbx_put_opt_str(b, r->trace[i].file);
    sbx_put_i32(b, r->trace[i].line);
    sbx_put_i32(b, r->trace[i].col);
  }
}

/* ------------------------------------------------------------------------ */
/* Reading                                                                  */
/* ------------------------------------------------------------------------ */

size_t sbx_node_budget(uint64_t memory_bytes, size_t body_len) {
  if (!memory_bytes) return body_len + 1;
  uint64_t n = memory_bytes / sizeof(geno_value) + 1;
  return n > SIZE_MAX ? SIZE_MAX : (size_t)n;
}

void sbx_reader_init(SbxReader *r, const void *body, size_t n, size_t node_budget) {
  r->p = body;
  r->n = n;
  r->off = 0;
  r->bad = false;
  r->budget = node_budget;
  r->link = NULL;
}

static bool need(SbxReader *r, size_t k) {
  if (r->bad || r->n - r->off < k) {
    r->bad = true;
    return false;
  }
  return true;
}

static uint64_t get_le(SbxReader *r, int bytes) {
  if (!need(r, (size_t)bytes)) return 0;
  uint64_t v = 0;
  for (int i = 0; i < bytes; i++) v |= (uint64_t)r->p[r->off + (size_t)i] << (8 * i);
  r->off += (size_t)bytes;
  return v;
}

uint8_t sbx_get_u8(SbxReader *r) { return (uint8_t)get_le(r, 1); }
uint32_t sbx_get_u32(SbxReader *r) { return (uint32_t)get_le(r, 4); }
int32_t sbx_get_i32(SbxReader *r) { return (int32_t)(uint32_t)get_le(r, 4); }
uint64_t sbx_get_u64(SbxReader *r) { return get_le(r, 8); }

double sbx_get_f64(SbxReader *r) {
  uint64_t bits = get_le(r, 8);
  double d;
  memcpy(&d, &bits, sizeof d);
  return d;
}

const char *sbx_get_bytes(SbxReader *r, size_t *len) {
  size_t n = sbx_get_u32(r);
  *len = 0;
  if (!need(r, n)) return NULL;
  const char *s = (const char *)r->p + r->off;
  r->off += n;
  *len = n;
  return s;
}

/* Text from the child must be UTF-8. A NUL is a legal character of Geno
 * text (from_char_code(0) printed, thrown or returned), so it is accepted:
 * output keeps its length, and C-string consumers (messages, names) just
 * see the text end there. Refusing it made such programs look like a
 * sandbox violation (E500). */
static bool text_ok(const char *s, size_t n) { return utf8_valid(s, n, NULL); }

char *sbx_get_text(SbxReader *r, size_t max) {
  size_t n;
  const char *s = sbx_get_bytes(r, &n);
  if (!s || n > max || !text_ok(s, n)) {
    r->bad = true;
    return NULL;
  }
  char *p = malloc(n + 1);
  if (!p) return NULL; /* out of memory: not the child's fault, r->bad stays clear */
  memcpy(p, s, n);
  p[n] = '\0';
  return p;
}

static char *get_opt_text(SbxReader *r, size_t max, bool *present) {
  *present = sbx_get_u8(r) != 0;
  return *present ? sbx_get_text(r, max) : NULL;
}

/* Identifiers as Geno writes them: ASCII, a letter or '_' first. */
static bool ident_ok(const char *s, bool upper_first) {
  if (!s || !*s) return false;
  if (upper_first ? !(*s >= 'A' && *s <= 'Z') : !((*s >= 'a' && *s <= 'z') || *s == '_')) return false;
  for (const char *p = s; *p; p++)
    if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '_'))
      return false;
  return true;
}

static bool int_text_ok(const char *s, size_t n) {
  size_t i = n && s[0] == '-';
  if (i == n) return false;
  for (; i < n; i++)
    if (s[i] < '0' || s[i] > '9') return false;
  return true;
}

static geno_value *get_value(SbxReader *r, int depth) {
  if (depth > SBX_MAX_VALUE_DEPTH || r->budget == 0) {
    r->bad = true;
    return NULL;
  }
  r->budget--;
  uint8_t kind = sbx_get_u8(r);
  if (r->bad || kind > GENO_OTHER) {
    r->bad = true;
    return NULL;
  }
  geno_value *v = NULL;
  size_t n;
  const char *s;
  bool present;
  switch ((geno_value_kind)kind) {
  case GENO_UNIT: return rt_hv_alloc(GENO_UNIT, 0);
  case GENO_BOOL: {
    uint8_t b = sbx_get_u8(r);
    if (b > 1) r->bad = true;
    if (r->bad) return NULL;
    return geno_value_new_bool(b);
  }
  case GENO_FLOAT: {
    double d = sbx_get_f64(r);
    return r->bad ? NULL : geno_value_new_float(d);
  }
  case GENO_INT:
  case GENO_STRING:
    s = sbx_get_bytes(r, &n);
    /* a Geno String may hold NUL (from_char_code(0)); an Int's digits may not */
    if (!s || !(kind == GENO_STRING ? utf8_valid(s, n, NULL) : text_ok(s, n) && int_text_ok(s, n))) {
      r->bad = true;
      return NULL;
    }
    v = rt_hv_alloc((geno_value_kind)kind, 0);
    if (!v || !(v->text = malloc(n + 1))) {
      free(v);
      return NULL;
    }
    memcpy(v->text, s, n);
    v->text[n] = '\0';
    if (kind == GENO_STRING) v->len = n;
    else geno_value_int(v, &v->i); /* cache the int64 when it fits */
    return v;
  case GENO_FUNCTION:
  case GENO_OTHER: {
    char *name = get_opt_text(r, SBX_MAX_NAME_BYTES, &present);
    if (r->bad || (present && !name) || (kind == GENO_FUNCTION && !present)) {
      free(name);
      r->bad = r->bad || (kind == GENO_FUNCTION && !present);
      return NULL;
    }
    bool callable = false;
    uint32_t handle = 0;
    if (kind == GENO_FUNCTION) {
      uint8_t flag = sbx_get_u8(r);
      if (flag > 1) r->bad = true;
      callable = flag == 1;
      if (callable) handle = sbx_get_u32(r);
      if (r->bad) {
        free(name);
        return NULL;
      }
    }
    v = rt_hv_alloc((geno_value_kind)kind, 0);
    if (!v) {
      free(name);
      return NULL;
    }
    v->name = name;
    /* A callable function gets the reader's link (the parent's way to
     * the child); a reader without one (results) drops the handle. */
    if (callable && r->link) {
      rt_link_retain(r->link);
      v->link = r->link;
      v->handle = handle;
    }
    return v;
  }
  case GENO_LIST:
  case GENO_MAP:
  case GENO_CTOR:
  case GENO_TUPLE:
  case GENO_SET:
    break;
  }
  /* Containers. */
  const char *container = NULL;
  char *name = NULL;
  if (kind == GENO_LIST || kind == GENO_MAP) {
    uint8_t code = sbx_get_u8(r);
    bool ok = kind == GENO_LIST ? (code >= 1 && code <= 3) : (code == 4 || code == 5);
    if (r->bad || !ok) {
      r->bad = true;
      return NULL;
    }
    container = container_names[code - 1];
  } else if (kind == GENO_CTOR) {
    name = get_opt_text(r, SBX_MAX_NAME_BYTES, &present);
    if (r->bad || !name || !ident_ok(name, true)) {
      r->bad = r->bad || (name && !ident_ok(name, true)) || !present;
      free(name);
      return NULL;
    }
  }
  size_t count = sbx_get_u32(r);
  /* Every element takes at least one byte, so a count beyond what is left
   * is a lie; checking it first keeps the allocation below honest. */
  if (r->bad || count > r->n - r->off || count > r->budget) {
    r->bad = true;
    free(name);
    return NULL;
  }
  v = rt_hv_alloc((geno_value_kind)kind, count);
  if (!v) {
    free(name);
    return NULL;
  }
  v->container = container;
  v->name = name;
  if (count && kind == GENO_MAP && !(v->keys = calloc(count, sizeof *v->keys))) goto fail;
  if (count && kind == GENO_CTOR && !(v->field_names = calloc(count, sizeof(char *)))) goto fail;
  for (size_t i = 0; i < count; i++) {
    if (kind == GENO_MAP && !(v->keys[i] = get_value(r, depth + 1))) goto fail;
    if (kind == GENO_CTOR) {
      char *field = get_opt_text(r, SBX_MAX_NAME_BYTES, &present);
      if (!field || !ident_ok(field, false)) {
        if (field || !present) r->bad = true;
        free(field);
        goto fail;
      }
      v->field_names[i] = field;
    }
    if (!(v->items[i] = get_value(r, depth + 1))) goto fail;
  }
  return v;
fail:
  geno_value_free(v);
  return NULL;
}

geno_value *sbx_get_value(SbxReader *r) { return get_value(r, 1); }

geno_result *sbx_get_result(SbxReader *r, size_t output_cap) {
  geno_result *res = rt_result_new();
  if (!res) return NULL;
  bool ok = sbx_get_u8(r) == 1;
  res->steps = sbx_get_u64(r);
  res->timing.total_ms = sbx_get_f64(r);
  res->timing.lex_ms = sbx_get_f64(r);
  res->timing.parse_ms = sbx_get_f64(r);
  res->timing.typecheck_ms = sbx_get_f64(r);
  res->timing.run_ms = sbx_get_f64(r);
  size_t n;
  const char *s = sbx_get_bytes(r, &n);
  /* value_json is spliced verbatim into geno_result_to_json: it must be
   * one JSON value and nothing else, or a child could forge fields of the
   * host's RunResult (the C form of the reference's title-injection fix). */
  if (!s || !text_ok(s, n) || !sbx_json_valid(s, n)) goto bad;
  char *json = malloc(n + 1);
  if (!json) goto fail;
  memcpy(json, s, n);
  json[n] = '\0';
  rt_result_set_value_json(res, json);
  bool present;
  res->value_text = get_opt_text(r, SBX_MAX_FRAME, &present);
  if (r->bad) goto bad;
  if (present && !res->value_text) goto fail;
  if (sbx_get_u8(r)) {
    res->value = sbx_get_value(r);
    rt_hv_lend(res->value); /* owned by the result */
    if (!res->value) goto fail;
  }
  s = sbx_get_bytes(r, &n);
  if (!s || n > output_cap || !text_ok(s, n)) goto bad;
  rt_result_set_output(res, s, n);
  if (res->output_len != n) goto fail;
  uint32_t ndiags = sbx_get_u32(r);
  if (r->bad || ndiags > SBX_MAX_DIAGNOSTICS) goto bad;
  bool any_error = false;
  for (uint32_t i = 0; i < ndiags; i++) {
    uint32_t code = sbx_get_u32(r);
    uint8_t warning = sbx_get_u8(r);
    char *msg = sbx_get_text(r, SBX_MAX_FRAME);
    char *file = get_opt_text(r, SBX_MAX_NAME_BYTES * 4, &present);
    Span span;
    span.file = file;
    span.line = sbx_get_i32(r);
    span.col = sbx_get_i32(r);
    span.end_line = sbx_get_i32(r);
    span.end_col = sbx_get_i32(r);
    bool valid = !r->bad && code >= 100 && code <= 999 && warning <= 1 && span.line >= 0 && span.col >= 0 &&
                 span.end_line >= 0 && span.end_col >= 0;
    bool stored = false;
    if (valid && msg && (!present || file)) {
      size_t before = res->ndiags;
      rt_result_add(res, (int)code, file ? &span : NULL, msg);
      stored = res->ndiags > before;
      if (stored && warning) res->diags[before].severity = "warning";
      else if (stored) any_error = true;
    }
    free(msg);
    free(file);
    if (!valid) goto bad;
    if (!stored) goto fail; /* out of memory */
  }
  uint32_t ntrace = sbx_get_u32(r);
  if (r->bad || ntrace > SBX_MAX_TRACE) goto bad;
  for (uint32_t i = 0; i < ntrace; i++) {
    char *name = sbx_get_text(r, SBX_MAX_NAME_BYTES);
    char *file = get_opt_text(r, SBX_MAX_NAME_BYTES * 4, &present);
    int32_t line = sbx_get_i32(r), col = sbx_get_i32(r);
    bool valid = !r->bad && line >= 0 && col >= 0;
    size_t before = res->ntrace;
    if (valid && name && (!present || file)) rt_result_add_trace(res, name, file, line, col);
    bool stored = res->ntrace > before;
    free(name);
    free(file);
    if (!valid) goto bad;
    if (!stored) goto fail; /* out of memory */
  }
  if (r->off != r->n) goto bad; /* trailing bytes: not a result we wrote */
  res->ok = ok && !any_error;
  return res;
bad:
  r->bad = true;
fail: /* r->bad tells the caller whether the child or memory was at fault */
  geno_result_free(res);
  return NULL;
}

/* ------------------------------------------------------------------------ */
/* JSON syntax                                                              */
/* ------------------------------------------------------------------------ */

static size_t skip_ws(const char *s, size_t n, size_t i) {
  while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r')) i++;
  return i;
}

static bool is_digit(char c) { return c >= '0' && c <= '9'; }
static bool is_hex(char c) { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

/* Scan one string starting at s[i] == '"'; returns the index after it or 0. */
static size_t scan_string(const char *s, size_t n, size_t i) {
  for (i++; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c == '"') return i + 1;
    if (c < 0x20) return 0;
    if (c == '\\') {
      if (++i >= n) return 0;
      switch (s[i]) {
      case '"': case '\\': case '/': case 'b': case 'f': case 'n': case 'r': case 't': break;
      case 'u':
        if (n - i < 5 || !is_hex(s[i + 1]) || !is_hex(s[i + 2]) || !is_hex(s[i + 3]) || !is_hex(s[i + 4]))
          return 0;
        i += 4;
        break;
      default: return 0;
      }
    }
  }
  return 0;
}

static size_t scan_number(const char *s, size_t n, size_t i) {
  if (i < n && s[i] == '-') i++;
  if (i >= n) return 0;
  if (s[i] == '0') i++;
  else if (is_digit(s[i])) while (i < n && is_digit(s[i])) i++;
  else return 0;
  if (i < n && s[i] == '.') {
    if (++i >= n || !is_digit(s[i])) return 0;
    while (i < n && is_digit(s[i])) i++;
  }
  if (i < n && (s[i] == 'e' || s[i] == 'E')) {
    i++;
    if (i < n && (s[i] == '+' || s[i] == '-')) i++;
    if (i >= n || !is_digit(s[i])) return 0;
    while (i < n && is_digit(s[i])) i++;
  }
  return i;
}

bool sbx_json_valid(const char *s, size_t n) {
  /* An explicit stack of open containers ('[' or '{') instead of
   * recursion: the text comes from the child and may nest arbitrarily. */
  Buf stack = BUF_INIT;
  size_t i = skip_ws(s, n, 0);
  bool ok = false;
  for (;;) {
    /* Expect a value at s[i]. */
    if (i >= n) goto done;
    char c = s[i];
    if (c == '[' || c == '{') {
      buf_putc(&stack, c);
      if (stack.failed) goto done;
      i = skip_ws(s, n, i + 1);
      if (i < n && s[i] == (c == '[' ? ']' : '}')) {
        stack.len--;
        i++;
      } else {
        if (c == '{') { /* first key */
          if (i >= n || s[i] != '"' || !(i = scan_string(s, n, i))) goto done;
          i = skip_ws(s, n, i);
          if (i >= n || s[i] != ':') goto done;
          i = skip_ws(s, n, i + 1);
        }
        continue;
      }
    } else if (c == '"') {
      if (!(i = scan_string(s, n, i))) goto done;
    } else if (c == '-' || is_digit(c)) {
      if (!(i = scan_number(s, n, i))) goto done;
    } else if (n - i >= 4 && memcmp(s + i, "true", 4) == 0) {
      i += 4;
    } else if (n - i >= 5 && memcmp(s + i, "false", 5) == 0) {
      i += 5;
    } else if (n - i >= 4 && memcmp(s + i, "null", 4) == 0) {
      i += 4;
    } else {
      goto done;
    }
    /* After a value: close containers or move to the next element. */
    for (;;) {
      i = skip_ws(s, n, i);
      if (stack.len == 0) {
        ok = i == n;
        goto done;
      }
      char open = stack.data[stack.len - 1];
      if (i >= n) goto done;
      if (s[i] == (open == '[' ? ']' : '}')) {
        stack.len--;
        i++;
        continue;
      }
      if (s[i] != ',') goto done;
      i = skip_ws(s, n, i + 1);
      if (open == '{') {
        if (i >= n || s[i] != '"' || !(i = scan_string(s, n, i))) goto done;
        i = skip_ws(s, n, i);
        if (i >= n || s[i] != ':') goto done;
        i = skip_ws(s, n, i + 1);
      }
      break;
    }
  }
done:
  buf_free(&stack);
  return ok;
}

/* ------------------------------------------------------------------------ */
/* Blocking descriptor I/O                                                  */
/* ------------------------------------------------------------------------ */

void sbx_frame_header(const void *p, uint32_t *type, uint32_t *len) {
  const unsigned char *b = p;
  *type = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
  *len = (uint32_t)b[4] | (uint32_t)b[5] << 8 | (uint32_t)b[6] << 16 | (uint32_t)b[7] << 24;
}

bool sbx_write_all(int fd, const void *data, size_t n) {
  const char *p = data;
  while (n) {
    ssize_t k = write(fd, p, n);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return false;
    p += k;
    n -= (size_t)k;
  }
  return true;
}

static bool read_all(int fd, void *data, size_t n) {
  char *p = data;
  while (n) {
    ssize_t k = read(fd, p, n);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return false;
    p += k;
    n -= (size_t)k;
  }
  return true;
}

bool sbx_read_frame(int fd, uint32_t *type, Buf *body) {
  unsigned char hdr[SBX_FRAME_HEADER];
  buf_clear(body);
  if (!read_all(fd, hdr, sizeof hdr)) return false;
  uint32_t len;
  sbx_frame_header(hdr, type, &len);
  if (len > SBX_MAX_FRAME) return false;
  if (body->cap < (size_t)len + 1) { /* exact size: frames can be large */
    char *p = realloc(body->data, (size_t)len + 1);
    if (!p) return false;
    body->data = p;
    body->cap = (size_t)len + 1;
  }
  if (len && !read_all(fd, body->data, len)) return false;
  body->len = len;
  body->data[len] = '\0';
  return true;
}
