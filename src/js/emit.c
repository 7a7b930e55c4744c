/* Typed AST to JavaScript (see js.h).
 *
 * One pass over the checked program writes one script: the limits object
 * ($CFG), the constructor classes of every ADT, one function per Geno
 * function (modules are flattened: a function of module i is f<i>_name,
 * the entry module's f_name), trait dispatchers, the example checks and
 * the entry call; then the prelude units the code names are put in front.
 *
 * Lowering, briefly:
 * - every function counts one step and one level of depth on entry, and
 *   every loop one step per iteration, so the VM's step and recursion
 *   limits hold (E503, E502);
 * - `e?` calls $q, which throws a $Prop for None/Err; a function whose body
 *   uses `?` catches it and returns the carried value;
 * - requires/ensures wrap the body: the body becomes an inner function and
 *   its result is checked against the ensures clauses;
 * - match statements are labelled blocks of if-chains; match expressions
 *   are arrow functions called in place;
 * - t[i] = v and a.f = v on Lists, Maps and constructor values rebuild the
 *   path outward with copies (value semantics); Arrays, Vecs and
 *   MutableMaps change in place. */
#include <stdarg.h>
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../check/types.h"
#include "../check/adts.h"
#include "../lib/builtins.h"
#include "js.h"

/* ---- state -------------------------------------------------------------------------- */

typedef struct Var {
  const char *name; /* Geno name (interned) */
  char js[64];      /* JavaScript name */
} Var;

typedef struct VariantInfo {
  const char *name;   /* interned, or a static string for built-in ADTs */
  const char *type;   /* the ADT's name */
  const char **fields;
  int nfields;
  bool builtin_opt;   /* Some/None/Ok/Err: classes of the prelude */
  bool builtin;       /* a built-in ADT (JsonValue ...): emitted only when used */
  bool used;
} VariantInfo;

typedef struct Js {
  Program *prog;
  const JsOptions *o;
  DiagList *diags;
  bool failed;
  int mod;                /* module being emitted */
  /* prelude units the code needs */
  const char **need;
  size_t nneed, capneed;
  /* locals of the function being emitted (a stack; scopes mark depths) */
  Var *vars;
  int nvars, capvars;
  int scope_marks[256];
  int nscopes;
  int uniq;               /* fresh-name counter */
  VariantInfo *variants;
  int nvariants, capvariants;
  const char **traits;    /* trait method names */
  int ntraits, captraits;
  bool in_async;
  int indent;
  /* Variables of the function being emitted that are grown by
   * `x = append(x, e)`: that statement appends in place when the list is
   * owned (see $apIn), and every other read of x gives up ownership ($rd). */
  const char *own[16];
  int nown;
} Js;

static void expr(Js *J, Buf *b, Expr *e);
static void block(Js *J, Buf *b, Block *blk);
static void stmt(Js *J, Buf *b, Stmt *s);

static void oops(Js *J, const Span *sp, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  diag_vadd(J->diags, E_TYPE_MISMATCH, sp, fmt, ap);
  va_end(ap);
  J->failed = true;
}

static void need(Js *J, const char *unit) {
  for (size_t i = 0; i < J->nneed; i++)
    if (strcmp(J->need[i], unit) == 0) return;
  if (J->nneed == J->capneed) {
    size_t cap = J->capneed ? J->capneed * 2 : 64;
    const char **n = realloc(J->need, cap * sizeof *n);
    if (!n) {
      J->failed = true;
      return;
    }
    J->need = n;
    J->capneed = cap;
  }
  J->need[J->nneed++] = unit;
}

static void nl(Js *J, Buf *b) {
  buf_putc(b, '\n');
  for (int i = 0; i < J->indent; i++) buf_puts(b, "  ");
}

/* Source positions for the source map: with o->source_map set, a marker
 * "\x01MODULE:LINE:COL\x02" is written where a statement or function
 * starts; finish_map removes them from the text and turns them into
 * mappings. (No generated text holds \x01 otherwise: string literals
 * escape every control character.) */
static void mark(Js *J, Buf *b, Span sp) {
  if (J->o->source_map && sp.line > 0) buf_printf(b, "\x01%d:%d:%d\x02", J->mod, sp.line, sp.col);
}

static Type *ty(Expr *e) { return e ? e->type : NULL; }
static int kind(Expr *e) {
  Type *t = ty(e);
  return t ? t->kind : TY_ERROR;
}

/* ---- names ---------------------------------------------------------------------------- */

static void scope_push(Js *J) {
  if (J->nscopes < (int)(sizeof J->scope_marks / sizeof J->scope_marks[0])) J->scope_marks[J->nscopes] = J->nvars;
  J->nscopes++;
}

static void scope_pop(Js *J) {
  J->nscopes--;
  if (J->nscopes < (int)(sizeof J->scope_marks / sizeof J->scope_marks[0])) J->nvars = J->scope_marks[J->nscopes];
}

/* A new local: `v_name`, or `v_name_N` when that name is already visible
 * (JavaScript refuses a second `let` of a name in one block). */
static const char *declare(Js *J, const char *name) {
  if (J->nvars == J->capvars) {
    int cap = J->capvars ? J->capvars * 2 : 64;
    Var *v = realloc(J->vars, (size_t)cap * sizeof *v);
    if (!v) {
      J->failed = true;
      static char dummy[] = "v$oom";
      return dummy;
    }
    J->vars = v;
    J->capvars = cap;
  }
  Var *v = &J->vars[J->nvars++];
  v->name = name;
  bool clash = false;
  for (int i = 0; i < J->nvars - 1; i++) clash |= J->vars[i].name == name;
  if (clash || strlen(name) > 40) snprintf(v->js, sizeof v->js, "v_%.40s_%d", name, ++J->uniq);
  else snprintf(v->js, sizeof v->js, "v_%s", name);
  return v->js;
}

static const char *lookup_var(Js *J, const char *name) {
  for (int i = J->nvars - 1; i >= 0; i--)
    if (J->vars[i].name == name) return J->vars[i].js;
  return NULL;
}

static FuncDecl *module_func(Module *m, const char *name, bool exported_only) {
  bool has_exports = false;
  for (int i = 0; i < m->ndecls; i++) has_exports |= m->decls[i]->exported;
  for (int i = 0; i < m->ndecls; i++) {
    Decl *d = m->decls[i];
    if (d->kind == D_FUNC && d->u.func.name == name) {
      if (exported_only && has_exports && !d->u.func.exported) return NULL;
      return &d->u.func;
    }
  }
  return NULL;
}

static int module_index(Program *p, const char *name) {
  for (int i = 1; i < p->nmodules; i++)
    if (p->modules[i]->name == name) return i;
  return -1;
}

static void func_name(Buf *b, int mod, const char *name) {
  if (mod == 0) buf_printf(b, "f_%s", name);
  else buf_printf(b, "f%d_%s", mod, name);
}

/* A function visible by plain name in module J->mod: its own, then those
 * of modules it imports without an alias. Sets *mod. */
static FuncDecl *resolve_func(Js *J, const char *name, int *mod) {
  Module *m = J->prog->modules[J->mod];
  FuncDecl *f = module_func(m, name, false);
  if (f) {
    *mod = J->mod;
    return f;
  }
  for (int i = 0; i < m->ndecls; i++) {
    Decl *d = m->decls[i];
    if (d->kind != D_IMPORT || d->u.import.alias) continue;
    int j = module_index(J->prog, d->u.import.module);
    if (j < 0) continue;
    f = module_func(J->prog->modules[j], name, true);
    if (f) {
      *mod = j;
      return f;
    }
  }
  return NULL;
}

/* `M.f` where M names a module (or an alias) imported by module J->mod. */
static FuncDecl *resolve_qualified(Js *J, const char *mod_name, const char *name, int *mod) {
  Module *m = J->prog->modules[J->mod];
  for (int i = 0; i < m->ndecls; i++) {
    Decl *d = m->decls[i];
    if (d->kind != D_IMPORT) continue;
    const char *as = d->u.import.alias ? d->u.import.alias : d->u.import.module;
    if (as != mod_name) continue;
    int j = module_index(J->prog, d->u.import.module);
    if (j < 0) return NULL;
    *mod = j;
    return module_func(J->prog->modules[j], name, true);
  }
  return NULL;
}

static bool is_module_name(Js *J, const char *name) {
  Module *m = J->prog->modules[J->mod];
  for (int i = 0; i < m->ndecls; i++) {
    Decl *d = m->decls[i];
    if (d->kind == D_IMPORT && (d->u.import.alias ? d->u.import.alias : d->u.import.module) == name) return true;
  }
  return false;
}

static const VariantInfo *find_variant(Js *J, const char *name) {
  for (int i = 0; i < J->nvariants; i++)
    if (strcmp(J->variants[i].name, name) == 0) {
      J->variants[i].used = true;
      return &J->variants[i];
    }
  return NULL;
}

/* A type named in a catch clause or an impl: its classes are needed. */
static void use_type(Js *J, const char *type) {
  for (int i = 0; i < J->nvariants; i++)
    if (strcmp(J->variants[i].type, type) == 0) J->variants[i].used = true;
}

static bool is_trait_method(Js *J, const char *name) {
  for (int i = 0; i < J->ntraits; i++)
    if (J->traits[i] == name) return true;
  return false;
}

/* The JavaScript property of a constructor field (`__proto__` would set
 * the prototype). */
static void field_prop(Buf *b, const char *name) {
  if (strcmp(name, "__proto__") == 0) buf_puts(b, "[\"__proto__$\"]");
  else buf_printf(b, ".%s", name);
}

static void ctor_class(Buf *b, const VariantInfo *v) {
  if (v->builtin_opt) buf_printf(b, "$%s", v->name);
  else buf_printf(b, "C_%s", v->name);
}

/* ---- literals --------------------------------------------------------------------------- */

/* A JavaScript string literal: quotes, backslashes, controls and `<`
 * escaped, so the text is safe inside an HTML <script> element too. */
static void js_string(Buf *b, const char *s, size_t n) {
  buf_putc(b, '"');
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c == '"' || c == '\\') {
      buf_putc(b, '\\');
      buf_putc(b, (char)c);
    } else if (c == '\n') buf_puts(b, "\\n");
    else if (c < 0x20 || c == '<' || c == 0x7f) buf_printf(b, "\\x%02x", c);
    else if (c == 0xe2 && i + 2 < n && (unsigned char)s[i + 1] == 0x80 &&
             ((unsigned char)s[i + 2] == 0xa8 || (unsigned char)s[i + 2] == 0xa9)) {
      buf_printf(b, "\\u202%c", (unsigned char)s[i + 2] == 0xa8 ? '8' : '9');
      i += 2;
    } else buf_putc(b, (char)c);
  }
  buf_putc(b, '"');
}

/* Bits of an Int literal's magnitude (0x/0o/0b prefixes and underscores
 * allowed); INT_MAX when it does not fit 64 bits. */
static int int_lit_bits(const char *digits, size_t len) {
  char tmp[80];
  size_t k = 0;
  for (size_t i = 0; i < len; i++) {
    if (digits[i] == '_') continue;
    if (k >= sizeof tmp - 1) return INT_MAX;
    tmp[k++] = digits[i];
  }
  tmp[k] = '\0';
  int base = 10;
  const char *p = tmp;
  if (k > 2 && tmp[0] == '0' && strchr("xXoObB", tmp[1])) {
    base = tmp[1] == 'x' || tmp[1] == 'X' ? 16 : tmp[1] == 'o' || tmp[1] == 'O' ? 8 : 2;
    p += 2;
  }
  errno = 0;
  unsigned long long v = strtoull(p, NULL, base);
  if (errno == ERANGE) return INT_MAX;
  int bits = 0;
  while (v) {
    bits++;
    v >>= 1;
  }
  return bits;
}

