/* JSON builtins: json_parse, json_stringify(_pretty) and json_to_string over
 * the built-in JsonValue ADT.
 *
 * The reference is Python's json module (json.loads with a strict scanner;
 * json.dumps with compact separators), so this file reproduces its results
 * byte for byte: error messages with "line L column C (char N)" counted in
 * code points, unbounded JsonInts, duplicate object keys collapsing to the
 * last value at the first key's position, floats in repr form, and the
 * ensure_ascii escapes. The parser is a bounded recursive descent: a
 * pre-scan refuses nesting deeper than JSON_MAX_NESTING before parsing,
 * and the writers refuse values nested deeper than JSON_MAX_DEPTH.
 *
 * Writers run twice over a value: once counting the output's code points
 * (so an oversized result fails with its exact length before anything is
 * built, even for a huge indent) and once writing.
 *
 * The rows at the bottom are this family's part of the builtin table
 * (src/lib/builtins.h); the implementations are written above them. */
#include <geno.h>
#include <math.h>
#include <stdio.h>
#include <utf8proc.h>

#include "families.h"
#include "text.h"

/* json_parse refuses input with more than this many unclosed [ or {
 * (counted outside strings before parsing), as the reference does. */
#define JSON_MAX_NESTING 128
/* The writers walk values built by programs, which can nest without the
 * parser's bound (a loop wrapping JsonArray around itself); past this
 * depth they fail instead of exhausting the C stack. */
#define JSON_MAX_DEPTH 1000
/* Python refuses to convert integers longer than this to or from text. */
#define INT_MAX_DIGITS 4300

/* ================================================================================
 * json_parse
 * ================================================================================ */

typedef enum { PROB_NONE, PROB_NONFINITE, PROB_SIZE } ProbKind;

typedef struct Parser {
  VM *vm;
  const char *s;     /* the text (bytes) */
  size_t n;
  size_t limit;      /* collection limit */
  /* A syntax error: its message and the byte offset it refers to, or a
   * whole message without a position (msg_full). */
  const char *msg;
  size_t at;
  char *msg_full;    /* malloc'd */
  bool vm_failed;    /* a VM error (allocation, limits) was raised */
  /* The reference converts the parsed document in a second, top-down walk
   * that can fail on a non-finite number (an Err) or an oversized string,
   * list or object (a runtime error). We note the first such problem in
   * that walk's order (pre-order: seq counts values as they start) and
   * report it only if the whole text parses. */
  uint64_t seq;
  uint64_t prob_seq;
  Value stack;       /* T_VEC of values not yet placed (see below); rooted */
  ProbKind prob;
  const char *prob_kind;
  size_t prob_n;
} Parser;

static void note_problem(Parser *p, uint64_t seq, ProbKind k, const char *kind, size_t n) {
  if (p->prob != PROB_NONE && p->prob_seq <= seq) return;
  p->prob = k;
  p->prob_seq = seq;
  p->prob_kind = kind;
  p->prob_n = n;
}

static bool syntax(Parser *p, const char *msg, size_t at) {
  p->msg = msg;
  p->at = at;
  return false;
}

