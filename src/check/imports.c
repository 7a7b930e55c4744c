/* Imports: bringing another module's exported types and functions into the
 * module being checked, qualified (`M.f`, through a namespace) and, for an
 * import without `as`, unqualified as well; the exported-type-surface rule;
 * and the signatures of the std modules' generic wrappers.
 *
 * As in the reference, a module's own imports are resolved into the
 * importer too (so their unqualified names are visible there), and a
 * module's function types carry only its declared effects. */
#include "checker.h"


/* std wrappers that take the generic signature of the builtin they call */
typedef struct Forwarder {
  const char *module, *name, *builtin;
} Forwarder;

static const Forwarder forwarders[] = {
    {"List", "zip", "list_zip"},           {"List", "enumerate", "list_enumerate"},
    {"List", "flatten", "list_flatten"},   {"List", "chunk", "list_chunk"},
    {"List", "take", "list_take"},         {"List", "drop", "list_drop"},
    {"List", "find", "list_find"},         {"List", "find_index", "list_find_index"},
    {"List", "all", "list_all"},           {"List", "any", "list_any"},
    {"List", "fold_right", "list_fold_right"}, {"List", "intersperse", "list_intersperse"},
    {"List", "group_by", "list_group_by"}, {"List", "length", "list_length"},
    {"List", "map", "list_map"},           {"List", "filter", "list_filter"},
    {"Map", "from_list", "map_from_list"}, {"Map", "merge", "map_merge"},
    {"Map", "filter_map", "map_filter_map"}, {"Map", "map_values", "map_map_values"},
    {"Map", "entries", "map_entries"},     {"Map", "from_entries", "map_from_entries"},
    {"Map", "get", "map_get"},             {"Map", "insert", "map_insert"},
    {"Option", "map", "option_map"},       {"Option", "and_then", "option_and_then"},
    {"Option", "unwrap_or", "option_unwrap_or"}, {"Option", "is_some", "option_is_some"},
    {"Option", "is_none", "option_is_none"}, {"Option", "flatten", "option_flatten"},
    {"Option", "to_result", "option_to_result"},
    {"Result", "map", "result_map"},       {"Result", "map_err", "result_map_err"},
    {"Result", "and_then", "result_and_then"}, {"Result", "unwrap_or", "result_unwrap_or"},
    {"Result", "is_ok", "result_is_ok"},   {"Result", "is_err", "result_is_err"},
    {"Result", "to_option", "result_to_option"},
    {"Math", "abs", "math_abs"},           {"Math", "min", "math_min"},
    {"Math", "max", "math_max"},           {"Math", "clamp", "math_clamp"},
};

/* The std module a parsed module is (by the front end's file name), or NULL. */
static const char *std_name(Module *m) {
  size_t lp = strlen(CHK_STD_FILE_PREFIX);
  if (!m->file || strncmp(m->file, CHK_STD_FILE_PREFIX, lp) != 0) return NULL;
  return m->name;
}

static Type *forwarder_type(Checker *C, const char *std, const char *fn) {
  if (!std) return NULL;
  for (size_t i = 0; i < ARRAY_LEN(forwarders); i++)
    if (strcmp(forwarders[i].module, std) == 0 && strcmp(forwarders[i].name, fn) == 0)
      return chk_builtin_type(C, intern_cstr(C->I, forwarders[i].builtin));
  return NULL;
}

bool chk_module_has_exports(Module *m) {
  for (int i = 0; i < m->ndecls; i++) {
    Decl *d = m->decls[i];
    if ((d->kind == D_FUNC || d->kind == D_ADT || d->kind == D_ALIAS) && (d->exported || (d->kind == D_FUNC && d->u.func.exported)))
      return true;
  }
  return false;
}

static bool decl_exported(Decl *d) { return d->exported || (d->kind == D_FUNC && d->u.func.exported); }

/* ---- exported type surface ------------------------------------------------------- */

/* A name is usable from outside when it is built in, exported by the
 * module, or a type or alias the checker has that the module does not
 * declare itself (an imported one). The test looks the checker's tables up
 * rather than copying them: the module's imports can hold thousands of
 * types, and every module of an import chain is validated. */
typedef struct Surface {
  Checker *C;
  Module *m;
  PtrMap own;       /* types and aliases the module declares: set */
  PtrMap exported;  /* of those, the exported ones: set */
  PtrMap hidden;    /* found hidden names: set */
} Surface;