static void int_lit(Buf *b, const char *digits, size_t len) {
  /* digits may carry underscores or a 0x/0o/0b prefix */
  char tmp[64];
  size_t k = 0;
  Buf big = BUF_INIT;
  for (size_t i = 0; i < len; i++) {
    if (digits[i] == '_') continue;
    if (k < sizeof tmp - 1) tmp[k++] = digits[i];
    else buf_putc(&big, digits[i]);
  }
  tmp[k] = '\0';
  buf_puts(b, tmp);
  if (big.len) buf_append(b, big.data, big.len);
  buf_free(&big);
  buf_putc(b, 'n');
}

static void float_lit(Buf *b, double d) {
  char tmp[64];
  if (d != d) buf_puts(b, "NaN");
  else if (d > 1.7976931348623157e308) buf_puts(b, "Infinity");
  else {
    snprintf(tmp, sizeof tmp, "%.17g", d);
    buf_puts(b, tmp);
  }
}

/* ---- calls ------------------------------------------------------------------------------- */

typedef struct CArg {
  Expr *e;          /* NULL: use text */
  const char *text; /* already emitted JavaScript */
  const char *name; /* named argument */
} CArg;

/* Parameter names of a builtin, from its signature. */
static int builtin_params(Js *J, const BuiltinDef *d, const char **out, int max) {
  const char *s = d->sig ? strchr(d->sig, '(') : NULL;
  if (!s) return 0;
  s++;
  int count = 0, depth = 0;
  const char *start = s;
  bool in_name = true;
  for (; *s && count < max; s++) {
    char ch = *s;
    if (ch == '[' || ch == '(') depth++;
    else if ((ch == ']' || ch == ')') && depth > 0) depth--;
    else if (ch == ')' && depth == 0) break;
    if (in_name && (ch == ':' || ch == '?')) {
      const char *a = start;
      while (*a == ' ') a++;
      out[count++] = intern(&J->prog->names, a, (size_t)(s - a));
      in_name = false;
    }
    if (ch == ',' && depth == 0) {
      start = s + 1;
      in_name = true;
    }
  }
  return count;
}

static void arg_text(Js *J, Buf *b, const CArg *a, Type *param_float) {
  if (!a->e) {
    buf_puts(b, a->text);
    return;
  }
  bool promote = param_float && kind(a->e) == TY_INT;
  if (promote) {
    need(J, "$nf");
    buf_puts(b, "$nf(");
  }
  expr(J, b, a->e);
  if (promote) buf_putc(b, ')');
}

/* callee(args...) with the arguments in parameter order (named ones moved
 * to their parameter); missing optional parameters get `$MISS` (the
 * callee's default). Arguments are evaluated in source order: when naming
 * moved them, they pass through an arrow function's parameters first. */
static void call_args(Js *J, Buf *b, const char *callee, CArg *args, int nargs, const char **pnames, int np,
                      bool fill_missing) {
  bool named = false;
  for (int i = 0; i < nargs; i++) named |= args[i].name != NULL;
  if (!named || np < 0) {
    buf_puts(b, callee);
    buf_putc(b, '(');
    for (int i = 0; i < nargs; i++) {
      if (i) buf_puts(b, ", ");
      arg_text(J, b, &args[i], NULL);
    }
    if (fill_missing)
      for (int i = nargs; i < np; i++) {
        buf_puts(b, i ? ", $MISS" : "$MISS");
        need(J, "$MISS");
      }
    buf_putc(b, ')');
    return;
  }
  int room = (np > nargs ? np : nargs) + 1;
  int *slot = calloc((size_t)room, sizeof *slot);
  bool *used = calloc((size_t)room, sizeof *used);
  if (!slot || !used) {
    free(slot);
    free(used);
    J->failed = true;
    return;
  }
  int hi = 0;
  bool in_order = true;
  for (int i = 0; i < nargs; i++) {
    int s = -1;
    if (args[i].name)
      for (int k = 0; k < np; k++)
        if (pnames[k] == args[i].name) s = k;
    if (s < 0 || used[s]) {
      s = 0;
      while (s < room - 1 && used[s]) s++;
    }
    used[s] = true;
    slot[i] = s;
    in_order &= i == 0 || s > slot[i - 1];
    if (s + 1 > hi) hi = s + 1;
  }
  if (fill_missing && np > hi) hi = np;
  if (!in_order) {
    buf_puts(b, "((");
    for (int i = 0; i < nargs; i++) buf_printf(b, "%s$a%d", i ? ", " : "", i);
    buf_puts(b, ") => ");
  }
  buf_puts(b, callee);
  buf_putc(b, '(');
  for (int p = 0; p < hi; p++) {
    if (p) buf_puts(b, ", ");
    int which = -1;
    for (int i = 0; i < nargs; i++)
      if (slot[i] == p) which = i;
    if (which < 0) {
      buf_puts(b, "$MISS");
      need(J, "$MISS");
    } else if (in_order) arg_text(J, b, &args[which], NULL);
    else buf_printf(b, "$a%d", which);
  }
  buf_putc(b, ')');
  if (!in_order) {
    buf_puts(b, ")(");
    for (int i = 0; i < nargs; i++) {
      if (i) buf_puts(b, ", ");
      arg_text(J, b, &args[i], NULL);
    }
    buf_putc(b, ')');
  }
  free(slot);
  free(used);
}

static void builtin_ref(Js *J, Buf *b, const BuiltinDef *d, Span sp) {
  if (!d->js) {
    oops(J, &sp, "Builtin '%s' is not available on the JavaScript target", d->name);
    buf_puts(b, "undefined");
    return;
  }
  need(J, d->js);
  buf_puts(b, d->js);
}

/* A builtin used as a value renders as <builtin name>. */
static void builtin_value(Js *J, Buf *b, const BuiltinDef *d, Span sp) {
  need(J, "$bv");
  buf_puts(b, "$bv(");
  builtin_ref(J, b, d, sp);
  buf_printf(b, ", \"%s\")", d->name);
}

/* Parameter names of a trait method (from its trait declaration). */
static const char **trait_params(Js *J, const char *name, int *np) {
  for (int mi = 0; mi < J->prog->nmodules; mi++) {
    Module *m = J->prog->modules[mi];
    for (int i = 0; i < m->ndecls; i++) {
      Decl *d = m->decls[i];
      if (d->kind != D_TRAIT) continue;
      for (int k = 0; k < d->u.trait.n; k++) {
        TraitMethod *t = &d->u.trait.methods[k];
        if (t->name != name) continue;
        const char **pn = arena_alloc(&J->prog->arena, sizeof(char *) * (size_t)(t->nparams + 1));
        if (!pn) return NULL;
        for (int p = 0; p < t->nparams; p++) pn[p] = t->params[p].name;
        *np = t->nparams;
        return pn;
      }
    }
  }
  return NULL;
}

static const char **func_params(Js *J, FuncDecl *f) {
  const char **pn = arena_alloc(&J->prog->arena, sizeof(char *) * (size_t)(f->nparams + 1));
  if (!pn) {
    J->failed = true;
    return NULL;
  }
  for (int i = 0; i < f->nparams; i++) pn[i] = f->params[i].name;
  return pn;
}

static const char **builtin_pnames(Js *J, const BuiltinDef *d, int *np) {
  const char **pn = arena_alloc(&J->prog->arena, sizeof(char *) * 64);
  *np = pn ? builtin_params(J, d, pn, 64) : -1;
  return pn;
}

static void call(Js *J, Buf *b, Span sp, Expr *callee, CArg *args, int nargs) {
  Buf fn = BUF_INIT;
  const char **pn = NULL;
  int np = -1;
  bool fill = false;
  if (callee->kind == EX_IDENT && !lookup_var(J, callee->u.name)) {
    const char *name = callee->u.name;
    int mod;
    FuncDecl *f;
    const BuiltinDef *d;
    if (is_trait_method(J, name)) {
      buf_printf(&fn, "t_%s", name);
      pn = trait_params(J, name, &np);
      if (!pn) np = -1;
    } else if ((f = resolve_func(J, name, &mod))) {
      func_name(&fn, mod, name);
      pn = func_params(J, f);
      np = f->nparams;
      fill = true;
    } else if ((d = lib_builtin_find(name))) {
      builtin_ref(J, &fn, d, sp);
      pn = builtin_pnames(J, d, &np);
    }
  } else if (callee->kind == EX_FIELD && callee->u.field.target->kind == EX_TYPE_IDENT &&
             is_module_name(J, callee->u.field.target->u.name)) {
    int mod;
    FuncDecl *f = resolve_qualified(J, callee->u.field.target->u.name, callee->u.field.name, &mod);
    const BuiltinDef *d;
    if (f) {
      func_name(&fn, mod, f->name);
      pn = func_params(J, f);
      np = f->nparams;
      fill = true;
    } else if ((d = lib_builtin_find(callee->u.field.name))) {
      builtin_ref(J, &fn, d, sp);
      pn = builtin_pnames(J, d, &np);
    }
  }
  if (!fn.len) {
    buf_putc(&fn, '(');
    expr(J, &fn, callee);
    buf_putc(&fn, ')');
  }
  call_args(J, b, fn.data ? fn.data : "undefined", args, nargs, pn, np, fill);
  buf_free(&fn);
}

/* ---- operators ----------------------------------------------------------------------- */

static void paren_expr(Js *J, Buf *b, Expr *e) {
  buf_putc(b, '(');
  expr(J, b, e);
  buf_putc(b, ')');
}

static void num_operand(Js *J, Buf *b, Expr *e, bool to_float) {
  if (to_float && kind(e) == TY_INT) {
    need(J, "$nf");
    buf_puts(b, "$nf(");
    expr(J, b, e);
    buf_putc(b, ')');
  } else paren_expr(J, b, e);
}

