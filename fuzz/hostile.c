/* Hostile argument programs for one builtin (see hostile.h). */
#include "hostile.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

typedef struct Out {
  char *p;
  size_t n, cap;
  bool full;
} Out;

static void put(Out *o, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int k = vsnprintf(o->p + o->n, o->cap - o->n, fmt, ap);
  va_end(ap);
  if (k < 0 || (size_t)k >= o->cap - o->n) {
    o->full = true;
    return;
  }
  o->n += (size_t)k;
}

typedef struct Gen {
  HostileChoose choose;
  void *ctx;
  Out pre;   /* statements before the call */
  int nvars; /* names v0, v1, ... */
} Gen;

static uint32_t pick(Gen *g, uint32_t n) { return n <= 1 ? 0 : g->choose(g->ctx, n) % n; }

/* The hostile types a type variable becomes: Tr (shared tree), Dl (a
 * chain deeper than the comparison bound), Int, String, List[Tr]. */
static const Ty *var_type(Gen *g, const char *name, bool hashable) {
  if (strcmp(name, "Num") == 0) return gt_simple(pick(g, 2) ? TY_FLOAT : TY_INT);
  static const char *const adts[] = {"Tr", "Dl"};
  uint32_t c = pick(g, hashable ? 4 : 5);
  if (c < 2) return gt_new(TY_ADT, adts[c], 0, NULL, NULL);
  if (c == 2) return gt_simple(TY_INT);
  if (c == 3) return gt_simple(TY_STRING);
  const Ty *tr = gt_new(TY_ADT, "Tr", 0, NULL, NULL);
  return gt_new(TY_LIST, NULL, 1, &tr, NULL);
}

static void collect_vars(Gen *g, const Ty *t, Binds *b, unsigned hash_vars) {
  if (!t) return;
  if (t->k == TY_VAR) {
    if (gt_binds_get(b, t->name) || b->n >= 12) return;
    bool hashable = t->name[1] == 0 && (hash_vars >> (t->name[0] - 'A') & 1);
    b->name[b->n] = t->name;
    b->t[b->n++] = var_type(g, t->name, hashable);
    return;
  }
  for (int i = 0; i < t->n; i++) collect_vars(g, t->a[i], b, hash_vars);
  if (t->k == TY_FN) collect_vars(g, t->ret, b, hash_vars);
}

static bool expr(Gen *g, const Ty *t, Out *o, int depth);

/* A fresh variable holding a value of type t, defined in the prelude;
 * its name is written to o. */
static bool bind(Gen *g, const Ty *t, const char *init, Out *o) {
  char ty[512];
  gt_print(t, ty, sizeof ty);
  int v = g->nvars++;
  put(&g->pre, "    let v%d: %s = %s\n", v, ty, init);
  put(o, "v%d", v);
  return !g->pre.full;
}

/* A list of 1, 1,024 or 65,536 references to one hostile element. */
static bool list_expr(Gen *g, const Ty *elem, Out *o, int depth) {
  char buf[4096];
  Out e = {buf, 0, sizeof buf, false};
  if (!expr(g, elem, &e, depth + 1) || e.full) return false;
  char ty[512];
  gt_print(elem, ty, sizeof ty);
  int v = g->nvars++;
  static const int doublings[] = {0, 10, 16};
  int d = doublings[pick(g, 3)];
  put(&g->pre, "    var v%d: List[%s] = [%s]\n", v, ty, buf);
  if (d) {
    put(&g->pre, "    var k%d = 0\n    while k%d < %d do\n        v%d = concat(v%d, v%d)\n        k%d = k%d + 1\n"
                 "    end while\n", v, v, d, v, v, v, v, v);
  }
  put(o, "v%d", v);
  return !g->pre.full;
}

