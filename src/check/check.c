/* Typechecker entry (check.h): circular-import detection, one checker per
 * module (imported modules first, as the reference does: the first module
 * with errors is the one reported), error recording and the fatal path. */
#include <stdarg.h>
#include <stdio.h>
#include <time.h>

#include "adts.h"
#include "../syntax/parser.h"
#include "checker.h"


void chk_options_init(ChkOptions *o) {
  o->check_imported_bodies = true;
  o->target = CHK_TARGET_NONE;
  o->own_backend = false;
  o->deadline_ms = 0;
  o->timeout_s = 0;
}

static bool past_deadline(const ChkOptions *o, DiagList *diags) {
  if (o->deadline_ms <= 0) return false;
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  if ((double)ts.tv_sec * 1000.0 + (double)ts.tv_nsec / 1e6 <= o->deadline_ms) return false;
  diag_add(diags, E_TIMEOUT, NULL, "Execution timed out after %g seconds (type checking)", o->timeout_s);
  return true;
}

/* ---- errors ------------------------------------------------------------------------ */

void chk_error(Checker *C, int code, Span sp, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  if (!sp.file) sp.file = C->mod->file;
  diag_vadd(&C->errors, code, &sp, fmt, ap);
  va_end(ap);
}

void chk_fatal(Checker *C, int code, Span sp, const char *fmt, ...) {
  diag_free(&C->errors);
  diag_init(&C->errors);
  va_list ap;
  va_start(ap, fmt);
  if (!sp.file) sp.file = C->mod->file;
  diag_vadd(&C->errors, code, &sp, fmt, ap);
  va_end(ap);
  longjmp(*C->fatal, 1);
}

const char *chk_tstr(Checker *C, const Type *t) {
  Buf b = BUF_INIT;
  ty_str(&C->tc, t, &b);
  const char *s = b.data ? arena_strdup(C->A, b.data) : "?";
  buf_free(&b);
  return s;
}

/* chk_step has counted the step already. */
void chk_step_check(Checker *C, Span sp) {
  if (C->steps > CHK_MAX_STEPS)
    chk_fatal(C, E_TYPE_MISMATCH, sp,
              "Program is too complex to type-check (more than %ld checking steps); simplify deeply nested lambdas",
              CHK_MAX_STEPS);
  if ((C->steps & 1023) == 0 && C->prog->arena.total - C->start_bytes > CHK_MAX_BYTES)
    chk_fatal(C, E_TYPE_MISMATCH, sp, "Program is too complex to type-check (more than %zu MiB of checker memory)",
              (size_t)(CHK_MAX_BYTES >> 20));
}

/* chk_enter has entered the level already. */
void chk_enter_check(Checker *C, Span sp) {
  if (C->depth > CHK_MAX_DEPTH)
    chk_fatal(C, E_TYPE_MISMATCH, sp, "Program is nested too deeply to type-check (more than %d levels)",
              CHK_MAX_DEPTH);
}

/* ---- setup ----------------------------------------------------------------------------- */

static void init_names(Checker *C) {
  Interner *I = C->I;
  ChkNames *n = &C->n;
  n->main_ = intern_cstr(I, "main");
  n->init = intern_cstr(I, "init");
  n->update = intern_cstr(I, "update");
  n->render = intern_cstr(I, "render");
  n->result = intern_cstr(I, "result");
  n->self_type = intern_cstr(I, "Self");
  n->option = intern_cstr(I, "Option");
  n->result_type = intern_cstr(I, "Result");
  n->some = intern_cstr(I, "Some");
  n->none = intern_cstr(I, "None");
  n->ok = intern_cstr(I, "Ok");
  n->err = intern_cstr(I, "Err");
  n->range = intern_cstr(I, "range");
  n->length = intern_cstr(I, "length");
  n->num = intern_cstr(I, "Num");
  n->tuple = intern_cstr(I, "Tuple");
  n->start = intern_cstr(I, "start");
  n->end = intern_cstr(I, "end");
  n->list = intern_cstr(I, "list");
  n->value = intern_cstr(I, "value");
  n->error = intern_cstr(I, "error");
  n->t = intern_cstr(I, "T");
  n->e = intern_cstr(I, "E");
}

