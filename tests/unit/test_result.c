/* Unit tests: geno_result accessors and the RunResult JSON form
 * (runtime/result.c). Results are built through the runtime's internal
 * constructors, as geno_run builds them. */
#include "unit.h"

#include "base/diag.h"
#include "runtime/result.h"
#include "sandbox/wire.h"

static void fresh_result(void **state) {
  (void)state;
  geno_result *r = rt_result_new();
  assert_true(geno_result_ok(r));
  assert_int_equal(geno_result_diagnostic_count(r), 0);
  assert_null(geno_result_diagnostic(r, 0));
  size_t len = 99;
  assert_string_equal(geno_result_output(r, &len), "");
  assert_int_equal(len, 0);
  assert_string_equal(geno_result_value_json(r), "null");
  assert_null(geno_result_value(r));
  assert_null(geno_result_value_text(r));
  assert_int_equal(geno_result_steps(r), 0);
  char *json = geno_result_to_json(r);
  assert_string_equal(json, "{\n  \"ok\": true,\n  \"value\": null,\n  \"output\": \"\",\n  \"diagnostics\": [],\n"
                            "  \"timing\": {\n    \"total_ms\": 0.0,\n    \"lex_ms\": 0.0,\n    \"parse_ms\": 0.0,\n"
                            "    \"typecheck_ms\": 0.0,\n    \"run_ms\": 0.0\n  },\n  \"steps_used\": 0\n}");
  geno_free(json);
  geno_result_free(r);
}

static void null_result_is_neutral(void **state) {
  (void)state;
  size_t len = 5;
  assert_false(geno_result_ok(NULL));
  assert_int_equal(geno_result_diagnostic_count(NULL), 0);
  assert_null(geno_result_diagnostic(NULL, 0));
  assert_string_equal(geno_result_output(NULL, &len), "");
  assert_int_equal(len, 0);
  assert_string_equal(geno_result_value_json(NULL), "null");
  assert_null(geno_result_to_json(NULL));
  assert_int_equal(geno_result_steps(NULL), 0);
  geno_result_free(NULL);
}

/* The layout matches the reference's `run --json` (two-space indent,
 * location only when known, timing rounded to 2 decimals). */
static void failed_run_json(void **state) {
  (void)state;
  geno_result *r = rt_result_new();
  Span sp = {"/tmp/r.geno", 3, 12, 3, 15};
  rt_result_add(r, 401, &sp, "Index 3 out of bounds for list of length 1");
  rt_result_add(r, 501, NULL, "Execution timed out after 5.0 seconds");
  r->timing.total_ms = 1.987;
  r->timing.run_ms = 0.5;
  assert_false(geno_result_ok(r));
  assert_int_equal(geno_result_diagnostic_count(r), 2);
  const geno_diagnostic *d = geno_result_diagnostic(r, 0);
  assert_string_equal(d->code, "E401");
  assert_int_equal(d->code_number, 401);
  assert_string_equal(d->severity, "error");
  assert_string_equal(d->filename, "/tmp/r.geno");
  assert_int_equal(d->line, 3);
  assert_int_equal(d->column, 12);
  assert_null(geno_result_diagnostic(r, 1)->filename);
  assert_int_equal(geno_result_diagnostic(r, 1)->line, 0);
  char *json = geno_result_to_json(r);
  assert_string_equal(json,
                      "{\n  \"ok\": false,\n  \"value\": null,\n  \"output\": \"\",\n  \"diagnostics\": [\n"
                      "    {\n      \"code\": \"E401\",\n      \"message\": \"Index 3 out of bounds for list of "
                      "length 1\",\n      \"severity\": \"error\",\n      \"location\": {\n        \"line\": 3,\n"
                      "        \"column\": 12,\n        \"filename\": \"/tmp/r.geno\"\n      }\n    },\n"
                      "    {\n      \"code\": \"E501\",\n      \"message\": \"Execution timed out after 5.0 "
                      "seconds\",\n      \"severity\": \"error\"\n    }\n  ],\n  \"timing\": {\n"
                      "    \"total_ms\": 1.99,\n    \"lex_ms\": 0.0,\n    \"parse_ms\": 0.0,\n"
                      "    \"typecheck_ms\": 0.0,\n    \"run_ms\": 0.5\n  },\n  \"steps_used\": 0\n}");
  geno_free(json);
  geno_result_free(r);
}

/* Untrusted text (program output, messages) stays inside its JSON string:
 * quotes, backslashes, newlines and control characters are escaped, so a
 * program cannot forge fields of the host's RunResult. This is the C form
 * of the reference's 2026-03 fix for an unescaped title in generated HTML:
 * every place the library splices untrusted text into a structured format
 * escapes it. */
static void untrusted_text_cannot_break_the_json(void **state) {
  (void)state;
  geno_result *r = rt_result_new();
  const char evil[] = "x\", \"ok\": true, \"steps_used\": 1}\n\\\x01\t\r";
  rt_result_set_output(r, evil, sizeof evil - 1);
  rt_result_add(r, 499, NULL, "msg \"quoted\" \\ and\nnewline");
  char *json = geno_result_to_json(r);
  assert_true(sbx_json_valid(json, strlen(json)));
  assert_non_null(strstr(json, "\"output\": \"x\\\", \\\"ok\\\": true, \\\"steps_used\\\": 1}\\n\\\\\\u0001\\t\\r\""));
  assert_non_null(strstr(json, "\"ok\": false"));
  assert_null(strstr(json, "\"ok\": true,\n")); /* the forged field exists only escaped */
  assert_non_null(strstr(json, "\"message\": \"msg \\\"quoted\\\" \\\\ and\\nnewline\""));
  geno_free(json);
  geno_result_free(r);
}

static void output_keeps_its_length(void **state) {
  (void)state;
  geno_result *r = rt_result_new();
  rt_result_set_output(r, "a\0b", 3); /* from_char_code(0) can print NUL */
  size_t len;
  const char *out = geno_result_output(r, &len);
  assert_int_equal(len, 3);
  assert_memory_equal(out, "a\0b", 3);
  char *json = geno_result_to_json(r);
  assert_non_null(strstr(json, "\"output\": \"a\\u0000b\""));
  geno_free(json);
  geno_result_free(r);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(fresh_result),
      cmocka_unit_test(null_result_is_neutral),
      cmocka_unit_test(failed_run_json),
      cmocka_unit_test(untrusted_text_cannot_break_the_json),
      cmocka_unit_test(output_keeps_its_length),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
