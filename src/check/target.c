/* Target-aware checking (spec 4.2): the builtins a target lacks, the
 * browser entry lifecycle, and the rules of the backend a target compiles
 * through (python-cli and python-hosted emit Python; node-cli and browser
 * emit JavaScript).
 *
 * The backend rules run on a program that has checked clean, and stop at
 * the first violation (one E300 without a location, as the reference
 * reports a backend refusal). They are:
 * - names: a definition, binding or reference whose name is reserved by
 *   the backend's runtime (target_names.c says which name is refused
 *   where), a function named like a trait method implemented in the same
 *   single-module program (the backend emits a dispatcher of that name),
 *   module names (identifier-shaped, not a keyword, not reserved), and a
 *   module imported under the name of one of the importer's own functions
 *   or constructors;
 * - records: field names that are host-language keywords, Python
 *   `__dunder__` names, or JavaScript's prototype-sensitive names and the
 *   runtime's tag field;
 * - contracts: a literal `requires false` / `ensures false`;
 * - JavaScript numbers: Int literals and Int patterns outside the safe
 *   integer range (|n| > 2^53 - 1), since the backend emits them as
 *   JavaScript numbers.
 * A program of several modules (or any browser program) is validated as a
 * project: every user module, with the Python runtime's project name set.
 * The built-in std modules are our own source, not the reference's, and
 * are known to be clean, so their insides are not validated. */
#include <stdarg.h>
#include <stdio.h>

#include "checker.h"

/* ---- builtins ---------------------------------------------------------------------- */

bool chk_target_reject_builtin(Checker *C, const char *name, Span sp) {
  if (C->target == CHK_TARGET_NONE || chk_target_has_builtin(C->target, name) || !chk_builtin_find(C->builtins, name))
    return false;
  Buf alt = BUF_INIT;
  chk_target_alternatives(C->target, name, &alt);
  chk_error(C, E_TYPE_MISMATCH, sp, "Builtin '%s' is not available on the '%s' target%s%s%s", name,
            chk_target_name(C->target), alt.len ? " (it is on: " : "", alt.len ? alt.data : "",
            alt.len ? ")" : "");
  buf_free(&alt);
  return true;
}

/* ---- browser lifecycle ----------------------------------------------------------------- */

/* A browser program without `main` is an app: the page calls init() once,
 * then update(model, dt) and render(model) every frame. A module that
 * defines some of those names (or the old init_model/view names) but not
 * the whole lifecycle is reported, first problem only. */
