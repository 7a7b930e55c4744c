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
  o->stats = NULL;
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
  if ((C->steps & 1023) == 0 && C->A->total - C->start_bytes > CHK_MAX_BYTES)
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

static void checker_init(Checker *C, Program *prog, Arena *scratch, Module *m, Module **avail, int navail,
                         ChkTarget target) {
  memset(C, 0, sizeof *C);
  C->target = target;
  C->prog = prog;
  C->mod = m;
  C->avail = avail;
  C->navail = navail;
  C->A = scratch;
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

/* ---- keeping the types the compiler reads ------------------------------------ */

/* A module is checked in a scratch arena (its checker's tables, scopes,
 * substitutions and types), which is emptied before the next module: what
 * a module check builds for its imports is not kept, so the checker's
 * memory follows the largest module check, not the sum of them all (an
 * import chain of N modules resolves O(N^2) imported declarations in all;
 * keeping them was quadratic memory). Only Expr->type outlives the check
 * (types.h): the types of the expressions typed in this check are copied
 * into the program's arena here, sharing preserved, before the scratch
 * arena is emptied. */
typedef struct Keeper {
  Arena *to;            /* the program's arena */
  const ArenaBlock **blocks; /* the scratch arena's blocks, by address */
  size_t nblocks;
  PtrMap copies;        /* scratch Type* -> its copy */
  Arena *scratch;
} Keeper;

static int block_cmp(const void *a, const void *b) {
  uintptr_t x = (uintptr_t) * (const ArenaBlock *const *)a, y = (uintptr_t) * (const ArenaBlock *const *)b;
  return x < y ? -1 : x > y;
}

static bool in_scratch(const Keeper *k, const void *p) {
  uintptr_t x = (uintptr_t)p;
  size_t lo = 0, hi = k->nblocks;
  while (lo < hi) { /* the last block starting at or below x */
    size_t mid = lo + (hi - lo) / 2;
    if ((uintptr_t)k->blocks[mid] <= x) lo = mid + 1;
    else hi = mid;
  }
  if (lo == 0) return false;
  const ArenaBlock *b = k->blocks[lo - 1];
  return x < (uintptr_t)b->data + b->size;
}

/* Types nest at most CHK_MAX_TYPE_DEPTH levels, which bounds the recursion. */
static Type *keep_type(Keeper *k, Type *t) {
  if (!t || !in_scratch(k, t)) return t;
  Type *c = chk_pm_get(&k->copies, t);
  if (c) return c;
  size_t n = t->n > 0 && t->args ? (size_t)t->n : 0;
  c = arena_alloc(k->to, sizeof *c + n * sizeof(Type *));
  *c = *t;
  c->args = n ? (Type **)(c + 1) : NULL;
  for (size_t i = 0; i < n; i++) c->args[i] = keep_type(k, t->args[i]);
  c->ret = keep_type(k, t->ret);
  chk_pm_put(k->scratch, &k->copies, t, c);
  return c;
}

static void keep_expr_types(Checker *C) {
  Keeper k = {&C->prog->arena, NULL, 0, {0}, C->A};
  for (const ArenaBlock *b = C->A->head; b; b = b->next) k.nblocks++;
  k.blocks = arena_array(C->A, k.nblocks ? k.nblocks : 1, sizeof *k.blocks);
  size_t i = 0;
  for (const ArenaBlock *b = C->A->head; b; b = b->next) k.blocks[i++] = b;
  qsort(k.blocks, k.nblocks, sizeof *k.blocks, block_cmp);
  for (size_t j = 0; j < C->typed_exprs.cap; j++)
    if (C->typed_exprs.keys[j]) {
      Expr *e = (Expr *)C->typed_exprs.keys[j];
      e->type = keep_type(&k, e->type);
    }
}

/* After an exhausted arena nothing more can be copied: the types this
 * check gave are dropped (the program does not compile). */
static void drop_expr_types(Checker *C) {
  for (size_t j = 0; j < C->typed_exprs.cap; j++)
    if (C->typed_exprs.keys[j]) ((Expr *)C->typed_exprs.keys[j])->type = NULL;
}

/* Check one module; its errors are appended to diags. */
/* Each module is checked by a fresh checker that sees the other modules
 * only through its imports, as the reference checks each module with the
 * others as its module table. Two long-jump targets: chk_fatal (a type
 * annotation error, which replaces every other error) and the arenas'
 * exhaustion. The scratch arena is emptied on return. */
static bool check_module(Program *prog, Arena *scratch, const BuiltinTable *builtins, const PtrMap *by_name,
                         Module *m, Module **avail, int navail, const ChkOptions *opts, DiagList *diags) {
  ChkTarget target = opts->target;
  jmp_buf jb, oom;
  jmp_buf *saved_oom = prog->arena.oom;
  /* Scratch and kept memory together stay within the front end's limit. */
  scratch->limit = prog->arena.limit == 0 ? 0 : prog->arena.limit > prog->arena.total ? prog->arena.limit - prog->arena.total : 1;
  scratch->oom = &oom;
  prog->arena.oom = &oom;
  Checker *volatile C = NULL; /* read after a long jump */
  volatile bool kept = false;
  if (setjmp(oom) != 0) {
    /* An arena is exhausted: everything in flight is in one. */
    if (C) {
      if (!kept) drop_expr_types(C);
      diag_free(&C->errors);
    }
    prog->arena.oom = saved_oom;
    scratch->oom = NULL;
    arena_reset(scratch);
    Span sp = {m->file, 1, 1, 1, 1};
    diag_add(diags, E_TYPE_MISMATCH, &sp, "Program needs too much memory to type-check (limit %zu bytes)",
             prog->arena.limit);
    return false;
  }
  C = arena_alloc(scratch, sizeof *C);
  checker_init(C, prog, scratch, m, avail, navail, target);
  C->builtins = builtins;
  C->modules_by_name = by_name;
  C->stats = opts->stats;
  C->fatal = &jb;
  C->start_bytes = scratch->total;
  if (setjmp(jb) == 0) {
    chk_module_passes(C);
    if (C->tc.too_deep && !C->too_deep_reported) {
      Span sp = {m->file, 1, 1, 1, 1};
      chk_error(C, E_TYPE_MISMATCH, sp,
                "Inferred types nest too deeply (more than %d levels); add type annotations", CHK_MAX_TYPE_DEPTH);
    }
  }
  keep_expr_types(C);
  kept = true;
  prog->arena.oom = saved_oom;
  scratch->oom = NULL;
  bool ok = diag_error_count(&C->errors) == 0;
  diag_move(diags, &C->errors);
  diag_free(&C->errors);
  if (C->stats && arena_used(scratch) > C->stats->scratch_peak_bytes) C->stats->scratch_peak_bytes = arena_used(scratch);
  arena_reset(scratch);
  return ok;
}

/* ---- circular imports ------------------------------------------------------------- */

/* Depth-first search for an import cycle; on one, report it (E204, as the
 * reference's project resolution does) and return true. Each module is
 * entered once (state[] is 0 unvisited, 1 on the current
 * path, 2 done), so a diamond of modules 40 levels deep costs its size,
 * not its 2^40 paths. The path is reported from the first module of the
 * cycle. The module count is bounded by the front end (RT_MAX_MODULES), so
 * the recursion is too. */
typedef struct CycleSearch {
  const PtrMap *by_name; /* module name -> Module* (chk_program) */
  PtrMap index;          /* Module* -> its index + 1 */
  unsigned char *state; /* by module index */
  Module **stack;       /* the current path */
  DiagList *diags;
} CycleSearch;

static bool find_cycle(CycleSearch *s, Module *m, int depth) {
  int at = (int)(intptr_t)chk_pm_get(&s->index, m) - 1;
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
    Module *dep = chk_pm_get(s->by_name, d->u.import.module);
    if (dep && find_cycle(s, dep, depth + 1)) return true;
  }
  s->state[at] = 2;
  return false;
}

