/* TOML builtin: toml_parse into the built-in JsonValue ADT.
 *
 * The reference parses with Python's tomllib (TOML 1.0) and converts the
 * result to JsonValue, so this file is a TOML 1.0 parser that behaves as
 * tomllib does: the same accepted documents, the same error messages with
 * "(at line L, column C)" positions in code points, the same rules for
 * redefining tables (the "explicitly created" and "frozen" flags), and the
 * same conversion afterwards (a non-finite float is Err, a date or time is
 * a runtime error). Debian packages no C TOML library (only C++ ones), so
 * the parser is written here; see docs/dependencies.md.
 *
 * Parsing builds a tree in an arena (no VM objects, so no GC roots) and
 * the tree is converted at the end. Nesting of arrays and inline tables is
 * bounded by TOML_MAX_NESTING; lookups of keys use one hash table for all
 * tables so hostile documents with many keys stay linear.
 *
 * The rows at the bottom are this family's part of the builtin table
 * (src/lib/builtins.h); the implementations are written above them. */
#include <geno.h>
#include <math.h>
#include <setjmp.h>
#include <stdio.h>

#include "../base/arena.h"
#include "families.h"
#include "text.h"
#include "toml.h"

/* Arrays and inline tables nested deeper than this are refused, and so is
 * a document whose tables nest deeper (dotted keys and headers nest
 * without brackets: `[a.a.a...]`). Python's parser and the reference's
 * conversion recurse about as deep before its own recursion limit. Both
 * walks also check the thread's stack at each level (vm_c_stack_check),
 * so a small thread ends with E502 before this bound, never a crash. */
#define TOML_MAX_NESTING 1000
/* Python refuses decimal integers longer than this. */
#define INT_MAX_DIGITS 4300
/* The parse tree may use at most this many bytes beyond the text. */
#define TOML_ARENA_LIMIT ((size_t)1 << 30)
/* The parse tree, the key table and the text's copy are charged to the
 * run's memory budget as they grow (vm_reserve), so memory_bytes bounds
 * them; the arena limit only matters to hosts without one. The tree is
 * linear in the text. */

typedef enum { TK_TABLE, TK_ARRAY, TK_STR, TK_INT, TK_FLOAT, TK_BOOL, TK_DATE, TK_DATETIME, TK_TIME } TKind;

/* A parsed value. Tables and arrays keep their children in order. */
typedef struct TNode {
  uint8_t kind;
  bool b;
  double f;
  const char *s;           /* TK_STR: bytes; TK_INT: digits without '_' or prefix */
  size_t n;
  int base;                /* TK_INT: 10, 16, 8 or 2 */
  bool neg;                /* TK_INT: a leading '-' */
  struct TNode **kids;     /* table values / array items */
  const char **keys;       /* table keys */
  size_t *klens;
  size_t len, cap;
} TNode;

/* A node of tomllib's flags tree: per key path, flags that apply to that
 * table only and flags that apply to everything below it. */
typedef struct FNode {
  uint8_t flags, rflags;
} FNode;

enum { FL_FROZEN = 1, FL_EXPLICIT = 2 };

/* One hash table maps (owner, key) to a child, for data tables (owner a
 * TNode) and flag nodes (owner an FNode) alike. */
typedef struct HSlot {
  const void *owner;
  const char *key;
  size_t klen;
  void *val;
  size_t idx; /* TNode children: position in kids[] */
} HSlot;

typedef struct Toml {
  VM *vm;
  const char *s; /* the text with \r\n replaced by \n */
  size_t n;
  size_t pos;
  Arena arena;
  jmp_buf fail;  /* taken on a parse error or arena exhaustion */
  char *err;     /* the error message (malloc'd); NULL after arena exhaustion */
  Value stack;   /* conversion: finished values (a Vec), rooted */
  Buf sb;        /* the string being read (one at a time); freed at the end,
                    so a longjmp out of a string leaks nothing */
  bool oom;
  bool vm_failed; /* the VM raised an error (memory budget, thread stack) */
  size_t reserved; /* bytes charged to the VM with vm_reserve */
  HSlot *slots;  /* malloc'd, power-of-two capacity */
  size_t nslots, used;
  int depth;
  /* pending flags: FL_EXPLICIT for the first n prefixes of a key below
   * the flag node `base`, set at the next table header */
  struct Pending {
    FNode *base;
    const char **keys;
    size_t *lens;
    size_t n;
  } *pending;
  size_t npending, cap_pending;
} Toml;

/* A key path (a tuple of strings in tomllib). */
typedef struct Key {
  const char **parts;
  size_t *lens;
  size_t n;
} Key;

/* The table the last header opened, found once: each key/value line
 * below it then walks only its own key, so a long header followed by many
 * lines costs their total length, not their product. Within a section
 * nothing replaces the header's nodes (only a header does), so the cached
 * pointers stay valid until the next header. */
typedef struct Section {
  Key key;         /* the header's key (empty at the top of the document) */
  TNode *table;    /* its table (through an array of tables, the last) */
  FNode *flags;    /* its flag node (the root flags at the top) */
  uint8_t above;   /* recursive flags of the header's path, itself included */
} Section;

/* ---- errors ----------------------------------------------------------------- */

/* Raise "msg (at line L, column C)" for byte offset at. */
GENO_NORETURN static void fail_at(Toml *t, size_t at, const char *msg) {
  Buf b = BUF_INIT;
  buf_puts(&b, msg);
  if (at >= t->n) {
    buf_puts(&b, " (at end of document)");
  } else {
    size_t line = 1, last_nl = 0;
    bool nl = false;
    for (size_t k = 0; k < at; k++)
      if (t->s[k] == '\n') {
        line++;
        nl = true;
        last_nl = k;
      }
    size_t cp = lib_cp_count(t->s, at);
    size_t col = nl ? cp - lib_cp_count(t->s, last_nl) : cp + 1;
    buf_printf(&b, " (at line %zu, column %zu)", line, col);
  }
  t->err = b.failed ? NULL : buf_take(&b);
  if (!t->err) t->oom = true;
  buf_free(&b);
  longjmp(t->fail, 1);
}

/* Python repr of a tuple of strings: ('a', 'b') or ('a',). */
static void key_repr(Buf *b, Key k) {
  buf_putc(b, '(');
  for (size_t i = 0; i < k.n; i++) {
    if (i) buf_puts(b, ", ");
    lib_py_repr(b, k.parts[i], k.lens[i]);
  }
  buf_puts(b, k.n == 1 ? ",)" : ")");
}