static bool surface_visible(const Surface *S, const char *name) {
  if (chk_pm_has(&S->C->surface_builtins, name) || chk_pm_has(&S->exported, name)) return true;
  return !chk_pm_has(&S->own, name) && (chk_pm_has(&S->C->type_defs, name) || chk_pm_has(&S->C->aliases, name));
}

static Decl *local_alias(Module *m, const char *name) {
  for (int i = 0; i < m->ndecls; i++)
    if (m->decls[i]->kind == D_ALIAS && m->decls[i]->u.alias.name == name) return m->decls[i];
  return NULL;
}

typedef struct AliasSeen {
  const char *name;
  const struct AliasSeen *next;
} AliasSeen;

static bool names_has(const char **names, int n, const char *x) {
  for (int i = 0; i < n; i++)
    if (names[i] == x) return true;
  return false;
}

static void hidden_names(Surface *S, TypeExpr *te, const char **tparams, int ntparams, const AliasSeen *seen,
                         int depth) {
  if (!te || depth > CHK_MAX_DEPTH) return;
  if (te->kind == TE_FUNC) {
    for (int i = 0; i < te->nargs; i++) hidden_names(S, te->args[i], tparams, ntparams, seen, depth + 1);
    hidden_names(S, te->ret, tparams, ntparams, seen, depth + 1);
    return;
  }
  const char *name = te->name;
  if (!surface_visible(S, name) && !names_has(tparams, ntparams, name)) {
    Decl *al = local_alias(S->m, name);
    bool already = false;
    for (const AliasSeen *x = seen; x; x = x->next) already |= x->name == name;
    if (al && !already) {
      AliasSeen next = {name, seen};
      hidden_names(S, al->u.alias.target, al->u.alias.params, al->u.alias.nparams, &next, depth + 1);
    } else {
      chk_pm_put(S->C->A, &S->hidden, name, (void *)1);
    }
  }
  for (int i = 0; i < te->nargs; i++) hidden_names(S, te->args[i], tparams, ntparams, seen, depth + 1);
}

static void raise_hidden(Surface *S, const char *kind, const char *name, Span sp) {
  if (S->hidden.count == 0) return;
  const char *names[64];
  int n = 0;
  for (size_t i = 0; i < S->hidden.cap && n < 64; i++)
    if (S->hidden.keys[i]) names[n++] = S->hidden.keys[i];
  for (int i = 1; i < n; i++)
    for (int j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
      const char *x = names[j];
      names[j] = names[j - 1];
      names[j - 1] = x;
    }
  Buf b = BUF_INIT;
  for (int i = 0; i < n; i++) buf_printf(&b, "%s%s", i ? ", " : "", names[i]);
  const char *list = b.data ? arena_strdup(S->C->A, b.data) : "";
  buf_free(&b);
  chk_fatal(S->C, E_TYPE_MISMATCH, sp, "Exported %s '%s' references non-exported type%s: %s", kind, name,
            n != 1 ? "s" : "", list);
}

/* In a module with explicit exports, exported functions, types and aliases
 * may only mention types visible to importers: built-in ones, imported
 * ones, and the module's exported ones (a non-exported alias is looked
 * through). The first offender is a fatal E300. */