void chk_target_browser_lifecycle(Checker *C) {
  if (C->target != CHK_TARGET_BROWSER) return;
  Module *m = C->mod;
  const char *init_model = intern_cstr(C->I, "init_model"), *view = intern_cstr(C->I, "view");
  FuncDecl *init = NULL, *update = NULL, *render = NULL, *old_init = NULL, *old_view = NULL;
  for (int i = 0; i < m->ndecls; i++) {
    if (m->decls[i]->kind != D_FUNC) continue;
    FuncDecl *f = &m->decls[i]->u.func;
    if (f->name == C->n.main_) return;
    if (f->name == C->n.init) init = f;
    else if (f->name == C->n.update) update = f;
    else if (f->name == C->n.render) render = f;
    else if (f->name == init_model) old_init = f;
    else if (f->name == view) old_view = f;
  }
  if (!init && !update && !render && !old_init && !old_view) return;
  if (old_init) {
    chk_error(C, E_TYPE_MISMATCH, old_init->span,
              "A browser app without `main()` starts from `init()`; rename `init_model()` to `init()`");
    return;
  }
  if (old_view && !render) {
    chk_error(C, E_TYPE_MISMATCH, old_view->span,
              "A browser app without `main()` draws with `render(model) -> Unit`; rename `view(...)` to "
              "`render(model)`");
    return;
  }
  if (!init || !update || !render) {
    Buf miss = BUF_INIT;
    if (!init) buf_puts(&miss, "`init`");
    if (!render) buf_printf(&miss, "%s`render`", miss.len ? ", " : "");
    if (!update) buf_printf(&miss, "%s`update`", miss.len ? ", " : "");
    Span sp = m->ndecls ? m->decls[0]->span : (Span){m->file, 1, 1, 1, 1};
    chk_error(C, E_TYPE_MISMATCH, sp,
              "A browser app without `main()` needs `init()`, `update(model, dt: Float)` and "
              "`render(model) -> Unit`; missing %s",
              miss.data);
    buf_free(&miss);
    return;
  }
  if (init->nparams != 0) {
    chk_error(C, E_TYPE_MISMATCH, init->span, "The browser's `init()` takes no parameters");
    return;
  }
  if (update->nparams != 2) {
    chk_error(C, E_TYPE_MISMATCH, update->span,
              "The browser's `update` must be declared `update(model, dt: Float) -> Model`");
    return;
  }
  Type *dt = chk_resolve_type(C, update->params[1].type, NULL);
  if (!chk_strictly_compatible(C, ty_prim(&C->tc, TY_FLOAT), dt)) {
    chk_error(C, E_TYPE_MISMATCH, update->params[1].span,
              "The browser's `update` must be declared `update(model, dt: Float) -> Model` (dt is %s)",
              chk_tstr(C, dt));
    return;
  }
  if (render->nparams != 1) {
    chk_error(C, E_TYPE_MISMATCH, render->span, "The browser's `render` must be declared `render(model) -> Unit`");
    return;
  }
  Type *ret = chk_resolve_type(C, render->ret, NULL);
  if (!chk_strictly_compatible(C, ty_prim(&C->tc, TY_UNIT), ret))
    chk_error(C, E_TYPE_MISMATCH, render->span,
              "The browser's `render` must be declared `render(model) -> Unit` (it returns %s)", chk_tstr(C, ret));
}

/* ---- backend validation ----------------------------------------------------------------- */

typedef struct Tv {
  Program *prog;
  ChkTarget target;
  bool js;        /* the JavaScript backend (node-cli, browser) */
  bool project;   /* validated as a project (several modules, or the browser) */
  unsigned global, local, direct, module; /* RN_* bits that apply */
  const char *backend; /* "Python" or "JavaScript", for messages */
  Module *mod;    /* the module being validated */
  bool failed;    /* a violation was recorded: everything stops */
  DiagList *diags;
  const BuiltinTable *builtins;
} Tv;

static void violation(Tv *v, const char *fmt, ...) GENO_PRINTF(2, 3);
static void violation(Tv *v, const char *fmt, ...) {
  if (v->failed) return;
  v->failed = true;
  Buf b = BUF_INIT;
  va_list ap;
  va_start(ap, fmt);
  buf_printf(&b, "Target '%s': ", chk_target_name(v->target));
  buf_vprintf(&b, fmt, ap);
  va_end(ap);
  diag_add(v->diags, E_TYPE_MISMATCH, NULL, "%s", b.data ? b.data : "");
  buf_free(&b);
}

/* A name the backend emits into the program's namespace. */
static void check_global(Tv *v, const char *name, const char *kind) {
  if (name && (chk_reserved_flags(name) & v->global))
    violation(v, "'%s' is reserved by the %s backend's runtime and cannot be used as a %s name; rename it", name,
              v->backend, kind);
}

static void check_local(Tv *v, const char *name, const char *kind) {
  if (name && (chk_reserved_flags(name) & v->local))
    violation(v, "'%s' is reserved by the %s backend's runtime and cannot be used as a %s name; rename it", name,
              v->backend, kind);
}

static bool is_std(Module *m) {
  return m->file && strncmp(m->file, CHK_STD_FILE_PREFIX, strlen(CHK_STD_FILE_PREFIX)) == 0;
}

/* -- names: definitions -- */