static void binary(Js *J, Buf *b, Expr *e) {
  Expr *l = e->u.bin.l, *r = e->u.bin.r;
  int lk = kind(l), rk = kind(r);
  BinOp op = e->u.bin.op;
  bool ints = lk == TY_INT && rk == TY_INT;
  bool nums = (lk == TY_INT || lk == TY_FLOAT) && (rk == TY_INT || rk == TY_FLOAT);
  bool floats = nums && !ints;
  switch (op) {
    case OP_AND:
    case OP_OR:
      buf_putc(b, '(');
      paren_expr(J, b, l);
      buf_puts(b, op == OP_AND ? " && " : " || ");
      paren_expr(J, b, r);
      buf_putc(b, ')');
      return;
    case OP_EQ:
    case OP_NEQ:
      if (lk == TY_UNIT && rk == TY_UNIT) { /* () and the written () are one value */
        buf_putc(b, '(');
        expr(J, b, l);
        buf_puts(b, ", ");
        expr(J, b, r);
        buf_puts(b, op == OP_EQ ? ", true)" : ", false)");
        return;
      }
      if (nums || (lk == rk && (lk == TY_STRING || lk == TY_BOOL || lk == TY_UNIT))) {
        buf_putc(b, '(');
        paren_expr(J, b, l);
        /* Int == Int is loose too: an Int-typed value may be a Float at
         * run time (Int ** negative Int), and 1.0 == 1 as in the VM */
        bool loose = floats || (lk == TY_INT && rk == TY_INT);
        buf_puts(b, op == OP_EQ ? (loose ? " == " : " === ") : (loose ? " != " : " !== "));
        paren_expr(J, b, r);
        buf_putc(b, ')');
      } else {
        need(J, "$eq");
        buf_puts(b, op == OP_EQ ? "$eq(" : "!$eq(");
        expr(J, b, l);
        buf_puts(b, ", ");
        expr(J, b, r);
        buf_putc(b, ')');
      }
      return;
    case OP_LT:
    case OP_GT:
    case OP_LTE:
    case OP_GTE: {
      const char *o = op == OP_LT ? " < " : op == OP_GT ? " > " : op == OP_LTE ? " <= " : " >= ";
      buf_putc(b, '(');
      if (nums || (lk == TY_BOOL && rk == TY_BOOL)) {
        paren_expr(J, b, l);
        buf_puts(b, o);
        paren_expr(J, b, r);
      } else {
        const char *f = lk == TY_STRING && rk == TY_STRING ? "$scmp" : "$cmp";
        need(J, f);
        buf_printf(b, "%s(", f);
        expr(J, b, l);
        buf_puts(b, ", ");
        expr(J, b, r);
        buf_printf(b, ")%s0", o);
      }
      buf_putc(b, ')');
      return;
    }
    default: break;
  }
  if (ints) {
    const char *fn = NULL;
    switch (op) {
      /* Checked against max_integer_bits; an Int-typed operand may be a
       * Float at run time (Int ** negative Int), which these handle. */
      case OP_ADD: fn = "$add"; break;
      case OP_SUB: fn = "$sub"; break;
      case OP_MUL: fn = "$mul"; break;
      case OP_DIV: fn = "$div"; break;
      case OP_MOD: fn = "$mod"; break;
      case OP_POW: fn = "$pow"; break;
      case OP_BAND: fn = "$band"; break;
      case OP_BXOR: fn = "$bxor"; break;
      case OP_SHL: fn = "$shl"; break;
      case OP_SHR: fn = "$shr"; break;
      default: break;
    }
    if (fn) {
      need(J, fn);
      buf_printf(b, "%s(", fn);
      expr(J, b, l);
      buf_puts(b, ", ");
      expr(J, b, r);
      buf_putc(b, ')');
      return;
    }
  }
  /* A Float-typed value can hold an Int at run time (arguments are not
   * converted), so Float arithmetic decides on the values, as the VM does. */
  if (floats && op <= OP_POW) {
    static const char *const fns[] = {"$fadd", "$fsub", "$fmul", "$fdiv", "$fmod", "$fpow"};
    const char *fn = fns[op - OP_ADD];
    need(J, fn);
    buf_printf(b, "%s(", fn);
    expr(J, b, l);
    buf_puts(b, ", ");
    expr(J, b, r);
    buf_putc(b, ')');
    return;
  }
  if (op == OP_ADD && lk == TY_STRING && rk == TY_STRING) {
    need(J, "$sc");
    buf_puts(b, "$sc(");
    paren_expr(J, b, l);
    buf_puts(b, " + ");
    paren_expr(J, b, r);
    buf_putc(b, ')');
    return;
  }
  need(J, "$num");
  buf_printf(b, "$num(\"%s\", ", ast_binop_text(op));
  expr(J, b, l);
  buf_puts(b, ", ");
  expr(J, b, r);
  buf_putc(b, ')');
}

/* ---- patterns -------------------------------------------------------------------------------- */

/* The test that `subj` matches p, as conjuncts appended to cond ("true"
 * when nothing is tested). */
static void pat_test(Js *J, Buf *cond, Pattern *p, const char *subj, int *nconds) {
  Buf sub = BUF_INIT;
  switch (p->kind) {
    case PAT_WILDCARD:
    case PAT_VAR:
    case PAT_REST: break;
    case PAT_INT:
      buf_puts(cond, *nconds ? " && " : "");
      buf_printf(cond, "%s == ", subj);
      int_lit(cond, p->digits, p->len);
      (*nconds)++;
      break;
    case PAT_FLOAT:
      buf_puts(cond, *nconds ? " && " : "");
      buf_printf(cond, "%s == ", subj);
      float_lit(cond, p->fval);
      (*nconds)++;
      break;
    case PAT_STRING:
      buf_puts(cond, *nconds ? " && " : "");
      buf_printf(cond, "%s === ", subj);
      js_string(cond, p->str, p->len);
      (*nconds)++;
      break;
    case PAT_BOOL:
      buf_puts(cond, *nconds ? " && " : "");
      buf_printf(cond, "%s === %s", subj, p->bval ? "true" : "false");
      (*nconds)++;
      break;
    case PAT_CTOR: {
      const VariantInfo *v = find_variant(J, p->name);
      buf_puts(cond, *nconds ? " && " : "");
      if (v && strcmp(v->name, "None") == 0) {
        need(J, "$None");
        buf_printf(cond, "%s === $None", subj);
      } else {
        buf_printf(cond, "%s.$n === \"%s\"", subj, p->name);
      }
      (*nconds)++;
      if (!v) break;
      for (int i = 0; i < p->n && i < v->nfields; i++) {
        buf_clear(&sub);
        buf_puts(&sub, subj);
        field_prop(&sub, v->fields[i]);
        pat_test(J, cond, p->items[i], sub.data, nconds);
      }
      break;
    }
    case PAT_LIST: {
      int rest = -1;
      for (int i = 0; i < p->n; i++)
        if (p->items[i]->kind == PAT_REST) rest = i;
      buf_puts(cond, *nconds ? " && " : "");
      if (rest < 0) buf_printf(cond, "%s.length === %d", subj, p->n);
      else buf_printf(cond, "%s.length >= %d", subj, p->n - 1);
      (*nconds)++;
      for (int i = 0; i < p->n; i++) {
        if (i == rest) continue;
        buf_clear(&sub);
        if (rest < 0 || i < rest) buf_printf(&sub, "%s[%d]", subj, i);
        else buf_printf(&sub, "%s[%s.length - %d]", subj, subj, p->n - i);
        pat_test(J, cond, p->items[i], sub.data, nconds);
      }
      break;
    }
  }
  buf_free(&sub);
}

/* Declarations binding p's variables, appended to b (one per line). */
static void pat_bind(Js *J, Buf *b, Pattern *p, const char *subj) {
  Buf sub = BUF_INIT;
  switch (p->kind) {
    case PAT_VAR: {
      const char *js = declare(J, p->name);
      nl(J, b);
      buf_printf(b, "const %s = %s;", js, subj);
      break;
    }
    case PAT_CTOR: {
      const VariantInfo *v = find_variant(J, p->name);
      for (int i = 0; v && i < p->n && i < v->nfields; i++) {
        buf_clear(&sub);
        buf_puts(&sub, subj);
        field_prop(&sub, v->fields[i]);
        pat_bind(J, b, p->items[i], sub.data);
      }
      break;
    }
    case PAT_LIST: {
      int rest = -1;
      for (int i = 0; i < p->n; i++)
        if (p->items[i]->kind == PAT_REST) rest = i;
      for (int i = 0; i < p->n; i++) {
        buf_clear(&sub);
        if (i == rest) {
          if (!p->items[i]->name) continue;
          const char *js = declare(J, p->items[i]->name);
          nl(J, b);
          buf_printf(b, "const %s = %s.slice(%d, %s.length - %d);", js, subj, i, subj, p->n - 1 - i);
          continue;
        }
        if (rest < 0 || i < rest) buf_printf(&sub, "%s[%d]", subj, i);
        else buf_printf(&sub, "%s[%s.length - %d]", subj, subj, p->n - i);
        pat_bind(J, b, p->items[i], sub.data);
      }
      break;
    }
    default: break;
  }
  buf_free(&sub);
}

/* ---- expressions -------------------------------------------------------------------------------- */

static bool contains_await(Expr *e);

static bool block_has_await(Block *b);

static bool stmt_has_await(Stmt *s) {
  switch (s->kind) {
    case ST_LET: return contains_await(s->u.let.value);
    case ST_DESTRUCT: return contains_await(s->u.destr.value);
    case ST_ASSIGN: return contains_await(s->u.assign.value);
    case ST_INDEX_ASSIGN:
      return contains_await(s->u.index_assign.target) || contains_await(s->u.index_assign.index) ||
             contains_await(s->u.index_assign.value);
    case ST_FIELD_ASSIGN: return contains_await(s->u.field_assign.target) || contains_await(s->u.field_assign.value);
    case ST_IF:
      return contains_await(s->u.if_.cond) || block_has_await(&s->u.if_.then_b) || block_has_await(&s->u.if_.else_b);
    case ST_WHILE: return contains_await(s->u.while_.cond) || block_has_await(&s->u.while_.body);
    case ST_FOR: return contains_await(s->u.for_.iter) || block_has_await(&s->u.for_.body);
    case ST_MATCH: {
      if (contains_await(s->u.match.scrutinee)) return true;
      for (int i = 0; i < s->u.match.n; i++)
        if (block_has_await(&s->u.match.arms[i].body) || contains_await(s->u.match.arms[i].guard)) return true;
      return false;
    }
    case ST_RETURN: return contains_await(s->u.ret.value);
    case ST_TRY: return block_has_await(&s->u.try_.body) || block_has_await(&s->u.try_.handler);
    case ST_EXPR:
    case ST_ASSERT: return contains_await(s->u.expr);
    default: return false;
  }
}

static bool block_has_await(Block *b) {
  for (int i = 0; i < b->n; i++)
    if (stmt_has_await(b->items[i])) return true;
  return false;
}

/* Does e (outside nested lambdas) contain `await`? */
static bool contains_await(Expr *e) {
  if (!e) return false;
  switch (e->kind) {
    case EX_AWAIT: return true;
    case EX_LAMBDA: return false;
    case EX_FSTRING:
      for (int i = 0; i < e->u.fstr.n; i++)
        if (contains_await(e->u.fstr.pieces[i].expr)) return true;
      return false;
    case EX_LIST:
    case EX_TUPLE:
      for (int i = 0; i < e->u.list.n; i++)
        if (contains_await(e->u.list.items[i])) return true;
      return false;
    case EX_LIST_COMP:
      return contains_await(e->u.comp.elem) || contains_await(e->u.comp.iter) || contains_await(e->u.comp.cond);
    case EX_THROW:
    case EX_PROPAGATE: return contains_await(e->u.operand);
    case EX_BINARY: return contains_await(e->u.bin.l) || contains_await(e->u.bin.r);
    case EX_UNARY: return contains_await(e->u.un.e);
    case EX_CALL:
      if (contains_await(e->u.call.callee)) return true;
      for (int i = 0; i < e->u.call.nargs; i++)
        if (contains_await(e->u.call.args[i].value)) return true;
      return false;
    case EX_CTOR:
      for (int i = 0; i < e->u.ctor.nargs; i++)
        if (contains_await(e->u.ctor.args[i].value)) return true;
      return false;
    case EX_INDEX: return contains_await(e->u.index.target) || contains_await(e->u.index.index);
    case EX_FIELD: return contains_await(e->u.field.target);
    case EX_WITH:
      if (contains_await(e->u.with.target)) return true;
      for (int i = 0; i < e->u.with.n; i++)
        if (contains_await(e->u.with.inits[i].value)) return true;
      return false;
    case EX_PIPELINE:
      if (contains_await(e->u.pipe.init)) return true;
      for (int s = 0; s < e->u.pipe.n; s++)
        for (int i = 0; i < e->u.pipe.stages[s].nargs; i++)
          if (contains_await(e->u.pipe.stages[s].args[i])) return true;
      return false;
    case EX_MATCH:
      if (contains_await(e->u.match.scrutinee)) return true;
      for (int i = 0; i < e->u.match.n; i++)
        if (contains_await(e->u.match.arms[i].value) || contains_await(e->u.match.arms[i].guard)) return true;
      return false;
    default: return false;
  }
}

