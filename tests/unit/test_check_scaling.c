/* The checker's memory is linear in the module graph (src/check/check.c,
 * src/check/imports.c): import graphs of N and 4N modules (a chain, a
 * diamond and a wide fan-in) are checked in-process and the bytes the check
 * keeps plus the largest module check's scratch arena must grow about 4x,
 * not 16x. Counted in bytes, never in time, so a loaded machine cannot make
 * it flaky. The types the compiler reads survive each module check's
 * scratch arena: every expression of every module carries a type after. */
#include "unit.h"

#include "base/buf.h"
#include "check/check.h"
#include "check/types.h"
#include "lib/builtins.h"
#include "syntax/parser.h"

typedef enum Shape { CHAIN, DIAMOND, FAN } Shape;

/* The modules that module i imports. */
static int deps_of(Shape shape, int i, int *deps) {
  if (i == 0) return 0;
  switch (shape) {
  case CHAIN:
    deps[0] = i - 1;
    return 1;
  case DIAMOND: /* levels of two, each importing both of the level below */
    if (i < 2) return 0;
    deps[0] = (i / 2 - 1) * 2;
    deps[1] = deps[0] + 1;
    return 2;
  case FAN: /* every module imports the first four */
    if (i < 4) return 0;
    for (int k = 0; k < 4; k++) deps[k] = k;
    return 4;
  }
  return 0;
}

/* A module exporting a type and two functions, the second using the
 * first module it imports. */
static void module_source(Buf *b, Shape shape, int i) {
  int deps[4];
  int nd = deps_of(shape, i, deps);
  for (int k = 0; k < nd; k++) buf_printf(b, "import M%d\n", deps[k]);
  buf_printf(b, "\nexport type T%d = A%d(v: Int) | B%d\n\n", i, i, i);
  buf_printf(b, "export func f%d(x: Int) -> Int\n    example 1 -> %d\n    return x + %d\nend func\n\n", i, i + 1, i);
  buf_printf(b, "export func g%d(t: T%d) -> Int\n    example B%d -> 0\n    match t with\n", i, i, i);
  if (nd > 0)
    buf_printf(b, "    | A%d(v) -> return f%d(v) + M%d.f%d(v)\n", i, i, deps[0], deps[0]);
  else
    buf_printf(b, "    | A%d(v) -> return f%d(v)\n", i, i);
  buf_printf(b, "    | B%d -> return 0\n    end match\nend func\n", i);
}

typedef struct Cost {
  size_t bytes; /* kept + the largest scratch arena */
  bool typed;   /* every expression has a type */
} Cost;

/* e has a type, readable after its module check's scratch arena was
 * emptied (AddressSanitizer reports a type left in it). */
static bool typed(const Expr *e) { return e && e->type && e->type->kind < TY_KIND_COUNT; }

/* The returned values and match scrutinees of a body, arms included. */
static bool block_typed(Block b) {
  for (int i = 0; i < b.n; i++) {
    const Stmt *st = b.items[i];
    if (st->kind == ST_RETURN && !typed(st->u.ret.value)) return false;
    if (st->kind == ST_MATCH) {
      if (!typed(st->u.match.scrutinee)) return false;
      for (int k = 0; k < st->u.match.n; k++)
        if (!block_typed(st->u.match.arms[k].body)) return false;
    }
  }
  return true;
}

static Cost check_graph(Shape shape, int n) {
  Program prog;
  ast_program_init(&prog, 0);
  DiagList diags;
  diag_init(&diags);
  Buf main_src = BUF_INIT;
  buf_printf(&main_src, "import M%d\n\nfunc main() -> Int\n    return M%d.f%d(1)\nend func\n", n - 1, n - 1, n - 1);
  parse_module(&prog, "Main", "main.geno", main_src.data, main_src.len, &diags);
  buf_free(&main_src);
  for (int i = 0; i < n; i++) {
    Buf b = BUF_INIT, name = BUF_INIT;
    module_source(&b, shape, i);
    buf_printf(&name, "M%d", i);
    parse_module(&prog, name.data, name.data, b.data, b.len, &diags);
    buf_free(&b);
    buf_free(&name);
  }
  assert_int_equal(diag_error_count(&diags), 0);
  ChkStats stats;
  ChkOptions opts;
  chk_options_init(&opts);
  opts.stats = &stats;
  bool ok = chk_program(&prog, lib_builtin_table(), &diags, &opts);
  if (!ok)
    for (int i = 0; i < diags.count; i++) print_error("%s\n", diags.items[i].message);
  assert_true(ok);
  Cost c = {stats.kept_bytes + stats.scratch_peak_bytes, true};
  for (int mi = 0; mi < prog.nmodules; mi++)
    for (int di = 0; di < prog.modules[mi]->ndecls; di++) {
      const Decl *d = prog.modules[mi]->decls[di];
      if (d->kind == D_FUNC && !block_typed(d->u.func.body)) c.typed = false;
    }
  diag_free(&diags);
  ast_program_free(&prog);
  return c;
}

static void grows_linearly(Shape shape) {
  const int n = 60;
  Cost small = check_graph(shape, n), large = check_graph(shape, 4 * n);
  assert_true(small.typed);
  assert_true(large.typed);
  double ratio = (double)large.bytes / (double)small.bytes;
  print_message("%d modules: %zu bytes; %d modules: %zu bytes (x%.2f)\n", n, small.bytes, 4 * n, large.bytes, ratio);
  /* linear is about 4 (less: fixed costs); quadratic was over 12 */
  assert_true(ratio < 6.0);
}

static void chain_is_linear(void **state) {
  (void)state;
  grows_linearly(CHAIN);
}

static void diamond_is_linear(void **state) {
  (void)state;
  grows_linearly(DIAMOND);
}

static void fan_in_is_linear(void **state) {
  (void)state;
  grows_linearly(FAN);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(chain_is_linear),
      cmocka_unit_test(diamond_is_linear),
      cmocka_unit_test(fan_in_is_linear),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
