/* Exhaustiveness of match: a pattern-matrix search for missing cases over
 * Bool, Option, Result and user ADTs (with nested patterns), length
 * classes for lists, and "needs a default arm" for Int, Float, String and
 * tuples. Guarded arms never count. The message lists up to three missing
 * cases, rendered as the reference does (`Some(<int>)`, `[_, ...]`). */
#include "checker.h"


/* Missing cases reported per match. */
#define EXHAUST_LIMIT 3

typedef struct Witness {
  const char **items; /* one rendered pattern per column */
  int n;
} Witness;

typedef struct WitnessList {
  Witness *items;
  int n, cap;
} WitnessList;

typedef struct Ex {
  Checker *C;
  Pattern *wildcard; /* shared synthetic `_` */
  Span span;         /* the match: where a checking limit is reported */
} Ex;

static void wl_push(Checker *C, WitnessList *l, Witness w) {
  if (l->n == l->cap) {
    int nc = l->cap ? l->cap * 2 : 4;
    l->items = arena_grow(C->A, l->items, (size_t)l->n, (size_t)nc, sizeof(Witness));
    l->cap = nc;
  }
  l->items[l->n++] = w;
}

static Witness w_prepend(Checker *C, const char *head, Witness tail) {
  Witness w;
  w.n = tail.n + 1;
  w.items = arena_array(C->A, (size_t)w.n, sizeof(const char *));
  w.items[0] = head;
  for (int i = 0; i < tail.n; i++) w.items[i + 1] = tail.items[i];
  return w;
}

static bool catchall(const Pattern *p) { return p->kind == PAT_WILDCARD || p->kind == PAT_VAR; }

static const char *str_join(Checker *C, const char *open, const char **items, int n, const char *close) {
  Buf b = BUF_INIT;
  buf_puts(&b, open);
  for (int i = 0; i < n; i++) buf_printf(&b, "%s%s", i ? ", " : "", items[i]);
  buf_puts(&b, close);
  const char *s = b.data ? arena_strdup(C->A, b.data) : "";
  buf_free(&b);
  return s;
}

static const char *ctor_witness(Checker *C, const char *ctor, const char **fields, int n) {
  if (n == 0) return ctor;
  Buf b = BUF_INIT;
  buf_puts(&b, ctor);
  const char *inner = str_join(C, "(", fields, n, ")");
  buf_puts(&b, inner);
  const char *s = b.data ? arena_strdup(C->A, b.data) : "";
  buf_free(&b);
  return s;
}

/* A representative missing value of type t when no row constrains it, in
 * the reference's notation: `<int>`, `Some(_)`, the first variant of an
 * ADT with `_` fields. */
static const char *default_witness(Ex *X, Type *t) {
  Checker *C = X->C;
  switch (t->kind) {
  case TY_BOOL: return "true";
  case TY_INT: return "<int>";
  case TY_FLOAT: return "<float>";
  case TY_STRING: return "<string>";
  case TY_LIST: return "[...]";
  case TY_TUPLE: {
    const char **parts = arena_array(C->A, (size_t)t->n, sizeof(const char *));
    for (int i = 0; i < t->n; i++) parts[i] = default_witness(X, t->args[i]);
    return str_join(C, "(", parts, t->n, ")");
  }
  case TY_OPTION: return "Some(_)";
  case TY_RESULT: return "Ok(_)";
  case TY_ADT: {
    AdtInfo *info = chk_adt(C, t->name);
    if (info && info->nvariants) {
      AdtVariant *v = &info->variants[0];
      if (v->nfields == 0) return v->name;
      const char **us = arena_array(C->A, (size_t)v->nfields, sizeof(const char *));
      for (int i = 0; i < v->nfields; i++) us[i] = "_";
      return ctor_witness(C, v->name, us, v->nfields);
    }
    return "_";
  }
  default:
    return "_";
  }
}

/* List shapes: exact(n) matches lists of length n, at_least(n) of >= n. */
typedef struct Shape {
  bool valid, at_least;
  int size;
} Shape;

/* The length class a list pattern covers when its elements are all
 * catch-alls; patterns that constrain elements cover no whole class. */
static Shape safe_shape(const Pattern *p) {
  Shape s = {false, false, 0};
  if (catchall(p)) {
    s.valid = s.at_least = true;
    return s;
  }
  if (p->kind != PAT_LIST) return s;
  bool rest = false;
  for (int i = 0; i < p->n; i++) {
    if (p->items[i]->kind == PAT_REST) {
      rest = true;
      continue;
    }
    if (!catchall(p->items[i])) return s;
    s.size++;
  }
  s.valid = true;
  s.at_least = rest;
  return s;
}