static void step_check(Js *J, Buf *b) {
  need(J, "$rt");
  nl(J, b);
  buf_puts(b, "if (++$S > $M) $step();");
}

/* A function body with the runtime's prologue: step and depth counting,
 * `?` catching, contracts. params are already declared. */
static void func_body(Js *J, Buf *b, const char *name, Block *body, Expr *expr_body, FuncDecl *f, bool uses_q);

static bool block_uses_q(Block *b);
static bool expr_uses_q(Expr *e);

static void lambda(Js *J, Buf *b, Expr *e) {
  bool is_async = false;
  scope_push(J);
  bool saved_async = J->in_async;
  J->in_async = is_async;
  buf_puts(b, "((");
  for (int i = 0; i < e->u.lambda.nparams; i++) {
    if (i) buf_puts(b, ", ");
    buf_puts(b, declare(J, e->u.lambda.params[i].name));
  }
  buf_puts(b, ") => {");
  J->indent++;
  bool q = e->u.lambda.is_block ? block_uses_q(&e->u.lambda.block) : expr_uses_q(e->u.lambda.body);
  func_body(J, b, NULL, e->u.lambda.is_block ? &e->u.lambda.block : NULL, e->u.lambda.is_block ? NULL : e->u.lambda.body,
            NULL, q);
  J->indent--;
  nl(J, b);
  buf_puts(b, "})");
  J->in_async = saved_async;
  scope_pop(J);
}

static void match_expr(Js *J, Buf *b, Expr *e) {
  bool aw = J->in_async && contains_await(e);
  int id = ++J->uniq;
  char subj[32];
  snprintf(subj, sizeof subj, "$m%d", id);
  buf_puts(b, aw ? "(await (async (" : "((");
  buf_printf(b, "%s) => {", subj);
  J->indent++;
  bool to_float = kind(e) == TY_FLOAT;
  for (int i = 0; i < e->u.match.n; i++) {
    MatchArm *a = &e->u.match.arms[i];
    Buf cond = BUF_INIT;
    int nc = 0;
    pat_test(J, &cond, a->pat, subj, &nc);
    nl(J, b);
    buf_printf(b, "if (%s) {", nc ? cond.data : "true");
    buf_free(&cond);
    J->indent++;
    scope_push(J);
    pat_bind(J, b, a->pat, subj);
    nl(J, b);
    if (a->guard) {
      buf_puts(b, "if (");
      expr(J, b, a->guard);
      buf_puts(b, ") ");
    }
    buf_puts(b, "return ");
    num_operand(J, b, a->value, to_float);
    buf_putc(b, ';');
    scope_pop(J);
    J->indent--;
    nl(J, b);
    buf_putc(b, '}');
  }
  need(J, "$nomatch");
  nl(J, b);
  buf_printf(b, "return $nomatch(\"expression\", %s);", subj);
  J->indent--;
  nl(J, b);
  buf_puts(b, "})(");
  expr(J, b, e->u.match.scrutinee);
  buf_puts(b, aw ? "))" : ")");
}

static void fstring(Js *J, Buf *b, Expr *e) {
  buf_putc(b, '(');
  bool any = false;
  for (int i = 0; i < e->u.fstr.n; i++) {
    FStrPiece *p = &e->u.fstr.pieces[i];
    if (any) buf_puts(b, " + ");
    any = true;
    if (p->text) {
      js_string(b, p->text, p->len);
      continue;
    }
    int k = kind(p->expr);
    if (k == TY_STRING) paren_expr(J, b, p->expr);
    else if (k == TY_INT) {
      buf_puts(b, "String");
      paren_expr(J, b, p->expr);
    } else {
      need(J, "$render");
      buf_puts(b, "$render(");
      expr(J, b, p->expr);
      buf_puts(b, ", true)");
    }
  }
  if (!any) buf_puts(b, "\"\"");
  if (e->u.fstr.n == 1 && e->u.fstr.pieces[0].expr) buf_puts(b, " + \"\"");
  buf_putc(b, ')');
}

static void ctor_expr(Js *J, Buf *b, Expr *e) {
  const VariantInfo *v = find_variant(J, e->u.ctor.name);
  if (!v) {
    oops(J, &e->span, "Unknown constructor '%s' in the JavaScript back end", e->u.ctor.name);
    return;
  }
  if (v->nfields == 0) {
    need(J, v->builtin_opt ? "$None" : "$V");
    ctor_class(b, v);
    return;
  }
  if (v->builtin_opt) need(J, "$V");
  Buf cls = BUF_INIT;
  buf_puts(&cls, "new ");
  ctor_class(&cls, v);
  int n = e->u.ctor.nargs;
  CArg *args = calloc((size_t)n + 1, sizeof *args);
  const char **pn = calloc((size_t)v->nfields + 1, sizeof *pn);
  if (args && pn) {
    for (int i = 0; i < n; i++) args[i] = (CArg){e->u.ctor.args[i].value, NULL, e->u.ctor.args[i].name};
    for (int i = 0; i < v->nfields; i++) pn[i] = intern_cstr(&J->prog->names, v->fields[i]);
    call_args(J, b, cls.data, args, n, pn, v->nfields, false);
  } else J->failed = true;
  free(args);
  free(pn);
  buf_free(&cls);
}

/* A constructor with fields used as a function value. */
static void ctor_value(Js *J, Buf *b, const VariantInfo *v) {
  need(J, "$V");
  buf_puts(b, "((");
  for (int i = 0; i < v->nfields; i++) buf_printf(b, "%sa%d", i ? ", " : "", i);
  buf_puts(b, ") => new ");
  ctor_class(b, v);
  buf_putc(b, '(');
  for (int i = 0; i < v->nfields; i++) buf_printf(b, "%sa%d", i ? ", " : "", i);
  buf_puts(b, "))");
}

/* Is s `x = append(x, e)` with the builtin append (positional arguments)? */
static bool append_pattern(Js *J, const Stmt *s) {
  if (s->kind != ST_ASSIGN) return false;
  const Expr *v = s->u.assign.value;
  if (!v || v->kind != EX_CALL || v->u.call.callee->kind != EX_IDENT || v->u.call.nargs != 2) return false;
  const Expr *c = v->u.call.callee, *a = v->u.call.args[0].value;
  int mod;
  return strcmp(c->u.name, "append") == 0 && !v->u.call.args[0].name && !v->u.call.args[1].name &&
         a->kind == EX_IDENT && strcmp(a->u.name, s->u.assign.name) == 0 && !resolve_func(J, "append", &mod);
}

static bool owned(const Js *J, const char *name) {
  for (int i = 0; i < J->nown; i++)
    if (strcmp(J->own[i], name) == 0) return true;
  return false;
}

static void find_owned(Js *J, const Block *blk) {
  for (int i = 0; i < blk->n; i++) {
    const Stmt *s = blk->items[i];
    switch (s->kind) {
      case ST_ASSIGN:
        if (append_pattern(J, s) && !owned(J, s->u.assign.name) && J->nown < 16) J->own[J->nown++] = s->u.assign.name;
        break;
      case ST_IF: find_owned(J, &s->u.if_.then_b); find_owned(J, &s->u.if_.else_b); break;
      case ST_WHILE: find_owned(J, &s->u.while_.body); break;
      case ST_FOR: find_owned(J, &s->u.for_.body); break;
      case ST_MATCH:
        for (int k = 0; k < s->u.match.n; k++) find_owned(J, &s->u.match.arms[k].body);
        break;
      case ST_TRY: find_owned(J, &s->u.try_.body); find_owned(J, &s->u.try_.handler); break;
      default: break;
    }
  }
}

static void ident(Js *J, Buf *b, Expr *e) {
  const char *name = e->u.name;
  const char *js = lookup_var(J, name);
  if (js && owned(J, name)) {
    need(J, "$rd");
    buf_printf(b, "$rd(%s)", js);
    return;
  }
  if (js) {
    buf_puts(b, js);
    return;
  }
  int mod;
  FuncDecl *f = resolve_func(J, name, &mod);
  if (is_trait_method(J, name)) {
    buf_printf(b, "t_%s", name);
    return;
  }
  if (f) {
    func_name(b, mod, name);
    return;
  }
  const BuiltinDef *d = lib_builtin_find(name);
  if (d) {
    builtin_value(J, b, d, e->span);
    return;
  }
  oops(J, &e->span, "Undefined name '%s' in the JavaScript back end", name);
}

static void pipeline(Js *J, Buf *b, Expr *e) {
  Buf cur = BUF_INIT;
  expr(J, &cur, e->u.pipe.init);
  for (int s = 0; s < e->u.pipe.n; s++) {
    Stage *st = &e->u.pipe.stages[s];
    bool placeholder = false;
    for (int i = 0; i < st->nargs; i++) placeholder |= st->args[i]->kind == EX_PLACEHOLDER;
    CArg *args = calloc((size_t)st->nargs + 2, sizeof *args);
    if (!args) {
      J->failed = true;
      break;
    }
    int k = 0;
    const char *piped = cur.data ? cur.data : "undefined";
    if (!placeholder) args[k++] = (CArg){NULL, piped, NULL};
    for (int i = 0; i < st->nargs; i++)
      args[k++] = st->args[i]->kind == EX_PLACEHOLDER ? (CArg){NULL, piped, NULL} : (CArg){st->args[i], NULL, NULL};
    Buf next = BUF_INIT;
    call(J, &next, st->span, st->fn, args, k);
    free(args);
    buf_free(&cur);
    cur = next;
  }
  if (cur.data) buf_append(b, cur.data, cur.len);
  buf_free(&cur);
}

static void comprehension(Js *J, Buf *b, Expr *e) {
  bool aw = J->in_async && contains_await(e);
  int id = ++J->uniq;
  buf_printf(b, aw ? "(await (async () => { const $c%d = [];" : "(() => { const $c%d = [];", id);
  J->indent++;
  scope_push(J);
  need(J, "$iter");
  nl(J, b);
  buf_printf(b, "for (const $x%d of $iter(", id);
  expr(J, b, e->u.comp.iter);
  buf_puts(b, ")) {");
  J->indent++;
  step_check(J, b);
  const char *v = declare(J, e->u.comp.var);
  nl(J, b);
  buf_printf(b, "const %s = $x%d;", v, id);
  nl(J, b);
  if (e->u.comp.cond) {
    buf_puts(b, "if (");
    expr(J, b, e->u.comp.cond);
    buf_puts(b, ") ");
  }
  buf_printf(b, "$c%d.push(", id);
  expr(J, b, e->u.comp.elem);
  buf_puts(b, ");");
  J->indent--;
  nl(J, b);
  buf_putc(b, '}');
  scope_pop(J);
  nl(J, b);
  buf_printf(b, "return $c%d;", id);
  J->indent--;
  nl(J, b);
  buf_puts(b, aw ? "})())" : "})()");
}

