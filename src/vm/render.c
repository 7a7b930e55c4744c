/* Rendering values as text and JSON (see render.h). */
#include "render.h"

#include <math.h>
#include <utf8proc.h>

#include "../base/utf8.h"
#include "equal.h"
#include "gc.h"
#include "object.h"
#include "vmapi.h"

/* Work units per value rendered or encoded: a walk over a value built by
 * sharing follows every path, so it is charged per node visited (the step
 * limit and the deadline stop it), besides the size limits on the text. */
#define RENDER_NODE_WORK 2

static bool node_charge(VM *vm) {
  uint64_t total = vm->work_carry + RENDER_NODE_WORK;
  vm->steps += total / VM_WORK_PER_STEP;
  vm->work_carry = total % VM_WORK_PER_STEP;
  return vm->steps < vm->step_check || vm_step_slow(vm);
}

/* The text a walk builds is charged to the run's memory budget before it
 * is written: *reserved (bytes charged so far) is kept at least twice the
 * text's length after `more` bytes, growing through gc_reserve (E504 when
 * the budget cannot hold it). The caller gives *reserved back at the end. */
static bool text_room(VM *vm, size_t *reserved, size_t used, size_t more) {
  if (used + more <= *reserved) return true;
  size_t want = (used + more) * 2;
  if (want < 4096) want = 4096;
  if (!gc_reserve(vm, want - *reserved)) return false;
  *reserved = want;
  return true;
}

/* Rendering is one recursive walk writing into a Buf. It stops early once
 * the text passes byte_cap (the caller's limit, in bytes): a program
 * printing a huge value fails fast with E504/E505 instead of building
 * gigabytes of text first. Mutable containers can contain themselves, so
 * the ones on the current path are remembered and a repeat prints as
 * "...", like Python's repr of a self-containing list. */
typedef struct RCtx {
  VM *vm;
  Buf *out;
  RenderMode mode;
  size_t start;      /* out->len when rendering began */
  size_t byte_cap;   /* stop once the text grows past this many bytes */
  bool over;         /* the cap was hit */
  size_t cp;         /* code points written so far */
  size_t max_cp;     /* the limit in code points */
  size_t over_at;    /* code points after the token that passed max_cp (0: none) */
  int in_tok;        /* > 0 while writing the pieces of one token */
  const Obj *path[64]; /* mutable containers being rendered (cycle check) */
  int npath;
  size_t reserved;   /* bytes charged to the memory budget (text_room) */
  bool failed;       /* a limit ended the walk (error raised) */
} RCtx;

