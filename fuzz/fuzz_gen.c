/* libFuzzer target that generates well-typed Geno programs: the fuzzer's
 * bytes are the choices of a generator (statements, expressions, every
 * builtin from the builtin table, constructors, closures, matches, loops,
 * try/catch, helpers with examples and contracts, test blocks), so nearly
 * every input passes the checker and reaches the compiler, the VM, the GC
 * and the builtins, where random source text rarely gets.
 *
 * Each program runs through the harness (harness.c: tight limits, fake
 * host, result properties); in addition, a generated program that the
 * front end or the checker rejects is a finding (either the generator or
 * the checker is wrong about the language). FUZZ_GEN_PRINT=1 prints each
 * program on stderr. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"
#include "harness.h"
#include "lib/builtins.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* ---- limits of one generated program ---------------------------------------- */

#define MAX_VARS 512     /* variables in scope at once */
#define MAX_HELPERS 6    /* helper functions besides main */
#define MAX_EDEPTH 5     /* expression nesting */
#define MAX_SDEPTH 3     /* statement nesting (if/while/for/match/try) */
/* Expressions and statements per function: main gets the most, it is
 * what runs (helpers run when called, tests only in test mode). */
#define MAIN_BUDGET 300
#define HELPER_BUDGET 60
#define TEST_BUDGET 40
#define MAX_OUT (256 << 10)

/* ---- signatures: the builtin table plus constructors ------------------------ */

static const char *const ctor_sigs[][2] = {
    {"Some", "(value: T) -> Option[T]"},
    {"None", "() -> Option[T]"},
    {"Ok", "(value: T) -> Result[T, E]"},
    {"Err", "(error: E) -> Result[T, E]"},
    {"JsonString", "(value: String) -> JsonValue"},
    {"JsonInt", "(value: Int) -> JsonValue"},
    {"JsonFloat", "(value: Float) -> JsonValue"},
    {"JsonBool", "(value: Bool) -> JsonValue"},
    {"JsonNull", "() -> JsonValue"},
    {"JsonArray", "(items: List[JsonValue]) -> JsonValue"},
    {"JsonObject", "(entries: List[(String, JsonValue)]) -> JsonValue"},
    {"HttpResponse", "(status: Int, body: String, headers: List[(String, String)]) -> HttpResponse"},
    {"ProcessResult", "(exit_code: Int, stdout: String, stderr: String) -> ProcessResult"},
    {"FileKindFile", "() -> FileKind"},
    {"FileKindDirectory", "() -> FileKind"},
    {"FileMetadata", "(kind: FileKind, size: Int, modified_ms: Int) -> FileMetadata"},
    /* The program's own types (see header below). */
    {"Circle", "(r: Int) -> Shape"},
    {"Rect", "(w: Int, h: Float) -> Shape"},
    {"Dot", "() -> Shape"},
    {"Box", "(v: Int, s: String, items: List[Int]) -> Box"},
    {"Leaf", "() -> Tree"},
    {"Node", "(left: Tree, val: Int, right: Tree) -> Tree"},
    {"Wrap", "(inner: A) -> Wrap[A]"},
};

static const char program_header[] =
    "type Shape = Circle(r: Int) | Rect(w: Int, h: Float) | Dot\n"
    "type Box = Box(v: Int, s: String, items: List[Int])\n"
    "type Tree = Leaf | Node(left: Tree, val: Int, right: Tree)\n"
    "type Wrap[A] = Wrap(inner: A)\n\n";

/* Fields that every variant of a type has. */
static const struct { const char *adt, *field, *type; } fields[] = {
    {"Box", "v", "Int"}, {"Box", "s", "String"}, {"Box", "items", "List[Int]"},
    {"HttpResponse", "status", "Int"}, {"HttpResponse", "body", "String"},
    {"ProcessResult", "exit_code", "Int"}, {"ProcessResult", "stdout", "String"},
    {"FileMetadata", "size", "Int"},
};

static Sig *sigs;
static int nsigs;
static const Ty *field_types[sizeof fields / sizeof fields[0]];

static void load_sigs(void) {
  size_t nb;
  const BuiltinDef *b = lib_builtins(&nb);
  size_t nctor = sizeof ctor_sigs / sizeof ctor_sigs[0];
  sigs = calloc(nb + nctor, sizeof *sigs);
  if (!sigs) abort();
  for (size_t i = 0; i < nb; i++) {
    if (!b[i].sig || (!b[i].fn && !(b[i].flags & BF_CALLBACK))) continue;
    if (b[i].flags & BF_APP_STUB) continue;
    Sig s;
    if (!gt_sig_parse(&s, b[i].name, b[i].sig)) continue;
    s.effect = b[i].effect != NULL;
    sigs[nsigs++] = s;
  }
  for (size_t i = 0; i < nctor; i++) {
    Sig s;
    if (!gt_sig_parse(&s, ctor_sigs[i][0], ctor_sigs[i][1])) abort();
    s.ctor = true;
    sigs[nsigs++] = s;
  }
  for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
    Sig s;
    char text[96];
    snprintf(text, sizeof text, "() -> %s", fields[i].type);
    if (!gt_sig_parse(&s, "field", text)) abort();
    field_types[i] = s.ret;
  }
}

/* ---- generator state ---------------------------------------------------------- */

typedef struct Var {
  char name[12];
  const Ty *t;
  bool mut;
  bool eff_fn; /* a function value with effects: callable only as a statement */
} Var;

typedef struct Helper {
  char name[12];
  int np;
  char pname[3][8];
  const Ty *pt[3];
  const Ty *ret;
  bool pure;
} Helper;

typedef struct Gen {
  const uint8_t *p;
  size_t n, i;
  char *out;
  size_t len;
  bool broken; /* out of memory or types: the program is dropped */
  Var vars[MAX_VARS];
  int nvars;
  Helper h[MAX_HELPERS + 1];
  int nh, cur; /* helpers; the one being written (nh: main, tests) */
  int budget, edepth, sdepth, loops, ind, id;
  bool pure;     /* no effects allowed here */
  bool fstr;     /* inside an f-string interpolation: no string literals */
  bool in_try;   /* a throw here is caught */
  bool in_test;
  bool import_fz;
  const Ty *fn_ret; /* return type of the function being written */
} Gen;

static unsigned pick(Gen *g, unsigned n) {
  if (n <= 1 || g->i >= g->n) return 0;
  return g->p[g->i++] % n;
}

/* k in n, false once the input is used up (so generation winds down). */
static bool chance(Gen *g, unsigned k, unsigned n) { return pick(g, n) >= n - k; }

static void emit(Gen *g, const char *s) {
  size_t k = strlen(s);
  if (g->broken || g->len + k + 1 > MAX_OUT) {
    g->broken = true;
    return;
  }
  memcpy(g->out + g->len, s, k + 1);
  g->len += k;
}

static void emitf(Gen *g, const char *fmt, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  emit(g, buf);
}

static void emit_ty(Gen *g, const Ty *t) {
  char buf[512];
  gt_print(t, buf, sizeof buf);
  emit(g, buf);
}

static void nl(Gen *g) {
  emit(g, "\n");
  for (int i = 0; i < g->ind; i++) emit(g, "  ");
}

static const char *fresh(Gen *g, char prefix, char *buf) {
  snprintf(buf, 12, "%c%d", prefix, g->id++);
  return buf;
}

