/* Unit tests: geno_config.module_loader, the host supplying imported
 * modules on demand. In-process (geno_check, geno_run) the front end asks
 * as it meets each import; geno_run_isolated asks in the calling process
 * before the fork and the child is served from that. Covered: transitive
 * imports, one call per name, modules from the array win, std modules
 * fall back to the built-in one, the loader's explanation in the E204
 * message, size limits, and the library freeing what the loader hands
 * over (LeakSanitizer checks the last). */
#include "unit.h"

/* A loader over a fixed table; counts the calls per name. */
typedef struct Table {
  const char *names[8];
  const char *sources[8];
  int calls[8];
  int unknown_calls; /* names not in the table */
  const char *why;   /* explanation for a name not in the table */
} Table;

static bool table_loader(void *ud, const char *name, char **source, size_t *length, char **filename,
                         char **error) {
  (void)filename;
  Table *t = ud;
  for (int i = 0; i < 8 && t->names[i]; i++) {
    if (strcmp(t->names[i], name) != 0) continue;
    t->calls[i]++;
    size_t n = strlen(t->sources[i]);
    *source = malloc(n + 1);
    if (!*source) return false;
    memcpy(*source, t->sources[i], n + 1);
    *length = n;
    return true;
  }
  t->unknown_calls++;
  if (t->why) *error = strdup(t->why);
  return false;
}

/* A loader that names its module's file for diagnostics. */
static bool named_loader(void *ud, const char *name, char **source, size_t *length, char **filename,
                         char **error) {
  (void)ud;
  (void)error;
  if (strcmp(name, "Broken") != 0) return false;
  const char *text = "export @untested(\"demo\")\nfunc f() -> Int\n    return \"text\"\nend func\n";
  *source = strdup(text);
  *length = strlen(text);
  *filename = strdup("lib/Broken.geno");
  return *source != NULL;
}

static void test_loader_names_the_file(void **state) {
  (void)state;
  const char *src = "import Broken\nfunc main() -> Int\n    return Broken.f()\nend func\n";
  geno_config cfg;
  geno_config_init(&cfg);
  cfg.module_loader = named_loader;
  for (int isolated = 0; isolated < 2; isolated++) {
    geno_result *r = isolated ? geno_run_isolated(src, strlen(src), "m.geno", &cfg) : geno_check(src, strlen(src), "m.geno", &cfg);
    assert_false(geno_result_ok(r));
    const geno_diagnostic *d = geno_result_diagnostic(r, 0);
    assert_string_equal(d->code, "E300");
    assert_string_equal(d->filename, "lib/Broken.geno");
    assert_int_equal(d->line, 3);
    geno_result_free(r);
  }
}

static const char *kUtil = "export func twice(x: Int) -> Int\n    example 2 -> 4\n    return Deep.inc(x) * 2 - 2\nend func\n"
                           "import Deep\n";
static const char *kDeep = "export func inc(x: Int) -> Int\n    example 1 -> 2\n    return x + 1\nend func\n";
static const char *kMain = "import Util\nimport Deep\nfunc main() -> Int\n    return Util.twice(Deep.inc(3))\nend func\n";

static geno_config loader_config(Table *t) {
  geno_config cfg;
  geno_config_init(&cfg);
  cfg.module_loader = table_loader;
  cfg.module_loader_userdata = t;
  return cfg;
}

static void test_transitive_imports_in_process(void **state) {
  (void)state;
  Table t = {.names = {"Util", "Deep"}, .sources = {kUtil, kDeep}};
  geno_config cfg = loader_config(&t);
  geno_result *r = geno_run(kMain, strlen(kMain), "main.geno", &cfg);
  assert_true(geno_result_ok(r));
  assert_string_equal(geno_result_value_json(r), "8");
  /* each module is asked for once, though two modules import Deep */
  assert_int_equal(t.calls[0], 1);
  assert_int_equal(t.calls[1], 1);
  geno_result_free(r);

  memset(t.calls, 0, sizeof t.calls);
  r = geno_check(kMain, strlen(kMain), "main.geno", &cfg);
  assert_true(geno_result_ok(r));
  assert_int_equal(t.calls[0], 1);
  geno_result_free(r);
}