/* The built-in ADTs every module sees (adts.c). */
static void init_builtin_adts(Checker *C) {
  size_t nadts;
  const ChkAdt *adts = chk_adts(&nadts);
  for (size_t i = 0; i < nadts; i++) {
    const ChkAdt *b = &adts[i];
    AdtInfo *info = arena_alloc(C->A, sizeof *info);
    info->name = intern_cstr(C->I, b->name);
    info->nparams = b->nparams;
    info->params = arena_array(C->A, 2, sizeof(const char *));
    for (int k = 0; k < b->nparams; k++) info->params[k] = intern_cstr(C->I, b->params[k]);
    info->nvariants = b->nvariants;
    info->variants = arena_array(C->A, (size_t)b->nvariants, sizeof(AdtVariant));
    for (int v = 0; v < b->nvariants; v++) {
      const ChkAdtVariant *bv = &b->variants[v];
      AdtVariant *av = &info->variants[v];
      av->name = intern_cstr(C->I, bv->name);
      av->nfields = bv->nfields;
      av->fnames = arena_array(C->A, CHK_ADT_MAX_FIELDS, sizeof(const char *));
      av->ftypes = arena_array(C->A, CHK_ADT_MAX_FIELDS, sizeof(Type *));
      for (int f = 0; f < bv->nfields; f++) {
        av->fnames[f] = intern_cstr(C->I, bv->fields[f].name);
        TypeExpr *te = parse_type_text(C->prog, bv->fields[f].type, strlen(bv->fields[f].type), NULL);
        av->ftypes[f] = te ? chk_sig_type(C, te) : ty_prim(&C->tc, TY_ERROR);
      }
      chk_pm_put(C->A, &C->ctor_to_type, av->name, (void *)info->name);
      chk_pm_put(C->A, &info->vindex, av->name, (void *)(intptr_t)(v + 1));
    }
    chk_pm_put(C->A, &C->type_defs, info->name, info);
  }
}

static void checker_init(Checker *C, Program *prog, Module *m, Module **avail, int navail, ChkTarget target) {
  memset(C, 0, sizeof *C);
  C->target = target;
  C->prog = prog;
  C->mod = m;
  C->avail = avail;
  C->navail = navail;
  C->A = &prog->arena;
  C->I = &prog->names;
  diag_init(&C->errors);
  chk_types_init(&C->tc, C->A, C->I);
  init_names(C);
  chk_resolve_init(C);
  C->global_scope = arena_alloc(C->A, sizeof(Scope));
  C->eff_mutation = ty_effect_bit(&C->tc, intern_cstr(C->I, "mutation"));
  C->eff_throw = ty_effect_bit(&C->tc, intern_cstr(C->I, "throw"));
  init_builtin_adts(C);
}

/* Check one module; its errors are appended to diags. */
/* Each module is checked by a fresh checker that sees the other modules
 * only through its imports, as the reference checks each module with the
 * others as its module table. Two long-jump targets: chk_fatal (a type
 * annotation error, which replaces every other error) and the arena's
 * exhaustion. */
static bool check_module(Program *prog, const BuiltinTable *builtins, Module *m, Module **avail, int navail,
                         ChkTarget target, DiagList *diags) {
  Checker *C = arena_alloc(&prog->arena, sizeof *C);
  jmp_buf jb, oom;
  jmp_buf *saved_oom = prog->arena.oom;
  checker_init(C, prog, m, avail, navail, target);
  C->builtins = builtins;
  C->fatal = &jb;
  C->start_bytes = prog->arena.total;
  prog->arena.oom = &oom;
  if (setjmp(oom) != 0) {
    /* The front-end arena is exhausted: everything in flight is in it. */
    diag_free(&C->errors);
    diag_init(&C->errors);
    Span sp = {m->file, 1, 1, 1, 1};
    diag_add(&C->errors, E_TYPE_MISMATCH, &sp, "Program needs too much memory to type-check (limit %zu bytes)",
             prog->arena.limit);
  } else if (setjmp(jb) == 0) {
    chk_module_passes(C);
    if (C->tc.too_deep && !C->too_deep_reported) {
      Span sp = {m->file, 1, 1, 1, 1};
      chk_error(C, E_TYPE_MISMATCH, sp,
                "Inferred types nest too deeply (more than %d levels); add type annotations", CHK_MAX_TYPE_DEPTH);
    }
  }
  prog->arena.oom = saved_oom;
  bool ok = diag_error_count(&C->errors) == 0;
  diag_move(diags, &C->errors);
  diag_free(&C->errors);
  return ok;
}

