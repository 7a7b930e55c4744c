/* The generator's type model (see gen.h): construction, equality,
 * printing, the signature parser and unification. */
#include "gen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Scratch types of one generated program: far more than a program within
 * the generator's node budget can create. */
#define TY_POOL 65536

/* Types and names of the signatures, parsed once (static, so nothing is
 * left to free). */
#define TY_PERM_POOL 16384
#define NAME_POOL (64 << 10)

static Ty pool[TY_POOL], perm_pool[TY_PERM_POOL];
static size_t npool, nperm;
static bool perm; /* while parsing signatures: allocate for good */
static char names[NAME_POOL];
static size_t nnames;

void gt_reset(void) { npool = 0; }

const Ty *gt_new(TyKind k, const char *name, int n, const Ty *const *args, const Ty *ret) {
  Ty *t;
  if (perm) {
    if (nperm == TY_PERM_POOL) return NULL;
    t = &perm_pool[nperm++];
  } else {
    if (npool == TY_POOL) return NULL;
    t = &pool[npool++];
    memset(t, 0, sizeof *t);
  }
  t->k = k;
  t->name = name;
  t->n = n;
  for (int i = 0; i < n && i < GEN_MAX_ARGS; i++) {
    if (!args[i]) return NULL;
    t->a[i] = args[i];
  }
  t->ret = ret;
  return t;
}

const Ty *gt_simple(TyKind k) {
  static Ty simple[TY_UNIT + 1];
  simple[k].k = k;
  return &simple[k];
}

bool gt_equal(const Ty *a, const Ty *b) {
  if (a == b) return true;
  if (!a || !b || a->k != b->k || a->n != b->n) return false;
  if ((a->k == TY_ADT || a->k == TY_VAR) && strcmp(a->name, b->name) != 0) return false;
  for (int i = 0; i < a->n; i++)
    if (!gt_equal(a->a[i], b->a[i])) return false;
  if (a->k == TY_FN) return gt_equal(a->ret, b->ret);
  return true;
}

/* Keys of Maps and Sets: scalars, and tuples and Options of them. */
bool gt_hashable(const Ty *t) {
  switch (t->k) {
  case TY_INT: case TY_FLOAT: case TY_STRING: case TY_BOOL: return true;
  case TY_TUPLE: case TY_OPTION:
    for (int i = 0; i < t->n; i++)
      if (!gt_hashable(t->a[i])) return false;
    return true;
  case TY_ADT: return strcmp(t->name, "Shape") == 0;
  default: return false;
  }
}

bool gt_has_fn(const Ty *t) {
  if (t->k == TY_FN) return true;
  for (int i = 0; i < t->n; i++)
    if (gt_has_fn(t->a[i])) return true;
  return false;
}

bool gt_has_var(const Ty *t) {
  if (!t) return false;
  if (t->k == TY_VAR) return true;
  for (int i = 0; i < t->n; i++)
    if (gt_has_var(t->a[i])) return true;
  return t->k == TY_FN && gt_has_var(t->ret);
}

/* ---- printing ---------------------------------------------------------------- */

typedef struct Pr {
  char *p;
  size_t n, cap;
} Pr;

static void pr(Pr *o, const char *s) {
  size_t k = strlen(s);
  if (o->n + k + 1 > o->cap) k = o->cap > o->n + 1 ? o->cap - o->n - 1 : 0;
  memcpy(o->p + o->n, s, k);
  o->n += k;
  o->p[o->n] = 0;
}

static void print_ty(Pr *o, const Ty *t) {
  static const char *const generic[] = {
      [TY_LIST] = "List", [TY_OPTION] = "Option", [TY_RESULT] = "Result", [TY_MAP] = "Map",
      [TY_SET] = "Set", [TY_ARRAY] = "Array", [TY_VEC] = "Vec", [TY_MMAP] = "MutableMap"};
  switch (t->k) {
  case TY_INT: pr(o, "Int"); return;
  case TY_FLOAT: pr(o, "Float"); return;
  case TY_STRING: pr(o, "String"); return;
  case TY_BOOL: pr(o, "Bool"); return;
  case TY_UNIT: pr(o, "Unit"); return;
  case TY_VAR: pr(o, t->name); return;
  case TY_TUPLE: case TY_FN:
    pr(o, "(");
    for (int i = 0; i < t->n; i++) {
      if (i) pr(o, ", ");
      print_ty(o, t->a[i]);
    }
    pr(o, ")");
    if (t->k == TY_FN) {
      pr(o, " -> ");
      print_ty(o, t->ret);
    }
    return;
  case TY_ADT:
    pr(o, t->name);
    break;
  default:
    pr(o, generic[t->k]);
    break;
  }
  if (t->n) {
    pr(o, "[");
    for (int i = 0; i < t->n; i++) {
      if (i) pr(o, ", ");
      print_ty(o, t->a[i]);
    }
    pr(o, "]");
  }
}