GENO_NORETURN static void fail_key(Toml *t, size_t at, const char *before, Key k, const char *after) {
  Buf b = BUF_INIT;
  buf_puts(&b, before);
  key_repr(&b, k);
  buf_puts(&b, after);
  char *m = b.failed ? NULL : buf_take(&b);
  buf_free(&b);
  if (!m) {
    t->oom = true;
    longjmp(t->fail, 1);
  }
  /* fail_at copies the text; keep ours in the arena */
  char *copy = arena_strdup(&t->arena, m);
  free(m);
  fail_at(t, at, copy);
}

/* "<what> 'c'" for one character, as Python's repr shows it. */
GENO_NORETURN static void fail_char(Toml *t, size_t at, const char *what) {
  Buf b = BUF_INIT;
  buf_puts(&b, what);
  buf_putc(&b, ' ');
  size_t i = at;
  lib_utf8_next(t->s, t->n, &i);
  lib_py_repr(&b, t->s + at, i - at);
  char *m = b.failed ? NULL : buf_take(&b);
  buf_free(&b);
  if (!m) {
    t->oom = true;
    longjmp(t->fail, 1);
  }
  char *copy = arena_strdup(&t->arena, m);
  free(m);
  fail_at(t, at, copy);
}

/* ---- the child table --------------------------------------------------------- */

static uint64_t slot_hash(const void *owner, const char *k, size_t n) {
  uint64_t h = (uint64_t)(uintptr_t)owner * 0x9E3779B97F4A7C15ULL;
  for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)k[i]) * 1099511628211ULL;
  return h;
}

static HSlot *slot_find(Toml *t, const void *owner, const char *k, size_t n) {
  if (!t->nslots) return NULL;
  size_t i = (size_t)slot_hash(owner, k, n) & (t->nslots - 1);
  for (;;) {
    HSlot *s = &t->slots[i];
    if (!s->owner) return NULL;
    if (s->owner == owner && s->klen == n && memcmp(s->key, k, n) == 0) return s;
    i = (i + 1) & (t->nslots - 1);
  }
}

/* Charge n bytes to the run's memory budget (nothing without a VM). */
static bool toml_reserve(void *ctx, size_t n) {
  Toml *t = ctx;
  if (!t->vm) return true;
  if (!vm_reserve(t->vm, n)) {
    t->vm_failed = true;
    return false;
  }
  t->reserved += n;
  return true;
}

static HSlot *slot_add(Toml *t, const void *owner, const char *k, size_t n, void *val, size_t idx) {
  if (2 * (t->used + 1) > t->nslots) {
    size_t cap = t->nslots ? t->nslots * 2 : 64;
    if (!toml_reserve(t, cap * sizeof(HSlot))) longjmp(t->fail, 1);
    HSlot *ns = calloc(cap, sizeof *ns);
    if (!ns) {
      t->oom = true;
      longjmp(t->fail, 1);
    }
    for (size_t j = 0; j < t->nslots; j++) {
      HSlot *o = &t->slots[j];
      if (!o->owner) continue;
      size_t i = (size_t)slot_hash(o->owner, o->key, o->klen) & (cap - 1);
      while (ns[i].owner) i = (i + 1) & (cap - 1);
      ns[i] = *o;
    }
    free(t->slots);
    t->slots = ns;
    t->nslots = cap;
  }
  size_t i = (size_t)slot_hash(owner, k, n) & (t->nslots - 1);
  while (t->slots[i].owner) i = (i + 1) & (t->nslots - 1);
  t->slots[i] = (HSlot){owner, k, n, val, idx};
  t->used++;
  return &t->slots[i];
}

/* ---- tree ---------------------------------------------------------------------- */

static TNode *node(Toml *t, TKind kind) {
  TNode *x = arena_alloc(&t->arena, sizeof *x);
  x->kind = (uint8_t)kind;
  return x;
}

static void kids_push(Toml *t, TNode *c, const char *key, size_t klen, TNode *kid) {
  if (c->len == c->cap) {
    size_t cap = c->cap ? c->cap * 2 : 4;
    c->kids = arena_grow(&t->arena, c->kids, c->len, cap, sizeof *c->kids);
    if (c->kind == TK_TABLE) {
      c->keys = arena_grow(&t->arena, c->keys, c->len, cap, sizeof *c->keys);
      c->klens = arena_grow(&t->arena, c->klens, c->len, cap, sizeof *c->klens);
    }
    c->cap = cap;
  }
  if (c->kind == TK_TABLE) {
    c->keys[c->len] = key;
    c->klens[c->len] = klen;
    slot_add(t, c, key, klen, kid, c->len);
  }
  c->kids[c->len++] = kid;
}

static TNode *table_get(Toml *t, TNode *table, const char *k, size_t n) {
  HSlot *s = slot_find(t, table, k, n);
  return s ? (TNode *)s->val : NULL;
}

/* tomllib's get_or_create_nest: walk (creating empty tables) to the
 * table at key; through an array of tables, its last table. Returns NULL
 * where a non-table is in the way ("Cannot overwrite a value"). */
static TNode *get_or_create_nest(Toml *t, TNode *root, Key key, bool access_lists) {
  TNode *c = root;
  for (size_t i = 0; i < key.n; i++) {
    TNode *k = table_get(t, c, key.parts[i], key.lens[i]);
    if (!k) {
      k = node(t, TK_TABLE);
      kids_push(t, c, key.parts[i], key.lens[i], k);
    }
    c = k;
    if (access_lists && c->kind == TK_ARRAY) c = c->len ? c->kids[c->len - 1] : NULL;
    if (!c || c->kind != TK_TABLE) return NULL;
  }
  return c;
}

/* ---- flags ---------------------------------------------------------------------- */

static FNode *fchild(Toml *t, FNode *f, const char *k, size_t n, bool create) {
  HSlot *s = slot_find(t, f, k, n);
  if (s) return s->val;
  if (!create) return NULL;
  FNode *c = arena_alloc(&t->arena, sizeof *c);
  slot_add(t, f, k, n, c, 0);
  return c;
}

/* The node at key below `from`, created with its path (an empty node
 * reads as a missing one, so creating changes no answer); *above gets the
 * recursive flags of every node on the path, the last included. */