static bool is_ws(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

static size_t skip_ws(const Parser *p, size_t i) {
  while (i < p->n && is_ws(p->s[i])) i++;
  return i;
}

static bool is_digit(char c) { return c >= '0' && c <= '9'; }

static int hex_val(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/* Four hex digits at s[i..i+4) (the caller checked they exist), or -1. */
static int32_t hex4(const char *s, size_t i) {
  int32_t v = 0;
  for (int k = 0; k < 4; k++) {
    int h = hex_val(s[i + (size_t)k]);
    if (h < 0) return -1;
    v = v * 16 + h;
  }
  return v;
}

/* The parser keeps every value it has built but not yet placed in a
 * container on one Vec (p->stack), the only GC root it needs however deep
 * the document nests: a container's items sit on the stack from its
 * opening bracket to its closing one, then are moved into the container,
 * which replaces them. */

static bool push(Parser *p, Value v) {
  if (!vm_array_push(p->vm, p->stack, v)) p->vm_failed = true;
  return !p->vm_failed;
}

static size_t depth_of(const Parser *p) {
  size_t n;
  vm_array_items(p->stack, &n);
  return n;
}

/* The top of the stack becomes the one field of constructor `name`. */
static bool wrap_top(Parser *p, const char *name) {
  size_t n;
  Value *items = vm_array_items(p->stack, &n), t;
  /* vm_ctor copies the field after allocating; the collector never moves
   * or resizes the stack's storage, so the pointer stays valid. */
  if (!vm_ctor(p->vm, name, &items[n - 1], 1, &t)) {
    p->vm_failed = true;
    return false;
  }
  vm_array_items(p->stack, &n)[n - 1] = t;
  return true;
}

/* Drop the top `count` values of the stack. */
static void pop_n(Parser *p, size_t count) {
  Value dummy;
  while (count--) vm_array_pop(p->stack, &dummy);
}

/* string = '"' chars '"'; *i is just past the opening quote on entry and
 * just past the closing quote on success; the String is pushed. Escapes
 * are decoded; a valid surrogate pair is joined, a lone surrogate
 * (\uD800 alone) becomes U+FFFD: a String is valid UTF-8 throughout. */
static bool parse_string(Parser *p, size_t *i) {
  const char *s = p->s;
  size_t n = p->n, quote = *i - 1, k = *i;
  Buf b = BUF_INIT;
  for (;;) {
    size_t run = k;
    while (k < n && s[k] != '"' && s[k] != '\\' && (unsigned char)s[k] >= 0x20) k++;
    buf_append(&b, s + run, k - run);
    if (k >= n) {
      buf_free(&b);
      return syntax(p, "Unterminated string starting at", quote);
    }
    if (s[k] == '"') break;
    if (s[k] != '\\') {
      buf_free(&b);
      return syntax(p, "Invalid control character at", k);
    }
    if (k + 1 >= n) {
      buf_free(&b);
      return syntax(p, "Unterminated string starting at", quote);
    }
    char c = s[k + 1];
    if (c != 'u') {
      const char *from = "\"\\/bfnrt", *to = "\"\\/\b\f\n\r\t";
      const char *hit = c ? strchr(from, c) : NULL;
      if (!hit) {
        buf_free(&b);
        return syntax(p, "Invalid \\escape", k);
      }
      buf_putc(&b, to[hit - from]);
      k += 2;
      continue;
    }
    /* \uXXXX: Python wants the four digits and at least one more
     * character after them before it decodes anything. */
    size_t u = k + 1;
    int32_t cp = u + 4 < n ? hex4(s, u + 1) : -1;
    if (cp < 0) {
      buf_free(&b);
      return syntax(p, "Invalid \\uXXXX escape", u);
    }
    k = u + 5;
    if (cp >= 0xD800 && cp <= 0xDBFF && k + 1 < n && s[k] == '\\' && s[k + 1] == 'u') {
      size_t u2 = k + 1;
      int32_t lo = u2 + 4 < n ? hex4(s, u2 + 1) : -1;
      if (lo < 0) {
        buf_free(&b);
        return syntax(p, "Invalid \\uXXXX escape", u2);
      }
      if (lo >= 0xDC00 && lo <= 0xDFFF) {
        cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
        k = u2 + 5;
      }
    }
    lib_buf_cp(&b, cp);
  }
  *i = k + 1;
  if (!vm_charge(p->vm, k - quote)) {
    buf_free(&b);
    p->vm_failed = true;
    return false;
  }
  size_t cps = lib_cp_count(b.data ? b.data : "", b.len);
  if (cps > p->limit) note_problem(p, p->seq, PROB_SIZE, "String", cps);
  Value str;
  if (!lib_string_from_buf(p->vm, &b, &str)) {
    p->vm_failed = true;
    return false;
  }
  return push(p, str);
}

static bool parse_value(Parser *p, size_t *i);

/* number = '-'? int frac? exp? with Python's scanner: "1." and "1e" stop
 * before the '.' or 'e' (then "Extra data"). An int has unbounded size
 * (up to Python's 4300 digits); a float is correctly rounded. */
static bool parse_number(Parser *p, size_t *i) {
  const char *s = p->s;
  size_t n = p->n, start = *i, k = *i;
  if (k < n && s[k] == '-') k++;
  if (k < n && s[k] >= '1' && s[k] <= '9') {
    while (k < n && is_digit(s[k])) k++;
  } else if (k < n && s[k] == '0') {
    k++;
  } else {
    return syntax(p, "Expecting value", start);
  }
  bool is_float = false;
  if (k + 1 < n && s[k] == '.' && is_digit(s[k + 1])) {
    is_float = true;
    k += 2;
    while (k < n && is_digit(s[k])) k++;
  }
  if (k < n && (s[k] == 'e' || s[k] == 'E')) {
    size_t e = k + 1;
    if (e < n && (s[e] == '+' || s[e] == '-')) e++;
    if (e < n && is_digit(s[e])) {
      while (e < n && is_digit(s[e])) e++;
      is_float = true;
      k = e;
    }
  }
  *i = k;
  if (!vm_charge(p->vm, k - start)) {
    p->vm_failed = true;
    return false;
  }
  char *text = malloc(k - start + 1);
  if (!text) {
    p->vm_failed = !vm_error(p->vm, E_RESOURCE, "out of memory in json_parse");
    return false;
  }
  memcpy(text, s + start, k - start);
  text[k - start] = 0;
  Value num;
  if (is_float) {
    double d = strtod(text, NULL);
    free(text);
    if (!isfinite(d)) note_problem(p, p->seq, PROB_NONFINITE, NULL, 0);
    num = v_float(d);
  } else {
    size_t digits = k - start - (s[start] == '-');
    if (digits > INT_MAX_DIGITS) {
      free(text);
      char buf[200];
      snprintf(buf, sizeof buf,
               "Exceeds the limit (%d digits) for integer string conversion: value has %zu digits; use "
               "sys.set_int_max_str_digits() to increase the limit",
               INT_MAX_DIGITS, digits);
      p->msg_full = strdup(buf);
      return false;
    }
    mpz_t z;
    mpz_init_set_str(z, text, 10);
    free(text);
    bool ok = vm_int_from_mpz(p->vm, z, &num);
    mpz_clear(z);
    if (!ok) {
      p->vm_failed = true;
      return false;
    }
  }
  return push(p, num) && wrap_top(p, is_float ? "JsonFloat" : "JsonInt");
}

/* The values stack[base..top) become a List, replacing them on the stack. */
static bool collect_list(Parser *p, size_t base) {
  size_t top = depth_of(p), len, n = top - base;
  Value list = v_unit();
  vm_push_root(p->vm, &list);
  bool ok = vm_list(p->vm, n, &list);
  if (ok) {
    Value *dst = vm_list_items(list, &len);
    if (n) memcpy(dst, vm_array_items(p->stack, &len) + base, n * sizeof(Value));
    pop_n(p, n);
    ok = push(p, list);
  }
  vm_pop_roots(p->vm, 1);
  if (!ok) p->vm_failed = true;
  return ok;
}

/* array = '[' ws (value (',' value)*)? ']' */
static bool parse_array(Parser *p, size_t *i, uint64_t seq) {
  size_t base = depth_of(p);
  size_t k = skip_ws(p, *i + 1);
  bool ok = true;
  if (k < p->n && p->s[k] == ']') {
    k++;
  } else {
    for (;;) {
      if (!(ok = parse_value(p, &k))) break;
      k = skip_ws(p, k);
      if (k < p->n && p->s[k] == ']') {
        k++;
        break;
      }
      if (k >= p->n || p->s[k] != ',') {
        ok = syntax(p, "Expecting ',' delimiter", k);
        break;
      }
      k = skip_ws(p, k + 1);
    }
  }
  *i = k;
  if (!ok) return false;
  size_t n = depth_of(p) - base;
  if (n > p->limit) note_problem(p, seq, PROB_SIZE, "List", n);
  return collect_list(p, base) && wrap_top(p, "JsonArray");
}

/* Keys of an object, for finding repeated ones. */
typedef struct KeyRef {
  const char *s;
  size_t n;
} KeyRef;

static uint64_t key_hash(const KeyRef *k) {
  uint64_t h = 1469598103934665603ULL; /* FNV-1a */
  for (size_t i = 0; i < k->n; i++) h = (h ^ (unsigned char)k->s[i]) * 1099511628211ULL;
  return h;
}

/* Python dict semantics for n keys: last[e] is the position of the last
 * key equal to key e when e is that key's first occurrence, or SIZE_MAX
 * when key e repeats an earlier one. A C hash table, so no VM allocation
 * (and no GC root) is involved. False when memory runs out. */
static bool dedupe_keys(const KeyRef *keys, size_t n, size_t *last) {
  size_t cap = 16;
  while (cap < 2 * n) cap *= 2;
  size_t *slot = malloc(cap * sizeof *slot);
  if (!slot) return false;
  for (size_t i = 0; i < cap; i++) slot[i] = SIZE_MAX;
  for (size_t e = 0; e < n; e++) {
    size_t h = (size_t)key_hash(&keys[e]) & (cap - 1);
    for (;;) {
      size_t f = slot[h];
      if (f == SIZE_MAX) {
        slot[h] = e;
        last[e] = e;
        break;
      }
      if (keys[f].n == keys[e].n && memcmp(keys[f].s, keys[e].s, keys[e].n) == 0) {
        last[f] = e;
        last[e] = SIZE_MAX;
        break;
      }
      h = (h + 1) & (cap - 1);
    }
  }
  free(slot);
  return true;
}

/* Build the entries of an object whose keys and values alternate on the
 * stack from base: a repeated key keeps its first position and takes the
 * last value, as a Python dict does. */
static bool collect_object(Parser *p, size_t base) {
  VM *vm = p->vm;
  size_t top = depth_of(p), count = (top - base) / 2, len;
  KeyRef *keys = malloc((count ? count : 1) * sizeof *keys);
  size_t *last = malloc((count ? count : 1) * sizeof *last);
  bool ok = keys && last;
  if (ok) {
    Value *items = vm_array_items(p->stack, &len);
    for (size_t e = 0; e < count; e++) keys[e].s = lib_str(items[base + 2 * e], &keys[e].n);
    ok = dedupe_keys(keys, count, last);
  }
  free(keys);
  if (!ok) {
    free(last);
    p->vm_failed = true;
    return !vm_error(vm, E_RESOURCE, "out of memory in json_parse");
  }
  /* The (key, value) tuples are pushed above the pairs, then moved down. */
  size_t kept = 0;
  Value pair = v_unit();
  vm_push_root(vm, &pair);
  for (size_t e = 0; ok && e < count; e++) {
    if (last[e] == SIZE_MAX) continue;
    if (!(ok = vm_tuple(vm, 2, &pair))) break;
    Value *items = vm_array_items(p->stack, &len);
    size_t tn;
    Value *t = vm_tuple_items(pair, &tn);
    t[0] = items[base + 2 * e];
    t[1] = items[base + 2 * last[e] + 1];
    ok = push(p, pair);
    kept++;
  }
  vm_pop_roots(vm, 1);
  free(last);
  if (!ok) {
    p->vm_failed = true;
    return false;
  }
  Value *items = vm_array_items(p->stack, &len);
  if (kept) memmove(items + base, items + top, kept * sizeof(Value));
  pop_n(p, top - base);
  return collect_list(p, base);
}

/* object = '{' ws (string ':' value (',' string ':' value)*)? '}' */
static bool parse_object(Parser *p, size_t *i, uint64_t seq) {
  size_t base = depth_of(p);
  size_t k = skip_ws(p, *i + 1);
  bool ok = true;
  if (k < p->n && p->s[k] == '}') {
    k++;
  } else {
    for (;;) {
      if (k >= p->n || p->s[k] != '"') {
        ok = syntax(p, "Expecting property name enclosed in double quotes", k);
        break;
      }
      k++;
      p->seq++;
      if (!(ok = parse_string(p, &k))) break;
      k = skip_ws(p, k);
      if (k >= p->n || p->s[k] != ':') {
        ok = syntax(p, "Expecting ':' delimiter", k);
        break;
      }
      k = skip_ws(p, k + 1);
      if (!(ok = parse_value(p, &k))) break;
      k = skip_ws(p, k);
      if (k < p->n && p->s[k] == '}') {
        k++;
        break;
      }
      if (k >= p->n || p->s[k] != ',') {
        ok = syntax(p, "Expecting ',' delimiter", k);
        break;
      }
      k = skip_ws(p, k + 1);
    }
  }
  *i = k;
  if (!ok || !collect_object(p, base)) return false;
  size_t n, len;
  vm_list_items(vm_array_items(p->stack, &len)[len - 1], &n);
  if (n > p->limit) note_problem(p, seq, PROB_SIZE, "Map", n);
  return wrap_top(p, "JsonObject");
}

/* Does the text at i start with the word w? */
static bool at_word(const Parser *p, size_t i, const char *w) {
  size_t len = strlen(w);
  return p->n - i >= len && memcmp(p->s + i, w, len) == 0;
}

/* value = string | number | object | array | true | false | null;
 * the value is pushed on the stack. */
static bool parse_value(Parser *p, size_t *i) {
  size_t k = *i;
  uint64_t seq = ++p->seq;
  if (k >= p->n) return syntax(p, "Expecting value", k);
  switch (p->s[k]) {
    case '"':
      *i = k + 1;
      return parse_string(p, i) && wrap_top(p, "JsonString");
    case '{': return parse_object(p, i, seq);
    case '[': return parse_array(p, i, seq);
    case 'n':
      if (at_word(p, k, "null")) {
        Value null;
        *i = k + 4;
        if (!vm_ctor(p->vm, "JsonNull", NULL, 0, &null)) {
          p->vm_failed = true;
          return false;
        }
        return push(p, null);
      }
      break;
    case 't':
    case 'f': {
      bool t = p->s[k] == 't';
      if (at_word(p, k, t ? "true" : "false")) {
        *i = k + (t ? 4 : 5);
        return push(p, v_bool(t)) && wrap_top(p, "JsonBool");
      }
      break;
    }
    case 'N':
    case 'I':
    case '-': {
      const char *word = p->s[k] == 'N' ? "NaN" : p->s[k] == 'I' ? "Infinity" : "-Infinity";
      if (at_word(p, k, word)) {
        char buf[64];
        snprintf(buf, sizeof buf, "Invalid JSON constant: %s", word);
        p->msg_full = strdup(buf);
        return false;
      }
      if (p->s[k] == '-') return parse_number(p, i);
      break;
    }
    default:
      if (is_digit(p->s[k])) return parse_number(p, i);
      break;
  }
  return syntax(p, "Expecting value", k);
}

/* The reference's nesting pre-scan: [ and { outside strings (a backslash
 * escapes the next character inside one), closers only ever lowering a
 * positive depth. */
static bool nested_too_deep(const char *s, size_t n) {
  int depth = 0;
  bool in_str = false, esc = false;
  for (size_t i = 0; i < n; i++) {
    char c = s[i];
    if (in_str) {
      if (esc) esc = false;
      else if (c == '\\') esc = true;
      else if (c == '"') in_str = false;
    } else if (c == '"') {
      in_str = true;
    } else if (c == '[' || c == '{') {
      if (++depth > JSON_MAX_NESTING) return true;
    } else if ((c == ']' || c == '}') && depth > 0) {
      depth--;
    }
  }
  return false;
}

/* Err(message) with the message in *out. */
static bool err_text(VM *vm, const char *msg, Value *out) {
  if (!vm_string(vm, msg, strlen(msg), out)) return false;
  return vm_err(vm, *out, out);
}

static bool lib_json_parse(VM *vm, Value *args, int nargs, Value *out) {
  Parser p;
  memset(&p, 0, sizeof p);
  p.vm = vm;
  p.s = lib_str(args[0], &p.n);
  p.limit = vm_max_size(vm);
  if (!vm_charge(vm, p.n)) return false;
  if (nested_too_deep(p.s, p.n)) return err_text(vm, "json_parse: input nested too deeply (max 128)", out);
  size_t i = 0;
  bool ok;
  p.stack = v_unit();
  vm_push_root(vm, &p.stack);
  if (!vm_array(vm, T_VEC, 0, &p.stack)) {
    vm_pop_roots(vm, 1);
    return false;
  }
  if (p.n >= 3 && memcmp(p.s, "\xEF\xBB\xBF", 3) == 0) {
    ok = syntax(&p, "Unexpected UTF-8 BOM (decode using utf-8-sig)", 0);
  } else {
    i = skip_ws(&p, 0);
    ok = parse_value(&p, &i);
    if (ok) {
      size_t len;
      *out = vm_array_items(p.stack, &len)[0];
      i = skip_ws(&p, i);
      if (i < p.n) ok = syntax(&p, "Extra data", i);
    }
  }
  vm_pop_roots(vm, 1);
  if (p.vm_failed) {
    free(p.msg_full);
    return false;
  }
  if (!ok) {
    Buf b = BUF_INIT;
    if (p.msg_full) {
      buf_puts(&b, p.msg_full);
      free(p.msg_full);
    } else {
      size_t cp = lib_cp_count(p.s, p.at), line = 1, last_nl = 0;
      bool nl = false;
      for (size_t k = 0; k < p.at; k++) {
        if (p.s[k] == '\n') {
          line++;
          nl = true;
          last_nl = k;
        }
      }
      size_t col = nl ? cp - lib_cp_count(p.s, last_nl) : cp + 1;
      buf_printf(&b, "%s: line %zu column %zu (char %zu)", p.msg, line, col, cp);
    }
    if (b.failed) {
      buf_free(&b);
      return vm_error(vm, E_RESOURCE, "out of memory in json_parse");
    }
    Value msg = v_unit();
    ok = lib_string_from_buf(vm, &b, &msg) && (*out = msg, vm_err(vm, msg, out));
    return ok;
  }
  if (p.prob == PROB_NONFINITE) return err_text(vm, "json_parse: non-finite JSON number", out);
  if (p.prob == PROB_SIZE)
    return vm_limit_error(vm, E_RESOURCE, "%s size exceeds limit (%zu > %zu)", p.prob_kind, p.prob_n, p.limit);
  return vm_ok(vm, *out, out);
}

/* ================================================================================
 * writers
 * ================================================================================ */

/* Output sink: counts code points, and appends to b unless counting. */
typedef struct Out {
  VM *vm;
  Buf *b;            /* NULL while counting */
  uint64_t cps;      /* code points so far (saturating) */
  bool ascii;        /* ensure_ascii: escape everything outside 0x20..0x7E */
  int64_t indent;    /* > 0: pretty with this many spaces per level */
  const char *fn;    /* builtin name for messages */
  size_t work;       /* for vm_charge */
  size_t key_bytes;  /* bytes of the key text being built already reserved */
  uint64_t bytes;    /* bytes so far (saturating), for the memory budget */
  size_t reserved;   /* bytes charged with vm_reserve, released at the end */
} Out;

/* Work units per value visited: a walk of a shared value (a tree whose
 * nodes are reused, with 2^80 paths) is charged per path it follows, so
 * the step limit and the deadline stop it (VM_WORK_PER_STEP per step). */
#define JSON_NODE_WORK 16

static void out_add(Out *o, uint64_t cps) { o->cps = o->cps + cps < o->cps ? UINT64_MAX : o->cps + cps; }

static void out_raw(Out *o, const char *s, size_t n) {
  out_add(o, lib_cp_count(s, n));
  o->bytes = o->bytes + n < o->bytes ? UINT64_MAX : o->bytes + n;
  if (o->b) buf_append(o->b, s, n);
}

static void out_newline(Out *o, int depth) {
  if (o->indent <= 0) return;
  /* "\n" + indent * depth spaces; the product saturates when counting */
  uint64_t spaces = (uint64_t)o->indent * (uint64_t)depth;
  if (depth && spaces / (uint64_t)depth != (uint64_t)o->indent) spaces = UINT64_MAX - 1;
  out_add(o, 1);
  out_add(o, spaces);
  o->bytes = o->bytes + spaces + 1 < o->bytes ? UINT64_MAX : o->bytes + spaces + 1;
  if (o->b) {
    buf_putc(o->b, '\n');
    for (uint64_t k = 0; k < spaces && !o->b->failed; k++) buf_putc(o->b, ' ');
  }
}

static void out_sink(void *ud, const char *s, size_t n) { out_raw(ud, s, n); }

/* A JSON string literal with Python's escapes (str_quote, base/buf.h). */
static void out_string(Out *o, const char *s, size_t n) {
  str_quote(s, n, o->ascii, out_sink, o);
  o->work += n;
}

static bool out_int(Out *o, Value v) {
  Buf t = BUF_INIT;
  if (!vm_int_text(o->vm, v, &t)) {
    buf_free(&t);
    return false;
  }
  out_raw(o, t.data ? t.data : "0", t.len);
  buf_free(&t);
  return true;
}

static void out_float(Out *o, double d) {
  char tmp[40];
  vm_float_text(d, tmp, sizeof tmp);
  out_raw(o, tmp, strlen(tmp));
}

/* The writers' bound: JSON_MAX_DEPTH levels (the builtin's own error),
 * and the thread's stack (E502) when that is smaller. */
static bool too_deep(Out *o, int depth) {
  if (!vm_c_stack_check(o->vm, o->fn)) return true;
  if (depth <= JSON_MAX_DEPTH) return false;
  vm_error(o->vm, E_RUNTIME, "%s: value nested too deeply (max %d levels)", o->fn, JSON_MAX_DEPTH);
  return true;
}

/* Called once per value visited: charges it. (The counting pass finishes
 * before the size check, so the error can give the full size as the
 * reference does; a walk over a value built by sharing is stopped by
 * these charges instead.) */
static bool charge(Out *o) {
  o->work += JSON_NODE_WORK;
  if (o->work < 4096) return true;
  size_t w = o->work;
  o->work = 0;
  return vm_charge(o->vm, w);
}

static Value entry_key(Value pair) {
  size_t n;
  return vm_tuple_items(pair, &n)[0];
}

static Value entry_val(Value pair) {
  size_t n;
  return vm_tuple_items(pair, &n)[1];
}

/* Dedupe the keys of JsonObject entries (see dedupe_keys); *last is
 * malloc'd for the caller to free. */
static bool entries_last(VM *vm, Value entries, size_t **last) {
  size_t n, len;
  vm_list_items(entries, &n);
  KeyRef *keys = malloc((n ? n : 1) * sizeof *keys);
  *last = malloc((n ? n : 1) * sizeof **last);
  bool ok = keys && *last;
  for (size_t e = 0; ok && e < n; e++) keys[e].s = lib_str(entry_key(vm_list_items(entries, &len)[e]), &keys[e].n);
  ok = ok && dedupe_keys(keys, n, *last);
  free(keys);
  if (!ok) {
    free(*last);
    *last = NULL;
    return vm_error(vm, E_RESOURCE, "out of memory writing JSON");
  }
  return true;
}

/* A JsonValue (already validated) as JSON text. */
static bool write_json(Out *o, Value v, int depth) {
  VM *vm = o->vm;
  if (too_deep(o, depth) || !charge(o)) return false;
  const char *name = vm_ctor_name(v);
  if (!name) return vm_error(vm, E_RUNTIME, "%s: expected JsonValue, got %s", o->fn, vm_tag_name(v.tag));
  Value f = vm_ctor_nfields(v) ? vm_ctor_field(v, 0) : v_unit();
  if (strcmp(name, "JsonNull") == 0) {
    out_raw(o, "null", 4);
  } else if (strcmp(name, "JsonBool") == 0) {
    bool t = f.tag == T_BOOL && f.as.b;
    out_raw(o, t ? "true" : "false", t ? 4 : 5);
  } else if (strcmp(name, "JsonInt") == 0 || strcmp(name, "JsonFloat") == 0) {
    if (f.tag == T_FLOAT) out_float(o, f.as.f);
    else if (f.tag == T_BOOL) out_raw(o, f.as.b ? "true" : "false", f.as.b ? 4 : 5);
    else if (!out_int(o, f)) return false;
  } else if (strcmp(name, "JsonString") == 0) {
    size_t n;
    const char *s = lib_str(f, &n);
    out_string(o, s, n);
  } else if (strcmp(name, "JsonArray") == 0) {
    size_t n, len;
    vm_list_items(f, &n);
    if (n == 0) {
      out_raw(o, "[]", 2);
      return true;
    }
    out_raw(o, "[", 1);
    for (size_t i = 0; i < n; i++) {
      if (i) out_raw(o, ",", 1);
      out_newline(o, depth + 1);
      if (!write_json(o, vm_list_items(f, &len)[i], depth + 1)) return false;
    }
    out_newline(o, depth);
    out_raw(o, "]", 1);
  } else if (strcmp(name, "JsonObject") == 0) {
    size_t n, len;
    vm_list_items(f, &n);
    if (n == 0) {
      out_raw(o, "{}", 2);
      return true;
    }
    size_t *last;
    if (!entries_last(vm, f, &last)) return false;
    bool ok = true, first = true;
    for (size_t i = 0; ok && i < n; i++) {
      if (last[i] == SIZE_MAX) continue;
      Value *items = vm_list_items(f, &len);
      out_raw(o, first ? "{" : ",", 1);
      first = false;
      out_newline(o, depth + 1);
      size_t kn;
      const char *ks = lib_str(entry_key(items[i]), &kn);
      out_string(o, ks, kn);
      out_raw(o, o->indent > 0 ? ": " : ":", o->indent > 0 ? 2 : 1);
      ok = write_json(o, entry_val(items[last[i]]), depth + 1);
    }
    free(last);
    if (!ok) return false;
    out_newline(o, depth);
    out_raw(o, "}", 1);
  } else {
    return vm_error(vm, E_RUNTIME, "json_stringify: unknown JsonValue constructor: %s", name);
  }
  return true;
}

/* The reference's conversion walk before dumping: sizes and finite floats,
 * top-down, every entry included. */
static bool check_json(Out *o, Value v, int depth) {
  VM *vm = o->vm;
  if (too_deep(o, depth)) return false;
  const char *name = vm_ctor_name(v);
  if (!name) return vm_error(vm, E_RUNTIME, "json_stringify: expected JsonValue, got %s", vm_tag_name(v.tag));
  if (strcmp(name, "JsonFloat") == 0) {
    Value f = vm_ctor_field(v, 0);
    if (f.tag == T_FLOAT && !isfinite(f.as.f))
      return vm_error(vm, E_RUNTIME, "json_stringify: JsonFloat must be finite");
  } else if (strcmp(name, "JsonString") == 0) {
    if (!lib_check_count(vm, "String", vm_str_len(vm_ctor_field(v, 0)))) return false;
  } else if (strcmp(name, "JsonArray") == 0) {
    size_t n, len;
    Value l = vm_ctor_field(v, 0);
    vm_list_items(l, &n);
    if (!lib_check_count(vm, "List", n)) return false;
    for (size_t i = 0; i < n; i++)
      if (!check_json(o, vm_list_items(l, &len)[i], depth + 1)) return false;
    o->work += n;
  } else if (strcmp(name, "JsonObject") == 0) {
    size_t n, len;
    Value l = vm_ctor_field(v, 0);
    vm_list_items(l, &n);
    if (!lib_check_count(vm, "Map", n)) return false;
    for (size_t i = 0; i < n; i++) {
      Value pair = vm_list_items(l, &len)[i];
      if (!lib_check_count(vm, "String", vm_str_len(entry_key(pair))) || !check_json(o, entry_val(pair), depth + 1))
        return false;
    }
    o->work += n;
  }
  return charge(o);
}

typedef bool (*WriteFn)(Out *o, Value v, int depth);

/* Count, check the result size, charge the text's buffer to the memory
 * budget, then write it. Releases everything the walks reserved. */
static bool emit_text(Out *o, WriteFn write, Value v, Value *out) {
  o->b = NULL;
  o->cps = 0;
  o->bytes = 0;
  if (!write(o, v, 0)) return false;
  size_t limit = vm_max_size(o->vm);
  if (o->cps > limit)
    return vm_limit_error(o->vm, E_RESOURCE, "%s: String size exceeds limit (%llu > %zu)", o->fn,
                    (unsigned long long)o->cps, limit);
  size_t need = (size_t)o->bytes + 1;
  if (!vm_reserve(o->vm, need)) return false;
  o->reserved += need;
  Buf b = BUF_INIT;
  if (!buf_reserve(&b, need)) return vm_error(o->vm, E_RUNTIME, "out of memory in %s", o->fn);
  o->b = &b;
  o->cps = 0;
  bool ok = write(o, v, 0);
  o->b = NULL;
  if (!ok) {
    buf_free(&b);
    return false;
  }
  return lib_string_from_buf(o->vm, &b, out);
}

static bool emit(Out *o, WriteFn write, Value v, Value *out) {
  bool ok = emit_text(o, write, v, out);
  vm_release(o->vm, o->reserved);
  o->reserved = 0;
  return ok;
}

static bool lib_json_stringify(VM *vm, Value *args, int nargs, Value *out) {
  Out o = {vm, NULL, 0, true, 0, "json_stringify", 0, 0, 0, 0};
  return check_json(&o, args[0], 0) && emit(&o, write_json, args[0], out);
}

/* json_stringify_pretty(value, indent): indent <= 0 is compact; either way
 * non-ASCII text is written as is (Python's ensure_ascii=False). */
static bool lib_json_stringify_pretty(VM *vm, Value *args, int nargs, Value *out) {
  int64_t indent;
  if (!vm_int_get(args[1], &indent)) {
    mpz_t z;
    mpz_init(z);
    vm_int_to_mpz(args[1], z);
    indent = mpz_sgn(z) < 0 ? -1 : INT64_MAX;
    mpz_clear(z);
  }
  Out o = {vm, NULL, 0, false, indent, "json_stringify_pretty", 0, 0, 0, 0};
  o.fn = "json_stringify";
  if (!check_json(&o, args[0], 0)) return false;
  o.fn = "json_stringify_pretty";
  return emit(&o, write_json, args[0], out);
}

/* ================================================================================
 * json_to_string
 * ================================================================================ */

static bool is_json_ctor(const char *name) {
  static const char *const names[] = {"JsonNull", "JsonBool", "JsonInt", "JsonFloat",
                                      "JsonString", "JsonArray", "JsonObject"};
  for (size_t i = 0; i < ARRAY_LEN(names); i++)
    if (strcmp(name, names[i]) == 0) return true;
  return false;
}

/* Before py_text appends about `more` bytes to b: the key's text must fit
 * the result (code points are at most bytes, so a text of more than four
 * bytes per allowed code point cannot) and its bytes are charged to the
 * memory budget; each call is one value visited. */
static bool py_room(Out *o, Buf *b, size_t more) {
  size_t limit = vm_max_size(o->vm), cap = limit > SIZE_MAX / 8 ? SIZE_MAX / 2 : 4 * limit + 64;
  if (more > cap || b->len + more > cap)
    return vm_limit_error(o->vm, E_RESOURCE, "%s: String size exceeds limit (more than %zu)", o->fn, limit);
  if (!charge(o)) return false;
  if (b->len + more > o->key_bytes) {
    size_t grow = b->len + more - o->key_bytes;
    if (!vm_reserve(o->vm, grow)) return false;
    o->reserved += grow;
    o->key_bytes += grow;
  }
  return true;
}

/* Python's str() of a Map key as the reference builds it (str(k), and
 * repr() for what is nested in a tuple or constructor). Bounded by the
 * result size and charged per value (py_room). */
static bool py_text(Out *o, Value v, bool repr, Buf *b, int depth) {
  VM *vm = o->vm;
  if (!vm_c_stack_check(vm, "json_to_string")) return false;
  if (depth > JSON_MAX_DEPTH) return vm_error(vm, E_RUNTIME, "json_to_string: value nested too deeply");
  size_t sn = 0;
  if (v.tag == T_STRING) (void)lib_str(v, &sn);
  if (!py_room(o, b, repr ? 4 * sn + 64 : sn + 64)) return false;
  switch (v.tag) {
    case T_STRING: {
      size_t n;
      const char *s = lib_str(v, &n);
      if (repr) lib_py_repr(b, s, n);
      else buf_append(b, s, n);
      return true;
    }
    case T_BOOL: buf_puts(b, v.as.b ? "True" : "False"); return true;
    case T_UNIT: buf_puts(b, "()"); return true;
    case T_INT:
    case T_BIGINT: return vm_int_text(vm, v, b);
    case T_FLOAT: {
      char tmp[40];
      vm_float_text(v.as.f, tmp, sizeof tmp);
      buf_puts(b, tmp);
      return true;
    }
    case T_TUPLE: {
      size_t n;
      vm_tuple_items(v, &n);
      buf_putc(b, '(');
      for (size_t i = 0; i < n; i++) {
        size_t len;
        if (i) buf_puts(b, ", ");
        if (!py_text(o, vm_tuple_items(v, &len)[i], true, b, depth + 1)) return false;
      }
      buf_puts(b, n == 1 ? ",)" : ")");
      return true;
    }
    case T_LIST: {
      size_t n;
      vm_list_items(v, &n);
      buf_putc(b, '[');
      for (size_t i = 0; i < n; i++) {
        size_t len;
        if (i) buf_puts(b, ", ");
        if (!py_text(o, vm_list_items(v, &len)[i], true, b, depth + 1)) return false;
      }
      buf_putc(b, ']');
      return true;
    }
    case T_MAP: {
      size_t pos = 0;
      Value k, val;
      bool first = true;
      buf_putc(b, '{');
      while (vm_table_next(v, &pos, &k, &val)) {
        if (!first) buf_puts(b, ", ");
        first = false;
        if (!py_text(o, k, true, b, depth + 1)) return false;
        buf_puts(b, ": ");
        if (!py_text(o, val, true, b, depth + 1)) return false;
      }
      buf_putc(b, '}');
      return true;
    }
    case T_CTOR: {
      int nf = vm_ctor_nfields(v);
      buf_puts(b, vm_ctor_name(v));
      if (nf == 0) return true;
      buf_putc(b, '(');
      for (int i = 0; i < nf; i++) {
        if (i) buf_puts(b, ", ");
        buf_puts(b, vm_ctor_field_name(v, i));
        buf_puts(b, ": ");
        if (!py_text(o, vm_ctor_field(v, i), true, b, depth + 1)) return false;
      }
      buf_putc(b, ')');
      return true;
    }
    default:
      /* functions and mutable containers: their canonical text */
      return vm_render_text(vm, v, true, b, vm_max_size(vm), "json_to_string");
  }
}

/* The reference's conversion walk for any value: sizes, finite floats. */
static bool check_any(Out *o, Value v, int depth) {
  VM *vm = o->vm;
  if (too_deep(o, depth) || !charge(o)) return false;
  switch (v.tag) {
    case T_CTOR: {
      const char *name = vm_ctor_name(v);
      if (is_json_ctor(name)) return check_json(o, v, depth);
      if (strcmp(name, "None") == 0) return true;
      if (strcmp(name, "Some") == 0 || strcmp(name, "Ok") == 0 || strcmp(name, "Err") == 0)
        return check_any(o, vm_ctor_field(v, 0), depth + 1);
      int nf = vm_ctor_nfields(v);
      for (int i = 0; i < nf; i++)
        if (!check_any(o, vm_ctor_field(v, i), depth + 1)) return false;
      return lib_check_count(vm, "Map", (size_t)nf + 1);
    }
    case T_MAP: {
      if (!lib_check_count(vm, "Map", vm_table_len(v))) return false;
      size_t pos = 0;
      Value k, val;
      while (vm_table_next(v, &pos, &k, &val)) {
        if (!check_any(o, val, depth + 1)) return false;
        o->work++;
      }
      return true;
    }
    case T_LIST:
    case T_TUPLE: {
      size_t n, len;
      bool list = v.tag == T_LIST;
      if (list) vm_list_items(v, &n);
      else vm_tuple_items(v, &n);
      if (!lib_check_count(vm, list ? "List" : "Tuple", n)) return false;
      for (size_t i = 0; i < n; i++) {
        Value x = list ? vm_list_items(v, &len)[i] : vm_tuple_items(v, &len)[i];
        if (!check_any(o, x, depth + 1)) return false;
      }
      o->work += n;
      return true;
    }
    case T_FLOAT:
      if (!isfinite(v.as.f)) return vm_error(vm, E_RUNTIME, "json_to_string: Float must be finite");
      return true;
    case T_STRING: return lib_check_count(vm, "String", vm_str_len(v));
    default: return true;
  }
}

static bool write_any(Out *o, Value v, int depth);

/* Generic text (a Map key, a mutable container, a function) as a JSON
 * string. */
static bool write_text_of(Out *o, Value v, bool key_form) {
  Buf t = BUF_INIT;
  size_t before = o->reserved;
  o->key_bytes = 0;
  bool ok = key_form ? py_text(o, v, false, &t, 0)
                     : vm_render_text(o->vm, v, true, &t, vm_max_size(o->vm), "json_to_string");
  if (ok && t.failed) ok = vm_error(o->vm, E_RESOURCE, "out of memory in json_to_string");
  if (ok) out_string(o, t.data ? t.data : "", t.len);
  buf_free(&t);
  vm_release(o->vm, o->reserved - before);
  o->reserved = before;
  return ok;
}

static bool write_any(Out *o, Value v, int depth) {
  VM *vm = o->vm;
  if (too_deep(o, depth) || !charge(o)) return false;
  switch (v.tag) {
    case T_CTOR: {
      const char *name = vm_ctor_name(v);
      if (is_json_ctor(name)) return write_json(o, v, depth);
      if (strcmp(name, "None") == 0) {
        out_raw(o, "null", 4);
        return true;
      }
      if (strcmp(name, "Some") == 0 || strcmp(name, "Ok") == 0) return write_any(o, vm_ctor_field(v, 0), depth + 1);
      if (strcmp(name, "Err") == 0) {
        out_raw(o, "{\"error\":", 9);
        if (!write_any(o, vm_ctor_field(v, 0), depth + 1)) return false;
        out_raw(o, "}", 1);
        return true;
      }
      /* {"_tag": Name, field: value, ...}; a field named _tag overwrites
       * the tag's value in place, as in the reference's dict. */
      int nf = vm_ctor_nfields(v), tag_field = -1;
      for (int i = 0; i < nf; i++)
        if (strcmp(vm_ctor_field_name(v, i), "_tag") == 0) tag_field = i;
      out_raw(o, "{\"_tag\":", 8);
      if (tag_field >= 0) {
        if (!write_any(o, vm_ctor_field(v, tag_field), depth + 1)) return false;
      } else {
        out_string(o, name, strlen(name));
      }
      for (int i = 0; i < nf; i++) {
        if (i == tag_field) continue;
        const char *fname = vm_ctor_field_name(v, i);
        out_raw(o, ",", 1);
        out_string(o, fname, strlen(fname));
        out_raw(o, ":", 1);
        if (!write_any(o, vm_ctor_field(v, i), depth + 1)) return false;
      }
      out_raw(o, "}", 1);
      return true;
    }
    case T_MAP: {
      /* Keys become Python str(key); two keys with the same text collapse
       * like dict keys (the last value at the first position). The texts
       * live in C memory, so nothing here allocates VM objects. */
      size_t n = vm_table_len(v), pos = 0, i = 0;
      KeyRef *keys = calloc(n ? n : 1, sizeof *keys);
      Value *vals = malloc((n ? n : 1) * sizeof *vals);
      size_t *last = malloc((n ? n : 1) * sizeof *last);
      bool ok = keys && vals && last;
      size_t before = o->reserved; /* the key texts' bytes, released below */
      Value k, val;
      while (ok && vm_table_next(v, &pos, &k, &val)) {
        Buf t = BUF_INIT;
        o->key_bytes = 0;
        ok = py_text(o, k, false, &t, depth + 1);
        if (ok && t.failed) ok = false;
        keys[i].n = t.len;
        keys[i].s = t.data ? buf_take(&t) : strdup("");
        if (!keys[i].s) ok = false;
        buf_free(&t);
        vals[i++] = val;
      }
      if (!(keys && vals && last) || (ok && !dedupe_keys(keys, n, last)))
        ok = vm_error(vm, E_RESOURCE, "out of memory in json_to_string");
      if (ok && n == 0) out_raw(o, "{}", 2);
      bool first = true;
      for (size_t e = 0; ok && e < n; e++) {
        if (last[e] == SIZE_MAX) continue;
        out_raw(o, first ? "{" : ",", 1);
        first = false;
        out_string(o, keys[e].s, keys[e].n);
        out_raw(o, ":", 1);
        ok = write_any(o, vals[last[e]], depth + 1);
      }
      if (ok && n) out_raw(o, "}", 1);
      for (size_t e = 0; keys && e < i; e++) free((char *)keys[e].s);
      free(keys);
      free(vals);
      free(last);
      vm_release(vm, o->reserved - before);
      o->reserved = before;
      return ok;
    }
    case T_LIST:
    case T_TUPLE:
    case T_UNIT: {
      /* a written () is the empty tuple, an empty array; a Unit no () wrote
       * is the reference's None (see v_unit_written) */
      if (v.tag == T_UNIT && !v.as.i) {
        out_raw(o, "null", 4);
        return true;
      }
      size_t n = 0, len;
      if (v.tag == T_LIST) vm_list_items(v, &n);
      else if (v.tag == T_TUPLE) vm_tuple_items(v, &n);
      out_raw(o, "[", 1);
      for (size_t i = 0; i < n; i++) {
        if (i) out_raw(o, ",", 1);
        Value x = v.tag == T_LIST ? vm_list_items(v, &len)[i] : vm_tuple_items(v, &len)[i];
        if (!write_any(o, x, depth + 1)) return false;
      }
      out_raw(o, "]", 1);
      return true;
    }
    case T_BOOL: out_raw(o, v.as.b ? "true" : "false", v.as.b ? 4 : 5); return true;
    case T_INT:
    case T_BIGINT: return out_int(o, v);
    case T_FLOAT: out_float(o, v.as.f); return true;
    case T_STRING: {
      size_t n;
      const char *s = lib_str(v, &n);
      out_string(o, s, n);
      return true;
    }
    default:
      return write_text_of(o, v, false);
  }
}

static bool lib_json_to_string(VM *vm, Value *args, int nargs, Value *out) {
  Out o = {vm, NULL, 0, true, 0, "json_to_string", 0, 0, 0, 0};
  return check_any(&o, args[0], 0) && emit(&o, write_any, args[0], out);
}

const BuiltinDef lib_json_builtins[] = {
    {"json_parse", "(text: String) -> Result[JsonValue, String]", 0, NULL, 0, lib_json_parse, "$b_json_parse"},
    {"json_stringify", "(value: JsonValue) -> String", 0, NULL, 0, lib_json_stringify, "$b_json_stringify"},
    {"json_stringify_pretty", "(value: JsonValue, indent: Int) -> String", 0, NULL, 0, lib_json_stringify_pretty, "$b_json_stringify_pretty"},
    {"json_to_string", "(value: T) -> String", 0, NULL, 0, lib_json_to_string, "$b_json_to_string"},
};
const size_t lib_json_builtin_count = ARRAY_LEN(lib_json_builtins);