static void expr(Js *J, Buf *b, Expr *e) {
  switch (e->kind) {
    case EX_INT:
      /* a literal wider than max_integer_bits fails when it is evaluated,
       * as in the VM */
      if (int_lit_bits(e->u.int_lit.digits, e->u.int_lit.len) > J->o->max_integer_bits) {
        need(J, "$bits");
        buf_puts(b, "$bits(");
        int_lit(b, e->u.int_lit.digits, e->u.int_lit.len);
        buf_putc(b, ')');
      } else {
        int_lit(b, e->u.int_lit.digits, e->u.int_lit.len);
      }
      break;
    case EX_FLOAT: float_lit(b, e->u.float_val); break;
    case EX_STRING: js_string(b, e->u.str.s, e->u.str.len); break;
    case EX_FSTRING: fstring(J, b, e); break;
    case EX_BOOL: buf_puts(b, e->u.bool_val ? "true" : "false"); break;
    case EX_IDENT: ident(J, b, e); break;
    case EX_TYPE_IDENT: {
      const VariantInfo *v = find_variant(J, e->u.name);
      if (!v) {
        oops(J, &e->span, "Unknown name '%s' in the JavaScript back end", e->u.name);
        break;
      }
      if (v->nfields) ctor_value(J, b, v);
      else {
        need(J, v->builtin_opt ? "$None" : "$V");
        ctor_class(b, v);
      }
      break;
    }
    case EX_LIST:
      buf_putc(b, '[');
      for (int i = 0; i < e->u.list.n; i++) {
        if (i) buf_puts(b, ", ");
        expr(J, b, e->u.list.items[i]);
      }
      buf_putc(b, ']');
      break;
    case EX_TUPLE:
      if (e->u.list.n == 0) {
        need(J, "$U0");
        buf_puts(b, "$U0");
        break;
      }
      need(J, "$V");
      buf_puts(b, "new $T([");
      for (int i = 0; i < e->u.list.n; i++) {
        if (i) buf_puts(b, ", ");
        expr(J, b, e->u.list.items[i]);
      }
      buf_puts(b, "])");
      break;
    case EX_LIST_COMP: comprehension(J, b, e); break;
    case EX_THROW:
      need(J, "$throw");
      buf_puts(b, "$throw(");
      expr(J, b, e->u.operand);
      buf_putc(b, ')');
      break;
    case EX_AWAIT:
      need(J, "$aw");
      buf_puts(b, J->in_async ? "(await $aw(" : "($aw(");
      expr(J, b, e->u.operand);
      buf_puts(b, "))");
      break;
    case EX_BINARY: binary(J, b, e); break;
    case EX_UNARY:
      if (e->u.un.op == OP_NOT) {
        buf_puts(b, "(!");
        paren_expr(J, b, e->u.un.e);
        buf_putc(b, ')');
      } else if (e->u.un.op == OP_BNOT) {
        need(J, "$bnot");
        buf_puts(b, "$bnot(");
        expr(J, b, e->u.un.e);
        buf_putc(b, ')');
      } else {
        buf_puts(b, "(-");
        paren_expr(J, b, e->u.un.e);
        buf_putc(b, ')');
      }
      break;
    case EX_CALL: {
      int n = e->u.call.nargs;
      CArg *args = calloc((size_t)n + 1, sizeof *args);
      if (!args) {
        J->failed = true;
        break;
      }
      for (int i = 0; i < n; i++) args[i] = (CArg){e->u.call.args[i].value, NULL, e->u.call.args[i].name};
      call(J, b, e->span, e->u.call.callee, args, n);
      free(args);
      break;
    }
    case EX_CTOR: ctor_expr(J, b, e); break;
    case EX_INDEX:
      need(J, "$idx");
      buf_puts(b, "$idx(");
      expr(J, b, e->u.index.target);
      buf_puts(b, ", ");
      expr(J, b, e->u.index.index);
      buf_putc(b, ')');
      break;
    case EX_FIELD: {
      Expr *t = e->u.field.target;
      if (t->kind == EX_TYPE_IDENT && is_module_name(J, t->u.name)) {
        int mod;
        FuncDecl *f = resolve_qualified(J, t->u.name, e->u.field.name, &mod);
        if (f) func_name(b, mod, f->name);
        else {
          const BuiltinDef *d = lib_builtin_find(e->u.field.name);
          if (d) builtin_value(J, b, d, e->span);
          else oops(J, &e->span, "Unknown module member '%s'", e->u.field.name);
        }
        break;
      }
      paren_expr(J, b, t);
      field_prop(b, e->u.field.name);
      break;
    }
    case EX_PROPAGATE:
      need(J, "$q");
      buf_puts(b, "$q(");
      expr(J, b, e->u.operand);
      buf_putc(b, ')');
      break;
    case EX_WITH:
      need(J, "$with");
      buf_puts(b, "$with(");
      expr(J, b, e->u.with.target);
      buf_puts(b, ", {");
      for (int i = 0; i < e->u.with.n; i++) {
        buf_puts(b, i ? ", " : "");
        buf_printf(b, "\"%s\": ", strcmp(e->u.with.inits[i].name, "__proto__") == 0 ? "__proto__$" : e->u.with.inits[i].name);
        expr(J, b, e->u.with.inits[i].value);
      }
      buf_puts(b, "})");
      break;
    case EX_PIPELINE: pipeline(J, b, e); break;
    case EX_PLACEHOLDER: buf_puts(b, "undefined"); break;
    case EX_LAMBDA: lambda(J, b, e); break;
    case EX_MATCH: match_expr(J, b, e); break;
    case EX_HOLE:
      need(J, "$fail");
      buf_printf(b, "$fail(\"E411\", \"Encountered unfilled hole: ?%s\")", e->u.hole.name);
      break;
  }
}

/* ---- statements --------------------------------------------------------------------------------- */

static bool stmt_uses_q(Stmt *s);

static bool expr_uses_q(Expr *e) {
  if (!e) return false;
  switch (e->kind) {
    case EX_PROPAGATE: return true;
    case EX_LAMBDA: return false;
    case EX_FSTRING:
      for (int i = 0; i < e->u.fstr.n; i++)
        if (expr_uses_q(e->u.fstr.pieces[i].expr)) return true;
      return false;
    case EX_LIST:
    case EX_TUPLE:
      for (int i = 0; i < e->u.list.n; i++)
        if (expr_uses_q(e->u.list.items[i])) return true;
      return false;
    case EX_LIST_COMP: return expr_uses_q(e->u.comp.elem) || expr_uses_q(e->u.comp.iter) || expr_uses_q(e->u.comp.cond);
    case EX_THROW:
    case EX_AWAIT: return expr_uses_q(e->u.operand);
    case EX_BINARY: return expr_uses_q(e->u.bin.l) || expr_uses_q(e->u.bin.r);
    case EX_UNARY: return expr_uses_q(e->u.un.e);
    case EX_CALL:
      if (expr_uses_q(e->u.call.callee)) return true;
      for (int i = 0; i < e->u.call.nargs; i++)
        if (expr_uses_q(e->u.call.args[i].value)) return true;
      return false;
    case EX_CTOR:
      for (int i = 0; i < e->u.ctor.nargs; i++)
        if (expr_uses_q(e->u.ctor.args[i].value)) return true;
      return false;
    case EX_INDEX: return expr_uses_q(e->u.index.target) || expr_uses_q(e->u.index.index);
    case EX_FIELD: return expr_uses_q(e->u.field.target);
    case EX_WITH:
      if (expr_uses_q(e->u.with.target)) return true;
      for (int i = 0; i < e->u.with.n; i++)
        if (expr_uses_q(e->u.with.inits[i].value)) return true;
      return false;
    case EX_PIPELINE:
      if (expr_uses_q(e->u.pipe.init)) return true;
      for (int s = 0; s < e->u.pipe.n; s++)
        for (int i = 0; i < e->u.pipe.stages[s].nargs; i++)
          if (expr_uses_q(e->u.pipe.stages[s].args[i])) return true;
      return false;
    case EX_MATCH:
      if (expr_uses_q(e->u.match.scrutinee)) return true;
      for (int i = 0; i < e->u.match.n; i++)
        if (expr_uses_q(e->u.match.arms[i].value) || expr_uses_q(e->u.match.arms[i].guard)) return true;
      return false;
    default: return false;
  }
}

static bool block_uses_q(Block *b) {
  for (int i = 0; i < b->n; i++)
    if (stmt_uses_q(b->items[i])) return true;
  return false;
}

static bool stmt_uses_q(Stmt *s) {
  switch (s->kind) {
    case ST_LET: return expr_uses_q(s->u.let.value);
    case ST_DESTRUCT: return expr_uses_q(s->u.destr.value);
    case ST_ASSIGN: return expr_uses_q(s->u.assign.value);
    case ST_INDEX_ASSIGN:
      return expr_uses_q(s->u.index_assign.target) || expr_uses_q(s->u.index_assign.index) ||
             expr_uses_q(s->u.index_assign.value);
    case ST_FIELD_ASSIGN: return expr_uses_q(s->u.field_assign.target) || expr_uses_q(s->u.field_assign.value);
    case ST_IF: return expr_uses_q(s->u.if_.cond) || block_uses_q(&s->u.if_.then_b) || block_uses_q(&s->u.if_.else_b);
    case ST_WHILE: return expr_uses_q(s->u.while_.cond) || block_uses_q(&s->u.while_.body);
    case ST_FOR: return expr_uses_q(s->u.for_.iter) || block_uses_q(&s->u.for_.body);
    case ST_MATCH:
      if (expr_uses_q(s->u.match.scrutinee)) return true;
      for (int i = 0; i < s->u.match.n; i++)
        if (block_uses_q(&s->u.match.arms[i].body) || expr_uses_q(s->u.match.arms[i].guard)) return true;
      return false;
    case ST_RETURN: return expr_uses_q(s->u.ret.value);
    case ST_TRY: return block_uses_q(&s->u.try_.body) || block_uses_q(&s->u.try_.handler);
    case ST_EXPR:
    case ST_ASSERT: return expr_uses_q(s->u.expr);
    default: return false;
  }
}

static bool is_mutable_container(Type *t) {
  return t && (t->kind == TY_ARRAY || t->kind == TY_VEC || t->kind == TY_MUTABLE_MAP);
}

/* Store the JavaScript value `val` into the place `target` names: a local
 * is assigned; a field or index of a value type is rebuilt by copying
 * outward; a mutable container is changed in place. */
static void store(Js *J, Buf *b, Expr *target, const char *val) {
  if (target->kind == EX_IDENT) {
    const char *js = lookup_var(J, target->u.name);
    if (!js) {
      oops(J, &target->span, "Cannot assign to '%s' in the JavaScript back end", target->u.name);
      return;
    }
    nl(J, b);
    buf_printf(b, "%s = %s;", js, val);
    return;
  }
  Buf nv = BUF_INIT;
  if (target->kind == EX_FIELD) {
    Expr *t = target->u.field.target;
    need(J, "$with");
    buf_puts(&nv, "$with(");
    expr(J, &nv, t);
    buf_printf(&nv, ", {\"%s\": %s})", strcmp(target->u.field.name, "__proto__") == 0 ? "__proto__$" : target->u.field.name,
               val);
    store(J, b, t, nv.data);
  } else if (target->kind == EX_INDEX) {
    Expr *t = target->u.index.target;
    need(J, "$setIdx");
    buf_puts(&nv, "$setIdx(");
    expr(J, &nv, t);
    buf_puts(&nv, ", ");
    expr(J, &nv, target->u.index.index);
    buf_printf(&nv, ", %s)", val);
    if (is_mutable_container(ty(t))) {
      nl(J, b);
      buf_printf(b, "%s;", nv.data);
    } else {
      store(J, b, t, nv.data);
    }
  } else {
    oops(J, &target->span, "Unsupported assignment target in the JavaScript back end");
  }
  buf_free(&nv);
}

static void value_promoted(Js *J, Buf *b, Expr *v, bool promote) {
  if (promote) {
    need(J, "$nf");
    buf_puts(b, "$nf(");
    expr(J, b, v);
    buf_putc(b, ')');
  } else expr(J, b, v);
}