static bool shape_matches(Shape s, int len) { return s.at_least ? len >= s.size : len == s.size; }

typedef struct Matrix {
  Pattern ***rows; /* rows[r][c] */
  int nrows, ncols;
} Matrix;

static Matrix mx_new(Checker *C, int cap, int ncols) {
  Matrix m;
  m.rows = arena_array(C->A, (size_t)(cap ? cap : 1), sizeof(Pattern **));
  m.nrows = 0;
  m.ncols = ncols;
  return m;
}

static WitnessList find_missing(Ex *X, Type **types, int nt, Matrix rows, int limit, int depth);

typedef struct IntList {
  int *items;
  int n, cap;
} IntList;

static void il_push(Checker *C, IntList *l, int x) {
  if (l->n == l->cap) {
    int nc = l->cap ? l->cap * 2 : 8;
    l->items = arena_grow(C->A, l->items, (size_t)l->n, (size_t)nc, sizeof(int));
    l->cap = nc;
  }
  l->items[l->n++] = x;
}

typedef struct RowGroups {
  IntList catchall; /* rows starting with `_` or a variable */
  PtrMap by_ctor;   /* constructor name -> IntList* of rows */
} RowGroups;

static RowGroups group_rows(Checker *C, Matrix rows) {
  RowGroups g;
  memset(&g, 0, sizeof g);
  for (int r = 0; r < rows.nrows; r++) {
    Pattern *p = rows.rows[r][0];
    if (catchall(p)) {
      il_push(C, &g.catchall, r);
    } else if (p->kind == PAT_CTOR) {
      IntList *l = chk_pm_get(&g.by_ctor, p->name);
      if (!l) {
        l = arena_alloc(C->A, sizeof *l);
        chk_pm_put(C->A, &g.by_ctor, p->name, l);
      }
      il_push(C, l, r);
    }
  }
  return g;
}

static void add_prefixed(Ex *X, WitnessList *out, const char *head, WitnessList sub, int limit) {
  for (int i = 0; i < sub.n && out->n < limit; i++) wl_push(X->C, out, w_prepend(X->C, head, sub.items[i]));
}

/* The classic usefulness search over a matrix of pattern rows with one
 * column per type in `types`: returns up to `limit` pattern vectors no row
 * matches. Columns are specialised by constructor (Bool values, list
 * lengths, ADT variants); other types only match through catch-all rows. */