static Var *add_var(Gen *g, const char *name, const Ty *t, bool mut) {
  if (g->nvars == MAX_VARS || !t) {
    g->broken = true;
    return NULL;
  }
  Var *v = &g->vars[g->nvars++];
  snprintf(v->name, sizeof v->name, "%s", name);
  v->t = t;
  v->mut = mut;
  v->eff_fn = false;
  return v;
}

/* ---- types ------------------------------------------------------------------- */

static const Ty *T(TyKind k) { return gt_simple(k); }

static const Ty *mk(Gen *g, TyKind k, const char *name, int n, const Ty *a0, const Ty *a1) {
  const Ty *args[2] = {a0, a1};
  const Ty *t = gt_new(k, name, n, args, NULL);
  if (!t) g->broken = true;
  return t ? t : T(TY_INT);
}

static const Ty *rand_hashable(Gen *g) {
  switch (pick(g, 8)) {
  case 1: return T(TY_STRING);
  case 2: return T(TY_BOOL);
  case 3: return T(TY_FLOAT);
  case 4: return mk(g, TY_TUPLE, NULL, 2, T(TY_INT), T(TY_STRING));
  case 5: return mk(g, TY_OPTION, NULL, 1, T(TY_INT), NULL);
  case 6: return mk(g, TY_ADT, "Shape", 0, NULL, NULL);
  default: return T(TY_INT);
  }
}

static const Ty *rand_type(Gen *g, int depth) {
  unsigned c = pick(g, depth > 0 ? 22 : 5);
  switch (c) {
  case 0: return T(TY_INT);
  case 1: return T(TY_STRING);
  case 2: return T(TY_FLOAT);
  case 3: return T(TY_BOOL);
  case 4: return chance(g, 1, 4) ? T(TY_UNIT) : T(TY_INT);
  case 5: case 6: return mk(g, TY_LIST, NULL, 1, rand_type(g, depth - 1), NULL);
  case 7: return mk(g, TY_OPTION, NULL, 1, rand_type(g, depth - 1), NULL);
  case 8: return mk(g, TY_RESULT, NULL, 2, rand_type(g, depth - 1), T(TY_STRING));
  case 9: return mk(g, TY_TUPLE, NULL, 2, rand_type(g, depth - 1), rand_type(g, depth - 1));
  case 10: return mk(g, TY_MAP, NULL, 2, rand_hashable(g), rand_type(g, depth - 1));
  case 11: return mk(g, TY_SET, NULL, 1, rand_hashable(g), NULL);
  case 12: return mk(g, TY_ARRAY, NULL, 1, rand_type(g, depth - 1), NULL);
  case 13: return mk(g, TY_VEC, NULL, 1, rand_type(g, depth - 1), NULL);
  case 14: return g->fstr ? T(TY_INT) : mk(g, TY_MMAP, NULL, 2, rand_hashable(g), rand_type(g, depth - 1));
  case 15: return mk(g, TY_ADT, "Shape", 0, NULL, NULL);
  case 16: return mk(g, TY_ADT, "Box", 0, NULL, NULL);
  case 17: return mk(g, TY_ADT, "Tree", 0, NULL, NULL);
  case 18: return mk(g, TY_ADT, "Wrap", 1, rand_type(g, depth - 1), NULL);
  case 19: return mk(g, TY_ADT, "JsonValue", 0, NULL, NULL);
  case 20: return mk(g, TY_LIST, NULL, 1, T(TY_INT), NULL);
  default: return mk(g, TY_LIST, NULL, 1, T(TY_STRING), NULL);
  }
}

static bool is_adt(const Ty *t, const char *name) { return t->k == TY_ADT && strcmp(t->name, name) == 0; }

/* ---- literals ------------------------------------------------------------------- */

static void int_lit(Gen *g) {
  static const char *const special[] = {
      "0", "1", "2", "3", "7", "10", "100", "255", "256", "65536", "2147483647", "4294967296",
      "9223372036854775807", "9223372036854775808", "18446744073709551616",
      "340282366920938463463374607431768211457", "33219", "10000", "9999", "64", "63", "53",
  };
  unsigned c = pick(g, 8);
  if (c < 4) emitf(g, "%u", pick(g, 8));
  else if (c == 4) emit(g, special[pick(g, sizeof special / sizeof special[0])]);
  else if (c == 5) emitf(g, "(-%s)", special[pick(g, sizeof special / sizeof special[0])]);
  else emitf(g, "%u", pick(g, 256) * 257 + pick(g, 256));
}

static void float_lit(Gen *g) {
  static const char *const special[] = {
      "0.0", "1.0", "0.5", "1.5", "2.5", "0.1", "3.141592653589793", "100000000000000000000.0",
      "9007199254740993.0", "0.000001", "123.456", "1e", "179769313486231570000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000.0",
  };
  unsigned n = sizeof special / sizeof special[0];
  unsigned c = pick(g, n + 2);
  if (c == 11) c = 0; /* "1e" is not a Float literal */
  if (c < n) emit(g, special[c]);
  else if (c == n) emitf(g, "(-%s)", special[pick(g, 8)]);
  else emitf(g, "%u.%u", pick(g, 256), pick(g, 256));
}

static void string_lit(Gen *g) {
  static const char *const special[] = {
      "", "a", "hello", "h\\u00e9", "héllo", "日本語", "😀", "a,b,,c", "  pad  ", "\\n", "\\t",
      "\\\"q\\\"", "\\\\", "123", "-42", "3.5", " 7 ", "{}", "{0} and {1}", "%s", "[1, 2]",
      "{\\\"a\\\": [1, 2.5, true, null]}", "a\\nb\\r\\nc", "err", "bad", "big", "none", "Straße",
      "İstanbul", "ﬁ", "ΣΑΣ", "x = 1\\ny = \\\"s\\\"\\n[t]\\nz = [1, 2]", "a+", "(a|b)*c", "[0-9]+",
      "^h", "(?i)HELLO", "\\\\d+", "(", "*", "a\\tb", "name,age\\nbob,3\\n", "\\\"x,y\\\",z",
      "/tmp/x.txt", "../a/b", "%Y-%m-%d", "2024-01-02", "\\r", "0", "1e5", "-0", "\\u0000",
  };
  unsigned n = sizeof special / sizeof special[0];
  unsigned c = pick(g, n + 4);
  if (c < n) {
    /* "\\u00e9" and "\\u0000" are invalid escapes in Geno: only the
     * interesting raw ones are kept. */
    const char *s = special[c];
    if (strstr(s, "\\u")) s = "u";
    emitf(g, "\"%s\"", s);
    return;
  }
  /* Random text from the input: printable ASCII, plus a few multi-byte
   * characters, escaped as Geno requires. */
  char buf[80];
  size_t k = 0;
  unsigned len = pick(g, 12);
  buf[k++] = '"';
  for (unsigned i = 0; i < len && k < sizeof buf - 8; i++) {
    unsigned ch = pick(g, 100);
    if (ch < 94) {
      char ch2 = (char)(' ' + ch);
      if (ch2 == '"' || ch2 == '\\') buf[k++] = '\\';
      buf[k++] = ch2;
    } else if (ch < 97) {
      memcpy(buf + k, "\xc3\xa9", 2);
      k += 2;
    } else {
      memcpy(buf + k, "\xf0\x9f\x98\x80", 4);
      k += 4;
    }
  }
  buf[k++] = '"';
  buf[k] = 0;
  emit(g, buf);
}

/* ---- expressions ---------------------------------------------------------------- */

static void gen_expr(Gen *g, const Ty *t, bool ctx);
static void gen_leaf(Gen *g, const Ty *t, bool ctx);
static void gen_block(Gen *g, int max);