static bool render(RCtx *c, Value v, bool top, int depth);

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
  if (!text_room(c->vm, &c->reserved, c->out->len - c->start, n)) {
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

/* Canonical quoted string (the one escaper, str_quote in base/buf.h). */
static void quote_canonical(RCtx *c, const ObjString *s) {
  tok_begin(c);
  str_quote(s->data, s->blen, false, put_sink, c);
  tok_close(c);
}

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

static void quote_python(RCtx *c, const ObjString *s) {
  tok_begin(c);
  fmt_quote_python(s->data, s->blen, put_sink, c);
  tok_close(c);
}

/* Elements separated by ", "; nested strings are quoted (top = false). */
static bool render_seq(RCtx *c, const Value *items, size_t n, int depth) {
  for (size_t i = 0; i < n && !c->over; i++) {
    if (i) put(c, ", ", 2);
    if (!render(c, items[i], false, depth + 1)) return false;
  }
  return true;
}

/* Map entries in insertion order, the order the reference prints. */
static bool render_table(RCtx *c, HTable *t, bool with_values, int depth) {
  size_t pos = 0, k = 0;
  HEntry *e;
  while (tbl_next(t, &pos, &e) && !c->over) {
    if (k++) put(c, ", ", 2);
    if (!render(c, e->key, false, depth + 1)) return false;
    if (with_values) {
      put(c, ": ", 2);
      if (!render(c, e->val, false, depth + 1)) return false;
    }
  }
  return true;
}

/* Set elements in the ordering-key order. */
/* A Set prints its elements sorted by the total order (the reference sorts
 * by its ordering key), so output does not depend on insertion order. */
static bool render_set(RCtx *c, HTable *t, int depth) {
  size_t n = t->live;
  Value *items = malloc((n ? n : 1) * sizeof(Value));
  if (!items) return vm_raise_oom(c->vm);
  size_t pos = 0, k = 0;
  HEntry *e;
  while (tbl_next(t, &pos, &e)) items[k++] = e->key;
  /* Sorting allocates nothing, so the unrooted copy is safe. */
  bool ok = vm_sort_values(c->vm, items, n) && render_seq(c, items, n, depth);
  free(items);
  return ok;
}

static bool on_path(RCtx *c, const Obj *o) {
  for (int i = 0; i < c->npath; i++)
    if (c->path[i] == o) return true;
  return false;
}

/* The canonical text of a value (print, to_string, interpolation, `=>`
 * lines), or Python's repr in RENDER_REPR mode (used where the reference
 * shows a Python repr: messages about map keys, thrown values caught as
 * text). Floats always print in shortest round-trip form (fmt_float). */
static bool render(RCtx *c, Value v, bool top, int depth) {
  if (c->over) return true;
  if (!node_charge(c->vm)) {
    c->over = c->failed = true;
    return false;
  }
  if (depth > VM_MAX_VALUE_DEPTH || vm_c_stack_low(c->vm))
    return vm_raise_fatal(c->vm, E_RECURSION, NULL, "Value nested too deeply to render (more than %d levels)",
                          depth > VM_MAX_VALUE_DEPTH ? VM_MAX_VALUE_DEPTH : depth - 1);
  bool repr = c->mode == RENDER_REPR;
  char tmp[64];
  switch ((ValueTag)v.tag) {
    case T_UNIT: puts_(c, "()"); return true;
    case T_BOOL: puts_(c, v.as.b ? (repr ? "True" : "true") : (repr ? "False" : "false")); return true;
    case T_INT:
      snprintf(tmp, sizeof tmp, "%lld", (long long)v.as.i);
      puts_(c, tmp);
      return true;
    case T_BIGINT: {
      size_t before = c->out->len;
      if (!fmt_int(c->vm, v, c->out)) return false;
      c->cp += c->out->len - before; /* digits and a sign: ASCII */
      tok_end(c);
      if (c->out->len - c->start > c->byte_cap) c->over = true;
      return true;
    }
    case T_FLOAT:
      fmt_float(v.as.f, tmp, sizeof tmp);
      puts_(c, tmp);
      return true;
    case T_STRING: {
      ObjString *s = AS_STR(v);
      if (top && c->mode == RENDER_RAW) {
        tok_begin(c);
        put(c, s->data, s->blen);
        tok_close(c);
      } else if (repr) quote_python(c, s);
      else quote_canonical(c, s);
      return true;
    }
    case T_LIST: {
      ObjList *l = AS_LIST(v);
      put(c, "[", 1);
      if (!render_seq(c, list_items(l), l->len, depth)) return false;
      put(c, "]", 1);
      return true;
    }
    case T_TUPLE: {
      ObjTuple *t = AS_TUPLE(v);
      put(c, "(", 1);
      if (!render_seq(c, t->items, t->n, depth)) return false;
      if (t->n == 1) put(c, ",", 1);
      put(c, ")", 1);
      return true;
    }
    case T_CTOR: {
      ObjCtor *o = AS_CTOR(v);
      puts_(c, o->info->name);
      if (o->info->nfields == 0) return true;
      put(c, "(", 1);
      for (int i = 0; i < o->info->nfields && !c->over; i++) {
        if (i) put(c, ", ", 2);
        tok_begin(c); /* "name: " is one token */
        puts_(c, o->info->field_names[i]);
        put(c, ": ", 2);
        tok_close(c);
        if (!render(c, o->fields[i], false, depth + 1)) return false;
      }
      put(c, ")", 1);
      return true;
    }
    case T_MAP: {
      put(c, "{", 1);
      if (!render_table(c, &AS_MAP(v)->t, true, depth)) return false;
      put(c, "}", 1);
      return true;
    }
    case T_ARRAY:
    case T_VEC:
    case T_SET:
    case T_MMAP: {
      const char *open = v.tag == T_ARRAY ? "Array([" : v.tag == T_VEC ? "Vec([" : v.tag == T_SET ? "Set({" : "MutableMap({";
      const char *close = v.tag == T_ARRAY || v.tag == T_VEC ? "])" : "})";
      if (on_path(c, v.as.o)) {
        tok_begin(c);
        puts_(c, open);
        puts_(c, "...");
        puts_(c, close);
        tok_close(c);
        return true;
      }
      bool pushed = c->npath < 64;
      if (pushed) c->path[c->npath++] = v.as.o;
      puts_(c, open);
      bool ok;
      if (v.tag == T_ARRAY || v.tag == T_VEC) ok = render_seq(c, AS_ARRAY(v)->items, AS_ARRAY(v)->len, depth);
      else if (v.tag == T_SET) ok = render_set(c, &AS_MAP(v)->t, depth);
      else ok = render_table(c, &AS_MAP(v)->t, true, depth);
      puts_(c, close);
      if (pushed) c->npath--;
      return ok;
    }
    case T_FUNC: {
      const char *name = AS_FUNC(v)->proto->name;
      tok_begin(c);
      puts_(c, "<function ");
      puts_(c, name ? name : "anonymous");
      puts_(c, ">");
      tok_close(c);
      return true;
    }
    case T_BUILTIN: {
      tok_begin(c);
      puts_(c, "<builtin ");
      puts_(c, vm_builtin_name(AS_BUILTIN(v)));
      puts_(c, ">");
      tok_close(c);
      return true;
    }
    case T_ASYNC: {
      Value fn = AS_ASYNC(v)->fn;
      const char *name = fn.tag == T_FUNC ? AS_FUNC(fn)->proto->name : NULL;
      tok_begin(c);
      puts_(c, "<async ");
      puts_(c, name ? name : "anonymous");
      puts_(c, ">");
      tok_close(c);
      return true;
    }
    default: puts_(c, "<?>"); return true;
  }
}

/* The limit is in code points, as the reference counts string length;
 * exceeding it is E505 for output and E504 for strings, both fatal. On
 * failure the partial text is removed from out. */
bool vm_render(VM *vm, Value v, RenderMode mode, Buf *out, size_t max_cp, RenderLimit limit,
               const char *what) {
  RCtx c;
  c.vm = vm;
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
  bool ok = render(&c, v, true, 0);
  gc_charge(vm, -(ptrdiff_t)c.reserved);
  if (!ok || c.failed) return false;
  if (out->failed) return vm_raise_oom(vm);
  size_t cp = utf8_length(out->data ? out->data + c.start : "", out->len - c.start);
  if (c.over || cp > max_cp) {
    out->len = c.start;
    if (out->data) out->data[c.start] = '\0';
    if (limit == LIMIT_OUTPUT)
      return vm_raise_fatal(vm, E_OUTPUT, NULL, "Output limit exceeded (%llu characters)",
                            (unsigned long long)vm->max_output);
    return vm_raise_fatal(vm, E_RESOURCE, NULL, "%s%sString size exceeds limit (%zu > %zu)", what ? what : "",
                          what ? ": " : "", c.over_at ? c.over_at : cp, max_cp);
  }
  return true;
}

/* ---- JSON ------------------------------------------------------------------ */

/* The RunResult encoding of values (the reference's JSON form): Lists as
 * arrays, Maps as objects with str() keys, tuples as {"_tuple": [...]},
 * constructor values as {"_constructor": name, "fields": {...}}, Unit as
 * null, non-finite Floats as strings, mutable containers tagged by kind. */
typedef struct JCtx {
  VM *vm;
  Buf *out;
  const Obj *path[64];
  int npath;
  size_t *reserved; /* bytes charged to the memory budget (text_room), shared by sub-walks */
} JCtx;

/* Before a JSON node appends about `more` bytes. */
static bool json_room(JCtx *c, size_t more) {
  return node_charge(c->vm) && text_room(c->vm, c->reserved, c->out->len, more);
}

static bool json(JCtx *c, Value v, int depth);

/* qsort order of C strings (Set elements by their JSON text). Equal texts
 * are identical strings, so the unstable sort cannot reorder anything
 * visibly. */
static int cmp_text(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static bool json_seq(JCtx *c, const Value *items, size_t n, int depth) {
  buf_putc(c->out, '[');
  for (size_t i = 0; i < n; i++) {
    if (i) buf_puts(c->out, ", ");
    if (!json(c, items[i], depth + 1)) return false;
  }
  buf_putc(c->out, ']');
  return true;
}

/* Python's str() of a map key: raw text for Strings, repr otherwise. */
static bool json_key(JCtx *c, Value k) {
  Buf tmp = BUF_INIT;
  bool ok = vm_render(c->vm, k, k.tag == T_STRING ? RENDER_RAW : RENDER_REPR, &tmp, SIZE_MAX / 8,
                      LIMIT_STRING, NULL);
  ok = ok && text_room(c->vm, c->reserved, c->out->len, tmp.len * 6 + 8);
  if (ok) buf_json_string(c->out, tmp.data ? tmp.data : "", tmp.len);
  buf_free(&tmp);
  return ok;
}

static bool json_table(JCtx *c, HTable *t, int depth) {
  buf_putc(c->out, '{');
  size_t pos = 0, k = 0;
  HEntry *e;
  while (tbl_next(t, &pos, &e)) {
    if (k++) buf_puts(c->out, ", ");
    if (!json_key(c, e->key)) return false;
    buf_puts(c->out, ": ");
    if (!json(c, e->val, depth + 1)) return false;
  }
  buf_putc(c->out, '}');
  return true;
}

static bool json(JCtx *c, Value v, int depth) {
  if (depth > VM_MAX_VALUE_DEPTH || vm_c_stack_low(c->vm))
    return vm_raise_fatal(c->vm, E_RECURSION, NULL, "Value nested too deeply to encode (more than %d levels)",
                          depth > VM_MAX_VALUE_DEPTH ? VM_MAX_VALUE_DEPTH : depth - 1);
  /* a String's escapes take at most 6 bytes per byte; a node's own
   * punctuation and scalars fit in 128 */
  size_t more = 128;
  if (v.tag == T_STRING) more += (size_t)AS_STR(v)->blen * 6;
  else if (v.tag == T_CTOR) more += strlen(AS_CTOR(v)->info->name) * 6;
  if (!json_room(c, more)) return false;
  Buf *o = c->out;
  char tmp[64];
  switch ((ValueTag)v.tag) {
    case T_UNIT: buf_puts(o, v.as.i ? "{\"_tuple\": []}" : "null"); return true; /* see v_unit_written */
    case T_BOOL: buf_puts(o, v.as.b ? "true" : "false"); return true;
    case T_INT:
    case T_BIGINT: return fmt_int(c->vm, v, o);
    case T_FLOAT:
      if (isnan(v.as.f)) buf_puts(o, "\"NaN\"");
      else if (isinf(v.as.f)) buf_puts(o, v.as.f > 0 ? "\"Infinity\"" : "\"-Infinity\"");
      else {
        fmt_float(v.as.f, tmp, sizeof tmp);
        buf_puts(o, tmp);
      }
      return true;
    case T_STRING: buf_json_string(o, AS_STR(v)->data, AS_STR(v)->blen); return true;
    case T_LIST: return json_seq(c, list_items(AS_LIST(v)), AS_LIST(v)->len, depth);
    case T_TUPLE:
      buf_puts(o, "{\"_tuple\": ");
      if (!json_seq(c, AS_TUPLE(v)->items, AS_TUPLE(v)->n, depth)) return false;
      buf_putc(o, '}');
      return true;
    case T_MAP: return json_table(c, &AS_MAP(v)->t, depth);
    case T_CTOR: {
      ObjCtor *k = AS_CTOR(v);
      buf_puts(o, "{\"_constructor\": ");
      buf_json_string(o, k->info->name, strlen(k->info->name));
      buf_puts(o, ", \"fields\": {");
      for (int i = 0; i < k->info->nfields; i++) {
        if (i) buf_puts(o, ", ");
        buf_json_string(o, k->info->field_names[i], strlen(k->info->field_names[i]));
        buf_puts(o, ": ");
        if (!json(c, k->fields[i], depth + 1)) return false;
      }
      buf_puts(o, "}}");
      return true;
    }
    case T_ARRAY:
    case T_VEC:
    case T_MMAP:
    case T_SET: {
      for (int i = 0; i < c->npath; i++)
        if (c->path[i] == v.as.o) {
          buf_puts(o, "\"[Circular]\"");
          return true;
        }
      bool pushed = c->npath < 64;
      if (pushed) c->path[c->npath++] = v.as.o;
      bool ok;
      if (v.tag == T_ARRAY || v.tag == T_VEC) {
        buf_puts(o, v.tag == T_ARRAY ? "{\"_array\": " : "{\"_vec\": ");
        ok = json_seq(c, AS_ARRAY(v)->items, AS_ARRAY(v)->len, depth);
      } else if (v.tag == T_MMAP) {
        buf_puts(o, "{\"_mutable_map\": ");
        ok = json_table(c, &AS_MAP(v)->t, depth);
      } else {
        /* The reference sorts set elements by the text of their JSON form. */
        HTable *t = &AS_MAP(v)->t;
        size_t n = t->live, k = 0, pos = 0;
        char **texts = calloc(n ? n : 1, sizeof(char *));
        ok = texts != NULL;
        HEntry *e;
        while (ok && tbl_next(t, &pos, &e)) {
          Buf one = BUF_INIT;
          JCtx sub = *c;
          sub.out = &one;
          ok = json(&sub, e->key, depth + 1) && !one.failed;
          texts[k++] = ok ? buf_take(&one) : NULL;
          buf_free(&one);
        }
        if (ok) qsort(texts, n, sizeof *texts, cmp_text);
        buf_puts(o, "{\"_set\": [");
        for (size_t i = 0; ok && i < n; i++) {
          if (i) buf_puts(o, ", ");
          buf_puts(o, texts[i]);
        }
        buf_putc(o, ']');
        for (size_t i = 0; texts && i < k; i++) free(texts[i]);
        free(texts);
        if (!ok) vm_raise_oom(c->vm);
      }
      buf_putc(o, '}');
      if (pushed) c->npath--;
      return ok;
    }
    case T_FUNC: {
      const char *name = AS_FUNC(v)->proto->name;
      buf_puts(o, "{\"_function\": ");
      buf_json_string(o, name ? name : "anonymous", strlen(name ? name : "anonymous"));
      buf_putc(o, '}');
      return true;
    }
    case T_BUILTIN: {
      const char *name = vm_builtin_name(AS_BUILTIN(v));
      buf_puts(o, "{\"_function\": ");
      buf_json_string(o, name, strlen(name));
      buf_putc(o, '}');
      return true;
    }
    default: {
      Buf tmpb = BUF_INIT;
      bool ok = vm_render(c->vm, v, RENDER_REPR, &tmpb, SIZE_MAX / 8, LIMIT_STRING, NULL);
      if (ok) buf_json_string(o, tmpb.data ? tmpb.data : "", tmpb.len);
      buf_free(&tmpb);
      return ok;
    }
  }
}

bool vm_to_json(VM *vm, Value v, Buf *out) {
  JCtx c;
  size_t reserved = 0;
  c.vm = vm;
  c.out = out;
  c.npath = 0;
  c.reserved = &reserved;
  bool ok = json(&c, v, 0);
  gc_charge(vm, -(ptrdiff_t)reserved);
  if (!ok) return false;
  if (out->failed) return vm_raise_oom(vm);
  return true;
}