static WitnessList find_missing(Ex *X, Type **types, int nt, Matrix rows, int limit, int depth) {
  Checker *C = X->C;
  WitnessList out = {NULL, 0, 0};
  chk_step(C, X->span);
  if (depth > CHK_MAX_DEPTH) return out; /* cannot happen with parser-bounded patterns */
  if (nt == 0) {
    if (rows.nrows == 0) wl_push(C, &out, (Witness){NULL, 0});
    return out;
  }
  /* A row of catch-alls matches every vector: nothing is missing. Without
   * this the search splits on every variant of every column even where an
   * arm already covers the rest (a record of n three-variant fields matched
   * field by field took 3^n steps; now n). */
  for (int r = 0; r < rows.nrows; r++) {
    int c = 0;
    while (c < nt && catchall(rows.rows[r][c])) c++;
    if (c == nt) return out;
  }
  Type *first = types[0];
  if (rows.nrows == 0) {
    Witness w = {arena_array(C->A, (size_t)nt, sizeof(const char *)), nt};
    for (int i = 0; i < nt; i++) w.items[i] = default_witness(X, types[i]);
    wl_push(C, &out, w);
    return out;
  }
  bool all_catch = true;
  for (int r = 0; r < rows.nrows; r++) all_catch &= catchall(rows.rows[r][0]);
  if (all_catch) {
    if (nt == 1) return out;
    Matrix tail = mx_new(C, rows.nrows, nt - 1);
    for (int r = 0; r < rows.nrows; r++) tail.rows[tail.nrows++] = rows.rows[r] + 1;
    add_prefixed(X, &out, "_", find_missing(X, types + 1, nt - 1, tail, limit, depth + 1), limit);
    return out;
  }
  if (first->kind == TY_BOOL) {
    for (int vi = 0; vi < 2; vi++) {
      bool value = vi == 0;
      Matrix spec = mx_new(C, rows.nrows, nt - 1);
      for (int r = 0; r < rows.nrows; r++) {
        Pattern *p = rows.rows[r][0];
        if (catchall(p) || (p->kind == PAT_BOOL && p->bval == value)) spec.rows[spec.nrows++] = rows.rows[r] + 1;
      }
      WitnessList sub = find_missing(X, types + 1, nt - 1, spec, limit - out.n, depth + 1);
      for (int i = 0; i < sub.n; i++) {
        wl_push(C, &out, w_prepend(C, value ? "true" : "false", sub.items[i]));
        if (out.n >= limit) return out;
      }
    }
    return out;
  }
  if (first->kind == TY_LIST) {
    bool saw = false, nonempty = false;
    int max_size = 0;
    for (int r = 0; r < rows.nrows; r++) {
      Shape s = safe_shape(rows.rows[r][0]);
      if (!s.valid) continue;
      saw = true;
      if (s.size > max_size) max_size = s.size;
      if (shape_matches(s, 1)) nonempty = true;
    }
    if (saw) {
      for (int len = 0; len <= max_size + 1; len++) {
        Matrix spec = mx_new(C, rows.nrows, nt - 1);
        for (int r = 0; r < rows.nrows; r++) {
          Shape s = safe_shape(rows.rows[r][0]);
          if (s.valid && shape_matches(s, len)) spec.rows[spec.nrows++] = rows.rows[r] + 1;
        }
        WitnessList sub = find_missing(X, types + 1, nt - 1, spec, limit - out.n, depth + 1);
        for (int i = 0; i < sub.n; i++) {
          const char *head;
          if (len == 0) {
            head = "[]";
          } else if (len == 1 && max_size == 0 && !nonempty) {
            head = "[_, ...]";
          } else {
            const char **us = arena_array(C->A, (size_t)len, sizeof(const char *));
            for (int k = 0; k < len; k++) us[k] = "_";
            head = str_join(C, "[", us, len, "]");
          }
          wl_push(C, &out, w_prepend(C, head, sub.items[i]));
          if (out.n >= limit) return out;
        }
      }
      return out;
    }
  }
  const char *tname = NULL;
  Subst sub_params = {0};
  AdtInfo *info = (first->kind == TY_OPTION || first->kind == TY_RESULT || first->kind == TY_ADT)
                      ? chk_pattern_adt(C, first, &tname, &sub_params)
                      : NULL;
  if (info) {
    /* Rows grouped by their first constructor (catch-all rows go with
     * every variant), so a big ADT matched by many arms costs rows +
     * variants, not rows x variants. Each group keeps the rows' order. */
    RowGroups g = group_rows(C, rows);
    for (int v = 0; v < info->nvariants; v++) {
      AdtVariant *var = &info->variants[v];
      int arity = var->nfields;
      int ncols = arity + nt - 1;
      Type **ftypes = arena_array(C->A, (size_t)(ncols ? ncols : 1), sizeof(Type *));
      for (int f = 0; f < arity; f++) ftypes[f] = chk_substitute(C, var->ftypes[f], sub_params.n, sub_params.names, sub_params.types);
      for (int k = 1; k < nt; k++) ftypes[arity + k - 1] = types[k];
      IntList *own = chk_pm_get(&g.by_ctor, var->name);
      int nown = own ? own->n : 0, ncatch = g.catchall.n;
      Matrix spec = mx_new(C, nown + ncatch, ncols);
      for (int io = 0, ic = 0; io < nown || ic < ncatch;) {
        int r = (ic >= ncatch || (io < nown && own->items[io] < g.catchall.items[ic])) ? own->items[io++]
                                                                                        : g.catchall.items[ic++];
        Pattern *p = rows.rows[r][0];
        Pattern **row = arena_array(C->A, (size_t)(ncols ? ncols : 1), sizeof(Pattern *));
        for (int f = 0; f < arity; f++) row[f] = (!catchall(p) && f < p->n) ? p->items[f] : X->wildcard;
        for (int k = 1; k < nt; k++) row[arity + k - 1] = rows.rows[r][k];
        spec.rows[spec.nrows++] = row;
      }
      WitnessList sub = find_missing(X, ftypes, ncols, spec, limit - out.n, depth + 1);
      for (int i = 0; i < sub.n; i++) {
        Witness w = sub.items[i];
        const char *head = ctor_witness(C, var->name, w.items, arity);
        Witness nw = {arena_array(C->A, (size_t)(w.n - arity + 1), sizeof(const char *)), w.n - arity + 1};
        nw.items[0] = head;
        for (int k = arity; k < w.n; k++) nw.items[k - arity + 1] = w.items[k];
        wl_push(C, &out, nw);
        if (out.n >= limit) return out;
      }
    }
    return out;
  }
  Matrix defaults = mx_new(C, rows.nrows, nt - 1);
  for (int r = 0; r < rows.nrows; r++)
    if (catchall(rows.rows[r][0])) defaults.rows[defaults.nrows++] = rows.rows[r] + 1;
  if (defaults.nrows == 0) {
    Witness w = {arena_array(C->A, (size_t)nt, sizeof(const char *)), nt};
    w.items[0] = default_witness(X, first);
    for (int i = 1; i < nt; i++) w.items[i] = "_";
    wl_push(C, &out, w);
    return out;
  }
  add_prefixed(X, &out, "_", find_missing(X, types + 1, nt - 1, defaults, limit, depth + 1), limit);
  return out;
}

