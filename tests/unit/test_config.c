/* Unit tests: geno_config defaults and geno_config_validate (config.c),
 * and how geno_run_isolated treats an invalid configuration. */
#include "unit.h"

#include <math.h>

static geno_value *dummy_cb(const char *name, const geno_value *const *args, size_t nargs, void *ud,
                            char **error) {
  (void)name, (void)args, (void)nargs, (void)ud, (void)error;
  return geno_value_new_unit();
}

static void defaults_match_the_header(void **state) {
  (void)state;
  geno_config c;
  memset(&c, 0xAB, sizeof c); /* init must set every field, not rely on zeroed memory */
  geno_config_init(&c);
  assert_true(c.timeout_s == 5.0);
  assert_int_equal(c.max_steps, 1000000);
  assert_int_equal(c.max_recursion_depth, 500);
  assert_int_equal(c.max_output_length, 100000);
  assert_int_equal(c.max_collection_size, 10000000);
  assert_int_equal(c.max_integer_bits, 33219);
  assert_false(c.capabilities_set);
  assert_int_equal(c.capabilities, 0);
  assert_null(c.callbacks);
  assert_int_equal(c.ncallbacks, 0);
  assert_null(c.modules);
  assert_int_equal(c.nmodules, 0);
  assert_null(c.cli_args);
  assert_int_equal(c.ncli_args, 0);
  assert_true(c.check_examples);
  assert_false(c.run_tests);
  assert_null(c.monitor);
  assert_null(c.monitor_userdata);
  assert_int_equal(c.memory_bytes, 256u << 20);
  assert_true(c.cpu_seconds == 0.0);
  assert_int_equal(c.max_source_bytes, 1u << 20);
  assert_int_equal(c.max_total_source_bytes, 8u << 20);
  assert_null(geno_config_validate(&c));
}

static void validate_null_is_valid(void **state) {
  (void)state;
  assert_null(geno_config_validate(NULL));
}

/* Every rejected configuration gives a message naming the problem. */
static void expect_invalid(const geno_config *c, const char *needle) {
  char *msg = geno_config_validate(c);
  assert_non_null(msg);
  if (!strstr(msg, needle)) fail_msg("message %s lacks %s", msg, needle);
  geno_free(msg);
}

static void timeout_must_be_finite_and_non_negative(void **state) {
  (void)state;
  geno_config c;
  geno_config_init(&c);
  c.timeout_s = NAN;
  expect_invalid(&c, "timeout");
  c.timeout_s = INFINITY;
  expect_invalid(&c, "timeout");
  c.timeout_s = -1;
  expect_invalid(&c, "timeout");
  c.timeout_s = 0; /* no deadline */
  assert_null(geno_config_validate(&c));
}

static void unknown_capability_bits_are_rejected(void **state) {
  (void)state;
  geno_config c;
  geno_config_init(&c);
  c.capabilities_set = true;
  c.capabilities = 1u << GENO_CAP_COUNT;
  expect_invalid(&c, "capabilit");
  c.capabilities = (1u << GENO_CAP_COUNT) - 1; /* all ten */
  assert_null(geno_config_validate(&c));
}

/* The reference rejects a host_callbacks key that is not a gated builtin
 * when the RunConfig is built, typos and pure builtins alike. */
static void unknown_callback_name_fails_at_config_time(void **state) {
  (void)state;
  const char *bad[] = {"htttp_fetch", "length", "", "fs_read_text ", "FS_READ_TEXT", "main"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    geno_callback cb = {bad[i], dummy_cb, NULL};
    geno_config c;
    geno_config_init(&c);
    c.capabilities_set = true;
    c.capabilities = (1u << GENO_CAP_COUNT) - 1;
    c.callbacks = &cb;
    c.ncallbacks = 1;
    char *msg = geno_config_validate(&c);
    if (!msg) fail_msg("callback name '%s' was accepted", bad[i]);
    assert_non_null(strstr(msg, "Unknown host callback"));
    geno_free(msg);
  }
  geno_callback null_name = {NULL, dummy_cb, NULL};
  geno_config c;
  geno_config_init(&c);
  c.callbacks = &null_name;
  c.ncallbacks = 1;
  expect_invalid(&c, "Unknown host callback");
}

