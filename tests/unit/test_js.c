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

/* The size aim: a program calling 30 builtins (json_stringify
 * and sort among them) stays under 30 KB, prelude included. */
static void thirty_builtins_are_small(void **state) {
  (void)state;
  geno_result *r;
  char *js = compile(
      "func main() -> Unit with io\n"
      "    let xs = range(0, 10)\n"
      "    let ys = map(xs, fn(x: Int) -> x * 2)\n"
      "    let zs = filter(ys, fn(x: Int) -> x > 4)\n"
      "    let total = fold(list: zs, initial: 0, reducer: fn(a: Int, x: Int) -> a + x)\n"
      "    print(to_string(total))\n"
      "    print(length(append(xs, 11)))\n"
      "    print(reverse(concat(xs, ys)))\n"
      "    print(head(xs))\n"
      "    print(sort(xs, fn(a: Int, b: Int) -> b - a))\n"
      "    print(contains(xs, 3))\n"
      "    print(sort_by(ys, fn(a: Int) -> 0 - a))\n"
      "    print(join(split(\"a,b,c\", \",\"), \"-\"))\n"
      "    print(trim(\"  x  \"))\n"
      "    print(to_upper(\"abc\"))\n"
      "    print(to_lower(\"ABC\"))\n"
      "    print(starts_with(\"abc\", \"a\"))\n"
      "    print(ends_with(\"abc\", \"c\"))\n"
      "    print(replace(text: \"aXb\", old: \"X\", new: \"y\"))\n"
      "    print(substring(text: \"hello\", start: 1, stop: 3))\n"
      "    print(parse_int(\"42\"))\n"
      "    print(int_to_float(3))\n"
      "    print(abs(0 - 3))\n"
      "    print(max(1, 2))\n"
      "    print(math_min(1, 2))\n"
      "    let m = map_from_list([(\"a\", 1)])\n"
      "    print(map_get(m, \"a\"))\n"
      "    print(map_insert(map: m, key: \"b\", value: 2))\n"
      "    print(set_from_list([1, 2, 2]))\n"
      "    print(unwrap_or(parse_int(\"x\"), 0))\n"
      "    print(json_stringify(JsonInt(1)))\n"
      "end func\n",
      0, &r);
  assert_non_null(js);
  assert_true(strlen(js) < 30 * 1024);
  assert_non_null(strstr(js, "$b_json_stringify"));
  assert_non_null(strstr(js, "$timsort")); /* the largest unit a list builtin brings */
  assert_null(strstr(js, "$b_regex_match"));
  free(js);
  geno_result_free(r);
}

/* geno_compile_js_ex: the source map and the declarations only when asked. */
static void extra_outputs(void **state) {
  (void)state;
  const char *src = "func double(x: Int) -> Int\n    example 2 -> 4\n    return x * 2\nend func\n";
  geno_js_output o;
  geno_result *r = geno_compile_js_ex(src, strlen(src), "t.geno", NULL, GENO_JS_ESM | GENO_JS_SOURCE_MAP | GENO_JS_DTS,
                                      "t.mjs", &o);
  assert_non_null(r);
  assert_true(geno_result_ok(r));
  assert_non_null(o.js);
  assert_non_null(strstr(o.source_map, "\"file\":\"t.mjs\""));
  assert_non_null(strstr(o.source_map, "\"sources\":[\"t.geno\"]"));
  assert_int_equal(strlen(o.source_map), o.source_map_len);
  assert_non_null(strstr(o.dts, "export declare function double(x: bigint): bigint;"));
  assert_null(strchr(o.js, '\x01')); /* no position marker is left */
  geno_free(o.js);
  geno_free(o.source_map);
  geno_free(o.dts);
  geno_result_free(r);
  r = geno_compile_js_ex(src, strlen(src), "t.geno", NULL, 0, NULL, &o);
  assert_non_null(o.js);
  assert_null(o.source_map);
  assert_null(o.dts);
  assert_int_equal(o.dts_len, 0);
  geno_free(o.js);
  geno_result_free(r);
  /* a failed compilation gives no text at all */
  r = geno_compile_js_ex("func main() -> Int\n    return \"x\"\nend func\n", 43, "t.geno", NULL,
                         GENO_JS_SOURCE_MAP | GENO_JS_DTS, NULL, &o);
  assert_false(geno_result_ok(r));
  assert_null(o.js);
  assert_null(o.source_map);
  assert_null(o.dts);
  geno_result_free(r);
}

/* geno_compile_html_ex: the map of app.js (script only), or inline in the
 * page (base64, one line more: the empty first line of the <script>). */
static void html_source_map(void **state) {
  (void)state;
  const char *src = "func main() -> Unit with io\n    print(\"hi\")\nend func\n";
  geno_js_output s, p;
  geno_result *r = geno_compile_html_ex(src, strlen(src), "t.geno", NULL, NULL, 320, 200, true, GENO_JS_SOURCE_MAP,
                                        NULL, &s);
  assert_true(geno_result_ok(r));
  assert_non_null(strstr(s.source_map, "\"file\":\"app.js\""));
  assert_null(strstr(s.js, "sourceMappingURL")); /* the caller names the map beside the script */
  assert_null(s.dts);
  geno_result_free(r);
  r = geno_compile_html_ex(src, strlen(src), "t.geno", NULL, NULL, 320, 200, false, GENO_JS_SOURCE_MAP, "x.js", &p);
  assert_true(geno_result_ok(r));
  assert_non_null(strstr(p.js, "<!DOCTYPE html>"));
  assert_non_null(strstr(p.js, "\n//# sourceMappingURL=data:application/json;charset=utf-8;base64,eyJ2ZXJzaW9uIjoz"));
  assert_non_null(strstr(p.source_map, "\"file\":\"x.js\""));
  const char *ms = strstr(s.source_map, "\"mappings\":\""), *mp = strstr(p.source_map, "\"mappings\":\"");
  assert_non_null(ms);
  assert_non_null(mp);
  ms += 12;
  mp += 12;
  assert_int_equal(mp[0], ';');
  assert_string_equal(mp + 1, ms);
  geno_free(s.js);
  geno_free(s.source_map);
  geno_free(p.js);
  geno_free(p.source_map);
  geno_result_free(r);
  /* without the flag: no map, and the page has no sourceMappingURL */
  r = geno_compile_html_ex(src, strlen(src), "t.geno", NULL, NULL, 320, 200, false, 0, NULL, &p);
  assert_null(p.source_map);
  assert_null(strstr(p.js, "sourceMappingURL"));
  geno_free(p.js);
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
      cmocka_unit_test(thirty_builtins_are_small),
      cmocka_unit_test(extra_outputs),
      cmocka_unit_test(html_source_map),
      cmocka_unit_test(check_errors_are_diagnostics),
      cmocka_unit_test(esm_exports_functions),
      cmocka_unit_test(page_title_is_escaped),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