static FNode *flags_path(Toml *t, FNode *from, Key key, uint8_t *above) {
  FNode *c = from;
  for (size_t i = 0; i < key.n; i++) {
    c = fchild(t, c, key.parts[i], key.lens[i], true);
    if (above) *above |= c->rflags;
  }
  return c;
}

static FNode *flags_set(Toml *t, FNode *root, Key key, int flag, bool recursive) {
  FNode *c = flags_path(t, root, key, NULL);
  if (recursive) c->rflags |= (uint8_t)flag;
  else c->flags |= (uint8_t)flag;
  return c;
}

static bool flags_is(Toml *t, FNode *root, Key key, int flag) {
  if (key.n == 0) return false;
  FNode *c = root;
  for (size_t i = 0; i + 1 < key.n; i++) {
    c = fchild(t, c, key.parts[i], key.lens[i], false);
    if (!c) return false;
    if (c->rflags & flag) return true;
  }
  c = fchild(t, c, key.parts[key.n - 1], key.lens[key.n - 1], false);
  return c && ((c->flags | c->rflags) & flag);
}

/* Forget the flags at key and below: the slot now names a fresh node,
 * which is what a missing one would be. */
static void flags_unset_all(Toml *t, FNode *root, Key key) {
  FNode *c = root;
  for (size_t i = 0; i + 1 < key.n; i++) {
    c = fchild(t, c, key.parts[i], key.lens[i], false);
    if (!c) return;
  }
  HSlot *s = slot_find(t, c, key.parts[key.n - 1], key.lens[key.n - 1]);
  if (s) s->val = arena_alloc(&t->arena, sizeof(FNode));
}

static Key key_prefix(Key a, size_t n) { return (Key){a.parts, a.lens, n}; }

/* header + key[:n] as a new key */
static Key key_join(Toml *t, Key header, Key key, size_t n) {
  Key k;
  k.n = header.n + n;
  k.parts = arena_array(&t->arena, k.n ? k.n : 1, sizeof *k.parts);
  k.lens = arena_array(&t->arena, k.n ? k.n : 1, sizeof *k.lens);
  for (size_t i = 0; i < header.n; i++) {
    k.parts[i] = header.parts[i];
    k.lens[i] = header.lens[i];
  }
  for (size_t i = 0; i < n; i++) {
    k.parts[header.n + i] = key.parts[i];
    k.lens[header.n + i] = key.lens[i];
  }
  return k;
}

/* ---- lexical helpers ------------------------------------------------------------ */

static char at(const Toml *t, size_t i) { return i < t->n ? t->s[i] : 0; }
static bool has(const Toml *t, size_t i) { return i < t->n; }
static bool starts(const Toml *t, size_t i, const char *w) {
  size_t n = strlen(w);
  return t->n - (i < t->n ? i : t->n) >= n && memcmp(t->s + i, w, n) == 0;
}

static size_t skip_ws(const Toml *t, size_t i) {
  while (has(t, i) && (t->s[i] == ' ' || t->s[i] == '\t')) i++;
  return i;
}

static size_t skip_ws_nl(const Toml *t, size_t i) {
  while (has(t, i) && (t->s[i] == ' ' || t->s[i] == '\t' || t->s[i] == '\n')) i++;
  return i;
}

static bool is_ctrl(unsigned char c) { return c < 0x20 || c == 0x7F; }
static bool bare_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
}

/* tomllib's skip_until: the position of `expect` from i (or the end,
 * an error when error_on_eof); before that, no control character other
 * than tab (and newline when allow_nl) may appear. */
static size_t skip_until(Toml *t, size_t i, const char *expect, bool allow_nl, bool error_on_eof) {
  size_t en = strlen(expect);
  const char *hit = i <= t->n ? memmem(t->s + i, t->n - i, expect, en) : NULL;
  size_t end = hit ? (size_t)(hit - t->s) : t->n;
  if (!hit && error_on_eof) {
    Buf b = BUF_INIT;
    buf_puts(&b, "Expected ");
    lib_py_repr(&b, expect, en);
    char *m = b.failed ? NULL : arena_strdup(&t->arena, b.data);
    buf_free(&b);
    if (!m) {
      t->oom = true;
      longjmp(t->fail, 1);
    }
    fail_at(t, t->n, m);
  }
  for (size_t k = i; k < end; k++) {
    unsigned char c = (unsigned char)t->s[k];
    if (is_ctrl(c) && c != '\t' && !(allow_nl && c == '\n')) fail_char(t, k, "Found invalid character");
  }
  return end;
}

static size_t skip_comment(Toml *t, size_t i) {
  if (at(t, i) == '#') return skip_until(t, i + 1, "\n", false, false);
  return i;
}

static size_t skip_comments_and_array_ws(Toml *t, size_t i) {
  for (;;) {
    size_t before = i;
    i = skip_ws_nl(t, i);
    i = skip_comment(t, i);
    if (i == before) return i;
  }
}

/* ---- strings ---------------------------------------------------------------------- */