static void callback_without_function_is_rejected(void **state) {
  (void)state;
  geno_callback cb = {"fs_read_text", NULL, NULL};
  geno_config c;
  geno_config_init(&c);
  c.callbacks = &cb;
  c.ncallbacks = 1;
  expect_invalid(&c, "no function");
  c.callbacks = NULL; /* count without array */
  expect_invalid(&c, "callbacks is NULL");
  c.ncallbacks = 0;
  c.nmodules = 2;
  expect_invalid(&c, "modules is NULL");
}

/* A callback for a capability that is not granted is valid configuration
 * (it simply never runs: see test_gate.c), as in the reference, which only
 * warns. */
static void callback_for_ungranted_capability_is_valid(void **state) {
  (void)state;
  geno_callback cb = {"fs_read_text", dummy_cb, NULL};
  geno_config c;
  geno_config_init(&c);
  c.callbacks = &cb;
  c.ncallbacks = 1;
  assert_null(geno_config_validate(&c)); /* capabilities unset */
  c.capabilities_set = true;
  c.capabilities = GENO_CAP_PRINT;
  assert_null(geno_config_validate(&c));
}

static int monitor_calls;
static char monitor_op[32];

/* max_integer_bits 0 is refused (the reference requires a positive
 * number); it used to become 1 bit silently. */
static void zero_integer_bits_is_a_configuration_error(void **state) {
  (void)state;
  geno_config c;
  geno_config_init(&c);
  c.max_integer_bits = 0;
  expect_invalid(&c, "max_integer_bits");
  const char *src = "func main() -> Int\n  return 1\nend func\n";
  geno_result *r = geno_run(src, strlen(src), "t.geno", &c);
  assert_false(geno_result_ok(r));
  assert_non_null(strstr(geno_result_diagnostic(r, 0)->message, "max_integer_bits"));
  geno_result_free(r);
  c.max_integer_bits = 1; /* 1 bit: 1 fits, 2 does not */
  r = geno_run(src, strlen(src), "t.geno", &c);
  assert_true(geno_result_ok(r));
  geno_result_free(r);
  const char *two = "func main() -> Int\n  let x = 1\n  return x + 1\nend func\n";
  r = geno_run(two, strlen(two), "t.geno", &c);
  assert_string_equal(unit_codes(r), "E504");
  geno_result_free(r);
}

/* max_collection_size 0 means what it says: an empty list or string is
 * allowed, one element or one character is not. */
static void zero_collection_size_allows_only_empty_values(void **state) {
  (void)state;
  geno_config c;
  geno_config_init(&c);
  c.max_collection_size = 0;
  assert_null(geno_config_validate(&c));
  const char *empty = "func main() -> Int\n  let xs: List[Int] = []\n  return length(xs)\nend func\n";
  geno_result *r = geno_run(empty, strlen(empty), "t.geno", &c);
  assert_true(geno_result_ok(r));
  geno_result_free(r);
  /* main's value text is no String of the program: under a limit of 5
   * the list's 26 characters are fine (so says the reference) */
  c.max_collection_size = 5;
  const char *list = "func main() -> List[Int]\n  return [100000, 200000, 300000]\nend func\n";
  r = geno_run(list, strlen(list), "t.geno", &c);
  assert_true(geno_result_ok(r));
  assert_string_equal(geno_result_value_text(r), "[100000, 200000, 300000]");
  geno_result_free(r);
  c.max_collection_size = 0;
  const char *one = "func main() -> Int\n  let xs = [1]\n  return length(xs)\nend func\n";
  r = geno_run(one, strlen(one), "t.geno", &c);
  assert_string_equal(unit_codes(r), "E504");
  geno_result_free(r);
  const char *text = "func main() -> Int\n  let s = to_string(7)\n  return length(s)\nend func\n";
  r = geno_run(text, strlen(text), "t.geno", &c);
  assert_string_equal(unit_codes(r), "E504");
  geno_result_free(r);
}

static void count_monitor(const geno_result *r, const char *op, void *ud) {
  (void)r;
  (void)ud;
  monitor_calls++;
  snprintf(monitor_op, sizeof monitor_op, "%s", op);
}