static Var *find_var(Gen *g, const Ty *t, bool mut_only) {
  int cand[64], n = 0;
  for (int i = g->nvars - 1; i >= 0 && n < 64; i--)
    if (!g->vars[i].eff_fn && gt_equal(g->vars[i].t, t) && (!mut_only || g->vars[i].mut)) cand[n++] = i;
  if (!n) return NULL;
  return &g->vars[cand[pick(g, (unsigned)n)]];
}

/* A lambda of function type t: fn(p: A, ...) -> body. The body is pure
 * (lambdas passed to builtins must be effect-free). */
static void gen_lambda(Gen *g, const Ty *t) {
  int saved = g->nvars;
  bool pure = g->pure;
  emit(g, "fn(");
  for (int i = 0; i < t->n; i++) {
    char nm[12];
    fresh(g, 'p', nm);
    emitf(g, "%s%s: ", i ? ", " : "", nm);
    emit_ty(g, t->a[i]);
    add_var(g, nm, t->a[i], false);
  }
  emit(g, ") -> ");
  g->pure = true;
  gen_expr(g, t->ret, false);
  g->pure = pure;
  g->nvars = saved;
}

/* The IIFE that gives a context-typed expression an annotation:
 * (fn() do let t: T = e return t end fn)(). Multi-line, so never inside
 * an f-string. */
static void gen_annotated(Gen *g, const Ty *t) {
  char nm[12];
  fresh(g, 't', nm);
  emit(g, "(fn() do let ");
  emitf(g, "%s: ", nm);
  emit_ty(g, t);
  emit(g, " = ");
  gen_expr(g, t, true);
  emitf(g, " return %s end fn)()", nm);
}

static void gen_leaf(Gen *g, const Ty *t, bool ctx) {
  if (g->broken) return;
  Var *v = chance(g, 3, 4) ? find_var(g, t, false) : NULL;
  if (v) {
    emit(g, v->name);
    return;
  }
  switch (t->k) {
  case TY_INT: int_lit(g); return;
  case TY_FLOAT: float_lit(g); return;
  case TY_STRING:
    if (g->fstr) emitf(g, "from_char_code(%u)", 32 + pick(g, 95));
    else string_lit(g);
    return;
  case TY_BOOL: emit(g, pick(g, 2) ? "true" : "false"); return;
  case TY_UNIT: emit(g, "()"); return;
  case TY_LIST:
    if (ctx && chance(g, 1, 3)) {
      emit(g, "[]");
      return;
    }
    emit(g, "[");
    gen_leaf(g, t->a[0], false);
    emit(g, "]");
    return;
  case TY_OPTION:
    if (ctx && chance(g, 1, 3)) {
      emit(g, "None");
      return;
    }
    emit(g, "Some(");
    gen_leaf(g, t->a[0], false);
    emit(g, ")");
    return;
  case TY_RESULT:
    if (ctx) {
      bool err = pick(g, 2);
      emit(g, err ? "Err(" : "Ok(");
      gen_leaf(g, err ? t->a[1] : t->a[0], false);
      emit(g, ")");
      return;
    }
    emit(g, "option_to_result(Some(");
    gen_leaf(g, t->a[0], false);
    emit(g, "), ");
    gen_leaf(g, t->a[1], false);
    emit(g, ")");
    return;
  case TY_MAP:
    emit(g, "map_from_list([(");
    gen_leaf(g, t->a[0], false);
    emit(g, ", ");
    gen_leaf(g, t->a[1], false);
    emit(g, ")])");
    return;
  case TY_SET: case TY_ARRAY: case TY_VEC:
    emit(g, t->k == TY_SET ? "set_from_list([" : t->k == TY_ARRAY ? "array_from_list([" : "vec_from_list([");
    gen_leaf(g, t->a[0], false);
    emit(g, "])");
    return;
  case TY_MMAP:
    if (ctx) emit(g, "mutable_map_new()");
    else if (g->fstr) g->broken = true;
    else gen_annotated(g, t);
    return;
  case TY_TUPLE:
    emit(g, "(");
    for (int i = 0; i < t->n; i++) {
      if (i) emit(g, ", ");
      gen_leaf(g, t->a[i], false);
    }
    emit(g, ")");
    return;
  case TY_FN: {
    int budget = g->budget;
    g->budget = 0; /* a leaf lambda has a leaf body */
    gen_lambda(g, t);
    g->budget = budget;
    return;
  }
  case TY_ADT:
    if (is_adt(t, "Shape")) emit(g, "Dot");
    else if (is_adt(t, "Tree")) emit(g, "Leaf");
    else if (is_adt(t, "JsonValue")) emit(g, "JsonNull");
    else if (is_adt(t, "FileKind")) emit(g, "FileKindFile");
    else if (is_adt(t, "Wrap")) {
      emit(g, "Wrap(");
      gen_leaf(g, t->a[0], false);
      emit(g, ")");
    } else if (is_adt(t, "Box")) {
      emit(g, "Box(");
      gen_leaf(g, T(TY_INT), false);
      emit(g, ", ");
      gen_leaf(g, T(TY_STRING), false);
      emit(g, ", [");
      gen_leaf(g, T(TY_INT), false);
      emit(g, "])");
    } else if (is_adt(t, "FileMetadata")) emit(g, "FileMetadata(FileKindFile, 0, 0)");
    else if (is_adt(t, "ProcessResult") && !g->fstr) emit(g, "ProcessResult(0, \"\", \"\")");
    else if (is_adt(t, "HttpResponse") && !g->fstr) emit(g, "HttpResponse(200, \"\", [(\"a\", \"b\")])");
    else if (is_adt(t, "HttpRequest") && !g->fstr)
      emit(g, "HttpRequest(\"GET\", \"/\", \"\", [(\"a\", \"b\")], \"\")");
    else g->broken = true;
    return;
  default:
    g->broken = true;
  }
}

/* Parameters where a small Int keeps the call from failing (most of the
 * time: other values test the error paths). */