/* Lists: exhaustive with a rest pattern of minimum length k plus exact
 * patterns for every shorter length, all elements catch-all. */
/* Only list patterns whose elements are all catch-alls count (a literal
 * element does not cover its length class). */
static bool lists_exhaustive(Pattern **pats, int n) {
  bool fixed[64] = {false};
  int min_rest = -1;
  bool big_fixed = false;
  for (int i = 0; i < n; i++) {
    Pattern *p = pats[i];
    if (p->kind != PAT_LIST) continue;
    int len = 0;
    bool rest = false, ok = true;
    for (int k = 0; k < p->n; k++) {
      if (p->items[k]->kind == PAT_REST) rest = true;
      else {
        len++;
        if (!catchall(p->items[k])) ok = false;
      }
    }
    if (!ok) continue;
    if (rest) {
      if (min_rest < 0 || len < min_rest) min_rest = len;
    } else if (len < 64) {
      fixed[len] = true;
    } else {
      big_fixed = true;
    }
  }
  (void)big_fixed;
  if (min_rest < 0) return false;
  for (int l = 0; l < min_rest; l++)
    if (l >= 64 || !fixed[l]) return false;
  return true;
}

void chk_exhaustive(Checker *C, Type *st, MatchArm *arms, int n, Span sp) {
  Pattern **pats = arena_array(C->A, (size_t)(n ? n : 1), sizeof(Pattern *));
  int np = 0;
  for (int i = 0; i < n; i++)
    if (!arms[i].guard) pats[np++] = arms[i].pat;
  for (int i = 0; i < np; i++)
    if (catchall(pats[i])) return;
  if (st->kind == TY_LIST) {
    if (!lists_exhaustive(pats, np))
      chk_error(C, E_TYPE_MISMATCH, sp, "Non-exhaustive patterns: match on %s requires a default arm", chk_tstr(C, st));
    return;
  }
  bool finite = st->kind == TY_BOOL || st->kind == TY_OPTION || st->kind == TY_RESULT ||
                (st->kind == TY_ADT && chk_adt(C, st->name));
  if (!finite) {
    if (st->kind == TY_INT || st->kind == TY_FLOAT || st->kind == TY_STRING || st->kind == TY_TUPLE)
      chk_error(C, E_TYPE_MISMATCH, sp, "Non-exhaustive patterns: match on %s requires a default arm", chk_tstr(C, st));
    return;
  }
  Ex X = {C, arena_alloc(C->A, sizeof(Pattern)), sp};
  X.wildcard->kind = PAT_WILDCARD;
  Matrix rows = mx_new(C, np, 1);
  for (int i = 0; i < np; i++) {
    Pattern **row = arena_array(C->A, 1, sizeof(Pattern *));
    row[0] = pats[i];
    rows.rows[rows.nrows++] = row;
  }
  Type *types[1] = {st};
  WitnessList missing = find_missing(&X, types, 1, rows, EXHAUST_LIMIT, 0);
  if (missing.n == 0) return;
  Buf b = BUF_INIT;
  for (int i = 0; i < missing.n; i++) {
    Witness w = missing.items[i];
    if (i) buf_puts(&b, ", ");
    if (w.n == 0) buf_puts(&b, "()");
    else if (w.n == 1) buf_puts(&b, w.items[0]);
    else buf_puts(&b, str_join(C, "(", w.items, w.n, ")"));
  }
  chk_error(C, E_TYPE_MISMATCH, sp, "Non-exhaustive patterns: missing %s", b.data ? b.data : "");
  buf_free(&b);
}
