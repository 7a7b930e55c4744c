/* Unit tests of geno_source_imports (src/runtime/api.c): the modules a
 * source imports, found from its tokens. */
#include "unit.h"

static int imports(const char *src, char ***names) { return geno_source_imports(src, strlen(src), names); }

static void lists_imports_in_order(void **state) {
  (void)state;
  char **names;
  int n = imports("import Geom\n"
                  "import Math as M\n"
                  "// import Commented\n"
                  "func main() -> Int\n"
                  "    let s = \"import Quoted\"\n"
                  "    return 0\n"
                  "end func\n"
                  "import Late\n"
                  "import Geom\n",
                  &names);
  assert_int_equal(n, 4);
  assert_string_equal(names[0], "Geom");
  assert_string_equal(names[1], "Math");
  assert_string_equal(names[2], "Late");
  assert_string_equal(names[3], "Geom");
  geno_strings_free(names, (size_t)n);
}

static void none_and_empty(void **state) {
  (void)state;
  char **names = (char **)1;
  assert_int_equal(imports("func main() -> Int\n    return 0\nend func\n", &names), 0);
  geno_strings_free(names, 0);
  assert_int_equal(geno_source_imports(NULL, 0, &names), 0);
  geno_strings_free(names, 0);
}

/* A syntax error does not hide the imports (the check reports it later);
 * only a lexical error makes them unknown. */
static void syntax_errors_still_list(void **state) {
  (void)state;
  char **names;
  int n = imports("import Geom\nfunc main( -> Int\n", &names);
  assert_int_equal(n, 1);
  assert_string_equal(names[0], "Geom");
  geno_strings_free(names, (size_t)n);
  n = imports("import lower\nimport 3\nimport Std.Math\n", &names);
  assert_int_equal(n, 1); /* only a type name after `import` names a module */
  assert_string_equal(names[0], "Std");
  geno_strings_free(names, (size_t)n);
}

static void lexical_errors_fail(void **state) {
  (void)state;
  char **names = (char **)1;
  assert_int_equal(imports("import Geom\nlet x = `\n", &names), -1);
  assert_null(names);
  assert_int_equal(imports("import Geom\n/* unterminated", &names), -1);
  assert_int_equal(geno_source_imports("import Geom // \xff\n", 17, &names), -1);
  assert_int_equal(imports("import Geom\nlet s = \"open\n", &names), -1);
}

/* A lone CR ends a line, as the parser sees it (it normalises CR and
 * CR LF to LF): a `//` comment stops there (found by fuzz_frontend: the
 * parser reported a lexical error after the CR that the scan skipped). */
static void carriage_returns_end_lines(void **state) {
  (void)state;
  char **names = (char **)1;
  int n = imports("// header\rimport Geom\r\nimport Math // x\rimport Late\r", &names);
  assert_int_equal(n, 3);
  assert_string_equal(names[0], "Geom");
  assert_string_equal(names[1], "Math");
  assert_string_equal(names[2], "Late");
  geno_strings_free(names, (size_t)n);
  assert_int_equal(imports("// comment\rb#\nfunc main() -> Int\n", &names), -1);
  assert_null(names);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(lists_imports_in_order),
      cmocka_unit_test(none_and_empty),
      cmocka_unit_test(syntax_errors_still_list),
      cmocka_unit_test(lexical_errors_fail),
      cmocka_unit_test(carriage_returns_end_lines),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