static void global_names(Tv *v, Module *m) {
  for (int i = 0; i < m->ndecls && !v->failed; i++) {
    Decl *d = m->decls[i];
    switch (d->kind) {
    case D_FUNC: check_global(v, d->u.func.name, "function"); break;
    case D_ALIAS: check_global(v, d->u.alias.name, "type"); break;
    case D_ADT:
      check_global(v, d->u.adt.name, "type");
      for (int k = 0; k < d->u.adt.n; k++) check_global(v, d->u.adt.variants[k].name, "constructor");
      break;
    case D_TRAIT:
      check_global(v, d->u.trait.name, "trait");
      for (int k = 0; k < d->u.trait.n; k++) check_global(v, d->u.trait.methods[k].name, "trait method");
      break;
    case D_IMPL:
      /* Each implementation method becomes a function Trait_method_Type. */
      for (int k = 0; k < d->u.impl.n; k++) {
        Buf b = BUF_INIT;
        buf_printf(&b, "%s_%s_%s", d->u.impl.trait, d->u.impl.methods[k]->name, d->u.impl.type);
        if (b.data) check_global(v, b.data, "trait implementation");
        buf_free(&b);
      }
      break;
    case D_IMPORT: check_global(v, d->u.import.alias, "module alias"); break;
    default: break;
    }
  }
}

/* A single-module program gets one top-level dispatcher function per
 * implemented trait method; a function of the same name would replace it. */
static void dispatcher_names(Tv *v, Module *m) {
  const char *worst = NULL; /* alphabetically first collision */
  for (int i = 0; i < m->ndecls; i++) {
    if (m->decls[i]->kind != D_FUNC) continue;
    const char *fname = m->decls[i]->u.func.name;
    for (int j = 0; j < m->ndecls; j++) {
      Decl *d = m->decls[j];
      if (d->kind != D_IMPL) continue;
      for (int k = 0; k < d->u.impl.n; k++)
        if (d->u.impl.methods[k]->name == fname && (!worst || strcmp(fname, worst) < 0)) worst = fname;
    }
  }
  if (worst)
    violation(v,
              "function '%s' has the name of an implemented trait method, which the %s backend emits as a "
              "dispatcher function; rename the function",
              worst, v->backend);
}

/* -- names: references and local bindings -- */

static void ref_expr(void *ud, Expr *e) {
  Tv *v = ud;
  if (v->failed || e->kind != EX_IDENT) return;
  if ((chk_reserved_flags(e->u.name) & v->direct) && !chk_builtin_find(v->builtins, e->u.name))
    violation(v, "'%s' names a %s runtime helper and cannot be referenced; rename the binding", e->u.name,
              v->backend);
}

static void ref_names(Tv *v, Module *m) {
  ChkWalk w = {.expr = ref_expr, .ud = v};
  for (int i = 0; i < m->ndecls && !v->failed; i++) {
    Decl *d = m->decls[i];
    if (d->kind == D_FUNC) chk_walk(&w, &d->u.func);
    else if (d->kind == D_IMPL)
      for (int k = 0; k < d->u.impl.n; k++) chk_walk(&w, d->u.impl.methods[k]);
    else if (d->kind == D_TEST) chk_walk_block(&w, d->u.test.body);
  }
}

/* Variables bound by a pattern: the backend binds names found through
 * constructor and list patterns (and rest patterns) as locals. */
static void pattern_bindings(Tv *v, Pattern *p, int depth) {
  if (!p || v->failed || depth > CHK_MAX_DEPTH) return;
  if (p->kind == PAT_VAR || p->kind == PAT_REST) check_local(v, p->name, "pattern binding");
  else if (p->kind == PAT_CTOR || p->kind == PAT_LIST)
    for (int i = 0; i < p->n; i++) pattern_bindings(v, p->items[i], depth + 1);
}

static void local_expr(void *ud, Expr *e) {
  Tv *v = ud;
  if (e->kind == EX_LAMBDA)
    for (int i = 0; i < e->u.lambda.nparams; i++) check_local(v, e->u.lambda.params[i].name, "lambda parameter");
  else if (e->kind == EX_LIST_COMP)
    check_local(v, e->u.comp.var, "list comprehension binding");
}

