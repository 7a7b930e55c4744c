/* Unit test of the JavaScript back end's contract with the builtin table
 * and of its output size: every builtin whose row names a JavaScript
 * implementation (the `js` column) has that unit in the embedded prelude,
 * the prelude's tree shaking keeps hello world small, and the C API
 * compiles, reports errors as diagnostics and escapes a page's title.
 * Guards src/js and src/runtime/js_api.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <geno.h>

#include "js/js.h"
#include "lib/builtins.h"

static void every_js_name_is_in_the_prelude(void **state) {
  (void)state;
  size_t n;
  const BuiltinDef *rows = lib_builtins(&n);
  int with_js = 0;
  for (size_t i = 0; i < n; i++) {
    if (!rows[i].js) continue;
    with_js++;
    if (!js_prelude_has(rows[i].js)) fail_msg("builtin %s names js unit %s, which the prelude lacks", rows[i].name, rows[i].js);
  }
  assert_true(with_js > 150);
}

static char *compile(const char *src, unsigned flags, geno_result **r) {
  char *js = NULL;
  size_t len = 0;
  *r = geno_compile_js(src, strlen(src), "t.geno", NULL, flags, &js, &len);
  assert_non_null(*r);
  if (js) assert_int_equal(strlen(js), len);
  return js;
}

static void hello_world_is_small(void **state) {
  (void)state;
  geno_result *r;
  char *js = compile("func main() -> Unit with io\n    print(\"hello\")\nend func\n", 0, &r);
  assert_non_null(js);
  assert_true(strlen(js) < 10 * 1024);
  assert_non_null(strstr(js, "\"use strict\";"));
  /* nothing the program does not reach */
  assert_null(strstr(js, "$b_map_insert"));
  assert_null(strstr(js, "$app"));
  free(js);
  geno_result_free(r);
}

static void check_errors_are_diagnostics(void **state) {
  (void)state;
  geno_result *r;
  char *js = compile("func main() -> Int\n    return \"x\"\nend func\n", 0, &r);
  assert_null(js);
  assert_false(geno_result_ok(r));
  assert_true(geno_result_diagnostic_count(r) > 0);
  geno_result_free(r);
  /* a builtin the node-cli target lacks */
  js = compile("func main() -> Unit with io\n    draw_rect(x: 1, y: 2, width: 3, height: 4, color: \"red\")\nend func\n", 0, &r);
  assert_null(js);
  geno_result_free(r);
}

static void esm_exports_functions(void **state) {
  (void)state;
  geno_result *r;
  char *js = compile("func double(x: Int) -> Int\n    example 2 -> 4\n    return x * 2\nend func\n", GENO_JS_ESM, &r);
  assert_non_null(js);
  assert_non_null(strstr(js, "export {"));
  assert_non_null(strstr(js, "f_double as double"));
  free(js);
  geno_result_free(r);
}

static void page_title_is_escaped(void **state) {
  (void)state;
  char *page = geno_html_page("</title><script>alert(1)</script>", 320, 200);
  assert_non_null(page);
  assert_null(strstr(page, "<script>alert"));
  assert_non_null(strstr(page, "&lt;/title&gt;&lt;script&gt;"));
  assert_non_null(strstr(page, "Content-Security-Policy"));
  assert_non_null(strstr(page, "width=\"320\""));
  free(page);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(every_js_name_is_in_the_prelude),
      cmocka_unit_test(hello_world_is_small),
      cmocka_unit_test(check_errors_are_diagnostics),
      cmocka_unit_test(esm_exports_functions),
      cmocka_unit_test(page_title_is_escaped),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