static void match_stmt(Js *J, Buf *b, Stmt *s) {
  int id = ++J->uniq;
  char subj[32];
  snprintf(subj, sizeof subj, "$m%d", id);
  nl(J, b);
  buf_printf(b, "$L%d: {", id);
  J->indent++;
  nl(J, b);
  buf_printf(b, "const %s = ", subj);
  expr(J, b, s->u.match.scrutinee);
  buf_putc(b, ';');
  for (int i = 0; i < s->u.match.n; i++) {
    MatchArm *a = &s->u.match.arms[i];
    Buf cond = BUF_INIT;
    int nc = 0;
    pat_test(J, &cond, a->pat, subj, &nc);
    nl(J, b);
    buf_printf(b, "if (%s) {", nc ? cond.data : "true");
    buf_free(&cond);
    J->indent++;
    scope_push(J);
    pat_bind(J, b, a->pat, subj);
    if (a->guard) {
      nl(J, b);
      buf_puts(b, "if (");
      expr(J, b, a->guard);
      buf_puts(b, ") {");
      J->indent++;
    }
    block(J, b, &a->body);
    nl(J, b);
    buf_printf(b, "break $L%d;", id);
    if (a->guard) {
      J->indent--;
      nl(J, b);
      buf_putc(b, '}');
    }
    scope_pop(J);
    J->indent--;
    nl(J, b);
    buf_putc(b, '}');
  }
  need(J, "$nomatch");
  nl(J, b);
  buf_printf(b, "$nomatch(\"statement\", %s);", subj);
  J->indent--;
  nl(J, b);
  buf_putc(b, '}');
}

static void try_stmt(Js *J, Buf *b, Stmt *s) {
  int id = ++J->uniq;
  need(J, "$caught");
  need(J, "$rt");
  nl(J, b);
  buf_printf(b, "const $d%d = $D;", id);
  nl(J, b);
  buf_puts(b, "try {");
  J->indent++;
  scope_push(J);
  block(J, b, &s->u.try_.body);
  scope_pop(J);
  J->indent--;
  nl(J, b);
  buf_printf(b, "} catch ($e%d) {", id);
  J->indent++;
  const TypeExpr *t = s->u.try_.type;
  const char *cls = "null";
  char clsbuf[96];
  if (t && t->kind == TE_NAME && strcmp(t->name, "String") != 0) {
    snprintf(clsbuf, sizeof clsbuf, "T_%.80s", t->name);
    bool known = false;
    for (int i = 0; i < J->nvariants; i++) known |= strcmp(J->variants[i].type, t->name) == 0 && !J->variants[i].builtin_opt;
    cls = known ? clsbuf : "Boolean";
    if (known) use_type(J, t->name);
  }
  nl(J, b);
  buf_printf(b, "const $c%d = $caught($e%d, %s);", id, id, cls);
  nl(J, b);
  buf_printf(b, "if ($c%d === undefined) throw $e%d;", id, id);
  nl(J, b);
  buf_printf(b, "$D = $d%d;", id);
  scope_push(J);
  const char *v = declare(J, s->u.try_.var);
  nl(J, b);
  buf_printf(b, "const %s = $c%d;", v, id);
  block(J, b, &s->u.try_.handler);
  scope_pop(J);
  J->indent--;
  nl(J, b);
  buf_putc(b, '}');
}

static void stmt(Js *J, Buf *b, Stmt *s) {
  bool promote = (s->aux & CHK_AUX_PROMOTE_FLOAT) != 0;
  mark(J, b, s->span);
  switch (s->kind) {
    case ST_LET: {
      Buf v = BUF_INIT;
      value_promoted(J, &v, s->u.let.value, promote);
      const char *js = declare(J, s->u.let.name);
      nl(J, b);
      buf_printf(b, "%s %s = %s;", s->u.let.is_var ? "let" : "const", js, v.data ? v.data : "undefined");
      buf_free(&v);
      break;
    }
    case ST_DESTRUCT: {
      int id = ++J->uniq;
      nl(J, b);
      buf_printf(b, "const $t%d = ", id);
      expr(J, b, s->u.destr.value);
      buf_puts(b, ".a;");
      for (int i = 0; i < s->u.destr.n; i++) {
        const char *js = declare(J, s->u.destr.names[i]);
        nl(J, b);
        buf_printf(b, "%s %s = $t%d[%d];", s->u.destr.is_var ? "let" : "const", js, id, i);
      }
      break;
    }
    case ST_ASSIGN: {
      const char *js = lookup_var(J, s->u.assign.name);
      if (!js) {
        oops(J, &s->span, "Cannot assign to '%s' in the JavaScript back end", s->u.assign.name);
        break;
      }
      nl(J, b);
      if (owned(J, s->u.assign.name) && append_pattern(J, s)) {
        need(J, "$apIn");
        buf_printf(b, "%s = $apIn(%s, ", js, js);
        expr(J, b, s->u.assign.value->u.call.args[1].value);
        buf_puts(b, ");");
        break;
      }
      buf_printf(b, "%s = ", js);
      value_promoted(J, b, s->u.assign.value, promote);
      buf_putc(b, ';');
      break;
    }
    case ST_INDEX_ASSIGN: {
      Buf v = BUF_INIT;
      int id = ++J->uniq;
      if (is_mutable_container(ty(s->u.index_assign.target))) {
        /* changed in place: the container, the index, then the value, in
         * the VM's order */
        need(J, "$setIdx");
        const char *what[3] = {"$t", "$i", "$v"};
        Expr *part[3] = {s->u.index_assign.target, s->u.index_assign.index, s->u.index_assign.value};
        for (int k = 0; k < 3; k++) {
          buf_clear(&v);
          expr(J, &v, part[k]);
          nl(J, b);
          buf_printf(b, "const %s%d = %s;", what[k], id, v.data ? v.data : "undefined");
        }
        nl(J, b);
        buf_printf(b, "$setIdx($t%d, $i%d, $v%d);", id, id, id);
        buf_free(&v);
        break;
      }
      expr(J, &v, s->u.index_assign.value);
      nl(J, b);
      buf_printf(b, "const $v%d = %s;", id, v.data ? v.data : "undefined");
      buf_clear(&v);
      Expr tmp = {0};
      tmp.kind = EX_INDEX;
      tmp.span = s->span;
      tmp.u.index.target = s->u.index_assign.target;
      tmp.u.index.index = s->u.index_assign.index;
      char name[32];
      snprintf(name, sizeof name, "$v%d", id);
      store(J, b, &tmp, name);
      buf_free(&v);
      break;
    }
    case ST_FIELD_ASSIGN: {
      Buf v = BUF_INIT;
      int id = ++J->uniq;
      expr(J, &v, s->u.field_assign.value);
      nl(J, b);
      buf_printf(b, "const $v%d = %s;", id, v.data ? v.data : "undefined");
      Expr tmp = {0};
      tmp.kind = EX_FIELD;
      tmp.span = s->span;
      tmp.u.field.target = s->u.field_assign.target;
      tmp.u.field.name = s->u.field_assign.name;
      char name[32];
      snprintf(name, sizeof name, "$v%d", id);
      store(J, b, &tmp, name);
      buf_free(&v);
      break;
    }
    case ST_IF:
      nl(J, b);
      buf_puts(b, "if (");
      expr(J, b, s->u.if_.cond);
      buf_puts(b, ") {");
      J->indent++;
      scope_push(J);
      block(J, b, &s->u.if_.then_b);
      scope_pop(J);
      J->indent--;
      nl(J, b);
      buf_putc(b, '}');
      if (s->u.if_.else_b.n) {
        buf_puts(b, " else {");
        J->indent++;
        scope_push(J);
        block(J, b, &s->u.if_.else_b);
        scope_pop(J);
        J->indent--;
        nl(J, b);
        buf_putc(b, '}');
      }
      break;
    case ST_WHILE:
      nl(J, b);
      buf_puts(b, "while (");
      expr(J, b, s->u.while_.cond);
      buf_puts(b, ") {");
      J->indent++;
      step_check(J, b);
      scope_push(J);
      block(J, b, &s->u.while_.body);
      scope_pop(J);
      J->indent--;
      nl(J, b);
      buf_putc(b, '}');
      break;
    case ST_FOR: {
      int id = ++J->uniq;
      nl(J, b);
      Type *it = ty(s->u.for_.iter);
      if (it && it->kind == TY_LIST) buf_printf(b, "for (const $x%d of ", id);
      else {
        need(J, "$iter");
        buf_printf(b, "for (const $x%d of $iter(", id);
      }
      expr(J, b, s->u.for_.iter);
      buf_puts(b, it && it->kind == TY_LIST ? ") {" : ")) {");
      J->indent++;
      step_check(J, b);
      scope_push(J);
      const char *v = declare(J, s->u.for_.var);
      nl(J, b);
      buf_printf(b, "const %s = $x%d;", v, id);
      block(J, b, &s->u.for_.body);
      scope_pop(J);
      J->indent--;
      nl(J, b);
      buf_putc(b, '}');
      break;
    }
    case ST_MATCH: match_stmt(J, b, s); break;
    case ST_RETURN:
      nl(J, b);
      if (s->u.ret.bare) { /* the written Unit, as `()` */
        need(J, "$U0");
        buf_puts(b, "return $U0;");
        break;
      }
      buf_puts(b, "return ");
      value_promoted(J, b, s->u.ret.value, promote);
      buf_putc(b, ';');
      break;
    case ST_BREAK:
      nl(J, b);
      buf_puts(b, "break;");
      break;
    case ST_CONTINUE:
      nl(J, b);
      buf_puts(b, "continue;");
      break;
    case ST_TRY: try_stmt(J, b, s); break;
    case ST_EXPR:
      nl(J, b);
      expr(J, b, s->u.expr);
      buf_putc(b, ';');
      break;
    case ST_ASSERT:
      need(J, "$fail");
      nl(J, b);
      buf_puts(b, "if (!(");
      expr(J, b, s->u.expr);
      buf_puts(b, ")) $fail(\"E499\", \"Assertion failed\");");
      break;
  }
}

static void block(Js *J, Buf *b, Block *blk) {
  for (int i = 0; i < blk->n; i++) stmt(J, b, blk->items[i]);
}

/* ---- functions ----------------------------------------------------------------------------------- */