/* ---- circular imports ------------------------------------------------------------- */

static Module *module_named(Program *prog, const char *name) {
  for (int i = 1; i < prog->nmodules; i++)
    if (prog->modules[i]->name == name) return prog->modules[i];
  return NULL;
}

/* Depth-first search for an import cycle; on one, report it (E204, as the
 * reference's project resolution does) and return true. Each module is
 * entered once (state[] is 0 unvisited, 1 on the current
 * path, 2 done), so a diamond of modules 40 levels deep costs its size,
 * not its 2^40 paths. The path is reported from the first module of the
 * cycle. The module count is bounded by the front end (RT_MAX_MODULES), so
 * the recursion is too. */
typedef struct CycleSearch {
  Program *prog;
  unsigned char *state; /* by module index */
  Module **stack;       /* the current path */
  DiagList *diags;
} CycleSearch;

static int module_index(const Program *prog, const Module *m) {
  for (int i = 0; i < prog->nmodules; i++)
    if (prog->modules[i] == m) return i;
  return -1;
}

static bool find_cycle(CycleSearch *s, Module *m, int depth) {
  int at = module_index(s->prog, m);
  if (at < 0 || s->state[at] == 2) return false;
  if (s->state[at] == 1) {
    int i = 0;
    while (i < depth && s->stack[i] != m) i++;
    Buf b = BUF_INIT;
    for (int k = i; k < depth; k++) buf_printf(&b, "%s -> ", s->stack[k]->name);
    buf_puts(&b, m->name);
    Span sp = {m->file, 1, 1, 1, 1};
    diag_add(s->diags, E_PROJECT, &sp, "Circular import detected: %s", b.data ? b.data : "");
    buf_free(&b);
    return true;
  }
  s->state[at] = 1;
  s->stack[depth] = m;
  for (int i = 0; i < m->ndecls; i++) {
    Decl *d = m->decls[i];
    if (d->kind != D_IMPORT) continue;
    Module *dep = module_named(s->prog, d->u.import.module);
    if (dep && find_cycle(s, dep, depth + 1)) return true;
  }
  s->state[at] = 2;
  return false;
}

/* Imported modules first: the reference reports the first imported module
 * with errors and nothing else, and only checks the entry module when all
 * of them are clean. */
bool chk_program(Program *prog, const BuiltinTable *builtins, DiagList *diags, const ChkOptions *opts) {
  ChkOptions defaults;
  if (!opts) {
    chk_options_init(&defaults);
    opts = &defaults;
  }
  if (prog->nmodules == 0) return true;
  CycleSearch cs = {prog, arena_array(&prog->arena, (size_t)prog->nmodules, 1),
                    arena_array(&prog->arena, (size_t)prog->nmodules, sizeof(Module *)), diags};
  if (!cs.state || !cs.stack || find_cycle(&cs, prog->modules[0], 0)) return false;

  int n = prog->nmodules;
  Module **others = arena_array(&prog->arena, (size_t)n, sizeof(Module *));
  if (opts->check_imported_bodies) {
    for (int i = 1; i < n; i++) {
      Module *m = prog->modules[i];
      /* Built-in std modules are checked too, although they are known to
       * be clean: the compiler relies on Expr->type in their bodies. */
      int k = 0;
      for (int j = 1; j < n; j++)
        if (j != i) others[k++] = prog->modules[j];
      if (past_deadline(opts, diags) || !check_module(prog, builtins, m, others, k, opts->target, diags)) return false;
    }
  }
  for (int j = 1; j < n; j++) others[j - 1] = prog->modules[j];
  if (past_deadline(opts, diags) || !check_module(prog, builtins, prog->modules[0], others, n - 1, opts->target, diags)) return false;
  /* The target's backend rules apply to a program that checked clean. */
  if (opts->own_backend) return true;
  return chk_target_validate(prog, builtins, opts->target, diags);
}
