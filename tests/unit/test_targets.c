/* Unit tests of target-aware checking through the public API
 * (geno_config.targets, geno_config_validate, geno_check) and of the
 * checker's target tables (src/check/target_names.c). The language rules
 * themselves are golden tests in tests/lang/check/targets. */
#include "unit.h"

#include "check/checker.h"
#include "lib/builtins.h"

static const char exec_program[] = "func main() -> Unit with process\n"
                                   "    let r = exec(\"ls\")\n"
                                   "    return ()\n"
                                   "end func\n";

static geno_result *check_with(const char *src, const char *const *targets, size_t n) {
  geno_config cfg;
  geno_config_init(&cfg);
  cfg.targets = targets;
  cfg.ntargets = n;
  return geno_check(src, strlen(src), "prog.geno", &cfg);
}

static void defaults_have_no_targets(void **state) {
  (void)state;
  geno_config c;
  memset(&c, 0xAB, sizeof c);
  geno_config_init(&c);
  assert_null(c.targets);
  assert_int_equal(c.ntargets, 0);
}

static void validate_rejects_unknown_targets(void **state) {
  (void)state;
  geno_config c;
  geno_config_init(&c);
  const char *good[] = {"python-cli", "node-cli", "browser", "python-hosted"};
  c.targets = good;
  c.ntargets = 4;
  assert_null(geno_config_validate(&c));
  const char *bad[] = {"node-cli", "deno"};
  c.targets = bad;
  c.ntargets = 2;
  char *msg = geno_config_validate(&c);
  assert_non_null(msg);
  assert_non_null(strstr(msg, "'deno'"));
  assert_non_null(strstr(msg, "python-hosted"));
  geno_free(msg);
  c.targets = NULL;
  c.ntargets = 1;
  msg = geno_config_validate(&c);
  assert_non_null(msg);
  geno_free(msg);
}

static void check_reports_unknown_target_as_e204(void **state) {
  (void)state;
  const char *bad[] = {"python"};
  geno_result *r = check_with(exec_program, bad, 1);
  assert_false(geno_result_ok(r));
  assert_int_equal(geno_result_diagnostic_count(r), 1);
  assert_int_equal(geno_result_diagnostic(r, 0)->code_number, 204);
  geno_result_free(r);
}

static void availability_depends_on_the_target(void **state) {
  (void)state;
  geno_result *r = check_with(exec_program, NULL, 0);
  assert_true(geno_result_ok(r));
  geno_result_free(r);
  const char *py[] = {"python-cli"};
  r = check_with(exec_program, py, 1);
  assert_true(geno_result_ok(r));
  geno_result_free(r);
  const char *node[] = {"node-cli"};
  r = check_with(exec_program, node, 1);
  assert_false(geno_result_ok(r));
  assert_int_equal(geno_result_diagnostic_count(r), 2);
  const geno_diagnostic *d = geno_result_diagnostic(r, 0);
  assert_int_equal(d->code_number, 300);
  assert_int_equal(d->line, 2);
  assert_non_null(strstr(d->message, "'node-cli'"));
  assert_non_null(strstr(d->message, "python-cli")); /* where it is available */
  assert_int_equal(geno_result_diagnostic(r, 1)->code_number, 305);
  geno_result_free(r);
}

static void several_targets_prefix_their_diagnostics(void **state) {
  (void)state;
  /* Fails on node-cli only; repeated names count once. */
  const char *both[] = {"python-cli", "node-cli", "python-cli"};
  geno_result *r = check_with(exec_program, both, 3);
  assert_false(geno_result_ok(r));
  assert_int_equal(geno_result_diagnostic_count(r), 2);
  assert_true(strncmp(geno_result_diagnostic(r, 0)->message, "[node-cli] ", 11) == 0);
  geno_result_free(r);
  const char *src = "func main() -> Int\n    return \"x\"\nend func\n";
  r = check_with(src, both, 3);
  assert_int_equal(geno_result_diagnostic_count(r), 2);
  assert_true(strncmp(geno_result_diagnostic(r, 0)->message, "[python-cli] ", 13) == 0);
  assert_true(strncmp(geno_result_diagnostic(r, 1)->message, "[node-cli] ", 11) == 0);
  geno_result_free(r);
}

static void backend_errors_have_no_location(void **state) {
  (void)state;
  const char *src = "type Box = Box(class: Int)\nfunc main() -> Int\n    return 0\nend func\n";
  const char *py[] = {"python-hosted"};
  geno_result *r = check_with(src, py, 1);
  assert_int_equal(geno_result_diagnostic_count(r), 1);
  const geno_diagnostic *d = geno_result_diagnostic(r, 0);
  assert_int_equal(d->code_number, 300);
  assert_int_equal(d->line, 0);
  assert_null(d->filename);
  assert_non_null(strstr(d->message, "Target 'python-hosted'"));
  geno_result_free(r);
}

static void tables_are_sorted_and_name_real_builtins(void **state) {
  (void)state;
  assert_true(chk_target_tables_sorted());
  static const char *const lacking[] = {"exec", "sleep_ms", "stdin_read_all", "fs_read_text", "env_get",
                                        "cli_args", "http_listen", "screen_width", "draw_text", "mouse_x"};
  for (size_t i = 0; i < sizeof lacking / sizeof lacking[0]; i++) {
    assert_non_null(lib_builtin_find(lacking[i]));
    bool some_lacks = false;
    for (int t = 1; t < CHK_TARGET__COUNT; t++) some_lacks |= !chk_target_has_builtin((ChkTarget)t, lacking[i]);
    assert_true(some_lacks);
  }
  /* Every target lacks something, and every builtin exists somewhere. */
  size_t n;
  const BuiltinDef *rows = lib_builtins(&n);
  for (size_t i = 0; i < n; i++) {
    bool somewhere = false;
    for (int t = 1; t < CHK_TARGET__COUNT; t++) somewhere |= chk_target_has_builtin((ChkTarget)t, rows[i].name);
    assert_true(somewhere);
    assert_true(chk_target_has_builtin(CHK_TARGET_NONE, rows[i].name));
  }
  for (int t = 1; t < CHK_TARGET__COUNT; t++) {
    assert_int_equal(chk_target_from_name(chk_target_name((ChkTarget)t)), t);
  }
  assert_int_equal(chk_target_from_name("python"), CHK_TARGET_NONE);
  assert_true(chk_python_keyword("lambda") && !chk_python_keyword("fn"));
  assert_true(chk_js_keyword("typeof") && !chk_js_keyword("lambda"));
  assert_true(chk_reserved_flags("Warning") & RN_PY_GLOBAL);
  assert_false(chk_reserved_flags("Warning") & RN_PY_PROJECT);
  assert_int_equal(chk_reserved_flags("area"), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(defaults_have_no_targets),
      cmocka_unit_test(validate_rejects_unknown_targets),
      cmocka_unit_test(check_reports_unknown_target_as_e204),
      cmocka_unit_test(availability_depends_on_the_target),
      cmocka_unit_test(several_targets_prefix_their_diagnostics),
      cmocka_unit_test(backend_errors_have_no_location),
      cmocka_unit_test(tables_are_sorted_and_name_real_builtins),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