void chk_validate_export_surface(Checker *C, Module *m, bool has_exports) {
  if (!has_exports) return;
  static const char *const builtin_names[] = {"Int",    "Float", "Bool", "String",     "Unit", "List",  "Array",
                                              "Option", "Result", "Map", "MutableMap", "Vec",  "Set",   "Async",
                                              /* tuples are spelled (A, B); the reference wrongly treats
                                               * them as a hidden type named Tuple (compatibility.md) */
                                              "Tuple"};
  Surface S = {C, m, {0}, {0}, {0}};
  if (C->surface_builtins.count == 0)
    for (size_t i = 0; i < ARRAY_LEN(builtin_names); i++)
      chk_pm_put(C->A, &C->surface_builtins, intern_cstr(C->I, builtin_names[i]), (void *)1);
  for (int i = 0; i < m->ndecls; i++) {
    Decl *d = m->decls[i];
    const char *name = d->kind == D_ADT ? d->u.adt.name : d->kind == D_ALIAS ? d->u.alias.name : NULL;
    if (!name) continue;
    chk_pm_put(C->A, &S.own, name, (void *)1);
    if (decl_exported(d)) chk_pm_put(C->A, &S.exported, name, (void *)1);
  }
  for (int i = 0; i < m->ndecls; i++) {
    Decl *d = m->decls[i];
    if (d->kind != D_ALIAS || !decl_exported(d)) continue;
    hidden_names(&S, d->u.alias.target, d->u.alias.params, d->u.alias.nparams, NULL, 0);
    raise_hidden(&S, "type alias", d->u.alias.name, d->span);
  }
  for (int i = 0; i < m->ndecls; i++) {
    Decl *d = m->decls[i];
    if (d->kind != D_ADT || !decl_exported(d)) continue;
    for (int v = 0; v < d->u.adt.n; v++)
      for (int f = 0; f < d->u.adt.variants[v].nfields; f++)
        hidden_names(&S, d->u.adt.variants[v].fields[f].type, d->u.adt.params, d->u.adt.nparams, NULL, 0);
    raise_hidden(&S, "type", d->u.adt.name, d->span);
  }
  for (int i = 0; i < m->ndecls; i++) {
    Decl *d = m->decls[i];
    if (d->kind != D_FUNC || !decl_exported(d)) continue;
    FuncDecl *f = &d->u.func;
    for (int k = 0; k < f->nparams; k++) hidden_names(&S, f->params[k].type, NULL, 0, NULL, 0);
    hidden_names(&S, f->ret, NULL, 0, NULL, 0);
    raise_hidden(&S, "function", f->name, f->span);
  }
}

/* ---- resolving one import ------------------------------------------------------------ */

typedef struct ImportState {
  PtrMap resolved; /* module name -> (void*)1 once started, (void*)2 once summarised */
} ImportState;

static Module *find_module(Checker *C, const char *name) {
  Module *m = C->modules_by_name ? chk_pm_get(C->modules_by_name, name) : NULL;
  if (m && m != C->mod) return m;
  /* absent, or this module's own name: the other modules in order */
  for (int i = 0; i < C->navail; i++)
    if (C->avail[i]->name == name) return C->avail[i];
  return NULL;
}

static void resolve_import(Checker *C, ImportState *st, Decl *imp);

/* Bring module m in. Its own imports are resolved first (into this
 * checker too), then its exported types (installed unless the import is
 * aliased; constructors are also reachable as M.Ctor symbols) and exported
 * functions (registered unqualified unless aliased; always in the
 * namespace). `first` is false when the module was already imported, e.g.
 * once plainly and once `as` an alias: the reference then applies a
 * summary, without re-validating or reporting constructor clashes. */