/* An invalid configuration never reaches a child process. */
static void isolated_run_rejects_invalid_config_without_forking(void **state) {
  (void)state;
  geno_callback cb = {"htttp_fetch", dummy_cb, NULL};
  geno_config c;
  geno_config_init(&c);
  c.callbacks = &cb;
  c.ncallbacks = 1;
  c.monitor = count_monitor;
  monitor_calls = 0;
  geno_result *r = geno_run_isolated("func main() -> Int\n    return 1\nend func\n", 40, "t.geno", &c);
  assert_non_null(r);
  assert_false(geno_result_ok(r));
  assert_int_equal(geno_result_diagnostic_count(r), 1);
  assert_string_equal(geno_result_diagnostic(r, 0)->code, "E499");
  assert_non_null(strstr(unit_message(r), "htttp_fetch"));
  assert_true(unit_no_children());
  assert_int_equal(monitor_calls, 1);
  assert_string_equal(monitor_op, "run_isolated");
  geno_result_free(r);

  geno_config_init(&c);
  c.cpu_seconds = NAN;
  r = geno_run_isolated("", 0, "t.geno", &c);
  assert_false(geno_result_ok(r));
  assert_non_null(strstr(unit_message(r), "cpu_seconds"));
  geno_result_free(r);
  c.cpu_seconds = -2;
  r = geno_run_isolated("", 0, "t.geno", &c);
  assert_false(geno_result_ok(r));
  geno_result_free(r);
}

/* geno_config_validate itself refuses what a run would refuse later: a
 * cpu_seconds that is NaN, infinite or negative (accepted before, then
 * refused by geno_run_isolated only), and modules without names or given
 * twice (the first silently won). geno_run refuses the same up front. */
static void validate_refuses_cpu_seconds_and_duplicate_modules(void **state) {
  (void)state;
  static const double bad_cpu[] = {NAN, -1.0, INFINITY, -INFINITY, 2e9};
  for (size_t i = 0; i < sizeof bad_cpu / sizeof bad_cpu[0]; i++) {
    geno_config c;
    geno_config_init(&c);
    c.cpu_seconds = bad_cpu[i];
    char *why = geno_config_validate(&c);
    assert_non_null(why);
    assert_non_null(strstr(why, "cpu_seconds"));
    free(why);
    geno_result *r = geno_run("func main() -> Int\n    return 1\nend func\n", 40, "t.geno", &c);
    assert_false(geno_result_ok(r));
    assert_non_null(strstr(unit_message(r), "cpu_seconds"));
    geno_result_free(r);
  }
  geno_config c;
  geno_config_init(&c);
  c.cpu_seconds = 2.5;
  assert_null(geno_config_validate(&c));

  geno_module mods[3] = {{"Util", "export func f() -> Int\n    return 1\nend func\n", 45},
                         {"Other", "", 0},
                         {"Util", "export func f() -> Int\n    return 2\nend func\n", 45}};
  c.modules = mods;
  c.nmodules = 3;
  char *why = geno_config_validate(&c);
  assert_non_null(why);
  assert_non_null(strstr(why, "'Util'"));
  assert_non_null(strstr(why, "more than once"));
  free(why);
  for (int iso = 0; iso < 2; iso++) {
    const char *src = "import Util\nfunc main() -> Int\n    return Util.f()\nend func\n";
    geno_result *r = iso ? geno_run_isolated(src, strlen(src), "t.geno", &c) : geno_run(src, strlen(src), "t.geno", &c);
    assert_false(geno_result_ok(r));
    assert_non_null(strstr(unit_message(r), "more than once"));
    geno_result_free(r);
  }
  c.nmodules = 2;
  assert_null(geno_config_validate(&c));
  mods[1].name = NULL;
  why = geno_config_validate(&c);
  assert_non_null(why);
  assert_non_null(strstr(why, "no name"));
  free(why);
}

/* Every entry point that takes a config validates it once, up front, with
 * geno_config_validate's own message: the runs as E499, parse, check and
 * the JavaScript compilers as E204. geno_parse, geno_check and the
 * compilers used to take a NaN cpu_seconds, a duplicated module or a
 * zero max_integer_bits without a word. Nothing is run or forked, and
 * the monitor hears of it once. */