static bool expr(Gen *g, const Ty *t, Out *o, int depth) {
  if (depth > 4) return false;
  switch (t->k) {
    case TY_INT: {
      static const char *const ints[] = {"0", "-1", "1000000", "9223372036854775807", "(0 - 9223372036854775807)",
                                          "100000000", "65537"};
      put(o, "%s", ints[pick(g, 7)]);
      return true;
    }
    case TY_FLOAT: {
      static const char *const floats[] = {"1.5", "123456789012345680000000000000.0", "0.0", "(0.0 - 0.000001)"};
      put(o, "%s", floats[pick(g, 4)]);
      return true;
    }
    case TY_STRING: {
      static const char *const strs[] = {"big", "\"\"", "\"a,b\\n\\\"c\\\" {} {0}\"", "big_lines", "\"[[[[\""};
      put(o, "%s", strs[pick(g, 5)]);
      return true;
    }
    case TY_BOOL: put(o, "%s", pick(g, 2) ? "true" : "false"); return true;
    case TY_UNIT: put(o, "()"); return true;
    case TY_ADT:
      if (strcmp(t->name, "Tr") == 0) {
        static const char *const trs[] = {"dag", "dag2", "Lf"};
        put(o, "%s", trs[pick(g, 3)]);
        return true;
      }
      if (strcmp(t->name, "Dl") == 0) {
        put(o, "%s", pick(g, 2) ? "deep" : "deep2");
        return true;
      }
      if (strcmp(t->name, "JsonValue") == 0) {
        static const char *const js[] = {"jdag", "jdeep", "JsonString(big)", "JsonNull"};
        put(o, "%s", js[pick(g, 4)]);
        return true;
      }
      return false;
    case TY_LIST: return list_expr(g, t->a[0], o, depth);
    case TY_OPTION:
    case TY_RESULT: {
      char buf[4096];
      Out e = {buf, 0, sizeof buf, false};
      if (!expr(g, t->a[0], &e, depth + 1) || e.full) return false;
      char init[4200];
      snprintf(init, sizeof init, "%s(%s)", t->k == TY_OPTION ? "Some" : "Ok", buf);
      return bind(g, t, init, o);
    }
    case TY_SET:
    case TY_ARRAY:
    case TY_VEC: {
      char buf[256];
      Out e = {buf, 0, sizeof buf, false};
      if (!list_expr(g, t->a[0], &e, depth) || e.full) return false;
      static const char *const from[] = {[TY_SET] = "set_from_list", [TY_ARRAY] = "array_from_list",
                                         [TY_VEC] = "vec_from_list"};
      char init[512];
      snprintf(init, sizeof init, "%s(%s)", from[t->k], buf);
      return bind(g, t, init, o);
    }
    case TY_MAP:
    case TY_MMAP: {
      char k[4096], v[4096];
      Out ek = {k, 0, sizeof k, false}, ev = {v, 0, sizeof v, false};
      if (!expr(g, t->a[0], &ek, depth + 1) || !expr(g, t->a[1], &ev, depth + 1) || ek.full || ev.full) return false;
      char init[8300];
      snprintf(init, sizeof init, "map_from_list([(%s, %s)])", k, v);
      if (t->k == TY_MAP) return bind(g, t, init, o);
      char ty[512];
      gt_print(t, ty, sizeof ty);
      int m = g->nvars++;
      put(&g->pre, "    let v%d: %s = mutable_map_new()\n    mutable_map_set(map: v%d, key: %s, value: %s)\n", m, ty, m,
          k, v);
      put(o, "v%d", m);
      return !g->pre.full;
    }
    case TY_TUPLE: {
      put(o, "(");
      for (int i = 0; i < t->n; i++) {
        if (i) put(o, ", ");
        if (!expr(g, t->a[i], o, depth + 1)) return false;
      }
      put(o, ")");
      return !o->full;
    }
    case TY_FN: {
      char ret[4096];
      Out er = {ret, 0, sizeof ret, false};
      if (!expr(g, t->ret, &er, depth + 1) || er.full) return false;
      put(o, "fn(");
      for (int i = 0; i < t->n; i++) {
        char ty[512];
        gt_print(t->a[i], ty, sizeof ty);
        put(o, "%sp%d: %s", i ? ", " : "", i, ty);
      }
      put(o, ") -> %s", ret);
      return !o->full;
    }
    default: return false;
  }
}

/* A parameter named by a keyword (range's `end`) cannot be written as a
 * named argument; such calls stay positional. */
static bool nameable(const Sig *s) {
  static const char *const keywords[] = {"fn", "do", "end", "in", "with", "type", "match", "test", "try"};
  for (int i = 0; i < s->np; i++)
    for (size_t k = 0; k < sizeof keywords / sizeof keywords[0]; k++)
      if (s->pname[i] && strcmp(s->pname[i], keywords[k]) == 0) return false;
  return true;
}

bool hostile_program(const Sig *s, HostileChoose choose, void *ctx, char *buf, size_t cap) {
  static char pre[1 << 16];
  Gen g = {choose, ctx, {pre, 0, sizeof pre, false}, 0};
  pre[0] = 0;
  gt_reset();
  Binds b = {0};
  for (int i = 0; i < s->np; i++) collect_vars(&g, s->pt[i], &b, s->hash_vars);
  collect_vars(&g, s->ret, &b, s->hash_vars);
  char call[1 << 14];
  Out oc = {call, 0, sizeof call, false};
  /* optional parameters are sometimes left out */
  int np = s->np;
  if (s->nrequired < np && pick(&g, 2)) np = s->nrequired;
  put(&oc, "%s(", s->name);
  for (int i = 0; i < np; i++) {
    const Ty *t = gt_subst(s->pt[i], &b);
    if (!t || gt_has_var(t)) return false;
    if (i) put(&oc, ", ");
    if (np > 2 && nameable(s)) put(&oc, "%s: ", s->pname[i]);
    if (!expr(&g, t, &oc, 0)) return false;
  }
  put(&oc, ")");
  if (oc.full || g.pre.full) return false;
  const Ty *ret = gt_subst(s->ret, &b);
  if (!ret || gt_has_var(ret)) return false;
  char rty[512];
  gt_print(ret, rty, sizeof rty);
  Out o = {buf, 0, cap, false};
  put(&o,
      "type Tr = Lf | Nd(l: Tr, r: Tr)\n"
      "type Dl = Dn | Dc(next: Dl)\n"
      "func main() -> Unit\n"
      "    var dag: Tr = Lf\n"
      "    var dag2: Tr = Lf\n"
      "    var jdag: JsonValue = JsonNull\n"
      "    var i = 0\n"
      "    while i < 80 do\n"
      "        dag = Nd(dag, dag)\n"
      "        dag2 = Nd(dag2, dag2)\n"
      "        jdag = JsonArray([jdag, jdag])\n"
      "        i = i + 1\n"
      "    end while\n"
      "    var deep: Dl = Dn\n"
      "    var deep2: Dl = Dn\n"
      "    var jdeep: JsonValue = JsonNull\n"
      "    i = 0\n"
      "    while i < 12000 do\n"
      "        deep = Dc(deep)\n"
      "        deep2 = Dc(deep2)\n"
      "        jdeep = JsonArray([jdeep])\n"
      "        i = i + 1\n"
      "    end while\n"
      "    let big = repeat_string(\"ab\xe2\x80\xae\\n\", 262144)\n"
      "    let big_lines = repeat_string(\"k,v\\n\", 250000)\n"
      "%s"
      "    let r: %s = %s\n"
      "    print(\"end\")\n"
      "end func\n",
      pre, rty, call);
  return !o.full;
}