/* Every module, imported ones first, in the scratch arena (emptied after
 * each); false at the first module with errors. */
static bool check_all(Program *prog, Arena *scratch, const BuiltinTable *builtins, const PtrMap *by_name,
                      Module **others, DiagList *diags, const ChkOptions *opts) {
  int n = prog->nmodules;
  if (opts->check_imported_bodies) {
    for (int i = 1; i < n; i++) {
      Module *m = prog->modules[i];
      /* Built-in std modules are checked too, although they are known to
       * be clean: the compiler relies on Expr->type in their bodies. */
      int k = 0;
      for (int j = 1; j < n; j++)
        if (j != i) others[k++] = prog->modules[j];
      if (past_deadline(opts, diags) ||
          !check_module(prog, scratch, builtins, by_name, m, others, k, opts, diags))
        return false;
    }
  }
  for (int j = 1; j < n; j++) others[j - 1] = prog->modules[j];
  return !past_deadline(opts, diags) &&
         check_module(prog, scratch, builtins, by_name, prog->modules[0], others, n - 1, opts, diags);
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
  if (opts->stats) memset(opts->stats, 0, sizeof *opts->stats);
  if (prog->nmodules == 0) return true;
  size_t start_bytes = arena_used(&prog->arena);
  int n = prog->nmodules;
  PtrMap by_name = {0}; /* module name -> the first module of that name (the entry module aside) */
  CycleSearch cs = {&by_name, {0}, arena_array(&prog->arena, (size_t)n, 1),
                    arena_array(&prog->arena, (size_t)n, sizeof(Module *)), diags};
  for (int i = 0; i < n; i++) {
    chk_pm_put(&prog->arena, &cs.index, prog->modules[i], (void *)(intptr_t)(i + 1));
    if (i > 0 && !chk_pm_has(&by_name, prog->modules[i]->name))
      chk_pm_put(&prog->arena, &by_name, prog->modules[i]->name, prog->modules[i]);
  }
  if (find_cycle(&cs, prog->modules[0], 0)) return false;

  Module **others = arena_array(&prog->arena, (size_t)n, sizeof(Module *));
  Arena scratch;
  arena_init(&scratch, 0);
  bool ok = check_all(prog, &scratch, builtins, &by_name, others, diags, opts);
  arena_free(&scratch);
  if (opts->stats) opts->stats->kept_bytes = arena_used(&prog->arena) - start_bytes;
  if (!ok) return false;
  /* The target's backend rules apply to a program that checked clean. */
  if (opts->own_backend) return true;
  return chk_target_validate(prog, builtins, opts->target, diags);
}