static int entry_monitor_calls;
static void entry_monitor(const geno_result *r, const char *op, void *ud) {
  (void)r, (void)op, (void)ud;
  entry_monitor_calls++;
}

static void every_entry_point_validates_its_config(void **state) {
  (void)state;
  static const char src[] = "func main() -> Int\n    return 1\nend func\n";
  geno_module twice[2] = {{"Util", "export func f() -> Int\n    return 1\nend func\n", 45},
                          {"Util", "export func f() -> Int\n    return 2\nend func\n", 45}};
  for (int which = 0; which < 3; which++) {
    geno_config c;
    geno_config_init(&c);
    if (which == 0) c.cpu_seconds = NAN;
    if (which == 1) {
      c.modules = twice;
      c.nmodules = 2;
    }
    if (which == 2) c.max_integer_bits = 0;
    c.monitor = entry_monitor;
    char *why = geno_config_validate(&c);
    assert_non_null(why);
    for (int entry = 0; entry < 7; entry++) {
      geno_result *r = NULL;
      char *text = NULL;
      size_t text_len = 99;
      entry_monitor_calls = 0;
      switch (entry) {
      case 0: r = geno_run(src, strlen(src), "t.geno", &c); break;
      case 1: r = geno_run_isolated(src, strlen(src), "t.geno", &c); break;
      case 2: r = geno_parse(src, strlen(src), "t.geno", &c); break;
      case 3: r = geno_check(src, strlen(src), "t.geno", &c); break;
      case 4: r = geno_check_isolated(src, strlen(src), "t.geno", &c); break;
      case 5: r = geno_compile_js(src, strlen(src), "t.geno", &c, 0, &text, &text_len); break;
      case 6: r = geno_compile_html(src, strlen(src), "t.geno", &c, NULL, 100, 100, false, &text, &text_len); break;
      }
      assert_non_null(r);
      if (geno_result_ok(r) || geno_result_diagnostic_count(r) != 1)
        fail_msg("config %d, entry point %d: %d diagnostics (%s)", which, entry, (int)geno_result_diagnostic_count(r),
                 unit_codes(r));
      assert_string_equal(geno_result_diagnostic(r, 0)->code, entry < 2 ? "E499" : "E204");
      assert_string_equal(geno_result_diagnostic(r, 0)->message, why);
      assert_null(text);
      if (entry < 5) assert_int_equal(entry_monitor_calls, 1); /* the compilers have no monitor call */
      geno_result_free(r);
    }
    geno_free(why);
    assert_true(unit_no_children());
  }
}

/* Binary compatibility (geno.h): struct_size tells the library how much of
 * the caller's config exists; a config not from geno_config_init is
 * refused by every entry point with a diagnostic, never read blindly. */
static const char loop_src[] = "func main() -> Int\n    var i = 0\n    while i < 100000 do\n        i = i + 1\n    end while\n    return i\nend func\n";

static void struct_size_is_set_by_init(void **state) {
  (void)state;
  geno_config c;
  memset(&c, 0, sizeof c);
  geno_config_init(&c);
  assert_int_equal(c.struct_size, sizeof c);
  assert_true(GENO_CONFIG_MIN_SIZE <= sizeof c);
}

static void config_without_struct_size_is_refused_everywhere(void **state) {
  (void)state;
  geno_config c;
  geno_config_init(&c);
  c.struct_size = 0;
  char *msg = geno_config_validate(&c);
  assert_non_null(msg);
  assert_non_null(strstr(msg, "geno_config_init"));
  geno_free(msg);
  c.struct_size = GENO_CONFIG_MIN_SIZE - 1;
  geno_result *r = geno_run(loop_src, strlen(loop_src), "t.geno", &c);
  assert_false(geno_result_ok(r));
  assert_string_equal(geno_result_diagnostic(r, 0)->code, "E499");
  assert_non_null(strstr(unit_message(r), "struct_size"));
  geno_result_free(r);
  r = geno_check(loop_src, strlen(loop_src), "t.geno", &c);
  assert_false(geno_result_ok(r));
  assert_string_equal(geno_result_diagnostic(r, 0)->code, "E204");
  geno_result_free(r);
  r = geno_parse(loop_src, strlen(loop_src), "t.geno", &c);
  assert_false(geno_result_ok(r));
  assert_string_equal(geno_result_diagnostic(r, 0)->code, "E204");
  geno_result_free(r);
  r = geno_run_isolated(loop_src, strlen(loop_src), "t.geno", &c);
  assert_false(geno_result_ok(r));
  assert_string_equal(geno_result_diagnostic(r, 0)->code, "E499");
  assert_true(unit_no_children());
  geno_result_free(r);
}