static void func_body(Js *J, Buf *b, const char *name, Block *body, Expr *expr_body, FuncDecl *f, bool uses_q) {
  need(J, "$rt");
  nl(J, b);
  buf_puts(b, "if (++$S > $M) $step();");
  nl(J, b);
  buf_puts(b, "if (++$D > $MD) $deep();");
  /* defaults: a missing argument is $MISS */
  for (int i = 0; f && i < f->nparams; i++) {
    if (!f->params[i].def) continue;
    const char *js = lookup_var(J, f->params[i].name);
    need(J, "$MISS");
    nl(J, b);
    buf_printf(b, "if (%s === $MISS) %s = ", js, js);
    expr(J, b, f->params[i].def);
    buf_putc(b, ';');
  }
  for (int i = 0; f && i < f->nrequires; i++) {
    need(J, "$fatal");
    nl(J, b);
    buf_puts(b, "if (!(");
    expr(J, b, f->requires[i].cond);
    buf_printf(b, ")) { $D--; $fatal(\"E407\", \"Precondition failed for %s: requires clause evaluated to false\"); }",
               name ? name : "function");
  }
  bool ens = f && f->nensures > 0;
  bool is_async = f && f->is_async;
  nl(J, b);
  buf_puts(b, "try {");
  J->indent++;
  if (ens) {
    nl(J, b);
    buf_puts(b, is_async ? "const v_result = await (async () => {" : "const v_result = (() => {");
    J->indent++;
  }
  if (uses_q) {
    need(J, "$Prop");
    nl(J, b);
    buf_puts(b, "try {");
    J->indent++;
  }
  scope_push(J);
  if (body) block(J, b, body);
  else if (expr_body) {
    nl(J, b);
    buf_puts(b, "return ");
    expr(J, b, expr_body);
    buf_putc(b, ';');
  }
  scope_pop(J);
  if (uses_q) {
    J->indent--;
    nl(J, b);
    buf_puts(b, "} catch ($p) { if ($p instanceof $Prop) return $p.v; throw $p; }");
  }
  if (ens) {
    J->indent--;
    nl(J, b);
    buf_puts(b, is_async ? "})());" : "})();");
    scope_push(J);
    Var *rv = NULL;
    (void)rv;
    const char *res = intern_cstr(&J->prog->names, "result");
    if (J->nvars == J->capvars) declare(J, res), J->nvars--;
    Var *v = &J->vars[J->nvars++];
    v->name = res;
    snprintf(v->js, sizeof v->js, "v_result");
    for (int i = 0; i < f->nensures; i++) {
      need(J, "$fatal");
      need(J, "$render");
      nl(J, b);
      buf_puts(b, "if (!(");
      expr(J, b, f->ensures[i].cond);
      buf_printf(b,
                 ")) $fatal(\"E408\", \"Postcondition failed for %s: ensures clause evaluated to false (result was \" + "
                 "$render(v_result, false) + \")\");",
                 name ? name : "function");
    }
    scope_pop(J);
    nl(J, b);
    buf_puts(b, "return v_result;");
  }
  J->indent--;
  nl(J, b);
  buf_puts(b, "} finally { $D--; }");
}

static void function(Js *J, Buf *b, FuncDecl *f, const char *jsname, const char *display) {
  J->nvars = 0;
  J->nscopes = 0;
  J->nown = 0;
  find_owned(J, &f->body);
  J->in_async = f->is_async;
  if (f->is_async) {
    /* Calling an async function defers it: the call is made by `await`
     * (each await runs it again), as in the VM. */
    need(J, "$Async");
    buf_printf(b, "\nfunction %s(...a) { return new $Async(%s$a, a, \"%s\"); }\n%s.$name = \"%s\";", jsname, jsname,
               display, jsname, display);
  }
  nl(J, b);
  mark(J, b, f->span);
  buf_printf(b, "%sfunction %s%s(", f->is_async ? "async " : "", jsname, f->is_async ? "$a" : "");
  scope_push(J);
  for (int i = 0; i < f->nparams; i++) {
    if (i) buf_puts(b, ", ");
    buf_puts(b, declare(J, f->params[i].name));
  }
  buf_puts(b, ") {");
  J->indent++;
  func_body(J, b, display, &f->body, NULL, f, block_uses_q(&f->body));
  J->indent--;
  nl(J, b);
  buf_putc(b, '}');
  if (!f->is_async) buf_printf(b, "\n%s.$name = \"%s\";", jsname, display);
  scope_pop(J);
  J->in_async = false;
  J->nown = 0;
}

/* ---- types ---------------------------------------------------------------------------------------- */

static void add_variant(Js *J, const char *name, const char *type, const char **fields, int nfields, bool opt) {
  if (find_variant(J, name)) return;
  if (J->nvariants == J->capvariants) {
    int cap = J->capvariants ? J->capvariants * 2 : 32;
    VariantInfo *v = realloc(J->variants, (size_t)cap * sizeof *v);
    if (!v) {
      J->failed = true;
      return;
    }
    J->variants = v;
    J->capvariants = cap;
  }
  J->variants[J->nvariants++] = (VariantInfo){name, type, fields, nfields, opt, false, false};
}

static void collect_types(Js *J, Buf *b) {
  size_t nb;
  const ChkAdt *adts = chk_adts(&nb);
  for (size_t i = 0; i < nb; i++) {
    const ChkAdt *a = &adts[i];
    bool opt = strcmp(a->name, "Option") == 0 || strcmp(a->name, "Result") == 0;
    for (int k = 0; k < a->nvariants; k++) {
      const ChkAdtVariant *v = &a->variants[k];
      const char **fields = arena_alloc(&J->prog->arena, sizeof(char *) * (size_t)(v->nfields ? v->nfields : 1));
      if (!fields) {
        J->failed = true;
        return;
      }
      for (int f = 0; f < v->nfields; f++) fields[f] = v->fields[f].name;
      add_variant(J, v->name, a->name, fields, v->nfields, opt);
      J->variants[J->nvariants - 1].builtin = true;
    }
  }
  for (int mi = 0; mi < J->prog->nmodules; mi++) {
    Module *m = J->prog->modules[mi];
    for (int i = 0; i < m->ndecls; i++) {
      Decl *d = m->decls[i];
      if (d->kind != D_ADT) continue;
      for (int k = 0; k < d->u.adt.n; k++) {
        Variant *v = &d->u.adt.variants[k];
        const char **fields = arena_alloc(&J->prog->arena, sizeof(char *) * (size_t)(v->nfields ? v->nfields : 1));
        if (!fields) {
          J->failed = true;
          return;
        }
        for (int f = 0; f < v->nfields; f++) fields[f] = v->fields[f].name;
        add_variant(J, v->name, d->u.adt.name, fields, v->nfields, false);
      }
    }
  }
  (void)b;
}

/* Classes of the ADTs other than Option and Result: T_Type extends $V,
 * C_Variant extends T_Type. Emitted for every type (they are small). */
/* Does `text` hold `prefix``name` as a whole identifier? */
static bool mentions(const char *text, const char *prefix, const char *name) {
  size_t lp = strlen(prefix), ln = strlen(name);
  for (const char *p = strstr(text, prefix); p; p = strstr(p + 1, prefix)) {
    bool start = p == text || !(isalnum((unsigned char)p[-1]) || p[-1] == '_' || p[-1] == '$');
    char after = p[lp + ln];
    if (start && strncmp(p + lp, name, ln) == 0 && !(isalnum((unsigned char)after) || after == '_' || after == '$'))
      return true;
  }
  return false;
}

static void emit_types(Js *J, Buf *b) {
  const char *last = NULL;
  /* the built-in types the prelude's units make or test (json_parse makes
   * JsonValues): their classes are emitted as if the program used them */
  Buf pre = BUF_INIT;
  js_prelude_emit(J->need, J->nneed, &pre);
  for (int i = 0; i < J->nvariants && pre.data; i++)
    if (J->variants[i].builtin && !J->variants[i].builtin_opt &&
        (mentions(pre.data, "C_", J->variants[i].name) || mentions(pre.data, "T_", J->variants[i].type)))
      J->variants[i].used = true;
  buf_free(&pre);
  for (int i = 0; i < J->nvariants; i++)
    if (J->variants[i].used) use_type(J, J->variants[i].type);
  for (int i = 0; i < J->nvariants; i++) {
    VariantInfo *v = &J->variants[i];
    if (v->builtin_opt || (v->builtin && !v->used)) continue;
    need(J, "$V");
    if (!last || strcmp(last, v->type) != 0) {
      bool seen = false;
      for (int k = 0; k < i; k++) seen |= strcmp(J->variants[k].type, v->type) == 0;
      if (!seen) buf_printf(b, "class T_%s extends $V {}\n", v->type);
      last = v->type;
    }
    if (v->nfields == 0) {
      buf_printf(b, "class C_%s$ extends T_%s {}\n", v->name, v->type);
      buf_printf(b, "C_%s$.prototype.$n = \"%s\"; C_%s$.prototype.$f = [];\n", v->name, v->name, v->name);
      buf_printf(b, "const C_%s = new C_%s$();\n", v->name, v->name);
      continue;
    }
    buf_printf(b, "class C_%s extends T_%s { constructor(", v->name, v->type);
    for (int f = 0; f < v->nfields; f++) buf_printf(b, "%sa%d", f ? ", " : "", f);
    buf_puts(b, ") { super();");
    for (int f = 0; f < v->nfields; f++) {
      buf_puts(b, " this");
      field_prop(b, v->fields[f]);
      buf_printf(b, " = a%d;", f);
    }
    buf_puts(b, " } }\n");
    buf_printf(b, "C_%s.prototype.$n = \"%s\"; C_%s.prototype.$f = [", v->name, v->name, v->name);
    for (int f = 0; f < v->nfields; f++)
      buf_printf(b, "%s\"%s\"", f ? ", " : "", strcmp(v->fields[f], "__proto__") == 0 ? "__proto__$" : v->fields[f]);
    buf_puts(b, "];\n");
  }
}

/* ---- traits ---------------------------------------------------------------------------------------- */

static void add_trait(Js *J, const char *name) {
  if (is_trait_method(J, name)) return;
  if (J->ntraits == J->captraits) {
    int cap = J->captraits ? J->captraits * 2 : 16;
    const char **t = realloc(J->traits, (size_t)cap * sizeof *t);
    if (!t) {
      J->failed = true;
      return;
    }
    J->traits = t;
    J->captraits = cap;
  }
  J->traits[J->ntraits++] = name;
}

/* Impl methods become functions i<k>_<method>, stored on the type's class
 * prototype as `m$<method>`; t_<method> dispatches on its first argument
 * and falls back to the entry module's function or the builtin of that
 * name when the argument is not a constructor value. */
static void emit_impls(Js *J, Buf *b) {
  for (int mi = 0; mi < J->prog->nmodules; mi++) {
    Module *m = J->prog->modules[mi];
    for (int i = 0; i < m->ndecls; i++) {
      Decl *d = m->decls[i];
      if (d->kind == D_TRAIT)
        for (int k = 0; k < d->u.trait.n; k++) add_trait(J, d->u.trait.methods[k].name);
      if (d->kind == D_IMPL)
        for (int k = 0; k < d->u.impl.n; k++) add_trait(J, d->u.impl.methods[k]->name);
    }
  }
  int n = 0;
  for (int mi = 0; mi < J->prog->nmodules; mi++) {
    Module *m = J->prog->modules[mi];
    J->mod = mi;
    for (int i = 0; i < m->ndecls; i++) {
      Decl *d = m->decls[i];
      if (d->kind != D_IMPL) continue;
      bool known = false;
      for (int v = 0; v < J->nvariants; v++) known |= strcmp(J->variants[v].type, d->u.impl.type) == 0;
      if (known) use_type(J, d->u.impl.type);
      for (int k = 0; k < d->u.impl.n; k++) {
        FuncDecl *f = d->u.impl.methods[k];
        char jsname[160], display[200];
        snprintf(jsname, sizeof jsname, "i%d_%.100s", ++n, f->name);
        snprintf(display, sizeof display, "%.60s", f->name);
        function(J, b, f, jsname, display);
        if (known) {
          const char *cls = strcmp(d->u.impl.type, "Option") == 0 ? "$Option"
                            : strcmp(d->u.impl.type, "Result") == 0 ? "$Result"
                                                                    : NULL;
          if (cls) buf_printf(b, "\nif (!%s.prototype.hasOwnProperty(\"m$%s\")) %s.prototype.m$%s = %s;", cls,
                              f->name, cls, f->name, jsname);
          else buf_printf(b, "\nif (!T_%s.prototype.hasOwnProperty(\"m$%s\")) T_%s.prototype.m$%s = %s;",
                          d->u.impl.type, f->name, d->u.impl.type, f->name, jsname);
        }
      }
    }
  }
  J->mod = 0;
  for (int t = 0; t < J->ntraits; t++) {
    const char *name = J->traits[t];
    need(J, "$V");
    need(J, "$fail");
    buf_printf(b, "\nfunction t_%s(...a) {\n  const s = a[0];\n  if (s instanceof $V && s.m$%s) return s.m$%s(...a);", name,
               name, name);
    int mod;
    if (resolve_func(J, name, &mod) && mod == 0) {
      buf_puts(b, "\n  return ");
      func_name(b, 0, name);
      buf_puts(b, "(...a);");
    } else if (lib_builtin_find(name) && lib_builtin_find(name)->js) {
      need(J, lib_builtin_find(name)->js);
      buf_printf(b, "\n  return %s(...a);", lib_builtin_find(name)->js);
    } else {
      need(J, "$render");
      buf_printf(b,
                 "\n  $fail(\"E403\", \"No trait implementation of '%s' for type '\" + (s instanceof $V ? s.$n : typeof s) "
                 "+ \"'\");",
                 name);
    }
    buf_puts(b, "\n}");
  }
}