static bool small_param(const char *name) {
  static const char *const names[] = {"index", "count", "size", "start", "stop", "width", "indent", "code"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (strcmp(name, names[i]) == 0) return true;
  return false;
}

/* Can a call name this parameter? Not when its name is a keyword
 * (flat_map's `fn`). */
static bool nameable(const Sig *s) {
  static const char *const keywords[] = {"fn", "do", "end", "in", "with", "type", "match", "test", "try"};
  for (int i = 0; i < s->np; i++)
    for (size_t k = 0; k < sizeof keywords / sizeof keywords[0]; k++)
      if (strcmp(s->pname[i], keywords[k]) == 0) return false;
  return true;
}

/* Arguments of a call to sig s instantiated with b; named when the
 * named-argument rule asks for it, or at random. */
static void gen_args(Gen *g, const Sig *s, Binds *b, bool pipeline_first_done) {
  int np = s->np;
  /* Optional parameters: sometimes; never in a pipeline stage (the
   * checker counts a stage's arguments against the required ones). */
  if (np > s->nrequired && (pipeline_first_done || !chance(g, 1, 2))) np = s->nrequired;
  bool named = !s->ctor && !pipeline_first_done && nameable(s) && (np >= 3 || chance(g, 1, 4));
  if (strcmp(s->name, "range") == 0) named = false;
  bool first = true;
  for (int i = pipeline_first_done ? 1 : 0; i < np; i++) {
    const Ty *pt = gt_subst(s->pt[i], b);
    if (!pt) {
      g->broken = true;
      return;
    }
    /* Variables that only the parameters mention: choose now. */
    while (gt_has_var(pt)) {
      const Ty *v = pt;
      /* find the first variable */
      const Ty *stack[64];
      int sp = 0;
      stack[sp++] = pt;
      v = NULL;
      while (sp && !v) {
        const Ty *x = stack[--sp];
        if (x->k == TY_VAR) v = x;
        else {
          for (int k = 0; k < x->n && sp < 63; k++) stack[sp++] = x->a[k];
          if (x->k == TY_FN && sp < 63) stack[sp++] = x->ret;
        }
      }
      if (!v || b->n == 12) {
        g->broken = true;
        return;
      }
      const Ty *c;
      if (strcmp(v->name, "Num") == 0) c = pick(g, 2) ? T(TY_FLOAT) : T(TY_INT);
      else if (v->name[1] == 0 && (s->hash_vars >> (v->name[0] - 'A') & 1)) c = rand_hashable(g);
      else c = rand_type(g, 1);
      b->name[b->n] = v->name;
      b->t[b->n++] = c;
      pt = gt_subst(s->pt[i], b);
      if (!pt) {
        g->broken = true;
        return;
      }
    }
    if (!first) emit(g, ", ");
    first = false;
    if (named) emitf(g, "%s: ", s->pname[i]);
    if (pt->k == TY_FN && !chance(g, 1, 8)) gen_lambda(g, pt);
    else if (pt->k == TY_INT && small_param(s->pname[i]) && !chance(g, 1, 4)) emitf(g, "%u", pick(g, 2) ? 0 : pick(g, 3));
    else gen_expr(g, pt, false);
  }
}

/* A call of a builtin or constructor whose result is t. */
static bool gen_call(Gen *g, const Ty *t, bool ctx, bool pipeline) {
  int cand[512], n = 0;
  for (int i = 0; i < nsigs && n < 512; i++) {
    const Sig *s = &sigs[i];
    if ((g->pure && s->effect) || (s->needs_context && !ctx) || (pipeline && (s->np == 0 || s->ctor)))
      continue;
    Binds b = {0};
    if (!gt_unify(s->ret, t, &b, s->hash_vars)) continue;
    /* A pipeline's first stage input must be fixed by the result. */
    if (pipeline && gt_has_var(gt_subst(s->pt[0], &b))) continue;
    cand[n++] = i;
  }
  if (!n) return false;
  const Sig *s = &sigs[cand[pick(g, (unsigned)n)]];
  Binds b = {0};
  gt_unify(s->ret, t, &b, s->hash_vars);
  if (pipeline) {
    /* (first |> f(rest)) */
    const Ty *p0 = gt_subst(s->pt[0], &b);
    if (!p0) {
      g->broken = true;
      return true;
    }
    emit(g, "(");
    gen_expr(g, p0, false);
    emitf(g, " |> %s", s->name);
    if (s->nrequired > 1) {
      emit(g, "(");
      gen_args(g, s, &b, true);
      emit(g, ")");
    }
    emit(g, ")");
    return true;
  }
  if (s->ctor && s->np == 0) {
    emit(g, s->name);
    return true;
  }
  emitf(g, "%s(", s->name);
  gen_args(g, s, &b, false);
  emit(g, ")");
  return true;
}

/* Arithmetic, comparison, logic and string operators. */
static bool gen_operator(Gen *g, const Ty *t) {
  static const char *const int_ops[] = {"+", "-", "*", "/", "%", "**", "&", "^", "<<", ">>"};
  static const char *const float_ops[] = {"+", "-", "*", "/", "%", "**"};
  static const char *const cmp_ops[] = {"<", "<=", ">", ">="};
  switch (t->k) {
  case TY_INT:
    if (chance(g, 1, 6)) {
      emit(g, pick(g, 2) ? "(-" : "(~");
      gen_expr(g, t, false);
      emit(g, ")");
      return true;
    }
    emit(g, "(");
    gen_expr(g, t, false);
    emitf(g, " %s ", int_ops[pick(g, sizeof int_ops / sizeof int_ops[0])]);
    gen_expr(g, t, false);
    emit(g, ")");
    return true;
  case TY_FLOAT: {
    /* Int op Float is Float too. */
    unsigned mix = pick(g, 4);
    emit(g, "(");
    gen_expr(g, mix == 1 ? T(TY_INT) : t, false);
    emitf(g, " %s ", float_ops[pick(g, sizeof float_ops / sizeof float_ops[0])]);
    gen_expr(g, mix == 2 ? T(TY_INT) : t, false);
    emit(g, ")");
    return true;
  }
  case TY_STRING:
    emit(g, "(");
    gen_expr(g, t, false);
    emit(g, " + ");
    gen_expr(g, t, false);
    emit(g, ")");
    return true;
  case TY_BOOL: {
    unsigned c = pick(g, 5);
    if (c == 0) {
      emit(g, "(not ");
      gen_expr(g, t, false);
      emit(g, ")");
    } else if (c == 1) {
      emit(g, "(");
      gen_expr(g, t, false);
      emit(g, pick(g, 2) ? " and " : " or ");
      gen_expr(g, t, false);
      emit(g, ")");
    } else if (c == 2) {
      const Ty *o = pick(g, 3) == 0 ? T(TY_STRING) : pick(g, 2) ? T(TY_FLOAT) : T(TY_INT);
      emit(g, "(");
      gen_expr(g, o, false);
      emitf(g, " %s ", cmp_ops[pick(g, 4)]);
      gen_expr(g, o, false);
      emit(g, ")");
    } else {
      const Ty *o = rand_type(g, 2);
      emit(g, "(");
      gen_expr(g, o, false);
      emit(g, pick(g, 2) ? " == " : " != ");
      gen_expr(g, o, false);
      emit(g, ")");
    }
    return true;
  }
  default:
    return false;
  }
}

/* Arms of a match on a value of type s, each ending in `body` (an
 * expression of type t, or statements when t is NULL). */
static void gen_arm_body(Gen *g, const Ty *t) {
  if (t) {
    gen_expr(g, t, false);
  } else {
    g->ind++;
    gen_block(g, 3);
    g->ind--;
  }
}

static void arm(Gen *g, const Ty *t, const char *pat) {
  if (t) emit(g, " ");
  else nl(g);
  emit(g, "| ");
  emit(g, pat);
  emit(g, " ->");
  if (t) emit(g, " ");
}

static void gen_match_arms(Gen *g, const Ty *s, const Ty *t) {
  char a[12], b2[12], c[12], pat[64];
  int saved = g->nvars;
  switch (s->k) {
  case TY_OPTION:
    fresh(g, 'b', a);
    snprintf(pat, sizeof pat, "Some(%s)", a);
    arm(g, t, pat);
    add_var(g, a, s->a[0], false);
    gen_arm_body(g, t);
    g->nvars = saved;
    arm(g, t, "None");
    gen_arm_body(g, t);
    break;
  case TY_RESULT:
    fresh(g, 'b', a);
    snprintf(pat, sizeof pat, "Ok(%s)", a);
    arm(g, t, pat);
    add_var(g, a, s->a[0], false);
    gen_arm_body(g, t);
    g->nvars = saved;
    fresh(g, 'b', a);
    snprintf(pat, sizeof pat, "Err(%s)", a);
    arm(g, t, pat);
    add_var(g, a, s->a[1], false);
    gen_arm_body(g, t);
    break;
  case TY_BOOL:
    arm(g, t, "true");
    gen_arm_body(g, t);
    arm(g, t, "false");
    gen_arm_body(g, t);
    break;
  case TY_LIST:
    arm(g, t, "[]");
    gen_arm_body(g, t);
    fresh(g, 'b', a);
    fresh(g, 'b', b2);
    snprintf(pat, sizeof pat, "[%s, ...%s]", a, b2);
    arm(g, t, pat);
    add_var(g, a, s->a[0], false);
    add_var(g, b2, s, false);
    gen_arm_body(g, t);
    break;
  case TY_ADT:
    if (is_adt(s, "Shape")) {
      fresh(g, 'b', a);
      snprintf(pat, sizeof pat, "Circle(%s)", a);
      arm(g, t, pat);
      add_var(g, a, T(TY_INT), false);
      gen_arm_body(g, t);
      g->nvars = saved;
      fresh(g, 'b', a);
      fresh(g, 'b', b2);
      snprintf(pat, sizeof pat, "Rect(%s, %s)", a, b2);
      arm(g, t, pat);
      add_var(g, a, T(TY_INT), false);
      add_var(g, b2, T(TY_FLOAT), false);
      gen_arm_body(g, t);
      g->nvars = saved;
      arm(g, t, "Dot");
      gen_arm_body(g, t);
      break;
    }
    if (is_adt(s, "Tree")) {
      arm(g, t, "Leaf");
      gen_arm_body(g, t);
      fresh(g, 'b', a);
      fresh(g, 'b', b2);
      fresh(g, 'b', c);
      snprintf(pat, sizeof pat, "Node(%s, %s, %s)", a, b2, c);
      arm(g, t, pat);
      add_var(g, a, s, false);
      add_var(g, b2, T(TY_INT), false);
      add_var(g, c, s, false);
      gen_arm_body(g, t);
      break;
    }
    if (is_adt(s, "JsonValue")) {
      fresh(g, 'b', a);
      snprintf(pat, sizeof pat, "JsonInt(%s)", a);
      arm(g, t, pat);
      add_var(g, a, T(TY_INT), false);
      gen_arm_body(g, t);
      g->nvars = saved;
      fresh(g, 'b', a);
      snprintf(pat, sizeof pat, "JsonArray([%s, ...])", a);
      arm(g, t, pat);
      add_var(g, a, s, false);
      gen_arm_body(g, t);
      g->nvars = saved;
    }
    /* Other ADTs: a binding covers everything. */
    fresh(g, 'b', a);
    arm(g, t, a);
    add_var(g, a, s, false);
    gen_arm_body(g, t);
    break;
  default:
    /* Literal arms (and a guarded one), then the required default. */
    if (s->k == TY_INT || s->k == TY_STRING) {
      for (unsigned k = pick(g, 3); k > 0; k--) {
        char lit[64];
        size_t mark = g->len;
        if (s->k == TY_INT) emitf(g, "%u", pick(g, 4));
        else string_lit(g);
        snprintf(lit, sizeof lit, "%s", g->out + mark);
        g->len = mark;
        g->out[mark] = 0;
        if (strlen(lit) >= sizeof lit - 1) continue;
        arm(g, t, lit);
        gen_arm_body(g, t);
      }
    }
    if (chance(g, 1, 3)) {
      fresh(g, 'b', a);
      add_var(g, a, s, false);
      size_t mark = g->len;
      emitf(g, "%s when ", a);
      gen_expr(g, T(TY_BOOL), false);
      char *guard = strdup(g->out + mark);
      g->len = mark;
      g->out[mark] = 0;
      if (guard) {
        arm(g, t, guard);
        free(guard);
        gen_arm_body(g, t);
      }
      g->nvars = saved;
    }
    fresh(g, 'b', a);
    arm(g, t, a);
    add_var(g, a, s, false);
    gen_arm_body(g, t);
    break;
  }
  g->nvars = saved;
  if (chance(g, 1, 8)) {
    arm(g, t, "_");
    gen_arm_body(g, t);
  }
}

static const Ty *scrutinee_type(Gen *g) {
  switch (pick(g, 9)) {
  case 0: return mk(g, TY_OPTION, NULL, 1, rand_type(g, 1), NULL);
  case 1: return mk(g, TY_RESULT, NULL, 2, rand_type(g, 1), T(TY_STRING));
  case 2: return T(TY_BOOL);
  case 3: return T(TY_INT);
  case 4: return T(TY_STRING);
  case 5: return mk(g, TY_LIST, NULL, 1, rand_type(g, 1), NULL);
  case 6: return mk(g, TY_ADT, "Tree", 0, NULL, NULL);
  case 7: return mk(g, TY_ADT, "JsonValue", 0, NULL, NULL);
  default: return mk(g, TY_ADT, "Shape", 0, NULL, NULL);
  }
}

static void gen_match_expr(Gen *g, const Ty *t) {
  const Ty *s = scrutinee_type(g);
  emit(g, "(match ");
  gen_expr(g, s, false);
  emit(g, " with");
  gen_match_arms(g, s, t);
  emit(g, " end match)");
}

/* Helpers callable from here with result t. */
static bool gen_helper_call(Gen *g, const Ty *t) {
  int cand[MAX_HELPERS], n = 0;
  int limit = g->cur < g->nh ? g->cur : g->nh;
  for (int i = 0; i < limit; i++)
    if (gt_equal(g->h[i].ret, t) && (!g->pure || g->h[i].pure)) cand[n++] = i;
  Var *fv = NULL;
  for (int i = g->nvars - 1; i >= 0; i--)
    if (!g->vars[i].eff_fn && g->vars[i].t->k == TY_FN && gt_equal(g->vars[i].t->ret, t)) {
      fv = &g->vars[i];
      break;
    }
  if (fv && (!n || pick(g, 2))) {
    emitf(g, "%s(", fv->name);
    for (int i = 0; i < fv->t->n; i++) {
      if (i) emit(g, ", ");
      gen_expr(g, fv->t->a[i], false);
    }
    emit(g, ")");
    return true;
  }
  if (!n) return false;
  const Helper *h = &g->h[cand[pick(g, (unsigned)n)]];
  bool named = h->np >= 3 || chance(g, 1, 2);
  emitf(g, "%s(", h->name);
  for (int i = 0; i < h->np; i++) {
    if (i) emit(g, ", ");
    if (named) emitf(g, "%s: ", h->pname[i]);
    gen_expr(g, h->pt[i], true);
  }
  emit(g, ")");
  return true;
}

static bool gen_field_or_index(Gen *g, const Ty *t) {
  unsigned c = pick(g, 8);
  if (c > 3) c = 0; /* fields more often than indexing (which fails more) */
  if (c == 0) {
    int cand[16], n = 0;
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
      if (gt_equal(field_types[i], t)) cand[n++] = (int)i;
    if (n) {
      int f = cand[pick(g, (unsigned)n)];
      emit(g, "(");
      gen_expr(g, mk(g, TY_ADT, fields[f].adt, 0, NULL, NULL), false);
      emitf(g, ").%s", fields[f].field);
      return true;
    }
    emit(g, "(");
    gen_expr(g, mk(g, TY_ADT, "Wrap", 1, t, NULL), false);
    emit(g, ").inner");
    return true;
  }
  const Ty *coll;
  const Ty *key = T(TY_INT);
  if (c == 1) coll = t->k == TY_STRING && pick(g, 2) ? t : mk(g, TY_LIST, NULL, 1, t, NULL);
  else if (c == 2) coll = mk(g, TY_ARRAY, NULL, 1, t, NULL);
  else {
    key = rand_hashable(g);
    coll = mk(g, TY_MAP, NULL, 2, key, t);
  }
  emit(g, "(");
  gen_expr(g, coll, false);
  emit(g, ")[");
  if (key->k == TY_INT && !chance(g, 1, 4)) emit(g, pick(g, 3) ? "0" : "(-1)");
  else gen_expr(g, key, false);
  emit(g, "]");
  return true;
}

static bool gen_comprehension(Gen *g, const Ty *t) {
  if (t->k != TY_LIST) return false;
  const Ty *et = rand_type(g, 1);
  char nm[12];
  fresh(g, 'x', nm);
  int saved = g->nvars;
  emit(g, "[");
  add_var(g, nm, et, false);
  gen_expr(g, t->a[0], false);
  g->nvars = saved;
  emitf(g, " for %s: ", nm);
  emit_ty(g, et);
  emit(g, " in ");
  gen_expr(g, mk(g, TY_LIST, NULL, 1, et, NULL), false);
  if (chance(g, 1, 2)) {
    emit(g, " if ");
    add_var(g, nm, et, false);
    gen_expr(g, T(TY_BOOL), false);
    g->nvars = saved;
  }
  emit(g, "]");
  return true;
}

static void gen_expr(Gen *g, const Ty *t, bool ctx) {
  if (g->broken) return;
  g->budget--;
  if (g->budget <= 0 || g->edepth >= MAX_EDEPTH) {
    gen_leaf(g, t, ctx);
    return;
  }
  /* Deeper expressions are more often leaves: statements stay small, so
   * most of them run to the end instead of failing somewhere inside. */
  if (pick(g, MAX_EDEPTH + 1) < (unsigned)g->edepth) {
    gen_leaf(g, t, ctx);
    return;
  }
  g->edepth++;
  bool done = false;
  for (int tries = 0; tries < 3 && !done && !g->broken; tries++) {
    switch (pick(g, 16)) {
    case 0: case 1:
      gen_leaf(g, t, ctx);
      done = true;
      break;
    case 2: case 3: case 4: case 5:
      done = gen_call(g, t, ctx, false);
      break;
    case 6:
      done = gen_call(g, t, ctx, true);
      break;
    case 7: case 8:
      done = gen_operator(g, t);
      break;
    case 9:
      done = gen_helper_call(g, t);
      break;
    case 10:
      if (g->fstr) break;
      gen_match_expr(g, t);
      done = true;
      break;
    case 11:
      if (g->fstr) break;
      if (pick(g, 2)) {
        gen_annotated(g, t);
      } else {
        /* (fn(p: A) -> e)(a) */
        const Ty *pt = rand_type(g, 1);
        char nm[12];
        fresh(g, 'p', nm);
        int saved = g->nvars;
        emitf(g, "(fn(%s: ", nm);
        emit_ty(g, pt);
        emit(g, ") -> ");
        add_var(g, nm, pt, false);
        gen_expr(g, t, false);
        g->nvars = saved;
        emit(g, ")(");
        gen_expr(g, pt, false);
        emit(g, ")");
      }
      done = true;
      break;
    case 12:
      done = gen_field_or_index(g, t);
      break;
    case 13:
      done = gen_comprehension(g, t);
      if (!done && (is_adt(t, "Box") || is_adt(t, "Wrap"))) {
        emit(g, "(");
        gen_expr(g, t, false);
        if (is_adt(t, "Box")) {
          emit(g, " with (v: ");
          gen_expr(g, T(TY_INT), false);
        } else {
          emit(g, " with (inner: ");
          gen_expr(g, t->a[0], false);
        }
        emit(g, "))");
        done = true;
      }
      break;
    case 14:
      if (g->import_fz && t->k == TY_INT) {
        emit(g, pick(g, 2) ? "Fz.twice(" : "twice(");
        gen_expr(g, t, false);
        emit(g, ")");
        done = true;
      } else if (g->import_fz && t->k == TY_STRING && !g->fstr) {
        emit(g, "label(Pair(");
        gen_expr(g, T(TY_INT), false);
        emit(g, ", ");
        gen_expr(g, T(TY_STRING), false);
        emit(g, "))");
        done = true;
      } else if (t->k == TY_STRING && !g->fstr) {
        /* f-string */
        bool f = g->fstr;
        emit(g, "f\"");
        for (unsigned k = 1 + pick(g, 3); k > 0; k--) {
          emit(g, pick(g, 2) ? "x{" : " = {");
          g->fstr = true;
          gen_expr(g, rand_type(g, 1), false);
          g->fstr = f;
          emit(g, "}");
        }
        emit(g, "\"");
        done = true;
      }
      break;
    default: {
      Var *v = find_var(g, t, false);
      if (v) {
        emit(g, v->name);
        done = true;
      }
      break;
    }
    }
  }
  if (!done) gen_leaf(g, t, ctx);
  g->edepth--;
}

/* ---- statements ------------------------------------------------------------------ */

static void gen_stmt(Gen *g);

static void gen_block(Gen *g, int max) {
  int saved = g->nvars;
  int n = 0;
  do {
    gen_stmt(g);
  } while (++n < max && g->budget > 0 && chance(g, 2, 3) && !g->broken);
  g->nvars = saved;
}

static const char all_effects[] = "io, mutation, throw, clock, random, regex, env, fs, http, process, stdin";

static void gen_stmt(Gen *g) {
  if (g->broken) return;
  g->budget--;
  nl(g);
  char nm[12];
  bool nest = g->sdepth < MAX_SDEPTH && g->budget > 0;
  unsigned c = pick(g, 20);
  if (g->pure && c != 0 && c != 4 && c != 13) c = 0; /* pure code: lets and ifs only */
  switch (c) {
  case 0: case 1: {
    const Ty *t = rand_type(g, 2);
    bool mut = c == 1;
    emitf(g, "%s %s: ", mut ? "var" : "let", fresh(g, 'v', nm));
    emit_ty(g, t);
    emit(g, " = ");
    gen_expr(g, t, true);
    add_var(g, nm, t, mut);
    return;
  }
  case 2: {
    Var *v = NULL;
    for (int i = g->nvars - 1; i >= 0 && !v; i--)
      if (g->vars[i].mut && pick(g, 2)) v = &g->vars[i];
    if (!v) break;
    emitf(g, "%s = ", v->name);
    gen_expr(g, v->t, true);
    return;
  }
  case 3: {
    emit(g, "print(");
    gen_expr(g, rand_type(g, 2), false);
    emit(g, ")");
    return;
  }
  case 4:
    if (!nest) break;
    g->sdepth++;
    emit(g, "if ");
    gen_expr(g, T(TY_BOOL), false);
    emit(g, " then");
    g->ind++;
    gen_block(g, 4);
    g->ind--;
    if (chance(g, 1, 2)) {
      nl(g);
      emit(g, "else");
      g->ind++;
      gen_block(g, 4);
      g->ind--;
    }
    nl(g);
    emit(g, "end if");
    g->sdepth--;
    return;
  case 5: {
    if (!nest) break;
    g->sdepth++;
    char w[12];
    fresh(g, 'w', w);
    emitf(g, "var %s: Int = 0", w);
    nl(g);
    emitf(g, "while %s < %u", w, pick(g, 2) ? pick(g, 6) : pick(g, 64));
    if (chance(g, 1, 3)) {
      emit(g, " and ");
      gen_expr(g, T(TY_BOOL), false);
    }
    emit(g, " do");
    g->ind++;
    nl(g);
    emitf(g, "%s = %s + 1", w, w); /* first, so `continue` cannot loop forever */
    g->loops++;
    gen_block(g, 4);
    g->loops--;
    g->ind--;
    nl(g);
    emit(g, "end while");
    g->sdepth--;
    return;
  }
  case 6: {
    if (!nest) break;
    g->sdepth++;
    const Ty *et = rand_type(g, 1);
    emitf(g, "for %s: ", fresh(g, 'i', nm));
    emit_ty(g, et);
    emit(g, " in ");
    bool array = chance(g, 1, 4);
    gen_expr(g, mk(g, array ? TY_ARRAY : TY_LIST, NULL, 1, et, NULL), false);
    emit(g, " do");
    int saved = g->nvars;
    add_var(g, nm, et, false);
    g->ind++;
    g->loops++;
    gen_block(g, 4);
    g->loops--;
    g->ind--;
    g->nvars = saved;
    nl(g);
    emit(g, "end for");
    g->sdepth--;
    return;
  }
  case 7: {
    if (!nest) break;
    g->sdepth++;
    const Ty *s = scrutinee_type(g);
    emit(g, "match ");
    gen_expr(g, s, false);
    emit(g, " with");
    gen_match_arms(g, s, NULL);
    nl(g);
    emit(g, "end match");
    g->sdepth--;
    return;
  }
  case 8: {
    if (!nest) break;
    g->sdepth++;
    bool was = g->in_try;
    emit(g, "try");
    g->ind++;
    g->in_try = true;
    gen_block(g, 4);
    g->in_try = was;
    g->ind--;
    nl(g);
    bool shape = chance(g, 1, 4);
    emitf(g, "catch %s: %s", fresh(g, 'e', nm), shape ? "Shape" : "String");
    int saved = g->nvars;
    add_var(g, nm, shape ? mk(g, TY_ADT, "Shape", 0, NULL, NULL) : T(TY_STRING), false);
    g->ind++;
    nl(g);
    emitf(g, "print(%s)", nm);
    if (chance(g, 1, 2)) gen_block(g, 2);
    g->ind--;
    g->nvars = saved;
    nl(g);
    emit(g, "end try");
    g->sdepth--;
    return;
  }
  case 9: {
    /* A builtin called for its effect (vec_push, array_set, ...). */
    size_t mark = g->len;
    if (!gen_call(g, T(TY_UNIT), false, false)) break;
    if (g->out[mark] == '(' || g->out[mark] == '[') { /* never start a statement with ( or [ */
      g->len = mark;
      g->out[mark] = 0;
      break;
    }
    return;
  }
  case 10: {
    /* In-place updates through var roots: a[i] = x, m[k] = x, b.v = x. */
    Var *v = NULL;
    for (int i = g->nvars - 1; i >= 0 && !v; i--) {
      const Ty *t = g->vars[i].t;
      if (g->vars[i].mut && (t->k == TY_ARRAY || t->k == TY_VEC || t->k == TY_MMAP || is_adt(t, "Box") ||
                             is_adt(t, "Wrap")))
        v = &g->vars[i];
    }
    if (!v) break;
    if (v->t->k == TY_ADT) {
      bool box = is_adt(v->t, "Box"), int_field = pick(g, 2);
      emitf(g, "%s.%s = ", v->name, box ? (int_field ? "v" : "s") : "inner");
      const Ty *ft = box ? (int_field ? T(TY_INT) : T(TY_STRING)) : v->t->a[0];
      gen_expr(g, ft, true);
      return;
    }
    emitf(g, "%s[", v->name);
    gen_expr(g, v->t->k == TY_MMAP ? v->t->a[0] : T(TY_INT), false);
    emit(g, "] = ");
    gen_expr(g, v->t->k == TY_MMAP ? v->t->a[1] : v->t->a[0], true);
    return;
  }
  case 11: {
    /* Closures: a pure lambda value, or a block lambda that assigns a
     * captured var (called later as a statement). */
    Var *m = NULL;
    for (int i = g->nvars - 1; i >= 0 && !m; i--)
      if (g->vars[i].mut && g->vars[i].t->k == TY_INT) m = &g->vars[i];
    if (m && pick(g, 2)) {
      char mv[12];
      snprintf(mv, sizeof mv, "%s", m->name);
      emitf(g, "let %s = fn() do %s = ", fresh(g, 'f', nm), mv);
      gen_expr(g, T(TY_INT), false);
      emit(g, " end fn");
      Var *f = add_var(g, nm, mk(g, TY_FN, NULL, 0, NULL, NULL), false);
      if (f) f->eff_fn = true;
      nl(g);
      emitf(g, "%s()", nm);
      return;
    }
    const Ty *pt = rand_type(g, 1), *rt = rand_type(g, 1);
    const Ty *args[1] = {pt};
    const Ty *ft = gt_new(TY_FN, NULL, 1, args, rt);
    if (!ft) {
      g->broken = true;
      return;
    }
    emitf(g, "let %s: ", fresh(g, 'f', nm));
    emit_ty(g, ft);
    emit(g, " = ");
    gen_lambda(g, ft);
    add_var(g, nm, ft, false);
    return;
  }
  case 12: {
    const Ty *a = rand_type(g, 1), *b = rand_type(g, 1);
    char n2[12];
    fresh(g, 'v', nm);
    fresh(g, 'v', n2);
    bool mut = chance(g, 1, 3);
    emitf(g, "%s (%s, %s): (", mut ? "var" : "let", nm, n2);
    emit_ty(g, a);
    emit(g, ", ");
    emit_ty(g, b);
    emit(g, ") = ");
    gen_expr(g, mk(g, TY_TUPLE, NULL, 2, a, b), false);
    add_var(g, nm, a, mut);
    add_var(g, n2, b, mut);
    return;
  }
  case 13:
    /* Early return. */
    if (g->in_test || !g->fn_ret || !nest) break;
    emit(g, "if ");
    gen_expr(g, T(TY_BOOL), false);
    emit(g, " then");
    g->ind++;
    nl(g);
    if (g->fn_ret->k == TY_UNIT) {
      emit(g, "return");
    } else {
      emit(g, "return ");
      gen_expr(g, g->fn_ret, true);
    }
    g->ind--;
    nl(g);
    emit(g, "end if");
    return;
  case 14:
    if (!g->loops || !nest) break;
    emit(g, "if ");
    gen_expr(g, T(TY_BOOL), false);
    emit(g, pick(g, 2) ? " then break end if" : " then continue end if");
    return;
  case 15:
    if (!g->in_try && !chance(g, 1, 8)) break;
    emit(g, "if ");
    gen_expr(g, T(TY_BOOL), false);
    emit(g, " then throw ");
    gen_expr(g, pick(g, 3) ? T(TY_STRING) : mk(g, TY_ADT, "Shape", 0, NULL, NULL), false);
    emit(g, " end if");
    return;
  case 16:
    /* ? propagation in a helper returning Option or Result. */
    if (!g->fn_ret || g->in_test || (g->fn_ret->k != TY_OPTION && g->fn_ret->k != TY_RESULT)) break;
    {
      const Ty *x = rand_type(g, 1);
      emitf(g, "let %s: ", fresh(g, 'v', nm));
      emit_ty(g, x);
      emit(g, " = ");
      gen_expr(g, g->fn_ret->k == TY_OPTION ? mk(g, TY_OPTION, NULL, 1, x, NULL)
                                            : mk(g, TY_RESULT, NULL, 2, x, g->fn_ret->a[1]),
               false);
      emit(g, "?");
      add_var(g, nm, x, false);
    }
    return;
  case 17: {
    Var *f = NULL;
    for (int i = g->nvars - 1; i >= 0 && !f; i--)
      if (g->vars[i].eff_fn) f = &g->vars[i];
    if (!f) break;
    emitf(g, "%s()", f->name);
    return;
  }
  default:
    break;
  }
  /* Fallback: a let. */
  const Ty *t = rand_type(g, 1);
  emitf(g, "let %s: ", fresh(g, 'v', nm));
  emit_ty(g, t);
  emit(g, " = ");
  gen_expr(g, t, true);
  add_var(g, nm, t, false);
}

/* ---- program ---------------------------------------------------------------------- */

static void gen_helper(Gen *g, int idx) {
  Helper *h = &g->h[idx];
  g->budget = HELPER_BUDGET;
  g->cur = idx;
  g->nvars = 0;
  g->pure = h->pure;
  g->fn_ret = h->ret;
  g->loops = 0;
  bool examples = chance(g, 1, 3);
  emit(g, "\n");
  if (!examples) emit(g, "@untested(\"fuzz\")\n");
  emitf(g, "func %s(", h->name);
  for (int i = 0; i < h->np; i++) {
    emitf(g, "%s%s: ", i ? ", " : "", h->pname[i]);
    emit_ty(g, h->pt[i]);
  }
  emit(g, ") -> ");
  emit_ty(g, h->ret);
  if (!h->pure) emitf(g, " with %s", all_effects);
  g->ind = 1;
  /* Examples: closed, pure expressions. */
  bool pure = g->pure;
  g->pure = true;
  for (unsigned k = examples ? 1 + pick(g, 2) : 0; k > 0; k--) {
    nl(g);
    emit(g, "example ");
    if (h->np == 0) emit(g, "()");
    if (h->np > 1) emit(g, "(");
    for (int i = 0; i < h->np; i++) {
      if (i) emit(g, ", ");
      gen_expr(g, h->pt[i], false);
    }
    if (h->np > 1) emit(g, ")");
    emit(g, " -> ");
    gen_expr(g, h->ret, false);
  }
  for (int i = 0; i < h->np; i++) add_var(g, h->pname[i], h->pt[i], false);
  if (chance(g, 1, 16)) {
    nl(g);
    emit(g, "requires ");
    gen_expr(g, T(TY_BOOL), false);
  }
  if (chance(g, 1, 16) && h->ret->k != TY_UNIT) {
    nl(g);
    emit(g, "ensures ");
    int saved = g->nvars;
    add_var(g, "result", h->ret, false);
    gen_expr(g, T(TY_BOOL), false);
    g->nvars = saved;
  }
  g->pure = pure;
  gen_block(g, 6);
  nl(g);
  if (h->ret->k != TY_UNIT) {
    emit(g, "return ");
    gen_expr(g, h->ret, true);
  } else {
    emit(g, "return");
  }
  emit(g, "\nend func\n");
  g->ind = 0;
  g->pure = false;
}

/* A self-recursive helper: recursion depth and deep call stacks. */
static void gen_recursive(Gen *g) {
  if (g->nh >= MAX_HELPERS) return;
  Helper *h = &g->h[g->nh];
  snprintf(h->name, sizeof h->name, "r%d", g->nh);
  h->np = 2;
  snprintf(h->pname[0], sizeof h->pname[0], "n");
  snprintf(h->pname[1], sizeof h->pname[1], "acc");
  h->pt[0] = T(TY_INT);
  h->pt[1] = rand_type(g, 1);
  h->ret = h->pt[1];
  h->pure = true;
  g->budget = HELPER_BUDGET;
  g->nvars = 0;
  g->pure = true;
  g->fn_ret = h->ret;
  g->cur = g->nh;
  emitf(g, "\n@untested(\"fuzz\")\nfunc %s(n: Int, acc: ", h->name);
  emit_ty(g, h->ret);
  emit(g, ") -> ");
  emit_ty(g, h->ret);
  emit(g, "\n  if n <= 0 then\n    return acc\n  end if\n");
  add_var(g, "n", T(TY_INT), false);
  add_var(g, "acc", h->ret, false);
  emitf(g, "  return %s(n: n - 1, acc: ", h->name);
  gen_expr(g, h->ret, true);
  emit(g, ")\nend func\n");
  g->nh++;
  g->pure = false;
}

static void gen_program(Gen *g) {
  emit(g, program_header);
  g->import_fz = chance(g, 1, 4);
  if (g->import_fz) emit(g, "import Fz\n");
  /* Helper signatures first: helpers call earlier ones. */
  int nh = (int)pick(g, MAX_HELPERS);
  for (int i = 0; i < nh; i++) {
    Helper *h = &g->h[i];
    snprintf(h->name, sizeof h->name, "h%d", i);
    h->np = (int)pick(g, 4);
    for (int k = 0; k < h->np; k++) {
      snprintf(h->pname[k], sizeof h->pname[k], "a%d", k);
      h->pt[k] = rand_type(g, 2);
    }
    h->ret = rand_type(g, 2);
    h->pure = chance(g, 1, 3);
  }
  g->nh = nh;
  for (int i = 0; i < nh; i++) gen_helper(g, i);
  if (chance(g, 1, 4)) gen_recursive(g);

  /* Test blocks: statements and top-level asserts. */
  g->cur = g->nh;
  for (unsigned k = pick(g, 3); k > 0; k--) {
    g->nvars = 0;
    g->budget = TEST_BUDGET;
    g->in_test = true;
    g->fn_ret = NULL;
    emitf(g, "\ntest \"t%u\"", k);
    g->ind = 1;
    gen_block(g, 4);
    nl(g);
    emit(g, "assert ");
    gen_expr(g, T(TY_BOOL), false);
    emit(g, "\nend test\n");
    g->in_test = false;
  }

  /* main: sections, each in a try so one runtime error does not end it. */
  const Ty *ret = chance(g, 1, 3) ? rand_type(g, 2) : T(TY_UNIT);
  g->budget = MAIN_BUDGET;
  g->nvars = 0;
  g->fn_ret = ret;
  g->ind = 1;
  emit(g, "\nfunc main() -> ");
  emit_ty(g, ret);
  do {
    nl(g);
    emit(g, "try");
    g->ind++;
    gen_block(g, 8);
    g->ind--;
    char nm[12];
    nl(g);
    emitf(g, "catch %s: String", fresh(g, 'e', nm));
    g->ind++;
    nl(g);
    emitf(g, "print(%s)", nm);
    g->ind--;
    nl(g);
    emit(g, "end try");
  } while (g->budget > 0 && chance(g, 3, 4) && !g->broken);
  nl(g);
  if (ret->k != TY_UNIT) {
    emit(g, "return ");
    gen_expr(g, ret, true);
  }
  emit(g, "\nend func\n");
}

static bool print_programs;

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  print_programs = getenv("FUZZ_GEN_PRINT") != NULL;
  fz_init();
  load_sigs();
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  static Gen g;
  memset(&g, 0, sizeof g);
  gt_reset();
  /* The first byte picks the mode; the rest are the generator's choices. */
  unsigned mode = data[0];
  g.p = data + 1;
  g.n = size - 1;
  g.out = malloc(MAX_OUT);
  if (!g.out) return 0;
  g.out[0] = 0;
  gen_program(&g);
  if (!g.broken) {
    if (print_programs) fprintf(stderr, "---- generated program\n%s\n", g.out);
    FzOptions opt = {
        .run_tests = mode % 4 == 1,
        .check_examples = mode % 8 == 3,
        .expect_clean = true,
    };
    fz_run_checked(g.out, g.len, &opt);
  }
  free(g.out);
  return 0;
}