static int hexv(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/* An escape at i (s[i] == '\\') appended to b; returns the position after. */
static size_t basic_escape(Toml *t, size_t i, bool multiline, Buf *b) {
  char e = at(t, i + 1);
  size_t p = i + 2;
  if (multiline && (e == ' ' || e == '\t' || e == '\n')) {
    /* a line-ending backslash trims the line break and the blanks after */
    if (e != '\n') {
      p = skip_ws(t, p);
      if (!has(t, p)) return p;
      if (t->s[p] != '\n') fail_at(t, p, "Unescaped '\\' in a string");
      p++;
    }
    return skip_ws_nl(t, p);
  }
  if (e == 'u' || e == 'U') {
    int len = e == 'u' ? 4 : 8;
    uint32_t v = 0;
    bool ok = t->n >= p && t->n - p >= (size_t)len;
    for (int k = 0; ok && k < len; k++) {
      int h = hexv(t->s[p + (size_t)k]);
      if (h < 0) ok = false;
      else v = v * 16 + (uint32_t)h;
    }
    if (!ok) fail_at(t, p, "Invalid hex value");
    p += (size_t)len;
    if (!(v <= 0xD7FF || (v >= 0xE000 && v <= 0x10FFFF)))
      fail_at(t, p, "Escaped character is not a Unicode scalar value");
    lib_buf_cp(b, (int32_t)v);
    return p;
  }
  const char *from = "btnfr\"\\", *to = "\b\t\n\f\r\"\\";
  const char *hit = e ? strchr(from, e) : NULL;
  if (!hit) fail_at(t, p, "Unescaped '\\' in a string");
  buf_putc(b, to[hit - from]);
  return p;
}

/* basic string body from i (after the opening quote(s)); returns the
 * position after the closing quote(s). */
static size_t basic_str(Toml *t, size_t i, bool multiline, Buf *b) {
  size_t start = i;
  for (;;) {
    if (!has(t, i)) fail_at(t, i, "Unterminated string");
    char c = t->s[i];
    if (c == '"') {
      if (!multiline) {
        buf_append(b, t->s + start, i - start);
        return i + 1;
      }
      if (starts(t, i, "\"\"\"")) {
        buf_append(b, t->s + start, i - start);
        return i + 3;
      }
      i++;
      continue;
    }
    if (c == '\\') {
      buf_append(b, t->s + start, i - start);
      i = basic_escape(t, i, multiline, b);
      start = i;
      continue;
    }
    if (is_ctrl((unsigned char)c) && c != '\t' && !(multiline && c == '\n')) fail_char(t, i, "Illegal character");
    i++;
  }
}

/* A finished string into the arena. */
static void take_str(Toml *t, Buf *b, const char **s, size_t *n) {
  if (b->failed) {
    t->oom = true;
    longjmp(t->fail, 1);
  }
  *n = b->len;
  *s = arena_strndup(&t->arena, b->data ? b->data : "", b->len);
  buf_clear(b);
}

/* The shared string buffer, emptied. */
static Buf *string_buf(Toml *t) {
  buf_clear(&t->sb);
  return &t->sb;
}

/* literal string 'x': returns the position after the closing quote */
static size_t literal_str(Toml *t, size_t i, const char **s, size_t *n) {
  size_t start = i + 1;
  size_t end = skip_until(t, start, "'", false, true);
  *s = t->s + start;
  *n = end - start;
  return end + 1;
}

/* multiline strings: """...""" and '''...''' (a newline right after the
 * opening is dropped; up to two extra quotes before the closing belong to
 * the string) */
static size_t multiline_str(Toml *t, size_t i, bool literal, const char **s, size_t *n) {
  i += 3;
  if (at(t, i) == '\n') i++;
  Buf *b = string_buf(t);
  char delim = literal ? '\'' : '"';
  if (literal) {
    size_t end = skip_until(t, i, "'''", true, true);
    buf_append(b, t->s + i, end - i);
    i = end + 3;
  } else {
    i = basic_str(t, i, true, b);
  }
  for (int extra = 0; extra < 2 && at(t, i) == delim; extra++, i++) buf_putc(b, delim);
  take_str(t, b, s, n);
  return i;
}

/* ---- keys --------------------------------------------------------------------------- */

static size_t key_part(Toml *t, size_t i, const char **s, size_t *n) {
  char c = at(t, i);
  if (has(t, i) && bare_char(c)) {
    size_t st = i;
    while (has(t, i) && bare_char(t->s[i])) i++;
    *s = t->s + st;
    *n = i - st;
    return i;
  }
  if (c == '\'' && has(t, i)) return literal_str(t, i, s, n);
  if (c == '"' && has(t, i)) {
    Buf *b = string_buf(t);
    i = basic_str(t, i + 1, false, b);
    take_str(t, b, s, n);
    return i;
  }
  fail_at(t, i, "Invalid initial character for a key part");
}

/* key = part (ws '.' ws part)* ws */
static size_t parse_key(Toml *t, size_t i, Key *key) {
  size_t cap = 4;
  key->parts = arena_array(&t->arena, cap, sizeof *key->parts);
  key->lens = arena_array(&t->arena, cap, sizeof *key->lens);
  key->n = 0;
  for (;;) {
    if (key->n == cap) {
      key->parts = arena_grow(&t->arena, key->parts, key->n, cap * 2, sizeof *key->parts);
      key->lens = arena_grow(&t->arena, key->lens, key->n, cap * 2, sizeof *key->lens);
      cap *= 2;
    }
    i = key_part(t, i, &key->parts[key->n], &key->lens[key->n]);
    key->n++;
    i = skip_ws(t, i);
    if (at(t, i) != '.' || !has(t, i)) return i;
    i = skip_ws(t, i + 1);
  }
}

/* ---- values ------------------------------------------------------------------------- */

static size_t parse_value(Toml *t, size_t i, TNode **out);

static size_t parse_kv(Toml *t, size_t i, Key *key, TNode **val) {
  i = parse_key(t, i, key);
  if (at(t, i) != '=' || !has(t, i)) fail_at(t, i, "Expected '=' after a key in a key/value pair");
  i = skip_ws(t, i + 1);
  return parse_value(t, i, val);
}

static size_t parse_array(Toml *t, size_t i, TNode **out) {
  TNode *a = node(t, TK_ARRAY);
  *out = a;
  i = skip_comments_and_array_ws(t, i + 1);
  if (at(t, i) == ']' && has(t, i)) return i + 1;
  for (;;) {
    TNode *v;
    i = parse_value(t, i, &v);
    kids_push(t, a, NULL, 0, v);
    i = skip_comments_and_array_ws(t, i);
    char c = at(t, i);
    if (c == ']' && has(t, i)) return i + 1;
    if (c != ',' || !has(t, i)) fail_at(t, i, "Unclosed array");
    i = skip_comments_and_array_ws(t, i + 1);
    if (at(t, i) == ']' && has(t, i)) return i + 1;
  }
}

static size_t parse_inline_table(Toml *t, size_t i, TNode **out) {
  TNode *tab = node(t, TK_TABLE);
  FNode *flags = arena_alloc(&t->arena, sizeof *flags);
  *out = tab;
  i = skip_ws(t, i + 1);
  if (at(t, i) == '}' && has(t, i)) return i + 1;
  for (;;) {
    Key key;
    TNode *v;
    i = parse_kv(t, i, &key, &v);
    if (flags_is(t, flags, key, FL_FROZEN)) fail_key(t, i, "Cannot mutate immutable namespace ", key, "");
    TNode *nest = get_or_create_nest(t, tab, key_prefix(key, key.n - 1), false);
    if (!nest) fail_at(t, i, "Cannot overwrite a value");
    const char *stem = key.parts[key.n - 1];
    size_t slen = key.lens[key.n - 1];
    if (table_get(t, nest, stem, slen)) {
      Buf b = BUF_INIT;
      buf_puts(&b, "Duplicate inline table key ");
      lib_py_repr(&b, stem, slen);
      char *m = b.failed ? NULL : arena_strdup(&t->arena, b.data);
      buf_free(&b);
      if (!m) {
        t->oom = true;
        longjmp(t->fail, 1);
      }
      fail_at(t, i, m);
    }
    kids_push(t, nest, stem, slen, v);
    i = skip_ws(t, i);
    char c = at(t, i);
    if (c == '}' && has(t, i)) return i + 1;
    if (c != ',' || !has(t, i)) fail_at(t, i, "Unclosed inline table");
    if (v->kind == TK_TABLE || v->kind == TK_ARRAY) flags_set(t, flags, key, FL_FROZEN, true);
    i = skip_ws(t, i + 1);
  }
}

static bool digit(char c) { return c >= '0' && c <= '9'; }

/* n digits at i? */
static bool digits_at(const Toml *t, size_t i, int n) {
  for (int k = 0; k < n; k++)
    if (!digit(at(t, i + (size_t)k)) || !has(t, i + (size_t)k)) return false;
  return true;
}

static int num2(const Toml *t, size_t i) { return (t->s[i] - '0') * 10 + (t->s[i + 1] - '0'); }

/* time = HH:MM:SS(.frac)? with tomllib's ranges; returns the end or 0 */
static size_t match_time(const Toml *t, size_t i) {
  if (!digits_at(t, i, 2) || at(t, i + 2) != ':' || !digits_at(t, i + 3, 2) || at(t, i + 5) != ':' ||
      !digits_at(t, i + 6, 2))
    return 0;
  if (num2(t, i) > 23 || num2(t, i + 3) > 59 || num2(t, i + 6) > 59) return 0;
  size_t e = i + 8;
  if (at(t, e) == '.' && has(t, e) && digit(at(t, e + 1)) && has(t, e + 1)) {
    e++;
    while (has(t, e) && digit(t->s[e])) e++;
  }
  return e;
}

static bool leap(int y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

/* date, date-time (local or with an offset) or local time at i; returns
 * the end and the kind, or 0 when none matches. */
static size_t match_datetime(Toml *t, size_t i, TKind *kind) {
  if (digits_at(t, i, 4) && at(t, i + 4) == '-' && digits_at(t, i + 5, 2) && at(t, i + 7) == '-' &&
      digits_at(t, i + 8, 2)) {
    int month = num2(t, i + 5), day = num2(t, i + 8);
    int year = (t->s[i] - '0') * 1000 + (t->s[i + 1] - '0') * 100 + num2(t, i + 2);
    if (month >= 1 && month <= 12 && day >= 1 && day <= 31) {
      static const int mdays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
      size_t e = i + 10;
      *kind = TK_DATE;
      char sep = at(t, e);
      if ((sep == 'T' || sep == 't' || sep == ' ') && has(t, e)) {
        size_t te = match_time(t, e + 1);
        if (te) {
          e = te;
          *kind = TK_DATETIME;
          char z = at(t, e);
          if ((z == 'Z' || z == 'z') && has(t, e)) {
            e++;
          } else if ((z == '+' || z == '-') && has(t, e) && digits_at(t, e + 1, 2) && at(t, e + 3) == ':' &&
                     digits_at(t, e + 4, 2) && num2(t, e + 1) <= 23 && num2(t, e + 4) <= 59) {
            e += 6;
          }
        }
      }
      int maxd = mdays[month - 1] + (month == 2 && leap(year));
      if (year < 1 || day > maxd) fail_at(t, i, "Invalid date or datetime");
      return e;
    }
  }
  size_t te = match_time(t, i);
  if (te) {
    *kind = TK_TIME;
    return te;
  }
  return 0;
}

/* digits with single underscores between them, in the given base */
static size_t digits_us(const Toml *t, size_t i, int base) {
  if (!has(t, i) || hexv(t->s[i]) < 0 || hexv(t->s[i]) >= base) return i;
  i++;
  for (;;) {
    size_t j = at(t, i) == '_' && has(t, i) ? i + 1 : i;
    if (!has(t, j) || hexv(t->s[j]) < 0 || hexv(t->s[j]) >= base) return i;
    i = j + 1;
  }
}

/* A number per tomllib's pattern; 0 when none starts at i. */
static size_t match_number(Toml *t, size_t i, TNode **out) {
  char p = at(t, i + 1);
  if (at(t, i) == '0' && (p == 'x' || p == 'o' || p == 'b') && has(t, i + 1)) {
    int base = p == 'x' ? 16 : p == 'o' ? 8 : 2;
    size_t e = digits_us(t, i + 2, base);
    if (e > i + 2) {
      TNode *x = node(t, TK_INT);
      x->base = base;
      Buf *b = string_buf(t);
      for (size_t k = i + 2; k < e; k++)
        if (t->s[k] != '_') buf_putc(b, t->s[k]);
      take_str(t, b, &x->s, &x->n);
      *out = x;
      return e;
    }
  }
  size_t k = i;
  bool neg = false;
  if ((at(t, k) == '+' || at(t, k) == '-') && has(t, k)) neg = t->s[k++] == '-';
  size_t int_start = k;
  if (at(t, k) == '0' && has(t, k)) k++;
  else if (has(t, k) && t->s[k] >= '1' && t->s[k] <= '9') k = digits_us(t, k, 10);
  else return 0;
  size_t int_end = k;
  bool is_float = false;
  if (at(t, k) == '.' && has(t, k) && digit(at(t, k + 1)) && has(t, k + 1)) {
    k = digits_us(t, k + 1, 10);
    is_float = true;
  }
  if ((at(t, k) == 'e' || at(t, k) == 'E') && has(t, k)) {
    size_t e = k + 1;
    if ((at(t, e) == '+' || at(t, e) == '-') && has(t, e)) e++;
    if (digit(at(t, e)) && has(t, e)) {
      k = digits_us(t, e, 10);
      is_float = true;
    }
  }
  Buf *b = string_buf(t);
  for (size_t j = is_float ? i : int_start; j < (is_float ? k : int_end); j++)
    if (t->s[j] != '_') buf_putc(b, t->s[j]);
  TNode *x = node(t, is_float ? TK_FLOAT : TK_INT);
  take_str(t, b, &x->s, &x->n);
  if (is_float) {
    x->f = strtod(x->s, NULL);
  } else {
    x->base = 10;
    x->neg = neg;
    if (x->n > INT_MAX_DIGITS) {
      char m[200];
      snprintf(m, sizeof m,
               "Exceeds the limit (%d digits) for integer string conversion: value has %zu digits; use "
               "sys.set_int_max_str_digits() to increase the limit",
               INT_MAX_DIGITS, x->n);
      t->err = strdup(m);
      if (!t->err) t->oom = true;
      longjmp(t->fail, 1);
    }
  }
  *out = x;
  return k;
}

/* value = string | bool | array | inline-table | date/time | number | inf | nan */
static size_t parse_value(Toml *t, size_t i, TNode **out) {
  char c = at(t, i);
  bool here = has(t, i);
  if (here && c == '"') {
    TNode *x = node(t, TK_STR);
    *out = x;
    if (starts(t, i, "\"\"\"")) return multiline_str(t, i, false, &x->s, &x->n);
    Buf *b = string_buf(t);
    i = basic_str(t, i + 1, false, b);
    take_str(t, b, &x->s, &x->n);
    return i;
  }
  if (here && c == '\'') {
    TNode *x = node(t, TK_STR);
    *out = x;
    if (starts(t, i, "'''")) return multiline_str(t, i, true, &x->s, &x->n);
    return literal_str(t, i, &x->s, &x->n);
  }
  if (starts(t, i, "true") || starts(t, i, "false")) {
    TNode *x = node(t, TK_BOOL);
    x->b = c == 't';
    *out = x;
    return i + (x->b ? 4 : 5);
  }
  if (here && (c == '[' || c == '{')) {
    if (t->vm && !vm_c_stack_check(t->vm, "toml_parse")) {
      t->vm_failed = true;
      longjmp(t->fail, 1);
    }
    if (++t->depth > TOML_MAX_NESTING) {
      char m[80];
      snprintf(m, sizeof m, "toml_parse: input nested too deeply (max %d)", TOML_MAX_NESTING);
      t->err = strdup(m);
      t->oom = !t->err;
      t->depth = -1; /* marks the runtime-error kind of failure */
      longjmp(t->fail, 1);
    }
    size_t e = c == '[' ? parse_array(t, i, out) : parse_inline_table(t, i, out);
    t->depth--;
    return e;
  }
  TKind kind;
  size_t e = match_datetime(t, i, &kind);
  if (e) {
    *out = node(t, kind);
    return e;
  }
  e = match_number(t, i, out);
  if (e) return e;
  const char *specials[] = {"inf", "nan", "+inf", "-inf", "+nan", "-nan"};
  for (size_t k = 0; k < ARRAY_LEN(specials); k++) {
    if (starts(t, i, specials[k])) {
      TNode *x = node(t, TK_FLOAT);
      x->f = specials[k][strlen(specials[k]) - 1] == 'f' ? (specials[k][0] == '-' ? -INFINITY : INFINITY) : NAN;
      *out = x;
      return i + strlen(specials[k]);
    }
  }
  fail_at(t, i, "Invalid value");
}

/* ---- statements ------------------------------------------------------------------------ */

static void add_pending(Toml *t, FNode *base, Key k) {
  if (t->npending == t->cap_pending) {
    size_t cap = t->cap_pending ? t->cap_pending * 2 : 8;
    t->pending = arena_grow(&t->arena, t->pending, t->npending, cap, sizeof *t->pending);
    t->cap_pending = cap;
  }
  t->pending[t->npending].base = base;
  t->pending[t->npending].keys = k.parts;
  t->pending[t->npending].lens = k.lens;
  t->pending[t->npending].n = k.n;
  t->npending++;
}

static void finalize_pending(Toml *t) {
  for (size_t i = 0; i < t->npending; i++) {
    FNode *c = t->pending[i].base;
    for (size_t k = 0; k < t->pending[i].n; k++) {
      c = fchild(t, c, t->pending[i].keys[k], t->pending[i].lens[k], true);
      c->flags |= FL_EXPLICIT;
    }
  }
  t->npending = 0;
}

/* key = value inside the section's table. tomllib asks, for header + each
 * proper prefix of the key, whether it was declared explicitly, and then
 * whether header + key[:-1] is frozen; flags_is answers that for one path
 * from the root, so the prefixes are walked here in one pass from the
 * header's node instead (linear in the key, where one flags_is and one
 * joined key per prefix was quadratic). A prefix is flagged when a node
 * strictly above it carries the flag recursively, or its own node carries
 * it; a missing node ends the path (nothing below it exists). */
static size_t key_value_rule(Toml *t, size_t i, const Section *sec) {
  Key key;
  TNode *v;
  i = parse_kv(t, i, &key, &v);
  FNode *c = sec->flags;
  uint8_t above = sec->above; /* rflags strictly above the node at c's child */
  for (size_t n = 1; n < key.n; n++) {
    c = c ? fchild(t, c, key.parts[n - 1], key.lens[n - 1], false) : NULL;
    bool flagged = (above & FL_EXPLICIT) || (c && ((c->flags | c->rflags) & FL_EXPLICIT));
    if (flagged) fail_key(t, i, "Cannot redefine namespace ", key_join(t, sec->key, key, n), "");
    if (c) above |= c->rflags;
  }
  if (key.n > 1) add_pending(t, sec->flags, key_prefix(key, key.n - 1));
  /* the parent is frozen: FL_FROZEN is only ever set recursively, so this
   * is a recursive flag on the parent's path (the parent included) */
  if ((sec->key.n || key.n > 1) && (above & FL_FROZEN))
    fail_key(t, i, "Cannot mutate immutable namespace ", key_join(t, sec->key, key, key.n - 1), "");
  TNode *nest = get_or_create_nest(t, sec->table, key_prefix(key, key.n - 1), true);
  if (!nest) fail_at(t, i, "Cannot overwrite a value");
  const char *stem = key.parts[key.n - 1];
  size_t slen = key.lens[key.n - 1];
  if (table_get(t, nest, stem, slen)) fail_at(t, i, "Cannot overwrite a value");
  if (v->kind == TK_TABLE || v->kind == TK_ARRAY) flags_set(t, sec->flags, key, FL_FROZEN, true);
  kids_push(t, nest, stem, slen, v);
  return i;
}

/* The section a header at key opens: its table and flag node. */
static void section_open(Toml *t, Section *sec, FNode *flags, Key key, TNode *table) {
  sec->key = key;
  sec->table = table;
  sec->above = 0;
  sec->flags = flags_path(t, flags, key, &sec->above);
}

/* [table] */
static size_t table_rule(Toml *t, size_t i, TNode *root, FNode *flags, Section *sec) {
  i = skip_ws(t, i + 1);
  Key key;
  i = parse_key(t, i, &key);
  if (flags_is(t, flags, key, FL_EXPLICIT) || flags_is(t, flags, key, FL_FROZEN))
    fail_key(t, i, "Cannot declare ", key, " twice");
  flags_set(t, flags, key, FL_EXPLICIT, false);
  TNode *table = get_or_create_nest(t, root, key, true);
  if (!table) fail_at(t, i, "Cannot overwrite a value");
  if (!(at(t, i) == ']' && has(t, i))) fail_at(t, i, "Expected ']' at the end of a table declaration");
  section_open(t, sec, flags, key, table);
  return i + 1;
}

/* [[array of tables]] */
static size_t array_table_rule(Toml *t, size_t i, TNode *root, FNode *flags, Section *sec) {
  i = skip_ws(t, i + 2);
  Key key;
  i = parse_key(t, i, &key);
  if (flags_is(t, flags, key, FL_FROZEN)) fail_key(t, i, "Cannot mutate immutable namespace ", key, "");
  flags_unset_all(t, flags, key);
  flags_set(t, flags, key, FL_EXPLICIT, false);
  TNode *c = get_or_create_nest(t, root, key_prefix(key, key.n - 1), true);
  if (!c) fail_at(t, i, "Cannot overwrite a value");
  const char *stem = key.parts[key.n - 1];
  size_t slen = key.lens[key.n - 1];
  TNode *list = table_get(t, c, stem, slen);
  if (list && list->kind != TK_ARRAY) fail_at(t, i, "Cannot overwrite a value");
  if (!list) {
    list = node(t, TK_ARRAY);
    kids_push(t, c, stem, slen, list);
  }
  TNode *table = node(t, TK_TABLE);
  kids_push(t, list, NULL, 0, table);
  if (!starts(t, i, "]]")) fail_at(t, i, "Expected ']]' at the end of an array declaration");
  section_open(t, sec, flags, key, table);
  return i + 2;
}

/* document = (statement? comment? '\n')* */
static void parse_document(Toml *t, TNode *root) {
  FNode *flags = arena_alloc(&t->arena, sizeof *flags);
  Section sec = {{NULL, NULL, 0}, root, flags, 0};
  size_t i = 0;
  for (;;) {
    i = skip_ws(t, i);
    if (!has(t, i)) break;
    char c = t->s[i];
    if (c == '\n') {
      i++;
      continue;
    }
    if (bare_char(c) || c == '"' || c == '\'') {
      i = key_value_rule(t, i, &sec);
      i = skip_ws(t, i);
    } else if (c == '[') {
      finalize_pending(t);
      if (at(t, i + 1) == '[' && has(t, i + 1)) i = array_table_rule(t, i, root, flags, &sec);
      else i = table_rule(t, i, root, flags, &sec);
      i = skip_ws(t, i);
    } else if (c != '#') {
      fail_at(t, i, "Invalid statement");
    }
    i = skip_comment(t, i);
    if (!has(t, i)) break;
    if (t->s[i] != '\n') fail_at(t, i, "Expected newline or end of document after a statement");
    i++;
  }
}

/* ---- conversion to JsonValue ----------------------------------------------------------- */

typedef enum { CV_OK, CV_ERR, CV_FAIL } CvStatus;

/* Conversion keeps finished values on one rooted Vec (t->stack), so
 * nesting needs no GC roots per level: a container's keys and values sit
 * there until the container is built from them. */
static bool stack_push(Toml *t, Value v) { return vm_array_push(t->vm, t->stack, v); }

static size_t stack_len(Toml *t) {
  size_t n;
  vm_array_items(t->stack, &n);
  return n;
}

/* The top of the stack becomes the one field of constructor `name`. */
static bool stack_wrap(Toml *t, const char *name) {
  size_t n;
  Value *items = vm_array_items(t->stack, &n), w;
  /* vm_ctor reads the field after allocating; the stack's storage does
   * not move meanwhile (no push happens), so the pointer stays valid */
  if (!vm_ctor(t->vm, name, &items[n - 1], 1, &w)) return false;
  vm_array_items(t->stack, &n)[n - 1] = w;
  return true;
}

/* The reference converts the parsed document top-down: sizes (raised),
 * non-finite floats (an Err), dates and times (raised). The JsonValue of
 * x is pushed on the stack. */
static CvStatus convert(Toml *t, TNode *x, const char **err, int depth) {
  VM *vm = t->vm;
  Value v;
  switch (x->kind) {
    case TK_BOOL: return stack_push(t, v_bool(x->b)) && stack_wrap(t, "JsonBool") ? CV_OK : CV_FAIL;
    case TK_INT: {
      mpz_t z;
      /* not from the arena: its exhaustion jumps to the parser's handler,
       * which has returned by now */
      char *digits = strndup(x->s, x->n);
      if (!digits) {
        vm_error(vm, E_RESOURCE, "out of memory in toml_parse");
        return CV_FAIL;
      }
      mpz_init_set_str(z, digits, x->base);
      free(digits);
      if (x->neg) mpz_neg(z, z);
      bool ok = vm_int_from_mpz(vm, z, &v);
      mpz_clear(z);
      return ok && stack_push(t, v) && stack_wrap(t, "JsonInt") ? CV_OK : CV_FAIL;
    }
    case TK_FLOAT:
      if (!isfinite(x->f)) {
        *err = "json_parse: non-finite JSON number";
        return CV_ERR;
      }
      return stack_push(t, v_float(x->f)) && stack_wrap(t, "JsonFloat") ? CV_OK : CV_FAIL;
    case TK_STR:
      if (!lib_check_count(vm, "String", lib_cp_count(x->s, x->n))) return CV_FAIL;
      return vm_string(vm, x->s, x->n, &v) && stack_push(t, v) && stack_wrap(t, "JsonString") ? CV_OK : CV_FAIL;
    case TK_DATE:
    case TK_DATETIME:
    case TK_TIME:
      vm_error(vm, E_RUNTIME, "json_parse: unsupported JSON value type: %s",
               x->kind == TK_DATE ? "date" : x->kind == TK_TIME ? "time" : "datetime");
      return CV_FAIL;
    default: break;
  }
  bool table = x->kind == TK_TABLE;
  if (depth > TOML_MAX_NESTING) {
    vm_error(vm, E_RUNTIME, "toml_parse: input nested too deeply (max %d)", TOML_MAX_NESTING);
    return CV_FAIL;
  }
  if (!vm_c_stack_check(vm, "toml_parse")) return CV_FAIL;
  if (!lib_check_count(vm, table ? "Map" : "List", x->len) || !vm_charge(vm, x->len)) return CV_FAIL;
  size_t base = stack_len(t);
  for (size_t i = 0; i < x->len; i++) {
    if (table) {
      if (!lib_check_count(vm, "String", lib_cp_count(x->keys[i], x->klens[i]))) return CV_FAIL;
      if (!vm_string(vm, x->keys[i], x->klens[i], &v) || !stack_push(t, v)) return CV_FAIL;
    }
    CvStatus st = convert(t, x->kids[i], err, depth + 1);
    if (st != CV_OK) return st;
  }
  /* build the items (pairs for a table) from the stack, then replace
   * them by the container */
  Value list = v_unit();
  vm_push_root(vm, &list);
  bool ok = vm_list(vm, x->len, &list);
  for (size_t i = 0; ok && i < x->len; i++) {
    size_t len;
    if (table) {
      Value pair;
      ok = vm_tuple(vm, 2, &pair);
      if (!ok) break;
      Value *items = vm_array_items(t->stack, &len), *tv = vm_tuple_items(pair, &len);
      tv[0] = items[base + 2 * i];
      tv[1] = items[base + 2 * i + 1];
      vm_list_items(list, &len)[i] = pair;
    } else {
      vm_list_items(list, &len)[i] = vm_array_items(t->stack, &len)[base + i];
    }
  }
  if (ok) {
    Value dummy;
    while (stack_len(t) > base) vm_array_pop(t->stack, &dummy);
    ok = stack_push(t, list) && stack_wrap(t, table ? "JsonObject" : "JsonArray");
  }
  vm_pop_roots(vm, 1);
  return ok ? CV_OK : CV_FAIL;
}

/* Set t up to read src (n bytes): "\r\n" reads as "\n" everywhere,
 * strings included, as in tomllib. False when out of memory. */
static bool toml_open(Toml *t, VM *vm, const char *src, size_t n) {
  t->vm = vm;
  if (!toml_reserve(t, n + 1)) return false;
  char *text = malloc(n + 1);
  if (!text) return false;
  size_t k = 0;
  for (size_t i = 0; i < n; i++) {
    if (src[i] == '\r' && i + 1 < n && src[i + 1] == '\n') continue;
    text[k++] = src[i];
  }
  t->s = text;
  t->n = k;
  arena_init(&t->arena, TOML_ARENA_LIMIT);
  t->arena.oom = &t->fail;
  t->arena.charge = toml_reserve;
  t->arena.charge_ctx = t;
  return true;
}

static void toml_close(Toml *t) {
  if (t->vm) vm_release(t->vm, t->reserved);
  free(t->err);
  buf_free(&t->sb);
  free(t->slots);
  arena_free(&t->arena);
  free((char *)t->s);
  free(t);
}

/* Parse the whole document into *root; false on a syntax error (t->err)
 * or exhaustion (t->oom or no t->err). */
static bool toml_read(Toml *t, TNode **root) {
  if (setjmp(t->fail) != 0) return false;
  *root = node(t, TK_TABLE);
  parse_document(t, *root);
  return true;
}

/* toml_parse(text) -> Result[JsonValue, String] */
static bool lib_toml_parse(VM *vm, Value *args, int nargs, Value *out) {
  size_t n;
  const char *src = lib_str(args[0], &n);
  if (!vm_charge(vm, n)) return false;
  Toml *t = calloc(1, sizeof *t);
  if (!t || !toml_open(t, vm, src, n)) {
    bool raised = t && t->vm_failed;
    if (t) toml_close(t);
    return raised || vm_error(vm, E_RESOURCE, "out of memory in toml_parse");
  }
  TNode *root = NULL;
  bool ok = toml_read(t, &root);
  bool result;
  if (!ok) {
    /* memory is a limit (E504, uncatchable) like every other */
    if (t->vm_failed) result = false;
    else if (t->oom || !t->err) result = vm_error(vm, E_RESOURCE, "out of memory in toml_parse");
    else if (t->depth < 0) result = vm_error(vm, E_RUNTIME, "%s", t->err);
    else result = vm_string(vm, t->err, strlen(t->err), out) && vm_err(vm, *out, out);
  } else {
    const char *err = NULL;
    t->stack = v_unit();
    vm_push_root(vm, &t->stack);
    CvStatus st = vm_array(vm, T_VEC, 0, &t->stack) ? convert(t, root, &err, 0) : CV_FAIL;
    if (st == CV_OK) {
      size_t len;
      *out = vm_array_items(t->stack, &len)[0];
    }
    vm_pop_roots(vm, 1);
    if (st == CV_ERR) result = vm_string(vm, err, strlen(err), out) && vm_err(vm, *out, out);
    else result = st == CV_OK && vm_ok(vm, *out, out);
  }
  toml_close(t);
  return result;
}

char *lib_toml_check(const char *src, size_t n) {
  Toml *t = calloc(1, sizeof *t);
  if (!t || !toml_open(t, NULL, src, n)) {
    free(t);
    return strdup("out of memory reading TOML");
  }
  TNode *root = NULL;
  char *err = NULL;
  if (!toml_read(t, &root)) {
    err = t->err && !t->oom ? t->err : NULL;
    t->err = NULL;
    if (!err) err = strdup("out of memory reading TOML");
  }
  toml_close(t);
  return err;
}

const BuiltinDef lib_toml_builtins[] = {
    {"toml_parse", "(text: String) -> Result[JsonValue, String]", 0, NULL, 0, lib_toml_parse, "$b_toml_parse"},
};
const size_t lib_toml_builtin_count = ARRAY_LEN(lib_toml_builtins);