void gt_print(const Ty *t, char *buf, size_t cap) {
  Pr o = {buf, 0, cap};
  buf[0] = 0;
  print_ty(&o, t);
}

/* ---- signature parser ---------------------------------------------------------- */

static void skip(const char **p) {
  while (**p == ' ') (*p)++;
}

static const char *intern_name(const char *s, size_t n) {
  if (nnames + n + 1 > NAME_POOL) return "?";
  char *p = names + nnames;
  nnames += n + 1;
  memcpy(p, s, n);
  p[n] = 0;
  return p;
}

static const Ty *parse_ty(const char **p);

static int parse_list(const char **p, char close, const Ty **out) {
  int n = 0;
  skip(p);
  if (**p == close) {
    (*p)++;
    return 0;
  }
  for (;;) {
    const Ty *t = parse_ty(p);
    if (!t || n == GEN_MAX_ARGS) return -1;
    out[n++] = t;
    skip(p);
    if (**p == ',') {
      (*p)++;
      continue;
    }
    if (**p != close) return -1;
    (*p)++;
    return n;
  }
}

static const Ty *parse_ty(const char **p) {
  skip(p);
  const Ty *args[GEN_MAX_ARGS];
  if (**p == '(') {
    (*p)++;
    int n = parse_list(p, ')', args);
    if (n < 0) return NULL;
    skip(p);
    if ((*p)[0] == '-' && (*p)[1] == '>') {
      *p += 2;
      const Ty *r = parse_ty(p);
      skip(p);
      if (!r || strncmp(*p, "with", 4) == 0) return NULL; /* effectful callbacks: not generated */
      return gt_new(TY_FN, NULL, n, args, r);
    }
    return n >= 2 ? gt_new(TY_TUPLE, NULL, n, args, NULL) : NULL;
  }
  const char *s = *p;
  while ((**p >= 'A' && **p <= 'Z') || (**p >= 'a' && **p <= 'z') || **p == '_') (*p)++;
  size_t len = (size_t)(*p - s);
  if (!len) return NULL;
  int n = 0;
  if (**p == '[') {
    (*p)++;
    n = parse_list(p, ']', args);
    if (n <= 0) return NULL;
  }
  static const struct { const char *name; TyKind k; int n; } kinds[] = {
      {"Int", TY_INT, 0}, {"Float", TY_FLOAT, 0}, {"String", TY_STRING, 0}, {"Bool", TY_BOOL, 0},
      {"Unit", TY_UNIT, 0}, {"List", TY_LIST, 1}, {"Option", TY_OPTION, 1}, {"Result", TY_RESULT, 2},
      {"Map", TY_MAP, 2}, {"Set", TY_SET, 1}, {"Array", TY_ARRAY, 1}, {"Vec", TY_VEC, 1},
      {"MutableMap", TY_MMAP, 2},
  };
  for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
    if (strlen(kinds[i].name) == len && strncmp(s, kinds[i].name, len) == 0) {
      if (n != kinds[i].n) return NULL;
      if (kinds[i].n == 0) return gt_simple(kinds[i].k);
      return gt_new(kinds[i].k, NULL, n, args, NULL);
    }
  if ((len == 1 && s[0] >= 'A' && s[0] <= 'Z') || (len == 3 && strncmp(s, "Num", 3) == 0))
    return n ? NULL : gt_new(TY_VAR, intern_name(s, len), 0, NULL, NULL);
  return gt_new(TY_ADT, intern_name(s, len), n, args, NULL);
}

static void vars_of(const Ty *t, unsigned *mask) {
  if (!t) return;
  if (t->k == TY_VAR && t->name[1] == 0) *mask |= 1u << (t->name[0] - 'A');
  for (int i = 0; i < t->n; i++) vars_of(t->a[i], mask);
  if (t->k == TY_FN) vars_of(t->ret, mask);
}

/* Variables that must be hashable: Map and MutableMap keys, Set elements,
 * and K wherever it appears (list_group_by's key). */