/* A binding built against a newer header passes a larger config: its
 * known fields are read, a zero tail is accepted, a non-zero one refused. */
static void larger_config_from_a_newer_header(void **state) {
  (void)state;
  enum { EXTRA = 24 };
  unsigned char *mem = calloc(1, sizeof(geno_config) + EXTRA);
  assert_non_null(mem);
  geno_config *c = (geno_config *)(void *)mem;
  geno_config_init(c);
  c->struct_size = sizeof(geno_config) + EXTRA;
  c->max_steps = 50;
  geno_result *r = geno_run(loop_src, strlen(loop_src), "t.geno", c);
  assert_false(geno_result_ok(r));
  assert_string_equal(geno_result_diagnostic(r, 0)->code, "E503"); /* max_steps was read */
  geno_result_free(r);
  c->max_steps = 0;
  r = geno_run(loop_src, strlen(loop_src), "t.geno", c);
  assert_true(geno_result_ok(r));
  assert_string_equal(geno_result_value_json(r), "100000");
  geno_result_free(r);
  mem[sizeof(geno_config) + EXTRA - 1] = 1;
  r = geno_run(loop_src, strlen(loop_src), "t.geno", c);
  assert_false(geno_result_ok(r));
  assert_non_null(strstr(unit_message(r), "newer geno.h"));
  geno_result_free(r);
  free(mem);
}

static geno_value *failing_cb(const char *name, const geno_value *const *args, size_t nargs, void *ud,
                              char **error) {
  (void)name, (void)args, (void)nargs, (void)ud;
  const char m[] = "host says no";
  *error = geno_alloc(sizeof m);
  if (*error) memcpy(*error, m, sizeof m);
  return NULL;
}

/* geno_alloc'd messages are taken and released by the library (ASan's
 * leak check holds the other half); geno_free accepts NULL. */
static void alloc_and_free_cross_the_boundary(void **state) {
  (void)state;
  geno_free(NULL);
  geno_callback cb = {"print", failing_cb, NULL};
  geno_config c;
  geno_config_init(&c);
  c.capabilities_set = true;
  c.capabilities = GENO_CAP_PRINT;
  c.callbacks = &cb;
  c.ncallbacks = 1;
  const char src[] = "func main() -> Unit\n    print(\"x\")\nend func\n";
  geno_result *r = geno_run(src, strlen(src), "t.geno", &c);
  assert_false(geno_result_ok(r));
  assert_non_null(strstr(unit_message(r), "host says no"));
  char *json = geno_result_to_json(r);
  assert_non_null(json);
  geno_free(json);
  geno_result_free(r);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(validate_refuses_cpu_seconds_and_duplicate_modules),
      cmocka_unit_test(every_entry_point_validates_its_config),
      cmocka_unit_test(defaults_match_the_header),
      cmocka_unit_test(validate_null_is_valid),
      cmocka_unit_test(timeout_must_be_finite_and_non_negative),
      cmocka_unit_test(unknown_capability_bits_are_rejected),
      cmocka_unit_test(unknown_callback_name_fails_at_config_time),
      cmocka_unit_test(callback_without_function_is_rejected),
      cmocka_unit_test(callback_for_ungranted_capability_is_valid),
      cmocka_unit_test(isolated_run_rejects_invalid_config_without_forking),
      cmocka_unit_test(zero_integer_bits_is_a_configuration_error),
      cmocka_unit_test(zero_collection_size_allows_only_empty_values),
      cmocka_unit_test(struct_size_is_set_by_init),
      cmocka_unit_test(config_without_struct_size_is_refused_everywhere),
      cmocka_unit_test(larger_config_from_a_newer_header),
      cmocka_unit_test(alloc_and_free_cross_the_boundary),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