/* ---- the program ------------------------------------------------------------------------------------- */

/* The example checks as one function $examples; it is async (and awaits
 * each check) when an async function has examples. Returns whether it is
 * async. */
static bool emit_examples(Js *J, Buf *b) {
  Module *entry = J->prog->modules[0];
  bool any = false, async = false;
  for (int i = 0; i < entry->ndecls; i++) {
    Decl *d = entry->decls[i];
    if (d->kind == D_FUNC && d->u.func.nexamples > 0 && d->u.func.is_async) async = true;
  }
  for (int i = 0; i < entry->ndecls; i++) {
    Decl *d = entry->decls[i];
    if (d->kind != D_FUNC || d->u.func.nexamples == 0) continue;
    FuncDecl *f = &d->u.func;
    if (!any) {
      buf_puts(b, async ? "\nasync function $examples() {" : "\nfunction $examples() {");
      need(J, "$example");
      any = true;
    }
    for (int e = 0; e < f->nexamples; e++) {
      Example *ex = &f->examples[e];
      J->nvars = 0;
      J->nscopes = 0;
      buf_printf(b, "\n  %s$example(\"%s\", () => f_%s(", async ? "await " : "", f->name, f->name);
      int required = 0;
      for (int k = 0; k < f->nparams; k++) required += f->params[k].def == NULL;
      Expr *in = ex->input;
      int given = 0;
      if (required == 0 && in->kind == EX_TUPLE && in->u.list.n == 0) {
        given = 0;
      } else if (f->nparams == 1 || in->kind != EX_TUPLE) {
        expr(J, b, in);
        given = 1;
      } else {
        for (int k = 0; k < in->u.list.n; k++) {
          if (k) buf_puts(b, ", ");
          expr(J, b, in->u.list.items[k]);
        }
        given = in->u.list.n;
      }
      for (int k = given; k < f->nparams; k++) {
        need(J, "$MISS");
        buf_puts(b, k ? ", $MISS" : "$MISS");
      }
      buf_puts(b, "), () => ");
      expr(J, b, ex->output);
      buf_puts(b, ");");
    }
  }
  if (any) buf_puts(b, "\n}");
  return async;
}

void js_options_init(JsOptions *o) {
  memset(o, 0, sizeof *o);
  o->flavor = JS_NODE;
  o->max_steps = 1000000;
  o->max_recursion_depth = 500;
  o->max_output_length = 100000;
  o->max_collection_size = 10000000;
  o->max_integer_bits = 33219;
  o->timeout_s = 0;
  o->check_examples = true;
}

/* ---- the source map ------------------------------------------------------------------------------ */

static void vlq(Buf *b, long v) {
  static const char digits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  unsigned long u = v < 0 ? ((unsigned long)-v << 1) | 1 : (unsigned long)v << 1;
  do {
    unsigned d = u & 31;
    u >>= 5;
    if (u) d |= 32;
    buf_putc(b, digits[d]);
  } while (u);
}

/* Append code to out without its position markers (see mark) and write
 * the Source Map V3 of out to o->source_map: each generated line that
 * holds the start of a statement or function maps its column 0 to that
 * statement's line and column in its module; the prelude's lines map to
 * nothing. Sources are the modules' file names, with their text. */
static void finish_map(Js *J, const char *code, size_t n, Buf *out) {
  Buf *m = J->o->source_map;
  long line = 0, prev_src = 0, prev_line = 0, prev_col = 0;
  for (size_t i = 0; i < out->len; i++) line += out->data[i] == '\n';
  Buf maps = BUF_INIT;
  for (long k = 0; k < line; k++) buf_putc(&maps, ';');
  bool mapped = false, pending = false;
  long src = 0, sl = 0, sc = 0;
  for (size_t i = 0; i < n; i++) {
    char c = code[i];
    if (c == '\x01') {
      const char *end = memchr(code + i, '\x02', n - i);
      if (!end) break;
      if (sscanf(code + i + 1, "%ld:%ld:%ld", &src, &sl, &sc) == 3) pending = true;
      i = (size_t)(end - code);
      continue;
    }
    if (c == '\n') {
      buf_putc(&maps, ';');
      mapped = false;
    } else if (pending && c != ' ' && !mapped) {
      vlq(&maps, 0);
      vlq(&maps, src - prev_src);
      vlq(&maps, (sl - 1) - prev_line);
      vlq(&maps, (sc - 1) - prev_col);
      prev_src = src;
      prev_line = sl - 1;
      prev_col = sc - 1;
      mapped = true;
      pending = false;
    }
    buf_putc(out, c);
  }
  buf_puts(m, "{\"version\":3,\"file\":");
  const char *file = J->o->source_name ? J->o->source_name : "";
  buf_json_string(m, file, strlen(file));
  buf_puts(m, ",\"sources\":[");
  for (int i = 0; i < J->prog->nmodules; i++) {
    const char *f = J->prog->modules[i]->file ? J->prog->modules[i]->file : "";
    if (i) buf_putc(m, ',');
    buf_json_string(m, f, strlen(f));
  }
  buf_puts(m, "],\"sourcesContent\":[");
  for (int i = 0; i < J->prog->nmodules; i++) {
    const Module *mod = J->prog->modules[i];
    if (i) buf_putc(m, ',');
    buf_json_string(m, mod->src ? mod->src : "", mod->src ? mod->len : 0);
  }
  buf_puts(m, "],\"names\":[],\"mappings\":\"");
  buf_append(m, maps.data ? maps.data : "", maps.len);
  buf_puts(m, "\"}\n");
  buf_free(&maps);
}

bool js_compile(Program *prog, const JsOptions *o, Buf *out, DiagList *diags) {
  Js J = {0};
  J.prog = prog;
  J.o = o;
  J.diags = diags;
  Buf code = BUF_INIT, types = BUF_INIT;
  collect_types(&J, &code);
  emit_impls(&J, &code);
  /* functions of every module */
  FuncDecl *main_fn = NULL, *init = NULL, *update = NULL, *render = NULL;
  for (int mi = 0; mi < prog->nmodules; mi++) {
    Module *m = prog->modules[mi];
    J.mod = mi;
    for (int i = 0; i < m->ndecls; i++) {
      Decl *d = m->decls[i];
      if (d->kind != D_FUNC) continue;
      FuncDecl *f = &d->u.func;
      /* the first declaration of a name wins, as in the VM */
      if (module_func(m, f->name, false) != f) continue;
      Buf jsname = BUF_INIT;
      func_name(&jsname, mi, f->name);
      function(&J, &code, f, jsname.data, f->name);
      buf_free(&jsname);
      if (mi == 0) {
        if (strcmp(f->name, "main") == 0) main_fn = f;
        else if (strcmp(f->name, "init") == 0) init = f;
        else if (strcmp(f->name, "update") == 0) update = f;
        else if (strcmp(f->name, "render") == 0) render = f;
      }
    }
  }
  J.mod = 0;
  bool examples = o->check_examples;
  J.mod = 0; /* examples belong to the entry module */
  bool async_examples = examples && emit_examples(&J, &code);
  bool has_examples = examples && strstr(code.data ? code.data : "", "function $examples()") != NULL;
  buf_puts(&code, "\n");
  if (o->flavor == JS_ESM) {
    buf_puts(&code, "export {");
    int k = 0;
    Module *entry = prog->modules[0];
    for (int i = 0; i < entry->ndecls; i++)
      if (entry->decls[i]->kind == D_FUNC)
        buf_printf(&code, "%s f_%s as %s", k++ ? "," : "", entry->decls[i]->u.func.name, entry->decls[i]->u.func.name);
    buf_puts(&code, " };\n");
  }
  if (main_fn) {
    need(&J, "$main");
    if (has_examples) need(&J, "$example");
    if (o->flavor == JS_ESM)
      buf_puts(&code, "if (typeof process !== \"undefined\" && process.argv[1] && import.meta.url === "
                      "require(\"url\").pathToFileURL(require(\"fs\").realpathSync(process.argv[1])).href)\n  ");
    /* a depth past what node's default stack holds: rerun with a larger
     * --stack-size ($restack, in node only) */
    if (o->max_recursion_depth > 2000) {
      need(&J, "$restack");
      buf_puts(&code, "if (!$restack()) ");
    }
    int required = 0;
    for (int k = 0; k < main_fn->nparams; k++) required += main_fn->params[k].def == NULL;
    if (required > 0) {
      /* the checker lets `func main(args: List[String])` through; nothing
       * can supply the arguments (the VM's error) */
      need(&J, "$fatal");
      buf_printf(&code,
                 "$main(() => { %s$fatal(\"E499\", \"main takes %d parameter%s but is called with none: declare "
                 "`func main() -> ...` and read program arguments with cli_args()\"); }, true);\n",
                 has_examples ? (async_examples ? "" : "$examples(); ") : "", required, required == 1 ? "" : "s");
    } else if (async_examples) {
      need(&J, "$aw");
      buf_puts(&code, "$main(async () => { await $examples(); $S = 0; return $aw(f_main()); }, true);\n");
    } else {
      buf_printf(&code, "$main(() => { %s$S = 0; return f_main(); }, true);\n", has_examples ? "$examples(); " : "");
    }
  } else if (init && update && render) {
    need(&J, "$app");
    buf_printf(&code, "$app(f_init, f_update, f_render%s);\n", has_examples ? ", $examples" : ", null");
  } else if (has_examples) {
    need(&J, "$main");
    buf_puts(&code, async_examples ? "$main(async () => { await $examples(); }, false);\n"
                                   : "$main(() => { $examples(); }, false);\n");
  }
  /* the classes of the types the code uses, ahead of it */
  emit_types(&J, &types);
  buf_append(&types, code.data, code.len);
  buf_free(&code);
  code = types;
  bool ok = !J.failed && !code.failed;
  if (ok) {
    if (o->flavor == JS_ESM) buf_puts(out, "import { createRequire as $cr } from \"node:module\";\nconst require = typeof process !== \"undefined\" ? $cr(import.meta.url) : undefined;\n");
    else buf_puts(out, "\"use strict\";\n");
    buf_printf(out,
               "const $CFG = { steps: %s%llu, depth: %d, output: %llu, coll: %llu, bits: %d, timeout: %g };\n",
               o->max_steps ? "" : "Infinity || ", (unsigned long long)o->max_steps, o->max_recursion_depth,
               (unsigned long long)o->max_output_length, (unsigned long long)o->max_collection_size,
               o->max_integer_bits, o->timeout_s);
    js_prelude_emit(J.need, J.nneed, out);
    if (o->source_map) finish_map(&J, code.data ? code.data : "", code.len, out);
    else buf_append(out, code.data, code.len);
  }
  buf_free(&code);
  free(J.need);
  free(J.vars);
  free(J.variants);
  free(J.traits);
  return ok;
}