static void local_stmt(void *ud, Stmt *st) {
  Tv *v = ud;
  switch (st->kind) {
  case ST_LET: check_local(v, st->u.let.name, "local binding"); break;
  case ST_DESTRUCT:
    for (int i = 0; i < st->u.destr.n; i++) check_local(v, st->u.destr.names[i], "local binding");
    break;
  case ST_FOR: check_local(v, st->u.for_.var, "for-loop binding"); break;
  case ST_TRY: check_local(v, st->u.try_.var, "catch binding"); break;
  default: break;
  }
}

static void local_arm(void *ud, MatchArm *arm) { pattern_bindings(ud, arm->pat, 0); }

static void local_function(Tv *v, FuncDecl *f) {
  for (int i = 0; i < f->nparams; i++) check_local(v, f->params[i].name, "function parameter");
  ChkWalk w = {.expr = local_expr, .stmt = local_stmt, .arm = local_arm, .ud = v};
  chk_walk(&w, f);
}

static void local_names(Tv *v, Module *m) {
  for (int i = 0; i < m->ndecls && !v->failed; i++) {
    Decl *d = m->decls[i];
    if (d->kind == D_FUNC) local_function(v, &d->u.func);
    else if (d->kind == D_IMPL)
      for (int k = 0; k < d->u.impl.n; k++) local_function(v, d->u.impl.methods[k]);
    else if (d->kind == D_TRAIT)
      for (int k = 0; k < d->u.trait.n; k++)
        for (int p = 0; p < d->u.trait.methods[k].nparams; p++)
          check_local(v, d->u.trait.methods[k].params[p].name, "trait method parameter");
  }
}

static void module_names_pass(Tv *v, Module *m, bool single) {
  global_names(v, m);
  if (single) dispatcher_names(v, m);
  ref_names(v, m);
  local_names(v, m);
}

/* -- modules -- */

/* The module name the backend uses for the entry file: its file name
 * without directory and extension (or a fixed name for sources that have
 * no file name, such as "<input>"). */
static const char *entry_module_name(Tv *v, Module *m, Buf *b) {
  const char *f = m->file;
  if (!f || !*f || f[0] == '<') return "_geno_api_entrypoint";
  const char *base = strrchr(f, '/');
  base = base ? base + 1 : f;
  const char *dot = strrchr(base, '.');
  size_t n = dot && dot != base ? (size_t)(dot - base) : strlen(base);
  buf_append(b, base, n);
  return b->data ? b->data : "";
}