static void hash_vars_of(const Ty *t, unsigned *mask) {
  if (!t) return;
  if (t->k == TY_VAR && strcmp(t->name, "K") == 0) *mask |= 1u << ('K' - 'A');
  if ((t->k == TY_MAP || t->k == TY_MMAP || t->k == TY_SET) && t->a[0]->k == TY_VAR && t->a[0]->name[1] == 0)
    *mask |= 1u << (t->a[0]->name[0] - 'A');
  for (int i = 0; i < t->n; i++) hash_vars_of(t->a[i], mask);
  if (t->k == TY_FN) hash_vars_of(t->ret, mask);
}

bool gt_sig_parse(Sig *s, const char *name, const char *text) {
  memset(s, 0, sizeof *s);
  s->name = name;
  perm = true;
  const char *p = text;
  bool ok = false;
  skip(&p);
  if (*p++ != '(') goto out;
  skip(&p);
  if (*p == ')') {
    p++;
  } else {
    for (;;) {
      skip(&p);
      const char *ns = p;
      while ((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_') p++;
      if (p == ns || s->np == GEN_MAX_ARGS) goto out;
      s->pname[s->np] = intern_name(ns, (size_t)(p - ns));
      bool optional = *p == '?';
      if (optional) p++;
      if (*p++ != ':') goto out;
      s->pt[s->np] = parse_ty(&p);
      if (!s->pt[s->np]) goto out;
      if (!optional) s->nrequired = s->np + 1;
      s->np++;
      skip(&p);
      if (*p == ',') {
        p++;
        continue;
      }
      if (*p++ != ')') goto out;
      break;
    }
  }
  skip(&p);
  if (p[0] != '-' || p[1] != '>') goto out;
  p += 2;
  s->ret = parse_ty(&p);
  skip(&p);
  if (!s->ret || *p) goto out;
  unsigned in_params = 0, in_ret = 0;
  for (int i = 0; i < s->np; i++) {
    vars_of(s->pt[i], &in_params);
    hash_vars_of(s->pt[i], &s->hash_vars);
  }
  vars_of(s->ret, &in_ret);
  hash_vars_of(s->ret, &s->hash_vars);
  s->needs_context = (in_ret & ~in_params) != 0;
  ok = true;
out:
  perm = false;
  return ok;
}

/* ---- unification ---------------------------------------------------------------- */

const Ty *gt_binds_get(const Binds *b, const char *name) {
  for (int i = 0; i < b->n; i++)
    if (strcmp(b->name[i], name) == 0) return b->t[i];
  return NULL;
}

bool gt_unify(const Ty *p, const Ty *c, Binds *b, unsigned hash_vars) {
  if (p->k == TY_VAR) {
    const Ty *have = gt_binds_get(b, p->name);
    if (have) return gt_equal(have, c);
    if (c->k == TY_VAR || gt_has_var(c)) return false;
    if (strcmp(p->name, "Num") == 0 && c->k != TY_INT && c->k != TY_FLOAT) return false;
    if (p->name[1] == 0 && (hash_vars >> (p->name[0] - 'A') & 1) && !gt_hashable(c)) return false;
    if (b->n == 12) return false;
    b->name[b->n] = p->name;
    b->t[b->n++] = c;
    return true;
  }
  if (p->k != c->k || p->n != c->n) return false;
  if (p->k == TY_ADT && strcmp(p->name, c->name) != 0) return false;
  for (int i = 0; i < p->n; i++)
    if (!gt_unify(p->a[i], c->a[i], b, hash_vars)) return false;
  if (p->k == TY_FN) return gt_unify(p->ret, c->ret, b, hash_vars);
  return true;
}

const Ty *gt_subst(const Ty *p, const Binds *b) {
  if (!p) return NULL;
  if (p->k == TY_VAR) {
    const Ty *t = gt_binds_get(b, p->name);
    return t ? t : p;
  }
  if (p->n == 0 && p->k != TY_FN) return p;
  const Ty *args[GEN_MAX_ARGS];
  for (int i = 0; i < p->n; i++) {
    args[i] = gt_subst(p->a[i], b);
    if (!args[i]) return NULL;
  }
  const Ty *r = p->k == TY_FN ? gt_subst(p->ret, b) : NULL;
  if (p->k == TY_FN && !r) return NULL;
  return gt_new(p->k, p->name, p->n, args, r);
}