static void import_module(Checker *C, ImportState *st, Module *m, const char *alias, bool first) {
  bool has_exports = chk_module_has_exports(m);
  bool aliased = alias != NULL;
  if (C->stats) C->stats->imports++;
  ModuleNs *ns = arena_alloc(C->A, sizeof *ns);
  ns->module = m->name;

  if (first) {
    for (int i = 0; i < m->ndecls; i++) {
      Decl *d = m->decls[i];
      if (d->kind != D_IMPORT) continue;
      if (d->u.import.module == m->name)
        chk_fatal(C, E_TYPE_MISMATCH, d->span, "Circular import detected: module '%s' imports itself", m->name);
      resolve_import(C, st, d);
    }
    chk_validate_export_surface(C, m, has_exports);
  }

  /* Aliases are visible while the module's types resolve; afterwards only
   * the exported ones (of an unaliased import) stay. */
  int nal = 0;
  for (int i = 0; i < m->ndecls; i++) nal += m->decls[i]->kind == D_ALIAS;
  const char **saved_names = arena_array(C->A, (size_t)(nal ? nal : 1), sizeof(const char *));
  AliasInfo **saved_vals = arena_array(C->A, (size_t)(nal ? nal : 1), sizeof(AliasInfo *));
  int nsaved = 0;
  for (int i = 0; i < m->ndecls; i++) {
    Decl *d = m->decls[i];
    if (d->kind != D_ALIAS) continue;
    bool temporary = aliased || (has_exports && !decl_exported(d));
    if (temporary) {
      saved_names[nsaved] = d->u.alias.name;
      saved_vals[nsaved++] = chk_pm_get(&C->aliases, d->u.alias.name);
    }
    if (first || !temporary) chk_collect_alias(C, d);
  }

  Decl **adts = arena_array(C->A, (size_t)(m->ndecls ? m->ndecls : 1), sizeof(Decl *));
  int nadts = 0;
  for (int i = 0; i < m->ndecls; i++)
    if (m->decls[i]->kind == D_ADT) adts[nadts++] = m->decls[i];
  chk_push_declared(C, adts, nadts);
  AdtInfo **collected = arena_array(C->A, (size_t)(nadts ? nadts : 1), sizeof(AdtInfo *));
  int ncollected = 0;
  for (int i = 0; i < nadts; i++) {
    Decl *d = adts[i];
    if (has_exports && !decl_exported(d)) continue;
    if (!aliased) {
      AdtInfo *info = chk_build_adt(C, d);
      chk_install_adt(C, info, d->span, first);
      collected[ncollected++] = info;
    }
    ParamList tp = {d->u.adt.nparams, d->u.adt.params};
    for (int v = 0; v < d->u.adt.n; v++) {
      Variant *var = &d->u.adt.variants[v];
      Type *buf[16];
      Type **fs = var->nfields <= 16 ? buf : arena_array(C->A, (size_t)var->nfields, sizeof(Type *));
      for (int k = 0; k < var->nfields; k++) fs[k] = chk_resolve_type(C, var->fields[k].type, &tp);
      chk_pm_put(C->A, &ns->symbols, var->name,
             ty_func(&C->tc, var->nfields, fs, ty_adt(&C->tc, d->u.adt.name, 0, NULL), 0));
    }
  }
  chk_refresh_variance(C, collected, ncollected);
  if (first)
    for (int i = 0; i < m->ndecls; i++)
      if (m->decls[i]->kind == D_ALIAS) chk_validate_alias(C, m->decls[i]);
  chk_pop_declared(C);

  const char *std = std_name(m);
  for (int i = 0; i < m->ndecls; i++) {
    Decl *d = m->decls[i];
    if (d->kind != D_FUNC) continue;
    if (has_exports && !decl_exported(d)) continue;
    FuncDecl *f = &d->u.func;
    int nd;
    Type *t = chk_signature(C, f, &nd);
    Type *fw = forwarder_type(C, std, f->name);
    if (fw) t = fw;
    ParamList *pl = chk_func_params(C, f);
    if (!aliased) chk_register_function(C, f->name, t, pl, nd);
    chk_pm_put(C->A, &ns->symbols, f->name, t);
    chk_pm_put(C->A, &ns->params, f->name, pl);
    if (nd > 0) chk_pm_put(C->A, &ns->defaults, f->name, (void *)(intptr_t)nd);
  }

  for (int i = 0; i < nsaved; i++) {
    if (saved_vals[i]) chk_pm_put(C->A, &C->aliases, saved_names[i], saved_vals[i]);
    else chk_pm_del(&C->aliases, saved_names[i]);
  }
  /* The reference drops its annotation cache here when the module
   * declares types (it summarises the module under them) or hid aliases. */
  if (nadts > 0 || nsaved > 0) chk_type_cache_clear(C);

  const char *ns_name = alias ? alias : m->name;
  chk_pm_put(C->A, &C->module_ns, ns_name, ns);
  chk_bind_global(C, ns_name, ty_module(&C->tc, m->name));
}

static void resolve_import(Checker *C, ImportState *st, Decl *imp) {
  const char *name = imp->u.import.module;
  intptr_t state = (intptr_t)chk_pm_get(&st->resolved, name);
  Module *m = find_module(C, name);
  if (state) {
    /* Already imported: a summarised module is applied again (possibly
     * under another alias); one still being resolved is skipped. */
    if (state == 2 && m) import_module(C, st, m, imp->u.import.alias, false);
    return;
  }
  if (!m) chk_fatal(C, E_TYPE_MISMATCH, imp->span, "Unknown module: '%s'", name);
  chk_pm_put(C->A, &st->resolved, name, (void *)1);
  import_module(C, st, m, imp->u.import.alias, true);
  chk_pm_put(C->A, &st->resolved, name, (void *)2);
}

void chk_resolve_imports(Checker *C) {
  ImportState st = {{0}};
  for (int i = 0; i < C->mod->ndecls; i++)
    if (C->mod->decls[i]->kind == D_IMPORT) resolve_import(C, &st, C->mod->decls[i]);
}