static void check_module_name(Tv *v, const char *name) {
  bool ident = (name[0] >= 'A' && name[0] <= 'Z') || (name[0] >= 'a' && name[0] <= 'z') || name[0] == '_';
  for (const char *s = name; *s && ident; s++)
    ident = (*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '_';
  if (!ident) {
    violation(v, "module name '%s' is not a plain ASCII identifier; rename the file", name);
    return;
  }
  if (v->js ? chk_js_keyword(name) : chk_python_keyword(name)) {
    violation(v, "module name '%s' is a %s keyword; rename the module", name, v->backend);
    return;
  }
  if (chk_reserved_flags(name) & v->module)
    violation(v, "module name '%s' is reserved by the %s backend's runtime; rename the module", name, v->backend);
}

/* A module imported under a name the importer also defines (a function or
 * a constructor) cannot be told apart from it in the emitted code. */
static void import_conflicts(Tv *v, Module *m) {
  const char *worst = NULL;
  for (int i = 0; i < m->ndecls; i++) {
    Decl *imp = m->decls[i];
    if (imp->kind != D_IMPORT) continue;
    const char *bound = imp->u.import.alias ? imp->u.import.alias : imp->u.import.module;
    for (int j = 0; j < m->ndecls; j++) {
      Decl *d = m->decls[j];
      bool clash = false;
      if (d->kind == D_FUNC) clash = d->u.func.name == bound;
      else if (d->kind == D_ADT)
        for (int k = 0; k < d->u.adt.n; k++) clash |= d->u.adt.variants[k].name == bound;
      if (clash && (!worst || strcmp(bound, worst) < 0)) worst = bound;
    }
  }
  if (worst)
    violation(v, "module '%s' is imported under the name of a function or constructor this module defines; "
                 "rename one of them",
              worst);
}

/* -- records, contracts, numbers -- */

static bool dunder(const char *s) {
  size_t n = strlen(s);
  return n >= 4 && s[0] == '_' && s[1] == '_' && s[n - 1] == '_' && s[n - 2] == '_';
}

static void record_fields(Tv *v, Decl *d) {
  for (int k = 0; k < d->u.adt.n && !v->failed; k++) {
    Variant *var = &d->u.adt.variants[k];
    for (int f = 0; f < var->nfields && !v->failed; f++) {
      const char *name = var->fields[f].name;
      if (!v->js) {
        if (chk_python_keyword(name) || dunder(name))
          violation(v, "record field '%s' of '%s' cannot be represented safely by the Python backend (%s); rename "
                       "the field",
                    name, var->name, dunder(name) ? "a __dunder__ name" : "a Python keyword");
      } else if (chk_js_keyword(name) || strcmp(name, "_withGenoFormatter") == 0) {
        violation(v, "record field '%s' of '%s' cannot be represented safely by the JavaScript backend (%s); "
                     "rename the field",
                  name, var->name, chk_js_keyword(name) ? "a JavaScript reserved word" : "a runtime method name");
      } else if (strcmp(name, "_tag") == 0) {
        violation(v, "record field '_tag' of '%s' collides with the tag the JavaScript runtime stores in every "
                     "record; rename the field",
                  var->name);
      } else if (strcmp(name, "__proto__") == 0 || strcmp(name, "constructor") == 0 ||
                 strcmp(name, "prototype") == 0) {
        violation(v, "record field '%s' of '%s' is prototype-sensitive in JavaScript objects; rename the field",
                  name, var->name);
      }
    }
  }
}

/* 2^53 - 1, the largest integer every JavaScript number holds exactly. */
static const char max_safe_js_int[] = "9007199254740991";

/* Is the decimal literal (optional '-', leading zeros allowed) beyond
 * JavaScript's safe integer range? */
static bool beyond_js_safe(const char *digits, size_t len) {
  if (len && digits[0] == '-') digits++, len--;
  while (len > 1 && digits[0] == '0') digits++, len--;
  size_t max_len = sizeof max_safe_js_int - 1;
  if (len != max_len) return len > max_len;
  return memcmp(digits, max_safe_js_int, max_len) > 0;
}

static void js_literal_expr(void *ud, Expr *e) {
  Tv *v = ud;
  if (!v->failed && e->kind == EX_INT && beyond_js_safe(e->u.int_lit.digits, e->u.int_lit.len))
    violation(v, "Int literal %.*s is outside JavaScript's safe integer range (magnitude at most %s)",
              (int)(e->u.int_lit.len > 40 ? 40 : e->u.int_lit.len), e->u.int_lit.digits, max_safe_js_int);
}

static void js_literal_pattern(Tv *v, Pattern *p, int depth) {
  if (!p || v->failed || depth > CHK_MAX_DEPTH) return;
  if (p->kind == PAT_INT && p->digits && beyond_js_safe(p->digits, p->len))
    violation(v, "Int pattern %.*s is outside JavaScript's safe integer range (magnitude at most %s)",
              (int)(p->len > 40 ? 40 : p->len), p->digits, max_safe_js_int);
  for (int i = 0; i < p->n; i++) js_literal_pattern(v, p->items[i], depth + 1);
}

static void js_literal_arm(void *ud, MatchArm *arm) { js_literal_pattern(ud, arm->pat, 0); }

static void function_rules(Tv *v, FuncDecl *f) {
  for (int i = 0; i < f->nrequires && !v->failed; i++) {
    Expr *c = f->requires[i].cond;
    if (c && c->kind == EX_BOOL && !c->u.bool_val)
      violation(v, "`requires false` on '%s' makes the function impossible to call; remove the clause", f->name);
  }
  for (int i = 0; i < f->nensures && !v->failed; i++) {
    Expr *c = f->ensures[i].cond;
    if (c && c->kind == EX_BOOL && !c->u.bool_val)
      violation(v, "`ensures false` on '%s' makes every call fail its postcondition; remove the clause", f->name);
  }
  if (v->js && !v->failed) {
    /* Examples are checked, not compiled: their literals are not emitted. */
    ChkWalk w = {.expr = js_literal_expr, .arm = js_literal_arm, .ud = v, .skip_examples = true};
    chk_walk(&w, f);
  }
}

static void definition_rules(Tv *v, Module *m) {
  for (int i = 0; i < m->ndecls && !v->failed; i++) {
    Decl *d = m->decls[i];
    if (d->kind == D_ADT) record_fields(v, d);
    else if (d->kind == D_FUNC) function_rules(v, &d->u.func);
    else if (d->kind == D_IMPL)
      for (int k = 0; k < d->u.impl.n; k++) function_rules(v, d->u.impl.methods[k]);
  }
}

/* Dependencies before dependents (the order modules are emitted in). */
static void topo_order(Program *prog, Module *m, Module **out, int *n, uint8_t *state, int depth) {
  int idx = -1;
  for (int i = 0; i < prog->nmodules; i++)
    if (prog->modules[i] == m) idx = i;
  if (idx < 0 || state[idx] || depth > 256) return;
  state[idx] = 1;
  for (int i = 0; i < m->ndecls; i++) {
    if (m->decls[i]->kind != D_IMPORT) continue;
    for (int k = 1; k < prog->nmodules; k++)
      if (prog->modules[k]->name == m->decls[i]->u.import.module)
        topo_order(prog, prog->modules[k], out, n, state, depth + 1);
  }
  out[(*n)++] = m;
}

bool chk_target_validate(Program *prog, const BuiltinTable *builtins, ChkTarget t, DiagList *diags) {
  if (t == CHK_TARGET_NONE || prog->nmodules == 0) return true;
  Tv v = {0};
  v.prog = prog;
  v.target = t;
  v.diags = diags;
  v.builtins = builtins;
  v.js = t == CHK_TARGET_NODE_CLI || t == CHK_TARGET_BROWSER;
  v.project = prog->nmodules > 1 || t == CHK_TARGET_BROWSER;
  v.backend = v.js ? "JavaScript" : "Python";
  if (v.js) {
    v.global = RN_JS_GLOBAL, v.local = RN_JS_LOCAL, v.direct = RN_JS_DIRECT, v.module = RN_JS_MODULE;
  } else {
    v.global = v.project ? RN_PY_PROJECT : RN_PY_GLOBAL;
    v.local = RN_PY_LOCAL, v.direct = RN_PY_DIRECT, v.module = RN_PY_MODULE;
  }
  Module *entry = prog->modules[0];
  if (!v.project) {
    module_names_pass(&v, entry, true);
    definition_rules(&v, entry);
    return !v.failed;
  }
  /* Names of every user module (imported ones first, the entry last). */
  for (int i = 1; i <= prog->nmodules && !v.failed; i++) {
    Module *m = prog->modules[i % prog->nmodules];
    if (!is_std(m)) module_names_pass(&v, m, false);
  }
  Module **order = arena_array(&prog->arena, (size_t)prog->nmodules, sizeof(Module *));
  uint8_t *state = arena_array(&prog->arena, (size_t)prog->nmodules, 1);
  int n = 0;
  topo_order(prog, entry, order, &n, state, 0);
  Buf entry_name = BUF_INIT;
  for (int i = 0; i < n && !v.failed; i++)
    check_module_name(&v, order[i] == entry ? entry_module_name(&v, entry, &entry_name) : order[i]->name);
  buf_free(&entry_name);
  for (int i = 0; i < n && !v.failed; i++) {
    if (is_std(order[i])) continue;
    import_conflicts(&v, order[i]);
    definition_rules(&v, order[i]);
  }
  return !v.failed;
}