static void test_transitive_imports_isolated(void **state) {
  (void)state;
  Table t = {.names = {"Util", "Deep"}, .sources = {kUtil, kDeep}};
  geno_config cfg = loader_config(&t);
  geno_result *r = geno_run_isolated(kMain, strlen(kMain), "main.geno", &cfg);
  assert_true(geno_result_ok(r));
  assert_string_equal(geno_result_value_json(r), "8");
  /* asked in this process, before the child started */
  assert_int_equal(t.calls[0], 1);
  assert_int_equal(t.calls[1], 1);
  geno_result_free(r);
}

static void test_missing_module_explained(void **state) {
  (void)state;
  const char *src = "import Nowhere\nfunc main() -> Int\n    return 1\nend func\n";
  for (int isolated = 0; isolated < 2; isolated++) {
    Table t = {.why = "Searched for 'Nowhere.geno' in /srv/app"};
    geno_config cfg = loader_config(&t);
    geno_result *r = isolated ? geno_run_isolated(src, strlen(src), "m.geno", &cfg)
                              : geno_run(src, strlen(src), "m.geno", &cfg);
    assert_false(geno_result_ok(r));
    const geno_diagnostic *d = geno_result_diagnostic(r, 0);
    assert_string_equal(d->code, "E204");
    assert_string_equal(d->message, "Module 'Nowhere' not found. Searched for 'Nowhere.geno' in /srv/app");
    assert_int_equal(d->line, 1);
    assert_int_equal(t.unknown_calls, 1);
    geno_result_free(r);
  }
  /* no explanation: the plain message */
  Table t = {0};
  geno_config cfg = loader_config(&t);
  geno_result *r = geno_check(src, strlen(src), "m.geno", &cfg);
  assert_string_equal(geno_result_diagnostic(r, 0)->message, "Module 'Nowhere' not found");
  geno_result_free(r);
}

static void test_array_wins_and_std_fallback(void **state) {
  (void)state;
  /* Deep is in the array: the loader is not asked for it; Math is a std
   * module the loader does not have: the built-in one is used. */
  Table t = {.names = {"Util"}, .sources = {kUtil}};
  geno_config cfg = loader_config(&t);
  geno_module deep = {"Deep", kDeep, strlen(kDeep)};
  cfg.modules = &deep;
  cfg.nmodules = 1;
  const char *src = "import Util\nimport Math\nfunc main() -> Int\n    return Util.twice(Math.abs(-3))\nend func\n";
  for (int isolated = 0; isolated < 2; isolated++) {
    t.calls[0] = t.unknown_calls = 0;
    geno_result *r = isolated ? geno_run_isolated(src, strlen(src), "m.geno", &cfg)
                              : geno_run(src, strlen(src), "m.geno", &cfg);
    assert_true(geno_result_ok(r));
    assert_string_equal(geno_result_value_json(r), "6");
    assert_int_equal(t.calls[0], 1);
    assert_int_equal(t.unknown_calls, 1); /* Math, once */
    geno_result_free(r);
  }
}

static void test_loader_module_over_size_limit(void **state) {
  (void)state;
  Table t = {.names = {"Deep"}, .sources = {kDeep}};
  geno_config cfg = loader_config(&t);
  cfg.max_source_bytes = 60; /* the entry (51 bytes) fits, Deep (76) does not */
  const char *src = "import Deep\nfunc main() -> Int\n    return 1\nend func\n";
  geno_result *r = geno_check(src, strlen(src), "m.geno", &cfg);
  assert_false(geno_result_ok(r));
  assert_string_equal(geno_result_diagnostic(r, 0)->code, "E204");
  assert_non_null(strstr(geno_result_diagnostic(r, 0)->message, "too large"));
  geno_result_free(r);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_transitive_imports_in_process),
      cmocka_unit_test(test_transitive_imports_isolated),
      cmocka_unit_test(test_missing_module_explained),
      cmocka_unit_test(test_array_wins_and_std_fallback),
      cmocka_unit_test(test_loader_module_over_size_limit),
      cmocka_unit_test(test_loader_names_the_file),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
